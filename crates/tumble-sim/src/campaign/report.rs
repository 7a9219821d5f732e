//! A campaign's `summary.json` and plots: for every kind, the runs that ended each way and the
//! distribution of every result column; then what the kind adds ([`CampaignKind::report`]:
//! landing maps, SADA moments, …), or, for a kind that adds nothing, a histogram of each result
//! that varies between runs.

use super::{Campaign, CampaignKind, RunRow, status_counts};
use crate::plot::histogram_plot;
use serde_json::{Map, Value, json};
use std::fs;
use std::path::Path;

/// The `q` quantile of a sorted sample (the nearest rank).
pub(crate) fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    (!sorted.is_empty()).then(|| sorted[((q * (sorted.len() - 1) as f64).round() as usize).min(sorted.len() - 1)])
}

/// Mean and sample standard deviation.
pub(crate) fn mean_sd(v: &[f64]) -> Option<(f64, f64)> {
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
    // Column by position (a row holds its results in column order; NaN for none).
    let values = |i: usize| rows.iter().filter_map(move |r| r.results.get(i).copied().filter(|x| !x.is_nan()));
    if let Some(s) = summary.as_object_mut() {
        s.insert("statuses".into(), status_counts(rows).into_iter().map(|(k, n)| (k, json!(n))).collect());
        let results: Map<String, Value> = (c.kind.columns().into_iter().enumerate())
            .map(|(i, n)| (n, distribution(&values(i).collect::<Vec<_>>())))
            .collect();
        s.insert("results".into(), results.into());
    }
    match (c.kind.report(c, rows, &plots)?, summary.as_object_mut()) {
        (Value::Object(m), Some(s)) => s.extend(m),
        _ => histograms(c.kind.as_ref(), rows, &plots)?,
    }
    fs::write(out.join("summary.json"), serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())? + "\n")
        .map_err(io)?;
    Ok(summary)
}

/// Quantiles, mean and spread of a sample.
pub(crate) fn distribution(v: &[f64]) -> Value {
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

/// A histogram of each result that varies between the runs, `plots/histogram_<column>`.
fn histograms(kind: &dyn CampaignKind, rows: &[RunRow], plots: &Path) -> Result<(), String> {
    for (i, name) in kind.columns().into_iter().enumerate() {
        let v: Vec<f64> = rows.iter().filter_map(|r| r.results.get(i).copied().filter(|x| !x.is_nan())).collect();
        if v.iter().all(|x| *x == v[0]) {
            continue;
        }
        let stem: String = name
            .split(" [")
            .next()
            .unwrap_or(&name)
            .chars()
            .map(|ch| if ch.is_ascii_alphanumeric() { ch.to_ascii_lowercase() } else { '_' })
            .collect();
        let bins = (v.len() as f64).sqrt().ceil().max(1.0) as usize;
        histogram_plot(&plots.join(format!("histogram_{stem}")), &name, &name, &v, bins)?;
    }
    Ok(())
}
