//! Scenario schema of articulated runs: `[arm]`. Documented key by key in `docs/scenario.md`.

use serde::Deserialize;

/// `[arm]`: a multibody from a URDF file or declared inline.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmSpec {
    /// URDF file, relative to the scenario file (alternative to `links`).
    pub urdf: Option<String>,
    /// Inline links, parents before children (alternative to `urdf`).
    #[serde(default)]
    pub links: Vec<ArmLinkSpec>,
    /// How the root is attached: `fixed` or `free`.
    #[serde(default)]
    pub base: BaseSpec,
    /// Initial positions (nq values; a free base starts with its position and `[w, x, y, z]`).
    pub q: Option<Vec<f64>>,
    /// Initial rates (nv values).
    pub v: Option<Vec<f64>>,
    /// Force elements and flexibility by joint name.
    #[serde(default)]
    pub joints: Vec<ArmJointSpec>,
    /// Loop-closure (cut) joints that close the tree into a linkage.
    #[serde(default)]
    pub loops: Vec<ArmLoopSpec>,
    /// Baumgarte's rate of the loops' stabilisation, 1/s (default 50).
    pub loop_rate: Option<f64>,
}

/// `[[arm.loops]]`: a point of link `a` kept on a point of link `b` (a pin or ball at a cut).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmLoopSpec {
    /// Link (or joint) name.
    pub a: String,
    /// The point in link `a`'s frame, m.
    #[serde(deserialize_with = "super::exact::array")]
    pub point_a: [f64; 3],
    /// The other link (or joint) name; absent: the world.
    pub b: Option<String>,
    /// The point in link `b`'s frame (or the world's), m.
    #[serde(deserialize_with = "super::exact::array")]
    pub point_b: [f64; 3],
}

/// `arm.base`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BaseSpec {
    /// Bolted to the world.
    #[default]
    Fixed,
    /// Floating.
    Free,
}

/// `[[arm.links]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmLinkSpec {
    /// Link name (also the name of the joint that carries it).
    pub name: String,
    /// Parent link name; absent for a root.
    pub parent: Option<String>,
    /// Joint type: `revolute`, `prismatic`, `spherical`, `fixed` (roots take `arm.base`).
    #[serde(default = "revolute")]
    pub joint: String,
    /// Joint axis in the joint frame (revolute, prismatic).
    #[serde(default = "z_axis")]
    #[serde(deserialize_with = "super::exact::array")]
    pub axis: [f64; 3],
    /// Joint frame origin in the parent frame, m.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub origin: [f64; 3],
    /// Joint frame roll, pitch, yaw relative to the parent (URDF convention), rad.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub rpy: [f64; 3],
    /// Mass, kg.
    pub mass: f64,
    /// Centre of mass in the link frame, m.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub com: [f64; 3],
    /// Inertia about the centre of mass, link axes: 3 or 6 values (kg·m²).
    pub inertia: Vec<f64>,
}

fn revolute() -> String {
    "revolute".into()
}
fn z_axis() -> [f64; 3] {
    [0.0, 0.0, 1.0]
}

/// `[[arm.joints]]`: force elements on one single-degree-of-freedom joint.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmJointSpec {
    /// Joint name (URDF joint name, or the inline link's name).
    pub name: String,
    /// Spring stiffness, N·m/rad (N/m).
    pub stiffness: Option<f64>,
    /// Spring rest position, rad (m).
    #[serde(default)]
    pub rest: f64,
    /// Damping, N·m·s/rad (N·s/m).
    pub damping: Option<f64>,
    /// PD gains `[k_p, k_d]`.
    #[serde(default, deserialize_with = "super::exact::option")]
    pub pd: Option<[f64; 2]>,
    /// PD target, rad (m).
    #[serde(default)]
    pub target: f64,
    /// Feed-forward torque (force).
    #[serde(default)]
    pub feed_forward: f64,
    /// Limits `[lower, upper, stiffness, damping]`.
    #[serde(default, deserialize_with = "super::exact::option")]
    pub limits: Option<[f64; 4]>,
    /// A motor behind an elastic transmission.
    pub flexible: Option<FlexibleSpec>,
    /// A DC motor on the joint.
    pub motor: Option<MotorSpec>,
}

/// `arm.joints.motor`: a DC motor's torque–speed line `τ = stall (command − q̇/no_load_speed)`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotorSpec {
    /// Stall torque, N·m (N), > 0.
    pub stall: f64,
    /// No-load speed, rad/s (m/s), > 0.
    pub no_load_speed: f64,
    /// Command, the fraction of the rated voltage, −1 to 1 (default 1).
    #[serde(default = "one")]
    pub command: f64,
}

fn one() -> f64 {
    1.0
}

/// `arm.joints.flexible`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlexibleSpec {
    /// Motor inertia, kg·m², > 0.
    pub motor_inertia: f64,
    /// Constant motor damping `D₀` on the motor rate, N·m·s/rad (added to the table's
    /// viscosity when that acts on the motor rate).
    #[serde(default)]
    pub motor_damping: f64,
    /// Linear transmission stiffness, N·m/rad (or give `table`).
    pub stiffness: Option<f64>,
    /// Tabulated transmission (the snare-wire document's Table 2 form), in degrees.
    pub table: Option<FlexTableSpec>,
    /// Constant motor torque, N·m.
    #[serde(default)]
    pub motor_torque: f64,
    /// Initial motor angle, rad (default: the joint's initial position, no deflection).
    pub motor_angle: Option<f64>,
    /// Position servo gain holding the motor at its initial angle, N·m/rad (`motor_damping`
    /// is its rate gain).
    pub motor_servo: Option<f64>,
}

/// `arm.joints.flexible.table`: segments of the deflection `|q − θ|` starting at `breaks_deg`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlexTableSpec {
    /// Segment starts, deg (first 0).
    pub breaks_deg: Vec<f64>,
    /// Tangent stiffness per segment, N·m/deg.
    pub stiffness_per_deg: Vec<f64>,
    /// Viscosity per segment, N·m·s/deg.
    #[serde(default)]
    pub viscosity_per_deg: Vec<f64>,
    /// The rate the viscosity multiplies: `"motor"` (the motor rate, the document's eq. 2; the
    /// default) or `"deflection"` (the deflection rate, on link and motor).
    pub viscosity_on: Option<String>,
}
