//! Skew matrices, twists and wrenches.

use crate::{Mat3, Vec3};

/// The skew-symmetric cross-product matrix: `skew(a) * b == a.cross(&b)`.
pub fn skew(a: &Vec3) -> Mat3 {
    Mat3::new(0.0, -a.z, a.y, a.z, 0.0, -a.x, -a.y, a.x, 0.0)
}

/// Velocity of a frame: linear velocity of its origin `v` (m/s) and angular velocity `w`
/// (rad/s), both expressed in the same frame.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Twist {
    /// Linear velocity of the reference point, m/s.
    pub v: Vec3,
    /// Angular velocity, rad/s.
    pub w: Vec3,
}

impl Twist {
    /// A twist from its linear and angular parts.
    pub fn new(v: Vec3, w: Vec3) -> Self {
        Self { v, w }
    }

    /// Velocity of a point at offset `r` (m) from the reference point: `v + w × r`.
    pub fn velocity_at(&self, r: &Vec3) -> Vec3 {
        self.v + self.w.cross(r)
    }
}

/// A force `f` (N) and a torque `t` (N·m) about a stated reference point, expressed in one frame.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Wrench {
    /// Force, N.
    pub f: Vec3,
    /// Torque about the reference point, N·m.
    pub t: Vec3,
}

impl Wrench {
    /// A wrench from its force and torque.
    pub fn new(f: Vec3, t: Vec3) -> Self {
        Self { f, t }
    }

    /// The wrench of force `f` applied at a point offset `r` (m) from the reference point:
    /// torque `r × f` about the reference point.
    pub fn from_force_at(f: Vec3, r: &Vec3) -> Self {
        Self { f, t: r.cross(&f) }
    }

    /// The same wrench referred to a new reference point at offset `d` (m) from the old one:
    /// `t' = t − d × f`.
    pub fn shifted(&self, d: &Vec3) -> Self {
        Self { f: self.f, t: self.t - d.cross(&self.f) }
    }
}

impl std::ops::Add for Wrench {
    type Output = Wrench;
    fn add(self, o: Wrench) -> Wrench {
        Wrench { f: self.f + o.f, t: self.t + o.t }
    }
}

impl std::ops::AddAssign for Wrench {
    fn add_assign(&mut self, o: Wrench) {
        self.f += o.f;
        self.t += o.t;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn skew_is_cross_product() {
        let a = Vec3::new(0.3, -1.2, 2.5);
        let b = Vec3::new(-0.7, 0.4, 1.1);
        assert_relative_eq!(skew(&a) * b, a.cross(&b), epsilon = 1e-15);
        assert_relative_eq!(skew(&a).transpose(), -skew(&a), epsilon = 0.0);
    }

    #[test]
    fn shifted_wrench_keeps_moment_of_force() {
        // A force applied at r has torque r×f about the origin; about the point d it is (r−d)×f.
        let f = Vec3::new(1.0, 2.0, -0.5);
        let r = Vec3::new(0.2, -0.1, 0.4);
        let d = Vec3::new(-1.0, 0.5, 0.3);
        let w = Wrench::from_force_at(f, &r).shifted(&d);
        assert_relative_eq!(w.t, (r - d).cross(&f), epsilon = 1e-15);
    }
}
