//! Rigid bodies as an application: a scenario of `kind = "rigid_bodies"` built, stepped with
//! each body's pose and twist by name and a wrench on any body as its input, and reported.

use super::run::{Outcome, RigidRuns};
use super::{Model, RigidSim};
use crate::Table;
use crate::app::{Application, Input, Quantity, Report, Run, Stepped, Stepping, WithModel};
use crate::campaign::CampaignKind;
use crate::campaign::dispersion::Dispersion;
use crate::membrane_drop::app::body_quantities;
use crate::pipeline::{Diagnosis, Stop};
use crate::scenario::{Scenario, ScenarioError, Sections};
use std::path::{Path, PathBuf};

/// Rigid bodies under gravity and loads (`kind = "rigid_bodies"`).
pub struct RigidBodies;

/// A rigid-body run and the scenario file its summary names.
pub type RigidRunning = WithModel<RigidSim<Box<Model>>, PathBuf>;

impl Application for RigidBodies {
    fn kind(&self) -> &'static str {
        "rigid_bodies"
    }

    fn sections(&self) -> Sections {
        Sections { required: &["bodies"], optional: &[] }
    }

    fn start(&self, sc: &Scenario) -> Result<Box<dyn Run>, ScenarioError> {
        let sim = RigidSim::new(Box::new(Model::build(sc)?));
        let schedule = sim.schedule();
        Ok(Stepped::start(WithModel { sim, model: sc.path.clone() }, schedule))
    }

    fn campaign(&self, sc: &Scenario, _: &[Dispersion]) -> Result<Box<dyn CampaignKind>, String> {
        Ok(Box::new(RigidRuns::new(sc)?))
    }
}

impl Stepping for RigidRunning {
    fn quantities(&self) -> Vec<Quantity> {
        let bodies = self.sim.model().system.bodies.iter().enumerate();
        bodies
            .flat_map(|(i, b)| body_quantities(&format!("{}.", b.name), &self.sim.y()[13 * i..13 * (i + 1)]))
            .collect()
    }

    fn inputs(&self) -> Vec<Input> {
        let what = "a force (N) then a torque about its centre of mass (N·m), world axes, on this body, held from the next step on (no values: none); its work enters the energy budget";
        let bodies = self.sim.model().system.bodies.iter();
        bodies.map(|b| Input::new(format!("{}.wrench", b.name), "N|N·m", 6, what).releasable()).collect()
    }

    fn set_input(&mut self, name: &str, v: &[f64]) -> Result<(), String> {
        let bodies = &self.sim.model().system.bodies;
        let Some(i) = bodies.iter().position(|b| name.strip_suffix(".wrench") == Some(b.name.as_str())) else {
            return Err(format!("no input `{name}`"));
        };
        let (f, tau) = crate::app::wrench(v);
        self.sim.apply(i, f, tau)
    }

    fn table(&self) -> Table {
        self.sim.recording().table()
    }

    fn report(self, end: Result<Stop, Diagnosis>, wall: f64, dir: Option<&Path>) -> Result<Report, String> {
        let (model, res) = self.sim.end(end.clone(), wall);
        let summary = match dir {
            Some(dir) => super::write_run(dir, &self.model, &model, &res)?,
            None => super::summary(&self.model, &model, &res),
        };
        let mut lines = vec![format!(
            "{}: t = {:.6} s, {} steps ({} rejected) in {:.3} s wall; outputs in {}",
            model.name,
            res.t_end,
            res.stats.steps,
            res.stats.rejected,
            res.wall_time,
            crate::app::shown(dir).display()
        )];
        if let Outcome::Stopped { event } = &res.outcome {
            lines.push(format!("stopped: {event}"));
        }
        if let Some(d) = summary["metrics"]["energy_drift_rel"].as_f64() {
            lines.push(format!("energy drift (relative): {d:.3e}"));
        }
        Ok(Report::new(&end, summary, res.recording.table(), lines))
    }
}
