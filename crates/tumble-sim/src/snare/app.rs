//! The snare-wire experiment as an application: a scenario of `kind = "snare"` built, stepped
//! with the planar target's state by name, and reported.

use super::campaign::WireRuns;
use super::{WireExperiment, WireSim, WireSummary, output_every, timeseries, write_wire_run};
use crate::Table;
use crate::app::{Application, Input, Quantity, Report, Run, Stepped, Stepping, WithModel, to_json};
use crate::campaign::CampaignKind;
use crate::campaign::dispersion::Dispersion;
use crate::pipeline::{Diagnosis, Stop};
use crate::scenario::{Scenario, ScenarioError, Sections};
use std::path::Path;

/// The planar snare-wire experiment (`kind = "snare"`).
pub struct SnareWire;

/// What a snare-wire run reports against: its experiment, the scenario's name and the steps
/// between kept samples.
pub struct WireOutputs {
    exp: WireExperiment,
    name: String,
    every: usize,
}

/// A snare-wire run.
pub type WireRunning = WithModel<WireSim, WireOutputs>;

impl Application for SnareWire {
    fn kind(&self) -> &'static str {
        "snare"
    }

    fn sections(&self) -> Sections {
        Sections { required: &["snare"], optional: &[] }
    }

    fn start(&self, sc: &Scenario) -> Result<Box<dyn Run>, ScenarioError> {
        let exp = WireExperiment::build(sc)?;
        let sim = WireSim::new(exp).map_err(|e| sc.error_at("snare", e))?;
        let schedule = sim.schedule();
        let (name, every) = (sc.file.name.clone(), output_every(sc, exp.dt));
        Ok(Stepped::start(WithModel { sim, model: WireOutputs { exp, name, every } }, schedule))
    }

    fn campaign(&self, _: &Scenario, _: &[Dispersion]) -> Result<Box<dyn CampaignKind>, String> {
        Ok(Box::new(WireRuns))
    }
}

impl Stepping for WireRunning {
    fn quantities(&self) -> Vec<Quantity> {
        let y = self.sim.y();
        vec![
            Quantity::new("position", "m", &y[0..2]),
            Quantity::scalar("angle", "rad", y[2]),
            Quantity::new("velocity", "m/s", &y[3..5]),
            Quantity::scalar("angular_velocity", "rad/s", y[5]),
            Quantity::new("impulse", "N·s", &y[6..8]),
        ]
    }

    fn inputs(&self) -> Vec<Input> {
        let what = "a force [fx, fy] (N, the plane's axes) at the target's centre of mass, then a torque about it (N·m), held from the next step on (no values: none); its work enters the energy budget";
        vec![Input::new("target.wrench", "N|N·m", 3, what).releasable()]
    }

    fn set_input(&mut self, _name: &str, v: &[f64]) -> Result<(), String> {
        let v = if v.is_empty() { &[0.0; 3][..] } else { v };
        self.sim.push([v[0], v[1]], v[2])
    }

    fn table(&self) -> Table {
        timeseries(self.sim.run(), self.model.every)
    }

    fn report(self, end: Result<Stop, Diagnosis>, wall: f64, dir: Option<&Path>) -> Result<Report, String> {
        let (run, o) = (self.sim.finish(end.clone()), self.model);
        let summary = match dir {
            Some(dir) => write_wire_run(dir, &o.name, &o.exp, &run, o.every)?,
            None => WireSummary::new(&o.name, &o.exp, &run)?,
        };
        let lines = vec![summary.headline(wall, &crate::app::shown(dir))];
        Ok(Report::new(&end, to_json(&summary)?, timeseries(&run, o.every), lines))
    }
}
