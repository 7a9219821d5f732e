//! The run loop: integrate a model to its end time or a stop event, recording samples and
//! watching for blow-ups.
//!
//! Pipeline per step (inside the integrator): dynamics → integrate → projection; after every
//! accepted step: finiteness and events (impact); at every output sample: the energy guard,
//! then recording. A run that blows up keeps only finite samples and ends with a
//! [`Diagnosis`].

use crate::model::Model;
use crate::record::Recording;
use std::ops::ControlFlow;
use std::time::Instant;
use tumble_dynamics::{BODY_STATE_LEN, Integrator, Method, Stats};
use tumble_math::Vec3;

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Reached the end time.
    Completed,
    /// A stop event ended the run early (not a failure).
    Stopped {
        /// What happened.
        event: String,
    },
    /// The simulation blew up or could not continue.
    Failed(Diagnosis),
}

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

/// Everything a run produced.
pub struct RunResult {
    /// How it ended.
    pub outcome: Outcome,
    /// Recorded samples (finite only).
    pub recording: Recording,
    /// Time of the last good state, s.
    pub t_end: f64,
    /// The last good state vector.
    pub final_state: Vec<f64>,
    /// Integrator counts.
    pub stats: Stats,
    /// Wall-clock time, s.
    pub wall_time: f64,
}

/// The diagnosis of a fixed-step run whose state `y` has stopped being finite after the step of
/// `dt` (s) ending at `t`, naming the step to lower (and `also`, what else to lower where the
/// model knows, or ""); `None` while every component is finite.
pub(crate) fn non_finite(y: &[f64], t: f64, dt: f64, also: &str) -> Option<String> {
    y.iter()
        .any(|x| !x.is_finite())
        .then(|| format!("the state stopped being finite at t = {t:.6} s: lower simulation.dt (now {dt} s){also}"))
}

/// Reason a per-step check stopped the integration.
enum StepStop {
    NonFinite { body: usize },
    Impact { body: usize, distance: f64 },
}

/// Runs `model`, calling `progress(t)` after each output sample.
pub fn simulate(model: &mut Model, progress: &mut dyn FnMut(f64)) -> RunResult {
    let start = Instant::now();
    let n = model.system.bodies.len();
    let mut y = model.initial_state.clone();
    let mut last_good = y.clone();
    let mut t = 0.0;
    let mut t_good = 0.0;
    let mut rec = Recording::new(&model.system);
    let inv0 = model.system.invariants(&y);
    rec.push(0.0, &model.system, &y, &inv0);
    let mut integ = Integrator::new(model.method, y.len());
    let samples = (model.duration / model.output_interval - 1e-9).ceil().max(1.0) as u64;
    let impact = model.impact();
    let mut outcome = Outcome::Completed;

    for k in 1..=samples {
        let t_out = if k == samples { model.duration } else { k as f64 * model.output_interval };
        let mut stop = None;
        let flow = integ.advance_to(&mut model.system, &mut t, &mut y, t_out, &mut |_, y| {
            for (i, b) in y.chunks_exact(BODY_STATE_LEN).enumerate() {
                if b.iter().any(|c| !c.is_finite()) {
                    stop = Some(StepStop::NonFinite { body: i });
                    return ControlFlow::Break(());
                }
                if let Some((c, r)) = impact {
                    let d = (Vec3::new(b[0], b[1], b[2]) - c).norm();
                    if d <= r {
                        stop = Some(StepStop::Impact { body: i, distance: d });
                        return ControlFlow::Break(());
                    }
                }
            }
            ControlFlow::Continue(())
        });
        match (flow, stop) {
            (Err(e), _) => {
                outcome = Outcome::Failed(Diagnosis {
                    time: t,
                    body: None,
                    what: e.to_string(),
                    likely_cause: "the equations are singular or very stiff here (a close pass of an attracting centre, extreme loads); check the scenario's values or loosen simulation.rtol".into(),
                });
                break;
            }
            (Ok(_), Some(StepStop::NonFinite { body })) => {
                outcome = Outcome::Failed(diagnose(
                    model,
                    &last_good,
                    t,
                    body,
                    "the state became non-finite (NaN or infinite)".into(),
                ));
                break;
            }
            (Ok(_), Some(StepStop::Impact { body, distance })) => {
                rec.push(t, &model.system, &y, &model.system.invariants(&y));
                last_good.copy_from_slice(&y);
                t_good = t;
                outcome = Outcome::Stopped {
                    event: format!(
                        "impact: body `{}` reached {distance:.3} m from the attracting centre (gravity.radius) at t = {t:.6} s",
                        model.system.bodies[body].name
                    ),
                };
                break;
            }
            (Ok(_), None) => {}
        }
        let inv = model.system.invariants(&y);
        let growth = inv.energy() - inv.work - (inv0.energy() - inv0.work);
        let scale = (inv0.kinetic + inv0.potential.abs()).max(inv.kinetic + inv.potential.abs());
        if growth > model.max_energy_growth * scale {
            let what = format!(
                "the energy T + V − W grew by {growth:.4e} J, {:.3e} of the energy scale {scale:.4e} J (limit simulation.max_energy_growth = {})",
                growth / scale,
                model.max_energy_growth
            );
            let worst = (0..n)
                .max_by(|&a, &b| {
                    let ka = model.system.body_state(&y, a).kinetic_energy(&model.system.bodies[a]);
                    let kb = model.system.body_state(&y, b).kinetic_energy(&model.system.bodies[b]);
                    ka.total_cmp(&kb)
                })
                .unwrap_or(0);
            outcome = Outcome::Failed(diagnose(model, &last_good, t, worst, what));
            break;
        }
        rec.push(t, &model.system, &y, &inv);
        last_good.copy_from_slice(&y);
        t_good = t;
        progress(t);
    }
    RunResult {
        outcome,
        recording: rec,
        t_end: t_good,
        final_state: last_good,
        stats: integ.stats(),
        wall_time: start.elapsed().as_secs_f64(),
    }
}

/// Names the likely cause of a blow-up from the last good state: a step too large for the
/// fastest motion, or a close pass of a singular attracting centre.
fn diagnose(model: &Model, last_good: &[f64], t: f64, body: usize, what: String) -> Diagnosis {
    let sys = &model.system;
    let mut tau = f64::INFINITY;
    for i in 0..sys.bodies.len() {
        let s = sys.body_state(last_good, i);
        let w = s.w_WB_B.norm();
        if w > 0.0 {
            tau = tau.min(1.0 / w);
        }
        tau = tau.min(sys.gravity.time_scale(&s.p_WB));
    }
    let likely_cause = match model.method {
        Method::Rk4 { dt } | Method::SymplecticEuler { dt } if dt > 0.05 * tau => format!(
            "the time step simulation.dt = {dt} s is too large for the fastest motion in the model (time scale {tau:.4e} s from spin rates and orbital periods); use dt <= {:.3e} s or integrator = \"dopri5\"",
            tau / 20.0
        ),
        _ if model.impact().is_none() && tau.is_finite() && sys.gravity.time_scale(&sys.body_state(last_good, body).p_WB) == tau => {
            "a close pass of the point-mass centre, where gravity is singular; set gravity.radius to stop the run at impact".to_string()
        }
        _ => "extreme values in the scenario (loads, rates) or a singular configuration; check the inputs".to_string(),
    };
    Diagnosis { time: t, body: Some(sys.bodies[body].name.clone()), what, likely_cause }
}
