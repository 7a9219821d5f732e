//! A rigid body meeting a convex-hull membrane (`[membrane]`): the membrane document's drop
//! test (Fig. 5). The membrane hangs from a regular polygon of points in the world plane
//! `z = 0` and deflects towards `z < 0`; the body, any closed triangle mesh, falls onto it under
//! the `[gravity]` field. One `OdeSystem` holds the body (13 states: position, attitude
//! `[w, x, y, z]`, velocity, body-axes rate) and two bookkeeping states: the energy the area
//! damping has removed, `∫c Ȧ² dt`, and the energy friction has removed, `−∫P_f dt`, so the
//! budget `T + V_g + ½k(A − A₀)² + D_c + D_f` is checkable at every sample.

use crate::model::{Check, err, finite3, positive, read_mesh_key};
use crate::output::{RunDir, first_last};
use crate::plot::{Series, line_plot};
use crate::scenario::Scenario;
use crate::scenario::membrane::MembraneShape;
use crate::scenario::{GravitySpec, IntegratorKind};
use crate::{ScenarioError, arm::mass_and_inertia};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use tumble_contact::membrane::{
    BodyHull, Distribution, Membrane, MembraneContact, MembraneFriction, MembraneWorkspace, RelativeMotion,
};
use tumble_dynamics::{BODY_STATE_LEN, BodyState, Integrator, Method, OdeSystem, RigidBody, normalize_quaternion};
use tumble_geometry::bodies::{BodyKind, body_mesh};
use tumble_geometry::{MassProperties, TriMesh};
use tumble_math::{Mat3, Vec3, quat_from_wxyz};

/// Samples kept at most (the output interval is refused below that).
const MAX_SAMPLES: f64 = 1e6;

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
}

impl MembraneSample {
    /// `T + V_g + ½k(A − A₀)² + D_c + D_f`: constant for the exact flow.
    pub fn budget(&self) -> f64 {
        self.kinetic + self.gravity_potential + self.contact.energy + self.damping_loss + self.friction_loss
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
    pub diagnosis: Option<String>,
    /// Wall-clock time, s.
    pub wall_s: f64,
}

struct Ode<'a> {
    model: &'a MembraneDrop,
    ws: MembraneWorkspace,
}

/// Body states, then `∫c Ȧ² dt`, then `−∫P_f dt`.
const DAMPING_LOSS: usize = BODY_STATE_LEN;
const FRICTION_LOSS: usize = BODY_STATE_LEN + 1;

impl Ode<'_> {
    /// The membrane's action at body state `s` (rotation `R` of its attitude).
    fn contact(&mut self, s: &BodyState, R: &Mat3) -> MembraneContact {
        let m = self.model;
        let motion = RelativeMotion {
            vertices: &m.mesh.vertices,
            radius: m.radius,
            R_MB: *R,
            p_MB: s.p_WB,
            v_MB: s.v_WB,
            w_MB: R * s.w_WB_B,
            hull: m.hull.as_ref(),
        };
        m.membrane.evaluate(&motion, &mut self.ws)
    }

    fn contact_at(&mut self, y: &[f64]) -> MembraneContact {
        let s = BodyState::read(y);
        self.contact(&s, &s.q_WB.to_rotation_matrix().into_inner())
    }
}

impl OdeSystem for Ode<'_> {
    fn dim(&self) -> usize {
        BODY_STATE_LEN + 2
    }

    fn rhs(&mut self, _t: f64, y: &[f64], dydt: &mut [f64]) {
        let s = BodyState::read(y);
        let R = s.q_WB.to_rotation_matrix().into_inner();
        let c = self.contact(&s, &R);
        let m = self.model;
        m.body.derivatives(y, &m.gravity, &c.force(), &(R.transpose() * c.torque()), dydt);
        dydt[DAMPING_LOSS] = m.membrane.c * c.area_rate * c.area_rate;
        dydt[FRICTION_LOSS] = -c.friction_power;
    }

    fn project(&self, y: &mut [f64]) {
        normalize_quaternion(y);
    }
}

impl MembraneDrop {
    /// Validates `[membrane]`, `[gravity]` and `[simulation]` (RK4).
    pub fn build(sc: &Scenario) -> Result<Self, ScenarioError> {
        Self::check(sc).map_err(|(k, m)| sc.error_at(&k, m))
    }

    fn check(sc: &Scenario) -> Check<Self> {
        let (dt, duration, output_interval) = rk4_timing(sc, "membrane")?;
        let gravity = match &sc.file.gravity {
            GravitySpec::None => Vec3::zeros(),
            GravitySpec::Uniform { g } => finite3("gravity.g", *g)?,
            _ => return err("gravity.type", "membrane runs take `none` or `uniform` gravity"),
        };
        let MembraneParts { membrane, mesh, radius, hull, body, start } = membrane_parts(sc)?;
        let (p, q) = (start.p_WB, start.q_WB);
        if p.z - radius < 0.0 {
            let lowest = mesh.vertices.iter().map(|r| (p + q * r).z).fold(f64::INFINITY, f64::min);
            if lowest < 0.0 {
                return err(
                    "membrane.body.position",
                    format!("the body starts through the membrane's plane (lowest vertex z = {lowest:.3} m)"),
                );
            }
        }
        Ok(Self {
            name: sc.file.name.clone(),
            membrane,
            mesh,
            radius,
            hull,
            body,
            gravity,
            start,
            dt,
            duration,
            output_interval,
        })
    }

    /// The state at the start: body, then the two losses (zero).
    pub fn initial_state(&self) -> Vec<f64> {
        let mut y = vec![0.0; BODY_STATE_LEN + 2];
        self.start.write(&mut y);
        y
    }

    fn sample(&self, t: f64, y: &[f64], contact: MembraneContact) -> MembraneSample {
        let s = BodyState::read(y);
        MembraneSample {
            t,
            position: s.p_WB.into(),
            velocity: s.v_WB.into(),
            omega: s.w_WB_B.into(),
            attitude: tumble_math::quat_to_wxyz(&s.q_WB),
            contact,
            kinetic: s.kinetic_energy(&self.body),
            gravity_potential: -self.body.mass * self.gravity.dot(&s.p_WB),
            damping_loss: y[DAMPING_LOSS],
            friction_loss: y[FRICTION_LOSS],
        }
    }

    /// Runs the drop.
    pub fn run(&self) -> MembraneRun {
        let started = std::time::Instant::now();
        let mut ode = Ode { model: self, ws: MembraneWorkspace::default() };
        let mut y = self.initial_state();
        let mut integ = Integrator::new(Method::Rk4 { dt: self.dt }, y.len());
        let every = ((self.output_interval / self.dt).round() as u64).max(1);
        let steps = (self.duration / self.dt).round() as u64;
        let mut run = MembraneRun { samples: Vec::with_capacity((steps / every + 1) as usize), ..Default::default() };
        let mut touching = false;
        for k in 0..=steps {
            let t = k as f64 * self.dt;
            if k % every == 0 || k == steps {
                let c = ode.contact_at(&y);
                match (c.in_contact, touching, run.contacts.last_mut()) {
                    (true, true, Some(e)) => e[1] = t,
                    (true, _, _) => run.contacts.push([t, t]),
                    _ => {}
                }
                touching = c.in_contact;
                run.samples.push(self.sample(t, &y, c));
            }
            if k == steps {
                break;
            }
            integ.step_once(&mut ode, t, &mut y, self.dt);
            run.diagnosis = crate::run::non_finite(&y, t + self.dt, self.dt, "");
            if run.diagnosis.is_some() {
                break;
            }
        }
        run.wall_s = started.elapsed().as_secs_f64();
        run
    }
}

/// Writes `timeseries.csv`, `summary.json` and plots (membrane, energy budget, speeds, slip)
/// into `dir`.
pub fn write_membrane_run(dir: &Path, model: &MembraneDrop, run: &MembraneRun) -> Result<Value, String> {
    let out = RunDir::create(dir)?;
    let (first, last) = first_last(&run.samples)?;
    out.csv("timeseries.csv", |w| {
        writeln!(
            w,
            "t_s,x_m,y_m,z_m,vx_m_s,vy_m_s,vz_m_s,wx_rad_s,wy_rad_s,wz_rad_s,area_m2,area_rate_m2_s,\
             tension_N_m,normal_fx_N,normal_fy_N,normal_fz_N,friction_fx_N,friction_fy_N,friction_fz_N,\
             max_slip_m_s,contact_vertices,depth_m,kinetic_J,gravity_potential_J,membrane_energy_J,\
             damping_loss_J,friction_loss_J,budget_J"
        )?;
        for s in &run.samples {
            let c = &s.contact;
            let mut row = vec![s.t];
            row.extend(s.position.iter().chain(&s.velocity).chain(&s.omega));
            row.extend([c.area, c.area_rate, c.tension]);
            row.extend(c.normal_force.iter().chain(c.friction_force.iter()));
            row.extend([c.max_slip, c.contact_vertices as f64, c.depth]);
            row.extend([s.kinetic, s.gravity_potential, c.energy, s.damping_loss, s.friction_loss, s.budget()]);
            writeln!(w, "{}", row.iter().map(|x| format!("{x:e}")).collect::<Vec<_>>().join(","))?;
        }
        Ok(())
    })?;

    let t: Vec<f64> = run.samples.iter().map(|s| s.t).collect();
    let col = |f: &dyn Fn(&MembraneSample) -> f64| run.samples.iter().map(f).collect::<Vec<f64>>();
    let a0 = model.membrane.area0();
    let plots: Vec<(&str, &str, &str, Vec<Series>)> = vec![
        (
            "membrane",
            "Membrane: deflected area and forces",
            "m², N",
            membrane_series(&t, &run.samples.iter().map(|s| s.contact).collect::<Vec<_>>(), a0),
        ),
        (
            "energy",
            "Energy budget",
            "J",
            vec![
                Series { label: "kinetic".into(), x: &t, y: col(&|s| s.kinetic) },
                Series { label: "gravity".into(), x: &t, y: col(&|s| s.gravity_potential - first.gravity_potential) },
                Series { label: "membrane".into(), x: &t, y: col(&|s| s.contact.energy) },
                Series { label: "damping loss".into(), x: &t, y: col(&|s| s.damping_loss) },
                Series { label: "friction loss".into(), x: &t, y: col(&|s| s.friction_loss) },
                Series { label: "sum − start".into(), x: &t, y: col(&|s| s.budget() - first.budget()) },
            ],
        ),
        (
            "speeds",
            "Body speed, rate and slip",
            "m/s, rad/s",
            vec![
                Series { label: "|v| [m/s]".into(), x: &t, y: col(&|s| Vec3::from(s.velocity).norm()) },
                Series { label: "|ω| [rad/s]".into(), x: &t, y: col(&|s| Vec3::from(s.omega).norm()) },
                Series { label: "max slip [m/s]".into(), x: &t, y: col(&|s| s.contact.max_slip) },
            ],
        ),
        (
            "height",
            "Centre of mass height and membrane depth",
            "m",
            vec![
                Series { label: "z".into(), x: &t, y: col(&|s| s.position[2]) },
                Series { label: "depth".into(), x: &t, y: col(&|s| -s.contact.depth) },
            ],
        ),
    ];
    for (stem, title, unit, series) in &plots {
        line_plot(&out.plot(stem), title, "time [s]", unit, series, false)?;
    }
    let outcome = match (run.contacts.len(), last.contact.in_contact) {
        (0, _) => "no contact".to_string(),
        (n, true) => format!("on the membrane (contact {n})"),
        (1, false) => "bounced off".to_string(),
        (n, false) => format!("bounced off {n} times"),
    };
    let peak = |f: &dyn Fn(&MembraneSample) -> f64| run.samples.iter().map(f).fold(0.0, f64::max);
    let summary = json!({
        "scenario": model.name,
        "outcome": outcome,
        "diagnosis": run.diagnosis,
        "final_time_s": last.t,
        "contacts_s": run.contacts,
        "membrane_area0_m2": a0,
        "peak_area_m2": peak(&|s| s.contact.area),
        "peak_depth_m": peak(&|s| s.contact.depth),
        "peak_normal_force_N": peak(&|s| s.contact.normal_force.norm()),
        "peak_friction_force_N": peak(&|s| s.contact.friction_force.norm()),
        "peak_slip_m_s": peak(&|s| s.contact.max_slip),
        "body_faces": model.mesh.faces.len(),
        "velocity_initial_m_s": first.velocity,
        "velocity_final_m_s": last.velocity,
        "angular_velocity_final_rad_s": last.omega,
        "energy_budget_initial_J": first.budget(),
        "energy_budget_final_J": last.budget(),
        "damping_loss_J": last.damping_loss,
        "friction_loss_J": last.friction_loss,
        "illegal_pinv_samples": run.samples.iter().filter(|s| s.contact.distribution.negative > 0).count(),
        "wall_time_s": run.wall_s,
        "real_time_factor": last.t / run.wall_s.max(1e-9),
    });
    out.json("summary.json", &summary)?;
    animation(model, run).write_glb(&dir.join("animation.glb"))?;
    Ok(summary)
}

/// The drop as an animation: the body's mesh, moving; the membrane as it deflects; its force on
/// the body.
pub fn animation(model: &MembraneDrop, run: &MembraneRun) -> crate::anim::Animation {
    use crate::anim::{Animation, Mesh};
    let mut anim = Animation::new();
    anim.body("body", vec![Mesh::new(&model.mesh.vertices, &model.mesh.faces, [0.55, 0.45, 0.35, 1.0])]);
    let surface = anim.surface("membrane", MEMBRANE_COLOR);
    // The membrane's force on the body at its centre of mass, the largest as long as the body's
    // diameter (out of the body).
    let force = |s: &MembraneSample| s.contact.normal_force + s.contact.friction_force;
    let peak = run.samples.iter().map(|s| force(s).norm()).fold(0.0, f64::max);
    let per_newton = if peak > 0.0 { 2.0 * model.radius / peak } else { 0.0 };
    anim.arrow("membrane force", 0.06 * model.radius, crate::anim::FORCE_COLOR);
    let mut ws = MembraneWorkspace::default();
    for s in &run.samples {
        let q = quat_from_wxyz(s.attitude).unwrap_or_else(|_| tumble_math::UnitQuat::identity());
        let p = Vec3::from(s.position);
        anim.frame(s.t, &[(p, q)]);
        anim.overlays(&[(p, force(s) * per_newton)]);
        let motion = RelativeMotion {
            vertices: &model.mesh.vertices,
            radius: model.radius,
            R_MB: q.to_rotation_matrix().into_inner(),
            p_MB: p,
            v_MB: Vec3::zeros(),
            w_MB: Vec3::zeros(),
            hull: model.hull.as_ref(),
        };
        let (v, t) = membrane_shape(&model.membrane, &motion, &mut ws);
        anim.shape(surface, &v, &t);
    }
    anim
}

/// The membrane's colour in animations.
pub(crate) const MEMBRANE_COLOR: [f32; 4] = [0.8, 0.8, 0.9, 0.6];

/// The membrane's shape with the body at `motion`, in `M`: out of contact its suspension polygon
/// (a fan about the polygon's mean point), in contact the hull's membrane triangles (the
/// triangles with a body corner: the deflected sheet, including where it wraps the body).
pub(crate) fn membrane_shape(
    m: &Membrane,
    motion: &RelativeMotion,
    ws: &mut MembraneWorkspace,
) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let n = m.suspension().len();
    if m.evaluate(motion, ws).in_contact {
        let t = ws.membrane_triangles(n).map(|t| t.map(|i| i as u32)).collect();
        return (ws.points().to_vec(), t);
    }
    let mut v = vec![m.suspension().iter().sum::<Vec3>() / n as f64];
    v.extend_from_slice(m.suspension());
    let n = n as u32;
    (v, (0..n).map(|k| [0, 1 + k, 1 + (k + 1) % n]).collect())
}

/// The `membrane` plot's curves: `A − A₀`, the normal force and the friction force.
pub(crate) fn membrane_series<'a>(t: &'a [f64], contacts: &[MembraneContact], a0: f64) -> Vec<Series<'a>> {
    let col = |f: &dyn Fn(&MembraneContact) -> f64| contacts.iter().map(f).collect::<Vec<f64>>();
    vec![
        Series { label: "A − A₀ [m²]".into(), x: t, y: col(&|c| c.area - a0) },
        Series { label: "|normal force| [N]".into(), x: t, y: col(&|c| c.normal_force.norm()) },
        Series { label: "|friction| [N]".into(), x: t, y: col(&|c| c.friction_force.norm()) },
    ]
}

/// `[simulation]` of a membrane run: RK4 step, duration and output interval, s.
pub(crate) fn rk4_timing(sc: &Scenario, what: &str) -> Check<(f64, f64, f64)> {
    let sim = &sc.file.simulation;
    if sim.integrator != IntegratorKind::Rk4 {
        return err("simulation.integrator", format!("{what} runs use `rk4` (the document's method, fixed step)"));
    }
    let dt = positive("simulation.dt", sim.dt.unwrap_or(f64::NAN), "s")?;
    let duration = positive("simulation.duration", sim.duration, "s")?;
    let output_interval = sim.output_interval.unwrap_or(dt);
    let every = (output_interval / dt).round();
    if !(every >= 1.0 && (every * dt - output_interval).abs() <= 1e-9 * output_interval) {
        return err("simulation.output_interval", format!("must be a whole multiple of dt = {dt} s"));
    }
    if duration / output_interval > MAX_SAMPLES {
        return err("simulation.output_interval", "would record more than 1e6 samples: raise it");
    }
    Ok((dt, duration, output_interval))
}

/// What every membrane run reads from `[membrane]`: the membrane, and the body with its shape
/// (centred on its centre of mass), mass properties and initial state.
pub(crate) struct MembraneParts {
    pub membrane: Membrane,
    pub mesh: TriMesh,
    pub radius: f64,
    pub hull: Option<BodyHull>,
    pub body: RigidBody,
    pub start: BodyState,
}

/// Validates `[membrane]` and `[membrane.body]`.
pub(crate) fn membrane_parts(sc: &Scenario) -> Check<MembraneParts> {
    let Some(ms) = &sc.file.membrane else { return err("membrane", "a membrane run needs a [membrane] table") };
    let distribution = Distribution::parse(&ms.distribution).ok_or((
        "membrane.distribution".to_string(),
        format!("unknown `{}`: use `pinv`, `nnls` or `auto`", ms.distribution),
    ))?;
    if !(ms.mu.is_finite() && ms.mu >= 0.0) {
        return err("membrane.mu", format!("must be >= 0, got {}", ms.mu));
    }
    let friction = (ms.mu > 0.0).then_some(MembraneFriction {
        mu: ms.mu,
        v_star: positive("membrane.v_star", ms.v_star, "m/s")?,
        distribution,
    });
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
    let props = mesh.mass_properties(1.0);
    if props.mass.is_nan() || props.mass <= 0.0 {
        return err("membrane.body.shape", "the shape encloses no volume");
    }
    let mesh = mesh.translated(&-props.com);
    let inertia = match &b.inertia {
        Some(i) => mass_and_inertia("membrane.body", mass, i)?.1,
        None => props.inertia * (mass / props.mass),
    };
    let props = MassProperties::new(mass, inertia);
    props.validate().map_err(|e| ("membrane.body.inertia".to_string(), e.to_string()))?;
    let body = RigidBody::new(sc.file.name.clone(), &props);
    let radius_b = mesh.vertices.iter().map(|v| v.norm()).fold(0.0, f64::max);
    let q = quat_from_wxyz(b.orientation).map_err(|e| ("membrane.body.orientation".to_string(), e.to_string()))?;
    let p = finite3("membrane.body.position", b.position)?;
    let v = finite3("membrane.body.velocity", b.velocity)?;
    let w = match (b.angular_velocity, b.spin_rpm, b.spin_axis) {
        (Some(w), None, None) => finite3("membrane.body.angular_velocity", w)?,
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
    Ok(MembraneParts {
        membrane,
        hull: BodyHull::new(&mesh.vertices),
        mesh,
        radius: radius_b,
        body,
        start: BodyState { p_WB: p, v_WB: v, q_WB: q, w_WB_B: w },
    })
}
