//! The membrane drop as an application: a scenario of `kind = "membrane_drop"` built, stepped
//! with the body's state and the membrane's wrench by name, a wrench on the body as its input,
//! and reported.

use super::campaign::DropRuns;
use super::{DropSummary, MembraneDrop, MembraneSim, timeseries, write_membrane_run};
use crate::Table;
use crate::app::{Application, Input, Quantity, Report, Run, Stepped, Stepping, WithModel, to_json};
use crate::campaign::CampaignKind;
use crate::campaign::dispersion::Dispersion;
use crate::pipeline::{Diagnosis, Stop};
use crate::scenario::{Scenario, ScenarioError, Sections};
use std::path::Path;
use std::sync::Arc;

/// A body dropped onto a fixed membrane (`kind = "membrane_drop"`).
pub struct MembraneDropApp;

/// A membrane drop's run and its model.
pub type DropRunning = WithModel<MembraneSim<Arc<MembraneDrop>>, Arc<MembraneDrop>>;

impl Application for MembraneDropApp {
    fn kind(&self) -> &'static str {
        "membrane_drop"
    }

    fn sections(&self) -> Sections {
        Sections { required: &["membrane"], optional: &[] }
    }

    fn start(&self, sc: &Scenario) -> Result<Box<dyn Run>, ScenarioError> {
        let model = Arc::new(MembraneDrop::build(sc)?);
        let sim = MembraneSim::new(model.clone());
        let schedule = sim.schedule();
        Ok(Stepped::start(WithModel { sim, model }, schedule))
    }

    fn campaign(&self, _: &Scenario, _: &[Dispersion]) -> Result<Box<dyn CampaignKind>, String> {
        Ok(Box::new(DropRuns))
    }
}

/// A free body's pose and twist of a 13-component state `s` (`p`, `v`, `q`, `ω` in body
/// axes), each as `{prefix}position` and so on.
pub fn body_quantities(prefix: &str, s: &[f64]) -> [Quantity; 4] {
    [
        Quantity::new(format!("{prefix}position"), "m", &s[0..3]),
        Quantity::new(format!("{prefix}velocity"), "m/s", &s[3..6]),
        Quantity::new(format!("{prefix}attitude"), "1", &s[6..10]),
        Quantity::new(format!("{prefix}angular_velocity"), "rad/s", &s[10..13]),
    ]
}

impl Stepping for DropRunning {
    fn quantities(&self) -> Vec<Quantity> {
        let c = self.sim.contact();
        let mut q = body_quantities("", &self.sim.y()[..13]).to_vec();
        q.push(Quantity::new("membrane_force", "N", c.force().as_slice()));
        q.push(Quantity::new("membrane_torque", "N·m", c.torque().as_slice()));
        q
    }

    fn inputs(&self) -> Vec<Input> {
        let what = "a force (N) then a torque about its centre of mass (N·m), world axes, on the body, held from the next step on (no values: none); its work enters the energy budget";
        vec![Input::new("wrench", "N|N·m", 6, what).releasable()]
    }

    fn set_input(&mut self, _name: &str, v: &[f64]) -> Result<(), String> {
        let (f, tau) = crate::app::wrench(v);
        self.sim.apply(f, tau);
        Ok(())
    }

    fn table(&self) -> Table {
        timeseries(self.sim.run())
    }

    fn report(self, end: Result<Stop, Diagnosis>, wall: f64, dir: Option<&Path>) -> Result<Report, String> {
        let mut run = self.sim.finish(end.clone());
        run.wall_s = wall;
        let summary = match dir {
            Some(dir) => write_membrane_run(dir, &self.model, &run)?,
            None => DropSummary::new(&self.model, &run)?,
        };
        let lines = vec![summary.headline(&crate::app::shown(dir))];
        Ok(Report::new(&end, to_json(&summary)?, timeseries(&run), lines))
    }
}
