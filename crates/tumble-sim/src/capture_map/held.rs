//! The post-capture plant under a sampled feedback law, on the pipeline: the law gives the
//! input from the state at each step (saturated, held over the step, RK4), a watcher sees every
//! state and may stop the rollout.

use super::detumble::{Plant, PlantScratch};
use crate::pipeline::{Diagnosis, Driver, EnergyCheck, GuardFailure, Schedule, Simulation, StepReport, Stop};
use tumble_dynamics::{Integrator, Method, OdeSystem};
use tumble_math::nalgebra::DVector;

/// A feedback law: the input at step `k` from the state, written into the last argument.
pub(super) type Law<'a> = &'a mut dyn FnMut(usize, &DVector<f64>, &mut DVector<f64>);
/// A watcher: sees step `k`'s state and the input held over the step before it (`None` at the
/// start); true stops the rollout.
pub(super) type Watch<'a> = &'a mut dyn FnMut(usize, &DVector<f64>, Option<&DVector<f64>>) -> bool;

/// The plant under inputs held over a step, for the project's integrators: state `[x; W]`,
/// `W` the inputs' work `∫ u·v dt` (`u` the generalised forces conjugate to `v`, the state's
/// velocities).
struct Held<'a> {
    /// The plant.
    plant: &'a Plant,
    /// The inputs held over the step.
    u: &'a [f64],
    /// The plant's working memory.
    scratch: &'a mut PlantScratch,
}

/// One step of `dt` of the plant under `u`, saturated here and held over the step (RK4 on
/// `y = [x; W]`), `x` copied from it.
pub(super) fn held_step(
    plant: &Plant,
    integ: &mut Integrator,
    u: &mut DVector<f64>,
    scratch: &mut PlantScratch,
    (y, x): (&mut [f64], &mut DVector<f64>),
    dt: f64,
) {
    plant.saturate(u.as_mut_slice());
    integ.step_once(&mut Held { plant, u: u.as_slice(), scratch }, 0.0, y, dt);
    let nx = x.len();
    x.as_mut_slice().copy_from_slice(&y[..nx]);
}

/// The energy check of the plant at `y = [x; W]`: `T − W − T₀` against 1 % of the largest of
/// `T` and `|W|` so far (`energy0 = (T₀, that largest)`, updated here). The plant has no
/// potential energy (free-floating, no gravity, no springs), so the balance is zero in the
/// exact flow.
pub(super) fn energy_check(
    plant: &Plant,
    y: &[f64],
    scratch: &mut PlantScratch,
    energy0: &mut (f64, f64),
) -> EnergyCheck {
    let nx = plant.nx();
    let (kinetic, work) = (plant.kinetic_energy_in(&y[..nx], scratch), y[nx]);
    energy0.1 = energy0.1.max(kinetic).max(work.abs());
    EnergyCheck { growth: kinetic - work - energy0.0, limit: 0.01 * (energy0.1 + 1e-12) }
}

impl OdeSystem for Held<'_> {
    fn dim(&self) -> usize {
        self.plant.nx() + 1
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dydt: &mut [f64]) {
        let (nx, n) = (self.plant.nx(), self.plant.joints());
        self.plant.rate_in(&y[..nx], self.u, self.scratch, &mut dydt[..nx]);
        dydt[nx] = self.u.iter().zip(&y[n..nx]).map(|(u, v)| u * v).sum();
    }
}

/// A closed-loop rollout as the pipeline steps it.
///
/// Its energy check ([`energy_check`]): the state carries the inputs' work `W`, so only the
/// integration can make the balance grow: a step too large for the plant.
struct HeldSim<'a> {
    plant: &'a Plant,
    integ: Integrator,
    dt: f64,
    /// `[x; W]`.
    y: Vec<f64>,
    x: DVector<f64>,
    u: DVector<f64>,
    scratch: PlantScratch,
    /// `T₀` and the largest energy scale so far, J.
    energy0: (f64, f64),
    check: EnergyCheck,
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
        (self.law)(self.k, &self.x, &mut self.u);
        held_step(self.plant, &mut self.integ, &mut self.u, &mut self.scratch, (&mut self.y, &mut self.x), self.dt);
        self.k += 1;
        Ok(())
    }

    fn state(&self) -> &[f64] {
        &self.y
    }

    fn observe(&mut self) -> StepReport {
        self.check = energy_check(self.plant, &self.y, &mut self.scratch, &mut self.energy0);
        let stop = (self.watch)(self.k, &self.x, Some(&self.u)) || self.k >= self.steps;
        StepReport { stop: stop.then_some(Stop::Completed), ..StepReport::default() }
    }

    fn energy(&self) -> Option<EnergyCheck> {
        Some(self.check)
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
    let mut scratch = PlantScratch::default();
    let kinetic = plant.kinetic_energy_in(x0.as_slice(), &mut scratch);
    let mut y = x0.as_slice().to_vec();
    y.push(0.0);
    let sim = HeldSim {
        plant,
        integ: Integrator::new(Method::Rk4 { dt }, plant.nx() + 1),
        dt,
        y,
        x: x0.clone(),
        u: DVector::zeros(plant.model.nv()),
        scratch,
        energy0: (kinetic, kinetic),
        check: EnergyCheck { growth: 0.0, limit: 0.0 },
        k: 0,
        steps,
        law,
        watch,
    };
    let span = steps as f64 * dt;
    let (sim, end) = Driver::run_whole(sim, Schedule { duration: span, output_interval: span }, &mut |_| {});
    end.map(|_| sim.x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tumble_dynamics::multibody::{Joint, Link, Multibody};
    use tumble_math::{Mat3, Vec3};

    /// A free 80 kg body (inertia 30–60 kg·m²), inputs up to 1e12.
    fn body() -> Plant {
        let body = Link {
            name: "body".into(),
            parent: None,
            joint: Joint::Free,
            parent_to_joint: (Mat3::identity(), Vec3::zeros()),
            mass: 80.0,
            com: Vec3::zeros(),
            inertia: Mat3::from_diagonal(&Vec3::new(30.0, 45.0, 60.0)),
        };
        Plant::new(Multibody::new(vec![body], Vec3::zeros()).expect("model"), vec![1e12; 6]).expect("plant")
    }

    /// The body under rate damping `u = −c v` for `steps` steps of RK4 at 0.1 s.
    fn damped(c: f64, steps: usize) -> Result<DVector<f64>, Diagnosis> {
        let x0 = DVector::from_vec(vec![0.3, -0.2, 0.1, 0.5, 0.4, -0.3]);
        let law = &mut |_: usize, x: &DVector<f64>, u: &mut DVector<f64>| {
            u.copy_from(x);
            *u *= -c;
        };
        roll(&body(), 0.1, steps, &x0, law, &mut |_, _, _| false)
    }

    #[test]
    fn a_rollout_step_does_not_allocate() {
        // The set-up allocates (plant, state, integrator); the steps must not: 10 and 200 steps
        // allocate the same.
        let count = |steps| allocation_counter::measure(|| drop(damped(100.0, steps))).count_total;
        let few = count(10);
        assert!(few > 0, "the counter counts");
        assert_eq!(few, count(200));
    }

    #[test]
    fn the_inputs_work_balances_the_energy_and_a_step_past_the_law_is_stopped() {
        // c·dt/I = 0.17–0.33 (c = 100): the damping takes the energy out, all of it in W.
        let x = damped(100.0, 100).expect("a resolved rollout");
        assert!(x.norm() < 1e-3, "damped out: {x}");
        // c·dt/I = 10.7 on the 30 kg·m² axis (c = 3200), past RK4's 2.8: the kinetic energy
        // grows while the damping's work can only be negative, and the energy check stops it
        // before anything is non-finite.
        let d = damped(3200.0, 100).expect_err("stopped");
        assert!(d.what.contains("energy grew"), "{d:?}");
    }
}
