//! Quaternion kinematics and scalar-first conversions.

use crate::{Quat, UnitQuat, Vec3};

/// Largest accepted deviation of a user-given quaternion's norm from 1.
pub const UNIT_NORM_TOLERANCE: f64 = 1e-6;

/// Why a quaternion given as `[w, x, y, z]` was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum QuatError {
    /// A component is NaN or infinite.
    NotFinite,
    /// The norm is not 1 within [`UNIT_NORM_TOLERANCE`].
    NotUnit(f64),
}

impl std::fmt::Display for QuatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QuatError::NotFinite => write!(f, "quaternion has a non-finite component"),
            QuatError::NotUnit(n) => write!(
                f,
                "quaternion [w, x, y, z] has norm {n}; a unit quaternion is required (norm within {UNIT_NORM_TOLERANCE:e} of 1)"
            ),
        }
    }
}

impl std::error::Error for QuatError {}

/// A unit quaternion from scalar-first components `[w, x, y, z]`.
///
/// The norm must be within [`UNIT_NORM_TOLERANCE`] of 1 (then the quaternion is renormalised);
/// anything else is refused rather than silently normalised, because a wrong norm usually means
/// a typo or a scalar-last ordering.
pub fn quat_from_wxyz(wxyz: [f64; 4]) -> Result<UnitQuat, QuatError> {
    if wxyz.iter().any(|c| !c.is_finite()) {
        return Err(QuatError::NotFinite);
    }
    let q = Quat::new(wxyz[0], wxyz[1], wxyz[2], wxyz[3]);
    let n = q.norm();
    if (n - 1.0).abs() > UNIT_NORM_TOLERANCE {
        return Err(QuatError::NotUnit(n));
    }
    Ok(UnitQuat::new_normalize(q))
}

/// Scalar-first components `[w, x, y, z]` of a unit quaternion.
pub fn quat_to_wxyz(q: &UnitQuat) -> [f64; 4] {
    [q.w, q.i, q.j, q.k]
}

/// Quaternion kinematics `q̇_WB = ½ q_WB ⊗ [0, w_WB_B]` (Hamilton product, body-frame rate).
///
/// The derivative is orthogonal to `q` (`q·q̇ = 0`), so the exact flow keeps `|q| = 1`;
/// integrators only need to project out the truncation error (see `tumble-dynamics`).
#[inline]
pub fn quat_derivative(q: &Quat, w_B: &Vec3) -> Quat {
    q * Quat::new(0.0, w_B.x, w_B.y, w_B.z) * 0.5
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn derivative_matches_finite_difference_of_rotation() {
        // Rotating at constant body rate w for dt: q(t+dt) = q ⊗ exp(w dt / 2).
        let q = UnitQuat::from_scaled_axis(Vec3::new(0.4, -0.3, 1.1));
        let w = Vec3::new(0.5, 1.5, -0.8);
        let dt = 1e-6;
        let q2 = q * UnitQuat::from_scaled_axis(w * dt);
        let fd = (q2.into_inner() - q.into_inner()) / dt;
        let qd = quat_derivative(q.as_ref(), &w);
        assert_relative_eq!(qd, fd, epsilon = 1e-6);
        assert!(q.as_ref().dot(&qd).abs() < 1e-15);
    }

    #[test]
    fn wxyz_roundtrip_and_refusals() {
        let q = quat_from_wxyz([0.5, 0.5, 0.5, 0.5]).expect("unit");
        assert_eq!(quat_to_wxyz(&q), [0.5, 0.5, 0.5, 0.5]);
        assert_eq!(quat_from_wxyz([0.0; 4]), Err(QuatError::NotUnit(0.0)));
        assert!(matches!(quat_from_wxyz([1.0, 0.1, 0.0, 0.0]), Err(QuatError::NotUnit(_))));
        assert_eq!(quat_from_wxyz([f64::NAN, 0.0, 0.0, 1.0]), Err(QuatError::NotFinite));
    }
}
