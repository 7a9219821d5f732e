//! [`MembraneDropBuilder`]: a membrane drop built in code, validated as a scenario file is, with
//! its derived data (the body's centre of mass, inertia, bounding radius and hull) computed.

use super::{MembraneDrop, RigidShape, rigid_shape};
use crate::pipeline::BuildError;
use crate::scenario::check::{fixed_timing, positive};
use tumble_contact::membrane::Membrane;
use tumble_dynamics::BodyState;
use tumble_geometry::TriMesh;
use tumble_math::{Mat3, UnitQuat, Vec3};

/// Builds a [`MembraneDrop`]: the membrane, the body (a closed mesh and its mass), its start,
/// gravity and the RK4 timing. The scenario file's keys name the inputs in errors.
#[derive(Clone)]
pub struct MembraneDropBuilder {
    name: String,
    membrane: Option<Membrane>,
    body: Option<(TriMesh, f64)>,
    inertia: Option<Mat3>,
    start: BodyState,
    gravity: Vec3,
    dt: f64,
    duration: f64,
    output_interval: Option<f64>,
    max_energy_growth: f64,
}

impl MembraneDrop {
    /// A builder for a drop named `name`, with a scenario file's defaults: no gravity, the body
    /// at rest at the origin, a sample every step, an energy growth limit of 1 % of the scale.
    pub fn builder(name: &str) -> MembraneDropBuilder {
        MembraneDropBuilder {
            name: name.into(),
            membrane: None,
            body: None,
            inertia: None,
            start: BodyState {
                p_WB: Vec3::zeros(),
                v_WB: Vec3::zeros(),
                q_WB: UnitQuat::identity(),
                w_WB_B: Vec3::zeros(),
            },
            gravity: Vec3::zeros(),
            dt: f64::NAN,
            duration: f64::NAN,
            output_interval: None,
            max_energy_growth: 0.01,
        }
    }
}

impl MembraneDropBuilder {
    /// The membrane, world frame (its suspension polygon in `z = 0`).
    pub fn membrane(mut self, membrane: Membrane) -> Self {
        self.membrane = Some(membrane);
        self
    }

    /// The body: a closed, outward mesh (m, any origin) of `mass` (kg), uniform unless
    /// [`MembraneDropBuilder::inertia`] says otherwise.
    pub fn body(mut self, mesh: TriMesh, mass: f64) -> Self {
        self.body = Some((mesh, mass));
        self
    }

    /// Inertia about the centre of mass, body axes, kg·m².
    pub fn inertia(mut self, inertia: Mat3) -> Self {
        self.inertia = Some(inertia);
        self
    }

    /// Centre of mass (m) and attitude at the start.
    pub fn pose(mut self, position: Vec3, attitude: UnitQuat) -> Self {
        self.start.p_WB = position;
        self.start.q_WB = attitude;
        self
    }

    /// Velocity (m/s, world) and angular velocity (rad/s, body axes) at the start.
    pub fn twist(mut self, velocity: Vec3, angular_velocity: Vec3) -> Self {
        self.start.v_WB = velocity;
        self.start.w_WB_B = angular_velocity;
        self
    }

    /// Uniform gravity, m/s².
    pub fn gravity(mut self, g: Vec3) -> Self {
        self.gravity = g;
        self
    }

    /// RK4 step, duration and output interval (a whole multiple of the step), s.
    pub fn timing(mut self, dt: f64, duration: f64, output_interval: f64) -> Self {
        (self.dt, self.duration, self.output_interval) = (dt, duration, Some(output_interval));
        self
    }

    /// Largest growth of the energy budget allowed, fraction of the energy scale (see
    /// [`super::MembraneSim`]).
    pub fn max_energy_growth(mut self, fraction: f64) -> Self {
        self.max_energy_growth = fraction;
        self
    }

    /// The drop, or the first input that cannot make one.
    pub fn build(self) -> Result<MembraneDrop, BuildError> {
        let membrane = self.membrane.ok_or_else(|| BuildError::new("membrane", "missing: the membrane"))?;
        let (mesh, mass) = self.body.ok_or_else(|| BuildError::new("membrane.body.shape", "missing: the body"))?;
        let (dt, duration, output_interval) = fixed_timing(self.dt, self.duration, self.output_interval)?;
        let s = &self.start;
        let finite = [s.p_WB, s.v_WB, s.w_WB_B, self.gravity].iter().all(|v| v.iter().all(|x| x.is_finite()));
        if !finite {
            return Err(BuildError::new(
                "membrane.body",
                "position, velocity, angular velocity and gravity must be finite",
            ));
        }
        let RigidShape { mesh, body, radius, hull } = rigid_shape(&self.name, mesh, mass, self.inertia)?;
        let lowest = mesh.vertices.iter().map(|r| (s.p_WB + s.q_WB * r).z).fold(f64::INFINITY, f64::min);
        if lowest < 0.0 {
            return Err(BuildError::new(
                "membrane.body.position",
                format!("the body starts through the membrane's plane (lowest vertex z = {lowest:.3} m)"),
            ));
        }
        let max_energy_growth =
            positive("simulation.max_energy_growth", self.max_energy_growth, "fraction of the energy scale")?;
        Ok(MembraneDrop {
            name: self.name,
            membrane,
            mesh,
            radius,
            hull,
            body,
            gravity: self.gravity,
            start: self.start,
            dt,
            duration,
            output_interval,
            max_energy_growth,
        })
    }
}
