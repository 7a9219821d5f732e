//! The interference-based primitive contact engine (the class of NASA JSC's Pong: Brain, Kovel,
//! MacLean & Quiocho, DETC2017-67936).
//!
//! A [`Model`] is a tree of groups; each group has a bounding volume (AABB, sphere or OBB) and
//! holds groups or primitives. The root (an Object) and every *movable* group are bodies: each
//! gets its pose and twist from a dynamics code and returns a contact wrench. Several
//! [`Engine`] objects can share one model; only objects paired with [`Engine::pair`] are
//! tested. For each pair the engine walks the bodies' bounding-volume trees, runs the
//! primitive-pair [`testers`] on overlapping leaves (in parallel), turns each contact into a
//! normal force by the contact set's law ([`crate::laws`]) and a friction force (reset-integrator
//! bristles or regularised Coulomb, [`bristle`]), and sums them, in a fixed order, into a force
//! and moment on each body.
//!
//! Not covered here: constraint-based (complementarity) contact, non-convex polyhedra (split
//! them into convex parts), continuous collision detection (the step must be short enough that
//! a primitive does not pass through another in one step).

pub mod bristle;
pub mod contact;
pub mod engine;
mod gltf;
pub mod import;
pub mod model;
pub mod testers;
pub mod tree;

pub use bristle::{Bristle, Friction};
pub use contact::{Contact, Contacts, Frame};
pub use engine::{ActiveContact, BodyState, Engine, EngineError};
pub use model::{ContactParams, Model, ModelError};
