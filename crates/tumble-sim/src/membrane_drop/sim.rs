//! The membrane drop on the pipeline: [`MembraneSim`] steps the body with RK4 at `dt`,
//! observes the membrane's action after every step and checks the energy budget.

use super::{MembraneDrop, MembraneRun, MembraneSample};
use crate::pipeline::replay::{Checkpoints, cause, replay};
use crate::pipeline::{
    Diagnosis, EnergyCheck, Events, FixedSteps, GuardFailure, Schedule, Simulation, StepReport, Stop,
};
use std::ops::Deref;
use tumble_contact::membrane::{MembraneContact, MembraneWorkspace, RelativeMotion};
use tumble_dynamics::{BODY_STATE_LEN, BodyState, OdeSystem, normalize_quaternion};
use tumble_math::{Mat3, Vec3};

/// The drop as an `OdeSystem`. The contact of the state the loop last observed is kept, so the
/// next step's first RK4 stage reuses it (the membrane is a pure function of the state).
struct Ode<M> {
    model: M,
    ws: MembraneWorkspace,
    seen: Vec<f64>,
    seen_contact: Option<MembraneContact>,
    /// A user's force and torque on the body (N, N·m, world axes; the torque about its centre
    /// of mass).
    push: (Vec3, Vec3),
}

/// Body states, then `∫c Ȧ² dt`, then `−∫P_f dt`, then the work of the user's wrench.
pub(super) const DAMPING_LOSS: usize = BODY_STATE_LEN;
pub(super) const FRICTION_LOSS: usize = BODY_STATE_LEN + 1;
pub(super) const WORK: usize = BODY_STATE_LEN + 2;
/// The state's length.
pub(super) const STATE_LEN: usize = BODY_STATE_LEN + 3;

impl<M: Deref<Target = MembraneDrop>> Ode<M> {
    /// The membrane's action at body state `s` (rotation `R` of its attitude).
    fn contact(&mut self, s: &BodyState, R: &Mat3) -> MembraneContact {
        let m = &*self.model;
        let motion = RelativeMotion {
            vertices: &m.mesh.vertices,
            radius: m.radius,
            R_MB: *R,
            p_MB: s.p_WB,
            v_MB: s.v_WB,
            w_MB: R * s.w_WB_B,
            hull: m.hull.as_ref(),
        };
        m.membrane.evaluate(&motion, &mut self.ws)
    }

    /// The contact at `y`, kept for the next step's first stage.
    fn observe(&mut self, y: &[f64]) -> MembraneContact {
        let s = BodyState::read(y);
        let c = self.contact(&s, &s.q_WB.to_rotation_matrix().into_inner());
        self.seen.clear();
        self.seen.extend_from_slice(y);
        self.seen_contact = Some(c);
        c
    }
}

impl<M: Deref<Target = MembraneDrop>> OdeSystem for Ode<M> {
    fn dim(&self) -> usize {
        STATE_LEN
    }

    fn rhs(&mut self, _t: f64, y: &[f64], dydt: &mut [f64]) {
        let s = BodyState::read(y);
        let R = s.q_WB.to_rotation_matrix().into_inner();
        let c = match self.seen_contact {
            Some(c) if y == self.seen.as_slice() => c,
            _ => self.contact(&s, &R),
        };
        let m = &*self.model;
        let (f, tau) = self.push;
        m.body.derivatives(y, &m.gravity, &(c.force() + f), &(R.transpose() * (c.torque() + tau)), dydt);
        dydt[DAMPING_LOSS] = m.membrane.c * c.area_rate * c.area_rate;
        dydt[FRICTION_LOSS] = -c.friction_power;
        dydt[WORK] = f.dot(&s.v_WB) + tau.dot(&(R * s.w_WB_B));
    }

    fn project(&self, y: &mut [f64]) {
        normalize_quaternion(y);
    }
}

/// A membrane drop as the pipeline steps it.
///
/// Its energy check: the budget `T + V_g + ½k(A − A₀)² + D_c + D_f − W` (constant for the
/// exact flow; `W` the work of a user's wrench) may grow by `simulation.max_energy_growth` of the energy scale `T₀ + m|g|(z₀ + r)`
/// (the initial kinetic energy and the fall to the membrane's plane plus one body radius).
///
/// The membrane model holds only inside its suspension polygon: a body point that crosses the
/// plane outside it joins the hull with a jump in area (the rim would be struck there). A step
/// that ends with the body past the rim is not checked for energy (the jump is the model's, not
/// the step's), and the run stops after it with a diagnosis that says so, not one that blames
/// the step.
pub struct MembraneSim<M = std::sync::Arc<MembraneDrop>> {
    ode: Ode<M>,
    clock: FixedSteps,
    y: Vec<f64>,
    contact: MembraneContact,
    budget0: f64,
    scale: f64,
    touching: bool,
    checkpoints: Checkpoints,
    run: MembraneRun,
}

impl<M: Deref<Target = MembraneDrop>> MembraneSim<M> {
    /// The drop of `model` (borrowed, or shared through an `Arc`) from its initial state.
    pub fn new(model: M) -> Self {
        let ws = MembraneWorkspace::for_body(&model.membrane, model.mesh.vertices.len());
        let y = model.initial_state();
        let clock = FixedSteps::new(y.len(), model.dt, model.duration, model.output_interval);
        let height = (model.start.p_WB.z + model.radius).max(0.0);
        let weight = model.body.mass * model.gravity.norm();
        let mut ode = Ode { model, ws, seen: vec![], seen_contact: None, push: (Vec3::zeros(), Vec3::zeros()) };
        let contact = ode.observe(&y);
        let (steps, every) = (clock.steps, clock.every);
        let checkpoints = Checkpoints::start(&y);
        let first = ode.model.sample(0.0, &y, contact);
        Self {
            clock,
            run: MembraneRun { samples: Vec::with_capacity((steps / every + 1) as usize), ..Default::default() },
            budget0: first.budget(),
            scale: first.kinetic + weight * height + 1e-12,
            ode,
            y,
            contact,
            touching: false,
            checkpoints,
        }
    }

    /// Samples every `simulation.output_interval` up to the whole number of steps nearest
    /// `simulation.duration`.
    pub fn schedule(&self) -> Schedule {
        self.clock.schedule()
    }

    /// The membrane's action on the body now.
    pub fn contact(&self) -> &MembraneContact {
        &self.contact
    }

    /// The state (the body's 13 components, then the damping and friction losses).
    pub fn y(&self) -> &[f64] {
        &self.y
    }

    /// The run so far.
    pub fn run(&self) -> &MembraneRun {
        &self.run
    }

    /// Sets a force `f` (N) on the body's centre of mass and a torque `tau` (N·m) about it, world
    /// axes, held from the next step on; their work enters the energy budget.
    pub fn apply(&mut self, f: Vec3, tau: Vec3) {
        self.ode.push = (f, tau);
    }

    /// The run's record with how it ended.
    pub fn finish(mut self, end: Result<Stop, Diagnosis>) -> MembraneRun {
        self.run.diagnosis = end.err();
        self.run
    }

    fn budget(&self) -> f64 {
        self.ode.model.sample(self.clock.time(), &self.y, self.contact).budget()
    }
}

impl MembraneDrop {
    fn sample(&self, t: f64, y: &[f64], contact: MembraneContact) -> MembraneSample {
        let s = BodyState::read(y);
        MembraneSample {
            t,
            position: s.p_WB.into(),
            velocity: s.v_WB.into(),
            omega: s.w_WB_B.into(),
            attitude: tumble_math::quat_to_wxyz(&s.q_WB),
            contact,
            kinetic: s.kinetic_energy(&self.body),
            gravity_potential: -self.body.mass * self.gravity.dot(&s.p_WB),
            damping_loss: y[DAMPING_LOSS],
            friction_loss: y[FRICTION_LOSS],
            work: y[WORK],
        }
    }
}

impl<M: Deref<Target = MembraneDrop> + Clone> Simulation for MembraneSim<M> {
    fn time(&self) -> f64 {
        self.clock.time()
    }

    fn advance(&mut self, _until: f64) -> Result<(), Diagnosis> {
        let rim = self.contact.outside_rim;
        if rim > 0 {
            return Err(Diagnosis::new(
                self.time(),
                format!(
                    "the body reaches past the membrane's rim ({rim} points cross its plane outside the suspension polygon): the membrane model holds only inside it"
                ),
                "drop the body nearer the membrane's centre, or enlarge the membrane (membrane.area)",
            ));
        }
        self.clock.step(&mut self.ode, &mut self.y);
        Ok(())
    }

    fn state(&self) -> &[f64] {
        &self.y
    }

    fn max_speed(&self) -> f64 {
        crate::pipeline::body_speed(&self.y)
    }

    fn observe(&mut self) -> StepReport {
        self.checkpoints.offer(self.clock.k, &self.y);
        let was = self.contact.in_contact;
        self.contact = self.ode.observe(&self.y);
        let events = Events::contact_change(was, self.contact.in_contact);
        StepReport { stop: self.clock.stop(), ..StepReport::with(events) }
    }

    fn energy(&self) -> Option<EnergyCheck> {
        if self.contact.outside_rim > 0 {
            return None;
        }
        Some(EnergyCheck { growth: self.budget() - self.budget0, limit: self.ode.model.max_energy_growth * self.scale })
    }

    /// A sample, and contact episodes at the sampling's resolution.
    fn record(&mut self) {
        let t = self.time();
        let c = self.contact;
        match (c.in_contact, self.touching, self.run.contacts.last_mut()) {
            (true, true, Some(e)) => e[1] = t,
            (true, _, _) => self.run.contacts.push([t, t]),
            _ => {}
        }
        self.touching = c.in_contact;
        self.run.samples.push(self.ode.model.sample(t, &self.y, c));
    }

    /// Replays the steps since the older checkpoint at `dt`, `dt/4` and `dt/16` (with the wrench
    /// held now) and names the cause they measured ([`crate::pipeline::replay`]).
    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis {
        let m = &*self.ode.model;
        let otherwise = "the model or the input: a start inside the membrane, a wrench that changed, or a body too fast or too light for the membrane's k and c";
        let Some((k0, y0)) = self.checkpoints.older() else {
            return Diagnosis::new(self.time(), failure.what(), otherwise);
        };
        let ws = MembraneWorkspace::for_body(&m.membrane, m.mesh.vertices.len());
        let model = self.ode.model.clone();
        let mut ode = Ode { model, ws, seen: vec![], seen_contact: None, push: self.ode.push };
        let budget0 = self.budget0;
        let replays = replay(&mut ode, y0, (k0, self.clock.k), m.dt, |ode, t, y| {
            let c = ode.observe(y);
            ode.model.sample(t, y, c).budget() - budget0
        });
        let limit = m.max_energy_growth * self.scale;
        let (why, advice) = cause(&replays, limit, m.dt, k0 as f64 * m.dt, otherwise);
        Diagnosis::new(self.time(), failure.what(), format!("{why}: {advice}"))
    }
}
