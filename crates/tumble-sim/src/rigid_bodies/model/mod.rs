//! Free rigid bodies: the validated [`Model`] of a run, built in code by [`ModelBuilder`] or from
//! a scenario by [`Model::build`] (the adapter reading the file's tables into the builder). Every
//! physically impossible value is refused, with the key that holds it, before anything runs.

use crate::scenario::check::{Check, err, finite3, positive, read_mesh_key};
use crate::scenario::{BodySpec, GravitySpec, IntegratorKind, LoadFrame, Scenario, ScenarioError};
use tumble_dynamics::{BodyState, Gravity, Load, Method, RigidBodySystem};
use tumble_geometry::{MassProperties, TriMesh};
use tumble_math::{Mat3, Vec3, quat_from_wxyz};

mod builder;

pub use builder::ModelBuilder;

/// Most samples a run may record (about 2 GB of time series for a few bodies).
const MAX_SAMPLES: f64 = 1e7;

/// Everything a run needs: the constant model, the initial state and the settings.
pub struct Model {
    /// Scenario name.
    pub name: String,
    /// Scenario description.
    pub description: String,
    /// Seed of the random streams.
    pub seed: u64,
    /// The bodies and gravity.
    pub system: RigidBodySystem,
    /// Initial state vector.
    pub initial_state: Vec<f64>,
    /// Integration method.
    pub method: Method,
    /// Simulated time span, s.
    pub duration: f64,
    /// Time between samples, s.
    pub output_interval: f64,
    /// Blow-up threshold on energy growth, fraction of the initial energy scale.
    pub max_energy_growth: f64,
    /// What the run and its metrics know of the gravity field.
    pub gravity: GravityKind,
}

impl Model {
    /// Validates a scenario and builds its model.
    pub fn build(sc: &Scenario) -> Result<Model, ScenarioError> {
        Self::check(sc).map_err(|(key, msg)| sc.error_at(&key, msg))
    }

    /// The scenario adapter: reads the file's tables into a [`ModelBuilder`].
    fn check(sc: &Scenario) -> Check<Model> {
        let f = &sc.file;
        let sim = &f.simulation;
        let mut b = Model::builder(&f.name)
            .description(&f.description)
            .seed(f.seed)
            .duration(sim.duration)
            .max_energy_growth(sim.max_energy_growth);
        if let Some(oi) = sim.output_interval {
            b = b.output_interval(oi);
        }
        b = match (sim.integrator, sim.dt) {
            (IntegratorKind::Rk4 | IntegratorKind::SymplecticEuler, None) => {
                return err(
                    "simulation.dt",
                    "is required by fixed-step integrators (rk4, symplectic_euler): give the step in s",
                );
            }
            (IntegratorKind::Rk4, Some(dt)) => b.rk4(dt),
            (IntegratorKind::SymplecticEuler, Some(dt)) => b.symplectic_euler(dt),
            (IntegratorKind::Dopri5, dt) => b.dopri5(sim.rtol, sim.atol, sim.max_step, dt),
        };
        if let Some(n) = sim.max_steps {
            b = b.max_steps(n);
        }
        b = gravity_input(sc, None, b)?;
        if f.bodies.is_empty() {
            return err("bodies", "a scenario needs at least one body: add a [bodies.NAME] table");
        }
        for (name, spec) in &f.bodies {
            let key = format!("bodies.{name}");
            let mp = mass_properties(&key, spec)?;
            b = b.body(name, &mp, body_state(&key, spec)?);
            for load in body_loads(&key, spec)? {
                b = b.load(load);
            }
        }
        Ok(b.build()?)
    }
}

/// What the run and its metrics know of the gravity field beyond its accelerations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GravityKind {
    /// No gravity.
    None,
    /// A uniform field.
    Uniform,
    /// A point mass: gravitational parameter (m³/s²), centre (m) and the radius (m) within
    /// which a body's centre of mass has hit it (0: never).
    PointMass {
        /// Gravitational parameter, m³/s².
        mu: f64,
        /// Centre, m.
        center: Vec3,
        /// Impact radius, m.
        radius: f64,
    },
    /// A constant-density polyhedron.
    Polyhedron,
}

impl Model {
    /// Attracting centre and radius (m) for impact detection: a point mass with `radius > 0`.
    pub fn impact(&self) -> Option<(Vec3, f64)> {
        match self.gravity {
            GravityKind::PointMass { center, radius, .. } if radius > 0.0 => Some((center, radius)),
            _ => None,
        }
    }
}

/// `[gravity]` given to `b`; `target` is the lander target's mesh for `mesh = "target"`.
fn gravity_input(sc: &Scenario, target: Option<&TriMesh>, b: ModelBuilder) -> Check<ModelBuilder> {
    Ok(match &sc.file.gravity {
        GravitySpec::None => b,
        GravitySpec::Uniform { g } => b.uniform_gravity(Vec3::from(*g)),
        GravitySpec::PointMass { mu, center, radius } => b.point_mass_gravity(*mu, Vec3::from(*center), *radius),
        GravitySpec::Polyhedron { mesh, unit, density, .. } => {
            if mesh == "target" {
                match target {
                    Some(m) => b.polyhedron_gravity(m, *density),
                    None => return err("gravity.mesh", "`target` needs a [target] with a body or mesh shape"),
                }
            } else {
                let Some(unit) = unit else {
                    return err("gravity.unit", "a mesh file needs its unit: `m`, `km` or a factor to metres");
                };
                b.polyhedron_gravity(&read_mesh_key(sc, "gravity", mesh, unit)?, *density)
            }
        }
    })
}

/// The gravity field of `[gravity]`; `target` is the lander target's mesh for
/// `mesh = "target"`.
pub(crate) fn build_gravity(sc: &Scenario, target: Option<&TriMesh>) -> Check<Box<dyn Gravity>> {
    Ok(gravity_input(sc, target, Model::builder(""))?.gravity_field()?.0)
}

pub(crate) fn mass_properties(key: &str, spec: &BodySpec) -> Check<MassProperties> {
    let mp = match (&spec.shape, &spec.inertia) {
        (Some(_), Some(_)) => return err(format!("{key}.inertia"), "give either `shape` or `inertia`, not both"),
        (Some(shape), None) => {
            shape.validate().map_err(|e| (format!("{key}.shape"), e.to_string()))?;
            match (spec.mass, spec.density) {
                (Some(m), None) => shape.with_mass(positive(&format!("{key}.mass"), m, "kg")?),
                (None, Some(d)) => shape.with_density(positive(&format!("{key}.density"), d, "kg/m³")?),
                _ => {
                    return err(
                        format!("{key}.mass"),
                        "with `shape`, give exactly one of `mass` (kg) or `density` (kg/m³)",
                    );
                }
            }
        }
        (None, Some(i)) => {
            if spec.density.is_some() {
                return err(format!("{key}.density"), "`density` needs a `shape`; with `inertia` give `mass` (kg)");
            }
            let Some(m) = spec.mass else {
                return err(format!("{key}.mass"), "is required with `inertia` (kg)");
            };
            let ikey = format!("{key}.inertia");
            let t = match *i.as_slice() {
                [xx, yy, zz] => Mat3::from_diagonal(&Vec3::new(xx, yy, zz)),
                [xx, yy, zz, xy, xz, yz] => Mat3::new(xx, xy, xz, xy, yy, yz, xz, yz, zz),
                _ => {
                    return err(
                        ikey,
                        format!(
                            "must hold 3 values [Ixx, Iyy, Izz] or 6 values [Ixx, Iyy, Izz, Ixy, Ixz, Iyz] (kg·m²), got {}",
                            i.len()
                        ),
                    );
                }
            };
            MassProperties::new(m, t)
        }
        (None, None) => {
            return err(key, "needs mass properties: `mass` and `inertia`, or a `shape` with `mass` or `density`");
        }
    };
    mp.validate().map_err(|e| {
        let field = if matches!(e, tumble_geometry::MassError::Mass(_)) {
            "mass"
        } else if spec.shape.is_some() {
            "shape"
        } else {
            "inertia"
        };
        (format!("{key}.{field}"), e.to_string())
    })?;
    Ok(mp)
}

/// The loads of the body at `key`.
fn body_loads(key: &str, spec: &BodySpec) -> Check<Vec<Load>> {
    let mut loads = Vec::new();
    for (i, l) in spec.loads.iter().enumerate() {
        let lkey = format!("{key}.loads.{i}");
        let point_B = finite3(&format!("{lkey}.point"), l.point)?;
        if l.force.is_none() && l.torque.is_none() {
            return err(lkey, "a load needs a `force` (N) and/or a `torque` (N·m)");
        }
        if let Some(f) = l.force {
            let f = finite3(&format!("{lkey}.force"), f)?;
            loads.push(match l.frame {
                LoadFrame::Body => Load::BodyForce { force_B: f, point_B },
                LoadFrame::World => Load::WorldForce { force_W: f, point_B },
            });
        }
        if let Some(t) = l.torque {
            loads.push(Load::BodyTorque { torque_B: finite3(&format!("{lkey}.torque"), t)? });
        }
    }
    Ok(loads)
}

/// The initial state of the body at `key`.
fn body_state(key: &str, spec: &BodySpec) -> Check<BodyState> {
    let q_WB = quat_from_wxyz(spec.orientation).map_err(|e| (format!("{key}.orientation"), e.to_string()))?;
    Ok(BodyState {
        p_WB: finite3(&format!("{key}.position"), spec.position)?,
        v_WB: finite3(&format!("{key}.velocity"), spec.velocity)?,
        q_WB,
        w_WB_B: finite3(&format!("{key}.angular_velocity"), spec.angular_velocity)?,
    })
}
