//! Scenario schema of mechanism contact through the interference engine: `[mechanism]`.
//! Documented key by key in `docs/scenario.md`.

use super::schema::identity_quat;
use serde::Deserialize;

/// `[mechanism]`: rigid bodies carrying interference contact models, the pairs that touch, and
/// spring-dampers that drive them; with an `[arm]`, bodies carried by its links.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MechanismSpec {
    /// Bodies (free or fixed).
    pub bodies: Vec<MechanismBodySpec>,
    /// Pairs of body names tested against each other.
    pub pairs: Vec<[String; 2]>,
    /// Spring-dampers from bodies to moving anchors.
    #[serde(default)]
    pub springs: Vec<SpringSpec>,
    /// Candidate margin of the contact engine, m.
    pub margin: Option<f64>,
    /// A three-wire snare on one of the bodies.
    pub snare: Option<SnareSpec>,
    /// A berthing: motor-driven four-bar latches and ready-to-latch indicators on one body
    /// (`tumble_sim::mechanism::latch`).
    pub berthing: Option<BerthingSpec>,
}

/// `[mechanism.berthing]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BerthingSpec {
    /// The body carrying the latches and indicators (the active half).
    pub carrier: String,
    /// The free body captured (the passive half), paired with the carrier.
    pub target: String,
    /// Depth at which a ready-to-latch indicator trips, m.
    pub rtli_trip: f64,
    /// Indicators tripped before the latches drive.
    pub rtli_required: usize,
    /// The berthing axis in the carrier frame, from the carrier towards the target.
    #[serde(default = "z_axis")]
    #[serde(deserialize_with = "super::exact::array")]
    pub axis: [f64; 3],
    /// The latches.
    pub latches: Vec<LatchSpec>,
}

fn z_axis() -> [f64; 3] {
    [0.0, 0.0, 1.0]
}

/// `[[mechanism.berthing.latches]]`: a four-bar latch driven at its crank.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LatchSpec {
    /// Name.
    pub name: String,
    /// The hook's contact model (in the rocker's frame), relative to the scenario.
    pub hook: String,
    /// The crank's pivot, carrier frame, m.
    #[serde(deserialize_with = "super::exact::array")]
    pub crank_pivot: [f64; 3],
    /// The rocker's (hook's) pivot, carrier frame, m.
    #[serde(deserialize_with = "super::exact::array")]
    pub pivot: [f64; 3],
    /// The linkage plane's normal, carrier frame.
    #[serde(deserialize_with = "super::exact::array")]
    pub axis: [f64; 3],
    /// Crank length, m.
    pub crank: f64,
    /// Coupler length, m.
    pub coupler: f64,
    /// Rocker length, m.
    pub rocker: f64,
    /// Crank angle open (at the start), degrees from the ground line.
    pub open_deg: f64,
    /// Crank angle at the closed stop, degrees.
    pub closed_deg: f64,
    /// The motor at the crank (its inertia the latch's).
    pub motor: DriveSpec,
}

/// `[[mechanism.bodies]]`: a rigid body whose frame (origin at its centre of mass) is its
/// contact model's Object frame.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MechanismBodySpec {
    /// Name (pairs and springs refer to it).
    pub name: String,
    /// Contact model file (TOML or JSON), relative to the scenario.
    pub model: String,
    /// Fixed bodies keep their pose and need no mass.
    #[serde(default)]
    pub fixed: bool,
    /// The `[arm]` link (or joint) carrying this body: its `position` and `orientation` are
    /// then its pose in the link frame, and its contact wrench acts on the arm.
    pub link: Option<String>,
    /// Mass, kg.
    pub mass: Option<f64>,
    /// Principal `[xx, yy, zz]` or full `[xx, yy, zz, xy, xz, yz]` inertia about the centre of
    /// mass, body axes, kg·m².
    pub inertia: Option<Vec<f64>>,
    /// Position at the start, m.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub position: [f64; 3],
    /// Attitude at the start `[w, x, y, z]`.
    #[serde(default = "identity_quat")]
    #[serde(deserialize_with = "super::exact::array")]
    pub orientation: [f64; 4],
    /// Velocity at the start, m/s.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub velocity: [f64; 3],
    /// Angular velocity at the start, body axes, rad/s.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub angular_velocity: [f64; 3],
}

/// `[[mechanism.springs]]`: a linear and torsional spring-damper pulling a body's centre of
/// mass towards an anchor point moving at constant velocity, and its attitude towards the
/// anchor's (its attitude at the start).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpringSpec {
    /// The body.
    pub body: String,
    /// Anchor at the start, m (default: the body's start position).
    #[serde(default, deserialize_with = "super::exact::option")]
    pub anchor: Option<[f64; 3]>,
    /// Anchor velocity, m/s.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub anchor_velocity: [f64; 3],
    /// Translational stiffness along world x, y, z, N/m.
    #[serde(deserialize_with = "super::exact::array")]
    pub stiffness: [f64; 3],
    /// Translational damping along world x, y, z (relative to the anchor), N·s/m.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub damping: [f64; 3],
    /// Torsional stiffness, N·m/rad (0: free to turn).
    #[serde(default)]
    pub torsion: f64,
    /// Torsional damping, N·m·s/rad.
    #[serde(default)]
    pub torsion_damping: f64,
}

/// `[mechanism.snare]`: an end effector's three-wire snare (LEE-like) on a body, closed around
/// a target's grapple shaft by a motor and retracted by a carriage drive (see
/// `tumble_sim::mechanism::snare`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnareSpec {
    /// The body carrying the snare (fixed, free or on an arm link).
    pub carrier: String,
    /// The free body whose grapple fixture the snare captures.
    pub target: String,
    /// The contact set of the carrier's model that the wires use (law and friction against the
    /// target).
    pub contact: String,
    /// The ring's centre in the carrier's frame, m.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub position: [f64; 3],
    /// The ring frame's attitude in the carrier's frame `[w, x, y, z]`: its z axis points out
    /// of the mouth, towards the arriving fixture.
    #[serde(default = "identity_quat")]
    #[serde(deserialize_with = "super::exact::array")]
    pub orientation: [f64; 4],
    /// Ring radius `R`, m.
    pub ring_radius: f64,
    /// Closing angle of the open snare, degrees.
    pub open_angle_deg: f64,
    /// The target's point (its frame, m) whose depth behind the ring's plane starts the closing.
    #[serde(deserialize_with = "super::exact::array")]
    pub tip: [f64; 3],
    /// That depth, m.
    pub trigger: f64,
    /// The motor closing the ring.
    pub motor: DriveSpec,
    /// The carriage drive retracting the ring; its stall force is the preload.
    pub carriage: DriveSpec,
    /// The carriage's travel to its end stop, m.
    pub stroke: f64,
}

/// A DC motor drive seen at its output: the torque (force) falls linearly with speed from the
/// stall value to zero at the no-load speed; its rotor's inertia reflected to the output.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveSpec {
    /// Stall torque (N·m) or force (N).
    pub stall: f64,
    /// No-load speed, rad/s or m/s.
    pub no_load_speed: f64,
    /// Reflected inertia, kg·m² or kg.
    pub inertia: f64,
}
