//! Rigid-body dynamics, integrators and gravity models.
//!
//! - [`body`]: a rigid body's constant model ([`RigidBody`]) and integrated state
//!   ([`BodyState`]); body frames are centred on the centre of mass.
//! - [`system`]: Newton–Euler equations of free rigid bodies as an [`OdeSystem`].
//! - [`gravity`]: the [`Gravity`] trait with uniform, point-mass, mascon and polyhedron fields.
//! - [`integrator`]: RK4, adaptive Dormand–Prince 5(4), semi-implicit Euler.
//!
//! - [`rotating`]: the spacecraft's equations relative to a rotating or tumbling small body.
//!
//! - [`spice`]: SPICE kernels (leap seconds, body rotation, ephemerides) read without the toolkit.
//!
//! - [`multibody`]: articulated trees in minimal coordinates (Featherstone's algorithms).

pub mod analytic;
pub mod body;
pub mod gravity;
pub mod integrator;
pub mod multibody;
pub mod rotating;
pub mod spice;
pub mod system;

pub use body::{BODY_STATE_LEN, BodyState, Load, RigidBody, normalize_quaternion};
pub use gravity::{Expansion, FieldSample, Gravity, Mascons, NoGravity, PointMass, Polyhedron, Uniform};
pub use integrator::{Dopri5Settings, IntegrationError, Integrator, Method, OdeSystem, Stats};
pub use system::{Invariants, RigidBodySystem};
