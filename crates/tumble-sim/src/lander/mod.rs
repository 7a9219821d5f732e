//! Small-body landers and hoppers (Van wal, Reid & Scheeres, "Small-body lander simulations
//! using the GPU"): a rigid spacecraft with contact vertices moving relative to a rotating or
//! tumbling target whose surface is a signed distance field, with polyhedron, point-mass or
//! uniform gravity.
//!
//! - [`system`]: the 20-state equations of motion with the contact pipeline, energy terms.
//! - [`hop`], [`aim`]: hops, the actuator that delivers them, the aimed hop's estimate.
//! - [`ccsds`]: a run with an epoch as CCSDS trajectory and attitude messages.
//! - [`ephemeris`]: the target's rotation and the Sun from SPICE kernels, the Sun's forces,
//!   illumination of landing sites.
//! - [`frame`]: the centre of mass the target turns about, its spin axis, landing sites.
//! - [`impact`]: per-touchdown impact loads and the samples taken during impacts.
//! - [`local`]: optional local quadratic models of an expensive surface around the vertices.
//! - [`campaign`]: a lander run as a campaign's row, and the report's landing maps.
//! - [`model`]: building a run from a scenario's `[target]` and `[lander]`.
//! - [`terrain`]: `[target.terrain]`: fBm heights, their regions and boulders on any target.
//! - [`output`]: the run folder (time series, contact log, summary, plots).
//! - [`samples`]: the columns of a sample and the row a state makes.
//! - [`sim`]: the step loop, events (bounces, hops, settling, escape) and the energy budget.

pub mod aim;
pub mod app;
pub mod builder;
pub mod campaign;
pub mod ccsds;
pub mod ephemeris;
pub mod frame;
pub mod hop;
pub mod impact;
pub mod local;
pub mod model;
pub mod output;
pub mod samples;
pub mod sim;
pub mod system;
pub mod terrain;

pub use builder::LanderBuilder;
pub use frame::SiteFrame;
pub use hop::{Actuator, ActuatorKind, Hop, HopCommand, HopRecord, HopTrigger};
pub use impact::{Impact, ImpactMaxima};
pub use model::{LanderModel, Target, build_target};
pub use output::{animation, timeseries, write_lander_run};
pub use sim::{
    ContactEvent, LanderOutcome, LanderRun, LanderSettings, LanderSim, Settle, energy_grew, not_finite, simulate,
};
pub use system::{LanderSystem, STATE_LEN, Snapshot, pack};
