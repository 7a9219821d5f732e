//! [`WireExperimentBuilder`]: the floating-target experiment built in code, validated as a
//! scenario file is (errors name the file's keys).

use super::{MAX_STEPS, WIRE_SPAN, WireExperiment};
use crate::pipeline::BuildError;
use crate::scenario::check::positive;

/// Builds a [`WireExperiment`]: the planar target (mass, inertia, probe), how it approaches
/// the wire (speed, where along the wire), the wire's damping, friction and the RK4 timing.
#[derive(Clone, Debug)]
pub struct WireExperimentBuilder(WireExperiment);

impl WireExperiment {
    /// A builder that starts from the document's Table 5 case at 0.1 m/s
    /// ([`WireExperiment::table5`]).
    pub fn builder() -> WireExperimentBuilder {
        WireExperimentBuilder(Self::table5(0.1))
    }
}

impl WireExperimentBuilder {
    /// The target's mass (kg) and planar moment of inertia about its centre of mass (kg·m²).
    pub fn target(mut self, mass: f64, inertia: f64) -> Self {
        (self.0.mass, self.0.inertia) = (mass, inertia);
        self
    }

    /// The probe tip from the centre of mass, body axes, m.
    pub fn probe(mut self, tip: [f64; 2]) -> Self {
        self.0.probe = tip;
        self
    }

    /// The approach: `speed` towards the wire (m/s) aimed at `position` along it (m from its
    /// first end, inside the 0.175 m span).
    pub fn approach(mut self, speed: f64, position: f64) -> Self {
        (self.0.speed, self.0.aim) = (speed, position);
        self
    }

    /// Coulomb friction `mu` along the wire, regularised below `v_star` (m/s).
    pub fn friction(mut self, mu: f64, v_star: f64) -> Self {
        (self.0.mu, self.0.v_star) = (mu, v_star);
        self
    }

    /// The wire's damping, N·s/m.
    pub fn wire_damping(mut self, damping: f64) -> Self {
        self.0.wire_damping = damping;
        self
    }

    /// RK4 step and duration, s (every step is recorded).
    pub fn timing(mut self, dt: f64, duration: f64) -> Self {
        (self.0.dt, self.0.duration) = (dt, duration);
        self
    }

    /// Checks every value and returns the experiment.
    pub fn build(self) -> Result<WireExperiment, BuildError> {
        let e = self.0;
        if !(e.aim > 0.0 && e.aim < WIRE_SPAN) {
            let msg = format!("must lie between the wire's ends (0, {WIRE_SPAN}) m, got {}", e.aim);
            return Err(BuildError::new("snare.position", msg));
        }
        if !e.probe.iter().all(|x| x.is_finite()) {
            return Err(BuildError::new("snare.probe", "must hold two finite numbers (m)"));
        }
        if let Err((key, msg)) = crate::scenario::check::friction("snare.mu", e.mu) {
            return Err(BuildError::new(key, msg));
        }
        if !(e.wire_damping.is_finite() && e.wire_damping >= 0.0) {
            let msg = format!("must be >= 0 (N·s/m), got {}", e.wire_damping);
            return Err(BuildError::new("snare.wire.damping", msg));
        }
        let (dt, duration) = (positive("simulation.dt", e.dt, "s")?, positive("simulation.duration", e.duration, "s")?);
        if duration / dt > MAX_STEPS {
            let msg =
                format!("{:.1e} steps would be recorded (at most {MAX_STEPS:e}): lengthen the step", duration / dt);
            return Err(BuildError::new("simulation.dt", msg));
        }
        positive("snare.mass", e.mass, "kg")?;
        positive("snare.inertia", e.inertia, "kg·m²")?;
        positive("snare.speed", e.speed, "m/s")?;
        positive("snare.v_star", e.v_star, "m/s")?;
        Ok(e)
    }
}
