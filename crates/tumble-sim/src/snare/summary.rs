//! What a snare-wire experiment did, typed: the run's `summary.json`, a campaign's row and the
//! headline `tumble run` prints all come from [`WireSummary`].

use super::{WireExperiment, WireRun};
use crate::outputs::{first_last, vec3};
use serde::Serialize;
use std::path::Path;

/// The figures of one experiment (SI units, named with them; planar: x along the wire's chord,
/// y towards the target).
#[derive(Clone, Debug, Serialize)]
pub struct WireSummary {
    /// Scenario name.
    pub scenario: String,
    /// Why the run stopped early, if it did.
    pub diagnosis: Option<String>,
    /// Whether the probe reached the wire.
    pub touched_the_wire: bool,
    /// Where along the wire it touched, m.
    pub contact_position_m: Option<f64>,
    /// The wire's slack limit `Q` there, m.
    pub slack_limit_Q_m: Option<f64>,
    /// Deepest penetration, m.
    pub max_penetration_m: f64,
    /// From the first to the last step with a wire force, s.
    pub contact_duration_s: Option<f64>,
    /// Largest normal force, N.
    pub peak_force_N: f64,
    /// Impulse of the wire, N·s.
    pub impulse_Ns: [f64; 2],
    /// The target's momentum change, N·s (equal to the impulse: the wire is the only force).
    pub momentum_change_Ns: [f64; 2],
    /// Velocity at the end, m/s.
    pub final_velocity_m_s: [f64; 2],
    /// Angular velocity at the end, rad/s.
    pub final_angular_velocity_rad_s: f64,
    /// Kinetic plus wire energy at the start, J.
    pub energy_initial_J: f64,
    /// The same at the end, J.
    pub energy_final_J: f64,
}

impl WireSummary {
    /// The summary of `run` of `exp`, named `name`.
    pub fn new(name: &str, exp: &WireExperiment, run: &WireRun) -> Result<Self, String> {
        let (first, last) = first_last(&run.samples)?;
        let in_contact = || run.samples.iter().filter(|s| s.force[1] > 0.0).map(|s| s.t);
        let dv = [last.velocity[0] - first.velocity[0], last.velocity[1] - first.velocity[1]];
        Ok(Self {
            scenario: name.into(),
            diagnosis: run.diagnosis.as_ref().map(|d| d.to_string()),
            touched_the_wire: run.wire.is_some(),
            contact_position_m: run.wire.as_ref().map(|w| w.position),
            slack_limit_Q_m: run.wire.as_ref().map(|w| w.slack),
            max_penetration_m: run.max_delta,
            contact_duration_s: in_contact().next_back().zip(in_contact().next()).map(|(b, a)| b - a + exp.dt),
            peak_force_N: run.samples.iter().map(|s| s.force[1]).fold(0.0, f64::max),
            impulse_Ns: last.impulse,
            momentum_change_Ns: [exp.mass * dv[0], exp.mass * dv[1]],
            final_velocity_m_s: last.velocity,
            final_angular_velocity_rad_s: last.omega,
            energy_initial_J: first.energy,
            energy_final_J: last.energy,
        })
    }

    /// The line `tumble run` prints, with the wall-clock time `wall` (s) and the output folder
    /// `out`.
    pub fn headline(&self, wall: f64, out: &Path) -> String {
        format!(
            "{}: impulse {} N·s, peak force {:.2} N, deepest {:.2} mm (Q = {:.2} mm), final velocity {} m/s, ω {:.4} rad/s; {:.2} s wall; outputs in {}",
            self.scenario,
            vec3(&self.impulse_Ns),
            self.peak_force_N,
            self.max_penetration_m * 1e3,
            self.slack_limit_Q_m.unwrap_or(0.0) * 1e3,
            vec3(&self.final_velocity_m_s),
            self.final_angular_velocity_rad_s,
            wall,
            out.display()
        )
    }
}
