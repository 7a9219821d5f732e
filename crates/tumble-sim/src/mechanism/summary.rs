//! What a mechanism run did, typed: the run's `summary.json`, a campaign's row and the headline
//! `tumble run` prints all come from [`MechanismSummary`].

use super::{MechRun, Mechanism, SnareLog, SnareSample};
use crate::outputs::{first_last, vec3};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// The end of one moving body (world axes, SI units).
#[derive(Clone, Debug, Serialize)]
pub struct BodyEnd {
    /// Centre of mass at the end, m.
    pub position_final_m: [f64; 3],
    /// Velocity at the end, m/s.
    pub velocity_final_m_s: [f64; 3],
    /// Angular velocity at the end, rad/s.
    pub angular_velocity_final_rad_s: [f64; 3],
    /// Contact force at the end, N.
    pub contact_force_final_N: [f64; 3],
    /// Contact torque about the centre of mass at the end, N·m.
    pub contact_torque_final_N_m: [f64; 3],
    /// Largest contact force, N.
    pub peak_contact_force_N: f64,
}

/// The figures of one run.
#[derive(Clone, Debug, Serialize)]
pub struct MechanismSummary {
    /// Scenario name.
    pub scenario: String,
    /// Why the run stopped early, if it did.
    pub diagnosis: Option<String>,
    /// Time of the last sample, s.
    pub final_time_s: f64,
    /// Each moving body (free or carried by the arm) by name.
    pub bodies: BTreeMap<String, BodyEnd>,
    /// Contacts at the end.
    pub contacts_final: usize,
    /// Most contacts at once.
    pub contacts_peak: usize,
    /// `T + V_g + V_springs` of the free bodies at the start, J.
    pub energy_initial_J: f64,
    /// The same at the end, J.
    pub energy_final_J: f64,
    /// Primitives of all the bodies' contact models.
    pub primitives: usize,
    /// Wall-clock time, s.
    pub wall_time_s: f64,
    /// Simulated over wall-clock time.
    pub real_time_factor: f64,
    /// What the snare did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snare: Option<SnareSummary>,
    /// What the berthing did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub berthing: Option<super::latch::output::BerthingSummary>,
}

/// What a mechanism's snare did (see [`super::snare`]).
#[derive(Clone, Debug, Serialize)]
pub struct SnareSummary {
    /// `open`, `closing`, `captured`, `rigidised`, `missed` or `failed`.
    pub outcome: &'static str,
    /// Why it missed or failed.
    pub reason: Option<String>,
    /// When the closing started, s.
    pub triggered_s: Option<f64>,
    /// When the closing stopped with the shaft held, s.
    pub captured_s: Option<f64>,
    /// When the face carried the preload, s.
    pub rigidised_s: Option<f64>,
    /// Closing angle where the closing stopped, degrees.
    pub closed_angle_deg: Option<f64>,
    /// Largest contact force on one wire, N.
    pub peak_wire_force_N: f64,
    /// Largest sum of the wires' contact forces, N.
    pub peak_wire_sum_N: f64,
    /// Largest normal force on the face, N.
    pub peak_face_load_N: f64,
    /// Largest closing-motor torque, N·m.
    pub peak_motor_torque_N_m: f64,
    /// Largest axial tension of an identified wire, N (absent for wires with a lateral law).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_wire_tension_N: Option<f64>,
    /// Normal force on the face at the end, N.
    pub face_load_final_N: f64,
    /// Carriage retraction at the end, m.
    pub retraction_final_m: f64,
}

impl SnareSummary {
    fn new(log: &SnareLog, last: &SnareSample) -> Self {
        Self {
            outcome: log.outcome.name(),
            reason: log.reason.clone(),
            triggered_s: log.triggered_at,
            captured_s: log.captured_at,
            rigidised_s: log.rigidised_at,
            closed_angle_deg: log.closed_angle.map(f64::to_degrees),
            peak_wire_force_N: log.peak_wire,
            peak_wire_sum_N: log.peak_wires,
            peak_face_load_N: log.peak_face,
            peak_motor_torque_N_m: log.peak_torque,
            peak_wire_tension_N: log.peak_tension,
            face_load_final_N: last.face,
            retraction_final_m: last.retraction[0],
        }
    }
}

impl MechanismSummary {
    /// The summary of `run` of `m`.
    pub fn new(m: &Mechanism, run: &MechRun) -> Result<Self, String> {
        let (first, last) = first_last(&run.samples)?;
        let xyz = |v: &tumble_math::Vec3| [v.x, v.y, v.z];
        let bodies = (0..m.bodies.len())
            .filter(|&i| m.bodies[i].moves())
            .map(|i| {
                let b = &last.bodies[i];
                let end = BodyEnd {
                    position_final_m: xyz(&b[0]),
                    velocity_final_m_s: xyz(&b[1]),
                    angular_velocity_final_rad_s: xyz(&b[2]),
                    contact_force_final_N: xyz(&b[3]),
                    contact_torque_final_N_m: xyz(&b[4]),
                    peak_contact_force_N: run.samples.iter().map(|s| s.bodies[i][3].norm()).fold(0.0, f64::max),
                };
                (m.bodies[i].name.clone(), end)
            })
            .collect();
        Ok(Self {
            scenario: m.name.clone(),
            diagnosis: run.diagnosis.as_ref().map(|d| d.to_string()),
            final_time_s: last.t,
            bodies,
            contacts_final: last.contacts,
            contacts_peak: run.samples.iter().map(|s| s.contacts).max().unwrap_or(0),
            energy_initial_J: first.energy,
            energy_final_J: last.energy,
            primitives: m.bodies.iter().map(|b| b.model.primitive_count()).sum(),
            wall_time_s: run.wall_s,
            real_time_factor: last.t / run.wall_s.max(1e-9),
            snare: run.snare.as_ref().zip(last.snare.as_ref()).map(|(log, s)| SnareSummary::new(log, s)),
            berthing: match (&m.berthing, &run.berthing, &last.berthing) {
                (Some(b), Some(log), Some(s)) => Some(super::latch::output::BerthingSummary::new(b, log, s)),
                _ => None,
            },
        })
    }

    /// The line `tumble run` prints, with the output folder `out`.
    pub fn headline(&self, out: &Path) -> String {
        let bodies: Vec<String> = self
            .bodies
            .iter()
            .map(|(name, b)| {
                format!(
                    "{name} at {} m, v {} m/s, contact force {} N (peak {:.1} N)",
                    vec3(&b.position_final_m),
                    vec3(&b.velocity_final_m_s),
                    vec3(&b.contact_force_final_N),
                    b.peak_contact_force_N
                )
            })
            .collect();
        let snare = self.snare.as_ref().map_or(String::new(), |s| {
            let at = |t: Option<f64>| t.map_or("-".into(), |t| format!("{t:.2} s"));
            format!(
                "; snare {} (triggered {}, captured {}, rigidised {}; peak wire {:.0} N, face {:.0} N){}",
                s.outcome,
                at(s.triggered_s),
                at(s.captured_s),
                at(s.rigidised_s),
                s.peak_wire_force_N,
                s.peak_face_load_N,
                s.reason.as_ref().map_or(String::new(), |r| format!(": {r}"))
            )
        });
        let berthing = self.berthing.as_ref().map_or(String::new(), |b| b.headline());
        format!(
            "{}: {}{snare}{berthing}; {} contacts at the end (peak {}), {} primitives; energy {:.4} → {:.4} J; t = {:?} s in {:.3} s wall ({:.0}× real time); outputs in {}",
            self.scenario,
            bodies.join("; "),
            self.contacts_final,
            self.contacts_peak,
            self.primitives,
            self.energy_initial_J,
            self.energy_final_J,
            self.final_time_s,
            self.wall_time_s,
            self.real_time_factor,
            out.display()
        )
    }
}
