//! Monte Carlo campaigns (`tumble mc`) of lander scenarios and of asteroid captures.
//!
//! A campaign draws the scenario's `[dispersions]` for each run from a stream that depends only
//! on `(seed, run index)` ([`dispersion::Stream`]), runs the runs in parallel (rayon) and appends
//! each finished run to `runs.csv` at once, so an interrupted campaign resumes (`--resume`)
//! without redoing or losing runs. When all runs are done the rows are rewritten in run order,
//! so `runs.csv` is the same whatever the thread count or the interruptions. `campaign.json`
//! records what the campaign is (scenario text hash, seed, dispersions) so that a resume of a
//! different campaign is refused. What a run is and which results its row holds is the
//! campaign's [`Kind`]; drawing, running, recording and resuming are the same for every kind.

pub mod dispersion;
mod report;

use crate::asteroid_capture::{AsteroidCapture, write_capture_run};
use crate::lander::{LanderModel, LanderOutcome, Target, build_target, lat_lon, simulate, write_lander_run};
use crate::scenario::Scenario;
use dispersion::Dispersion;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tumble_math::Vec3;

pub use report::write_report;

/// Most runs one campaign takes (the list of runs to do is held in memory).
pub const MAX_RUNS: u64 = 100_000_000;

/// What to run.
#[derive(Clone, Debug)]
pub struct CampaignOptions {
    /// Number of runs (indices 0..runs).
    pub runs: u64,
    /// Campaign seed.
    pub seed: u64,
    /// Worker threads.
    pub threads: usize,
    /// Output folder.
    pub out: PathBuf,
    /// Continue a campaign already in `out`.
    pub resume: bool,
}

/// One finished run, as `runs.csv` holds it.
#[derive(Clone, Debug)]
pub struct RunRow {
    /// Run index.
    pub index: u64,
    /// Dispersed values (TOML text), in key order.
    pub values: Vec<String>,
    /// The run's outcome (per kind: `settled`, `caught_up`, …), `failed` or `invalid`.
    pub status: String,
    /// Results in the order of [`Kind::columns`]; NaN where a run has none (an empty field).
    pub results: Vec<f64>,
    /// Why a run failed or could not be built.
    pub note: String,
}

/// Equal when bit for bit the same (a missing result, NaN, equals itself).
impl PartialEq for RunRow {
    fn eq(&self, o: &Self) -> bool {
        let bits = |r: &RunRow| r.results.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        (self.index, &self.values, &self.status, &self.note) == (o.index, &o.values, &o.status, &o.note)
            && bits(self) == bits(o)
    }
}

impl RunRow {
    /// The result in column `name` of `kind`, if the run has one.
    pub fn get(&self, kind: &Kind, name: &str) -> Option<f64> {
        let i = kind.columns().iter().position(|c| *c == name)?;
        self.results.get(i).copied().filter(|x| !x.is_nan())
    }
}

/// What a campaign's runs are.
pub enum Kind {
    /// Landers (`[lander]` and `[target]`), with the target every run shares when no dispersion
    /// touches it.
    Lander(Option<Target>),
    /// Asteroid captures (`[membrane]` and `[spacecraft]`).
    Capture,
}

/// Result columns of a lander campaign.
pub const LANDER_COLUMNS: [&str; 10] = [
    "settle_time [s]",
    "final_time [s]",
    "x [m]",
    "y [m]",
    "z [m]",
    "latitude [deg]",
    "longitude [deg]",
    "bounces",
    "max_penetration [m]",
    "balance_error [J]",
];

const CAPTURE_COLUMNS: [&str; 10] = [
    "contact_time [s]",
    "catch_up_time [s]",
    "peak_sada_bending [N m]",
    "sada_moment_limit [N m]",
    "peak_normal_force [N]",
    "peak_slip [m/s]",
    "peak_depth [m]",
    "final_relative_rate [rad/s]",
    "rim_samples",
    "final_time [s]",
];

/// A finished run: status, results (in column order), note.
pub type Outcome = (String, Vec<f64>, String);

/// What a lander campaign records of a run's end (from either backend).
pub struct LanderEnd<'a> {
    /// Whether the target is a body (sites get a latitude and longitude).
    pub body_target: bool,
    /// How it ended.
    pub outcome: &'a LanderOutcome,
    /// Final time, s.
    pub final_time: f64,
    /// Final state.
    pub final_state: &'a [f64; crate::lander::STATE_LEN],
    /// Touchdowns.
    pub bounces: usize,
    /// Deepest penetration, m.
    pub max_penetration: f64,
    /// Largest |energy balance error|, J.
    pub max_balance_error: f64,
}

/// A lander run's status, results in [`LANDER_COLUMNS`] order, and note.
pub fn lander_results(end: &LanderEnd) -> Outcome {
    let y = end.final_state;
    let x = Vec3::new(y[0], y[1], y[2]);
    let (status, settle, note) = match end.outcome {
        LanderOutcome::Settled(t) => ("settled", *t, String::new()),
        LanderOutcome::Escaped(_) => ("escaped", f64::NAN, String::new()),
        LanderOutcome::Completed => ("completed", f64::NAN, String::new()),
        LanderOutcome::Failed(d) => ("failed", f64::NAN, d.to_string()),
    };
    let (lat, lon) = if end.body_target { lat_lon(&x) } else { (f64::NAN, f64::NAN) };
    let results = vec![
        settle,
        end.final_time,
        x.x,
        x.y,
        x.z,
        lat,
        lon,
        end.bounces as f64,
        end.max_penetration,
        end.max_balance_error,
    ];
    (status.into(), results, note)
}

/// Builds a lander run of `sc` on the campaign's shared target, if it has one.
pub fn lander_model(shared: Option<&Target>, sc: &Scenario) -> Result<LanderModel, String> {
    match shared {
        Some(t) => LanderModel::build_with(sc, t),
        None => LanderModel::build(sc),
    }
    .map_err(|e| e.to_string())
}

impl Kind {
    /// Result columns of `runs.csv`, after the run index, seed and dispersed values.
    pub fn columns(&self) -> &'static [&'static str] {
        match self {
            Kind::Lander(_) => &LANDER_COLUMNS,
            Kind::Capture => &CAPTURE_COLUMNS,
        }
    }

    /// Builds and runs one scenario; with `dir`, writes the full outputs of `tumble run` there.
    fn run(&self, sc: &Scenario, dir: Option<&Path>) -> Result<Outcome, String> {
        match self {
            Kind::Lander(shared) => {
                let mut model = lander_model(shared.as_ref(), sc)?;
                let run = simulate(&mut model.system, model.initial_state, &model.settings, &mut |_| {});
                if let Some(dir) = dir {
                    write_lander_run(dir, &model, &run)?;
                }
                Ok(lander_results(&LanderEnd {
                    body_target: model.body_target,
                    outcome: &run.outcome,
                    final_time: run.final_time,
                    final_state: &run.final_state,
                    bounces: run.bounces(),
                    max_penetration: run.max_penetration,
                    max_balance_error: run.max_balance_error,
                }))
            }
            Kind::Capture => {
                let model = AsteroidCapture::build(sc).map_err(|e| e.to_string())?;
                let run = model.run();
                if let Some(dir) = dir {
                    write_capture_run(dir, &model, &run)?;
                }
                let last = run.samples.last().ok_or("the run recorded no samples")?;
                let catch_up = run.catch_up_time(model.catch_up_rate);
                let status = match (&run.diagnosis, run.contact_time, catch_up, last.contact.in_contact) {
                    (Some(_), ..) => "failed",
                    (None, None, ..) => "no_contact",
                    (None, Some(_), Some(_), _) => "caught_up",
                    (None, Some(_), None, true) => "in_contact",
                    (None, Some(_), None, false) => "separated",
                };
                let peak = |f: &dyn Fn(&crate::asteroid_capture::CaptureSample) -> f64| {
                    run.samples.iter().map(f).fold(0.0, f64::max)
                };
                let results = vec![
                    run.contact_time.unwrap_or(f64::NAN),
                    catch_up.unwrap_or(f64::NAN),
                    run.peak_bending(),
                    model.moment_limit,
                    peak(&|s| s.contact.normal_force.norm()),
                    peak(&|s| s.contact.max_slip),
                    peak(&|s| s.contact.depth),
                    last.relative_rate(),
                    run.samples.iter().filter(|s| s.contact.outside_rim > 0).count() as f64,
                    last.t,
                ];
                Ok((status.into(), results, run.diagnosis.as_ref().map(|d| d.to_string()).unwrap_or_default()))
            }
        }
    }
}

/// Executes a campaign's runs (see [`Campaign::execute_with`]).
pub type Runner<'r> = dyn Fn(&[u64], &(dyn Fn(RunRow) + Sync), &(dyn Fn(u64) + Sync)) -> Result<(), String> + Sync + 'r;

/// A campaign set up and ready to run.
pub struct Campaign {
    /// The scenario with the command line's overrides.
    pub scenario: Scenario,
    /// Its dispersions.
    pub dispersions: Vec<Dispersion>,
    /// Options.
    pub options: CampaignOptions,
    /// What the runs are.
    pub kind: Kind,
    /// The engine that is not the CPU one, when another runs the campaign (`"gpu"`): recorded in
    /// `campaign.json`, so that a resume cannot mix the rows of two engines.
    pub backend: Option<String>,
}

fn csv_header(d: &[Dispersion], kind: &Kind) -> String {
    let mut h = vec!["run".to_string(), "seed".to_string()];
    h.extend(d.iter().map(|d| d.key.clone()));
    h.push("status".into());
    h.extend(kind.columns().iter().map(|c| c.to_string()));
    h.push("note".into());
    h.join(",")
}

impl RunRow {
    fn to_csv(&self, seed: u64) -> String {
        let mut f = vec![self.index.to_string(), seed.to_string()];
        f.extend(self.values.iter().map(|v| csv_field(v)));
        f.push(self.status.clone());
        f.extend(self.results.iter().map(|&x| number(x)));
        f.push(csv_field(&self.note));
        f.join(",")
    }
}

/// A result as `runs.csv` holds it: empty for none, whole numbers (counts) without a decimal
/// point, others as the shortest text that reads back as the same `f64`.
fn number(x: f64) -> String {
    if x.is_nan() {
        String::new()
    } else if x.fract() == 0.0 && x.abs() < 1e15 && !(x == 0.0 && x.is_sign_negative()) {
        format!("{}", x as i64)
    } else {
        format!("{x:?}")
    }
}

/// Quotes a field that holds a comma or a quote.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\"").replace('\n', " "))
    } else {
        s.to_string()
    }
}

/// Splits one CSV line into fields (quotes as [`csv_field`] writes them).
fn split_csv(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted, mut chars) = (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// FNV-1a, for recognising the scenario a campaign was started from.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

impl Campaign {
    /// Checks the scenario, its dispersions and the output folder; builds the shared target.
    pub fn new(scenario: Scenario, options: CampaignOptions) -> Result<Self, String> {
        let capture = match scenario.kind {
            crate::scenario::Kind::Lander => false,
            crate::scenario::Kind::MembraneCapture => true,
            other => {
                return Err(format!(
                    "{}: `tumble mc` runs `lander` and `membrane_capture` scenarios; this one is `{}`",
                    scenario.path.display(),
                    other.name()
                ));
            }
        };
        if !(1..=MAX_RUNS).contains(&options.runs) {
            return Err(format!("--runs must be between 1 and {MAX_RUNS}, got {}", options.runs));
        }
        let dispersions = dispersion::parse(&scenario).map_err(|e| e.to_string())?;
        let kind = if capture {
            AsteroidCapture::build(&scenario).map_err(|e| e.to_string())?;
            Kind::Capture
        } else {
            let touches = dispersions.iter().any(|d| d.key.starts_with("target.") || d.key.starts_with("gravity."));
            Kind::Lander(if touches { None } else { Some(build_target(&scenario).map_err(|e| e.to_string())?) })
        };
        let c = Self { scenario, dispersions, options, kind, backend: None };
        // Run 0 must build: a dispersion that breaks every run is reported before any work.
        let (sc, _) = c.scenario_of(0).map_err(|e| format!("run 0 (with its dispersed values): {e}"))?;
        let built = match &c.kind {
            Kind::Lander(Some(t)) => LanderModel::build_with(&sc, t).map(|_| ()),
            Kind::Lander(None) => LanderModel::build(&sc).map(|_| ()),
            Kind::Capture => AsteroidCapture::build(&sc).map(|_| ()),
        };
        built.map_err(|e| format!("run 0 (with its dispersed values): {e}"))?;
        Ok(c)
    }

    /// The scenario of run `index` and its dispersed values.
    pub fn scenario_of(&self, index: u64) -> Result<(Scenario, Vec<String>), String> {
        let draws = dispersion::draw_run(&self.dispersions, self.options.seed, index);
        let values = draws.iter().map(|(_, v)| v.clone()).collect();
        let sc =
            Scenario::from_text(&self.scenario.path, self.scenario.text.clone(), &draws).map_err(|e| e.to_string())?;
        Ok((sc, values))
    }

    fn run_index(&self, index: u64, dir: Option<&Path>) -> Result<RunRow, String> {
        let (sc, values) = match self.scenario_of(index) {
            Ok(x) => x,
            Err(e) => return Ok(self.invalid(index, vec![], e)),
        };
        match self.kind.run(&sc, dir) {
            Ok((status, results, note)) => Ok(RunRow { index, values, status, results, note }),
            // A run that cannot be built (or run) is a row of the campaign, not a stop.
            Err(e) if dir.is_none() => Ok(self.invalid(index, values, e)),
            Err(e) => Err(e),
        }
    }

    /// The row of a run that could not be built: status `invalid`, no results, `note` says why.
    pub fn invalid(&self, index: u64, values: Vec<String>, note: String) -> RunRow {
        let results = vec![f64::NAN; self.kind.columns().len()];
        RunRow { index, values, status: "invalid".into(), results, note }
    }

    /// Runs one run to its row.
    pub fn run_one(&self, index: u64) -> RunRow {
        self.run_index(index, None).unwrap_or_else(|e| self.invalid(index, vec![], e))
    }

    /// Runs run `index` alone with the full outputs of `tumble run` in `dir`.
    pub fn run_alone(&self, index: u64, dir: &Path) -> Result<RunRow, String> {
        self.run_index(index, Some(dir))
    }

    fn identity(&self) -> serde_json::Value {
        let mut id = serde_json::json!({
            "scenario": self.scenario.path.display().to_string(),
            "scenario_hash": format!("{:016x}", fnv(&self.scenario.text)),
            "seed": self.options.seed,
            "dispersions": self.dispersions.iter().map(|d| d.key.clone()).collect::<Vec<_>>(),
        });
        if let (Some(b), Some(m)) = (&self.backend, id.as_object_mut()) {
            m.insert("backend".into(), b.clone().into());
        }
        id
    }

    /// Runs every run not yet in `runs.csv` on the CPU, in parallel; `progress(done, total)`
    /// after each. Returns the rows in run order and how many runs this call executed.
    pub fn execute(&self, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<(Vec<RunRow>, u64), String> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.options.threads.max(1))
            .build()
            .map_err(|e| format!("cannot start {} threads: {e}", self.options.threads))?;
        self.execute_with(progress, &|todo, done, _| {
            pool.install(|| todo.par_iter().for_each(|&i| done(self.run_one(i))));
            Ok(())
        })
    }

    /// [`Campaign::execute`] with the runs executed by `runner(todo, done, in_flight)`: it runs
    /// the indices `todo` in any order, on any threads, and hands each finished row to `done`
    /// at once (which appends it to `runs.csv`); `in_flight(n)` reports `n` runs finished but
    /// not yet handed over, for progress. A runner's error stops the campaign; the rows handed
    /// over stay in `runs.csv` for `--resume`.
    pub fn execute_with(
        &self,
        progress: &(dyn Fn(u64, u64) + Sync),
        runner: &Runner,
    ) -> Result<(Vec<RunRow>, u64), String> {
        let out = &self.options.out;
        let csv = out.join("runs.csv");
        let io = |what: &Path, e: std::io::Error| format!("{}: {e}", what.display());
        fs::create_dir_all(out).map_err(|e| io(out, e))?;
        let id_path = out.join("campaign.json");
        let header = csv_header(&self.dispersions, &self.kind);
        let mut done: BTreeMap<u64, String> = BTreeMap::new();
        if csv.exists() {
            if !self.options.resume {
                return Err(format!(
                    "{} already holds a campaign: pass --resume to continue it, or choose another --out",
                    out.display()
                ));
            }
            let before: serde_json::Value =
                fs::read_to_string(&id_path).ok().and_then(|t| serde_json::from_str(&t).ok()).ok_or_else(|| {
                    format!("{}: missing or unreadable; cannot check what campaign this is", id_path.display())
                })?;
            if before != self.identity() {
                return Err(format!(
                    "{} was started from another scenario, seed, set of dispersions or backend ({}); use another --out",
                    out.display(),
                    before
                ));
            }
            let text = fs::read_to_string(&csv).map_err(|e| io(&csv, e))?;
            let width = header.split(',').count();
            for line in text.lines().skip(1) {
                // A line cut short by an interruption has fewer fields (or no newline, and then
                // the run is simply redone).
                let fields = split_csv(line);
                if fields.len() == width
                    && let Ok(i) = fields[0].parse::<u64>()
                {
                    done.insert(i, line.to_string());
                }
            }
            if !text.ends_with('\n') && !text.is_empty() {
                // Drop a partial last line before appending.
                let keep: String =
                    text.lines().filter(|l| split_csv(l).len() == width).map(|l| format!("{l}\n")).collect();
                let keep = if keep.starts_with("run,") { keep } else { format!("{header}\n{keep}") };
                fs::write(&csv, keep).map_err(|e| io(&csv, e))?;
            }
        } else {
            fs::write(&id_path, serde_json::to_string_pretty(&self.identity()).unwrap_or_default() + "\n")
                .map_err(|e| io(&id_path, e))?;
            fs::write(&csv, format!("{header}\n")).map_err(|e| io(&csv, e))?;
        }
        let todo: Vec<u64> = (0..self.options.runs).filter(|i| !done.contains_key(i)).collect();
        let file = Mutex::new(fs::OpenOptions::new().append(true).open(&csv).map_err(|e| io(&csv, e))?);
        let finished = Mutex::new((done.len() as u64, done));
        let failure: Mutex<Option<String>> = Mutex::new(None);
        let done = |row: RunRow| {
            let line = row.to_csv(self.options.seed);
            let written = {
                let mut f = file.lock().unwrap_or_else(|p| p.into_inner());
                f.write_all(format!("{line}\n").as_bytes()).and_then(|_| f.flush())
            };
            if let Err(e) = written {
                *failure.lock().unwrap_or_else(|p| p.into_inner()) = Some(io(&csv, e));
            }
            let mut g = finished.lock().unwrap_or_else(|p| p.into_inner());
            g.0 += 1;
            g.1.insert(row.index, line);
            progress(g.0, self.options.runs);
        };
        let in_flight = |n: u64| {
            let g = finished.lock().unwrap_or_else(|p| p.into_inner());
            progress(g.0 + n, self.options.runs);
        };
        let ran = runner(&todo, &done, &in_flight);
        if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        ran?;
        // Every run is in: rewrite in run order (via a temporary file, so a crash here leaves
        // the unsorted file intact).
        let (_, rows) = finished.into_inner().unwrap_or_else(|p| p.into_inner());
        let mut text = format!("{header}\n");
        for line in rows.values() {
            text.push_str(line);
            text.push('\n');
        }
        let tmp = out.join("runs.csv.tmp");
        fs::write(&tmp, &text).and_then(|_| fs::rename(&tmp, &csv)).map_err(|e| io(&csv, e))?;
        let rows = rows.values().map(|l| self.parse_row(l)).collect::<Result<Vec<_>, _>>()?;
        Ok((rows, todo.len() as u64))
    }

    fn parse_row(&self, line: &str) -> Result<RunRow, String> {
        let f = split_csv(line);
        let (n, m) = (self.dispersions.len(), self.kind.columns().len());
        let bad = || format!("runs.csv: malformed row `{line}`");
        if f.len() != n + m + 4 {
            return Err(bad());
        }
        let p = |s: &str| if s.is_empty() { Ok(f64::NAN) } else { s.parse::<f64>().map_err(|_| bad()) };
        let b = 2 + n;
        Ok(RunRow {
            index: f[0].parse().map_err(|_| bad())?,
            values: f[2..b].to_vec(),
            status: f[b].clone(),
            results: f[b + 1..b + 1 + m].iter().map(|x| p(x)).collect::<Result<_, _>>()?,
            note: f[b + 1 + m].clone(),
        })
    }
}
