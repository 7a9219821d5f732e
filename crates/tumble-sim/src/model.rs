//! Building a validated simulation model from a scenario. Every physically impossible value is
//! refused here, with the key that holds it, before anything runs.

use crate::scenario::check::{Check, err, finite3, positive, read_mesh_key};
use crate::scenario::{BodySpec, GravitySpec, IntegratorKind, LoadFrame, Scenario, ScenarioError};
use tumble_dynamics::Polyhedron;
use tumble_dynamics::{
    BodyState, Dopri5Settings, Gravity, Load, Method, NoGravity, PointMass, RigidBody, RigidBodySystem, Uniform,
};
use tumble_geometry::{MassProperties, TriMesh};
use tumble_math::{Mat3, Vec3, quat_from_wxyz};

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
    /// The gravity field as the scenario gave it.
    pub gravity: GravitySpec,
}

impl Model {
    /// Validates a scenario and builds its model.
    pub fn build(sc: &Scenario) -> Result<Model, ScenarioError> {
        Self::check(sc).map_err(|(key, msg)| sc.error_at(&key, msg))
    }

    fn check(sc: &Scenario) -> Check<Model> {
        let f = &sc.file;
        let sim = &f.simulation;
        let duration = positive("simulation.duration", sim.duration, "s")?;
        let max_energy_growth =
            positive("simulation.max_energy_growth", sim.max_energy_growth, "fraction of the initial energy scale")?;
        let (method, output_interval) = match sim.integrator {
            IntegratorKind::Rk4 | IntegratorKind::SymplecticEuler => {
                let Some(dt) = sim.dt else {
                    return err(
                        "simulation.dt",
                        "is required by fixed-step integrators (rk4, symplectic_euler): give the step in s",
                    );
                };
                let dt = positive("simulation.dt", dt, "s")?;
                let oi = match sim.output_interval {
                    Some(oi) => {
                        let oi = positive("simulation.output_interval", oi, "s")?;
                        let k = (oi / dt).round();
                        if k < 1.0 || (k * dt - oi).abs() > 1e-9 * oi {
                            return err(
                                "simulation.output_interval",
                                format!(
                                    "must be a whole multiple of simulation.dt = {dt} s with a fixed-step integrator, got {oi} s"
                                ),
                            );
                        }
                        oi
                    }
                    None => dt * (duration / dt / 2000.0).ceil().max(1.0),
                };
                let m = if sim.integrator == IntegratorKind::Rk4 {
                    Method::Rk4 { dt }
                } else {
                    Method::SymplecticEuler { dt }
                };
                (m, oi)
            }
            IntegratorKind::Dopri5 => {
                let oi = match sim.output_interval {
                    Some(oi) => positive("simulation.output_interval", oi, "s")?,
                    None => duration / 1000.0,
                };
                let rtol = positive("simulation.rtol", sim.rtol, "dimensionless")?;
                if rtol < 1e-14 {
                    return err(
                        "simulation.rtol",
                        format!("{rtol:e} is below what double precision can deliver; use 1e-14 or more"),
                    );
                }
                let atol = positive("simulation.atol", sim.atol, "state units")?;
                let h_max = match sim.max_step {
                    Some(h) => positive("simulation.max_step", h, "s")?,
                    None => oi,
                };
                let h_initial = match sim.dt {
                    Some(h) => positive("simulation.dt", h, "s")?,
                    None => (oi / 10.0).min(h_max),
                };
                let h_min = 1e-12 * duration;
                (Method::Dopri5(Dopri5Settings { rtol, atol, h_initial, h_min, h_max }), oi)
            }
        };
        if duration / output_interval > MAX_SAMPLES {
            return err(
                "simulation.output_interval",
                format!(
                    "would record {:.0} samples; raise it to at least {} s",
                    duration / output_interval,
                    duration / MAX_SAMPLES
                ),
            );
        }

        let gravity = build_gravity(sc, None)?;

        if f.bodies.is_empty() {
            return err("bodies", "a scenario needs at least one body: add a [bodies.NAME] table");
        }
        let mut bodies = Vec::new();
        let mut states = Vec::new();
        for (name, spec) in &f.bodies {
            let key = format!("bodies.{name}");
            if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                return err(&key, "body names may hold only letters, digits, '_' and '-' (they name output columns)");
            }
            let (body, state) = build_body(&key, name, spec)?;
            if let Some((c, r)) = impact_of(&f.gravity)
                && (state.p_WB - c).norm() <= r
            {
                return err(
                    format!("{key}.position"),
                    format!(
                        "starts inside the central body (distance {} m <= gravity.radius = {r} m)",
                        (state.p_WB - c).norm()
                    ),
                );
            }
            if matches!(f.gravity, GravitySpec::PointMass { .. }) && !gravity.potential(&state.p_WB).is_finite() {
                return err(
                    format!("{key}.position"),
                    "is at the attracting centre, where point-mass gravity is singular",
                );
            }
            bodies.push(body);
            states.push(state);
        }
        let system = RigidBodySystem { bodies, gravity };
        let initial_state = system.pack(&states);
        Ok(Model {
            name: f.name.clone(),
            description: f.description.clone(),
            seed: f.seed,
            system,
            initial_state,
            method,
            duration,
            output_interval,
            max_energy_growth,
            gravity: f.gravity.clone(),
        })
    }
}

impl Model {
    /// Attracting centre and radius (m) for impact detection: a point mass with `radius > 0`.
    pub fn impact(&self) -> Option<(Vec3, f64)> {
        impact_of(&self.gravity)
    }
}

/// The gravity field of `[gravity]`; `target` is the lander target's mesh for
/// `mesh = "target"`.
pub(crate) fn build_gravity(sc: &Scenario, target: Option<&TriMesh>) -> Check<Box<dyn Gravity>> {
    Ok(match &sc.file.gravity {
        GravitySpec::None => Box::new(NoGravity),
        GravitySpec::Uniform { g } => Box::new(Uniform { g: finite3("gravity.g", *g)? }),
        GravitySpec::PointMass { mu, center, radius } => {
            let mu = positive("gravity.mu", *mu, "m³/s²")?;
            let center = finite3("gravity.center", *center)?;
            if !(radius.is_finite() && *radius >= 0.0) {
                return err("gravity.radius", format!("must be >= 0 (m; 0 disables impact detection), got {radius}"));
            }
            Box::new(PointMass { mu, center })
        }
        GravitySpec::Polyhedron { mesh, unit, density, .. } => {
            let density = positive("gravity.density", *density, "kg/m³")?;
            let loaded;
            let m = if mesh == "target" {
                match target {
                    Some(m) => m,
                    None => return err("gravity.mesh", "`target` needs a [target] with a body or mesh shape"),
                }
            } else {
                let Some(unit) = unit else {
                    return err("gravity.unit", "a mesh file needs its unit: `m`, `km` or a factor to metres");
                };
                loaded = read_mesh_key(sc, "gravity", mesh, unit)?;
                &loaded
            };
            Box::new(Polyhedron::new(m, density).map_err(|e| ("gravity.mesh".to_string(), e.to_string()))?)
        }
    })
}

fn impact_of(g: &GravitySpec) -> Option<(Vec3, f64)> {
    match *g {
        GravitySpec::PointMass { center, radius, .. } if radius > 0.0 => Some((Vec3::from(center), radius)),
        _ => None,
    }
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

fn build_body(key: &str, name: &str, spec: &BodySpec) -> Check<(RigidBody, BodyState)> {
    let mp = mass_properties(key, spec)?;
    let mut body = RigidBody::new(name, &mp);
    for (i, l) in spec.loads.iter().enumerate() {
        let lkey = format!("{key}.loads.{i}");
        let point_B = finite3(&format!("{lkey}.point"), l.point)?;
        if l.force.is_none() && l.torque.is_none() {
            return err(lkey, "a load needs a `force` (N) and/or a `torque` (N·m)");
        }
        if let Some(f) = l.force {
            let f = finite3(&format!("{lkey}.force"), f)?;
            body.loads.push(match l.frame {
                LoadFrame::Body => Load::BodyForce { force_B: f, point_B },
                LoadFrame::World => Load::WorldForce { force_W: f, point_B },
            });
        }
        if let Some(t) = l.torque {
            body.loads.push(Load::BodyTorque { torque_B: finite3(&format!("{lkey}.torque"), t)? });
        }
    }
    let q_WB = quat_from_wxyz(spec.orientation).map_err(|e| (format!("{key}.orientation"), e.to_string()))?;
    let state = BodyState {
        p_WB: finite3(&format!("{key}.position"), spec.position)?,
        v_WB: finite3(&format!("{key}.velocity"), spec.velocity)?,
        q_WB,
        w_WB_B: finite3(&format!("{key}.angular_velocity"), spec.angular_velocity)?,
    };
    Ok((body, state))
}
