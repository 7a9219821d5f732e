//! The grapple as an application: a scenario of `kind = "grapple"` built, stepped with the
//! arm's joints, the payload's pose and twist and the received impulse by name, the arm's joint
//! forces as its input, and reported.

use super::campaign::GrappleRuns;
use super::{GrappleCapture, GrappleSim, GrappleSummary, timeseries, write_grapple_run};
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

/// An arm's wire or snare effector capturing a free payload (`kind = "grapple"`).
pub struct Grapple;

/// A grapple's run and its model.
pub type GrappleRunning = WithModel<GrappleSim, Arc<GrappleCapture>>;

impl Application for Grapple {
    fn kind(&self) -> &'static str {
        "grapple"
    }

    fn sections(&self) -> Sections {
        Sections { required: &["arm", "grapple"], optional: &[] }
    }

    fn start(&self, sc: &Scenario) -> Result<Box<dyn Run>, ScenarioError> {
        let model = Arc::new(GrappleCapture::build(sc)?);
        let sim = GrappleSim::new(model.clone());
        let schedule = sim.schedule();
        Ok(Stepped::start(WithModel { sim, model }, schedule))
    }

    fn campaign(&self, _: &Scenario, _: &[Dispersion]) -> Result<Box<dyn CampaignKind>, String> {
        Ok(Box::new(GrappleRuns))
    }
}

impl Stepping for GrappleRunning {
    fn quantities(&self) -> Vec<Quantity> {
        let (y, na) = (self.sim.y(), self.sim.arm_len());
        let arm = &self.model.arm;
        let mut q = joint_quantities(&arm.system.model, &arm.joint_names, &y[..na]);
        // The payload's start and state hold the position, then the quaternion, the velocity
        // and the body-axes angular velocity.
        let s = &y[na..na + 13];
        let state = [&s[0..3], &s[7..10], &s[3..7], &s[10..13]].concat();
        q.extend(body_quantities("payload.", &state));
        q.push(Quantity::new("payload.impulse", "N·s", &y[na + 13..na + 16]));
        q
    }

    fn inputs(&self) -> Vec<Input> {
        let nv = self.model.arm.system.model.nv();
        let what = "the arm's feed-forward joint forces, one per velocity coordinate, held from the next step on; their work enters the energy budget";
        let push = "a force (N) then a torque about its centre of mass (N·m), world axes, on the payload, held from the next step on (no values: none); its work enters the energy budget";
        vec![Input::new("joint_forces", "N·m|N", nv, what), Input::new("payload.wrench", "N|N·m", 6, push).releasable()]
    }

    fn set_input(&mut self, name: &str, values: &[f64]) -> Result<(), String> {
        if name == "payload.wrench" {
            let (f, tau) = crate::app::wrench(values);
            self.sim.apply(f, tau);
            return Ok(());
        }
        self.sim.set_joint_forces(values)
    }

    fn table(&self) -> Table {
        timeseries(self.sim.run())
    }

    fn report(self, end: Result<Stop, Diagnosis>, wall: f64, dir: Option<&Path>) -> Result<Report, String> {
        let mut run = self.sim.finish(end.clone());
        run.wall_s = wall;
        let summary = match dir {
            Some(dir) => write_grapple_run(dir, &self.model, &run)?,
            None => GrappleSummary::new(&self.model, &run)?,
        };
        let mut lines = vec![summary.headline(&crate::app::shown(dir))];
        if let Some(why) = &summary.capture_failure {
            lines.push(format!("capture failed: {why}"));
        }
        Ok(Report::new(&end, to_json(&summary)?, timeseries(&run), lines))
    }
}
