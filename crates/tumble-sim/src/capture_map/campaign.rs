//! Capture-map campaigns: the detumble controller and its funnel are built once from the
//! nominal scenario; each run is one dispersed capture (pre-capture velocities, measured
//! impulse, joint angles within `capture.roa.joint_angle_spread`), judged by the verdict `V₀(predicted) < ρ₀` and proved
//! right or wrong by its detumble. The impulse a run's verdict is predicted from is
//! `capture.measured_impulse` when a dispersion draws it; otherwise the run's own true impulse
//! (the scenario's single measurement belongs to its nominal capture, not to a dispersed one).
//! A run whose target or grasp differs from the nominal's, or whose joint angles leave the
//! covered spread, is refused by name (status `invalid`): the design does not cover it.

use super::{CaptureStudy, Controller};
use crate::campaign::{CampaignKind, Finished};
use crate::scenario::Scenario;
use std::path::Path;

/// Result columns of a capture-map campaign.
pub const VERDICT_COLUMNS: [&str; 7] =
    ["V0", "V0_predicted", "rho0", "margin", "impulse_force [N s]", "max_excursion [rad]", "final_rate [rad/s]"];

/// Captures judged by the funnel (`kind = "capture_map"`). Status: `safe_detumbled`,
/// `safe_failed` (a false safe), `unsafe_detumbled` or `unsafe_failed`; the note says why a
/// detumble failed.
pub struct VerdictRuns {
    /// The nominal study: a run's target and pose must be ones its design covers.
    pub nominal: CaptureStudy,
    /// The controller of the nominal capture, shared by every run.
    pub controller: Controller,
    /// Whether a dispersion draws `capture.measured_impulse` (each run then predicts from it).
    pub measured: bool,
}

impl VerdictRuns {
    /// Builds the controller of the nominal scenario `sc` (its funnel from
    /// `capture.roa.samples` sampled captures, on the current rayon pool's threads: a campaign's
    /// `--threads`); `measured` when a
    /// dispersion draws `capture.measured_impulse`.
    pub fn new(sc: &Scenario, measured: bool) -> Result<Self, String> {
        let study = CaptureStudy::build(sc).map_err(|e| e.to_string())?;
        let threads = rayon::current_num_threads();
        Ok(Self { controller: study.controller(threads)?, nominal: study, measured })
    }
}

impl CampaignKind for VerdictRuns {
    fn statuses(&self) -> &'static [&'static str] {
        &["safe_detumbled", "safe_failed", "unsafe_detumbled", "unsafe_failed"]
    }

    fn columns(&self) -> Vec<String> {
        VERDICT_COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    fn check(&self, sc: &Scenario) -> Result<(), String> {
        CaptureStudy::build(sc).map(|_| ()).map_err(|e| e.to_string())
    }

    fn run(&self, sc: &Scenario, dir: Option<&Path>) -> Result<Finished, String> {
        let study = CaptureStudy::build(sc).map_err(|e| e.to_string())?;
        self.nominal.covers(&study)?;
        let measured = study.measured_impulse.as_ref().filter(|_| self.measured);
        let v = self.nominal.verdict_at(&self.controller, study.joint_angles(), &study.v_c, &study.v_t, measured)?;
        if let Some(dir) = dir {
            super::verdict::write_verdict(dir, &study, &self.controller, &v)?;
        }
        let r = &v.rollout;
        let results = vec![
            v.v0,
            v.v0_predicted,
            v.rho0,
            v.v0_predicted / v.rho0,
            v.impulse.rows(0, 3).norm(),
            r.max_excursion,
            r.final_rate,
        ];
        let status = match (v.safe, r.success) {
            (true, true) => "safe_detumbled",
            (true, false) => "safe_failed",
            (false, true) => "unsafe_detumbled",
            (false, false) => "unsafe_failed",
        };
        let mut done = Finished::new(status, results, None);
        done.note = r.failure.clone().unwrap_or_default();
        Ok(done)
    }
}
