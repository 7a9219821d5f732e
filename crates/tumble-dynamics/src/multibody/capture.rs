//! Bilateral capture maps: a chaser (free-floating base + arm, a [`Multibody`]) grasps a rigid
//! target at its grapple fixture; positions do not change over the impact, velocities jump.
//! The capture document (seed 003) gives three forms; all three are here, with the corrections
//! its algebra needs (derivations in `docs/capture.md`).
//!
//! Notation. `v_c` (nv) are the chaser's velocity coordinates, `v_t = [v_G; ω]` (world axes)
//! the target's centre-of-mass velocity and angular velocity, `M_c`, `M_t = diag(m 1, I_W)`
//! their mass matrices. `J_c` (6 × nv) maps `v_c` to the twist `[v_P; ω]` of the grasp point
//! `P` on the tool; `J_t = [1 −[r×]; 0 1]` (`r = P − G`) maps `v_t` to the twist of the
//! grapple fixture at the same point. `I_c = [impulse; angular impulse about P]` (world axes)
//! is what the target gives the chaser: `M_c Δv_c = J_cᵀ I_c`, `M_t Δv_t = −J_tᵀ I_c`.
//!
//! * **Constrained impulse** ([`CaptureMap::constrained`]): eq. (5) on the two bodies with
//!   `J = [J_c −J_t]` and no rebound.
//! * **Eq. (18)** ([`CaptureMap::eq18`]): `G v_c⁺ = H`, `H = M_c v_c⁻ + J_cᵀ J_t⁻ᵀ M_t v_t⁻`,
//!   with the target slaved to the tool. The document writes the slaving (its eq. 14) with the
//!   Generalized Jacobian `Ĵ_ct` of the combined system, a 6 × n matrix that it multiplies by
//!   the (6 + n)-vector `v_c⁺`, and which holds only at zero total momentum. Correct is
//!   `v_t⁺ = J_t⁻¹ J_c v_c⁺`, or in the GJM's own terms `v_t⁺ = Ĵ_ct θ̇⁺ + J_b,ct M_b,ct⁻¹ h`
//!   with `h = H_b` the combined system's momentum at the base (conserved through the map).
//!   [`Slaving::Gjm`] solves the document's eq. (17) with that corrected slaving;
//!   [`Slaving::GjmZeroMomentum`] is the document's literal reading (base columns zero), which
//!   is right only when the total momentum is zero — never for a tumbling target.
//! * **Eq. (23)** ([`CaptureMap::eq23`]): the difference of the two bodies' impulse equations,
//!   `K v_c⁺ = L`, `K = M_c − J_cᵀ J_t⁻ᵀ M_t J_t⁻¹ J_c`,
//!   `L = M_c v_c⁻ + 2 J_cᵀ I_c − J_cᵀ J_t⁻ᵀ M_t v_t⁻`. The factor 2 is right (each equation
//!   contributes one `J_cᵀ I_c`), but `K` is a difference of two inertias: indefinite, and
//!   singular wherever the target's inertia seen at the grasp matches the chaser's along some
//!   direction (1-D: equal masses, where the equation holds for every `v⁺` and only constrains
//!   the impulse). Its condition number is reported and a singular `K` refused.
//! * **Chaser-side impulse map** ([`CaptureMap::from_impulse`]): `v_c⁺ = v_c⁻ + M_c⁻¹ J_cᵀ I_c`,
//!   the chaser's own impulse equation (eq. 3) — always well posed, needs no target model.
//!
//! The two maps from a measured impulse are linear in `(v_c⁻, v_t⁻, I_c)`; [`LinearMap`] holds
//! them as three matrices, built once per capture configuration, so that an online check costs
//! three matrix–vector products.

use super::Multibody;
use tumble_math::nalgebra::{DMatrix, DVector};
use tumble_math::{Mat3, Vec3, skew};

/// A rigid target, grasped with its axes parallel to the tool's.
#[derive(Clone, Debug)]
pub struct RigidTarget {
    /// Mass, kg.
    pub mass: f64,
    /// Inertia about the centre of mass, target (= tool) axes, kg·m².
    pub inertia: Mat3,
    /// Grapple fixture position from the centre of mass, target axes, m.
    pub grapple: Vec3,
}

/// How eq. (17) slaves the target to the chaser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slaving {
    /// `v_t⁺ = Ĵ_ct θ̇⁺ + J_b M_b⁻¹ h`: the GJM with the momentum term (exact).
    Gjm,
    /// `v_t⁺ = Ĵ_ct θ̇⁺`: the document's eq. (14) as written (zero total momentum only).
    GjmZeroMomentum,
}

/// Post-capture velocities.
#[derive(Clone, Debug)]
pub struct PostCapture {
    /// Chaser velocity coordinates (nv).
    pub chaser: DVector<f64>,
    /// Target `[v_G; ω]`, world axes.
    pub target: DVector<f64>,
    /// Impulse on the chaser `[N·s; N·m·s about the grasp point]`, world axes.
    pub impulse: DVector<f64>,
    /// Reciprocal condition number of the matrix solved (1: perfect, 0: singular).
    pub rcond: f64,
}

/// The quantities of one capture configuration.
#[derive(Clone, Debug)]
pub struct CaptureMap {
    /// Chaser mass matrix.
    pub m_c: DMatrix<f64>,
    /// Chaser grasp-point Jacobian (6 × nv).
    pub j_c: DMatrix<f64>,
    /// Target mass matrix `diag(m 1, I_W)` (6 × 6).
    pub m_t: DMatrix<f64>,
    /// Target grapple Jacobian `[1 −[r×]; 0 1]` (6 × 6).
    pub j_t: DMatrix<f64>,
    /// Target centre of mass (world, m) and attitude (target axes into world).
    pub target_pose: (Vec3, Mat3),
}

/// A map from a measured impulse as a linear operator:
/// `v_c⁺ = P_c v_c⁻ + P_t v_t⁻ + P_i I_c`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearMap {
    /// `P_c` (nv × nv).
    pub chaser: DMatrix<f64>,
    /// `P_t` (nv × 6).
    pub target: DMatrix<f64>,
    /// `P_i` (nv × 6).
    pub impulse: DMatrix<f64>,
}

impl LinearMap {
    /// `[P_c, P_t, P_i]`, as `tumble_control::capture_check::post_capture` applies them.
    pub fn matrices(&self) -> [&DMatrix<f64>; 3] {
        [&self.chaser, &self.target, &self.impulse]
    }
}

fn rcond_of(m: &DMatrix<f64>) -> f64 {
    let s = m.clone().svd(false, false).singular_values;
    let (lo, hi) = (s.min(), s.max());
    if hi > 0.0 { lo / hi } else { 0.0 }
}

/// `m`'s reciprocal condition number, or an error naming `what` where it is singular.
fn conditioned(m: &DMatrix<f64>, what: &str) -> Result<f64, String> {
    let rcond = rcond_of(m);
    if rcond < 1e-13 {
        return Err(format!("{what} is singular (reciprocal condition number {rcond:.1e})"));
    }
    Ok(rcond)
}

fn solve(m: DMatrix<f64>, rhs: &DVector<f64>, what: &str) -> Result<(DVector<f64>, f64), String> {
    let rcond = conditioned(&m, what)?;
    let x = m.lu().solve(rhs).ok_or_else(|| format!("{what} is singular"))?;
    Ok((x, rcond))
}

/// How eq. (23)'s matrix is named in errors.
const K_NAME: &str = "K = M_c − J_cᵀJ_t⁻ᵀM_t J_t⁻¹J_c";

impl CaptureMap {
    /// The map for the chaser at configuration `q` grasping with link `tool` at the point
    /// `grasp` (tool coordinates). The chaser's first link must be a free root.
    pub fn new(chaser: &Multibody, q: &[f64], tool: usize, grasp: &Vec3, target: &RigidTarget) -> Result<Self, String> {
        if chaser.generalized_jacobian(q, tool).is_none() {
            return Err("the chaser's first link must be a free-floating base".into());
        }
        if !(target.mass > 0.0 && target.mass.is_finite()) || target.inertia.cholesky().is_none() {
            return Err("the target needs a positive mass and a positive-definite inertia".into());
        }
        let k = chaser.kinematics(q, &vec![0.0; chaser.nv()]);
        let (rot, origin) = k.pose[tool];
        let p = origin + rot * grasp;
        let r = rot * target.grapple;
        let com = p - r;
        let mut m_t = DMatrix::zeros(6, 6);
        m_t.view_mut((0, 0), (3, 3)).copy_from(&(Mat3::identity() * target.mass));
        m_t.view_mut((3, 3), (3, 3)).copy_from(&(rot * target.inertia * rot.transpose()));
        let mut j_t = DMatrix::identity(6, 6);
        j_t.view_mut((0, 3), (3, 3)).copy_from(&(-skew(&r)));
        Ok(Self {
            m_c: chaser.mass_matrix(q),
            j_c: chaser.point_jacobian(q, tool, grasp),
            m_t,
            j_t,
            target_pose: (com, rot),
        })
    }

    fn j_t_inv(&self) -> DMatrix<f64> {
        let mut inv = self.j_t.clone();
        inv.view_mut((0, 3), (3, 3)).neg_mut();
        inv
    }

    /// `J_cᵀ J_t⁻ᵀ M_t` ((nv) × 6): the target's momentum in chaser coordinates.
    pub fn coupling(&self) -> DMatrix<f64> {
        self.j_c.transpose() * self.j_t_inv().transpose() * &self.m_t
    }

    /// `J_t⁻¹ J_c` (6 × nv): the target's velocity when slaved to the tool.
    pub fn slaved_jacobian(&self) -> DMatrix<f64> {
        self.j_t_inv() * &self.j_c
    }

    /// The target slaved to the tool: `v_t = J_t⁻¹ J_c v_c`.
    pub fn slaved_target(&self, v_c: &DVector<f64>) -> DVector<f64> {
        self.j_t_inv() * (&self.j_c * v_c)
    }

    fn check(&self, v_c: &DVector<f64>, v_t: &DVector<f64>) -> Result<(), String> {
        if v_c.len() != self.m_c.nrows() || v_t.len() != 6 {
            return Err(format!(
                "velocities: chaser needs {} values, target 6; got {} and {}",
                self.m_c.nrows(),
                v_c.len(),
                v_t.len()
            ));
        }
        Ok(())
    }

    fn impulse_on_chaser(&self, v_t_minus: &DVector<f64>, v_t_plus: &DVector<f64>) -> DVector<f64> {
        // M_t Δv_t = −J_tᵀ I_c.
        -(self.j_t_inv().transpose() * (&self.m_t * (v_t_plus - v_t_minus)))
    }

    /// (a) The general constrained impulse on the two bodies (eq. 5, no rebound).
    pub fn constrained(&self, v_c: &DVector<f64>, v_t: &DVector<f64>) -> Result<PostCapture, String> {
        self.check(v_c, v_t)?;
        let n = v_c.len();
        let mut m = DMatrix::zeros(n + 6, n + 6);
        m.view_mut((0, 0), (n, n)).copy_from(&self.m_c);
        m.view_mut((n, n), (6, 6)).copy_from(&self.m_t);
        let mut j = DMatrix::zeros(6, n + 6);
        j.view_mut((0, 0), (6, n)).copy_from(&self.j_c);
        j.view_mut((0, n), (6, 6)).copy_from(&(-&self.j_t));
        let v = DVector::from_iterator(n + 6, v_c.iter().chain(v_t.iter()).copied());
        let map = super::impact::impact_map(&m, &j, &v, 0.0)?;
        if map.degenerate {
            return Err("the grasp constraint is rank-deficient".into());
        }
        Ok(PostCapture {
            chaser: map.v_plus.rows(0, n).into_owned(),
            target: map.v_plus.rows(n, 6).into_owned(),
            impulse: map.impulse,
            rcond: map.rcond,
        })
    }

    /// (b) The document's eq. (18), `v_c⁺ = G⁻¹ H`, with the target slaved as `slaving` says.
    pub fn eq18(&self, v_c: &DVector<f64>, v_t: &DVector<f64>, slaving: Slaving) -> Result<PostCapture, String> {
        self.check(v_c, v_t)?;
        let n = v_c.len();
        let c = self.coupling();
        let h_vec = &self.m_c * v_c + &c * v_t;
        // The combined (post-capture) system in chaser coordinates: mass matrix and the
        // target's Jacobian J_ct = J_t⁻¹ J_c = [J_b J_m].
        let j_ct = self.slaved_jacobian();
        let g = &self.m_c + &c * &j_ct;
        let mb = g.view((0, 0), (6, 6)).into_owned().cholesky().ok_or("base inertia")?;
        let gjm = j_ct.columns(6, n - 6) - j_ct.columns(0, 6) * mb.solve(&g.view((0, 6), (6, n - 6)).into_owned());
        let mut slave = DMatrix::zeros(6, n);
        slave.columns_mut(6, n - 6).copy_from(&gjm);
        let mut rhs = h_vec.clone();
        if slaving == Slaving::Gjm {
            let h = h_vec.rows(0, 6).into_owned();
            rhs -= &c * (j_ct.columns(0, 6) * mb.solve(&h));
        }
        let (chaser, rcond) = solve(&self.m_c + &c * &slave, &rhs, "G = M_c + J_cᵀJ_t⁻ᵀM_t Ĵ_ct")?;
        let target = self.slaved_target(&chaser);
        Ok(PostCapture { impulse: self.impulse_on_chaser(v_t, &target), chaser, target, rcond })
    }

    /// The coupling `C = J_cᵀ J_t⁻ᵀ M_t` and eq. (23)'s `K = M_c − C J_t⁻¹ J_c`.
    fn eq23_k(&self) -> (DMatrix<f64>, DMatrix<f64>) {
        let c = self.coupling();
        let k = &self.m_c - &c * self.slaved_jacobian();
        (c, k)
    }

    /// (c) The document's eq. (23), `v_c⁺ = K⁻¹ L`, from the pre-capture velocities and the
    /// measured impulse `impulse` on the chaser.
    pub fn eq23(&self, v_c: &DVector<f64>, v_t: &DVector<f64>, impulse: &DVector<f64>) -> Result<PostCapture, String> {
        self.check(v_c, v_t)?;
        let (c, k) = self.eq23_k();
        let l = &self.m_c * v_c + 2.0 * self.j_c.transpose() * impulse - &c * v_t;
        let (chaser, rcond) = solve(k, &l, K_NAME)?;
        Ok(PostCapture { target: self.slaved_target(&chaser), chaser, impulse: impulse.clone(), rcond })
    }

    /// Eq. (23) as a [`LinearMap`]: `P_c = K⁻¹ M_c`, `P_t = −K⁻¹ J_cᵀ J_t⁻ᵀ M_t`,
    /// `P_i = 2 K⁻¹ J_cᵀ`; a singular `K` is refused as [`CaptureMap::eq23`] refuses it.
    pub fn eq23_operator(&self) -> Result<LinearMap, String> {
        let (c, k) = self.eq23_k();
        conditioned(&k, K_NAME)?;
        let lu = k.lu();
        let solve = |m: DMatrix<f64>| lu.solve(&m).ok_or_else(|| "K is singular".to_string());
        Ok(LinearMap {
            chaser: solve(self.m_c.clone())?,
            target: solve(-c)?,
            impulse: solve(2.0 * self.j_c.transpose())?,
        })
    }

    /// The chaser-side impulse map as a [`LinearMap`]: `P_c = 1`, `P_t = 0`, `P_i = M_c⁻¹ J_cᵀ`.
    pub fn from_impulse_operator(&self) -> Result<LinearMap, String> {
        let n = self.m_c.nrows();
        let m = self.m_c.clone().cholesky().ok_or("mass matrix")?;
        Ok(LinearMap {
            chaser: DMatrix::identity(n, n),
            target: DMatrix::zeros(n, 6),
            impulse: m.solve(&self.j_c.transpose()),
        })
    }

    /// (d) The chaser's own impulse equation: `v_c⁺ = v_c⁻ + M_c⁻¹ J_cᵀ I_c`.
    pub fn from_impulse(&self, v_c: &DVector<f64>, impulse: &DVector<f64>) -> Result<PostCapture, String> {
        self.check(v_c, &DVector::zeros(6))?;
        let chaser = v_c + self.m_c.clone().cholesky().ok_or("mass matrix")?.solve(&(self.j_c.transpose() * impulse));
        Ok(PostCapture { target: self.slaved_target(&chaser), chaser, impulse: impulse.clone(), rcond: 1.0 })
    }
}
