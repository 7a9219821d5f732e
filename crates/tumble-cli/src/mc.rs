//! `tumble mc`: Monte Carlo campaigns on the CPU threads or the GPU.

use crate::{failed, invalid, overrides};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use tumble_sim::Scenario;

/// The engine of a campaign.
pub(crate) enum Engine {
    /// tumble-sim on the CPU threads.
    Cpu,
    /// tumble-gpu, `batch` runs at a time.
    Gpu { batch: Option<usize> },
}

/// The device backend, when this build has it.
#[cfg(feature = "gpu")]
fn gpu_campaign(
    c: &mut tumble_sim::campaign::Campaign,
    batch: Option<usize>,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(Vec<tumble_sim::campaign::RunRow>, u64), String> {
    use tumble_gpu::campaign::{DEFAULT_BATCH, check, execute};
    check(c)?;
    let gpu = tumble_gpu::Gpu::new()?;
    execute(c, &gpu, batch.unwrap_or(DEFAULT_BATCH), progress)
}

#[cfg(not(feature = "gpu"))]
fn gpu_campaign(
    _: &mut tumble_sim::campaign::Campaign,
    _: Option<usize>,
    _: &(dyn Fn(u64, u64) + Sync),
) -> Result<(Vec<tumble_sim::campaign::RunRow>, u64), String> {
    Err("this tumble was built without the `gpu` feature: rebuild it with `--features gpu`, or use `--backend cpu`"
        .into())
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn mc(
    path: &Path,
    runs: u64,
    seed: Option<u64>,
    threads: Option<usize>,
    out: Option<PathBuf>,
    resume: bool,
    only: Option<u64>,
    engine: Engine,
    set: &[String],
    quiet: bool,
) -> ExitCode {
    use tumble_sim::campaign::{Campaign, CampaignOptions, write_report};
    let sc = match overrides(set).and_then(|o| Scenario::load(path, &o).map_err(|e| e.to_string())) {
        Ok(sc) => sc,
        Err(e) => return invalid(e),
    };
    if let Some(i) = only
        && i >= tumble_sim::campaign::MAX_RUNS
    {
        return invalid(format!("--run must be below {}, got {i}", tumble_sim::campaign::MAX_RUNS));
    }
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        return invalid("--threads must be at least 1".into());
    }
    let options = CampaignOptions {
        runs: if let Some(i) = only { i + 1 } else { runs },
        seed: seed.unwrap_or(sc.file.seed),
        threads,
        out: out.unwrap_or_else(|| Path::new("out").join(format!("{}_mc", sc.file.name))),
        resume,
    };
    let mut campaign = match Campaign::new(sc, options) {
        Ok(c) => c,
        Err(e) => return invalid(e),
    };
    if let Some(i) = only {
        let dir = campaign.options.out.join(format!("run_{i}"));
        return match campaign.run_alone(i, &dir) {
            Ok(row) => {
                let k = campaign.kind.as_ref();
                let results: Vec<String> =
                    k.columns().iter().filter_map(|c| row.get(k, c).map(|x| format!("{c} = {x:.6}"))).collect();
                println!("run {i}: {} ({}); outputs in {}", row.status, results.join(", "), dir.display());
                ExitCode::SUCCESS
            }
            Err(e) => invalid(e),
        };
    }
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::new(campaign.options.runs);
        b.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} runs  {per_sec}  ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    };
    let started = Instant::now();
    let progress = |done, _| bar.set_position(done);
    let executed = match engine {
        Engine::Cpu => campaign.execute(&progress),
        Engine::Gpu { batch } => gpu_campaign(&mut campaign, batch, &progress),
    };
    let (rows, ran) = match executed {
        Ok(r) => r,
        Err(e) => {
            bar.abandon();
            return invalid(e);
        }
    };
    bar.finish_and_clear();
    let wall = started.elapsed().as_secs_f64();
    if let Err(e) = write_report(&campaign, &rows, wall, ran) {
        return failed(e);
    }
    if !quiet {
        let what = campaign.kind.headline(&rows);
        println!(
            "{}: {} runs ({what}) in {wall:.1} s on {threads} threads; outputs in {}",
            campaign.scenario.file.name,
            rows.len(),
            campaign.options.out.display()
        );
    }
    ExitCode::SUCCESS
}
