//! [`MembraneCaptureBuilder`]: an asteroid capture built in code — the membrane, the asteroid (a
//! closed mesh and its mass), the spacecraft (bus, solar arrays on SADAs), the approach and the
//! thrust — validated as a scenario file is (errors name the file's keys). The spacecraft's
//! multibody model, its inertia, the approach axis and rate and the start on the guidance
//! reference are derived here; the scenario adapter ends in this builder.

use super::{Guidance, MembraneCapture, NV};
use crate::membrane_drop::{RigidShape, rigid_shape};
use crate::pipeline::BuildError;
use crate::scenario::check::{Check, err, fixed_timing, positive};
use crate::scenario::membrane::{ApproachSpec, ArraySpec};
use tumble_contact::membrane::Membrane;
use tumble_dynamics::multibody::forces::BallSpring;
use tumble_dynamics::multibody::spatial::SVec;
use tumble_dynamics::multibody::system::MultibodySystem;
use tumble_dynamics::multibody::{Joint, Link, Multibody};
use tumble_dynamics::{BodyState, RigidBody};
use tumble_geometry::{Solid, TriMesh};
use tumble_math::{Mat3, UnitQuat, Vec3};

/// Builds an [`MembraneCapture`]. The scenario file's keys name the inputs in errors.
#[derive(Clone)]
pub struct MembraneCaptureBuilder {
    name: String,
    membrane: Option<Membrane>,
    asteroid: Option<(TriMesh, f64)>,
    inertia: Option<Mat3>,
    start: BodyState,
    bus: Option<[f64; 3]>,
    offset: f64,
    thrust: f64,
    catch_up_rate: f64,
    arrays: Option<ArraySpec>,
    approach: Option<ApproachSpec>,
    timing: [f64; 3],
}

impl MembraneCapture {
    /// A builder for a capture named `name`, with a scenario file's defaults: the asteroid at
    /// rest at the origin, no thrust, caught up below 0.005 rad/s.
    pub fn builder(name: &str) -> MembraneCaptureBuilder {
        MembraneCaptureBuilder {
            name: name.into(),
            membrane: None,
            asteroid: None,
            inertia: None,
            start: BodyState {
                p_WB: Vec3::zeros(),
                v_WB: Vec3::zeros(),
                q_WB: UnitQuat::identity(),
                w_WB_B: Vec3::zeros(),
            },
            bus: None,
            offset: f64::NAN,
            thrust: 0.0,
            catch_up_rate: 0.005,
            arrays: None,
            approach: None,
            timing: [f64::NAN; 3],
        }
    }
}

impl MembraneCaptureBuilder {
    /// The membrane, in its frame `M` (suspension polygon in `z = 0`, deflecting to `z < 0`).
    pub fn membrane(mut self, membrane: Membrane) -> Self {
        self.membrane = Some(membrane);
        self
    }

    /// The asteroid: a closed, outward mesh (m, any origin) of `mass` (kg), uniform unless
    /// [`MembraneCaptureBuilder::asteroid_inertia`] says otherwise.
    pub fn asteroid(mut self, mesh: TriMesh, mass: f64) -> Self {
        self.asteroid = Some((mesh, mass));
        self
    }

    /// The asteroid's inertia about its centre of mass, body axes, kg·m².
    pub fn asteroid_inertia(mut self, inertia: Mat3) -> Self {
        self.inertia = Some(inertia);
        self
    }

    /// The asteroid's centre of mass (m) and attitude at the start.
    pub fn asteroid_pose(mut self, position: Vec3, attitude: UnitQuat) -> Self {
        self.start.p_WB = position;
        self.start.q_WB = attitude;
        self
    }

    /// The asteroid's velocity (m/s, world) and angular velocity (rad/s, body axes).
    pub fn asteroid_twist(mut self, velocity: Vec3, angular_velocity: Vec3) -> Self {
        self.start.v_WB = velocity;
        self.start.w_WB_B = angular_velocity;
        self
    }

    /// The bus: a solid cylinder of `mass` (kg), `radius` and `height` (m) along its axis `+z`.
    pub fn bus(mut self, mass: f64, radius: f64, height: f64) -> Self {
        self.bus = Some([mass, radius, height]);
        self
    }

    /// Distance from the bus centre of mass to the suspension plane along the bus axis, m
    /// (ahead of the bus's front face).
    pub fn membrane_offset(mut self, offset: f64) -> Self {
        self.offset = offset;
        self
    }

    /// Thrust along the bus axis from first contact on, N.
    pub fn thrust(mut self, thrust: f64) -> Self {
        self.thrust = thrust;
        self
    }

    /// Relative rate `|ω_asteroid − ω_bus|` under which the spacecraft has caught up, rad/s.
    pub fn catch_up_rate(mut self, rate: f64) -> Self {
        self.catch_up_rate = rate;
        self
    }

    /// The two solar arrays and their SADAs.
    pub fn arrays(mut self, arrays: ArraySpec) -> Self {
        self.arrays = Some(arrays);
        self
    }

    /// The approach until first contact.
    pub fn approach(mut self, approach: ApproachSpec) -> Self {
        self.approach = Some(approach);
        self
    }

    /// RK4 step, duration and output interval (a whole multiple of the step), s.
    pub fn timing(mut self, dt: f64, duration: f64, output_interval: f64) -> Self {
        self.timing = [dt, duration, output_interval];
        self
    }

    /// The capture, or the first input that cannot make one.
    pub fn build(self) -> Result<MembraneCapture, BuildError> {
        let membrane = self.membrane.ok_or_else(|| BuildError::new("membrane", "missing: the membrane"))?;
        let (mesh, mass) =
            self.asteroid.ok_or_else(|| BuildError::new("membrane.body.shape", "missing: the asteroid"))?;
        let [dt, duration, oi] = self.timing;
        let (dt, duration, output_interval) = fixed_timing(dt, duration, Some(oi))?;
        let s = &self.start;
        if ![s.p_WB, s.v_WB, s.w_WB_B].iter().all(|v| v.iter().all(|x| x.is_finite())) {
            return Err(BuildError::new("membrane.body", "position, velocity and angular velocity must be finite"));
        }
        let RigidShape { mesh, body: asteroid, radius, hull } = rigid_shape(&self.name, mesh, mass, self.inertia)?;
        let [bus_mass, bus_radius, height] =
            self.bus.ok_or_else(|| BuildError::new("spacecraft", "missing: the bus (mass, radius, height)"))?;
        let arrays = self.arrays.ok_or_else(|| BuildError::new("spacecraft.arrays", "missing: the solar arrays"))?;
        let approach = self.approach.ok_or_else(|| BuildError::new("spacecraft.approach", "missing: the approach"))?;
        let bus = Bus::check(bus_mass, bus_radius, height, self.offset, self.thrust)?;
        let catch_up_rate = positive("spacecraft.catch_up_rate", self.catch_up_rate, "rad/s")?;
        let moment_limit = positive("spacecraft.arrays.moment_limit", arrays.moment_limit, "N·m")?;
        let (spacecraft, inertia) = spacecraft(&bus, &arrays)?;
        let total = bus.mass + 2.0 * arrays.mass;
        let guidance = guidance(&approach, &mesh, &asteroid, &self.start, bus.offset, total, inertia)?;
        let spacecraft_start = start_on_reference(&spacecraft, &guidance, &asteroid, &self.start);
        Ok(MembraneCapture {
            name: self.name,
            membrane,
            mesh,
            radius,
            hull,
            asteroid,
            asteroid_start: self.start,
            spacecraft,
            spacecraft_start,
            offset: bus.offset,
            bus_half_height: 0.5 * bus.height,
            thrust: bus.thrust,
            moment_limit,
            catch_up_rate,
            guidance,
            dt,
            duration,
            output_interval,
        })
    }
}

/// The bus's checked values.
struct Bus {
    mass: f64,
    radius: f64,
    height: f64,
    offset: f64,
    thrust: f64,
}

impl Bus {
    fn check(mass: f64, radius: f64, height: f64, offset: f64, thrust: f64) -> Check<Self> {
        let mass = positive("spacecraft.mass", mass, "kg")?;
        let radius = positive("spacecraft.radius", radius, "m")?;
        let height = positive("spacecraft.height", height, "m")?;
        let offset = positive("spacecraft.membrane_offset", offset, "m")?;
        if offset < 0.5 * height {
            return err(
                "spacecraft.membrane_offset",
                format!(
                    "the suspension plane must lie ahead of the bus's front face ({} m), got {offset} m",
                    0.5 * height
                ),
            );
        }
        if !(thrust.is_finite() && thrust >= 0.0) {
            return err("spacecraft.thrust", format!("must be zero or positive (N), got {thrust}"));
        }
        Ok(Self { mass, radius, height, offset, thrust })
    }
}

/// The spacecraft — bus on a free joint, arrays on ball joints with spring–dampers at the bus
/// wall (±y) — and its inertia about the bus centre of mass with the arrays undeflected.
fn spacecraft(bus: &Bus, a: &ArraySpec) -> Check<(MultibodySystem, Mat3)> {
    let am = positive("spacecraft.arrays.mass", a.mass, "kg")?;
    let ar = positive("spacecraft.arrays.radius", a.radius, "m")?;
    let at = positive("spacecraft.arrays.thickness", a.thickness, "m")?;
    if !(a.boom.is_finite() && a.boom >= 0.0) {
        return err("spacecraft.arrays.boom", format!("must be zero or positive (m), got {}", a.boom));
    }
    let stiffness = positive("spacecraft.arrays.stiffness", a.stiffness, "N·m/rad")?;
    if !(a.damping.is_finite() && a.damping >= 0.0) {
        return err("spacecraft.arrays.damping", format!("must be zero or positive (N·m·s/rad), got {}", a.damping));
    }
    let cyl = |r: f64, h: f64| Solid::Cylinder { radius: r, length: h }.inertia_per_mass();
    let b = cyl(bus.radius, bus.height) * bus.mass;
    let d = cyl(ar, at) * am;
    let disc = Mat3::from_diagonal(&Vec3::new(d.z, d.x, d.y)); // axis along x
    let reach = a.boom + ar;
    let array = |name: &str, side: f64| Link {
        name: name.into(),
        parent: Some(0),
        joint: Joint::Spherical,
        parent_to_joint: (Mat3::identity(), Vec3::new(0.0, side * bus.radius, 0.0)),
        mass: am,
        com: Vec3::new(0.0, side * reach, 0.0),
        inertia: disc,
    };
    let links = vec![
        Link {
            name: "bus".into(),
            parent: None,
            joint: Joint::Free,
            parent_to_joint: (Mat3::identity(), Vec3::zeros()),
            mass: bus.mass,
            com: Vec3::zeros(),
            inertia: Mat3::from_diagonal(&b),
        },
        array("array_plus_y", 1.0),
        array("array_minus_y", -1.0),
    ];
    let model = Multibody::new(links, Vec3::zeros()).map_err(|e| ("spacecraft".to_string(), e.to_string()))?;
    let mut system = MultibodySystem::new(model);
    system.ball_springs = (1..3).map(|link| BallSpring { link, stiffness, damping: a.damping }).collect();
    system.external = vec![SVec::zeros(); 3];
    let mut inertia = Mat3::from_diagonal(&b);
    for side in [1.0, -1.0] {
        let r = Vec3::new(0.0, side * (bus.radius + reach), 0.0);
        inertia += disc + am * (Mat3::identity() * r.norm_squared() - r * r.transpose());
    }
    Ok((system, inertia))
}

/// The approach: axis along the asteroid's angular momentum, spin at `ω·Ĥ`, the suspension
/// plane `gap` short of the asteroid's lowest point along the axis, centred on its geometric
/// centre.
fn guidance(
    ap: &ApproachSpec,
    mesh: &TriMesh,
    asteroid: &RigidBody,
    start: &BodyState,
    offset: f64,
    mass: f64,
    inertia: Mat3,
) -> Check<Guidance> {
    if !(ap.speed.is_finite() && ap.speed >= 0.0 && ap.speed <= crate::pipeline::MAX_SPEED) {
        let msg = format!("must be zero or positive (m/s) and slower than light, got {}", ap.speed);
        return err("spacecraft.approach.speed", msg);
    }
    if !(ap.gap.is_finite() && ap.gap >= 0.0) {
        return err("spacecraft.approach.gap", format!("must be zero or positive (m), got {}", ap.gap));
    }
    let bandwidth = positive("spacecraft.approach.bandwidth", ap.bandwidth, "rad/s")?;
    let R_A = start.q_WB.to_rotation_matrix().into_inner();
    let w_W = R_A * start.w_WB_B;
    let h_W = R_A * (asteroid.inertia * start.w_WB_B);
    let axis = h_W.try_normalize(1e-300).unwrap_or(Vec3::z());
    let rate = if ap.corkscrew { w_W.dot(&axis) } else { 0.0 };
    let seed = if axis.x.abs() < 0.9 { Vec3::x() } else { Vec3::y() };
    let x = (seed - axis * axis.dot(&seed)).normalize();
    let attitude0 = UnitQuat::from_rotation_matrix(&tumble_math::nalgebra::Rotation3::from_matrix_unchecked(
        Mat3::from_columns(&[x, axis.cross(&x), axis]),
    ));
    let (lo, hi) = mesh
        .vertices
        .iter()
        .fold((Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY)), |(l, h), v| (l.inf(v), h.sup(v)));
    let centre = 0.5 * (lo + hi);
    let lowest = mesh.vertices.iter().map(|v| axis.dot(&(R_A * v))).fold(f64::INFINITY, f64::min);
    let plane = axis.dot(&start.p_WB) + lowest - ap.gap;
    let c0 = start.p_WB + R_A * centre;
    let position0 = c0 - axis * axis.dot(&c0) + axis * (plane - offset);
    Ok(Guidance {
        axis,
        rate,
        speed: ap.speed,
        corkscrew: ap.corkscrew,
        centre,
        attitude0,
        position0,
        bandwidth,
        mass,
        inertia,
    })
}

/// The spacecraft's `[q; v]` on the guidance reference at t = 0.
fn start_on_reference(spacecraft: &MultibodySystem, g: &Guidance, asteroid: &RigidBody, start: &BodyState) -> Vec<f64> {
    let R_A = start.q_WB.to_rotation_matrix().into_inner();
    let alpha_B = asteroid.inertia_inv * (-start.w_WB_B.cross(&(asteroid.inertia * start.w_WB_B)));
    let [_, v_ref, ..] = g.reference(0.0, start, &R_A, &Vec3::zeros(), &alpha_B);
    let mut y = spacecraft.model.neutral();
    y[0..3].copy_from_slice(g.position0.as_slice());
    let q = g.attitude0.quaternion();
    y[3..7].copy_from_slice(&[q.w, q.i, q.j, q.k]);
    let mut v = vec![0.0; NV];
    v[0..3].copy_from_slice((g.attitude0.inverse() * (g.axis * g.rate)).as_slice());
    v[3..6].copy_from_slice((g.attitude0.inverse() * v_ref).as_slice());
    y.extend(v);
    y
}
