//! `CaptureStudy`: a capture-map scenario's study, its detumble controller and the online
//! pre-capture verdict (capture document, eq. 30), as `tumble capture-map` and
//! `examples/capture_verdict.rs` use them.

use crate::scenario::PyScenario;
use crate::{TumbleError, bad_input};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use tumble_control::capture_check::{CaptureCheck, write_design};
use tumble_math::nalgebra::DVector;
use tumble_sim::capture_map::{CaptureStudy, Controller, write_capture};

/// A capture study built from a `kind = "capture_map"` scenario.
#[pyclass(module = "tumble._tumble", name = "CaptureStudy", subclass)]
pub struct PyCaptureStudy {
    study: CaptureStudy,
    name: String,
    controller: Option<Controller>,
}

fn threads(n: Option<usize>) -> PyResult<usize> {
    match n.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())) {
        0 => Err(bad_input("threads must be at least 1")),
        n => Ok(n),
    }
}

fn vector(v: Option<PyReadonlyArray1<'_, f64>>, default: &DVector<f64>, what: &str) -> PyResult<DVector<f64>> {
    let v = match v {
        Some(v) => DVector::from_column_slice(v.as_slice()?),
        None => default.clone(),
    };
    match v.iter().all(|x| x.is_finite()) {
        true => Ok(v),
        false => Err(bad_input(format!("{what}: every value must be finite"))),
    }
}

#[pymethods]
impl PyCaptureStudy {
    /// The study of `scenario` (a `capture_map` scenario), validated.
    #[new]
    fn new(py: Python<'_>, scenario: &PyScenario) -> PyResult<Self> {
        let sc = &scenario.sc;
        let study = py.detach(|| CaptureStudy::build(sc)).map_err(|e| bad_input(e.to_string()))?;
        Ok(Self { study, name: sc.file.name.clone(), controller: None })
    }

    /// The chaser's pre-capture velocities as the scenario gives them (base `[ω; v]`, then
    /// joint rates; rad/s, m/s).
    #[getter]
    fn chaser_velocity<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.study.v_c.as_slice())
    }

    /// The target's pre-capture velocities `[v_G; ω]` (m/s, rad/s, world axes).
    #[getter]
    fn target_velocity<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.study.v_t.as_slice())
    }

    /// Designs the detumble controller (TVLQR along the nominal post-capture trajectory) and
    /// estimates its funnel from the scenario's sampled captures, on `threads` threads (the
    /// result does not depend on the count), GIL released. Returns the funnel inlet `ρ₀`.
    #[pyo3(signature = (threads = None))]
    fn design(&mut self, py: Python<'_>, threads: Option<usize>) -> PyResult<f64> {
        let n = self::threads(threads)?;
        let study = &self.study;
        let c = py.detach(|| study.controller(n)).map_err(TumbleError::new_err)?;
        let rho0 = c.funnel.rho0;
        self.controller = Some(c);
        Ok(rho0)
    }

    /// The pre-capture verdict: from the chaser's and target's pre-capture velocities (the
    /// scenario's when omitted) and the impulse measured at the grasp (`[N·s; N·m·s]`, world
    /// axes; the true one when omitted), whether the detumble is predicted to succeed
    /// (`V₀ = x₀ᵀS₀x₀ < ρ₀`), with the true outcome simulated. Designs the controller first if
    /// `design()` has not been called.
    /// `joint_angles` (rad) asks the verdict at another pose: refused, naming the joint, outside
    /// `capture.roa.joint_angle_spread` of the design's.
    #[pyo3(signature = (chaser_velocity = None, target_velocity = None, impulse = None, joint_angles = None))]
    fn verdict<'py>(
        &mut self,
        py: Python<'py>,
        chaser_velocity: Option<PyReadonlyArray1<'py, f64>>,
        target_velocity: Option<PyReadonlyArray1<'py, f64>>,
        impulse: Option<PyReadonlyArray1<'py, f64>>,
        joint_angles: Option<PyReadonlyArray1<'py, f64>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        if self.controller.is_none() {
            self.design(py, None)?;
        }
        let v_c = vector(chaser_velocity, &self.study.v_c, "chaser_velocity")?;
        let v_t = vector(target_velocity, &self.study.v_t, "target_velocity")?;
        let measured = impulse.map(|i| vector(Some(i), &self.study.v_t, "impulse")).transpose()?;
        let theta = match joint_angles {
            Some(a) => a.as_slice()?.to_vec(),
            None => self.study.joint_angles().to_vec(),
        };
        let (study, controller) = (&self.study, self.controller.as_ref());
        let controller = controller.ok_or_else(|| TumbleError::new_err("no controller"))?;
        let v = py
            .detach(|| study.verdict_at(controller, &theta, &v_c, &v_t, measured.as_ref()))
            .map_err(|e| bad_input(format!("verdict: {e}")))?;
        let out = PyDict::new(py);
        out.set_item("safe", v.safe)?;
        out.set_item("v0_predicted", v.v0_predicted)?;
        out.set_item("v0", v.v0)?;
        out.set_item("rho0", v.rho0)?;
        out.set_item("margin", v.v0_predicted / v.rho0)?;
        out.set_item("detumbled", v.rollout.success)?;
        out.set_item("final_rate", v.rollout.final_rate)?;
        out.set_item("max_excursion", v.rollout.max_excursion)?;
        out.set_item("failure", v.rollout.failure.clone())?;
        out.set_item("state", PyArray1::from_slice(py, v.state.as_slice()))?;
        out.set_item("impulse", PyArray1::from_slice(py, v.impulse.as_slice()))?;
        Ok(out)
    }

    /// The capture maps (capture document) at pre-capture velocities (the scenario's when
    /// omitted): a dict from map name (`constrained`: the constrained impulse, eq. 5, the
    /// reference; `eq18`: the Generalized-Jacobian map with its momentum term; `eq18_as_written`:
    /// with zero momentum; `eq23`: from the measured impulse, the true one when omitted;
    /// `from_impulse`: the chaser-side impulse map) to its post-capture `chaser` velocities,
    /// `target` `[v_G; ω]` (world), `impulse` `[N·s; N·m·s]` and `rcond`.
    #[pyo3(signature = (chaser_velocity = None, target_velocity = None, impulse = None))]
    fn maps<'py>(
        &self,
        py: Python<'py>,
        chaser_velocity: Option<PyReadonlyArray1<'py, f64>>,
        target_velocity: Option<PyReadonlyArray1<'py, f64>>,
        impulse: Option<PyReadonlyArray1<'py, f64>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        use tumble_dynamics::multibody::capture::Slaving;
        let v_c = vector(chaser_velocity, &self.study.v_c, "chaser_velocity")?;
        let v_t = vector(target_velocity, &self.study.v_t, "target_velocity")?;
        let (nv, map) = (self.study.chaser.nv(), &self.study.map);
        if v_c.len() != nv || v_t.len() != 6 {
            return Err(bad_input(format!(
                "maps need {nv} chaser velocities and 6 target velocities; got {} and {}",
                v_c.len(),
                v_t.len()
            )));
        }
        let fail = |e: String| bad_input(format!("capture map: {e}"));
        let reference = map.constrained(&v_c, &v_t).map_err(fail)?;
        let measured = impulse.map(|i| vector(Some(i), &v_t, "impulse")).transpose()?;
        let measured = measured.unwrap_or_else(|| reference.impulse.clone());
        if measured.len() != 6 {
            return Err(bad_input(format!("impulse: 6 components, got {}", measured.len())));
        }
        let out = PyDict::new(py);
        for (name, post) in [
            ("constrained", Ok(reference.clone())),
            ("eq18", map.eq18(&v_c, &v_t, Slaving::Gjm)),
            ("eq18_as_written", map.eq18(&v_c, &v_t, Slaving::GjmZeroMomentum)),
            ("eq23", map.eq23(&v_c, &v_t, &measured)),
            ("from_impulse", map.from_impulse(&v_c, &measured)),
        ] {
            let post = post.map_err(fail)?;
            let d = PyDict::new(py);
            d.set_item("chaser", PyArray1::from_slice(py, post.chaser.as_slice()))?;
            d.set_item("target", PyArray1::from_slice(py, post.target.as_slice()))?;
            d.set_item("impulse", PyArray1::from_slice(py, post.impulse.as_slice()))?;
            d.set_item("rcond", post.rcond)?;
            out.set_item(name, d)?;
        }
        Ok(out)
    }

    /// Writes the designed controller (`design()` first if it has not been called) as a
    /// versioned design file at `path`, the one `tumble capture check` and `CaptureCheck` load.
    fn save_design(&mut self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        if self.controller.is_none() {
            self.design(py, None)?;
        }
        let c = self.controller.as_ref().ok_or_else(|| TumbleError::new_err("no controller"))?;
        write_design(&path, &self.study.design_file(&c.design, &c.funnel)).map_err(TumbleError::new_err)
    }

    /// Runs the whole study as `tumble capture-map` does (maps, design, funnel, verification
    /// samples) and writes its outputs into `out` (default `out/NAME`); returns the summary as
    /// JSON text.
    #[pyo3(signature = (out = None, threads = None))]
    fn _run(&self, py: Python<'_>, out: Option<PathBuf>, threads: Option<usize>) -> PyResult<String> {
        let n = self::threads(threads)?;
        let out = out.unwrap_or_else(|| PathBuf::from("out").join(&self.name));
        let study = &self.study;
        py.detach(|| {
            let rep = study.run(n, &|_, _| {}).map_err(TumbleError::new_err)?;
            let summary = write_capture(&out, study, &rep).map_err(TumbleError::new_err)?;
            Ok(summary.to_string())
        })
    }
}

/// The online pre-capture check from a saved design (`design.json`): loaded once, then a
/// verdict per call without simulating.
#[pyclass(module = "tumble._tumble", name = "CaptureCheck", frozen)]
pub struct PyCaptureCheck {
    check: CaptureCheck,
}

#[pymethods]
impl PyCaptureCheck {
    /// Loads and validates the design file at `path`.
    #[new]
    fn new(path: PathBuf) -> PyResult<Self> {
        Ok(Self { check: CaptureCheck::load(&path).map_err(bad_input)? })
    }

    /// Chaser velocity coordinates a verdict takes (base `[ω; v]`, then joint rates).
    #[getter]
    fn chaser_velocities(&self) -> usize {
        self.check.chaser_velocities()
    }

    /// The verdict for pre-capture `chaser_velocity` (nv), `target_velocity` (`[v_G; ω]`) and
    /// the `impulse` measured at the grasp (`[N·s; N·m·s]`, world axes): a dict with `safe`,
    /// `V0`, `rho0`, `margin` (`V0/rho0`) and the predicted post-capture `state`.
    /// `joint_angles` (rad) and `target_mass` (kg) ask it at another pose or for another target:
    /// refused by name when the design does not cover them.
    #[pyo3(signature = (chaser_velocity, target_velocity, impulse, joint_angles = None, target_mass = None))]
    fn verdict<'py>(
        &self,
        py: Python<'py>,
        chaser_velocity: PyReadonlyArray1<'py, f64>,
        target_velocity: PyReadonlyArray1<'py, f64>,
        impulse: PyReadonlyArray1<'py, f64>,
        joint_angles: Option<PyReadonlyArray1<'py, f64>>,
        target_mass: Option<f64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let angles = joint_angles.as_ref().map(|a| a.as_slice()).transpose()?;
        let asked = tumble_control::capture_check::Asked { joint_angles: angles, target_mass };
        let v = self
            .check
            .verdict_asked(asked, chaser_velocity.as_slice()?, target_velocity.as_slice()?, impulse.as_slice()?)
            .map_err(bad_input)?;
        let out = PyDict::new(py);
        out.set_item("safe", v.safe)?;
        out.set_item("V0", v.v0)?;
        out.set_item("rho0", v.rho0)?;
        out.set_item("margin", v.margin)?;
        out.set_item("state", PyArray1::from_slice(py, v.state.as_slice()))?;
        Ok(out)
    }
}

/// Adds `CaptureStudy` and `CaptureCheck` to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCaptureStudy>()?;
    m.add_class::<PyCaptureCheck>()
}
