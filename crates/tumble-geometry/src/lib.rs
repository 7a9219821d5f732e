//! Shapes and geometric queries. Knows nothing of time or forces.
//!
//! Covered now: solid primitives ([`Solid`]), rigid-body mass properties
//! ([`MassProperties`]) with the physical-admissibility checks every loader uses, and triangle
//! meshes ([`TriMesh`]: OBJ, STL, PLY, PDS and ICQ readers, validation and repair, mass
//! properties) and analytic signed distance fields ([`sdf`]).
//! Triangle meshes, bounding-volume trees, convex hulls and signed distance fields live here too
//! as they arrive (sign convention: signed distance is negative inside a body).

pub mod bodies;
pub mod bv;
pub mod closest;
pub mod convex;
pub mod hull;
mod mass;
pub mod mesh;
pub mod mesh_distance;
pub mod noise;
pub mod primitive;
pub mod sdf;
mod solid;

pub use mass::{MassError, MassProperties};
pub use mesh::{LengthUnit, MeshError, TriMesh};
pub use solid::{Solid, SolidError};
