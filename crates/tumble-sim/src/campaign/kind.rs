//! What a campaign's runs are: the [`CampaignKind`] trait each application implements (its
//! result columns, how one run is built and run to its row, its part of the report); the
//! application gives it (`crate::app::Application::campaign`).

use super::{Campaign, RunRow};
use crate::pipeline::ABSURD;
use crate::scenario::Scenario;
use serde_json::Value;
use std::any::Any;
use std::path::Path;

/// A finished run as its campaign row holds it.
#[derive(Clone, Debug)]
pub struct Finished {
    /// How it ended, in the application's words (`settled`, `caught_up`, `completed`, …), or
    /// `failed` when the run's guard stopped it.
    pub status: String,
    /// Results in the order of [`CampaignKind::columns`]; NaN where the run has none.
    pub results: Vec<f64>,
    /// Why it failed (the diagnosis), or empty.
    pub note: String,
}

impl Finished {
    /// A run that ended with `status`, its `results`, and the diagnosis when it failed (the
    /// status is then `failed`).
    ///
    /// A result that is infinite or beyond [`ABSURD`] in magnitude (a product of inputs out of
    /// all physical range, e.g. the energy of a 1e30 kg body, which no state guard sees) is
    /// written as NaN (an empty cell) and fails the run with that reason.
    pub fn new(status: &str, mut results: Vec<f64>, diagnosis: Option<String>) -> Self {
        let absurd = |x: &f64| x.is_infinite() || x.abs() > ABSURD;
        if let Some(k) = results.iter().position(absurd) {
            let note = diagnosis.unwrap_or_else(|| {
                format!(
                    "result {} of the run's row reached {:e}, beyond any physical magnitude ({ABSURD:e}): the run's inputs are out of physical range",
                    k + 1,
                    results[k]
                )
            });
            results.iter_mut().filter(|x| absurd(x)).for_each(|x| *x = f64::NAN);
            return Self { status: "failed".into(), results, note };
        }
        match diagnosis {
            Some(d) => Self { status: "failed".into(), results, note: d },
            None => Self { status: status.into(), results, note: String::new() },
        }
    }
}

/// One application as a campaign runs it. Drawing the dispersions, running in parallel,
/// appending rows to `runs.csv`, resuming and the generic report are the campaign's; what a run
/// is, what its row holds and what the report adds are the kind's.
pub trait CampaignKind: AsAny + Send + Sync {
    /// Result columns of `runs.csv` (`name [unit]`), after the run index, seed and dispersed
    /// values.
    fn columns(&self) -> Vec<String>;

    /// The statuses a run of this kind ends with, besides `failed` and `invalid` (which every
    /// kind has): a merge refuses a shard's row with another.
    fn statuses(&self) -> &'static [&'static str];
    /// Builds (without running) the model of a run's scenario: run 0 is checked this way
    /// before any work.
    fn check(&self, sc: &Scenario) -> Result<(), String>;
    /// Builds and runs one run's scenario; with `dir`, also writes there every output that
    /// `tumble run` writes. An error is a run that could not be built.
    fn run(&self, sc: &Scenario, dir: Option<&Path>) -> Result<Finished, String>;
    /// What this kind adds to the campaign's `summary.json`, with its plots in `plots`.
    fn report(&self, _c: &Campaign, _rows: &[RunRow], _plots: &Path) -> Result<Value, String> {
        Ok(Value::Null)
    }
    /// One line on the finished rows (`tumble mc` prints it): how many runs ended each way.
    fn headline(&self, rows: &[RunRow]) -> String {
        status_counts(rows).iter().map(|(s, n)| format!("{n} {s}")).collect::<Vec<_>>().join(", ")
    }
}

/// A value as [`Any`], for an engine that runs only one kind (the GPU's landers:
/// [`Campaign::kind_as`]); every campaign kind has it.
pub trait AsAny {
    /// `self` as [`Any`].
    fn as_any(&self) -> &dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// How many rows ended each way, in order of status name.
pub fn status_counts(rows: &[RunRow]) -> Vec<(String, usize)> {
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    rows.iter().for_each(|r| *counts.entry(r.status.as_str()).or_default() += 1);
    counts.into_iter().map(|(s, n)| (s.to_string(), n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_absurd_result_fails_the_run_and_is_not_written() {
        let ok = Finished::new("settled", vec![1.0, f64::NAN, -1e30], None);
        assert_eq!(ok.status, "settled");
        let bad = Finished::new("settled", vec![1.0, f64::INFINITY, 2e31], None);
        assert_eq!(bad.status, "failed");
        assert!(bad.note.contains("result 2 of the run's row reached inf"), "{}", bad.note);
        assert!(bad.results[0] == 1.0 && bad.results[1..].iter().all(|x| x.is_nan()));
        // A diagnosis already given is the reason.
        let diagnosed = Finished::new("settled", vec![f64::NEG_INFINITY], Some("blew up".into()));
        assert_eq!((diagnosed.status.as_str(), diagnosed.note.as_str()), ("failed", "blew up"));
    }
}
