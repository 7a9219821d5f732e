//! The `tumble` command. Thin: parse arguments, call `tumble-sim`, report.
//!
//! Exit status: 0 success, 1 simulation failure, 2 invalid input.

use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

mod arm;
mod fit;
mod lqr;
mod shape;
mod view;
use tumble_sim::lander::{LanderModel, LanderOutcome, write_lander_run};
use tumble_sim::scenario::Kind;
use tumble_sim::{Model, Outcome, Scenario, simulate, write_run};

#[derive(Parser)]
#[command(
    name = "tumble",
    version,
    about = "Contact dynamics for space operations: run, check and benchmark scenarios."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario and write its outputs (timeseries.csv, summary.json, plots/).
    #[command(after_help = "Examples:
  tumble run scenarios/basics/dzhanibekov.toml
  tumble run scenarios/basics/orbit.toml --out results/orbit
  tumble run scenarios/basics/dzhanibekov.toml --set simulation.duration=120 --set bodies.handle.angular_velocity.1=6.0")]
    Run {
        /// Scenario file (TOML).
        scenario: PathBuf,
        /// Output folder [default: out/NAME, NAME the scenario's name].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Override a scenario value by its dotted key path: KEY=VALUE (VALUE in TOML syntax). Repeatable.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Print nothing but errors.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Serve a run's output folder to the browser viewer, read-only, on 127.0.0.1.
    #[command(after_help = "Examples:
  tumble view out/peg_in_hole             # then open the printed URL
  tumble view out/hopper_comet --port 8080")]
    View {
        /// A run's output folder (with animation.glb, timeseries.csv, plots/).
        dir: PathBuf,
        /// Port on 127.0.0.1 (0: any free port, printed).
        #[arg(long, default_value_t = 8765)]
        port: u16,
    },
    /// Monte Carlo campaign of a lander scenario or an asteroid capture over its
    /// `[dispersions]`: one row per run in runs.csv, summary.json, plots (landing sites and
    /// settling times; peak SADA moments and catch-up times).
    #[command(after_help = "Examples:
  tumble mc scenarios/lander/hopper_comet.toml --runs 16
  tumble mc scenarios/capture/asteroid_capture.toml --runs 200
  tumble mc scenarios/lander/cube_phobos.toml --runs 1000 --seed 7 --threads 2 --out out/phobos_mc
  tumble mc scenarios/lander/cube_phobos.toml --runs 1000 --seed 7 --out out/phobos_mc --resume
  tumble mc scenarios/lander/cube_phobos.toml --seed 7 --out out/phobos_mc --run 42   # one run, full outputs
  tumble mc scenarios/lander/comet_drop.toml --runs 100000 --backend gpu")]
    Mc {
        /// Scenario file (TOML) with `[lander]`, `[target]` and `[dispersions]` tables.
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
        /// Continue the campaign already in the output folder.
        #[arg(long)]
        resume: bool,
        /// Run only this run index, with the full outputs of `tumble run` (on the CPU), into
        /// OUT/run_I.
        #[arg(long, value_name = "I")]
        run: Option<u64>,
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
    },
    /// Capture of a tumbling target by a chaser with an arm (`[arm]` + `[capture]`): the
    /// post-capture state by every capture map, the TVLQR detumble, its funnel ρ(t) from sampled
    /// captures, and the verdict X₀ᵀS₀X₀ < ρ₀ checked against detumble simulations.
    #[command(after_help = "Examples:
  tumble capture scenarios/capture_map/tumbling_500kg.toml
  tumble capture scenarios/capture_map/tumbling_500kg.toml --samples 100 --verify 200 --threads 2")]
    Capture {
        /// Scenario file (TOML) with `[arm]` (free base) and `[capture]`.
        scenario: PathBuf,
        /// Output folder [default: out/NAME].
        #[arg(long)]
        out: Option<PathBuf>,
        /// Funnel-estimation samples [default: capture.roa.samples].
        #[arg(long)]
        samples: Option<u64>,
        /// Verdict-check samples [default: capture.roa.verify].
        #[arg(long)]
        verify: Option<u64>,
        /// Worker threads [default: all cores]; results do not depend on it.
        #[arg(long)]
        threads: Option<usize>,
        /// Override a scenario value: KEY=VALUE. Repeatable.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Print nothing but errors.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Validate a scenario without running it: prints `ok` or the errors.
    #[command(after_help = "Examples:
  tumble check scenarios/basics/orbit.toml
  tumble check my_case.toml --set bodies.sat.mass=-1   # prints the error, exit status 2")]
    Check {
        /// Scenario file (TOML).
        scenario: PathBuf,
        /// Override a scenario value: KEY=VALUE. Repeatable.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// LQR design: gain K, Riccati solution S and closed-loop eigenvalues for A, B, Q, R (and
    /// optionally N) given as nested arrays in a JSON file.
    #[command(
        after_help = "Example system.json: {\"A\": [[0, 1], [0, 0]], \"B\": [[0], [1]], \"Q\": [[4, 0], [0, 0]], \"R\": [[1]]}\n\nExamples:\n  tumble lqr system.json\n  tumble lqr system.json --json"
    )]
    Lqr {
        /// JSON file with A, B, Q, R (and optionally N).
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Identify contact laws from measured data.
    #[command(subcommand)]
    Fit(fit::FitCommand),
    /// Robot arms from URDF: joints, mass matrix, bias forces, Jacobian.
    #[command(subcommand)]
    Arm(arm::ArmCommand),
    /// Shape models: validation reports, mass properties, repair.
    #[command(subcommand)]
    Mesh(MeshCommand),
    /// Signed distance fields: build a grid SDF from a mesh, query one at points.
    #[command(subcommand)]
    Sdf(SdfCommand),
    /// Polyhedron gravity of a shape model at points from a CSV file.
    #[command(after_help = "Examples:
  tumble gravity --mesh eros.obj --unit km --density 2670 --points points.csv --out gravity.csv

POINTS holds lines `x,y,z` in m (a header line is allowed). The output has columns
x,y,z,potential,ax,ay,az in SI: `potential` is the potential energy per unit mass U (J/kg,
negative) and a = -grad U points toward the body.")]
    Gravity {
        /// Closed, outward triangle mesh (.obj, .stl, .ply, .tab, .icq).
        #[arg(long)]
        mesh: PathBuf,
        /// Unit of the mesh coordinates: m, km, or a scale factor to metres.
        #[arg(long)]
        unit: String,
        /// Uniform density, kg/m³.
        #[arg(long, allow_negative_numbers = true)]
        density: f64,
        /// CSV of points x,y,z (m).
        #[arg(long)]
        points: PathBuf,
        /// Output CSV.
        #[arg(long)]
        out: PathBuf,
        /// Worker threads [default: all cores]; results do not depend on it.
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Benchmark integrators and grid SDF queries (single-threaded): steps or queries per second.
    #[command(after_help = "Examples:
  tumble bench
  tumble bench --scale 0.1 --csv bench.csv")]
    Bench {
        /// Multiplier of the step counts (1.0 takes a few seconds).
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// Also write the figures to this CSV file.
        #[arg(long)]
        csv: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum MeshCommand {
    /// Validation report and, with a density, mass properties (SI).
    #[command(after_help = "Examples:
  tumble mesh info itokawa.obj --unit km
  tumble mesh info itokawa.obj --unit km --density 1950 --json")]
    Info {
        /// Triangle mesh (.obj, .stl, .ply, .tab, .icq).
        file: PathBuf,
        /// Unit of the coordinates: m, km, or a scale factor to metres.
        #[arg(long)]
        unit: String,
        /// Uniform density, kg/m³: adds mass, centre of mass and inertia.
        #[arg(long, allow_negative_numbers = true)]
        density: Option<f64>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Weld duplicate vertices, drop degenerate faces and unused vertices, orient faces
    /// consistently and outward.
    #[command(after_help = "Examples:
  tumble mesh repair scan.obj --unit m --out scan_fixed.obj
  tumble mesh repair scan.obj --unit km --weld 1e-3 --out scan_fixed.obj")]
    Repair {
        /// Triangle mesh (.obj, .stl, .ply, .tab, .icq).
        file: PathBuf,
        /// Unit of the coordinates (also used for the output).
        #[arg(long)]
        unit: String,
        /// Output mesh (.obj, or .stl for binary STL).
        #[arg(long)]
        out: PathBuf,
        /// Merge vertices closer than this, in m [default: exact duplicates only].
        #[arg(long, default_value_t = 0.0)]
        weld: f64,
    },
}

#[derive(Subcommand)]
enum SdfCommand {
    /// Sample a closed mesh's exact signed distance (negative inside) on a grid.
    #[command(after_help = "Examples:
  tumble sdf build itokawa.obj --unit km --resolution 128 --out itokawa.sdf
  tumble sdf build 67p.obj --unit km --resolution 256 --trilinear --out 67p.sdf
  tumble sdf build scan.obj --unit m --resolution 64 --padding 0.5 --unsigned --out scan.sdf
  tumble sdf build --body comet --size 4000 --seed 3 --resolution 128 --out comet.sdf --mesh-out comet.obj")]
    Build {
        /// Triangle mesh (.obj, .stl, .ply, .tab, .icq); or use --body.
        file: Option<PathBuf>,
        /// Unit of the mesh coordinates: m, km, or a scale factor to metres.
        #[arg(long)]
        unit: Option<String>,
        /// A procedural body instead of a mesh: `comet` (bilobed) or `pear`.
        #[arg(long, conflicts_with_all = ["file", "unit", "unsigned", "trilinear"])]
        body: Option<String>,
        /// Overall length of the procedural body, m.
        #[arg(long, default_value_t = 4000.0, requires = "body")]
        size: f64,
        /// Seed of the procedural body's terrain.
        #[arg(long, default_value_t = 0, requires = "body")]
        seed: u64,
        /// The procedural body without fBm terrain.
        #[arg(long, requires = "body")]
        no_terrain: bool,
        /// Also write the procedural body's closed mesh (.obj), sampled at the grid spacing.
        #[arg(long, requires = "body")]
        mesh_out: Option<PathBuf>,
        /// Cells along the longest side of the padded bounding box (a mesh) or along the body's
        /// length (--body).
        #[arg(long)]
        resolution: usize,
        /// Margin around the bounding box, m [default: 5 % of its longest side].
        #[arg(long)]
        padding: Option<f64>,
        /// Output file (.sdf).
        #[arg(long)]
        out: PathBuf,
        /// Build unsigned distances from a mesh that is not closed and outward.
        #[arg(long)]
        unsigned: bool,
        /// Interpolate trilinearly everywhere instead of answering exactly within two cells of
        /// the surface (about 30× faster near-surface queries, errors up to a quarter cell at
        /// the mesh's creases; the file also omits the mesh).
        #[arg(long)]
        trilinear: bool,
    },
    /// Signed distance and unit gradient at points from a CSV file.
    #[command(after_help = "Examples:
  tumble sdf query itokawa.sdf --points points.csv --out distances.csv

POINTS holds lines `x,y,z` in m; the output has columns x,y,z,distance,nx,ny,nz.")]
    Query {
        /// Grid SDF file written by `tumble sdf build`.
        file: PathBuf,
        /// CSV of points x,y,z (m).
        #[arg(long)]
        points: PathBuf,
        /// Output CSV.
        #[arg(long)]
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Run { scenario, out, set, quiet } => run(&scenario, out, &set, quiet),
        Command::Check { scenario, set } => match load(&scenario, &set) {
            Ok((_, job)) => {
                if let Job::Lander(m) = &job {
                    m.warnings.iter().for_each(|w| eprintln!("warning: {w}"));
                }
                println!("ok");
                ExitCode::SUCCESS
            }
            Err(code) => code,
        },
        Command::Mc { scenario, runs, seed, threads, out, resume, run, backend, batch, set, quiet } => {
            let engine = if backend == "gpu" { Engine::Gpu { batch } } else { Engine::Cpu };
            mc(&scenario, runs, seed, threads, out, resume, run, engine, &set, quiet)
        }
        Command::Bench { scale, csv } => bench(scale, csv.as_deref()),
        Command::View { dir, port } => exit(view::serve(&dir, port)),
        Command::Arm(cmd) => exit(arm::run(cmd)),
        Command::Fit(cmd) => exit(fit::run(cmd)),
        Command::Capture { scenario, out, samples, verify, threads, set, quiet } => {
            let mut set = set;
            set.extend(samples.map(|n| format!("capture.roa.samples={n}")));
            set.extend(verify.map(|n| format!("capture.roa.verify={n}")));
            capture(&scenario, out, threads, &set, quiet)
        }
        Command::Lqr { file, json } => exit(lqr::run(&file, json)),
        Command::Mesh(cmd) => exit(shape::run(cmd)),
        Command::Sdf(cmd) => exit(shape::sdf(cmd)),
        Command::Gravity { mesh, unit, density, points, out, threads } => {
            exit(shape::gravity(&mesh, &unit, density, &points, &out, threads))
        }
    }
}

/// Maps a tool's result to the exit status: errors are invalid input (2).
fn exit(r: Result<(), String>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => invalid(e),
    }
}

/// Reports invalid input: exit status 2.
fn invalid(msg: String) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

/// Reports a run that failed or could not write its outputs: exit status 1.
fn failed(msg: String) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(1)
}

/// What a scenario describes.
enum Job {
    /// Free rigid bodies.
    Rigid(Box<Model>),
    /// A lander on a small body.
    Lander(Box<LanderModel>),
    /// An articulated system.
    Arm(Box<tumble_sim::arm::ArmModel>),
    /// A capture study (`tumble capture`).
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
    Trampoline(Box<tumble_sim::asteroid_capture::AsteroidCapture>),
}

fn overrides(set: &[String]) -> Result<Vec<(String, String)>, String> {
    set.iter()
        .map(|s| match s.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
            _ => Err(format!("--set `{s}`: expected KEY=VALUE, e.g. --set bodies.target.mass=2.5")),
        })
        .collect()
}

/// The engine of a campaign.
enum Engine {
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
fn mc(
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
                let k = &campaign.kind;
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
    let summary = match write_report(&campaign, &rows, wall, ran) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    if !quiet {
        let median = |v: &serde_json::Value| v["median"].as_f64().map_or("-".into(), |t| format!("{t:.1}"));
        let what = match campaign.kind {
            tumble_sim::campaign::Kind::Lander(_) => format!(
                "{} settled, {} escaped, {} failed; median settling time {} s",
                summary["settled"],
                summary["escaped"],
                summary["failed"],
                median(&summary["settle_time_s"])
            ),
            tumble_sim::campaign::Kind::Capture => format!(
                "{} caught up, {} in contact, {} separated, {} failed; peak SADA bending median {} N·m, max {} N·m, {} over the limit; catch-up after contact median {} s",
                summary["caught_up"],
                summary["in_contact_not_caught_up"],
                summary["separated"],
                summary["failed"],
                median(&summary["peak_sada_bending_N_m"]),
                summary["peak_sada_bending_N_m"]["max"].as_f64().map_or("-".into(), |t| format!("{t:.1}")),
                summary["runs_over_sada_limit"],
                median(&summary["catch_up_after_contact_s"])
            ),
        };
        println!(
            "{}: {} runs ({what}) in {wall:.1} s on {threads} threads; outputs in {}",
            campaign.scenario.file.name,
            rows.len(),
            campaign.options.out.display()
        );
    }
    ExitCode::SUCCESS
}

fn capture(path: &Path, out: Option<PathBuf>, threads: Option<usize>, set: &[String], quiet: bool) -> ExitCode {
    use tumble_sim::capture::{CaptureStudy, confusion, write_capture};
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
        println!("{}: capture maps (relative difference from the constrained impulse):", study.name);
        for (name, _, diff) in &report.maps {
            println!("  {name:<36} {diff:.2e}");
        }
        let rho0 = report.funnel.rho0;
        println!(
            "nominal capture detumbled; funnel inlet rho0 = {rho0:.4e} from {} sampled captures ({} failed){}",
            report.estimation.len(),
            report.estimation.iter().filter(|s| !s.rollout.success).count(),
            if report.funnel.bounded { "" } else { ": no sampled failure, rho0 is a lower bound" },
        );
        if let Some((v0, r)) = &report.online {
            println!(
                "online check of capture.measured_impulse: V0 = {v0:.4e}, margin V0/rho0 = {:.3e}: predicted {}; the detumble from the predicted state {}",
                v0 / rho0,
                if *v0 < rho0 { "safe" } else { "unsafe" },
                r.failure.as_deref().unwrap_or("succeeds")
            );
        }
        let m = confusion(&report.verification, rho0);
        println!(
            "verdict on {} sampled captures: safe & detumbled {}, safe & failed {} (false safe), unsafe & detumbled {}, unsafe & failed {}",
            report.verification.len(),
            m[0][0],
            m[0][1],
            m[1][0],
            m[1][1]
        );
        println!("{total} detumbles in {wall:.1} s on {threads} threads; outputs in {}", out.display());
    }
    ExitCode::SUCCESS
}

/// Reads, patches and validates a scenario; on failure prints the error and returns exit 2.
fn load(path: &Path, set: &[String]) -> Result<(Scenario, Job), ExitCode> {
    let overrides = overrides(set).map_err(invalid)?;
    let sc = Scenario::load(path, &overrides).map_err(|e| invalid(e.to_string()))?;
    let bad = |e: tumble_sim::ScenarioError| invalid(e.to_string());
    let job = match sc.kind {
        Kind::CaptureMap => {
            tumble_sim::capture::CaptureStudy::build(&sc).map_err(bad)?;
            Job::Capture
        }
        Kind::Snare => Job::Snare(Box::new(tumble_sim::snare::WireExperiment::build(&sc).map_err(bad)?)),
        Kind::MembraneCapture => {
            Job::Trampoline(Box::new(tumble_sim::asteroid_capture::AsteroidCapture::build(&sc).map_err(bad)?))
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
struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    total: f64,
    quiet: bool,
}

impl Progress {
    fn new(total: f64, quiet: bool) -> Self {
        Self { bar: None, started: Instant::now(), total, quiet }
    }

    fn update(&mut self, t: f64) {
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

    fn finish(self) {
        if let Some(b) = self.bar {
            b.finish_and_clear();
        }
    }
}

fn run(path: &Path, out: Option<PathBuf>, set: &[String], quiet: bool) -> ExitCode {
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
            invalid(format!("{}: a capture study runs with `tumble capture {}`", path.display(), path.display()))
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
    let every = sc.file.simulation.output_interval.map_or(1, |oi| ((oi / exp.dt).round() as usize).max(1));
    let summary = match tumble_sim::snare::write_wire_run(&out, &sc.file.name, exp, &run, every) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    if !quiet {
        println!(
            "{}: impulse {} N·s, peak force {:.2} N, deepest {:.2} mm (Q = {:.2} mm), final velocity {} m/s, ω {:.4} rad/s; {:.2} s wall; outputs in {}",
            sc.file.name,
            summary["impulse_Ns"],
            summary["peak_force_N"].as_f64().unwrap_or(0.0),
            run.max_delta * 1e3,
            run.wire.as_ref().map_or(0.0, |w| w.slack * 1e3),
            summary["final_velocity_m_s"],
            summary["final_angular_velocity_rad_s"].as_f64().unwrap_or(0.0),
            wall,
            out.display()
        );
    }
    ended(run.diagnosis.as_ref().map(ToString::to_string), &out)
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
        println!(
            "{}: {} — peak wire force {:.1} N, impulse {} N·s, payload velocity {} → {} m/s, attitude {} deg, largest joint excursion {:.3} deg; t = {} s in {:.2} s wall ({:.0}× real time); outputs in {}",
            cap.name,
            summary["outcome"].as_str().unwrap_or("?"),
            summary["peak_wire_force_N"].as_f64().unwrap_or(0.0),
            fmt3(&summary["impulse_Ns"]),
            fmt3(&summary["payload_velocity_initial_m_s"]),
            fmt3(&summary["payload_velocity_final_m_s"]),
            fmt3(&summary["payload_attitude_final_deg"]),
            summary["largest_joint_excursion_deg"].as_f64().unwrap_or(0.0),
            summary["final_time_s"],
            run.wall_s,
            summary["real_time_factor"].as_f64().unwrap_or(0.0),
            out.display()
        );
    }
    if run.diagnosis.is_some() {
        return ended(run.diagnosis.as_ref().map(ToString::to_string), &out);
    }
    if let (Some(why), false) = (&run.failure, quiet) {
        println!("capture failed: {why}");
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
        println!(
            "{}: {} — contacts {} s, peak normal force {:.1} N, depth {:.3} m, area {:.2} m² (A₀ {:.2}), velocity {} → {} m/s; energy budget {:.4} → {:.4} J (damping {:.3} J, friction {:.3} J); t = {} s in {:.3} s wall ({:.0}× real time); outputs in {}",
            m.name,
            summary["outcome"].as_str().unwrap_or("?"),
            summary["contacts_s"]
                .as_array()
                .map(|a| a
                    .iter()
                    .map(|e| format!("{:.2}–{:.2}", e[0].as_f64().unwrap_or(0.0), e[1].as_f64().unwrap_or(0.0)))
                    .collect::<Vec<_>>()
                    .join(", "))
                .unwrap_or_default(),
            summary["peak_normal_force_N"].as_f64().unwrap_or(0.0),
            summary["peak_depth_m"].as_f64().unwrap_or(0.0),
            summary["peak_area_m2"].as_f64().unwrap_or(0.0),
            summary["membrane_area0_m2"].as_f64().unwrap_or(0.0),
            fmt3(&summary["velocity_initial_m_s"]),
            fmt3(&summary["velocity_final_m_s"]),
            summary["energy_budget_initial_J"].as_f64().unwrap_or(0.0),
            summary["energy_budget_final_J"].as_f64().unwrap_or(0.0),
            summary["damping_loss_J"].as_f64().unwrap_or(0.0),
            summary["friction_loss_J"].as_f64().unwrap_or(0.0),
            summary["final_time_s"],
            run.wall_s,
            summary["real_time_factor"].as_f64().unwrap_or(0.0),
            out.display()
        );
    }
    ended(run.diagnosis.as_ref().map(ToString::to_string), &out)
}

fn run_mechanism(out: Option<PathBuf>, m: &tumble_sim::mechanism::Mechanism, quiet: bool) -> ExitCode {
    let out = out.unwrap_or_else(|| Path::new("out").join(&m.name));
    let run = m.run();
    let summary = match tumble_sim::mechanism::write_mechanism_run(&out, m, &run) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    if !quiet {
        let bodies = summary["bodies"]
            .as_object()
            .map(|b| {
                b.iter()
                    .map(|(name, v)| {
                        format!(
                            "{name} at {} m, v {} m/s, contact force {} N (peak {:.1} N)",
                            fmt3(&v["position_final_m"]),
                            fmt3(&v["velocity_final_m_s"]),
                            fmt3(&v["contact_force_final_N"]),
                            v["peak_contact_force_N"].as_f64().unwrap_or(0.0)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .unwrap_or_default();
        println!(
            "{}: {bodies}; {} contacts at the end (peak {}), {} primitives; energy {:.4} → {:.4} J; t = {} s in {:.3} s wall ({:.0}× real time); outputs in {}",
            m.name,
            summary["contacts_final"],
            summary["contacts_peak"],
            summary["primitives"],
            summary["energy_initial_J"].as_f64().unwrap_or(0.0),
            summary["energy_final_J"].as_f64().unwrap_or(0.0),
            summary["final_time_s"],
            run.wall_s,
            summary["real_time_factor"].as_f64().unwrap_or(0.0),
            out.display()
        );
    }
    ended(run.diagnosis.as_ref().map(ToString::to_string), &out)
}

fn run_trampoline(out: Option<PathBuf>, m: &tumble_sim::asteroid_capture::AsteroidCapture, quiet: bool) -> ExitCode {
    let out = out.unwrap_or_else(|| Path::new("out").join(&m.name));
    let mut progress = Progress::new(m.duration, quiet);
    let run = m.run_with(&mut |t| progress.update(t));
    progress.finish();
    let summary = match tumble_sim::asteroid_capture::write_capture_run(&out, m, &run) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    if !quiet {
        let f = |k: &str| summary[k].as_f64().map_or("—".to_string(), |x| format!("{x:.1}"));
        println!(
            "{}: {} — contact at {} s, caught up at {} s (|Δω| < {} rad/s); peak SADA bending {} N·m (limit {}), peak membrane force {} N, peak slip {:.3} m/s, relative rate {:.5} rad/s at the end; energy budget {:.1} → {:.1} J; t = {} s in {:.3} s wall ({:.0}× real time); outputs in {}",
            m.name,
            summary["outcome"].as_str().unwrap_or("?"),
            f("contact_time_s"),
            f("catch_up_time_s"),
            m.catch_up_rate,
            fmt3(&summary["peak_sada_bending_N_m"]),
            m.moment_limit,
            f("peak_normal_force_N"),
            summary["peak_slip_m_s"].as_f64().unwrap_or(0.0),
            summary["relative_rate_final_rad_s"].as_f64().unwrap_or(0.0),
            summary["energy_budget_initial_J"].as_f64().unwrap_or(0.0),
            summary["energy_budget_final_J"].as_f64().unwrap_or(0.0),
            summary["final_time_s"],
            run.wall_s,
            summary["real_time_factor"].as_f64().unwrap_or(0.0),
            out.display()
        );
    }
    ended(run.diagnosis.as_ref().map(ToString::to_string), &out)
}

/// A run stopped early with diagnosis `d`: says so and where its samples are, exit status 1.
/// Success, or the run's diagnosis and where its samples up to the failure are (exit 1).
fn ended(diagnosis: Option<String>, out: &Path) -> ExitCode {
    let Some(d) = diagnosis else { return ExitCode::SUCCESS };
    eprintln!("error: simulation failed: {d}");
    eprintln!("samples up to the failure are in {}", out.display());
    ExitCode::from(1)
}

/// A JSON array of numbers as `[a, b, c]` with 4 significant digits.
fn fmt3(v: &serde_json::Value) -> String {
    let xs: Vec<String> = v
        .as_array()
        .map(|a| a.iter().map(|x| format!("{:.4}", x.as_f64().unwrap_or(f64::NAN))).collect())
        .unwrap_or_default();
    format!("[{}]", xs.join(", "))
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
    if let Some(d) = &run.failure {
        eprintln!("error: simulation failed: {d}");
        eprintln!("samples up to the failure are in {}", out.display());
        return ExitCode::from(1);
    }
    if !quiet {
        println!(
            "{}: {} degrees of freedom, t = {} s in {wall:.2} s wall; energy {:.6e} → {:.6e} J; outputs in {}",
            model.name,
            summary["degrees_of_freedom"],
            summary["final_time_s"],
            summary["energy_initial_J"].as_f64().unwrap_or(f64::NAN),
            summary["energy_final_J"].as_f64().unwrap_or(f64::NAN),
            out.display()
        );
    }
    ExitCode::SUCCESS
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
    let summary = match write_lander_run(&out, &model, &run) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    if let LanderOutcome::Failed(d) = &run.outcome {
        eprintln!("error: simulation failed: {d}");
        eprintln!("samples up to the failure are in {}", out.display());
        return ExitCode::from(1);
    }
    if !quiet {
        println!(
            "{}: {} at t = {:.3} s after {} bounces ({:.0} steps in {wall:.2} s wall); outputs in {}",
            model.name,
            summary["status"].as_str().unwrap_or("?"),
            run.final_time,
            run.bounces(),
            run.final_time / model.settings.dt,
            out.display()
        );
        if let (Some(lat), Some(lon)) = (summary["latitude_deg"].as_f64(), summary["longitude_deg"].as_f64()) {
            println!("landing site: latitude {lat:.3}°, longitude {lon:.3}°");
        }
        println!("max penetration {:.3e} m; energy balance error {:.3e} J", run.max_penetration, run.max_balance_error);
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
                println!("{line}");
                if let Outcome::Stopped { event } = &res.outcome {
                    println!("stopped: {event}");
                }
                if let Some(d) = summary["metrics"]["energy_drift_rel"].as_f64() {
                    println!("energy drift (relative): {d:.3e}");
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

fn bench(scale: f64, csv: Option<&Path>) -> ExitCode {
    if !(scale.is_finite() && scale > 0.0) {
        return invalid(format!("--scale must be a positive number, got {scale}"));
    }
    let results = tumble_sim::bench::run_all(scale);
    println!("{:<36} {:>7} {:>10} {:>14} {:>16}", "case", "bodies", "steps", "steps/s", "ns/body-step");
    let mut rows = vec!["case,bodies,steps,seconds,steps_per_second,ns_per_body_step".to_string()];
    for r in &results {
        println!(
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
        && let Err(e) = std::fs::write(p, rows.join("\n") + "\n")
    {
        return failed(format!("{}: cannot write: {e}", p.display()));
    }
    ExitCode::SUCCESS
}
