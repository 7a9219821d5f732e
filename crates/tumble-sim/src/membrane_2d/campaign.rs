//! 2D trampoline campaigns: a run's row holds the contact, the peaks of the tension, depth and
//! friction, the energy budget and what the damping and friction took, and where the body ends.

use super::Trampoline;
use super::app::{summary, write};
use crate::campaign::{CampaignKind, Finished};
use crate::scenario::Scenario;
use std::path::Path;

/// Result columns of a 2D trampoline campaign.
pub const COLUMNS: [&str; 11] = [
    "final_time [s]",
    "contact_samples",
    "peak_tension [N]",
    "deepest [m]",
    "peak_friction [N]",
    "energy_budget_initial [J]",
    "energy_budget_final [J]",
    "damping_loss [J]",
    "friction_loss [J]",
    "x_final [m]",
    "y_final [m]",
];

/// A polygon dropped onto the 2D membrane (`kind = "membrane_2d"`). Status: `no_contact`,
/// `bounced_off` (off the membrane at the end), `on_membrane` or `failed`.
pub struct TrampolineRuns;

impl CampaignKind for TrampolineRuns {
    fn statuses(&self) -> &'static [&'static str] {
        &["no_contact", "on_membrane", "bounced_off"]
    }

    fn columns(&self) -> Vec<String> {
        COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    fn check(&self, sc: &Scenario) -> Result<(), String> {
        Trampoline::build(sc).map(|_| ()).map_err(|e| e.to_string())
    }

    fn run(&self, sc: &Scenario, dir: Option<&Path>) -> Result<Finished, String> {
        let started = std::time::Instant::now();
        let m = Trampoline::build(sc).map_err(|e| e.to_string())?;
        let run = m.run();
        let s = summary(&m, &run, started.elapsed().as_secs_f64())?;
        if let Some(dir) = dir {
            write(dir, &m, &run, &s)?;
        }
        let num = |k: &str| s[k].as_f64().unwrap_or(f64::NAN);
        let last = run.samples.last().ok_or("the run recorded no sample")?;
        let results = vec![
            num("final_time_s"),
            num("contact_samples"),
            num("peak_tension_N"),
            num("deepest_m"),
            num("peak_friction_N"),
            num("energy_budget_initial_J"),
            num("energy_budget_final_J"),
            num("damping_loss_J"),
            num("friction_loss_J"),
            last.state[0],
            last.state[1],
        ];
        let status = match (num("contact_samples") > 0.0, last.contact.in_contact) {
            (false, _) => "no_contact",
            (true, true) => "on_membrane",
            (true, false) => "bounced_off",
        };
        Ok(Finished::new(status, results, run.diagnosis.map(|d| d.to_string())))
    }
}
