//! Snare-wire experiment campaigns: a run's row holds what the wire did to the target (contact,
//! penetration, peak force, impulse) and the target's final motion and energy.

use super::{WireExperiment, WireSummary, output_every, write_wire_run};
use crate::campaign::{CampaignKind, Finished};
use crate::scenario::Scenario;
use std::path::Path;

/// Result columns of a snare-wire campaign.
pub const WIRE_COLUMNS: [&str; 12] = [
    "contact_position [m]",
    "slack_limit_Q [m]",
    "max_penetration [m]",
    "contact_duration [s]",
    "peak_force [N]",
    "impulse_x [N s]",
    "impulse_y [N s]",
    "final_vx [m/s]",
    "final_vy [m/s]",
    "final_angular_velocity [rad/s]",
    "energy_initial [J]",
    "energy_final [J]",
];

/// Runs of the planar snare-wire experiment (`kind = "snare"`). Status: `touched` (the probe
/// reached the wire), `missed` or `failed`.
pub struct WireRuns;

impl CampaignKind for WireRuns {
    fn statuses(&self) -> &'static [&'static str] {
        &["touched", "missed"]
    }

    fn columns(&self) -> Vec<String> {
        WIRE_COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    fn check(&self, sc: &Scenario) -> Result<(), String> {
        WireExperiment::build(sc).map(|_| ()).map_err(|e| e.to_string())
    }

    fn run(&self, sc: &Scenario, dir: Option<&Path>) -> Result<Finished, String> {
        let exp = WireExperiment::build(sc).map_err(|e| e.to_string())?;
        let run = exp.run()?;
        let s = match dir {
            Some(dir) => write_wire_run(dir, &sc.file.name, &exp, &run, output_every(sc, exp.dt))?,
            None => WireSummary::new(&sc.file.name, &exp, &run)?,
        };
        let results = vec![
            s.contact_position_m.unwrap_or(f64::NAN),
            s.slack_limit_Q_m.unwrap_or(f64::NAN),
            s.max_penetration_m,
            s.contact_duration_s.unwrap_or(f64::NAN),
            s.peak_force_N,
            s.impulse_Ns[0],
            s.impulse_Ns[1],
            s.final_velocity_m_s[0],
            s.final_velocity_m_s[1],
            s.final_angular_velocity_rad_s,
            s.energy_initial_J,
            s.energy_final_J,
        ];
        let status = if s.touched_the_wire { "touched" } else { "missed" };
        Ok(Finished::new(status, results, s.diagnosis))
    }
}
