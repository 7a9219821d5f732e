//! Tumble's applications and what they share. Each application is a folder named as its kind
//! (`rigid_bodies`, `lander`, `membrane_drop`, `membrane_capture`, `membrane_2d`, `arm`, `grapple`, `snare`,
//! `mechanism`, `capture_map`) with its model, its run on the [`pipeline`] and its
//! [`app::Application`]; [`registry`] lists them. Shared: the scenario reader ([`scenario`]), the pipeline, the application interface
//! ([`app`]), campaigns ([`campaign`]), tables, plots and animations.
//!
//! The path of `tumble run`: [`Scenario::load`] → [`registry::start`] (the application of the
//! file's kind builds its model and starts its run) → steps on the pipeline's driver →
//! [`app::Run::report`] (its `timeseries.csv`, `summary.json`, plots, animation).

pub mod anim;
pub mod app;
pub mod arm;
pub mod bench;
pub mod campaign;
pub mod capture_map;
pub mod ccsds;
pub mod grapple;
pub mod lander;
pub mod mechanism;
pub mod membrane_2d;
pub mod membrane_capture;
pub mod membrane_drop;
mod outputs;
pub mod pipeline;
mod plot;
pub mod registry;
pub mod rigid_bodies;
pub mod scenario;
pub mod snare;
mod table;
pub mod tools;

pub use pipeline::Diagnosis;
pub use rigid_bodies::{
    GravityKind, Model, ModelBuilder, Outcome, Recording, RigidSim, RunResult, simulate, write_run,
};
pub use rigid_bodies::{animation as rigid_animation, summary as rigid_summary};
pub use scenario::{Scenario, ScenarioError};
pub use table::Table;

/// Most worker threads a command or campaign starts (a 256-thread node has room; 20,000
/// threads would take minutes to start and do nothing faster).
pub const MAX_THREADS: usize = 1024;

/// A pool of `threads` worker threads, refused outside 1 to [`MAX_THREADS`].
pub fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, String> {
    if !(1..=MAX_THREADS).contains(&threads) {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        return Err(format!(
            "threads must be between 1 and {MAX_THREADS} (this machine has {cores} cores), got {threads}"
        ));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))
}
