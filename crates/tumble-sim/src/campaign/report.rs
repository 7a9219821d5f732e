//! A campaign's `summary.json` and plots. Landers: landing sites on a latitude/longitude map of
//! the body coloured by its surface radius, and close up (x–y on a plane), settling-time
//! histogram and cumulative distribution. Captures: distributions of the peak SADA bending
//! moment (against its limit) and of the time the spacecraft takes to catch up with the
//! asteroid's rotation.

use super::{Campaign, Kind, RunRow};
use crate::plot::{LatLonField, Series, histogram_plot, line_plot, map_plot, scatter_plot};
use serde_json::{Value, json};
use std::fs;
use std::path::Path;

/// Latitude bands of the landing map (4° cells; twice as many longitude bands).
const MAP_ROWS: usize = 45;

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
    let io = |e: std::io::Error| format!("{}: {e}", out.display());
    let plots = out.join("plots");
    fs::create_dir_all(&plots).map_err(io)?;
    let mut summary = json!({
        "scenario": c.scenario.file.name,
        "file": c.scenario.path.display().to_string(),
        "seed": c.options.seed,
        "runs": rows.len(),
        "dispersions": c.dispersions.iter().map(|d| json!({ "key": d.key, "distribution": d.dist.to_json() })).collect::<Vec<_>>(),
        "failed": rows.iter().filter(|r| r.status == "failed").count(),
        "invalid": rows.iter().filter(|r| r.status == "invalid").count(),
        "threads": c.options.threads,
        "backend": c.backend.as_deref().unwrap_or("cpu"),
        "wall_time_s": wall,
        "runs_executed": ran,
        "runs_per_second": if wall > 0.0 { ran as f64 / wall } else { 0.0 },
    });
    let specific = match &c.kind {
        Kind::Lander(shared) => lander_report(c, shared.as_ref(), rows, &plots)?,
        Kind::Capture => capture_report(c, rows, &plots)?,
    };
    if let (Some(s), Value::Object(m)) = (summary.as_object_mut(), specific) {
        s.extend(m);
    }
    fs::write(out.join("summary.json"), serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())? + "\n")
        .map_err(io)?;
    Ok(summary)
}

/// `shared`: the target every run shares, when no dispersion touches it.
fn lander_report(
    c: &Campaign,
    shared: Option<&crate::lander::Target>,
    rows: &[RunRow],
    plots: &Path,
) -> Result<Value, String> {
    let k = &c.kind;
    let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
    let mut settle: Vec<f64> = rows.iter().filter_map(|r| r.get(k, "settle_time [s]")).collect();
    settle.sort_by(f64::total_cmp);
    let lat_lon = |r: &RunRow| r.get(k, "latitude [deg]").zip(r.get(k, "longitude [deg]"));
    let sites: Vec<(f64, f64)> = rows.iter().filter(|r| r.status == "settled").filter_map(lat_lon).collect();
    // Longitudes continued about their circular mean, so a cluster across ±180° stays together.
    let (sx, sy) = sites.iter().fold((0.0, 0.0), |(a, b), s| (a + s.1.to_radians().cos(), b + s.1.to_radians().sin()));
    let centre = sy.atan2(sx).to_degrees();
    let sites: Vec<(f64, f64)> =
        sites.iter().map(|&(lat, lon)| (lat, centre + (lon - centre + 540.0).rem_euclid(360.0) - 180.0)).collect();
    // The nominal target (each run's own when a dispersion touches it): a body has a size.
    let nominal = match shared {
        Some(t) => Some(t.clone()),
        None => crate::lander::build_target(&c.scenario).ok(),
    };
    let body = nominal.as_ref().is_some_and(|t| t.size.is_some()) || rows.iter().any(|r| lat_lon(r).is_some());
    let planar: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.status == "settled")
        .filter_map(|r| r.get(k, "x [m]").zip(r.get(k, "y [m]")))
        .collect();
    let stats = |v: &[f64]| mean_sd(v).map(|(m, s)| json!({ "mean": m, "sd": s }));
    let summary = json!({
        "settled": count("settled"),
        "escaped": count("escaped"),
        "completed_unsettled": count("completed"),
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
        "max_balance_error_J": rows.iter().filter_map(|r| r.get(k, "balance_error [J]")).fold(0.0, f64::max),
    });
    if body {
        // The sites on the whole body, its radius as the map's colour, centred on the sites'
        // mean longitude.
        let west = centre.rem_euclid(360.0) - 180.0;
        if let Some(values) = nominal.and_then(|t| t.radius_map(MAP_ROWS, 2 * MAP_ROWS, west)) {
            let field = LatLonField { label: "surface radius [m]", west, values: &values };
            let raw: Vec<(f64, f64)> =
                rows.iter().filter(|r| r.status == "settled").filter_map(lat_lon).map(|(la, lo)| (lo, la)).collect();
            map_plot(&plots.join("landing_map"), "Landing sites on the body", &field, &raw)?;
        }
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

/// Quantiles, mean and spread of a sample.
fn distribution(v: &[f64]) -> Value {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let ms = mean_sd(&s);
    json!({
        "count": s.len(),
        "mean": ms.map(|m| m.0),
        "sd": ms.map(|m| m.1),
        "min": s.first(),
        "median": quantile(&s, 0.5),
        "p90": quantile(&s, 0.9),
        "p99": quantile(&s, 0.99),
        "max": s.last(),
    })
}

fn capture_report(c: &Campaign, rows: &[RunRow], plots: &Path) -> Result<Value, String> {
    let k = &c.kind;
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
        histogram_plot(
            &plots.join("sada_moment_histogram"),
            &format!("Peak SADA bending moment (limit {limit} N·m)"),
            "peak bending moment [N·m]",
            &moment,
            bins(moment.len()),
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
