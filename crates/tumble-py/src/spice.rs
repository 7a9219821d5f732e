//! SPICE kernels as Tumble reads them, for checking a mission's kernels from Python.

use crate::bad_input;
use crate::blocks::{Matrix, Vector};
use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use std::path::PathBuf;
use tumble_dynamics::spice::{Epoch, Kernels};

/// Loaded SPICE kernels (LSK, text PCK, binary PCK type 2, SPK types 2 and 3), read by Tumble
/// itself; results in SI units and J2000 axes.
#[pyclass(module = "tumble._tumble", name = "Kernels", frozen)]
pub struct PyKernels {
    k: Kernels,
}

#[pymethods]
impl PyKernels {
    /// Loads `paths` in order (later ones take precedence, as in SPICE).
    #[new]
    fn new(py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<Self> {
        let k = py.detach(|| Kernels::load(&paths)).map_err(|e| bad_input(e.to_string()))?;
        Ok(Self { k })
    }

    /// ET (TDB seconds past J2000) of an epoch `YYYY-MM-DDTHH:MM:SS[.fff] [UTC|TDB]`.
    fn et(&self, epoch: &str) -> PyResult<f64> {
        let e = Epoch::parse(epoch).map_err(bad_input)?;
        self.k.et(&e).map_err(|e| bad_input(e.to_string()))
    }

    /// Position (m) and velocity (m/s) of `target` relative to `observer` (NAIF ids) at `et`,
    /// J2000 axes, geometric.
    fn state<'py>(&self, py: Python<'py>, target: i32, observer: i32, et: f64) -> PyResult<(Vector<'py>, Vector<'py>)> {
        let (p, v) = self.k.state(target, observer, et).map_err(|e| bad_input(e.to_string()))?;
        Ok((PyArray1::from_slice(py, p.as_slice()), PyArray1::from_slice(py, v.as_slice())))
    }

    /// The matrix taking J2000 coordinates to `body`'s body-fixed ones at `et`, and the body's
    /// angular velocity in body axes (rad/s).
    fn rotation<'py>(&self, py: Python<'py>, body: i32, et: f64) -> PyResult<(Matrix<'py>, Vector<'py>)> {
        let r = self.k.rotation(body, et).map_err(|e| bad_input(e.to_string()))?;
        let m = numpy::ndarray::Array2::from_shape_fn((3, 3), |(i, j)| r.r[(i, j)]);
        Ok((PyArray2::from_owned_array(py, m), PyArray1::from_slice(py, r.omega.as_slice())))
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyKernels>()
}
