//! Frames and spatial algebra for Tumble. No physics lives here.
//!
//! # Frame and naming convention (used in every Tumble crate)
//!
//! Identifiers carry their frames, in the style of Drake and MuJoCo's documentation:
//!
//! | identifier | meaning |
//! |---|---|
//! | `p_WB` | position of the origin of frame B, measured from the origin of W, expressed in W |
//! | `v_WB` | velocity of B's origin relative to W, expressed in W |
//! | `R_WB`, `q_WB` | rotation (matrix or unit quaternion) taking B-coordinates into W-coordinates: `x_W = R_WB x_B` |
//! | `w_WB_B` | angular velocity of B relative to W, expressed in B (a trailing `_B` names the expressed-in frame when it is not the first frame) |
//! | `X_WB` | pose ([`Pose`]) of B in W: `x_W = X_WB * x_B` |
//! | `f_B_W`, `t_B_W` | force on body B and torque about B's origin, expressed in W |
//!
//! `W` is an inertial (world) frame. `B` is a body frame whose origin is the body's centre of
//! mass and whose axes are fixed in the body. Composition reads left to right:
//! `X_WC = X_WB * X_BC`.
//!
//! Quaternions are Hamilton quaternions, unit norm, and are written scalar first (`[w, x, y, z]`)
//! in every file format and public array ([`quat_from_wxyz`], [`quat_to_wxyz`]).
//!
//! Units are SI throughout (m, s, kg, rad, N, N·m).

pub mod input;
mod lcg;
pub mod numdiff;
pub mod output;
mod pose;
mod quat;
mod spatial;
pub mod special;
pub mod wide;

pub use lcg::Lcg;
pub use nalgebra;
pub use pose::Pose;
pub use quat::{QuatError, UNIT_NORM_TOLERANCE, quat_derivative, quat_from_wxyz, quat_to_wxyz};
pub use spatial::{Twist, Wrench, skew};

/// 3-vector of f64 (m, m/s, rad/s, N … as the name says).
pub type Vec3 = nalgebra::Vector3<f64>;
/// 3×3 matrix of f64.
pub type Mat3 = nalgebra::Matrix3<f64>;
/// Unit quaternion of f64 (Hamilton convention).
pub type UnitQuat = nalgebra::UnitQuaternion<f64>;
/// Quaternion of f64, not necessarily unit (used for derivatives).
pub type Quat = nalgebra::Quaternion<f64>;

/// The unit quaternion nearest the rotation matrix `m`, as `UnitQuat::from_matrix`, but with its
/// iteration bounded (100 steps; a rotation converges in a few): nalgebra's own iterates until
/// convergence, for ever on a matrix with a NaN or one far from a rotation.
pub fn quat_from_matrix(m: &Mat3) -> UnitQuat {
    UnitQuat::from_matrix_eps(m, f64::EPSILON, 100, UnitQuat::identity())
}

#[cfg(test)]
mod rotation_tests {
    use super::*;

    #[test]
    fn quat_from_matrix_matches_nalgebra_and_ends_on_any_matrix() {
        let q = UnitQuat::from_euler_angles(0.3, -1.1, 2.0);
        let m = q.to_rotation_matrix().into_inner();
        assert_eq!(quat_from_matrix(&m), UnitQuat::from_matrix(&m));
        // NaN entries: nalgebra's iteration never ends; this returns.
        let _ = quat_from_matrix(&Mat3::from_element(f64::NAN));
        let _ = quat_from_matrix(&(m * 1e300));
    }
}
