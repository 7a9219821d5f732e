//! `tumble capture-map`: the capture-map study.

use crate::{Failure, failed, invalid, overrides};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

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
        .and_then(|o| tumble_sim::registry::load(path, &o).map_err(|e| e.to_string()))
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
    let out = out.unwrap_or_else(|| Path::new("out").join(&study.name));
    if let Err(code) = crate::out_folder(&out) {
        return code;
    }
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
    if let Err(e) = write_capture(&out, &study, &report) {
        return failed(e);
    }
    if !quiet {
        say!("{}: capture maps (relative difference from the constrained impulse):", study.name);
        for (name, _, diff) in &report.maps {
            say!("  {name:<36} {diff:.2e}");
        }
        let (f, rho0) = (&report.funnel, report.funnel.rho0);
        say!(
            "nominal capture detumbled; funnel inlet rho0 = {rho0:.4e} from {} sampled captures ({} failed; {} below the inlet, {} of them failed, at most {} % admitted){}",
            report.estimation.len(),
            report.estimation.iter().filter(|s| !s.rollout.success).count(),
            f.inside,
            f.failures_inside,
            100.0 * f.false_safe,
            if f.bounded { "" } else { ": no sampled failure above, rho0 is a lower bound" },
        );
        if let Some(late) =
            tumble_sim::capture_map::late::late(&report.design, report.estimation.iter().map(|s| &s.rollout))
        {
            say!("note: {}", late.message());
        }
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

/// `tumble capture …` subcommands.
#[derive(clap::Subcommand)]
pub(crate) enum CaptureCommand {
    /// The online pre-capture check (the capture document's eq. 30): loads a study's saved
    /// design (`design.json`) once and answers whether the detumble will succeed from the
    /// pre-capture velocities and the impulse measured at the grasp, with its margin V₀/ρ₀.
    #[command(after_help = "Units and frames (SI, world axes): --state is the chaser's velocity coordinates (free base
[ω; v], then joint rates) followed by the target's [v_G; ω]; --impulse is what the target gives the
chaser at the grasp point, [N·s; N·m·s about the grasp point]. Exit status 0 whatever the verdict.")]
    Check {
        /// A capture study's design.json.
        design: PathBuf,
        /// Pre-capture velocities, comma-separated: the chaser's nv then the target's six.
        #[arg(long, allow_hyphen_values = true)]
        state: String,
        /// Impulse measured at the grasp, six comma-separated numbers.
        #[arg(long, allow_hyphen_values = true)]
        impulse: String,
        /// Joint angles at capture, comma-separated, rad: refused when the design does not cover
        /// them [default: the design's pose].
        #[arg(long, allow_hyphen_values = true)]
        joint_angles: Option<String>,
        /// The target's mass, kg: refused when it is not the design's [default: the design's].
        #[arg(long)]
        target_mass: Option<f64>,
        /// Print the verdict as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Comma-separated numbers of the flag `--name`.
fn numbers(name: &str, text: &str) -> Result<Vec<f64>, String> {
    text.split(',')
        .map(|x| {
            x.trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
                format!("--{name}: `{}` is not a finite number (give comma-separated numbers)", x.trim())
            })
        })
        .collect()
}

/// `tumble capture check`.
pub(crate) fn check(cmd: &CaptureCommand) -> Result<(), Failure> {
    use tumble_control::capture_check::{Asked, CaptureCheck};
    let CaptureCommand::Check { design, state, impulse, joint_angles, target_mass, json } = cmd;
    let started = Instant::now();
    let check = CaptureCheck::load(design)?;
    let loaded = started.elapsed();
    let (state, impulse) = (numbers("state", state)?, numbers("impulse", impulse)?);
    let nv = check.chaser_velocities();
    if state.len() != nv + 6 {
        return Err(format!(
            "--state needs {} numbers (the chaser's {nv} velocity coordinates: base [ω; v] then joint rates; then the target's [v_G; ω]), got {}",
            nv + 6,
            state.len()
        )
        .into());
    }
    if impulse.len() != 6 {
        return Err(format!("--impulse needs 6 numbers ([N·s; N·m·s] at the grasp), got {}", impulse.len()).into());
    }
    let angles = joint_angles.as_deref().map(|a| numbers("joint-angles", a)).transpose()?;
    let on = Asked { joint_angles: angles.as_deref(), target_mass: *target_mass };
    let asked = Instant::now();
    let v = check.verdict_asked(on, &state[..nv], &state[nv..], &impulse)?;
    let answered = asked.elapsed();
    if *json {
        let out = serde_json::json!({
            "safe": v.safe, "V0": v.v0, "rho0": v.rho0, "margin": v.margin,
            "predicted_state": v.state.as_slice(), "answer_s": answered.as_secs_f64(),
            "design": design.display().to_string(), "scenario": check.file.scenario,
        });
        say!("{}", serde_json::to_string_pretty(&out).map_err(crate::output)?);
    } else {
        say!(
            "{}: V0 = {:.4e}, rho0 = {:.4e}, margin V0/rho0 = {:.3e} (answered in {:.1} µs; design loaded in {:.1} ms)",
            if v.safe { "safe" } else { "unsafe" },
            v.v0,
            v.rho0,
            v.margin,
            answered.as_secs_f64() * 1e6,
            loaded.as_secs_f64() * 1e3
        );
    }
    Ok(())
}
