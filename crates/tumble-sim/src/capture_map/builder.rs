//! [`CaptureStudyBuilder`]: a capture study built in code from a free-floating chaser
//! ([`Multibody`] with a free base), its pre-capture state, the grasp, the target, the detumble
//! weights and limits, and the sampling — validated as a scenario file is (errors name the
//! `[capture]` keys), with the derived data computed: the capture configuration's maps, the
//! welded post-capture plant, the LQR weights `Q = diag(1/scale²)`, `R = diag(1/limit²)`.
//! The scenario adapter ends in it.

use super::detumble::{self, DetumbleSpec, Plant};
use super::{CaptureStudy, MAX_GB};
use crate::pipeline::BuildError;
use crate::scenario::capture::{CaptureControlSpec, RoaSpec, VerdictMap};
use crate::scenario::check::{finite_vec, mass_properties, positive};
use tumble_dynamics::multibody::Multibody;
use tumble_dynamics::multibody::capture::{CaptureMap, RigidTarget};
use tumble_geometry::MassProperties;
use tumble_math::nalgebra::DVector;
use tumble_math::{Mat3, Vec3};

/// Builds a [`CaptureStudy`].
#[derive(Clone, Debug)]
pub struct CaptureStudyBuilder {
    name: String,
    seed: u64,
    chaser: Multibody,
    joint_names: Option<Vec<Option<String>>>,
    state: Option<(Vec<f64>, Vec<f64>)>,
    grasp: Option<(String, Vec3)>,
    target: Option<(f64, Mat3, Vec3)>,
    target_twist: (Vec3, Vec3),
    control: Option<CaptureControlSpec>,
    horizon: (f64, f64),
    roa: RoaSpec,
    verdict_map: VerdictMap,
    measured_impulse: Option<[f64; 6]>,
}

impl CaptureStudy {
    /// A builder for the study named `name` of the `chaser` (a free base carrying the arm),
    /// with a scenario file's defaults: seed 0, the chaser at rest in its neutral
    /// configuration, the target at rest, the verdict on eq. (23), `capture.roa`'s defaults.
    pub fn builder(name: &str, chaser: Multibody) -> CaptureStudyBuilder {
        CaptureStudyBuilder {
            name: name.into(),
            seed: 0,
            chaser,
            joint_names: None,
            state: None,
            grasp: None,
            target: None,
            target_twist: (Vec3::zeros(), Vec3::zeros()),
            control: None,
            horizon: (f64::NAN, f64::NAN),
            roa: RoaSpec::default(),
            verdict_map: VerdictMap::default(),
            measured_impulse: None,
        }
    }
}

impl CaptureStudyBuilder {
    /// Seed of the sampled pre-capture states.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Name of the joint carrying each link (`None` for the base), as [`Self::grasp`] finds
    /// the tool; default: the link's own name.
    pub fn joint_names(mut self, names: Vec<Option<String>>) -> Self {
        self.joint_names = Some(names);
        self
    }

    /// The chaser's configuration at capture `q` (the base quaternion `[w, x, y, z]`
    /// normalised by the build) and its pre-capture velocities `v`.
    pub fn chaser_state(mut self, q: Vec<f64>, v: Vec<f64>) -> Self {
        self.state = Some((q, v));
        self
    }

    /// The grasping link (its joint's name) and the grasp point in its frame, m.
    pub fn grasp(mut self, tool: &str, point: Vec3) -> Self {
        self.grasp = Some((tool.into(), point));
        self
    }

    /// The target: mass (kg), inertia about its centre of mass in the tool's axes at capture
    /// (kg·m²) and its grapple fixture from the centre of mass (m).
    pub fn target(mut self, mass: f64, inertia: Mat3, grapple: Vec3) -> Self {
        self.target = Some((mass, inertia, grapple));
        self
    }

    /// The target's pre-capture velocity (m/s) and angular velocity (rad/s), world axes.
    pub fn target_twist(mut self, velocity: Vec3, angular_velocity: Vec3) -> Self {
        self.target_twist = (velocity, angular_velocity);
        self
    }

    /// The detumble's state scales, input limits, joint range and success criterion.
    pub fn control(mut self, control: CaptureControlSpec) -> Self {
        self.control = Some(control);
        self
    }

    /// Detumble horizon and controller (and RK4) step, s; a whole number of steps.
    pub fn horizon(mut self, horizon: f64, dt: f64) -> Self {
        self.horizon = (horizon, dt);
        self
    }

    /// How the pre-capture states are sampled and how many are checked.
    pub fn roa(mut self, roa: RoaSpec) -> Self {
        self.roa = roa;
        self
    }

    /// The map that predicts the post-capture state for the verdict.
    pub fn verdict_map(mut self, map: VerdictMap) -> Self {
        self.verdict_map = map;
        self
    }

    /// An impulse measured at the grasp (`[torque; force]`, N·m·s, N·s) to check online.
    pub fn measured_impulse(mut self, impulse: [f64; 6]) -> Self {
        self.measured_impulse = Some(impulse);
        self
    }

    /// The study, or the first input that cannot make one.
    pub fn build(self) -> Result<CaptureStudy, BuildError> {
        let chaser = self.chaser;
        let (nq, nv) = (chaser.nq(), chaser.nv());
        let (mut q, v) = self.state.unwrap_or_else(|| (chaser.neutral(), vec![0.0; nv]));
        if q.len() != nq || v.len() != nv {
            let msg = format!("the chaser takes {nq} positions and {nv} velocities, got {} and {}", q.len(), v.len());
            return Err(BuildError::new("arm.q", msg));
        }
        chaser.normalize(&mut q);
        if q.iter().chain(&v).any(|x| !x.is_finite()) {
            return Err(BuildError::new("arm.q", "positions and velocities must be finite, quaternions non-zero"));
        }
        let names =
            self.joint_names.unwrap_or_else(|| chaser.links.iter().map(|l| l.parent.map(|_| l.name.clone())).collect());
        let (tool_name, grasp) =
            self.grasp.ok_or_else(|| BuildError::new("capture.tool", "missing: the grasping link"))?;
        let tool = names.iter().position(|n| n.as_deref() == Some(tool_name.as_str())).ok_or_else(|| {
            let known: Vec<&String> = names.iter().flatten().collect();
            BuildError::new("capture.tool", format!("no link named `{tool_name}`; links: {known:?}"))
        })?;
        let (mass, inertia, grapple) = self.target.ok_or_else(|| BuildError::new("capture.target", "missing"))?;
        let target = RigidTarget { mass, inertia, grapple };
        mass_properties("capture.target", &MassProperties::new(mass, inertia))?;
        let (v_t, w_t) = self.target_twist;
        for (key, x) in [
            ("capture.target.grapple", &grapple),
            ("capture.grasp", &grasp),
            ("capture.target.velocity", &v_t),
            ("capture.target.angular_velocity", &w_t),
        ] {
            finite_vec(key, x)?;
        }
        crate::scenario::check::velocity3("capture.target.velocity", v_t.into())?;
        crate::scenario::check::rate3("capture.target.angular_velocity", w_t.into())?;
        let v_t = DVector::from_iterator(6, v_t.iter().chain(w_t.iter()).copied());
        let map = CaptureMap::new(&chaser, &q, tool, &grasp, &target).map_err(|e| BuildError::new("arm.base", e))?;
        let control = self.control.ok_or_else(|| BuildError::new("capture.control", "missing"))?;
        let spec = detumble_spec(&control, self.horizon, nv - 6)?;
        let u_max: Vec<f64> = [control.base_torque; 3]
            .into_iter()
            .chain([control.base_force; 3])
            .chain(std::iter::repeat_n(control.joint_torque, nv - 6))
            .collect();
        let welded =
            detumble::weld_target(&chaser, tool, &grasp, &target).map_err(|e| BuildError::new("capture.target", e))?;
        let plant = Plant::new(welded, u_max).map_err(|e| BuildError::new("arm.links", e))?;
        let measured_impulse = match self.measured_impulse {
            Some(i) if i.iter().all(|x| x.is_finite()) => Some(DVector::from_column_slice(&i)),
            Some(i) => {
                return Err(BuildError::new(
                    "capture.measured_impulse",
                    format!("must hold six finite numbers, got {i:?}"),
                ));
            }
            None => None,
        };
        check_roa(&self.roa, &spec)?;
        let prediction = match self.verdict_map {
            VerdictMap::Eq23 => map.eq23_operator(),
            VerdictMap::Chaser => map.from_impulse_operator(),
        }
        .map_err(|e| BuildError::new("capture.verdict_map", format!("{e}: use \"chaser\"")))?;
        let study = CaptureStudy {
            name: self.name,
            seed: self.seed,
            joint_names: chaser
                .links
                .iter()
                .zip(&names)
                .filter(|(l, _)| l.parent.is_some())
                .map(|(l, n)| n.clone().unwrap_or_else(|| l.name.clone()))
                .collect(),
            chaser,
            q,
            tool,
            grasp,
            target,
            v_c: DVector::from_vec(v),
            v_t,
            map,
            plant,
            spec,
            roa: self.roa,
            verdict_map: self.verdict_map,
            prediction,
            measured_impulse,
        };
        // The design's check of the step against the closed loop, here so that a study that is
        // built can be designed (`tumble check` accepted what `tumble capture-map` refused).
        let n = study.plant.joints();
        super::detumble::rest_lqr(&study.plant, &study.q[7..7 + n], &study.spec)
            .map_err(|e| BuildError::new("simulation.dt", e))?;
        Ok(study)
    }
}

/// Sampling spreads finite and ≥ 0; at least 2 samples; the funnel samples' curves within
/// [`MAX_GB`].
fn check_roa(roa: &RoaSpec, spec: &DetumbleSpec) -> Result<(), BuildError> {
    for (key, x) in [
        ("angular_velocity_sd", roa.angular_velocity_sd),
        ("velocity_sd", roa.velocity_sd),
        ("joint_rate_sd", roa.joint_rate_sd),
        ("impulse_noise", roa.impulse_noise),
        ("joint_angle_spread", roa.joint_angle_spread),
    ] {
        if !(x.is_finite() && x >= 0.0) {
            return Err(BuildError::new(format!("capture.roa.{key}"), format!("must be >= 0, got {x}")));
        }
    }
    if !(0.0..1.0).contains(&roa.false_safe) {
        let msg = format!("must be a fraction in [0, 1), got {}", roa.false_safe);
        return Err(BuildError::new("capture.roa.false_safe", msg));
    }
    if roa.joint_angle_spread > spec.joint_range {
        let msg = format!(
            "{} rad is wider than the joint range the detumble allows (capture.control.joint_range = {} rad)",
            roa.joint_angle_spread, spec.joint_range
        );
        return Err(BuildError::new("capture.roa.joint_angle_spread", msg));
    }
    if roa.impulse_bias.iter().any(|x| !x.is_finite()) {
        let msg = format!("must hold six finite numbers (N·s, N·m·s), got {:?}", roa.impulse_bias);
        return Err(BuildError::new("capture.roa.impulse_bias", msg));
    }
    if roa.samples < 2 || roa.samples + roa.verify > 10_000_000 {
        let msg = "needs at least 2 samples, and at most 1e7 samples and checks together";
        return Err(BuildError::new("capture.roa.samples", msg));
    }
    // Funnel samples keep their cost-to-go curves: 8 bytes a step each.
    let gb = roa.samples as f64 * 8.0 * (spec.horizon / spec.dt + 1.0) / 1e9;
    if gb > MAX_GB {
        let msg = format!(
            "{} samples would keep {gb:.1} GB of cost-to-go curves (at most {MAX_GB}): take fewer",
            roa.samples
        );
        return Err(BuildError::new("capture.roa.samples", msg));
    }
    Ok(())
}

/// The LQR weights `Q = diag(1/scale²)` over `[θ; ω; v; θ̇]` and `R = diag(1/limit²)` over
/// `[τ_base; f_base; τ_joints]` for `n` joints, the horizon `(T, dt)` and the success criterion.
fn detumble_spec(k: &CaptureControlSpec, (horizon, dt): (f64, f64), n: usize) -> Result<DetumbleSpec, BuildError> {
    let p = |key: &str, x: f64, unit: &str| positive(&format!("capture.control.{key}"), x, unit);
    let (angle, rate, speed) = (
        p("angle_scale", k.angle_scale, "rad")?,
        p("rate_scale", k.rate_scale, "rad/s")?,
        p("speed_scale", k.speed_scale, "m/s")?,
    );
    let (bt, bf, jt) = (
        p("base_torque", k.base_torque, "N·m")?,
        p("base_force", k.base_force, "N")?,
        p("joint_torque", k.joint_torque, "N·m")?,
    );
    let q = std::iter::repeat_n(angle.powi(-2), n)
        .chain([rate.powi(-2); 3])
        .chain([speed.powi(-2); 3])
        .chain(std::iter::repeat_n(rate.powi(-2), n))
        .collect();
    let r = [bt.powi(-2); 3].into_iter().chain([bf.powi(-2); 3]).chain(std::iter::repeat_n(jt.powi(-2), n)).collect();
    let horizon = positive("simulation.duration", horizon, "s (the detumble horizon)")?;
    let dt = positive("simulation.dt", dt, "s")?;
    let steps = (horizon / dt).round();
    if (steps * dt - horizon).abs() > 1e-9 * horizon {
        return Err(BuildError::new("simulation.duration", format!("must be a whole number of steps of {dt} s")));
    }
    // The design keeps A, B, S and K at every step: 8 (2 nx² + 2 nx nu) bytes each.
    let (nx, nu) = ((2 * n + 6) as f64, (n + 6) as f64);
    let gb = steps * 8.0 * (2.0 * nx * nx + 2.0 * nx * nu) / 1e9;
    if gb > MAX_GB {
        let msg = format!(
            "{steps} steps would keep {gb:.1} GB of gains and linearisations (at most {MAX_GB}): lengthen simulation.dt or shorten the horizon"
        );
        return Err(BuildError::new("simulation.duration", msg));
    }
    Ok(DetumbleSpec {
        q,
        r,
        horizon,
        dt,
        joint_range: p("joint_range", k.joint_range, "rad")?,
        goal_rate: p("goal_rate", k.goal_rate, "rad/s")?,
        goal_speed: p("goal_speed", k.goal_speed, "m/s")?,
    })
}
