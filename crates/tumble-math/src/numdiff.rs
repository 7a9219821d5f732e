//! Numerical derivatives, for checking analytic gradients.

use crate::Vec3;

/// Central-difference gradient of a scalar field: `∂f/∂xₖ ≈ (f(p + h eₖ) − f(p − h eₖ)) / 2h`.
/// Truncation error `O(h²·|∂³f|)`, round-off `O(ε|f|/h)`.
pub fn central_gradient(f: impl Fn(&Vec3) -> f64, p: &Vec3, h: f64) -> Vec3 {
    Vec3::from_fn(|k, _| {
        let mut e = Vec3::zeros();
        e[k] = h;
        (f(&(p + e)) - f(&(p - e))) / (2.0 * h)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_for_quadratics() {
        // Central differences are exact (to round-off) for polynomials of degree ≤ 2.
        let f = |p: &Vec3| 3.0 * p.x * p.x - 2.0 * p.x * p.y + p.z + 1.0;
        let p = Vec3::new(0.5, -1.5, 2.0);
        let g = central_gradient(f, &p, 1e-3);
        assert!((g - Vec3::new(6.0 * p.x - 2.0 * p.y, -2.0 * p.x, 1.0)).norm() < 1e-10, "{g}");
    }
}
