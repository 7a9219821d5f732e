//! Scenario schema of membrane ("trampoline") contact: `[membrane]` and `[membrane.body]`.
//! Documented key by key in `docs/scenario.md`.

use super::schema::identity_quat;
use serde::Deserialize;

/// `[membrane]`: a membrane suspended from a regular polygon of points in the plane `z = 0` of
/// the world frame, its deflected side `z < 0`, and the rigid body that meets it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MembraneSpec {
    /// Number of suspension points (6: hexagonal).
    #[serde(default = "six")]
    pub points: usize,
    /// Undeflected area `A₀`, m² (give this or `radius`).
    pub area: Option<f64>,
    /// Circumradius of the suspension polygon, m (give this or `area`).
    pub radius: Option<f64>,
    /// Area stiffness `k`: energy `½k(A − A₀)²`, N/m³.
    pub k: f64,
    /// Area damping `c`: loss `c Ȧ²`, N·s/m³.
    #[serde(default)]
    pub c: f64,
    /// Friction coefficient between body and membrane (0: none).
    #[serde(default)]
    pub mu: f64,
    /// Friction regularisation speed, m/s.
    #[serde(default = "default_v_star")]
    pub v_star: f64,
    /// Normal-force distribution for friction: `pinv`, `nnls` or `auto`.
    #[serde(default = "default_distribution")]
    pub distribution: String,
    /// The body.
    pub body: MembraneBodySpec,
}

fn six() -> usize {
    6
}

fn default_v_star() -> f64 {
    0.01
}

fn default_distribution() -> String {
    "auto".into()
}

/// `membrane.body`: a rigid body with a closed triangle-mesh shape.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MembraneBodySpec {
    /// The shape (its vertices meet the membrane).
    pub shape: MembraneShape,
    /// Mass, kg.
    pub mass: f64,
    /// Principal `[xx, yy, zz]` or full `[xx, yy, zz, xy, xz, yz]` inertia about the centre of
    /// mass in shape axes, kg·m². Default: the shape's, at uniform density.
    pub inertia: Option<Vec<f64>>,
    /// Centre of mass at the start, m.
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
    /// Angular velocity at the start, body axes, rad/s (or `spin_rpm` about `spin_axis`).
    #[serde(default, deserialize_with = "super::exact::option")]
    pub angular_velocity: Option<[f64; 3]>,
    /// Spin rate, rpm, about `spin_axis` (body axes).
    pub spin_rpm: Option<f64>,
    /// Spin axis, body axes (normalised).
    #[serde(default, deserialize_with = "super::exact::option")]
    pub spin_axis: Option<[f64; 3]>,
}

/// `membrane.body.shape`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum MembraneShape {
    /// A geodesic ellipsoid: `20·4^levels` faces.
    Ellipsoid {
        /// Semi-axes, m.
        #[serde(deserialize_with = "super::exact::array")]
        semi_axes: [f64; 3],
        /// Subdivision levels (0–6).
        #[serde(default = "three")]
        levels: u32,
    },
    /// A procedural body (`pear` or `comet`) of overall length `length`, with terrain.
    Body {
        /// `pear` or `comet`.
        kind: String,
        /// Overall length, m.
        length: f64,
        /// Terrain seed.
        #[serde(default)]
        seed: u64,
        /// Grid cells along the length (sets the face count).
        #[serde(default = "default_cells")]
        cells: usize,
    },
    /// A closed mesh file (OBJ, STL, PLY, PDS .tab, ICQ).
    Mesh {
        /// Path, relative to the scenario file.
        path: String,
        /// Unit of the coordinates: `m`, `km` or a factor to metres.
        #[serde(default = "metres")]
        unit: String,
    },
}

fn three() -> u32 {
    3
}

fn default_cells() -> usize {
    16
}

fn metres() -> String {
    "m".into()
}

/// `[spacecraft]`: the spacecraft that carries the membrane in an asteroid capture. Its bus is
/// a solid cylinder whose axis `+z` points at the asteroid; the membrane's suspension plane is
/// `membrane_offset` ahead of the bus centre of mass on that axis. Two solar arrays (solid
/// cylinders on massless booms) hang on ball joints with spring–dampers (the SADAs) on the bus
/// sides `±y`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpacecraftSpec {
    /// Bus mass, kg.
    pub mass: f64,
    /// Bus radius, m.
    pub radius: f64,
    /// Bus height (along its axis), m.
    pub height: f64,
    /// Distance from the bus centre of mass to the suspension plane along the axis, m.
    pub membrane_offset: f64,
    /// Thrust along the bus axis, towards the asteroid, from first contact on, N.
    #[serde(default)]
    pub thrust: f64,
    /// Relative rate `|ω_asteroid − ω_bus|` under which the spacecraft has caught up with the
    /// asteroid's rotation, rad/s.
    #[serde(default = "default_catch_up")]
    pub catch_up_rate: f64,
    /// The two solar arrays.
    pub arrays: ArraySpec,
    /// The approach until first contact.
    pub approach: ApproachSpec,
}

fn default_catch_up() -> f64 {
    0.005
}

/// `[spacecraft.arrays]`: each of the two arrays.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArraySpec {
    /// Mass of one array, kg.
    pub mass: f64,
    /// Array radius (a disc facing the bus's `x` axis), m.
    pub radius: f64,
    /// Array thickness, m.
    pub thickness: f64,
    /// Boom length from the SADA (on the bus wall) to the array's edge, m.
    pub boom: f64,
    /// SADA rotational stiffness, N·m/rad.
    pub stiffness: f64,
    /// SADA rotational damping, N·m·s/rad.
    pub damping: f64,
    /// Allowed SADA bending moment, N·m.
    pub moment_limit: f64,
}

/// `[spacecraft.approach]`: along the asteroid's angular momentum at a set speed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApproachSpec {
    /// Closing speed, m/s.
    pub speed: f64,
    /// Gap between the suspension plane and the asteroid along the approach axis at the start, m.
    pub gap: f64,
    /// Spin with the asteroid about the approach axis and follow its geometric centre
    /// sideways (the corkscrew); `false`: a straight, non-rotating approach.
    #[serde(default = "yes")]
    pub corkscrew: bool,
    /// Bandwidth of the guidance that holds the approach, rad/s.
    #[serde(default = "default_bandwidth")]
    pub bandwidth: f64,
}

fn yes() -> bool {
    true
}

fn default_bandwidth() -> f64 {
    0.2
}

/// `[trampoline]`: the membrane document's 2D model — a membrane between two suspension points
/// on the `x` axis of the plane, deflected towards `y < 0` by a polygon body.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrampolineSpec {
    /// Left suspension point `x_L`, m.
    pub left: f64,
    /// Right suspension point `x_R`, m (`x_R > x_L`).
    pub right: f64,
    /// Length stiffness `k`: energy `½k(ℓ − ℓ₀)²`, N/m².
    pub k: f64,
    /// Length damping `c`: loss `c ℓ̇²`, N·s/m².
    #[serde(default)]
    pub c: f64,
    /// Friction coefficient between body and membrane (0: none).
    #[serde(default)]
    pub mu: f64,
    /// Friction regularisation speed, m/s.
    #[serde(default = "default_v_star")]
    pub v_star: f64,
    /// Normal-force distribution for friction: `pinv`, `nnls` or `auto`.
    #[serde(default = "default_distribution")]
    pub distribution: String,
    /// The body.
    pub body: TrampolineBodySpec,
}

/// `trampoline.body`: a rigid polygon in the plane.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrampolineBodySpec {
    /// Vertices `[x, y]`, m, counter-clockwise, a simple polygon (moved to its centroid).
    #[serde(deserialize_with = "super::exact::vec")]
    pub polygon: Vec<[f64; 2]>,
    /// Mass, kg.
    pub mass: f64,
    /// Moment of inertia about the centre of mass, kg·m² (default: the uniform lamina's).
    pub inertia: Option<f64>,
    /// Centre of mass at the start, m.
    #[serde(deserialize_with = "super::exact::array")]
    pub position: [f64; 2],
    /// Angle at the start, rad (counter-clockwise).
    #[serde(default)]
    pub angle: f64,
    /// Velocity at the start, m/s.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub velocity: [f64; 2],
    /// Angular velocity at the start, rad/s.
    #[serde(default)]
    pub angular_velocity: f64,
}
