//! Shards of a campaign for batch schedulers (`tumble mc --shard K/N`, one task of a Slurm job
//! array each) and their merge into the folder the campaign would have written on one machine.
//!
//! Shard K of N executes runs ⌊K·runs/N⌋ … ⌊(K+1)·runs/N⌋ − 1 into its own folder as a
//! campaign of those runs: its `campaign.json` adds the whole campaign's run count and the shard
//! to the campaign's identity, and it resumes (`--resume`) as any campaign. When its last run is
//! in, [`write_shard_record`] writes `shard.json`: the shard, its rows, a checksum of its
//! `runs.csv` and its accounting. [`merge`] refuses a shard folder that is missing, duplicated,
//! of another campaign or split, unfinished, or altered since it finished, naming it; otherwise
//! it writes `runs.csv` and `campaign.json` as one machine would (the rows are the same lines,
//! since each is a function of the seed and its run index alone).

use super::integrity::{self, KEY_ENV};
use super::{Accounting, Campaign, RunRow, Worker, fnv};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Shard `index` of `count` (0 ≤ index < count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Shard {
    /// Which shard, from 0.
    pub index: u64,
    /// How many shards the campaign is split into.
    pub count: u64,
}

impl Shard {
    /// The run indices of this shard of a campaign of `runs` runs: contiguous, the shards'
    /// sizes differing by at most one.
    pub fn range(&self, runs: u64) -> std::ops::Range<u64> {
        let at = |k: u64| (runs as u128 * k as u128 / self.count.max(1) as u128) as u64;
        at(self.index)..at(self.index + 1)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N`, K counted from 0 (as a Slurm job array `--array=0-(N-1)` numbers its tasks).
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("shard `{s}`: expected K/N with 0 <= K < N, such as 0/8 … 7/8");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u64, u64) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if count == 0 || index >= count || count > super::MAX_RUNS {
            return Err(bad());
        }
        Ok(Self { index, count })
    }
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = super::read_text(path)?;
    serde_json::from_str(&text).map_err(|e| format!("{}: not valid JSON ({e})", path.display()))
}

/// Writes through a new file renamed into place (`tumble_math::output::write`), so that a reader
/// never sees half a file and nothing is written through a link.
fn write_atomic(path: &Path, text: &str) -> Result<(), String> {
    tumble_math::output::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Marks shard campaign `c` finished with its `rows`: writes `shard.json` (and the shard's
/// Parquet table, where this build has it).
pub fn write_shard_record(c: &Campaign, rows: &[RunRow], accounting: &Accounting) -> Result<(), String> {
    let shard = c.options.shard.ok_or("not a shard campaign")?;
    let out = &c.options.out;
    let csv = out.join("runs.csv");
    let text = super::read_text(&csv)?;
    let range = shard.range(c.options.runs);
    let mut record = json!({
        "shard": shard.to_string(),
        "runs": [range.start, range.end],
        "rows": rows.len(),
        "runs_csv_fnv1a": format!("{:016x}", fnv(&text)),
        "accounting": accounting.to_json(),
    });
    if let Some(key) = integrity::key()? {
        record["hmac_sha256"] = integrity::code(&key, c, shard, &text, &record["accounting"]).into();
    }
    super::parquet::write(c, rows, &out.join("runs.parquet"))?;
    write_atomic(&out.join("shard.json"), &(serde_json::to_string_pretty(&record).unwrap_or_default() + "\n"))
}

/// One shard folder, read and checked.
struct ShardDir {
    dir: PathBuf,
    shard: Shard,
    lines: Vec<String>,
    worker: Worker,
    /// Whether its integrity code was verified with the merge's key.
    keyed: bool,
}

/// Reads shard folder `dir` of campaign `c`, checking its integrity code with `key` (see
/// [`integrity`]); the problems found, when any.
fn read_shard(c: &Campaign, dir: &Path, key: Option<&[u8]>) -> Result<ShardDir, String> {
    let d = dir.display();
    let id = read_json(&dir.join("campaign.json")).map_err(|e| format!("{e}: not a campaign folder"))?;
    let want = c.identity();
    let (Some(id), Some(want)) = (id.as_object(), want.as_object()) else {
        return Err(format!("{d}/campaign.json: not a campaign's identity"));
    };
    let shard: Shard = match id.get("shard").and_then(Value::as_str) {
        Some(s) => s.parse()?,
        None => return Err(format!("{d}: a whole campaign, not a shard (its campaign.json names no shard)")),
    };
    let differs: Vec<String> = (want.iter())
        .filter(|(k, v)| k.as_str() != "scenario" && id.get(*k) != Some(v))
        .map(|(k, v)| format!("{k} {} where this campaign's is {v}", id.get(k).unwrap_or(&Value::Null)))
        .chain(
            id.keys()
                .filter(|k| !want.contains_key(*k) && !["runs", "shard"].contains(&k.as_str()))
                .map(|k| format!("{k} {}", id[k])),
        )
        .collect();
    if !differs.is_empty() {
        return Err(format!(
            "{d}: a shard of another campaign ({}); merge only the shards of this one",
            differs.join("; ")
        ));
    }
    if id.get("runs").and_then(Value::as_u64) != Some(c.options.runs) {
        let runs = id.get("runs").unwrap_or(&Value::Null);
        return Err(format!("{d}: a shard of a campaign of {runs} runs; this one has {} (--runs)", c.options.runs));
    }
    let range = shard.range(c.options.runs);
    let csv = dir.join("runs.csv");
    let text = super::read_text(&csv)?;
    let Ok(record) = read_json(&dir.join("shard.json")) else {
        let n = text.lines().count().saturating_sub(1);
        return Err(format!(
            "{d}: shard {shard} has not finished ({n} of {} runs in runs.csv, no shard.json): run it again with --resume",
            range.end - range.start
        ));
    };
    let again = "delete the folder and run the shard again";
    let code = record.get("hmac_sha256").and_then(Value::as_str);
    let acc = record.get("accounting").unwrap_or(&Value::Null);
    let keyed = match (key, code) {
        (Some(key), Some(code)) if integrity::verify(key, c, shard, &text, acc, code) => true,
        (Some(_), Some(_)) => {
            return Err(format!(
                "{d}: its integrity code does not match its files under {KEY_ENV}: altered, or run with another key; {again}"
            ));
        }
        (Some(_), None) => {
            return Err(format!(
                "{d}: has no integrity code, and this merge has a key ({KEY_ENV}): run the shard again with the key set"
            ));
        }
        (None, Some(_)) => {
            return Err(format!("{d}: has an integrity code: set {KEY_ENV} to the key the shards were run with"));
        }
        (None, None) => false,
    };
    if record.get("runs_csv_fnv1a").and_then(Value::as_str) != Some(&format!("{:016x}", fnv(&text))) {
        return Err(format!(
            "{}: changed since the shard finished (its checksum in shard.json differs): {again}",
            csv.display()
        ));
    }
    let lines = check_rows(c, &csv, &text, range.clone())?;
    let (runs, wall_time_s) =
        integrity::accounting(acc, range.end - range.start).map_err(|e| format!("{d}/shard.json: {e}"))?;
    let worker = Worker { name: format!("shard {shard} ({d})"), runs, wall_time_s };
    Ok(ShardDir { dir: dir.to_path_buf(), shard, lines, worker, keyed })
}

/// The rows of a shard's `runs.csv`, checked: this campaign's header, every row readable, every
/// run of `range` once and no other.
fn check_rows(c: &Campaign, csv: &Path, text: &str, range: std::ops::Range<u64>) -> Result<Vec<String>, String> {
    let mut it = text.lines();
    if it.next() != Some(c.header().as_str()) {
        return Err(format!("{}: its header is not this campaign's columns ({})", csv.display(), c.header()));
    }
    let mut rows = BTreeMap::new();
    for (n, line) in it.enumerate() {
        let at = || format!("{}:{}", csv.display(), n + 2);
        let row = c.parse_row(line).map_err(|e| format!("{}: {e}", at()))?;
        integrity::check_row(c, line, &row).map_err(|e| format!("{}: run {}: {e}", at(), row.index))?;
        if !range.contains(&row.index) {
            return Err(format!(
                "{}: run {} is not one of this shard's runs {}..{}",
                at(),
                row.index,
                range.start,
                range.end
            ));
        }
        if rows.insert(row.index, line.to_string()).is_some() {
            return Err(format!("{}: run {} appears twice", at(), row.index));
        }
    }
    if let Some(i) = range.clone().find(|i| !rows.contains_key(i)) {
        return Err(format!(
            "{}: run {i} is missing ({} of {} runs present)",
            csv.display(),
            rows.len(),
            range.end - range.start
        ));
    }
    Ok(rows.into_values().collect())
}

/// Merges the finished shard folders `dirs` of campaign `c` (the campaign the shards are parts
/// of, unsharded) into `c`'s output folder: checks them all, then writes `campaign.json` and
/// `runs.csv` exactly as `c` run on one machine writes them. Each shard's integrity is checked
/// as `campaign/integrity.rs` describes: with the key of [`KEY_ENV`], or else by re-running `verify_runs`
/// of its runs drawn at random. Returns the rows in run order, what each shard did and how the
/// shards were verified; every problem found is named (all of them, one per line).
pub fn merge(c: &Campaign, dirs: &[PathBuf], verify_runs: u64) -> Result<Merged, String> {
    if c.options.shard.is_some() {
        return Err("a merge writes the whole campaign: give no --shard".into());
    }
    let out = &c.options.out;
    crate::outputs::output_folder(out)?;
    let key = integrity::key()?;
    let same = read_json(&out.join("campaign.json")).is_ok_and(|id| super::same_campaign(&id, &c.identity()));
    if fs::symlink_metadata(out.join("runs.csv")).is_ok() && !same {
        return Err(format!("{} already holds another campaign: choose another --out", out.display()));
    }
    let mut problems = Vec::new();
    let mut shards: BTreeMap<u64, ShardDir> = BTreeMap::new();
    let mut count = None;
    for dir in dirs {
        let s = match read_shard(c, dir, key.as_deref()) {
            Ok(s) => s,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        let (n, first) = count.get_or_insert((s.shard.count, s.dir.clone())).clone();
        if s.shard.count != n {
            problems.push(format!(
                "{} is shard {} but {} is one of {n}: shards of two different splits",
                dir.display(),
                s.shard,
                first.display()
            ));
        } else if let Some(other) = shards.get(&s.shard.index) {
            problems.push(format!("{} and {} are both shard {}", other.dir.display(), dir.display(), s.shard));
        } else {
            shards.insert(s.shard.index, s);
        }
    }
    if let Some((n, _)) = count {
        for k in (0..n).filter(|k| !shards.contains_key(k)) {
            let r = Shard { index: k, count: n }.range(c.options.runs);
            problems
                .push(format!("shard {k}/{n} (runs {}..{}) is missing: run it with --shard {k}/{n}", r.start, r.end));
        }
    } else if problems.is_empty() {
        problems.push("no shard folders given".into());
    }
    if problems.is_empty() {
        problems = rerun(c, &shards, verify_runs)?;
    }
    if !problems.is_empty() {
        return Err(format!("cannot merge:\n  {}", problems.join("\n  ")));
    }
    let verified = match (key.is_some(), c.backend.is_some()) {
        (true, _) => format!("every shard's integrity code verified ({KEY_ENV})"),
        (false, false) => format!("unkeyed: rows checked, {verify_runs} run(s) of each shard re-run bit-identical"),
        (false, true) => "unkeyed: rows checked (a device's runs are not re-run on the CPU)".into(),
    };
    crate::outputs::create_output_folder(out)?;
    let mut text = format!("{}\n", c.header());
    for line in shards.values().flat_map(|s| &s.lines) {
        text.push_str(line);
        text.push('\n');
    }
    write_atomic(
        &out.join("campaign.json"),
        &(serde_json::to_string_pretty(&c.identity()).unwrap_or_default() + "\n"),
    )?;
    write_atomic(&out.join("runs.csv"), &text)?;
    let rows = shards.values().flat_map(|s| &s.lines).map(|l| c.parse_row(l)).collect::<Result<Vec<_>, _>>()?;
    Ok(Merged { rows, workers: shards.into_values().map(|s| s.worker).collect(), verified })
}

/// A merge's outcome.
#[derive(Debug)]
pub struct Merged {
    /// The campaign's rows in run order.
    pub rows: Vec<RunRow>,
    /// What each shard did.
    pub workers: Vec<Worker>,
    /// How the shards' integrity was verified, in words.
    pub verified: String,
}

/// Re-runs `n` runs drawn at random from each unkeyed shard (on the campaign's threads) and
/// names those whose row differs from the shard's. A device's shards are not re-run: the CPU's
/// rows are not the device's bit for bit.
fn rerun(c: &Campaign, shards: &BTreeMap<u64, ShardDir>, n: u64) -> Result<Vec<String>, String> {
    use rayon::prelude::*;
    if c.backend.is_some() {
        return Ok(Vec::new());
    }
    let picks: Vec<(&ShardDir, usize)> = (shards.values().filter(|s| !s.keyed))
        .flat_map(|s| {
            let start = s.shard.range(c.options.runs).start;
            integrity::draw(s.shard.range(c.options.runs), n).into_iter().map(move |i| (s, (i - start) as usize))
        })
        .collect();
    let pool = crate::thread_pool(c.options.threads)?;
    Ok(pool.install(|| {
        (picks.par_iter())
            .filter_map(|&(s, k)| {
                let line = &s.lines[k];
                let index = c.parse_row(line).ok()?.index;
                let again = c.run_one(index).to_csv(c.options.seed);
                (&again != line).then(|| {
                    format!(
                        "{}/runs.csv: run {index} re-run here gives `{again}` where the shard holds `{line}`: altered, or run by another build of tumble; delete the folder and run the shard again",
                        s.dir.display()
                    )
                })
            })
            .collect()
    }))
}
