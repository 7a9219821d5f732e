//! A mechanism on the pipeline: [`MechanismSim`] steps the free bodies (and the arm) with RK4 at
//! `dt`; after each accepted step the interference engine is evaluated at the new state and
//! committed, so the bristle friction state advances once per step.

use super::latch::berthing::{BerthStage, BerthingRun, HookLoads, LATCH_STATE_LEN};
use super::snare::{DRIVE_STATE_LEN, SnareRun, Stage};
use super::{MechRun, MechSample, Mechanism};
use crate::pipeline::{Diagnosis, EnergyCheck, FixedSteps, GuardFailure, Schedule, Simulation, StepReport, Stop};
use std::ops::Deref;
use tumble_contact::interference::Engine;
use tumble_dynamics::multibody::Kinematics;
use tumble_dynamics::multibody::spatial::{SVec, parts};
use tumble_dynamics::multibody::system::MultibodySystem;
use tumble_dynamics::{BODY_STATE_LEN, BodyState, OdeSystem, normalize_quaternion};
use tumble_math::{Mat3, Pose, Vec3};

/// The ODE: free bodies' states in file order.
struct Ode<M> {
    m: M,
    engine: Engine,
    /// Offset of each body's state (`None`: fixed or carried).
    offset: Vec<Option<usize>>,
    /// The arm's system (external wrenches set each evaluation) and its state length.
    arm: Option<MultibodySystem>,
    na: usize,
    /// The arm's kinematics at the last evaluation (scratch, lent out by
    /// [`Ode::evaluate`] and given back with [`Ode::restore`]).
    kin: Kinematics,
    /// Joint forces (scratch of the arm's energy).
    tau: Vec<f64>,
    /// The snare's run, and the wires' loads at the last evaluation: the generalised forces
    /// on its drives and the wrench on its carrier (force, moment about the carrier's origin;
    /// W).
    snare: Option<SnareRun>,
    carried: ([f64; 2], Vec3, Vec3),
    /// The berthing's run, and each hook's loads at the last evaluation.
    berthing: Option<BerthingRun>,
    hooked: Vec<HookLoads>,
    /// A user's force and torque on each body (W, the torque about its centre of mass), held
    /// between steps; their power is part of the work `W`.
    applied: Vec<(Vec3, Vec3)>,
}

impl<M: Deref<Target = Mechanism>> Ode<M> {
    /// The sample at `t`, `y`: each body's state and contact wrench, the contacts, the energy.
    fn sample(&mut self, t: f64, y: &[f64]) -> MechSample {
        let k = self.evaluate(y);
        let m = &*self.m;
        let mut energy = 0.0;
        let mut attitudes = Vec::with_capacity(m.bodies.len());
        let bodies = (0..m.bodies.len())
            .map(|i| {
                let b = &m.bodies[i];
                let s = match (self.offset[i], &b.link, &k) {
                    (Some(o), _, _) => BodyState::read(&y[o..]),
                    (None, Some(link), Some(k)) => {
                        let (X, v, w) = Self::carried(k, link);
                        BodyState { p_WB: X.p, v_WB: v, q_WB: X.q, w_WB_B: X.q.inverse() * w }
                    }
                    _ => b.start,
                };
                if let Some(body) = &b.body {
                    energy += s.kinetic_energy(body) - body.mass * m.gravity.dot(&s.p_WB);
                    energy += m.springs.iter().filter(|sp| sp.body == i).map(|sp| sp.wrench(t, &s).2).sum::<f64>();
                }
                let (force, torque) = self.wrench(i);
                attitudes.push(s.q_WB);
                [s.p_WB, s.v_WB, s.w_WB_B, force, torque]
            })
            .collect();
        let mut split = vec![[Vec3::zeros(); 2]; m.bodies.len()];
        for c in self.engine.contacts() {
            // On B along +normal with the friction; the opposite on A (a wire's on the carrier).
            let Some((a, b)) = self.pair_bodies(c.key.0 as usize) else { continue };
            let (n, f) = (c.normal * c.normal_force, c.friction);
            split[b][0] += n;
            split[b][1] += f;
            split[a][0] -= n;
            split[a][1] -= f;
        }
        let contacts = self.engine.contacts().len();
        let snare = match (&m.snare, &self.snare) {
            (Some(sn), Some(run)) => Some(run.sample(sn, &self.engine, &y[run.at..run.at + DRIVE_STATE_LEN])),
            _ => None,
        };
        let berthing = match (&m.berthing, &self.berthing) {
            (Some(b), Some(run)) => {
                Some(run.sample(b, &self.engine, &y[run.at..run.at + LATCH_STATE_LEN * b.latches.len()]))
            }
            _ => None,
        };
        self.restore(k);
        MechSample { t, bodies, attitudes, split, contacts, energy, snare, berthing }
    }

    /// The bodies of engine pair `p` (a wire's or hook's pair as its carrier's).
    fn pair_bodies(&self, p: usize) -> Option<(usize, usize)> {
        let m = &*self.m;
        let wires = if m.snare.is_some() { 3 } else { 0 };
        match (m.pairs.get(p), &m.snare, &m.berthing) {
            (Some(&pair), ..) => Some(pair),
            (None, Some(sn), _) if p < m.pairs.len() + wires => Some((sn.carrier, sn.target)),
            (None, _, Some(b)) if p < m.pairs.len() + wires + b.latches.len() => Some((b.carrier, b.target)),
            _ => None,
        }
    }

    /// The contact force on body `i` and its moment about the body's origin (W), a snare's
    /// carrier's including the wires' (the last evaluation's).
    fn wrench(&self, i: usize) -> (Vec3, Vec3) {
        body_wrench(&self.engine, &self.m, (&self.carried, &self.hooked), i)
    }

    /// The arm's kinematics at `y`, in the scratch lent out of `self`.
    fn kinematics(&mut self, y: &[f64]) -> Option<Kinematics> {
        let mb = &self.arm.as_ref()?.model;
        let (nq, nv) = (mb.nq(), mb.nv());
        let mut k = std::mem::take(&mut self.kin);
        mb.kinematics_into(&y[..nq], &y[nq..nq + nv], &mut k);
        Some(k)
    }

    /// Gives back the kinematics lent by [`Ode::evaluate`].
    fn restore(&mut self, k: Option<Kinematics>) {
        if let Some(k) = k {
            self.kin = k;
        }
    }

    /// Pose and twist (origin velocity and angular velocity, W) of a body carried by a link.
    fn carried(k: &Kinematics, (l, R_LB, p_LB): &(usize, Mat3, Vec3)) -> (Pose, Vec3, Vec3) {
        let (R, p) = k.pose[*l];
        let (w_L, v_L) = parts(&k.v[*l]);
        let w = R * w_L;
        let r = R * p_LB;
        let q = tumble_math::quat_from_matrix(&(R * R_LB));
        (Pose::new(p + r, q), R * v_L + w.cross(&r), w)
    }

    /// Sets the bodies' poses and twists from `y` and evaluates the contacts; the arm's
    /// kinematics, if any (to give back with [`Ode::restore`]).
    /// The contacts the engine's last evaluation holds that push, in words.
    fn overlaps(&self) -> Vec<String> {
        let wires = if self.m.snare.is_some() { 3 } else { 0 };
        let name = |p: usize| match self.m.pairs.get(p) {
            Some(&(a, b)) => format!("`{}`–`{}`", self.m.bodies[a].name, self.m.bodies[b].name),
            None if p < self.m.pairs.len() + wires => format!("snare wire {}", p - self.m.pairs.len() + 1),
            None => format!("latch hook {}", p - self.m.pairs.len() - wires + 1),
        };
        let contacts = self.engine.contacts().iter().filter(|c| c.normal_force > 0.0);
        contacts
            .map(|c| {
                let (depth, unit) = if c.volumetric { (c.measure, "m³") } else { (c.measure, "m") };
                format!("{} {depth:.3e} {unit} deep, {:.3e} N at t = 0", name(c.key.0 as usize), c.normal_force)
            })
            .collect()
    }

    fn evaluate(&mut self, y: &[f64]) -> Option<Kinematics> {
        let k = self.kinematics(y);
        if let Some(k) = &k {
            for (i, b) in self.m.bodies.iter().enumerate() {
                if let Some(link) = &b.link {
                    let (X, v, w) = Self::carried(k, link);
                    let _ = self.engine.set_body(i, 0, &X, v, w);
                }
            }
        }
        for (i, off) in self.offset.iter().enumerate() {
            if let Some(o) = off {
                let s = BodyState::read(&y[*o..]);
                let w_W = s.q_WB * s.w_WB_B;
                // Finite by the blow-up check after each step; refusals cannot occur.
                let _ = self.engine.set_body(i, 0, &Pose::new(s.p_WB, s.q_WB), s.v_WB, w_W);
            }
        }
        if let (Some(sn), Some(run)) = (&self.m.snare, &self.snare) {
            sn.place(&mut self.engine, &run.wires, &y[run.at..run.at + DRIVE_STATE_LEN]);
        }
        if let (Some(b), Some(run)) = (&self.m.berthing, &self.berthing) {
            for (i, l) in b.latches.iter().enumerate() {
                l.place(&mut self.engine, b.carrier, run.hooks[i], &y[run.at + LATCH_STATE_LEN * i..]);
            }
        }
        self.engine.evaluate();
        if let (Some(sn), Some(run)) = (&self.m.snare, &self.snare) {
            self.carried = sn.loads(&self.engine, &run.wires, &y[run.at..run.at + DRIVE_STATE_LEN]);
        }
        if let (Some(b), Some(run)) = (&self.m.berthing, &self.berthing) {
            self.hooked.clear();
            for (i, l) in b.latches.iter().enumerate() {
                let d = &y[run.at + LATCH_STATE_LEN * i..];
                self.hooked.push(l.loads(&self.engine, b.carrier, run.hooks[i], d));
            }
        }
        k
    }
}

/// [`Ode::wrench`] from the parts of an [`Ode`]: body `i`'s own contact wrench, with what a
/// snare's wires and a berthing's hooks pass to their carrier.
fn body_wrench(
    engine: &Engine,
    m: &Mechanism,
    (carried, hooked): (&([f64; 2], Vec3, Vec3), &[HookLoads]),
    i: usize,
) -> (Vec3, Vec3) {
    let c = engine.body(i, 0);
    let (mut f, mut t) = (c.force, c.torque);
    if m.snare.as_ref().is_some_and(|sn| sn.carrier == i) {
        (f, t) = (f + carried.1, t + carried.2);
    }
    if m.berthing.as_ref().is_some_and(|b| b.carrier == i) {
        for h in hooked {
            (f, t) = (f + h.1, t + h.2);
        }
    }
    (f, t)
}

impl<M: Deref<Target = Mechanism>> OdeSystem for Ode<M> {
    fn dim(&self) -> usize {
        let drives = if self.snare.is_some() { DRIVE_STATE_LEN } else { 0 };
        let latches = self.m.berthing.as_ref().map_or(0, |b| LATCH_STATE_LEN * b.latches.len());
        self.na + self.offset.iter().flatten().count() * BODY_STATE_LEN + drives + latches + 1
    }

    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) {
        let k = self.evaluate(y);
        let mut power = 0.0;
        if let (Some(sys), Some(k)) = (&mut self.arm, &k) {
            // Each carried body's contact wrench on its link: link axes, about the link origin.
            sys.external.iter_mut().for_each(|e| *e = SVec::zeros());
            for (i, b) in self.m.bodies.iter().enumerate() {
                let Some((l, _, _)) = b.link else { continue };
                let (R, p) = k.pose[l];
                let (f, n) = body_wrench(&self.engine, &self.m, (&self.carried, &self.hooked), i);
                let n = n + (self.engine.body(i, 0).X_WB.p - p).cross(&f);
                let (n, f) = (R.transpose() * n, R.transpose() * f);
                sys.external[l] += SVec::new(n.x, n.y, n.z, f.x, f.y, f.z);
            }
            sys.derivatives(k, &y[..self.na], &mut dydt[..self.na]);
            power += sys.actuator_power(&y[..self.na]);
        }
        self.restore(k);
        // The drives' power: each spring's force on its body times its anchor's velocity.
        for (i, off) in self.offset.iter().enumerate() {
            let (Some(o), Some(body)) = (off, &self.m.bodies[i].body) else { continue };
            let s = BodyState::read(&y[*o..]);
            let (mut f, mut tau) = self.wrench(i);
            let (fa, ta) = self.applied[i];
            f += fa;
            tau += ta;
            power += fa.dot(&s.v_WB) + ta.dot(&(s.q_WB * s.w_WB_B));
            for sp in self.m.springs.iter().filter(|sp| sp.body == i) {
                let (fs, ts, _) = sp.wrench(t, &s);
                f += fs;
                tau += ts;
                power += fs.dot(&sp.anchor_velocity);
            }
            body.derivatives(
                &y[*o..*o + BODY_STATE_LEN],
                &self.m.gravity,
                &f,
                &(s.q_WB.inverse() * tau),
                &mut dydt[*o..*o + BODY_STATE_LEN],
            );
        }
        if let (Some(sn), Some(run)) = (&self.m.snare, &self.snare) {
            let (at, end) = (run.at, run.at + DRIVE_STATE_LEN);
            power += run.derivatives(sn, &y[at..end], self.carried.0, &mut dydt[at..end]);
        }
        if let (Some(b), Some(run)) = (&self.m.berthing, &self.berthing) {
            let (at, end) = (run.at, run.at + LATCH_STATE_LEN * b.latches.len());
            power += run.derivatives(b, &y[at..end], &self.hooked, &mut dydt[at..end]);
        }
        // The last component is the drives' (and the arm's actuators') work.
        dydt[dydt.len() - 1] = power;
    }

    fn project(&self, y: &mut [f64]) {
        if let Some(sys) = &self.arm {
            sys.project(&mut y[..self.na]);
        }
        for o in self.offset.iter().flatten() {
            normalize_quaternion(&mut y[*o..*o + BODY_STATE_LEN]);
        }
    }
}

impl<M: Deref<Target = Mechanism>> Ode<M> {
    /// `T + V_g + V_springs` of the free bodies at `(t, y)` and its scale `T + |V_g| + V_springs`,
    /// J.
    fn mechanical_energy(&self, t: f64, y: &[f64]) -> (f64, f64) {
        let (mut energy, mut scale) = (0.0, 0.0);
        for (i, off) in self.offset.iter().enumerate() {
            let (Some(o), Some(body)) = (off, &self.m.bodies[i].body) else { continue };
            let s = BodyState::read(&y[*o..]);
            let (kinetic, gravity) = (s.kinetic_energy(body), -body.mass * self.m.gravity.dot(&s.p_WB));
            let springs = self.m.springs.iter().filter(|sp| sp.body == i).map(|sp| sp.wrench(t, &s).2).sum::<f64>();
            energy += kinetic + gravity + springs;
            scale += kinetic + gravity.abs() + springs;
        }
        if let (Some(sn), Some(run)) = (&self.m.snare, &self.snare) {
            let drives = sn.kinetic_energy(&y[run.at..run.at + DRIVE_STATE_LEN]);
            energy += drives;
            scale += drives;
        }
        if let (Some(b), Some(run)) = (&self.m.berthing, &self.berthing) {
            let latches = BerthingRun::kinetic_energy(b, &y[run.at..]);
            energy += latches;
            scale += latches;
        }
        (energy, scale)
    }

    /// [`Ode::mechanical_energy`] plus the arm's [`MultibodySystem::energy`], and its scale
    /// plus the arm's `T + |E − T|`, J, from the arm's kinematics at `y` (the last
    /// [`Ode::evaluate`]'s). No allocation.
    fn energy(&mut self, t: f64, y: &[f64]) -> (f64, f64) {
        let (mut energy, mut scale) = self.mechanical_energy(t, y);
        if let Some(sys) = &self.arm {
            self.tau.clear();
            self.tau.resize(sys.model.nv(), 0.0);
            let (kinetic, arm) = sys.energy_parts(&self.kin, &y[..self.na], &mut self.tau);
            energy += arm;
            scale += kinetic + (arm - kinetic).abs();
        }
        (energy, scale)
    }
}

impl Mechanism {
    /// An engine with the bodies at their start and the pairs made: object `i` is body `i`
    /// (its model's body 0), pair `k` is `pairs[k]` (the snare's wires after them).
    pub fn engine(&self) -> Result<Engine, String> {
        let mut e = Engine::new();
        e.set_margin(self.margin).map_err(|x| x.to_string())?;
        for b in &self.bodies {
            let i = e.add_object(b.model.clone(), &b.name);
            let s = &b.start;
            e.set_body(i, 0, &Pose::new(s.p_WB, s.q_WB), s.v_WB, s.q_WB * s.w_WB_B).map_err(|x| x.to_string())?;
        }
        for &(a, b) in &self.pairs {
            e.pair(a, b).map_err(|x| x.to_string())?;
        }
        // The snare's wires after the bodies, their pairs with its target after the pairs.
        if let Some(sn) = &self.snare {
            for k in 1..=3 {
                let w = e.add_object(sn.wire.clone(), &format!("wire_{k}"));
                e.pair(w, sn.target).map_err(|x| format!("the snare's wire {k} and its target: {x}"))?;
            }
        }
        // A berthing's hooks after those, their pairs with its target after the wires'.
        if let Some(b) = &self.berthing {
            for l in &b.latches {
                let h = e.add_object(l.hook.clone(), &format!("hook_{}", l.name));
                e.pair(h, b.target).map_err(|x| format!("latch {}'s hook and its target: {x}", l.name))?;
            }
        }
        Ok(e)
    }
}

/// A mechanism run as the pipeline steps it.
///
/// Its energy check: the state carries the drives' work `W = ∫ Σ F_spring·ȧ dt` (the power a
/// moving anchor puts in; with an `[arm]`, plus its actuators' work,
/// [`MultibodySystem::actuator_power`]), and `E − W − E₀` with `E = T + V_g + V_springs` of the
/// free bodies (plus the arm's [`MultibodySystem::energy`]) may not grow past
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
