//! `Simulation`: any scenario's run from the registry, stepped one accepted step per `step()`,
//! its state and inputs by name (the application names them: nothing here knows a layout or
//! a kind). A finished run holds its time series as a `Table` and its `summary.json`.

use crate::scenario::PyScenario;
use crate::{SimulationError, TumbleError, bad_input};
use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use tumble_math::output;
use tumble_sim::app::{Report, Run};
use tumble_sim::{Scenario, Table, registry};

/// A scenario's simulation: built, stepped, read.
#[pyclass(module = "tumble._tumble", name = "Simulation", subclass)]
pub struct PySimulation {
    scenario: Scenario,
    run: Box<dyn Run>,
    done: Option<Report>,
    steps: u64,
    /// Inputs applied so far, kept so that a pickled simulation replays bit for bit: the
    /// steps taken before each, its name and values.
    inputs: Vec<(u64, String, Vec<f64>)>,
    /// The folder the finished run writes its outputs into (as `tumble run --out`), if any.
    out: Option<PathBuf>,
}

impl PySimulation {
    fn new(scenario: Scenario, out: Option<PathBuf>) -> PyResult<Self> {
        if let Some(dir) = &out {
            output::check_folder(dir).map_err(|e| {
                TumbleError::new_err(format!("{}: cannot be an output folder (out): {e}", dir.display()))
            })?;
        }
        let run = registry::start(&scenario).map_err(|e| bad_input(e.to_string()))?;
        Ok(Self { scenario, run, done: None, steps: 0, inputs: Vec::new(), out })
    }

    /// Steps up to `n` times or to the end; makes the report once the run has ended.
    fn advance(&mut self, n: u64) -> PyResult<()> {
        for _ in 0..n {
            if self.run.ended().is_some() {
                break;
            }
            let _ = self.run.step();
            self.steps += 1;
        }
        if self.run.ended().is_some() && self.done.is_none() {
            if let Some(dir) = &self.out {
                output::folder(dir).map_err(|e| {
                    TumbleError::new_err(format!("{}: cannot create the output folder: {e}", dir.display()))
                })?;
            }
            self.done = Some(self.run.report(self.out.as_deref()).map_err(TumbleError::new_err)?);
        }
        Ok(())
    }

    /// Raises the run's diagnosis when it failed.
    fn raise_failure(&self) -> PyResult<()> {
        match &self.done {
            Some(Report { diagnosis: Some(d), .. }) => Err(SimulationError::new_err(format!("simulation failed: {d}"))),
            _ => Ok(()),
        }
    }

    /// The samples so far (of a running simulation) or of the finished run.
    fn table(&self) -> Table {
        self.done.as_ref().map_or_else(|| self.run.table(), |d| d.table.clone())
    }

    /// Sets input `name`, refused once the run has ended or for values the input does not take.
    fn apply(&mut self, name: &str, values: Vec<f64>) -> PyResult<()> {
        if self.run.ended().is_some() {
            return Err(TumbleError::new_err("the run has ended: inputs apply to a running simulation"));
        }
        self.run.set_input(name, &values).map_err(bad_input)?;
        self.inputs.push((self.steps, name.to_string(), values));
        Ok(())
    }
}

#[pymethods]
impl PySimulation {
    /// The simulation of `scenario`, built and validated (`ScenarioError` if it cannot be).
    /// Given `out`, the finished run writes its outputs there as `tumble run --out` does
    /// (`TumbleError` for a folder that cannot be one: a link, a file, a file system's root).
    #[new]
    #[pyo3(signature = (scenario, out = None))]
    fn py_new(py: Python<'_>, scenario: &PyScenario, out: Option<PathBuf>) -> PyResult<Self> {
        let sc = scenario.sc.clone();
        py.detach(|| Self::new(sc, out))
    }

    /// Takes `n` accepted steps (fewer if the run ends) with the GIL released. Returns how the
    /// run ended if it did (`"settled"`, `"completed"`, ...), else `None`; raises
    /// `SimulationError` if the guard stopped it.
    #[pyo3(signature = (n = 1))]
    fn step(&mut self, py: Python<'_>, n: u64) -> PyResult<Option<String>> {
        py.detach(|| self.advance(n))?;
        self.raise_failure()?;
        Ok(self.status())
    }

    /// Runs to the end with the GIL released; returns how it ended, or raises
    /// `SimulationError` with the diagnosis (the samples up to the failure stay readable).
    fn run(&mut self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| self.advance(u64::MAX))?;
        self.raise_failure()?;
        Ok(self.status().unwrap_or_default())
    }

    /// Simulated time, s.
    #[getter]
    fn time(&self) -> f64 {
        self.run.time()
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
    fn kind(&self) -> &str {
        self.scenario.kind()
    }

    /// The scenario.
    #[getter]
    fn scenario(&self) -> PyScenario {
        PyScenario { sc: self.scenario.clone() }
    }

    /// The state vector the integrator advances (its layout is the application's; `state()`
    /// names its parts). Empty once the run has ended.
    #[getter]
    fn y<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.run.y())
    }

    /// The state by name, SI units: numpy arrays, floats for scalars; `state_units()` gives
    /// each name's unit. Empty once the run has ended.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        for q in self.run.state() {
            match q.scalar {
                true => out.set_item(&q.name, q.values[0])?,
                false => out.set_item(&q.name, PyArray1::from_slice(py, &q.values))?,
            }
        }
        Ok(out)
    }

    /// The unit of each name `state()` gives.
    fn state_units(&self) -> Vec<(String, &'static str)> {
        self.run.state().into_iter().map(|q| (q.name, q.unit)).collect()
    }

    /// The inputs this simulation takes between steps: `(name, unit, number of values, what it
    /// does)`.
    fn inputs(&self) -> Vec<(String, &'static str, usize, &'static str)> {
        self.run.inputs().into_iter().map(|i| (i.name, i.unit, i.len, i.what)).collect()
    }

    /// Sets input `name` (see `inputs()`) to `values`, held from the next step on; no values
    /// release an input that can be released.
    #[pyo3(signature = (name, values = Vec::new()))]
    fn set_input(&mut self, name: &str, values: Vec<f64>) -> PyResult<()> {
        self.apply(name, values)
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
        self.run.events().iter().map(|e| (e.time, e.name)).collect()
    }

    /// Lander: fires a hop now, an angular impulse (N·m·s, body axes) from the internal wheel
    /// (the input `hop`).
    fn hop(&mut self, impulse: [f64; 3]) -> PyResult<()> {
        self.apply("hop", impulse.to_vec())
    }

    /// Asteroid capture: a force (N) and torque (N·m) on the bus, bus axes, replacing the
    /// built-in guidance and thrust from the next step on; `None` hands the bus back to it (the
    /// input `thrust`).
    #[pyo3(signature = (force = None, torque = None))]
    fn command(&mut self, force: Option<[f64; 3]>, torque: Option<[f64; 3]>) -> PyResult<()> {
        let values = match (force, torque) {
            (None, None) => vec![],
            (f, t) => [f.unwrap_or_default(), t.unwrap_or_default()].concat(),
        };
        self.apply("thrust", values)
    }

    /// Arm, grapple or mechanism on an arm: feed-forward joint forces (N·m or N, one per
    /// velocity coordinate), held from the next step on (the input `joint_forces`).
    fn set_joint_forces(&mut self, tau: Vec<f64>) -> PyResult<()> {
        self.apply("joint_forces", tau)
    }

    /// The inputs applied so far: `(steps before it, name, values)` (what pickling keeps).
    fn _inputs(&self) -> Vec<(u64, String, Vec<f64>)> {
        self.inputs.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Simulation(kind='{}', name='{}', t={} s, status={})",
            self.scenario.kind(),
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
