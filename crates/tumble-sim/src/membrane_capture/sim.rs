//! The asteroid capture on the pipeline: [`MembraneCaptureSim`] steps the asteroid and the
//! spacecraft with RK4 at `dt`; the membrane's action at each step's start state decides the
//! thrust for the step and serves the sample there.

use super::{
    DAMPING_LOSS, DIM, ENERGY_TOLERANCE, FRICTION_LOSS, Guidance, MembraneCapture, MembraneCaptureRun,
    MembraneCaptureSample,
};
use super::{NQ, NV, SADA_LOSS, SC, WORK};
use crate::pipeline::{
    Diagnosis, EnergyCheck, Events, FixedSteps, GuardFailure, Schedule, Simulation, StepReport, Stop,
};
use std::ops::Deref;
use tumble_contact::membrane::{MembraneContact, MembraneWorkspace, RelativeMotion};
use tumble_dynamics::multibody::Kinematics;
use tumble_dynamics::multibody::spatial::{join, parts};
use tumble_dynamics::multibody::system::MultibodySystem;
use tumble_dynamics::{BodyState, OdeSystem, normalize_quaternion};
use tumble_math::{Mat3, UnitQuat, Vec3};

/// What one right-hand side needs of a state.
struct Frame {
    asteroid: BodyState,
    R_A: Mat3,
    R_b: Mat3,
    p_b: Vec3,
    w_b: Vec3,
    v_b: Vec3,
    p_MB: Vec3,
    v_MB: Vec3,
}

struct Ode<M> {
    model: M,
    spacecraft: MultibodySystem,
    ws: MembraneWorkspace,
    thrusting: bool,
    /// A force and torque on the bus (bus axes, N and N·m) that replace the built-in guidance
    /// and thrust while set.
    command: Option<(Vec3, Vec3)>,
    /// A user's force and torque on the asteroid (world axes, N and N·m; the torque about its
    /// centre of mass).
    push: (Vec3, Vec3),
    /// The membrane's action at the state the loop last observed (the next step's start), and
    /// that state: the step's first stage reuses it.
    start_contact: MembraneContact,
    seen: Vec<f64>,
    /// The spacecraft's kinematics at that state, and scratch for its joint forces.
    start_kinematics: Option<Kinematics>,
    tau: Vec<f64>,
    /// The spacecraft's kinematics at a right-hand side's state (scratch).
    kin: Kinematics,
    /// Time of first contact.
    contact_time: Option<f64>,
}

impl<M: Deref<Target = MembraneCapture>> Ode<M> {
    /// [`Ode::frame`] and the membrane's action at `y`.
    fn frame_and_contact(&mut self, y: &[f64], k: &mut Kinematics) -> (Frame, MembraneContact) {
        let f = self.frame(y, k);
        let m = &*self.model;
        let motion = RelativeMotion {
            vertices: &m.mesh.vertices,
            radius: m.radius,
            R_MB: f.R_b.transpose() * f.R_A,
            p_MB: f.p_MB,
            v_MB: f.v_MB,
            w_MB: f.R_b.transpose() * (f.R_A * f.asteroid.w_WB_B) - f.w_b,
            hull: m.hull.as_ref(),
        };
        let c = m.membrane.evaluate(&motion, &mut self.ws);
        (f, c)
    }

    /// Observes the state `y` at `t` that the next step starts from: the membrane's action
    /// there, kept for the step's first stage; with `decide`, thrust from the first step that
    /// starts in contact.
    fn observe(&mut self, t: f64, y: &[f64], decide: bool) {
        let mut k = self.start_kinematics.take().unwrap_or_default();
        let (_, c) = self.frame_and_contact(y, &mut k);
        self.start_contact = c;
        self.start_kinematics = Some(k);
        self.seen.clear();
        self.seen.extend_from_slice(y);
        if decide && !self.thrusting && c.in_contact {
            self.thrusting = true;
            self.contact_time = Some(t);
        }
    }

    /// Poses and twists at `y`; the spacecraft's kinematics into `k`.
    fn frame(&self, y: &[f64], k: &mut Kinematics) -> Frame {
        let m = &*self.model;
        let asteroid = BodyState::read(y);
        let R_A = asteroid.q_WB.to_rotation_matrix().into_inner();
        let ys = &y[SC..SC + NQ + NV];
        self.spacecraft.model.kinematics_into(&ys[..NQ], &ys[NQ..], k);
        let (R_b, p_b) = k.pose[0];
        let (w_b, v_b) = parts(&k.v[0]);
        // M: origin `offset` ahead of the bus centre of mass, bus axes.
        let o_M = p_b + R_b.column(2) * m.offset;
        let p_MB = R_b.transpose() * (asteroid.p_WB - o_M);
        let v_oM = R_b * (v_b + w_b.cross(&Vec3::new(0.0, 0.0, m.offset)));
        let v_MB = R_b.transpose() * (asteroid.v_WB - v_oM) - w_b.cross(&p_MB);
        Frame { asteroid, R_A, R_b, p_b, w_b, v_b, p_MB, v_MB }
    }
}

impl Guidance {
    /// Reference position, velocity, acceleration of the bus centre of mass, reference attitude
    /// and angular velocity (world) at `t`, for the asteroid's state `a` (rotation `R_A`) and its
    /// accelerations `acc_A` (world, m/s²) and `alpha_B` (body axes, rad/s²).
    pub(super) fn reference(&self, t: f64, a: &BodyState, R_A: &Mat3, acc_A: &Vec3, alpha_B: &Vec3) -> [Vec3; 5] {
        let h = self.axis;
        let perp = |x: Vec3| x - h * h.dot(&x);
        let (lat, lat_v, lat_a) = if self.corkscrew {
            let r = R_A * self.centre;
            let w = R_A * a.w_WB_B;
            let alpha = R_A * alpha_B;
            (perp(a.p_WB + r), perp(a.v_WB + w.cross(&r)), perp(acc_A + alpha.cross(&r) + w.cross(&w.cross(&r))))
        } else {
            (perp(self.position0), Vec3::zeros(), Vec3::zeros())
        };
        let axial = h.dot(&self.position0) + self.speed * t;
        [lat + h * axial, lat_v + h * self.speed, lat_a, h * (self.rate * t), h * self.rate]
    }

    /// Control force (world) and torque (bus axes) at the bus state.
    fn control(&self, t: f64, f: &Frame, acc_A: &Vec3, alpha_B: &Vec3, q_b: &UnitQuat) -> (Vec3, Vec3) {
        let [r, v, a, turn, w_ref] = self.reference(t, &f.asteroid, &f.R_A, acc_A, alpha_B);
        let (wn, zeta) = (self.bandwidth, 1.0);
        let force = self.mass * (a + 2.0 * zeta * wn * (v - f.R_b * f.v_b) + wn * wn * (r - f.p_b));
        let q_ref = UnitQuat::from_scaled_axis(turn) * self.attitude0;
        let e = q_ref.inverse() * q_b;
        let theta = 2.0 * e.w.signum() * Vec3::new(e.i, e.j, e.k);
        let w_err = f.w_b - f.R_b.transpose() * w_ref;
        let torque =
            self.inertia * (-(wn * wn) * theta - 2.0 * zeta * wn * w_err) + f.w_b.cross(&(self.inertia * f.w_b));
        (force, torque)
    }
}

impl<M: Deref<Target = MembraneCapture>> OdeSystem for Ode<M> {
    fn dim(&self) -> usize {
        DIM
    }

    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) {
        let mut k = std::mem::take(&mut self.kin);
        let (f, c) = if y == self.seen.as_slice() {
            (self.frame(y, &mut k), self.start_contact)
        } else {
            self.frame_and_contact(y, &mut k)
        };
        let m = &*self.model;
        // Asteroid: the membrane's force (M = bus axes → world) and torque, and a user's push.
        let (push_f, push_t) = self.push;
        let torque_B = f.R_A.transpose() * (f.R_b * c.torque() + push_t);
        m.asteroid.derivatives(y, &Vec3::zeros(), &(f.R_b * c.force() + push_f), &torque_B, dydt);
        let pushed = push_f.dot(&Vec3::new(y[3], y[4], y[5])) + push_t.dot(&(f.R_A * Vec3::new(y[10], y[11], y[12])));
        // Bus: the opposite wrench about its centre of mass (bus axes), plus thrust or guidance.
        let (mut force, mut torque) = c.reaction_about(&f.p_MB, &Vec3::new(0.0, 0.0, -m.offset));
        let power = if let Some((f_B, t_B)) = self.command {
            force += f_B;
            torque += t_B;
            f_B.dot(&f.v_b) + t_B.dot(&f.w_b)
        } else if self.thrusting {
            force.z += m.thrust;
            m.thrust * f.v_b.z
        } else {
            let acc_A = Vec3::new(dydt[3], dydt[4], dydt[5]);
            let alpha_B = Vec3::new(dydt[10], dydt[11], dydt[12]);
            let q = &y[SC + 3..SC + 7];
            let q_b = UnitQuat::new_unchecked(tumble_math::Quat::new(q[0], q[1], q[2], q[3]));
            let (f_W, t_B) = m.guidance.control(t, &f, &acc_A, &alpha_B, &q_b);
            force += f.R_b.transpose() * f_W;
            torque += t_B;
            f_W.dot(&(f.R_b * f.v_b)) + t_B.dot(&f.w_b)
        };
        self.spacecraft.external[0] = join(&torque, &force);
        self.spacecraft.derivatives(&k, &y[SC..SC + NQ + NV], &mut dydt[SC..SC + NQ + NV]);
        self.kin = k;
        dydt[DAMPING_LOSS] = m.membrane.c * c.area_rate * c.area_rate;
        dydt[FRICTION_LOSS] = -c.friction_power;
        dydt[SADA_LOSS] = self
            .spacecraft
            .ball_springs
            .iter()
            .map(|b| {
                let at = SC + NQ + self.spacecraft.model.v_index(b.link);
                b.damping * (y[at] * y[at] + y[at + 1] * y[at + 1] + y[at + 2] * y[at + 2])
            })
            .sum();
        dydt[WORK] = power + pushed;
    }

    fn project(&self, y: &mut [f64]) {
        normalize_quaternion(y);
        self.spacecraft.model.normalize(&mut y[SC..SC + NQ]);
    }
}

impl MembraneCapture {
    /// The sample at `t`, `y`, with the membrane's action `c` there.
    fn sample<M: Deref<Target = MembraneCapture>>(
        &self,
        t: f64,
        y: &[f64],
        ode: &Ode<M>,
        c: MembraneContact,
    ) -> MembraneCaptureSample {
        let mut k = Kinematics::default();
        let f = ode.frame(y, &mut k);
        let ys = &y[SC..SC + NQ + NV];
        let sc = &self.spacecraft;
        let sada = |i: usize| {
            let b = &sc.ball_springs[i];
            let (qa, va) = (sc.model.q_index(sc.model.v_index(b.link)), sc.model.v_index(b.link));
            b.eval(&ys[qa..qa + 4], &ys[NQ + va..NQ + va + 3]).0
        };
        let a = &f.asteroid;
        let (lin, ang) = sc.model.momentum(&ys[..NQ], &ys[NQ..]);
        let p_A = a.v_WB * self.asteroid.mass;
        let h_A = a.p_WB.cross(&p_A) + f.R_A * (self.asteroid.inertia * a.w_WB_B);
        MembraneCaptureSample {
            t,
            thrusting: ode.thrusting,
            contact: c,
            asteroid_in_membrane: f.p_MB.into(),
            relative_velocity: f.v_MB.into(),
            asteroid_rate: (f.R_A * a.w_WB_B).into(),
            bus_rate: (f.R_b * f.w_b).into(),
            sada_torque: [sada(0), sada(1)],
            asteroid_kinetic: a.kinetic_energy(&self.asteroid),
            spacecraft_energy: sc.energy(ys),
            damping_loss: y[DAMPING_LOSS],
            friction_loss: y[FRICTION_LOSS],
            sada_loss: y[SADA_LOSS],
            work: y[WORK],
            momentum: (lin + p_A).into(),
            angular_momentum: (ang + h_A).into(),
            asteroid_pose: (a.p_WB, a.q_WB),
            link_poses: k.pose.iter().map(|(R, p)| (*p, tumble_math::quat_from_matrix(R))).collect(),
        }
    }
}

/// An asteroid capture as the pipeline steps it.
///
/// Its energy check is two-sided: the budget `T_A + T_S + V_SADA + ½k(A − A₀)² + D_c + D_f +
/// D_s − W` may move either way by at most 1 % of `max(|budget₀|, T_A + |E_S| + ½k(A − A₀)²)`
/// (a loss as much as a gain says the step does not resolve the contact). Once the asteroid has
/// crossed the membrane's rim the check is off (`None`): the membrane model's area jumps there.
pub struct MembraneCaptureSim<M = std::sync::Arc<MembraneCapture>> {
    ode: Ode<M>,
    clock: FixedSteps,
    y: Vec<f64>,
    budget0: f64,
    /// The budget and the energy in play at the current state, J.
    now: (f64, f64),
    rim: bool,
    run: MembraneCaptureRun,
}

impl<M: Deref<Target = MembraneCapture>> MembraneCaptureSim<M> {
    /// The capture of `model` (borrowed, or shared through an `Arc`) from its initial state.
    pub fn new(model: M) -> Self {
        let (spacecraft, ws) =
            (model.spacecraft.clone(), MembraneWorkspace::for_body(&model.membrane, model.mesh.vertices.len()));
        let (y, clock) = (model.initial_state(), FixedSteps::new(DIM, model.dt, model.duration, model.output_interval));
        let mut ode = Ode {
            model,
            spacecraft,
            ws,
            thrusting: false,
            command: None,
            push: (Vec3::zeros(), Vec3::zeros()),
            start_contact: MembraneContact::default(),
            seen: Vec::with_capacity(DIM),
            start_kinematics: None,
            tau: vec![0.0; NV],
            kin: Kinematics::default(),
            contact_time: None,
        };
        ode.observe(0.0, &y, clock.steps > 0);
        let run = MembraneCaptureRun {
            samples: Vec::with_capacity((clock.steps / clock.every + 1) as usize),
            ..Default::default()
        };
        let mut sim = Self { clock, ode, y, budget0: 0.0, now: (0.0, 0.0), rim: false, run };
        sim.now = sim.budget();
        sim.budget0 = sim.now.0;
        sim
    }

    /// Samples every `simulation.output_interval` up to the whole number of steps nearest
    /// `simulation.duration`.
    pub fn schedule(&self) -> Schedule {
        self.clock.schedule()
    }

    /// The membrane's action on the asteroid now (membrane frame).
    pub fn contact(&self) -> &MembraneContact {
        &self.ode.start_contact
    }

    /// Replaces the built-in approach guidance and capture thrust by a force `f_B` (N) and a
    /// torque `t_B` (N·m) on the bus, both in bus axes, held from the next step on until changed;
    /// `None` hands the bus back to the built-in law. Their work enters the energy budget as the
    /// thrust's does.
    pub fn command(&mut self, wrench: Option<(Vec3, Vec3)>) {
        self.ode.command = wrench;
    }

    /// Sets a force `f` (N) on the asteroid's centre of mass and a torque `tau` (N·m) about it,
    /// world axes, held from the next step on; their work enters the energy budget.
    pub fn push_asteroid(&mut self, f: Vec3, tau: Vec3) {
        self.ode.push = (f, tau);
    }

    /// The asteroid's centre of mass in the membrane's frame M (bus axes, origin on the bus's
    /// axis `offset` ahead of its centre of mass), m, and its velocity relative to M, m/s: what
    /// a capture guidance law measures.
    pub fn relative(&self) -> (Vec3, Vec3) {
        let f = self.ode.frame(&self.y, &mut Kinematics::default());
        (f.p_MB, f.v_MB)
    }

    /// The state (the asteroid's 13 components, then the spacecraft's positions and velocities
    /// and the budget's integrals).
    pub fn y(&self) -> &[f64] {
        &self.y
    }

    /// The run so far.
    pub fn run(&self) -> &MembraneCaptureRun {
        &self.run
    }

    /// The run's record with how it ended.
    pub fn finish(mut self, end: Result<Stop, Diagnosis>) -> MembraneCaptureRun {
        self.run.diagnosis = end.err();
        self.run.contact_time = self.ode.contact_time;
        self.run
    }

    /// How far the budget has moved from its start and the energy in play
    /// `max(|budget₀|, T_A + |E_S| + ½k(A − A₀)²)`, J.
    fn moved(&self) -> (f64, f64) {
        let (b, in_play) = self.now;
        ((b - self.budget0).abs(), self.budget0.abs().max(in_play))
    }

    /// The budget now and the energy in play `T_A + |E_S| + ½k(A − A₀)²`, J.
    fn budget(&mut self) -> (f64, f64) {
        let (m, y, c) = (&*self.ode.model, &self.y, self.ode.start_contact.energy);
        let kinetic = BodyState::read(y).kinetic_energy(&m.asteroid);
        let ys = &y[SC..SC + NQ + NV];
        let ode = &mut self.ode;
        let spacecraft = match &ode.start_kinematics {
            Some(k) => ode.spacecraft.energy_with(k, ys, &mut ode.tau),
            None => ode.spacecraft.energy(ys),
        };
        let budget = kinetic + spacecraft + c + y[DAMPING_LOSS] + y[FRICTION_LOSS] + y[SADA_LOSS] - y[WORK];
        (budget, kinetic + spacecraft.abs() + c)
    }
}

impl<M: Deref<Target = MembraneCapture>> Simulation for MembraneCaptureSim<M> {
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

    fn observe(&mut self) -> StepReport {
        let was = self.ode.start_contact.in_contact;
        self.ode.observe(self.clock.time(), &self.y, !self.clock.done());
        let c = &self.ode.start_contact;
        self.rim |= c.outside_rim > 0;
        self.now = self.budget();
        let c = &self.ode.start_contact;
        let events = Events::contact_change(was, c.in_contact);
        StepReport { stop: self.clock.stop(), ..StepReport::with(events) }
    }

    fn energy(&self) -> Option<EnergyCheck> {
        if self.rim {
            return None;
        }
        let (moved, scale) = self.moved();
        Some(EnergyCheck { growth: moved, limit: ENERGY_TOLERANCE * scale })
    }

    fn record(&mut self) {
        let s = self.ode.model.sample(self.time(), &self.y, &self.ode, self.ode.start_contact);
        self.run.samples.push(s);
    }

    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis {
        let dt = self.ode.model.dt;
        let cause = "the model: the friction regularisation membrane.v_star (raise it), the membrane's k and c or the SADA springs against the masses";
        let what = match failure {
            GuardFailure::EnergyGrew { .. } => {
                let (moved, scale) = self.moved();
                format!(
                    "the energy budget moved by {moved:.4e} J ({:.2} % of the energy in play {scale:.4e} J, limit {} %)",
                    100.0 * moved / scale,
                    100.0 * ENERGY_TOLERANCE
                )
            }
            _ => failure.what(),
        };
        Diagnosis::new(self.time(), what, cause).step_unmeasured(dt)
    }
}
