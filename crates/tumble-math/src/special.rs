//! Special functions needed by analytic reference solutions: the complete elliptic integral of
//! the first kind and the Jacobi elliptic functions (torque-free rigid body, Euler–Poinsot).
//!
//! Both use the parameter `m = k²` (0 ≤ m < 1), as in Abramowitz & Stegun ch. 16–17.

use std::f64::consts::FRAC_PI_2;

/// Complete elliptic integral of the first kind `K(m) = ∫₀^{π/2} dθ / √(1 − m sin²θ)`,
/// by the arithmetic–geometric mean: `K(m) = π / (2 AGM(1, √(1−m)))` (A&S 17.6).
/// Accurate to machine precision for `0 ≤ m < 1`; returns NaN outside.
pub fn ellip_k(m: f64) -> f64 {
    if !(0.0..1.0).contains(&m) {
        return f64::NAN;
    }
    let (mut a, mut b) = (1.0_f64, (1.0 - m).sqrt());
    for _ in 0..64 {
        if (a - b).abs() <= 1e-16 * a {
            break;
        }
        let a1 = 0.5 * (a + b);
        b = (a * b).sqrt();
        a = a1;
    }
    FRAC_PI_2 / a
}

/// Jacobi elliptic functions `(sn, cn, dn)(u | m)` for `0 ≤ m ≤ 1`, by the descending Landen
/// (AGM) transformation (A&S 16.4).
pub fn jacobi_sn_cn_dn(u: f64, m: f64) -> (f64, f64, f64) {
    if m < 1e-16 {
        return (u.sin(), u.cos(), 1.0);
    }
    if (1.0 - m) < 1e-16 {
        let s = 1.0 / u.cosh();
        return (u.tanh(), s, s);
    }
    const N: usize = 16;
    let mut a = [0.0_f64; N + 1];
    let mut c = [0.0_f64; N + 1];
    a[0] = 1.0;
    let mut b = (1.0 - m).sqrt();
    c[0] = m.sqrt();
    let mut n = 0;
    while n < N && (c[n]).abs() > 1e-16 {
        a[n + 1] = 0.5 * (a[n] + b);
        c[n + 1] = 0.5 * (a[n] - b);
        b = (a[n] * b).sqrt();
        n += 1;
    }
    let mut phi = (1u64 << n) as f64 * a[n] * u;
    for j in (1..=n).rev() {
        phi = 0.5 * (phi + (c[j] / a[j] * phi.sin()).asin());
    }
    let sn = phi.sin();
    let cn = phi.cos();
    let dn = (1.0 - m * sn * sn).sqrt();
    (sn, cn, dn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn ellip_k_reference_values() {
        // K(0) = π/2; K(0.5) = 1.854074677301372 (A&S table 17.1);
        // K(0.9) = 2.578092113348173 (scipy.special.ellipk(0.9)).
        assert_relative_eq!(ellip_k(0.0), FRAC_PI_2, max_relative = 1e-15);
        assert_relative_eq!(ellip_k(0.5), 1.854_074_677_301_372, max_relative = 1e-14);
        assert_relative_eq!(ellip_k(0.9), 2.578_092_113_348_173, max_relative = 1e-14);
        assert!(ellip_k(1.0).is_nan());
    }

    #[test]
    fn jacobi_identities_and_quarter_period() {
        for &m in &[0.1, 0.5, 0.9, 0.999] {
            let k = ellip_k(m);
            let (sn, cn, dn) = jacobi_sn_cn_dn(k, m);
            assert_relative_eq!(sn, 1.0, epsilon = 1e-12);
            assert!(cn.abs() < 1e-7, "cn(K) = {cn}");
            assert_relative_eq!(dn, (1.0 - m).sqrt(), epsilon = 1e-12);
            for &u in &[0.3, -1.7, 4.2] {
                let (s, c, d) = jacobi_sn_cn_dn(u, m);
                assert_relative_eq!(s * s + c * c, 1.0, epsilon = 1e-14);
                assert_relative_eq!(d * d + m * s * s, 1.0, epsilon = 1e-14);
                // d sn/du = cn dn, checked by a central difference.
                let h = 1e-5;
                let ds = (jacobi_sn_cn_dn(u + h, m).0 - jacobi_sn_cn_dn(u - h, m).0) / (2.0 * h);
                assert_relative_eq!(ds, c * d, epsilon = 1e-9);
            }
        }
    }
}
