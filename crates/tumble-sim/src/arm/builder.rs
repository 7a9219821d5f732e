//! [`ArmBuilder`]: an articulated run built in code from a [`MultibodySystem`] (links, joint
//! force elements and flexible joints made with `tumble_dynamics`), validated as a scenario file
//! is (errors name the file's keys); the scenario adapter ends in it.

use super::ArmModel;
use crate::pipeline::BuildError;
use crate::scenario::check::{MAX_SAMPLES, positive};
use tumble_dynamics::multibody::system::MultibodySystem;
use tumble_dynamics::{Dopri5Settings, Method, OdeSystem};

/// The integration of an arm run.
#[derive(Clone, Copy, Debug)]
enum Stepping {
    /// RK4 at a fixed step, s.
    Rk4(f64),
    /// DOPRI5 with relative and absolute tolerances and the largest step (default: the output
    /// interval), s.
    Dopri5 { rtol: f64, atol: f64, max_step: Option<f64> },
}

/// Builds an [`ArmModel`]: the system, its initial state, the integration and the outputs.
#[derive(Clone, Debug)]
pub struct ArmBuilder {
    name: String,
    system: MultibodySystem,
    state: Option<Vec<f64>>,
    stepping: Option<Stepping>,
    max_steps: Option<u64>,
    duration: f64,
    output_interval: Option<f64>,
    max_energy_growth: f64,
    joint_names: Option<Vec<Option<String>>>,
}

impl ArmModel {
    /// A builder for the run named `name` of `system`, with a scenario file's defaults: at
    /// rest in the system's neutral configuration (motors at their joints' angles), samples
    /// every 1/2000 (RK4) or 1/1000 (DOPRI5) of the duration, energy growth limit 1 %.
    pub fn builder(name: &str, system: MultibodySystem) -> ArmBuilder {
        ArmBuilder {
            name: name.into(),
            system,
            state: None,
            stepping: None,
            max_steps: None,
            duration: f64::NAN,
            output_interval: None,
            max_energy_growth: 0.01,
            joint_names: None,
        }
    }
}

impl ArmBuilder {
    /// The initial state `[q; v; θ; θ̇]` (quaternions of ball and free joints `[w, x, y, z]`,
    /// normalised by the build; `θ, θ̇` the flexible joints' motors).
    pub fn state(mut self, y: Vec<f64>) -> Self {
        self.state = Some(y);
        self
    }

    /// RK4 at the step `dt`, s.
    pub fn rk4(mut self, dt: f64) -> Self {
        self.stepping = Some(Stepping::Rk4(dt));
        self
    }

    /// DOPRI5 with tolerances `rtol`, `atol` and at most `max_step` (s; default: the output
    /// interval).
    pub fn dopri5(mut self, rtol: f64, atol: f64, max_step: Option<f64>) -> Self {
        self.stepping = Some(Stepping::Dopri5 { rtol, atol, max_step });
        self
    }

    /// Most accepted steps DOPRI5 may take before the run stops failed (default
    /// [`crate::scenario::MAX_STEPS`]).
    pub fn max_steps(mut self, steps: u64) -> Self {
        self.max_steps = Some(steps);
        self
    }

    /// Simulated time, s.
    pub fn duration(mut self, duration: f64) -> Self {
        self.duration = duration;
        self
    }

    /// Time between samples, s.
    pub fn output_interval(mut self, interval: f64) -> Self {
        self.output_interval = Some(interval);
        self
    }

    /// Largest growth of `E − W` allowed, fraction of the energy scale (see
    /// [`super::ArmSim`]).
    pub fn max_energy_growth(mut self, fraction: f64) -> Self {
        self.max_energy_growth = fraction;
        self
    }

    /// Name of the joint carrying each link (`None` for a root), for the outputs' columns;
    /// default: the link's name for every link with a parent.
    pub fn joint_names(mut self, names: Vec<Option<String>>) -> Self {
        self.joint_names = Some(names);
        self
    }

    /// Checks every value, derives the rest and returns the run.
    pub fn build(self) -> Result<ArmModel, BuildError> {
        let mut system = self.system;
        let mut y = self.state.unwrap_or_else(|| rest_state(&system));
        if y.len() != system.dim() {
            let msg = format!("the state [q; v; θ; θ̇] needs {} values, got {}", system.dim(), y.len());
            return Err(BuildError::new("arm.q", msg));
        }
        system.project(&mut y);
        if y.iter().any(|x| !x.is_finite()) {
            return Err(BuildError::new("arm.q", "a ball or free joint's quaternion [w, x, y, z] must not be zero"));
        }
        let links = system.model.links.len();
        for (k, c) in system.loops.closures.iter().enumerate() {
            let key = format!("arm.loops.{k}");
            if c.a >= links || c.b.is_some_and(|b| b >= links) || Some(c.a) == c.b {
                let msg =
                    format!("links {} and {:?}: two different links of the {links} (b none: the world)", c.a, c.b);
                return Err(BuildError::new(key, msg));
            }
            if !c.point_a.iter().chain(c.point_b.iter()).all(|x| x.is_finite()) {
                return Err(BuildError::new(key, "the cut's points must be finite (m)"));
            }
        }
        let rate = system.loops.rate;
        let bad_rate = rate.is_nan() || rate <= 0.0 || rate.is_infinite();
        if !system.loops.closures.is_empty() && bad_rate {
            return Err(BuildError::new("arm.loop_rate", format!("{rate}: must be positive (1/s)")));
        }
        if !system.loops.closures.is_empty() {
            // Put the linkage together: close its loops near the given positions and remove
            // the rates that would open them.
            let (nq, nv) = (system.model.nq(), system.model.nv());
            let (q, rest) = y.split_at_mut(nq);
            // The driven joints (a motor, a servo, a flexible drive) are the linkage's inputs:
            // they keep their given positions and rates.
            let mut held: Vec<bool> = system
                .joint_forces
                .iter()
                .map(|f| f.as_ref().is_some_and(|f| f.motor.is_some() || f.pd.is_some()))
                .collect();
            system.flexible.iter().for_each(|f| held[f.dof] = true);
            system
                .loops
                .assemble(&system.model, q, &mut rest[..nv], &held)
                .map_err(|e| BuildError::new("arm.loops", e))?;
        }
        let duration = positive("simulation.duration", self.duration, "s")?;
        let (method, output_interval) = match self.stepping {
            None => return Err(BuildError::new("simulation.dt", "is required by rk4: the step, s")),
            Some(Stepping::Rk4(dt)) => {
                let dt = positive("simulation.dt", dt, "s")?;
                crate::scenario::fixed_step_budget(dt, duration, self.max_steps)?;
                let every = (duration / dt / 2000.0).ceil().max(1.0);
                let oi = positive("simulation.output_interval", self.output_interval.unwrap_or(dt * every), "s")?;
                (Method::Rk4 { dt }, oi)
            }
            Some(Stepping::Dopri5 { rtol, atol, max_step }) => {
                let max_steps = crate::scenario::step_budget(self.max_steps)?;
                let oi =
                    positive("simulation.output_interval", self.output_interval.unwrap_or(duration / 1000.0), "s")?;
                let h_max = max_step.unwrap_or(oi);
                (
                    Method::Dopri5(Dopri5Settings {
                        rtol,
                        atol,
                        h_initial: oi / 10.0,
                        // As the rigid bodies' (`model/builder.rs`): a floor the budget moves.
                        h_min: duration / (max_steps as f64).max(crate::scenario::MAX_STEPS),
                        h_max,
                        max_steps,
                    }),
                    oi,
                )
            }
        };
        if duration / output_interval > MAX_SAMPLES {
            return Err(BuildError::new("simulation.output_interval", "would record more than 1e6 samples: raise it"));
        }
        let max_energy_growth =
            positive("simulation.max_energy_growth", self.max_energy_growth, "fraction of the energy scale")?;
        let joint_names = self
            .joint_names
            .unwrap_or_else(|| system.model.links.iter().map(|l| l.parent.map(|_| l.name.clone())).collect());
        if joint_names.len() != system.model.links.len() {
            let msg = format!("needs one name per link ({}), got {}", system.model.links.len(), joint_names.len());
            return Err(BuildError::new("arm.links", msg));
        }
        Ok(ArmModel {
            name: self.name,
            system,
            initial_state: y,
            method,
            duration,
            output_interval,
            joint_names,
            max_energy_growth,
        })
    }
}

/// At rest in the neutral configuration, each motor at its joint's angle.
fn rest_state(system: &MultibodySystem) -> Vec<f64> {
    let mb = &system.model;
    let q = mb.neutral();
    let motors: Vec<f64> = system.flexible.iter().map(|f| q[mb.q_index(f.dof)]).collect();
    let mut y = q;
    y.extend(std::iter::repeat_n(0.0, mb.nv()));
    y.extend(&motors);
    y.extend(std::iter::repeat_n(0.0, motors.len()));
    y
}
