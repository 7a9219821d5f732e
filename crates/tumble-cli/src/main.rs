//! The `tumble` command. Thin: parse arguments, call `tumble-sim`, report.
//!
//! Exit status: 0 success, 1 simulation failure, 2 invalid input.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// `println!` for the command's output: a closed standard output (`tumble check F | head -1`)
/// ends the process quietly with status 0, as the reader asked for no more; another write error
/// is reported with status 1.
macro_rules! say {
    () => { $crate::say_line(format_args!("")) };
    ($($t:tt)*) => { $crate::say_line(format_args!($($t)*)) };
}

/// `eprintln!` for messages (errors, warnings, progress): a standard error that cannot be
/// written (closed, or a pipe whose reader is gone) loses the message but never ends the command
/// with a panic; its exit status still says what happened.
macro_rules! tell {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($t)*);
    }};
}

mod arm;
mod bench;
mod capture_map;
mod fit;
mod lqr;
mod mc;
mod model;
mod run;
mod shape;
mod view;

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
    /// Monte Carlo campaign of a scenario of any kind over its `[dispersions]`: one row per run
    /// in runs.csv (the kind's result columns), summary.json, plots (landing sites, settling
    /// times, peak SADA moments, … per kind).
    #[command(after_help = "Examples:
  tumble mc scenarios/lander/hopper_comet.toml --runs 16
  tumble mc scenarios/membrane/asteroid_capture.toml --runs 200
  tumble mc scenarios/snare/jemrms_snare.toml --runs 50
  tumble mc scenarios/lander/cube_phobos.toml --runs 1000 --seed 7 --threads 2 --out out/phobos_mc
  tumble mc scenarios/lander/cube_phobos.toml --runs 1000 --seed 7 --out out/phobos_mc --resume
  tumble mc scenarios/lander/cube_phobos.toml --seed 7 --out out/phobos_mc --run 42   # one run, full outputs
  tumble mc scenarios/lander/comet_drop.toml --runs 100000 --backend gpu
  tumble mc scenarios/lander/cube_phobos.toml --runs 1000 --seed 7 --shard 3/8 --out shards/3 --resume   # one of 8 shards
  tumble mc scenarios/lander/cube_phobos.toml --runs 1000 --seed 7 --out out/phobos_mc --merge shards/*   # merge them")]
    Mc(mc::McArgs),
    /// Capture of a tumbling target by a chaser with an arm (`[arm]` + `[capture]`): the
    /// post-capture state by every capture map, the TVLQR detumble, its funnel ρ(t) from sampled
    /// captures, and the verdict X₀ᵀS₀X₀ < ρ₀ checked against detumble simulations.
    /// The study writes `design.json`; `tumble capture check DESIGN` answers a verdict from it.
    #[command(
        name = "capture-map",
        alias = "capture",
        args_conflicts_with_subcommands = true,
        subcommand_negates_reqs = true,
        after_help = "Examples:
  tumble capture-map scenarios/capture_map/tumbling_500kg.toml
  tumble capture-map scenarios/capture_map/tumbling_500kg.toml --samples 100 --verify 200 --threads 2
  tumble capture check out/capture_tumbling_500kg/design.json --state 0,0,0,0,0,0,0,0,0,0,0,0,0.01,-0.01,0.005,0.02,0.04,-0.03 --impulse 1.65,-1.06,-0.28,1.43,0.99,0.56"
    )]
    Capture {
        #[command(subcommand)]
        check: Option<capture_map::CaptureCommand>,
        /// Scenario file (TOML) with `[arm]` (free base) and `[capture]`.
        #[arg(required = true)]
        scenario: Option<PathBuf>,
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
    /// A contact model (TOML, JSON, or a glTF scene from Blender): its contact sets, bodies and
    /// group trees, as Tumble reads them.
    #[command(after_help = "Examples:
  tumble model docs/examples/blender_tree/latch.gltf
  tumble model scenarios/contact/models/tripod.toml --json")]
    Model {
        /// Model file (.toml, .json, .gltf, .glb).
        file: PathBuf,
        /// Print JSON (bodies, groups, primitives, sets) instead of text.
        #[arg(long)]
        json: bool,
    },
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
  tumble bench --scale 0.1 --csv bench.csv
  tumble bench --only lander_
  tumble bench --baseline bench/baseline.csv   # which cases moved beyond noise (exit 1 if slower)

A baseline records its machine by name and by two probes' times (a latency chain and an
arithmetic loop that no change of Tumble moves); when this machine's probes differ from the
baseline's by more than 10 % it is another machine: the ratios are printed, no verdict is
given, and the exit status is 2.")]
    Bench {
        /// Multiplier of the step counts (1.0 takes a few seconds).
        #[arg(long, default_value_t = 1.0)]
        scale: f64,
        /// Only the cases whose name contains this text.
        #[arg(long, default_value = "")]
        only: String,
        /// Also write the figures to this CSV file (a baseline for --baseline).
        #[arg(long)]
        csv: Option<PathBuf>,
        /// Compare with this baseline (a --csv table of the same machine class): each case's
        /// ratio and whether it moved beyond noise; exit 1 when one is slower, 2 when the
        /// baseline was measured on another machine.
        #[arg(long)]
        baseline: Option<PathBuf>,
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
        Command::Run { scenario, out, set, quiet } => run::run(&scenario, out, &set, quiet),
        Command::Check { scenario, set } => run::check(&scenario, &set),
        Command::Mc(args) => mc::mc(&args),
        Command::Bench { scale, only, csv, baseline } => {
            bench::bench(scale, &only, csv.as_deref(), baseline.as_deref())
        }
        Command::View { dir, port } => exit(view::serve(&dir, port)),
        Command::Arm(cmd) => exit(arm::run(cmd)),
        Command::Fit(cmd) => exit(fit::run(cmd)),
        Command::Capture { check: Some(cmd), .. } => exit(capture_map::check(&cmd)),
        Command::Capture { scenario, out, samples, verify, threads, set, quiet, .. } => {
            let mut set = set;
            set.extend(samples.map(|n| format!("capture.roa.samples={n}")));
            set.extend(verify.map(|n| format!("capture.roa.verify={n}")));
            let scenario = scenario.unwrap_or_default();
            capture_map::capture(&scenario, out, threads, &set, quiet)
        }
        Command::Lqr { file, json } => exit(lqr::run(&file, json)),
        Command::Model { file, json } => exit(model::run(&file, json)),
        Command::Mesh(cmd) => exit(shape::run(cmd)),
        Command::Sdf(cmd) => exit(shape::sdf(cmd)),
        Command::Gravity { mesh, unit, density, points, out, threads } => {
            exit(shape::gravity(&mesh, &unit, density, &points, &out, threads))
        }
    }
}

/// Why a tool command failed, which decides its exit status as for `run`: invalid input (2),
/// or outputs that could not be written or served (1).
pub(crate) enum Failure {
    /// A file, argument or option that cannot be used.
    Input(String),
    /// An output that could not be written (or the viewer's port that could not be opened).
    Output(String),
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::Input(message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Self {
        Failure::Input(message.to_string())
    }
}

/// An error writing an output, as a [`Failure::Output`].
pub(crate) fn output(e: impl std::fmt::Display) -> Failure {
    Failure::Output(e.to_string())
}

/// Maps a tool's result to the exit status.
fn exit(r: Result<(), Failure>) -> ExitCode {
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(e)) => invalid(e),
        Err(Failure::Output(e)) => failed(e),
    }
}

/// Writes one line of output (see `say!`).
pub(crate) fn say_line(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|_| out.write_all(b"\n")).and_then(|_| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        tell!("error: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}

/// Checks `--out` before any work (`tumble_math::output::check_folder`: not a file system's
/// root however spelled, not a link, not a file); a refused folder is invalid input, status 2,
/// in every command.
pub(crate) fn out_folder(out: &std::path::Path) -> Result<(), ExitCode> {
    tumble_math::output::check_folder(out)
        .map_err(|e| invalid(format!("{}: cannot be an output folder (--out): {e}", out.display())))
}

/// Reports invalid input: exit status 2.
pub(crate) fn invalid(msg: String) -> ExitCode {
    tell!("error: {msg}");
    ExitCode::from(2)
}

/// Reports a run that failed or could not write its outputs: exit status 1.
pub(crate) fn failed(msg: String) -> ExitCode {
    tell!("error: {msg}");
    ExitCode::from(1)
}

pub(crate) fn overrides(set: &[String]) -> Result<Vec<(String, String)>, String> {
    set.iter()
        .map(|s| match s.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
            _ => Err(format!("--set `{s}`: expected KEY=VALUE, e.g. --set bodies.target.mass=2.5")),
        })
        .collect()
}
