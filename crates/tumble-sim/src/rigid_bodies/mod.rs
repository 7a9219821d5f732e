//! Free rigid bodies under gravity and applied loads (`kind = "rigid_bodies"`): the validated
//! [`Model`] ([`model`]), its run on the pipeline ([`RigidSim`], [`simulate`]), the recording and
//! its metrics, the outputs of `tumble run` ([`write_run`]) and the application ([`app`]). Its
//! physics and scenario keys: docs/dynamics.md and docs/scenario.md; tests:
//! `crates/tumble-sim/tests/scenarios.rs`.

pub mod app;
mod metrics;
pub mod model;
mod output;
mod record;
mod run;

pub use model::{GravityKind, Model, ModelBuilder};
pub use output::{animation, summary, write_run};
pub use record::Recording;
pub use run::{Outcome, RigidRuns, RigidSim, RunResult, simulate};
