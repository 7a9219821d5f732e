//! Shapes and geometric queries. Knows nothing of time or forces.
//!
//! Covered now: solid primitives ([`Solid`]) and rigid-body mass properties
//! ([`MassProperties`]) with the physical-admissibility checks every loader uses.
//! Triangle meshes, bounding-volume trees, convex hulls and signed distance fields live here too
//! as they arrive (sign convention: signed distance is negative inside a body).

mod mass;
mod solid;

pub use mass::{MassError, MassProperties};
pub use solid::{Solid, SolidError};
