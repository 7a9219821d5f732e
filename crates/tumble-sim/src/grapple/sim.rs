//! The grapple capture on the pipeline: [`GrappleSim`] steps the arm, the payload and the
//! received impulse with RK4 at `dt`; after each step the effector's contact is evaluated, the
//! wire engaged or the snare's phase advanced, and the sample taken from that evaluation.

use super::{C_FACE, Effector, GrappleCapture, GrappleRun, GrappleSample, K_FACE, Phase};
use crate::pipeline::{Diagnosis, EnergyCheck, FixedSteps, GuardFailure, Schedule, Simulation, StepReport, Stop};
use crate::snare::{K_PULL, WIRE_SPAN};
use std::sync::Arc;
use tumble_contact::laws::friction;
use tumble_contact::snare::LooseWire;
use tumble_dynamics::OdeSystem;
use tumble_dynamics::multibody::Kinematics;
use tumble_dynamics::multibody::spatial::SVec;
use tumble_dynamics::multibody::system::MultibodySystem;
use tumble_math::nalgebra::{Quaternion, UnitQuaternion};
use tumble_math::{Mat3, Vec3};

/// Loads on the payload (force, torque about its centre, world) and the effector link
/// (force, moment about the link origin, world), and their power.
#[derive(Default)]
pub(super) struct Loads {
    payload: (Vec3, Vec3),
    link: (Vec3, Vec3),
    /// Power of the contact forces on payload and arm together, W: `Σ f·(v_payload − v_effector)`
    /// at each contact point.
    power: f64,
}

impl Loads {
    /// Force `f_e` (effector axes `re`) on the payload at `x`, where the payload's point moves
    /// at `v_e` relative to the effector's (effector axes); its reaction on the link.
    fn add(&mut self, re: &Mat3, (f_e, v_e): (Vec3, Vec3), x: Vec3, payload_com: Vec3, link_origin: Vec3) {
        let f = re * f_e;
        self.power += f_e.dot(&v_e);
        self.payload.0 += f;
        self.payload.1 += (x - payload_com).cross(&f);
        self.link.0 -= f;
        self.link.1 -= (x - link_origin).cross(&f);
    }
}

/// What the contact evaluation reports besides the loads.
#[derive(Default)]
pub(super) struct Contact {
    pub(super) wire_force: Vec3,
    pub(super) face_force: f64,
    pub(super) penetration: f64,
    /// Wire crossing point (effector frame) and its parameter along the shaft.
    pub(super) crossing: Option<(Vec3, f64)>,
    /// Sum of the snare's wire forces, N.
    pub(super) wire_sum: f64,
    /// Penetration of each snare wire, m.
    pub(super) pen: [f64; 3],
    /// Velocity of the shaft's crossing point relative to the effector, effector axes.
    pub(super) crossing_velocity: Vec3,
    /// Shaft tip's `x`, effector frame, m.
    pub(super) tip: f64,
    /// The shaft's base (on the plate), effector frame, m.
    pub(super) base: Vec3,
}

/// The coupled arm–payload ODE.
pub(super) struct Coupled {
    cap: Arc<GrappleCapture>,
    sys: MultibodySystem,
    na: usize,
    phase: Phase,
    wire: Option<LooseWire>,
    v0: f64,
    /// The arm's kinematics at the last evaluation (scratch).
    kin: Kinematics,
    /// A user's force and torque on the payload (N, N·m, world axes; the torque about its
    /// centre of mass).
    push: (Vec3, Vec3),
}

pub(super) fn rotation(q: &[f64]) -> Mat3 {
    UnitQuaternion::new_unchecked(Quaternion::new(q[0], q[1], q[2], q[3])).to_rotation_matrix().into_inner()
}

impl Coupled {
    /// Contact loads at time `t` and state `y`, and the link's rotation.
    pub(super) fn contact(&mut self, t: f64, y: &[f64]) -> (Loads, Contact, Mat3) {
        let k = self.kinematics(y);
        let out = self.contact_with(t, y, &k);
        self.kin = k;
        out
    }

    /// Whether the engaged wire's tension at `(t, y)` is past its yield load.
    fn wire_yields(&mut self, t: f64, y: &[f64]) -> bool {
        let delta = self.contact(t, y).1.penetration;
        self.wire.as_ref().is_some_and(|w| w.tension(delta) > w.yield_load)
    }

    /// The arm's kinematics at `y`, in the scratch taken out of `self` (put it back).
    fn kinematics(&mut self, y: &[f64]) -> Kinematics {
        let mut k = std::mem::take(&mut self.kin);
        let mb = &self.sys.model;
        let (nq, nv) = (mb.nq(), mb.nv());
        mb.kinematics_into(&y[..nq], &y[nq..nq + nv], &mut k);
        k
    }

    /// [`Coupled::contact`] with the arm's kinematics `k` at hand.
    fn contact_with(&self, t: f64, y: &[f64], k: &Kinematics) -> (Loads, Contact, Mat3) {
        let cap = &*self.cap;
        let pl = &cap.payload;
        let ((re, oe), (rl, lo), (we, ve)) = effector_state(k, cap.link, &cap.frame);
        let s = &y[self.na..self.na + 13];
        let (pp, rp, vp) = (Vec3::new(s[0], s[1], s[2]), rotation(&s[3..7]), Vec3::new(s[7], s[8], s[9]));
        let wp = rp * Vec3::new(s[10], s[11], s[12]);
        // Relative velocity (payload point − effector point) at world x, effector axes.
        let rel = |x: Vec3| re.transpose() * ((vp + wp.cross(&(x - pp))) - (ve + we.cross(&(x - lo))));
        let to_e = |x: Vec3| re.transpose() * (x - oe);
        let mut loads = Loads::default();
        let mut c = Contact::default();
        // Face.
        for p in &pl.plate {
            let x = pp + rp * p;
            let depth = -to_e(x).x;
            if depth > 0.0 {
                let v = rel(x);
                let f = (K_FACE * depth - C_FACE * v.x).max(0.0);
                c.face_force += f;
                loads.add(&re, (Vec3::new(f, 0.0, 0.0), v), x, pp, lo);
            }
        }
        // Shaft crossing the wire or ring plane.
        let (a, u) = (to_e(pp + rp * pl.base), re.transpose() * (rp * pl.axis));
        c.crossing = cap.crossing(&a, &u);
        if let Some((ce, _)) = c.crossing {
            c.crossing_velocity = rel(oe + re * ce);
        }
        c.tip = a.x + pl.shaft_length * u.x;
        c.base = a;
        let r = pl.shaft_radius;
        match (&cap.effector, self.phase) {
            (Effector::Wire { .. }, _) => {
                if let (Some(w), Some((ce, _))) = (&self.wire, c.crossing) {
                    let delta = ce.y + r;
                    let along = ce.z + 0.5 * WIRE_SPAN;
                    if delta > 0.0 && along > 0.0 && along < WIRE_SPAN {
                        // Only where the shaft pushes the wire: past its ends it does not.
                        c.penetration = delta;
                        let x = oe + re * ce;
                        let v = rel(x);
                        let n = w.force(delta, v.y, self.v0);
                        let ft = friction(cap.mu, n, &Vec3::new(v.x, 0.0, v.z), cap.v_star);
                        let f = Vec3::new(ft.x, -n, ft.z);
                        c.wire_force = f;
                        loads.add(&re, (f, v), x, pp, lo);
                    }
                }
            }
            (Effector::Snare(sn), Phase::Closing { since }) => {
                if let Some((ce, _)) = c.crossing {
                    let x = oe + re * ce;
                    let v = rel(x);
                    let angle = sn.open_angle + sn.closing_rate * (t - since);
                    let (f, pen) = sn.snare.force([ce.y, ce.z], [v.y, v.z], angle, sn.closing_rate);
                    c.wire_sum = sn.snare.wire_load(&pen);
                    c.pen = pen;
                    c.wire_force = Vec3::new(0.0, f[0], f[1]);
                    loads.add(&re, (c.wire_force, v), x, pp, lo);
                }
            }
            (Effector::Snare(sn), Phase::Retracting { angle, since, snared, from, stop }) => {
                let x = pp + rp * (pl.base + snared * pl.axis);
                let (ce, v) = (to_e(x), rel(x));
                let (f, pen) = sn.snare.force([ce.y, ce.z], [v.y, v.z], angle, 0.0);
                c.pen = pen;
                let moving = from - sn.retract_speed * (t - since) > stop;
                let (xc, vc) =
                    if moving { (from - sn.retract_speed * (t - since), -sn.retract_speed) } else { (stop, 0.0) };
                let c_pull = 2.0 * (K_PULL * pl.mass).sqrt();
                let axial = -K_PULL * (ce.x - xc) - c_pull * (v.x - vc);
                c.wire_force = Vec3::new(axial, f[0], f[1]);
                loads.add(&re, (c.wire_force, v), x, pp, lo);
            }
            _ => {}
        }
        (loads, c, rl)
    }
}

/// Effector pose (rotation, origin), link pose (rotation, origin), and the effector's angular
/// velocity and link-origin velocity (world) from the arm's kinematics.
pub(super) fn effector_state(
    k: &Kinematics,
    link: usize,
    frame: &(Mat3, Vec3),
) -> ((Mat3, Vec3), (Mat3, Vec3), (Vec3, Vec3)) {
    let (r, p) = k.pose[link];
    let sv = k.v[link];
    let (w, vo) = (r * Vec3::new(sv[0], sv[1], sv[2]), r * Vec3::new(sv[3], sv[4], sv[5]));
    let (rf, pf) = frame;
    ((r * rf, p + r * pf), (r, p), (w, vo))
}

impl OdeSystem for Coupled {
    fn dim(&self) -> usize {
        self.na + 17
    }

    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) {
        let k = self.kinematics(y);
        let (loads, _, r) = self.contact_with(t, y, &k);
        let link = self.cap.link;
        let (n, f) = (r.transpose() * loads.link.1, r.transpose() * loads.link.0);
        self.sys.external[link] = SVec::new(n.x, n.y, n.z, f.x, f.y, f.z);
        let na = self.na;
        self.sys.derivatives(&k, &y[..na], &mut dydt[..na]);
        self.kin = k;
        let pl = &self.cap.payload;
        let s = &y[na..na + 13];
        let (q, w) = ([s[3], s[4], s[5], s[6]], Vec3::new(s[10], s[11], s[12]));
        let rp = rotation(&q);
        let (push_f, push_t) = self.push;
        let torque = rp.transpose() * (loads.payload.1 + push_t);
        let wd = pl.inertia_inv * (torque - w.cross(&(pl.inertia * w)));
        let d = &mut dydt[na..];
        d[..3].copy_from_slice(&s[7..10]);
        // q̇ = ½ q ⊗ (0, ω).
        d[3] = -0.5 * (q[1] * w.x + q[2] * w.y + q[3] * w.z);
        d[4] = 0.5 * (q[0] * w.x + q[2] * w.z - q[3] * w.y);
        d[5] = 0.5 * (q[0] * w.y + q[3] * w.x - q[1] * w.z);
        d[6] = 0.5 * (q[0] * w.z + q[1] * w.y - q[2] * w.x);
        let a = (loads.payload.0 + push_f) / pl.mass;
        d[7..10].copy_from_slice(a.as_slice());
        d[10..13].copy_from_slice(wd.as_slice());
        d[13..16].copy_from_slice(loads.payload.0.as_slice());
        let pushed = push_f.dot(&Vec3::new(s[7], s[8], s[9])) + push_t.dot(&(rp * w));
        d[16] = self.sys.actuator_power(&y[..na]) + loads.power + pushed;
    }

    fn project(&self, y: &mut [f64]) {
        self.sys.project(&mut y[..self.na]);
        let q = &mut y[self.na + 3..self.na + 7];
        let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
        q.iter_mut().for_each(|x| *x /= n);
    }
}

impl GrappleCapture {
    pub(super) fn ode(self: &Arc<Self>) -> Coupled {
        let mut sys = self.arm.system.clone();
        sys.external = vec![SVec::zeros(); sys.model.links.len()];
        let na = self.arm.initial_state.len();
        Coupled {
            cap: Arc::clone(self),
            na,
            sys,
            phase: Phase::Open,
            wire: None,
            v0: 0.0,
            kin: Kinematics::default(),
            push: (Vec3::zeros(), Vec3::zeros()),
        }
    }

    /// Engages the wire, starts, stops or releases the snare, and marks the rigidisation, at a
    /// step boundary.
    fn advance_phase(&self, ode: &mut Coupled, run: &mut GrappleRun, t: f64, c: &Contact) {
        let r = self.payload.shaft_radius;
        match &self.effector {
            Effector::Wire { damping, .. } => {
                if ode.wire.is_none()
                    && let Some((ce, _)) = c.crossing
                {
                    let along = ce.z + 0.5 * WIRE_SPAN;
                    if ce.y + r > 0.0 && along > 0.0 && along < WIRE_SPAN {
                        match LooseWire::table4(along, *damping) {
                            Ok(w) => {
                                ode.wire = Some(w);
                                ode.v0 = c.crossing_velocity.y;
                            }
                            Err(e) => run.diagnosis = Some(Diagnosis::new(t, e, "the wire could not be engaged there")),
                        }
                    }
                }
            }
            Effector::Snare(sn) => match ode.phase {
                Phase::Open if c.tip <= -sn.trigger => {
                    run.closing_started = Some(t);
                    let inside = c.crossing.map(|(ce, _)| ce.y.hypot(ce.z));
                    match inside {
                        Some(off) if off < sn.snare.ring_radius - r => ode.phase = Phase::Closing { since: t },
                        _ => {
                            ode.phase = Phase::Released;
                            run.failure = Some(format!(
                                "the shaft is not inside the ring when the closing starts at t = {t:.3} s ({})",
                                inside.map_or("it does not cross the ring's plane".into(), |o| format!(
                                    "{:.1} mm off the axis; the ring admits {:.1} mm",
                                    1e3 * o,
                                    1e3 * (sn.snare.ring_radius - r)
                                ))
                            ));
                        }
                    }
                }
                Phase::Closing { since } => {
                    let angle = sn.open_angle + sn.closing_rate * (t - since);
                    let ring = sn.snare.ring_radius - r;
                    let Some((ce, tau)) = c.crossing else {
                        ode.phase = Phase::Released;
                        run.failure = Some(format!("the shaft left the ring's plane at t = {t:.3} s"));
                        return;
                    };
                    if ce.y.hypot(ce.z) >= ring {
                        ode.phase = Phase::Released;
                        run.failure = Some(format!("the shaft left the ring at t = {t:.3} s before the wires closed"));
                    } else if c.wire_sum >= sn.stall_force || angle >= std::f64::consts::PI - 1e-3 {
                        match sn.snare.holds([ce.y, ce.z], angle, &c.pen) {
                            Ok(()) => {
                                ode.phase = Phase::Retracting {
                                    angle,
                                    since: t,
                                    snared: tau,
                                    from: ce.x,
                                    stop: -tau - sn.preload / K_PULL - sn.preload / (3.0 * K_FACE),
                                };
                                run.captured_at = Some(t);
                            }
                            Err(why) => {
                                ode.phase = Phase::Released;
                                run.failure = Some(format!("{why} (t = {t:.3} s)"));
                            }
                        }
                    }
                }
                Phase::Retracting { since, from, stop, .. } if run.rigidised_at.is_none() => {
                    let parked = from - sn.retract_speed * (t - since) <= stop;
                    if parked && c.face_force >= 0.99 * sn.preload && c.crossing_velocity.norm() < 1e-3 {
                        run.rigidised_at = Some(t);
                    }
                }
                _ => {}
            },
        }
    }
}

/// A grapple capture as the pipeline steps it.
///
/// Its energy check: `E − W − E₀` (see the module docs of [`super`]: `E` the arm's and the
/// payload's energy, `W` the work of the arm's actuators, of every contact force and of a user's
/// wrench on the payload, carried in
/// the state) may not grow past `simulation.max_energy_growth` of the scale
/// `max(T + |E − T|` at the start and now, `|W|)`. The exact flow keeps it at or below zero (the
/// arm's dampers only take energy out), so growth is the integrator's doing: a step past the
/// contacts' stable step.
pub struct GrappleSim {
    cap: Arc<GrappleCapture>,
    ode: Coupled,
    clock: FixedSteps,
    y: Vec<f64>,
    /// The contact at the current state (after the phase it set).
    contact: Contact,
    /// The wire's penetration at the current state, folded into the run's deepest once the
    /// guard has passed this step (at the next step, or at a normal end): no output holds a
    /// figure of a refused step.
    pending_penetration: f64,
    r0: Mat3,
    /// `E₀` and the largest energy scale so far.
    energy0: (f64, f64),
    /// The energy check at the current state.
    check: EnergyCheck,
    /// Joint forces (scratch of the energy).
    tau: Vec<f64>,
    run: GrappleRun,
    /// Where a step split at the wire's yield ended the run, s.
    stopped_at: Option<f64>,
    /// The engaged wire's span from `Q` to its yield penetration, m (found once).
    taut_span: Option<f64>,
}

impl GrappleSim {
    /// The capture `cap` from its initial state.
    pub fn new(cap: Arc<GrappleCapture>) -> Self {
        let y = cap.initial_state();
        let clock =
            FixedSteps::with_steps(y.len(), cap.dt, (cap.arm.duration / cap.dt).round() as u64, cap.sample_every());
        let (steps, every) = (clock.steps, clock.every);
        let mut sim = Self {
            ode: cap.ode(),
            cap: Arc::clone(&cap),
            clock,
            y,
            contact: Contact::default(),
            pending_penetration: 0.0,
            r0: rotation(&cap.start[3..7]),
            energy0: (0.0, 0.0),
            check: EnergyCheck { growth: 0.0, limit: 0.0 },
            tau: Vec::with_capacity(cap.arm.system.model.nv()),
            stopped_at: None,
            taut_span: None,
            run: GrappleRun {
                samples: Vec::with_capacity((steps / every + 1) as usize),
                closing_started: None,
                captured_at: None,
                rigidised_at: None,
                failure: None,
                diagnosis: None,
                wire: None,
                max_penetration: 0.0,
                final_side: 0.0,
                wall_s: 0.0,
            },
        };
        sim.look();
        let (energy, scale, _) = sim.energy_now();
        sim.energy0 = (energy, scale);
        sim
    }

    /// The coupled state `[arm; payload; impulse; W]`.
    pub fn y(&self) -> &[f64] {
        &self.y
    }

    /// The length of the arm's part of the state.
    pub fn arm_len(&self) -> usize {
        self.ode.na
    }

    /// The run so far.
    pub fn run(&self) -> &GrappleRun {
        &self.run
    }

    /// Sets the arm's feed-forward joint forces (one per velocity coordinate, N·m or N), held
    /// from the next step on; their work enters the energy check with the actuators'.
    pub fn set_joint_forces(&mut self, tau: &[f64]) -> Result<(), String> {
        crate::arm::set_feed_forward(&mut self.ode.sys, tau)
    }

    /// Sets a force `f` (N) on the payload's centre of mass and a torque `tau` (N·m) about it,
    /// world axes, held from the next step on; their work enters the energy check's `W`.
    pub fn apply(&mut self, f: Vec3, tau: Vec3) {
        self.ode.push = (f, tau);
    }

    /// Samples every output interval up to the whole number of steps nearest the duration.
    pub fn schedule(&self) -> Schedule {
        self.clock.schedule()
    }

    /// The run's record with how it ended.
    pub fn finish(mut self, end: Result<Stop, Diagnosis>) -> GrappleRun {
        match end {
            Err(d) => self.run.diagnosis = Some(d),
            Ok(_) => self.run.max_penetration = self.run.max_penetration.max(self.pending_penetration),
        }
        self.run.wire = self.ode.wire.take();
        let c = &self.contact;
        self.run.final_side = c.crossing.map_or(c.base.y, |(ce, _)| ce.y);
        self.run
    }

    /// Sub-steps for the next step: one, unless the engaged wire may go taut within it; then
    /// enough that each crosses an eighth of the span from `Q` to the yield penetration (0.4 mm
    /// for the document's wire), so the step in which the wire yields is found to that.
    fn parts(&mut self) -> u32 {
        let (Some(w), c) = (&self.ode.wire, &self.contact) else { return 1 };
        let speed = c.crossing_velocity.y.max(0.0);
        if c.penetration + speed * self.cap.dt < 0.95 * w.slack {
            return 1;
        }
        // A run engages one wire: its span is found once (a bisection of 200 steps).
        let span = *self.taut_span.get_or_insert_with(|| w.yield_penetration() - w.slack);
        (speed * self.cap.dt / (span / 8.0)).ceil().clamp(1.0, 4096.0) as u32
    }

    /// A diagnosis when the engaged wire's tension has passed its yield load: beyond it the
    /// steel deforms plastically and breaks, which the wire's model does not follow.
    fn overload(&self) -> Option<Diagnosis> {
        let w = self.ode.wire.as_ref()?;
        let delta = self.contact.penetration;
        let tension = w.tension(delta);
        (tension > w.yield_load).then(|| {
            let s = &self.y[self.ode.na + 7..self.ode.na + 10];
            let kinetic = 0.5 * self.cap.payload.mass * (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
            Diagnosis::new(
                self.time(),
                format!(
                    "the wire yielded: its tension reached {tension:.0} N, past its yield load of {:.0} N, with the shaft {:.1} mm into it (its slack limit Q is {:.2} mm)",
                    w.yield_load,
                    1e3 * delta,
                    1e3 * w.slack
                ),
                format!(
                    "the payload still carries {kinetic:.3e} J, far more than the wire stores before it yields ({:.2} J): a slower approach, or a stronger wire",
                    w.energy(delta)
                ),
            )
        })
    }

    /// The contact at the current state, the phase it advances (and the contact again where the
    /// phase or the wire changed), the deepest penetration.
    fn look(&mut self) {
        let t = self.time();
        let mut c = self.ode.contact(t, &self.y).1;
        let before = (self.ode.phase, self.ode.wire.is_some());
        self.cap.advance_phase(&mut self.ode, &mut self.run, t, &c);
        if (self.ode.phase, self.ode.wire.is_some()) != before {
            c = self.ode.contact(t, &self.y).1;
        }
        // The previous step passed the guard (the run goes on): its penetration counts.
        self.run.max_penetration = self.run.max_penetration.max(self.pending_penetration);
        self.pending_penetration = if self.ode.wire.is_some() { c.penetration } else { 0.0 };
        self.contact = c;
    }

    /// `E` (arm and payload), its scale `T + |E − T|` and the work `W` at the current state,
    /// from the arm's kinematics the last contact evaluation ([`GrappleSim::look`]) left.
    fn energy_now(&mut self) -> (f64, f64, f64) {
        let na = self.ode.na;
        self.tau.clear();
        self.tau.resize(self.ode.sys.model.nv(), 0.0);
        let (kinetic, arm) = self.ode.sys.energy_parts(&self.ode.kin, &self.y[..na], &mut self.tau);
        let s = &self.y[na..na + 13];
        let (v, w) = (Vec3::new(s[7], s[8], s[9]), Vec3::new(s[10], s[11], s[12]));
        let payload = 0.5 * self.cap.payload.mass * v.norm_squared() + 0.5 * w.dot(&(self.cap.payload.inertia * w));
        let (kinetic, energy) = (kinetic + payload, arm + payload);
        (energy, kinetic + (energy - kinetic).abs(), self.y[na + 16])
    }

    /// The sample at the current state.
    fn sample(&self) -> GrappleSample {
        let (cap, y, c, t) = (&*self.cap, &self.y, &self.contact, self.time());
        let na = self.ode.na;
        let mb = &cap.arm.system.model;
        let (nq, nv, nf) = (mb.nq(), mb.nv(), cap.arm.system.flexible.len());
        let s = &y[na..na + 13];
        let rel = self.r0.transpose() * rotation(&s[3..7]);
        let (roll, pitch, yaw) = tumble_math::quat_from_matrix(&rel).euler_angles();
        let (vp, w) = (Vec3::new(s[7], s[8], s[9]), Vec3::new(s[10], s[11], s[12]));
        let wire_energy = match &self.ode.wire {
            Some(wire) if c.penetration > 0.0 => wire.energy(c.penetration),
            _ => 0.0,
        };
        let closing_angle = match (&cap.effector, self.ode.phase) {
            (Effector::Snare(sn), Phase::Closing { since }) => sn.open_angle + sn.closing_rate * (t - since),
            (Effector::Snare(_), Phase::Retracting { angle, .. }) => angle,
            (Effector::Snare(sn), _) => sn.open_angle,
            _ => 0.0,
        };
        GrappleSample {
            t,
            q: y[..nq].to_vec(),
            motors: y[nq + nv..nq + nv + nf].to_vec(),
            wire_force: c.wire_force.into(),
            face_force: c.face_force,
            penetration: c.penetration,
            position: [s[0], s[1], s[2]],
            attitude: [roll, pitch, yaw],
            velocity: vp.into(),
            omega: w.into(),
            impulse: [y[na + 13], y[na + 14], y[na + 15]],
            energy: self.ode.sys.energy(&y[..na])
                + 0.5 * cap.payload.mass * vp.norm_squared()
                + 0.5 * w.dot(&(cap.payload.inertia * w))
                + wire_energy,
            closing_angle,
            balance: self.check.growth,
        }
    }
}

impl Simulation for GrappleSim {
    fn time(&self) -> f64 {
        self.stopped_at.unwrap_or(self.clock.time())
    }

    fn advance(&mut self, _until: f64) -> Result<(), Diagnosis> {
        match self.parts() {
            1 => self.clock.step(&mut self.ode, &mut self.y),
            parts => {
                let yields = |ode: &mut Coupled, t: f64, y: &[f64]| ode.wire_yields(t, y);
                self.stopped_at = self.clock.step_parts(&mut self.ode, &mut self.y, parts, yields);
            }
        }
        Ok(())
    }

    fn state(&self) -> &[f64] {
        &self.y
    }

    fn observe(&mut self) -> StepReport {
        self.look();
        let (energy, scale, work) = self.energy_now();
        // The limit scales with the largest energy of the steps the guard passed: a step whose
        // energy blew up must not raise its own limit.
        let limit = self.cap.arm.max_energy_growth * (self.energy0.1 + 1e-12);
        self.check = EnergyCheck { growth: energy - work - self.energy0.0, limit };
        self.energy0.1 = self.energy0.1.max(scale).max(work.abs());
        if let Some(d) = self.overload() {
            // The wire left the model's validity: the run ends here, recorded, with the reason.
            self.run.diagnosis = Some(d);
            return StepReport { stop: Some(Stop::Completed), ..StepReport::default() };
        }
        StepReport { stop: self.clock.stop(), ..StepReport::default() }
    }

    fn energy(&self) -> Option<EnergyCheck> {
        Some(self.check)
    }

    fn record(&mut self) {
        let s = self.sample();
        self.run.samples.push(s);
    }

    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis {
        let otherwise = "the model or the input: the payload started inside the effector, or a contact or wire law too stiff for the payload's mass, or a joint element";
        Diagnosis::new(self.time(), failure.what(), otherwise).step_unmeasured(self.cap.dt)
    }
}
