//! Scenario schema of capture analyses: `[capture]` (with the chaser in `[arm]`). Documented
//! key by key in `docs/scenario.md`.

use serde::Deserialize;

/// `[capture]`: the grasp, the target, the detumble controller and the region-of-attraction
/// study.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureSpec {
    /// The chaser link that grasps (its name in `[arm]`).
    pub tool: String,
    /// Grasp point in the tool's frame, m.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub grasp: [f64; 3],
    /// The target.
    pub target: CaptureTargetSpec,
    /// Which map turns the pre-capture states and the measured impulse into the post-capture
    /// state of the verdict: `eq23` (the document's) or `chaser` (the chaser's own impulse
    /// equation).
    #[serde(default)]
    pub verdict_map: VerdictMap,
    /// An impulse measured at the grasp (on the chaser, `[N·s ×3, N·m·s ×3]`, world axes, about
    /// the grasp point): the online check (eq. 30) of the scenario's pre-capture states with it.
    #[serde(default, deserialize_with = "super::exact::option")]
    pub measured_impulse: Option<[f64; 6]>,
    /// The detumble controller.
    pub control: CaptureControlSpec,
    /// The region-of-attraction study.
    #[serde(default)]
    pub roa: RoaSpec,
}

/// `capture.target`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureTargetSpec {
    /// Mass, kg.
    pub mass: f64,
    /// Inertia about the centre of mass (target axes = tool axes at the grasp): 3 or 6 values,
    /// kg·m².
    pub inertia: Vec<f64>,
    /// Grapple fixture position from the centre of mass, target axes, m.
    #[serde(deserialize_with = "super::exact::array")]
    pub grapple: [f64; 3],
    /// Pre-capture centre-of-mass velocity, world axes, m/s.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub velocity: [f64; 3],
    /// Pre-capture angular velocity, world axes, rad/s.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub angular_velocity: [f64; 3],
}

/// `capture.verdict_map`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictMap {
    /// The document's eq. (23).
    #[default]
    Eq23,
    /// `v⁺ = v⁻ + M_c⁻¹ J_cᵀ I_c`.
    Chaser,
}

/// `capture.control`: Bryson-rule weights, input limits and the success criterion.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureControlSpec {
    /// Acceptable joint excursion for the weights, rad: `Q = 1/scale²`.
    pub angle_scale: f64,
    /// Acceptable angular and joint rate for the weights, rad/s.
    pub rate_scale: f64,
    /// Acceptable base speed for the weights, m/s.
    pub speed_scale: f64,
    /// Base moment limit per axis, N·m (also `R = 1/limit²`).
    pub base_torque: f64,
    /// Base force limit per axis, N.
    pub base_force: f64,
    /// Joint torque limit, N·m.
    pub joint_torque: f64,
    /// Largest joint excursion from the capture configuration before the detumble fails, rad.
    pub joint_range: f64,
    /// Detumbled: every angular and joint rate below this at the end, rad/s.
    pub goal_rate: f64,
    /// Detumbled: base speed below this at the end, m/s.
    pub goal_speed: f64,
}

/// `capture.roa`: sampled pre-capture states (normal per axis about the scenario's values).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoaSpec {
    /// Rollouts that estimate the funnel.
    #[serde(default = "default_samples")]
    pub samples: u64,
    /// Further rollouts that check the verdict (the confusion matrix).
    #[serde(default = "default_verify")]
    pub verify: u64,
    /// Standard deviation of the target's angular velocity per axis, rad/s.
    #[serde(default)]
    pub angular_velocity_sd: f64,
    /// Standard deviation of the target's velocity per axis, m/s.
    #[serde(default)]
    pub velocity_sd: f64,
    /// Standard deviation of the chaser's joint rates, rad/s.
    #[serde(default)]
    pub joint_rate_sd: f64,
    /// Standard deviation of the force/torque sensor's impulse error, as a fraction of the
    /// impulse's size, per component.
    #[serde(default)]
    pub impulse_noise: f64,
    /// A constant error of the measured impulse (a force/torque sensor's bias integrated over
    /// the contact), `[N·s; N·m·s about the grasp point]`, world axes.
    #[serde(default)]
    #[serde(deserialize_with = "super::exact::array")]
    pub impulse_bias: [f64; 6],
    /// The largest fraction of the funnel's samples that may fail below its inlet `ρ₀` (the
    /// estimation's false-safe rate): 0 puts the inlet at the first failure; the default, 0.02,
    /// admits one failure per 50 samples below the inlet, so one outlier does not close the
    /// funnel.
    #[serde(default = "default_false_safe")]
    pub false_safe: f64,
    /// Joint angles at capture spread uniformly over `arm.q ± joint_angle_spread` per joint in
    /// the samples, rad: the range of poses the design covers. A verdict asked at a pose further
    /// from the design's is refused.
    #[serde(default)]
    pub joint_angle_spread: f64,
}

impl Default for RoaSpec {
    fn default() -> Self {
        Self {
            samples: default_samples(),
            verify: default_verify(),
            angular_velocity_sd: 0.0,
            velocity_sd: 0.0,
            joint_rate_sd: 0.0,
            impulse_noise: 0.0,
            impulse_bias: [0.0; 6],
            false_safe: default_false_safe(),
            joint_angle_spread: 0.0,
        }
    }
}

fn default_samples() -> u64 {
    300
}
fn default_verify() -> u64 {
    1000
}
fn default_false_safe() -> f64 {
    0.02
}
