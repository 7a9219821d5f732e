//! `Simulation`: any scenario built and stepped by the pipeline's `Driver`.
//!
//! The lander, the asteroid capture, articulated arms and rigid bodies step one accepted step
//! per `step()`, with inputs between steps (a hop, a thrust command, joint forces); the other
//! applications (membrane drop, mechanism, snare wire, grapple) run whole inside the engine
//! on `run()`. A finished run holds its time series as a `Table` and its `summary.json`.

use crate::job::Job;
use crate::scenario::PyScenario;
use crate::{SimulationError, TumbleError, bad_input};
use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;
use tumble_math::Vec3;
use tumble_sim::arm::{ArmModel, ArmSim, ArmSummary};
use tumble_sim::lander::{LanderSim, LanderSystem};
use tumble_sim::mechanism::{Mechanism, MechanismSim};
use tumble_sim::membrane::{MembraneDrop, MembraneSim};
use tumble_sim::membrane_capture::{AsteroidCapture, AsteroidCaptureSim, CaptureSummary};
use tumble_sim::pipeline::{Diagnosis, Driver, Events, Simulation, StepReport, Stop};
use tumble_sim::{Model, RigidSim, Scenario, Table};

/// The pipeline's driver of a steppable application.
enum Stepper {
    Lander(Box<Driver<LanderSim<Box<LanderSystem>>>>),
    Arm(Box<Driver<ArmSim<Box<ArmModel>>>>),
    Capture(Box<Driver<AsteroidCaptureSim<Arc<AsteroidCapture>>>>),
    Rigid(Box<Driver<RigidSim<Box<Model>>>>),
    Drop(Box<Driver<MembraneSim<Arc<MembraneDrop>>>>),
    Mechanism(Box<Driver<MechanismSim<Arc<Mechanism>>>>),
    /// An application the engine runs whole.
    Whole,
}

/// `$body` with `$d` bound to the driver of the steppable application `$stepper` holds, or
/// `$whole` for one the engine runs whole: the one place that lists the steppable kinds.
macro_rules! with_driver {
    ($stepper:expr, $d:ident => $body:expr, whole => $whole:expr) => {
        match $stepper {
            Stepper::Lander($d) => $body,
            Stepper::Arm($d) => $body,
            Stepper::Capture($d) => $body,
            Stepper::Rigid($d) => $body,
            Stepper::Drop($d) => $body,
            Stepper::Mechanism($d) => $body,
            Stepper::Whole => $whole,
        }
    };
}

/// A finished run: its samples, its summary, how it ended.
struct Finished {
    table: Table,
    summary: Value,
    status: String,
    diagnosis: Option<String>,
}

/// An input applied between steps, kept so that a pickled simulation replays bit for bit.
#[derive(Clone, Debug)]
enum Input {
    Hop([f64; 3]),
    Command(Option<[f64; 6]>),
    JointForces(Vec<f64>),
}

/// A scenario's simulation: built, stepped, read.
#[pyclass(module = "tumble._tumble", name = "Simulation", subclass)]
pub struct PySimulation {
    scenario: Scenario,
    job: Job,
    stepper: Stepper,
    done: Option<Finished>,
    steps: u64,
    events: Vec<(f64, &'static str)>,
    inputs: Vec<(u64, Input)>,
    started: Instant,
}

fn stop_name(stop: Stop) -> &'static str {
    match stop {
        Stop::Completed => "completed",
        Stop::Settled => "settled",
        Stop::Escaped => "escaped",
        Stop::Impact => "impact",
        Stop::Captured => "captured",
    }
}

/// A finished run whose status and diagnosis its summary gives (`status`, else `failed` with a
/// diagnosis, else `completed`).
fn finished(table: Table, summary: Value) -> Finished {
    let diagnosis = summary.get("diagnosis").and_then(Value::as_str).map(String::from);
    let status = match (summary.get("status").and_then(Value::as_str), &diagnosis) {
        (Some(s), _) => s.to_string(),
        (None, Some(_)) => "failed".to_string(),
        (None, None) => "completed".to_string(),
    };
    Finished { table, summary, status, diagnosis }
}

fn summary_error(e: String) -> PyErr {
    TumbleError::new_err(format!("cannot summarise the run: {e}"))
}

fn to_value<T: serde::Serialize>(s: &T) -> PyResult<Value> {
    serde_json::to_value(s).map_err(|e| summary_error(e.to_string()))
}

impl PySimulation {
    fn new(scenario: Scenario) -> PyResult<Self> {
        let job = Job::build(&scenario)?;
        let stepper = match &job {
            Job::Lander(m) => {
                let sim = LanderSim::new(Box::new(m.system.clone()), m.initial_state, &m.settings)
                    .map_err(|e| bad_input(format!("{}: {e}", scenario.path.display())))?;
                let schedule = sim.schedule();
                Stepper::Lander(Box::new(Driver::new(sim, schedule)))
            }
            Job::Arm(m) => {
                let sim = ArmSim::new(m.clone());
                let schedule = sim.schedule();
                Stepper::Arm(Box::new(Driver::new(sim, schedule)))
            }
            Job::Capture(m) => {
                let sim = AsteroidCaptureSim::new(m.clone());
                let schedule = sim.schedule();
                Stepper::Capture(Box::new(Driver::new(sim, schedule)))
            }
            Job::Rigid(_) => {
                // The driver owns a model of its own (a rigid-body model is not `Clone`); the
                // job's copy serves the summary.
                let model = Model::build(&scenario).map_err(|e| bad_input(e.to_string()))?;
                let sim = RigidSim::new(Box::new(model));
                let schedule = sim.schedule();
                Stepper::Rigid(Box::new(Driver::new(sim, schedule)))
            }
            Job::Drop(m) => {
                let sim = MembraneSim::new(m.clone());
                let schedule = sim.schedule();
                Stepper::Drop(Box::new(Driver::new(sim, schedule)))
            }
            Job::Mechanism(m) => {
                let sim =
                    MechanismSim::new(m.clone()).map_err(|d| bad_input(format!("{}: {d}", scenario.path.display())))?;
                let schedule = sim.schedule();
                Stepper::Mechanism(Box::new(Driver::new(sim, schedule)))
            }
            _ => Stepper::Whole,
        };
        Ok(Self {
            scenario,
            job,
            stepper,
            done: None,
            steps: 0,
            events: Vec::new(),
            inputs: Vec::new(),
            started: Instant::now(),
        })
    }

    /// One accepted step of a steppable application; `None` for one the engine runs whole.
    fn step_once(&mut self) -> Option<Result<StepReport, Diagnosis>> {
        let (report, t) = with_driver!(&mut self.stepper, d => (d.step(), d.sim().time()), whole => return None);
        self.steps += 1;
        if let Ok(r) = &report {
            for (e, name) in
                [(Events::CONTACT_START, "contact_start"), (Events::CONTACT_END, "contact_end"), (Events::HOP, "hop")]
            {
                if !r.events.is_empty() && r.events.contains(e) {
                    self.events.push((t, name));
                }
            }
        }
        Some(report)
    }

    /// Steps up to `n` times or to the end; the end, if reached.
    fn advance(&mut self, n: u64) -> PyResult<Option<Result<Stop, Diagnosis>>> {
        if self.done.is_some() {
            return Ok(None);
        }
        for _ in 0..n {
            match self.step_once() {
                None => {
                    return Err(TumbleError::new_err(format!(
                        "a {} simulation runs whole inside the engine: call run() (step() is for every kind but snare and grapple)",
                        self.scenario.kind.name()
                    )));
                }
                Some(Ok(StepReport { stop: Some(stop), .. })) => return Ok(Some(Ok(stop))),
                Some(Ok(_)) => {}
                Some(Err(d)) => return Ok(Some(Err(d))),
            }
        }
        Ok(None)
    }

    /// Runs to the end (a whole run for the applications the engine runs whole).
    fn run_to_end(&mut self) -> PyResult<()> {
        if self.done.is_some() {
            return Ok(());
        }
        if matches!(self.stepper, Stepper::Whole) {
            self.done = Some(self.run_whole()?);
            return Ok(());
        }
        loop {
            if let Some(end) = self.advance(u64::MAX)? {
                return self.finish(end);
            }
        }
    }

    /// Moves the ended driver's record into `done`.
    fn finish(&mut self, end: Result<Stop, Diagnosis>) -> PyResult<()> {
        let wall = self.started.elapsed().as_secs_f64();
        let stepper = std::mem::replace(&mut self.stepper, Stepper::Whole);
        let diagnosis = end.as_ref().err().map(|d| d.to_string());
        let status = match &end {
            Ok(s) => stop_name(*s).to_string(),
            Err(_) => "failed".to_string(),
        };
        let (table, summary) = match (stepper, &self.job) {
            (Stepper::Lander(d), Job::Lander(m)) => {
                let run = d.into_inner().finish(end);
                (tumble_sim::lander::timeseries(&run), tumble_sim::lander::output::summary(m, &run))
            }
            (Stepper::Arm(d), Job::Arm(m)) => {
                let run = d.into_inner().finish(end);
                (run.timeseries(), to_value(&ArmSummary::new(m, &run).map_err(summary_error)?)?)
            }
            (Stepper::Capture(d), Job::Capture(m)) => {
                let mut run = d.into_inner().finish(end);
                run.wall_s = wall;
                let s = CaptureSummary::new(m, &run).map_err(summary_error)?;
                (tumble_sim::membrane_capture::timeseries(&run), to_value(&s)?)
            }
            (Stepper::Rigid(d), Job::Rigid(m)) => {
                let res = d.into_inner().finish(end, wall);
                (res.recording.table(), tumble_sim::rigid_summary(&self.scenario.path, m, &res))
            }
            (Stepper::Drop(d), Job::Drop(m)) => {
                let mut run = d.into_inner().finish(end);
                run.wall_s = wall;
                let s = tumble_sim::membrane::DropSummary::new(m, &run).map_err(summary_error)?;
                let (table, summary) = (tumble_sim::membrane::timeseries(&run), to_value(&s)?);
                self.done = Some(finished(table, summary));
                return Ok(());
            }
            (Stepper::Mechanism(d), Job::Mechanism(m)) => {
                let mut run = d.into_inner().finish(end);
                run.wall_s = wall;
                let s = tumble_sim::mechanism::MechanismSummary::new(m, &run).map_err(summary_error)?;
                let (table, summary) = (tumble_sim::mechanism::timeseries(m, &run), to_value(&s)?);
                self.done = Some(finished(table, summary));
                return Ok(());
            }
            _ => return Err(TumbleError::new_err("internal: the simulation's driver and model disagree")),
        };
        self.done = Some(Finished { table, summary, status, diagnosis });
        Ok(())
    }

    /// Runs an application the engine runs whole.
    fn run_whole(&self) -> PyResult<Finished> {
        let (table, summary) = match &self.job {
            Job::Wire(exp, every) => {
                let run = exp.run().map_err(|e| SimulationError::new_err(format!("simulation failed: {e}")))?;
                let s =
                    tumble_sim::snare::WireSummary::new(&self.scenario.file.name, exp, &run).map_err(summary_error)?;
                (tumble_sim::snare::timeseries(&run, *every), to_value(&s)?)
            }
            Job::Grapple(cap) => {
                let run = cap.run();
                let s = tumble_sim::grapple::GrappleSummary::new(cap, &run).map_err(summary_error)?;
                (tumble_sim::grapple::timeseries(&run), to_value(&s)?)
            }
            _ => return Err(TumbleError::new_err("internal: a steppable application run whole")),
        };
        Ok(finished(table, summary))
    }

    /// Raises the run's diagnosis when it failed.
    fn raise_failure(&self) -> PyResult<()> {
        match &self.done {
            Some(Finished { status, diagnosis: Some(d), .. }) if status == "failed" => {
                Err(SimulationError::new_err(format!("simulation failed: {d}")))
            }
            _ => Ok(()),
        }
    }

    /// The samples so far (of a running steppable simulation) or of the finished run.
    fn table(&self) -> Table {
        if let Some(done) = &self.done {
            return done.table.clone();
        }
        match &self.stepper {
            Stepper::Lander(d) => tumble_sim::lander::timeseries(d.sim().run()),
            Stepper::Arm(d) => d.sim().run().timeseries(),
            Stepper::Capture(d) => tumble_sim::membrane_capture::timeseries(d.sim().run()),
            Stepper::Rigid(d) => d.sim().recording().table(),
            Stepper::Drop(d) => tumble_sim::membrane::timeseries(d.sim().run()),
            Stepper::Mechanism(d) => match &self.job {
                Job::Mechanism(m) => tumble_sim::mechanism::timeseries(m, d.sim().run()),
                _ => Table::default(),
            },
            Stepper::Whole => Table::default(),
        }
    }

    fn apply(&mut self, input: Input) -> PyResult<()> {
        if self.done.is_some() {
            return Err(TumbleError::new_err("the run has ended: inputs apply to a running simulation"));
        }
        let kind = self.scenario.kind.name();
        let wrong = |what: &str| {
            TumbleError::new_err(format!(
                "{what} applies to {}; this is a {kind} simulation",
                match what {
                    "hop" => "lander scenarios",
                    "command" => "membrane_capture scenarios",
                    _ => "arm scenarios",
                }
            ))
        };
        let finite = |v: &[f64], what: &str| -> PyResult<()> {
            match v.iter().all(|x| x.is_finite()) {
                true => Ok(()),
                false => Err(bad_input(format!("{what}: every value must be finite, got {v:?}"))),
            }
        };
        match (&mut self.stepper, &input) {
            (Stepper::Lander(d), Input::Hop(j)) => {
                finite(j, "hop impulse")?;
                d.sim_mut().hop(Vec3::from(*j));
            }
            (Stepper::Capture(d), Input::Command(c)) => {
                if let Some(c) = c {
                    finite(c, "command")?;
                }
                let w = c.map(|c| (Vec3::new(c[0], c[1], c[2]), Vec3::new(c[3], c[4], c[5])));
                d.sim_mut().command(w);
            }
            (Stepper::Arm(d), Input::JointForces(tau)) => {
                finite(tau, "joint forces")?;
                d.sim_mut().set_joint_forces(tau).map_err(bad_input)?;
            }
            (_, Input::Hop(_)) => return Err(wrong("hop")),
            (_, Input::Command(_)) => return Err(wrong("command")),
            (_, Input::JointForces(_)) => return Err(wrong("set_joint_forces")),
        }
        self.inputs.push((self.steps, input));
        Ok(())
    }
}

#[pymethods]
impl PySimulation {
    /// The simulation of `scenario`, built and validated (`ScenarioError` if it cannot be).
    #[new]
    fn py_new(py: Python<'_>, scenario: &PyScenario) -> PyResult<Self> {
        let sc = scenario.sc.clone();
        py.detach(|| Self::new(sc))
    }

    /// Takes `n` accepted steps (fewer if the run ends) with the GIL released. Returns how the
    /// run ended if it did (`"settled"`, `"completed"`, ...), else `None`; raises
    /// `SimulationError` if the guard stopped it.
    #[pyo3(signature = (n = 1))]
    fn step(&mut self, py: Python<'_>, n: u64) -> PyResult<Option<String>> {
        let end = py.detach(|| self.advance(n))?;
        if let Some(end) = end {
            py.detach(|| self.finish(end))?;
            self.raise_failure()?;
        }
        Ok(self.done.as_ref().map(|d| d.status.clone()))
    }

    /// Runs to the end with the GIL released; returns how it ended, or raises
    /// `SimulationError` with the diagnosis (the samples up to the failure stay readable).
    fn run(&mut self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| self.run_to_end())?;
        self.raise_failure()?;
        Ok(self.done.as_ref().map(|d| d.status.clone()).unwrap_or_default())
    }

    /// Simulated time, s.
    #[getter]
    fn time(&self) -> f64 {
        with_driver!(&self.stepper, d => d.sim().time(), whole => {
            let t = self.done.as_ref().and_then(|d| d.table.rows().last().map(|r| r[0]));
            t.unwrap_or(0.0)
        })
    }

    /// Accepted steps taken.
    #[getter]
    fn steps(&self) -> u64 {
        self.steps
    }

    /// How the run ended (`None` while it runs).
    #[getter]
    fn status(&self) -> Option<String> {
        self.done.as_ref().map(|d| d.status.clone())
    }

    /// The diagnosis of a failed run.
    #[getter]
    fn diagnosis(&self) -> Option<String> {
        self.done.as_ref().and_then(|d| d.diagnosis.clone())
    }

    /// The scenario's kind.
    #[getter]
    fn kind(&self) -> &'static str {
        self.scenario.kind.name()
    }

    /// The scenario.
    #[getter]
    fn scenario(&self) -> PyScenario {
        PyScenario { sc: self.scenario.clone() }
    }

    /// The state vector the integrator advances (its layout is the application's; `state()`
    /// names its parts). Empty once the run has ended or for a whole-run application.
    #[getter]
    fn y<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let y: &[f64] = with_driver!(&self.stepper, d => d.sim().y(), whole => &[]);
        PyArray1::from_slice(py, y)
    }

    /// The state by name: numpy arrays (and the lander's `speed` and `rate` as floats) in SI
    /// units; docs/python.md lists each application's names.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        let put = |k: &str, v: &[f64]| out.set_item(k, PyArray1::from_slice(py, v));
        match &self.stepper {
            Stepper::Lander(d) => {
                let y = d.sim().y();
                put("position", &y[0..3])?;
                put("velocity", &y[3..6])?;
                put("attitude", &y[6..10])?;
                put("angular_velocity", &y[10..13])?;
                put("target_attitude", &y[13..17])?;
                put("target_angular_velocity", &y[17..20])?;
                let s = d.sim().snapshot();
                out.set_item("speed", s.kin.v.norm())?;
                out.set_item("rate", s.kin.w.norm())?;
                put("contact_force", s.normal.force.as_slice())?;
                put("friction_force", s.tangential.friction.as_slice())?;
            }
            Stepper::Capture(d) => {
                let y = d.sim().y();
                put("asteroid_position", &y[0..3])?;
                put("asteroid_velocity", &y[3..6])?;
                put("asteroid_attitude", &y[6..10])?;
                put("asteroid_angular_velocity", &y[10..13])?;
                let (p, v) = d.sim().relative();
                put("relative_position", p.as_slice())?;
                put("relative_velocity", v.as_slice())?;
                let c = d.sim().contact();
                put("membrane_force", c.force().as_slice())?;
                put("membrane_torque", c.torque().as_slice())?;
            }
            Stepper::Arm(d) => {
                let m = &d.sim().model().system.model;
                let y = d.sim().y();
                put("q", &y[..m.nq()])?;
                put("v", &y[m.nq()..m.nq() + m.nv()])?;
            }
            Stepper::Rigid(d) => {
                let model = d.sim().model();
                for (i, b) in model.system.bodies.iter().enumerate() {
                    let s = &d.sim().y()[13 * i..13 * (i + 1)];
                    put(&format!("{}.position", b.name), &s[0..3])?;
                    put(&format!("{}.velocity", b.name), &s[3..6])?;
                    put(&format!("{}.attitude", b.name), &s[6..10])?;
                    put(&format!("{}.angular_velocity", b.name), &s[10..13])?;
                }
            }
            Stepper::Drop(d) => {
                let y = d.sim().y();
                put("position", &y[0..3])?;
                put("velocity", &y[3..6])?;
                put("attitude", &y[6..10])?;
                put("angular_velocity", &y[10..13])?;
                let c = d.sim().contact();
                put("membrane_force", c.force().as_slice())?;
                put("membrane_torque", c.torque().as_slice())?;
            }
            Stepper::Mechanism(_) | Stepper::Whole => {}
        }
        Ok(out)
    }

    /// The samples: `(columns, rows × columns array)`, the columns of `timeseries.csv`.
    fn _table<'py>(&self, py: Python<'py>) -> PyResult<(Vec<String>, Bound<'py, PyArray2<f64>>)> {
        let table = self.table();
        let rows: Vec<Vec<f64>> = table.rows().map(<[f64]>::to_vec).collect();
        let array = if rows.is_empty() {
            numpy::PyArray2::zeros(py, [0, table.columns().len()], false)
        } else {
            PyArray2::from_vec2(py, &rows).map_err(|e| TumbleError::new_err(e.to_string()))?
        };
        Ok((table.columns().to_vec(), array))
    }

    /// The finished run's `summary.json` as JSON text.
    fn _summary_json(&self) -> PyResult<String> {
        match &self.done {
            Some(d) => Ok(d.summary.to_string()),
            None => Err(TumbleError::new_err("the run has not ended: call run() (or step() to the end) first")),
        }
    }

    /// Events so far: `(time s, name)` with names `contact_start`, `contact_end`, `hop`.
    fn _events(&self) -> Vec<(f64, &'static str)> {
        self.events.clone()
    }

    /// Lander: fires a hop now, an angular impulse (N·m·s, body axes) from the internal wheel.
    fn hop(&mut self, impulse: [f64; 3]) -> PyResult<()> {
        self.apply(Input::Hop(impulse))
    }

    /// Asteroid capture: a force (N) and torque (N·m) on the bus, bus axes, replacing the
    /// built-in guidance and thrust from the next step on; `None` hands the bus back to it.
    #[pyo3(signature = (force = None, torque = None))]
    fn command(&mut self, force: Option<[f64; 3]>, torque: Option<[f64; 3]>) -> PyResult<()> {
        let c = match (force, torque) {
            (None, None) => None,
            (f, t) => {
                let (f, t) = (f.unwrap_or_default(), t.unwrap_or_default());
                Some([f[0], f[1], f[2], t[0], t[1], t[2]])
            }
        };
        self.apply(Input::Command(c))
    }

    /// Arm: feed-forward joint forces (N·m or N, one per velocity coordinate), held from the
    /// next step on.
    fn set_joint_forces(&mut self, tau: Vec<f64>) -> PyResult<()> {
        self.apply(Input::JointForces(tau))
    }

    /// The inputs applied so far: `(steps before it, kind, values)` with kinds `hop` (3
    /// values), `command` (6, or none for a release) and `joint_forces` (what pickling keeps).
    fn _inputs(&self) -> Vec<(u64, &'static str, Vec<f64>)> {
        self.inputs
            .iter()
            .map(|(at, i)| match i {
                Input::Hop(j) => (*at, "hop", j.to_vec()),
                Input::Command(c) => (*at, "command", c.map_or(vec![], |c| c.to_vec())),
                Input::JointForces(t) => (*at, "joint_forces", t.clone()),
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Simulation(kind='{}', name='{}', t={} s, status={})",
            self.scenario.kind.name(),
            self.scenario.file.name,
            self.time(),
            self.done.as_ref().map_or("running".to_string(), |d| d.status.clone())
        )
    }
}

/// Adds `Simulation` to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySimulation>()
}
