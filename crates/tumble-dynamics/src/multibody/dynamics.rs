//! The dynamics of a [`Multibody`] (Featherstone 2008): recursive Newton–Euler inverse
//! dynamics, the composite-rigid-body mass matrix (in world axes) and the articulated-body
//! forward dynamics, each with an allocating form and an `_into`/`_in` form that works in a
//! [`Workspace`] and allocates nothing once it has served the model. Coordinates, rates and
//! forces are slices of the model's `nq` and `nv`: a shorter one panics (callers size them from
//! [`Multibody::nq`] and [`Multibody::nv`]; no scenario or binding passes its own).

use super::spatial::{RigidInertia, SMat, SVec, cross_force, cross_motion, join, parts};
use super::{Kinematics, Multibody, NO_COLUMN, Workspace};
use tumble_math::nalgebra::{DMatrix, DVector};
use tumble_math::{Mat3, Vec3};

/// A closure as a kernel of [`tumble_math::wide::dispatch`]: its body (with what it inlines)
/// compiled for AVX2 and for the baseline, the same bits either way.
struct Wide<F>(F);

impl<R, F: FnOnce() -> R> tumble_math::wide::Kernel for Wide<F> {
    type Output = R;
    #[inline(always)]
    fn run(self) -> R {
        (self.0)()
    }
}

/// The arguments of [`Multibody::mass_matrix_into`], a kernel [`tumble_math::wide::dispatch`]
/// builds twice (the same bits either way).
struct Crba<'a> {
    mb: &'a Multibody,
    q: &'a [f64],
    w: &'a mut Workspace,
    h: &'a mut DMatrix<f64>,
}

impl tumble_math::wide::Kernel for Crba<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        self.mb.crba(self.q, self.w, self.h)
    }
}

impl Multibody {
    /// Inverse dynamics (recursive Newton–Euler): the joint forces `τ` (nv) that give the
    /// accelerations `a` (nv) at `(q, v)` under gravity and the external wrenches `f_ext`
    /// (per link, link coordinates, about the link origin; empty for none).
    pub fn inverse_dynamics(&self, q: &[f64], v: &[f64], a: &[f64], f_ext: &[SVec]) -> DVector<f64> {
        let mut tau = DVector::zeros(self.nv());
        self.inverse_dynamics_into(q, v, a, f_ext, &mut Workspace::default(), tau.as_mut_slice());
        tau
    }

    /// [`Multibody::inverse_dynamics`] into `tau` (nv) with the working memory `w`: no
    /// allocation once `w` has served this model.
    pub fn inverse_dynamics_into(
        &self,
        q: &[f64],
        v: &[f64],
        a: &[f64],
        f_ext: &[SVec],
        w: &mut Workspace,
        tau: &mut [f64],
    ) {
        if let Some(m) = self.folded() {
            return m.with_wrenches(f_ext, w, |mb, f, w| mb.inverse_dynamics_into(q, v, a, f, w, tau));
        }
        tumble_math::wide::dispatch(Wide(|| {
            self.local_kinematics(q, v, &mut w.kin.x_up, &mut w.kin.v);
            self.wrenches(&w.kin, v, a, f_ext, &mut w.acc, &mut w.f);
            for (i, fi) in w.f.iter().enumerate() {
                let vi = self.v_at[i];
                for d in 0..self.s[i].ncols() {
                    tau[vi + d] = self.subspace_dot(i, d, fi);
                }
            }
        }))
    }

    /// The spatial force each joint transmits from the parent (or the world) to its link, in
    /// link coordinates about the link origin (`[moment; force]`, N·m and N), at accelerations
    /// `a`: the joint reaction wrench, whose components outside the motion subspace are the
    /// constraint loads (e.g. a solar-array drive's bending moments).
    pub fn joint_wrenches(&self, q: &[f64], v: &[f64], a: &[f64], f_ext: &[SVec]) -> Vec<SVec> {
        let mut w = Workspace::default();
        self.local_kinematics(q, v, &mut w.kin.x_up, &mut w.kin.v);
        self.wrenches(&w.kin, v, a, f_ext, &mut w.acc, &mut w.f);
        w.f
    }

    /// The model with its fixed joints below a parent folded in, where it has any (and its
    /// gravity has not been changed since: the folded model's is the full model's when built).
    #[inline]
    fn folded(&self) -> Option<&super::merged::Merged> {
        self.merged.as_deref().filter(|m| m.model.gravity == self.gravity)
    }

    /// The recursive Newton–Euler passes from the kinematics `k`: link accelerations into
    /// `acc`, joint wrenches into `f`.
    #[inline(always)]
    fn wrenches(&self, k: &Kinematics, v: &[f64], a: &[f64], f_ext: &[SVec], acc: &mut Vec<SVec>, f: &mut Vec<SVec>) {
        acc.clear();
        f.clear();
        let a0 = join(&Vec3::zeros(), &(-self.gravity));
        for (i, l) in self.links.iter().enumerate() {
            let ap = l.parent.map_or(a0, |p| acc[p]);
            let vj = self.joint_motion(i, v);
            let ai = k.x_up[i].motion(&ap) + self.joint_motion(i, a) + cross_motion(&k.v[i], &vj);
            let mut fi = self.ri[i].mul(&ai) + cross_force(&k.v[i], &self.ri[i].mul(&k.v[i]));
            if let Some(e) = f_ext.get(i) {
                fi -= e;
            }
            acc.push(ai);
            f.push(fi);
        }
        for i in (0..self.links.len()).rev() {
            if let Some(p) = self.links[i].parent {
                let fp = k.x_up[i].force_back(&f[i]);
                f[p] += fp;
            }
        }
    }

    /// The joint-space mass matrix (composite rigid body algorithm), symmetric positive
    /// definite.
    pub fn mass_matrix(&self, q: &[f64]) -> DMatrix<f64> {
        let mut h = DMatrix::zeros(self.nv(), self.nv());
        self.mass_matrix_into(q, &mut Workspace::default(), &mut h);
        h
    }

    /// [`Multibody::mass_matrix`] into `h` (resized to nv × nv if it is not) with the working
    /// memory `w`: no allocation once `w` and `h` have served this model.
    ///
    /// Computed in world axes (as Pinocchio's CRBA): each link's inertia is carried once to the
    /// world ([`super::spatial::RigidInertia::back`] through its pose), the composite inertias are then plain
    /// sums, each joint column `J = X_link→world S` is one rotation and cross product, and
    /// `H_ji = J_jᵀ I^c_i J_i` is a dot product per ancestor column, where link coordinates
    /// would carry every `F = I^c S` through each transform up the tree.
    pub fn mass_matrix_into(&self, q: &[f64], w: &mut Workspace, h: &mut DMatrix<f64>) {
        let mb = self.folded().map_or(self, |m| &m.model);
        tumble_math::wide::dispatch(Crba { mb, q, w, h })
    }

    /// [`Multibody::mass_matrix_into`] on this model as it is (no folding), the body of its
    /// kernel.
    #[inline(always)]
    fn crba(&self, q: &[f64], w: &mut Workspace, h: &mut DMatrix<f64>) {
        let (n, nv) = (self.links.len(), self.nv());
        if h.shape() != (nv, nv) {
            *h = DMatrix::zeros(nv, nv);
        }
        // A serial chain writes every entry below.
        if !self.serial {
            h.as_mut_slice().fill(0.0);
        }
        let Workspace { kin, ic, f: cols, .. } = w;
        // Sized once and written in place; a link no joint moves keeps a stale inertia and no
        // column, which nothing reads.
        kin.pose.resize(n, (Mat3::identity(), Vec3::zeros()));
        ic.resize(n, RigidInertia::default());
        cols.resize(nv, SVec::zeros());
        for k in 0..n {
            // Positions from each tree's root origin, not the world's: `H` does not depend on
            // the point the inertias and columns are taken about, and a base 7,000 km out (an
            // orbit frame) would otherwise cancel `m |p|²` against itself (6.8e-3 of `H` lost).
            let (rl, pl) = self.placed(k, q);
            let (r, p) = match self.links[k].parent {
                Some(i) => {
                    let (rp, pp) = &kin.pose[i];
                    (rp * rl, pp + rp * pl)
                }
                None => (rl, Vec3::zeros()),
            };
            kin.pose[k] = (r, p);
            if !self.mobile[k] {
                continue;
            }
            ic[k] = self.ri[k].to_world(&r, &p);
            // The joint's columns in world axes: [R ω; R v + p × R ω] (a revolute joint's
            // `v` is zero: one rotation).
            let nd = self.v_at[k + 1] - self.v_at[k];
            for d in 0..nd {
                let sd = if nd == 1 { self.s1[k] } else { SVec::ith(d, 1.0) };
                let (wd, vd) = parts(&sd);
                let rw = r * wd;
                let lin = if vd == Vec3::zeros() { p.cross(&rw) } else { r * vd + p.cross(&rw) };
                cols[self.v_at[k] + d] = join(&rw, &lin);
            }
        }
        for i in (0..n).rev() {
            if let Some(p) = self.links[i].parent.filter(|&p| self.mobile[p]) {
                let add = ic[i];
                ic[p] += add;
            }
        }
        // Column-major: `H[c, d]` at `c + d nv`; each column's ancestors through the expanded
        // parent array (Featherstone's λ over columns).
        let hs = h.as_mut_slice();
        for i in 0..n {
            for c in self.v_at[i]..self.v_at[i + 1] {
                let f = ic[i].mul(&cols[c]);
                hs[c + c * nv] = cols[c].dot(&f);
                let mut d = self.column_parent[c];
                while d != NO_COLUMN {
                    let hij = cols[d].dot(&f);
                    hs[c + d * nv] = hij;
                    hs[d + c * nv] = hij;
                    d = self.column_parent[d];
                }
            }
        }
    }

    /// Forward dynamics (articulated body algorithm): accelerations (nv) at `(q, v)` under the
    /// joint forces `tau`, gravity and the external wrenches `f_ext` (as in
    /// [`Multibody::inverse_dynamics`]).
    pub fn forward_dynamics(&self, q: &[f64], v: &[f64], tau: &[f64], f_ext: &[SVec]) -> DVector<f64> {
        let mut qdd = DVector::zeros(self.nv());
        self.forward_dynamics_into(q, v, tau, f_ext, &mut Workspace::default(), qdd.as_mut_slice());
        qdd
    }

    /// [`Multibody::forward_dynamics`] into `qdd` (nv) with the working memory `w`: no
    /// allocation once `w` has served this model.
    pub fn forward_dynamics_into(
        &self,
        q: &[f64],
        v: &[f64],
        tau: &[f64],
        f_ext: &[SVec],
        w: &mut Workspace,
        qdd: &mut [f64],
    ) {
        if let Some(m) = self.folded() {
            return m.with_wrenches(f_ext, w, |mb, f, w| mb.forward_dynamics_into(q, v, tau, f, w, qdd));
        }
        let mut kin = std::mem::take(&mut w.kin);
        tumble_math::wide::dispatch(Wide(|| {
            self.local_kinematics(q, v, &mut kin.x_up, &mut kin.v);
            self.aba(&kin, v, tau, f_ext, w, qdd);
        }));
        w.kin = kin;
    }

    /// [`Multibody::forward_dynamics`] from the kinematics `k` of `(q, v)` already at hand.
    pub fn forward_dynamics_with(&self, k: &Kinematics, v: &[f64], tau: &[f64], f_ext: &[SVec]) -> DVector<f64> {
        let mut qdd = DVector::zeros(self.nv());
        self.forward_dynamics_in(k, v, tau, f_ext, &mut Workspace::default(), qdd.as_mut_slice());
        qdd
    }

    /// [`Multibody::forward_dynamics_with`] into `qdd` (nv), with the working memory `w`: no
    /// allocation once `w` has served this model.
    pub fn forward_dynamics_in(
        &self,
        k: &Kinematics,
        v: &[f64],
        tau: &[f64],
        f_ext: &[SVec],
        w: &mut Workspace,
        qdd: &mut [f64],
    ) {
        if let Some(m) = self.folded() {
            let mut kin = std::mem::take(&mut w.merged.0);
            m.kinematics(self, k, &mut kin);
            m.with_wrenches(f_ext, w, |mb, f, w| mb.forward_dynamics_in(&kin, v, tau, f, w, qdd));
            w.merged.0 = kin;
            return;
        }
        tumble_math::wide::dispatch(Wide(|| self.aba(k, v, tau, f_ext, w, qdd)))
    }

    /// The articulated-body algorithm on this model as it is (no folding), the body of the
    /// forward dynamics' kernels.
    #[inline(always)]
    fn aba(&self, k: &Kinematics, v: &[f64], tau: &[f64], f_ext: &[SVec], w: &mut Workspace, qdd: &mut [f64]) {
        let n = self.links.len();
        let Workspace { ia, pa, c, multi, scalar, acc, .. } = w;
        ia.clear();
        ia.extend_from_slice(&self.i);
        pa.clear();
        c.clear();
        for i in 0..n {
            let vj = self.joint_motion(i, v);
            c.push(cross_motion(&k.v[i], &vj));
            let mut p = cross_force(&k.v[i], &self.ri[i].mul(&k.v[i]));
            if let Some(e) = f_ext.get(i) {
                p -= e;
            }
            pa.push(p);
        }
        // Multi-degree-of-freedom joints (ball, free) select the first `nv` coordinates
        // (`S = [I; 0]`), so `U = IA S`, `D = SᵀIA S` and `u` are kept zero-padded in 6×6
        // matrices and 6-vectors; one-degree-of-freedom joints keep U, D and u as a spatial
        // vector and two scalars.
        multi.clear();
        multi.resize(n, (SMat::zeros(), SMat::zeros(), SVec::zeros()));
        scalar.clear();
        scalar.resize(n, (SVec::zeros(), 0.0, 0.0));
        for i in (0..n).rev() {
            let (ia_a, pa_a) = self.articulate(i, &ia[i], &pa[i], &c[i], tau, &mut multi[i], &mut scalar[i]);
            if let Some(p) = self.links[i].parent {
                let x = &k.x_up[i];
                let add_i = x.congruence(&ia_a);
                let add_p = x.force_back(&pa_a);
                ia[p] += add_i;
                pa[p] += add_p;
            }
        }
        let a0 = join(&Vec3::zeros(), &(-self.gravity));
        acc.clear();
        qdd.fill(0.0);
        for i in 0..n {
            let ap = self.links[i].parent.map_or(a0, |p| acc[p]);
            let a_pre = k.x_up[i].motion(&ap) + c[i];
            if self.s[i].ncols() == 1 {
                let (u, d, ui) = scalar[i];
                let qi = (ui - u.dot(&a_pre)) / d;
                qdd[self.v_at[i]] = qi;
                acc.push(a_pre + self.s1[i] * qi);
            } else if self.s[i].ncols() == 0 {
                // `D⁻¹ (u − Uᵀ a)` of a fixed joint is an exact zero.
                acc.push(a_pre + SVec::zeros());
            } else {
                let (u, di, ui) = &multi[i];
                let qi = di * (ui - u.transpose() * a_pre);
                let nv = self.s[i].ncols();
                qdd[self.v_at[i]..self.v_at[i] + nv].copy_from_slice(&qi.as_slice()[..nv]);
                acc.push(a_pre + qi);
            }
        }
    }

    /// The articulated-body step of link `i` with articulated inertia `ia` and bias `pa`:
    /// its joint's `(U, D, u)` into `scalar` (one degree of freedom) or `multi`, and the
    /// inertia and bias it passes to its parent.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn articulate(
        &self,
        i: usize,
        ia: &SMat,
        pa: &SVec,
        c: &SVec,
        tau: &[f64],
        multi: &mut (SMat, SMat, SVec),
        scalar: &mut (SVec, f64, f64),
    ) -> (SMat, SVec) {
        let s = &self.s[i];
        if s.ncols() == 1 {
            let sc = self.s1[i];
            let u = ia * sc;
            let d = sc.dot(&u);
            let ui = tau[self.v_at[i]] - sc.dot(pa);
            *scalar = (u, d, ui);
            let ia_a = ia - u * u.transpose() / d;
            return (ia_a, pa + ia_a * c + u * (ui / d));
        }
        let nv = s.ncols();
        if nv == 0 {
            // A fixed joint (a bolted root): `U`, `D⁻¹` and `u` are zero, so the general form's
            // products are exact zeros and this is what it gives, bit for bit, for finite
            // values; kept zero in `multi`.
            *multi = (SMat::zeros(), SMat::zeros(), SVec::zeros());
            return (*ia, pa + ia * c + SVec::zeros());
        }
        let mut u = SMat::zeros();
        u.columns_mut(0, nv).copy_from(&ia.columns(0, nv));
        let mut di = SMat::zeros();
        match nv {
            3 => {
                let d = ia.fixed_view::<3, 3>(0, 0).into_owned();
                di.fixed_view_mut::<3, 3>(0, 0).copy_from(&d.try_inverse().unwrap_or_else(Mat3::zeros));
            }
            6 => di = ia.try_inverse().unwrap_or_else(SMat::zeros),
            _ => {}
        }
        let mut ui = SVec::zeros();
        for k in 0..nv {
            ui[k] = tau[self.v_at[i] + k] - pa[k];
        }
        let ia_a = ia - u * di * u.transpose();
        let pa_a = pa + ia_a * c + u * (di * ui);
        *multi = (u, di, ui);
        (ia_a, pa_a)
    }
}
