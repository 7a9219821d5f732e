//! Membrane-drop campaigns: a run's row holds the first contact, the number of contacts, the
//! peaks of the membrane's force, depth and area, the body's final motion and the energy spent
//! in the membrane's damping and friction.

use super::{MembraneDrop, MembraneSample, write_membrane_run};
use crate::campaign::{CampaignKind, Finished};
use crate::scenario::Scenario;
use std::any::Any;
use std::path::Path;

/// Result columns of a membrane-drop campaign.
pub const DROP_COLUMNS: [&str; 16] = [
    "final_time [s]",
    "first_contact [s]",
    "contacts",
    "peak_normal_force [N]",
    "peak_friction_force [N]",
    "peak_depth [m]",
    "peak_area [m2]",
    "peak_slip [m/s]",
    "vx_final [m/s]",
    "vy_final [m/s]",
    "vz_final [m/s]",
    "angular_speed_final [rad/s]",
    "energy_budget_initial [J]",
    "energy_budget_final [J]",
    "damping_loss [J]",
    "friction_loss [J]",
];

/// A body dropped onto a membrane (`kind = "membrane_drop"`). Status: `no_contact`,
/// `bounced_off` (off the membrane at the end), `on_membrane` or `failed`.
pub struct DropRuns;

impl CampaignKind for DropRuns {
    fn columns(&self) -> Vec<String> {
        DROP_COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    fn check(&self, sc: &Scenario) -> Result<(), String> {
        MembraneDrop::build(sc).map(|_| ()).map_err(|e| e.to_string())
    }

    fn run(&self, sc: &Scenario, dir: Option<&Path>) -> Result<Finished, String> {
        let m = MembraneDrop::build(sc).map_err(|e| e.to_string())?;
        let run = m.run();
        if let Some(dir) = dir {
            write_membrane_run(dir, &m, &run)?;
        }
        let (first, last) = crate::output::first_last(&run.samples)?;
        let peak = |f: &dyn Fn(&MembraneSample) -> f64| run.samples.iter().map(f).fold(0.0, f64::max);
        let mut results = vec![
            last.t,
            run.contacts.first().map_or(f64::NAN, |c| c[0]),
            run.contacts.len() as f64,
            peak(&|s| s.contact.normal_force.norm()),
            peak(&|s| s.contact.friction_force.norm()),
            peak(&|s| s.contact.depth),
            peak(&|s| s.contact.area),
            peak(&|s| s.contact.max_slip),
        ];
        results.extend(last.velocity);
        results.push(last.omega.iter().map(|w| w * w).sum::<f64>().sqrt());
        results.extend([first.budget(), last.budget(), last.damping_loss, last.friction_loss]);
        let status = match (run.contacts.len(), last.contact.in_contact) {
            (0, _) => "no_contact",
            (_, true) => "on_membrane",
            (_, false) => "bounced_off",
        };
        Ok(Finished::new(status, results, run.diagnosis.as_ref().map(|d| d.to_string())))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
