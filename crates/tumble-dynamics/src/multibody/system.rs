//! A multibody with its joint force elements and flexible joints as an ODE system.
//!
//! State: `[q (nq); v (nv); θ (nf); θ̇ (nf)]`, `θ` the motor coordinates of the flexible
//! joints in order.

use super::forces::{BallSpring, Flexible, JointForce};
use super::loops::Loops;
use super::spatial::SVec;
use super::{Kinematics, Multibody, Workspace};
use crate::integrator::OdeSystem;

/// The model, its force elements and inputs.
#[derive(Clone, Debug)]
pub struct MultibodySystem {
    /// The tree.
    pub model: Multibody,
    /// Force elements per velocity coordinate (one-degree-of-freedom joints).
    pub joint_forces: Vec<Option<JointForce>>,
    /// Flexible joints.
    pub flexible: Vec<Flexible>,
    /// Spring–dampers on ball joints.
    pub ball_springs: Vec<BallSpring>,
    /// Motor torque of each flexible joint, N·m (inputs, constant over a step).
    pub motor_torques: Vec<f64>,
    /// External wrench on each link (link coordinates, about its origin; empty for none).
    pub external: Vec<SVec>,
    /// Loop-closure joints (a closed chain's cuts); none for a tree.
    pub loops: Loops,
    /// Kinematics of the last right-hand side (scratch).
    kin: Kinematics,
    /// The articulated-body algorithm's working memory (scratch).
    work: Workspace,
    /// Joint forces (scratch, nv).
    tau: Vec<f64>,
}

impl MultibodySystem {
    /// A system with no force elements.
    pub fn new(model: Multibody) -> Self {
        let nv = model.nv();
        Self {
            model,
            joint_forces: vec![None; nv],
            flexible: vec![],
            ball_springs: vec![],
            motor_torques: vec![],
            external: vec![],
            loops: Loops::default(),
            kin: Kinematics::default(),
            work: Workspace::default(),
            tau: vec![0.0; nv],
        }
    }

    /// The joint forces on the links (nv) and the potential energy of springs and limits.
    fn joint_torques(&self, q: &[f64], v: &[f64], theta: &[f64], theta_d: &[f64]) -> (Vec<f64>, f64) {
        let mut tau = vec![0.0; self.model.nv()];
        let energy = self.joint_loads(q, v, theta, theta_d, &mut tau);
        (tau, energy)
    }

    /// Adds the joint forces to `tau` (nv) and returns the potential energy of springs and
    /// limits.
    fn joint_loads(&self, q: &[f64], v: &[f64], theta: &[f64], theta_d: &[f64], tau: &mut [f64]) -> f64 {
        let mb = &self.model;
        let mut energy = 0.0;
        for (k, f) in self.joint_forces.iter().enumerate() {
            if let Some(f) = f {
                let (t, e) = f.eval(q[mb.q_index(k)], v[k]);
                tau[k] += t;
                energy += e;
            }
        }
        for (i, fl) in self.flexible.iter().enumerate() {
            let (t, e) = fl.transmission(q[mb.q_index(fl.dof)], v[fl.dof], theta[i], theta_d[i]);
            tau[fl.dof] -= t;
            energy += e + fl.servo(theta[i]).1;
        }
        for b in &self.ball_springs {
            let (qa, va) = (mb.q_index(mb.v_index(b.link)), mb.v_index(b.link));
            let (t, e) = b.eval(&q[qa..qa + 4], &v[va..va + 3]);
            tau[va..va + 3].iter_mut().zip(t).for_each(|(a, b)| *a += b);
            energy += e;
        }
        energy
    }

    /// Kinetic (links and motors) plus potential (gravity, springs, limits) energy at `y`, J.
    pub fn energy(&self, y: &[f64]) -> f64 {
        let (q, v, theta, theta_d) = self.split(y);
        let motors: f64 = self.flexible.iter().zip(theta_d).map(|(f, w)| 0.5 * f.inertia * w * w).sum();
        self.model.kinetic_energy(q, v)
            + self.model.potential_energy(q)
            + motors
            + self.joint_torques(q, v, theta, theta_d).1
    }

    /// [`MultibodySystem::energy`] from kinematics `k` already computed at `y`'s `[q; v]`, with
    /// `tau` (length nv) as scratch that receives the joint forces added to it: no kinematics
    /// pass and no allocation of its own (the same value: poses do not depend on `v`). For step
    /// loops that check the energy at every step.
    pub fn energy_with(&self, k: &Kinematics, y: &[f64], tau: &mut [f64]) -> f64 {
        self.energy_parts(k, y, tau).1
    }

    /// The kinetic energy (links and motors) and [`MultibodySystem::energy`] at `y`, with the
    /// system's own scratch: no allocation. For step loops that check the energy every step.
    pub fn energy_now(&mut self, y: &[f64]) -> (f64, f64) {
        let (nq, nv) = (self.model.nq(), self.model.nv());
        let mut kin = std::mem::take(&mut self.kin);
        let mut tau = std::mem::take(&mut self.tau);
        self.model.kinematics_into(&y[..nq], &y[nq..nq + nv], &mut kin);
        tau.clear();
        tau.resize(nv, 0.0);
        let parts = self.energy_parts(&kin, y, &mut tau);
        (self.kin, self.tau) = (kin, tau);
        parts
    }

    /// Kinetic energy (links and motors) and the total of [`MultibodySystem::energy_with`],
    /// from the kinematics `k` of `y`'s `[q; v]` already at hand, with `tau` (length nv) as
    /// scratch: no allocation, J.
    pub fn energy_parts(&self, k: &Kinematics, y: &[f64], tau: &mut [f64]) -> (f64, f64) {
        let (q, v, theta, theta_d) = self.split(y);
        let mb = &self.model;
        let motors: f64 = self.flexible.iter().zip(theta_d).map(|(f, w)| 0.5 * f.inertia * w * w).sum();
        let kinetic: f64 = (0..mb.links.len()).map(|i| 0.5 * k.v[i].dot(&(mb.i[i] * k.v[i]))).sum();
        let potential: f64 =
            mb.links.iter().zip(&k.pose).map(|(l, (r, p))| -l.mass * mb.gravity.dot(&(p + r * l.com))).sum();
        (motors + kinetic, kinetic + potential + motors + self.joint_loads(q, v, theta, theta_d, tau))
    }

    /// The power the actuators put into the system at `y`, W: the PD servos, feed-forward
    /// forces and DC motors on the joints (`τ_pd + τ_ff` times the joint rate) and the motor torques on the
    /// flexible joints' motors (times the motor rate). Springs, limits and motor servos are in
    /// [`MultibodySystem::energy`] and dampers only take energy out, so `E − ∫P dt` never grows
    /// in the exact flow (external wrenches aside).
    pub fn actuator_power(&self, y: &[f64]) -> f64 {
        let (q, v, _, theta_d) = self.split(y);
        let mut p = 0.0;
        for (k, f) in self.joint_forces.iter().enumerate() {
            if let Some(f) = f {
                let pd = f
                    .pd
                    .map_or(0.0, |(kp, kd)| kp * (f.target - q[self.model.q_index(k)]) + kd * (f.target_rate - v[k]));
                let motor = f.motor.map_or(0.0, |m| m.torque(v[k]));
                p += (pd + f.feed_forward + motor) * v[k];
            }
        }
        p + self.motor_torques.iter().zip(theta_d).map(|(t, w)| t * w).sum::<f64>()
    }

    fn split<'a>(&self, y: &'a [f64]) -> (&'a [f64], &'a [f64], &'a [f64], &'a [f64]) {
        let (nq, nv, nf) = (self.model.nq(), self.model.nv(), self.flexible.len());
        (&y[..nq], &y[nq..nq + nv], &y[nq + nv..nq + nv + nf], &y[nq + nv + nf..])
    }
}

impl OdeSystem for MultibodySystem {
    fn dim(&self) -> usize {
        self.model.nq() + self.model.nv() + 2 * self.flexible.len()
    }

    fn rhs(&mut self, _t: f64, y: &[f64], dydt: &mut [f64]) {
        let (nq, nv) = (self.model.nq(), self.model.nv());
        let mut kin = std::mem::take(&mut self.kin);
        self.model.kinematics_into(&y[..nq], &y[nq..nq + nv], &mut kin);
        self.derivatives(&kin, y, dydt);
        self.kin = kin;
    }

    fn project(&self, y: &mut [f64]) {
        let nq = self.model.nq();
        self.model.normalize(&mut y[..nq]);
    }
}

impl MultibodySystem {
    /// The state derivative at `y` from the kinematics `k` of its `(q, v)` already at hand
    /// (the [`OdeSystem::rhs`] of the system). Allocates nothing once the system's scratch has
    /// served one call.
    pub fn derivatives(&mut self, k: &Kinematics, y: &[f64], dydt: &mut [f64]) {
        let (nq, nv, nf) = (self.model.nq(), self.model.nv(), self.flexible.len());
        let (q, v, theta, theta_d) = self.split(y);
        self.model.q_dot(q, v, &mut dydt[..nq]);
        let mut tau = std::mem::take(&mut self.tau);
        tau.clear();
        tau.resize(nv, 0.0);
        self.joint_loads(q, v, theta, theta_d, &mut tau);
        self.model.forward_dynamics_in(k, v, &tau, &self.external, &mut self.work, &mut dydt[nq..nq + nv]);
        self.tau = tau;
        if !self.loops.closures.is_empty() {
            self.loops.correct(&self.model, k, q, v, &mut dydt[nq..nq + nv]);
        }
        let mb = &self.model;
        for (i, fl) in self.flexible.iter().enumerate() {
            let qi = q[mb.q_index(fl.dof)];
            let (t, _) = fl.transmission(qi, v[fl.dof], theta[i], theta_d[i]);
            let motor = self.motor_torques.get(i).copied().unwrap_or(0.0) + fl.servo(theta[i]).0;
            dydt[nq + nv + i] = theta_d[i];
            dydt[nq + nv + nf + i] = (motor + t - fl.motor_damping(qi, theta[i], theta_d[i])) / fl.inertia;
        }
    }
}
