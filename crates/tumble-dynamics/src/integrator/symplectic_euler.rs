//! Semi-implicit (symplectic) Euler: `v⁺ = v + h a(x, v)`, `x⁺ = x + h ẋ(x, v⁺)`.

use super::{Integrator, OdeSystem};

impl Integrator {
    /// One semi-implicit Euler step of size `h` in place (no projection).
    ///
    /// Two right-hand-side evaluations: the first gives the accelerations at the old state, the
    /// second the position rates (`ṗ = v`, `q̇ = ½ q ⊗ ω`) at the old positions and new velocities.
    pub(super) fn symplectic_euler_step<S: OdeSystem + ?Sized>(&mut self, sys: &mut S, t: f64, y: &mut [f64], h: f64) {
        let [k1, k2, ..] = &mut self.k;
        sys.rhs(t, y, k1);
        for (i, yi) in y.iter_mut().enumerate() {
            if sys.is_velocity(i) {
                *yi += h * k1[i];
            }
        }
        sys.rhs(t, y, k2);
        for (i, yi) in y.iter_mut().enumerate() {
            if !sys.is_velocity(i) {
                *yi += h * k2[i];
            }
        }
        self.stats.evaluations += 2;
    }
}
