//! Classical Runge–Kutta 4 (Kutta 1901).

use super::{Integrator, OdeSystem};

impl Integrator {
    /// One RK4 step of size `h` in place (no projection).
    pub(super) fn rk4_step<S: OdeSystem + ?Sized>(&mut self, sys: &mut S, t: f64, y: &mut [f64], h: f64) {
        // Slices of one length, combined element by element with iterators: no bounds checks,
        // and the compiler may pack the lanes (each element's arithmetic is unchanged).
        let n = y.len();
        let [k1, k2, k3, k4, ..] = &mut self.k;
        let (k1, k2, k3, k4, yt) = (&mut k1[..n], &mut k2[..n], &mut k3[..n], &mut k4[..n], &mut self.ytmp[..n]);
        let stage = |yt: &mut [f64], y: &[f64], c: f64, k: &[f64]| {
            for ((o, &yi), &ki) in yt.iter_mut().zip(y).zip(k) {
                *o = yi + c * ki;
            }
        };
        sys.rhs(t, y, k1);
        stage(yt, y, 0.5 * h, k1);
        sys.rhs(t + 0.5 * h, yt, k2);
        stage(yt, y, 0.5 * h, k2);
        sys.rhs(t + 0.5 * h, yt, k3);
        stage(yt, y, h, k3);
        sys.rhs(t + h, yt, k4);
        let c = h / 6.0;
        for ((((yi, &a), &b), &d), &e) in y.iter_mut().zip(&*k1).zip(&*k2).zip(&*k3).zip(&*k4) {
            *yi += c * (a + 2.0 * (b + d) + e);
        }
        self.stats.evaluations += 4;
    }
}
