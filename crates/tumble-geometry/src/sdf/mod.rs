//! Signed distance fields: negative inside a body, zero on its surface, positive outside, with
//! the gradient (the outward unit normal of the closest surface point, for exact fields).
//!
//! Analytic fields ([`analytic`]): sphere, ellipsoid (exact distance, Eberly's robust method),
//! box, capsule, half-space; combinations ([`Union`], [`SmoothUnion`]) and rigid placement
//! ([`Placed`]). Grid fields ([`GridSdf`]) sample any field or a closed mesh's exact signed
//! distance and interpolate trilinearly.

pub mod analytic;
mod combine;
mod extract;
mod grid;
mod terrain;

pub use analytic::{BoxSdf, Capsule, Ellipsoid, HalfSpace, Sphere};
pub use combine::{Placed, SmoothUnion, Union};
pub use extract::{mesh_from_grid, mesh_from_sdf};
pub use grid::{GridError, GridSdf, MAX_SAMPLES, REFINE_BAND, Refinement};
pub use terrain::Terrain;

use tumble_math::Vec3;

/// A signed distance field (m), negative inside.
pub trait Sdf: Send + Sync {
    /// Signed distance at `p` (m) and its gradient.
    fn eval(&self, p: &Vec3) -> (f64, Vec3);
    /// Signed distance at `p`, m.
    fn distance(&self, p: &Vec3) -> f64 {
        self.eval(p).0
    }
}

#[cfg(test)]
mod tests;
