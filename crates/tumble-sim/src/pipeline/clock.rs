//! The clock of the fixed-step applications: RK4 at `dt`, time `k·dt` (never accumulated), a
//! sample every `every` steps, the run's end after `steps`.

use super::{Schedule, Stop};
use tumble_dynamics::{Integrator, Method, OdeSystem};

/// RK4 at a fixed step with its scratch, the steps taken and the run's length in steps.
#[derive(Clone, Debug)]
pub struct FixedSteps {
    integ: Integrator,
    /// Step, s.
    pub dt: f64,
    /// Steps taken.
    pub k: u64,
    /// Steps in the run.
    pub steps: u64,
    /// Steps between samples.
    pub every: u64,
}

impl FixedSteps {
    /// `round(duration / dt)` steps of `dt` for a state of `n` components, a sample every
    /// `round(output_interval / dt)` steps (at least one).
    pub fn new(n: usize, dt: f64, duration: f64, output_interval: f64) -> Self {
        let every = ((output_interval / dt).round() as u64).max(1);
        Self::with_steps(n, dt, (duration / dt).round() as u64, every)
    }

    /// `steps` steps of `dt`, a sample every `every` steps.
    pub fn with_steps(n: usize, dt: f64, steps: u64, every: u64) -> Self {
        Self { integ: Integrator::new(Method::Rk4 { dt }, n), dt, k: 0, steps, every: every.max(1) }
    }

    /// Time now, s.
    pub fn time(&self) -> f64 {
        self.k as f64 * self.dt
    }

    /// Samples every `every` steps up to the last step.
    pub fn schedule(&self) -> Schedule {
        Schedule { duration: self.steps as f64 * self.dt, output_interval: self.every as f64 * self.dt }
    }

    /// One RK4 step of `sys` from the current time.
    pub fn step<S: OdeSystem + ?Sized>(&mut self, sys: &mut S, y: &mut [f64]) {
        let t = self.time();
        self.integ.step_once(sys, t, y, self.dt);
        self.k += 1;
    }

    /// One step of `sys` from the current time as `parts` RK4 sub-steps of `dt / parts`, with
    /// `stop(sys, t, y)` asked after each: when it holds, the step ends there and the time
    /// reached is returned (the clock does not move on: the run ends at that time); otherwise
    /// the whole step is taken and the clock moves on. For an event inside a step that a
    /// fixed step would jump over.
    pub fn step_parts<S: OdeSystem + ?Sized>(
        &mut self,
        sys: &mut S,
        y: &mut [f64],
        parts: u32,
        mut stop: impl FnMut(&mut S, f64, &[f64]) -> bool,
    ) -> Option<f64> {
        let parts = parts.max(1);
        let (t0, h) = (self.time(), self.dt / f64::from(parts));
        for j in 0..parts {
            let t = t0 + f64::from(j) * h;
            self.integ.step_once(sys, t, y, h);
            let reached = if j + 1 == parts { (self.k + 1) as f64 * self.dt } else { t + h };
            if stop(sys, reached, y) {
                return Some(reached);
            }
        }
        self.k += 1;
        None
    }

    /// Whether the run has taken all its steps.
    pub fn done(&self) -> bool {
        self.k >= self.steps
    }

    /// [`Stop::Completed`] once the run has taken all its steps.
    pub fn stop(&self) -> Option<Stop> {
        self.done().then_some(Stop::Completed)
    }
}
