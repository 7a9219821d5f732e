//! A rigid body meeting a convex-hull membrane (`[membrane]`): the membrane document's drop
//! test (Fig. 5). The membrane hangs from a regular polygon of points in the world plane
//! `z = 0` and deflects towards `z < 0`; the body, any closed triangle mesh, falls onto it under
//! the `[gravity]` field. One `OdeSystem` holds the body (13 states: position, attitude
//! `[w, x, y, z]`, velocity, body-axes rate) and two bookkeeping states: the energy the area
//! damping has removed, `∫c Ȧ² dt`, and the energy friction has removed, `−∫P_f dt`, so the
//! budget `T + V_g + ½k(A − A₀)² + D_c + D_f` is checkable at every step.
//!
//! Here: the model and the scenario adapter; `builder.rs` validates and derives it
//! ([`MembraneDropBuilder`]); [`sim`] steps it on the pipeline; `output.rs` writes a run's
//! files.

use crate::ScenarioError;
use crate::pipeline::Diagnosis;
use crate::scenario::GravitySpec;
use crate::scenario::Scenario;
use crate::scenario::check::mass_and_inertia;
use crate::scenario::check::{Check, err, finite3, positive, read_mesh_key, rk4_timing};
use crate::scenario::membrane::MembraneShape;
use tumble_contact::membrane::{BodyHull, Distribution, Membrane, MembraneContact, MembraneFriction};
use tumble_dynamics::{BodyState, RigidBody};
use tumble_geometry::bodies::{BodyKind, body_mesh};
use tumble_geometry::{MassProperties, TriMesh};
use tumble_math::{Vec3, quat_from_wxyz};

pub mod app;
mod builder;
pub mod campaign;
mod output;
pub mod sim;
mod summary;

pub use builder::MembraneDropBuilder;
pub(crate) use output::{MEMBRANE_COLOR, membrane_plot, membrane_shape};
pub use output::{animation, timeseries, write_membrane_run};
pub use sim::MembraneSim;
pub use summary::DropSummary;

/// A body and a fixed membrane, validated.
#[derive(Clone, Debug)]
pub struct MembraneDrop {
    /// Scenario name.
    pub name: String,
    /// The membrane (world frame = membrane frame).
    pub membrane: Membrane,
    /// The body's shape, body frame (origin at the centre of mass).
    pub mesh: TriMesh,
    /// Radius of the sphere about the centre of mass holding the shape, m.
    pub radius: f64,
    /// The shape's convex hull.
    pub hull: Option<BodyHull>,
    /// Mass and inertia (about the centre of mass, body axes).
    pub body: RigidBody,
    /// Uniform gravity, m/s².
    pub gravity: Vec3,
    /// Initial body state.
    pub start: BodyState,
    /// RK4 step, s.
    pub dt: f64,
    /// Simulated span, s.
    pub duration: f64,
    /// Time between samples, s.
    pub output_interval: f64,
    /// Largest growth of the energy budget allowed, as a fraction of the energy scale
    /// (`simulation.max_energy_growth`; see [`MembraneSim`]).
    pub max_energy_growth: f64,
}

/// One recorded instant.
#[derive(Clone, Debug, PartialEq)]
pub struct MembraneSample {
    /// Time, s.
    pub t: f64,
    /// Centre of mass, m.
    pub position: [f64; 3],
    /// Velocity, m/s.
    pub velocity: [f64; 3],
    /// Angular velocity, body axes, rad/s.
    pub omega: [f64; 3],
    /// Attitude `[w, x, y, z]`.
    pub attitude: [f64; 4],
    /// The membrane's action.
    pub contact: MembraneContact,
    /// Kinetic energy, J.
    pub kinetic: f64,
    /// Gravity potential energy `−m g·p`, J.
    pub gravity_potential: f64,
    /// Energy removed by the area damping `∫c Ȧ² dt`, J.
    pub damping_loss: f64,
    /// Energy removed by friction `−∫P_f dt`, J.
    pub friction_loss: f64,
    /// Work of a user's wrench `∫(F·v + τ·ω) dt`, J.
    pub work: f64,
}

impl MembraneSample {
    /// `T + V_g + ½k(A − A₀)² + D_c + D_f − W`: constant for the exact flow.
    pub fn budget(&self) -> f64 {
        self.kinetic + self.gravity_potential + self.contact.energy + self.damping_loss + self.friction_loss - self.work
    }
}

/// A finished run.
#[derive(Clone, Debug, Default)]
pub struct MembraneRun {
    /// Samples at the output interval.
    pub samples: Vec<MembraneSample>,
    /// Contact episodes `[first, last]` sample time on the membrane, s.
    pub contacts: Vec<[f64; 2]>,
    /// Why the run stopped early, if it did.
    pub diagnosis: Option<Diagnosis>,
    /// Wall-clock time, s.
    pub wall_s: f64,
}

impl MembraneDrop {
    /// Validates `[membrane]`, `[gravity]` and `[simulation]` (RK4).
    pub fn build(sc: &Scenario) -> Result<Self, ScenarioError> {
        Self::check(sc).map_err(|(k, m)| sc.error_at(&k, m))
    }

    /// The scenario adapter: reads `[membrane]`, `[gravity]` and `[simulation]` into a
    /// [`MembraneDropBuilder`].
    fn check(sc: &Scenario) -> Check<Self> {
        let (dt, duration, output_interval) = rk4_timing(sc, "membrane")?;
        let gravity = match &sc.file.gravity {
            GravitySpec::None => Vec3::zeros(),
            GravitySpec::Uniform { g } => finite3("gravity.g", *g)?,
            _ => return err("gravity.type", "membrane runs take `none` or `uniform` gravity"),
        };
        let MembraneParts { membrane, mesh, mass, inertia, start } = membrane_parts(sc)?;
        let mut b = MembraneDrop::builder(&sc.file.name)
            .membrane(membrane)
            .body(mesh, mass)
            .pose(start.p_WB, start.q_WB)
            .twist(start.v_WB, start.w_WB_B)
            .gravity(gravity)
            .timing(dt, duration, output_interval)
            .max_energy_growth(sc.file.simulation.max_energy_growth);
        if let Some(i) = inertia {
            b = b.inertia(i);
        }
        Ok(b.build()?)
    }

    /// The state at the start: body, then the two losses (zero).
    pub fn initial_state(&self) -> Vec<f64> {
        let mut y = vec![0.0; sim::STATE_LEN];
        self.start.write(&mut y);
        y
    }

    /// Runs the drop on the pipeline's [`crate::pipeline::Driver`].
    pub fn run(&self) -> MembraneRun {
        let started = std::time::Instant::now();
        let sim = MembraneSim::new(self);
        let schedule = sim.schedule();
        let (sim, end) = crate::pipeline::Driver::run_whole(sim, schedule, &mut |_| {});
        let mut run = sim.finish(end);
        run.wall_s = started.elapsed().as_secs_f64();
        run
    }
}

/// What every membrane run reads from `[membrane]`: the membrane, and the body's shape as
/// given, mass, inertia if given, and initial state (its centre of mass).
pub(crate) struct MembraneParts {
    pub membrane: Membrane,
    pub mesh: TriMesh,
    pub mass: f64,
    pub inertia: Option<tumble_math::Mat3>,
    pub start: BodyState,
}

/// Validates `[membrane]` and `[membrane.body]`.
pub(crate) fn membrane_parts(sc: &Scenario) -> Check<MembraneParts> {
    let Some(ms) = &sc.file.membrane else { return err("membrane", "a membrane run needs a [membrane] table") };
    let friction = membrane_friction("membrane", ms.mu, ms.v_star, &ms.distribution)?;
    if !(3..=64).contains(&ms.points) {
        return err("membrane.points", format!("must be between 3 and 64, got {}", ms.points));
    }
    let radius = match (ms.area, ms.radius) {
        (Some(a), None) => Membrane::regular_radius(ms.points, positive("membrane.area", a, "m²")?),
        (None, Some(r)) => positive("membrane.radius", r, "m")?,
        _ => return err("membrane", "give exactly one of `area` (m²) or `radius` (m)"),
    };
    let k = positive("membrane.k", ms.k, "N/m³")?;
    if !(ms.c.is_finite() && ms.c >= 0.0) {
        return err("membrane.c", format!("must be zero or positive (N·s/m³), got {}", ms.c));
    }
    let membrane = Membrane::regular(ms.points, radius, k, ms.c, friction).map_err(|e| ("membrane".to_string(), e))?;

    let b = &ms.body;
    let mesh = match &b.shape {
        MembraneShape::Ellipsoid { semi_axes, levels } => {
            let s = finite3("membrane.body.shape.semi_axes", *semi_axes)?;
            if s.iter().any(|x| *x <= 0.0) {
                return err("membrane.body.shape.semi_axes", "must be positive (m)");
            }
            if *levels > 6 {
                return err("membrane.body.shape.levels", format!("must be 0 to 6, got {levels}"));
            }
            TriMesh::ellipsoid(*semi_axes, *levels)
        }
        MembraneShape::Body { kind, length, seed, cells } => {
            let kind: BodyKind = kind.parse().map_err(|e| ("membrane.body.shape.kind".to_string(), e))?;
            let length = positive("membrane.body.shape.length", *length, "m")?;
            if !(4..=256).contains(cells) {
                return err("membrane.body.shape.cells", format!("must be 4 to 256, got {cells}"));
            }
            body_mesh(kind, length, *seed, true, *cells)
                .map_err(|e| ("membrane.body.shape".to_string(), e.to_string()))?
        }
        MembraneShape::Mesh { path, unit } => {
            let m = read_mesh_key(sc, "membrane.body.shape", path, unit)?;
            let r = m.report();
            if !r.outward {
                return err(
                    "membrane.body.shape.path",
                    "the mesh is not closed and outward: repair it with `tumble mesh repair`",
                );
            }
            m
        }
    };
    let mass = positive("membrane.body.mass", b.mass, "kg")?;
    let inertia = match &b.inertia {
        Some(i) => Some(mass_and_inertia("membrane.body", mass, i)?.1),
        None => None,
    };
    let q = quat_from_wxyz(b.orientation).map_err(|e| ("membrane.body.orientation".to_string(), e.to_string()))?;
    let p = crate::scenario::check::position3("membrane.body.position", b.position)?;
    let v = crate::scenario::check::velocity3("membrane.body.velocity", b.velocity)?;
    let w = match (b.angular_velocity, b.spin_rpm, b.spin_axis) {
        (Some(w), None, None) => crate::scenario::check::rate3("membrane.body.angular_velocity", w)?,
        (None, Some(rpm), Some(axis)) => {
            let a = finite3("membrane.body.spin_axis", axis)?
                .try_normalize(1e-12)
                .ok_or(("membrane.body.spin_axis".to_string(), "must be a non-zero vector".to_string()))?;
            if !rpm.is_finite() {
                return err("membrane.body.spin_rpm", "must be finite");
            }
            a * rpm * std::f64::consts::TAU / 60.0
        }
        (None, None, None) => Vec3::zeros(),
        _ => {
            return err(
                "membrane.body",
                "give `angular_velocity` (rad/s) or both `spin_rpm` and `spin_axis`, not a mix",
            );
        }
    };
    Ok(MembraneParts { membrane, mesh, mass, inertia, start: BodyState { p_WB: p, v_WB: v, q_WB: q, w_WB_B: w } })
}

/// The friction of a membrane table `key` (`[membrane]`, `[trampoline]`): none at `mu = 0`,
/// otherwise Coulomb's `mu` regularised at `v_star` (m/s) on the normal load shared by
/// `distribution` (`pinv`, `nnls` or `auto`); each refused by its key.
pub(crate) fn membrane_friction(
    key: &str,
    mu: f64,
    v_star: f64,
    distribution: &str,
) -> Check<Option<MembraneFriction>> {
    let distribution = Distribution::parse(distribution)
        .ok_or((format!("{key}.distribution"), format!("unknown `{distribution}`: use `pinv`, `nnls` or `auto`")))?;
    let mu = crate::scenario::check::friction(&format!("{key}.mu"), mu)?;
    if mu == 0.0 {
        return Ok(None);
    }
    Ok(Some(MembraneFriction { mu, v_star: positive(&format!("{key}.v_star"), v_star, "m/s")?, distribution }))
}

/// A closed shape made a rigid body: see [`rigid_shape`].
pub(crate) struct RigidShape {
    /// The shape, its origin moved to the centre of mass.
    pub mesh: TriMesh,
    /// Mass and inertia about the centre of mass.
    pub body: RigidBody,
    /// Radius of the sphere about the centre of mass that holds the shape, m.
    pub radius: f64,
    /// The shape's convex hull.
    pub hull: Option<BodyHull>,
}

/// A closed shape made a rigid body of `mass` (kg): the mesh moved to its centre of mass, the
/// inertia (given, or the uniform solid's scaled to the mass) checked, the radius of the sphere
/// about the centre of mass that holds it and its convex hull.
pub(crate) fn rigid_shape(
    name: &str,
    mesh: TriMesh,
    mass: f64,
    inertia: Option<tumble_math::Mat3>,
) -> Check<RigidShape> {
    let mass = positive("membrane.body.mass", mass, "kg")?;
    let props = mesh.mass_properties(1.0);
    if props.mass.is_nan() || props.mass <= 0.0 {
        return err("membrane.body.shape", "the shape encloses no volume");
    }
    let mesh = mesh.translated(&-props.com);
    let inertia = inertia.unwrap_or(props.inertia * (mass / props.mass));
    let props = MassProperties::new(mass, inertia);
    props.validate().map_err(|e| ("membrane.body.inertia".to_string(), e.to_string()))?;
    let body = RigidBody::new(name.to_string(), &props);
    let radius = mesh.vertices.iter().map(|v| v.norm()).fold(0.0, f64::max);
    let hull = BodyHull::new(&mesh.vertices);
    Ok(RigidShape { mesh, body, radius, hull })
}
