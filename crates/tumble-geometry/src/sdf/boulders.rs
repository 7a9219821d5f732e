//! Boulder fields: ellipsoidal boulders strewn over a ground field, their sizes drawn from a
//! cumulative size–frequency distribution, blended onto the ground with a small fillet.
//!
//! **Sizes.** The cumulative number of boulders per unit area larger than `D` follows the power
//! law `N(>D) ∝ D^−α` (Itokawa's boulders: α ≈ 3.1, Michikami et al. 2008; 67P's: α ≈ 3.6 above
//! 7 m, Pajola et al. 2015), truncated to `[d_min, d_max]`: with `u` uniform on [0, 1),
//! `D = d_min (1 − u (1 − (d_min/d_max)^α))^(−1/α)`. `D` is the longest dimension; the other two
//! are `D·b/a` and `D·c/a` (default ratios 0.71 and 0.5: laboratory fragments' 2 : √2 : 1,
//! Fujiwara et al. 1978; Itokawa's boulders measure 0.68 and 0.44, Michikami et al. 2010).
//!
//! **Placement.** `density · A` candidates (`A` the area of the ground's mesh, or of its
//! triangles that reach into a given ball) at uniformly distributed surface points, projected onto the ground field
//! by Newton steps `q ← q − φ ∇φ/|∇φ|²`, each kept if it lies within the disc and with
//! probability `weight(q)` (a region mask: boulders only on rocky ground, say). Each lies with its short axis along the ground's normal,
//! its long axis at a random azimuth, a fraction `burial` of its height below the ground.
//! Everything comes from one seed.
//!
//! **Field.** `φ = smin(φ_ground, φ_1, φ_2, …)`, the polynomial smooth minimum of
//! [`super::SmoothUnion`] with each boulder's own blend radius `k = c/2` (a fillet where it meets
//! the ground), `φ_i` the exact distance to ellipsoid `i`. Boulders are binned by size into
//! levels a factor 2 apart; each level hashes its boulders into cells of its own size, listing a
//! boulder in every cell within its bounding radius plus the level's reach `H + 2k` (`H` the
//! largest height of a boulder point above its ground point). A query looks up one cell per
//! level, and within it skips a boulder whose bounding sphere is farther than the blend from the
//! current value; a level whose whole layer lies below the query (`φ_ground > H + k`) adds the
//! lower bound `φ_ground − H − k/2` instead. The field is therefore exact wherever it is ≤ 0
//! (where contact acts) and a lower bound elsewhere, treating the ground as a distance (slope 1;
//! terrain steeper than that makes the bound approximate, as it does for contact). The cost of a
//! query is one ground evaluation, one binary search per level and the boulders within a blend
//! radius of the point: independent of how many boulders the body carries.

use super::{Ellipsoid, Sdf};
use crate::TriMesh;
use tumble_math::Lcg;
use tumble_math::{Mat3, Vec3};

/// Most boulders one field may hold.
pub const MAX_BOULDERS: usize = 1_000_000;

/// One boulder: an ellipsoid placed in the target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Boulder {
    /// Centre, m.
    pub centre: Vec3,
    /// Columns: the boulder's long, middle and short axes in the target's axes.
    pub axes: Mat3,
    /// Semi-axes `a ≥ b ≥ c`, m.
    pub semi_axes: Vec3,
    /// Blend radius with the ground and other boulders, m.
    pub blend: f64,
    /// Height of the centre above the ground point it was placed on, m.
    pub raised: f64,
}

impl Boulder {
    fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        let (d, n) = Ellipsoid { semi_axes: self.semi_axes }.eval(&(self.axes.transpose() * (p - self.centre)));
        (d, self.axes * n)
    }
}

/// Parameters of a boulder field (lengths in m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoulderSpec {
    /// Seed of sizes, places and azimuths.
    pub seed: u64,
    /// Exponent α of the cumulative size–frequency distribution `N(>D) ∝ D^−α` (> 0).
    pub alpha: f64,
    /// Smallest and largest longest dimension `D`.
    pub diameters: [f64; 2],
    /// Boulders with `D ≥ d_min` per m² of ground (where the weight is 1).
    pub density: f64,
    /// `b/a` and `c/a`, each in (0, 1], the second not above the first.
    pub axis_ratios: [f64; 2],
    /// Fraction of each boulder's height below the ground, in [0, 1).
    pub burial: f64,
    /// Only ground within this distance of this point, if given.
    pub within: Option<(Vec3, f64)>,
}

/// Longest dimension for a uniform draw `u ∈ [0, 1)`: the inverse of the truncated power law.
pub fn diameter(spec: &BoulderSpec, u: f64) -> f64 {
    let [lo, hi] = spec.diameters;
    lo * (1.0 - u * (1.0 - (lo / hi).powf(spec.alpha))).powf(-1.0 / spec.alpha)
}

/// Draws the boulders of `spec` on `ground`, sampling places on the triangles of `mesh` (a
/// surface near the ground's zero level) and keeping each with probability `weight`.
pub fn place_boulders(
    ground: &dyn Sdf,
    mesh: &TriMesh,
    spec: &BoulderSpec,
    weight: &dyn Fn(&Vec3) -> f64,
) -> Result<Vec<Boulder>, String> {
    let inside = |p: &Vec3| spec.within.is_none_or(|(c, r)| (p - c).norm() <= r);
    // Triangles whose bounding sphere meets the disc's ball: every place inside it can be drawn;
    // draws outside it are dropped below, which keeps the density per area.
    let near = |[a, b, c]: [Vec3; 3]| {
        let m = (a + b + c) / 3.0;
        let r = [a, b, c].iter().map(|v| (v - m).norm()).fold(0.0, f64::max);
        spec.within.is_none_or(|(o, radius)| (m - o).norm() <= radius + r)
    };
    let mut cum = Vec::new();
    let mut area = 0.0;
    for f in 0..mesh.faces.len() {
        let [a, b, c] = mesh.triangle(f);
        if near([a, b, c]) {
            area += 0.5 * (b - a).cross(&(c - a)).norm();
            cum.push((area, f));
        }
    }
    let expected = spec.density * area;
    if expected.is_nan() || expected > MAX_BOULDERS as f64 {
        return Err(format!(
            "{expected:.3e} boulders on {area:.4e} m² of ground exceed the {MAX_BOULDERS} a field may hold: lower the density, raise the smallest diameter or place them within a smaller region"
        ));
    }
    let mut rng = Lcg::new(spec.seed ^ 0xB0B0_1DE5_F1E1_D5ED);
    let mut out = Vec::with_capacity(expected.round() as usize);
    for _ in 0..expected.round() as usize {
        // A fixed number of draws per candidate, so one candidate's fate moves no other.
        let [pick, r1, r2, size, azimuth, keep] = [(); 6].map(|_| rng.unit());
        let k = cum.partition_point(|&(c, _)| c < pick * area).min(cum.len() - 1);
        let [a, b, c] = mesh.triangle(cum[k].1);
        let (r1, r2) = if r1 + r2 > 1.0 { (1.0 - r1, 1.0 - r2) } else { (r1, r2) };
        let Some((q, n)) = project(ground, a + (b - a) * r1 + (c - a) * r2) else { continue };
        if !inside(&q) || keep >= weight(&q) {
            continue;
        }
        out.push(boulder(spec, q, &n, diameter(spec, size), azimuth));
    }
    Ok(out)
}

/// The ground point nearest `q` by Newton steps on `φ`, and the unit normal there.
fn project(ground: &dyn Sdf, mut q: Vec3) -> Option<(Vec3, Vec3)> {
    for _ in 0..8 {
        let (d, g) = ground.eval(&q);
        let g2 = g.norm_squared();
        if !(g2 > 0.0 && d.is_finite()) {
            return None;
        }
        q -= g * (d / g2);
        if d.abs() < 1e-9 * (1.0 + q.norm()) {
            break;
        }
    }
    let (d, g) = ground.eval(&q);
    (d.abs() < 1e-6 * (1.0 + q.norm())).then(|| (q, g.normalize()))
}

fn boulder(spec: &BoulderSpec, q: Vec3, n: &Vec3, d: f64, azimuth: f64) -> Boulder {
    let a = 0.5 * d;
    let semi_axes = Vec3::new(a, a * spec.axis_ratios[0], a * spec.axis_ratios[1]);
    let reference = if n.x.abs() < 0.9 { Vec3::x() } else { Vec3::y() };
    let t0 = (reference - n * n.dot(&reference)).normalize();
    let (s, c) = (std::f64::consts::TAU * azimuth).sin_cos();
    let long = t0 * c + n.cross(&t0) * s;
    let raised = semi_axes.z * (1.0 - 2.0 * spec.burial);
    Boulder {
        centre: q + n * raised,
        axes: Mat3::from_columns(&[long, n.cross(&long), *n]),
        semi_axes,
        blend: 0.5 * semi_axes.z,
        raised,
    }
}

/// Boulders of one size class and their cells.
struct Level {
    cell: f64,
    /// Largest height of a boulder point above its ground point, m.
    height: f64,
    /// Largest blend radius, m.
    blend: f64,
    keys: Vec<[i64; 3]>,
    /// `starts[i]..starts[i + 1]` indexes `items` for `keys[i]`.
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl Level {
    fn new(boulders: &[Boulder], members: &[u32]) -> Self {
        let height =
            members.iter().map(|&i| boulders[i as usize].raised + boulders[i as usize].semi_axes.x).fold(0.0, f64::max);
        let blend = members.iter().map(|&i| boulders[i as usize].blend).fold(0.0, f64::max);
        let radius = members.iter().map(|&i| boulders[i as usize].semi_axes.x).fold(0.0, f64::max);
        let reach = height + 2.0 * blend;
        let cell = 2.0 * (radius + reach);
        let mut pairs: Vec<([i64; 3], u32)> = Vec::new();
        for &i in members {
            let b = &boulders[i as usize];
            let r = b.semi_axes.x + reach;
            let lo = (b.centre - Vec3::repeat(r)) / cell;
            let hi = (b.centre + Vec3::repeat(r)) / cell;
            for x in lo.x.floor() as i64..=hi.x.floor() as i64 {
                for y in lo.y.floor() as i64..=hi.y.floor() as i64 {
                    for z in lo.z.floor() as i64..=hi.z.floor() as i64 {
                        pairs.push(([x, y, z], i));
                    }
                }
            }
        }
        pairs.sort_unstable();
        let (mut keys, mut starts, mut items) = (Vec::new(), Vec::new(), Vec::with_capacity(pairs.len()));
        for (k, i) in pairs {
            if keys.last() != Some(&k) {
                keys.push(k);
                starts.push(items.len() as u32);
            }
            items.push(i);
        }
        starts.push(items.len() as u32);
        Self { cell, height, blend, keys, starts, items }
    }

    fn listed(&self, p: &Vec3) -> &[u32] {
        let k = [0, 1, 2].map(|a| (p[a] / self.cell).floor() as i64);
        match self.keys.binary_search(&k) {
            Ok(i) => &self.items[self.starts[i] as usize..self.starts[i + 1] as usize],
            Err(_) => &[],
        }
    }
}

/// A ground field with boulders on it.
pub struct BoulderField {
    /// The field without boulders.
    pub ground: Box<dyn Sdf>,
    boulders: Vec<Boulder>,
    levels: Vec<Level>,
}

impl BoulderField {
    /// The field of `boulders` on `ground`.
    pub fn new(ground: Box<dyn Sdf>, boulders: Vec<Boulder>) -> Self {
        let smallest = boulders.iter().map(|b| b.semi_axes.x).fold(f64::INFINITY, f64::min);
        let mut classes: Vec<Vec<u32>> = Vec::new();
        for (i, b) in boulders.iter().enumerate() {
            let level = (b.semi_axes.x / smallest).log2().floor().max(0.0) as usize;
            if classes.len() <= level {
                classes.resize(level + 1, Vec::new());
            }
            classes[level].push(i as u32);
        }
        let levels = classes.iter().filter(|c| !c.is_empty()).map(|c| Level::new(&boulders, c)).collect();
        Self { ground, boulders, levels }
    }

    /// The boulders, in the order they were drawn.
    pub fn boulders(&self) -> &[Boulder] {
        &self.boulders
    }

    /// The size classes' hashed cells, as [`Sdf::eval`] searches them (for a GPU kernel that
    /// evaluates the same field).
    pub fn levels(&self) -> impl Iterator<Item = LevelParts<'_>> {
        self.levels.iter().map(|l| LevelParts {
            cell: l.cell,
            height: l.height,
            blend: l.blend,
            keys: &l.keys,
            starts: &l.starts,
            items: &l.items,
        })
    }
}

/// One size class of a [`BoulderField`] as its query reads it: a point `p` looks up the cell
/// `⌊p/cell⌋` among the sorted `keys` and tests the boulders `items[starts[i]..starts[i + 1]]`;
/// where the ground's distance exceeds `height + blend` the class adds the bound
/// `φ_ground − height − blend/2` instead.
#[derive(Clone, Copy, Debug)]
pub struct LevelParts<'a> {
    /// Edge of the hash cells, m.
    pub cell: f64,
    /// Largest height of a boulder point above its ground point, m.
    pub height: f64,
    /// Largest blend radius, m.
    pub blend: f64,
    /// The occupied cells, sorted.
    pub keys: &'a [[i64; 3]],
    /// `starts[i]..starts[i + 1]` indexes `items` for `keys[i]`.
    pub starts: &'a [u32],
    /// Boulder indices.
    pub items: &'a [u32],
}

/// Polynomial smooth minimum and its weights (`SmoothUnion`'s).
fn smin((a, ga): (f64, Vec3), (b, gb): (f64, Vec3), k: f64) -> (f64, Vec3) {
    let h = (0.5 + 0.5 * (b - a) / k).clamp(0.0, 1.0);
    (b * (1.0 - h) + a * h - k * h * (1.0 - h), ga * h + gb * (1.0 - h))
}

impl Sdf for BoulderField {
    fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        self.over(p, self.ground.eval(p))
    }
    /// The ground at every point in one query (a terrain answers them as lanes), then the
    /// boulders over each: the bits of [`Sdf::eval`] point by point.
    fn eval_many(&self, points: &[Vec3], out: &mut [(f64, Vec3)]) {
        self.ground.eval_many(points, out);
        for (p, o) in points.iter().zip(out.iter_mut()) {
            *o = self.over(p, *o);
        }
    }
}

impl BoulderField {
    /// The field at `p` from the ground's value and gradient there.
    fn over(&self, p: &Vec3, (g0, gg): (f64, Vec3)) -> (f64, Vec3) {
        let (mut cur, mut below) = ((g0, gg), f64::INFINITY);
        for level in &self.levels {
            if g0 > level.height + level.blend {
                below = below.min(g0 - level.height - 0.5 * level.blend);
                continue;
            }
            for &i in level.listed(p) {
                let b = &self.boulders[i as usize];
                if (p - b.centre).norm() - b.semi_axes.x >= cur.0 + b.blend {
                    continue;
                }
                cur = smin(cur, b.eval(p), b.blend);
            }
        }
        if cur.0 > below { (below, gg) } else { cur }
    }
}

#[cfg(test)]
mod tests;
