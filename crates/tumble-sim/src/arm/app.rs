//! Articulated arms as an application: a scenario of `kind = "arm"` built, stepped with its
//! joints by name and feed-forward joint forces as its input, and reported.

use super::campaign::ArmRuns;
use super::{ArmModel, ArmSim, ArmSummary, write_arm_run};
use crate::Table;
use crate::app::{Application, Input, Quantity, Report, Run, Stepped, Stepping, to_json};
use crate::campaign::CampaignKind;
use crate::campaign::dispersion::Dispersion;
use crate::pipeline::{Diagnosis, Stop};
use crate::scenario::{Scenario, ScenarioError, Sections};
use std::path::Path;
use tumble_dynamics::multibody::Multibody;

/// An articulated arm (`kind = "arm"`).
pub struct Arm;

impl Application for Arm {
    fn kind(&self) -> &'static str {
        "arm"
    }

    fn sections(&self) -> Sections {
        Sections { required: &["arm"], optional: &[] }
    }

    fn start(&self, sc: &Scenario) -> Result<Box<dyn Run>, ScenarioError> {
        let sim = ArmSim::new(Box::new(ArmModel::build(sc)?));
        let schedule = sim.schedule();
        Ok(Stepped::start(sim, schedule))
    }

    fn campaign(&self, sc: &Scenario, _: &[Dispersion]) -> Result<Box<dyn CampaignKind>, String> {
        Ok(Box::new(ArmRuns::new(sc)?))
    }
}

/// The joint coordinates `q` and rates `v` of state `y` (`[q; v; …]`) of tree `mb`, each by
/// its joint's name in `names` (by link, its link's name where it has none: `shoulder.q`,
/// `shoulder.v`; a joint of several coordinates lists them all), and the whole vectors as `q`
/// and `v`.
pub fn joint_quantities(mb: &Multibody, names: &[Option<String>], y: &[f64]) -> Vec<Quantity> {
    let (nq, nv) = (mb.nq(), mb.nv());
    let mut out = vec![Quantity::new("q", "rad|m", &y[..nq]), Quantity::new("v", "rad/s|m/s", &y[nq..nq + nv])];
    for (l, link) in mb.links.iter().enumerate() {
        let (jq, jv) = (link.joint.nq(), link.joint.nv());
        if jv == 0 {
            continue;
        }
        let name = names.get(l).cloned().flatten().unwrap_or_else(|| link.name.clone());
        let (iq, iv) = (mb.q_index(mb.v_index(l)), mb.v_index(l));
        out.push(Quantity::new(format!("{name}.q"), "rad|m", &y[iq..iq + jq]));
        out.push(Quantity::new(format!("{name}.v"), "rad/s|m/s", &y[nq + iv..nq + iv + jv]));
    }
    out
}

impl Stepping for ArmSim<Box<ArmModel>> {
    /// `[q; v; θ; θ̇]`, the actuators' work left out.
    fn y(&self) -> &[f64] {
        ArmSim::y(self)
    }

    fn quantities(&self) -> Vec<Quantity> {
        joint_quantities(&self.model().system.model, &self.model().joint_names, ArmSim::y(self))
    }

    fn inputs(&self) -> Vec<Input> {
        let nv = self.model().system.model.nv();
        let what = "feed-forward joint forces, one per velocity coordinate, held from the next step on; their work enters the energy budget";
        vec![Input::new("joint_forces", "N·m|N", nv, what)]
    }

    fn set_input(&mut self, _name: &str, values: &[f64]) -> Result<(), String> {
        self.set_joint_forces(values)
    }

    fn table(&self) -> Table {
        self.run().timeseries()
    }

    fn report(self, end: Result<Stop, Diagnosis>, wall: f64, dir: Option<&Path>) -> Result<Report, String> {
        let (model, run) = ArmSim::end(self, end.clone());
        let summary = match dir {
            Some(dir) => write_arm_run(dir, &model, &run)?,
            None => ArmSummary::new(&model, &run)?,
        };
        let lines = vec![summary.headline(wall, &crate::app::shown(dir))];
        Ok(Report::new(&end, to_json(&summary)?, run.timeseries(), lines))
    }
}
