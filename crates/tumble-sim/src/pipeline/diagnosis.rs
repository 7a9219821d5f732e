//! Why a run failed, in one type for every application.

/// Why a run failed, for a person to act on.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnosis {
    /// Simulated time of the failure, s.
    pub time: f64,
    /// The body concerned, when one is.
    pub body: Option<String>,
    /// What was observed.
    pub what: String,
    /// The likely cause and what to change.
    pub likely_cause: String,
    /// The fixed step `simulation.dt` (s) of a run whose cause is not yet measured, and the
    /// cause if it is not the step: a run started by the registry measures it by rerunning at
    /// smaller steps ([`crate::app::rerun`]); `None` once measured, or where the application
    /// measured it itself.
    pub step: Option<(f64, String)>,
}

impl Diagnosis {
    /// A diagnosis at `time` (s) concerning no particular body.
    pub fn new(time: f64, what: impl Into<String>, likely_cause: impl Into<String>) -> Self {
        Self { time, body: None, what: what.into(), likely_cause: likely_cause.into(), step: None }
    }

    /// This diagnosis (its `likely_cause` the cause if not the step) to be measured by
    /// rerunning at steps below `dt` (s); until it is, it names both causes.
    pub fn step_unmeasured(self, dt: f64) -> Self {
        let likely_cause =
            format!("the time step simulation.dt = {dt} s or, if not, {} (not measured)", self.likely_cause);
        Self { step: Some((dt, self.likely_cause)), likely_cause, ..self }
    }
}

/// The diagnosis of an adaptive integration that ran out of steps before `duration` (s): it
/// took `simulation.max_steps` of them, or its step shrank below the floor `h_min` at which
/// the run would take more than the larger of the budget and [`crate::scenario::MAX_STEPS`].
/// `motion(h)` names the fastest motion when it explains a step `h`
/// (turns by at least 0.01 rad in it); a step that shrank without one is left to the
/// application's own words (`None`), as is every other failure.
pub fn step_budget_spent(
    e: &tumble_dynamics::IntegrationError,
    duration: f64,
    motion: impl Fn(f64) -> Option<String>,
) -> Option<Diagnosis> {
    use tumble_dynamics::IntegrationError::{StepTooSmall, TooManySteps};
    let (t, h, what, cause) = match *e {
        TooManySteps { t, steps, h } => (
            t,
            h,
            format!(
                "{steps} steps (simulation.max_steps) reached t = {t:.6} s of {duration} s; the step had shrunk to {h:.3e} s"
            ),
            motion(h),
        ),
        StepTooSmall { t, h, h_min } => {
            let cause = motion(h)?;
            (
                t,
                h,
                format!(
                    "the step shrank to {h:.3e} s at t = {t:.6} s, below the {h_min:.3e} s at which the run would take more than {:.0e} steps",
                    duration / h_min
                ),
                Some(cause),
            )
        }
    };
    let rest = (duration - t) / h;
    let cause =
        cause.unwrap_or_else(|| "a motion faster than the scenario's time scales (a close pass, stiff loads)".into());
    Some(Diagnosis::new(
        t,
        format!("{what}, so the rest would take about {rest:.1e} more steps"),
        format!("{cause}; raise simulation.max_steps, loosen simulation.rtol, or shorten simulation.duration"),
    ))
}

/// The fastest of `rates` (rad/s, or m/s for a sliding coordinate) as a step-budget diagnosis
/// names it, when it turns by at least 0.01 rad in a step `h` (s): DOPRI5 follows a rotation
/// with 41 steps a turn at rtol 1e-11 (0.15 rad a step) and 162 at rtol 1e-14 (0.039 rad;
/// measured on `orbit.toml` spun to 5e4 rad/s), so a step limited by
/// the rotation passes and one limited by something else (a close pass) does not.
pub fn fastest_motion(rates: impl Iterator<Item = (String, f64)>, h: f64) -> Option<String> {
    let (name, w) = rates.fold((String::new(), 0.0), |m, (n, w)| if w.abs() > m.1 { (n, w.abs()) } else { m });
    (w * h >= 0.01).then(|| {
        format!("the fastest motion: {name} at {w:.3e} rad/s, a turn every {:.3e} s", std::f64::consts::TAU / w)
    })
}

impl std::fmt::Display for Diagnosis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at t = {:.6} s", self.time)?;
        if let Some(b) = &self.body {
            write!(f, ", body `{b}`")?;
        }
        write!(f, ": {}. Likely cause: {}", self.what, self.likely_cause)
    }
}

impl std::error::Error for Diagnosis {}
