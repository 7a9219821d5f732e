//! The lander's equations as an ODE system: the pipeline kinematics → contact queries → normal
//! forces → accelerations without friction → friction and rolling resistance → accelerations.
//!
//! State (24): `x, v` (T frame, in the shape's coordinates, m, m/s), `q_TS` `[w, x, y, z]`, `ω` (S axes, rad/s), `Q_NT`
//! `[w, x, y, z]`, `Ω` (T axes, rad/s) — the document's 20 states — then the work done on the
//! spacecraft by the dampers, friction, rolling resistance and the frame's non-uniform rotation
//! (J), integrated alongside so that the energy budget closes to the integrator's accuracy.

mod observing;

pub(crate) use observing::Observing;
use observing::Recorded;

use super::ephemeris::SunForces;
use std::sync::Arc;
use tumble_contact::vertex_sdf::{
    BodyKinematics, ContactField, Mobility, NormalContact, TangentialContact, normal_forces_with,
    normal_phase_recording, normal_phase_with, tangential_phase,
};
use tumble_contact::{Patch, VertexContactParams};
use tumble_dynamics::multibody::spatial::rotate_symmetric;
use tumble_dynamics::rotating::{TargetSpin, frame_acceleration, frame_power};
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

impl Actuation {
    /// `τ − ω* × h` (body axes, N·m) at the absolute rate `ω*`; `None` with neither torque nor
    /// momentum.
    #[inline(always)]
    fn on(&self, ws: &Vec3) -> Option<Vec3> {
        (nonzero(&self.torque) || nonzero(&self.momentum)).then(|| self.torque - ws.cross(&self.momentum))
    }
}

/// The target's rotation as one state sees it (T axes unless marked S), zero for a target that
/// does not turn, and the Sun's acceleration (m/s²).
#[derive(Clone, Copy, Debug)]
struct Frame {
    turning: bool,
    omega: Vec3,
    omega_dot: Vec3,
    omega_s: Vec3,
    omega_dot_s: Vec3,
    /// `Q̇_NT`.
    q_dot: Quat,
    a_sun: Vec3,
}

impl Default for Frame {
    fn default() -> Self {
        let zero = Vec3::zeros();
        Frame {
            turning: false,
            omega: zero,
            omega_dot: zero,
            omega_s: zero,
            omega_dot_s: zero,
            q_dot: Quat::new(0.0, 0.0, 0.0, 0.0),
            a_sun: zero,
        }
    }
}

impl Frame {
    /// The frame's terms of the translational equation at `xc`, moving at `v`.
    #[inline(always)]
    fn acceleration(&self, xc: &Vec3, v: &Vec3) -> Vec3 {
        if self.turning { frame_acceleration(&self.omega, &self.omega_dot, xc, v) } else { Vec3::zeros() }
    }

    /// `ω* × Ω_S − Ω̇_S`, the rotational equation's frame terms (S axes) at `ω* = ω + Ω_S`
    /// (none for a target that does not turn).
    #[inline(always)]
    fn relative(&self, ws: &Vec3) -> Option<Vec3> {
        self.turning.then(|| ws.cross(&self.omega_s) - self.omega_dot_s)
    }

    /// Power of the frame's non-uniform rotation.
    #[inline(always)]
    fn power(&self, sys: &LanderSystem, xc: &Vec3, v: &Vec3, ws: &Vec3) -> f64 {
        if !self.turning {
            return 0.0;
        }
        let v_in = v + self.omega.cross(xc);
        frame_power(sys.mass, &sys.inertia, xc, &v_in, &self.omega_dot, ws, &self.omega_dot_s)
    }
}

/// What a look does with the vertices' clearance: records it, or skips by an earlier record.
enum Gaps<'a> {
    Record(&'a mut [f64]),
    Skip(Option<&'a Recorded>),
}

/// What the pipeline found at a state, for the snapshot's energies.
struct Look {
    kin: BodyKinematics,
    normal: NormalContact,
    tangential: TangentialContact,
    /// The target's rotation rate in S axes, rad/s.
    omega_s: Vec3,
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

thread_local! {
    /// The touching vertices' scratch of the looks that are not a run's steps
    /// ([`LanderSystem::snapshot_with`], [`LanderSystem::rates_with`]): reused, so that they
    /// allocate nothing once it has grown.
    static PATCH: std::cell::RefCell<Patch> = std::cell::RefCell::new(Patch::new());
}

/// Whether any component of `v` is non-zero (component by component: nalgebra's comparison of
/// whole vectors goes through iterators).
#[inline(always)]
fn nonzero(v: &Vec3) -> bool {
    v.x != 0.0 || v.y != 0.0 || v.z != 0.0
}

#[inline]
fn vec3(y: &[f64], i: usize) -> Vec3 {
    Vec3::new(y[i], y[i + 1], y[i + 2])
}

/// The attitude held at `y[i..i + 4]`, normalised: RK4's stages leave a quaternion off the unit
/// sphere by O(h²|q̇|²), and a rotation built from it would scale (or shear) the body by that.
#[inline]
fn quat(y: &[f64], i: usize) -> UnitQuat {
    let q = Quat::new(y[i], y[i + 1], y[i + 2], y[i + 3]);
    UnitQuat::new_unchecked(q * (1.0 / q.norm()))
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
    ///
    /// # Panics
    ///
    /// If `y` holds fewer than [`STATE_LEN`] components (as any look at a state does).
    pub fn snapshot(&self, y: &[f64]) -> Snapshot {
        self.snapshot_with(y, self.surface.as_ref())
    }

    /// [`LanderSystem::snapshot`] with the surface answered by `field` (see
    /// [`normal_phase_with`]). Panics as [`LanderSystem::snapshot`] does.
    pub fn snapshot_with<F: ContactField + ?Sized>(&self, y: &[f64], field: &F) -> Snapshot {
        PATCH.with_borrow_mut(|patch| self.snapshot_in(y, field, Gaps::Skip(None), patch))
    }

    /// The snapshot at `y`, `gaps` saying whether each vertex's `φ` is recorded (`patch`:
    /// scratch for the touching vertices).
    #[inline(always)]
    fn snapshot_in<F: ContactField + ?Sized>(&self, y: &[f64], field: &F, gaps: Gaps, patch: &mut Patch) -> Snapshot {
        let mut rates = [0.0; STATE_LEN];
        let look = self.pipeline::<F, true>(y, field, &mut rates, gaps, patch);
        let (x, w, omega) = (vec3(y, 0), vec3(y, 10), vec3(y, 17));
        let xc = x - self.centre;
        let u = match &self.expansion {
            Some(e) => e.eval(&x).1,
            None => self.gravity.potential(&x),
        };
        Snapshot {
            kin: look.kin,
            normal: look.normal,
            tangential: look.tangential,
            kinetic_linear: 0.5 * self.mass * look.kin.v.norm_squared(),
            kinetic_angular: 0.5 * w.dot(&(self.inertia * w)),
            potential: self.mass * (u - 0.5 * omega.cross(&xc).norm_squared())
                - 0.5 * look.omega_s.dot(&(self.inertia * look.omega_s)),
            rates,
        }
    }

    /// The derivative of the state `y` into `dydt`, the surface answered by `field`: the
    /// pipeline of [`LanderSystem::snapshot_with`] without the energies. Panics if `y` or `dydt`
    /// holds fewer than [`STATE_LEN`] components.
    pub fn rates_with<F: ContactField + ?Sized>(&self, y: &[f64], field: &F, dydt: &mut [f64]) {
        PATCH.with_borrow_mut(|patch| self.pipeline::<F, false>(y, field, dydt, Gaps::Skip(None), patch));
    }

    /// Kinematics, contact, accelerations: the rates of `y` into `rates` (`patch`: scratch for
    /// the touching vertices).
    #[inline(always)]
    fn pipeline<F: ContactField + ?Sized, const OBSERVE: bool>(
        &self,
        y: &[f64],
        field: &F,
        rates: &mut [f64],
        gaps: Gaps,
        patch: &mut Patch,
    ) -> Look {
        // Of known length from here on: no bounds checks on the components.
        let (Some(y), Some(rates)) = (y.first_chunk::<STATE_LEN>(), rates.first_chunk_mut::<STATE_LEN>()) else {
            panic!("a lander state and its rates have {STATE_LEN} components, not {} and {}", y.len(), rates.len())
        };
        let (x, v, q, w) = (vec3(y, 0), vec3(y, 3), quat(y, 6), vec3(y, 10));
        let r_ts = q.to_rotation_matrix().into_inner();
        let kin = BodyKinematics { x, R_WB: r_ts, v, w: r_ts * w };
        // Position from the axis of rotation's point: the frame terms are taken about it.
        let xc = x - self.centre;
        let frame = self.frame(y, &r_ts, &xc);

        // Normal forces, then the accelerations they and every non-contact term give.
        let normal = match gaps {
            Gaps::Record(gaps) => normal_phase_recording(field, &self.contact, &kin, &self.vertices, gaps, patch),
            Gaps::Skip(_) if OBSERVE => normal_phase_with(field, &self.contact, &kin, &self.vertices, patch),
            Gaps::Skip(skip) => {
                let skip = skip.map(|r| (r.gaps.as_slice(), r.moved2(&x, &r_ts)));
                normal_forces_with(field, &self.contact, &kin, &self.vertices, skip, patch)
            }
        };
        let g = match &self.expansion {
            Some(e) => e.eval(&x).0,
            None => self.gravity.acceleration(&x),
        };
        let a_free = g + frame.a_sun + frame.acceleration(&xc, &v);
        let body = Mobility { mass: self.mass, inertia_inv: rotate_symmetric(&r_ts, &self.inertia_inv) };
        // `ω̇` (S axes) under a torque `L` (S axes): `J⁻¹ (L − ω* × J ω*) + ω* × Ω_S − Ω̇_S` with
        // `ω* = ω + Ω_S`; the part without the torque once.
        let ws = w + frame.omega_s;
        let gyro = ws.cross(&(self.inertia * ws));
        let (free_s, j_free_s) = match frame.relative(&ws) {
            Some(extra) => (extra - self.inertia_inv * gyro, self.inertia * extra - gyro),
            None => (-(self.inertia_inv * gyro), -gyro),
        };
        // The actuator's torque and its rotor's gyroscopic coupling, S and T axes (none without
        // an actuator).
        let internal_s = self.actuation.on(&ws);
        let internal = internal_s.map_or(Vec3::zeros(), |l| r_ts * l);
        let a0 = a_free + normal.force * (1.0 / self.mass);
        // `α₀` and `J α₀` (T axes) under the normal forces and the actuator.
        let torque0 = normal.torque + internal;
        let alpha0 = r_ts * free_s + body.inertia_inv * torque0;
        let j_alpha0 = r_ts * j_free_s + torque0;
        let tangential = tangential_phase(&self.contact, &kin, &body, (&normal, patch), &a0, (&alpha0, &j_alpha0));

        let force = normal.force + tangential.friction + tangential.rolling_force;
        let torque = normal.torque + normal.r_p.cross(&tangential.friction) + tangential.rolling_torque + internal;
        put(rates, 0, &v);
        put(rates, 3, &(a_free + force * (1.0 / self.mass)));
        put_quat(rates, 6, &quat_derivative(q.quaternion(), &w));
        put(rates, 10, &(free_s + self.inertia_inv * r_ts.tr_mul(&torque)));
        put_quat(rates, 13, &frame.q_dot);
        put(rates, 17, &frame.omega_dot);
        rates[WORK] = normal.damper_power;
        rates[WORK + 1] = tangential.friction_power;
        rates[WORK + 2] = tangential.rolling_power;
        rates[WORK + 3] =
            frame.power(self, &xc, &v, &ws) + internal_s.map_or(0.0, |l| w.dot(&l)) + self.mass * frame.a_sun.dot(&v);
        Look { kin, normal, tangential, omega_s: frame.omega_s }
    }

    /// The target's rotation at `y` seen from the spacecraft (attitude `r_ts`, `xc` from the
    /// target's centre of mass), and the Sun's acceleration.
    #[inline(always)]
    fn frame(&self, y: &[f64], r_ts: &Mat3, xc: &Vec3) -> Frame {
        let omega = vec3(y, 17);
        let big_q = (nonzero(&omega) || self.sun.is_some()).then(|| quat(y, 13));
        let a_sun = match (&self.sun, &big_q) {
            (Some(s), Some(big_q)) => s.acceleration(big_q.to_rotation_matrix().matrix(), xc),
            _ => Vec3::zeros(),
        };
        match big_q {
            // A target that does not turn (`Ω = 0`, and so `Ω̇ = 0` for either law): no frame
            // terms.
            Some(big_q) if nonzero(&omega) => {
                let omega_dot = self.spin.omega_dot(&omega);
                Frame {
                    turning: true,
                    omega,
                    omega_dot,
                    omega_s: r_ts.tr_mul(&omega),
                    omega_dot_s: r_ts.tr_mul(&omega_dot),
                    q_dot: quat_derivative(big_q.quaternion(), &omega),
                    a_sun,
                }
            }
            _ => Frame { a_sun, ..Frame::default() },
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
    pub fn supported<F: ContactField + ?Sized>(&self, y: &[f64], field: &F, touching: &mut Vec<Vec3>) -> bool {
        let (x, q, omega) = (vec3(y, 0), quat(y, 6), vec3(y, 17));
        let r_ts = q.to_rotation_matrix().into_inner();
        touching.clear();
        let mut normal = Vec3::zeros();
        for (j, r) in self.vertices.iter().enumerate() {
            let r = r_ts * r;
            let mut at = [(0.0, Vec3::zeros())];
            field.vertices(&[j], &[x + r], &mut at);
            let (phi, grad) = at[0];
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
        self.rates_with(y, self.surface.as_ref(), dydt);
    }

    fn project(&self, y: &mut [f64]) {
        for i in [6, 13] {
            let n = (y[i] * y[i] + y[i + 1] * y[i + 1] + y[i + 2] * y[i + 2] + y[i + 3] * y[i + 3]).sqrt();
            let inv = 1.0 / n;
            y[i..i + 4].iter_mut().for_each(|c| *c *= inv);
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
