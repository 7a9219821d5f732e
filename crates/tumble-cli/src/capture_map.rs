//! `tumble capture-map`: the capture-map study.

use crate::{failed, invalid, overrides};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use tumble_sim::Scenario;

/// `tumble capture-map`: the capture study of a `capture_map` scenario.
pub(crate) fn capture(
    path: &Path,
    out: Option<PathBuf>,
    threads: Option<usize>,
    set: &[String],
    quiet: bool,
) -> ExitCode {
    use tumble_sim::capture_map::{CaptureStudy, confusion, write_capture};
    let study = match overrides(set)
        .and_then(|o| Scenario::load(path, &o).map_err(|e| e.to_string()))
        .and_then(|sc| CaptureStudy::build(&sc).map_err(|e| e.to_string()))
    {
        Ok(s) => s,
        Err(e) => return invalid(e),
    };
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        return invalid("--threads must be at least 1".into());
    }
    let total = study.roa.samples + study.roa.verify;
    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(total) };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} detumbles  {per_sec}  ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let started = Instant::now();
    let report = match study.run(threads, &|done, _| bar.set_position(done)) {
        Ok(r) => r,
        Err(e) => {
            bar.abandon();
            return failed(e);
        }
    };
    bar.finish_and_clear();
    let wall = started.elapsed().as_secs_f64();
    let out = out.unwrap_or_else(|| Path::new("out").join(&study.name));
    if let Err(e) = write_capture(&out, &study, &report) {
        return failed(e);
    }
    if !quiet {
        say!("{}: capture maps (relative difference from the constrained impulse):", study.name);
        for (name, _, diff) in &report.maps {
            say!("  {name:<36} {diff:.2e}");
        }
        let rho0 = report.funnel.rho0;
        say!(
            "nominal capture detumbled; funnel inlet rho0 = {rho0:.4e} from {} sampled captures ({} failed){}",
            report.estimation.len(),
            report.estimation.iter().filter(|s| !s.rollout.success).count(),
            if report.funnel.bounded { "" } else { ": no sampled failure, rho0 is a lower bound" },
        );
        if let Some((v0, r)) = &report.online {
            say!(
                "online check of capture.measured_impulse: V0 = {v0:.4e}, margin V0/rho0 = {:.3e}: predicted {}; the detumble from the predicted state {}",
                v0 / rho0,
                if *v0 < rho0 { "safe" } else { "unsafe" },
                r.failure.as_deref().unwrap_or("succeeds")
            );
        }
        let m = confusion(&report.verification, rho0);
        say!(
            "verdict on {} sampled captures: safe & detumbled {}, safe & failed {} (false safe), unsafe & detumbled {}, unsafe & failed {}",
            report.verification.len(),
            m[0][0],
            m[0][1],
            m[1][0],
            m[1][1]
        );
        say!("{total} detumbles in {wall:.1} s on {threads} threads; outputs in {}", out.display());
    }
    ExitCode::SUCCESS
}
