//! [`ModelBuilder`]: free rigid bodies built in code — bodies from their mass properties (the
//! inverse inertia derived), loads, a gravity field, the integration and the outputs — validated
//! as a scenario file is (errors name the file's keys); the scenario adapter ends in it.

use super::{GravityKind, MAX_SAMPLES, Model};
use crate::pipeline::BuildError;
use crate::scenario::check::{mass_properties, positive};
use tumble_dynamics::{
    BodyState, Dopri5Settings, Gravity, Load, Method, NoGravity, PointMass, Polyhedron, RigidBody, RigidBodySystem,
    Uniform,
};
use tumble_geometry::{MassProperties, TriMesh};
use tumble_math::Vec3;

/// The integration of a rigid-body run.
#[derive(Clone, Copy, Debug)]
enum Stepping {
    /// RK4 at a fixed step, s.
    Rk4(f64),
    /// Symplectic Euler at a fixed step, s.
    SymplecticEuler(f64),
    /// DOPRI5: tolerances, largest and first step (defaults: the output interval and a tenth
    /// of it), s.
    Dopri5 { rtol: f64, atol: f64, max_step: Option<f64>, initial_step: Option<f64> },
}

/// The gravity field as given, checked by the build.
#[derive(Clone, Debug)]
enum Field {
    None,
    Uniform(Vec3),
    PointMass {
        mu: f64,
        center: Vec3,
        radius: f64,
    },
    /// The field, or the key at fault and what is wrong.
    Polyhedron(Result<Polyhedron, (&'static str, String)>),
}

/// Builds a [`Model`]: named bodies with their mass properties, loads and initial states, a
/// gravity field, the integrator and the outputs.
#[derive(Clone, Debug)]
pub struct ModelBuilder {
    name: String,
    description: String,
    seed: u64,
    bodies: Vec<(RigidBody, BodyState)>,
    field: Field,
    stepping: Option<Stepping>,
    duration: f64,
    output_interval: Option<f64>,
    max_steps: Option<u64>,
    max_energy_growth: f64,
    orphan_load: bool,
}

impl Model {
    /// A builder for the run named `name` with a scenario file's defaults: no gravity, seed 0,
    /// about 2000 (fixed step) or 1000 (DOPRI5) samples over the run, energy growth limit 1 %
    /// of the initial energy scale.
    pub fn builder(name: &str) -> ModelBuilder {
        ModelBuilder {
            name: name.into(),
            description: String::new(),
            seed: 0,
            bodies: Vec::new(),
            field: Field::None,
            stepping: None,
            duration: f64::NAN,
            output_interval: None,
            max_steps: None,
            max_energy_growth: 0.01,
            orphan_load: false,
        }
    }
}

impl ModelBuilder {
    /// A one-line description for the outputs.
    pub fn description(mut self, text: &str) -> Self {
        self.description = text.into();
        self
    }

    /// Seed of the run's random streams.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// A body named `name` (letters, digits, `_`, `-`: it names output columns) with mass
    /// properties about its centre of mass (the body frame's origin; kg, kg·m²) and its state
    /// at t = 0.
    pub fn body(mut self, name: &str, mass: &MassProperties, start: BodyState) -> Self {
        self.bodies.push((RigidBody::new(name, mass), start));
        self
    }

    /// A load on the body added last (before any body, [`ModelBuilder::build`] refuses it).
    pub fn load(mut self, load: Load) -> Self {
        match self.bodies.last_mut() {
            Some((body, _)) => body.loads.push(load),
            None => self.orphan_load = true,
        }
        self
    }

    /// Uniform gravity, m/s².
    pub fn uniform_gravity(mut self, g: Vec3) -> Self {
        self.field = Field::Uniform(g);
        self
    }

    /// A point mass of gravitational parameter `mu` (m³/s²) at `center` (m); a body whose
    /// centre of mass comes within `radius` (m; 0: never) stops the run with an impact.
    pub fn point_mass_gravity(mut self, mu: f64, center: Vec3, radius: f64) -> Self {
        self.field = Field::PointMass { mu, center, radius };
        self
    }

    /// The field of a closed mesh (m) of constant `density` (kg/m³) (Werner & Scheeres).
    pub fn polyhedron_gravity(mut self, mesh: &TriMesh, density: f64) -> Self {
        self.field = match positive("gravity.density", density, "kg/m³") {
            Ok(d) => Field::Polyhedron(Polyhedron::new(mesh, d).map_err(|e| ("gravity.mesh", e.to_string()))),
            Err((_, message)) => Field::Polyhedron(Err(("gravity.density", message))),
        };
        self
    }

    /// RK4 at the step `dt`, s.
    pub fn rk4(mut self, dt: f64) -> Self {
        self.stepping = Some(Stepping::Rk4(dt));
        self
    }

    /// Symplectic Euler at the step `dt`, s.
    pub fn symplectic_euler(mut self, dt: f64) -> Self {
        self.stepping = Some(Stepping::SymplecticEuler(dt));
        self
    }

    /// DOPRI5 with tolerances `rtol` (at least 1e-14) and `atol`, at most `max_step` and
    /// starting at `initial_step` (s; defaults: the output interval and a tenth of it).
    pub fn dopri5(mut self, rtol: f64, atol: f64, max_step: Option<f64>, initial_step: Option<f64>) -> Self {
        self.stepping = Some(Stepping::Dopri5 { rtol, atol, max_step, initial_step });
        self
    }

    /// Most accepted steps DOPRI5 may take before the run stops failed (default
    /// [`crate::scenario::MAX_STEPS`]); fixed-step methods take `duration / dt`, which the
    /// scenario checks against it.
    pub fn max_steps(mut self, steps: u64) -> Self {
        self.max_steps = Some(steps);
        self
    }

    /// Simulated time, s.
    pub fn duration(mut self, duration: f64) -> Self {
        self.duration = duration;
        self
    }

    /// Time between samples, s (a whole multiple of a fixed step).
    pub fn output_interval(mut self, interval: f64) -> Self {
        self.output_interval = Some(interval);
        self
    }

    /// Largest growth of `T + V − W` allowed, fraction of the initial energy scale.
    pub fn max_energy_growth(mut self, fraction: f64) -> Self {
        self.max_energy_growth = fraction;
        self
    }

    /// The gravity field given, checked, and its kind.
    pub(crate) fn gravity_field(self) -> Result<(Box<dyn Gravity>, GravityKind), BuildError> {
        field(self.field)
    }

    /// Checks every value, derives the rest and returns the model.
    pub fn build(self) -> Result<Model, BuildError> {
        let duration = positive("simulation.duration", self.duration, "s")?;
        let max_energy_growth =
            positive("simulation.max_energy_growth", self.max_energy_growth, "fraction of the initial energy scale")?;
        let (method, output_interval) = stepping(self.stepping, duration, self.output_interval, self.max_steps)?;
        if duration / output_interval > MAX_SAMPLES {
            let msg = format!(
                "would record {:.0} samples; raise it to at least {} s",
                duration / output_interval,
                duration / MAX_SAMPLES
            );
            return Err(BuildError::new("simulation.output_interval", msg));
        }
        let (gravity, kind) = field(self.field)?;
        if self.orphan_load {
            return Err(BuildError::new("bodies", "a load was given before any body: add the body first"));
        }
        if self.bodies.is_empty() {
            return Err(BuildError::new("bodies", "a scenario needs at least one body: add a [bodies.NAME] table"));
        }
        for (i, (body, state)) in self.bodies.iter().enumerate() {
            check_body(body, state, &self.bodies[..i], gravity.as_ref(), kind)?;
        }
        let (bodies, states): (Vec<_>, Vec<_>) = self.bodies.into_iter().unzip();
        let system = RigidBodySystem { bodies, gravity };
        let initial_state = system.pack(&states);
        Ok(Model {
            name: self.name,
            description: self.description,
            seed: self.seed,
            system,
            initial_state,
            method,
            duration,
            output_interval,
            max_energy_growth,
            gravity: kind,
        })
    }
}

/// The method and the output interval (default: about 2000 samples at a fixed step, 1000 with
/// DOPRI5).
fn stepping(
    stepping: Option<Stepping>,
    duration: f64,
    interval: Option<f64>,
    max_steps: Option<u64>,
) -> Result<(Method, f64), BuildError> {
    let fixed = |dt: f64| -> Result<(f64, f64), BuildError> {
        let dt = positive("simulation.dt", dt, "s")?;
        crate::scenario::fixed_step_budget(dt, duration, max_steps)?;
        let Some(oi) = interval else { return Ok((dt, dt * (duration / dt / 2000.0).ceil().max(1.0))) };
        let oi = positive("simulation.output_interval", oi, "s")?;
        let k = (oi / dt).round();
        if k < 1.0 || (k * dt - oi).abs() > 1e-9 * oi {
            let msg =
                format!("must be a whole multiple of simulation.dt = {dt} s with a fixed-step integrator, got {oi} s");
            return Err(BuildError::new("simulation.output_interval", msg));
        }
        Ok((dt, oi))
    };
    Ok(match stepping {
        None => {
            let msg = "missing: the integrator (rk4, symplectic_euler or dopri5)";
            return Err(BuildError::new("simulation.integrator", msg));
        }
        Some(Stepping::Rk4(dt)) => fixed(dt).map(|(dt, oi)| (Method::Rk4 { dt }, oi))?,
        Some(Stepping::SymplecticEuler(dt)) => fixed(dt).map(|(dt, oi)| (Method::SymplecticEuler { dt }, oi))?,
        Some(Stepping::Dopri5 { rtol, atol, max_step, initial_step }) => {
            let oi = match interval {
                Some(oi) => positive("simulation.output_interval", oi, "s")?,
                None => duration / 1000.0,
            };
            let rtol = positive("simulation.rtol", rtol, "dimensionless")?;
            if rtol < 1e-14 {
                let msg = format!("{rtol:e} is below what double precision can deliver; use 1e-14 or more");
                return Err(BuildError::new("simulation.rtol", msg));
            }
            let atol = positive("simulation.atol", atol, "state units")?;
            let h_max = match max_step {
                Some(h) => positive("simulation.max_step", h, "s")?,
                None => oi,
            };
            let h_initial = match initial_step {
                Some(h) => positive("simulation.dt", h, "s")?,
                None => (oi / 10.0).min(h_max),
            };
            // The adaptive step may not shrink below what MAX_STEPS steps (or a larger budget)
            // over the duration allow: a motion that needs less (a 5e6 rad/s spin at rtol
            // 1e-11) would run for hours, and says so at once. The budget counts steps taken.
            let max_steps = crate::scenario::step_budget(max_steps)?;
            let h_min = duration / (max_steps as f64).max(crate::scenario::MAX_STEPS);
            (Method::Dopri5(Dopri5Settings { rtol, atol, h_initial, h_min, h_max, max_steps }), oi)
        }
    })
}

/// The field and its kind, its parameters checked.
fn field(field: Field) -> Result<(Box<dyn Gravity>, GravityKind), BuildError> {
    let finite = |key: &str, v: Vec3| {
        if v.iter().all(|x| x.is_finite()) {
            Ok(v)
        } else {
            Err(BuildError::new(key, format!("must hold three finite numbers, got {:?}", <[f64; 3]>::from(v))))
        }
    };
    Ok(match field {
        Field::None => (Box::new(NoGravity), GravityKind::None),
        Field::Uniform(g) => (Box::new(Uniform { g: finite("gravity.g", g)? }), GravityKind::Uniform),
        Field::PointMass { mu, center, radius } => {
            let mu = positive("gravity.mu", mu, "m³/s²")?;
            let center = finite("gravity.center", center)?;
            if !(radius.is_finite() && radius >= 0.0) {
                let msg = format!("must be >= 0 (m; 0 disables impact detection), got {radius}");
                return Err(BuildError::new("gravity.radius", msg));
            }
            (Box::new(PointMass { mu, center }), GravityKind::PointMass { mu, center, radius })
        }
        Field::Polyhedron(p) => (Box::new(p.map_err(|(key, e)| BuildError::new(key, e))?), GravityKind::Polyhedron),
    })
}

/// The checks of one body against those before it and the field.
fn check_body(
    body: &RigidBody,
    state: &BodyState,
    before: &[(RigidBody, BodyState)],
    gravity: &dyn Gravity,
    kind: GravityKind,
) -> Result<(), BuildError> {
    let key = format!("bodies.{}", body.name);
    if body.name.is_empty() || !body.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        let msg = "body names may hold only letters, digits, '_' and '-' (they name output columns)";
        return Err(BuildError::new(key, msg));
    }
    if before.iter().any(|(b, _)| b.name == body.name) {
        return Err(BuildError::new(key, format!("'{}' is used twice", body.name)));
    }
    mass_properties(&key, &MassProperties::new(body.mass, body.inertia))?;
    let finite = |v: &Vec3| v.iter().all(|x| x.is_finite());
    for (name, v) in [("position", &state.p_WB), ("velocity", &state.v_WB), ("angular_velocity", &state.w_WB_B)] {
        if !finite(v) {
            let msg = format!("must hold three finite numbers, got {:?}", <[f64; 3]>::from(*v));
            return Err(BuildError::new(format!("{key}.{name}"), msg));
        }
    }
    crate::scenario::check::motion(&key, &state.p_WB, &state.v_WB, &state.w_WB_B)?;
    if !state.q_WB.coords.iter().all(|x| x.is_finite()) {
        return Err(BuildError::new(format!("{key}.orientation"), "must be a finite unit quaternion"));
    }
    for (i, load) in body.loads.iter().enumerate() {
        let v = match load {
            Load::BodyForce { force_B: f, point_B: p } | Load::WorldForce { force_W: f, point_B: p } => [f, p],
            Load::BodyTorque { torque_B: t } | Load::WorldTorque { torque_W: t } => [t, t],
        };
        if !v.into_iter().all(finite) {
            return Err(BuildError::new(format!("{key}.loads.{i}"), "force, torque and point must be finite"));
        }
    }
    if let GravityKind::PointMass { center, radius, .. } = kind {
        let d = (state.p_WB - center).norm();
        if radius > 0.0 && d <= radius {
            let msg = format!("starts inside the central body (distance {d} m <= gravity.radius = {radius} m)");
            return Err(BuildError::new(format!("{key}.position"), msg));
        }
        if !gravity.potential(&state.p_WB).is_finite() {
            let msg = "is at the attracting centre, where point-mass gravity is singular";
            return Err(BuildError::new(format!("{key}.position"), msg));
        }
    }
    Ok(())
}
