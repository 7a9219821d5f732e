//! Rigid bodies on the pipeline: [`RigidSim`] is the rigid-body system as a
//! [`Simulation`] (dynamics → integrate → projection inside the integrator; impact as its
//! event; `T + V − W` as its energy), [`simulate`] runs it on the [`Driver`]. A run that blows
//! up keeps only the samples recorded before the guard tripped and ends with a [`Diagnosis`].

use super::model::Model;
use super::record::Recording;
use crate::pipeline::{Driver, EnergyCheck, GuardFailure, Schedule, Simulation, StepReport, Stop};
use std::ops::DerefMut;
use std::time::Instant;
use tumble_dynamics::{BODY_STATE_LEN, Integrator, Invariants, Load, Method, Stats};
use tumble_math::Vec3;

pub use crate::pipeline::Diagnosis;

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Reached the end time.
    Completed,
    /// A stop event ended the run early (not a failure).
    Stopped {
        /// What happened.
        event: String,
    },
    /// The simulation blew up or could not continue.
    Failed(Diagnosis),
}

/// Everything a run produced.
pub struct RunResult {
    /// How it ended.
    pub outcome: Outcome,
    /// Recorded samples (finite only).
    pub recording: Recording,
    /// Time of the last good state, s.
    pub t_end: f64,
    /// The last good state vector.
    pub final_state: Vec<f64>,
    /// Integrator counts.
    pub stats: Stats,
    /// Wall-clock time, s.
    pub wall_time: f64,
}

/// Rigid bodies as the pipeline steps them: the model, the integrator and its scratch, the
/// state, the invariants of the last accepted step and the recording.
pub struct RigidSim<M = Box<Model>> {
    model: M,
    integ: Integrator,
    y: Vec<f64>,
    t: f64,
    inv0: Invariants,
    inv: Invariants,
    impact: Option<(Vec3, f64)>,
    event: Option<String>,
    recording: Recording,
    last_good: Vec<f64>,
    t_good: f64,
    /// Where each body's wrench from [`RigidSim::apply`] sits in its loads, once given.
    user: Vec<Option<usize>>,
}

impl<M: DerefMut<Target = Model>> RigidSim<M> {
    /// The run of `model` (owned, boxed or borrowed mutably) from its initial state at t = 0.
    pub fn new(model: M) -> Self {
        let y = model.initial_state.clone();
        let inv0 = model.system.invariants(&y);
        Self {
            integ: Integrator::new(model.method, y.len()),
            recording: Recording::new(&model.system),
            impact: model.impact(),
            last_good: y.clone(),
            y,
            t: 0.0,
            inv0,
            inv: inv0,
            event: None,
            t_good: 0.0,
            user: vec![None; model.system.bodies.len()],
            model,
        }
    }

    /// The output schedule of the model.
    pub fn schedule(&self) -> Schedule {
        Schedule { duration: self.model.duration, output_interval: self.model.output_interval }
    }

    /// The state (13 components per body, then the work of the applied loads).
    pub fn y(&self) -> &[f64] {
        &self.y
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Sets a force `f` (N) at body `i`'s centre of mass and a torque `tau` (N·m) about it,
    /// world axes, held from the next step on (as two of its loads); their work enters the
    /// energy check's `W`.
    pub fn apply(&mut self, i: usize, f: Vec3, tau: Vec3) -> Result<(), String> {
        let Some(body) = self.model.system.bodies.get_mut(i) else { return Err(format!("no body {i}")) };
        let at = *self.user[i].get_or_insert(body.loads.len());
        body.loads.truncate(at);
        body.loads
            .extend([Load::WorldForce { force_W: f, point_B: Vec3::zeros() }, Load::WorldTorque { torque_W: tau }]);
        // DOPRI5 keeps the last stage's derivative as the next step's first: stale now.
        self.integ.invalidate();
        Ok(())
    }

    /// The recorded samples.
    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    /// Growth of `T + V − W` since the start and the energy scale `max(T + |V|)` of the start
    /// and now, J.
    fn growth(&self) -> (f64, f64) {
        let (inv, inv0) = (&self.inv, &self.inv0);
        let growth = inv.energy() - inv.work - (inv0.energy() - inv0.work);
        (growth, (inv0.kinetic + inv0.potential.abs()).max(inv.kinetic + inv.potential.abs()))
    }

    /// The body whose state holds component `index` (the first for system components).
    fn body_of(&self, index: usize) -> usize {
        let b = index / BODY_STATE_LEN;
        if b < self.model.system.bodies.len() { b } else { 0 }
    }
}

impl<M: DerefMut<Target = Model>> Simulation for RigidSim<M> {
    fn time(&self) -> f64 {
        self.t
    }

    fn advance(&mut self, until: f64) -> Result<(), Diagnosis> {
        let stepped = self.integ.step_toward(&mut self.model.system, &mut self.t, &mut self.y, until);
        stepped.map(|_| ()).map_err(|e| {
            let spins = self.y.chunks_exact(BODY_STATE_LEN).zip(&self.model.system.bodies);
            let spins = spins.map(|(y, b)| (format!("body `{}` spins", b.name), Vec3::new(y[10], y[11], y[12]).norm()));
            let spins: Vec<_> = spins.collect();
            let motion = |h| crate::pipeline::fastest_motion(spins.iter().cloned(), h);
            crate::pipeline::step_budget_spent(&e, self.model.duration, motion).unwrap_or_else(|| {
                Diagnosis::new(
                    self.t,
                    e.to_string(),
                    "the equations are singular or very stiff here (a close pass of an attracting centre, extreme loads); check the scenario's values or loosen simulation.rtol",
                )
            })
        })
    }

    fn state(&self) -> &[f64] {
        &self.y
    }

    fn max_speed(&self) -> f64 {
        self.y.chunks_exact(BODY_STATE_LEN).map(crate::pipeline::body_speed).fold(0.0, f64::max)
    }

    fn observe(&mut self) -> StepReport {
        self.inv = self.model.system.invariants(&self.y);
        let mut report = StepReport::default();
        if let Some((c, r)) = self.impact {
            for (i, b) in self.y.chunks_exact(BODY_STATE_LEN).enumerate() {
                let d = (Vec3::new(b[0], b[1], b[2]) - c).norm();
                if d <= r {
                    self.event = Some(format!(
                        "impact: body `{}` reached {d:.3} m from the attracting centre (gravity.radius) at t = {:.6} s",
                        self.model.system.bodies[i].name, self.t
                    ));
                    report.stop = Some(Stop::Impact);
                    break;
                }
            }
        }
        report
    }

    /// `T + V − W` (kinetic plus potential energy less the work of the applied loads) may grow
    /// by `simulation.max_energy_growth` of the energy scale `max(T + |V|)` of the start and now.
    fn energy(&self) -> Option<EnergyCheck> {
        let (growth, scale) = self.growth();
        Some(EnergyCheck { growth, limit: self.model.max_energy_growth * scale })
    }

    fn record(&mut self) {
        self.recording.push(self.t, &self.model.system, &self.y, &self.inv);
        self.last_good.copy_from_slice(&self.y);
        self.t_good = self.t;
    }

    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis {
        match failure {
            GuardFailure::NonFinite { index } => diagnose(
                &self.model,
                &self.last_good,
                self.t,
                self.body_of(*index),
                "the state became non-finite (NaN or infinite)".into(),
            ),
            GuardFailure::Absurd { index, .. } => {
                diagnose(&self.model, &self.last_good, self.t, self.body_of(*index), failure.what())
            }
            GuardFailure::FasterThanLight { .. } => {
                let speeds = self.y.chunks_exact(BODY_STATE_LEN).map(crate::pipeline::body_speed);
                let fastest = speeds.enumerate().max_by(|a, b| a.1.total_cmp(&b.1)).map_or(0, |(i, _)| i);
                diagnose(&self.model, &self.last_good, self.t, fastest, failure.what())
            }
            GuardFailure::EnergyGrew { .. } => {
                let (growth, scale) = self.growth();
                let what = format!(
                    "the energy T + V − W grew by {growth:.4e} J, {:.3e} of the energy scale {scale:.4e} J (limit simulation.max_energy_growth = {})",
                    growth / scale,
                    self.model.max_energy_growth
                );
                let sys = &self.model.system;
                let kinetic = |i: usize| sys.body_state(&self.y, i).kinetic_energy(&sys.bodies[i]);
                let worst = (0..sys.bodies.len()).max_by(|&a, &b| kinetic(a).total_cmp(&kinetic(b))).unwrap_or(0);
                diagnose(&self.model, &self.last_good, self.t, worst, what)
            }
        }
    }
}

/// Runs `model` on the pipeline's [`Driver`], calling `progress(t)` after each output sample.
pub fn simulate(model: &mut Model, progress: &mut dyn FnMut(f64)) -> RunResult {
    let start = Instant::now();
    let sim = RigidSim::new(model);
    let schedule = sim.schedule();
    let (sim, end) = Driver::run_whole(sim, schedule, progress);
    sim.finish(end, start.elapsed().as_secs_f64())
}

impl<M: DerefMut<Target = Model>> RigidSim<M> {
    /// The run's result with how it ended and the wall time it took (s).
    pub fn finish(self, end: Result<Stop, Diagnosis>, wall_time: f64) -> RunResult {
        self.end(end, wall_time).1
    }

    /// The model back, and the run's result with how it ended and the wall time it took (s).
    pub fn end(self, end: Result<Stop, Diagnosis>, wall_time: f64) -> (M, RunResult) {
        let outcome = match end {
            Ok(Stop::Impact) => Outcome::Stopped { event: self.event.clone().unwrap_or_default() },
            Ok(_) => Outcome::Completed,
            Err(d) => Outcome::Failed(d),
        };
        let result = RunResult {
            outcome,
            t_end: self.t_good,
            final_state: self.last_good,
            stats: self.integ.stats(),
            recording: self.recording,
            wall_time,
        };
        (self.model, result)
    }
}

/// Names the likely cause of a blow-up from the last good state: a step too large for the
/// fastest motion, or a close pass of a singular attracting centre.
fn diagnose(model: &Model, last_good: &[f64], t: f64, body: usize, what: String) -> Diagnosis {
    let sys = &model.system;
    let mut tau = f64::INFINITY;
    for i in 0..sys.bodies.len() {
        let s = sys.body_state(last_good, i);
        let w = s.w_WB_B.norm();
        if w > 0.0 {
            tau = tau.min(1.0 / w);
        }
        tau = tau.min(sys.gravity.time_scale(&s.p_WB));
    }
    // The step the motion would need, if a run could take it at all (at most MAX_STEPS steps).
    let usable = tau / 20.0 >= model.duration / crate::scenario::MAX_STEPS;
    let likely_cause = match model.method {
        Method::Rk4 { dt } | Method::SymplecticEuler { dt } if usable && dt > 0.05 * tau => format!(
            "the time step simulation.dt = {dt} s is too large for the fastest motion in the model (time scale {tau:.4e} s from spin rates and orbital periods); use dt <= {:.3e} s or integrator = \"dopri5\"",
            tau / 20.0
        ),
        _ if model.impact().is_none() && tau.is_finite() && sys.gravity.time_scale(&sys.body_state(last_good, body).p_WB) == tau => {
            "a close pass of the point-mass centre, where gravity is singular; set gravity.radius to stop the run at impact".to_string()
        }
        _ if !usable => format!(
            "the fastest motion in the model has a time scale of {tau:.3e} s (spin rates and orbital periods), far below any step a run of {} s can take: the scenario's rates or gravity are extreme; check the inputs",
            model.duration
        ),
        _ => "extreme values in the scenario (loads, rates) or a singular configuration; check the inputs".to_string(),
    };
    Diagnosis { time: t, body: Some(sys.bodies[body].name.clone()), what, likely_cause, step: None }
}

/// Rigid-body campaigns (`kind = "rigid_bodies"`): each body's final position, velocity and
/// body-axes angular velocity, the change of `T + V − W`, the integrator's counts. Status:
/// `completed`, `stopped` (an impact ended it) or `failed`.
pub struct RigidRuns {
    bodies: Vec<String>,
}

impl RigidRuns {
    /// The runs of `sc`, whose bodies name the columns.
    pub fn new(sc: &crate::Scenario) -> Result<Self, String> {
        let model = Model::build(sc).map_err(|e| e.to_string())?;
        Ok(Self { bodies: model.system.bodies.iter().map(|b| b.name.clone()).collect() })
    }
}

impl crate::campaign::CampaignKind for RigidRuns {
    fn statuses(&self) -> &'static [&'static str] {
        &["completed", "stopped"]
    }

    fn columns(&self) -> Vec<String> {
        let per_body = ["x [m]", "y [m]", "z [m]", "vx [m/s]", "vy [m/s]", "vz [m/s]"];
        let rates = ["wx_body [rad/s]", "wy_body [rad/s]", "wz_body [rad/s]"];
        let mut c: Vec<String> =
            ["final_time [s]", "steps", "rejected_steps", "energy_change [J]"].map(String::from).into();
        for b in &self.bodies {
            c.extend(per_body.iter().chain(&rates).map(|n| format!("{b}.{n}")));
        }
        c
    }

    fn check(&self, sc: &crate::Scenario) -> Result<(), String> {
        Model::build(sc).map(|_| ()).map_err(|e| e.to_string())
    }

    fn run(&self, sc: &crate::Scenario, dir: Option<&std::path::Path>) -> Result<crate::campaign::Finished, String> {
        let mut model = Model::build(sc).map_err(|e| e.to_string())?;
        let res = simulate(&mut model, &mut |_| {});
        if let Some(dir) = dir {
            super::write_run(dir, &sc.path, &model, &res)?;
        }
        let sys = &model.system;
        let energy = sys.invariants(&res.final_state).energy() - sys.invariants(&model.initial_state).energy();
        let mut results = vec![res.t_end, res.stats.steps as f64, res.stats.rejected as f64, energy];
        for i in 0..sys.bodies.len() {
            let s = sys.body_state(&res.final_state, i);
            results.extend(s.p_WB.iter().chain(s.v_WB.iter()).chain(s.w_WB_B.iter()));
        }
        let (status, diagnosis) = match res.outcome {
            Outcome::Completed => ("completed", None),
            Outcome::Stopped { .. } => ("stopped", None),
            Outcome::Failed(d) => ("failed", Some(d.to_string())),
        };
        Ok(crate::campaign::Finished::new(status, results, diagnosis))
    }
}
