//! The scenario file schema (TOML). Every key is documented in `docs/scenario.md`; units are
//! SI unless the key's name says otherwise.

use serde::Deserialize;
use std::collections::BTreeMap;
use tumble_geometry::Solid;

/// A whole scenario file: the keys every kind shares and the sections of the bundled
/// applications. Other top-level keys are left to the application the kind names, which reads
/// them with [`super::Scenario::section`]; the registry refuses a section no application of the
/// kind reads ([`super::check_kind`]).
#[derive(Debug, Clone, Deserialize)]
pub struct ScenarioFile {
    /// Name; also the default output folder `out/<name>`.
    pub name: String,
    /// What the scenario simulates: the name of an application in the registry (required;
    /// checked against the sections present by [`super::check_kind`]).
    pub kind: Option<String>,
    /// Free text shown in the summary.
    #[serde(default)]
    pub description: String,
    /// Seed of the scenario's random streams (recorded in the summary).
    #[serde(default)]
    pub seed: u64,
    /// Time span, integrator and output settings.
    pub simulation: SimulationSpec,
    /// The gravity field (default: none).
    #[serde(default)]
    pub gravity: GravitySpec,
    /// Rigid bodies by name (outputs list them in name order).
    #[serde(default)]
    pub bodies: BTreeMap<String, BodySpec>,
    /// The small body of a lander run.
    pub target: Option<super::lander::TargetSpec>,
    /// The spacecraft of a lander run.
    pub lander: Option<super::lander::LanderSpec>,
    /// An articulated system (URDF or inline links).
    pub arm: Option<super::arm::ArmSpec>,
    /// A snare-wire experiment.
    pub snare: Option<super::snare::SnareSpec>,
    /// An `[arm]`'s end effector capturing a free payload with snare wires.
    pub grapple: Option<super::grapple::GrappleSpec>,
    /// A body meeting a membrane suspended from a polygon of points.
    pub membrane: Option<super::membrane::MembraneSpec>,
    /// The membrane document's 2D model: a polygon body and a membrane between two points.
    pub trampoline: Option<super::membrane::TrampolineSpec>,
    /// Rigid bodies with interference contact models (mechanisms, docking, berthing).
    pub mechanism: Option<super::mechanism::MechanismSpec>,
    /// The spacecraft carrying the `[membrane]` in an asteroid capture.
    pub spacecraft: Option<super::membrane::SpacecraftSpec>,
    /// A capture analysis of the `[arm]` chaser grasping a target.
    pub capture: Option<super::capture::CaptureSpec>,
    /// Monte Carlo dispersions: dotted key → distribution (used by `tumble mc`).
    #[serde(default)]
    pub dispersions: BTreeMap<String, DispersionSpec>,
}

/// A distribution of one scenario value: exactly one of `normal = [mean, sd]`,
/// `uniform = [low, high]` or `choice = [a, b, …]`, with `min`/`max` truncating a normal.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DispersionSpec {
    /// Mean and standard deviation.
    #[serde(default, deserialize_with = "super::exact::option")]
    pub normal: Option<[f64; 2]>,
    /// Bounds.
    #[serde(default, deserialize_with = "super::exact::option")]
    pub uniform: Option<[f64; 2]>,
    /// Values drawn with equal probability.
    pub choice: Option<Vec<toml::Value>>,
    /// Lower truncation of a normal.
    pub min: Option<f64>,
    /// Upper truncation of a normal.
    pub max: Option<f64>,
}

/// `[simulation]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationSpec {
    /// Simulated time span, s.
    pub duration: f64,
    /// Integration method.
    #[serde(default)]
    pub integrator: IntegratorKind,
    /// Step, s: required for fixed-step methods; the first trial step for `dopri5`.
    pub dt: Option<f64>,
    /// Relative tolerance per step (`dopri5`).
    #[serde(default = "default_rtol")]
    pub rtol: f64,
    /// Absolute tolerance per step (`dopri5`), state units (m, m/s, rad/s).
    #[serde(default = "default_atol")]
    pub atol: f64,
    /// Largest step (`dopri5`), s; default: the output interval.
    pub max_step: Option<f64>,
    /// Time between recorded samples, s (a multiple of `dt` for fixed-step methods).
    pub output_interval: Option<f64>,
    /// Most steps the run may take: `dopri5` stops failed with a diagnosis when it would take
    /// more; a fixed step that needs more over the duration is refused. Default: [`super::MAX_STEPS`].
    pub max_steps: Option<u64>,
    /// Largest allowed growth of `T + V − W` above its initial value, as a fraction of the
    /// initial energy scale `T₀ + |V₀|`, before the run is stopped as blown up.
    #[serde(default = "default_energy_growth")]
    pub max_energy_growth: f64,
    /// Lander runs: in free flight, steps of up to this many `dt` (1: always `dt`).
    #[serde(default = "one")]
    pub flight_steps: u64,
    /// Lander runs: time between the extra samples taken during impacts, s (a multiple of `dt`;
    /// 0: none; default: a twentieth of a vertex's contact period).
    pub impact_output_interval: Option<f64>,
}

fn one() -> u64 {
    1
}

fn default_rtol() -> f64 {
    1e-9
}
fn default_atol() -> f64 {
    1e-12
}
fn default_energy_growth() -> f64 {
    0.01
}

/// `simulation.integrator`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntegratorKind {
    /// Fixed-step classical Runge–Kutta 4.
    #[default]
    Rk4,
    /// Adaptive Dormand–Prince 5(4).
    Dopri5,
    /// Fixed-step semi-implicit (symplectic) Euler.
    SymplecticEuler,
}

/// `[gravity]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum GravitySpec {
    /// No gravity.
    #[default]
    None,
    /// Uniform field.
    Uniform {
        /// Acceleration, m/s².
        #[serde(deserialize_with = "super::exact::array")]
        g: [f64; 3],
    },
    /// Point mass.
    PointMass {
        /// Gravitational parameter GM, m³/s².
        mu: f64,
        /// Position of the centre, m.
        #[serde(default)]
        #[serde(deserialize_with = "super::exact::array")]
        center: [f64; 3],
        /// Radius of the central body, m: a body whose centre of mass comes closer stops the
        /// run with an impact event. 0 disables the check.
        #[serde(default)]
        radius: f64,
    },
    /// Constant-density polyhedron (Werner & Scheeres).
    Polyhedron {
        /// A closed mesh file relative to the scenario file, or `target` for the lander
        /// target's own shape (a procedural body's mesh at `cells` cells along its length).
        mesh: String,
        /// Unit of the mesh file (`m`, `km`, or a factor); not used with `target`.
        unit: Option<String>,
        /// Density, kg/m³.
        density: f64,
        /// Cells along the length of a procedural target's mesh.
        #[serde(default = "default_gravity_cells")]
        cells: usize,
    },
}

fn default_gravity_cells() -> usize {
    48
}

/// `[bodies.NAME]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodySpec {
    /// Mass, kg. With `shape`, the inertia is scaled to this mass.
    pub mass: Option<f64>,
    /// Density, kg/m³ (only with `shape`; alternative to `mass`).
    pub density: Option<f64>,
    /// Inertia about the centre of mass in body axes, kg·m²: `[Ixx, Iyy, Izz]` or
    /// `[Ixx, Iyy, Izz, Ixy, Ixz, Iyz]` (tensor components, as URDF's `ixy`).
    pub inertia: Option<Vec<f64>>,
    /// A solid primitive giving the inertia (and the mass, with `density`).
    pub shape: Option<Solid>,
    /// Initial position of the centre of mass in the world frame, m.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub position: [f64; 3],
    /// Initial velocity of the centre of mass in the world frame, m/s.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub velocity: [f64; 3],
    /// Initial attitude `q_WB`, unit quaternion `[w, x, y, z]`.
    #[serde(default = "identity_quat")]
    #[serde(deserialize_with = "super::exact::array")]
    pub orientation: [f64; 4],
    /// Initial angular velocity in body axes, rad/s.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub angular_velocity: [f64; 3],
    /// Constant loads for the whole run.
    #[serde(default)]
    pub loads: Vec<LoadSpec>,
}

pub(crate) fn identity_quat() -> [f64; 4] {
    [1.0, 0.0, 0.0, 0.0]
}

/// `[[bodies.NAME.loads]]`: a constant force and/or torque.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadSpec {
    /// Force, N, in the axes named by `frame`.
    #[serde(default, deserialize_with = "super::exact::option")]
    pub force: Option<[f64; 3]>,
    /// Application point in the body frame, m.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub point: [f64; 3],
    /// Torque in body axes, N·m.
    #[serde(default, deserialize_with = "super::exact::option")]
    pub torque: Option<[f64; 3]>,
    /// Axes of `force`: `body` (turns with the body, like a thruster) or `world`.
    #[serde(default)]
    pub frame: LoadFrame,
}

/// `loads.frame`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadFrame {
    /// Body axes.
    #[default]
    Body,
    /// World axes.
    World,
}
