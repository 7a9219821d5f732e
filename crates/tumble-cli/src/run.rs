//! `tumble run` and `tumble check`: a scenario read, dispatched on its kind, run and written;
//! each application's headline printed from its run.

use crate::{failed, invalid, overrides};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};
use tumble_sim::lander::{LanderModel, LanderOutcome, write_lander_run};
use tumble_sim::scenario::Kind;
use tumble_sim::{Model, Outcome, Scenario, simulate, write_run};

/// `tumble check`: validates a scenario (and prints a lander's warnings).
pub(crate) fn check(path: &Path, set: &[String]) -> ExitCode {
    match load(path, set) {
        Ok((_, job)) => {
            if let Job::Lander(m) = &job {
                m.warnings.iter().for_each(|w| eprintln!("warning: {w}"));
            }
            say!("ok");
            ExitCode::SUCCESS
        }
        Err(code) => code,
    }
}

/// What a scenario describes.
enum Job {
    /// Free rigid bodies.
    Rigid(Box<Model>),
    /// A lander on a small body.
    Lander(Box<LanderModel>),
    /// An articulated system.
    Arm(Box<tumble_sim::arm::ArmModel>),
    /// A capture study (`tumble capture-map`).
    Capture,
    /// A snare-wire experiment.
    Snare(Box<tumble_sim::snare::WireExperiment>),
    /// An arm's snare-wire effector capturing a payload.
    Grapple(Box<tumble_sim::grapple::GrappleCapture>),
    /// A body meeting a membrane.
    Membrane(Box<tumble_sim::membrane::MembraneDrop>),
    /// Rigid bodies in contact through the interference engine.
    Mechanism(Box<tumble_sim::mechanism::Mechanism>),
    /// A spacecraft capturing an asteroid through its membrane.
    Trampoline(Box<tumble_sim::membrane_capture::AsteroidCapture>),
}

/// Reads, patches and validates a scenario; on failure prints the error and returns exit 2.
fn load(path: &Path, set: &[String]) -> Result<(Scenario, Job), ExitCode> {
    let overrides = overrides(set).map_err(invalid)?;
    let sc = Scenario::load(path, &overrides).map_err(|e| invalid(e.to_string()))?;
    let bad = |e: tumble_sim::ScenarioError| invalid(e.to_string());
    let job = match sc.kind {
        Kind::CaptureMap => {
            tumble_sim::capture_map::CaptureStudy::build(&sc).map_err(bad)?;
            Job::Capture
        }
        Kind::Snare => Job::Snare(Box::new(tumble_sim::snare::WireExperiment::build(&sc).map_err(bad)?)),
        Kind::MembraneCapture => {
            Job::Trampoline(Box::new(tumble_sim::membrane_capture::AsteroidCapture::build(&sc).map_err(bad)?))
        }
        Kind::Mechanism => Job::Mechanism(Box::new(tumble_sim::mechanism::Mechanism::build(&sc).map_err(bad)?)),
        Kind::MembraneDrop => Job::Membrane(Box::new(tumble_sim::membrane::MembraneDrop::build(&sc).map_err(bad)?)),
        Kind::Grapple => Job::Grapple(Box::new(tumble_sim::grapple::GrappleCapture::build(&sc).map_err(bad)?)),
        Kind::Arm => Job::Arm(Box::new(tumble_sim::arm::ArmModel::build(&sc).map_err(bad)?)),
        Kind::Lander => Job::Lander(Box::new(LanderModel::build(&sc).map_err(bad)?)),
        Kind::RigidBodies => Job::Rigid(Box::new(Model::build(&sc).map_err(bad)?)),
    };
    Ok((sc, job))
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

/// `tumble run`: reads, validates and runs a scenario of any kind.
pub(crate) fn run(path: &Path, out: Option<PathBuf>, set: &[String], quiet: bool) -> ExitCode {
    match load(path, set) {
        Ok((_, Job::Rigid(model))) => run_rigid(path, out, *model, quiet),
        Ok((_, Job::Lander(model))) => run_lander(out, *model, quiet),
        Ok((_, Job::Arm(model))) => run_arm(out, *model, quiet),
        Ok((sc, Job::Snare(exp))) => run_snare(out, &sc, &exp, quiet),
        Ok((_, Job::Grapple(cap))) => run_grapple(out, &cap, quiet),
        Ok((_, Job::Membrane(m))) => run_membrane(out, &m, quiet),
        Ok((_, Job::Mechanism(m))) => run_mechanism(out, &m, quiet),
        Ok((_, Job::Trampoline(m))) => run_trampoline(out, &m, quiet),
        Ok((_, Job::Capture)) => {
            invalid(format!("{}: a capture study runs with `tumble capture-map {}`", path.display(), path.display()))
        }
        Err(code) => code,
    }
}

fn run_snare(out: Option<PathBuf>, sc: &Scenario, exp: &tumble_sim::snare::WireExperiment, quiet: bool) -> ExitCode {
    let out = out.unwrap_or_else(|| Path::new("out").join(&sc.file.name));
    let started = Instant::now();
    let run = match exp.run() {
        Ok(r) => r,
        Err(e) => return failed(format!("simulation failed: {e}")),
    };
    let wall = started.elapsed().as_secs_f64();
    let every = tumble_sim::snare::output_every(sc, exp.dt);
    let summary = match tumble_sim::snare::write_wire_run(&out, &sc.file.name, exp, &run, every) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    if !quiet {
        say!("{}", summary.headline(wall, &out));
    }
    ended(summary.diagnosis, &out)
}

fn run_grapple(out: Option<PathBuf>, cap: &tumble_sim::grapple::GrappleCapture, quiet: bool) -> ExitCode {
    let out = out.unwrap_or_else(|| Path::new("out").join(&cap.name));
    let mut progress = Progress::new(cap.arm.duration, quiet);
    let run = cap.run_with(&mut |t, _| progress.update(t));
    progress.finish();
    let summary = match tumble_sim::grapple::write_grapple_run(&out, cap, &run) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    if !quiet {
        say!("{}", summary.headline(&out));
    }
    if summary.diagnosis.is_some() {
        return ended(summary.diagnosis, &out);
    }
    if let (Some(why), false) = (&summary.capture_failure, quiet) {
        say!("capture failed: {why}");
    }
    ExitCode::SUCCESS
}

fn run_membrane(out: Option<PathBuf>, m: &tumble_sim::membrane::MembraneDrop, quiet: bool) -> ExitCode {
    let out = out.unwrap_or_else(|| Path::new("out").join(&m.name));
    let run = m.run();
    let summary = match tumble_sim::membrane::write_membrane_run(&out, m, &run) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    if !quiet {
        say!("{}", summary.headline(&out));
    }
    ended(summary.diagnosis, &out)
}

fn run_mechanism(out: Option<PathBuf>, m: &tumble_sim::mechanism::Mechanism, quiet: bool) -> ExitCode {
    let out = out.unwrap_or_else(|| Path::new("out").join(&m.name));
    let run = m.run();
    let summary = match tumble_sim::mechanism::write_mechanism_run(&out, m, &run) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    if !quiet {
        say!("{}", summary.headline(&out));
    }
    ended(summary.diagnosis, &out)
}

fn run_trampoline(out: Option<PathBuf>, m: &tumble_sim::membrane_capture::AsteroidCapture, quiet: bool) -> ExitCode {
    let out = out.unwrap_or_else(|| Path::new("out").join(&m.name));
    let mut progress = Progress::new(m.duration, quiet);
    let run = m.run_with(&mut |t| progress.update(t));
    progress.finish();
    let summary = match tumble_sim::membrane_capture::write_capture_run(&out, m, &run) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    if !quiet {
        say!("{}", summary.headline(&out));
    }
    ended(summary.diagnosis, &out)
}

/// A run stopped early with diagnosis `d`: says so and where its samples are, exit status 1.
/// Success, or the run's diagnosis and where its samples up to the failure are (exit 1).
fn ended(diagnosis: Option<String>, out: &Path) -> ExitCode {
    let Some(d) = diagnosis else { return ExitCode::SUCCESS };
    eprintln!("error: simulation failed: {d}");
    eprintln!("samples up to the failure are in {}", out.display());
    ExitCode::from(1)
}

fn run_arm(out: Option<PathBuf>, mut model: tumble_sim::arm::ArmModel, quiet: bool) -> ExitCode {
    let out = out.unwrap_or_else(|| Path::new("out").join(&model.name));
    let started = Instant::now();
    let run = model.simulate();
    let wall = started.elapsed().as_secs_f64();
    let summary = match tumble_sim::arm::write_arm_run(&out, &model, &run) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    if summary.diagnosis.is_none() && !quiet {
        say!("{}", summary.headline(wall, &out));
    }
    ended(summary.diagnosis, &out)
}

fn run_lander(out: Option<PathBuf>, mut model: LanderModel, quiet: bool) -> ExitCode {
    model.warnings.iter().for_each(|w| eprintln!("warning: {w}"));
    let out = out.unwrap_or_else(|| Path::new("out").join(&model.name));
    let mut progress = Progress::new(model.settings.duration, quiet);
    let started = Instant::now();
    let run = tumble_sim::lander::simulate(&mut model.system, model.initial_state, &model.settings, &mut |t| {
        progress.update(t)
    });
    progress.finish();
    let wall = started.elapsed().as_secs_f64();
    if let Err(e) = write_lander_run(&out, &model, &run) {
        return failed(e);
    }
    if let LanderOutcome::Failed(d) = &run.outcome {
        eprintln!("error: simulation failed: {d}");
        eprintln!("samples up to the failure are in {}", out.display());
        return ExitCode::from(1);
    }
    if !quiet {
        say!(
            "{}: {} at t = {:.3} s after {} bounces ({:.0} steps in {wall:.2} s wall); outputs in {}",
            model.name,
            run.outcome.name(),
            run.final_time,
            run.bounces(),
            run.final_time / model.settings.dt,
            out.display()
        );
        if let Some(sites) = model.sites {
            let y = &run.final_state;
            let (lat, lon) = sites.lat_lon(&tumble_math::Vec3::new(y[0], y[1], y[2]));
            say!("landing site: latitude {lat:.3}°, longitude {lon:.3}°");
        }
        say!("max penetration {:.3e} m; energy balance error {:.3e} J", run.max_penetration, run.max_balance_error);
    }
    ExitCode::SUCCESS
}

fn run_rigid(path: &Path, out: Option<PathBuf>, mut model: Model, quiet: bool) -> ExitCode {
    let out = out.unwrap_or_else(|| Path::new("out").join(&model.name));
    let mut progress = Progress::new(model.duration, quiet);
    let res = simulate(&mut model, &mut |t| progress.update(t));
    progress.finish();
    let summary = match write_run(&out, path, &model, &res) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    let line = format!(
        "{}: t = {:.6} s, {} steps ({} rejected) in {:.3} s wall; outputs in {}",
        model.name,
        res.t_end,
        res.stats.steps,
        res.stats.rejected,
        res.wall_time,
        out.display()
    );
    match &res.outcome {
        Outcome::Completed | Outcome::Stopped { .. } => {
            if !quiet {
                say!("{line}");
                if let Outcome::Stopped { event } = &res.outcome {
                    say!("stopped: {event}");
                }
                if let Some(d) = summary["metrics"]["energy_drift_rel"].as_f64() {
                    say!("energy drift (relative): {d:.3e}");
                }
            }
            ExitCode::SUCCESS
        }
        Outcome::Failed(d) => {
            eprintln!("error: simulation failed {d}");
            eprintln!("{line} (samples up to the failure are kept)");
            ExitCode::from(1)
        }
    }
}
