//! What an arm's capture of a payload did, typed: the run's `summary.json`, a campaign's row
//! and the headline `tumble run` prints all come from [`GrappleSummary`].

use super::{GrappleCapture, GrappleRun, GrappleSample, outcome};
use crate::outputs::{first_last, vec3};
use serde::Serialize;
use std::path::Path;
use tumble_dynamics::multibody::Joint;

/// The figures of one capture (SI units, named with them; angles in degrees).
#[derive(Clone, Debug, Serialize)]
pub struct GrappleSummary {
    /// Scenario name.
    pub scenario: String,
    /// How it ended ([`outcome`]).
    pub outcome: String,
    /// Why the effector gave up, if it did.
    pub capture_failure: Option<String>,
    /// Why the run stopped early, if it did.
    pub diagnosis: Option<String>,
    /// Time of the last sample, s.
    pub final_time_s: f64,
    /// When the snare started closing, s.
    pub closing_started_s: Option<f64>,
    /// When the payload was captured, s.
    pub captured_s: Option<f64>,
    /// When the capture was rigidised, s.
    pub rigidised_s: Option<f64>,
    /// Where the shaft met the single wire, m along it.
    pub wire_contact_position_m: Option<f64>,
    /// The wire's slack limit `Q` there, m.
    pub slack_limit_Q_m: Option<f64>,
    /// Deepest penetration into the wire, m.
    pub max_penetration_m: f64,
    /// Largest wire force on the payload, N.
    pub peak_wire_force_N: f64,
    /// Largest force of the effector's face, N.
    pub peak_face_force_N: f64,
    /// Impulse the wires gave the payload, N·s (world).
    pub impulse_Ns: [f64; 3],
    /// Payload velocity at the start, m/s.
    pub payload_velocity_initial_m_s: [f64; 3],
    /// Payload velocity at the end, m/s.
    pub payload_velocity_final_m_s: [f64; 3],
    /// Payload angular velocity at the end, rad/s.
    pub payload_angular_velocity_final_rad_s: [f64; 3],
    /// Payload roll, pitch and yaw at the end, deg.
    pub payload_attitude_final_deg: [f64; 3],
    /// Largest excursion of any arm joint from its start, deg.
    pub largest_joint_excursion_deg: f64,
    /// The closest any joint with limits (`arm.joints.limits`) came to one of them over the
    /// run, deg or m (negative: beyond it); `None` when no joint has limits.
    pub joint_limit_margin: Option<f64>,
    /// Energy at the start, J.
    pub energy_initial_J: f64,
    /// Energy at the end, J.
    pub energy_final_J: f64,
    /// Wall-clock time, s.
    pub wall_time_s: f64,
    /// Simulated over wall-clock time.
    pub real_time_factor: f64,
}

impl GrappleSummary {
    /// The summary of `run` of `cap`.
    pub fn new(cap: &GrappleCapture, run: &GrappleRun) -> Result<Self, String> {
        let (first, last) = first_last(&run.samples)?;
        let norm = |v: &[f64; 3]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let excursion =
            run.samples.iter().flat_map(|s| s.q.iter().zip(&first.q).map(|(a, b)| (a - b).abs().to_degrees()));
        Ok(Self {
            scenario: cap.name.clone(),
            outcome: outcome(cap, run).into(),
            capture_failure: run.failure.clone(),
            diagnosis: run.diagnosis.as_ref().map(|d| d.to_string()),
            final_time_s: last.t,
            closing_started_s: run.closing_started,
            captured_s: run.captured_at,
            rigidised_s: run.rigidised_at,
            wire_contact_position_m: run.wire.as_ref().map(|w| w.position),
            slack_limit_Q_m: run.wire.as_ref().map(|w| w.slack),
            max_penetration_m: run.max_penetration,
            peak_wire_force_N: run.samples.iter().map(|s| norm(&s.wire_force)).fold(0.0, f64::max),
            peak_face_force_N: run.samples.iter().map(|s| s.face_force).fold(0.0, f64::max),
            impulse_Ns: last.impulse,
            payload_velocity_initial_m_s: first.velocity,
            payload_velocity_final_m_s: last.velocity,
            payload_angular_velocity_final_rad_s: last.omega,
            payload_attitude_final_deg: last.attitude.map(f64::to_degrees),
            largest_joint_excursion_deg: excursion.fold(0.0, f64::max),
            joint_limit_margin: limit_margin(cap, run),
            energy_initial_J: first.energy,
            energy_final_J: last.energy,
            wall_time_s: run.wall_s,
            real_time_factor: last.t / run.wall_s.max(1e-9),
        })
    }

    /// The line `tumble run` prints, with the output folder `out`.
    pub fn headline(&self, out: &Path) -> String {
        format!(
            "{}: {} — peak wire force {:.1} N, impulse {} N·s, payload velocity {} → {} m/s, attitude {} deg, largest joint excursion {:.3} deg; t = {:.4} s in {:.2} s wall ({:.0}× real time); outputs in {}",
            self.scenario,
            self.outcome,
            self.peak_wire_force_N,
            vec3(&self.impulse_Ns),
            vec3(&self.payload_velocity_initial_m_s),
            vec3(&self.payload_velocity_final_m_s),
            vec3(&self.payload_attitude_final_deg),
            self.largest_joint_excursion_deg,
            self.final_time_s,
            self.wall_time_s,
            self.real_time_factor,
            out.display()
        )
    }
}

/// The smallest distance of any limited joint from its nearest limit over the run (degrees for
/// a revolute joint, metres for a prismatic one).
fn limit_margin(cap: &GrappleCapture, run: &GrappleRun) -> Option<f64> {
    let mb = &cap.arm.system.model;
    let limited: Vec<(usize, f64, f64, f64)> = (0..mb.links.len())
        .filter(|&l| mb.links[l].joint.nv() == 1)
        .filter_map(|l| {
            let k = mb.v_index(l);
            let (lo, hi, ..) = cap.arm.system.joint_forces.get(k)?.as_ref()?.limits?;
            let scale =
                if matches!(mb.links[l].joint, Joint::Revolute(_)) { 180.0 / std::f64::consts::PI } else { 1.0 };
            Some((mb.q_index(k), lo, hi, scale))
        })
        .collect();
    if limited.is_empty() {
        return None;
    }
    let margin = |s: &GrappleSample| {
        limited.iter().map(|&(i, lo, hi, scale)| scale * (s.q[i] - lo).min(hi - s.q[i])).fold(f64::INFINITY, f64::min)
    };
    Some(run.samples.iter().map(margin).fold(f64::INFINITY, f64::min))
}
