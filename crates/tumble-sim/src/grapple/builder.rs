//! [`GrappleCaptureBuilder`]: an arm's capture of a free payload built in code from an
//! [`ArmModel`] (RK4), the effector on one of its links, the payload with its fixture, and a
//! wire or a snare — validated as a scenario file is (errors name the `[grapple]` keys), with
//! the derived data computed: the payload's inverse inertia, its plate points, its start in the
//! world from the effector frame at the arm's start. The scenario adapter ends in it.

use super::{Effector, GrappleCapture, Payload, SnareSettings};
use crate::arm::ArmModel;
use crate::pipeline::BuildError;
use crate::scenario::check::{MAX_SAMPLES, finite_vec, mass_properties, positive};
use tumble_contact::laws::ContactLaw;
use tumble_contact::snare::ThreeWireSnare;
use tumble_dynamics::Method;
use tumble_geometry::MassProperties;
use tumble_math::{UnitQuat, Vec3};

/// The payload's grapple fixture: a plate (three contact points on a circle about the shaft's
/// base) and a shaft standing on it. Body axes, m.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fixture {
    /// Shaft base (plate centre).
    pub base: Vec3,
    /// Shaft direction (any length but zero).
    pub axis: Vec3,
    /// Shaft length, m.
    pub shaft_length: f64,
    /// Shaft radius, m.
    pub shaft_radius: f64,
    /// Radius of the plate's contact points about the base, m.
    pub plate_radius: f64,
}

/// How the three-wire snare is operated (see the module docs of [`super`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SnareOperation {
    /// Depth of the ring's plane inside the face, m.
    pub depth: f64,
    /// Ring radius, m.
    pub ring_radius: f64,
    /// Wire contact stiffness, N/m, and damping, N·s/m.
    pub stiffness: f64,
    /// Wire contact damping, N·s/m.
    pub damping: f64,
    /// Closing angle when open, rad, in (0, π).
    pub open_angle: f64,
    /// Closing rate, rad/s.
    pub closing_rate: f64,
    /// Total wire force that stalls the closing, N.
    pub stall_force: f64,
    /// Tip depth inside the face that starts the closing (beyond `depth`), m.
    pub trigger: f64,
    /// Carriage retraction speed, m/s.
    pub retract_speed: f64,
    /// Preload of the plate on the face, N.
    pub preload: f64,
}

/// The effector's tool as given.
#[derive(Clone, Copy, Debug)]
enum Tool {
    Wire { depth: f64, damping: f64 },
    Snare(SnareOperation),
}

/// The payload's start relative to the effector frame at t = 0: position (m), attitude,
/// velocity (m/s) and angular velocity (rad/s), effector axes.
#[derive(Clone, Copy, Debug)]
struct Start {
    position: Vec3,
    attitude: UnitQuat,
    velocity: Vec3,
    angular_velocity: Vec3,
}

/// Builds a [`GrappleCapture`].
#[derive(Clone, Debug)]
pub struct GrappleCaptureBuilder {
    arm: ArmModel,
    link: Option<String>,
    frame: (UnitQuat, Vec3),
    payload: Option<(MassProperties, Fixture)>,
    start: Start,
    tool: Option<Tool>,
    mu: f64,
    v_star: f64,
}

impl GrappleCapture {
    /// A builder for a capture by `arm` (integrated with RK4; its name names the run), with a
    /// scenario file's defaults: the effector frame at the link frame, the payload at rest at
    /// the effector's origin, shaft–wire friction μ = 0.2 regularised at 1 mm/s.
    pub fn builder(arm: ArmModel) -> GrappleCaptureBuilder {
        GrappleCaptureBuilder {
            arm,
            link: None,
            frame: (UnitQuat::identity(), Vec3::zeros()),
            payload: None,
            start: Start {
                position: Vec3::zeros(),
                attitude: UnitQuat::identity(),
                velocity: Vec3::zeros(),
                angular_velocity: Vec3::zeros(),
            },
            tool: None,
            mu: 0.2,
            v_star: 1e-3,
        }
    }
}

impl GrappleCaptureBuilder {
    /// The effector on the link (or the link of the joint) named `link`: its frame's attitude
    /// and origin (m) in the link frame; its `x` axis points out of the face.
    pub fn effector(mut self, link: &str, attitude: UnitQuat, origin: Vec3) -> Self {
        self.link = Some(link.into());
        self.frame = (attitude, origin);
        self
    }

    /// The payload: mass properties about its centre of mass (its body frame's origin) and its
    /// fixture.
    pub fn payload(mut self, mass: MassProperties, fixture: Fixture) -> Self {
        self.payload = Some((mass, fixture));
        self
    }

    /// The payload's pose in the effector frame at t = 0: position, m, and attitude.
    pub fn payload_pose(mut self, position: Vec3, attitude: UnitQuat) -> Self {
        (self.start.position, self.start.attitude) = (position, attitude);
        self
    }

    /// The payload's velocity (m/s) and angular velocity (rad/s) at t = 0, effector axes.
    pub fn payload_twist(mut self, velocity: Vec3, angular_velocity: Vec3) -> Self {
        (self.start.velocity, self.start.angular_velocity) = (velocity, angular_velocity);
        self
    }

    /// One loose wire (the document's Tables 3–4) in the plane `x = −depth` (m), with linear
    /// damping (N·s/m).
    pub fn wire(mut self, depth: f64, damping: f64) -> Self {
        self.tool = Some(Tool::Wire { depth, damping });
        self
    }

    /// A three-wire snare.
    pub fn snare(mut self, operation: SnareOperation) -> Self {
        self.tool = Some(Tool::Snare(operation));
        self
    }

    /// Shaft–wire friction coefficient and its regularisation speed, m/s.
    pub fn friction(mut self, mu: f64, v_star: f64) -> Self {
        (self.mu, self.v_star) = (mu, v_star);
        self
    }

    /// The capture, or the first input that cannot make one.
    pub fn build(self) -> Result<GrappleCapture, BuildError> {
        let Method::Rk4 { dt } = self.arm.method else {
            return Err(BuildError::new(
                "simulation.integrator",
                "grapple runs use `rk4` (fixed step through the contacts)",
            ));
        };
        let name =
            self.link.ok_or_else(|| BuildError::new("grapple.link", "missing: the link carrying the effector"))?;
        let link = self
            .arm
            .link_index(&name)
            .ok_or_else(|| BuildError::new("grapple.link", format!("no link or joint named `{name}` in the arm")))?;
        let (attitude, origin) = self.frame;
        finite_vec("grapple.origin", &origin)?;
        let frame = (attitude.to_rotation_matrix().into_inner(), origin);
        let (mass, fixture) = self.payload.ok_or_else(|| BuildError::new("grapple.payload", "missing: the payload"))?;
        let payload = payload(&mass, &fixture)?;
        let effector = effector(self.tool, payload.shaft_radius)?;
        if let Err((key, msg)) = crate::scenario::check::friction("grapple.mu", self.mu) {
            return Err(BuildError::new(key, msg));
        }
        let v_star = positive("grapple.v_star", self.v_star, "m/s")?;
        let s = &self.start;
        for (key, v) in
            [("position", &s.position), ("velocity", &s.velocity), ("angular_velocity", &s.angular_velocity)]
        {
            finite_vec(&format!("grapple.payload.{key}"), v)?;
        }
        crate::scenario::check::motion("grapple.payload", &s.position, &s.velocity, &s.angular_velocity)?;
        let cap = GrappleCapture {
            name: self.arm.name.clone(),
            start: [0.0; 13],
            arm: self.arm,
            link,
            frame,
            payload,
            effector,
            mu: self.mu,
            v_star,
            dt,
        };
        let cap = GrappleCapture { start: cap.payload_start(s), ..cap };
        if cap.arm.duration / (cap.sample_every() as f64 * dt) > MAX_SAMPLES {
            return Err(BuildError::new("simulation.output_interval", "would record more than 1e6 samples: raise it"));
        }
        // The start is checked on the capture's own ODE, which shares the capture.
        let cap = std::sync::Arc::new(cap);
        cap.check_start()?;
        Ok(std::sync::Arc::try_unwrap(cap).unwrap_or_else(|shared| (*shared).clone()))
    }
}

/// The payload with its derived data: inverse inertia, unit shaft axis, the plate's points.
fn payload(mass: &MassProperties, fx: &Fixture) -> Result<Payload, BuildError> {
    mass_properties("grapple.payload", mass)?;
    let key = |k: &str| format!("grapple.payload.fixture.{k}");
    finite_vec(&key("axis"), &fx.axis)?;
    let axis = fx.axis.try_normalize(1e-12).ok_or_else(|| BuildError::new(key("axis"), "must be a non-zero vector"))?;
    finite_vec(&key("base"), &fx.base)?;
    let shaft_length = positive(&key("shaft_length"), fx.shaft_length, "m")?;
    let shaft_radius = positive(&key("shaft_radius"), fx.shaft_radius, "m")?;
    let rho = positive(&key("plate_radius"), fx.plate_radius, "m")?;
    let e1 = axis.cross(&if axis.x.abs() < 0.9 { Vec3::x() } else { Vec3::y() }).normalize();
    let e2 = axis.cross(&e1);
    let plate = std::array::from_fn(|i| {
        let a = std::f64::consts::TAU * i as f64 / 3.0;
        fx.base + rho * (a.cos() * e1 + a.sin() * e2)
    });
    let inertia_inv =
        mass.inertia.try_inverse().ok_or_else(|| BuildError::new("grapple.payload.inertia", "is singular"))?;
    Ok(Payload {
        mass: mass.mass,
        inertia: mass.inertia,
        inertia_inv,
        base: fx.base,
        axis,
        shaft_length,
        shaft_radius,
        plate,
    })
}

/// The wire or the snare, checked; the snare's ring against the shaft's radius.
fn effector(tool: Option<Tool>, shaft_radius: f64) -> Result<Effector, BuildError> {
    match tool {
        None => Err(BuildError::new("grapple", "give exactly one of [grapple.wire] (one wire) or [grapple.snare]")),
        Some(Tool::Wire { depth, damping }) => {
            if !(damping.is_finite() && damping >= 0.0) {
                return Err(BuildError::new("grapple.wire.damping", format!("must be >= 0 (N·s/m), got {damping}")));
            }
            Ok(Effector::Wire { depth: positive("grapple.wire.depth", depth, "m")?, damping })
        }
        Some(Tool::Snare(s)) => {
            let key = |k: &str| format!("grapple.snare.{k}");
            let law = ContactLaw::spring_dashpot(s.stiffness, s.damping);
            let snare = ThreeWireSnare::new(s.ring_radius, shaft_radius, law)
                .map_err(|e| BuildError::new(key("ring_radius"), e))?;
            if !(s.open_angle > 0.0 && s.open_angle < std::f64::consts::PI) {
                let msg = format!("must lie in (0, 180) deg, got {}", s.open_angle.to_degrees());
                return Err(BuildError::new(key("open_deg"), msg));
            }
            let depth = positive(&key("depth"), s.depth, "m")?;
            let trigger = positive(&key("trigger"), s.trigger, "m")?;
            if trigger <= depth {
                let msg = format!("must exceed depth ({depth} m): the tip has to pass the ring's plane, got {trigger}");
                return Err(BuildError::new(key("trigger"), msg));
            }
            Ok(Effector::Snare(SnareSettings {
                snare,
                depth,
                open_angle: s.open_angle,
                closing_rate: positive(&key("closing_rate"), s.closing_rate, "rad/s")?,
                stall_force: positive(&key("stall_force"), s.stall_force, "N")?,
                trigger,
                retract_speed: positive(&key("retract_speed"), s.retract_speed, "m/s")?,
                preload: positive(&key("preload"), s.preload, "N")?,
            }))
        }
    }
}

impl GrappleCapture {
    /// The payload's state `[p; q_wxyz; v; ω_body]` in the world from its start relative to
    /// the effector frame at the arm's initial state.
    fn payload_start(&self, s: &Start) -> [f64; 13] {
        let mb = &self.arm.system.model;
        let (nq, nv) = (mb.nq(), mb.nv());
        let y0 = &self.arm.initial_state;
        let ((re, oe), _, _) =
            super::effector_state(&mb.kinematics(&y0[..nq], &y0[nq..nq + nv]), self.link, &self.frame);
        let rp = re * s.attitude.to_rotation_matrix().into_inner();
        let p = oe + re * s.position;
        let q = tumble_math::quat_from_matrix(&rp);
        let v = re * s.velocity;
        let w = rp.transpose() * (re * s.angular_velocity);
        [p.x, p.y, p.z, q.w, q.i, q.j, q.k, v.x, v.y, v.z, w.x, w.y, w.z]
    }

    /// Where the fixture starts: outside the face, short of the wire or the trigger.
    fn check_start(self: &std::sync::Arc<Self>) -> Result<(), BuildError> {
        let mut ode = self.ode();
        let y = self.initial_state();
        let (_, c, _) = ode.contact(0.0, &y);
        let key = "grapple.payload.position";
        if c.face_force > 0.0 {
            return Err(BuildError::new(key, "the fixture's plate starts inside the effector's face (x < 0)"));
        }
        match &self.effector {
            Effector::Wire { .. } => {
                if let Some((ce, _)) = c.crossing
                    && ce.y + self.payload.shaft_radius > 0.0
                {
                    let msg = format!(
                        "the shaft starts on or beyond the wire (y + r = {:.4} m > 0): start it on the −y side",
                        ce.y + self.payload.shaft_radius
                    );
                    return Err(BuildError::new(key, msg));
                }
            }
            Effector::Snare(s) => {
                if c.tip <= -s.trigger {
                    return Err(BuildError::new(key, "the shaft's tip starts past the trigger depth"));
                }
            }
        }
        Ok(())
    }
}
