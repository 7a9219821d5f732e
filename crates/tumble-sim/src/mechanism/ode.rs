//! A mechanism's equations of motion as an [`OdeSystem`]: the free bodies' Newton–Euler
//! equations under their contact wrenches (the interference engine evaluated at each stage),
//! springs and gravity, the arm's multibody equations with its carried bodies' wrenches, and
//! the snare's and the berthing's drives on their carriers; the state's last component is the
//! drives' (and the arm's actuators') work. Also the engine a mechanism starts from.

use super::latch::berthing::{BerthingRun, HookLoads, LATCH_STATE_LEN};
use super::snare::{DRIVE_STATE_LEN, SnareRun};
use super::{MechSample, Mechanism};
use std::ops::Deref;
use tumble_contact::interference::Engine;
use tumble_dynamics::multibody::Kinematics;
use tumble_dynamics::multibody::spatial::{SVec, parts};
use tumble_dynamics::multibody::system::MultibodySystem;
use tumble_dynamics::{BODY_STATE_LEN, BodyState, OdeSystem, normalize_quaternion};
use tumble_math::{Mat3, Pose, Vec3};

/// The ODE: free bodies' states in file order.
pub(super) struct Ode<M> {
    pub(super) m: M,
    pub(super) engine: Engine,
    /// Offset of each body's state (`None`: fixed or carried).
    pub(super) offset: Vec<Option<usize>>,
    /// The arm's system (external wrenches set each evaluation) and its state length.
    pub(super) arm: Option<MultibodySystem>,
    pub(super) na: usize,
    /// The arm's kinematics at the last evaluation (scratch, lent out by
    /// [`Ode::evaluate`] and given back with [`Ode::restore`]).
    pub(super) kin: Kinematics,
    /// Joint forces (scratch of the arm's energy).
    pub(super) tau: Vec<f64>,
    /// The snare's run, and the wires' loads at the last evaluation: the generalised forces
    /// on its drives and the wrench on its carrier (force, moment about the carrier's origin;
    /// W).
    pub(super) snare: Option<SnareRun>,
    pub(super) carried: ([f64; 2], Vec3, Vec3),
    /// The berthing's run, and each hook's loads at the last evaluation.
    pub(super) berthing: Option<BerthingRun>,
    pub(super) hooked: Vec<HookLoads>,
    /// A user's force and torque on each body (W, the torque about its centre of mass), held
    /// between steps; their power is part of the work `W`.
    pub(super) applied: Vec<(Vec3, Vec3)>,
}

impl<M: Deref<Target = Mechanism>> Ode<M> {
    /// The sample at `t`, `y`: each body's state and contact wrench, the contacts, the energy.
    pub(super) fn sample(&mut self, t: f64, y: &[f64]) -> MechSample {
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
    pub(super) fn wrench(&self, i: usize) -> (Vec3, Vec3) {
        body_wrench(&self.engine, &self.m, (&self.carried, &self.hooked), i)
    }

    /// The arm's kinematics at `y`, in the scratch lent out of `self`.
    pub(super) fn kinematics(&mut self, y: &[f64]) -> Option<Kinematics> {
        let mb = &self.arm.as_ref()?.model;
        let (nq, nv) = (mb.nq(), mb.nv());
        let mut k = std::mem::take(&mut self.kin);
        mb.kinematics_into(&y[..nq], &y[nq..nq + nv], &mut k);
        Some(k)
    }

    /// Gives back the kinematics lent by [`Ode::evaluate`].
    pub(super) fn restore(&mut self, k: Option<Kinematics>) {
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
    pub(super) fn overlaps(&self) -> Vec<String> {
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

    pub(super) fn evaluate(&mut self, y: &[f64]) -> Option<Kinematics> {
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
    pub(super) fn energy(&mut self, t: f64, y: &[f64]) -> (f64, f64) {
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
