//! Free rigid bodies under gravity and applied loads: Newton–Euler equations as an ODE system.
//!
//! For each body (centre of mass `p`, world velocity `v`, attitude `q = q_WB`, body rate `ω`):
//!
//! ```text
//! ṗ = v
//! v̇ = g(p) + F_W / m
//! q̇ = ½ q ⊗ [0, ω]
//! ω̇ = I⁻¹ (τ_B − ω × I ω)          (Euler's equations with the gyroscopic term)
//! ```
//!
//! and one extra component integrates the power of the applied loads, `Ẇ = Σ F·v_point + τ·ω`,
//! so that the energy balance `T + V − W = const` can be checked at any time.
//!
//! Gravity acts at the centre of mass (no gravity-gradient torque yet).

use crate::body::{BODY_STATE_LEN, BodyState, RigidBody, V, W, normalize_quaternion};
use crate::gravity::Gravity;
use crate::integrator::OdeSystem;
use tumble_math::Vec3;

/// The model of a set of free rigid bodies.
pub struct RigidBodySystem {
    /// The bodies, in state-vector order.
    pub bodies: Vec<RigidBody>,
    /// The gravity field.
    pub gravity: Box<dyn Gravity>,
}

/// Energy and momentum of the whole system at one instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Invariants {
    /// Kinetic energy, J.
    pub kinetic: f64,
    /// Gravitational potential energy `Σ m U(p)`, J.
    pub potential: f64,
    /// Work done on the system by applied loads since the start, J.
    pub work: f64,
    /// Linear momentum in W, kg·m/s.
    pub linear_momentum: Vec3,
    /// Angular momentum about the world origin, in W, kg·m²/s.
    pub angular_momentum: Vec3,
}

impl Invariants {
    /// Total mechanical energy `T + V`, J.
    pub fn energy(&self) -> f64 {
        self.kinetic + self.potential
    }
}

impl RigidBodySystem {
    /// Length of the state vector: 13 per body plus the applied-load work.
    pub fn state_len(&self) -> usize {
        self.bodies.len() * BODY_STATE_LEN + 1
    }

    /// Index of the accumulated work of applied loads in the state vector.
    pub fn work_index(&self) -> usize {
        self.bodies.len() * BODY_STATE_LEN
    }

    /// The state vector for the given body states (work starts at zero).
    pub fn pack(&self, states: &[BodyState]) -> Vec<f64> {
        let mut y = vec![0.0; self.state_len()];
        for (s, chunk) in states.iter().zip(y.chunks_exact_mut(BODY_STATE_LEN)) {
            s.write(chunk);
        }
        y
    }

    /// State of body `i`.
    pub fn body_state(&self, y: &[f64], i: usize) -> BodyState {
        BodyState::read(&y[i * BODY_STATE_LEN..(i + 1) * BODY_STATE_LEN])
    }

    /// Energies and momenta.
    pub fn invariants(&self, y: &[f64]) -> Invariants {
        let mut inv = Invariants {
            kinetic: 0.0,
            potential: 0.0,
            work: y[self.work_index()],
            linear_momentum: Vec3::zeros(),
            angular_momentum: Vec3::zeros(),
        };
        for (i, b) in self.bodies.iter().enumerate() {
            let s = self.body_state(y, i);
            inv.kinetic += s.kinetic_energy(b);
            inv.potential += b.mass * self.gravity.potential(&s.p_WB);
            inv.linear_momentum += b.mass * s.v_WB;
            inv.angular_momentum += s.angular_momentum_W(b);
        }
        inv
    }
}

impl OdeSystem for RigidBodySystem {
    fn dim(&self) -> usize {
        self.state_len()
    }

    fn rhs(&mut self, _t: f64, y: &[f64], d: &mut [f64]) {
        let mut power = 0.0;
        for (i, b) in self.bodies.iter().enumerate() {
            let o = i * BODY_STATE_LEN;
            let (ys, ds) = (&y[o..o + BODY_STATE_LEN], &mut d[o..o + BODY_STATE_LEN]);
            let s = BodyState::read(ys);
            let (wrench, pw) = b.applied(&s);
            power += pw;
            b.derivatives(ys, &self.gravity.acceleration(&s.p_WB), &wrench.f, &wrench.t, ds);
        }
        let wi = self.work_index();
        d[wi] = power;
    }

    fn project(&self, y: &mut [f64]) {
        y.chunks_exact_mut(BODY_STATE_LEN).for_each(normalize_quaternion);
    }

    fn is_velocity(&self, i: usize) -> bool {
        if i >= self.work_index() {
            return false;
        }
        let k = i % BODY_STATE_LEN;
        (V..V + 3).contains(&k) || (W..W + 3).contains(&k)
    }
}

#[cfg(test)]
mod tests;
