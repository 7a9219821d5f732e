//! Building a lander run from a scenario: target surface and gravity, spacecraft vertices and
//! mass properties, contact law, events. Every impossible value is refused with its key; a
//! time step too coarse for the contact is warned about before the run.

use super::ephemeris::Ephemeris;
use super::frame::{SiteFrame, target_frame};
use super::sim::{LanderSettings, Settle};
use super::system::{LanderSystem, STATE_LEN, pack};
use super::terrain::{Heights, Placement, with_terrain};
use crate::rigid_bodies::model::{build_gravity, mass_properties};
use crate::scenario::check::{Check, err, finite3, positive, read_mesh_key};
use crate::scenario::lander::{LanderSpec, TargetShape, TargetSpec, VertexSpec};
use crate::scenario::{BodySpec, IntegratorKind, Scenario, ScenarioError};
use std::sync::Arc;
use tumble_contact::VertexContactParams;
use tumble_dynamics::Gravity;
use tumble_geometry::bodies::{BodyKind, body_grid, body_mesh, body_sdf};
use tumble_geometry::sdf::{BoulderField, GridSdf, HalfSpace, Sdf};
use tumble_geometry::{MassProperties, TriMesh};
use tumble_math::{Mat3, Vec3, quat_from_wxyz};

/// Most samples a run may record.
const MAX_SAMPLES: f64 = 1e7;

/// A validated lander run.
pub struct LanderModel {
    /// Scenario name.
    pub name: String,
    /// Scenario description.
    pub description: String,
    /// Seed.
    pub seed: u64,
    /// Equations, contact and target.
    pub system: LanderSystem,
    /// Initial state.
    pub initial_state: [f64; STATE_LEN],
    /// Step loop settings.
    pub settings: LanderSettings,
    /// Where landing sites are measured from on a body: its centre of mass and spin axis
    /// (`None` for a plane: sites are positions).
    pub sites: Option<SiteFrame>,
    /// The target's mesh for drawing (`None` for a plane).
    pub target_mesh: Option<Arc<TriMesh>>,
    /// Things the user should know before the run (coarse step, start outside the grid).
    pub warnings: Vec<String>,
    /// The target's rotation and the Sun at the epoch, from `[target.spice]`.
    pub ephemeris: Option<Arc<Ephemeris>>,
}

/// The target's surface and gravity (shared, read-only, by every run of a campaign that does
/// not disperse them) and its size, m.
#[derive(Clone)]
pub struct Target {
    /// Surface in T.
    pub surface: Arc<dyn Sdf>,
    /// Gravity in T.
    pub gravity: Arc<dyn Gravity>,
    /// Largest extent, m (`None` for a plane).
    pub size: Option<f64>,
    /// The box a grid surface covers (outside it distances are upper bounds), m.
    pub grid_box: Option<(Vec3, Vec3)>,
    /// The shape's mesh for drawing (`None` for a plane).
    pub mesh: Option<Arc<TriMesh>>,
    /// The shape at unit density (centre of mass and inertia in T), from its closed mesh (`None`
    /// for a plane, or a saved SDF whose surface does not close inside its grid).
    pub mass: Option<MassProperties>,
    /// The target's rotation and the Sun at the epoch, from `[target.spice]`.
    pub ephemeris: Option<Arc<Ephemeris>>,
}

impl Target {
    /// The surface's distance from the target's centre of mass over the latitude and longitude
    /// of `sites` (in the order of the latitude–longitude plots: `rows` bands south to north,
    /// `cols` from longitude `west` (degrees) east, each value at its cell's centre), the
    /// outermost surface point on each ray ([`tumble_geometry::sdf::radial_extent`], to 1e-4 of
    /// the size). Rays start where they leave the grid's box, inside which the field is a
    /// distance. `None` for a plane.
    pub fn radius_map(&self, sites: &SiteFrame, rows: usize, cols: usize, west: f64) -> Option<Vec<Vec<f64>>> {
        let size = self.size?;
        let c = sites.centre;
        let (lo, hi) = self.grid_box.map_or((Vec3::repeat(-size), Vec3::repeat(size)), |(lo, hi)| (lo - c, hi - c));
        let cell = |k: usize, n: usize, span: f64| (k as f64 + 0.5) / n as f64 * span;
        let map = (0..rows)
            .map(|i| {
                let lat = (cell(i, rows, 180.0) - 90.0).to_radians();
                (0..cols)
                    .map(|j| {
                        let lon = (west + cell(j, cols, 360.0)).to_radians();
                        let u = sites.direction(lat, lon);
                        // Where the ray leaves the box (the origin is inside it).
                        let exit = (0..3)
                            .map(|k| {
                                if u[k] > 0.0 {
                                    hi[k] / u[k]
                                } else if u[k] < 0.0 {
                                    lo[k] / u[k]
                                } else {
                                    f64::INFINITY
                                }
                            })
                            .fold(f64::INFINITY, f64::min);
                        let start = if exit.is_finite() && exit > 0.0 { exit } else { 2.0 * size };
                        tumble_geometry::sdf::radial_extent(self.surface.as_ref(), &c, &u, start, 1e-4 * size)
                            .unwrap_or(f64::NAN)
                    })
                    .collect()
            })
            .collect();
        Some(map)
    }
}

/// Builds the surface and gravity of a scenario's `[target]` and `[gravity]`.
pub fn build_target(sc: &Scenario) -> Result<Target, ScenarioError> {
    build_target_checked(sc).map_err(|(key, msg)| sc.error_at(&key, msg))
}

fn build_target_checked(sc: &Scenario) -> Check<Target> {
    let Some(spec) = &sc.file.target else {
        return err("target", "a lander scenario needs a [target] table");
    };
    let gravity_cells = match sc.file.gravity {
        crate::scenario::GravitySpec::Polyhedron { cells, .. } => cells,
        _ => 48,
    };
    let shape = surface(sc, spec, gravity_cells)?;
    let mass =
        shape.mesh.as_ref().or(shape.marched.as_ref().filter(|m| m.report().outward)).map(|m| m.mass_properties(1.0));
    let gravity: Arc<dyn Gravity> = Arc::from(build_gravity(sc, shape.mesh.as_ref())?);
    let mut target = Target {
        surface: Arc::new(HalfSpace { point: Vec3::zeros(), normal: Vec3::z() }),
        gravity,
        size: shape.size,
        grid_box: shape.grid_box,
        mesh: None,
        mass,
        ephemeris: super::ephemeris::read(sc, spec)?.map(Arc::new),
    };
    // Stated terrain is measured from the centre of mass (a plane's point), and a
    // latitude–longitude mask in the frame sites are measured in.
    let frame = match (&spec.terrain, shape.plane) {
        (None, _) => (Vec3::zeros(), None),
        (Some(_), Some((point, _))) => (point, None),
        (Some(_), None) => {
            let sites = target_frame(spec, &target)?.sites;
            (sites.centre, Some(sites))
        }
    };
    let placement = match (&shape.mesh, &shape.marched, shape.plane) {
        (Some(m), _, _) | (None, Some(m), _) => Placement::Mesh(m),
        (None, None, Some((point, normal))) => Placement::Plane { point, normal },
        (None, None, None) => return err("target.shape", "has no surface to place terrain on"),
    };
    let surface = with_terrain(spec.terrain.as_ref(), shape.base, shape.builtin, placement, frame)?;
    if spec.terrain.is_some() && matches!(spec.shape, TargetShape::Body { terrain: false, .. }) {
        return err("target.shape.terrain", "is false but [target.terrain] is given: remove one");
    }
    target.surface = Arc::from(surface);
    target.mesh = shape.mesh.map(Arc::new);
    Ok(target)
}

/// A target's shape before terrain: the surface, a procedural body's built-in heights, the mesh
/// of the shape (for gravity and drawing), its size, the box of its grid, the surface marched
/// from a saved field's samples, and a plane's point and normal.
struct Shape {
    base: Box<dyn Sdf>,
    builtin: Option<Heights>,
    mesh: Option<TriMesh>,
    size: Option<f64>,
    grid_box: Option<(Vec3, Vec3)>,
    marched: Option<TriMesh>,
    plane: Option<(Vec3, Vec3)>,
}

fn surface(sc: &Scenario, spec: &TargetSpec, gravity_cells: usize) -> Check<Shape> {
    let shape = |base: Box<dyn Sdf>, mesh: Option<TriMesh>, size: f64, grid_box: (Vec3, Vec3)| Shape {
        base,
        builtin: None,
        mesh,
        size: Some(size),
        grid_box: Some(grid_box),
        marched: None,
        plane: None,
    };
    Ok(match &spec.shape {
        TargetShape::Plane { normal, point } => {
            let n = finite3("target.shape.normal", *normal)?;
            let Some(n) = n.try_normalize(0.0) else {
                return err("target.shape.normal", "must be a non-zero vector");
            };
            let point = finite3("target.shape.point", *point)?;
            Shape {
                base: Box::new(HalfSpace { point, normal: n }),
                builtin: None,
                mesh: None,
                size: None,
                grid_box: None,
                marched: None,
                plane: Some((point, n)),
            }
        }
        TargetShape::Body { kind, length, seed, terrain, cells } => {
            let kind: BodyKind = kind.parse().map_err(|e: String| ("target.shape.kind".to_string(), e))?;
            let length = positive("target.shape.length", *length, "m")?;
            if !(8..=1024).contains(cells) {
                return err("target.shape.cells", format!("must be between 8 and 1024, got {cells}"));
            }
            let layout = |e: tumble_geometry::sdf::GridError| ("target.shape".to_string(), e.to_string());
            let grid = body_grid(kind, length, *seed, false, *cells, 0.05 * length).map_err(layout)?;
            let grid_box = (grid.origin, grid.upper());
            let mesh = body_mesh(kind, length, *seed, false, gravity_cells).map_err(layout)?;
            // The smooth body from the grid; the terrain's fBm evaluated exactly on top.
            let builtin = terrain.then(|| {
                let t = body_sdf(kind, length, *seed, true);
                (t.sandy, t.rocky, t.region, t.origin)
            });
            Shape { builtin, ..shape(Box::new(grid), Some(mesh), length, grid_box) }
        }
        TargetShape::Mesh { path, unit, resolution } => {
            let mesh = read_mesh_key(sc, "target.shape", path, unit)?;
            let r = mesh.report();
            if !r.outward {
                return err(
                    "target.shape.path",
                    format!(
                        "the mesh is not closed and outward (closed {}, oriented {}): repair it with `tumble mesh repair`",
                        r.closed, r.oriented
                    ),
                );
            }
            if !(8..=1024).contains(resolution) {
                return err("target.shape.resolution", format!("must be between 8 and 1024, got {resolution}"));
            }
            let (lo, hi) = mesh.bounds().ok_or(("target.shape.path".to_string(), "the mesh is empty".to_string()))?;
            let size = (hi - lo).max();
            let grid = GridSdf::from_mesh(&mesh, *resolution, 0.05 * size)
                .map_err(|e| ("target.shape".to_string(), e.to_string()))?;
            let grid_box = (grid.origin, grid.upper());
            shape(Box::new(grid), Some(mesh), size, grid_box)
        }
        TargetShape::Sdf { path } => {
            let grid =
                GridSdf::load(&sc.resolve(path)).map_err(|e| ("target.shape.path".to_string(), e.to_string()))?;
            let size = (grid.upper() - grid.origin).max();
            let grid_box = (grid.origin, grid.upper());
            let marched = Some(tumble_geometry::sdf::mesh_from_grid(&grid));
            Shape { marched, ..shape(Box::new(grid), None, size, grid_box) }
        }
    })
}

/// Vertices (body axes, from the centre of mass) and mass properties of `[lander]`.
fn build_spacecraft(sc: &Scenario, l: &LanderSpec) -> Check<(Vec<Vec3>, MassProperties)> {
    let body = BodySpec {
        mass: Some(l.mass),
        density: None,
        inertia: l.inertia.clone(),
        shape: l.shape,
        position: l.position,
        velocity: l.velocity,
        orientation: l.orientation,
        angular_velocity: l.angular_velocity,
        loads: vec![],
    };
    let from_mesh = matches!(l.vertices, VertexSpec::Mesh { inertia_from_mesh: true, .. });
    if from_mesh && (l.inertia.is_some() || l.shape.is_some()) {
        return err("lander.vertices.inertia_from_mesh", "conflicts with `lander.inertia` / `lander.shape`: keep one");
    }
    let mut mp = if from_mesh { None } else { Some(mass_properties("lander", &body)?) };
    let vertices = match &l.vertices {
        VertexSpec::Box { size } => {
            let s = finite3("lander.vertices.size", *size)?;
            if s.iter().any(|e| *e <= 0.0) {
                return err("lander.vertices.size", format!("edges must be positive (m), got {size:?}"));
            }
            TriMesh::cuboid(*size).vertices
        }
        VertexSpec::Points { points } => {
            if points.is_empty() {
                return err("lander.vertices.points", "needs at least one point");
            }
            points
                .iter()
                .enumerate()
                .map(|(i, p)| finite3(&format!("lander.vertices.points.{i}"), *p))
                .collect::<Check<Vec<_>>>()?
        }
        VertexSpec::Mesh { path, unit, sample, inertia_from_mesh } => {
            let mesh = read_mesh_key(sc, "lander.vertices", path, unit)?;
            let mut shift = Vec3::zeros();
            if *inertia_from_mesh {
                if !mesh.report().outward {
                    return err("lander.vertices.path", "inertia from the mesh needs a closed, outward mesh");
                }
                let m = mesh.mass_properties(1.0);
                shift = m.com;
                let scaled = MassProperties::new(positive("lander.mass", l.mass, "kg")?, m.inertia * (l.mass / m.mass));
                scaled.validate().map_err(|e| ("lander.vertices.path".to_string(), e.to_string()))?;
                mp = Some(scaled);
            }
            let pts = match sample {
                None => mesh.vertices.clone(),
                Some(0) => return err("lander.vertices.sample", "must be at least 1"),
                Some(n) if mesh.faces.is_empty() => {
                    return err("lander.vertices.path", format!("has no faces to sample {n} points from"));
                }
                Some(n) => mesh.sample_surface(*n, sc.file.seed).into_iter().map(|(p, _)| p).collect(),
            };
            pts.into_iter().map(|p| p - shift).collect()
        }
    };
    let mp = match mp {
        Some(mp) => mp,
        None => return err("lander.vertices", "mass properties come from `inertia`, `shape` or a mesh's inertia"),
    };
    Ok((vertices, mp))
}

impl LanderModel {
    /// Validates a lander scenario and builds its run.
    pub fn build(sc: &Scenario) -> Result<Self, ScenarioError> {
        let target = build_target(sc)?;
        Self::build_with(sc, &target)
    }

    /// As [`LanderModel::build`] on an already built target (campaigns whose dispersions leave
    /// the target and gravity alone share one).
    pub fn build_with(sc: &Scenario, target: &Target) -> Result<Self, ScenarioError> {
        Self::check(sc, target).map_err(|(key, msg)| sc.error_at(&key, msg))
    }

    fn check(sc: &Scenario, target: &Target) -> Check<Self> {
        let f = &sc.file;
        let (Some(l), Some(t)) = (&f.lander, &f.target) else {
            return err("lander", "a lander scenario needs both a [lander] and a [target] table");
        };
        if !f.bodies.is_empty() {
            return err("bodies", "a lander scenario holds its spacecraft in [lander]; remove the [bodies] tables");
        }
        let sim = &f.simulation;
        if sim.integrator != IntegratorKind::Rk4 {
            return err("simulation.integrator", "lander runs use fixed-step `rk4` (contact forces are not smooth)");
        }
        let duration = positive("simulation.duration", sim.duration, "s")?;
        let Some(dt) = sim.dt else {
            return err("simulation.dt", "is required: the fixed step of the lander run, s");
        };
        let dt = positive("simulation.dt", dt, "s")?;
        let oi = positive("simulation.output_interval", sim.output_interval.unwrap_or(dt), "s")?;
        let every = (oi / dt).round().max(1.0);
        if (every * dt - oi).abs() > 1e-9 * oi {
            return err("simulation.output_interval", format!("must be a whole multiple of simulation.dt = {dt} s"));
        }
        if duration / oi > MAX_SAMPLES {
            return err("simulation.output_interval", format!("would record {:.0} samples; raise it", duration / oi));
        }

        let frame = target_frame(t, target)?;
        let orientation = target.ephemeris.as_ref().map_or(t.orientation, |e| e.q_nt);
        let q_nt = quat_from_wxyz(orientation).map_err(|e| ("target.orientation".to_string(), e.to_string()))?;

        let (vertices, mp) = build_spacecraft(sc, l)?;
        let c = &l.contact;
        let contact = VertexContactParams {
            stiffness: positive("lander.contact.stiffness", c.stiffness, "N/m")?,
            damping: nonneg("lander.contact.damping", c.damping, "N·s/m")?,
            mu: crate::scenario::check::friction("lander.contact.mu", c.mu)?,
            mu_static: crate::scenario::check::friction("lander.contact.mu_static", c.mu_static.unwrap_or(c.mu))?,
            rolling: nonneg("lander.contact.rolling", c.rolling, "m")?,
            v_star: positive("lander.contact.v_star", c.v_star, "m/s")?,
            w_star: positive("lander.contact.w_star", c.w_star, "rad/s")?,
            stable_dt: dt,
        };
        let x0 = crate::scenario::check::position3("lander.position", l.position)?;
        let v0 = crate::scenario::check::velocity3("lander.velocity", l.velocity)?;
        let q0 = quat_from_wxyz(l.orientation).map_err(|e| ("lander.orientation".to_string(), e.to_string()))?;
        let w0 = crate::scenario::check::rate3("lander.angular_velocity", l.angular_velocity)?;

        let settle = match &l.settle {
            None => None,
            Some(s) => Some(Settle {
                speed: positive("lander.settle.speed", s.speed, "m/s")?,
                rate: positive("lander.settle.rate", s.rate, "rad/s")?,
                dwell: nonneg("lander.settle.dwell", s.dwell, "s")?,
            }),
        };
        let (hops, actuator) = super::hop::hops_of(l, settle.is_some())?;
        let escape_distance = match t.escape_distance {
            Some(d) => Some(positive("target.escape_distance", d, "m")?),
            None => target.size.map(|s| 5.0 * s),
        };

        let system = LanderSystem {
            mass: mp.mass,
            inertia: mp.inertia,
            inertia_inv: mp.inertia.try_inverse().unwrap_or_else(Mat3::identity),
            vertices,
            contact,
            surface: target.surface.clone(),
            spin: frame.spin,
            centre: frame.sites.centre,
            // A polyhedron costs a sweep over its faces per evaluation: expand it to second
            // order and refresh every thousandth of the body's size (the Taylor remainder is
            // then ~(r/ρ)² relative, ρ the distance to the nearest facet feature).
            expansion_radius: match (&f.gravity, target.size) {
                (crate::scenario::GravitySpec::Polyhedron { .. }, Some(size)) => 1e-3 * size,
                (crate::scenario::GravitySpec::Polyhedron { .. }, None) => 1.0,
                _ => 0.0,
            },
            expansion: None,
            actuation: Default::default(),
            gravity: target.gravity.clone(),
            sun: super::ephemeris::sun_forces(l.sun.as_ref(), target.ephemeris.as_deref(), mp.mass)?,
        };
        let r_ts = q0.to_rotation_matrix();
        if let Some((i, d)) = system
            .vertices
            .iter()
            .map(|r| system.surface.distance(&(x0 + r_ts * r)))
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            && d < -0.5 * system.vertices.iter().map(|v| v.norm()).fold(0.0, f64::max)
        {
            return err(
                "lander.position",
                format!("starts inside the target: vertex {i} is {:.3e} m below the surface", -d),
            );
        }

        let mut warnings = Vec::new();
        if let Some((lo, hi)) = target.grid_box
            && system.vertices.iter().any(|r| {
                let p = x0 + r_ts * r;
                (0..3).any(|a| p[a] < lo[a] || p[a] > hi[a])
            })
        {
            warnings.push(format!(
                "lander.position: vertices start outside the target's SDF grid ({:?} to {:?} m); there the distance continues as an upper bound, exact again once inside",
                lo.as_slice(),
                hi.as_slice()
            ));
        }
        let field = (target.surface.as_ref() as &dyn std::any::Any).downcast_ref::<BoulderField>();
        if field.is_some_and(|f| f.boulders().is_empty()) {
            warnings.push(
                "target.terrain.boulders: no boulder fell in the field (too few are expected over its ground, or none on rocky ground): raise `density`, lower `d_min` or widen `radius`".into(),
            );
        }
        // Contact time scales: one vertex on its smallest effective mass, and the viscous
        // rate of the regularised friction under the spacecraft's weight.
        let m_eff = system.smallest_vertex_mass();
        let wn = (contact.stiffness / m_eff).sqrt();
        let period = std::f64::consts::TAU / wn;
        let stable = 2.785 / (wn + contact.damping / m_eff);
        // The advice: 20 steps a contact period, and half the stable step where damping makes
        // that the tighter bound.
        let advice = (period / 20.0).min(stable / 2.0);
        if dt > stable {
            warnings.push(format!(
                "simulation.dt = {dt} s exceeds the RK4 stable step ≈ {stable:.3e} s for one vertex (stiffness {} N/m, damping {} N·s/m on an effective mass of {m_eff:.3e} kg): expect a blow-up; use dt ≤ {advice:.3e} s",
                contact.stiffness, contact.damping
            ));
        } else if dt > period / 10.0 {
            warnings.push(format!(
                "simulation.dt = {dt} s resolves a vertex's contact period {period:.3e} s with fewer than 10 steps: bounces will be inaccurate; use dt ≤ {advice:.3e} s"
            ));
        }
        // The friction and rolling regularisations widen themselves where the step could not
        // follow them (`VertexContactParams::stable_dt`): no warning needed.
        let impact_every = impact_every(sim.impact_output_interval, dt, period)?;
        let g = system.gravity.acceleration(&x0).norm();

        let initial_state = pack(x0, v0, q0, w0, q_nt, frame.omega);
        // Energy available to the run: initial kinetic energy plus the drop to the surface
        // (and a vertex radius of rocking) in the local field.
        let energy_scale = {
            let s = system.snapshot(&initial_state);
            let reach = system.vertices.iter().map(|v| v.norm()).fold(0.0, f64::max);
            let scale =
                s.kinetic_linear + s.kinetic_angular + mp.mass * g * (system.surface.distance(&x0).max(0.0) + reach);
            if let Some(w) = start_overlap(&s, scale) {
                warnings.push(w);
            }
            scale
        };
        Ok(Self {
            name: f.name.clone(),
            description: f.description.clone(),
            seed: f.seed,
            system,
            initial_state,
            settings: LanderSettings {
                dt,
                duration,
                output_every: every as u64,
                settle,
                escape_distance,
                hops,
                actuator,
                energy_tolerance: sim.max_energy_growth * energy_scale,
                energy_growth: sim.max_energy_growth,
                surface_expansion: nonneg("target.surface_expansion", t.surface_expansion, "m")?,
                impact_every,
                flight_steps: if (1..=10_000).contains(&sim.flight_steps) {
                    sim.flight_steps
                } else {
                    return err(
                        "simulation.flight_steps",
                        format!("must be between 1 and 10000, got {}", sim.flight_steps),
                    );
                },
            },
            sites: target.size.map(|_| frame.sites),
            target_mesh: target.mesh.clone(),
            warnings,
            ephemeris: target.ephemeris.clone(),
        })
    }
}

/// The warning for a start with vertices inside the surface whose elastic energy is more than a
/// tenth of the run's energy scale `scale` (J): the overlap then drives the first bounce, and is
/// most often a position given in the wrong coordinates or a vertex set larger than the body.
fn start_overlap(s: &super::system::Snapshot, scale: f64) -> Option<String> {
    let (depth, elastic) = (s.normal.max_penetration, s.normal.elastic_energy);
    (depth > 0.0 && elastic > 0.1 * scale).then(|| {
        format!(
            "lander.position: the spacecraft starts with {} vertices inside the surface, the deepest {depth:.3e} m in, storing {elastic:.3e} J of elastic energy (the release itself has {scale:.3e} J): start it {depth:.3e} m further out",
            s.normal.active
        )
    })
}

/// Steps between impact samples: `simulation.impact_output_interval` (a whole number of steps,
/// 0 for none) or, by default, a twentieth of the shortest vertex contact period `period` (s)
/// in whole steps of `dt` (s), at least one: ten samples or more through each vertex's impact.
fn impact_every(interval: Option<f64>, dt: f64, period: f64) -> Check<u64> {
    let key = "simulation.impact_output_interval";
    match interval {
        None => Ok((period / 20.0 / dt).floor().clamp(1.0, 1e9) as u64),
        Some(0.0) => Ok(0),
        Some(x) => {
            let every = (x / dt).round();
            if x.is_finite() && x > 0.0 && every >= 1.0 && (every * dt - x).abs() <= 1e-9 * x {
                Ok(every as u64)
            } else {
                err(
                    key,
                    format!("must be 0 (no impact samples) or a whole multiple of simulation.dt = {dt} s, got {x}"),
                )
            }
        }
    }
}

fn nonneg(key: &str, x: f64, unit: &str) -> Check<f64> {
    if x.is_finite() && x >= 0.0 { Ok(x) } else { err(key, format!("must be a finite number >= 0 ({unit}), got {x}")) }
}
