//! The nominal capture's detumble as one stepped run (`tumble run` of a capture study, or
//! `tumble.Simulation` in Python): the post-capture state the constrained impulse (eq. 5) gives
//! at the scenario's pre-capture state, the TVLQR designed along its nominal trajectory, stepped
//! one control step at a time. Between steps a user's law may replace the TVLQR through the
//! input `joint_forces` (the base's moment and force, base axes, then the joint torques),
//! saturated at the `[capture.control]` limits as the TVLQR's inputs are; no values hand the
//! plant back to the TVLQR. The inputs' work `W = ∫ u·v dt` is in the state, and the energy
//! check is the rollouts' (`held.rs`): `T − W − T₀` may not grow past 1 % of the largest of
//! `T` and `|W|`.
//!
//! The run ends at the horizon (`detumbled`, or `not_detumbled` with why) or when a joint
//! leaves `capture.control.joint_range` (`not_detumbled`). Samples, every step: `t [s]`,
//! `cost_to_go [1]` (`V = (x − x_nom)ᵀ S (x − x_nom)`), `kinetic_energy [J]`, `work [J]`,
//! `rate [rad/s]` (the largest base or joint rate), `speed [m/s]` (the base's) and
//! `excursion [rad]` (the largest joint excursion from the capture configuration).

use super::CaptureStudy;
use super::detumble::{Design, Plant, PlantScratch, design};
use super::held::{energy_check, held_step};
use crate::Table;
use crate::app::{Input, Quantity, Report, Stepping, shown, to_json};
use crate::outputs::RunDir;
use crate::pipeline::{Diagnosis, EnergyCheck, GuardFailure, Schedule, Simulation, StepReport, Stop};
use serde_json::json;
use std::path::Path;
use tumble_dynamics::{Integrator, Method};
use tumble_math::nalgebra::DVector;

/// The columns of a detumble's samples.
const COLUMNS: [&str; 7] =
    ["t [s]", "cost_to_go [1]", "kinetic_energy [J]", "work [J]", "rate [rad/s]", "speed [m/s]", "excursion [rad]"];

/// The nominal capture's detumble, stepped.
pub struct DetumbleSim {
    study: CaptureStudy,
    design: Design,
    integ: Integrator,
    /// `[x; W]`.
    y: Vec<f64>,
    x: DVector<f64>,
    u: DVector<f64>,
    /// A user's inputs, in place of the TVLQR's.
    user: Option<DVector<f64>>,
    scratch: PlantScratch,
    /// Scratch of the law and the cost-to-go.
    dx: DVector<f64>,
    kdx: DVector<f64>,
    cd: DVector<f64>,
    /// `T₀` and the largest energy scale so far, J.
    energy0: (f64, f64),
    check: EnergyCheck,
    k: usize,
    /// Why it is not detumbled, once a joint has left its range.
    left: Option<String>,
    table: Table,
    /// The states at every step and the inputs held over each, row after row (for the plots
    /// and the animation).
    states: Vec<f64>,
    inputs: Vec<f64>,
}

impl DetumbleSim {
    /// The study's nominal capture and its TVLQR design, at the capture.
    pub fn new(study: CaptureStudy) -> Result<Self, String> {
        let reference = study.map.constrained(&study.v_c, &study.v_t)?;
        let x0 = study.state(study.joint_angles(), &reference.chaser);
        let design = design(&study.plant, &x0, &study.spec)?;
        let (nx, nu, steps) = (study.plant.nx(), study.plant.model.nv(), design.steps());
        let mut scratch = PlantScratch::default();
        let kinetic = study.plant.kinetic_energy_in(x0.as_slice(), &mut scratch);
        let mut y = x0.as_slice().to_vec();
        y.push(0.0);
        Ok(Self {
            integ: Integrator::new(Method::Rk4 { dt: design.spec.dt }, nx + 1),
            design,
            study,
            y,
            x: x0,
            u: DVector::zeros(nu),
            user: None,
            scratch,
            dx: DVector::zeros(nx),
            kdx: DVector::zeros(nu),
            cd: DVector::zeros(nx),
            energy0: (kinetic, kinetic),
            check: EnergyCheck { growth: 0.0, limit: 0.0 },
            k: 0,
            left: None,
            table: Table::new(COLUMNS.map(String::from).to_vec()),
            states: Vec::with_capacity((steps + 1) * nx),
            inputs: Vec::with_capacity(steps * nu),
        })
    }

    fn plant(&self) -> &Plant {
        &self.study.plant
    }

    /// Writes `timeseries.csv`, `summary.json`, the plots and `animation.glb` into `dir`.
    fn write(&self, dir: &Path, summary: &serde_json::Value) -> Result<(), String> {
        let out = RunDir::create(dir)?;
        out.csv("timeseries.csv", |w| self.table.write_csv(w))?;
        out.json("summary.json", summary)?;
        let rows = |flat: &[f64], n: usize| flat.chunks_exact(n).map(DVector::from_column_slice).collect::<Vec<_>>();
        let xs = rows(&self.states, self.x.len());
        let us = rows(&self.inputs, self.u.len());
        let (theta, dt) = (&self.design.theta_capture, self.design.spec.dt);
        super::plots::detumble(dir, theta, &xs, &us, dt, "Detumble")?;
        super::plots::states_animation(&self.study, &xs, dt).write_glb(&dir.join("animation.glb"))
    }

    /// Every step to the horizon, each sampled.
    pub fn schedule(&self) -> Schedule {
        let dt = self.design.spec.dt;
        Schedule { duration: self.design.steps() as f64 * dt, output_interval: dt }
    }

    /// The largest base or joint rate (rad/s) and the base's speed (m/s).
    fn rates(&self) -> (f64, f64) {
        super::detumble::rates(&self.x, self.plant().joints())
    }

    /// The largest joint excursion from the capture configuration, rad.
    fn excursion(&self) -> f64 {
        let theta = &self.design.theta_capture;
        theta.iter().zip(self.x.iter()).map(|(c, x)| (x - c).abs()).fold(0.0, f64::max)
    }

    /// Why the detumble fell short at its end, if it did.
    fn shortfall(&self) -> Option<String> {
        let spec = &self.design.spec;
        if let Some(left) = &self.left {
            Some(left.clone())
        } else if self.k < self.design.steps() {
            Some(format!("stopped at {:.2} s, before the horizon of {} s", self.time(), spec.horizon))
        } else {
            spec.shortfall(&self.x, self.plant().joints())
        }
    }
}

impl Simulation for DetumbleSim {
    fn time(&self) -> f64 {
        self.k as f64 * self.design.spec.dt
    }

    fn advance(&mut self, _until: f64) -> Result<(), Diagnosis> {
        let (d, k) = (&self.design, self.k.min(self.design.steps() - 1));
        match &self.user {
            Some(u) => self.u.copy_from(u),
            None => {
                self.dx.copy_from(&self.x);
                self.dx -= &d.x_nom[k];
                self.kdx.gemv(1.0, &d.k[k], &self.dx, 0.0);
                self.u.copy_from(&d.u_nom[k]);
                self.u -= &self.kdx;
            }
        }
        let dt = d.spec.dt;
        held_step(&self.study.plant, &mut self.integ, &mut self.u, &mut self.scratch, (&mut self.y, &mut self.x), dt);
        self.inputs.extend_from_slice(self.u.as_slice());
        self.k += 1;
        Ok(())
    }

    fn state(&self) -> &[f64] {
        &self.y
    }

    fn observe(&mut self) -> StepReport {
        self.check = energy_check(&self.study.plant, &self.y, &mut self.scratch, &mut self.energy0);
        let (excursion, range) = (self.excursion(), self.design.spec.joint_range);
        if excursion > range && self.left.is_none() {
            self.left = Some(format!("a joint left its range ({excursion:.3} > {range} rad) at {:.2} s", self.time()));
        }
        let stop = self.left.is_some() || self.k >= self.design.steps();
        StepReport { stop: stop.then_some(Stop::Completed), ..StepReport::default() }
    }

    fn energy(&self) -> Option<EnergyCheck> {
        Some(self.check)
    }

    fn record(&mut self) {
        let k = self.k.min(self.design.steps());
        let v = self.design.cost_to_go_in(k, &self.x, &mut self.dx, &mut self.cd);
        let kinetic = self.study.plant.kinetic_energy_in(self.x.as_slice(), &mut self.scratch);
        let (rate, speed) = self.rates();
        let work = self.y[self.x.len()];
        self.states.extend_from_slice(self.x.as_slice());
        self.table.push(&[self.time(), v, kinetic, work, rate, speed, self.excursion()]);
    }

    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis {
        let law = if self.user.is_some() { "the law given as joint_forces" } else { "the TVLQR" };
        Diagnosis::new(
            self.time(),
            format!("the detumble diverged under {law}: {}", failure.what()),
            format!("a gentler law, or a smaller simulation.dt (now {} s)", self.design.spec.dt),
        )
    }
}

impl Stepping for DetumbleSim {
    fn quantities(&self) -> Vec<Quantity> {
        let n = self.plant().joints();
        let x = self.x.as_slice();
        let v = self.design.cost_to_go(self.k.min(self.design.steps()), &self.x);
        let mut q = vec![
            Quantity::new("q", "rad", &x[..n]),
            Quantity::new("v", "rad/s|m/s", &x[n..]),
            Quantity::new("base.angular_velocity", "rad/s", &x[n..n + 3]),
            Quantity::new("base.velocity", "m/s", &x[n + 3..n + 6]),
            Quantity::scalar("cost_to_go", "1", v),
        ];
        let links = self.plant().model.links.iter().skip(1).filter(|l| l.joint.nv() == 1);
        for (i, link) in links.enumerate() {
            q.push(Quantity::new(format!("{}.q", link.name), "rad|m", &x[i..i + 1]));
            q.push(Quantity::new(format!("{}.v", link.name), "rad/s|m/s", &x[n + 6 + i..n + 7 + i]));
        }
        q
    }

    fn inputs(&self) -> Vec<Input> {
        let what = "the base's moment (N·m) and force (N), base axes, then the joint torques, in place of the TVLQR's from the next step on, saturated at the [capture.control] limits; no values hand the plant back to the TVLQR; their work enters the energy budget";
        vec![Input::new("joint_forces", "N·m|N", self.plant().model.nv(), what).releasable()]
    }

    fn set_input(&mut self, _name: &str, values: &[f64]) -> Result<(), String> {
        match (values.is_empty(), &mut self.user) {
            (true, _) => self.user = None,
            (false, Some(u)) => u.as_mut_slice().copy_from_slice(values),
            (false, None) => self.user = Some(DVector::from_column_slice(values)),
        }
        Ok(())
    }

    fn table(&self) -> Table {
        self.table.clone()
    }

    fn report(self, end: Result<Stop, Diagnosis>, wall: f64, dir: Option<&Path>) -> Result<Report, String> {
        let shortfall = match &end {
            Ok(_) => self.shortfall(),
            Err(d) => Some(d.to_string()),
        };
        let (rate, speed) = self.rates();
        let status = match (&end, &shortfall) {
            (Err(_), _) => "failed",
            (Ok(_), None) => "detumbled",
            (Ok(_), Some(_)) => "not_detumbled",
        };
        let summary = json!({
            "scenario": self.study.name,
            "status": status,
            "diagnosis": end.as_ref().err().map(ToString::to_string),
            "reason": shortfall,
            "final_time_s": self.time(),
            "final_rate_rad_s": rate,
            "final_speed_m_s": speed,
            "max_excursion_rad": self.table.column("excursion [rad]").map_or(0.0, |e| e.iter().copied().fold(0.0, f64::max)),
            "work_J": self.y[self.x.len()],
            "wall_time_s": wall,
        });
        if let Some(dir) = dir {
            self.write(dir, &summary)?;
        }
        let headline = match &shortfall {
            None => format!("detumbled in {:.1} s: rates {rate:.2e} rad/s, speed {speed:.2e} m/s", self.time()),
            Some(why) => format!("{status}: {why}"),
        };
        let lines = vec![headline, format!("outputs: {}", shown(dir).display())];
        Ok(Report::new(&end, to_json(&summary)?, self.table, lines))
    }
}
