//! Closed kinematic chains: loop-closure (cut) joints on a tree.
//!
//! A closed chain (a four-bar linkage, a latch) is modelled as its spanning tree plus cut
//! joints: each [`LoopClosure`] keeps a point of one link on a point of another (a pin or ball
//! at the cut), three scalar constraints `φ = p_a(q) − p_b(q) = 0` in world axes. The tree's
//! accelerations under the constraint forces `Jᵀλ` (`J = ∂φ̇/∂v`, 3 rows a loop) are
//!
//! ```text
//! M v̇ = τ − h + Jᵀλ,   J v̇ = γ = −J̇v − 2ω J v − ω² φ
//! ⇒ v̇ = v̇₀ + M⁻¹Jᵀλ,   (J M⁻¹ Jᵀ + μ I) λ = γ − J v̇₀
//! ```
//!
//! with `v̇₀` the tree's own forward dynamics (the articulated-body algorithm) and Baumgarte's
//! stabilisation (1972) chosen critically damped at the rate `ω` (1/s): a drift `φ` decays as
//! `(1 + ω t) e^{−ωt}` instead of growing with the integrator's error. `μ = 1e-12 ×` the largest
//! diagonal of `J M⁻¹ Jᵀ` regularises redundant rows (the out-of-plane row of a planar
//! linkage, whose row of `J` is zero) and the linkage's singular (toggle) positions; elsewhere
//! it changes `λ` by about 1e-12 of itself. `J̇v` is the points' acceleration at `v̇ = 0`
//! without gravity, from the links' velocity-product accelerations. The constraint forces do
//! no work on a motion that keeps the loop closed (`J v = 0`); the stabilisation's do work
//! of the order of the drift, which the energy check sees.
//!
//! Assembly ([`Loops::assemble`]): a state whose loops are open is closed before a run by
//! Gauss–Newton steps of least norm on the undriven joints' `q` (and `v` projected onto
//! `J v = 0`), the driven ones (a linkage's inputs) kept as given, so a scenario gives the
//! passive joints' angles approximately and the tree is put together as a linkage would be.

use super::spatial::{cross_motion, join, parts};
use super::{Kinematics, Multibody, Workspace};
use tumble_math::Vec3;
use tumble_math::nalgebra::{Cholesky, DMatrix, DVector};

/// A cut joint: point `point_a` of link `a` kept on point `point_b` of link `b` (link
/// coordinates, m). `b = None`: a point fixed in the world (`point_b` in world coordinates).
#[derive(Clone, Debug, PartialEq)]
pub struct LoopClosure {
    /// First link.
    pub a: usize,
    /// Its point, link coordinates, m.
    pub point_a: Vec3,
    /// Second link (`None`: the world).
    pub b: Option<usize>,
    /// Its point, link (or world) coordinates, m.
    pub point_b: Vec3,
}

/// The loop closures of a tree, their stabilisation and their working memory.
#[derive(Clone, Debug, Default)]
pub struct Loops {
    /// The cut joints.
    pub closures: Vec<LoopClosure>,
    /// Baumgarte's rate `ω`, 1/s.
    pub rate: f64,
    /// `J` (3 rows a loop × nv).
    jac: DMatrix<f64>,
    /// The mass matrix, then its Cholesky factor.
    mass: DMatrix<f64>,
    /// `M⁻¹ Jᵀ` (nv × rows).
    minv_jt: DMatrix<f64>,
    /// `J M⁻¹ Jᵀ + μ I`.
    schur: DMatrix<f64>,
    /// The right side, then `λ`.
    rhs: DVector<f64>,
    /// Bias accelerations of the links.
    bias: Vec<super::spatial::SVec>,
    /// The mass matrix's working memory.
    work: Workspace,
    /// Each cut's force on link `a` from the last [`Loops::correct`] (world axes, N; link `b`
    /// takes its opposite).
    pub forces: Vec<Vec3>,
}

impl Loops {
    /// Loop closures stabilised at rate `rate` (1/s).
    pub fn new(closures: Vec<LoopClosure>, rate: f64) -> Self {
        Self { closures, rate, ..Default::default() }
    }

    /// Number of constraint rows.
    pub fn rows(&self) -> usize {
        3 * self.closures.len()
    }

    /// The largest gap `|φ|` (m) and its rate `|J v|` (m/s) over the loops, from the
    /// kinematics `k` of `(q, v)`.
    pub fn drift(&self, k: &Kinematics) -> (f64, f64) {
        let (mut gap, mut rate) = (0.0f64, 0.0f64);
        for c in &self.closures {
            let (pa, va) = point_motion(k, c.a, &c.point_a);
            let (pb, vb) = c.b.map_or((c.point_b, Vec3::zeros()), |b| point_motion(k, b, &c.point_b));
            gap = gap.max((pa - pb).norm());
            rate = rate.max((va - vb).norm());
        }
        (gap, rate)
    }

    /// Corrects the tree's accelerations `qdd` (from its forward dynamics at `(q, v)`, whose
    /// kinematics are `k`) by the loops' constraint forces. No allocation once it has served
    /// the model.
    pub fn correct(&mut self, mb: &Multibody, k: &Kinematics, q: &[f64], v: &[f64], qdd: &mut [f64]) {
        let (nv, rows) = (mb.nv(), self.rows());
        if rows == 0 {
            return;
        }
        self.jacobian(mb, k);
        bias_accelerations(mb, k, v, &mut self.bias);
        let (w, w2) = (self.rate, self.rate * self.rate);
        if self.rhs.len() != rows {
            self.rhs = DVector::zeros(rows);
        }
        for (l, c) in self.closures.iter().enumerate() {
            let (pa, va) = point_motion(k, c.a, &c.point_a);
            let aa = point_bias(k, &self.bias, c.a, &c.point_a);
            let (pb, vb, ab) = match c.b {
                Some(b) => {
                    let (p, vel) = point_motion(k, b, &c.point_b);
                    (p, vel, point_bias(k, &self.bias, b, &c.point_b))
                }
                None => (c.point_b, Vec3::zeros(), Vec3::zeros()),
            };
            let gamma = -(aa - ab) - 2.0 * w * (va - vb) - w2 * (pa - pb);
            for r in 0..3 {
                let jv: f64 = (0..nv).map(|j| self.jac[(3 * l + r, j)] * qdd[j]).sum();
                self.rhs[3 * l + r] = gamma[r] - jv;
            }
        }
        // M⁻¹ Jᵀ by the mass matrix's Cholesky factor, kept in the system's memory.
        let mut mass = std::mem::replace(&mut self.mass, DMatrix::zeros(0, 0));
        if mass.shape() != (nv, nv) {
            mass = DMatrix::zeros(nv, nv);
        }
        mb.mass_matrix_into(q, &mut self.work, &mut mass);
        let Some(chol) = Cholesky::new(mass) else { return };
        self.minv_jt.resize_mut(nv, rows, 0.0);
        self.minv_jt.tr_copy_from(&self.jac);
        chol.solve_mut(&mut self.minv_jt);
        self.mass = chol.unpack();
        self.schur.resize_mut(rows, rows, 0.0);
        self.jac.mul_to(&self.minv_jt, &mut self.schur);
        let mu = 1e-12 * (0..rows).map(|i| self.schur[(i, i)]).fold(0.0, f64::max);
        for i in 0..rows {
            self.schur[(i, i)] += mu.max(f64::MIN_POSITIVE);
        }
        let schur = std::mem::replace(&mut self.schur, DMatrix::zeros(0, 0));
        let Some(chol) = Cholesky::new(schur) else { return };
        chol.solve_mut(&mut self.rhs);
        self.schur = chol.unpack();
        for (j, a) in qdd.iter_mut().enumerate() {
            *a += (0..rows).map(|r| self.minv_jt[(j, r)] * self.rhs[r]).sum::<f64>();
        }
        self.forces.resize(self.closures.len(), Vec3::zeros());
        for (l, f) in self.forces.iter_mut().enumerate() {
            *f = Vec3::new(self.rhs[3 * l], self.rhs[3 * l + 1], self.rhs[3 * l + 2]);
        }
    }

    /// Adds the cuts' last forces to the external wrenches `ext` (per link, link coordinates,
    /// about the link origin, as the dynamics take them), from the kinematics `k`: so that the
    /// tree's joint reactions include what the loops carry.
    pub fn add_cut_wrenches(&self, k: &Kinematics, ext: &mut [super::spatial::SVec]) {
        for (c, f) in self.closures.iter().zip(&self.forces) {
            let mut add = |link: usize, point: &Vec3, f: Vec3| {
                let f_local = k.pose[link].0.transpose() * f;
                ext[link] += join(&point.cross(&f_local), &f_local);
            };
            add(c.a, &c.point_a, *f);
            if let Some(b) = c.b {
                add(b, &c.point_b, -*f);
            }
        }
    }

    /// `J` at the kinematics `k` into the loops' memory.
    fn jacobian(&mut self, mb: &Multibody, k: &Kinematics) {
        let (nv, rows) = (mb.nv(), self.rows());
        self.jac.resize_mut(rows, nv, 0.0);
        self.jac.fill(0.0);
        for (l, c) in self.closures.iter().enumerate() {
            add_point_rows(mb, k, c.a, &c.point_a, 1.0, &mut self.jac, 3 * l);
            if let Some(b) = c.b {
                add_point_rows(mb, k, b, &c.point_b, -1.0, &mut self.jac, 3 * l);
            }
        }
    }

    /// Closes the loops at `q` (least-norm Gauss–Newton steps, to 1e-12 m) and removes the
    /// rates that open them from `v` (least-norm projection onto `J v = 0`), moving only the
    /// velocity coordinates not `held` (a linkage's inputs keep their given positions and
    /// rates). Returns the gap left, m; an error when the loops cannot close near `q` that way.
    pub fn assemble(&mut self, mb: &Multibody, q: &mut [f64], v: &mut [f64], held: &[bool]) -> Result<f64, String> {
        let zero = vec![0.0; mb.nv()];
        let mut k = mb.kinematics(q, &zero);
        for _ in 0..100 {
            let phi = self.gaps(&k);
            if phi.norm() < 1e-12 {
                break;
            }
            self.jacobian(mb, &k);
            self.hold(held);
            let dv = least_norm(&self.jac, &phi);
            // A step in the velocity coordinates, integrated as a rate over unit time.
            let mut qd = vec![0.0; mb.nq()];
            mb.q_dot(q, dv.as_slice(), &mut qd);
            q.iter_mut().zip(&qd).for_each(|(x, d)| *x -= d);
            mb.normalize(q);
            k = mb.kinematics(q, &zero);
        }
        let gap = self.gaps(&k).norm();
        if gap.is_nan() || gap >= 1e-9 {
            return Err(format!(
                "the loops do not close near the given joint positions: {gap:.3e} m remains after 100 assembly steps moving the joints without a drive (check the cut points, the links' lengths and the joints' starting angles)"
            ));
        }
        self.jacobian(mb, &k);
        let jv = &self.jac * DVector::from_column_slice(v);
        self.hold(held);
        let dv = least_norm(&self.jac, &jv);
        v.iter_mut().zip(dv.iter()).for_each(|(x, d)| *x -= d);
        Ok(gap)
    }

    /// Zeroes the columns of `J` of the held coordinates (the least-norm step then leaves them).
    fn hold(&mut self, held: &[bool]) {
        for (j, _) in held.iter().enumerate().filter(|(_, h)| **h) {
            self.jac.column_mut(j).fill(0.0);
        }
    }

    /// `φ` for every loop at the kinematics `k`.
    fn gaps(&self, k: &Kinematics) -> DVector<f64> {
        let mut phi = DVector::zeros(self.rows());
        for (l, c) in self.closures.iter().enumerate() {
            let pa = k.pose[c.a].1 + k.pose[c.a].0 * c.point_a;
            let pb = c.b.map_or(c.point_b, |b| k.pose[b].1 + k.pose[b].0 * c.point_b);
            phi.fixed_rows_mut::<3>(3 * l).copy_from(&(pa - pb));
        }
        phi
    }
}

/// The least-norm `x` of `J x = r` (rank-revealing: singular values below 1e-10 of the
/// largest are dropped).
fn least_norm(j: &DMatrix<f64>, r: &DVector<f64>) -> DVector<f64> {
    let svd = j.clone().svd(true, true);
    let tol = 1e-10 * svd.singular_values.max();
    svd.solve(r, tol).unwrap_or_else(|_| DVector::zeros(j.ncols()))
}

/// World position and velocity of point `r` (link coordinates) of link `i`.
fn point_motion(k: &Kinematics, i: usize, r: &Vec3) -> (Vec3, Vec3) {
    let (rot, o) = k.pose[i];
    let (w, v) = parts(&k.v[i]);
    (o + rot * r, rot * (v + w.cross(r)))
}

/// World acceleration at `v̇ = 0` (no gravity) of point `r` of link `i`: from the link's
/// spatial bias acceleration `â` (link coordinates), `a = â_lin + â_ang × r + ω × (v + ω × r)`.
fn point_bias(k: &Kinematics, bias: &[super::spatial::SVec], i: usize, r: &Vec3) -> Vec3 {
    let (w, v) = parts(&k.v[i]);
    let (dw, dv) = parts(&bias[i]);
    k.pose[i].0 * (dv + dw.cross(r) + w.cross(&(v + w.cross(r))))
}

/// The links' spatial accelerations at `v̇ = 0` without gravity (the velocity products).
fn bias_accelerations(mb: &Multibody, k: &Kinematics, v: &[f64], out: &mut Vec<super::spatial::SVec>) {
    out.clear();
    for (i, l) in mb.links.iter().enumerate() {
        let ap = l.parent.map_or(join(&Vec3::zeros(), &Vec3::zeros()), |p| out[p]);
        let vj = mb.joint_motion(i, v);
        out.push(k.x_up[i].motion(&ap) + cross_motion(&k.v[i], &vj));
    }
}

/// Adds `sign ×` the rows of the world velocity of point `r` of link `link` to `jac` from
/// row `row`.
fn add_point_rows(
    mb: &Multibody,
    k: &Kinematics,
    link: usize,
    r: &Vec3,
    sign: f64,
    jac: &mut DMatrix<f64>,
    row: usize,
) {
    let target = k.pose[link].1 + k.pose[link].0 * r;
    let mut j = Some(link);
    while let Some(i) = j {
        let (rot, o) = k.pose[i];
        for c in 0..mb.s[i].ncols() {
            let col = mb.s[i].column(c);
            let (ang, lin) = (Vec3::new(col[0], col[1], col[2]), Vec3::new(col[3], col[4], col[5]));
            let w = rot * ang;
            let vel = rot * lin + w.cross(&(target - o));
            for d in 0..3 {
                jac[(row + d, mb.v_at[i] + c)] += sign * vel[d];
            }
        }
        j = mb.links[i].parent;
    }
}
