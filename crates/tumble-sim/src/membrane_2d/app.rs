//! The 2D trampoline as an application (`kind = "membrane_2d"`): built, stepped with the body's
//! state and the membrane's action by name, reported (`timeseries.csv`, `summary.json`, plots).

use super::sim::TrampolineSim;
use super::{Trampoline, TrampolineRun, TrampolineSample};
use crate::Table;
use crate::app::{Application, Quantity, Report, Run, Stepped, Stepping, WithModel};
use crate::campaign::CampaignKind;
use crate::campaign::dispersion::Dispersion;
use crate::outputs::{RunDir, first_last};
use crate::pipeline::{Diagnosis, Stop};
use crate::plot::{Panel, Series, line_plot, panels_plot};
use crate::scenario::{Scenario, ScenarioError, Sections};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

/// A polygon dropped onto the document's 2D membrane (`kind = "membrane_2d"`).
pub struct TrampolineApp;

/// A trampoline run and its model.
pub type TrampolineRunning = WithModel<TrampolineSim, Arc<Trampoline>>;

impl Application for TrampolineApp {
    fn kind(&self) -> &'static str {
        "membrane_2d"
    }

    fn sections(&self) -> Sections {
        Sections { required: &["trampoline"], optional: &[] }
    }

    fn start(&self, sc: &Scenario) -> Result<Box<dyn Run>, ScenarioError> {
        let model = Arc::new(Trampoline::build(sc)?);
        let sim = TrampolineSim::new(model.clone());
        let schedule = sim.schedule();
        Ok(Stepped::start(WithModel { sim, model }, schedule))
    }

    fn campaign(&self, _: &Scenario, _: &[Dispersion]) -> Result<Box<dyn CampaignKind>, String> {
        Ok(Box::new(super::campaign::TrampolineRuns))
    }
}

impl Stepping for TrampolineRunning {
    fn quantities(&self) -> Vec<Quantity> {
        let (y, c) = (self.sim.y(), self.sim.contact());
        vec![
            Quantity::new("position", "m", &y[0..2]),
            Quantity::new("angle", "rad", &y[2..3]),
            Quantity::new("velocity", "m/s", &y[3..5]),
            Quantity::new("angular_velocity", "rad/s", &y[5..6]),
            Quantity::new(
                "membrane_force",
                "N",
                &[c.normal_force.x + c.friction_force.x, c.normal_force.y + c.friction_force.y],
            ),
            Quantity::new("membrane_torque", "N·m", &[c.normal_torque + c.friction_torque]),
        ]
    }

    fn table(&self) -> Table {
        timeseries(self.sim.run())
    }

    fn report(self, end: Result<Stop, Diagnosis>, wall: f64, dir: Option<&Path>) -> Result<Report, String> {
        let run = self.sim.finish(end.clone());
        let summary = summary(&self.model, &run, wall)?;
        if let Some(dir) = dir {
            write(dir, &self.model, &run, &summary)?;
        }
        let s = &summary;
        let line = format!(
            "{}: {} contact samples, peak tension {:.1} N, deepest {:.3} m; energy budget {:.6} → {:.6} J (damping {:.3} J, friction {:.3} J); outputs in {}",
            s["scenario"].as_str().unwrap_or(""),
            s["contact_samples"],
            s["peak_tension_N"].as_f64().unwrap_or(0.0),
            s["deepest_m"].as_f64().unwrap_or(0.0),
            s["energy_budget_initial_J"].as_f64().unwrap_or(0.0),
            s["energy_budget_final_J"].as_f64().unwrap_or(0.0),
            s["damping_loss_J"].as_f64().unwrap_or(0.0),
            s["friction_loss_J"].as_f64().unwrap_or(0.0),
            crate::app::shown(dir).display()
        );
        Ok(Report::new(&end, summary, timeseries(&run), vec![line]))
    }
}

/// The run's samples as a table.
pub fn timeseries(run: &TrampolineRun) -> Table {
    let columns = [
        "t [s]",
        "x [m]",
        "y [m]",
        "angle [rad]",
        "vx [m/s]",
        "vy [m/s]",
        "omega [rad/s]",
        "length [m]",
        "length_rate [m/s]",
        "tension [N]",
        "normal_fx [N]",
        "normal_fy [N]",
        "friction_fx [N]",
        "friction_fy [N]",
        "contact_vertices [1]",
        "kinetic [J]",
        "gravity_potential [J]",
        "membrane_energy [J]",
        "damping_loss [J]",
        "friction_loss [J]",
        "budget [J]",
    ];
    let mut t = Table::new(columns.iter().map(|c| c.to_string()).collect());
    for s in &run.samples {
        let c = &s.contact;
        let mut row = vec![s.t];
        row.extend_from_slice(&s.state);
        row.extend([c.length, c.length_rate, c.tension, c.normal_force.x, c.normal_force.y]);
        row.extend([c.friction_force.x, c.friction_force.y, c.contact_vertices as f64]);
        row.extend([s.kinetic, s.gravity_potential, c.energy, s.damping_loss, s.friction_loss, s.budget()]);
        t.push(&row);
    }
    t
}

/// The lowest body vertex's height at `state`, m.
fn lowest(m: &Trampoline, state: &[f64; 6]) -> f64 {
    let (sn, cs) = state[2].sin_cos();
    m.polygon.iter().map(|v| state[1] + sn * v.x + cs * v.y).fold(f64::INFINITY, f64::min)
}

/// `summary.json`.
pub(super) fn summary(m: &Trampoline, run: &TrampolineRun, wall: f64) -> Result<Value, String> {
    let (first, last) = first_last(&run.samples)?;
    let peak = |f: &dyn Fn(&TrampolineSample) -> f64| run.samples.iter().map(f).fold(0.0, f64::max);
    Ok(json!({
        "scenario": m.name,
        "final_time_s": last.t,
        "final_state": last.state,
        "contact_samples": run.samples.iter().filter(|s| s.contact.in_contact).count(),
        "peak_tension_N": peak(&|s| s.contact.tension),
        "deepest_m": peak(&|s| (-lowest(m, &s.state)).max(0.0)),
        "peak_friction_N": peak(&|s| s.contact.friction_force.norm()),
        "energy_budget_initial_J": first.budget(),
        "energy_budget_final_J": last.budget(),
        "largest_budget_error_J": run.samples.iter().map(|s| (s.budget() - first.budget()).abs()).fold(0.0, f64::max),
        "damping_loss_J": last.damping_loss,
        "friction_loss_J": last.friction_loss,
        "final_normal_force_N": [last.contact.normal_force.x, last.contact.normal_force.y],
        "weight_N": m.mass * m.gravity.norm(),
        "diagnosis": run.diagnosis.as_ref().map(|d| d.to_string()),
        "wall_time_s": wall,
    }))
}

/// Writes `timeseries.csv`, `summary.json`, plots (`membrane`: length change over the forces;
/// `energy`; `motion`) and `animation.glb` (the polygon as a slab across the plane, the
/// membrane as a strip) into `dir`.
pub(super) fn write(dir: &Path, m: &Trampoline, run: &TrampolineRun, summary: &Value) -> Result<(), String> {
    let out = RunDir::create(dir)?;
    out.csv("timeseries.csv", |w| timeseries(run).write_csv(w))?;
    out.json("summary.json", summary)?;
    let (first, _) = first_last(&run.samples)?;
    let t: Vec<f64> = run.samples.iter().map(|s| s.t).collect();
    let col = |f: &dyn Fn(&TrampolineSample) -> f64| run.samples.iter().map(f).collect::<Vec<f64>>();
    let l0 = m.membrane.length0();
    let panels = [
        Panel {
            y_label: "ℓ − ℓ₀ [m]".into(),
            series: vec![Series { label: "ℓ − ℓ₀".into(), x: &t, y: col(&|s| s.contact.length - l0) }],
        },
        Panel {
            y_label: "force [N]".into(),
            series: vec![
                Series { label: "|normal force|".into(), x: &t, y: col(&|s| s.contact.normal_force.norm()) },
                Series { label: "|friction|".into(), x: &t, y: col(&|s| s.contact.friction_force.norm()) },
            ],
        },
    ];
    panels_plot(&out.plot("membrane"), "Membrane: length change and forces", "time [s]", &panels, &[])?;
    let energy = [
        Series { label: "kinetic".into(), x: &t, y: col(&|s| s.kinetic) },
        Series { label: "gravity".into(), x: &t, y: col(&|s| s.gravity_potential - first.gravity_potential) },
        Series { label: "membrane".into(), x: &t, y: col(&|s| s.contact.energy) },
        Series { label: "damping loss".into(), x: &t, y: col(&|s| s.damping_loss) },
        Series { label: "friction loss".into(), x: &t, y: col(&|s| s.friction_loss) },
        Series { label: "sum − start".into(), x: &t, y: col(&|s| s.budget() - first.budget()) },
    ];
    line_plot(&out.plot("energy"), "Energy budget", "time [s]", "energy [J]", &energy, false)?;
    let path = [Series { label: "centre of mass".into(), x: &col(&|s| s.state[0]), y: col(&|s| s.state[1]) }];
    line_plot(&out.plot("motion"), "Centre of mass in the membrane plane", "x [m]", "y [m]", &path, true)?;
    super::animation(m, run).write_glb(&dir.join("animation.glb"))
}
