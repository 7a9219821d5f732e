//! The capture study as an application: a scenario of `kind = "capture_map"` is checked and
//! its dispersed captures run as a campaign; the study itself runs with `tumble capture-map`
//! (or `tumble.CaptureStudy`), not as one stepped run.

use super::CaptureStudy;
use super::campaign::VerdictRuns;
use crate::app::{Application, Run};
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
        CaptureStudy::build(sc)?;
        let file = sc.path.display();
        Err(sc.error_at(
            "kind",
            format!("a capture study is not one stepped run: it runs with `tumble capture-map {file}` (tumble.CaptureStudy(scenario) in Python)"),
        ))
    }

    fn campaign(&self, sc: &Scenario, dispersions: &[Dispersion]) -> Result<Box<dyn CampaignKind>, String> {
        let measured = dispersions.iter().any(|d| d.key.starts_with("capture.measured_impulse"));
        Ok(Box::new(VerdictRuns::new(sc, measured)?))
    }
}
