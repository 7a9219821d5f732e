//! Monte Carlo campaigns of lander scenarios (`tumble mc`).
//!
//! A campaign draws the scenario's `[dispersions]` for each run from a stream that depends only
//! on `(seed, run index)` ([`dispersion::Stream`]), runs the runs in parallel (rayon) and appends
//! each finished run to `runs.csv` at once, so an interrupted campaign resumes (`--resume`)
//! without redoing or losing runs. When all runs are done the rows are rewritten in run order,
//! so `runs.csv` is the same whatever the thread count or the interruptions. `campaign.json`
//! records what the campaign is (scenario text hash, seed, dispersions) so that a resume of a
//! different campaign is refused.

pub mod dispersion;
mod report;

use crate::lander::{LanderModel, LanderOutcome, LanderRun, Target, build_target, lat_lon, simulate, write_lander_run};
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
#[derive(Clone, Debug, PartialEq)]
pub struct RunRow {
    /// Run index.
    pub index: u64,
    /// Dispersed values (TOML text), in key order.
    pub values: Vec<String>,
    /// `settled`, `escaped`, `completed`, `failed` or `invalid`.
    pub status: String,
    /// Settling time, s (settled runs).
    pub settle_time: Option<f64>,
    /// Final time, s.
    pub final_time: f64,
    /// Final position in T, m.
    pub position: [f64; 3],
    /// Latitude and longitude on the body, degrees (body targets).
    pub lat_lon: Option<(f64, f64)>,
    /// Touchdowns.
    pub bounces: usize,
    /// Deepest penetration, m.
    pub max_penetration: f64,
    /// Largest energy-balance error, J.
    pub balance_error: f64,
    /// Why a run failed or could not be built.
    pub note: String,
}

/// A campaign set up and ready to run.
pub struct Campaign {
    /// The scenario with the command line's overrides.
    pub scenario: Scenario,
    /// Its dispersions.
    pub dispersions: Vec<Dispersion>,
    /// Options.
    pub options: CampaignOptions,
    /// Target shared by every run (when no dispersion touches it).
    shared: Option<Target>,
}

fn csv_header(d: &[Dispersion]) -> String {
    let mut h = vec!["run".to_string(), "seed".to_string()];
    h.extend(d.iter().map(|d| d.key.clone()));
    h.extend(
        [
            "status",
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
            "note",
        ]
        .map(String::from),
    );
    h.join(",")
}

fn num(x: f64) -> String {
    format!("{x:?}")
}

impl RunRow {
    fn to_csv(&self, seed: u64) -> String {
        let mut f = vec![self.index.to_string(), seed.to_string()];
        f.extend(self.values.iter().map(|v| csv_field(v)));
        f.push(self.status.clone());
        f.push(self.settle_time.map(num).unwrap_or_default());
        f.push(num(self.final_time));
        f.extend(self.position.iter().map(|&c| num(c)));
        match self.lat_lon {
            Some((a, b)) => f.extend([num(a), num(b)]),
            None => f.extend([String::new(), String::new()]),
        }
        f.push(self.bounces.to_string());
        f.push(num(self.max_penetration));
        f.push(num(self.balance_error));
        f.push(csv_field(&self.note));
        f.join(",")
    }
}

/// The `runs.csv` row of a finished run.
fn row(index: u64, values: Vec<String>, model: &LanderModel, run: &LanderRun) -> RunRow {
    let y = run.final_state;
    let x = Vec3::new(y[0], y[1], y[2]);
    let (status, settle_time, note) = match &run.outcome {
        LanderOutcome::Settled(t) => ("settled", Some(*t), String::new()),
        LanderOutcome::Escaped(_) => ("escaped", None, String::new()),
        LanderOutcome::Completed => ("completed", None, String::new()),
        LanderOutcome::Failed(d) => ("failed", None, d.clone()),
    };
    RunRow {
        index,
        values,
        status: status.into(),
        settle_time,
        final_time: run.final_time,
        position: [x.x, x.y, x.z],
        lat_lon: model.body_target.then(|| lat_lon(&x)),
        bounces: run.bounces(),
        max_penetration: run.max_penetration,
        balance_error: run.max_balance_error,
        note,
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
        if scenario.file.lander.is_none() {
            return Err(format!(
                "{}: `tumble mc` runs lander scenarios (with [lander] and [target])",
                scenario.path.display()
            ));
        }
        if !(1..=MAX_RUNS).contains(&options.runs) {
            return Err(format!("--runs must be between 1 and {MAX_RUNS}, got {}", options.runs));
        }
        let dispersions = dispersion::parse(&scenario).map_err(|e| e.to_string())?;
        let touches_target = dispersions.iter().any(|d| d.key.starts_with("target.") || d.key.starts_with("gravity."));
        let shared = if touches_target { None } else { Some(build_target(&scenario).map_err(|e| e.to_string())?) };
        let c = Self { scenario, dispersions, options, shared };
        // Run 0 must build: a dispersion that breaks every run is reported before any work.
        c.model(0).map_err(|(e, _)| format!("run 0 (with its dispersed values): {e}"))?;
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

    fn model(&self, index: u64) -> Result<(LanderModel, Vec<String>), (String, Vec<String>)> {
        let (sc, values) = self.scenario_of(index).map_err(|e| (e, vec![]))?;
        let built = match &self.shared {
            Some(t) => LanderModel::build_with(&sc, t),
            None => LanderModel::build(&sc),
        };
        built.map(|m| (m, values.clone())).map_err(|e| (e.to_string(), values))
    }

    /// Runs one run to its row.
    pub fn run_one(&self, index: u64) -> RunRow {
        let (mut model, values) = match self.model(index) {
            Ok(x) => x,
            Err((e, values)) => {
                return RunRow {
                    index,
                    values,
                    status: "invalid".into(),
                    settle_time: None,
                    final_time: 0.0,
                    position: [f64::NAN; 3],
                    lat_lon: None,
                    bounces: 0,
                    max_penetration: 0.0,
                    balance_error: 0.0,
                    note: e,
                };
            }
        };
        let run = simulate(&mut model.system, model.initial_state, &model.settings, &mut |_| {});
        row(index, values, &model, &run)
    }

    /// Runs run `index` alone with the full outputs of `tumble run` in `dir`.
    pub fn run_alone(&self, index: u64, dir: &Path) -> Result<RunRow, String> {
        let (mut model, values) = self.model(index).map_err(|(e, _)| e)?;
        let run = simulate(&mut model.system, model.initial_state, &model.settings, &mut |_| {});
        write_lander_run(dir, &model, &run)?;
        Ok(row(index, values, &model, &run))
    }

    fn identity(&self) -> serde_json::Value {
        serde_json::json!({
            "scenario": self.scenario.path.display().to_string(),
            "scenario_hash": format!("{:016x}", fnv(&self.scenario.text)),
            "seed": self.options.seed,
            "dispersions": self.dispersions.iter().map(|d| d.key.clone()).collect::<Vec<_>>(),
        })
    }

    /// Runs every run not yet in `runs.csv`; `progress(done, total)` after each. Returns the
    /// rows in run order and how many runs this call executed.
    pub fn execute(&self, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<(Vec<RunRow>, u64), String> {
        let out = &self.options.out;
        let csv = out.join("runs.csv");
        let io = |what: &Path, e: std::io::Error| format!("{}: {e}", what.display());
        fs::create_dir_all(out).map_err(|e| io(out, e))?;
        let id_path = out.join("campaign.json");
        let header = csv_header(&self.dispersions);
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
                    "{} was started from another scenario, seed or set of dispersions ({}); use another --out",
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
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.options.threads.max(1))
            .build()
            .map_err(|e| format!("cannot start {} threads: {e}", self.options.threads))?;
        pool.install(|| {
            todo.par_iter().for_each(|&i| {
                let line = self.run_one(i).to_csv(self.options.seed);
                let written = {
                    let mut f = file.lock().unwrap_or_else(|p| p.into_inner());
                    f.write_all(format!("{line}\n").as_bytes()).and_then(|_| f.flush())
                };
                if let Err(e) = written {
                    *failure.lock().unwrap_or_else(|p| p.into_inner()) = Some(io(&csv, e));
                }
                let mut g = finished.lock().unwrap_or_else(|p| p.into_inner());
                g.0 += 1;
                g.1.insert(i, line);
                progress(g.0, self.options.runs);
            })
        });
        if let Some(e) = failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
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
        let n = self.dispersions.len();
        let bad = || format!("runs.csv: malformed row `{line}`");
        let p = |s: &str| if s.is_empty() { Ok(f64::NAN) } else { s.parse::<f64>().map_err(|_| bad()) };
        let b = 2 + n;
        let lat = p(&f[b + 6])?;
        let lon = p(&f[b + 7])?;
        Ok(RunRow {
            index: f[0].parse().map_err(|_| bad())?,
            values: f[2..b].to_vec(),
            status: f[b].clone(),
            settle_time: if f[b + 1].is_empty() { None } else { Some(p(&f[b + 1])?) },
            final_time: p(&f[b + 2])?,
            position: [p(&f[b + 3])?, p(&f[b + 4])?, p(&f[b + 5])?],
            lat_lon: (lat.is_finite() && lon.is_finite()).then_some((lat, lon)),
            bounces: f[b + 8].parse().map_err(|_| bad())?,
            max_penetration: p(&f[b + 9])?,
            balance_error: p(&f[b + 10])?,
            note: f[b + 11].clone(),
        })
    }
}
