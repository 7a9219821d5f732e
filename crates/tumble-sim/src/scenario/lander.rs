//! Scenario schema of lander runs: `[target]` and `[lander]`. Documented key by key in
//! `docs/scenario.md`.

use super::schema::identity_quat;
use serde::Deserialize;
use tumble_geometry::Solid;

/// `[target]`: the small body (or plane) the lander meets, fixed in frame T.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetSpec {
    /// The surface.
    pub shape: TargetShape,
    /// How the target turns: `uniform` (the document) or `torque_free`.
    #[serde(default)]
    pub spin: SpinKind,
    /// Initial angular velocity `Ω` of T in inertial space, T axes, rad/s (default zero). A
    /// uniform spin must lie along the target's axis of major inertia.
    #[serde(default, deserialize_with = "super::exact::option")]
    pub angular_velocity: Option<[f64; 3]>,
    /// Instead of `angular_velocity`: a uniform spin of this rate (rad/s) about the shape's axis
    /// of major inertia (the direction nearest T's `+z`).
    pub spin_rate: Option<f64>,
    /// The target's centre of mass in the shape's coordinates, m. Default: the shape's at
    /// uniform density (the origin for a plane).
    #[serde(default, deserialize_with = "super::exact::option")]
    pub centre_of_mass: Option<[f64; 3]>,
    /// Principal moments `[A, B, C]` of the target (T axes principal), kg·m² (ratios matter).
    /// Default for `torque_free`: the shape's inertia tensor at uniform density.
    #[serde(default, deserialize_with = "super::exact::option")]
    pub moments: Option<[f64; 3]>,
    /// Initial attitude `Q_NT` of the target, `[w, x, y, z]`.
    #[serde(default = "identity_quat")]
    #[serde(deserialize_with = "super::exact::array")]
    pub orientation: [f64; 4],
    /// Distance of the spacecraft's centre of mass from T's origin beyond which the run stops
    /// as escaped, m. Default: 5 body lengths for bodies, none for a plane.
    pub escape_distance: Option<f64>,
    /// Radius of local quadratic surface models around each vertex, m (0: exact queries).
    #[serde(default)]
    pub surface_expansion: f64,
    /// fBm terrain, its regions and boulders, on any shape.
    pub terrain: Option<TerrainSpec>,
    /// The target's rotation and the Sun's position from SPICE kernels at an epoch.
    pub spice: Option<SpiceSpec>,
}

/// `[target.spice]`: the target's spin state and the Sun's position from SPICE kernels
/// (documented in `docs/interop.md`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpiceSpec {
    /// Kernel files, relative to the scenario file, loaded in order (later ones take
    /// precedence): an LSK for a UTC epoch, a text or binary PCK for the rotation, SPKs for the
    /// Sun and the target.
    pub kernels: Vec<String>,
    /// The epoch of `t = 0`: `YYYY-MM-DDTHH:MM:SS[.fff]`, UTC unless it ends in `TDB`.
    pub epoch: String,
    /// NAIF id of the target (its PCK rotation and its SPK ephemeris), e.g. 2000433 for Eros.
    pub body: i32,
    /// The target's name in CCSDS messages (`CENTER_NAME`, and `IAU_NAME` its body-fixed
    /// frame); default: its NAIF id.
    pub name: Option<String>,
    /// Whether to take the Sun's position (NAIF id 10) relative to the target from the SPKs,
    /// for illumination and the Sun's forces (default true; `false` needs no SPK).
    #[serde(default = "default_sun")]
    pub sun: bool,
}

fn default_sun() -> bool {
    true
}

/// `[lander.sun]`: forces of the Sun on the spacecraft (they need `[target.spice]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SunForcesSpec {
    /// Area the spacecraft presents to the Sun for radiation pressure, m² (0: none).
    #[serde(default)]
    pub area: f64,
    /// Radiation pressure coefficient `C_r` (1 absorbing, 2 a perfect mirror facing the Sun).
    #[serde(default = "one")]
    pub reflectivity: f64,
    /// The Sun's tidal acceleration about the target's centre of mass.
    #[serde(default)]
    pub tide: bool,
}

fn one() -> f64 {
    1.0
}

/// `[target.terrain]`: procedural relief on the target's surface (documented in
/// `docs/lander.md`, "Terrain and boulders").
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainSpec {
    /// Seed of the heights, the region noise and the boulders.
    #[serde(default)]
    pub seed: u64,
    /// Heights of the smooth ground: everywhere, or where the mask is 0.
    pub sandy: Option<FbmSpec>,
    /// Heights of the rough ground, where the mask is 1 (needs `sandy` and `mask`).
    pub rocky: Option<FbmSpec>,
    /// Where the ground is rocky.
    pub mask: Option<MaskSpec>,
    /// A boulder field on the ground.
    pub boulders: Option<BouldersSpec>,
}

/// fBm heights: `A Σ gainᵒ n(lacunarityᵒ p / wavelength)` over `octaves` octaves.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FbmSpec {
    /// Amplitude of the first octave, m.
    pub amplitude: f64,
    /// Wavelength of the first octave, m.
    pub wavelength: f64,
    /// Number of octaves.
    #[serde(default = "five")]
    pub octaves: u32,
    /// Wavelength divisor between octaves.
    #[serde(default = "two")]
    pub lacunarity: f64,
    /// Amplitude factor between octaves.
    #[serde(default = "half")]
    pub gain: f64,
}

/// `target.terrain.mask`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum MaskSpec {
    /// An fBm region field of unit amplitude: rocky where it exceeds `threshold`.
    Noise {
        /// Wavelength of its first octave, m.
        wavelength: f64,
        /// Octaves.
        #[serde(default = "two_octaves")]
        octaves: u32,
        /// Region value at the middle of the transition.
        #[serde(default)]
        threshold: f64,
        /// Width of the transition in region values.
        #[serde(default = "transition")]
        width: f64,
    },
    /// Rocky weights in [0, 1] on latitude–longitude nodes (about the centre of mass and the
    /// spin axis): rows pole to pole south first, columns from longitude −180° eastward.
    Grid {
        /// `values[row][column]`.
        values: Vec<Vec<f64>>,
    },
}

/// `target.terrain.boulders`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BouldersSpec {
    /// Exponent α of the cumulative size–frequency distribution `N(>D) ∝ D^−α`.
    pub alpha: f64,
    /// Smallest longest dimension, m.
    pub d_min: f64,
    /// Largest longest dimension, m.
    pub d_max: f64,
    /// Boulders at least `d_min` long per m² of ground.
    pub density: f64,
    /// `[b/a, c/a]`.
    #[serde(default = "fragment_ratios")]
    #[serde(deserialize_with = "super::exact::array")]
    pub axis_ratios: [f64; 2],
    /// Fraction of each boulder's height below the ground.
    #[serde(default = "burial")]
    pub burial: f64,
    /// Only within `radius` of this point (shape coordinates, m).
    #[serde(default, deserialize_with = "super::exact::option")]
    pub center: Option<[f64; 3]>,
    /// Radius of that region, m.
    pub radius: Option<f64>,
    /// `everywhere` or `rocky` (density weighted by the mask).
    #[serde(default)]
    pub on: BoulderGround,
}

/// `target.terrain.boulders.on`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoulderGround {
    /// The same density everywhere.
    #[default]
    Everywhere,
    /// The density times the rocky weight.
    Rocky,
}

fn five() -> u32 {
    5
}
fn two() -> f64 {
    2.0
}
fn half() -> f64 {
    0.5
}
fn two_octaves() -> u32 {
    2
}
fn transition() -> f64 {
    0.2
}
fn fragment_ratios() -> [f64; 2] {
    [0.71, 0.5]
}
fn burial() -> f64 {
    0.3
}

/// `target.spin`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpinKind {
    /// Constant `Ω`.
    #[default]
    Uniform,
    /// Euler's torque-free equations with `target.moments`.
    TorqueFree,
}

/// `target.shape`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum TargetShape {
    /// A plane (half-space below it).
    Plane {
        /// Outward normal.
        #[serde(default = "up")]
        #[serde(deserialize_with = "super::exact::array")]
        normal: [f64; 3],
        /// A point of the plane, m.
        #[serde(default)]
        #[serde(deserialize_with = "super::exact::array")]
        point: [f64; 3],
    },
    /// A procedural body (no external data needed), centred on T's origin, long axis x.
    Body {
        /// `comet` (bilobed) or `pear`.
        kind: String,
        /// Overall length, m.
        length: f64,
        /// Terrain seed.
        #[serde(default)]
        seed: u64,
        /// fBm terrain (sandy and rocky regions) evaluated exactly at every query.
        #[serde(default = "yes")]
        terrain: bool,
        /// Grid cells along the length for the smooth body's SDF.
        #[serde(default = "default_cells")]
        cells: usize,
    },
    /// A closed mesh file (OBJ, STL, PLY, PDS .tab, ICQ), sampled to a grid SDF.
    Mesh {
        /// Path, relative to the scenario file.
        path: String,
        /// Unit of the file's coordinates: `m`, `km` or a factor to metres.
        unit: String,
        /// Grid cells along the longest side.
        #[serde(default = "default_cells")]
        resolution: usize,
    },
    /// A grid SDF file written by `tumble sdf build`, relative to the scenario file.
    Sdf {
        /// Path.
        path: String,
    },
}

fn up() -> [f64; 3] {
    [0.0, 0.0, 1.0]
}
fn yes() -> bool {
    true
}
fn default_cells() -> usize {
    128
}

/// `[lander]`: the spacecraft.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LanderSpec {
    /// Mass, kg.
    pub mass: f64,
    /// Inertia about the centre of mass, body axes, kg·m²: `[Ixx, Iyy, Izz]` or
    /// `[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]`. Default: from `shape` scaled to `mass`.
    pub inertia: Option<Vec<f64>>,
    /// A solid primitive for the inertia when `inertia` is absent.
    pub shape: Option<Solid>,
    /// Contact vertices.
    pub vertices: VertexSpec,
    /// Initial position of the centre of mass relative to T, T axes, m.
    #[serde(deserialize_with = "super::exact::array")]
    pub position: [f64; 3],
    /// Initial velocity relative to T, T axes, m/s.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub velocity: [f64; 3],
    /// Initial attitude `q_TS`, `[w, x, y, z]`.
    #[serde(default = "identity_quat")]
    #[serde(deserialize_with = "super::exact::array")]
    pub orientation: [f64; 4],
    /// Initial angular velocity relative to T, body axes, rad/s.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub angular_velocity: [f64; 3],
    /// Contact law.
    pub contact: ContactSpec,
    /// Settling detection; without it the run lasts `simulation.duration`.
    pub settle: Option<SettleSpec>,
    /// Hops, in order.
    #[serde(default)]
    pub hops: Vec<HopSpec>,
    /// The actuator that delivers them.
    pub actuator: Option<ActuatorSpec>,
    /// The Sun's radiation pressure and tide on the spacecraft.
    pub sun: Option<SunForcesSpec>,
}

/// `lander.vertices`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum VertexSpec {
    /// The eight corners of a box centred on the centre of mass.
    Box {
        /// Edge lengths, m.
        #[serde(deserialize_with = "super::exact::array")]
        size: [f64; 3],
    },
    /// Points in body axes, m.
    Points {
        /// The points.
        #[serde(deserialize_with = "super::exact::vec")]
        points: Vec<[f64; 3]>,
    },
    /// A mesh file's vertices, or `sample` points spread uniformly over its surface.
    Mesh {
        /// Path, relative to the scenario file.
        path: String,
        /// Unit of the coordinates.
        unit: String,
        /// Number of surface samples (deterministic); default: the mesh vertices.
        sample: Option<usize>,
        /// Take the inertia from the closed mesh at uniform density, scaled to `mass`.
        #[serde(default)]
        inertia_from_mesh: bool,
    },
}

/// `[lander.contact]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactSpec {
    /// Spring stiffness per vertex, N/m.
    pub stiffness: f64,
    /// Damping per vertex (compression only), N·s/m.
    pub damping: f64,
    /// Friction coefficient while slipping.
    pub mu: f64,
    /// Friction coefficient bounding stick (default: `mu`).
    pub mu_static: Option<f64>,
    /// Rolling-resistance lever arm, m.
    #[serde(default)]
    pub rolling: f64,
    /// Friction regularisation tolerance `v*`, m/s.
    #[serde(default = "default_v_star")]
    pub v_star: f64,
    /// Rolling regularisation tolerance `ω*`, rad/s.
    #[serde(default = "default_v_star")]
    pub w_star: f64,
}

fn default_v_star() -> f64 {
    1e-3
}

/// `[lander.settle]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettleSpec {
    /// Speed threshold `v_f`, m/s.
    pub speed: f64,
    /// Angular-rate threshold `ω_f`, rad/s.
    pub rate: f64,
    /// Time both must hold, s.
    pub dwell: f64,
}

/// `[[lander.hops]]`: a hop by the internal actuator: one of `impulse`, `torque` (with
/// `duration`) or `aim`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HopSpec {
    /// Time of the hop, s; absent: when next found settled.
    pub time: Option<f64>,
    /// An instantaneous angular impulse on the body, body axes, N·m·s.
    #[serde(default, deserialize_with = "super::exact::option")]
    pub impulse: Option<[f64; 3]>,
    /// A constant torque on the body, body axes, N·m ...
    #[serde(default, deserialize_with = "super::exact::option")]
    pub torque: Option<[f64; 3]>,
    /// ... for this long, s.
    pub duration: Option<f64>,
    /// A point of the target to hop to (the shape's coordinates, m).
    #[serde(default, deserialize_with = "super::exact::option")]
    pub aim: Option<[f64; 3]>,
}

/// `[lander.actuator]`: the internal rotor that delivers hops.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActuatorSpec {
    /// `wheel` (keeps its momentum) or `torquer` (stores none).
    #[serde(default, rename = "type")]
    pub kind: ActuatorType,
    /// Largest torque, N·m.
    pub max_torque: f64,
    /// Largest momentum the rotor holds (a torquer: per hop), N·m·s.
    pub max_momentum: f64,
}

/// `lander.actuator.type`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActuatorType {
    /// A reaction wheel.
    #[default]
    Wheel,
    /// A torquer.
    Torquer,
}
