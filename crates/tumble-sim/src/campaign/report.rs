//! A campaign's `summary.json` and plots: landing sites on a latitude/longitude map of the body
//! (x–y on a plane), settling-time histogram and cumulative distribution.

use super::{Campaign, RunRow};
use crate::plot::{Series, histogram_plot, line_plot, scatter_plot};
use serde_json::{Value, json};
use std::fs;

fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    (!sorted.is_empty()).then(|| sorted[((q * (sorted.len() - 1) as f64).round() as usize).min(sorted.len() - 1)])
}

fn mean_sd(v: &[f64]) -> Option<(f64, f64)> {
    if v.is_empty() {
        return None;
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len().max(2) - 1) as f64;
    Some((m, var.sqrt()))
}

/// Writes `summary.json` and `plots/` for the finished rows; returns the summary. `wall` is the
/// campaign's wall time in this invocation, s, and `ran` the runs it executed.
pub fn write_report(c: &Campaign, rows: &[RunRow], wall: f64, ran: u64) -> Result<Value, String> {
    let out = &c.options.out;
    let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
    let mut settle: Vec<f64> = rows.iter().filter_map(|r| r.settle_time).collect();
    settle.sort_by(f64::total_cmp);
    let sites: Vec<(f64, f64)> = rows.iter().filter(|r| r.status == "settled").filter_map(|r| r.lat_lon).collect();
    // Longitudes continued about their circular mean, so a cluster across ±180° stays together.
    let (sx, sy) = sites.iter().fold((0.0, 0.0), |(a, b), s| (a + s.1.to_radians().cos(), b + s.1.to_radians().sin()));
    let centre = sy.atan2(sx).to_degrees();
    let sites: Vec<(f64, f64)> =
        sites.iter().map(|&(lat, lon)| (lat, centre + (lon - centre + 540.0).rem_euclid(360.0) - 180.0)).collect();
    let body = rows.iter().any(|r| r.lat_lon.is_some());
    let planar: Vec<(f64, f64)> =
        rows.iter().filter(|r| r.status == "settled").map(|r| (r.position[0], r.position[1])).collect();
    let stats = |v: &[f64]| mean_sd(v).map(|(m, s)| json!({ "mean": m, "sd": s }));
    let summary = json!({
        "scenario": c.scenario.file.name,
        "file": c.scenario.path.display().to_string(),
        "seed": c.options.seed,
        "runs": rows.len(),
        "dispersions": c.dispersions.iter().map(|d| json!({ "key": d.key, "distribution": d.dist.to_json() })).collect::<Vec<_>>(),
        "settled": count("settled"),
        "escaped": count("escaped"),
        "completed_unsettled": count("completed"),
        "failed": count("failed"),
        "invalid": count("invalid"),
        "settle_time_s": {
            "mean": mean_sd(&settle).map(|m| m.0),
            "median": quantile(&settle, 0.5),
            "p90": quantile(&settle, 0.9),
            "max": settle.last(),
        },
        "landing_latitude_deg": stats(&sites.iter().map(|s| s.0).collect::<Vec<_>>()),
        "landing_longitude_deg": stats(&sites.iter().map(|s| s.1).collect::<Vec<_>>()),
        "landing_x_m": stats(&planar.iter().map(|s| s.0).collect::<Vec<_>>()),
        "landing_y_m": stats(&planar.iter().map(|s| s.1).collect::<Vec<_>>()),
        "max_balance_error_J": rows.iter().map(|r| r.balance_error).fold(0.0, f64::max),
        "threads": c.options.threads,
        "wall_time_s": wall,
        "runs_executed": ran,
        "runs_per_second": if wall > 0.0 { ran as f64 / wall } else { 0.0 },
    });
    let io = |e: std::io::Error| format!("{}: {e}", out.display());
    fs::write(out.join("summary.json"), serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())? + "\n")
        .map_err(io)?;
    let plots = out.join("plots");
    fs::create_dir_all(&plots).map_err(io)?;
    if body {
        scatter_plot(
            &plots.join("landing_sites"),
            "Landing sites",
            "longitude [deg] (continued about the mean)",
            "latitude [deg]",
            &sites.iter().map(|s| (s.1, s.0)).collect::<Vec<_>>(),
        )?;
    } else {
        scatter_plot(&plots.join("landing_sites"), "Landing sites (target frame)", "x [m]", "y [m]", &planar)?;
    }
    if !settle.is_empty() {
        histogram_plot(
            &plots.join("settle_time_histogram"),
            "Settling time",
            "settling time [s]",
            &settle,
            (settle.len() as f64).sqrt().ceil() as usize,
        )?;
        let n = rows.len() as f64;
        let frac: Vec<f64> = (1..=settle.len()).map(|k| k as f64 / n).collect();
        line_plot(
            &plots.join("settle_time_cdf"),
            "Fraction of runs settled by a time",
            "time [s]",
            "fraction of all runs",
            &[Series { label: String::new(), x: &settle, y: frac }],
            false,
        )?;
    }
    Ok(summary)
}
