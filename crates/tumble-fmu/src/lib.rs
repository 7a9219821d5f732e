//! Tumble's interference contact engine as an FMI 3.0 co-simulation unit: the "interface to
//! external dynamics codes" of the contact-engine document, in the standard simulation tools
//! speak (docs/interop.md, "An FMI 3.0 co-simulation FMU").
//!
//! `cargo run --release -p tumble-fmu -- SCENARIO [--out FILE.fmu]` packs a mechanism
//! scenario (its bodies, contact models and pairs) with this crate's shared library into a
//! `.fmu`. The importer moves the bodies: its inputs are each free body's pose and twist, its
//! outputs every body's contact wrench, each pair's contact count and normal force, and the
//! contact events ([`mod@unit`]).
//!
//! - [`mod@unit`]: the unit itself (variables, evaluation, the step), safe Rust.
//! - [`description`]: `modelDescription.xml` and the instantiation token.
//! - [`package`]: the scenario's resources and the archive; [`zip`]: the ZIP writer.
//! - `fmi3`: the C functions of the standard.

pub mod description;
mod fmi3;
pub mod package;
pub mod unit;
pub mod zip;

pub use package::pack;
pub use unit::Unit;
