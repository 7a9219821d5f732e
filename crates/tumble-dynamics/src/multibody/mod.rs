//! Articulated trees of rigid bodies in minimal coordinates (Featherstone, *Rigid Body Dynamics
//! Algorithms*, 2008): forward kinematics, recursive Newton–Euler inverse dynamics, the
//! composite-rigid-body mass matrix, the articulated-body forward dynamics, energy and momentum.
//!
//! Frames: each link has a frame fixed to it; `parent_to_joint` places the joint frame in the
//! parent's frame (the world for a root), and the [`Joint`] moves the link frame relative to the
//! joint frame. Spatial vectors are in link coordinates, angular part first; the world is
//! inertial, with uniform gravity `g` (m/s²). Several roots make several trees in one model.

pub mod capture;
mod dynamics;
pub mod forces;
pub mod impact;
pub mod joint;
pub mod loops;
mod merged;
pub mod spatial;
pub mod system;
pub mod urdf;

pub use joint::Joint;

use spatial::{RigidInertia, SMat, SVec, Transform, parts};
use tumble_geometry::mesh::MAX_COORDINATE;
use tumble_math::nalgebra::{DMatrix, Matrix6xX};
use tumble_math::{Mat3, Vec3};

/// Heaviest link, kg (an asteroid's mass; more would overflow the dynamics' products).
pub const MAX_LINK_MASS: f64 = 1e20;

/// One link and the joint that carries it.
#[derive(Clone, Debug)]
pub struct Link {
    /// Name (URDF link name).
    pub name: String,
    /// Parent link index (`None`: attached to the world).
    pub parent: Option<usize>,
    /// The joint.
    pub joint: Joint,
    /// Rotation (joint axes into parent axes) and position (m) of the joint frame in the
    /// parent frame.
    pub parent_to_joint: (Mat3, Vec3),
    /// Mass, kg.
    pub mass: f64,
    /// Centre of mass in the link frame, m.
    pub com: Vec3,
    /// Rotational inertia about the centre of mass, link axes, kg·m².
    pub inertia: Mat3,
}

/// A multibody model. Links are ordered so that every parent precedes its children.
#[derive(Clone, Debug)]
pub struct Multibody {
    /// Links, parents first.
    pub links: Vec<Link>,
    /// Uniform gravity in the world frame, m/s².
    pub gravity: Vec3,
    q_at: Vec<usize>,
    v_at: Vec<usize>,
    s: Vec<Matrix6xX<f64>>,
    /// The motion subspace of one-degree-of-freedom joints as a spatial vector (zero for
    /// the others).
    s1: Vec<SVec>,
    /// Link inertias, link frames: their ten parameters and their 6×6 matrices.
    ri: Vec<RigidInertia>,
    /// Revolute joints' `R_T R_J(θ)`, precomputed (`None` for other joints).
    turns: Vec<Option<Turn>>,
    i: Vec<SMat>,
    /// Whether some joint between the world and the link (its own included) moves: the mass
    /// matrix leaves the others' inertias out (a fixed base, a bolted root).
    mobile: Vec<bool>,
    /// Each velocity coordinate's parent column: the one before it in its joint, else the
    /// last of the nearest ancestor joint that has any ([`NO_COLUMN`] at the root).
    column_parent: Vec<usize>,
    /// Every column's parent is the one before it (a serial chain): the mass matrix writes
    /// every entry and need not clear it first.
    serial: bool,
    /// The model with its fixed joints below a parent folded in, which the dynamics run on
    /// (`None`: there are none).
    merged: Option<Box<merged::Merged>>,
}

/// No parent column (see `Multibody::column_parent`).
const NO_COLUMN: usize = usize::MAX;

/// The tree over velocity coordinates the mass matrix walks: which links some joint moves,
/// each column's parent column, and whether that is a serial chain.
fn column_tree(links: &[Link], v_at: &[usize]) -> (Vec<bool>, Vec<usize>, bool) {
    let mut mobile: Vec<bool> = Vec::with_capacity(links.len());
    let mut last: Vec<usize> = Vec::with_capacity(links.len());
    let mut column_parent = Vec::with_capacity(v_at[links.len()]);
    for (k, l) in links.iter().enumerate() {
        mobile.push(l.parent.is_some_and(|p| mobile[p]) || l.joint.nv() > 0);
        let above = l.parent.map_or(NO_COLUMN, |p| last[p]);
        column_parent.extend((v_at[k]..v_at[k + 1]).map(|c| if c == v_at[k] { above } else { c - 1 }));
        last.push(if v_at[k + 1] > v_at[k] { v_at[k + 1] - 1 } else { above });
    }
    let serial = column_parent.iter().enumerate().all(|(c, &p)| p == c.wrapping_sub(1));
    (mobile, column_parent, serial)
}

/// A revolute joint's rotation composed with its placement, `R_T R_J(θ)`, as
/// `c A + s B + C` with `A = R_T (1 − u uᵀ)`, `B = R_T [u×]`, `C = R_T u uᵀ` (`u = a/|a|`,
/// `s, c` of the angle `θ |a|`): the call is left with a sine, a cosine and three scaled sums.
#[derive(Clone, Copy, Debug)]
struct Turn([Mat3; 3], f64);

impl Turn {
    fn new(a: &Vec3, rt: &Mat3) -> Option<Self> {
        let n = a.norm();
        (n > 0.0).then(|| {
            let u = a / n;
            let uu = u * u.transpose();
            Turn([rt - rt * uu, rt * tumble_math::skew(&u), rt * uu], n)
        })
    }

    /// `R_T R_J(θ)`.
    #[inline(always)]
    fn at(&self, theta: f64) -> Mat3 {
        let Turn([a, b, c], n) = self;
        let (s, cs) = (theta * n).sin_cos();
        a * cs + b * s + c
    }
}

/// Why a model cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MultibodyError {
    /// A link's parent does not precede it.
    #[error("link {0} (`{1}`): its parent must be an earlier link")]
    Order(usize, String),
    /// Mass properties that cannot be.
    #[error("link `{0}`: {1}")]
    Inertia(String, String),
}

/// Kinematics of every link at one state. `Default` is empty; [`Multibody::kinematics_into`]
/// refills one without allocating once it has held the model's links.
#[derive(Clone, Debug, Default)]
pub struct Kinematics {
    /// Motion transform from the parent's frame (the world for roots) to each link's.
    pub x_up: Vec<Transform>,
    /// Spatial velocity of each link, link coordinates.
    pub v: Vec<SVec>,
    /// Rotation (link axes into world axes) and position of each link frame in the world.
    pub pose: Vec<(Mat3, Vec3)>,
}

/// Working memory of the dynamics algorithms (the data half of MuJoCo's model/data split, or
/// Pinocchio's `Data`): the `_into` and `_in` methods size it on first use and reuse it, so a
/// loop that keeps one allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct Workspace {
    /// Kinematics of the last state the `_into` methods took.
    kin: Kinematics,
    /// Composite inertias (mass matrix).
    ic: Vec<RigidInertia>,
    /// Joint wrenches (inverse dynamics).
    f: Vec<SVec>,
    /// Articulated inertias.
    ia: Vec<SMat>,
    /// Articulated bias forces.
    pa: Vec<SVec>,
    /// Velocity-product accelerations.
    c: Vec<SVec>,
    /// `(U, D⁻¹, u)` of multi-degree-of-freedom joints, zero-padded.
    multi: Vec<(SMat, SMat, SVec)>,
    /// `(U, D, u)` of one-degree-of-freedom joints.
    scalar: Vec<(SVec, f64, f64)>,
    /// Link accelerations.
    acc: Vec<SVec>,
    /// The folded model's kinematics and external wrenches (see `merged`).
    merged: (Kinematics, Vec<SVec>),
}

impl Multibody {
    /// Checks and prepares a model.
    pub fn new(links: Vec<Link>, gravity: Vec3) -> Result<Self, MultibodyError> {
        let (mut q_at, mut v_at, mut nq, mut nv) = (Vec::new(), Vec::new(), 0, 0);
        for (k, l) in links.iter().enumerate() {
            if l.parent.is_some_and(|p| p >= k) {
                return Err(MultibodyError::Order(k, l.name.clone()));
            }
            let sym = (l.inertia - l.inertia.transpose()).norm() <= 1e-12 * l.inertia.norm();
            if !(l.mass.is_finite() && l.mass >= 0.0 && sym) || l.inertia.iter().any(|c| !c.is_finite()) {
                return Err(MultibodyError::Inertia(
                    l.name.clone(),
                    "mass must be >= 0 and the inertia symmetric".into(),
                ));
            }
            if l.mass > MAX_LINK_MASS {
                let what = format!("mass {} kg is more than {MAX_LINK_MASS:e} kg", l.mass);
                return Err(MultibodyError::Inertia(l.name.clone(), what));
            }
            let far = |v: &Vec3| !v.iter().all(|x| x.abs() <= MAX_COORDINATE);
            if far(&l.com) || far(&l.parent_to_joint.1) || l.parent_to_joint.0.iter().any(|c| !c.is_finite()) {
                return Err(MultibodyError::Inertia(
                    l.name.clone(),
                    format!("its centre of mass and joint origin must lie within {MAX_COORDINATE:e} m"),
                ));
            }
            q_at.push(nq);
            v_at.push(nv);
            nq += l.joint.nq();
            nv += l.joint.nv();
        }
        q_at.push(nq);
        v_at.push(nv);
        let s: Vec<Matrix6xX<f64>> = links.iter().map(|l| l.joint.subspace()).collect();
        let s1 = s.iter().map(|s| if s.ncols() == 1 { s.column(0).into_owned() } else { SVec::zeros() }).collect();
        // The articulated-body pass relies on multi-degree-of-freedom joints selecting the first
        // coordinates (`S = [I; 0]`), as the ball and free joints do.
        debug_assert!(s.iter().filter(|s| s.ncols() > 1).all(|s| *s == Matrix6xX::identity(s.ncols())));
        let ri: Vec<RigidInertia> = links.iter().map(|l| RigidInertia::new(l.mass, &l.com, &l.inertia)).collect();
        let i = ri.iter().map(|r| r.matrix()).collect();
        let turns = links
            .iter()
            .map(|l| match l.joint {
                Joint::Revolute(a) => Turn::new(&a, &l.parent_to_joint.0),
                _ => None,
            })
            .collect();
        let (mobile, column_parent, serial) = column_tree(&links, &v_at);
        let mut model =
            Self { links, gravity, q_at, v_at, s, s1, ri, turns, i, mobile, column_parent, serial, merged: None };
        model.merged = merged::Merged::new(&model).map(Box::new);
        Ok(model)
    }

    /// Position coordinates.
    pub fn nq(&self) -> usize {
        self.q_at[self.links.len()]
    }

    /// Velocity coordinates.
    pub fn nv(&self) -> usize {
        self.v_at[self.links.len()]
    }

    /// First velocity index of link `link`'s joint.
    pub fn v_index(&self, link: usize) -> usize {
        self.v_at[link]
    }

    /// Position index of velocity coordinate `k` of a one-degree-of-freedom joint (whose q
    /// and v coincide).
    pub fn q_index(&self, k: usize) -> usize {
        let link = self.v_at.partition_point(|&a| a <= k) - 1;
        self.q_at[link] + (k - self.v_at[link])
    }

    /// The link whose joint holds velocity coordinate `k`, `None` past the last one.
    pub fn link_of_velocity(&self, k: usize) -> Option<usize> {
        (k < self.nv()).then(|| self.v_at.partition_point(|&a| a <= k) - 1)
    }

    /// `q̇` from `v` for every joint.
    pub fn q_dot(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        for (k, l) in self.links.iter().enumerate() {
            let (a, b) = (self.q_at[k], self.q_at[k + 1]);
            l.joint.q_dot(&q[a..b], &v[self.v_at[k]..self.v_at[k + 1]], &mut out[a..b]);
        }
    }

    /// Renormalises every joint quaternion in `q`.
    pub fn normalize(&self, q: &mut [f64]) {
        for (k, l) in self.links.iter().enumerate() {
            l.joint.normalize(&mut q[self.q_at[k]..self.q_at[k + 1]]);
        }
    }

    /// The neutral configuration.
    pub fn neutral(&self) -> Vec<f64> {
        let mut q = vec![0.0; self.nq()];
        for (k, l) in self.links.iter().enumerate() {
            l.joint.neutral(&mut q[self.q_at[k]..self.q_at[k + 1]]);
        }
        q
    }

    fn qs<'a>(&self, k: usize, q: &'a [f64]) -> &'a [f64] {
        &q[self.q_at[k]..self.q_at[k + 1]]
    }

    /// `S v` of link `k`'s joint (multi-degree-of-freedom joints select the first
    /// coordinates, `S = [I; 0]`).
    #[inline(always)]
    fn joint_motion(&self, k: usize, v: &[f64]) -> SVec {
        match self.s[k].ncols() {
            0 => SVec::zeros(),
            1 => self.s1[k] * v[self.v_at[k]],
            n => {
                let mut m = SVec::zeros();
                m.as_mut_slice()[..n].copy_from_slice(&v[self.v_at[k]..self.v_at[k + 1]]);
                m
            }
        }
    }

    /// `S_k[:, d]·f`: column `d` of link `k`'s motion subspace against a force.
    #[inline(always)]
    fn subspace_dot(&self, k: usize, d: usize, f: &SVec) -> f64 {
        if self.s[k].ncols() == 1 { self.s1[k].dot(f) } else { f[d] }
    }

    /// Link `k`'s frame in its parent's at `q`: the rotation `R_T R_J` (link axes into parent
    /// axes) and the origin `p_T + R_T p_J`; a revolute joint's from its precomputed terms, a
    /// fixed joint's the placement itself, a prismatic one's the placement moved along its
    /// axis. Inlined: with the inertia's turn into world axes (also inlined) the iiwa's mass
    /// matrix went from 0.48 to 0.37 µs.
    #[inline(always)]
    fn placed(&self, k: usize, q: &[f64]) -> (Mat3, Vec3) {
        let (rt, pt) = &self.links[k].parent_to_joint;
        if let Some(turn) = &self.turns[k] {
            return (turn.at(q[self.q_at[k]]), *pt);
        }
        match self.links[k].joint {
            Joint::Fixed => return (*rt, *pt),
            // No turn: `R_T 1` is `R_T`.
            Joint::Prismatic(a) => return (*rt, pt + rt * (a * q[self.q_at[k]])),
            _ => {}
        }
        let (rj, pj) = self.links[k].joint.pose(self.qs(k, q));
        (rt * rj, pt + rt * pj)
    }

    /// The motion transform from link `k`'s parent to the link, `X_J X_T`, at `q`: kept as
    /// rotation and offset (`X(E₁, r₁) X(E₂, r₂) = X(E₁E₂, r₂ + E₂ᵀr₁)`), not a 6×6 matrix.
    #[inline(always)]
    fn joint_transform(&self, k: usize, q: &[f64]) -> Transform {
        let (r, p) = self.placed(k, q);
        Transform { rot: r.transpose(), pos: p }
    }

    /// The transforms and spatial velocities of every link (no world poses): what the
    /// dynamics need.
    #[inline(always)]
    fn local_kinematics(&self, q: &[f64], v: &[f64], x_up: &mut Vec<Transform>, vel: &mut Vec<SVec>) {
        x_up.clear();
        vel.clear();
        for (k, l) in self.links.iter().enumerate() {
            let x = self.joint_transform(k, q);
            let vp = l.parent.map_or(SVec::zeros(), |p| vel[p]);
            vel.push(x.motion(&vp) + self.joint_motion(k, v));
            x_up.push(x);
        }
    }

    /// Forward kinematics: transforms, velocities and world poses.
    pub fn kinematics(&self, q: &[f64], v: &[f64]) -> Kinematics {
        let n = self.links.len();
        let mut k = Kinematics { x_up: Vec::with_capacity(n), v: Vec::with_capacity(n), pose: Vec::with_capacity(n) };
        self.kinematics_into(q, v, &mut k);
        k
    }

    /// [`Multibody::kinematics`] into `out`, reusing its memory.
    pub fn kinematics_into(&self, q: &[f64], v: &[f64], out: &mut Kinematics) {
        let Kinematics { x_up, v: vel, pose } = out;
        x_up.clear();
        vel.clear();
        pose.clear();
        for (k, l) in self.links.iter().enumerate() {
            let (r, p) = self.placed(k, q);
            let x = Transform { rot: r.transpose(), pos: p };
            let vj = self.joint_motion(k, v);
            let (vp, (rp, pp)) = match l.parent {
                Some(p) => (vel[p], pose[p]),
                None => (SVec::zeros(), (Mat3::identity(), Vec3::zeros())),
            };
            vel.push(x.motion(&vp) + vj);
            pose.push((rp * r, pp + rp * p));
            x_up.push(x);
        }
    }

    /// Kinetic energy, J.
    pub fn kinetic_energy(&self, q: &[f64], v: &[f64]) -> f64 {
        self.kinetic_energy_with(&self.kinematics(q, v))
    }

    /// [`Multibody::kinetic_energy`] from the kinematics `k` of `(q, v)` already at hand: no
    /// allocation, J.
    pub fn kinetic_energy_with(&self, k: &Kinematics) -> f64 {
        (0..self.links.len()).map(|i| 0.5 * k.v[i].dot(&self.ri[i].mul(&k.v[i]))).sum()
    }

    /// Gravitational potential energy `−Σ m g·p_com`, J.
    pub fn potential_energy(&self, q: &[f64]) -> f64 {
        let k = self.kinematics(q, &vec![0.0; self.nv()]);
        self.links.iter().zip(&k.pose).map(|(l, (r, p))| -l.mass * self.gravity.dot(&(p + r * l.com))).sum()
    }

    /// The world-frame Jacobian (6 × nv) of the origin of link `link`: rows 0–2 map `v` to the
    /// linear velocity of the origin, rows 3–5 to the angular velocity (world axes; Pinocchio's
    /// `LOCAL_WORLD_ALIGNED`).
    pub fn jacobian(&self, q: &[f64], link: usize) -> DMatrix<f64> {
        self.point_jacobian(q, link, &Vec3::zeros())
    }

    /// The world-frame Jacobian (6 × nv) of the point `p` (link coordinates, m) of link `link`
    /// (rows: linear velocity of the point, then the link's angular velocity, world axes). The
    /// body Jacobian in link axes is this with each 3-row block rotated by the link's `Rᵀ`.
    pub fn point_jacobian(&self, q: &[f64], link: usize, p: &Vec3) -> DMatrix<f64> {
        let k = self.kinematics(q, &vec![0.0; self.nv()]);
        let target = k.pose[link].1 + k.pose[link].0 * p;
        let mut jac = DMatrix::zeros(6, self.nv());
        let mut j = Some(link);
        while let Some(i) = j {
            let (r, o) = k.pose[i];
            for c in 0..self.s[i].ncols() {
                let (ang, lin) = parts(&self.s[i].column(c).into_owned());
                let w = r * ang;
                let v = r * lin + w.cross(&(target - o));
                let col = self.v_at[i] + c;
                jac.fixed_view_mut::<3, 1>(0, col).copy_from(&v);
                jac.fixed_view_mut::<3, 1>(3, col).copy_from(&w);
            }
            j = self.links[i].parent;
        }
        jac
    }

    /// The Generalized Jacobian Matrix of a free-floating tree (Umetani & Yoshida 1989): with the
    /// first link a free root (base coordinates `v_b`, 6) and zero total momentum, the base
    /// reacts as `v_b = −M_b⁻¹ M_bm q̇_m`, so the velocity of link `link`'s origin (as in
    /// [`Multibody::jacobian`]) is `Ĵ q̇_m` with `Ĵ = J_m − J_b M_b⁻¹ M_bm` (6 × (nv − 6)).
    /// `None` unless the first link is on a free joint.
    pub fn generalized_jacobian(&self, q: &[f64], link: usize) -> Option<DMatrix<f64>> {
        if self.links.first().map(|l| l.joint) != Some(Joint::Free) || self.links[0].parent.is_some() {
            return None;
        }
        let (m, j) = (self.mass_matrix(q), self.jacobian(q, link));
        let n = self.nv() - 6;
        let mb = m.view((0, 0), (6, 6)).into_owned();
        let mbm = m.view((0, 6), (6, n)).into_owned();
        let react = mb.cholesky()?.solve(&mbm);
        Some(j.view((0, 6), (6, n)).into_owned() - j.view((0, 0), (6, 6)) * react)
    }

    /// Total mass (kg) and centre of mass in the world (m).
    pub fn center_of_mass(&self, q: &[f64]) -> (f64, Vec3) {
        let k = self.kinematics(q, &vec![0.0; self.nv()]);
        let m: f64 = self.links.iter().map(|l| l.mass).sum();
        let c = self.links.iter().zip(&k.pose).map(|(l, (r, p))| l.mass * (p + r * l.com)).sum::<Vec3>();
        (m, c / m)
    }

    /// Total linear momentum (kg·m/s) and angular momentum about the world origin (kg·m²/s),
    /// world axes.
    pub fn momentum(&self, q: &[f64], v: &[f64]) -> (Vec3, Vec3) {
        let k = self.kinematics(q, v);
        let (mut lin, mut ang) = (Vec3::zeros(), Vec3::zeros());
        for (i, l) in self.links.iter().enumerate() {
            let (r, p) = k.pose[i];
            let (w, vo) = parts(&k.v[i]);
            let (w_w, v_w) = (r * w, r * vo);
            let c_w = p + r * l.com;
            let v_c = v_w + w_w.cross(&(r * l.com));
            let pi = l.mass * v_c;
            lin += pi;
            ang += c_w.cross(&pi) + r * (l.inertia * w);
        }
        (lin, ang)
    }
}

#[cfg(test)]
mod tests;
