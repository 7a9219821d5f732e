//! Closed-form solutions used as references by tests, metrics and diagnoses.

use tumble_math::Vec3;
use tumble_math::special::ellip_k;

/// Period of the body-frame angular velocity of a torque-free rigid body (Euler–Poinsot motion),
/// s.
///
/// `moments` are the principal moments `I₁ < I₂ < I₃` (kg·m²) and `w_P` the angular velocity in
/// those principal axes (rad/s). With `2T = Σ Iᵢωᵢ²` and `H² = Σ Iᵢ²ωᵢ²`, for `H² > 2T I₂`
/// (Landau & Lifshitz, *Mechanics*, §37):
///
/// ```text
/// λ = √((I₃−I₂)(H²−2T I₁) / (I₁I₂I₃)),   m = k² = (I₂−I₁)(2T I₃−H²) / ((I₃−I₂)(H²−2T I₁))
/// ω₁ ∝ cn(λt | m), ω₂ ∝ sn(λt | m), ω₃ ∝ dn(λt | m),   period = 4 K(m) / λ
/// ```
///
/// and the same with indices 1 and 3 exchanged when `H² < 2T I₂`. A rotation near the
/// intermediate axis flips (ω₂ changes sign) twice per period: the Dzhanibekov effect.
/// Returns `None` on the separatrix (`H² = 2T I₂`, infinite period), for a body at rest, or when
/// two moments are equal (axisymmetric bodies: use the precession rate instead).
pub fn torque_free_period(moments: [f64; 3], w_P: &Vec3) -> Option<f64> {
    let [i1, i2, i3] = moments;
    if !(i1 < i2 && i2 < i3) {
        return None;
    }
    let two_t = i1 * w_P.x.powi(2) + i2 * w_P.y.powi(2) + i3 * w_P.z.powi(2);
    let h2 = (i1 * w_P.x).powi(2) + (i2 * w_P.y).powi(2) + (i3 * w_P.z).powi(2);
    let (lam2, m) = if h2 > two_t * i2 {
        (
            (i3 - i2) * (h2 - two_t * i1) / (i1 * i2 * i3),
            (i2 - i1) * (two_t * i3 - h2) / ((i3 - i2) * (h2 - two_t * i1)),
        )
    } else if h2 < two_t * i2 {
        (
            (i2 - i1) * (two_t * i3 - h2) / (i1 * i2 * i3),
            (i3 - i2) * (h2 - two_t * i1) / ((i2 - i1) * (two_t * i3 - h2)),
        )
    } else {
        return None;
    };
    if !(lam2 > 0.0 && (0.0..1.0).contains(&m)) {
        return None;
    }
    Some(4.0 * ellip_k(m) / lam2.sqrt())
}
