//! A berthing's outputs: its `timeseries.csv` columns, `summary.json` block, headline and plots.

use super::berthing::{Berthing, BerthingLog, BerthingSample};
use crate::mechanism::MechRun;
use crate::outputs::RunDir;
use crate::plot::{Series, line_plot};
use serde::Serialize;

/// The berthing's columns: per latch its crank and hook angles, motor torque, hook load and its
/// pull along the berthing axis; per
/// indicator its state; per carrier feature group its normal load; the target's offset.
pub fn columns(b: &Berthing) -> Vec<String> {
    let mut out = Vec::new();
    for l in &b.latches {
        let n = &l.name;
        out.extend([
            format!("{n}.crank [deg]"),
            format!("{n}.hook [deg]"),
            format!("{n}.torque [N·m]"),
            format!("{n}.hook_load [N]"),
            format!("{n}.hook_pull [N]"),
        ]);
    }
    out.extend(b.rtlis.iter().map(|(_, name)| format!("{name} [1]")));
    out.extend(b.groups.0.iter().map(|g| format!("load.{g} [N]")));
    out.extend(["offset_axial [m]".into(), "offset_lateral [m]".into()]);
    out
}

/// A sample's values in [`columns`]' order.
pub fn row(s: &BerthingSample) -> Vec<f64> {
    let mut out = Vec::new();
    for l in &s.latches {
        out.extend([l[0].to_degrees(), l[1].to_degrees(), l[2], l[3], l[4]]);
    }
    out.extend(s.rtlis.iter().map(|&t| f64::from(u8::from(t))));
    out.extend(&s.groups);
    out.extend(s.offset);
    out
}

/// What a berthing did (`summary.json`'s `berthing`).
#[derive(Clone, Debug, Serialize)]
pub struct BerthingSummary {
    /// `approach` (not captured), `capturing`, `captured`, `berthed` or `failed`.
    pub outcome: &'static str,
    /// Why it missed or failed.
    pub reason: Option<String>,
    /// Events in order: time (s) and what happened.
    pub events: Vec<(f64, String)>,
    /// When the latches started driving, s.
    pub drive_s: Option<f64>,
    /// When each latch latched, s.
    pub latched_s: Vec<Option<f64>>,
    /// When every latch had latched, s.
    pub captured_s: Option<f64>,
    /// When the target came to rest captured, s.
    pub berthed_s: Option<f64>,
    /// Largest motor torque of each latch, N·m.
    pub peak_motor_torque_N_m: Vec<f64>,
    /// Largest hook load of each latch, N.
    pub peak_hook_load_N: Vec<f64>,
    /// Largest normal load on each of the carrier's feature groups, N.
    pub peak_group_load_N: std::collections::BTreeMap<String, f64>,
    /// Most indicators tripped at once.
    pub rtli_tripped_peak: usize,
    /// The target's offset from the carrier at the end, along the axis and across it, m.
    pub offset_final_m: [f64; 2],
}

impl BerthingSummary {
    /// The summary of a berthing's record and last sample.
    pub fn new(b: &Berthing, log: &BerthingLog, last: &BerthingSample) -> Self {
        Self {
            outcome: log.outcome.name(),
            reason: log.reason.clone(),
            events: log.events.clone(),
            drive_s: log.drive_at,
            latched_s: log.latched_at.clone(),
            captured_s: log.captured_at,
            berthed_s: log.berthed_at,
            peak_motor_torque_N_m: log.peak_torque.clone(),
            peak_hook_load_N: log.peak_hook.clone(),
            peak_group_load_N: b.groups.0.iter().cloned().zip(log.peak_group.iter().copied()).collect(),
            rtli_tripped_peak: log.rtli_peak,
            offset_final_m: last.offset,
        }
    }

    /// Its part of the headline.
    pub fn headline(&self) -> String {
        let at = |t: Option<f64>| t.map_or("-".into(), |t| format!("{t:.2} s"));
        let torque = self.peak_motor_torque_N_m.iter().fold(0.0, |a: f64, b| a.max(*b));
        let hook = self.peak_hook_load_N.iter().fold(0.0, |a: f64, b| a.max(*b));
        format!(
            "; berthing {} (latches drive {}, captured {}, berthed {}; peak motor {torque:.1} N·m, hook {hook:.0} N; offset {:.4} m axial, {:.4} m lateral){}",
            self.outcome,
            at(self.drive_s),
            at(self.captured_s),
            at(self.berthed_s),
            self.offset_final_m[0],
            self.offset_final_m[1],
            self.reason.as_ref().map_or(String::new(), |r| format!(": {r}"))
        )
    }
}

/// The berthing's plots: latch angles and motor torques, hook and feature loads, indicators.
pub(crate) fn plots(out: &RunDir, b: &Berthing, run: &MechRun, t: &[f64]) -> Result<(), String> {
    let col = |f: &dyn Fn(&BerthingSample) -> f64| {
        run.samples.iter().map(|s| s.berthing.as_ref().map_or(0.0, f)).collect::<Vec<f64>>()
    };
    let mut latches = Vec::new();
    let mut loads = Vec::new();
    for (i, l) in b.latches.iter().enumerate() {
        latches.push(Series {
            label: format!("{} hook [deg]", l.name),
            x: t,
            y: col(&|s| s.latches[i][1].to_degrees()),
        });
        latches.push(Series { label: format!("{} motor [N·m]", l.name), x: t, y: col(&|s| s.latches[i][2]) });
        loads.push(Series { label: format!("{} hook", l.name), x: t, y: col(&|s| s.latches[i][3]) });
    }
    line_plot(
        &out.plot("latches"),
        "Capture latches: hook angle and motor torque",
        "time [s]",
        "deg, N·m",
        &latches,
        false,
    )?;
    for (g, name) in b.groups.0.iter().enumerate() {
        loads.push(Series { label: name.clone(), x: t, y: col(&|s| s.groups[g]) });
    }
    line_plot(
        &out.plot("berthing_loads"),
        "Contact loads: hooks and the active half's features",
        "time [s]",
        "N",
        &loads,
        false,
    )?;
    let mut rtli: Vec<Series> = b
        .rtlis
        .iter()
        .enumerate()
        .map(|(k, (_, name))| Series {
            label: name.clone(),
            x: t,
            y: col(&|s| f64::from(u8::from(s.rtlis[k])) + 0.02 * k as f64),
        })
        .collect();
    rtli.push(Series { label: "axial offset [m]".into(), x: t, y: col(&|s| s.offset[0]) });
    line_plot(
        &out.plot("rtli"),
        "Ready-to-latch indicators (1: tripped) and the target's axial offset",
        "time [s]",
        "1, m",
        &rtli,
        false,
    )
}
