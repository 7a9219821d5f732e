//! More building blocks: grid signed distance fields, contact-law fits and the TVLQR.

use crate::blocks::{Matrix, Vector, matrix, to_py};
use crate::{TumbleError, bad_input};
use nalgebra::DMatrix;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::cell::RefCell;
use std::path::PathBuf;
use tumble_geometry::sdf::{GridSdf, Sdf};
use tumble_math::Vec3;

/// A grid signed distance field (m, negative inside): trilinear between samples, exact near
/// the surface of the mesh it was built from.
#[pyclass(module = "tumble._tumble", name = "Sdf", frozen)]
pub struct PySdf {
    grid: GridSdf,
}

#[pymethods]
impl PySdf {
    /// Samples a closed, outward mesh's exact signed distance with `resolution` cells along
    /// the longest side of its box, padded by `padding` m (as `tumble sdf build`).
    #[staticmethod]
    #[pyo3(signature = (mesh, resolution, padding = 0.0))]
    fn from_mesh(py: Python<'_>, mesh: &crate::blocks::PyMesh, resolution: usize, padding: f64) -> PyResult<Self> {
        if !(padding.is_finite() && padding >= 0.0) || resolution == 0 {
            return Err(bad_input(format!(
                "resolution must be at least 1 and padding a finite number >= 0 m, got {resolution} and {padding}"
            )));
        }
        let grid =
            py.detach(|| GridSdf::from_mesh(mesh.mesh(), resolution, padding)).map_err(|e| bad_input(e.to_string()))?;
        Ok(Self { grid })
    }

    /// Reads a field written by `save` or `tumble sdf build`.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let grid = py.detach(|| GridSdf::load(&path)).map_err(|e| bad_input(format!("{}: {e}", path.display())))?;
        Ok(Self { grid })
    }

    /// Writes the field (the versioned binary file `tumble sdf query` reads).
    fn save(&self, path: PathBuf) -> PyResult<()> {
        self.grid.save(&path).map_err(|e| TumbleError::new_err(format!("{}: {e}", path.display())))
    }

    /// Signed distances (n, m) and gradients (n × 3) at `points` (n × 3, m), GIL released.
    fn query<'py>(&self, py: Python<'py>, points: PyReadonlyArray2<'py, f64>) -> PyResult<(Vector<'py>, Matrix<'py>)> {
        let p = crate::blocks::points(&points, "points")?;
        let (d, g): (Vec<f64>, Vec<[f64; 3]>) = py.detach(|| {
            p.iter()
                .map(|x| {
                    let (d, g) = self.grid.eval(x);
                    (d, [g.x, g.y, g.z])
                })
                .unzip()
        });
        let g = numpy::ndarray::Array2::from_shape_fn((g.len(), 3), |(i, j)| g[i][j]);
        Ok((PyArray1::from_vec(py, d), PyArray2::from_owned_array(py, g)))
    }

    /// Grid origin (m), spacing (m) and sample counts.
    #[getter]
    fn layout(&self) -> ([f64; 3], f64, [usize; 3]) {
        let o: Vec3 = self.grid.origin;
        ([o.x, o.y, o.z], self.grid.spacing, self.grid.dims)
    }
}

/// Fits a contact law to measured `(δ, F[, δ̇])` (m, N, m/s), as `tumble fit contact`: `model`
/// is `quadratic` (`A δ² + B δ + C`), `power` (`k δ^p [+ c sign(δ̇)|δ̇|^q]`) or
/// `hunt-crossley` (`k δ^p + c δ^p δ̇`). Returns a dict: `names`, `values`, `std_errors`,
/// `r2`, `rss` (N²) and `n`.
#[pyfunction]
#[pyo3(signature = (model, delta, force, velocity = None))]
fn fit_contact<'py>(
    py: Python<'py>,
    model: &str,
    delta: PyReadonlyArray1<'py, f64>,
    force: PyReadonlyArray1<'py, f64>,
    velocity: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyDict>> {
    use tumble_contact::identify::{FitModel, Point, fit};
    let model = match model {
        "quadratic" => FitModel::Quadratic,
        "power" => FitModel::Power,
        "hunt-crossley" => FitModel::HuntCrossley,
        other => return Err(bad_input(format!("model `{other}`: use quadratic, power or hunt-crossley"))),
    };
    let (d, f) = (delta.as_slice()?, force.as_slice()?);
    let v = velocity.as_ref().map(|v| v.as_slice()).transpose()?;
    if d.len() != f.len() || v.is_some_and(|v| v.len() != d.len()) {
        return Err(bad_input("delta, force and velocity must have the same length"));
    }
    let points: Vec<Point> =
        (0..d.len()).map(|i| Point { delta: d[i], force: f[i], velocity: v.map(|v| v[i]) }).collect();
    let r = py.detach(|| fit(model, &points)).map_err(|e| bad_input(format!("fit contact: {e}")))?;
    let out = PyDict::new(py);
    out.set_item("names", r.names.clone())?;
    out.set_item("values", r.values.clone())?;
    out.set_item("std_errors", r.std_errors.clone())?;
    out.set_item("r2", r.r2)?;
    out.set_item("rss", r.rss)?;
    out.set_item("n", r.n)?;
    Ok(out)
}

/// A Python object that must be a 2-D float array, as a matrix.
fn extract_matrix(a: &Bound<'_, PyAny>, what: &str) -> PyResult<DMatrix<f64>> {
    let a: PyReadonlyArray2<'_, f64> =
        a.extract().map_err(|_| bad_input(format!("{what}: expected a 2-D float array")))?;
    Ok(matrix(&a))
}

/// The finite-horizon LQR along a trajectory: the Riccati differential equation integrated
/// backward from `S(t_final) = s_final` in `steps` RK4 steps, with `linearization(t)`
/// returning `(A(t), B(t))`. Returns the times (s), the gains `K(t)` and the solutions `S(t)`,
/// ascending in time. An exception in `linearization` propagates.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (linearization, q, r, s_final, t0, t_final, steps))]
fn tvlqr<'py>(
    py: Python<'py>,
    linearization: Bound<'py, PyAny>,
    q: PyReadonlyArray2<'py, f64>,
    r: PyReadonlyArray2<'py, f64>,
    s_final: PyReadonlyArray2<'py, f64>,
    t0: f64,
    t_final: f64,
    steps: usize,
) -> PyResult<(Vec<f64>, Vec<Matrix<'py>>, Vec<Matrix<'py>>)> {
    let (q, r, s_final) = (matrix(&q), matrix(&r), matrix(&s_final));
    let n = q.nrows();
    if [q.ncols(), s_final.nrows(), s_final.ncols()] != [n; 3] || r.nrows() != r.ncols() || n == 0 {
        return Err(bad_input("tvlqr: Q and S_final must be n × n and R square"));
    }
    let error: RefCell<Option<PyErr>> = RefCell::new(None);
    let lin = |t: f64| -> (DMatrix<f64>, DMatrix<f64>) {
        let zero = || (DMatrix::zeros(n, n), DMatrix::zeros(n, r.nrows()));
        if error.borrow().is_some() {
            return zero();
        }
        let got = linearization.call1((t,)).and_then(|ab| {
            let (a, b): (Bound<'_, PyAny>, Bound<'_, PyAny>) = ab.extract()?;
            let (a, b) = (extract_matrix(&a, "A(t)")?, extract_matrix(&b, "B(t)")?);
            if a.shape() != (n, n) || b.shape() != (n, r.nrows()) {
                return Err(bad_input(format!(
                    "linearization({t}): A must be {n}×{n} and B {n}×{}, got {:?} and {:?}",
                    r.nrows(),
                    a.shape(),
                    b.shape()
                )));
            }
            Ok((a, b))
        });
        got.unwrap_or_else(|e| {
            *error.borrow_mut() = Some(e);
            zero()
        })
    };
    let design = tumble_control::tvlqr(&lin, &q, &r, &s_final, (t0, t_final), steps);
    if let Some(e) = error.into_inner() {
        return Err(e);
    }
    let design = design.map_err(|e| bad_input(format!("tvlqr: {e}")))?;
    let k = design.k.iter().map(|m| to_py(py, m)).collect::<PyResult<_>>()?;
    let s = design.s.iter().map(|m| to_py(py, m)).collect::<PyResult<_>>()?;
    Ok((design.times.clone(), k, s))
}

/// Adds the fields and fits to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PySdf>()?;
    m.add_function(wrap_pyfunction!(fit_contact, m)?)?;
    m.add_function(wrap_pyfunction!(tvlqr, m)?)?;
    Ok(())
}
