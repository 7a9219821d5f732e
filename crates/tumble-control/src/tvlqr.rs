//! Finite-horizon, time-varying LQR along a nominal trajectory: the Riccati differential
//! equation integrated backward from the final cost.
//!
//! For `δẋ = A(t) δx + B(t) δu`, cost `δx(T)ᵀ S_f δx(T) + ∫ δxᵀQδx + δuᵀRδu dt`:
//! `−Ṡ = AᵀS + SA − S B R⁻¹ Bᵀ S + Q`, `S(T) = S_f`, and `δu = −K(t) δx`, `K = R⁻¹BᵀS`.
//! Integrated with classical RK4 in reversed time `τ = T − t` at a fixed step; `S` is
//! symmetrised after each step. The same solution gives the funnel `δxᵀ S(t) δx` used by
//! region-of-attraction checks.

use tumble_math::nalgebra::DMatrix;

/// `S` and `K` at sample times, ascending in time.
#[derive(Clone, Debug)]
pub struct Tvlqr {
    /// Sample times, s.
    pub times: Vec<f64>,
    /// Riccati solution at each time.
    pub s: Vec<DMatrix<f64>>,
    /// Gain at each time.
    pub k: Vec<DMatrix<f64>>,
}

/// Solves the Riccati differential equation backward from `t_final` to `t0` in `steps` RK4 steps,
/// with `linearization(t)` returning `(A(t), B(t))`; `R` must be positive definite.
pub fn tvlqr(
    linearization: &dyn Fn(f64) -> (DMatrix<f64>, DMatrix<f64>),
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
    s_final: &DMatrix<f64>,
    (t0, t_final): (f64, f64),
    steps: usize,
) -> Result<Tvlqr, String> {
    let r_inv = r.clone().cholesky().ok_or("R must be positive definite")?.inverse();
    if steps == 0 || t_final.partial_cmp(&t0) != Some(std::cmp::Ordering::Greater) {
        return Err(format!("need t_final > t0 and at least one step, got [{t0}, {t_final}], {steps}"));
    }
    // dS/dτ with τ = T − t.
    let rate = |t: f64, s: &DMatrix<f64>| {
        let (a, b) = linearization(t);
        let sb = s * &b;
        a.transpose() * s + s * &a - &sb * &r_inv * sb.transpose() + q
    };
    let h = (t_final - t0) / steps as f64;
    let mut s = s_final.clone();
    let (mut times, mut ss) = (vec![t_final], vec![s.clone()]);
    for i in 0..steps {
        let t = t_final - i as f64 * h;
        let k1 = rate(t, &s);
        let k2 = rate(t - 0.5 * h, &(&s + &k1 * (0.5 * h)));
        let k3 = rate(t - 0.5 * h, &(&s + &k2 * (0.5 * h)));
        let k4 = rate(t - h, &(&s + &k3 * h));
        s += (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (h / 6.0);
        s = (&s + s.transpose()) * 0.5;
        if s.iter().any(|x| !x.is_finite()) {
            return Err(format!("the Riccati solution diverged at t = {:.6} s", t - h));
        }
        times.push(t - h);
        ss.push(s.clone());
    }
    times.reverse();
    ss.reverse();
    let k = times.iter().zip(&ss).map(|(&t, s)| &r_inv * linearization(t).1.transpose() * s).collect();
    Ok(Tvlqr { times, s: ss, k })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lqr::lqr;

    fn double_integrator() -> (DMatrix<f64>, DMatrix<f64>) {
        (DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]), DMatrix::from_row_slice(2, 1, &[0.0, 1.0]))
    }

    #[test]
    fn a_long_horizon_converges_to_the_algebraic_solution() {
        let (a, b) = double_integrator();
        let q = DMatrix::from_diagonal(&tumble_math::nalgebra::DVector::from_vec(vec![4.0, 1.0]));
        let r = DMatrix::identity(1, 1);
        let care = lqr(&a, &b, &q, &r, None).expect("design");
        // From the CARE solution it is a fixed point; from zero it converges backward.
        let lin = |_t: f64| double_integrator();
        let fixed = tvlqr(&lin, &q, &r, &care.s, (0.0, 5.0), 500).expect("solves");
        // At the fixed point every stage rate is the CARE residual (~1e-15): only rounding.
        assert!((&fixed.s[0] - &care.s).norm() < 1e-12 * care.s.norm());
        let from_zero = tvlqr(&lin, &q, &r, &DMatrix::zeros(2, 2), (0.0, 30.0), 3000).expect("solves");
        // The closed-loop poles are −1.12 ± 0.86i, so the backward transient decays as e^(−2.2 t):
        // ~e⁻⁶⁷ after 30 s; what remains is RK4's error at 10 ms steps, which decays with it.
        assert!((&from_zero.s[0] - &care.s).norm() < 1e-9 * care.s.norm(), "{}", from_zero.s[0]);
        assert!((&from_zero.k[0] - &care.k).norm() < 1e-9 * care.k.norm());
    }

    #[test]
    fn time_varying_solution_converges_at_fourth_order() {
        // A(t) rotates: a time-varying system with no closed form; compare step sizes against a
        // fine reference (RK4 error ∝ h⁴: halving h divides it by ~16).
        let lin = |t: f64| {
            let w = 1.0 + 0.5 * t.sin();
            (
                DMatrix::from_row_slice(2, 2, &[0.0, w, -w, 0.1]),
                DMatrix::from_row_slice(2, 1, &[0.0, 1.0 + 0.2 * t.cos()]),
            )
        };
        let q = DMatrix::identity(2, 2);
        let r = DMatrix::identity(1, 1) * 0.5;
        let sf = DMatrix::identity(2, 2) * 2.0;
        let reference = tvlqr(&lin, &q, &r, &sf, (0.0, 4.0), 64_000).expect("solves").s[0].clone();
        let err = |n| (&tvlqr(&lin, &q, &r, &sf, (0.0, 4.0), n).expect("solves").s[0] - &reference).norm();
        let (e1, e2) = (err(200), err(400));
        // 16 for exact fourth order; ±2 for the higher-order terms at these step sizes.
        assert!(e1 / e2 > 14.0 && e1 / e2 < 18.0, "order: {e1:e} → {e2:e}");
        assert!(e2 < 1e-8 * reference.norm());
    }
}
