//! Where each terrain type lies: the weight `w ∈ [0, 1]` of the second ("rocky") type at a
//! point, with its gradient, from a noise field or from a small latitude–longitude grid.

use crate::noise::Fbm;
use tumble_math::{Mat3, Vec3};

/// The region mask of a [`super::Terrain`].
#[derive(Clone, Debug, PartialEq)]
pub enum Region {
    /// One terrain type (the sandy heights) everywhere: `w = 0`.
    Uniform,
    /// A noise field: `w = S((R(p) − threshold)/width + ½)`, `S` the cubic smoothstep clamped
    /// to [0, 1], `R` an fBm (unitless; its amplitude sets the scale of `threshold` and `width`).
    Noise {
        /// The region field.
        field: Fbm,
        /// Region value at the middle of the transition.
        threshold: f64,
        /// Width of the transition in region values (> 0).
        width: f64,
    },
    /// A latitude–longitude grid of weights.
    Grid(RegionGrid),
}

impl Region {
    /// The rocky weight `w ∈ [0, 1]` and its gradient at `p` (inlined, so that a noise mask is
    /// compiled into the terrain's query kernels).
    #[inline(always)]
    pub fn weight(&self, p: &Vec3) -> (f64, Vec3) {
        match self {
            Region::Uniform => (0.0, Vec3::zeros()),
            Region::Noise { field, threshold, width } => smoothstep(*threshold, *width, field.eval(p)),
            Region::Grid(g) => g.weight(p),
        }
    }

    /// [`Region::weight`] at each of `points` into `out` (of the same length), each its bits: a
    /// noise mask's octaves as lanes ([`Fbm::eval_many`]).
    #[inline(always)]
    pub fn weight_many(&self, points: &[Vec3], out: &mut [(f64, Vec3)]) {
        match self {
            Region::Noise { field, threshold, width } => {
                field.eval_many(points, out);
                for o in out.iter_mut() {
                    *o = smoothstep(*threshold, *width, *o);
                }
            }
            _ => {
                for (p, o) in points.iter().zip(out.iter_mut()) {
                    *o = self.weight(p);
                }
            }
        }
    }
}

/// A noise mask's weight from its field's value and gradient `(r, ∇r)`: the cubic smoothstep
/// of `(r − threshold)/width + ½`.
#[inline(always)]
fn smoothstep(threshold: f64, width: f64, (r, dr): (f64, Vec3)) -> (f64, Vec3) {
    let x = (r - threshold) / width + 0.5;
    if x <= 0.0 {
        (0.0, Vec3::zeros())
    } else if x >= 1.0 {
        (1.0, Vec3::zeros())
    } else {
        (x * x * (3.0 - 2.0 * x), 6.0 * x * (1.0 - x) / width * dr)
    }
}

/// Weights on the nodes of a latitude–longitude grid about a centre and a pole, interpolated
/// bilinearly in latitude and longitude.
///
/// Row `i` of `rows` lies at latitude `−90° + 180° i/(rows − 1)` (the first and last rows on the
/// poles, where each is replaced by its mean so the weight is single-valued there), column `j`
/// of `cols` at longitude `−180° + 360° j/cols` (periodic: no column repeats −180° at +180°).
/// The gradient is that of the bilinear form through `∇lat = (ẑ − (z/|r|²) r)/ρ` and
/// `∇lon = (−y, x, 0)/ρ²` (`ρ` the distance from the pole axis); next to a pole the weight is
/// linear in the angle from it, so the product stays bounded. Latitudes and longitudes are
/// taken as [`RegionGrid::lat_lon`] gives them: about `centre`, in the frame whose rows are
/// `axes`.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionGrid {
    /// Centre of the latitudes and longitudes, m.
    pub centre: Vec3,
    /// Rows: the direction of longitude 0 on the equator, of longitude 90° east, and the pole.
    pub axes: Mat3,
    rows: usize,
    cols: usize,
    values: Vec<f64>,
}

impl RegionGrid {
    /// A grid from `values[row][col]` (rows south to north): at least 2 rows and 1 column, all
    /// rows of one length, every value in [0, 1].
    pub fn new(centre: Vec3, axes: Mat3, values: &[Vec<f64>]) -> Result<Self, String> {
        let rows = values.len();
        let cols = values.first().map_or(0, Vec::len);
        if rows < 2 || cols < 1 {
            return Err(format!("needs at least 2 rows (pole to pole) of at least 1 value, got {rows} rows"));
        }
        if let Some(i) = values.iter().position(|r| r.len() != cols) {
            return Err(format!(
                "row {i} has {} values, row 0 has {cols}: every row needs the same count",
                values[i].len()
            ));
        }
        if let Some((i, j)) = (0..rows).flat_map(|i| (0..cols).map(move |j| (i, j))).find(|&(i, j)| {
            let v = values[i][j];
            !(0.0..=1.0).contains(&v)
        }) {
            return Err(format!("value [{i}][{j}] = {} is not a weight in [0, 1]", values[i][j]));
        }
        let mut flat: Vec<f64> = values.iter().flatten().copied().collect();
        for i in [0, rows - 1] {
            let mean = flat[i * cols..(i + 1) * cols].iter().sum::<f64>() / cols as f64;
            flat[i * cols..(i + 1) * cols].fill(mean);
        }
        Ok(Self { centre, axes, rows, cols, values: flat })
    }

    /// Latitude and longitude of `p`, radians.
    pub fn lat_lon(&self, p: &Vec3) -> (f64, f64) {
        let r = self.axes * (p - self.centre);
        let n = r.norm();
        if n == 0.0 {
            return (0.0, 0.0);
        }
        ((r.z / n).clamp(-1.0, 1.0).asin(), r.y.atan2(r.x))
    }

    /// Row count, column count and the weights row by row (south to north, each pole's row
    /// holding its mean), as [`RegionGrid::weight`] reads them.
    pub fn table(&self) -> (usize, usize, &[f64]) {
        (self.rows, self.cols, &self.values)
    }

    fn at(&self, i: usize, j: usize) -> f64 {
        self.values[i * self.cols + j % self.cols]
    }

    /// The weight and its gradient at `p`.
    pub fn weight(&self, p: &Vec3) -> (f64, Vec3) {
        use std::f64::consts::{PI, TAU};
        let r = self.axes * (p - self.centre);
        let rho2 = r.x * r.x + r.y * r.y;
        let n2 = rho2 + r.z * r.z;
        if n2 == 0.0 {
            return (self.at(self.rows / 2, 0), Vec3::zeros());
        }
        let (lat, lon) = (r.z.atan2(rho2.sqrt()), r.y.atan2(r.x));
        let dlat = PI / (self.rows - 1) as f64;
        let dlon = TAU / self.cols as f64;
        let fi = ((lat + 0.5 * PI) / dlat).clamp(0.0, (self.rows - 1) as f64);
        let fj = (lon + PI).rem_euclid(TAU) / dlon;
        let i = (fi.floor() as usize).min(self.rows - 2);
        let j = (fj.floor() as usize).min(self.cols - 1);
        let (s, t) = (fi - i as f64, fj - j as f64);
        let (v00, v01, v10, v11) = (self.at(i, j), self.at(i, j + 1), self.at(i + 1, j), self.at(i + 1, j + 1));
        let w = (1.0 - s) * ((1.0 - t) * v00 + t * v01) + s * ((1.0 - t) * v10 + t * v11);
        let dw_ds = (1.0 - t) * (v10 - v00) + t * (v11 - v01);
        let dw_dt = (1.0 - s) * (v01 - v00) + s * (v11 - v10);
        if rho2 == 0.0 {
            return (w, Vec3::zeros());
        }
        let rho = rho2.sqrt();
        let grad_lat = (Vec3::z() - r * (r.z / n2)) / rho;
        let grad_lon = Vec3::new(-r.y, r.x, 0.0) / rho2;
        let g = grad_lat * (dw_ds / dlat) + grad_lon * (dw_dt / dlon);
        (w, self.axes.transpose() * g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tumble_math::numdiff::central_gradient;

    fn grid() -> RegionGrid {
        // 5 rows (every 45°), 8 columns (every 45°), a tilted frame about an offset centre.
        let values: Vec<Vec<f64>> =
            (0..5).map(|i| (0..8).map(|j| ((i * 3 + j * 5) % 7) as f64 / 6.0).collect()).collect();
        let axes = tumble_math::UnitQuat::from_euler_angles(0.3, -0.2, 0.7).to_rotation_matrix().into_inner();
        RegionGrid::new(Vec3::new(10.0, -5.0, 2.0), axes, &values).expect("valid")
    }

    #[test]
    fn nodes_interpolate_and_the_gradient_matches_finite_differences() {
        let g = grid();
        // On a node away from the poles the weight is the node's value.
        let dir = |lat: f64, lon: f64| {
            g.centre + g.axes.transpose() * Vec3::new(lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin()) * 100.0
        };
        let (lat, lon) = (45f64.to_radians(), (-180f64 + 3.0 * 45.0).to_radians());
        let (w, _) = g.weight(&dir(lat, lon));
        assert!((w - ((3 * 3 + 3 * 5) % 7) as f64 / 6.0).abs() < 1e-12, "{w}");
        // Inside cells (not on their edges, where the bilinear gradient jumps), and close to a
        // pole, where ∇lon grows as 1/ρ but the weight's change with longitude shrinks with it.
        for k in 0..300 {
            let lat = (-89.0 + 178.0 * ((k as f64 * 0.618_034).fract())).to_radians();
            let lon = (-179.0 + 358.0 * ((k as f64 * 0.414_214).fract())).to_radians();
            let p = dir(lat, lon) * (1.0 + 0.001 * k as f64);
            let (w, gw) = g.weight(&p);
            assert!((0.0..=1.0).contains(&w));
            let num = central_gradient(|q| g.weight(q).0, &p, 1e-7);
            assert!((gw - num).norm() < 1e-6 * (1.0 + num.norm()), "lat {lat} lon {lon}: {gw} vs {num}");
            assert!(gw.norm() < 1.0, "bounded gradient: {}", gw.norm());
        }
        // Each pole takes its row's mean.
        let (w, _) = g.weight(&dir(0.5 * std::f64::consts::PI, 0.0));
        let mean = (0..8).map(|j| ((4 * 3 + j * 5) % 7) as f64 / 6.0).sum::<f64>() / 8.0;
        assert!((w - mean).abs() < 1e-12);
    }

    #[test]
    fn bad_grids_are_refused_with_the_reason() {
        let id = Mat3::identity();
        assert!(RegionGrid::new(Vec3::zeros(), id, &[vec![0.5]]).unwrap_err().contains("2 rows"));
        assert!(RegionGrid::new(Vec3::zeros(), id, &[vec![0.5, 0.5], vec![0.5]]).unwrap_err().contains("row 1"));
        assert!(RegionGrid::new(Vec3::zeros(), id, &[vec![0.5], vec![1.5]]).unwrap_err().contains("[1][0]"));
    }
}
