//! The asteroid capture as an application: a scenario of `kind = "membrane_capture"` built,
//! stepped with the asteroid's state, the relative motion and the membrane's wrench by name,
//! the bus's thrust as its input, and reported.

use super::campaign::MembraneCaptureRuns;
use super::{MembraneCapture, MembraneCaptureSim, MembraneCaptureSummary, timeseries, write_capture_run};
use crate::Table;
use crate::app::{Application, Input, Quantity, Report, Run, Stepped, Stepping, WithModel, to_json};
use crate::campaign::CampaignKind;
use crate::campaign::dispersion::Dispersion;
use crate::membrane_drop::app::body_quantities;
use crate::pipeline::{Diagnosis, Stop};
use crate::scenario::{Scenario, ScenarioError, Sections};
use std::path::Path;
use std::sync::Arc;

/// A spacecraft capturing an asteroid in the membrane it carries (`kind = "membrane_capture"`).
pub struct MembraneCaptureApp;

/// An asteroid capture's run and its model.
pub type MembraneCaptureRunning = WithModel<MembraneCaptureSim<Arc<MembraneCapture>>, Arc<MembraneCapture>>;

impl Application for MembraneCaptureApp {
    fn kind(&self) -> &'static str {
        "membrane_capture"
    }

    fn sections(&self) -> Sections {
        Sections { required: &["membrane", "spacecraft"], optional: &[] }
    }

    fn start(&self, sc: &Scenario) -> Result<Box<dyn Run>, ScenarioError> {
        let model = Arc::new(MembraneCapture::build(sc)?);
        let sim = MembraneCaptureSim::new(model.clone());
        let schedule = sim.schedule();
        Ok(Stepped::start(WithModel { sim, model }, schedule))
    }

    fn campaign(&self, _: &Scenario, _: &[Dispersion]) -> Result<Box<dyn CampaignKind>, String> {
        Ok(Box::new(MembraneCaptureRuns))
    }
}

impl Stepping for MembraneCaptureRunning {
    fn quantities(&self) -> Vec<Quantity> {
        let mut q = body_quantities("asteroid_", &self.sim.y()[..13]).to_vec();
        let (p, v) = self.sim.relative();
        let c = self.sim.contact();
        q.push(Quantity::new("relative_position", "m", p.as_slice()));
        q.push(Quantity::new("relative_velocity", "m/s", v.as_slice()));
        q.push(Quantity::new("membrane_force", "N", c.force().as_slice()));
        q.push(Quantity::new("membrane_torque", "N·m", c.torque().as_slice()));
        q
    }

    fn inputs(&self) -> Vec<Input> {
        let what = "a force (N) then a torque (N·m) on the bus, bus axes, replacing the built-in guidance and thrust from the next step on; no values hand the bus back to it; its work enters the energy budget";
        let push = "a force (N) then a torque about its centre of mass (N·m), world axes, on the asteroid, held from the next step on (no values: none); its work enters the energy budget";
        vec![
            Input::new("thrust", "N|N·m", 6, what).releasable(),
            Input::new("asteroid.wrench", "N|N·m", 6, push).releasable(),
        ]
    }

    fn set_input(&mut self, name: &str, c: &[f64]) -> Result<(), String> {
        let (f, tau) = crate::app::wrench(c);
        match name {
            "asteroid.wrench" => self.sim.push_asteroid(f, tau),
            _ => self.sim.command((!c.is_empty()).then_some((f, tau))),
        }
        Ok(())
    }

    fn table(&self) -> Table {
        timeseries(self.sim.run())
    }

    fn report(self, end: Result<Stop, Diagnosis>, wall: f64, dir: Option<&Path>) -> Result<Report, String> {
        let mut run = self.sim.finish(end.clone());
        run.wall_s = wall;
        let summary = match dir {
            Some(dir) => write_capture_run(dir, &self.model, &run)?,
            None => MembraneCaptureSummary::new(&self.model, &run)?,
        };
        let lines = vec![summary.headline(&crate::app::shown(dir))];
        Ok(Report::new(&end, to_json(&summary)?, timeseries(&run), lines))
    }
}
