//! The lander's equations as an ODE system: the pipeline kinematics → contact queries → normal
//! forces → accelerations without friction → friction and rolling resistance → accelerations.
//!
//! State (24): `x, v` (T frame, in the shape's coordinates, m, m/s), `q_TS` `[w, x, y, z]`, `ω` (S axes, rad/s), `Q_NT`
//! `[w, x, y, z]`, `Ω` (T axes, rad/s) — the document's 20 states — then the work done on the
//! spacecraft by the dampers, friction, rolling resistance and the frame's non-uniform rotation
//! (J), integrated alongside so that the energy budget closes to the integrator's accuracy.

use super::ephemeris::SunForces;
use super::local::LocalSurface;
use std::ops::DerefMut;
use std::sync::Arc;
use tumble_contact::VertexContactParams;
use tumble_contact::vertex_sdf::{
    BodyKinematics, Mobility, NormalContact, TangentialContact, normal_phase_with, tangential_phase,
};
use tumble_dynamics::rotating::{TargetSpin, angular_acceleration, frame_acceleration, frame_power};
use tumble_dynamics::{Expansion, Gravity, OdeSystem};
use tumble_geometry::sdf::Sdf;
use tumble_math::{Mat3, Quat, UnitQuat, Vec3, quat_derivative};

/// Length of the state vector.
pub const STATE_LEN: usize = 24;
/// Offset of the work accumulators (damper, friction, rolling, frame) in the state.
pub const WORK: usize = 20;

/// The constant model of a lander run: spacecraft, target and contact.
#[derive(Clone)]
pub struct LanderSystem {
    /// Spacecraft mass, kg.
    pub mass: f64,
    /// Spacecraft inertia about its centre of mass, body axes, kg·m².
    pub inertia: Mat3,
    /// Its inverse.
    pub inertia_inv: Mat3,
    /// Contact vertices from the centre of mass, body axes, m.
    pub vertices: Vec<Vec3>,
    /// Contact parameters.
    pub contact: VertexContactParams,
    /// The target's surface in T (negative inside).
    pub surface: Arc<dyn Sdf>,
    /// The target's gravity in T.
    pub gravity: Arc<dyn Gravity>,
    /// The target's rotation law.
    pub spin: TargetSpin,
    /// The target's centre of mass in T, m: the point T rotates about in inertial space (the
    /// frame terms and the centrifugal potential are taken about it). Surface, gravity and the
    /// state stay in the coordinates of T that the shape was given in.
    pub centre: Vec3,
    /// Radius (m) within which gravity comes from a second-order expansion about the last
    /// expansion point ([`Expansion`]); 0 evaluates the field at every stage.
    pub expansion_radius: f64,
    /// The current expansion (kept by [`LanderSystem::refresh_gravity`] between steps).
    pub expansion: Option<Expansion>,
    /// The internal actuator's torque on the body and stored momentum, held over a step (set
    /// by the step loop between steps; zero without hops).
    pub actuation: Actuation,
    /// The Sun's radiation pressure and tide (`[lander.sun]`), if any.
    pub sun: Option<SunForces>,
}

/// What an internal actuator does to the spacecraft over a step: a torque on the body
/// (the reaction of the torque it applies to its rotor) and the angular momentum its rotor
/// stores, both body axes. The body's equation gains `τ − ω_abs × h`
/// (`ω_abs = ω + Ω_S`, a gyrostat's coupling), whose power `ω·(τ − Ω_S × h)` the budget books as
/// the actuator's work with the frame's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Actuation {
    /// Torque on the body, body axes, N·m.
    pub torque: Vec3,
    /// Momentum stored in the rotor, body axes, N·m·s (zero for a torquer that stores none).
    pub momentum: Vec3,
}

/// The system as the step loop drives it: RK4's first stage of a step evaluates the state the
/// loop has just observed, so the rates of that observation are reused (bit-identical, one
/// evaluation of the pipeline fewer per step).
pub(crate) struct Observing<S> {
    pub sys: S,
    /// Local surface models (see [`LocalSurface`]).
    pub local: LocalSurface,
    y: [f64; STATE_LEN],
    rates: Option<[f64; STATE_LEN]>,
}

impl<S: DerefMut<Target = LanderSystem>> Observing<S> {
    pub fn new(sys: S, local: LocalSurface) -> Self {
        Self { sys, local, y: [0.0; STATE_LEN], rates: None }
    }

    /// Snapshot of `y` without remembering it.
    pub fn look(&self, y: &[f64]) -> Snapshot {
        let surface = self.sys.surface.as_ref();
        self.sys.snapshot_with(y, &|j, p| self.local.field(surface, j, p))
    }

    /// [`LanderSystem::supported`] on the surface as the steps see it.
    pub fn supported(&self, y: &[f64], touching: &mut Vec<Vec3>) -> bool {
        let surface = self.sys.surface.as_ref();
        self.sys.supported(y, &|j, p| self.local.field(surface, j, p), touching)
    }

    /// Snapshot of `y`, remembered for the next step's first stage.
    pub fn observe(&mut self, y: &[f64; STATE_LEN]) -> Snapshot {
        let s = self.look(y);
        self.y = *y;
        self.rates = Some(s.rates);
        s
    }
}

impl<S: DerefMut<Target = LanderSystem>> OdeSystem for Observing<S> {
    fn dim(&self) -> usize {
        STATE_LEN
    }

    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) {
        match self.rates {
            Some(r) if y == self.y.as_slice() => dydt.copy_from_slice(&r),
            _ => {
                let _ = t;
                dydt.copy_from_slice(&self.look(y).rates)
            }
        }
    }

    fn project(&self, y: &mut [f64]) {
        self.sys.project(y)
    }
}

/// Everything known about one state: kinematics, contact and energy.
#[derive(Clone, Copy, Debug)]
pub struct Snapshot {
    /// Kinematics relative to T (T axes).
    pub kin: BodyKinematics,
    /// Normal phase.
    pub normal: NormalContact,
    /// Tangential phase.
    pub tangential: TangentialContact,
    /// Linear kinetic energy `½ m |v|²`, J.
    pub kinetic_linear: f64,
    /// Angular kinetic energy `½ ωᵀ I ω` (relative to T), J.
    pub kinetic_angular: f64,
    /// Gravitational and centrifugal potential energy `m (U − ½|Ω × (x − c)|²) − ½ Ω_Sᵀ I Ω_S`
    /// (`c` the target's centre of mass), J.
    pub potential: f64,
    /// Derivative of the state.
    pub rates: [f64; STATE_LEN],
}

impl Snapshot {
    /// `E`: kinetic, potential and elastic energy, J.
    pub fn energy(&self) -> f64 {
        self.kinetic_linear + self.kinetic_angular + self.potential + self.normal.elastic_energy
    }
}

fn vec3(y: &[f64], i: usize) -> Vec3 {
    Vec3::new(y[i], y[i + 1], y[i + 2])
}

/// The attitude held at `y[i..i + 4]`, normalised: RK4's stages leave a quaternion off the unit
/// sphere by O(h²|q̇|²), and a rotation built from it would scale (or shear) the body by that.
fn quat(y: &[f64], i: usize) -> UnitQuat {
    UnitQuat::new_normalize(Quat::new(y[i], y[i + 1], y[i + 2], y[i + 3]))
}

fn put(d: &mut [f64], i: usize, v: &Vec3) {
    d[i..i + 3].copy_from_slice(v.as_slice());
}

fn put_quat(d: &mut [f64], i: usize, q: &Quat) {
    d[i..i + 4].copy_from_slice(&[q.w, q.i, q.j, q.k]);
}

impl LanderSystem {
    /// The body rates (body axes) after an angular impulse `impulse` (N·m·s, body axes) from the
    /// rates `w`, `ω' = ω + I⁻¹ ΔL`, and the work it does, `ΔT = ½ ω'ᵀ I ω' − ½ ωᵀ I ω` (J).
    pub fn spun(&self, w: Vec3, impulse: Vec3) -> (Vec3, f64) {
        let w_new = w + self.inertia_inv * impulse;
        (w_new, 0.5 * w_new.dot(&(self.inertia * w_new)) - 0.5 * w.dot(&(self.inertia * w)))
    }

    /// Whether gravity would be re-expanded at `x`.
    pub fn gravity_stale(&self, x: &Vec3) -> bool {
        self.expansion_radius > 0.0
            && self.expansion.as_ref().is_none_or(|e| (x - e.center).norm() > self.expansion_radius)
    }

    /// Re-expands gravity about `x` when expansions are on and `x` has moved beyond the
    /// radius (called between steps, so that every step sees one smooth field).
    pub fn refresh_gravity(&mut self, x: &Vec3) {
        if self.gravity_stale(x) {
            self.expansion = Some(Expansion::new(self.gravity.as_ref(), *x));
        }
    }

    /// Gravitational acceleration and potential per unit mass at `x`.
    pub fn gravity_at(&self, x: &Vec3) -> (Vec3, f64) {
        match &self.expansion {
            Some(e) => e.eval(x),
            None => (self.gravity.acceleration(x), self.gravity.potential(x)),
        }
    }

    /// Evaluates the whole pipeline at state `y`.
    pub fn snapshot(&self, y: &[f64]) -> Snapshot {
        self.snapshot_with(y, &|_, p| self.surface.eval(p))
    }

    /// [`LanderSystem::snapshot`] with the surface answered per query by `field` (see
    /// [`normal_phase_with`]).
    pub fn snapshot_with(&self, y: &[f64], field: &dyn Fn(usize, &Vec3) -> (f64, Vec3)) -> Snapshot {
        let (x, v, q, w) = (vec3(y, 0), vec3(y, 3), quat(y, 6), vec3(y, 10));
        let (big_q, omega) = (quat(y, 13), vec3(y, 17));
        let r_ts = q.to_rotation_matrix().into_inner();
        let omega_s = r_ts.transpose() * omega;
        let omega_dot = self.spin.omega_dot(&omega);
        let omega_dot_s = r_ts.transpose() * omega_dot;
        let kin = BodyKinematics { x, R_WB: r_ts, v, w: r_ts * w };

        // Normal forces, then the accelerations they and every non-contact term give.
        let normal = normal_phase_with(field, &self.contact, &kin, &self.vertices);
        let (g, u) = self.gravity_at(&x);
        // Position from the axis of rotation's point: the frame terms are taken about it.
        let xc = x - self.centre;
        // The Sun's forces (none without `[lander.sun]`), their power booked with the frame's.
        let a_sun = self.sun.map_or(Vec3::zeros(), |s| s.acceleration(big_q.to_rotation_matrix().matrix(), &xc));
        let a_free = g + a_sun + frame_acceleration(&omega, &omega_dot, &xc, &v);
        let inertia_w = r_ts * self.inertia * r_ts.transpose();
        let body =
            Mobility { mass: self.mass, inertia: inertia_w, inertia_inv: r_ts * self.inertia_inv * r_ts.transpose() };
        let alpha = |torque_w: &Vec3| {
            r_ts * angular_acceleration(
                &self.inertia,
                &self.inertia_inv,
                &w,
                &omega_s,
                &omega_dot_s,
                &(r_ts.transpose() * torque_w),
            )
        };
        // The actuator's torque and its rotor's gyroscopic coupling, in T axes.
        let Actuation { torque: tau, momentum: h } = self.actuation;
        let internal_s = tau - (w + omega_s).cross(&h);
        let internal = r_ts * internal_s;
        let a0 = a_free + normal.force / self.mass;
        let alpha0 = alpha(&(normal.torque + internal));
        let tangential = tangential_phase(&self.contact, &kin, &body, &normal, &a0, &alpha0);

        let force = normal.force + tangential.friction + tangential.rolling_force;
        let torque = normal.torque + normal.r_p.cross(&tangential.friction) + tangential.rolling_torque + internal;
        let mut rates = [0.0; STATE_LEN];
        put(&mut rates, 0, &v);
        put(&mut rates, 3, &(a_free + force / self.mass));
        put_quat(&mut rates, 6, &quat_derivative(q.quaternion(), &w));
        put(&mut rates, 10, &(r_ts.transpose() * alpha(&torque)));
        put_quat(&mut rates, 13, &quat_derivative(big_q.quaternion(), &omega));
        put(&mut rates, 17, &omega_dot);
        rates[WORK] = normal.damper_power;
        rates[WORK + 1] = tangential.friction_power;
        rates[WORK + 2] = tangential.rolling_power;
        rates[WORK + 3] = frame_power(
            self.mass,
            &self.inertia,
            &xc,
            &(v + omega.cross(&xc)),
            &omega_dot,
            &(w + omega_s),
            &omega_dot_s,
        ) + w.dot(&internal_s)
            + self.mass * a_sun.dot(&v);

        Snapshot {
            kin,
            normal,
            tangential,
            kinetic_linear: 0.5 * self.mass * v.norm_squared(),
            kinetic_angular: 0.5 * w.dot(&(self.inertia * w)),
            potential: self.mass * (u - 0.5 * omega.cross(&xc).norm_squared())
                - 0.5 * omega_s.dot(&(self.inertia * omega_s)),
            rates,
        }
    }

    /// Whether the spacecraft rests on its contacts statically: three or more vertices touch
    /// (`φ < 0`, `field` answering per vertex as in [`LanderSystem::snapshot_with`]) and the
    /// line of the effective gravity (gravity and centrifugal acceleration at the centre of
    /// mass) through the centre of mass passes strictly inside their polygon. On one or two
    /// vertices, or with the centre of mass over an edge of the polygon or outside it, a body
    /// at rest is balanced, not settled: only rolling resistance (a moment of at most
    /// `C_RR F_N`) holds it. `touching` is scratch (reserve the vertex count: no allocation).
    ///
    /// Inside, strictly: seen along the gravity line, every touching vertex `u_a` has another
    /// `u_b` less than half a turn ahead of it counter-clockwise (`(u_a × u_b)·ĝ > 0`); a gap
    /// of half a turn or more between neighbours would leave the line on or outside the edge
    /// between them.
    pub fn supported(&self, y: &[f64], field: &dyn Fn(usize, &Vec3) -> (f64, Vec3), touching: &mut Vec<Vec3>) -> bool {
        let (x, q, omega) = (vec3(y, 0), quat(y, 6), vec3(y, 17));
        let r_ts = q.to_rotation_matrix().into_inner();
        touching.clear();
        let mut normal = Vec3::zeros();
        for (j, r) in self.vertices.iter().enumerate() {
            let r = r_ts * r;
            let (phi, grad) = field(j, &(x + r));
            if phi < 0.0 {
                touching.push(r);
                normal += grad;
            }
        }
        if touching.len() < 3 {
            return false;
        }
        let (g, _) = self.gravity_at(&x);
        let down = g - omega.cross(&omega.cross(&(x - self.centre)));
        let down = if down.norm() > 0.0 { down } else { -normal };
        touching.iter().all(|a| touching.iter().any(|b| a.cross(b).dot(&down) > 0.0))
    }

    /// The lowest vertex's height above the surface, m (negative inside), queried exactly.
    pub fn clearance(&self, y: &[f64]) -> f64 {
        let (x, q) = (vec3(y, 0), quat(y, 6));
        let r_ts = q.to_rotation_matrix().into_inner();
        self.vertices.iter().map(|r| self.surface.distance(&(x + r_ts * r))).fold(f64::INFINITY, f64::min)
    }

    /// Whether a state is on the surface, where a landing site is meaningful: its lowest vertex
    /// within the spacecraft's own size (its farthest vertex from the centre of mass) of the
    /// surface. A run that ends in a bounce of a few centimetres has a site; one that ends in
    /// flight kilometres out has none.
    pub fn on_surface(&self, y: &[f64]) -> bool {
        let reach = self.vertices.iter().map(|v| v.norm()).fold(0.0, f64::max);
        self.clearance(y) <= reach
    }

    /// The smallest effective mass a single vertex meets along any direction,
    /// `1 / max λ(I₃/m − [r×] I⁻¹ [r×])`, kg.
    pub fn smallest_vertex_mass(&self) -> f64 {
        self.vertices
            .iter()
            .map(|r| {
                let rx = tumble_math::skew(r);
                let m = Mat3::identity() / self.mass - rx * self.inertia_inv * rx;
                1.0 / m.symmetric_eigenvalues().max()
            })
            .fold(self.mass, f64::min)
    }
}

impl OdeSystem for LanderSystem {
    fn dim(&self) -> usize {
        STATE_LEN
    }

    fn rhs(&mut self, _t: f64, y: &[f64], dydt: &mut [f64]) {
        dydt.copy_from_slice(&self.snapshot(y).rates);
    }

    fn project(&self, y: &mut [f64]) {
        for i in [6, 13] {
            let n = (y[i] * y[i] + y[i + 1] * y[i + 1] + y[i + 2] * y[i + 2] + y[i + 3] * y[i + 3]).sqrt();
            y[i..i + 4].iter_mut().for_each(|c| *c /= n);
        }
    }
}

/// Packs an initial state (work accumulators zero).
pub fn pack(x: Vec3, v: Vec3, q_ts: UnitQuat, w: Vec3, q_nt: UnitQuat, omega: Vec3) -> [f64; STATE_LEN] {
    let mut y = [0.0; STATE_LEN];
    put(&mut y, 0, &x);
    put(&mut y, 3, &v);
    put_quat(&mut y, 6, q_ts.quaternion());
    put(&mut y, 10, &w);
    put_quat(&mut y, 13, q_nt.quaternion());
    put(&mut y, 17, &omega);
    y
}
