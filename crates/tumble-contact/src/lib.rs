//! Contact force laws and contact engines: vertex-on-SDF contact with regularised friction and
//! rolling resistance, the convex-hull membrane, the interference-based primitive engine with
//! bristle friction, snare wires, and impulsive capture maps.
//!
//! This crate takes poses and velocities and returns wrenches. It deliberately does **not**
//! depend on `tumble-dynamics`, so that the same engines can drive an external dynamics code.
//!
//! - [`identify`]: least-squares fits of those laws to measured data (`tumble fit contact`).
//! - [`interference`]: the primitive engine (Pong's class): groups and bounding volumes,
//!   pairwise primitive testers, bristle friction, parallel evaluation.
//! - [`laws`]: normal force laws (spring–dashpot, Hertz, Hunt–Crossley, Flores, polynomial,
//!   tabulated), non-adhesive, and regularised Coulomb friction.
//! - [`snare`]: the loose snare wire (slack law up to the geometric limit `Q`, axial stretch
//!   beyond).
//! - [`vertex_sdf`]: compliant vertices on a signed distance field with regularised Coulomb
//!   friction at one application point and rolling resistance (the small-body lander model).

/// Largest friction coefficient accepted (dimensionless): measured coefficients of dry contact
/// lie below about 2 (rubber, clean metals in vacuum); 10 leaves room for a modelling choice
/// ("stick") without products that overflow (a coefficient of 1e300 times a normal force).
pub const MAX_FRICTION: f64 = 10.0;

pub mod identify;
pub mod interference;
pub mod laws;
pub mod membrane;
mod patch;
pub mod snare;
pub mod vertex_sdf;

pub use patch::Patch;
pub use vertex_sdf::{BodyKinematics, Mobility, NormalContact, TangentialContact, VertexContactParams};
