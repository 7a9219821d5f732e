//! Snare-wire experiment campaigns: a run's row holds what the wire did to the target (contact,
//! penetration, peak force, impulse) and the target's final motion and energy.

use super::{WireExperiment, output_every, write_wire_run};
use crate::campaign::{CampaignKind, Finished};
use crate::scenario::Scenario;
use std::any::Any;
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
    fn columns(&self) -> Vec<String> {
        WIRE_COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    fn check(&self, sc: &Scenario) -> Result<(), String> {
        WireExperiment::build(sc).map(|_| ()).map_err(|e| e.to_string())
    }

    fn run(&self, sc: &Scenario, dir: Option<&Path>) -> Result<Finished, String> {
        let exp = WireExperiment::build(sc).map_err(|e| e.to_string())?;
        let run = exp.run()?;
        if let Some(dir) = dir {
            write_wire_run(dir, &sc.file.name, &exp, &run, output_every(sc, exp.dt))?;
        }
        let (first, last) = crate::output::first_last(&run.samples)?;
        let in_contact = || run.samples.iter().filter(|s| s.force[1] > 0.0).map(|s| s.t);
        let duration = in_contact().next_back().zip(in_contact().next()).map_or(f64::NAN, |(b, a)| b - a + exp.dt);
        let results = vec![
            run.wire.as_ref().map_or(f64::NAN, |w| w.position),
            run.wire.as_ref().map_or(f64::NAN, |w| w.slack),
            run.max_delta,
            duration,
            run.samples.iter().map(|s| s.force[1]).fold(0.0, f64::max),
            last.impulse[0],
            last.impulse[1],
            last.velocity[0],
            last.velocity[1],
            last.omega,
            first.energy,
            last.energy,
        ];
        let status = if run.wire.is_some() { "touched" } else { "missed" };
        Ok(Finished::new(status, results, run.diagnosis.as_ref().map(|d| d.to_string())))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
