//! A scenario's model, built and validated: what a `Simulation` steps.

use crate::bad_input;
use pyo3::prelude::*;
use std::sync::Arc;
use tumble_sim::arm::ArmModel;
use tumble_sim::lander::LanderModel;
use tumble_sim::mechanism::Mechanism;
use tumble_sim::membrane::MembraneDrop;
use tumble_sim::membrane_capture::AsteroidCapture;
use tumble_sim::scenario::Kind;
use tumble_sim::{Model, Scenario};

/// A scenario's model, built and validated.
pub(crate) enum Job {
    Rigid(Box<Model>),
    Lander(Box<LanderModel>),
    Arm(Box<ArmModel>),
    Capture(Arc<AsteroidCapture>),
    Drop(Arc<MembraneDrop>),
    Mechanism(Arc<Mechanism>),
    Wire(Box<tumble_sim::snare::WireExperiment>, usize),
    Grapple(Box<tumble_sim::grapple::GrappleCapture>),
}

impl Job {
    /// Builds the model of `sc` (a capture study is not a simulation: it has its own call).
    pub(crate) fn build(sc: &Scenario) -> PyResult<Job> {
        let bad = |e: tumble_sim::ScenarioError| bad_input(e.to_string());
        Ok(match sc.kind {
            Kind::RigidBodies => Job::Rigid(Box::new(Model::build(sc).map_err(bad)?)),
            Kind::Lander => Job::Lander(Box::new(LanderModel::build(sc).map_err(bad)?)),
            Kind::Arm => Job::Arm(Box::new(ArmModel::build(sc).map_err(bad)?)),
            Kind::MembraneCapture => Job::Capture(Arc::new(AsteroidCapture::build(sc).map_err(bad)?)),
            Kind::MembraneDrop => Job::Drop(Arc::new(MembraneDrop::build(sc).map_err(bad)?)),
            Kind::Mechanism => Job::Mechanism(Arc::new(Mechanism::build(sc).map_err(bad)?)),
            Kind::Snare => {
                let exp = tumble_sim::snare::WireExperiment::build(sc).map_err(bad)?;
                let every = tumble_sim::snare::output_every(sc, exp.dt);
                Job::Wire(Box::new(exp), every)
            }
            Kind::Grapple => Job::Grapple(Box::new(tumble_sim::grapple::GrappleCapture::build(sc).map_err(bad)?)),
            Kind::CaptureMap => {
                tumble_sim::capture_map::CaptureStudy::build(sc).map_err(bad)?;
                return Err(bad_input(format!(
                    "{}: a capture study is not a simulation: study it with tumble.CaptureStudy(scenario)",
                    sc.path.display()
                )));
            }
        })
    }
}
