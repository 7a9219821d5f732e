//! The building blocks engineers call directly: meshes (read, validate, mass properties),
//! polyhedron gravity at many points, and the LQR.

use crate::{TumbleError, bad_input};
use nalgebra::DMatrix;
use numpy::{PyArray1, PyArray2, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use std::path::PathBuf;
use tumble_dynamics::Gravity;
use tumble_geometry::mesh::{TriMesh, read_mesh};
use tumble_math::Vec3;

/// A float vector and matrix handed to Python.
pub(crate) type Vector<'py> = Bound<'py, PyArray1<f64>>;
pub(crate) type Matrix<'py> = Bound<'py, PyArray2<f64>>;
/// An LQR design: `K`, `S` and the closed-loop eigenvalues `(re, im)`.
type Design<'py> = (Matrix<'py>, Matrix<'py>, Vec<(f64, f64)>);

/// A triangle mesh in metres (faces counter-clockwise seen from outside).
#[pyclass(module = "tumble._tumble", name = "Mesh", frozen)]
pub struct PyMesh {
    mesh: TriMesh,
}

/// Rows of an `n × 3` float array as vectors.
pub(crate) fn points(a: &PyReadonlyArray2<'_, f64>, what: &str) -> PyResult<Vec<Vec3>> {
    let shape = a.shape();
    if shape[1] != 3 {
        return Err(bad_input(format!("{what}: expected an array of shape (n, 3), got {shape:?}")));
    }
    let v = a.as_array();
    let out: Vec<Vec3> = v.rows().into_iter().map(|r| Vec3::new(r[0], r[1], r[2])).collect();
    if out.iter().any(|p| !p.iter().all(|x| x.is_finite())) {
        return Err(bad_input(format!("{what}: every coordinate must be finite")));
    }
    Ok(out)
}

impl PyMesh {
    /// The mesh.
    pub(crate) fn mesh(&self) -> &TriMesh {
        &self.mesh
    }
}

#[pymethods]
impl PyMesh {
    /// A mesh from vertices (n × 3, m) and faces (m × 3 vertex indices).
    #[new]
    fn new(vertices: PyReadonlyArray2<'_, f64>, faces: PyReadonlyArray2<'_, i64>) -> PyResult<Self> {
        let vertices = points(&vertices, "vertices")?;
        let shape = faces.shape();
        if shape[1] != 3 {
            return Err(bad_input(format!("faces: expected an array of shape (m, 3), got {shape:?}")));
        }
        let n = vertices.len() as i64;
        let mut out = Vec::with_capacity(shape[0]);
        for r in faces.as_array().rows() {
            if r.iter().any(|&i| i < 0 || i >= n) {
                return Err(bad_input(format!("faces: index out of range 0..{n} in {:?}", r.to_vec())));
            }
            out.push([r[0] as u32, r[1] as u32, r[2] as u32]);
        }
        Ok(Self { mesh: TriMesh { vertices, faces: out } })
    }

    /// Reads an OBJ, STL, PLY, PDS or ICQ shape model; `unit` is the file's length unit
    /// (`"m"`, `"km"` or a factor to metres).
    #[staticmethod]
    #[pyo3(signature = (path, unit = "m"))]
    fn read(py: Python<'_>, path: PathBuf, unit: &str) -> PyResult<Self> {
        let unit = unit.parse().map_err(|e: String| bad_input(format!("unit: {e}")))?;
        let mesh = py.detach(|| read_mesh(&path, unit)).map_err(|e| bad_input(format!("{}: {e}", path.display())))?;
        Ok(Self { mesh })
    }

    /// Vertex positions, m (n × 3).
    #[getter]
    fn vertices<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<f64>> {
        let rows: Vec<Vec<f64>> = self.mesh.vertices.iter().map(|v| v.as_slice().to_vec()).collect();
        PyArray2::from_vec2(py, &rows).unwrap_or_else(|_| PyArray2::zeros(py, [0, 3], false))
    }

    /// Faces as vertex indices (m × 3).
    #[getter]
    fn faces<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray2<i64>> {
        let rows: Vec<Vec<i64>> = self.mesh.faces.iter().map(|f| f.iter().map(|&i| i as i64).collect()).collect();
        PyArray2::from_vec2(py, &rows).unwrap_or_else(|_| PyArray2::zeros(py, [0, 3], false))
    }

    /// The validation report as a dict: counts and first instances of non-finite, duplicate
    /// and unused vertices, degenerate faces, boundary (holes), non-manifold and misoriented
    /// edges; the signed volume (m³) and the Euler characteristic.
    fn validate<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = serde_json::to_string(&self.mesh.report()).map_err(|e| TumbleError::new_err(e.to_string()))?;
        py.import("json")?.call_method1("loads", (text,))
    }

    /// Enclosed volume, m³ (signed: positive for outward faces).
    #[getter]
    fn volume(&self) -> f64 {
        self.mesh.volume()
    }

    /// Mass (kg), centre of mass (m) and inertia about it (kg·m², mesh axes) at uniform
    /// `density` (kg/m³).
    fn mass_properties<'py>(&self, py: Python<'py>, density: f64) -> PyResult<(f64, Vector<'py>, Matrix<'py>)> {
        if !(density.is_finite() && density > 0.0) {
            return Err(bad_input(format!("density must be a positive number (kg/m³), got {density}")));
        }
        let m = self.mesh.mass_properties(density);
        let inertia: Vec<Vec<f64>> = (0..3).map(|i| (0..3).map(|j| m.inertia[(i, j)]).collect()).collect();
        let inertia = PyArray2::from_vec2(py, &inertia).map_err(|e| TumbleError::new_err(e.to_string()))?;
        Ok((m.mass, PyArray1::from_slice(py, m.com.as_slice()), inertia))
    }

    fn __repr__(&self) -> String {
        format!("Mesh({} vertices, {} faces)", self.mesh.vertices.len(), self.mesh.faces.len())
    }
}

/// Gravity of a homogeneous polyhedron (Werner–Scheeres) of `density` (kg/m³) at `points`
/// (n × 3, m, the mesh's frame): accelerations (n × 3, m/s²) and potentials (n, J/kg, negative),
/// computed with the GIL released.
#[pyfunction]
fn polyhedron_gravity<'py>(
    py: Python<'py>,
    mesh: &PyMesh,
    density: f64,
    points_m: PyReadonlyArray2<'py, f64>,
) -> PyResult<(Matrix<'py>, Vector<'py>)> {
    let p = points(&points_m, "points")?;
    let field = tumble_dynamics::Polyhedron::new(&mesh.mesh, density).map_err(|e| bad_input(e.to_string()))?;
    let (acc, pot): (Vec<Vec<f64>>, Vec<f64>) =
        py.detach(|| p.iter().map(|x| (field.acceleration(x).as_slice().to_vec(), field.potential(x))).unzip());
    let acc = if acc.is_empty() {
        PyArray2::zeros(py, [0, 3], false)
    } else {
        PyArray2::from_vec2(py, &acc).map_err(|e| TumbleError::new_err(e.to_string()))?
    };
    Ok((acc, PyArray1::from_vec(py, pot)))
}

/// A 2-D numpy array as a matrix.
pub(crate) fn matrix(a: &PyReadonlyArray2<'_, f64>) -> DMatrix<f64> {
    let v = a.as_array();
    DMatrix::from_fn(v.nrows(), v.ncols(), |i, j| v[[i, j]])
}

/// A matrix as a 2-D numpy array.
pub(crate) fn to_py<'py>(py: Python<'py>, m: &DMatrix<f64>) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let rows: Vec<Vec<f64>> = (0..m.nrows()).map(|i| m.row(i).iter().copied().collect()).collect();
    if rows.is_empty() {
        return Ok(PyArray2::zeros(py, [0, m.ncols()], false));
    }
    PyArray2::from_vec2(py, &rows).map_err(|e| TumbleError::new_err(e.to_string()))
}

/// The continuous-time LQR of `(A, B, Q, R, N)`: the gain `K` (`u = −K x`), the Riccati
/// solution `S` and the closed-loop eigenvalues (complex).
#[pyfunction]
#[pyo3(signature = (a, b, q, r, n = None))]
fn lqr<'py>(
    py: Python<'py>,
    a: PyReadonlyArray2<'py, f64>,
    b: PyReadonlyArray2<'py, f64>,
    q: PyReadonlyArray2<'py, f64>,
    r: PyReadonlyArray2<'py, f64>,
    n: Option<PyReadonlyArray2<'py, f64>>,
) -> PyResult<Design<'py>> {
    let (a, b, q, r) = (matrix(&a), matrix(&b), matrix(&q), matrix(&r));
    let n = n.map(|n| matrix(&n));
    let design = py
        .detach(|| tumble_control::lqr::lqr(&a, &b, &q, &r, n.as_ref()))
        .map_err(|e| bad_input(format!("lqr: {e}")))?;
    let eig = design.closed_loop.iter().map(|c| (c.re, c.im)).collect();
    Ok((to_py(py, &design.k)?, to_py(py, &design.s)?, eig))
}

/// Adds the building blocks to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyMesh>()?;
    m.add_function(wrap_pyfunction!(polyhedron_gravity, m)?)?;
    m.add_function(wrap_pyfunction!(lqr, m)?)?;
    Ok(())
}
