//! The application interface: what every application gives the shared parts, and what they use
//! of it.
//!
//! An application (a lander, an arm, a mechanism, …) is an [`Application`]: from a scenario it
//! checks its model and starts a [`Run`]. A run is stepped one accepted step at a time by the
//! pipeline's [`Driver`]; between steps it is read by name ([`Run::state`], with units) and
//! steered by name ([`Run::set_input`]); once it ends it gives a [`Report`] (status, diagnosis,
//! the lines `tumble run` prints, `summary.json`, its samples as one [`Table`]) and writes its
//! outputs. `tumble run`, `tumble check`, campaigns and the Python package go through this
//! interface, and `crate::registry` is the one list of applications.
//!
//! An application implements [`Stepping`] on its pipeline simulation (alone, or in a
//! [`WithModel`] beside what it reports against) and gets [`Run`] from [`Stepped`], which owns
//! the driver, checks inputs, collects the events and turns the ended simulation into its
//! report once.

pub mod rerun;

use crate::Table;
use crate::campaign::CampaignKind;
use crate::campaign::dispersion::Dispersion;
use crate::pipeline::{Diagnosis, Driver, EnergyCheck, Events, GuardFailure, Schedule, Simulation, StepReport, Stop};
use crate::scenario::{Scenario, ScenarioError, Sections};
use serde_json::Value;
use std::path::Path;
use std::time::Instant;
use tumble_math::Vec3;

/// One part of a run's state by name: `name`, its SI `unit` and its values (a scalar is one
/// value, a vector three, a quaternion four as `[w, x, y, z]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Quantity {
    /// Its name, `body.part` for a part of a named body (`payload.velocity`).
    pub name: String,
    /// Its unit (`m`, `m/s`, `rad/s`, `1` for a quaternion, `rad|m` for a mixed joint vector).
    pub unit: &'static str,
    /// Its values.
    pub values: Vec<f64>,
    /// Whether it is a scalar (one value that is not a vector of one: a speed, not a 1-dof
    /// joint vector).
    pub scalar: bool,
}

impl Quantity {
    /// `name` in `unit` with `values`.
    pub fn new(name: impl Into<String>, unit: &'static str, values: &[f64]) -> Self {
        Self { name: name.into(), unit, values: values.to_vec(), scalar: false }
    }

    /// The scalar `name` in `unit`.
    pub fn scalar(name: impl Into<String>, unit: &'static str, value: f64) -> Self {
        Self { name: name.into(), unit, values: vec![value], scalar: true }
    }
}

/// An input a run takes between steps.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// Its name, as [`Run::set_input`] takes it (`joint_forces`, `hop`, `thrust`).
    pub name: String,
    /// Its unit.
    pub unit: &'static str,
    /// How many values it takes.
    pub len: usize,
    /// Whether no values release it (the thrust back to the built-in guidance, a wrench back
    /// to none); otherwise it takes exactly [`Input::len`].
    pub release: bool,
    /// What it does, and from when it holds.
    pub what: &'static str,
}

impl Input {
    /// Input `name` of exactly `len` values in `unit`, doing `what`.
    pub fn new(name: impl Into<String>, unit: &'static str, len: usize, what: &'static str) -> Self {
        Self { name: name.into(), unit, len, release: false, what }
    }

    /// The same input, released by no values.
    pub fn releasable(self) -> Self {
        Self { release: true, ..self }
    }
}

/// The force and the torque of a wrench input's six values `[fx, fy, fz, tx, ty, tz]`; none
/// (the input released) is no wrench.
pub fn wrench(values: &[f64]) -> (Vec3, Vec3) {
    match values {
        [fx, fy, fz, tx, ty, tz] => (Vec3::new(*fx, *fy, *fz), Vec3::new(*tx, *ty, *tz)),
        _ => (Vec3::zeros(), Vec3::zeros()),
    }
}

/// Something a step did, at the time it did it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event {
    /// Simulated time, s.
    pub time: f64,
    /// `contact_start`, `contact_end` or `hop`.
    pub name: &'static str,
}

/// An ended run as every caller reads it.
#[derive(Clone, Debug)]
pub struct Report {
    /// How it ended in the application's words (`settled`, `completed`, `rigidised`, …), or
    /// `failed` when the guard stopped it.
    pub status: String,
    /// Why it failed, when it did.
    pub diagnosis: Option<String>,
    /// What `tumble run` prints when it did not fail: a headline, then any details.
    pub lines: Vec<String>,
    /// Its `summary.json`.
    pub summary: Value,
    /// Its samples, the columns of `timeseries.csv`.
    pub table: Table,
}

/// A running simulation of any application.
pub trait Run: Send + Sync {
    /// What the user should know before the run (values that are legal but likely unintended).
    fn warnings(&self) -> Vec<String>;
    /// End of its schedule, s (what a progress bar fills).
    fn duration(&self) -> f64;
    /// Takes one accepted step (see [`Driver::step`]); after the end, reports the end again.
    fn step(&mut self) -> Result<StepReport, Diagnosis>;
    /// How it ended, once it has.
    fn ended(&self) -> Option<Result<Stop, Diagnosis>>;
    /// Simulated time, s.
    fn time(&self) -> f64;
    /// The state vector the integrator advances (its layout is the application's:
    /// [`Run::state`] names its parts); empty once the report is made.
    fn y(&self) -> &[f64];
    /// The state by name, in SI units.
    fn state(&self) -> Vec<Quantity>;
    /// The inputs it takes between steps.
    fn inputs(&self) -> Vec<Input>;
    /// Sets input `name` to `values`, held from the next step on; an unknown name, a wrong
    /// length or a value that is not finite is refused with what would be right.
    fn set_input(&mut self, name: &str, values: &[f64]) -> Result<(), String>;
    /// Events so far, in order.
    fn events(&self) -> &[Event];
    /// The samples so far (those of the report once made).
    fn table(&self) -> Table;
    /// Once the run has ended, makes its report; with `dir`, also writes there everything
    /// `tumble run` writes. Made once: later calls return it again and write nothing.
    fn report(&mut self, dir: Option<&Path>) -> Result<Report, String>;
    /// From now on, a failure whose cause is not measured ([`Diagnosis::step`]) is measured by
    /// `rerun` before it is reported ([`rerun::measure`]); [`crate::registry::start`] sets it.
    fn measure_failures_with(&mut self, _rerun: rerun::Rerun) {}
}

/// Runs `run` to its end, calling `progress(t)` after each output sample.
pub fn run_to_end(run: &mut dyn Run, progress: &mut dyn FnMut(f64)) {
    while run.ended().is_none() {
        match run.step() {
            Ok(r) if r.sampled => progress(run.time()),
            _ => {}
        }
    }
}

/// One application: the models a scenario of its kind describes, run and reported.
pub trait Application: Sync {
    /// The scenario kind it runs: the file's `kind` (`"lander"`).
    fn kind(&self) -> &'static str;
    /// The top-level sections it reads; a file of its kind must have the required ones and no
    /// other besides the optional ones and those every kind shares.
    fn sections(&self) -> Sections;
    /// Builds the model of `sc` and its run at t = 0 without stepping it (so `tumble check`
    /// refuses what `tumble run` would before its first step); its warnings (values that are
    /// legal but likely unintended).
    fn check(&self, sc: &Scenario) -> Result<Vec<String>, ScenarioError> {
        self.start(sc).map(|run| run.warnings())
    }
    /// Builds the model of `sc` and starts its run at t = 0.
    fn start(&self, sc: &Scenario) -> Result<Box<dyn Run>, ScenarioError>;
    /// What a campaign's run of it is, for the nominal `sc` whose runs draw `dispersions`;
    /// by default none (`tumble mc` then says so).
    fn campaign(&self, _sc: &Scenario, _dispersions: &[Dispersion]) -> Result<Box<dyn CampaignKind>, String> {
        Err(format!("kind `{}` has no campaign: its application defines none", self.kind()))
    }
}

/// A pipeline simulation as an application's run: what [`Stepped`] needs beyond
/// [`Simulation`].
pub trait Stepping: Simulation + Send + Sync + Sized {
    /// What the user should know before the run (none unless it says).
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
    /// The state vector the integrator advances (by default the state the guard checks).
    fn y(&self) -> &[f64] {
        Simulation::state(self)
    }
    /// The state by name.
    fn quantities(&self) -> Vec<Quantity>;
    /// The inputs it takes between steps (none unless it says).
    fn inputs(&self) -> Vec<Input> {
        Vec::new()
    }
    /// Sets an input (see [`Run::set_input`]; the name is one [`Stepping::inputs`] gives and
    /// the values are checked finite and of its length, or none for a releasable input, before
    /// this is called).
    fn set_input(&mut self, name: &str, _values: &[f64]) -> Result<(), String> {
        Err(format!("no input `{name}`: this simulation takes none"))
    }
    /// The samples so far.
    fn table(&self) -> Table;
    /// The report of the run that ended with `end` after `wall` s of wall time; with `dir`,
    /// the outputs written there.
    fn report(self, end: Result<Stop, Diagnosis>, wall: f64, dir: Option<&Path>) -> Result<Report, String>;
}

/// Any [`Stepping`] simulation on the pipeline's [`Driver`], as a [`Run`].
pub struct Stepped<S> {
    /// The driver until the report takes the simulation.
    driver: Option<Driver<S>>,
    duration: f64,
    events: Vec<Event>,
    started: Instant,
    /// The report, and the time the run ended at.
    report: Option<(Report, f64)>,
    end: Option<Result<Stop, Diagnosis>>,
    rerun: Option<rerun::Rerun>,
    /// Whether an input was set (a rerun from the scenario would not repeat it).
    steered: bool,
}

impl<S: Stepping + 'static> Stepped<S> {
    /// `sim` sampled on `schedule`, boxed as a run.
    pub fn start(sim: S, schedule: Schedule) -> Box<dyn Run> {
        Box::new(Self {
            driver: Some(Driver::new(sim, schedule)),
            duration: schedule.duration,
            events: Vec::new(),
            started: Instant::now(),
            report: None,
            end: None,
            rerun: None,
            steered: false,
        })
    }

    fn sim(&self) -> Option<&S> {
        self.driver.as_ref().map(Driver::sim)
    }
}

/// The events a step reported, by name.
const EVENT_NAMES: [(Events, &str); 3] =
    [(Events::CONTACT_START, "contact_start"), (Events::CONTACT_END, "contact_end"), (Events::HOP, "hop")];

impl<S: Stepping + 'static> Run for Stepped<S> {
    fn warnings(&self) -> Vec<String> {
        self.sim().map_or_else(Vec::new, Stepping::warnings)
    }

    fn duration(&self) -> f64 {
        self.duration
    }

    fn step(&mut self) -> Result<StepReport, Diagnosis> {
        let Some(d) = self.driver.as_mut() else {
            return match self.end.clone() {
                Some(end) => end.map(|stop| StepReport { stop: Some(stop), ..StepReport::default() }),
                None => Ok(StepReport::default()),
            };
        };
        let report = d.step();
        if let Ok(r) = &report
            && !r.events.is_empty()
        {
            let t = d.sim().time();
            let happened = EVENT_NAMES.iter().filter(|(e, _)| r.events.contains(*e));
            self.events.extend(happened.map(|&(_, name)| Event { time: t, name }));
        }
        if self.end.is_none() {
            self.end = match (d.ended().cloned(), &self.rerun) {
                (Some(Err(failure)), Some(rerun)) => {
                    Some(Err(rerun::measure(failure, rerun, self.started.elapsed(), self.steered)))
                }
                (end, _) => end,
            };
            if let (Err(_), Some(Err(measured))) = (&report, &self.end) {
                return Err(measured.clone());
            }
        }
        report
    }

    fn measure_failures_with(&mut self, rerun: rerun::Rerun) {
        self.rerun = Some(rerun);
    }

    fn ended(&self) -> Option<Result<Stop, Diagnosis>> {
        self.end.clone()
    }

    fn time(&self) -> f64 {
        match (self.sim(), &self.report) {
            (Some(s), _) => s.time(),
            (None, Some((_, t))) => *t,
            (None, None) => 0.0,
        }
    }

    fn y(&self) -> &[f64] {
        self.sim().map_or(&[], Stepping::y)
    }

    fn state(&self) -> Vec<Quantity> {
        self.sim().map_or_else(Vec::new, Stepping::quantities)
    }

    fn inputs(&self) -> Vec<Input> {
        self.sim().map_or_else(Vec::new, Stepping::inputs)
    }

    fn set_input(&mut self, name: &str, values: &[f64]) -> Result<(), String> {
        let Some(d) = self.driver.as_mut().filter(|_| self.end.is_none()) else {
            return Err("the run has ended: inputs apply to a running simulation".into());
        };
        let inputs = d.sim().inputs();
        let Some(input) = inputs.iter().find(|i| i.name == name) else {
            let names: Vec<&str> = inputs.iter().map(|i| i.name.as_str()).collect();
            return Err(match names.is_empty() {
                true => format!("no input `{name}`: this simulation takes none"),
                false => format!("no input `{name}`: this simulation takes {}", names.join(", ")),
            });
        };
        if values.len() != input.len && !(values.is_empty() && input.release) {
            let or_none = if input.release { ", or none to release it" } else { "" };
            return Err(format!(
                "{name}: {} values given; it takes {} ({}){or_none}",
                values.len(),
                input.len,
                input.unit
            ));
        }
        if let Some(bad) = values.iter().find(|x| !x.is_finite()) {
            return Err(format!("{name}: every value must be finite, got {bad}"));
        }
        d.sim_mut().set_input(name, values)?;
        self.steered = true;
        Ok(())
    }

    fn events(&self) -> &[Event] {
        &self.events
    }

    fn table(&self) -> Table {
        match (self.sim(), &self.report) {
            (Some(s), _) => s.table(),
            (None, Some((r, _))) => r.table.clone(),
            (None, None) => Table::default(),
        }
    }

    fn report(&mut self, dir: Option<&Path>) -> Result<Report, String> {
        if let Some((r, _)) = &self.report {
            return Ok(r.clone());
        }
        let Some(end) = self.end.clone() else { return Err("the run has not ended: step it to its end first".into()) };
        let Some(d) = self.driver.take() else { return Err("the run's report could not be made".into()) };
        let t = d.sim().time();
        let r = d.into_inner().report(end, self.started.elapsed().as_secs_f64(), dir)?;
        self.report = Some((r.clone(), t));
        Ok(r)
    }
}

impl Report {
    /// The report of a run that ended with `end`, summarised by `summary`: its status is the
    /// summary's `status` where it has one, else `failed` with a diagnosis (the summary's, or
    /// the end's), else the stop's name.
    pub fn new(end: &Result<Stop, Diagnosis>, summary: Value, table: Table, lines: Vec<String>) -> Self {
        let diagnosis = match (summary.get("diagnosis").and_then(Value::as_str), end) {
            (Some(d), _) => Some(d.to_string()),
            (None, Err(d)) => Some(d.to_string()),
            (None, Ok(_)) => None,
        };
        let status = match (summary.get("status").and_then(Value::as_str), &diagnosis, end) {
            (Some(s), _, _) => s.to_string(),
            (None, Some(_), _) | (None, None, Err(_)) => "failed".to_string(),
            (None, None, Ok(stop)) => stop.name().to_string(),
        };
        Self { status, diagnosis, lines, summary, table }
    }
}

/// Where a report says its outputs are: the folder, or that they were not written.
pub fn shown(dir: Option<&Path>) -> std::path::PathBuf {
    dir.map_or_else(|| "(not written)".into(), Path::to_path_buf)
}

/// A pipeline simulation beside what its run reports against (its model, the scenario's
/// file): stepped as the simulation itself.
pub struct WithModel<S, M> {
    /// The simulation.
    pub sim: S,
    /// What its report needs besides.
    pub model: M,
}

impl<S: Simulation, M> Simulation for WithModel<S, M> {
    fn time(&self) -> f64 {
        self.sim.time()
    }
    fn advance(&mut self, until: f64) -> Result<(), Diagnosis> {
        self.sim.advance(until)
    }
    fn state(&self) -> &[f64] {
        self.sim.state()
    }
    fn observe(&mut self) -> StepReport {
        self.sim.observe()
    }
    fn max_speed(&self) -> f64 {
        self.sim.max_speed()
    }
    fn energy(&self) -> Option<EnergyCheck> {
        self.sim.energy()
    }
    fn record(&mut self) {
        self.sim.record()
    }
    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis {
        self.sim.diagnose(failure)
    }
}

/// `summary` as JSON, for a [`Report`].
pub fn to_json<T: serde::Serialize>(summary: &T) -> Result<Value, String> {
    serde_json::to_value(summary).map_err(|e| format!("cannot summarise the run: {e}"))
}
