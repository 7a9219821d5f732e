//! Scenario files → a model; the run loop that wires dynamics (and, later, contact);
//! recorders; events; output writers and plots; benchmarks.
//!
//! The pipeline of `tumble run`: [`Scenario::load`] → [`Model::build`] → [`simulate`] →
//! [`write_run`].

pub mod anim;
pub mod app;
pub mod arm;
pub mod bench;
pub mod campaign;
pub mod capture_map;
pub mod grapple;
pub mod lander;
pub mod mechanism;
pub mod membrane;
pub mod membrane_capture;
mod metrics;
mod model;
mod output;
mod outputs;
pub mod pipeline;
mod plot;
mod record;
pub mod registry;
pub mod rigid_app;
mod run;
pub mod scenario;
pub mod snare;
mod table;
pub mod tools;

pub use model::{GravityKind, Model, ModelBuilder};
pub use output::{animation as rigid_animation, summary as rigid_summary, write_run};
pub use pipeline::Diagnosis;
pub use record::Recording;
pub use run::{Outcome, RigidSim, RunResult, simulate};
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
