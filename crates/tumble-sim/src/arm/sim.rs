//! An arm on the pipeline: [`ArmSim`] integrates the multibody system (RK4 or DOPRI5) and
//! records joint coordinates, rates, joint reaction wrenches and the energy at every output time.

use super::{ArmModel, ArmRun};
use crate::pipeline::{Diagnosis, EnergyCheck, GuardFailure, Schedule, Simulation, StepReport, Stop};
use tumble_dynamics::{Integrator, Method, OdeSystem};

/// An arm run as the pipeline steps it.
///
/// It has no energy check ([`Simulation::energy`] is `None`): feed-forward and motor torques and
/// PD servos to moving targets do work on the arm that the state does not accumulate, so the
/// recorded energy may rise legitimately. The guard checks finiteness and magnitude at every
/// accepted step.
pub struct ArmSim<'a> {
    model: &'a mut ArmModel,
    integ: Integrator,
    y: Vec<f64>,
    t: f64,
    dydt: Vec<f64>,
    /// Links whose joint reaction is recorded: those that move or hang from a parent.
    moving: Vec<usize>,
    run: ArmRun,
}

impl<'a> ArmSim<'a> {
    /// The run of `model` from its initial state at t = 0.
    pub fn new(model: &'a mut ArmModel) -> Self {
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
        columns.push("energy [J]".into());
        let y = model.initial_state.clone();
        Self {
            integ: Integrator::new(model.method, y.len()),
            dydt: vec![0.0; y.len()],
            y,
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

    /// The run's record with how it ended.
    pub fn finish(mut self, end: Result<Stop, Diagnosis>) -> ArmRun {
        self.run.failure = end.err();
        self.run
    }
}

impl Simulation for ArmSim<'_> {
    fn time(&self) -> f64 {
        self.t
    }

    fn advance(&mut self, until: f64) -> Result<(), Diagnosis> {
        let t = self.t;
        self.integ.step_toward(&mut self.model.system, &mut self.t, &mut self.y, until).map(|_| ()).map_err(|e| {
            Diagnosis::new(t, format!("integration failed: {e}"), "lower simulation.dt or tighten the tolerances")
        })
    }

    fn state(&self) -> &[f64] {
        &self.y
    }

    fn observe(&mut self) -> StepReport {
        StepReport::default()
    }

    fn energy(&self) -> Option<EnergyCheck> {
        None
    }

    /// The coordinates and rates, each moving link's joint reaction (from the accelerations of
    /// one right-hand side) and the energy.
    fn record(&mut self) {
        let sys = &mut self.model.system;
        let (nq, nv) = (sys.model.nq(), sys.model.nv());
        let y = &self.y;
        sys.rhs(self.t, y, &mut self.dydt);
        let wrenches = sys.model.joint_wrenches(&y[..nq], &y[nq..nq + nv], &self.dydt[nq..nq + nv], &sys.external);
        let mut row = vec![self.t];
        row.extend_from_slice(&y[..nq + nv]);
        for &l in &self.moving {
            row.extend(wrenches[l].iter());
        }
        row.push(sys.energy(y));
        self.run.rows.push(row);
    }

    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis {
        let cause = match self.model.method {
            Method::Rk4 { dt } => format!("lower simulation.dt (now {dt} s) or stiffen less"),
            _ => "stiff or singular joint elements; check the scenario's values".to_string(),
        };
        Diagnosis::new(self.t, failure.what(), cause)
    }
}
