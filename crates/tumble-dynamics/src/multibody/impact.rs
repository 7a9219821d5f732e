//! Impulsive contact maps (the capture document's eqs. 2–7, after Grizzle et al. 2014 and
//! Cyril et al. 1993): positions do not change over the impact; velocities jump.
//!
//! With mass matrix `M`, constraint Jacobian `J` (rows: the contact velocities that the impact
//! acts on) and pre-impact velocities `q̇⁻`, an impulse `Jᵀλ` gives
//! `q̇⁺ = q̇⁻ + M⁻¹Jᵀλ`, and requiring `J q̇⁺ = −e J q̇⁻` (restitution `e`; 0: plastic) gives
//! `(J M⁻¹ Jᵀ) λ = −(1 + e) J q̇⁻` — the Schur complement of the document's eq. (5), which for
//! `e = 0` is its eq. (6). A singular or redundant `J` (rank-deficient `J M⁻¹ Jᵀ`) is solved in
//! the least-squares sense by the pseudoinverse, and reported, never a crash.
//!
//! **Bilateral capture** (eq. 5 applied to the combined chaser–target model): the chaser's
//! end-effector grasps the target's grapple point; `J = J_chaser(ee) − J_target(grapple)` (6
//! rows: relative linear and angular velocity, world axes) and `e = 0`. The impulse is internal,
//! so the total linear and angular momentum are unchanged by the map.

use tumble_math::nalgebra::{DMatrix, DVector};

/// The result of an impact map.
#[derive(Clone, Debug)]
pub struct ImpactMap {
    /// Post-impact velocities.
    pub v_plus: DVector<f64>,
    /// Impulse multipliers `λ` (one per row of `J`), N·s (or N·m·s).
    pub impulse: DVector<f64>,
    /// Whether `J M⁻¹ Jᵀ` was rank-deficient and the pseudoinverse was used.
    pub degenerate: bool,
    /// Smallest over largest eigenvalue of `J M⁻¹ Jᵀ` (its reciprocal condition number).
    pub rcond: f64,
}

/// Applies the impact map to `v_minus` with restitution `e` ∈ [0, 1] on every row of `j`.
pub fn impact_map(m: &DMatrix<f64>, j: &DMatrix<f64>, v_minus: &DVector<f64>, e: f64) -> Result<ImpactMap, String> {
    let n = m.nrows();
    if m.ncols() != n || j.ncols() != n || v_minus.len() != n {
        return Err(format!(
            "dimensions: M {}×{}, J {}×{}, v {}",
            m.nrows(),
            m.ncols(),
            j.nrows(),
            j.ncols(),
            v_minus.len()
        ));
    }
    if !(0.0..=1.0).contains(&e) {
        return Err(format!("restitution must be within [0, 1], got {e}"));
    }
    let chol = m.clone().cholesky().ok_or("the mass matrix is not positive definite")?;
    let minv_jt = chol.solve(&j.transpose());
    let a = j * &minv_jt;
    let rhs = -(1.0 + e) * (j * v_minus);
    // Rank test on the symmetric positive semi-definite J M⁻¹ Jᵀ.
    let eig = a.clone().symmetric_eigenvalues();
    let (lo, hi) = (eig.min(), eig.max());
    let degenerate = hi <= 0.0 || lo <= 1e-12 * hi;
    let impulse = if degenerate {
        a.pseudo_inverse(1e-12 * hi.max(f64::MIN_POSITIVE)).map_err(|e| e.to_string())? * rhs
    } else {
        a.cholesky().ok_or("J M⁻¹ Jᵀ is not positive definite")?.solve(&rhs)
    };
    let v_plus = v_minus + &minv_jt * &impulse;
    let rcond = if hi > 0.0 { lo.max(0.0) / hi } else { 0.0 };
    Ok(ImpactMap { v_plus, impulse, degenerate, rcond })
}
