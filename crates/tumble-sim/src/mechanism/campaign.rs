//! Mechanism campaigns: a run's row holds each moving body's final position and velocity and
//! its peak contact force, the contact count at the end and at its peak, and the energy; with a
//! snare, when it closed, captured and rigidised and its peak loads; with a berthing, when the
//! latches drove, captured and berthed, the peak hook and feature loads, and the capture
//! envelope: the first two dispersed values, berthed or not, as a plot.

use super::{Mechanism, MechanismSummary, write_mechanism_run};
use crate::campaign::{Campaign, CampaignKind, Finished, RunRow};
use crate::scenario::Scenario;
use serde_json::{Value, json};
use std::path::Path;

/// Rigid bodies in contact through the interference engine (`kind = "mechanism"`). Status:
/// `in_contact` (contacts at the end), `free` or `failed`; with a snare, its outcome (`open`,
/// `closing`, `captured`, `rigidised`, `missed` or `failed`, the reason in the note).
pub struct MechanismRuns {
    /// Names of the bodies that move (free or carried by the arm), in body order.
    moving: Vec<String>,
    /// Whether the mechanism has a snare.
    snare: bool,
    /// The berthing's carrier feature groups, if it has a berthing.
    berthing: Option<Vec<String>>,
}

/// A berthing's columns before its feature groups' peak loads.
const BERTHING_COLUMNS: [&str; 6] = [
    "berthing.drive [s]",
    "berthing.captured [s]",
    "berthing.berthed [s]",
    "berthing.peak_hook_load [N]",
    "berthing.peak_motor_torque [N·m]",
    "berthing.rtli_tripped_peak",
];

/// A snare's columns.
const SNARE_COLUMNS: [&str; 6] = [
    "snare.triggered [s]",
    "snare.captured [s]",
    "snare.rigidised [s]",
    "snare.peak_wire_force [N]",
    "snare.peak_face_load [N]",
    "snare.closed_angle [deg]",
];

impl MechanismRuns {
    /// The runs of `sc`, whose moving bodies name the columns.
    pub fn new(sc: &Scenario) -> Result<Self, String> {
        let m = Mechanism::build(sc).map_err(|e| e.to_string())?;
        let moving = m.bodies.iter().filter(|b| b.moves()).map(|b| b.name.clone()).collect();
        let berthing = m.berthing.as_ref().map(|b| b.groups.0.clone());
        Ok(Self { moving, snare: m.snare.is_some(), berthing })
    }
}

impl CampaignKind for MechanismRuns {
    fn statuses(&self) -> &'static [&'static str] {
        &["in_contact", "free", "open", "closing", "captured", "rigidised", "missed", "capturing", "berthed"]
    }

    fn columns(&self) -> Vec<String> {
        let per_body = ["x [m]", "y [m]", "z [m]", "vx [m/s]", "vy [m/s]", "vz [m/s]", "peak_contact_force [N]"];
        let mut c: Vec<String> =
            ["final_time [s]", "contacts_final", "contacts_peak", "energy_initial [J]", "energy_final [J]"]
                .map(String::from)
                .into();
        for b in &self.moving {
            c.extend(per_body.iter().map(|n| format!("{b}.{n}")));
        }
        if self.snare {
            c.extend(SNARE_COLUMNS.map(String::from));
        }
        if let Some(groups) = &self.berthing {
            c.extend(BERTHING_COLUMNS.map(String::from));
            c.extend(groups.iter().map(|g| format!("berthing.peak_load.{g} [N]")));
        }
        c
    }

    fn check(&self, sc: &Scenario) -> Result<(), String> {
        Mechanism::build(sc).map(|_| ()).map_err(|e| e.to_string())
    }

    fn run(&self, sc: &Scenario, dir: Option<&Path>) -> Result<Finished, String> {
        let m = Mechanism::build(sc).map_err(|e| e.to_string())?;
        let run = m.run();
        let s = match dir {
            Some(dir) => write_mechanism_run(dir, &m, &run)?,
            None => MechanismSummary::new(&m, &run)?,
        };
        let mut results =
            vec![s.final_time_s, s.contacts_final as f64, s.contacts_peak as f64, s.energy_initial_J, s.energy_final_J];
        for name in &self.moving {
            let b = s.bodies.get(name).ok_or_else(|| format!("the run has no moving body `{name}`"))?;
            results.extend(b.position_final_m.iter().chain(&b.velocity_final_m_s));
            results.push(b.peak_contact_force_N);
        }
        let mut status = if s.contacts_final > 0 { "in_contact" } else { "free" };
        let mut reason = None;
        if self.snare {
            let sn = s.snare.as_ref().ok_or("the run has no snare record")?;
            let t = |x: Option<f64>| x.unwrap_or(f64::NAN);
            results.extend([t(sn.triggered_s), t(sn.captured_s), t(sn.rigidised_s)]);
            results.extend([sn.peak_wire_force_N, sn.peak_face_load_N, t(sn.closed_angle_deg)]);
            (status, reason) = (sn.outcome, sn.reason.clone());
        }
        if self.berthing.is_some() {
            let b = s.berthing.as_ref().ok_or("the run has no berthing record")?;
            let t = |x: Option<f64>| x.unwrap_or(f64::NAN);
            let max = |v: &[f64]| v.iter().fold(0.0, |a: f64, b| a.max(*b));
            results.extend([t(b.drive_s), t(b.captured_s), t(b.berthed_s)]);
            results.extend([max(&b.peak_hook_load_N), max(&b.peak_motor_torque_N_m), b.rtli_tripped_peak as f64]);
            let groups = self.berthing.as_deref().unwrap_or_default();
            results.extend(groups.iter().map(|g| b.peak_group_load_N.get(g).copied().unwrap_or(f64::NAN)));
            // Not captured (still approaching, or a latch closed on nothing): missed.
            status = match b.outcome {
                "approach" | "failed" => "missed",
                other => other,
            };
            reason = b.reason.clone();
        }
        let mut done = Finished::new(status, results, s.diagnosis);
        if let (Some(why), true) = (reason, done.note.is_empty()) {
            done.note = why;
        }
        Ok(done)
    }

    fn report(&self, c: &Campaign, rows: &[RunRow], plots: &Path) -> Result<Value, String> {
        if self.berthing.is_none() {
            return Ok(Value::Null);
        }
        envelope(c, rows, plots)
    }
}

/// The capture envelope: each run at its first two dispersed values, berthed or not.
fn envelope(c: &Campaign, rows: &[RunRow], plots: &Path) -> Result<Value, String> {
    let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
    let summary = json!({
        "berthed": count("berthed"),
        "captured_not_at_rest": count("captured"),
        "still_capturing": count("capturing"),
        "missed": count("missed"),
    });
    let [a, b] = match c.dispersions.as_slice() {
        [a, b, ..] => [a, b],
        _ => return Ok(summary),
    };
    let value = |r: &RunRow, i: usize| r.values.get(i).and_then(|v| v.trim().parse::<f64>().ok());
    let points = |berthed: bool| -> Vec<(f64, f64)> {
        rows.iter()
            .filter(|r| (r.status == "berthed") == berthed && r.status != "invalid")
            .filter_map(|r| Some((value(r, 0)?, value(r, 1)?)))
            .collect()
    };
    let (yes, no) = (points(true), points(false));
    crate::plot::scatter_groups(
        &plots.join("capture_envelope"),
        &format!("Capture envelope: {} of {} runs berthed", yes.len(), yes.len() + no.len()),
        &a.key,
        &b.key,
        &[("berthed", &yes), ("not berthed", &no)],
    )?;
    Ok(summary)
}
