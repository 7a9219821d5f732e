//! Asteroid-capture campaigns: a run's row (contact, catch-up, peak SADA bending against its
//! limit, membrane force, slip, depth, final relative rate, rim crossings) and the report's
//! distributions of the bending moment and the catch-up time.

use super::{MembraneCapture, MembraneCaptureSummary, write_capture_run};
use crate::campaign::report::distribution;
use crate::campaign::{Campaign, CampaignKind, Finished, RunRow};
use crate::plot::{Series, histogram_plot, histogram_with_marks, line_plot};
use crate::scenario::Scenario;
use serde_json::{Value, json};
use std::path::Path;

/// Result columns of an asteroid-capture campaign.
pub const CAPTURE_COLUMNS: [&str; 10] = [
    "contact_time [s]",
    "catch_up_time [s]",
    "peak_sada_bending [N m]",
    "sada_moment_limit [N m]",
    "peak_normal_force [N]",
    "peak_slip [m/s]",
    "peak_depth [m]",
    "final_relative_rate [rad/s]",
    "rim_samples",
    "final_time [s]",
];

/// Asteroid captures through the spacecraft's membrane (`kind = "membrane_capture"`). Status:
/// `caught_up`, `in_contact` (not caught up), `separated`, `no_contact` or `failed`.
pub struct MembraneCaptureRuns;

impl CampaignKind for MembraneCaptureRuns {
    fn statuses(&self) -> &'static [&'static str] {
        &["no_contact", "caught_up", "in_contact", "separated"]
    }

    fn columns(&self) -> Vec<String> {
        CAPTURE_COLUMNS.iter().map(|c| c.to_string()).collect()
    }

    fn check(&self, sc: &Scenario) -> Result<(), String> {
        MembraneCapture::build(sc).map(|_| ()).map_err(|e| e.to_string())
    }

    fn run(&self, sc: &Scenario, dir: Option<&Path>) -> Result<Finished, String> {
        let model = MembraneCapture::build(sc).map_err(|e| e.to_string())?;
        let run = model.run();
        let s = match dir {
            Some(dir) => write_capture_run(dir, &model, &run)?,
            None => MembraneCaptureSummary::new(&model, &run)?,
        };
        let status = match (s.contact_time_s, s.catch_up_time_s, s.outcome == "in contact") {
            (None, ..) => "no_contact",
            (Some(_), Some(_), _) => "caught_up",
            (Some(_), None, true) => "in_contact",
            (Some(_), None, false) => "separated",
        };
        let results = vec![
            s.contact_time_s.unwrap_or(f64::NAN),
            s.catch_up_time_s.unwrap_or(f64::NAN),
            s.peak_sada_bending_N_m[0].max(s.peak_sada_bending_N_m[1]),
            s.sada_moment_limit_N_m,
            s.peak_normal_force_N,
            s.peak_slip_m_s,
            s.peak_depth_m,
            s.relative_rate_final_rad_s,
            s.rim_samples as f64,
            s.final_time_s,
        ];
        Ok(Finished::new(status, results, s.diagnosis))
    }

    fn report(&self, _c: &Campaign, rows: &[RunRow], plots: &Path) -> Result<Value, String> {
        capture_report(self, rows, plots)
    }

    fn headline(&self, rows: &[RunRow]) -> String {
        let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
        let ran = || rows.iter().filter(|r| r.status != "invalid" && r.status != "failed");
        let mut moment: Vec<f64> = ran().filter_map(|r| r.get(self, "peak_sada_bending [N m]")).collect();
        moment.sort_by(f64::total_cmp);
        let over = ran().filter(|r| r.get(self, "peak_sada_bending [N m]") > r.get(self, "sada_moment_limit [N m]"));
        let mut catch_up: Vec<f64> =
            ran().filter_map(|r| Some(r.get(self, "catch_up_time [s]")? - r.get(self, "contact_time [s]")?)).collect();
        catch_up.sort_by(f64::total_cmp);
        let one = |x: Option<f64>| x.map_or("-".into(), |t| format!("{t:.1}"));
        format!(
            "{} caught up, {} in contact, {} separated, {} failed; peak SADA bending median {} N·m, max {} N·m, {} over the limit; catch-up after contact median {} s",
            count("caught_up"),
            count("in_contact"),
            count("separated"),
            count("failed"),
            one(crate::campaign::report::quantile(&moment, 0.5)),
            one(moment.last().copied()),
            over.count(),
            one(crate::campaign::report::quantile(&catch_up, 0.5)),
        )
    }
}

/// Distributions of the peak SADA bending moment (against its limit) and of the time from
/// contact to catching up with the asteroid's rotation.
fn capture_report(k: &MembraneCaptureRuns, rows: &[RunRow], plots: &Path) -> Result<Value, String> {
    let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
    let ran: Vec<&RunRow> = rows.iter().filter(|r| r.status != "invalid" && r.status != "failed").collect();
    let moment: Vec<f64> = ran.iter().filter_map(|r| r.get(k, "peak_sada_bending [N m]")).collect();
    let limit = ran.iter().filter_map(|r| r.get(k, "sada_moment_limit [N m]")).fold(f64::NAN, f64::min);
    let over = ran.iter().filter(|r| r.get(k, "peak_sada_bending [N m]") > r.get(k, "sada_moment_limit [N m]")).count();
    let mut catch_up: Vec<f64> =
        ran.iter().filter_map(|r| Some(r.get(k, "catch_up_time [s]")? - r.get(k, "contact_time [s]")?)).collect();
    catch_up.sort_by(f64::total_cmp);
    let summary = json!({
        "caught_up": count("caught_up"),
        "in_contact_not_caught_up": count("in_contact"),
        "separated": count("separated"),
        "no_contact": count("no_contact"),
        "peak_sada_bending_N_m": distribution(&moment),
        "sada_moment_limit_N_m": if limit.is_nan() { Value::Null } else { json!(limit) },
        "runs_over_sada_limit": over,
        "catch_up_after_contact_s": distribution(&catch_up),
        "runs_with_rim_crossings": ran.iter().filter(|r| r.get(k, "rim_samples").is_some_and(|n| n > 0.0)).count(),
    });
    let bins = |n: usize| (n as f64).sqrt().ceil().max(1.0) as usize;
    if !moment.is_empty() {
        let mark = format!("limit {limit} N·m");
        let marks: &[(f64, &str)] = if limit.is_finite() { &[(limit, mark.as_str())] } else { &[] };
        histogram_with_marks(
            &plots.join("sada_moment_histogram"),
            &format!("Peak SADA bending moment ({over} of {} runs over the limit)", moment.len()),
            "peak bending moment [N·m]",
            &moment,
            bins(moment.len()),
            marks,
        )?;
    }
    if !catch_up.is_empty() {
        histogram_plot(
            &plots.join("catch_up_histogram"),
            "Time from contact to catching up with the asteroid's rotation",
            "time after contact [s]",
            &catch_up,
            bins(catch_up.len()),
        )?;
        let n = ran.len().max(1) as f64;
        let frac: Vec<f64> = (1..=catch_up.len()).map(|i| i as f64 / n).collect();
        line_plot(
            &plots.join("catch_up_cdf"),
            "Fraction of runs caught up by a time after contact",
            "time after contact [s]",
            "fraction of runs",
            &[Series { label: String::new(), x: &catch_up, y: frac }],
            false,
        )?;
    }
    Ok(summary)
}
