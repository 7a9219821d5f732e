//! `tumble._tumble`: the native half of the `tumble` Python package.
//!
//! It binds tumble-sim's library API (scenarios, the pipeline's simulations, campaigns) and the
//! building blocks engineers call directly (meshes, polyhedron gravity, SDFs, LQR). The
//! pure-Python half (`python/tumble/`) turns its plain results into dictionaries of numpy
//! arrays and pandas frames; `docs/python.md` is the user's guide.
//!
//! Every call that runs the engine releases the GIL (`Python::detach`), and every error the
//! engine reports becomes a Python exception with the CLI's message: [`TumbleError`] and its
//! subclasses [`ScenarioError`] (bad input, `FILE:LINE:COL: key ...`) and [`SimulationError`]
//! (a run the guard stopped, with its diagnosis).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

mod blocks;
mod campaign;
mod capture;
mod fields;
mod laws;
mod scenario;
mod sim;
mod spice;

create_exception!(_tumble, TumbleError, PyException, "Base class of every error Tumble raises.");
create_exception!(
    _tumble,
    ScenarioError,
    TumbleError,
    "A scenario, an override or an argument that cannot be used; the message names the file, line, column and key."
);
create_exception!(
    _tumble,
    SimulationError,
    TumbleError,
    "A run the engine's guard stopped (non-finite or absurd state, energy growth); the message is its diagnosis."
);

/// A [`ScenarioError`] with `message`.
pub(crate) fn bad_input(message: impl Into<String>) -> PyErr {
    ScenarioError::new_err(message.into())
}

/// The native module.
#[pymodule]
fn _tumble(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("TumbleError", m.py().get_type::<TumbleError>())?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    scenario::register(m)?;
    sim::register(m)?;
    campaign::register(m)?;
    capture::register(m)?;
    blocks::register(m)?;
    fields::register(m)?;
    laws::register(m)?;
    spice::register(m)?;
    Ok(())
}
