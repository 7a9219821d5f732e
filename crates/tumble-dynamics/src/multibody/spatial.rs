//! Spatial (6D) vectors, Plücker transforms and rigid-body inertias (Featherstone, *Rigid Body
//! Dynamics Algorithms*, 2008, ch. 2), angular part first: motion `[ω; v]`, force `[n; f]`.

use tumble_math::nalgebra::{Matrix6, Vector6};
use tumble_math::{Mat3, Vec3, skew};

/// A spatial motion or force vector, angular part first.
pub type SVec = Vector6<f64>;
/// A 6×6 spatial matrix.
pub type SMat = Matrix6<f64>;

/// The angular (first) and linear (second) parts.
#[inline(always)]
pub fn parts(s: &SVec) -> (Vec3, Vec3) {
    (Vec3::new(s[0], s[1], s[2]), Vec3::new(s[3], s[4], s[5]))
}

/// Joins angular and linear parts.
#[inline(always)]
pub fn join(a: &Vec3, l: &Vec3) -> SVec {
    SVec::new(a.x, a.y, a.z, l.x, l.y, l.z)
}

/// Motion cross product `m × n`.
#[inline(always)]
pub fn cross_motion(m: &SVec, n: &SVec) -> SVec {
    let ((w, v), (w2, v2)) = (parts(m), parts(n));
    join(&w.cross(&w2), &(w.cross(&v2) + v.cross(&w2)))
}

/// Force cross product `m ×* f`.
#[inline(always)]
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

/// A Plücker transform of motion vectors from frame A to frame B kept as its rotation `E`
/// (A-coordinates into B-coordinates) and offset `r` (B's origin in A-coordinates), the matrix
/// [`plucker`] builds: applied by blocks, `X m` costs two 3×3 products and a cross product
/// where the 6×6 product costs 36 multiply-adds, and `Xᵀ A X` about half the 6×6 products
/// (Featherstone 2008, §2.8; Pinocchio's `SE3` acts the same way).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// `E`, A-coordinates into B-coordinates.
    pub rot: Mat3,
    /// `r`, the origin of B in A-coordinates, m.
    pub pos: Vec3,
}

impl Transform {
    /// The 6×6 matrix `[E 0; −E [r×] E]`.
    pub fn matrix(&self) -> SMat {
        plucker(&self.rot, &self.pos)
    }

    /// `X m` of a motion vector `m` (A-coordinates): `[E ω; E (v − r × ω)]`.
    #[inline(always)]
    pub fn motion(&self, m: &SVec) -> SVec {
        let (w, v) = parts(m);
        join(&(self.rot * w), &(self.rot * (v - self.pos.cross(&w))))
    }

    /// `Xᵀ f` of a force vector `f` (B-coordinates) back in A-coordinates:
    /// `[Eᵀ n + r × Eᵀ f; Eᵀ f]`.
    #[inline(always)]
    pub fn force_back(&self, f: &SVec) -> SVec {
        let (n, f) = parts(f);
        let (n, f) = (self.rot.tr_mul(&n), self.rot.tr_mul(&f));
        join(&(n + self.pos.cross(&f)), &f)
    }

    /// `Xᵀ A X` of a symmetric 6×6 `A` (B-coordinates, e.g. an articulated inertia) in
    /// A-coordinates, by 3×3 blocks: with `A₁₁, A₁₂, A₂₂` rotated into A (`Eᵀ A E`) and
    /// `R = [r×]`, `[A₁₁ − A₁₂R + R A₁₂ᵀ − R A₂₂ R, A₁₂ + R A₂₂; ·, A₂₂]`.
    #[inline(always)]
    pub fn congruence(&self, a: &SMat) -> SMat {
        let block = |i: usize, j: usize| -> Mat3 { a.fixed_view::<3, 3>(i, j).into_owned() };
        let e = &self.rot;
        let rotate = |m: Mat3| e.tr_mul(&(m * e));
        let (a11, a12, a22) = (rotate(block(0, 0)), rotate(block(0, 3)), rotate(block(3, 3)));
        let r = skew(&self.pos);
        let a12r = a12 * r;
        let top = a12 + r * a22;
        let corner = a11 - a12r - a12r.transpose() - r * a22 * r;
        let mut out = SMat::zeros();
        out.fixed_view_mut::<3, 3>(0, 0).copy_from(&corner);
        out.fixed_view_mut::<3, 3>(0, 3).copy_from(&top);
        out.fixed_view_mut::<3, 3>(3, 0).copy_from(&top.transpose());
        out.fixed_view_mut::<3, 3>(3, 3).copy_from(&a22);
        out
    }
}

/// A rigid body's spatial inertia kept as its ten parameters: mass `m` (kg), first moment
/// `h = m c` (kg·m) and rotational inertia about the frame's origin `Ī = I_c − m [c×]²`
/// (kg·m²), the matrix `[Ī, [h×]; [h×]ᵀ, m 1]` that [`inertia`] builds. Sums of them (the
/// composite inertias of the mass matrix) stay rigid-body inertias; the default is no mass.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RigidInertia {
    /// Mass, kg.
    pub mass: f64,
    /// First moment `m c`, kg·m.
    pub h: Vec3,
    /// Rotational inertia about the origin, kg·m².
    pub ibar: Mat3,
}

impl RigidInertia {
    /// The inertia of mass `m` (kg) with centre of mass `c` (m) and rotational inertia `ic`
    /// about it (kg·m²).
    pub fn new(m: f64, c: &Vec3, ic: &Mat3) -> Self {
        let cx = skew(c);
        Self { mass: m, h: m * c, ibar: ic - m * cx * cx }
    }

    /// The 6×6 matrix.
    pub fn matrix(&self) -> SMat {
        let hx = skew(&self.h);
        let mut s = SMat::zeros();
        s.fixed_view_mut::<3, 3>(0, 0).copy_from(&self.ibar);
        s.fixed_view_mut::<3, 3>(0, 3).copy_from(&hx);
        s.fixed_view_mut::<3, 3>(3, 0).copy_from(&hx.transpose());
        s.fixed_view_mut::<3, 3>(3, 3).copy_from(&(Mat3::identity() * self.mass));
        s
    }

    /// `I m` of a motion vector: `[Ī ω + h × v; m v − h × ω]`.
    #[inline(always)]
    pub fn mul(&self, m: &SVec) -> SVec {
        let (w, v) = parts(m);
        join(&(self.ibar * w + self.h.cross(&v)), &(self.mass * v - self.h.cross(&w)))
    }

    /// `Xᵀ I X` in A-coordinates of this inertia in B-coordinates (`x` from A to B): with
    /// `h_A = Eᵀ h`, `m` unchanged, `h' = h_A + m r` and
    /// `Ī' = Eᵀ Ī E − [h_A×][r×] − [r×][h_A×] − m [r×]²`.
    ///
    /// With `[a×][b×] = b aᵀ − (a·b) 1` the cross terms are
    /// `(2 h_A·r + m r·r) 1 − r h_Aᵀ − h_A rᵀ − m r rᵀ`: outer products, no 3×3 products.
    #[inline(always)]
    pub fn back(&self, x: &Transform) -> Self {
        let (e, r, m) = (&x.rot, &x.pos, self.mass);
        let h_a = e.tr_mul(&self.h);
        let mut ibar = e.tr_mul(&(self.ibar * e));
        let g = h_a + 0.5 * m * r;
        let d = 2.0 * g.dot(r);
        for j in 0..3 {
            for i in 0..3 {
                ibar[(i, j)] -= r[i] * g[j] + g[i] * r[j];
            }
            ibar[(j, j)] += d;
        }
        Self { mass: m, h: h_a + m * r, ibar }
    }

    /// [`RigidInertia::back`] through the pose `(R, p)` of this inertia's frame in the world
    /// (`E = Rᵀ`, `r = p`): `Ī` turned by [`rotate_symmetric`] and only its upper triangle
    /// shifted, the mass matrix's per-link step.
    #[inline(always)]
    pub fn to_world(&self, rot: &Mat3, p: &Vec3) -> Self {
        let m = self.mass;
        let h_a = rot * self.h;
        let mut ibar = rotate_symmetric(rot, &self.ibar);
        let g = h_a + 0.5 * m * p;
        let d = 2.0 * g.dot(p);
        for j in 0..3 {
            for i in 0..j {
                let s = ibar[(i, j)] - (p[i] * g[j] + g[i] * p[j]);
                ibar[(i, j)] = s;
                ibar[(j, i)] = s;
            }
            ibar[(j, j)] += d - 2.0 * p[j] * g[j];
        }
        Self { mass: m, h: h_a + m * p, ibar }
    }
}

/// `R S Rᵀ` of a symmetric `S` in 33 multiplications where the two 3×3 products take 54:
/// with `λ = S₂₂` and `S − λ1 = L + Lᵀ` (`L` lower triangular, its diagonal half of
/// `S − λ1`'s and its last column zero), `R S Rᵀ = λ1 + M + Mᵀ` with `M = (R L) Rᵀ`, where
/// `R L` has two nonzero columns (the symmetric rotation of Pinocchio's `Symmetric3`, by
/// another split).
#[inline(always)]
pub fn rotate_symmetric(r: &Mat3, s: &Mat3) -> Mat3 {
    let lam = s[(2, 2)];
    let (l00, l10, l20) = (0.5 * (s[(0, 0)] - lam), s[(1, 0)], s[(2, 0)]);
    let (l11, l21) = (0.5 * (s[(1, 1)] - lam), s[(2, 1)]);
    let (c0, c1, c2) = (r.column(0), r.column(1), r.column(2));
    let a: Vec3 = c0 * l00 + c1 * l10 + c2 * l20;
    let b: Vec3 = c1 * l11 + c2 * l21;
    let mut out = Mat3::zeros();
    for j in 0..3 {
        for i in 0..j {
            let v = a[i] * r[(j, 0)] + b[i] * r[(j, 1)] + a[j] * r[(i, 0)] + b[j] * r[(i, 1)];
            out[(i, j)] = v;
            out[(j, i)] = v;
        }
        out[(j, j)] = 2.0 * (a[j] * r[(j, 0)] + b[j] * r[(j, 1)]) + lam;
    }
    out
}

impl std::ops::AddAssign for RigidInertia {
    #[inline(always)]
    fn add_assign(&mut self, o: Self) {
        self.mass += o.mass;
        self.h += o.h;
        self.ibar += o.ibar;
    }
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

    #[test]
    fn block_transforms_and_inertias_equal_their_matrices() {
        let q = UnitQuat::from_scaled_axis(Vec3::new(-0.7, 0.4, 1.3));
        let x = Transform { rot: q.to_rotation_matrix().into_inner(), pos: Vec3::new(0.3, -1.2, 0.8) };
        let xm = x.matrix();
        let m = SVec::new(0.2, -0.5, 0.9, 1.5, 0.3, -2.0);
        let f = SVec::new(-1.0, 0.4, 0.6, 3.0, -0.2, 0.7);
        assert!((x.motion(&m) - xm * m).norm() < 1e-14 * (xm * m).norm());
        assert!((x.force_back(&f) - xm.transpose() * f).norm() < 1e-14 * (xm.transpose() * f).norm());
        let (mass, c, ic) =
            (3.0, Vec3::new(0.1, -0.2, 0.3), Mat3::new(0.5, 0.01, 0.02, 0.01, 0.7, -0.03, 0.02, -0.03, 0.9));
        let ri = RigidInertia::new(mass, &c, &ic);
        assert_eq!(ri.matrix(), inertia(mass, &c, &ic));
        assert!((ri.mul(&m) - ri.matrix() * m).norm() < 1e-14 * (ri.matrix() * m).norm());
        let full = xm.transpose() * ri.matrix() * xm;
        assert!((ri.back(&x).matrix() - full).norm() < 1e-14 * full.norm());
        // The same through the world pose (E = Rᵀ), by the symmetric rotation.
        let world = ri.to_world(&x.rot.transpose(), &x.pos);
        assert!((world.matrix() - full).norm() < 1e-14 * full.norm());
        assert!((world.ibar - world.ibar.transpose()).norm() == 0.0);
        let s = ri.ibar;
        let rot = x.rot;
        assert!((rotate_symmetric(&rot, &s) - rot * s * rot.transpose()).norm() < 1e-15 * s.norm());
        // A general symmetric matrix (an articulated inertia).
        let a = full + SMat::from_fn(|i, j| ((i * 7 + j * 3) % 5) as f64 * 0.1 + ((j * 7 + i * 3) % 5) as f64 * 0.1);
        let want = xm.transpose() * a * xm;
        assert!((x.congruence(&a) - want).norm() < 1e-14 * want.norm());
    }
}
