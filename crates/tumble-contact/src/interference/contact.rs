//! What a contact tester returns: contact points with normals and penetration measures, and the
//! kinematic kernel that turns the bodies' twists into the measure's rate.

use tumble_math::{Mat3, Vec3};

/// A rigid transform as a rotation matrix and a translation (`x_A = R x_B + p`): testers apply
/// many of them per call, where a matrix is cheaper than a quaternion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Rotation `R_AB`.
    pub R: Mat3,
    /// Translation `p_AB`, m.
    pub p: Vec3,
}

impl Frame {
    /// The identity.
    pub fn identity() -> Self {
        Self { R: Mat3::identity(), p: Vec3::zeros() }
    }

    /// From a pose.
    pub fn from_pose(X: &tumble_math::Pose) -> Self {
        Self { R: *X.q.to_rotation_matrix().matrix(), p: X.p }
    }

    /// Maps a point of B into A.
    #[inline]
    pub fn point(&self, x: &Vec3) -> Vec3 {
        self.R * x + self.p
    }

    /// Maps a free vector of B into A.
    #[inline]
    pub fn vector(&self, v: &Vec3) -> Vec3 {
        self.R * v
    }

    /// Maps a point of A into B (the inverse map).
    #[inline]
    pub fn inv_point(&self, x: &Vec3) -> Vec3 {
        self.R.tr_mul(&(x - self.p))
    }

    /// Maps a free vector of A into B.
    #[inline]
    pub fn inv_vector(&self, v: &Vec3) -> Vec3 {
        self.R.tr_mul(v)
    }

    /// `X_BA`.
    pub fn inverse(&self) -> Frame {
        Frame { R: self.R.transpose(), p: -self.R.tr_mul(&self.p) }
    }

    /// `X_AC = self * X_BC`.
    pub fn compose(&self, o: &Frame) -> Frame {
        Frame { R: self.R * o.R, p: self.R * o.p + self.p }
    }
}

/// One contact between primitive A and primitive B, in A's body frame.
///
/// The penetration measure `m` is a depth (m) or, for volumetric pairs, the interference volume
/// (m³). Its rate is linear in the relative twist:
/// `ṁ = (v_A − v_B)(o) · S + (ω_A − ω_B) · M`, velocities of the two bodies' material points at
/// the frame origin `o`. For a depth `δ` at point `x` along normal `n`, `S = n`, `M = x × n`;
/// for a volume, `S` is the area vector of A's boundary inside B and `M = ∫ x × n dA` over it
/// (Reynolds transport on rigid motion: the volume grows by the flux of A's boundary into B).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Where the forces act, m.
    pub point: Vec3,
    /// Unit normal pointing from A into B: B is pushed along `+normal`, A along `−normal`.
    pub normal: Vec3,
    /// Depth (m) or volume (m³), > 0.
    pub measure: f64,
    /// Whether `measure` is a volume.
    pub volumetric: bool,
    /// Rate kernel `S`.
    pub rate_s: Vec3,
    /// Rate kernel `M`.
    pub rate_m: Vec3,
    /// Index of this contact among the pair's (keys per-contact friction state).
    pub sub: u8,
}

impl Contact {
    /// A depth contact at `point` with `normal` (A → B, unit) and depth `depth`.
    pub fn depth(point: Vec3, normal: Vec3, depth: f64, sub: u8) -> Self {
        Contact { point, normal, measure: depth, volumetric: false, rate_s: normal, rate_m: point.cross(&normal), sub }
    }

    /// The same contact expressed in another frame (`X` maps this contact's frame into it).
    pub fn transformed(&self, X: &Frame) -> Contact {
        let rate_s = X.vector(&self.rate_s);
        Contact {
            point: X.point(&self.point),
            normal: X.vector(&self.normal),
            rate_s,
            rate_m: X.vector(&self.rate_m) + X.p.cross(&rate_s),
            ..*self
        }
    }

    /// The contact seen from the other side, roles of A and B swapped (`X` maps this contact's
    /// frame into the other body's frame): the normal flips, and so does the rate kernel.
    pub fn swapped(&self, X: &Frame) -> Contact {
        let c = self.transformed(X);
        Contact { normal: -c.normal, rate_s: -c.rate_s, rate_m: -c.rate_m, ..c }
    }
}

/// Up to [`Contacts::CAPACITY`] contacts of one primitive pair, without heap storage.
#[derive(Clone, Copy, Debug)]
pub struct Contacts {
    items: [Contact; Contacts::CAPACITY],
    len: u8,
}

impl Default for Contacts {
    fn default() -> Self {
        let zero = Contact::depth(Vec3::zeros(), Vec3::z(), 0.0, 0);
        Contacts { items: [zero; Contacts::CAPACITY], len: 0 }
    }
}

impl Contacts {
    /// Most contacts one pair produces.
    pub const CAPACITY: usize = 4;

    /// Empties the set.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Adds a contact (ignored beyond the capacity; testers stay within it).
    pub fn push(&mut self, c: Contact) {
        if (self.len as usize) < Self::CAPACITY {
            self.items[self.len as usize] = c;
            self.len += 1;
        }
    }

    /// The contacts.
    pub fn as_slice(&self) -> &[Contact] {
        &self.items[..self.len as usize]
    }

    /// Mutable access to the contacts.
    pub fn as_mut_slice(&mut self) -> &mut [Contact] {
        &mut self.items[..self.len as usize]
    }

    /// Number of contacts.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tumble_math::UnitQuat;

    #[test]
    fn the_rate_kernel_is_frame_independent() {
        // ṁ computed in A's frame equals ṁ computed after moving everything to another frame.
        let c = Contact::depth(Vec3::new(0.3, -0.2, 0.5), Vec3::new(0.0, 0.6, 0.8), 0.01, 0);
        let X = Frame::from_pose(&tumble_math::Pose::new(
            Vec3::new(1.0, 2.0, -3.0),
            UnitQuat::from_euler_angles(0.3, 0.2, 0.1),
        ));
        let (dv, dw) = (Vec3::new(0.1, -0.4, 0.2), Vec3::new(0.5, 0.3, -0.7));
        let rate = dv.dot(&c.rate_s) + dw.dot(&c.rate_m);
        let t = c.transformed(&X);
        // Relative velocity at the new origin: dv(o') = dv(o) + dw × (o' − o), o' − o = −p in A.
        let dv_new = X.vector(&(dv + dw.cross(&X.inv_point(&Vec3::zeros()))));
        let rate_new = dv_new.dot(&t.rate_s) + X.vector(&dw).dot(&t.rate_m);
        assert!((rate - rate_new).abs() < 1e-14);
    }
}
