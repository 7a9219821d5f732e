//! A rigid body: its constant model and its integrated state.

use tumble_geometry::MassProperties;
use tumble_math::{Mat3, UnitQuat, Vec3, Wrench};

/// Number of state components per rigid body: `p_WB` (3), `v_WB` (3), `q_WB` (4, `[w,x,y,z]`),
/// `w_WB_B` (3).
pub const BODY_STATE_LEN: usize = 13;
/// Offsets of the parts inside a body's slice of the state vector.
pub(crate) const P: usize = 0;
pub(crate) const V: usize = 3;
pub(crate) const Q: usize = 6;
pub(crate) const W: usize = 10;

/// A constant load on a body, applied for the whole simulation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Load {
    /// Force fixed in the body frame (a thruster), N, applied at `point_B` (m, body frame).
    BodyForce {
        /// Force in body axes, N.
        force_B: Vec3,
        /// Application point in the body frame, m.
        point_B: Vec3,
    },
    /// Force fixed in the world frame, N, applied at the body-fixed point `point_B` (m).
    WorldForce {
        /// Force in world axes, N.
        force_W: Vec3,
        /// Application point in the body frame, m.
        point_B: Vec3,
    },
    /// Pure torque in body axes, N·m.
    BodyTorque {
        /// Torque in body axes, N·m.
        torque_B: Vec3,
    },
    /// Pure torque in world axes, N·m.
    WorldTorque {
        /// Torque in world axes, N·m.
        torque_W: Vec3,
    },
}

/// The constant description of a rigid body (the *model*).
#[derive(Clone, Debug)]
pub struct RigidBody {
    /// Name, unique in a model.
    pub name: String,
    /// Mass, kg.
    pub mass: f64,
    /// Inertia about the centre of mass in body axes, kg·m².
    pub inertia: Mat3,
    /// Inverse of `inertia`, 1/(kg·m²).
    pub inertia_inv: Mat3,
    /// Constant loads.
    pub loads: Vec<Load>,
}

/// Renormalises the quaternion of a body's 13-component state slice (left alone when zero or
/// not finite, so that a blown-up state stays visible).
pub fn normalize_quaternion(ys: &mut [f64]) {
    let q = &mut ys[Q..Q + 4];
    let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    if n > 0.0 && n.is_finite() {
        q.iter_mut().for_each(|c| *c /= n);
    }
}

impl RigidBody {
    /// Newton–Euler rates of the body's 13 states `ys` into `ds`: `ṗ = v`,
    /// `v̇ = accel_W + f_W / m`, `q̇ = ½ q ⊗ [0, ω]`, `I ω̇ = t_B − ω × I ω`, for a field acceleration
    /// `accel_W` (m/s²), a force `f_W` (N, world axes, through the centre of mass) and a torque
    /// `t_B` (N·m, body axes). The stored quaternion is used as it is (not renormalised): its rate
    /// is then exactly orthogonal to it and the flow keeps `|q|` constant.
    pub fn derivatives(&self, ys: &[f64], accel_W: &Vec3, f_W: &Vec3, t_B: &Vec3, ds: &mut [f64]) {
        let a = accel_W + f_W / self.mass;
        let w = Vec3::new(ys[W], ys[W + 1], ys[W + 2]);
        let wdot = self.inertia_inv * (t_B - w.cross(&(self.inertia * w)));
        let q = tumble_math::Quat::new(ys[Q], ys[Q + 1], ys[Q + 2], ys[Q + 3]);
        let qd = tumble_math::quat_derivative(&q, &w);
        ds[P..P + 3].copy_from_slice(&ys[V..V + 3]);
        ds[V..V + 3].copy_from_slice(a.as_slice());
        ds[Q..Q + 4].copy_from_slice(&[qd.w, qd.i, qd.j, qd.k]);
        ds[W..W + 3].copy_from_slice(wdot.as_slice());
    }

    /// A body from validated mass properties. The body frame's origin is the centre of mass, so
    /// `props.com` must be zero (shift a mesh before building a body from it).
    pub fn new(name: impl Into<String>, props: &MassProperties) -> Self {
        debug_assert!(props.com == Vec3::zeros(), "body frames are centred on the centre of mass");
        let inertia_inv = props.inertia.try_inverse().unwrap_or_else(Mat3::zeros);
        Self { name: name.into(), mass: props.mass, inertia: props.inertia, inertia_inv, loads: Vec::new() }
    }

    /// Net applied wrench: force in W (N) and torque about the centre of mass in B (N·m), and
    /// its power (W) for the given state.
    pub fn applied(&self, s: &BodyState) -> (Wrench, f64) {
        let (mut f_W, mut t_B) = (Vec3::zeros(), Vec3::zeros());
        let mut power = 0.0;
        for load in &self.loads {
            let (f_B, r_B, tau_B) = match *load {
                Load::BodyForce { force_B, point_B } => (force_B, point_B, Vec3::zeros()),
                Load::WorldForce { force_W, point_B } => (s.q_WB.inverse() * force_W, point_B, Vec3::zeros()),
                Load::BodyTorque { torque_B } => (Vec3::zeros(), Vec3::zeros(), torque_B),
                Load::WorldTorque { torque_W } => (Vec3::zeros(), Vec3::zeros(), s.q_WB.inverse() * torque_W),
            };
            let tau = tau_B + r_B.cross(&f_B);
            let f = s.q_WB * f_B;
            f_W += f;
            t_B += tau;
            // Power of a force at a body point is f·(v + ω×r); in body axes f_B·(R⁻¹v) + τ·ω.
            power += f.dot(&s.v_WB) + tau.dot(&s.w_WB_B);
        }
        (Wrench::new(f_W, t_B), power)
    }
}

/// The integrated state of one rigid body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    /// Position of the centre of mass in W, m.
    pub p_WB: Vec3,
    /// Velocity of the centre of mass in W, m/s.
    pub v_WB: Vec3,
    /// Attitude: rotates body coordinates into world coordinates.
    pub q_WB: UnitQuat,
    /// Angular velocity relative to W, in body axes, rad/s.
    pub w_WB_B: Vec3,
}

impl Default for BodyState {
    fn default() -> Self {
        Self { p_WB: Vec3::zeros(), v_WB: Vec3::zeros(), q_WB: UnitQuat::identity(), w_WB_B: Vec3::zeros() }
    }
}

impl BodyState {
    /// Reads a body's state from its 13-component slice (the quaternion is normalised).
    pub fn read(y: &[f64]) -> Self {
        let v3 = |o: usize| Vec3::new(y[o], y[o + 1], y[o + 2]);
        let q = tumble_math::Quat::new(y[Q], y[Q + 1], y[Q + 2], y[Q + 3]);
        Self { p_WB: v3(P), v_WB: v3(V), q_WB: UnitQuat::new_normalize(q), w_WB_B: v3(W) }
    }

    /// Writes this state into a 13-component slice.
    pub fn write(&self, y: &mut [f64]) {
        y[P..P + 3].copy_from_slice(self.p_WB.as_slice());
        y[V..V + 3].copy_from_slice(self.v_WB.as_slice());
        y[Q..Q + 4].copy_from_slice(&tumble_math::quat_to_wxyz(&self.q_WB));
        y[W..W + 3].copy_from_slice(self.w_WB_B.as_slice());
    }

    /// Kinetic energy `½ m |v|² + ½ ωᵀ I ω`, J.
    pub fn kinetic_energy(&self, body: &RigidBody) -> f64 {
        0.5 * body.mass * self.v_WB.norm_squared() + 0.5 * self.w_WB_B.dot(&(body.inertia * self.w_WB_B))
    }

    /// Angular momentum about the world origin, in W: `m p × v + R I ω`, kg·m²/s.
    pub fn angular_momentum_W(&self, body: &RigidBody) -> Vec3 {
        body.mass * self.p_WB.cross(&self.v_WB) + self.q_WB * (body.inertia * self.w_WB_B)
    }
}
