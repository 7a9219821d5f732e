//! Mechanisms on the interference engine as an application: a scenario of
//! `kind = "mechanism"` built, stepped with each free body's pose and twist, the arm's joints
//! and the snare's drives by name; a wrench on any free body, the arm's joint forces and the
//! snare's drive commands as its inputs; reported.

use super::campaign::MechanismRuns;
use super::{Mechanism, MechanismSim, MechanismSummary, timeseries, write_mechanism_run};
use crate::Table;
use crate::app::{Application, Input, Quantity, Report, Run, Stepped, Stepping, WithModel, to_json};
use crate::arm::app::joint_quantities;
use crate::campaign::CampaignKind;
use crate::campaign::dispersion::Dispersion;
use crate::membrane_drop::app::body_quantities;
use crate::pipeline::{Diagnosis, Stop};
use crate::scenario::{Scenario, ScenarioError, Sections};
use std::path::Path;
use std::sync::Arc;

/// Rigid bodies in contact through the interference engine (`kind = "mechanism"`).
pub struct MechanismApp;

/// A mechanism's run and its model.
pub type MechanismRunning = WithModel<MechanismSim<Arc<Mechanism>>, Arc<Mechanism>>;

impl Application for MechanismApp {
    fn kind(&self) -> &'static str {
        "mechanism"
    }

    fn sections(&self) -> Sections {
        Sections { required: &["mechanism"], optional: &["arm"] }
    }

    fn start(&self, sc: &Scenario) -> Result<Box<dyn Run>, ScenarioError> {
        let model = Arc::new(Mechanism::build(sc)?);
        let sim = MechanismSim::new(model.clone()).map_err(|d| sc.error_at("mechanism", d.to_string()))?;
        let schedule = sim.schedule();
        Ok(Stepped::start(WithModel { sim, model }, schedule))
    }

    fn campaign(&self, sc: &Scenario, _: &[Dispersion]) -> Result<Box<dyn CampaignKind>, String> {
        Ok(Box::new(MechanismRuns::new(sc)?))
    }
}

/// The snare's drive commands, closing motor then carriage.
const SNARE_DRIVES: [&str; 2] = ["snare.ring", "snare.carriage"];

/// The suffix of a body's wrench input.
const WRENCH: &str = ".wrench";

impl Stepping for MechanismRunning {
    fn warnings(&self) -> Vec<String> {
        let o = self.sim.start_overlaps();
        if o.is_empty() {
            return Vec::new();
        }
        vec![format!("mechanism.bodies: contacts push at the start, the bodies placed overlapping: {}", o.join("; "))]
    }

    fn quantities(&self) -> Vec<Quantity> {
        let y = self.sim.y();
        let mut q = match &self.model.arm {
            Some((sys, _)) => joint_quantities(&sys.model, &[], self.sim.arm_state()),
            None => Vec::new(),
        };
        let (bodies, drives, latches) = self.sim.offsets();
        for (b, o) in self.model.bodies.iter().zip(bodies) {
            if let Some(o) = o {
                q.extend(body_quantities(&format!("{}.", b.name), &y[*o..*o + 13]));
            }
        }
        if let Some(d) = drives {
            q.push(Quantity::scalar("snare.ring_angle", "rad", y[d]));
            q.push(Quantity::scalar("snare.ring_rate", "rad/s", y[d + 1]));
            q.push(Quantity::scalar("snare.carriage", "m", y[d + 2]));
            q.push(Quantity::scalar("snare.carriage_rate", "m/s", y[d + 3]));
        }
        if let (Some(at), Some(b)) = (latches, &self.model.berthing) {
            for (i, l) in b.latches.iter().enumerate() {
                q.push(Quantity::scalar(format!("{}.crank", l.name), "rad", y[at + 2 * i]));
                q.push(Quantity::scalar(format!("{}.crank_rate", l.name), "rad/s", y[at + 2 * i + 1]));
            }
        }
        q
    }

    fn inputs(&self) -> Vec<Input> {
        let (bodies, drives, _) = self.sim.offsets();
        let what = "a force (N) then a torque about its centre of mass (N·m), world axes, on this free body, held from the next step on (no values: none); its work enters the energy budget";
        let mut inputs: Vec<Input> = (self.model.bodies.iter().zip(bodies))
            .filter(|(_, o)| o.is_some())
            .map(|(b, _)| Input::new(format!("{}{WRENCH}", b.name), "N|N·m", 6, what).releasable())
            .collect();
        if drives.is_some() {
            let what = "the snare's closing motor (`snare.ring`) or carriage (`snare.carriage`) commanded at this fraction of its rated voltage (-1 to 1), unbraked in every stage, from the next step on; no value hands it back to the sequence; its work enters the energy budget";
            inputs.extend(SNARE_DRIVES.map(|name| Input::new(name, "1", 1, what).releasable()));
        }
        if let Some(b) = &self.model.berthing {
            let what = "this latch's motor commanded at this fraction of its rated voltage (-1 to 1), unbraked between its open and closed stops, from the next step on; no value hands it back to the berthing's sequence; its work enters the energy budget";
            inputs.extend(b.latches.iter().map(|l| Input::new(format!("{}.motor", l.name), "1", 1, what).releasable()));
        }
        if let Some((sys, _)) = &self.model.arm {
            let what = "the arm's feed-forward joint forces, one per velocity coordinate, held from the next step on; their work enters the energy budget";
            inputs.push(Input::new("joint_forces", "N·m|N", sys.model.nv(), what));
        }
        inputs
    }

    fn set_input(&mut self, name: &str, v: &[f64]) -> Result<(), String> {
        if name == "joint_forces" {
            return self.sim.set_joint_forces(v);
        }
        if let Some(k) = SNARE_DRIVES.iter().position(|d| *d == name) {
            return self.sim.command_snare(k, v.first().copied());
        }
        let latch = self
            .model
            .berthing
            .as_ref()
            .and_then(|b| b.latches.iter().position(|l| name.strip_suffix(".motor") == Some(l.name.as_str())));
        if let Some(i) = latch {
            return self.sim.command_latch(i, v.first().copied());
        }
        let body = name.strip_suffix(WRENCH).and_then(|b| self.model.bodies.iter().position(|x| x.name == b));
        let Some(i) = body else { return Err(format!("no input `{name}`")) };
        let (f, tau) = crate::app::wrench(v);
        self.sim.apply(i, f, tau)
    }

    fn table(&self) -> Table {
        timeseries(&self.model, self.sim.run())
    }

    fn report(self, end: Result<Stop, Diagnosis>, wall: f64, dir: Option<&Path>) -> Result<Report, String> {
        let mut run = self.sim.finish(end.clone());
        run.wall_s = wall;
        let summary = match dir {
            Some(dir) => write_mechanism_run(dir, &self.model, &run)?,
            None => MechanismSummary::new(&self.model, &run)?,
        };
        let lines = vec![summary.headline(&crate::app::shown(dir))];
        Ok(Report::new(&end, to_json(&summary)?, timeseries(&self.model, &run), lines))
    }
}
