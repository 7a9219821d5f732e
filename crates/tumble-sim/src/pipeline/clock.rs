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

    /// Whether the run has taken all its steps.
    pub fn done(&self) -> bool {
        self.k >= self.steps
    }

    /// [`Stop::Completed`] once the run has taken all its steps.
    pub fn stop(&self) -> Option<Stop> {
        self.done().then_some(Stop::Completed)
    }
}
