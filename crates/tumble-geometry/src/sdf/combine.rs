//! Combinations of fields: union, smooth union, rigid placement.

use super::Sdf;
use tumble_math::{Pose, Vec3};

/// Union (minimum) of fields: exact outside, a bound inside where parts overlap.
pub struct Union(pub Vec<Box<dyn Sdf>>);

impl Sdf for Union {
    fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        self.0.iter().map(|s| s.eval(p)).min_by(|a, b| a.0.total_cmp(&b.0)).unwrap_or((f64::INFINITY, Vec3::z()))
    }
}

/// Smooth union with blend radius `k` (m): the polynomial smooth minimum
/// `h = clamp(½ + ½(b − a)/k, 0, 1)`, `d = b·(1−h) + a·h − k·h·(1−h)` (Quilez), applied pairwise
/// left to right; its gradient blends the parts' gradients with the same weights (exact
/// derivative of `d`). A bound on the true distance within `k` of the seam.
pub struct SmoothUnion {
    /// The fields.
    pub parts: Vec<Box<dyn Sdf>>,
    /// Blend radius, m.
    pub k: f64,
}

impl Sdf for SmoothUnion {
    fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        let mut it = self.parts.iter().map(|s| s.eval(p));
        let Some(first) = it.next() else { return (f64::INFINITY, Vec3::z()) };
        it.fold(first, |(a, ga), (b, gb)| {
            if self.k <= 0.0 {
                return if a <= b { (a, ga) } else { (b, gb) };
            }
            let h = (0.5 + 0.5 * (b - a) / self.k).clamp(0.0, 1.0);
            let d = b * (1.0 - h) + a * h - self.k * h * (1.0 - h);
            // ∂d/∂a = h and ∂d/∂b = 1 − h wherever h is not clamped (the h-terms cancel).
            (d, ga * h + gb * (1.0 - h))
        })
    }
}

/// A field placed in the world: `X_WB` maps the field's body frame into the world.
pub struct Placed<S: Sdf> {
    /// The field in its body frame.
    pub sdf: S,
    /// Its pose in the world.
    pub X_WB: Pose,
}

impl<S: Sdf> Sdf for Placed<S> {
    fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        let (d, g) = self.sdf.eval(&self.X_WB.inverse().transform_point(p));
        (d, self.X_WB.transform_vector(&g))
    }
}
