//! Grapple campaigns: a run's row holds when the effector closed, captured and rigidised, the
//! wire's peak force and impulse, the payload's final motion and attitude, the arm's largest
//! joint excursion and the energy.

use super::{GrappleCapture, GrappleSummary, write_grapple_run};
use crate::campaign::{CampaignKind, Finished};
use crate::scenario::Scenario;
use std::path::Path;

/// Result columns of a grapple campaign.
pub const GRAPPLE_COLUMNS: [&str; 20] = [
    "final_time [s]",
    "closing_started [s]",
    "captured [s]",
    "rigidised [s]",
    "max_penetration [m]",
    "peak_wire_force [N]",
    "impulse_x [N s]",
    "impulse_y [N s]",
    "impulse_z [N s]",
    "payload_vx_final [m/s]",
    "payload_vy_final [m/s]",
    "payload_vz_final [m/s]",
    "payload_wx_final [rad/s]",
    "payload_wy_final [rad/s]",
    "payload_wz_final [rad/s]",
    "payload_roll_final [deg]",
    "payload_pitch_final [deg]",
    "payload_yaw_final [deg]",
    "largest_joint_excursion [deg]",
    "energy_final [J]",
];

/// Captures of a free payload by an arm's wire or snare effector (`kind = "grapple"`). Status:
/// the outcome with underscores (`rigidised`, `captured`, `not_captured`, `no_contact`,
/// `bounced_off`, `passed_through`, `held_against_the_wire`) or `failed` (the run's diagnosis
/// in the note: a wire past its yield load, or the guard); a capture the effector gave up on
/// keeps its reason in the note.
pub struct GrappleRuns;

impl CampaignKind for GrappleRuns {
    fn statuses(&self) -> &'static [&'static str] {
        &[
            "rigidised",
            "captured",
            "not_captured",
            "no_contact",
            "held_against_the_wire",
            "passed_through",
            "bounced_off",
        ]
    }

    fn columns(&self) -> Vec<String> {
        GRAPPLE_COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    fn check(&self, sc: &Scenario) -> Result<(), String> {
        GrappleCapture::build(sc).map(|_| ()).map_err(|e| e.to_string())
    }

    fn run(&self, sc: &Scenario, dir: Option<&Path>) -> Result<Finished, String> {
        let cap = GrappleCapture::build(sc).map_err(|e| e.to_string())?;
        let run = cap.run();
        let s = match dir {
            Some(dir) => write_grapple_run(dir, &cap, &run)?,
            None => GrappleSummary::new(&cap, &run)?,
        };
        let mut results = vec![
            s.final_time_s,
            s.closing_started_s.unwrap_or(f64::NAN),
            s.captured_s.unwrap_or(f64::NAN),
            s.rigidised_s.unwrap_or(f64::NAN),
            s.max_penetration_m,
            s.peak_wire_force_N,
        ];
        results.extend(s.impulse_Ns.iter().chain(&s.payload_velocity_final_m_s));
        results.extend(s.payload_angular_velocity_final_rad_s.iter().chain(&s.payload_attitude_final_deg));
        results.extend([s.largest_joint_excursion_deg, s.energy_final_J]);
        let mut done = Finished::new(&s.outcome.replace(' ', "_"), results, s.diagnosis);
        if let (Some(why), true) = (s.capture_failure, done.note.is_empty()) {
            done.note = why;
        }
        Ok(done)
    }
}
