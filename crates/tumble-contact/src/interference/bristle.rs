//! Friction of the interference engine: the Haessig–Friedland reset-integrator bristle model in
//! the contact plane (Pong's model), and regularised Coulomb.
//!
//! **Bristle** (Haessig & Friedland 1991, "On the modeling and simulation of friction", J. Dyn.
//! Sys. Meas. Control 113, §"reset integrator model"), written here for a 2D deflection `z` in the
//! tangent plane of each contact (kept per contact across steps, keyed by its primitive pair):
//!
//! ```text
//! z₀ = μ_k F_n / k                                   (deflection at which the bristle slips)
//! ż  = v_t                     if |z| < z₀ or v_t · z ≤ 0
//! ż  = v_t − (v_t · ẑ) ẑ       otherwise              (reset: |z| does not grow past z₀)
//! F  = (1 + a(z)) k z + c ż,   a = μ_s/μ_k − 1 while |z| < z₀, 0 at |z| = z₀
//! f_B = −F,  |f_B| ≤ μ_s F_n
//! ```
//!
//! `v_t` is the tangential slip of B on A at the contact, `k` (N/m) and `c` (N·s/m) the bristle
//! stiffness and damping. While sticking the force is a stiff spring on the accumulated slip, so
//! a load below `μ_s F_n` is held with a bounded deflection and no creep (regularised Coulomb
//! creeps at `v* F/(μ F_n)`); at `z₀` the force drops from `μ_s F_n` to the sliding `μ_k F_n`
//! (break-away). When `F_n` shrinks, `z` is cut back to the new `z₀` (the reset).
//!
//! Integration: [`super::Engine::evaluate`] uses the stored `z` and records `ż`;
//! [`super::Engine::commit`] advances `z ← z + ż Δt` after the dynamics step and applies the
//! reset. Units: SI.

use tumble_math::Vec3;

/// Friction model of a contact parameter set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Friction {
    /// Frictionless.
    None,
    /// Regularised Coulomb: `μ F_n η(|v|/v*)` against the slip ([`crate::laws::friction`]).
    Coulomb {
        /// Coefficient.
        mu: f64,
        /// Regularisation speed, m/s.
        v_star: f64,
    },
    /// Reset-integrator bristles.
    Bristle(Bristle),
}

/// Bristle parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bristle {
    /// Static (break-away) coefficient `μ_s ≥ μ_k`.
    pub mu_static: f64,
    /// Sliding coefficient `μ_k > 0`.
    pub mu: f64,
    /// Bristle stiffness `k`, N/m.
    pub stiffness: f64,
    /// Bristle damping `c`, N·s/m.
    pub damping: f64,
}

impl Friction {
    /// Checks the coefficients.
    pub fn validate(&self) -> Result<(), String> {
        match *self {
            Friction::None => Ok(()),
            Friction::Coulomb { mu, v_star } => {
                if !(0.0..=crate::MAX_FRICTION).contains(&mu) {
                    return Err(format!("mu must be from 0 to {}, got {mu}", crate::MAX_FRICTION));
                }
                if !(v_star > 0.0 && v_star.is_finite()) {
                    return Err(format!("v_star must be > 0 m/s, got {v_star}"));
                }
                Ok(())
            }
            Friction::Bristle(b) => {
                if !(b.mu > 0.0 && b.mu <= crate::MAX_FRICTION) {
                    return Err(format!("mu must be > 0 and at most {}, got {}", crate::MAX_FRICTION, b.mu));
                }
                if !(b.mu_static >= b.mu && b.mu_static <= crate::MAX_FRICTION) {
                    return Err(format!(
                        "mu_static must be from mu = {} to {}, got {}",
                        b.mu,
                        crate::MAX_FRICTION,
                        b.mu_static
                    ));
                }
                if !(b.stiffness > 0.0 && b.stiffness.is_finite()) {
                    return Err(format!("bristle stiffness must be > 0 N/m, got {}", b.stiffness));
                }
                if !(b.damping >= 0.0 && b.damping.is_finite()) {
                    return Err(format!("bristle damping must be >= 0 N·s/m, got {}", b.damping));
                }
                Ok(())
            }
        }
    }
}

impl Bristle {
    /// Friction force on B and `ż` for deflection `z` (tangent, any length: cut back to `z₀`),
    /// slip `v_t`, normal force `f_n`, contact normal `n`. Returns `(f_B, z_used, ż)`.
    pub fn force(&self, z: &Vec3, v_t: &Vec3, f_n: f64, n: &Vec3) -> (Vec3, Vec3, Vec3) {
        if f_n <= 0.0 {
            return (Vec3::zeros(), Vec3::zeros(), Vec3::zeros());
        }
        let z0 = self.mu * f_n / self.stiffness;
        let mut z = z - n * n.dot(z);
        let len = z.norm();
        if len > z0 {
            z *= z0 / len;
        }
        let len = len.min(z0);
        let saturated = len >= z0 * (1.0 - 1e-12);
        let outward = if len > 0.0 { v_t.dot(&z) / len } else { 0.0 };
        let (gain, zdot) = if saturated && outward > 0.0 {
            (1.0, v_t - z * (outward / len))
        } else if saturated {
            (1.0, *v_t)
        } else {
            (self.mu_static / self.mu, *v_t)
        };
        let mut f = -(gain * self.stiffness * z + self.damping * zdot);
        let cap = self.mu_static * f_n;
        let fl = f.norm();
        if fl > cap {
            f *= cap / fl;
        }
        (f, z, zdot)
    }

    /// `z` after a step `dt` (the reset applied against the current `z₀`).
    pub fn advance(&self, z: &Vec3, zdot: &Vec3, dt: f64, f_n: f64) -> Vec3 {
        let z0 = self.mu * f_n.max(0.0) / self.stiffness;
        let z = z + zdot * dt;
        let len = z.norm();
        if len > z0 { z * (z0 / len) } else { z }
    }
}
