//! Membrane-drop campaigns: a run's row holds the first contact, the number of contacts, the
//! peaks of the membrane's force, depth and area, the body's final motion and the energy spent
//! in the membrane's damping and friction.

use super::{DropSummary, MembraneDrop, write_membrane_run};
use crate::campaign::{CampaignKind, Finished};
use crate::scenario::Scenario;
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
    fn statuses(&self) -> &'static [&'static str] {
        &["no_contact", "on_membrane", "bounced_off"]
    }

    fn columns(&self) -> Vec<String> {
        DROP_COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    fn check(&self, sc: &Scenario) -> Result<(), String> {
        MembraneDrop::build(sc).map(|_| ()).map_err(|e| e.to_string())
    }

    fn run(&self, sc: &Scenario, dir: Option<&Path>) -> Result<Finished, String> {
        let m = MembraneDrop::build(sc).map_err(|e| e.to_string())?;
        let run = m.run();
        let s = match dir {
            Some(dir) => write_membrane_run(dir, &m, &run)?,
            None => DropSummary::new(&m, &run)?,
        };
        let mut results = vec![
            s.final_time_s,
            s.contacts_s.first().map_or(f64::NAN, |c| c[0]),
            s.contacts_s.len() as f64,
            s.peak_normal_force_N,
            s.peak_friction_force_N,
            s.peak_depth_m,
            s.peak_area_m2,
            s.peak_slip_m_s,
        ];
        results.extend(s.velocity_final_m_s);
        results.push(s.angular_velocity_final_rad_s.iter().map(|w| w * w).sum::<f64>().sqrt());
        results.extend([s.energy_budget_initial_J, s.energy_budget_final_J, s.damping_loss_J, s.friction_loss_J]);
        let status = match (s.contacts_s.len(), run.samples.last().is_some_and(|l| l.contact.in_contact)) {
            (0, _) => "no_contact",
            (_, true) => "on_membrane",
            (_, false) => "bounced_off",
        };
        Ok(Finished::new(status, results, s.diagnosis))
    }
}
