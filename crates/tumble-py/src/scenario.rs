//! `Scenario`: a scenario file read and patched by overrides, as `tumble check` reads it.

use crate::bad_input;
use pyo3::prelude::*;
use std::path::PathBuf;
use tumble_sim::Scenario;

/// A scenario read from a TOML file with overrides applied (`Scenario.load`). It pickles as its
/// path and patched text, so a process pool or a distributed executor gets the same scenario;
/// paths inside it (meshes, URDFs) resolve against the scenario file's folder, which the
/// receiving process must see at the same path.
#[pyclass(module = "tumble._tumble", name = "Scenario", frozen)]
pub struct PyScenario {
    pub(crate) sc: Scenario,
}

#[pymethods]
impl PyScenario {
    /// Reads `path` and applies `overrides`, a list of `(dotted.key, TOML value text)` pairs.
    #[staticmethod]
    #[pyo3(signature = (path, overrides = Vec::new()))]
    fn load(py: Python<'_>, path: PathBuf, overrides: Vec<(String, String)>) -> PyResult<Self> {
        let sc = py.detach(|| tumble_sim::registry::load(&path, &overrides)).map_err(|e| bad_input(e.to_string()))?;
        Ok(Self { sc })
    }

    /// The scenario in `text`, as if read from `path`, with `overrides` applied (what unpickling
    /// calls, and what patches a loaded scenario again).
    #[staticmethod]
    #[pyo3(signature = (path, text, overrides = Vec::new()))]
    fn from_text(path: PathBuf, text: String, overrides: Vec<(String, String)>) -> PyResult<Self> {
        let sc = Scenario::from_text(&path, text, &overrides).map_err(|e| bad_input(e.to_string()))?;
        Ok(Self { sc })
    }

    /// The scenario file's path.
    #[getter]
    fn path(&self) -> PathBuf {
        self.sc.path.clone()
    }

    /// What it simulates: `lander`, `arm`, `membrane_capture`, ... (its `kind`).
    #[getter]
    fn kind(&self) -> &str {
        self.sc.kind()
    }

    /// Its `name` (the default output folder's name).
    #[getter]
    fn name(&self) -> String {
        self.sc.file.name.clone()
    }

    /// Its `seed`.
    #[getter]
    fn seed(&self) -> u64 {
        self.sc.file.seed
    }

    /// The TOML text after overrides.
    #[getter]
    fn text(&self) -> String {
        self.sc.text.clone()
    }

    /// Checks that the scenario builds (as `tumble check` does); raises `ScenarioError` if not.
    fn check(&self, py: Python<'_>) -> PyResult<()> {
        let sc = &self.sc;
        py.detach(|| tumble_sim::registry::check(sc).map(|_| ()).map_err(|e| bad_input(e.to_string())))
    }

    fn __reduce__(slf: &Bound<'_, Self>) -> PyResult<(Py<PyAny>, (PathBuf, String))> {
        let from_text = slf.get_type().getattr("from_text")?.unbind();
        let me = slf.get();
        Ok((from_text, (me.sc.path.clone(), me.sc.text.clone())))
    }

    fn __repr__(&self) -> String {
        format!("Scenario('{}', kind='{}', name='{}')", self.sc.path.display(), self.sc.kind(), self.sc.file.name)
    }
}

/// Adds `Scenario` to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyScenario>()
}
