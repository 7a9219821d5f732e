//! Grapple campaigns: a run's row holds when the effector closed, captured and rigidised, the
//! wire's peak force and impulse, the payload's final motion and attitude, the arm's largest
//! joint excursion and the energy.

use super::{GrappleCapture, outcome, write_grapple_run};
use crate::campaign::{CampaignKind, Finished};
use crate::scenario::Scenario;
use std::any::Any;
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
/// `bounced_off`, `held_against_the_wire`) or `failed`; a capture the effector gave up on keeps
/// its reason in the note.
pub struct GrappleRuns;

impl CampaignKind for GrappleRuns {
    fn columns(&self) -> Vec<String> {
        GRAPPLE_COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    fn check(&self, sc: &Scenario) -> Result<(), String> {
        GrappleCapture::build(sc).map(|_| ()).map_err(|e| e.to_string())
    }

    fn run(&self, sc: &Scenario, dir: Option<&Path>) -> Result<Finished, String> {
        let cap = GrappleCapture::build(sc).map_err(|e| e.to_string())?;
        let run = cap.run();
        if let Some(dir) = dir {
            write_grapple_run(dir, &cap, &run)?;
        }
        let (first, last) = crate::output::first_last(&run.samples)?;
        let norm = |v: &[f64; 3]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let excursion = run.samples.iter().flat_map(|s| s.q.iter().zip(&first.q).map(|(a, b)| (a - b).abs()));
        let mut results = vec![
            last.t,
            run.closing_started.unwrap_or(f64::NAN),
            run.captured_at.unwrap_or(f64::NAN),
            run.rigidised_at.unwrap_or(f64::NAN),
            run.max_penetration,
            run.samples.iter().map(|s| norm(&s.wire_force)).fold(0.0, f64::max),
        ];
        results.extend(last.impulse.iter().chain(&last.velocity).chain(&last.omega));
        results.extend(last.attitude.map(f64::to_degrees));
        results.extend([excursion.fold(0.0, f64::max).to_degrees(), last.energy]);
        let status = outcome(&cap, &run).replace(' ', "_");
        let mut done = Finished::new(&status, results, run.diagnosis.as_ref().map(|d| d.to_string()));
        if let (Some(why), true) = (&run.failure, done.note.is_empty()) {
            done.note = why.clone();
        }
        Ok(done)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
