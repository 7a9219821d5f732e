//! `tumble bench`: integrator, query and model throughput, and the regression check against a
//! baseline (`tumble_sim::bench::compare`).

use crate::{failed, invalid};
use std::path::Path;
use std::process::ExitCode;
use tumble_sim::bench::compare::{self, Machine, Verdict};
use tumble_sim::bench::probe::{self, Probe};

/// `tumble bench`: prints the table, optionally writes it as CSV and compares it with a
/// baseline (exit 1 when a case is slower beyond noise, 2 when the baseline is another
/// machine's). The machine's probes are measured when a table is written or compared.
pub(crate) fn bench(scale: f64, only: &str, csv: Option<&Path>, baseline: Option<&Path>) -> ExitCode {
    if !(scale.is_finite() && scale > 0.0) {
        return invalid(format!("--scale must be a positive number, got {scale}"));
    }
    let base = match baseline.map(read_baseline).transpose() {
        Ok(b) => b,
        Err(e) => return invalid(e),
    };
    let measured = csv.is_some() || base.is_some();
    let first = if measured { probe::measure() } else { Vec::new() };
    let results = tumble_sim::bench::run_matching(scale, only);
    if results.is_empty() {
        return invalid(format!(
            "--only {only:?} matches no case; the names are those `tumble bench` prints (e.g. lander_cube_plane)"
        ));
    }
    let machine = compare::machine();
    let probes = if measured { probe::faster(first, &probe::measure()) } else { Vec::new() };
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
    if !probes.is_empty() {
        let each: Vec<String> = probes.iter().map(|p| format!("{} {:.3} ns", p.name, p.ns)).collect();
        say!("machine: {machine}; probes: {}", each.join(", "));
    }
    if let Some(p) = csv
        && let Err(e) = tumble_math::output::write(p, compare::to_csv(&results, &machine, &probes))
    {
        return failed(format!("{}: cannot write: {e}", p.display()));
    }
    match (base, baseline) {
        (Some(b), Some(path)) => report(&b, &results, &probes, path),
        _ => ExitCode::SUCCESS,
    }
}

fn read_baseline(path: &Path) -> Result<compare::Baseline, String> {
    let text = tumble_math::input::read_to_string_max(path, compare::MAX_BYTES)
        .map_err(|e| format!("{}: cannot read the baseline (--baseline): {e}", path.display()))?;
    compare::parse(&path.display().to_string(), &text)
}

/// The comparison's table and verdicts; none on another machine (exit 2: the question has no
/// answer there).
fn report(
    base: &compare::Baseline,
    results: &[tumble_sim::bench::BenchResult],
    probes: &[Probe],
    path: &Path,
) -> ExitCode {
    say!("");
    let named = if base.machine.is_empty() { "an unnamed machine" } else { &base.machine };
    say!("against {} (measured on {named}):", path.display());
    let ratios = |r: &[(String, f64)]| r.iter().map(|(n, x)| format!("{n} {x:.3}×")).collect::<Vec<_>>().join(", ");
    let machine = compare::identify(&base.probes, probes);
    match &machine {
        Machine::Same(r) => say!("the same machine: its probes take {} the baseline's time", ratios(r)),
        Machine::Other(r) => say!(
            "ANOTHER MACHINE: its probes take {} the baseline's time (beyond ±{:.0} %); the ratios below compare machines, not changes",
            ratios(r),
            100.0 * compare::MACHINE_TOLERANCE
        ),
        Machine::Unknown => say!("note: the baseline records no probes of its machine; taken to be this one"),
    }
    let moved = compare::compare(base, results);
    let other = matches!(machine, Machine::Other(_));
    for m in &moved {
        let verdict = match m.verdict {
            _ if other => "(another machine)",
            Verdict::Slower => "SLOWER",
            Verdict::Faster => "faster",
            Verdict::Same => "within noise",
            Verdict::New => "not in the baseline",
        };
        say!("{:<36} {:>8.3}× time  (noise ±{:.0}%)  {verdict}", m.name, m.ratio, 100.0 * m.noise);
    }
    if other {
        return invalid(format!(
            "{}: measured on another machine, so no case can be called slower or faster here; \
             measure a baseline on this machine (`tumble bench --csv FILE` with the build to compare against) \
             and compare with that",
            path.display()
        ));
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
