//! The snare-wire experiment on the pipeline: [`WireSim`] steps the planar target with RK4 at
//! `dt`, engages the wire where the probe first crosses its chord, and records every step.

use super::{MAX_STEPS, WIRE_SPAN, WireExperiment, WireOde, WireRun, WireSample};
use crate::pipeline::{Diagnosis, EnergyCheck, FixedSteps, GuardFailure, Schedule, Simulation, StepReport, Stop};
use tumble_contact::snare::LooseWire;

/// A snare-wire experiment as the pipeline steps it.
///
/// Its energy check: kinetic plus wire energy less the work `W` of the push ([`WireSim::push`])
/// may not grow past 1 % of the larger of the initial kinetic energy and `|W|`, the default
/// `simulation.max_energy_growth` of the other runs (the wire's damping and the friction only
/// remove energy; on the bundled floating target at dt = 1e-5 s it never rises above its start,
/// measured over every step). The push is held over each step, so its work over the step is
/// exactly `F·Δx + τ Δθ` of the step's ends. Samples are taken every step.
pub struct WireSim {
    exp: WireExperiment,
    ode: WireOde,
    clock: FixedSteps,
    y: [f64; 8],
    energy0: f64,
    /// Work of the push so far, J.
    work: f64,
    /// The sample of the current state.
    now: WireSample,
    run: WireRun,
}

impl WireSim {
    /// The experiment `exp` from its start, 1 mm above the chord; an error for impossible
    /// parameters.
    pub fn new(exp: WireExperiment) -> Result<Self, String> {
        for (k, x) in [
            ("mass", exp.mass),
            ("inertia", exp.inertia),
            ("speed", exp.speed),
            ("dt", exp.dt),
            ("duration", exp.duration),
        ] {
            if !(x.is_finite() && x > 0.0) {
                return Err(format!("{k} must be positive, got {x}"));
            }
        }
        let steps = (exp.duration / exp.dt).ceil();
        if steps.is_nan() || steps > MAX_STEPS {
            return Err(format!(
                "{steps} steps of {} s would be recorded (at most {MAX_STEPS:e}): lengthen the step or shorten the run",
                exp.dt
            ));
        }
        // State: x, y, θ, vx, vy, ω, Jx, Jy. Start 1 mm above the chord.
        let y = [exp.aim - exp.probe[0], 1e-3 - exp.probe[1], 0.0, 0.0, -exp.speed, 0.0, 0.0, 0.0];
        let mut sim = Self {
            exp,
            ode: WireOde { exp, wire: None, v0: 0.0, push: [0.0; 3] },
            clock: FixedSteps::with_steps(8, exp.dt, steps as u64, 1),
            y,
            energy0: 0.0,
            work: 0.0,
            now: WireSample {
                t: 0.0,
                pose: [0.0; 3],
                velocity: [0.0; 2],
                omega: 0.0,
                force: [0.0; 2],
                impulse: [0.0; 2],
                delta: 0.0,
                energy: 0.0,
                work: 0.0,
            },
            run: WireRun {
                samples: Vec::with_capacity(steps as usize + 1),
                wire: None,
                max_delta: 0.0,
                diagnosis: None,
            },
        };
        sim.engage()?;
        sim.now = sim.sample();
        sim.energy0 = sim.now.energy;
        Ok(sim)
    }

    /// Every step up to `ceil(duration / dt)` steps.
    pub fn schedule(&self) -> Schedule {
        self.clock.schedule()
    }

    /// The state `[x, y, θ, vx, vy, ω, Jx, Jy]`: the target's centre of mass, attitude, their
    /// rates and the impulse received.
    pub fn y(&self) -> &[f64] {
        &self.y
    }

    /// The run so far.
    pub fn run(&self) -> &WireRun {
        &self.run
    }

    /// Pushes the target with `[fx, fy]` (N, plane axes) at its centre of mass and a torque `tz`
    /// (N·m) about it, held from the next step on; its work enters the energy check.
    pub fn push(&mut self, force: [f64; 2], torque: f64) -> Result<(), String> {
        let p = [force[0], force[1], torque];
        if let Some(bad) = p.iter().find(|x| !x.is_finite()) {
            return Err(format!("the push must be finite, got {bad}"));
        }
        self.ode.push = p;
        Ok(())
    }

    /// The run's record with how it ended.
    pub fn finish(mut self, end: Result<Stop, Diagnosis>) -> WireRun {
        self.run.diagnosis = end.err();
        self.run.wire = self.ode.wire.take();
        self.run
    }

    /// Engages the wire where the probe tip first crosses the chord between its ends.
    fn engage(&mut self) -> Result<(), String> {
        let (p, v, _) = self.ode.tip(&self.y);
        if self.ode.wire.is_none() && p[1] <= 0.0 && p[0] > 0.0 && p[0] < WIRE_SPAN {
            self.ode.wire = Some(LooseWire::table4(p[0], self.exp.wire_damping)?);
            self.ode.v0 = -v[1];
        }
        Ok(())
    }

    fn sample(&self) -> WireSample {
        let (exp, y) = (&self.exp, &self.y);
        let (_, f, delta) = self.ode.eval(y);
        WireSample {
            t: self.time(),
            pose: [y[0], y[1], y[2]],
            velocity: [y[3], y[4]],
            omega: y[5],
            force: f,
            impulse: [y[6], y[7]],
            delta,
            energy: 0.5 * exp.mass * (y[3] * y[3] + y[4] * y[4])
                + 0.5 * exp.inertia * y[5] * y[5]
                + self.ode.wire.as_ref().map_or(0.0, |w| w.energy(delta.max(0.0))),
            work: self.work,
        }
    }
}

impl Simulation for WireSim {
    fn time(&self) -> f64 {
        self.clock.time()
    }

    fn advance(&mut self, _until: f64) -> Result<(), Diagnosis> {
        let before = [self.y[0], self.y[1], self.y[2]];
        self.clock.step(&mut self.ode, &mut self.y);
        self.work += (0..3).map(|i| self.ode.push[i] * (self.y[i] - before[i])).sum::<f64>();
        Ok(())
    }

    fn state(&self) -> &[f64] {
        &self.y
    }

    fn observe(&mut self) -> StepReport {
        // `engage` checks the position lies inside the wire's span, the one thing
        // `LooseWire::table4` refuses, so its error cannot occur here.
        let _ = self.engage();
        self.now = self.sample();
        StepReport { stop: self.clock.stop(), ..StepReport::default() }
    }

    fn energy(&self) -> Option<EnergyCheck> {
        let scale = self.energy0.max(self.now.work.abs());
        Some(EnergyCheck { growth: self.now.energy - self.now.work - self.energy0, limit: 0.01 * scale })
    }

    fn record(&mut self) {
        self.run.max_delta = self.run.max_delta.max(self.now.delta);
        self.run.samples.push(self.now);
    }

    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis {
        let otherwise =
            "the wire's law or the target's start (inside the wire's reach, or faster than the wire can hold)";
        Diagnosis::new(self.time(), failure.what(), otherwise).step_unmeasured(self.exp.dt)
    }
}
