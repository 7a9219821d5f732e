//! Capture analyses (`[arm]` chaser + `[capture]`): the capture maps at the scenario's
//! pre-capture state, the TVLQR detumble designed along the nominal post-capture trajectory,
//! the funnel `ρ(t)` estimated from sampled rollouts, and the online check of the capture
//! document's eq. (30) against further detumble simulations (a confusion matrix).

pub mod app;
mod builder;
pub mod campaign;
pub mod detumble;
mod held;
pub mod late;
mod online;
mod plots;
pub use plots::animation;
pub mod stepped;
mod verdict;

use crate::arm::ArmModel;
use crate::campaign::dispersion::Stream;
use crate::scenario::capture::{RoaSpec, VerdictMap};
use crate::scenario::check::{Check, err, mass_and_inertia};
use crate::scenario::{Scenario, ScenarioError};
pub use builder::CaptureStudyBuilder;
use detumble::{Design, DetumbleSpec, Funnel, Plant, Rollout};
use rayon::prelude::*;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use tumble_dynamics::multibody::Multibody;
use tumble_dynamics::multibody::capture::{CaptureMap, LinearMap, PostCapture, RigidTarget, Slaving};
use tumble_math::Vec3;
use tumble_math::nalgebra::DVector;
pub use verdict::{Controller, Verdict};

/// A validated capture study.
pub struct CaptureStudy {
    /// Scenario name.
    pub name: String,
    /// Seed of the sampled pre-capture states.
    pub seed: u64,
    /// The chaser.
    pub chaser: Multibody,
    /// Chaser configuration at capture.
    pub q: Vec<f64>,
    /// The grasping link.
    pub tool: usize,
    /// Grasp point, tool frame, m.
    pub grasp: Vec3,
    /// The target.
    pub target: RigidTarget,
    /// The joints' names, in the order of the joint angles.
    pub joint_names: Vec<String>,
    /// Chaser pre-capture velocities.
    pub v_c: DVector<f64>,
    /// Target pre-capture `[v_G; ω]`, world axes.
    pub v_t: DVector<f64>,
    /// The capture configuration's maps.
    pub map: CaptureMap,
    /// Chaser and target welded, with input limits.
    pub plant: Plant,
    /// Weights, horizon and success criterion.
    pub spec: DetumbleSpec,
    /// Sampling.
    pub roa: RoaSpec,
    /// Map of the verdict.
    pub verdict_map: VerdictMap,
    /// That map as a linear operator, built once.
    pub prediction: LinearMap,
    /// An impulse measured at the grasp, to check online.
    pub measured_impulse: Option<DVector<f64>>,
}

/// One sampled capture: its verdict and what the detumble did.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Sample index.
    pub index: u64,
    /// `V₀` of the true post-capture state.
    pub v0: f64,
    /// `V₀` predicted from the pre-capture states and the measured impulse (eq. 30).
    pub v0_predicted: f64,
    /// The rollout from the true post-capture state (a verification sample keeps its
    /// cost-to-go curve only when it is among the first [`CURVES_KEPT`]).
    pub rollout: Rollout,
    /// A verification sample that started inside the funnel's inlet and later left `ρ(t)`.
    pub left_funnel: bool,
}

/// Most memory a study may hold in designs and curves, GB.
const MAX_GB: f64 = 2.0;

/// Verification samples that keep their cost-to-go curves (for the funnel plot); the others
/// keep only their verdict and outcome, so the memory does not grow with `capture.roa.verify`.
pub const CURVES_KEPT: u64 = 20;

/// Everything `tumble capture-map` reports.
pub struct CaptureReport {
    /// Maps at the scenario's state: name, post-capture state, difference from the constrained
    /// impulse (relative).
    pub maps: Vec<(&'static str, PostCapture, f64)>,
    /// The detumble design.
    pub design: Design,
    /// The nominal rollout (post-capture state of the scenario).
    pub nominal: Rollout,
    /// Funnel.
    pub funnel: Funnel,
    /// Funnel-estimation samples.
    pub estimation: Vec<Sample>,
    /// Verdict-check samples.
    pub verification: Vec<Sample>,
    /// The online check of `capture.measured_impulse`: the predicted post-capture state's
    /// `V₀` and the detumble from it.
    pub online: Option<(f64, Rollout)>,
}

impl CaptureStudy {
    /// Validates `[arm]` + `[capture]`; see [`CaptureStudy::builder`] to build one in code.
    pub fn build(sc: &Scenario) -> Result<Self, ScenarioError> {
        let arm = ArmModel::build(sc)?;
        Self::check(sc, arm).map_err(|(k, m)| sc.error_at(&k, m))
    }

    /// The scenario adapter: reads `[arm]` (the chaser, with no joint force elements),
    /// `[capture]` and `[simulation]` into a [`CaptureStudyBuilder`].
    fn check(sc: &Scenario, arm: ArmModel) -> Check<Self> {
        let f = &sc.file;
        let Some(c) = &f.capture else { return err("capture", "a capture study needs a [capture] table") };
        if !f.arm.as_ref().is_some_and(|a| a.joints.is_empty()) {
            return err(
                "arm.joints",
                "a capture study drives the joints with its detumble controller: remove [[arm.joints]]",
            );
        }
        let (nq, nv) = (arm.system.model.nq(), arm.system.model.nv());
        let y = &arm.initial_state;
        let (mass, inertia) = mass_and_inertia("capture.target", c.target.mass, &c.target.inertia)?;
        let Some(dt) = f.simulation.dt else { return err("simulation.dt", "is required: the controller's step, s") };
        let mut builder = Self::builder(&f.name, arm.system.model.clone())
            .seed(f.seed)
            .joint_names(arm.joint_names.clone())
            .chaser_state(y[..nq].to_vec(), y[nq..nq + nv].to_vec())
            .grasp(&c.tool, Vec3::from(c.grasp))
            .target(mass, inertia, Vec3::from(c.target.grapple))
            .target_twist(Vec3::from(c.target.velocity), Vec3::from(c.target.angular_velocity))
            .control(c.control.clone())
            .horizon(f.simulation.duration, dt)
            .roa(c.roa.clone())
            .verdict_map(c.verdict_map);
        if let Some(i) = c.measured_impulse {
            builder = builder.measured_impulse(i);
        }
        Ok(builder.build()?)
    }

    /// The design's joint angles at capture, rad.
    pub fn joint_angles(&self) -> &[f64] {
        &self.q[7..7 + self.plant.joints()]
    }

    /// The post-capture state `x = [θ; v]` at joint angles `theta` of chaser velocities `v_c`.
    fn state(&self, theta: &[f64], v_c: &DVector<f64>) -> DVector<f64> {
        DVector::from_iterator(theta.len() + v_c.len(), theta.iter().chain(v_c.iter()).copied())
    }

    /// The post-capture state at joint angles `theta` predicted from the pre-capture velocities
    /// and a measured impulse by the verdict's map (made at the design's pose).
    fn predict(
        &self,
        theta: &[f64],
        v_c: &DVector<f64>,
        v_t: &DVector<f64>,
        impulse: &DVector<f64>,
    ) -> Result<DVector<f64>, String> {
        let post = tumble_control::capture_check::post_capture(self.prediction.matrices(), v_c, v_t, impulse);
        Ok(self.state(theta, &post))
    }

    /// The capture map at joint angles `theta` (the design's own when they are its angles).
    fn map_at(&self, theta: &[f64]) -> Result<std::borrow::Cow<'_, CaptureMap>, String> {
        if theta == self.joint_angles() {
            return Ok(std::borrow::Cow::Borrowed(&self.map));
        }
        let mut q = self.q.clone();
        q[7..7 + theta.len()].copy_from_slice(theta);
        Ok(std::borrow::Cow::Owned(CaptureMap::new(&self.chaser, &q, self.tool, &self.grasp, &self.target)?))
    }

    /// Draws sample `index`, maps it, predicts and simulates; against `funnel` when given.
    fn sample(&self, design: &Design, index: u64, funnel: Option<&Funnel>) -> Result<Sample, String> {
        let mut s = Stream::new(self.seed, index);
        let r = &self.roa;
        let mut v_c = self.v_c.clone();
        let mut v_t = self.v_t.clone();
        for i in 0..3 {
            v_t[i] += r.velocity_sd * s.normal();
            v_t[3 + i] += r.angular_velocity_sd * s.normal();
        }
        for i in 6..v_c.len() {
            v_c[i] += r.joint_rate_sd * s.normal();
        }
        // Drawn before the impulse's noise, after the velocities; only when spread, so a study
        // without it keeps its samples.
        let mut theta = self.joint_angles().to_vec();
        if r.joint_angle_spread > 0.0 {
            theta.iter_mut().for_each(|a| *a += r.joint_angle_spread * (2.0 * s.uniform() - 1.0));
        }
        let truth = self.map_at(&theta)?.constrained(&v_c, &v_t)?;
        let size = truth.impulse.norm();
        let mut measured = truth.impulse.map(|i| i + r.impulse_noise * size * s.normal());
        measured.iter_mut().zip(&r.impulse_bias).for_each(|(m, b)| *m += b);
        let predicted = self.predict(&theta, &v_c, &v_t, &measured)?;
        let x0 = self.state(&theta, &truth.chaser);
        let v0 = design.cost_to_go(0, &x0);
        let mut rollout = detumble::rollout(&self.plant, design, &x0);
        let mut left_funnel = false;
        if let Some(f) = funnel {
            left_funnel = v0 < f.rho0 && rollout.cost_to_go.iter().zip(&f.rho).any(|(v, r)| v > r);
            if index >= self.roa.samples + CURVES_KEPT {
                rollout.cost_to_go = vec![v0];
            }
        }
        Ok(Sample { index, v0, v0_predicted: design.cost_to_go(0, &predicted), rollout, left_funnel })
    }

    /// The maps at the scenario's pre-capture state: name, post-capture state, difference from
    /// the constrained impulse (relative).
    fn maps(&self) -> Result<Vec<(&'static str, PostCapture, f64)>, String> {
        let reference = self.map.constrained(&self.v_c, &self.v_t)?;
        let size = reference.chaser.norm().max(f64::MIN_POSITIVE);
        let mut maps = vec![("constrained impulse (eq. 5)", reference.clone(), 0.0)];
        for (name, post) in [
            ("eq. 18, GJM with momentum term", self.map.eq18(&self.v_c, &self.v_t, Slaving::Gjm)),
            ("eq. 18 as written (zero momentum)", self.map.eq18(&self.v_c, &self.v_t, Slaving::GjmZeroMomentum)),
            ("eq. 23, measured impulse", self.map.eq23(&self.v_c, &self.v_t, &reference.impulse)),
            ("chaser-side impulse map", self.map.from_impulse(&self.v_c, &reference.impulse)),
        ] {
            let post = post?;
            let diff = (&post.chaser - &reference.chaser).norm() / size;
            maps.push((name, post, diff));
        }
        Ok(maps)
    }

    /// Samples `range` against `design` (and `funnel`, for the verification samples) on the
    /// threads of `pool`, in index order whatever their count; `tick` after each.
    fn samples(
        &self,
        pool: &rayon::ThreadPool,
        design: &Design,
        range: std::ops::Range<u64>,
        funnel: Option<&Funnel>,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<Sample>, String> {
        pool.install(|| {
            range
                .into_par_iter()
                .map(|i| {
                    let s = self.sample(design, i, funnel);
                    tick();
                    s
                })
                .collect()
        })
    }

    /// The detumble controller of the scenario's capture: the TVLQR designed along the nominal
    /// post-capture trajectory, its nominal rollout (which must succeed) and its funnel estimated
    /// from the `capture.roa.samples` sampled captures, on `threads` threads (the result does
    /// not depend on the count).
    pub fn controller(&self, threads: usize) -> Result<Controller, String> {
        let pool = crate::thread_pool(threads)?;
        self.controller_on(&pool, &|| {})
    }

    /// The design, its nominal rollout and the `capture.roa.samples` estimation samples the
    /// funnel is chosen from, on `threads` threads: what [`CaptureStudy::controller`] builds on,
    /// for a caller that looks at the samples themselves (e.g. [`late::late`] on them).
    pub fn estimate(&self, threads: usize) -> Result<(Design, Rollout, Vec<Sample>), String> {
        let pool = crate::thread_pool(threads)?;
        self.estimate_on(&pool, &|| {})
    }

    fn estimate_on(
        &self,
        pool: &rayon::ThreadPool,
        tick: &(dyn Fn() + Sync),
    ) -> Result<(Design, Rollout, Vec<Sample>), String> {
        let reference = self.map.constrained(&self.v_c, &self.v_t)?;
        let x0 = self.state(self.joint_angles(), &reference.chaser);
        let design = detumble::design(&self.plant, &x0, &self.spec)?;
        let nominal = detumble::rollout(&self.plant, &design, &x0);
        if !nominal.success {
            return Err(format!(
                "the nominal capture does not detumble: {} (raise the limits or the horizon, or capture more gently)",
                nominal.failure.as_deref().unwrap_or("")
            ));
        }
        let estimation = self.samples(pool, &design, 0..self.roa.samples, None, tick)?;
        Ok((design, nominal, estimation))
    }

    fn controller_on(&self, pool: &rayon::ThreadPool, tick: &(dyn Fn() + Sync)) -> Result<Controller, String> {
        let (design, nominal, estimation) = self.estimate_on(pool, tick)?;
        let rollouts: Vec<&Rollout> = estimation.iter().map(|s| &s.rollout).collect();
        let funnel = detumble::funnel(&rollouts, self.roa.false_safe).map_err(|e| {
            // An empty funnel whose failures only ran out of time says so, with the horizon.
            match late::late(&design, rollouts.iter().copied()) {
                Some(l) => format!("{e}. {}", l.message()),
                None => e,
            }
        })?;
        Ok(Controller { design, nominal, funnel, estimation })
    }

    /// Whether `other` (a dispersed copy of this study) asks for a verdict that this study's
    /// design covers: the same target, and joint angles within `capture.roa.joint_angle_spread`;
    /// the error names the key.
    pub fn covers(&self, other: &CaptureStudy) -> Result<(), String> {
        let (a, b) = (&self.target, &other.target);
        if a.mass != b.mass || a.inertia != b.inertia || a.grapple != b.grapple {
            return Err(format!(
                "capture.target: the design is for the nominal target ({} kg, its inertia and grapple); a verdict for \
                 another target ({} kg) is refused: design one for it",
                a.mass, b.mass
            ));
        }
        if self.grasp != other.grasp || self.tool != other.tool {
            return Err("capture.grasp: the design is for the nominal grasp; a verdict at another is refused".into());
        }
        tumble_control::capture_check::covers_pose(
            self.joint_angles(),
            self.roa.joint_angle_spread,
            &self.joint_names,
            other.joint_angles(),
        )
        .map_err(|e| format!("arm.q: {e}"))
    }

    /// Runs the study on `threads` threads (results do not depend on the count), calling
    /// `progress(done, total)`.
    pub fn run(&self, threads: usize, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<CaptureReport, String> {
        let maps = self.maps()?;
        let (n_est, n_ver) = (self.roa.samples, self.roa.verify);
        let total = n_est + n_ver;
        let done = std::sync::atomic::AtomicU64::new(0);
        let tick = || progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
        let pool = crate::thread_pool(threads)?;
        // The funnel first, from the estimation samples; then the checks against it.
        let Controller { design, nominal, funnel, estimation } = self.controller_on(&pool, &tick)?;
        let verification = self.samples(&pool, &design, n_est..total, Some(&funnel), &tick)?;
        let online = match &self.measured_impulse {
            Some(i) => {
                let x = self.predict(self.joint_angles(), &self.v_c, &self.v_t, i)?;
                Some((design.cost_to_go(0, &x), detumble::rollout(&self.plant, &design, &x)))
            }
            None => None,
        };
        Ok(CaptureReport { maps, design, nominal, funnel, estimation, verification, online })
    }
}

/// The confusion matrix of the verdict `V₀(predicted) < ρ₀` against the detumble outcome.
pub fn confusion(samples: &[Sample], rho0: f64) -> [[u64; 2]; 2] {
    let mut m = [[0u64; 2]; 2];
    for s in samples {
        let safe = s.v0_predicted < rho0;
        m[usize::from(!safe)][usize::from(!s.rollout.success)] += 1;
    }
    m
}

/// Writes `summary.json`, `samples.csv`, `design.json` (the saved design an online check
/// loads: [`tumble_control::capture_check::DesignFile`]), plots and `animation.glb` (the nominal
/// detumble) into `dir`; returns the summary.
pub fn write_capture(dir: &Path, study: &CaptureStudy, rep: &CaptureReport) -> Result<Value, String> {
    let out = crate::outputs::RunDir::create(dir)?;
    let rho0 = rep.funnel.rho0;
    let body = |w: &mut std::io::BufWriter<tumble_math::output::FileOut>| -> std::io::Result<()> {
        writeln!(
            w,
            "set,index,V0,V0_predicted,margin,predicted_safe,detumbled,max_excursion_rad,final_rate_rad_s,failure"
        )?;
        for (set, samples) in [("estimation", &rep.estimation), ("verification", &rep.verification)] {
            for s in samples.iter() {
                writeln!(
                    w,
                    "{set},{},{:e},{:e},{:e},{},{},{:e},{:e},{}",
                    s.index,
                    s.v0,
                    s.v0_predicted,
                    s.v0_predicted / rho0,
                    s.v0_predicted < rho0,
                    s.rollout.success,
                    s.rollout.max_excursion,
                    s.rollout.final_rate,
                    s.rollout.failure.as_deref().unwrap_or("").replace(',', ";")
                )?;
            }
        }
        Ok(())
    };
    out.csv("samples.csv", body)?;
    plots::write(dir, rep)?;
    plots::animation(study, rep).write_glb(&dir.join("animation.glb"))?;
    let summary = summary(study, rep);
    out.json("summary.json", &summary)?;
    tumble_control::capture_check::write_design(
        &dir.join("design.json"),
        &study.design_file(&rep.design, &rep.funnel),
    )?;
    Ok(summary)
}

/// The study's `summary.json`: the maps, the nominal, the funnel, the online check and the
/// verification's confusion matrix.
fn summary(study: &CaptureStudy, rep: &CaptureReport) -> Value {
    let rho0 = rep.funnel.rho0;
    let m = confusion(&rep.verification, rho0);
    let false_safe: Vec<Value> = rep
        .verification
        .iter()
        .filter(|s| s.v0_predicted < rho0 && !s.rollout.success)
        .map(|s| json!({"index": s.index, "margin": s.v0_predicted / rho0, "failure": s.rollout.failure}))
        .collect();
    let maps: Vec<Value> = rep
        .maps
        .iter()
        .map(|(name, p, diff)| {
            json!({"map": name, "chaser_velocity": p.chaser.as_slice(), "target_velocity": p.target.as_slice(),
                   "impulse": p.impulse.as_slice(), "relative_difference": diff, "rcond": p.rcond})
        })
        .collect();
    let n = rep.verification.len() as f64;
    let escapes = rep.verification.iter().filter(|s| s.left_funnel).count();
    json!({
        "scenario": study.name,
        "seed": study.seed,
        "maps": maps,
        "nominal": {
            "post_capture_state": rep.design.x_nom[0].as_slice(),
            "V0": rep.nominal.cost_to_go[0],
            "margin": rep.nominal.cost_to_go[0] / rho0,
            "detumbled": rep.nominal.success,
            "max_excursion_rad": rep.nominal.max_excursion,
        },
        "funnel": {
            "rho0": rho0,
            "rule": "the largest V0 level below which at most false_safe of the estimation samples failed",
            "false_safe": rep.funnel.false_safe,
            "bounded_by_a_failure": rep.funnel.bounded,
            "samples": rep.estimation.len(),
            "failures": rep.estimation.iter().filter(|s| !s.rollout.success).count(),
            "inside": rep.funnel.inside,
            "failures_inside": rep.funnel.failures_inside,
            "joint_angle_spread_rad": study.roa.joint_angle_spread,
            "estimation": confusion_json(&confusion(&rep.estimation, rho0), rep.estimation.len()),
            "late_failures": late::late(&rep.design, rep.estimation.iter().map(|s| &s.rollout)).map(|l| l.json()),
        },
        "verdict_map": format!("{:?}", study.verdict_map).to_lowercase(),
        "online_check": rep.online.as_ref().map(|(v0, r)| json!({
            "measured_impulse": study.measured_impulse.as_ref().map(|i| i.as_slice().to_vec()),
            "V0": v0,
            "margin": v0 / rho0,
            "predicted_safe": *v0 < rho0,
            "detumbled_from_the_predicted_state": r.success,
            "failure": r.failure,
        })),
        "verification": {
            "samples": rep.verification.len(),
            "predicted_safe_detumbled": m[0][0],
            "predicted_safe_failed": m[0][1],
            "predicted_unsafe_detumbled": m[1][0],
            "predicted_unsafe_failed": m[1][1],
            "false_safe_rate": if n > 0.0 { m[0][1] as f64 / n } else { 0.0 },
            "false_safe": false_safe,
            "started_inside_and_left_the_funnel": escapes,
        },
    })
}

/// A confusion matrix of `n` samples as JSON.
fn confusion_json(m: &[[u64; 2]; 2], n: usize) -> Value {
    json!({
        "samples": n,
        "predicted_safe_detumbled": m[0][0],
        "predicted_safe_failed": m[0][1],
        "predicted_unsafe_detumbled": m[1][0],
        "predicted_unsafe_failed": m[1][1],
    })
}
