//! The 2D trampoline on the pipeline: RK4 at `dt`, the membrane's action observed after every
//! step, the energy budget checked.

use super::{Trampoline, TrampolineRun, V2};
use crate::pipeline::replay::{Checkpoints, cause, replay};
use crate::pipeline::{
    Diagnosis, EnergyCheck, Events, FixedSteps, GuardFailure, Schedule, Simulation, StepReport, Stop,
};
use std::sync::Arc;
use tumble_contact::membrane::planar::{PlanarContact, PlanarMotion, PlanarWorkspace};
use tumble_dynamics::OdeSystem;

/// `[x, y, θ, v_x, v_y, ω, D_c, D_f]`.
pub const STATE_LEN: usize = 8;

struct Ode {
    model: Arc<Trampoline>,
    ws: PlanarWorkspace,
}

impl Ode {
    fn contact(&mut self, y: &[f64]) -> PlanarContact {
        let m = &*self.model;
        let motion = PlanarMotion {
            vertices: &m.polygon,
            angle: y[2],
            p: V2::new(y[0], y[1]),
            v: V2::new(y[3], y[4]),
            omega: y[5],
        };
        m.membrane.evaluate(&motion, &mut self.ws)
    }
}

impl OdeSystem for Ode {
    fn dim(&self) -> usize {
        STATE_LEN
    }

    fn rhs(&mut self, _t: f64, y: &[f64], dydt: &mut [f64]) {
        let c = self.contact(y);
        let m = &*self.model;
        let f = c.normal_force + c.friction_force + m.gravity * m.mass;
        dydt[..3].copy_from_slice(&y[3..6]);
        dydt[3] = f.x / m.mass;
        dydt[4] = f.y / m.mass;
        dydt[5] = (c.normal_torque + c.friction_torque) / m.inertia;
        dydt[6] = m.membrane.c * c.length_rate * c.length_rate;
        dydt[7] = -c.friction_power;
    }
}

/// A 2D trampoline run as the pipeline steps it. Its energy check: the budget
/// `T + V_g + ½k(ℓ − ℓ₀)² + D_c + D_f` may grow by `simulation.max_energy_growth` of the scale
/// `T₀ + m|g|(y₀ + r)` (the start's kinetic energy and the fall to the suspension line plus the
/// body's radius).
pub struct TrampolineSim {
    ode: Ode,
    clock: FixedSteps,
    y: Vec<f64>,
    contact: PlanarContact,
    budget0: f64,
    scale: f64,
    checkpoints: Checkpoints,
    run: TrampolineRun,
}

impl TrampolineSim {
    /// The run of `model` from its start.
    pub fn new(model: Arc<Trampoline>) -> Self {
        let mut y = model.start.to_vec();
        y.extend([0.0, 0.0]);
        let clock = FixedSteps::new(STATE_LEN, model.dt, model.duration, model.output_interval);
        let radius = model.polygon.iter().map(|v| v.norm()).fold(0.0, f64::max);
        let mut ode = Ode { model, ws: PlanarWorkspace::default() };
        let contact = ode.contact(&y);
        let first = ode.model.sample(0.0, &y, contact);
        let m = &*ode.model;
        let scale = first.kinetic + m.mass * m.gravity.norm() * (y[1] + radius).max(0.0) + 1e-300;
        let checkpoints = Checkpoints::start(&y);
        let budget0 = first.budget();
        Self { ode, clock, y, contact, budget0, scale, checkpoints, run: TrampolineRun::default() }
    }

    /// Samples every `simulation.output_interval`.
    pub fn schedule(&self) -> Schedule {
        self.clock.schedule()
    }

    /// The membrane's action now.
    pub fn contact(&self) -> &PlanarContact {
        &self.contact
    }

    /// The state.
    pub fn y(&self) -> &[f64] {
        &self.y
    }

    /// The run so far.
    pub fn run(&self) -> &TrampolineRun {
        &self.run
    }

    /// The run's record with how it ended.
    pub fn finish(mut self, end: Result<Stop, Diagnosis>) -> TrampolineRun {
        self.run.diagnosis = end.err();
        self.run
    }
}

impl Simulation for TrampolineSim {
    fn time(&self) -> f64 {
        self.clock.time()
    }

    fn advance(&mut self, _until: f64) -> Result<(), Diagnosis> {
        self.clock.step(&mut self.ode, &mut self.y);
        Ok(())
    }

    fn state(&self) -> &[f64] {
        &self.y
    }

    fn max_speed(&self) -> f64 {
        self.y[3].hypot(self.y[4])
    }

    fn observe(&mut self) -> StepReport {
        self.checkpoints.offer(self.clock.k, &self.y);
        let was = self.contact.in_contact;
        self.contact = self.ode.contact(&self.y);
        let events = Events::contact_change(was, self.contact.in_contact);
        StepReport { stop: self.clock.stop(), ..StepReport::with(events) }
    }

    fn energy(&self) -> Option<EnergyCheck> {
        let budget = self.ode.model.sample(self.time(), &self.y, self.contact).budget();
        Some(EnergyCheck { growth: budget - self.budget0, limit: self.ode.model.max_energy_growth * self.scale })
    }

    fn record(&mut self) {
        let s = self.ode.model.sample(self.time(), &self.y, self.contact);
        self.run.samples.push(s);
    }

    /// Replays the steps since the older checkpoint at `dt`, `dt/4` and `dt/16` and names the
    /// cause they measured ([`crate::pipeline::replay`]).
    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis {
        let m = &self.ode.model;
        let limit = m.max_energy_growth * self.scale;
        let otherwise = format!(
            "the model or the input: a start inside the membrane, or a body too light or too fast for k = {} N/m² and c = {} N·s/m²",
            m.membrane.k, m.membrane.c
        );
        let Some((k0, y0)) = self.checkpoints.older() else {
            return Diagnosis::new(self.time(), failure.what(), otherwise);
        };
        let mut ode = Ode { model: Arc::clone(m), ws: PlanarWorkspace::default() };
        let budget0 = self.budget0;
        let replays = replay(&mut ode, y0, (k0, self.clock.k), m.dt, |ode, t, y| {
            let c = ode.contact(y);
            ode.model.sample(t, y, c).budget() - budget0
        });
        let (why, advice) = cause(&replays, limit, m.dt, k0 as f64 * m.dt, &otherwise);
        Diagnosis::new(self.time(), failure.what(), format!("{why}: {advice}"))
    }
}
