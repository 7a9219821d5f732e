//! Procedural terrain: a base body perturbed by fBm heights, with two surface types (smooth
//! "sandy" and rough "rocky" ground, the document's words) blended by a region mask.
//!
//! Height `h(p) = (1 − w) F_s(p) + w F_r(p)`, with the rocky weight `w ∈ [0, 1]` of the
//! [`Region`] (a noise field or a latitude–longitude grid), and field `φ(p) = φ_base(p) − h(p)`:
//! positive heights raise the ground; the heights and a noise mask take `p − origin`, so terrain
//! moves with a shape translated along with its origin. The gradient is exact:
//! `∇φ = ∇φ_base − (1 − w)∇F_s − w∇F_r − (F_r − F_s)∇w`.
//!
//! The perturbed field is no longer an exact distance: it is Lipschitz with constant
//! `1 + max|∇h|`, so keep `amplitude · frequency` small (≪ 1) for contact queries that treat it
//! as a distance.

use super::Sdf;
use super::region::Region;
use crate::noise::Fbm;
use tumble_math::Vec3;

/// Terrain on a base field.
pub struct Terrain {
    /// The body without terrain.
    pub base: Box<dyn Sdf>,
    /// Heights of the smooth ground.
    pub sandy: Fbm,
    /// Heights of the rough ground.
    pub rocky: Fbm,
    /// Where the ground is rocky.
    pub region: Region,
    /// The point the heights and a noise mask are measured from (a shape's centre of mass, so
    /// that terrain moves with it), m.
    pub origin: Vec3,
}

impl Terrain {
    /// Rocky weight `w ∈ [0, 1]` and its gradient at `p`.
    #[inline(always)]
    pub fn rocky_weight(&self, p: &Vec3) -> (f64, Vec3) {
        match &self.region {
            Region::Noise { .. } => self.region.weight(&(p - self.origin)),
            _ => self.region.weight(p),
        }
    }

    /// A bound of `|h|` everywhere, m.
    pub fn height_bound(&self) -> f64 {
        match self.region {
            Region::Uniform => self.sandy.bound(),
            _ => self.sandy.bound().max(self.rocky.bound()),
        }
    }
}

impl Sdf for Terrain {
    fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        let mut out = [(0.0, Vec3::zeros())];
        self.eval_many(std::slice::from_ref(p), &mut out);
        out[0]
    }
    fn eval_many(&self, points: &[Vec3], out: &mut [(f64, Vec3)]) {
        tumble_math::wide::dispatch(Many { terrain: self, points, out });
    }
}

/// Points of a terrain (one, or a body's vertices at once): a kernel
/// [`tumble_math::wide::dispatch`] builds twice.
struct Many<'a> {
    terrain: &'a Terrain,
    points: &'a [Vec3],
    out: &'a mut [(f64, Vec3)],
}

impl tumble_math::wide::Kernel for Many<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        for (p, o) in self.points.chunks(BLOCK).zip(self.out.chunks_mut(BLOCK)) {
            self.terrain.block(p, o);
        }
    }
}

/// Points a terrain answers together (a lander's query chunk).
const BLOCK: usize = 8;

impl Terrain {
    /// The field at up to [`BLOCK`] points, each the bits of the module's formula taken one
    /// point and one octave at a time: the base field point by point, then the region's
    /// weights, the sandy heights where a point's weight is below 1 and the rocky heights where
    /// it is above 0 (inside a region only its own heights count, and `∇w = 0` there), each
    /// fBm with its (point, octave) pairs as lanes ([`Fbm::eval_many`]).
    #[inline(always)]
    fn block(&self, p: &[Vec3], out: &mut [(f64, Vec3)]) {
        let n = p.len().min(out.len()).min(BLOCK);
        let zero = (0.0, Vec3::zeros());
        let (mut q, mut weight, mut s, mut r) = ([Vec3::zeros(); BLOCK], [zero; BLOCK], [zero; BLOCK], [zero; BLOCK]);
        for i in 0..n {
            out[i] = self.base.eval(&p[i]);
            q[i] = p[i] - self.origin;
        }
        match &self.region {
            Region::Noise { .. } => self.region.weight_many(&q[..n], &mut weight[..n]),
            _ => self.region.weight_many(&p[..n], &mut weight[..n]),
        }
        heights(&self.sandy, &q[..n], |w| w != 1.0, &weight[..n], &mut s[..n]);
        heights(&self.rocky, &q[..n], |w| w != 0.0, &weight[..n], &mut r[..n]);
        for i in 0..n {
            let ((d, g), (w, dw), (s, ds), (r, dr)) = (out[i], weight[i], s[i], r[i]);
            out[i] = if w == 0.0 {
                (d - s, g - ds)
            } else if w == 1.0 {
                (d - r, g - dr)
            } else {
                let h = (1.0 - w) * s + w * r;
                (d - h, g - (1.0 - w) * ds - w * dr - (r - s) * dw)
            };
        }
    }
}

/// `field` at the points `q` whose weight passes `needed`, into their places in `out`.
#[inline(always)]
fn heights(field: &Fbm, q: &[Vec3], needed: impl Fn(f64) -> bool, weight: &[(f64, Vec3)], out: &mut [(f64, Vec3)]) {
    let (mut at, mut index, mut m) = ([Vec3::zeros(); BLOCK], [0usize; BLOCK], 0);
    for (i, (q, w)) in q.iter().zip(weight).enumerate() {
        if needed(w.0) {
            (at[m], index[m]) = (*q, i);
            m += 1;
        }
    }
    let mut found = [(0.0, Vec3::zeros()); BLOCK];
    field.eval_many(&at[..m], &mut found[..m]);
    for (&i, f) in index[..m].iter().zip(&found[..m]) {
        out[i] = *f;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdf::{RegionGrid, Sphere};

    fn terrain() -> Terrain {
        let f = |seed, amplitude, frequency| Fbm { seed, octaves: 4, lacunarity: 2.0, gain: 0.5, amplitude, frequency };
        Terrain {
            base: Box::new(Sphere { center: Vec3::zeros(), radius: 100.0 }),
            sandy: f(1, 0.2, 0.05),
            rocky: f(2, 2.0, 0.2),
            region: Region::Noise { field: f(3, 1.0, 0.01), threshold: 0.0, width: 0.3 },
            origin: Vec3::zeros(),
        }
    }

    /// The field as the module's doc writes it, one point and one octave at a time.
    fn one_at_a_time(t: &Terrain, p: &Vec3) -> (f64, Vec3) {
        let (d, g) = t.base.eval(p);
        let (w, dw) = t.rocky_weight(p);
        let q = p - t.origin;
        let ((s, ds), (r, dr)) = (t.sandy.eval(&q), t.rocky.eval(&q));
        let h = (1.0 - w) * s + w * r;
        if w == 0.0 {
            (d - s, g - ds)
        } else if w == 1.0 {
            (d - r, g - dr)
        } else {
            (d - h, g - (1.0 - w) * ds - w * dr - (r - s) * dw)
        }
    }

    /// Many points at once (`eval_many`'s lanes, and `eval`, a block of one) against one point
    /// and one octave at a time, to the bit:
    /// noise, uniform and grid regions, a shifted origin, points on the ground of both regions
    /// and the transition between them, far and on the lattice's edges (whole and negative
    /// coordinates), and non-finite points (NaN where one is NaN).
    #[test]
    fn many_points_at_once_give_the_bits_of_one() {
        let rows = vec![vec![0.0, 0.5, 1.0, 0.2], vec![1.0, 0.0, 0.3, 0.7], vec![0.4, 0.9, 0.0, 1.0]];
        let grid = RegionGrid::new(Vec3::new(1.0, -2.0, 0.5), tumble_math::Mat3::identity(), &rows).expect("grid");
        let regions = [terrain().region, Region::Uniform, Region::Grid(grid)];
        let mut g = tumble_math::Lcg::new(9);
        let mut points = Vec::new();
        for k in 0..6000 {
            let dir = Vec3::new(g.symmetric(), g.symmetric(), g.symmetric()).normalize();
            let r = match k % 4 {
                0 => 100.0 + g.symmetric(),
                1 => 100.0 + 1e3 * g.symmetric(),
                2 => (100.0 * g.unit()).round(),
                _ => 100.0 + 4.0 * g.symmetric(),
            };
            points.push(if k % 4 == 2 { dir.map(|c| (c * r).round()) } else { dir * r });
        }
        points.extend([Vec3::repeat(f64::NAN), Vec3::new(f64::INFINITY, 0.0, 1.0), Vec3::zeros(), Vec3::repeat(-0.0)]);
        for (n, region) in regions.into_iter().enumerate() {
            let t = Terrain { region, origin: Vec3::new(3.0, -1.5, 0.25), ..terrain() };
            let mut many = vec![(0.0, Vec3::zeros()); points.len()];
            t.eval_many(&points, &mut many);
            // A single point is a block of one: its octaves are the lanes.
            for (p, m) in points.iter().zip(&mut many).step_by(7) {
                *m = t.eval(p);
            }
            let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
            for (p, m) in points.iter().zip(&many) {
                let one = one_at_a_time(&t, p);
                assert!(
                    same(one.0, m.0) && (0..3).all(|k| same(one.1[k], m.1[k])),
                    "region {n} at {p:?}: {one:?} vs {m:?}"
                );
            }
        }
    }

    #[test]
    fn gradient_is_exact_and_regions_differ_in_roughness() {
        let t = terrain();
        let (mut sandy_h, mut rocky_h, mut seen) = (0.0_f64, 0.0_f64, [false; 2]);
        for k in 0..400 {
            let (th, ph) = (0.1 + 3.0 * (k as f64 * 0.618).fract(), std::f64::consts::TAU * (k as f64 * 0.414).fract());
            let p = Vec3::new(th.sin() * ph.cos(), th.sin() * ph.sin(), th.cos()) * (100.0 + 0.5 * (k % 3) as f64);
            let (d, g) = t.eval(&p);
            let num = tumble_math::numdiff::central_gradient(|q| t.distance(q), &p, 1e-5);
            assert!((g - num).norm() < 1e-6, "{p}: {g} vs {num}");
            let (w, _) = t.rocky_weight(&p);
            let height = (t.base.distance(&p) - d).abs();
            if w == 0.0 {
                sandy_h = sandy_h.max(height);
                seen[0] = true;
            }
            if w == 1.0 {
                rocky_h = rocky_h.max(height);
                seen[1] = true;
            }
        }
        assert!(seen[0] && seen[1], "both regions are sampled");
        assert!(sandy_h <= t.sandy.bound() && rocky_h > 2.0 * sandy_h, "sandy {sandy_h} m, rocky {rocky_h} m");
    }
}
