//! `tumble bench`: integrator, query and model throughput.

use crate::{failed, invalid};
use std::path::Path;
use std::process::ExitCode;

/// `tumble bench`: prints the table and optionally writes it as CSV.
pub(crate) fn bench(scale: f64, only: &str, csv: Option<&Path>) -> ExitCode {
    if !(scale.is_finite() && scale > 0.0) {
        return invalid(format!("--scale must be a positive number, got {scale}"));
    }
    let results = tumble_sim::bench::run_matching(scale, only);
    if results.is_empty() {
        return invalid(format!(
            "--only {only:?} matches no case; the names are those `tumble bench` prints (e.g. lander_cube_plane)"
        ));
    }
    say!("{:<36} {:>7} {:>10} {:>14} {:>16}", "case", "bodies", "steps", "steps/s", "ns/body-step");
    let mut rows = vec!["case,bodies,steps,seconds,steps_per_second,ns_per_body_step".to_string()];
    for r in &results {
        say!(
            "{:<36} {:>7} {:>10} {:>14.0} {:>16.1}",
            r.name,
            r.bodies,
            r.steps,
            r.steps_per_second(),
            r.ns_per_body_step()
        );
        rows.push(format!(
            "{},{},{},{},{},{}",
            r.name,
            r.bodies,
            r.steps,
            r.seconds,
            r.steps_per_second(),
            r.ns_per_body_step()
        ));
    }
    if let Some(p) = csv
        && let Err(e) = tumble_math::output::write(p, rows.join("\n") + "\n")
    {
        return failed(format!("{}: cannot write: {e}", p.display()));
    }
    ExitCode::SUCCESS
}
