//! Joint models: how a child frame moves relative to its joint frame, in minimal coordinates.
//!
//! Positions `q` and velocities `v` per joint:
//!
//! | joint | nq | nv | q | v |
//! |---|---|---|---|---|
//! | revolute (unit axis `a`) | 1 | 1 | angle, rad | rate, rad/s |
//! | prismatic (unit axis `a`) | 1 | 1 | displacement, m | rate, m/s |
//! | spherical | 4 | 3 | unit quaternion `[w, x, y, z]` of child in joint frame | ω, child axes |
//! | free | 7 | 6 | position of the child origin in the joint frame, m; quaternion | ω, v of the child origin, child axes |
//! | fixed | 0 | 0 | — | — |
//!
//! The motion subspace `S` (6 × nv, child axes) maps `v` to the child's spatial velocity
//! relative to the joint frame; it is constant for every joint here.

use tumble_math::nalgebra::{DMatrix, Matrix6xX};
use tumble_math::{Mat3, Quat, UnitQuat, Vec3, quat_derivative};

/// A joint type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Joint {
    /// Rotation about a unit axis (joint frame = child frame axes).
    Revolute(Vec3),
    /// Translation along a unit axis.
    Prismatic(Vec3),
    /// Ball joint.
    Spherical,
    /// Six degrees of freedom (a floating base).
    Free,
    /// Rigid attachment.
    Fixed,
}

impl Joint {
    /// Position coordinates.
    pub fn nq(&self) -> usize {
        match self {
            Joint::Revolute(_) | Joint::Prismatic(_) => 1,
            Joint::Spherical => 4,
            Joint::Free => 7,
            Joint::Fixed => 0,
        }
    }

    /// Velocity coordinates.
    pub fn nv(&self) -> usize {
        match self {
            Joint::Revolute(_) | Joint::Prismatic(_) => 1,
            Joint::Spherical => 3,
            Joint::Free => 6,
            Joint::Fixed => 0,
        }
    }

    /// The neutral configuration (zero angle, identity rotation).
    pub fn neutral(&self, q: &mut [f64]) {
        q.fill(0.0);
        match self {
            Joint::Spherical => q[0] = 1.0,
            Joint::Free => q[3] = 1.0,
            _ => {}
        }
    }

    /// Rotation (child axes into joint axes) and position of the child origin in the joint
    /// frame at `q`.
    pub fn pose(&self, q: &[f64]) -> (Mat3, Vec3) {
        match self {
            Joint::Revolute(a) => (rodrigues(a, q[0]), Vec3::zeros()),
            Joint::Prismatic(a) => (Mat3::identity(), a * q[0]),
            Joint::Spherical => (quat(&q[0..4]).to_rotation_matrix().into_inner(), Vec3::zeros()),
            Joint::Free => (quat(&q[3..7]).to_rotation_matrix().into_inner(), Vec3::new(q[0], q[1], q[2])),
            Joint::Fixed => (Mat3::identity(), Vec3::zeros()),
        }
    }

    /// The motion subspace (6 × nv, child axes).
    pub fn subspace(&self) -> Matrix6xX<f64> {
        let mut s = Matrix6xX::zeros(self.nv());
        match self {
            Joint::Revolute(a) => s.fixed_view_mut::<3, 1>(0, 0).copy_from(a),
            Joint::Prismatic(a) => s.fixed_view_mut::<3, 1>(3, 0).copy_from(a),
            Joint::Spherical => s.fixed_view_mut::<3, 3>(0, 0).copy_from(&Mat3::identity()),
            Joint::Free => s.copy_from(&DMatrix::identity(6, 6)),
            Joint::Fixed => {}
        }
        s
    }

    /// `q̇` from `v` (writes `nq` values).
    pub fn q_dot(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        match self {
            Joint::Revolute(_) | Joint::Prismatic(_) => out[0] = v[0],
            Joint::Spherical => put_quat(out, &quat_derivative(quat(q).quaternion(), &Vec3::new(v[0], v[1], v[2]))),
            Joint::Free => {
                let r = quat(&q[3..7]);
                let p_dot = r * Vec3::new(v[3], v[4], v[5]);
                out[0..3].copy_from_slice(p_dot.as_slice());
                put_quat(&mut out[3..7], &quat_derivative(r.quaternion(), &Vec3::new(v[0], v[1], v[2])));
            }
            Joint::Fixed => {}
        }
    }

    /// Renormalises the quaternion of `q`.
    pub fn normalize(&self, q: &mut [f64]) {
        let at = match self {
            Joint::Spherical => 0,
            Joint::Free => 3,
            _ => return,
        };
        let n = q[at..at + 4].iter().map(|c| c * c).sum::<f64>().sqrt();
        q[at..at + 4].iter_mut().for_each(|c| *c /= n);
    }
}

fn quat(q: &[f64]) -> UnitQuat {
    UnitQuat::new_normalize(Quat::new(q[0], q[1], q[2], q[3]))
}

fn put_quat(out: &mut [f64], q: &Quat) {
    out[0..4].copy_from_slice(&[q.w, q.i, q.j, q.k]);
}

/// The rotation by `θ |a|` about `a` (Rodrigues): `c 1 + (1 − c) u uᵀ + s [u×]`, `u = a/|a|`,
/// `(s, c)` of the angle; the identity for a zero axis.
fn rodrigues(a: &Vec3, theta: f64) -> Mat3 {
    let n = a.norm();
    if n == 0.0 {
        return Mat3::identity();
    }
    let u = a / n;
    let (s, c) = (theta * n).sin_cos();
    let k = 1.0 - c;
    let (x, y, z) = (u.x, u.y, u.z);
    Mat3::new(
        c + k * x * x,
        k * x * y - s * z,
        k * x * z + s * y,
        k * x * y + s * z,
        c + k * y * y,
        k * y * z - s * x,
        k * x * z - s * y,
        k * y * z + s * x,
        c + k * z * z,
    )
}
