//! Monte Carlo campaigns (`tumble mc`) over scenarios of every kind.
//!
//! A campaign draws the scenario's `[dispersions]` for each run from a stream that depends only
//! on `(seed, run index)` ([`dispersion::Stream`]), runs the runs in parallel (rayon) and appends
//! each finished run to `runs.csv` at once, so an interrupted campaign resumes (`--resume`)
//! without redoing or losing runs. When all runs are done the rows are rewritten in run order,
//! so `runs.csv` is the same whatever the thread count or the interruptions. `campaign.json`
//! records what the campaign is (scenario text hash, seed, dispersions) so that a resume of a
//! different campaign is refused. What a run is and which results its row holds is the
//! campaign's [`CampaignKind`], which each application implements beside its model
//! (`crate::registry::campaign` gives the application's); drawing, running, recording,
//! resuming and the generic report are the same for every kind.

pub mod dispersion;
mod integrity;
mod kind;
mod parquet;
pub(crate) mod report;
mod shard;

use crate::scenario::Scenario;
use dispersion::Dispersion;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tumble_math::output;

pub use integrity::KEY_ENV;
pub use kind::{AsAny, CampaignKind, Finished, status_counts};
pub use parquet::PARQUET;
pub use report::{Accounting, Worker, write_report};
pub use shard::{Merged, Shard, merge, write_shard_record};

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
    /// Run only this shard of the runs (`None`: all of them).
    pub shard: Option<Shard>,
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
    /// Results in the order of [`CampaignKind::columns`]; NaN where a run has none (an empty
    /// field).
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
    pub fn get(&self, kind: &dyn CampaignKind, name: &str) -> Option<f64> {
        let i = kind.columns().iter().position(|c| c == name)?;
        self.results.get(i).copied().filter(|x| !x.is_nan())
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
    pub kind: Box<dyn CampaignKind>,
    /// The engine that is not the CPU one, when another runs the campaign (`"gpu"`): recorded in
    /// `campaign.json`, so that a resume cannot mix the rows of two engines.
    pub backend: Option<String>,
}

/// The header line of `runs.csv`.
fn csv_header(d: &[Dispersion], kind: &dyn CampaignKind) -> String {
    let mut h = vec!["run".to_string(), "seed".to_string()];
    h.extend(d.iter().map(|d| d.key.clone()));
    h.push("status".into());
    h.extend(kind.columns());
    h.push("note".into());
    h.join(",")
}

impl RunRow {
    /// The row as a line of `runs.csv` (without its newline) in a campaign of `seed`.
    pub fn to_csv(&self, seed: u64) -> String {
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

/// Whether two identities (`campaign.json`) are the same campaign: everything but the path the
/// scenario was given by, which differs when it is resumed or merged from another folder (its
/// text's hash stands for it).
pub(crate) fn same_campaign(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    let strip = |v: &serde_json::Value| {
        let mut v = v.clone();
        v.as_object_mut().map(|m| m.remove("scenario"));
        v
    };
    strip(a) == strip(b)
}

/// The text of a campaign's own file (`campaign.json`, `runs.csv`, a shard's files) read as
/// every input is (`tumble_math::input::read_to_string`: a regular file, no link, bounded).
pub(crate) fn read_text(path: &Path) -> Result<String, String> {
    tumble_math::input::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// FNV-1a, for recognising the scenario a campaign was started from.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

impl Campaign {
    /// Checks the scenario, its dispersions and the output folder; builds what the runs share
    /// (a lander's target, a capture map's controller and funnel) with `kind_of`, which gives
    /// what a run of the scenario's application is (`crate::registry::campaign` passes the
    /// application's).
    pub fn new(
        scenario: Scenario,
        options: CampaignOptions,
        kind_of: impl FnOnce(&Scenario, &[Dispersion]) -> Result<Box<dyn CampaignKind>, String> + Send,
    ) -> Result<Self, String> {
        if !(1..=MAX_RUNS).contains(&options.runs) {
            return Err(format!("--runs must be between 1 and {MAX_RUNS}, got {}", options.runs));
        }
        let dispersions = dispersion::parse(&scenario).map_err(|e| e.to_string())?;
        // What the runs share is built on the campaign's threads (a capture map's funnel samples).
        let pool = crate::thread_pool(options.threads)?;
        let kind = pool.install(|| kind_of(&scenario, &dispersions))?;
        let c = Self { scenario, dispersions, options, kind, backend: None };
        // The scenario as the file has it must build, and is reported before any work. A draw
        // that makes a run invalid (run 0's as any other's) is that run's `invalid` row.
        c.kind.check(&c.scenario)?;
        Ok(c)
    }

    /// The campaign's kind as the type `T` that runs it, if it is one (an engine that runs one
    /// kind, such as the GPU's landers).
    pub fn kind_as<T: 'static>(&self) -> Option<&T> {
        self.kind.as_ref().as_any().downcast_ref()
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
            // The row keeps its drawn values, so that it has every column.
            Err(e) => {
                let draws = dispersion::draw_run(&self.dispersions, self.options.seed, index);
                return Ok(self.invalid(index, draws.into_iter().map(|(_, v)| v).collect(), e));
            }
        };
        let width = self.kind.columns().len();
        match self.kind.run(&sc, dir) {
            Ok(f) if f.results.len() == width => {
                debug_assert!(integrity::declared(self, &f.status), "status {} not declared by its kind", f.status);
                Ok(RunRow { index, values, status: f.status, results: f.results, note: f.note })
            }
            // A dispersion that changes what a row holds (another number of bodies or joints).
            Ok(f) => Ok(self.invalid(
                index,
                values,
                format!("the run has {} results where the campaign's columns are {width}", f.results.len()),
            )),
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

    /// What the campaign is, as `campaign.json` holds it: the scenario, the hash of its text,
    /// the seed, the dispersed keys, the backend when not the CPU, and for a shard the runs of
    /// the whole campaign and which shard this is.
    pub fn identity(&self) -> serde_json::Value {
        let mut id = serde_json::json!({
            "scenario": self.scenario.path.display().to_string(),
            "scenario_hash": format!("{:016x}", fnv(&self.scenario.text)),
            "seed": self.options.seed,
            "dispersions": self.dispersions.iter().map(|d| d.key.clone()).collect::<Vec<_>>(),
        });
        if let Some(m) = id.as_object_mut() {
            if let Some(b) = &self.backend {
                m.insert("backend".into(), b.clone().into());
            }
            if let Some(s) = self.options.shard {
                m.insert("runs".into(), self.options.runs.into());
                m.insert("shard".into(), s.to_string().into());
            }
        }
        id
    }

    /// The run indices this campaign executes: all `0..runs`, or its shard's.
    pub fn indices(&self) -> std::ops::Range<u64> {
        self.options.shard.map_or(0..self.options.runs, |s| s.range(self.options.runs))
    }

    /// The header line of this campaign's `runs.csv`.
    pub fn header(&self) -> String {
        csv_header(&self.dispersions, self.kind.as_ref())
    }

    /// Runs every run not yet in `runs.csv` on the CPU, in parallel; `progress(done, total)`
    /// after each. Returns the rows in run order and how many runs this call executed.
    pub fn execute(&self, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<(Vec<RunRow>, u64), String> {
        let pool = crate::thread_pool(self.options.threads)?;
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
        self.check_output()?;
        crate::outputs::create_output_folder(out)?;
        let id_path = out.join("campaign.json");
        let header = self.header();
        let mut done: BTreeMap<u64, String> = BTreeMap::new();
        if fs::symlink_metadata(&csv).is_ok() {
            let text = read_text(&csv)?;
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
                output::write(&csv, keep).map_err(|e| io(&csv, e))?;
            }
        } else {
            output::write(&id_path, serde_json::to_string_pretty(&self.identity()).unwrap_or_default() + "\n")
                .map_err(|e| io(&id_path, e))?;
            output::write(&csv, format!("{header}\n")).map_err(|e| io(&csv, e))?;
        }
        let todo: Vec<u64> = self.indices().filter(|i| !done.contains_key(i)).collect();
        let total = self.indices().end - self.indices().start;
        let file = Mutex::new(output::append(&csv).map_err(|e| io(&csv, e))?);
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
            progress(g.0, total);
        };
        let in_flight = |n: u64| {
            let g = finished.lock().unwrap_or_else(|p| p.into_inner());
            progress(g.0 + n, total);
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
        output::write(&csv, &text).map_err(|e| io(&csv, e))?;
        let rows = rows.values().map(|l| self.parse_row(l)).collect::<Result<Vec<_>, _>>()?;
        Ok((rows, todo.len() as u64))
    }

    /// Checks the output folder before any run, writing nothing: one it may write into
    /// (`tumble_math::output::check_folder`), and where it already holds a campaign, `--resume`
    /// given and that campaign this one (its `campaign.json`).
    pub fn check_output(&self) -> Result<(), String> {
        let out = &self.options.out;
        crate::outputs::output_folder(out)?;
        if fs::symlink_metadata(out.join("runs.csv")).is_err() {
            return Ok(());
        }
        if !self.options.resume {
            return Err(format!(
                "{} already holds a campaign: pass --resume to continue it, or choose another --out",
                out.display()
            ));
        }
        let id_path = out.join("campaign.json");
        let before: serde_json::Value = read_text(&id_path)
            .and_then(|t| serde_json::from_str(&t).map_err(|e| format!("{}: not valid JSON ({e})", id_path.display())))
            .map_err(|e| format!("{e}; cannot check what campaign this is"))?;
        if !same_campaign(&before, &self.identity()) {
            return Err(format!(
                "{} was started from another scenario, seed, set of dispersions or backend ({}); use another --out",
                out.display(),
                before
            ));
        }
        Ok(())
    }

    /// A `runs.csv` line of this campaign as a row.
    pub fn parse_row(&self, line: &str) -> Result<RunRow, String> {
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
