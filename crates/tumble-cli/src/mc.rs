//! `tumble mc`: Monte Carlo campaigns on the CPU threads or the GPU.

use crate::{failed, invalid, overrides};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;
use tumble_sim::campaign::{
    Accounting, Campaign, CampaignOptions, Shard, Worker, merge, write_report, write_shard_record,
};

/// Rows, runs executed, and the device that ran them.
type DeviceRuns = (Vec<tumble_sim::campaign::RunRow>, u64, String);

/// The device backend, when this build has it.
#[cfg(feature = "gpu")]
fn gpu_campaign(
    c: &mut tumble_sim::campaign::Campaign,
    batch: Option<usize>,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<DeviceRuns, String> {
    use tumble_gpu::campaign::{DEFAULT_BATCH, check, execute};
    check(c)?;
    let gpu = tumble_gpu::Gpu::new()?;
    let (rows, ran) = execute(c, &gpu, batch.unwrap_or(DEFAULT_BATCH), progress)?;
    Ok((rows, ran, gpu.name()))
}

#[cfg(not(feature = "gpu"))]
fn gpu_campaign(
    _: &mut tumble_sim::campaign::Campaign,
    _: Option<usize>,
    _: &(dyn Fn(u64, u64) + Sync),
) -> Result<DeviceRuns, String> {
    Err("this tumble was built without the `gpu` feature: rebuild it with `--features gpu`, or use `--backend cpu`"
        .into())
}

/// `tumble mc`'s arguments.
#[derive(clap::Args)]
pub(crate) struct McArgs {
    /// Scenario file (TOML) with a `[dispersions]` table.
    scenario: PathBuf,
    /// Number of runs.
    #[arg(long, default_value_t = 100)]
    runs: u64,
    /// Campaign seed [default: the scenario's `seed`].
    #[arg(long)]
    seed: Option<u64>,
    /// Worker threads [default: all cores].
    #[arg(long)]
    threads: Option<usize>,
    /// Output folder [default: out/NAME_mc, NAME the scenario's name].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Continue the campaign already in the output folder (or start it, if there is none).
    #[arg(long)]
    resume: bool,
    /// Run only this run index, with the full outputs of `tumble run` (on the CPU), into
    /// OUT/run_I.
    #[arg(long, value_name = "I", conflicts_with_all = ["shard", "merge"])]
    run: Option<u64>,
    /// Run only shard K of N (K from 0: runs ⌊K·runs/N⌋ to ⌊(K+1)·runs/N⌋ − 1) into --out, for a
    /// batch scheduler's job array; `--merge` combines the shards' folders.
    #[arg(long, value_name = "K/N", value_parser = |s: &str| s.parse::<Shard>())]
    shard: Option<Shard>,
    /// Merge these finished shard folders into --out instead of running (the same scenario,
    /// --runs, --seed, --set and --backend as the shards); refuses missing, duplicated, foreign,
    /// unfinished or altered shards, naming them.
    #[arg(long, value_name = "DIR", num_args = 1.., conflicts_with = "shard")]
    merge: Vec<PathBuf>,
    /// With --merge and no key in TUMBLE_SHARD_KEY: how many runs of each shard, drawn at
    /// random, the merge runs again and compares bit for bit with the shard's rows (0: none).
    #[arg(long, value_name = "N", default_value_t = 1, requires = "merge")]
    verify_runs: u64,
    /// Engine: `cpu` (the threads of --threads) or `gpu` (lander campaigns on a Vulkan
    /// device with 64-bit float shaders: an NVIDIA GPU, or Mesa's lavapipe on the CPU).
    #[arg(long, default_value = "cpu", value_parser = ["cpu", "gpu"])]
    backend: String,
    /// Runs per device batch with `--backend gpu` [default: 262144, or what the device's
    /// buffers hold].
    #[arg(long, value_name = "N")]
    batch: Option<usize>,
    /// Override a scenario value before dispersions: KEY=VALUE. Repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Print nothing but errors.
    #[arg(long, short)]
    quiet: bool,
}

/// Progress on a terminal: indicatif's bar; elsewhere (a batch job's log): a line with rate and
/// ETA at most every `LOG_EVERY`.
struct Progress {
    bar: ProgressBar,
    /// What the log lines name, when they are printed.
    log: Option<String>,
    /// When the last line was printed, and the runs done before this invocation.
    last: Mutex<(Instant, Option<u64>)>,
    started: Instant,
}

/// Shortest interval between two progress lines in a log, s.
const LOG_EVERY: f64 = 30.0;

impl Progress {
    fn new(total: u64, quiet: bool, what: String) -> Self {
        let tty = std::io::stderr().is_terminal();
        let bar = if quiet || !tty {
            ProgressBar::hidden()
        } else {
            let b = ProgressBar::new(total);
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} runs  {per_sec}  ETA {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b
        };
        let log = (!quiet && !tty).then_some(what);
        Self { bar, log, last: Mutex::new((Instant::now(), None)), started: Instant::now() }
    }

    fn update(&self, done: u64, total: u64) {
        self.bar.set_position(done);
        let Some(what) = &self.log else { return };
        let mut state = self.last.lock().unwrap_or_else(|p| p.into_inner());
        // The runs a resume found done do not count in the rate.
        let before = *state.1.get_or_insert(done.saturating_sub(1));
        if state.0.elapsed().as_secs_f64() < LOG_EVERY && done < total {
            return;
        }
        state.0 = Instant::now();
        let t = self.started.elapsed().as_secs_f64();
        let rate = (done - before.min(done)) as f64 / t.max(1e-9);
        let eta = if rate > 0.0 { format!("{:.0} s", (total - done) as f64 / rate) } else { "?".into() };
        tell!("{what}: {done}/{total} runs, {rate:.2} runs/s, {t:.0} s elapsed, ETA {eta}");
    }
}

pub(crate) fn mc(a: &McArgs) -> ExitCode {
    let sc =
        match overrides(&a.set).and_then(|o| tumble_sim::registry::load(&a.scenario, &o).map_err(|e| e.to_string())) {
            Ok(sc) => sc,
            Err(e) => return invalid(e),
        };
    if let Some(i) = a.run
        && i >= tumble_sim::campaign::MAX_RUNS
    {
        return invalid(format!("--run must be below {}, got {i}", tumble_sim::campaign::MAX_RUNS));
    }
    let threads = a.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        return invalid("--threads must be at least 1".into());
    }
    let options = CampaignOptions {
        runs: if let Some(i) = a.run { i + 1 } else { a.runs },
        seed: a.seed.unwrap_or(sc.file.seed),
        threads,
        out: a.out.clone().unwrap_or_else(|| Path::new("out").join(format!("{}_mc", sc.file.name))),
        resume: a.resume,
        shard: a.shard,
    };
    if let Err(code) = crate::out_folder(&options.out) {
        return code;
    }
    let mut campaign = match tumble_sim::registry::campaign(sc, options) {
        Ok(c) => c,
        Err(e) => return invalid(e),
    };
    if let Some(i) = a.run {
        return run_alone(&campaign, i);
    }
    if !a.merge.is_empty() {
        return merge_shards(&mut campaign, a, threads);
    }
    let started = Instant::now();
    let range = campaign.indices();
    let what = match campaign.options.shard {
        Some(s) => format!("{} shard {s}", campaign.scenario.file.name),
        None => campaign.scenario.file.name.clone(),
    };
    // What a campaign's folder already holds (another campaign, one to resume) is input.
    if let Err(e) = campaign.check_output() {
        return invalid(e);
    }
    let progress = Progress::new(range.end - range.start, a.quiet, what.clone());
    let update = |done, total| progress.update(done, total);
    // The GPU's errors are mostly its refusals of the campaign (a kind or a model it does not
    // run, no device): input, 2. The CPU's are failures to write its rows: 1.
    let executed = match a.backend.as_str() {
        "gpu" => gpu_campaign(&mut campaign, a.batch, &update)
            .map(|(rows, ran, name)| (rows, ran, Some(name)))
            .map_err(invalid),
        _ => campaign.execute(&update).map(|(rows, ran)| (rows, ran, None)).map_err(failed),
    };
    let (rows, ran, device) = match executed {
        Ok(r) => r,
        Err(code) => {
            progress.bar.abandon();
            return code;
        }
    };
    progress.bar.finish_and_clear();
    let wall = started.elapsed().as_secs_f64();
    // A device campaign's runs ran on the device, not on this invocation's threads.
    let accounting = match &device {
        Some(name) => Accounting {
            workers: vec![Worker { name: format!("GPU: {name}"), runs: ran, wall_time_s: wall }],
            ..Accounting::new(wall, ran, 0)
        },
        None => Accounting::new(wall, ran, threads),
    };
    let written = match campaign.options.shard {
        Some(_) => write_shard_record(&campaign, &rows, &accounting),
        None => write_report(&campaign, &rows, &accounting).map(|_| ()),
    };
    if let Err(e) = written {
        return failed(e);
    }
    if let Some(first) = rows.first()
        && rows.iter().all(|r| r.status == "invalid")
    {
        let out = campaign.options.out.display();
        return invalid(format!(
            "every run's dispersed values make an invalid scenario (rows in {out}/runs.csv); run {}: {}",
            first.index, first.note
        ));
    }
    if !a.quiet {
        let headline = campaign.kind.headline(&rows);
        say!(
            "{what}: {} runs ({headline}) in {wall:.1} s on {}; outputs in {}",
            rows.len(),
            device.map_or_else(|| format!("{threads} threads"), |name| format!("the GPU ({name})")),
            campaign.options.out.display()
        );
    }
    ExitCode::SUCCESS
}

/// `--merge DIR…`: the shards checked and merged into the campaign's folder, then its report.
fn merge_shards(campaign: &mut Campaign, a: &McArgs, threads: usize) -> ExitCode {
    let started = Instant::now();
    // The shards' identity names the engine that ran them.
    if a.backend == "gpu" {
        campaign.backend = Some("gpu".into());
    }
    let merged = match merge(campaign, &a.merge, a.verify_runs) {
        Ok(m) => m,
        Err(e) => return invalid(e),
    };
    let (rows, workers) = (merged.rows, merged.workers);
    let accounting = Accounting { workers, ..Accounting::new(started.elapsed().as_secs_f64(), 0, threads) };
    if let Err(e) = write_report(campaign, &rows, &accounting) {
        return failed(e);
    }
    if !a.quiet {
        let what = campaign.kind.headline(&rows);
        let n = accounting.workers.len();
        let (name, out) = (&campaign.scenario.file.name, campaign.options.out.display());
        say!("{name}: {} runs ({what}) merged from {n} shards ({}); outputs in {out}", rows.len(), merged.verified);
    }
    ExitCode::SUCCESS
}

/// `--run I`: run `i` alone with its full outputs.
fn run_alone(campaign: &Campaign, i: u64) -> ExitCode {
    let dir = campaign.options.out.join(format!("run_{i}"));
    match campaign.run_alone(i, &dir) {
        Ok(row) => {
            let k = campaign.kind.as_ref();
            let results: Vec<String> =
                k.columns().iter().filter_map(|c| row.get(k, c).map(|x| format!("{c} = {x:.6}"))).collect();
            say!("run {i}: {} ({}); outputs in {}", row.status, results.join(", "), dir.display());
            ExitCode::SUCCESS
        }
        Err(e) => invalid(e),
    }
}
