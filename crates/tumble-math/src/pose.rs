//! Rigid transforms.

use crate::{UnitQuat, Vec3};

/// Pose `X_AB` of frame B in frame A: `x_A = R_AB x_B + p_AB`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Position of B's origin in A, m.
    pub p: Vec3,
    /// Rotation taking B-coordinates into A-coordinates.
    pub q: UnitQuat,
}

impl Default for Pose {
    fn default() -> Self {
        Self::identity()
    }
}

impl Pose {
    /// The identity transform.
    pub fn identity() -> Self {
        Self { p: Vec3::zeros(), q: UnitQuat::identity() }
    }

    /// A pose from position and rotation.
    pub fn new(p: Vec3, q: UnitQuat) -> Self {
        Self { p, q }
    }

    /// Maps a point given in B to A.
    pub fn transform_point(&self, x_B: &Vec3) -> Vec3 {
        self.q * x_B + self.p
    }

    /// Maps a free vector (direction, force) given in B to A.
    pub fn transform_vector(&self, v_B: &Vec3) -> Vec3 {
        self.q * v_B
    }

    /// `X_BA`, the inverse transform.
    pub fn inverse(&self) -> Pose {
        let qi = self.q.inverse();
        Pose { p: -(qi * self.p), q: qi }
    }
}

impl std::ops::Mul for Pose {
    type Output = Pose;
    /// `X_AC = X_AB * X_BC`.
    fn mul(self, o: Pose) -> Pose {
        Pose { p: self.q * o.p + self.p, q: self.q * o.q }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn compose_and_inverse() {
        let a = Pose::new(Vec3::new(1.0, -2.0, 0.5), UnitQuat::from_scaled_axis(Vec3::new(0.3, 0.2, -0.9)));
        let b = Pose::new(Vec3::new(0.1, 0.4, 3.0), UnitQuat::from_scaled_axis(Vec3::new(-1.0, 0.5, 0.2)));
        let x = Vec3::new(0.7, 0.8, -0.2);
        assert_relative_eq!((a * b).transform_point(&x), a.transform_point(&b.transform_point(&x)), epsilon = 1e-14);
        assert_relative_eq!((a * a.inverse()).p, Vec3::zeros(), epsilon = 1e-14);
        assert_relative_eq!(a.inverse().transform_point(&a.transform_point(&x)), x, epsilon = 1e-14);
    }
}
