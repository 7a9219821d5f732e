//! Sampled detumbles that ran out of time: how many, how far from the goal, and the horizon the
//! controller's slowest mode needs to bring them there.
//!
//! A TVLQR detumble that stays within its joint range and its input limits ends like its
//! closed loop at rest: the last of the tumble decays as `e^{−σ t}` with `σ` the slowest mode's
//! decay rate. A sample that ends at `r` times its goal (`rate / goal_rate`, `speed /
//! goal_speed`) then needs about `ln(r) / σ` more seconds. Heavier targets slow the closed loop
//! (the same weights over a larger inertia), so a horizon that suits a 500 kg target leaves
//! most captures of a 2,000 kg one just short of the goal: the funnel then shrinks for a reason
//! that is the horizon, not the capture.

use super::detumble::{Design, Rollout};
use serde_json::{Value, json};

/// The failures of a sample set that were late, not lost.
#[derive(Clone, Debug, PartialEq)]
pub struct Late {
    /// Failures that ran the whole horizon within the joint range and missed the goal.
    pub late: usize,
    /// All failures.
    pub failed: usize,
    /// The largest goal ratio of the late failures (`rate / goal_rate` or `speed / goal_speed`,
    /// the larger).
    pub ratio: f64,
    /// Decay rate of the slowest closed-loop mode, 1/s.
    pub decay: f64,
    /// The design's horizon, s.
    pub horizon: f64,
    /// The horizon that would bring every late failure to the goal if the last of its tumble
    /// decayed at the slowest mode's rate: `horizon + ln(ratio)/decay`, s. Saturation early in a
    /// detumble delays it further, so a study at this horizon may still find a few late.
    pub advised: f64,
}

/// The late failures of `rollouts` under `design`, when at least half of the failures are late.
pub fn late<'a>(design: &Design, rollouts: impl Iterator<Item = &'a Rollout>) -> Option<Late> {
    let (mut failed, mut late, mut ratio) = (0, 0, 0.0f64);
    for r in rollouts.filter(|r| !r.success) {
        failed += 1;
        if r.goal_ratio.is_finite() {
            late += 1;
            ratio = ratio.max(r.goal_ratio);
        }
    }
    let decay = design.slowest_decay;
    if late == 0 || 2 * late < failed || !(decay > 0.0 && decay.is_finite()) {
        return None;
    }
    let horizon = design.spec.horizon;
    let advised = horizon + ratio.max(1.0).ln() / decay;
    Some(Late { late, failed, ratio, decay, horizon, advised })
}

impl Late {
    /// The finding in words.
    pub fn message(&self) -> String {
        format!(
            "{} of {} sampled failures were still turning or drifting at the horizon ({} s), all within {:.2}× the \
             goal: the detumble's slowest closed-loop mode decays at {:.3e} 1/s (time constant {:.0} s), so a horizon \
             of about {:.0} s (simulation.duration) would bring them to the goal; faster weights (a smaller \
             capture.control.rate_scale or speed_scale) shorten it",
            self.late,
            self.failed,
            self.horizon,
            self.ratio,
            self.decay,
            1.0 / self.decay,
            self.advised.ceil()
        )
    }

    /// The finding for `summary.json`.
    pub fn json(&self) -> Value {
        json!({"late": self.late, "failed": self.failed, "largest_goal_ratio": self.ratio,
               "slowest_decay_per_s": self.decay, "horizon_s": self.horizon, "advised_horizon_s": self.advised,
               "message": self.message()})
    }
}
