//! Time integrators for first-order systems `ẏ = f(t, y)`.
//!
//! | method | order | step | use |
//! |---|---|---|---|
//! | [`Method::Rk4`] | 4 | fixed `dt` | the documents' default (the membrane capture runs RK4 at 0.1 s) |
//! | [`Method::Dopri5`] | 5(4) | adaptive, error per step ≤ `atol + rtol·|y|` | accurate reference runs, smooth problems |
//! | [`Method::SymplecticEuler`] | 1 | fixed `dt` | semi-implicit Euler: velocities first, then positions with the new velocities; bounded energy error for conservative mechanical systems |
//!
//! Constraint manifolds (unit quaternions) are handled by projection after every accepted step
//! ([`OdeSystem::project`]): the exact flow already preserves them, so the projection removes
//! only truncation error and does not bias the dynamics (Hairer, Lubich & Wanner, *Geometric
//! Numerical Integration*, §IV.4).
//!
//! Integrators own their scratch buffers, sized once by [`Integrator::new`]: stepping never
//! allocates.

mod dopri5;
mod rk4;
mod symplectic_euler;

use std::ops::ControlFlow;

/// A first-order system of ODEs.
pub trait OdeSystem {
    /// Length of the state vector.
    fn dim(&self) -> usize;
    /// Writes `ẏ = f(t, y)` into `dydt`.
    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]);
    /// Projects `y` back onto the system's invariant manifold after an accepted step.
    fn project(&self, _y: &mut [f64]) {}
    /// For the semi-implicit Euler method: whether component `i` is a velocity (updated first)
    /// rather than a position (updated with the new velocities).
    fn is_velocity(&self, _i: usize) -> bool {
        false
    }
}

/// Integration method and its settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// Classical fixed-step Runge–Kutta 4 with step `dt` (s).
    Rk4 {
        /// Step, s.
        dt: f64,
    },
    /// Dormand–Prince 5(4) with embedded error estimate and step-size control.
    Dopri5(Dopri5Settings),
    /// Semi-implicit (symplectic) Euler with step `dt` (s).
    SymplecticEuler {
        /// Step, s.
        dt: f64,
    },
}

/// Settings of the adaptive Dormand–Prince method.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dopri5Settings {
    /// Relative tolerance per step.
    pub rtol: f64,
    /// Absolute tolerance per step (units of the state).
    pub atol: f64,
    /// First trial step, s.
    pub h_initial: f64,
    /// Smallest step allowed before the integration is declared failed, s.
    pub h_min: f64,
    /// Largest step, s.
    pub h_max: f64,
    /// Most accepted steps over the integrator's life before it is declared failed (the
    /// motion needs more than the caller allows: a spin much faster than expected, a
    /// tolerance tighter than needed).
    pub max_steps: u64,
}

/// Statistics of an integration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Accepted steps.
    pub steps: u64,
    /// Rejected steps (adaptive methods).
    pub rejected: u64,
    /// Right-hand-side evaluations.
    pub evaluations: u64,
}

/// Why an integration could not continue.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IntegrationError {
    /// The adaptive step fell below `h_min`.
    #[error(
        "step size {h:e} s fell below h_min = {h_min:e} s at t = {t} s: the problem is stiff, singular, or its state became non-finite"
    )]
    StepTooSmall {
        /// Time, s.
        t: f64,
        /// Proposed step, s.
        h: f64,
        /// Minimum step, s.
        h_min: f64,
    },
    /// The adaptive method used up `max_steps` accepted steps.
    #[error("{steps} accepted steps, the most allowed, reached t = {t} s; the step was last {h:e} s")]
    TooManySteps {
        /// Time, s.
        t: f64,
        /// Accepted steps taken.
        steps: u64,
        /// The step the method would try next, s.
        h: f64,
    },
}

/// An integrator: a method plus its scratch storage.
#[derive(Clone, Debug)]
pub struct Integrator {
    method: Method,
    k: [Vec<f64>; 7],
    ytmp: Vec<f64>,
    ynew: Vec<f64>,
    /// Next adaptive step proposal (Dopri5).
    h_next: f64,
    /// Whether `k[0]` holds `f(t, y)` for the current state (first-same-as-last).
    fsal_valid: bool,
    stats: Stats,
    /// The fixed-step approach to an end time in progress.
    segment: Segment,
}

/// A fixed-step approach to `t_end`: `n` steps from `t0`, `i` taken, the last ending at
/// `t_last`.
#[derive(Clone, Copy, Debug)]
struct Segment {
    t0: f64,
    t_end: f64,
    n: u64,
    i: u64,
    t_last: f64,
}

impl Integrator {
    /// An integrator for a system of dimension `n`.
    pub fn new(method: Method, n: usize) -> Self {
        let h_next = match method {
            Method::Dopri5(s) => s.h_initial,
            Method::Rk4 { dt } | Method::SymplecticEuler { dt } => dt,
        };
        Self {
            method,
            k: std::array::from_fn(|_| vec![0.0; n]),
            ytmp: vec![0.0; n],
            ynew: vec![0.0; n],
            h_next,
            fsal_valid: false,
            stats: Stats::default(),
            segment: Segment { t0: f64::NAN, t_end: f64::NAN, n: 0, i: 0, t_last: f64::NAN },
        }
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// Counts so far.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Tells the integrator that the state was changed from outside (an impulse, a reset), so
    /// cached derivatives are stale.
    pub fn invalidate(&mut self) {
        self.fsal_valid = false;
    }

    /// Advances `y` from `*t` to exactly `t_end`, calling `after_step(t, y)` after each accepted
    /// step. The callback may stop the integration early by returning `ControlFlow::Break`;
    /// `*t` then holds the time of that step.
    ///
    /// Fixed-step methods take steps of `dt`, shortening only the last one to land on `t_end`;
    /// `t` is advanced as `t_start + n·dt` so that it does not accumulate round-off.
    pub fn advance_to<S: OdeSystem + ?Sized>(
        &mut self,
        sys: &mut S,
        t: &mut f64,
        y: &mut [f64],
        t_end: f64,
        after_step: &mut dyn FnMut(f64, &[f64]) -> ControlFlow<()>,
    ) -> Result<ControlFlow<()>, IntegrationError> {
        while self.step_toward(sys, t, y, t_end)? {
            if after_step(*t, y).is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    /// Takes one accepted step from `*t` toward `t_end`, landing on it exactly with the last
    /// step; returns false (and takes none) once `*t` has reached it. What a step loop that
    /// checks every accepted step calls; [`Integrator::advance_to`] is this in a loop.
    ///
    /// Fixed-step methods count steps from the time the approach to `t_end` started
    /// (`t_start + n·dt`, no accumulated round-off) and shorten only the last. DOPRI5 retries
    /// rejected steps inside the call; a step cut short to land on `t_end` keeps the earlier
    /// proposal for the next one unless the controller now proposes more.
    pub fn step_toward<S: OdeSystem + ?Sized>(
        &mut self,
        sys: &mut S,
        t: &mut f64,
        y: &mut [f64],
        t_end: f64,
    ) -> Result<bool, IntegrationError> {
        match self.method {
            Method::Rk4 { dt } | Method::SymplecticEuler { dt } => {
                let seg = &mut self.segment;
                if seg.t_end != t_end || seg.t_last != *t {
                    let n = ((t_end - *t) / dt - 1e-9).ceil().max(0.0) as u64;
                    *seg = Segment { t0: *t, t_end, n, i: 0, t_last: *t };
                }
                if seg.i >= seg.n {
                    return Ok(false);
                }
                seg.i += 1;
                let t_i = if seg.i == seg.n { t_end } else { seg.t0 + seg.i as f64 * dt };
                seg.t_last = t_i;
                let h = t_i - *t;
                self.fixed_step(sys, *t, y, h);
                *t = t_i;
                self.stats.steps += 1;
                Ok(true)
            }
            Method::Dopri5(s) => {
                if *t < t_end && self.stats.steps >= s.max_steps {
                    return Err(IntegrationError::TooManySteps { t: *t, steps: self.stats.steps, h: self.h_next });
                }
                while *t < t_end {
                    let h_try = self.h_next.min(s.h_max);
                    let last = *t + h_try >= t_end;
                    let h = if last { t_end - *t } else { h_try };
                    if h < s.h_min && !last {
                        return Err(IntegrationError::StepTooSmall { t: *t, h, h_min: s.h_min });
                    }
                    let (accepted, h_new) = self.dopri5_step(sys, *t, y, h, &s);
                    if accepted {
                        *t = if last { t_end } else { *t + h };
                        self.h_next = if last && h < h_try { h_new.max(h_try) } else { h_new };
                        self.stats.steps += 1;
                        return Ok(true);
                    }
                    self.stats.rejected += 1;
                    self.h_next = h_new;
                    if h_new < s.h_min {
                        return Err(IntegrationError::StepTooSmall { t: *t, h: h_new, h_min: s.h_min });
                    }
                }
                Ok(false)
            }
        }
    }

    /// One step of size `h` from `(t, y)` without step-size control (for Dopri5: the
    /// fifth-order solution whatever its error estimate), followed by the projection.
    /// For convergence studies and benchmarks; simulations use [`Integrator::advance_to`].
    pub fn step_once<S: OdeSystem + ?Sized>(&mut self, sys: &mut S, t: f64, y: &mut [f64], h: f64) {
        match self.method {
            Method::Dopri5(s) => {
                self.fsal_valid = false;
                let loose = Dopri5Settings { rtol: f64::INFINITY, atol: f64::INFINITY, ..s };
                self.dopri5_step(sys, t, y, h, &loose);
            }
            _ => self.fixed_step(sys, t, y, h),
        }
        self.stats.steps += 1;
    }

    fn fixed_step<S: OdeSystem + ?Sized>(&mut self, sys: &mut S, t: f64, y: &mut [f64], h: f64) {
        match self.method {
            Method::Rk4 { .. } => self.rk4_step(sys, t, y, h),
            Method::SymplecticEuler { .. } => self.symplectic_euler_step(sys, t, y, h),
            Method::Dopri5(_) => unreachable!("fixed_step is only called for fixed-step methods"),
        }
        sys.project(y);
    }
}

#[cfg(test)]
mod tests;
