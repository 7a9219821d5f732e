//! A mechanism on the pipeline: [`MechanismSim`] steps the free bodies (and the arm) with RK4 at
//! `dt`; after each accepted step the interference engine is evaluated at the new state and
//! committed, so the bristle friction state advances once per step.

use super::latch::berthing::{BerthStage, BerthingRun, LATCH_STATE_LEN};
use super::ode::Ode;
use super::snare::{DRIVE_STATE_LEN, SnareRun, Stage};
use super::{MechRun, Mechanism};
use crate::pipeline::{Diagnosis, EnergyCheck, FixedSteps, GuardFailure, Schedule, Simulation, StepReport, Stop};
use std::ops::Deref;
use tumble_contact::interference::Engine;
use tumble_dynamics::BODY_STATE_LEN;
use tumble_dynamics::multibody::Kinematics;
use tumble_dynamics::multibody::spatial::SVec;
use tumble_math::Vec3;

/// A mechanism run as the pipeline steps it.
///
/// Its energy check: the state carries the drives' work `W = ∫ Σ F_spring·ȧ dt` (the power a
/// moving anchor puts in; with an `[arm]`, plus its actuators' work,
/// [`tumble_dynamics::multibody::system::MultibodySystem::actuator_power`]), and `E − W − E₀` with `E = T + V_g + V_springs` of the
/// free bodies (plus the arm's [`tumble_dynamics::multibody::system::MultibodySystem::energy`]) may not grow past
/// `simulation.max_energy_growth` of the scale `max(T + |V_g| + V_springs at the start and now,
/// |W|)` (the arm adding its `T + |E − T|`): contact damping, friction and the dampers only
/// remove energy, and what the contacts store elastically is missing from `E`, so the exact flow
/// keeps `E − W − E₀ ≤ 0`.
pub struct MechanismSim<M = std::sync::Arc<Mechanism>> {
    ode: Ode<M>,
    clock: FixedSteps,
    y: Vec<f64>,
    /// `E₀` and the start's energy scale, J.
    energy0: (f64, f64),
    /// The energy check at the current state.
    check: EnergyCheck,
    /// The contacts that push at t = 0, in words (pair, depth, force).
    overlaps: Vec<String>,
    run: MechRun,
}

impl<M: Deref<Target = Mechanism>> MechanismSim<M> {
    /// The run of `m` (borrowed, or shared through an `Arc`) from its initial state; an error
    /// where the engine refuses the model.
    pub fn new(m: M) -> Result<Self, Diagnosis> {
        let engine = m.engine().map_err(|e| {
            Diagnosis::new(
                0.0,
                format!("the contact engine refused the model: {e}"),
                "check the mechanism's pairs and margin",
            )
        })?;
        let mut offset = Vec::new();
        let na = m.arm.as_ref().map_or(0, |(_, y0)| y0.len());
        let mut n = na;
        let mut y_drive = [0.0; DRIVE_STATE_LEN];
        for b in &m.bodies {
            offset.push(b.body.as_ref().map(|_| {
                n += BODY_STATE_LEN;
                n - BODY_STATE_LEN
            }));
        }
        let arm = m.arm.as_ref().map(|(sys, _)| {
            let mut sys = sys.clone();
            sys.external = vec![SVec::zeros(); sys.model.links.len()];
            sys
        });
        let nv = arm.as_ref().map_or(0, |s| s.model.nv());
        let (nb, np) = (m.bodies.len(), m.pairs.len());
        let snare = m.snare.as_ref().map(|_| SnareRun::new([nb, nb + 1, nb + 2], [np, np + 1, np + 2], n));
        if let Some(sn) = &m.snare {
            n += DRIVE_STATE_LEN;
            y_drive = [sn.open_angle, 0.0, 0.0, 0.0];
        }
        let berthing = m.berthing.as_ref().map(|b| {
            let (objects, pairs) = (nb + 3 * usize::from(snare.is_some()), np + 3 * usize::from(snare.is_some()));
            let count = b.latches.len();
            let run = BerthingRun::new(b, (objects..objects + count).collect(), (pairs..pairs + count).collect(), n);
            n += LATCH_STATE_LEN * count;
            run
        });
        let mut y = vec![0.0; n + 1];
        if let Some(run) = &snare {
            y[run.at..run.at + DRIVE_STATE_LEN].copy_from_slice(&y_drive);
        }
        if let (Some(b), Some(run)) = (&m.berthing, &berthing) {
            for (i, l) in b.latches.iter().enumerate() {
                y[run.at + LATCH_STATE_LEN * i] = l.range[0];
            }
        }
        if let Some((_, y0)) = &m.arm {
            y[..na].copy_from_slice(y0);
        }
        for (b, o) in m.bodies.iter().zip(&offset) {
            if let Some(o) = o {
                b.start.write(&mut y[*o..]);
            }
        }
        let clock = FixedSteps::new(y.len(), m.dt, m.duration, m.output_interval);
        let mut ode = Ode {
            engine,
            offset,
            arm,
            na,
            kin: Kinematics::default(),
            tau: Vec::with_capacity(nv),
            applied: vec![(Vec3::zeros(), Vec3::zeros()); m.bodies.len()],
            snare,
            carried: ([0.0; 2], Vec3::zeros(), Vec3::zeros()),
            hooked: Vec::with_capacity(m.berthing.as_ref().map_or(0, |b| b.latches.len())),
            berthing,
            m,
        };
        let mut run = MechRun::default();
        run.samples.reserve((clock.steps / clock.every + 1) as usize);
        let k = ode.kinematics(&y);
        ode.restore(k);
        let energy0 = ode.energy(0.0, &y);
        let k = ode.evaluate(&y);
        ode.restore(k);
        let overlaps = ode.overlaps();
        Ok(Self { clock, ode, y, energy0, check: EnergyCheck { growth: 0.0, limit: 0.0 }, overlaps, run })
    }

    /// The contacts that already push at t = 0 (bodies placed overlapping), in words: the pair,
    /// the depth (or volume) and the force.
    pub fn start_overlaps(&self) -> &[String] {
        &self.overlaps
    }

    /// Samples every `simulation.output_interval` up to the whole number of steps nearest
    /// `simulation.duration`.
    pub fn schedule(&self) -> Schedule {
        self.clock.schedule()
    }

    /// The contact engine (contacts and wrenches of the last evaluation).
    pub fn contact_engine(&self) -> &Engine {
        &self.ode.engine
    }

    /// The state (an arm's coordinates and rates, then each free body's 13 components, then the
    /// drives' work).
    pub fn y(&self) -> &[f64] {
        &self.y
    }

    /// The run so far.
    pub fn run(&self) -> &MechRun {
        &self.run
    }

    /// The offset of free body `i`'s 13 components in [`MechanismSim::y`] (`None` for a fixed
    /// or carried body), of the snare's drives `[Δ, Δ̇, s, ṡ]` and of the berthing's latches
    /// `[θ₂, θ̇₂]…`.
    pub fn offsets(&self) -> (&[Option<usize>], Option<usize>, Option<usize>) {
        (&self.ode.offset, self.ode.snare.as_ref().map(|r| r.at), self.ode.berthing.as_ref().map(|r| r.at))
    }

    /// Commands latch `i`'s motor with `u`, the fraction of its rated voltage (−1 to 1), from the
    /// next step on, unbraked between its stops; `None` hands it back to the berthing's
    /// sequence. The motors' power is in the work the energy check counts.
    pub fn command_latch(&mut self, i: usize, u: Option<f64>) -> Result<(), String> {
        let Some(run) = &mut self.ode.berthing else { return Err("the mechanism has no [mechanism.berthing]".into()) };
        let at = run.at;
        let n = run.commands.len();
        run.command(i, u, &mut self.y[at..at + LATCH_STATE_LEN * n])
    }

    /// The arm's coordinates and rates `[q; v]` (with the flexible joints' motor states), empty
    /// without an arm.
    pub fn arm_state(&self) -> &[f64] {
        &self.y[..self.ode.na]
    }

    /// Sets a force `f` (N) and a torque `tau` (N·m, about its centre of mass), world axes, on
    /// free body `i`, held from the next step on; their work enters the energy check. A fixed
    /// or carried body is refused.
    pub fn apply(&mut self, i: usize, f: Vec3, tau: Vec3) -> Result<(), String> {
        match self.ode.offset.get(i) {
            Some(Some(_)) => {
                self.ode.applied[i] = (f, tau);
                Ok(())
            }
            Some(None) => Err(format!(
                "body `{}` is fixed or carried: a wrench applies to a free body",
                self.ode.m.bodies[i].name
            )),
            None => Err(format!("no body {i}")),
        }
    }

    /// Sets the arm's feed-forward joint forces (one per velocity coordinate, N·m or N), held
    /// from the next step on; their work enters the energy check.
    pub fn set_joint_forces(&mut self, tau: &[f64]) -> Result<(), String> {
        let Some(sys) = &mut self.ode.arm else { return Err("the mechanism has no [arm]".into()) };
        crate::arm::set_feed_forward(sys, tau)
    }

    /// Commands the snare's drive `k` (0: the closing motor, 1: the carriage) with `u`, the
    /// fraction of its rated voltage (−1 to 1), from the next step on; `None` hands it back to
    /// the sequence. The drives' power is in the work the energy check counts.
    pub fn command_snare(&mut self, k: usize, u: Option<f64>) -> Result<(), String> {
        let Some(run) = &mut self.ode.snare else { return Err("the mechanism has no [mechanism.snare]".into()) };
        let at = run.at;
        run.command(k, u, &mut self.y[at..at + DRIVE_STATE_LEN])
    }

    /// The run's record with how it ended.
    pub fn finish(mut self, end: Result<Stop, Diagnosis>) -> MechRun {
        self.run.diagnosis = end.err();
        self.run.snare = self.ode.snare.map(|s| s.log);
        if let (Some(b), Some(run)) = (&self.ode.m.berthing, self.ode.berthing) {
            self.run.berthing = Some(run.finish(b));
        }
        self.run
    }
}

impl<M: Deref<Target = Mechanism>> Simulation for MechanismSim<M> {
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
        let body = |o: &usize| crate::pipeline::body_speed(&self.y[*o..*o + BODY_STATE_LEN]);
        self.ode.offset.iter().flatten().map(body).fold(0.0, f64::max)
    }

    /// The accepted step: contacts at its end advance the friction state.
    fn observe(&mut self) -> StepReport {
        let k = self.ode.evaluate(&self.y);
        self.ode.restore(k);
        self.ode.engine.commit(self.ode.m.dt);
        let (energy, scale) = self.ode.energy(self.clock.time(), &self.y);
        let work = self.y[self.y.len() - 1];
        let scale = self.energy0.1.max(scale).max(work.abs()) + 1e-12;
        self.check =
            EnergyCheck { growth: energy - work - self.energy0.0, limit: self.ode.m.max_energy_growth * scale };
        let t = self.clock.time();
        if let (Some(sn), Some(run)) = (&self.ode.m.snare, &mut self.ode.snare) {
            let at = run.at;
            if run.observe(sn, &self.ode.engine, self.ode.carried.0, t, &mut self.y[at..at + DRIVE_STATE_LEN]) {
                let stop = if run.log.outcome == Stage::Rigidised { Stop::Captured } else { Stop::Completed };
                return StepReport { stop: Some(stop), ..StepReport::default() };
            }
        }
        if let (Some(b), Some(run)) = (&self.ode.m.berthing, &mut self.ode.berthing) {
            let (at, end) = (run.at, run.at + LATCH_STATE_LEN * b.latches.len());
            if run.observe(b, &self.ode.engine, &self.ode.hooked, t, &mut self.y[at..end]) {
                let stop = if run.log.outcome == BerthStage::Berthed { Stop::Captured } else { Stop::Completed };
                return StepReport { stop: Some(stop), ..StepReport::default() };
            }
        }
        StepReport { stop: self.clock.stop(), ..StepReport::default() }
    }

    fn energy(&self) -> Option<EnergyCheck> {
        Some(self.check)
    }

    fn record(&mut self) {
        let t = self.time();
        let s = self.ode.sample(t, &self.y);
        self.run.samples.push(s);
    }

    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis {
        if self.overlaps.is_empty() {
            let otherwise = "the contact stiffness and damping against the bodies' masses, a spring, or a load";
            return Diagnosis::new(self.time(), failure.what(), otherwise).step_unmeasured(self.ode.m.dt);
        }
        let cause = format!(
            "the bodies started overlapping ({}): the contact's stored energy is released in the first steps; place them apart",
            self.overlaps.join("; ")
        );
        Diagnosis::new(self.time(), failure.what(), cause)
    }
}
