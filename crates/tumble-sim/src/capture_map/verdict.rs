//! The verdict on one capture (the capture document's eq. 30): the detumble controller built
//! once for the scenario's nominal capture, then, for any pre-capture state, the post-capture
//! state by the constrained impulse, its cost-to-go `V₀ = x₀ᵀS₀x₀`, the one predicted from the
//! measured impulse, the verdict `V₀(predicted) < ρ₀` and the detumble that proves it right or
//! wrong.

use super::detumble::{self, Design, Funnel, Rollout};
use super::{CaptureStudy, Sample};
use tumble_math::nalgebra::DVector;

/// The detumble controller a verdict is judged by.
pub struct Controller {
    /// TVLQR designed along the nominal post-capture trajectory.
    pub design: Design,
    /// The rollout of the nominal capture (it succeeded).
    pub nominal: Rollout,
    /// Funnel `ρ(t)` estimated from the sampled captures.
    pub funnel: Funnel,
    /// The samples the funnel was estimated from.
    pub estimation: Vec<Sample>,
}

/// The verdict on one capture.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// Post-capture state `x₀ = [θ; v]` by the constrained impulse (the truth).
    pub state: DVector<f64>,
    /// The impulse on the chaser that the constrained capture exchanges, `[N·s; N·m·s about
    /// the grasp point]`, world axes.
    pub impulse: DVector<f64>,
    /// `V₀` of the true post-capture state.
    pub v0: f64,
    /// `V₀` predicted from the pre-capture velocities and the measured impulse.
    pub v0_predicted: f64,
    /// The funnel's inlet `ρ₀`.
    pub rho0: f64,
    /// The verdict: `V₀(predicted) < ρ₀`, the detumble is predicted to succeed.
    pub safe: bool,
    /// The detumble from the true post-capture state.
    pub rollout: Rollout,
}

impl CaptureStudy {
    /// The verdict of `controller` on a capture from chaser velocities `v_c` (the arm's `nv`:
    /// base `[ω; v]` then joint rates, rad/s and m/s) and target velocities `v_t` (`[v_G; ω]`,
    /// m/s and rad/s, world axes), with the impulse measured at the grasp `measured` (six
    /// numbers, as [`Verdict::impulse`]) or, when `None`, the true one.
    pub fn verdict(
        &self,
        controller: &Controller,
        v_c: &DVector<f64>,
        v_t: &DVector<f64>,
        measured: Option<&DVector<f64>>,
    ) -> Result<Verdict, String> {
        self.verdict_at(controller, self.joint_angles(), v_c, v_t, measured)
    }

    /// [`CaptureStudy::verdict`] for a capture at joint angles `theta` (rad): refused, naming the
    /// joint, when they are further from the design's pose than `capture.roa.joint_angle_spread`
    /// (the range its funnel was sampled over); the truth is mapped at `theta`, the prediction by
    /// the design's map.
    pub fn verdict_at(
        &self,
        controller: &Controller,
        theta: &[f64],
        v_c: &DVector<f64>,
        v_t: &DVector<f64>,
        measured: Option<&DVector<f64>>,
    ) -> Result<Verdict, String> {
        tumble_control::capture_check::covers_pose(
            self.joint_angles(),
            self.roa.joint_angle_spread,
            &self.joint_names,
            theta,
        )?;
        let nv = self.chaser.nv();
        if v_c.len() != nv || v_t.len() != 6 || measured.is_some_and(|m| m.len() != 6) {
            return Err(format!(
                "a verdict needs {nv} chaser velocities, 6 target velocities and 6 impulse components; got {}, {} and {}",
                v_c.len(),
                v_t.len(),
                measured.map_or(6, |m| m.len())
            ));
        }
        let design = &controller.design;
        if design.x_nom.first().is_none_or(|x| x.len() != self.plant.nx()) {
            return Err("the controller was designed for another arm (another number of joints)".into());
        }
        let truth = self.map_at(theta)?.constrained(v_c, v_t)?;
        let predicted = self.predict(theta, v_c, v_t, measured.unwrap_or(&truth.impulse))?;
        let state = self.state(theta, &truth.chaser);
        let v0 = design.cost_to_go(0, &state);
        let v0_predicted = design.cost_to_go(0, &predicted);
        let rho0 = controller.funnel.rho0;
        let rollout = detumble::rollout(&self.plant, design, &state);
        Ok(Verdict { state, impulse: truth.impulse, v0, v0_predicted, rho0, safe: v0_predicted < rho0, rollout })
    }
}

/// Writes the verdict of one capture into `dir`: `summary.json` and `plots/cost_to_go` (the
/// detumble's `xᵀS(t)x` against the funnel `ρ(t)`).
pub fn write_verdict(dir: &std::path::Path, study: &CaptureStudy, c: &Controller, v: &Verdict) -> Result<(), String> {
    use crate::plot::{Series, line_plot};
    let out = crate::outputs::RunDir::create(dir)?;
    let summary = serde_json::json!({
        "scenario": study.name,
        "post_capture_state": v.state.as_slice(),
        "impulse": v.impulse.as_slice(),
        "V0": v.v0,
        "V0_predicted": v.v0_predicted,
        "rho0": v.rho0,
        "margin": v.v0_predicted / v.rho0,
        "predicted_safe": v.safe,
        "detumbled": v.rollout.success,
        "failure": v.rollout.failure,
        "max_excursion_rad": v.rollout.max_excursion,
        "final_rate_rad_s": v.rollout.final_rate,
    });
    out.json("summary.json", &summary)?;
    let dt = c.design.spec.dt;
    let t = |n: usize| (0..n).map(|k| k as f64 * dt).collect::<Vec<_>>();
    let log = |v: &[f64]| v.iter().map(|x| x.max(f64::MIN_POSITIVE).log10()).collect::<Vec<_>>();
    let (tf, tr) = (t(c.funnel.rho.len()), t(v.rollout.cost_to_go.len()));
    let series = [
        Series { label: "funnel ρ(t)".into(), x: &tf, y: log(&c.funnel.rho) },
        Series { label: "xᵀS(t)x".into(), x: &tr, y: log(&v.rollout.cost_to_go) },
    ];
    line_plot(
        &out.plot("cost_to_go"),
        "Cost-to-go against the funnel",
        "time after capture (s)",
        "log10",
        &series,
        false,
    )
}
