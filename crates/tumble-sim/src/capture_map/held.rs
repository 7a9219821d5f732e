//! The post-capture plant under a sampled feedback law, on the pipeline: the law gives the
//! input from the state at each step (saturated, held over the step, RK4), a watcher sees every
//! state and may stop the rollout.

use super::detumble::Plant;
use crate::pipeline::{Diagnosis, Driver, EnergyCheck, GuardFailure, Schedule, Simulation, StepReport, Stop};
use tumble_dynamics::{Integrator, Method, OdeSystem};
use tumble_math::nalgebra::DVector;

/// A feedback law: the input at step `k` from the state.
pub(super) type Law<'a> = &'a mut dyn FnMut(usize, &DVector<f64>) -> DVector<f64>;
/// A watcher: sees step `k`'s state and the input held over the step before it (`None` at the
/// start); true stops the rollout.
pub(super) type Watch<'a> = &'a mut dyn FnMut(usize, &DVector<f64>, Option<&DVector<f64>>) -> bool;

/// The plant under inputs held over a step, for the project's integrators.
struct Held<'a> {
    plant: &'a Plant,
    u: &'a [f64],
}

impl OdeSystem for Held<'_> {
    fn dim(&self) -> usize {
        self.plant.nx()
    }
    fn rhs(&mut self, _t: f64, x: &[f64], dxdt: &mut [f64]) {
        self.plant.rate(x, self.u, dxdt);
    }
}

/// A closed-loop rollout as the pipeline steps it. No energy check (`None`): the controller
/// works on the system by design; the guard checks finiteness and magnitude.
struct HeldSim<'a> {
    plant: &'a Plant,
    integ: Integrator,
    dt: f64,
    x: DVector<f64>,
    u: DVector<f64>,
    k: usize,
    steps: usize,
    law: Law<'a>,
    watch: Watch<'a>,
}

impl Simulation for HeldSim<'_> {
    fn time(&self) -> f64 {
        self.k as f64 * self.dt
    }

    fn advance(&mut self, _until: f64) -> Result<(), Diagnosis> {
        self.u = (self.law)(self.k, &self.x);
        self.plant.saturate(self.u.as_mut_slice());
        let mut held = Held { plant: self.plant, u: self.u.as_slice() };
        self.integ.step_once(&mut held, 0.0, self.x.as_mut_slice(), self.dt);
        self.k += 1;
        Ok(())
    }

    fn state(&self) -> &[f64] {
        self.x.as_slice()
    }

    fn observe(&mut self) -> StepReport {
        let stop = (self.watch)(self.k, &self.x, Some(&self.u)) || self.k >= self.steps;
        StepReport { stop: stop.then_some(Stop::Completed), ..StepReport::default() }
    }

    fn energy(&self) -> Option<EnergyCheck> {
        None
    }

    fn record(&mut self) {}

    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis {
        Diagnosis::new(
            self.time(),
            format!("the rollout diverged: {}", failure.what()),
            "a gentler law or a smaller step",
        )
    }
}

/// Rolls the plant from `x0` for `steps` steps of `dt` under `law`, `watch` seeing the start and
/// every step; the final state, or the diagnosis of a divergence.
pub(super) fn roll(
    plant: &Plant,
    dt: f64,
    steps: usize,
    x0: &DVector<f64>,
    law: Law<'_>,
    watch: Watch<'_>,
) -> Result<DVector<f64>, Diagnosis> {
    if watch(0, x0, None) || steps == 0 {
        return Ok(x0.clone());
    }
    let sim = HeldSim {
        plant,
        integ: Integrator::new(Method::Rk4 { dt }, plant.nx()),
        dt,
        x: x0.clone(),
        u: DVector::zeros(plant.model.nv()),
        k: 0,
        steps,
        law,
        watch,
    };
    let span = steps as f64 * dt;
    let mut driver = Driver::new(sim, Schedule { duration: span, output_interval: span });
    driver.run(&mut |_| {})?;
    Ok(driver.into_inner().x)
}
