//! The simulation pipeline every application plugs into.
//!
//! An application is a [`Simulation`]: its model, state and scratch, stepped one accepted step
//! at a time. The [`Driver`] owns the step loop for all of them, as MuJoCo's `mj_step` is the one
//! pipeline of its models:
//!
//! ```text
//! advance (integrate one accepted step, never past the next output time)
//!   → guard: every state component finite and not absurd,        ─┐
//!            no body faster than light                            │
//!   → observe (events: contact, hops, settling, escape, impact)   ├─ a failure ends the run
//!   → guard: energy growth within the application's limit       ─┘  with one Diagnosis
//!   → record a sample when an output time is reached
//! ```
//!
//! No sample is recorded after a guard failure: what an application wrote before it is finite and
//! passed the guard. A Rust user drives a simulation with [`Driver::run`] or, to put their own
//! rule in the loop, with [`Driver::step`] (see the `lander_hop` example).

mod build;
mod clock;
mod diagnosis;
mod driver;
mod guard;
pub mod replay;

pub use build::BuildError;
pub use clock::FixedSteps;
pub use diagnosis::{Diagnosis, fastest_motion, step_budget_spent};
pub use driver::{Driver, Events, Schedule, Simulation, StepReport, Stop};
pub use guard::{ABSURD, EnergyCheck, GuardFailure, MAX_SPEED, body_speed, check_energy, check_speed, check_state};
