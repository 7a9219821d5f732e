//! Signed distance fields: negative inside a body, zero on its surface, positive outside, with
//! the gradient (the outward unit normal of the closest surface point, for exact fields).
//!
//! Analytic fields ([`analytic`]): sphere, ellipsoid (exact distance, Eberly's robust method),
//! box, capsule, half-space; combinations ([`Union`], [`SmoothUnion`]) and rigid placement
//! ([`Placed`]). Grid fields ([`GridSdf`]) sample any field or a closed mesh's exact signed
//! distance and interpolate trilinearly.

pub mod analytic;
mod boulders;
mod combine;
mod extract;
mod grid;
mod region;
mod terrain;

pub use analytic::{BoxSdf, Capsule, Ellipsoid, HalfSpace, Sphere};
pub use boulders::{Boulder, BoulderField, BoulderSpec, LevelParts, MAX_BOULDERS, diameter, place_boulders};
pub use combine::{Placed, SmoothUnion, Union};
pub use extract::{mesh_from_grid, mesh_from_sdf};
pub use grid::{GridError, GridSdf, MAX_SAMPLES, REFINE_BAND, Refinement};
pub use region::{Region, RegionGrid};
pub use terrain::Terrain;

use tumble_math::Vec3;

/// A signed distance field (m), negative inside. `Any`, so that a backend can recognise the
/// fields it implements itself (the GPU path packs planes, grids and terrain).
pub trait Sdf: std::any::Any + Send + Sync {
    /// Signed distance at `p` (m) and its gradient.
    fn eval(&self, p: &Vec3) -> (f64, Vec3);
    /// [`Sdf::eval`] at every point of `points` into `out` (of the same length): one call
    /// through a trait object answers a body's vertices together.
    fn eval_many(&self, points: &[Vec3], out: &mut [(f64, Vec3)]) {
        for (p, o) in points.iter().zip(out) {
            *o = self.eval(p);
        }
    }
    /// Signed distance at `p`, m.
    fn distance(&self, p: &Vec3) -> f64 {
        self.eval(p).0
    }
}

/// The outermost surface point on the ray from `from` along the unit vector `u`: the
/// distance `r` where `f(from + r u)` first reaches zero coming in from `r_out` (a point outside the
/// body). The march steps in by 0.9 of the field's value (an exact distance never steps past
/// the surface; the margin covers fields that overestimate a little, as fBm terrain does), then
/// bisects the last step to `tol` (m). `None` if the ray reaches `from` without meeting the
/// surface, or needs more than 10,000 steps.
pub fn radial_extent(sdf: &dyn Sdf, from: &Vec3, u: &Vec3, r_out: f64, tol: f64) -> Option<f64> {
    let (mut r, mut outside) = (r_out, r_out);
    for _ in 0..10_000 {
        let d = sdf.distance(&(from + u * r));
        if d.is_nan() {
            return None;
        }
        if d < 0.0 {
            let (mut a, mut b) = (r, outside);
            while b - a > tol {
                let m = 0.5 * (a + b);
                if sdf.distance(&(from + u * m)) < 0.0 { a = m } else { b = m }
            }
            return Some(0.5 * (a + b));
        }
        if d <= tol {
            return Some(r);
        }
        outside = r;
        r -= 0.9 * d;
        if r <= 0.0 {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests;
