//! `tumble run` and `tumble check`: a scenario read, its application found in the registry,
//! run and written; the report's lines printed.

use crate::{failed, invalid, overrides};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tumble_sim::{Scenario, registry};

/// `tumble check`: validates a scenario (and prints its warnings).
pub(crate) fn check(path: &Path, set: &[String]) -> ExitCode {
    let sc = match load(path, set) {
        Ok(sc) => sc,
        Err(code) => return code,
    };
    match registry::check(&sc) {
        Ok(warnings) => {
            warnings.iter().for_each(|w| tell!("warning: {w}"));
            say!("ok");
            ExitCode::SUCCESS
        }
        Err(e) => invalid(e.to_string()),
    }
}

/// Reads and patches a scenario; on failure prints the error and returns exit 2.
fn load(path: &Path, set: &[String]) -> Result<Scenario, ExitCode> {
    let overrides = overrides(set).map_err(invalid)?;
    registry::load(path, &overrides).map_err(|e| invalid(e.to_string()))
}

/// A progress bar over simulated time that appears after a second of wall time.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    total: f64,
    quiet: bool,
}

impl Progress {
    pub(crate) fn new(total: f64, quiet: bool) -> Self {
        Self { bar: None, started: Instant::now(), total, quiet }
    }

    pub(crate) fn update(&mut self, t: f64) {
        if self.quiet {
            return;
        }
        if self.bar.is_none() && self.started.elapsed() > Duration::from_secs(1) {
            let b = ProgressBar::new(1000);
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:40} {percent:>3}%  t = {msg} s  ETA {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            self.bar = Some(b);
        }
        if let Some(b) = &self.bar {
            b.set_position((1000.0 * t / self.total) as u64);
            b.set_message(format!("{t:.3}"));
        }
    }

    pub(crate) fn finish(self) {
        if let Some(b) = self.bar {
            b.finish_and_clear();
        }
    }
}

/// `tumble run`: reads, validates and runs a scenario of any kind, writes its outputs into
/// `out` (default `out/NAME`) and prints its report; exit 1 when the run failed.
pub(crate) fn run(path: &Path, out: Option<PathBuf>, set: &[String], quiet: bool) -> ExitCode {
    let sc = match load(path, set) {
        Ok(sc) => sc,
        Err(code) => return code,
    };
    let out = out.unwrap_or_else(|| Path::new("out").join(&sc.file.name));
    if let Err(code) = crate::out_folder(&out) {
        return code;
    }
    let mut run = match registry::start(&sc) {
        Ok(run) => run,
        Err(e) => return invalid(e.to_string()),
    };
    run.warnings().iter().for_each(|w| tell!("warning: {w}"));
    let mut progress = Progress::new(run.duration(), quiet);
    tumble_sim::app::run_to_end(run.as_mut(), &mut |t| progress.update(t));
    progress.finish();
    let report = match run.report(Some(&out)) {
        Ok(r) => r,
        Err(e) => return failed(e),
    };
    if let Some(d) = &report.diagnosis {
        tell!("error: simulation failed: {d}");
        tell!("samples up to the failure are in {}", out.display());
        return ExitCode::from(1);
    }
    if !quiet {
        report.lines.iter().for_each(|l| say!("{l}"));
    }
    ExitCode::SUCCESS
}
