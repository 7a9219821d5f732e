//! Dormand–Prince 5(4) (Dormand & Prince 1980; tableau and controller as in Hairer, Nørsett &
//! Wanner, *Solving ODEs I*, §II.4–5): the fifth-order solution is propagated (local
//! extrapolation), the embedded fourth-order one estimates the error, and the last stage is the
//! first of the next step (FSAL).

use super::{Dopri5Settings, Integrator, OdeSystem};

const C: [f64; 7] = [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0];
const A: [[f64; 6]; 7] = [
    [0.0; 6],
    [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0],
    [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0],
    [19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0, 0.0, 0.0],
    [9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0, 0.0],
    [35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0],
];
/// Fifth-order weights minus the embedded fourth-order weights.
const E: [f64; 7] =
    [71.0 / 57600.0, 0.0, -71.0 / 16695.0, 71.0 / 1920.0, -17253.0 / 339200.0, 22.0 / 525.0, -1.0 / 40.0];
/// Safety factor and step-ratio limits of the controller.
const SAFETY: f64 = 0.9;
const FAC_MIN: f64 = 0.2;
const FAC_MAX: f64 = 10.0;

impl Integrator {
    /// Attempts one step of size `h`. On acceptance `y` holds the new (projected) state.
    /// Returns whether the step was accepted and the next step size the controller proposes.
    pub(super) fn dopri5_step<S: OdeSystem + ?Sized>(
        &mut self,
        sys: &mut S,
        t: f64,
        y: &mut [f64],
        h: f64,
        s: &Dopri5Settings,
    ) -> (bool, f64) {
        let n = y.len();
        if !self.fsal_valid {
            sys.rhs(t, y, &mut self.k[0]);
            self.stats.evaluations += 1;
        }
        for stage in 1..7 {
            for i in 0..n {
                let mut acc = 0.0;
                for (j, a) in A[stage][..stage].iter().enumerate() {
                    acc += a * self.k[j][i];
                }
                self.ytmp[i] = y[i] + h * acc;
            }
            let (_, rest) = self.k.split_at_mut(stage);
            sys.rhs(t + C[stage] * h, &self.ytmp, &mut rest[0]);
        }
        self.stats.evaluations += 6;
        // Stage 7 was evaluated at the fifth-order solution, which is `ytmp`.
        self.ynew.copy_from_slice(&self.ytmp);

        let mut sum = 0.0;
        for i in 0..n {
            let mut e = 0.0;
            for (j, ej) in E.iter().enumerate() {
                e += ej * self.k[j][i];
            }
            let sc = s.atol + s.rtol * y[i].abs().max(self.ynew[i].abs());
            let r = h * e / sc;
            sum += r * r;
        }
        let err = if n == 0 { 0.0 } else { (sum / n as f64).sqrt() };
        if err.is_nan() {
            self.fsal_valid = true;
            return (false, h * FAC_MIN);
        }
        if err <= 1.0 {
            let fac = if err == 0.0 { FAC_MAX } else { (SAFETY * err.powf(-0.2)).clamp(FAC_MIN, FAC_MAX) };
            y.copy_from_slice(&self.ynew);
            sys.project(y);
            self.k.swap(0, 6);
            self.fsal_valid = true;
            (true, h * fac)
        } else {
            // k[0] still holds f(t, y): reuse it on the retry.
            self.fsal_valid = true;
            let fac = (SAFETY * err.powf(-0.2)).clamp(FAC_MIN, 1.0);
            (false, h * fac)
        }
    }
}
