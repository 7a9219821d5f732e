//! The capture study as an application: a scenario of `kind = "capture_map"` is checked, its
//! nominal capture's detumble runs stepped ([`super::stepped`]: `tumble run`,
//! `tumble.Simulation`) and its dispersed captures run as a campaign; the study itself (maps,
//! funnel, verdict) runs with `tumble capture-map` (or `tumble.CaptureStudy`).

use super::CaptureStudy;
use super::campaign::VerdictRuns;
use super::stepped::DetumbleSim;
use crate::app::{Application, Run, Stepped};
use crate::campaign::CampaignKind;
use crate::campaign::dispersion::Dispersion;
use crate::scenario::{Scenario, ScenarioError, Sections};

/// Impulsive capture maps, detumbling and the region-of-attraction check
/// (`kind = "capture_map"`).
pub struct CaptureMap;

impl Application for CaptureMap {
    fn kind(&self) -> &'static str {
        "capture_map"
    }

    fn sections(&self) -> Sections {
        Sections { required: &["capture", "arm"], optional: &[] }
    }

    fn check(&self, sc: &Scenario) -> Result<Vec<String>, ScenarioError> {
        CaptureStudy::build(sc).map(|_| Vec::new())
    }

    fn start(&self, sc: &Scenario) -> Result<Box<dyn Run>, ScenarioError> {
        let study = CaptureStudy::build(sc)?;
        let sim = DetumbleSim::new(study).map_err(|e| sc.error_at("capture", e))?;
        let schedule = sim.schedule();
        Ok(Stepped::start(sim, schedule))
    }

    fn campaign(&self, sc: &Scenario, dispersions: &[Dispersion]) -> Result<Box<dyn CampaignKind>, String> {
        let measured = dispersions.iter().any(|d| d.key.starts_with("capture.measured_impulse"));
        Ok(Box::new(VerdictRuns::new(sc, measured)?))
    }
}
