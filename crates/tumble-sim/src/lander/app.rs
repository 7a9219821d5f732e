//! The lander as an application: a scenario of `kind = "lander"` built, stepped with its state
//! and the hop by name, and reported as `tumble run` prints it.

use super::campaign::LanderRuns;
use super::output::{summary, timeseries, write_lander_run};
use super::{LanderModel, LanderSim, LanderSystem};
use crate::Table;
use crate::app::{Application, Input, Quantity, Report, Run, Stepped, Stepping, WithModel};
use crate::campaign::CampaignKind;
use crate::campaign::dispersion::Dispersion;
use crate::pipeline::{Diagnosis, Stop};
use crate::scenario::{Scenario, ScenarioError, Sections};
use std::path::Path;
use tumble_math::Vec3;

/// Landers and hoppers on a small body (`kind = "lander"`).
pub struct Lander;

/// A lander run with the model it reports against.
pub type LanderRunning = WithModel<LanderSim<Box<LanderSystem>>, LanderModel>;

impl Application for Lander {
    fn kind(&self) -> &'static str {
        "lander"
    }

    fn sections(&self) -> Sections {
        Sections { required: &["lander", "target"], optional: &[] }
    }

    fn start(&self, sc: &Scenario) -> Result<Box<dyn Run>, ScenarioError> {
        let model = LanderModel::build(sc)?;
        let sim = LanderSim::new(Box::new(model.system.clone()), model.initial_state, &model.settings)
            .map_err(|e| sc.error_at(&e.key, e.message))?;
        let schedule = sim.schedule();
        Ok(Stepped::start(WithModel { sim, model }, schedule))
    }

    fn campaign(&self, sc: &Scenario, dispersions: &[Dispersion]) -> Result<Box<dyn CampaignKind>, String> {
        let own_target = dispersions.iter().any(|d| d.key.starts_with("target.") || d.key.starts_with("gravity."));
        Ok(Box::new(LanderRuns::new(sc, own_target)?))
    }
}

impl Stepping for LanderRunning {
    fn warnings(&self) -> Vec<String> {
        self.model.warnings.clone()
    }

    fn quantities(&self) -> Vec<Quantity> {
        let y = self.sim.y();
        let s = self.sim.snapshot();
        vec![
            Quantity::new("position", "m", &y[0..3]),
            Quantity::new("velocity", "m/s", &y[3..6]),
            Quantity::new("attitude", "1", &y[6..10]),
            Quantity::new("angular_velocity", "rad/s", &y[10..13]),
            Quantity::new("target_attitude", "1", &y[13..17]),
            Quantity::new("target_angular_velocity", "rad/s", &y[17..20]),
            Quantity::scalar("speed", "m/s", s.kin.v.norm()),
            Quantity::scalar("rate", "rad/s", s.kin.w.norm()),
            Quantity::new("contact_force", "N", s.normal.force.as_slice()),
            Quantity::new("friction_force", "N", s.tangential.friction.as_slice()),
        ]
    }

    fn inputs(&self) -> Vec<Input> {
        vec![
            Input::new(
                "hop",
                "N·m·s",
                3,
                "fires a hop now: an angular impulse from the internal wheel or torquer, body axes; its work enters the energy budget",
            ),
            Input::new(
                "torque",
                "N·m|s",
                4,
                "fires a hop now as a torque profile: a torque (N·m, body axes) from the internal wheel or torquer held for the fourth value's seconds, within the actuator's limits, as a [[lander.hops]] torque hop; its work enters the energy budget",
            ),
        ]
    }

    fn set_input(&mut self, name: &str, values: &[f64]) -> Result<(), String> {
        match name {
            "torque" => self.sim.torque_hop(Vec3::from_column_slice(&values[..3]), values[3]),
            _ => {
                self.sim.hop(Vec3::from_column_slice(values));
                Ok(())
            }
        }
    }

    fn table(&self) -> Table {
        timeseries(self.sim.run())
    }

    fn report(self, end: Result<Stop, Diagnosis>, wall: f64, dir: Option<&Path>) -> Result<Report, String> {
        let (model, run) = (self.model, self.sim.finish(end.clone()));
        let summary = match dir {
            Some(dir) => write_lander_run(dir, &model, &run)?,
            None => summary(&model, &run),
        };
        let out = crate::app::shown(dir).display().to_string();
        let mut lines = vec![format!(
            "{}: {} at t = {:.3} s after {} bounces ({:.0} steps in {wall:.2} s wall); outputs in {out}",
            model.name,
            run.outcome.name(),
            run.final_time,
            run.bounces(),
            run.final_time / model.settings.dt,
        )];
        let y = &run.final_state;
        if !model.system.on_surface(y) {
            lines.push(format!("in flight at the end: {:.3e} m above the surface", model.system.clearance(y)));
        } else if let Some(sites) = model.sites {
            let (lat, lon) = sites.lat_lon(&Vec3::new(y[0], y[1], y[2]));
            lines.push(format!("landing site: latitude {lat:.3}°, longitude {lon:.3}°"));
        }
        lines.push(format!(
            "max penetration {:.3e} m; energy balance error {:.3e} J",
            run.max_penetration, run.max_balance_error
        ));
        Ok(Report::new(&end, summary, timeseries(&run), lines))
    }
}
