//! `tumble bench`: integrator, query and model throughput, and the regression check against a
//! baseline (`tumble_sim::bench::compare`).

use crate::{failed, invalid};
use std::path::Path;
use std::process::ExitCode;
use tumble_sim::bench::compare::{self, Verdict};

/// `tumble bench`: prints the table, optionally writes it as CSV and compares it with a
/// baseline (exit 1 when a case is slower beyond noise).
pub(crate) fn bench(scale: f64, only: &str, csv: Option<&Path>, baseline: Option<&Path>) -> ExitCode {
    if !(scale.is_finite() && scale > 0.0) {
        return invalid(format!("--scale must be a positive number, got {scale}"));
    }
    let base = match baseline.map(read_baseline).transpose() {
        Ok(b) => b,
        Err(e) => return invalid(e),
    };
    let results = tumble_sim::bench::run_matching(scale, only);
    if results.is_empty() {
        return invalid(format!(
            "--only {only:?} matches no case; the names are those `tumble bench` prints (e.g. lander_cube_plane)"
        ));
    }
    let machine = compare::machine();
    say!("{:<36} {:>7} {:>10} {:>14} {:>16} {:>7}", "case", "bodies", "steps", "steps/s", "ns/body-step", "spread");
    for r in &results {
        say!(
            "{:<36} {:>7} {:>10} {:>14.0} {:>16.1} {:>6.1}%",
            r.name,
            r.bodies,
            r.steps,
            r.steps_per_second(),
            r.ns_per_body_step(),
            100.0 * r.spread
        );
    }
    if let Some(p) = csv
        && let Err(e) = tumble_math::output::write(p, compare::to_csv(&results, &machine))
    {
        return failed(format!("{}: cannot write: {e}", p.display()));
    }
    match (base, baseline) {
        (Some(b), Some(path)) => report(&b, &results, &machine, path),
        _ => ExitCode::SUCCESS,
    }
}

fn read_baseline(path: &Path) -> Result<compare::Baseline, String> {
    let text = tumble_math::input::read_to_string_max(path, compare::MAX_BYTES)
        .map_err(|e| format!("{}: cannot read the baseline (--baseline): {e}", path.display()))?;
    compare::parse(&path.display().to_string(), &text)
}

/// The comparison's table and verdicts.
fn report(
    base: &compare::Baseline,
    results: &[tumble_sim::bench::BenchResult],
    machine: &str,
    path: &Path,
) -> ExitCode {
    say!("");
    say!(
        "against {} (measured on {}):",
        path.display(),
        if base.machine.is_empty() { "an unnamed machine" } else { &base.machine }
    );
    if !base.machine.is_empty() && base.machine != machine {
        say!("note: this machine is {machine}: the ratios compare machines as much as changes");
    }
    let moved = compare::compare(base, results);
    for m in &moved {
        let verdict = match m.verdict {
            Verdict::Slower => "SLOWER",
            Verdict::Faster => "faster",
            Verdict::Same => "within noise",
            Verdict::New => "not in the baseline",
        };
        say!("{:<36} {:>8.3}× time  (noise ±{:.0}%)  {verdict}", m.name, m.ratio, 100.0 * m.noise);
    }
    let slower: Vec<&str> = moved.iter().filter(|m| m.verdict == Verdict::Slower).map(|m| m.name.as_str()).collect();
    let faster = moved.iter().filter(|m| m.verdict == Verdict::Faster).count();
    say!("{} slower, {faster} faster, {} within noise", slower.len(), moved.len() - slower.len() - faster);
    if slower.is_empty() {
        ExitCode::SUCCESS
    } else {
        failed(format!("slower than the baseline beyond noise: {}", slower.join(", ")))
    }
}
