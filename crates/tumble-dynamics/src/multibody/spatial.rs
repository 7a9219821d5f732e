//! Spatial (6D) vectors, Plücker transforms and rigid-body inertias (Featherstone, *Rigid Body
//! Dynamics Algorithms*, 2008, ch. 2), angular part first: motion `[ω; v]`, force `[n; f]`.

use tumble_math::nalgebra::{Matrix6, Vector6};
use tumble_math::{Mat3, Vec3, skew};

/// A spatial motion or force vector, angular part first.
pub type SVec = Vector6<f64>;
/// A 6×6 spatial matrix.
pub type SMat = Matrix6<f64>;

/// The angular (first) and linear (second) parts.
pub fn parts(s: &SVec) -> (Vec3, Vec3) {
    (Vec3::new(s[0], s[1], s[2]), Vec3::new(s[3], s[4], s[5]))
}

/// Joins angular and linear parts.
pub fn join(a: &Vec3, l: &Vec3) -> SVec {
    SVec::new(a.x, a.y, a.z, l.x, l.y, l.z)
}

/// Motion cross product `m × n`.
pub fn cross_motion(m: &SVec, n: &SVec) -> SVec {
    let ((w, v), (w2, v2)) = (parts(m), parts(n));
    join(&w.cross(&w2), &(w.cross(&v2) + v.cross(&w2)))
}

/// Force cross product `m ×* f`.
pub fn cross_force(m: &SVec, f: &SVec) -> SVec {
    let ((w, v), (n, f)) = (parts(m), parts(f));
    join(&(w.cross(&n) + v.cross(&f)), &w.cross(&f))
}

/// The Plücker transform of motion vectors from frame A to frame B, with `rot` the rotation of
/// A-coordinates into B-coordinates and `pos` the origin of B in A-coordinates:
/// `X = [E 0; −E [r×] E]`. Forces transform by `X⁻ᵀ`; `Xᵀ` takes B-forces back to A.
pub fn plucker(rot: &Mat3, pos: &Vec3) -> SMat {
    let mut x = SMat::zeros();
    let erx = -rot * skew(pos);
    x.fixed_view_mut::<3, 3>(0, 0).copy_from(rot);
    x.fixed_view_mut::<3, 3>(3, 3).copy_from(rot);
    x.fixed_view_mut::<3, 3>(3, 0).copy_from(&erx);
    x
}

/// The spatial inertia of a body of mass `m` (kg) with centre of mass `c` (m) and rotational
/// inertia `ic` about the centre of mass (kg·m²), all in the body frame:
/// `[I_c − m [c×]² , m [c×]; −m [c×], m 1]`.
pub fn inertia(m: f64, c: &Vec3, ic: &Mat3) -> SMat {
    let cx = skew(c);
    let mut s = SMat::zeros();
    s.fixed_view_mut::<3, 3>(0, 0).copy_from(&(ic - m * cx * cx));
    s.fixed_view_mut::<3, 3>(0, 3).copy_from(&(m * cx));
    s.fixed_view_mut::<3, 3>(3, 0).copy_from(&(-m * cx));
    s.fixed_view_mut::<3, 3>(3, 3).copy_from(&(Mat3::identity() * m));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use tumble_math::UnitQuat;

    #[test]
    fn transforms_agree_with_rigid_kinematics() {
        // A frame B at r in A, rotated: the velocity of B's origin from A's twist.
        let q = UnitQuat::from_scaled_axis(Vec3::new(0.3, -0.2, 0.9));
        let (rot, pos) = (q.to_rotation_matrix().into_inner().transpose(), Vec3::new(0.4, 1.0, -0.3));
        let x = plucker(&rot, &pos);
        let (w, v) = (Vec3::new(0.1, 0.7, -0.2), Vec3::new(1.0, -2.0, 0.5));
        let (wb, vb) = parts(&(x * join(&w, &v)));
        assert!((wb - rot * w).norm() < 1e-15);
        assert!((vb - rot * (v + w.cross(&pos))).norm() < 1e-14);
        // Power is invariant: (X⁻ᵀ f)·(X m) = f·m.
        let f = SVec::new(0.3, 0.1, -0.4, 2.0, 0.5, 1.0);
        let m = join(&w, &v);
        let xf = x.try_inverse().expect("invertible").transpose() * f;
        assert!(((x * m).dot(&xf) - m.dot(&f)).abs() < 1e-13);
        // Kinetic energy of the spatial inertia equals ½ m v_c² + ½ ωᵀ I_c ω.
        let (mass, c, ic) = (2.0, Vec3::new(0.1, -0.2, 0.3), Mat3::from_diagonal(&Vec3::new(0.5, 0.7, 0.9)));
        let t = 0.5 * m.dot(&(inertia(mass, &c, &ic) * m));
        let vc = v + w.cross(&c);
        assert!((t - (0.5 * mass * vc.norm_squared() + 0.5 * w.dot(&(ic * w)))).abs() < 1e-14);
    }
}
