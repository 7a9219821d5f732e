//! What an arm run did, typed: the run's `summary.json` and the headline `tumble run` prints
//! come from [`ArmSummary`].

use super::{ArmModel, ArmRun};
use serde::Serialize;
use std::path::Path;

/// The figures of one run.
#[derive(Clone, Debug, Serialize)]
pub struct ArmSummary {
    /// Scenario name.
    pub scenario: String,
    /// `completed` or `failed`.
    pub status: String,
    /// Why the run stopped early, if it did.
    pub diagnosis: Option<String>,
    /// Velocity coordinates of the arm.
    pub degrees_of_freedom: usize,
    /// Names of the joints.
    pub joints: Vec<String>,
    /// Time of the last sample, s.
    pub final_time_s: Option<f64>,
    /// Energy at the first sample, J.
    pub energy_initial_J: f64,
    /// Energy at the last sample, J.
    pub energy_final_J: f64,
    /// A linkage's largest loop gap over the samples (the closure's drift), m.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loop_gap_max_m: Option<f64>,
}

impl ArmSummary {
    /// The summary of `run` of `model`.
    pub fn new(model: &ArmModel, run: &ArmRun) -> Result<Self, String> {
        let e_at = run.columns.iter().position(|c| c.starts_with("energy")).unwrap_or(0);
        let (first, last) = crate::outputs::first_last(&run.rows)?;
        Ok(Self {
            scenario: model.name.clone(),
            status: if run.failure.is_some() { "failed" } else { "completed" }.into(),
            diagnosis: run.failure.as_ref().map(|d| d.to_string()),
            degrees_of_freedom: model.system.model.nv(),
            joints: model.joint_names.iter().flatten().cloned().collect(),
            final_time_s: Some(last[0]),
            energy_initial_J: first[e_at],
            energy_final_J: last[e_at],
            loop_gap_max_m: run.column("loop_gap").map(|(gaps, _)| gaps.iter().fold(0.0f64, |a, &b| a.max(b))),
        })
    }

    /// The line `tumble run` prints, with the wall-clock time `wall` (s) and the output folder
    /// `out`.
    pub fn headline(&self, wall: f64, out: &Path) -> String {
        format!(
            "{}: {} degrees of freedom, t = {:?} s in {wall:.2} s wall; energy {:.6e} → {:.6e} J; outputs in {}",
            self.scenario,
            self.degrees_of_freedom,
            self.final_time_s.unwrap_or(0.0),
            self.energy_initial_J,
            self.energy_final_J,
            out.display()
        )
    }
}
