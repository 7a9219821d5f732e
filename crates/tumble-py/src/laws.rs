//! `ContactLaw`: the normal contact force laws every contact model shares (tumble-contact's
//! `laws`: `F_n = F_e(δ) + F_d(δ, δ̇)`, never pulling), evaluated on numpy arrays.

use crate::bad_input;
use crate::blocks::Vector;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use tumble_contact::laws::{ContactLaw, Damping, Stiffness};

/// A normal contact force law. Penetration `δ` in m (positive into contact), its rate `δ̇` in
/// m/s (positive closing), force in N; docs/snare.md gives each law's equation and source.
#[pyclass(module = "tumble._tumble", name = "ContactLaw", frozen)]
pub struct PyContactLaw {
    law: ContactLaw,
}

fn checked(law: ContactLaw) -> PyResult<PyContactLaw> {
    law.validate().map_err(|e| bad_input(format!("contact law: {e}")))?;
    Ok(PyContactLaw { law })
}

#[pymethods]
impl PyContactLaw {
    /// Linear spring–dashpot `k δ + c δ̇` (N/m, N·s/m).
    #[staticmethod]
    fn spring_dashpot(k: f64, c: f64) -> PyResult<Self> {
        checked(ContactLaw::spring_dashpot(k, c))
    }

    /// Hertz `k δ^1.5` (N/m^1.5), no damping.
    #[staticmethod]
    fn hertz(k: f64) -> PyResult<Self> {
        checked(ContactLaw::hertz(k))
    }

    /// Hunt–Crossley `k δ^p (1 + α δ̇)` (α in s/m).
    #[staticmethod]
    fn hunt_crossley(k: f64, p: f64, alpha: f64) -> PyResult<Self> {
        checked(ContactLaw::hunt_crossley(k, p, alpha))
    }

    /// Flores et al.: Hunt–Crossley with `α = 8(1 − e)/(5 e v₀)` for a restitution `e`.
    #[staticmethod]
    fn flores(k: f64, p: f64, e: f64) -> PyResult<Self> {
        checked(ContactLaw::flores(k, p, e))
    }

    /// The general power law `k δ^p + c δ^g sign(δ̇)|δ̇|^q`.
    #[staticmethod]
    #[pyo3(signature = (k, p, c = 0.0, g = 0.0, q = 1.0))]
    fn power(k: f64, p: f64, c: f64, g: f64, q: f64) -> PyResult<Self> {
        let damping = if c == 0.0 { Damping::None } else { Damping::Power { c, g, q } };
        checked(ContactLaw { stiffness: Stiffness::Power { k, p }, damping })
    }

    /// Piecewise-linear `F(δ)` through `(δᵢ, Fᵢ)` from `δ₀ = 0`, no damping.
    #[staticmethod]
    fn table(delta: Vec<f64>, force: Vec<f64>) -> PyResult<Self> {
        checked(ContactLaw { stiffness: Stiffness::Table { delta, force }, damping: Damping::None })
    }

    /// The snare-wire document's identified wire law (Table 4) for a wire of size `s_mm`
    /// (40, 65 or 90 mm).
    #[staticmethod]
    fn snare_wire(s_mm: u32) -> PyResult<Self> {
        let law = ContactLaw::snare_wire_table4(s_mm)
            .ok_or_else(|| bad_input(format!("snare wire size {s_mm} mm: Table 4 has 40, 65 and 90 mm")))?;
        checked(law)
    }

    /// The force (N) at penetrations `delta` (m) and rates `rate` (m/s, positive closing;
    /// zero when omitted), `v0` the approach speed at first contact (m/s, used by the
    /// restitution-based dampings).
    #[pyo3(signature = (delta, rate = None, v0 = 0.0))]
    fn force<'py>(
        &self,
        py: Python<'py>,
        delta: PyReadonlyArray1<'py, f64>,
        rate: Option<PyReadonlyArray1<'py, f64>>,
        v0: f64,
    ) -> PyResult<Vector<'py>> {
        let d = delta.as_slice()?;
        let r = rate.as_ref().map(|r| r.as_slice()).transpose()?;
        if r.is_some_and(|r| r.len() != d.len()) {
            return Err(bad_input("delta and rate must have the same length"));
        }
        let f: Vec<f64> = (0..d.len()).map(|i| self.law.force(d[i], r.map_or(0.0, |r| r[i]), v0)).collect();
        Ok(PyArray1::from_vec(py, f))
    }

    /// The elastic energy stored at penetrations `delta` (J).
    fn energy<'py>(&self, py: Python<'py>, delta: PyReadonlyArray1<'py, f64>) -> PyResult<Vector<'py>> {
        Ok(PyArray1::from_vec(py, delta.as_slice()?.iter().map(|&d| self.law.energy(d)).collect()))
    }
}

/// Adds `ContactLaw` to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyContactLaw>()
}
