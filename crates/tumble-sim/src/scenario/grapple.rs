//! Scenario schema of an arm capturing a free payload with its end effector's snare wires:
//! `[grapple]` (with `[arm]`). Documented key by key in `docs/scenario.md`.

use super::snare::{default_mu, default_v_star};
use serde::Deserialize;

/// `[grapple]`: the end effector on an `[arm]` link, the payload and its grapple fixture, and
/// either one loose wire or a three-wire snare.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrappleSpec {
    /// Link (or its joint's name) carrying the end effector.
    pub link: String,
    /// End-effector frame origin in the link's frame, m. Its x axis is the effector's axis,
    /// out of its face.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub origin: [f64; 3],
    /// End-effector frame orientation in the link's frame, roll-pitch-yaw, deg.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub rpy_deg: [f64; 3],
    /// The free payload.
    pub payload: PayloadSpec,
    /// One loose wire across the effector (give this or `snare`).
    pub wire: Option<GrappleWireSpec>,
    /// A three-wire snare (give this or `wire`).
    pub snare: Option<GrappleSnareSpec>,
    /// Friction coefficient between the fixture's shaft and a wire.
    #[serde(default = "default_mu")]
    pub mu: f64,
    /// Friction regularisation speed, m/s.
    #[serde(default = "default_v_star")]
    pub v_star: f64,
}

/// `grapple.payload`: a rigid body with a grapple fixture (a plate and a shaft); pose and
/// velocities at the start in the end-effector frame.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PayloadSpec {
    /// Mass, kg.
    pub mass: f64,
    /// Principal `[xx, yy, zz]` or full `[xx, yy, zz, xy, xz, yz]` inertia, kg·m².
    pub inertia: Vec<f64>,
    /// Centre of mass at the start, effector frame, m.
    #[serde(deserialize_with = "super::exact::array")]
    pub position: [f64; 3],
    /// Attitude at the start relative to the effector frame, roll-pitch-yaw, deg.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub rpy_deg: [f64; 3],
    /// Centre-of-mass velocity at the start, effector axes, m/s.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub velocity: [f64; 3],
    /// Angular velocity at the start, effector axes, rad/s.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub angular_velocity: [f64; 3],
    /// The fixture.
    pub fixture: FixtureSpec,
}

/// `grapple.payload.fixture`: a plate on the payload with a shaft standing on it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixtureSpec {
    /// Plate centre (the shaft's base), payload frame, m.
    #[serde(deserialize_with = "super::exact::array")]
    pub base: [f64; 3],
    /// Shaft direction, payload frame (normalised).
    #[serde(deserialize_with = "super::exact::array")]
    pub axis: [f64; 3],
    /// Shaft length, m.
    #[serde(default = "default_shaft_length")]
    pub shaft_length: f64,
    /// Shaft radius, m.
    #[serde(default = "default_shaft_radius")]
    pub shaft_radius: f64,
    /// Plate radius (its three contact points with the effector's face), m.
    #[serde(default = "default_plate_radius")]
    pub plate_radius: f64,
}

/// `grapple.wire`: the document's wire (Table 3 and 4: `L` = 180 mm, `l` = 175 mm) across the
/// effector along its z axis, in the plane `x = depth`, its slack side facing `−y`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrappleWireSpec {
    /// Distance of the wire's plane from the face, m.
    pub depth: f64,
    /// Linear damping of the wire, N·s/m.
    #[serde(default = "default_wire_damping")]
    pub damping: f64,
}

/// `grapple.snare`: a three-wire snare whose ring lies in the plane `x = depth`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrappleSnareSpec {
    /// Distance of the ring's plane from the face, m.
    pub depth: f64,
    /// Ring radius, m.
    #[serde(default = "default_ring_radius")]
    pub ring_radius: f64,
    /// Stiffness of a taut wire against the shaft, N/m.
    #[serde(default = "default_snare_stiffness")]
    pub stiffness: f64,
    /// Its damping, N·s/m.
    #[serde(default = "default_snare_damping")]
    pub damping: f64,
    /// Closing angle of the open snare, deg.
    #[serde(default = "default_open_deg")]
    pub open_deg: f64,
    /// Closing rate, rad/s.
    #[serde(default = "default_closing_rate")]
    pub closing_rate: f64,
    /// Total wire force at which the closing stalls, N.
    #[serde(default = "default_stall_force")]
    pub stall_force: f64,
    /// The closing starts when the shaft's tip comes this close to the face, m.
    pub trigger: f64,
    /// Carriage retraction speed, m/s.
    #[serde(default = "default_retract_speed")]
    pub retract_speed: f64,
    /// Preload of the plate against the face at the end of the rigidisation, N.
    #[serde(default = "default_preload")]
    pub preload: f64,
}

fn default_shaft_length() -> f64 {
    0.15
}
fn default_shaft_radius() -> f64 {
    0.0125
}
fn default_plate_radius() -> f64 {
    0.1
}
fn default_wire_damping() -> f64 {
    50.0
}
fn default_ring_radius() -> f64 {
    0.1
}
fn default_snare_stiffness() -> f64 {
    2e4
}
fn default_snare_damping() -> f64 {
    200.0
}
fn default_open_deg() -> f64 {
    30.0
}
fn default_closing_rate() -> f64 {
    1.2
}
fn default_stall_force() -> f64 {
    300.0
}
fn default_retract_speed() -> f64 {
    0.02
}
fn default_preload() -> f64 {
    500.0
}
