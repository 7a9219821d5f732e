//! Asteroid capture through a membrane carried by a spacecraft (`[membrane]` + `[spacecraft]`):
//! the membrane document's capture simulation (Fig. 7). The asteroid is a free rigid body of
//! any closed mesh; the spacecraft is a multibody — a cylindrical bus on a free joint and two
//! solar arrays (solid cylinders on massless booms) on ball joints with spring–dampers, the
//! SADAs. The membrane hangs from the bus: its frame `M` sits `membrane_offset` ahead of the
//! bus centre of mass on the bus axis `+z`, with the bus's axes. The asteroid receives the
//! membrane's wrench and the bus exactly the opposite one ([`MembraneContact::reaction_about`]).
//!
//! Until first contact a guidance law flies the approach: along the asteroid's angular momentum
//! `Ĥ` at the set speed, spinning about `Ĥ` at `Ω = ω·Ĥ = 2T/|H|` (constant for the torque-free
//! asteroid) and following the asteroid's geometric centre sideways — the document's corkscrew.
//! From the first contact on the spacecraft thrusts along its axis with constant force and no
//! attitude control.
//!
//! One `OdeSystem` holds the asteroid (13 states), the spacecraft's `[q; v]` (15 + 12) and four
//! bookkeeping states: `∫c Ȧ² dt`, `−∫P_f dt`, the SADA dampers' `∫c_s |ω_j|² dt` and the work of
//! guidance and thrust `∫P dt`, so that the budget
//! `T_A + T_S + V_SADA + ½k(A − A₀)² + D_c + D_f + D_s − W` is checkable at every sample.

use crate::ScenarioError;
use crate::membrane::{MembraneParts, membrane_parts, membrane_series, rk4_timing};
use crate::model::{Check, err, positive};
use crate::output::{RunDir, first_last};
use crate::plot::{Series, shaded_plot};
use crate::scenario::{GravitySpec, Scenario};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use tumble_contact::membrane::{BodyHull, Membrane, MembraneContact, MembraneWorkspace, RelativeMotion};
use tumble_dynamics::multibody::forces::BallSpring;
use tumble_dynamics::multibody::spatial::{SVec, join, parts};
use tumble_dynamics::multibody::system::MultibodySystem;
use tumble_dynamics::multibody::{Joint, Kinematics, Link, Multibody};
use tumble_dynamics::{BODY_STATE_LEN, BodyState, Integrator, Method, OdeSystem, RigidBody, normalize_quaternion};
use tumble_geometry::{Solid, TriMesh};
use tumble_math::{Mat3, UnitQuat, Vec3};

/// Offset of the spacecraft's `[q; v]` in the state.
const SC: usize = BODY_STATE_LEN;
/// Spacecraft coordinates: bus `[p, q]` (7) and two array quaternions (4 + 4); rates 6 + 3 + 3.
const NQ: usize = 15;
const NV: usize = 12;
/// Bookkeeping states after the spacecraft.
const DAMPING_LOSS: usize = SC + NQ + NV;
const FRICTION_LOSS: usize = DAMPING_LOSS + 1;
const SADA_LOSS: usize = DAMPING_LOSS + 2;
const WORK: usize = DAMPING_LOSS + 3;
const DIM: usize = DAMPING_LOSS + 4;
/// Largest change of the energy budget, as a fraction of the energy in play, before a run is
/// stopped as unresolved (the budget is not checked once the asteroid has crossed the rim,
/// where the membrane model's area jumps).
const ENERGY_TOLERANCE: f64 = 0.01;

/// The approach guidance: a reference pose and twist for the bus, tracked by a critically
/// damped proportional–derivative law with feed-forward of the reference acceleration.
#[derive(Clone, Debug)]
pub struct Guidance {
    /// Approach axis `Ĥ` (world), the asteroid's angular momentum direction at the start.
    pub axis: Vec3,
    /// Spin rate about the axis, rad/s (0 without the corkscrew).
    pub rate: f64,
    /// Closing speed, m/s.
    pub speed: f64,
    /// Follow the asteroid's geometric centre sideways.
    pub corkscrew: bool,
    /// Geometric centre of the asteroid (centre of its bounding box), asteroid body frame, m.
    pub centre: Vec3,
    /// Bus attitude at the start.
    pub attitude0: UnitQuat,
    /// Bus centre of mass at the start, m.
    pub position0: Vec3,
    /// Bandwidth `ω_n`, rad/s.
    pub bandwidth: f64,
    /// Spacecraft mass, kg, and inertia about the bus centre of mass (bus axes, arrays
    /// undeflected), kg·m².
    pub mass: f64,
    /// See `mass`.
    pub inertia: Mat3,
}

/// A validated capture.
#[derive(Clone, Debug)]
pub struct AsteroidCapture {
    /// Scenario name.
    pub name: String,
    /// The membrane (frame `M` carried by the bus).
    pub membrane: Membrane,
    /// The asteroid's shape, body frame (origin at its centre of mass).
    pub mesh: TriMesh,
    /// Radius of the sphere about the centre of mass holding the shape, m.
    pub radius: f64,
    /// The shape's convex hull.
    pub hull: Option<BodyHull>,
    /// The asteroid's mass properties.
    pub asteroid: RigidBody,
    /// The asteroid's initial state.
    pub asteroid_start: BodyState,
    /// The spacecraft: bus (link 0, free) and arrays (links 1, 2, ball joints with springs).
    pub spacecraft: MultibodySystem,
    /// The spacecraft's initial `[q; v]`.
    pub spacecraft_start: Vec<f64>,
    /// Suspension plane ahead of the bus centre of mass, m.
    pub offset: f64,
    /// Half the bus height: its front face is this far ahead of its centre of mass, m.
    pub bus_half_height: f64,
    /// Thrust after contact, N.
    pub thrust: f64,
    /// SADA bending moment limit, N·m.
    pub moment_limit: f64,
    /// Relative rate that counts as caught up, rad/s.
    pub catch_up_rate: f64,
    /// The approach.
    pub guidance: Guidance,
    /// RK4 step, s.
    pub dt: f64,
    /// Simulated span, s.
    pub duration: f64,
    /// Time between samples, s.
    pub output_interval: f64,
}

/// One recorded instant.
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureSample {
    /// Time, s.
    pub t: f64,
    /// Thrusting (after first contact) rather than guided.
    pub thrusting: bool,
    /// The membrane's action on the asteroid (in `M`, i.e. bus axes).
    pub contact: MembraneContact,
    /// Asteroid centre of mass in `M`, m (x, y: off-centre; z: height above the plane).
    pub asteroid_in_membrane: [f64; 3],
    /// Velocity of the asteroid's centre of mass relative to `M`, in `M`, m/s.
    pub relative_velocity: [f64; 3],
    /// Asteroid angular velocity, world axes, rad/s.
    pub asteroid_rate: [f64; 3],
    /// Bus angular velocity, world axes, rad/s.
    pub bus_rate: [f64; 3],
    /// Spring–damper torque of each SADA on its array, array axes (boom along `y`), N·m.
    pub sada_torque: [[f64; 3]; 2],
    /// Asteroid kinetic energy, J.
    pub asteroid_kinetic: f64,
    /// Spacecraft kinetic energy plus SADA spring energy, J.
    pub spacecraft_energy: f64,
    /// `∫c Ȧ² dt`, J.
    pub damping_loss: f64,
    /// `−∫P_f dt`, J.
    pub friction_loss: f64,
    /// `∫c_s |ω_j|² dt` of both SADAs, J.
    pub sada_loss: f64,
    /// Work of guidance and thrust, J.
    pub work: f64,
    /// Linear momentum of asteroid and spacecraft, world axes, kg·m/s.
    pub momentum: [f64; 3],
    /// Their angular momentum about the world origin, kg·m²/s.
    pub angular_momentum: [f64; 3],
    /// The asteroid's pose (centre of mass, attitude), world.
    pub asteroid_pose: (Vec3, UnitQuat),
    /// Every spacecraft link's pose (link origin, attitude), world.
    pub link_poses: Vec<(Vec3, UnitQuat)>,
}

impl CaptureSample {
    /// `T_A + T_S + V_SADA + ½k(A − A₀)² + D_c + D_f + D_s − W`: constant for the exact flow.
    pub fn budget(&self) -> f64 {
        self.asteroid_kinetic
            + self.spacecraft_energy
            + self.contact.energy
            + self.damping_loss
            + self.friction_loss
            + self.sada_loss
            - self.work
    }

    /// `|ω_asteroid − ω_bus|`, rad/s.
    pub fn relative_rate(&self) -> f64 {
        (Vec3::from(self.asteroid_rate) - Vec3::from(self.bus_rate)).norm()
    }

    /// SADA bending moment (the torque across the boom axis) of array `i`, N·m.
    pub fn bending(&self, i: usize) -> f64 {
        let t = self.sada_torque[i];
        t[0].hypot(t[2])
    }
}

/// A finished capture.
#[derive(Clone, Debug, Default)]
pub struct CaptureRun {
    /// Samples at the output interval.
    pub samples: Vec<CaptureSample>,
    /// Time of first contact, s.
    pub contact_time: Option<f64>,
    /// Why the run stopped early, if it did.
    pub diagnosis: Option<String>,
    /// Wall-clock time, s.
    pub wall_s: f64,
}

impl CaptureRun {
    /// Largest SADA bending moment over both arrays, N·m.
    pub fn peak_bending(&self) -> f64 {
        self.samples.iter().map(|s| s.bending(0).max(s.bending(1))).fold(0.0, f64::max)
    }

    /// The first sample time after contact from which the relative rate stays below `tol`.
    pub fn catch_up_time(&self, tol: f64) -> Option<f64> {
        let tc = self.contact_time?;
        let last_above = self.samples.iter().rposition(|s| s.relative_rate() > tol);
        let from = match last_above {
            Some(i) => self.samples.get(i + 1)?,
            None => self.samples.first()?,
        };
        Some(from.t.max(tc))
    }
}

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

struct Ode<'a> {
    model: &'a AsteroidCapture,
    spacecraft: MultibodySystem,
    ws: MembraneWorkspace,
    thrusting: bool,
    /// The next right-hand side is a step's first stage (at the step's start state).
    first: bool,
    /// The membrane's action at the last step's start state.
    start_contact: MembraneContact,
    /// Time of first contact.
    contact_time: Option<f64>,
}

impl Ode<'_> {
    fn frame_and_contact(&mut self, y: &[f64]) -> (Frame, MembraneContact, Kinematics) {
        let (f, k) = self.frame(y);
        let m = self.model;
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
        (f, c, k)
    }

    /// Poses and twists at `y`, and the spacecraft's kinematics.
    fn frame(&self, y: &[f64]) -> (Frame, Kinematics) {
        let m = self.model;
        let asteroid = BodyState::read(y);
        let R_A = asteroid.q_WB.to_rotation_matrix().into_inner();
        let ys = &y[SC..SC + NQ + NV];
        let k = self.spacecraft.model.kinematics(&ys[..NQ], &ys[NQ..]);
        let (R_b, p_b) = k.pose[0];
        let (w_b, v_b) = parts(&k.v[0]);
        // M: origin `offset` ahead of the bus centre of mass, bus axes.
        let o_M = p_b + R_b.column(2) * m.offset;
        let p_MB = R_b.transpose() * (asteroid.p_WB - o_M);
        let v_oM = R_b * (v_b + w_b.cross(&Vec3::new(0.0, 0.0, m.offset)));
        let v_MB = R_b.transpose() * (asteroid.v_WB - v_oM) - w_b.cross(&p_MB);
        (Frame { asteroid, R_A, R_b, p_b, w_b, v_b, p_MB, v_MB }, k)
    }
}

impl Guidance {
    /// Reference position, velocity, acceleration of the bus centre of mass, reference attitude
    /// and angular velocity (world) at `t`, for the asteroid's state `a` (rotation `R_A`) and its
    /// accelerations `acc_A` (world, m/s²) and `alpha_B` (body axes, rad/s²).
    fn reference(&self, t: f64, a: &BodyState, R_A: &Mat3, acc_A: &Vec3, alpha_B: &Vec3) -> [Vec3; 5] {
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

impl OdeSystem for Ode<'_> {
    fn dim(&self) -> usize {
        DIM
    }

    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) {
        let (f, c, k) = self.frame_and_contact(y);
        if self.first {
            // The step's start state: thrust from the first step that starts in contact.
            self.first = false;
            self.start_contact = c;
            if !self.thrusting && c.in_contact {
                self.thrusting = true;
                self.contact_time = Some(t);
            }
        }
        let m = self.model;
        // Asteroid: the membrane's force (M = bus axes → world) and torque.
        let torque_B = f.R_A.transpose() * (f.R_b * c.torque());
        m.asteroid.derivatives(y, &Vec3::zeros(), &(f.R_b * c.force()), &torque_B, dydt);
        // Bus: the opposite wrench about its centre of mass (bus axes), plus thrust or guidance.
        let (mut force, mut torque) = c.reaction_about(&f.p_MB, &Vec3::new(0.0, 0.0, -m.offset));
        let power = if self.thrusting {
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
        dydt[WORK] = power;
    }

    fn project(&self, y: &mut [f64]) {
        normalize_quaternion(y);
        self.spacecraft.model.normalize(&mut y[SC..SC + NQ]);
    }
}

impl AsteroidCapture {
    /// Validates `[membrane]`, `[spacecraft]`, `[gravity]` (none) and `[simulation]` (RK4).
    pub fn build(sc: &Scenario) -> Result<Self, ScenarioError> {
        Self::check(sc).map_err(|(k, m)| sc.error_at(&k, m))
    }

    fn check(sc: &Scenario) -> Check<Self> {
        let Some(s) = &sc.file.spacecraft else { return err("spacecraft", "a capture needs a [spacecraft] table") };
        let (dt, duration, output_interval) = rk4_timing(sc, "capture")?;
        if !matches!(sc.file.gravity, GravitySpec::None) {
            return err("gravity.type", "a capture runs in free space: `none` (the asteroid's own pull is neglected)");
        }
        let MembraneParts { membrane, mesh, radius, hull, body: asteroid, start } = membrane_parts(sc)?;
        let mass = positive("spacecraft.mass", s.mass, "kg")?;
        let bus_r = positive("spacecraft.radius", s.radius, "m")?;
        let height = positive("spacecraft.height", s.height, "m")?;
        let offset = positive("spacecraft.membrane_offset", s.membrane_offset, "m")?;
        if offset < 0.5 * height {
            return err(
                "spacecraft.membrane_offset",
                format!(
                    "the suspension plane must lie ahead of the bus's front face ({} m), got {offset} m",
                    0.5 * height
                ),
            );
        }
        if !(s.thrust.is_finite() && s.thrust >= 0.0) {
            return err("spacecraft.thrust", format!("must be zero or positive (N), got {}", s.thrust));
        }
        let catch_up_rate = positive("spacecraft.catch_up_rate", s.catch_up_rate, "rad/s")?;
        let a = &s.arrays;
        let am = positive("spacecraft.arrays.mass", a.mass, "kg")?;
        let ar = positive("spacecraft.arrays.radius", a.radius, "m")?;
        let at = positive("spacecraft.arrays.thickness", a.thickness, "m")?;
        if !(a.boom.is_finite() && a.boom >= 0.0) {
            return err("spacecraft.arrays.boom", format!("must be zero or positive (m), got {}", a.boom));
        }
        let stiffness = positive("spacecraft.arrays.stiffness", a.stiffness, "N·m/rad")?;
        if !(a.damping.is_finite() && a.damping >= 0.0) {
            return err(
                "spacecraft.arrays.damping",
                format!("must be zero or positive (N·m·s/rad), got {}", a.damping),
            );
        }
        let moment_limit = positive("spacecraft.arrays.moment_limit", a.moment_limit, "N·m")?;
        let ap = &s.approach;
        if !(ap.speed.is_finite() && ap.speed >= 0.0) {
            return err("spacecraft.approach.speed", format!("must be zero or positive (m/s), got {}", ap.speed));
        }
        if !(ap.gap.is_finite() && ap.gap >= 0.0) {
            return err("spacecraft.approach.gap", format!("must be zero or positive (m), got {}", ap.gap));
        }
        let bandwidth = positive("spacecraft.approach.bandwidth", ap.bandwidth, "rad/s")?;

        // The spacecraft: bus on a free joint, arrays on ball joints at the bus wall (±y).
        let cyl = |r: f64, h: f64| Solid::Cylinder { radius: r, length: h }.inertia_per_mass();
        let b = cyl(bus_r, height) * mass;
        let d = cyl(ar, at) * am;
        let disc = Mat3::from_diagonal(&Vec3::new(d.z, d.x, d.y)); // axis along x
        let reach = a.boom + ar;
        let array = |name: &str, side: f64| Link {
            name: name.into(),
            parent: Some(0),
            joint: Joint::Spherical,
            parent_to_joint: (Mat3::identity(), Vec3::new(0.0, side * bus_r, 0.0)),
            mass: am,
            com: Vec3::new(0.0, side * reach, 0.0),
            inertia: disc,
        };
        let links = vec![
            Link {
                name: "bus".into(),
                parent: None,
                joint: Joint::Free,
                parent_to_joint: (Mat3::identity(), Vec3::zeros()),
                mass,
                com: Vec3::zeros(),
                inertia: Mat3::from_diagonal(&b),
            },
            array("array_plus_y", 1.0),
            array("array_minus_y", -1.0),
        ];
        let model = Multibody::new(links, Vec3::zeros()).map_err(|e| ("spacecraft".to_string(), e.to_string()))?;
        let mut spacecraft = MultibodySystem::new(model);
        spacecraft.ball_springs = (1..3).map(|link| BallSpring { link, stiffness, damping: a.damping }).collect();
        spacecraft.external = vec![SVec::zeros(); 3];
        // Spacecraft inertia about the bus centre of mass, arrays undeflected.
        let mut inertia = Mat3::from_diagonal(&b);
        for side in [1.0, -1.0] {
            let r = Vec3::new(0.0, side * (bus_r + reach), 0.0);
            inertia += disc + am * (Mat3::identity() * r.norm_squared() - r * r.transpose());
        }
        let total = mass + 2.0 * am;

        // Approach: axis along the asteroid's angular momentum, spin at ω·Ĥ.
        let R_A = start.q_WB.to_rotation_matrix().into_inner();
        let w_W = R_A * start.w_WB_B;
        let h_W = R_A * (asteroid.inertia * start.w_WB_B);
        let axis = h_W.try_normalize(1e-300).unwrap_or(Vec3::z());
        let rate = if ap.corkscrew { w_W.dot(&axis) } else { 0.0 };
        let seed = if axis.x.abs() < 0.9 { Vec3::x() } else { Vec3::y() };
        let x = (seed - axis * axis.dot(&seed)).normalize();
        let attitude0 = UnitQuat::from_rotation_matrix(&tumble_math::nalgebra::Rotation3::from_matrix_unchecked(
            Mat3::from_columns(&[x, axis.cross(&x), axis]),
        ));
        let (lo, hi) = mesh
            .vertices
            .iter()
            .fold((Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY)), |(l, h), v| (l.inf(v), h.sup(v)));
        let centre = 0.5 * (lo + hi);
        let lowest = mesh.vertices.iter().map(|v| axis.dot(&(R_A * v))).fold(f64::INFINITY, f64::min);
        let plane = axis.dot(&start.p_WB) + lowest - ap.gap;
        let c0 = start.p_WB + R_A * centre;
        let position0 = c0 - axis * axis.dot(&c0) + axis * (plane - offset);
        let guidance = Guidance {
            axis,
            rate,
            speed: ap.speed,
            corkscrew: ap.corkscrew,
            centre,
            attitude0,
            position0,
            bandwidth,
            mass: total,
            inertia,
        };
        // Start on the reference.
        let alpha_B = asteroid.inertia_inv * (-start.w_WB_B.cross(&(asteroid.inertia * start.w_WB_B)));
        let [_, v_ref, ..] = guidance.reference(0.0, &start, &R_A, &Vec3::zeros(), &alpha_B);
        let mut y = spacecraft.model.neutral();
        y[0..3].copy_from_slice(position0.as_slice());
        let q = attitude0.quaternion();
        y[3..7].copy_from_slice(&[q.w, q.i, q.j, q.k]);
        let mut v = vec![0.0; NV];
        v[0..3].copy_from_slice((attitude0.inverse() * (axis * rate)).as_slice());
        v[3..6].copy_from_slice((attitude0.inverse() * v_ref).as_slice());
        y.extend(v);
        Ok(Self {
            name: sc.file.name.clone(),
            membrane,
            mesh,
            radius,
            hull,
            asteroid,
            asteroid_start: start,
            spacecraft,
            spacecraft_start: y,
            offset,
            bus_half_height: 0.5 * height,
            thrust: s.thrust,
            moment_limit,
            catch_up_rate,
            guidance,
            dt,
            duration,
            output_interval,
        })
    }

    /// The state at the start: asteroid, spacecraft, then the four bookkeeping states (zero).
    pub fn initial_state(&self) -> Vec<f64> {
        let mut y = vec![0.0; DIM];
        self.asteroid_start.write(&mut y);
        y[SC..SC + NQ + NV].copy_from_slice(&self.spacecraft_start);
        y
    }

    /// The sample at `t`, `y`, with the membrane's action `c` there.
    fn sample(&self, t: f64, y: &[f64], ode: &Ode, c: MembraneContact) -> CaptureSample {
        let (f, k) = ode.frame(y);
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
        CaptureSample {
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
            link_poses: k.pose.iter().map(|(R, p)| (*p, UnitQuat::from_matrix(R))).collect(),
        }
    }

    /// Runs the capture.
    pub fn run(&self) -> CaptureRun {
        self.run_with(&mut |_| {})
    }

    /// Runs the capture, calling `progress(t)` at every sample.
    pub fn run_with(&self, progress: &mut dyn FnMut(f64)) -> CaptureRun {
        let started = std::time::Instant::now();
        let mut ode = Ode {
            model: self,
            spacecraft: self.spacecraft.clone(),
            ws: MembraneWorkspace::default(),
            thrusting: false,
            first: false,
            start_contact: MembraneContact::default(),
            contact_time: None,
        };
        let mut y = self.initial_state();
        let mut integ = Integrator::new(Method::Rk4 { dt: self.dt }, y.len());
        let every = ((self.output_interval / self.dt).round() as u64).max(1);
        let steps = (self.duration / self.dt).round() as u64;
        let mut run = CaptureRun { samples: Vec::with_capacity((steps / every + 1) as usize), ..Default::default() };
        let (mut rim, mut y_start) = (false, vec![0.0; y.len()]);
        for k in 0..=steps {
            let t = k as f64 * self.dt;
            // The step's first stage evaluates the membrane at (t, y): its contact decides the
            // thrust for the whole step and serves the sample at t.
            y_start.copy_from_slice(&y);
            if k < steps {
                ode.first = true;
                integ.step_once(&mut ode, t, &mut y, self.dt);
            } else {
                ode.start_contact = ode.frame_and_contact(&y).1;
            }
            if k % every == 0 || k == steps {
                let s = self.sample(t, &y_start, &ode, ode.start_contact);
                rim |= s.contact.outside_rim > 0;
                let (b0, b) = (run.samples.first().map_or(s.budget(), |f| f.budget()), s.budget());
                let scale = b0.abs().max(s.asteroid_kinetic + s.spacecraft_energy.abs() + s.contact.energy);
                run.samples.push(s);
                progress(t);
                if !rim && (b - b0).abs() > ENERGY_TOLERANCE * scale {
                    run.diagnosis = Some(format!(
                        "the energy budget moved by {:.4e} J ({:.2} % of {:.4e} J) by t = {t} s: the step \
                         simulation.dt = {} s does not resolve the contact (the friction regularisation \
                         membrane.v_star, the stiffness k or the SADA springs); lower dt or raise v_star",
                        b - b0,
                        100.0 * (b - b0).abs() / scale,
                        scale,
                        self.dt
                    ));
                    break;
                }
            }
            if k < steps {
                run.diagnosis = crate::run::non_finite(&y, t + self.dt, self.dt, "");
                if run.diagnosis.is_some() {
                    break;
                }
            }
        }
        run.contact_time = ode.contact_time;
        run.wall_s = started.elapsed().as_secs_f64();
        run
    }
}

/// Writes `timeseries.csv`, `summary.json` and plots (rates, SADA moments, membrane, slip,
/// hull, centring, energy) into `dir`.
pub fn write_capture_run(dir: &Path, model: &AsteroidCapture, run: &CaptureRun) -> Result<Value, String> {
    let out = RunDir::create(dir)?;
    let (first, last) = first_last(&run.samples)?;
    let a0 = model.membrane.area0();
    out.csv("timeseries.csv", |w| {
        writeln!(
            w,
            "t_s,thrusting,asteroid_wx_rad_s,asteroid_wy_rad_s,asteroid_wz_rad_s,bus_wx_rad_s,bus_wy_rad_s,\
             bus_wz_rad_s,relative_rate_rad_s,asteroid_x_M_m,asteroid_y_M_m,asteroid_z_M_m,relative_vx_m_s,\
             relative_vy_m_s,relative_vz_m_s,sada1_bending_N_m,sada2_bending_N_m,sada1_torsion_N_m,\
             sada2_torsion_N_m,area_m2,area_rate_m2_s,tension_N_m,normal_force_N,friction_force_N,max_slip_m_s,\
             contact_vertices,depth_m,asteroid_kinetic_J,spacecraft_energy_J,membrane_energy_J,damping_loss_J,\
             friction_loss_J,sada_loss_J,work_J,budget_J,outside_rim"
        )?;
        for s in &run.samples {
            let c = &s.contact;
            let mut row = vec![s.t, if s.thrusting { 1.0 } else { 0.0 }];
            row.extend(s.asteroid_rate.iter().chain(&s.bus_rate));
            row.push(s.relative_rate());
            row.extend(s.asteroid_in_membrane.iter().chain(&s.relative_velocity));
            row.extend([s.bending(0), s.bending(1), s.sada_torque[0][1], s.sada_torque[1][1]]);
            row.extend([c.area, c.area_rate, c.tension, c.normal_force.norm(), c.friction_force.norm(), c.max_slip]);
            row.extend([c.contact_vertices as f64, c.depth]);
            row.extend([s.asteroid_kinetic, s.spacecraft_energy, c.energy, s.damping_loss, s.friction_loss]);
            row.extend([s.sada_loss, s.work, s.budget(), s.contact.outside_rim as f64]);
            writeln!(w, "{}", row.iter().map(|x| format!("{x:e}")).collect::<Vec<_>>().join(","))?;
        }
        Ok(())
    })?;

    let t: Vec<f64> = run.samples.iter().map(|s| s.t).collect();
    let col = |f: &dyn Fn(&CaptureSample) -> f64| run.samples.iter().map(f).collect::<Vec<f64>>();
    let limit = model.moment_limit;
    let shade: Vec<(f64, f64)> = run.contact_time.map(|tc| vec![(tc, last.t)]).unwrap_or_default();
    let plots: Vec<(&str, &str, &str, Vec<Series>)> = vec![
        (
            "rates",
            "Angular rates (world), asteroid and bus",
            "rad/s",
            vec![
                Series { label: "|ω asteroid|".into(), x: &t, y: col(&|s| Vec3::from(s.asteroid_rate).norm()) },
                Series { label: "|ω bus|".into(), x: &t, y: col(&|s| Vec3::from(s.bus_rate).norm()) },
                Series { label: "|ω asteroid − ω bus|".into(), x: &t, y: col(&|s| s.relative_rate()) },
            ],
        ),
        (
            "sada",
            "SADA bending moments and their limit",
            "N·m",
            vec![
                Series { label: "SADA +y".into(), x: &t, y: col(&|s| s.bending(0)) },
                Series { label: "SADA −y".into(), x: &t, y: col(&|s| s.bending(1)) },
                Series { label: "limit".into(), x: &t, y: col(&|_| limit) },
            ],
        ),
        (
            "membrane",
            "Membrane: deflected area and forces",
            "m², N",
            membrane_series(&t, &run.samples.iter().map(|s| s.contact).collect::<Vec<_>>(), a0),
        ),
        (
            "slip",
            "Slip and relative velocity",
            "m/s",
            vec![
                Series { label: "max slip".into(), x: &t, y: col(&|s| s.contact.max_slip) },
                Series {
                    label: "|v asteroid rel. M|".into(),
                    x: &t,
                    y: col(&|s| Vec3::from(s.relative_velocity).norm()),
                },
            ],
        ),
        (
            "hull",
            "Hull size: body vertices on the membrane and depth",
            "count, m",
            vec![
                Series { label: "contact vertices".into(), x: &t, y: col(&|s| s.contact.contact_vertices as f64) },
                Series { label: "depth [m]".into(), x: &t, y: col(&|s| s.contact.depth) },
            ],
        ),
        (
            "centring",
            "Asteroid centre of mass in the membrane frame",
            "m",
            vec![
                Series {
                    label: "off axis".into(),
                    x: &t,
                    y: col(&|s| s.asteroid_in_membrane[0].hypot(s.asteroid_in_membrane[1])),
                },
                Series { label: "height above plane".into(), x: &t, y: col(&|s| s.asteroid_in_membrane[2]) },
            ],
        ),
        (
            "energy",
            "Energy budget",
            "J",
            vec![
                Series { label: "asteroid kinetic".into(), x: &t, y: col(&|s| s.asteroid_kinetic) },
                Series { label: "spacecraft".into(), x: &t, y: col(&|s| s.spacecraft_energy) },
                Series { label: "membrane".into(), x: &t, y: col(&|s| s.contact.energy) },
                Series { label: "losses".into(), x: &t, y: col(&|s| s.damping_loss + s.friction_loss + s.sada_loss) },
                Series { label: "work in".into(), x: &t, y: col(&|s| s.work) },
                Series { label: "sum − start".into(), x: &t, y: col(&|s| s.budget() - first.budget()) },
            ],
        ),
    ];
    for (stem, title, unit, series) in &plots {
        shaded_plot(&out.plot(stem), title, "time [s]", unit, series, false, &shade)?;
    }
    let peak = |f: &dyn Fn(&CaptureSample) -> f64| run.samples.iter().map(f).fold(0.0, f64::max);
    let peak_bending = run.peak_bending();
    let catch_up = run.catch_up_time(model.catch_up_rate);
    let outcome = match (run.contact_time, last.contact.in_contact) {
        (None, _) => "no contact",
        (Some(_), true) => "in contact",
        (Some(_), false) => "separated",
    };
    let summary = json!({
        "scenario": model.name,
        "outcome": outcome,
        "diagnosis": run.diagnosis,
        "final_time_s": last.t,
        "contact_time_s": run.contact_time,
        "catch_up_time_s": catch_up,
        "catch_up_rate_rad_s": model.catch_up_rate,
        "peak_sada_bending_N_m": [peak(&|s| s.bending(0)), peak(&|s| s.bending(1))],
        "sada_moment_limit_N_m": limit,
        "sada_within_limit": peak_bending <= limit,
        "membrane_area0_m2": a0,
        "peak_area_m2": peak(&|s| s.contact.area),
        "peak_normal_force_N": peak(&|s| s.contact.normal_force.norm()),
        "peak_friction_force_N": peak(&|s| s.contact.friction_force.norm()),
        "peak_slip_m_s": peak(&|s| s.contact.max_slip),
        "peak_contact_vertices": run.samples.iter().map(|s| s.contact.contact_vertices).max().unwrap_or(0),
        "peak_depth_m": peak(&|s| s.contact.depth),
        "bus_clearance_m": model.offset - model.bus_half_height - peak(&|s| s.contact.depth),
        "asteroid_faces": model.mesh.faces.len(),
        "asteroid_rate_initial_rad_s": first.asteroid_rate,
        "asteroid_rate_final_rad_s": last.asteroid_rate,
        "bus_rate_final_rad_s": last.bus_rate,
        "relative_rate_final_rad_s": last.relative_rate(),
        "energy_budget_initial_J": first.budget(),
        "energy_budget_final_J": last.budget(),
        "damping_loss_J": last.damping_loss,
        "friction_loss_J": last.friction_loss,
        "sada_loss_J": last.sada_loss,
        "work_J": last.work,
        "rim_samples": run.samples.iter().filter(|s| s.contact.outside_rim > 0).count(),
        "illegal_pinv_samples": run.samples.iter().filter(|s| s.contact.distribution.negative > 0).count(),
        "wall_time_s": run.wall_s,
        "real_time_factor": last.t / run.wall_s.max(1e-9),
    });
    out.json("summary.json", &summary)?;
    animation(model, run).write_glb(&dir.join("animation.glb"))?;
    Ok(summary)
}

/// The capture as an animation: the asteroid's mesh and the spacecraft's links
/// (inertia-equivalent boxes), all animated; the membrane as it deflects and its force on the
/// asteroid.
pub fn animation(model: &AsteroidCapture, run: &CaptureRun) -> crate::anim::Animation {
    use crate::anim::FORCE_COLOR;
    use crate::anim::{Animation, Mesh, inertia_box_at};
    use crate::membrane::{MEMBRANE_COLOR, membrane_shape};
    let mut anim = Animation::new();
    anim.body("asteroid", vec![Mesh::new(&model.mesh.vertices, &model.mesh.faces, [0.5, 0.45, 0.4, 1.0])]);
    let sc = &model.spacecraft.model;
    for l in &sc.links {
        let meshes = if l.mass > 0.0 {
            vec![inertia_box_at(l.mass, &l.inertia, &l.com, [0.75, 0.75, 0.8, 1.0])]
        } else {
            Vec::new()
        };
        anim.body(&l.name, meshes);
    }
    // The membrane (in `M`: `offset` ahead of the bus centre of mass, bus axes) drawn in the
    // world, and its force on the asteroid at the asteroid's centre of mass, the largest as
    // long as the asteroid's diameter (out of the asteroid).
    let surface = anim.surface("membrane", MEMBRANE_COLOR);
    let force = |s: &CaptureSample| s.contact.normal_force + s.contact.friction_force;
    let peak = run.samples.iter().map(|s| force(s).norm()).fold(0.0, f64::max);
    let per_newton = if peak > 0.0 { 2.0 * model.radius / peak } else { 0.0 };
    anim.arrow("membrane force", 0.06 * model.radius, FORCE_COLOR);
    let mut ws = tumble_contact::membrane::MembraneWorkspace::default();
    let o = Vec3::new(0.0, 0.0, model.offset);
    for s in &run.samples {
        let mut poses = vec![s.asteroid_pose];
        poses.extend(s.link_poses.iter().copied());
        anim.frame(s.t, &poses);
        let ((p_A, q_A), (p_b, q_b)) = (s.asteroid_pose, s.link_poses[0]);
        let R_b = q_b.to_rotation_matrix().into_inner();
        anim.overlays(&[(p_A, R_b * force(s) * per_newton)]);
        let motion = RelativeMotion {
            vertices: &model.mesh.vertices,
            radius: model.radius,
            R_MB: R_b.transpose() * q_A.to_rotation_matrix().into_inner(),
            p_MB: R_b.transpose() * (p_A - p_b) - o,
            v_MB: Vec3::zeros(),
            w_MB: Vec3::zeros(),
            hull: model.hull.as_ref(),
        };
        let (v, t) = membrane_shape(&model.membrane, &motion, &mut ws);
        let world: Vec<Vec3> = v.iter().map(|x| p_b + R_b * (x + o)).collect();
        anim.shape(surface, &world, &t);
    }
    anim
}
