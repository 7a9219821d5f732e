//! Classical Runge–Kutta 4 (Kutta 1901).

use super::{Integrator, OdeSystem};

impl Integrator {
    /// One RK4 step of size `h` in place (no projection).
    pub(super) fn rk4_step<S: OdeSystem + ?Sized>(&mut self, sys: &mut S, t: f64, y: &mut [f64], h: f64) {
        let [k1, k2, k3, k4, ..] = &mut self.k;
        let yt = &mut self.ytmp;
        sys.rhs(t, y, k1);
        for i in 0..y.len() {
            yt[i] = y[i] + 0.5 * h * k1[i];
        }
        sys.rhs(t + 0.5 * h, yt, k2);
        for i in 0..y.len() {
            yt[i] = y[i] + 0.5 * h * k2[i];
        }
        sys.rhs(t + 0.5 * h, yt, k3);
        for i in 0..y.len() {
            yt[i] = y[i] + h * k3[i];
        }
        sys.rhs(t + h, yt, k4);
        for i in 0..y.len() {
            y[i] += h / 6.0 * (k1[i] + 2.0 * (k2[i] + k3[i]) + k4[i]);
        }
        self.stats.evaluations += 4;
    }
}
