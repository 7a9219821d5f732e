//! An arm on the pipeline: [`ArmSim`] integrates the multibody system (RK4 or DOPRI5) and
//! records joint coordinates, rates, joint reaction wrenches, each flexible joint's motor angle
//! and deflection `q − θ` (in degrees, as Table 2 of the snare-wire document) and the energy at
//! every output time.

use super::{ArmModel, ArmRun};
use crate::pipeline::{Diagnosis, EnergyCheck, GuardFailure, Schedule, Simulation, StepReport, Stop};
use std::ops::DerefMut;
use tumble_dynamics::multibody::Joint;
use tumble_dynamics::multibody::system::MultibodySystem;
use tumble_dynamics::{Integrator, Method, OdeSystem};

/// The arm's system with the actuators' work `W = ∫P dt` as one more state component.
struct Worked<'a>(&'a mut MultibodySystem);

impl OdeSystem for Worked<'_> {
    fn dim(&self) -> usize {
        self.0.dim() + 1
    }

    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) {
        let n = y.len() - 1;
        self.0.rhs(t, &y[..n], &mut dydt[..n]);
        dydt[n] = self.0.actuator_power(&y[..n]);
    }

    fn project(&self, y: &mut [f64]) {
        let n = y.len() - 1;
        self.0.project(&mut y[..n]);
    }
}

/// An arm run as the pipeline steps it.
///
/// Its energy check: the state carries the actuators' work `W` (PD servos, feed-forward forces,
/// motor torques: [`MultibodySystem::actuator_power`]), and `E − W − E₀` with `E` the system's
/// energy (links, motors, gravity, springs, limits, motor servos) may not grow past
/// `simulation.max_energy_growth` of the scale `max(T + |E − T|` at the start and now, `|W|)`:
/// dampers, the limits' damping and the transmissions' viscosity only take energy out, so the
/// exact flow keeps `E − W − E₀ ≤ 0`. The external wrenches of an arm run are zero.
pub struct ArmSim<M = Box<ArmModel>> {
    model: M,
    integ: Integrator,
    /// `[q; v; θ; θ̇; W]`.
    y: Vec<f64>,
    /// `E₀` and the largest energy scale so far.
    energy0: (f64, f64),
    /// The energy check at the current state.
    check: EnergyCheck,
    t: f64,
    dydt: Vec<f64>,
    /// Links whose joint reaction is recorded: those that move or hang from a parent.
    moving: Vec<usize>,
    run: ArmRun,
}

impl<M: DerefMut<Target = ArmModel>> ArmSim<M> {
    /// The run of `model` (owned, boxed or borrowed mutably) from its initial state at t = 0.
    pub fn new(mut model: M) -> Self {
        let mb = &model.system.model;
        let (nq, nv) = (mb.nq(), mb.nv());
        let moving: Vec<usize> =
            (0..mb.links.len()).filter(|&l| mb.links[l].joint.nv() > 0 || mb.links[l].parent.is_some()).collect();
        let label = |l: usize| model.joint_names[l].clone().unwrap_or_else(|| format!("{}_base", mb.links[l].name));
        let mut columns = vec!["t [s]".to_string()];
        columns.extend((0..nq).map(|i| format!("q{i} [rad|m]")));
        columns.extend((0..nv).map(|i| format!("v{i} [rad/s|m/s]")));
        for &l in &moving {
            let n = label(l);
            columns.extend(["mx", "my", "mz"].map(|c| format!("{n}.{c} [N·m]")));
            columns.extend(["fx", "fy", "fz"].map(|c| format!("{n}.{c} [N]")));
        }
        for fl in &model.system.flexible {
            let n = mb.link_of_velocity(fl.dof).map_or_else(|| format!("dof{}", fl.dof), label);
            columns.extend([format!("{n}.motor [rad]"), format!("{n}.deflection [deg]")]);
        }
        if !model.system.loops.closures.is_empty() {
            columns.push("loop_gap [m]".into());
        }
        columns.push("energy [J]".into());
        let mut y = model.initial_state.clone();
        let dydt = vec![0.0; y.len()];
        y.push(0.0);
        let m = &mut *model;
        let (kinetic, e0) = m.system.energy_now(&m.initial_state);
        Self {
            integ: Integrator::new(model.method, y.len()),
            dydt,
            y,
            energy0: (e0, kinetic + (e0 - kinetic).abs()),
            check: EnergyCheck { growth: 0.0, limit: 0.0 },
            t: 0.0,
            moving,
            run: ArmRun { columns, rows: vec![], failure: None },
            model,
        }
    }

    /// Names (with units) of the columns of a sample row.
    pub fn columns(&self) -> &[String] {
        &self.run.columns
    }

    /// The model's output schedule.
    pub fn schedule(&self) -> Schedule {
        Schedule { duration: self.model.duration, output_interval: self.model.output_interval }
    }

    /// The state `[q; v; θ; θ̇]` (the actuators' work, the last component, left out).
    pub fn y(&self) -> &[f64] {
        &self.y[..self.y.len() - 1]
    }

    /// The model.
    pub fn model(&self) -> &ArmModel {
        &self.model
    }

    /// The rows recorded so far.
    pub fn run(&self) -> &ArmRun {
        &self.run
    }

    /// Sets the feed-forward joint forces `τ_ff` (one per velocity coordinate, N·m or N), held
    /// from the next step on: a user's control law between steps. Their work enters the
    /// actuators' work of the energy check. A slice of another length is refused.
    pub fn set_joint_forces(&mut self, tau: &[f64]) -> Result<(), String> {
        super::set_feed_forward(&mut self.model.system, tau)?;
        // DOPRI5 keeps the last stage's derivative as the next step's first: stale now.
        self.integ.invalidate();
        Ok(())
    }

    /// The run's record with how it ended.
    pub fn finish(self, end: Result<Stop, Diagnosis>) -> ArmRun {
        self.end(end).1
    }

    /// The model back, and the run's record with how it ended.
    pub fn end(mut self, end: Result<Stop, Diagnosis>) -> (M, ArmRun) {
        self.run.failure = end.err();
        (self.model, self.run)
    }
}

impl<M: DerefMut<Target = ArmModel>> Simulation for ArmSim<M> {
    fn time(&self) -> f64 {
        self.t
    }

    fn advance(&mut self, until: f64) -> Result<(), Diagnosis> {
        let t = self.t;
        self.integ
            .step_toward(&mut Worked(&mut self.model.system), &mut self.t, &mut self.y, until)
            .map(|_| ())
            .map_err(|e| {
                let mb = &self.model.system.model;
                let v = &self.y[mb.nq()..mb.nq() + mb.nv()];
                // The rotations only (a sliding rate in m/s does not set a step the same way):
                // each revolute joint's rate, and a ball or free joint's angular rate.
                let turning = mb.links.iter().enumerate().filter_map(|(l, link)| {
                    let i = mb.v_index(l);
                    let rate = match link.joint {
                        Joint::Revolute(_) => v[i],
                        Joint::Spherical | Joint::Free => {
                            (v[i] * v[i] + v[i + 1] * v[i + 1] + v[i + 2] * v[i + 2]).sqrt()
                        }
                        Joint::Prismatic(_) | Joint::Fixed => return None,
                    };
                    let name = self.model.joint_names.get(l).cloned().flatten().unwrap_or_else(|| link.name.clone());
                    Some((format!("joint `{name}`"), rate))
                });
                let turning: Vec<(String, f64)> = turning.collect();
                let motion = |h| crate::pipeline::fastest_motion(turning.iter().cloned(), h);
                crate::pipeline::step_budget_spent(&e, self.model.duration, motion).unwrap_or_else(|| {
                    Diagnosis::new(
                        t,
                        format!("integration failed: {e}"),
                        "lower simulation.dt or tighten the tolerances",
                    )
                })
            })
    }

    fn state(&self) -> &[f64] {
        &self.y
    }

    fn observe(&mut self) -> StepReport {
        let n = self.y.len() - 1;
        let (kinetic, energy) = self.model.system.energy_now(&self.y[..n]);
        let work = self.y[n];
        self.energy0.1 = self.energy0.1.max(kinetic + (energy - kinetic).abs()).max(work.abs());
        let limit = self.model.max_energy_growth * (self.energy0.1 + 1e-12);
        self.check = EnergyCheck { growth: energy - work - self.energy0.0, limit };
        StepReport::default()
    }

    fn energy(&self) -> Option<EnergyCheck> {
        Some(self.check)
    }

    /// The coordinates and rates, each moving link's joint reaction (from the accelerations of
    /// one right-hand side) and the energy.
    fn record(&mut self) {
        let sys = &mut self.model.system;
        let (nq, nv) = (sys.model.nq(), sys.model.nv());
        let y = &self.y[..self.y.len() - 1];
        sys.rhs(self.t, y, &mut self.dydt);
        let (q, v) = (&y[..nq], &y[nq..nq + nv]);
        // The loops' cut forces act on their links as external wrenches: with them the
        // joints' reactions are the linkage's.
        let mut external = sys.external.clone();
        let gap = if sys.loops.closures.is_empty() {
            None
        } else {
            external.resize(sys.model.links.len(), Default::default());
            let k = sys.model.kinematics(q, v);
            sys.loops.add_cut_wrenches(&k, &mut external);
            Some(sys.loops.drift(&k).0)
        };
        let wrenches = sys.model.joint_wrenches(q, v, &self.dydt[nq..nq + nv], &external);
        let mut row = vec![self.t];
        row.extend_from_slice(&y[..nq + nv]);
        for &l in &self.moving {
            row.extend(wrenches[l].iter());
        }
        let nf = sys.flexible.len();
        for (fl, theta) in sys.flexible.iter().zip(&y[nq + nv..nq + nv + nf]) {
            row.extend([*theta, (y[sys.model.q_index(fl.dof)] - theta).to_degrees()]);
        }
        row.extend(gap);
        row.push(sys.energy(y));
        self.run.rows.push(row);
    }

    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis {
        let cause = match self.model.method {
            Method::Rk4 { dt } => {
                let otherwise = "stiff or singular joint elements (springs, flexible joints, limits) or loads; check the scenario's values";
                return Diagnosis::new(self.t, failure.what(), otherwise).step_unmeasured(dt);
            }
            _ => "stiff or singular joint elements; check the scenario's values".to_string(),
        };
        Diagnosis::new(self.t, failure.what(), cause)
    }
}
