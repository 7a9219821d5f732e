//! A campaign's `summary.json` and plots: for every kind, the runs that ended each way and the
//! distribution of every result column; then what the kind adds ([`CampaignKind::report`]:
//! landing maps, SADA moments, …), or, for a kind that adds nothing, a histogram of each result
//! that varies between runs.

use super::{Campaign, CampaignKind, RunRow, status_counts};
use crate::plot::histogram_plot;
use serde_json::{Map, Value, json};
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

/// How a campaign's runs were executed, for `summary.json`'s `accounting`: measured, not
/// computed, so the one part of a campaign's outputs that differs between two executions of the
/// same campaign (everything else is a function of the scenario, the seed and the runs).
#[derive(Clone, Debug, Default)]
pub struct Accounting {
    /// Wall time of this invocation, s.
    pub wall_time_s: f64,
    /// Runs this invocation executed (fewer than the campaign's after a resume; none for a
    /// merge).
    pub runs_executed: u64,
    /// Threads of this invocation that ran runs (0 when workers elsewhere ran them all).
    pub threads: usize,
    /// The shards or workers that executed the runs, when not this invocation's threads.
    pub workers: Vec<Worker>,
}

/// The runs one shard or worker did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Worker {
    /// Which: `shard 3/8`, a Dask worker's address.
    pub name: String,
    /// Runs it executed.
    pub runs: u64,
    /// Wall time it spent on them, s.
    pub wall_time_s: f64,
}

impl Accounting {
    /// Accounting of `runs` runs on `threads` threads in `wall_time_s`.
    pub fn new(wall_time_s: f64, runs: u64, threads: usize) -> Self {
        Self { wall_time_s, runs_executed: runs, threads, workers: Vec::new() }
    }

    /// As JSON.
    pub fn to_json(&self) -> Value {
        let rate = |n: u64, t: f64| if t > 0.0 { n as f64 / t } else { 0.0 };
        let workers: Vec<Value> = (self.workers.iter())
            .map(|w| json!({ "name": w.name, "runs": w.runs, "wall_time_s": w.wall_time_s, "runs_per_second": rate(w.runs, w.wall_time_s) }))
            .collect();
        json!({
            "wall_time_s": self.wall_time_s,
            "runs_executed": self.runs_executed,
            "threads": self.threads,
            "runs_per_second": rate(self.runs_executed, self.wall_time_s),
            "workers": workers,
        })
    }
}

/// Writes `summary.json` and `plots/` for the finished rows; returns the summary. Everything in
/// them but `accounting` is a function of the rows, so a campaign run in shards, on workers or
/// on any thread count writes the same bytes.
pub fn write_report(c: &Campaign, rows: &[RunRow], accounting: &Accounting) -> Result<Value, String> {
    let out = &c.options.out;
    let plots = crate::outputs::fresh_plots(out)?;
    let mut summary = json!({
        "scenario": c.scenario.file.name,
        "file": c.scenario.path.display().to_string(),
        "seed": c.options.seed,
        "runs": rows.len(),
        "dispersions": c.dispersions.iter().map(|d| json!({ "key": d.key, "distribution": d.dist.to_json() })).collect::<Vec<_>>(),
        "failed": rows.iter().filter(|r| r.status == "failed").count(),
        "invalid": rows.iter().filter(|r| r.status == "invalid").count(),
        "backend": c.backend.as_deref().unwrap_or("cpu"),
        "accounting": accounting.to_json(),
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
    super::parquet::write(c, rows, &out.join("runs.parquet"))?;
    crate::outputs::write_json(&out.join("summary.json"), &summary)?;
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
