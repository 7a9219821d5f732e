//! Finding the cause of a fixed-step run's failure before naming it: the steps since a
//! checkpoint replayed at `dt`, `dt/4` and `dt/16`. An energy growth (or a blow-up) that goes
//! away with a smaller step is the step's; one that stays is the model's or the input's.
//!
//! A run keeps two checkpoints ([`Checkpoints`]), taken every [`EVERY`] steps when the state is
//! observed, so the older one always passed the guard and a replay covers at most `2·EVERY`
//! steps (`32·EVERY` at `dt/16`).

use tumble_dynamics::{Integrator, Method, OdeSystem};

/// Steps between checkpoints.
pub const EVERY: u64 = 256;

/// The refinements a replay tries: sub-steps per step.
const PARTS: [u32; 3] = [1, 4, 16];

/// The two most recent checkpoints `(step, state)`; their buffers are allocated at the start,
/// so keeping them allocates nothing in the step loop.
#[derive(Clone, Debug, Default)]
pub struct Checkpoints {
    older: (Option<u64>, Vec<f64>),
    newer: (Option<u64>, Vec<f64>),
}

impl Checkpoints {
    /// Checkpoints of a run that starts at state `y0` (step 0).
    pub fn start(y0: &[f64]) -> Self {
        Self { older: (None, vec![0.0; y0.len()]), newer: (Some(0), y0.to_vec()) }
    }

    /// At step `k` with state `y` (observed, not yet guarded): kept every [`EVERY`] steps.
    pub fn offer(&mut self, k: u64, y: &[f64]) {
        if k > 0 && k.is_multiple_of(EVERY) && y.len() == self.newer.1.len() {
            std::mem::swap(&mut self.older, &mut self.newer);
            self.newer.0 = Some(k);
            self.newer.1.copy_from_slice(y);
        }
    }

    /// The older checkpoint: a state the guard passed (or the start).
    pub fn older(&self) -> Option<(u64, &[f64])> {
        match (self.older.0, self.newer.0) {
            (Some(k), _) => Some((k, &self.older.1)),
            (None, Some(0)) => Some((0, &self.newer.1)),
            _ => None,
        }
    }
}

/// Replays from step `k0` (state `y0`) to step `k1` at `dt` split into 1, 4 and 16 RK4
/// sub-steps, with `ode`; `measure(ode, t, y)` is the quantity the guard checks at the end (the
/// energy's growth since the run's start, J). Returns `(parts, measured)`, non-finite where the
/// replay blew up.
pub fn replay<S: OdeSystem>(
    ode: &mut S,
    y0: &[f64],
    (k0, k1): (u64, u64),
    dt: f64,
    mut measure: impl FnMut(&mut S, f64, &[f64]) -> f64,
) -> Vec<(u32, f64)> {
    PARTS
        .iter()
        .map(|&parts| {
            let h = dt / f64::from(parts);
            let mut integ = Integrator::new(Method::Rk4 { dt: h }, y0.len());
            let mut y = y0.to_vec();
            for k in k0..k1 {
                for j in 0..parts {
                    integ.step_once(ode, k as f64 * dt + f64::from(j) * h, &mut y, h);
                }
                if y.iter().any(|x| !x.is_finite()) {
                    return (parts, f64::NAN);
                }
            }
            (parts, measure(ode, k1 as f64 * dt, &y))
        })
        .collect()
}

/// The cause the replays measured, and the advice: the step when a finer replay stays within
/// `limit` (the advice the step that did), or when the growth falls with the step but not yet
/// below it; otherwise not the step — `otherwise` says what to look at.
pub fn cause(replays: &[(u32, f64)], limit: f64, dt: f64, t0: f64, otherwise: &str) -> (String, String) {
    let shown: Vec<String> = replays
        .iter()
        .map(|(p, g)| {
            let step = if *p == 1 { "dt".to_string() } else { format!("dt/{p}") };
            if g.is_finite() { format!("{g:.3e} J at {step}") } else { format!("a blow-up at {step}") }
        })
        .collect();
    let measured = format!("replayed from {t0} s: the energy grew {} (limit {limit:.3e} J)", shown.join(", "));
    if replays.first().is_some_and(|(_, g)| *g <= limit) {
        return (
            format!("not reproduced by a replay at the same step (an input changed since?): {measured}"),
            otherwise.to_string(),
        );
    }
    if let Some((p, _)) = replays.iter().find(|(p, g)| *p > 1 && g.is_finite() && *g <= limit) {
        let fine = dt / f64::from(*p);
        return (format!("the time step: {measured}"), format!("take simulation.dt ≤ {fine:.3e} s"));
    }
    let (first, last) = (replays.first().map_or(f64::NAN, |r| r.1), replays.last().map_or(f64::NAN, |r| r.1));
    if last.is_finite() && (!first.is_finite() || last < 0.25 * first) {
        let fine = dt / f64::from(PARTS[PARTS.len() - 1]);
        return (
            format!("the time step, still over the limit at the finest replay: {measured}"),
            format!("take simulation.dt well below {fine:.3e} s"),
        );
    }
    (format!("not the time step: {measured}"), otherwise.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each verdict from replays of given growths (J) against a 1 J limit at a 0.1 s step.
    #[test]
    fn the_cause_follows_what_the_replays_measured() {
        let named = |g: [f64; 3]| cause(&[(1, g[0]), (4, g[1]), (16, g[2])], 1.0, 0.1, 2.0, "look at the model").0;
        let step = cause(&[(1, 3.0), (4, 0.5), (16, 0.01)], 1.0, 0.1, 2.0, "m");
        assert!(step.0.starts_with("the time step: replayed from 2 s") && step.1.contains("2.500e-2 s"), "{step:?}");
        assert!(named([f64::NAN, 0.5, 0.1]).starts_with("the time step:"), "a blow-up at dt that a finer step holds");
        assert!(named([40.0, 8.0, 2.0]).starts_with("the time step, still over"));
        assert!(named([3.0, 2.9, 2.95]).starts_with("not the time step"));
        assert!(named([f64::NAN, f64::NAN, f64::NAN]).starts_with("not the time step"));
        assert!(named([0.5, 0.4, 0.4]).starts_with("not reproduced"));
    }

    /// Checkpoints keep the two latest multiples of `EVERY`; before the second, the start.
    #[test]
    fn the_older_checkpoint_is_one_the_guard_passed() {
        let mut c = Checkpoints::start(&[0.0]);
        assert_eq!(c.older(), Some((0, &[0.0][..])));
        for k in 1..=3 * EVERY {
            c.offer(k, &[k as f64]);
        }
        assert_eq!(c.older(), Some((2 * EVERY, &[(2 * EVERY) as f64][..])));
    }
}
