//! Measuring the cause of a fixed-step run's failure before naming it, for the applications
//! that do not replay their own steps (the lander, the membrane drop and the 2D trampoline do:
//! `pipeline::replay`): the scenario is rerun from its start at `dt/4`, then `dt/16`, up to
//! the time it failed. A failure that goes away with a smaller step is the step's, and the
//! diagnosis names the step that passed; one that stays is the model's or the input's, and the
//! diagnosis says so with the times the finer runs failed at.
//!
//! A rerun costs about `parts` times the failed run's wall time; a refinement that would take
//! longer than [`BUDGET`] is not tried, and the diagnosis says it was not measured.

use super::Application;
use crate::pipeline::Diagnosis;
use crate::scenario::Scenario;
use std::time::Duration;

/// Reruns the scenario at step `dt` (s) up to time `until` (s): `Ok(None)` when it got there
/// without failing, `Ok(Some(d))` when it failed, `Err` when it could not be rerun.
pub type Rerun = Box<dyn Fn(f64, f64) -> Result<Option<Diagnosis>, String> + Send + Sync>;

/// The longest one rerun may be expected to take, s of wall time.
pub const BUDGET: f64 = 60.0;

/// The refinements tried, in order: sub-steps per step.
const PARTS: [u32; 2] = [4, 16];

/// The rerun of `sc` with `simulation.dt` overridden, started by its application `app`.
pub fn of(sc: &Scenario, app: &'static dyn Application) -> Rerun {
    let sc = sc.clone();
    Box::new(move |dt, until| {
        let set = [("simulation.dt".to_string(), format!("{dt:e}"))];
        let finer = Scenario::from_text(&sc.path, sc.text.clone(), &set).map_err(|e| e.to_string())?;
        let mut run = app.start(&finer).map_err(|e| e.to_string())?;
        while run.ended().is_none() && run.time() < until - 0.5 * dt {
            let _ = run.step();
        }
        Ok(match run.ended() {
            Some(Err(d)) => Some(d),
            _ => None,
        })
    })
}

/// `d` with its cause measured by `rerun` (`spent`: the failed run's wall time; `steered`:
/// whether inputs were set during it, which a rerun does not repeat), or `d` as it is when it
/// needs no measurement.
pub fn measure(d: Diagnosis, rerun: &Rerun, spent: Duration, steered: bool) -> Diagnosis {
    let Some((dt, otherwise)) = d.step.clone() else { return d };
    if steered {
        let why = "inputs were set during the run, which a rerun from the scenario would not repeat";
        return named(d, format!("the time step simulation.dt = {dt} s or, if not, {otherwise} (not measured: {why})"));
    }
    let mut tried = Vec::new();
    for parts in PARTS {
        let expected = spent.as_secs_f64() * f64::from(parts);
        let step = format!("dt/{parts} = {:.3e} s", dt / f64::from(parts));
        if expected > BUDGET {
            tried.push(format!("{step} not tried (about {expected:.0} s of rerun)"));
            return named(
                d,
                format!(
                    "the time step simulation.dt = {dt} s or, if not, {otherwise} (not measured: {})",
                    tried.join("; ")
                ),
            );
        }
        match rerun(dt / f64::from(parts), d.time) {
            Ok(None) => {
                let before = if tried.is_empty() { String::new() } else { format!(" ({})", tried.join("; ")) };
                let cause = format!(
                    "the time step, measured: rerun at {step}, the run passed t = {:.6} s without the guard tripping{before}; take simulation.dt ≤ {:.3e} s",
                    d.time,
                    dt / f64::from(parts)
                );
                return named(d, cause);
            }
            Ok(Some(f)) => tried.push(format!("at {step} it failed too, at t = {:.6} s", f.time)),
            Err(e) => {
                tried.push(format!("{step} could not be rerun: {e}"));
                return named(
                    d,
                    format!(
                        "the time step simulation.dt = {dt} s or, if not, {otherwise} (not measured: {})",
                        tried.join("; ")
                    ),
                );
            }
        }
    }
    named(d, format!("not the time step, measured: {}; so {otherwise}", tried.join("; ")))
}

fn named(d: Diagnosis, likely_cause: String) -> Diagnosis {
    Diagnosis { likely_cause, step: None, ..d }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failing(t: f64) -> Diagnosis {
        Diagnosis::new(t, "the energy grew", "the loads").step_unmeasured(0.1)
    }

    /// The verdicts from reruns that pass or fail at each refinement.
    #[test]
    fn the_cause_is_what_the_reruns_measured() {
        let passes_at = |fine: f64| -> Rerun {
            Box::new(move |dt, until| Ok(if dt <= fine { None } else { Some(Diagnosis::new(until, "x", "y")) }))
        };
        let quick = Duration::from_millis(10);
        let d = measure(failing(2.0), &passes_at(0.025), quick, false);
        assert!(
            d.likely_cause.starts_with("the time step, measured: rerun at dt/4 = 2.500e-2 s"),
            "{}",
            d.likely_cause
        );
        assert!(d.likely_cause.ends_with("take simulation.dt ≤ 2.500e-2 s") && d.step.is_none());
        let d = measure(failing(2.0), &passes_at(0.00625), quick, false);
        assert!(
            d.likely_cause.contains("rerun at dt/16") && d.likely_cause.contains("at dt/4 = 2.500e-2 s it failed too")
        );
        let d = measure(failing(2.0), &passes_at(0.0), quick, false);
        assert!(d.likely_cause.starts_with("not the time step, measured:") && d.likely_cause.ends_with("so the loads"));
        let d = measure(failing(2.0), &passes_at(1.0), Duration::from_secs(100), false);
        assert!(d.likely_cause.contains("(not measured: dt/4 = 2.500e-2 s not tried"), "{}", d.likely_cause);
        let broken: Rerun = Box::new(|_, _| Err("no".into()));
        assert!(measure(failing(2.0), &broken, quick, false).likely_cause.contains("could not be rerun: no"));
        // A diagnosis that needs no measurement is left as it is.
        let plain = Diagnosis::new(1.0, "a", "b");
        assert_eq!(measure(plain.clone(), &broken, quick, false), plain);
        assert!(measure(failing(2.0), &passes_at(1.0), quick, true).likely_cause.contains("inputs were set"));
    }
}
