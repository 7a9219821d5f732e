//! Linear-quadratic regulators: the continuous algebraic Riccati equation (CARE) and the LQR gain.
//!
//! For `ẋ = A x + B u` and the cost `∫ xᵀQx + 2xᵀNu + uᵀRu dt`, the optimal feedback is
//! `u = −K x` with `K = R⁻¹(BᵀS + Nᵀ)` and `S` the stabilising solution of
//! `AᵀS + SA − (SB + N) R⁻¹ (BᵀS + Nᵀ) + Q = 0`.
//!
//! Method: the cross term is removed (`A₁ = A − B R⁻¹ Nᵀ`, `Q₁ = Q − N R⁻¹ Nᵀ`); the matrix sign
//! function of the Hamiltonian `H = [A₁, −B R⁻¹ Bᵀ; −Q₁, −A₁ᵀ]` (Newton iteration with
//! determinant scaling; Roberts 1980, Byers 1987) gives the stable invariant subspace and a first
//! `S` by least squares; Newton–Kleinman steps (each a Lyapunov solve) then refine `S` to
//! rounding. A problem whose solution does not satisfy the equation is solved again balanced (a
//! diagonal state scaling and a scalar cost scaling, both powers of two: [`lqr`] solves
//! `Q = 1e160 I` as it solves `Q = I`); one whose blocks
//! overflow double precision is refused. `S` is returned symmetrised. The closed loop `A − BK`
//! must be stable: its eigenvalues, each resolved from `A − BK` or its inverse, have negative
//! real parts, or `S ≻ 0` and `Q₁ + S G S ≻ 0` prove it (Lyapunov); else the pair is reported as
//! not stabilisable (or `(A, Q)` not detectable).

use tumble_math::nalgebra::{Complex, DMatrix, DVector, Schur, SymmetricEigen};

/// Why a regulator cannot be designed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LqrError {
    /// Inconsistent sizes.
    #[error("dimensions: {0}")]
    Dimensions(String),
    /// A weight that is not symmetric, not positive (semi-)definite, or not finite.
    #[error("{0}")]
    Weight(String),
    /// No stabilising solution.
    #[error("no stabilising Riccati solution: {0}")]
    NotStabilisable(String),
}

/// An LQR design.
#[derive(Clone, Debug)]
pub struct Lqr {
    /// Gain `K` (m × n): `u = −K x`.
    pub k: DMatrix<f64>,
    /// Riccati solution `S` (n × n), symmetric positive semi-definite.
    pub s: DMatrix<f64>,
    /// Eigenvalues of `A − B K`.
    pub closed_loop: Vec<Complex<f64>>,
}

/// Most states (and inputs) a design may have: the sign iteration on the 2n × 2n Hamiltonian
/// takes O(n³) per step, seconds at 200 states; a larger problem is refused, not left to run for
/// minutes.
pub const MAX_STATES: usize = 200;

/// Largest state dimension refined by Newton–Kleinman steps (see [`lyapunov`]).
pub const MAX_REFINE: usize = 50;

fn symmetric(m: &DMatrix<f64>) -> bool {
    (m - m.transpose()).amax() <= 1e-10 * m.amax().max(1e-300)
}

/// Designs the LQR for `(A, B, Q, R, N)`; `N` may be `None`.
pub fn lqr(
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    q: &DMatrix<f64>,
    r: &DMatrix<f64>,
    n: Option<&DMatrix<f64>>,
) -> Result<Lqr, LqrError> {
    let (nx, nu) = (a.nrows(), b.ncols());
    let dims = |what: &str, m: &DMatrix<f64>, rows: usize, cols: usize| {
        if m.nrows() == rows && m.ncols() == cols {
            Ok(())
        } else {
            Err(LqrError::Dimensions(format!("{what} is {}×{}, expected {rows}×{cols}", m.nrows(), m.ncols())))
        }
    };
    if nx == 0 || nu == 0 {
        return Err(LqrError::Dimensions("A and B need at least one state and one input".into()));
    }
    if nx > MAX_STATES || nu > MAX_STATES {
        return Err(LqrError::Dimensions(format!(
            "{nx} states and {nu} inputs: at most {MAX_STATES} of each are designed for"
        )));
    }
    dims("A", a, nx, nx)?;
    dims("B", b, nx, nu)?;
    dims("Q", q, nx, nx)?;
    dims("R", r, nu, nu)?;
    let zero = DMatrix::zeros(nx, nu);
    let n = n.unwrap_or(&zero);
    dims("N", n, nx, nu)?;
    for (what, m) in [("A", a), ("B", b), ("Q", q), ("R", r), ("N", n)] {
        if m.iter().any(|x| !x.is_finite()) {
            return Err(LqrError::Weight(format!("{what} has a non-finite entry")));
        }
    }
    if !symmetric(q) || !symmetric(r) {
        return Err(LqrError::Weight("Q and R must be symmetric".into()));
    }
    let r_inv = r.clone().cholesky().ok_or_else(|| LqrError::Weight("R must be positive definite".into()))?.inverse();
    let q1 = q - n * &r_inv * n.transpose();
    let a1 = a - b * &r_inv * n.transpose();
    let g = b * &r_inv * b.transpose();
    if [&r_inv, &q1, &a1, &g].iter().any(|m| m.iter().any(|x| !x.is_finite())) {
        return Err(LqrError::Weight(
            "the problem's scale overflows double precision (R⁻¹, B R⁻¹ Bᵀ or Q − N R⁻¹ Nᵀ has an infinite entry): rescale the states or inputs".into(),
        ));
    }
    let least = least_symmetric_eigenvalue(&q1);
    if least.is_nan() || least < -1e-10 * q1.amax().max(1.0) {
        return Err(LqrError::Weight("Q − N R⁻¹ Nᵀ must be positive semi-definite".into()));
    }
    // The problem as given first; balanced where that does not solve the equation (a badly
    // scaled one, Q = 1e160 I: its S came out wrong by 1e63).
    let s = match care(&a1, &g, &q1) {
        Ok(s) if solves(&a1, &g, &q1, &s) => s,
        _ => balanced_care(&a1, &g, &q1)?,
    };
    if s.iter().any(|x| !x.is_finite()) {
        return Err(LqrError::NotStabilisable("the solution is not finite".into()));
    }
    let k = &r_inv * (b.transpose() * &s + n.transpose());
    let closed = a - b * &k;
    let closed_loop = eigenvalues(&closed);
    if closed_loop.iter().any(|e| !(e.re.is_finite() && e.im.is_finite())) || k.iter().any(|x| !x.is_finite()) {
        return Err(LqrError::NotStabilisable(
            "the gain or the closed loop's eigenvalues overflow double precision: rescale the states or inputs".into(),
        ));
    }
    if let Some(e) = closed_loop.iter().find(|e| e.re >= 0.0)
        && !lyapunov_certificate(&s, &(&q1 + &s * &g * &s))
    {
        return Err(LqrError::NotStabilisable(format!(
            "the closed loop keeps the eigenvalue {:.6e}{:+.6e}i: (A, B) is not stabilisable or (A, Q) not detectable",
            e.re, e.im
        )));
    }
    Ok(Lqr { k, s, closed_loop })
}

/// Whether `S` solves `A₁ᵀS + SA₁ − S G S + Q₁ = 0`: finite, with a residual below 1e-8 of the
/// size of its terms (a solution is at ~1e-14; one lost to scaling at ~1).
fn solves(a1: &DMatrix<f64>, g: &DMatrix<f64>, q1: &DMatrix<f64>, s: &DMatrix<f64>) -> bool {
    let (sa, sgs) = (s * a1, s * g * s);
    let residual = (sa.transpose() + &sa - &sgs + q1).amax();
    let size = sa.amax() + sgs.amax() + q1.amax();
    residual.is_finite() && residual <= 1e-8 * size
}

/// The CARE solved on a balanced problem. States are scaled, `x = D x̃` (D diagonal, powers of
/// two): `Ã = D⁻¹A₁D`, `G̃ = D⁻¹GD⁻¹`, `Q̃ = DQ₁D`, a diagonal similarity of the Hamiltonian that
/// keeps its structure (Benner 2000), with each `dᵢ` chosen so that the entries it multiplies
/// (column i of Ã, row i of Q̃) and those it divides (row i of Ã, row i of G̃) are of one size.
/// Then the cost is scaled, `S̃ = σ Ŝ` with `σ` balancing `G̃` against `Q̃`. `S = D⁻¹ S̃ D⁻¹`.
/// [`lqr`] turns to it when the problem as given does not solve: one with `Q = 1e160 I` and
/// `R = 1` loses its slow direction to rounding.
fn balanced_care(a1: &DMatrix<f64>, g: &DMatrix<f64>, q1: &DMatrix<f64>) -> Result<DMatrix<f64>, LqrError> {
    let n = a1.nrows();
    let mut d = vec![1.0f64; n];
    let scaled = |d: &[f64]| {
        (
            DMatrix::from_fn(n, n, |i, j| a1[(i, j)] * d[j] / d[i]),
            DMatrix::from_fn(n, n, |i, j| g[(i, j)] / (d[i] * d[j])),
            DMatrix::from_fn(n, n, |i, j| q1[(i, j)] * d[i] * d[j]),
        )
    };
    for _ in 0..100 {
        let mut changed = false;
        for i in 0..n {
            let (a, g, q) = scaled(&d);
            let off = |v: f64, k: usize| if k == i { 0.0 } else { v.abs() };
            let mul: f64 = (0..n).map(|k| off(a[(k, i)], k) + q[(i, k)].abs()).sum();
            let div: f64 = (0..n).map(|k| off(a[(i, k)], k) + g[(i, k)].abs()).sum();
            if mul > 0.0 && div > 0.0 && mul.is_finite() && div.is_finite() {
                // The quarter power: the weights' entries move with dᵢ², the drift's with dᵢ.
                let f = 2f64.powi(((div / mul).log2() / 4.0).round() as i32);
                if f != 1.0 {
                    d[i] *= f;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let (a, g, q) = scaled(&d);
    let ratio = (q.amax() / g.amax()).sqrt();
    let sigma = if ratio.is_finite() && ratio > 0.0 { 2f64.powi(ratio.log2().round() as i32) } else { 1.0 };
    let s = care(&a, &(&g * sigma), &(&q / sigma))? * sigma;
    Ok(DMatrix::from_fn(n, n, |i, j| s[(i, j)] / (d[i] * d[j])))
}

/// Eigenvalues of `m`. The QR algorithm's error is about ε‖m‖ in absolute terms, so an
/// eigenvalue below that floor (a slow pole beside one at −1e80) is noise. When there is one,
/// the eigenvalues at or above the geometric mean `√(‖m‖/‖m⁻¹‖)` are taken from `m` and those
/// below from the reciprocals of `m⁻¹`'s, whose error is ε‖m⁻¹‖ (a margin of 1e3 on both
/// floors); when that does not account for every eigenvalue, `m`'s are returned as they are.
fn eigenvalues(m: &DMatrix<f64>) -> Vec<Complex<f64>> {
    let direct = scaled_eigenvalues(m);
    let floor = |m: &DMatrix<f64>| 1e3 * f64::EPSILON * m.norm();
    if direct.iter().all(|e| e.norm() > floor(m)) {
        return direct;
    }
    let Some(inv) = m.clone().try_inverse().filter(|i| i.iter().all(|x| x.is_finite())) else {
        return direct;
    };
    let split = (m.norm() / inv.norm()).sqrt();
    let mut both: Vec<Complex<f64>> =
        direct.iter().copied().filter(|e| e.norm() >= split && e.norm() > floor(m)).collect();
    let (inv_floor, n) = (floor(&inv), direct.len());
    both.extend(
        qr_eigenvalues(&inv).iter().filter(|e| e.norm() > inv_floor && e.norm() * split > 1.0).map(|e| e.inv()),
    );
    if both.len() == n { both } else { direct }
}

/// Eigenvalues of `m`; where the QR algorithm overflows (entries of 1e190 square past double
/// precision), those of `m / 2ᵏ` times `2ᵏ`, `2ᵏ` near its largest entry (exact in binary).
fn scaled_eigenvalues(m: &DMatrix<f64>) -> Vec<Complex<f64>> {
    let direct = qr_eigenvalues(m);
    if direct.iter().all(|e| e.re.is_finite() && e.im.is_finite()) || m.amax() == 0.0 {
        return direct;
    }
    let s = 2f64.powi(m.amax().log2().round() as i32);
    qr_eigenvalues(&(m / s)).iter().map(|e| e * s).collect()
}

/// Iterations a decomposition may take. They converge in tens; nalgebra's default is no bound,
/// and its QR iteration ran for ever on a closed loop whose entries spanned 1e23 (a capture
/// study's weights of 1e-23).
const MAX_ITERATIONS: usize = 10_000;

/// The eigenvalues of `m` by the QR algorithm (nalgebra's `complex_eigenvalues`, bounded): NaN
/// where it does not converge.
fn qr_eigenvalues(m: &DMatrix<f64>) -> Vec<Complex<f64>> {
    match Schur::try_new(m.clone(), f64::EPSILON, MAX_ITERATIONS) {
        Some(schur) => schur.complex_eigenvalues().iter().copied().collect(),
        None => vec![Complex::new(f64::NAN, f64::NAN); m.nrows()],
    }
}

/// The least eigenvalue of the symmetric `m`, NaN where the iteration does not converge.
fn least_symmetric_eigenvalue(m: &DMatrix<f64>) -> f64 {
    SymmetricEigen::try_new(m.clone(), f64::EPSILON, MAX_ITERATIONS).map_or(f64::NAN, |e| e.eigenvalues.min())
}

/// Whether `S ≻ 0` and `C = Q₁ + S G S ≻ 0`, `S` solving `(A₁ − GS)ᵀS + S(A₁ − GS) = −C`: then
/// `V = xᵀSx` is a Lyapunov function of the closed loop, which is therefore stable whatever its
/// computed eigenvalues say (their real parts are lost to rounding beside poles 1e40 times
/// faster).
fn lyapunov_certificate(s: &DMatrix<f64>, c: &DMatrix<f64>) -> bool {
    let positive = |m: &DMatrix<f64>| {
        let d = DVector::from_iterator(m.nrows(), m.diagonal().iter().map(|x| x.abs().sqrt().recip()));
        let scaled = DMatrix::from_fn(m.nrows(), m.ncols(), |i, j| m[(i, j)] * d[i] * d[j]);
        d.iter().all(|x| x.is_finite()) && least_symmetric_eigenvalue(&scaled) > 1e-8
    };
    positive(s) && positive(c)
}

/// The stabilising solution of `A₁ᵀS + SA₁ − S G S + Q₁ = 0` (no cross term): the matrix sign
/// function of the Hamiltonian gives a first `S`, Newton–Kleinman steps refine it.
fn care(a1: &DMatrix<f64>, g: &DMatrix<f64>, q1: &DMatrix<f64>) -> Result<DMatrix<f64>, LqrError> {
    let nx = a1.nrows();
    let mut h = DMatrix::zeros(2 * nx, 2 * nx);
    h.view_mut((0, 0), (nx, nx)).copy_from(a1);
    h.view_mut((0, nx), (nx, nx)).copy_from(&(-g));
    h.view_mut((nx, 0), (nx, nx)).copy_from(&(-q1));
    h.view_mut((nx, nx), (nx, nx)).copy_from(&(-a1.transpose()));
    let mut w = h;
    for _ in 0..100 {
        let lu = w.clone().lu();
        let det = lu.determinant().abs();
        let inv = lu
            .try_inverse()
            .ok_or_else(|| LqrError::NotStabilisable("the Hamiltonian has eigenvalues on the imaginary axis".into()))?;
        let c = if det > 0.0 && det.is_finite() { det.powf(1.0 / (2 * nx) as f64) } else { 1.0 };
        let next = (&w / c + &inv * c) * 0.5;
        let change = (&next - &w).norm() / next.norm();
        w = next;
        if !change.is_finite() {
            return Err(LqrError::NotStabilisable("the sign iteration did not stay finite".into()));
        }
        if change < 1e-13 {
            break;
        }
    }
    let id = DMatrix::<f64>::identity(nx, nx);
    let mut lhs = DMatrix::zeros(2 * nx, nx);
    lhs.view_mut((0, 0), (nx, nx)).copy_from(&w.view((0, nx), (nx, nx)));
    lhs.view_mut((nx, 0), (nx, nx)).copy_from(&(w.view((nx, nx), (nx, nx)) + &id));
    let mut rhs = DMatrix::zeros(2 * nx, nx);
    rhs.view_mut((0, 0), (nx, nx)).copy_from(&(-(w.view((0, 0), (nx, nx)) + &id)));
    rhs.view_mut((nx, 0), (nx, nx)).copy_from(&(-w.view((nx, 0), (nx, nx))));
    let svd = lhs
        .try_svd(true, true, f64::EPSILON, MAX_ITERATIONS)
        .ok_or_else(|| LqrError::NotStabilisable("the stable subspace's decomposition did not converge".into()))?;
    let mut s = svd.solve(&rhs, 1e-14).map_err(|e| LqrError::NotStabilisable(e.to_string()))?;
    s = (&s + s.transpose()) * 0.5;
    // Newton–Kleinman refinement: (A₁ − G S)ᵀ X + X (A₁ − G S) + Q₁ + S G S = 0. The
    // Lyapunov solve is a dense n² × n² system: above MAX_REFINE states it would need more than
    // ~50 MB, and the sign-function solution is kept as it is.
    for _ in 0..if nx <= MAX_REFINE { 4 } else { 0 } {
        let acl = a1 - g * &s;
        let c = q1 + &s * g * &s;
        let Some(x) = lyapunov(&acl, &c) else { break };
        let step = (&x - &s).norm() / x.norm().max(1e-300);
        s = (&x + x.transpose()) * 0.5;
        if step < 1e-15 {
            break;
        }
    }
    Ok(s)
}

/// Solves `Aᵀ X + X A + C = 0` by its Kronecker form `(I ⊗ Aᵀ + Aᵀ ⊗ I) vec X = −vec C`: dense,
/// `n⁴` memory, for the small systems of [`MAX_REFINE`] states or fewer.
pub fn lyapunov(a: &DMatrix<f64>, c: &DMatrix<f64>) -> Option<DMatrix<f64>> {
    let n = a.nrows();
    let id = DMatrix::<f64>::identity(n, n);
    let m = id.kronecker(&a.transpose()) + a.transpose().kronecker(&id);
    let rhs = DVector::from_iterator(n * n, (-c).iter().copied());
    let x = m.lu().solve(&rhs)?;
    Some(DMatrix::from_iterator(n, n, x.iter().copied()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_integrator_has_the_closed_form_gain() {
        // ẍ = u, Q = diag(q, 0), R = r: K = [√(q/r), √(2√(q/r))].
        let (qw, rw) = (4.0, 1.0);
        let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
        let q = DMatrix::from_row_slice(2, 2, &[qw, 0.0, 0.0, 0.0]);
        let r = DMatrix::from_row_slice(1, 1, &[rw]);
        let d = lqr(&a, &b, &q, &r, None).expect("design");
        let k1 = (qw / rw).sqrt();
        assert!((d.k[(0, 0)] - k1).abs() < 1e-12 && (d.k[(0, 1)] - (2.0 * k1).sqrt()).abs() < 1e-12, "{}", d.k);
        assert!(d.closed_loop.iter().all(|e| e.re < 0.0));
    }

    #[test]
    fn a_problem_past_double_precision_is_refused_not_a_panic() {
        let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        let b = DMatrix::from_row_slice(2, 1, &[0.0, 1e308]);
        let (q, r) = (DMatrix::identity(2, 2), DMatrix::identity(1, 1));
        let e = lqr(&a, &b, &q, &r, None).expect_err("B R⁻¹ Bᵀ overflows").to_string();
        assert!(e.contains("overflows double precision"), "{e}");
    }

    #[test]
    fn a_badly_scaled_design_is_solved_and_its_slow_pole_resolved() {
        // ẍ = u with Q = q I, R = 1: K = [√q, √(q + 2√q)], S = [[K₁K₂, K₁], [K₁, K₂]], poles at
        // −K₂/2 ± √(K₂²/4 − K₁), i.e. about −1e80 and −1 for q = 1e160. The slow pole is 1e80
        // times below ‖A − BK‖, where the QR algorithm's absolute error (~1e64) hides its sign.
        let q = 1e160;
        let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
        let d = lqr(&a, &b, &(DMatrix::identity(2, 2) * q), &DMatrix::identity(1, 1), None).expect("design");
        let (k1, k2) = (q.sqrt(), (q + 2.0 * q.sqrt()).sqrt());
        let s = [k1 * k2, k1, k1, k2];
        for (got, want) in d.s.iter().zip(s) {
            assert!((got / want - 1.0).abs() < 1e-6, "S = {:e}", d.s);
        }
        assert!((d.k[(0, 0)] / k1 - 1.0).abs() < 1e-6 && (d.k[(0, 1)] / k2 - 1.0).abs() < 1e-6, "{:e}", d.k);
        let slow = d.closed_loop.iter().min_by(|x, y| x.norm().total_cmp(&y.norm())).expect("two poles");
        // −K₁/K₂ (the product of the poles is K₁, their sum −K₂), as accurate as K.
        assert!((slow.re + k1 / k2).abs() < 1e-6 && slow.im == 0.0, "{:?}", d.closed_loop);
    }

    #[test]
    fn a_gain_of_1e187_has_finite_eigenvalues_or_is_refused() {
        // R = 1e-216 I: K ~ 1e187, entries of A − BK whose squares overflow inside the QR
        // algorithm (its eigenvalues came out NaN, and the design was accepted).
        let a = DMatrix::from_row_slice(2, 2, &[0.0, 0.0596, -0.297, -0.333]);
        let b = DMatrix::from_row_slice(2, 2, &[4.82, -199.6, -636.5, 12.57]);
        let (q, r) = (DMatrix::identity(2, 2) * 1.6, DMatrix::identity(2, 2) * 1.13e-216);
        match lqr(&a, &b, &q, &r, None) {
            Ok(d) => assert!(d.closed_loop.iter().all(|e| e.re.is_finite() && e.re < 0.0), "{:?}", d.closed_loop),
            Err(e) => assert!(e.to_string().contains("overflow"), "{e}"),
        }
    }

    #[test]
    fn bad_designs_are_refused() {
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, 2.0]);
        let b = DMatrix::from_row_slice(2, 1, &[1.0, 0.0]);
        let q = DMatrix::identity(2, 2);
        let r = DMatrix::identity(1, 1);
        // The unstable mode at 2 is not reachable from u.
        assert!(matches!(lqr(&a, &b, &q, &r, None), Err(LqrError::NotStabilisable(_))));
        let bad_q = DMatrix::from_row_slice(2, 2, &[1.0, 0.5, 0.0, 1.0]);
        assert!(matches!(lqr(&a, &b, &bad_q, &r, None), Err(LqrError::Weight(_))));
        assert!(matches!(lqr(&a, &b, &q, &(-&r), None), Err(LqrError::Weight(_))));
        assert!(matches!(lqr(&a, &b, &DMatrix::identity(3, 3), &r, None), Err(LqrError::Dimensions(_))));
        let big = DMatrix::identity(MAX_STATES + 1, MAX_STATES + 1);
        let e = lqr(&big, &DMatrix::identity(MAX_STATES + 1, 1), &big, &r, None).expect_err("too big").to_string();
        assert!(e.contains("at most 200"), "{e}");
    }
}
