//! What a shard's files must prove before a merge takes them (docs/limits.md, "Shards and
//! merges", states the threat model).
//!
//! A shard folder is files anyone with access to it can edit, so a merge trusts nothing it can
//! check itself:
//!
//! - **Re-derived**: every row is in its canonical form (the line its parsed row writes back),
//!   of this campaign's seed, with the dispersed values that `(seed, run index)` draws, a status
//!   its kind declares ([`super::CampaignKind::statuses`]), and results that are finite and within the guard's bound ([`ABSURD`]); the
//!   shard's accounting is counts and times a shard can have.
//! - **Keyed**: with the environment variable [`KEY_ENV`] set (the same secret for the shards
//!   and the merge, as a job array's environment gives it), `shard.json` carries an HMAC-SHA256
//!   of the shard's identity, rows and accounting; a merge with the key refuses a shard without
//!   it or whose code differs, so no edit of the folder survives without the key.
//! - **Re-run**: a merge of unkeyed shards re-runs some of each shard's runs, chosen at random
//!   when the merge starts (so not knowable when the files are edited), and compares the rows bit
//!   for bit (a run is a function of the scenario, the seed and its index). An edit of rows that
//!   the draw misses passes; the key is the defence against that.

use super::{Campaign, RunRow, Shard};
use crate::pipeline::ABSURD;
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::Sha256;

/// The environment variable holding the key of shards' integrity codes (at least 16 bytes).
pub const KEY_ENV: &str = "TUMBLE_SHARD_KEY";

/// Shortest key accepted, bytes.
const MIN_KEY: usize = 16;

/// The key from [`KEY_ENV`], if set.
pub(crate) fn key() -> Result<Option<Vec<u8>>, String> {
    match std::env::var_os(KEY_ENV) {
        None => Ok(None),
        Some(k) if k.len() < MIN_KEY => Err(format!(
            "{KEY_ENV} holds {} bytes: a key needs at least {MIN_KEY} (such as the output of `openssl rand -hex 32`)",
            k.len()
        )),
        Some(k) => Ok(Some(k.into_encoded_bytes())),
    }
}

/// `v` as JSON text with every object's keys sorted, so that the same value gives the same
/// bytes whatever order it was built or read in.
fn canonical(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> =
                keys.iter().map(|k| format!("{}:{}", Value::from(k.as_str()), canonical(&m[k.as_str()]))).collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(canonical).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

/// What a shard's code is computed over: the campaign's identity (its path left out), the
/// shard, the run count, `runs.csv` and the accounting, each with its length before it.
fn message(c: &Campaign, shard: Shard, csv: &str, accounting: &Value) -> Vec<u8> {
    let mut id = c.identity();
    if let Some(m) = id.as_object_mut() {
        m.remove("scenario");
        m.insert("runs".into(), c.options.runs.into());
        m.insert("shard".into(), shard.to_string().into());
    }
    let mut out = Vec::new();
    for part in [canonical(&id), csv.to_string(), canonical(accounting)] {
        out.extend_from_slice(&(part.len() as u64).to_le_bytes());
        out.extend_from_slice(part.as_bytes());
    }
    out
}

fn hmac(key: &[u8]) -> Hmac<Sha256> {
    // HMAC takes keys of any length; the error cannot happen.
    <Hmac<Sha256> as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!("HMAC accepts any key length"))
}

/// The shard's integrity code (hex).
pub(crate) fn code(key: &[u8], c: &Campaign, shard: Shard, csv: &str, accounting: &Value) -> String {
    let mut m = hmac(key);
    m.update(&message(c, shard, csv, accounting));
    m.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `hex` is the shard's code under `key` (compared in constant time).
pub(crate) fn verify(key: &[u8], c: &Campaign, shard: Shard, csv: &str, accounting: &Value, hex: &str) -> bool {
    let bytes: Option<Vec<u8>> =
        (0..hex.len() / 2).map(|i| hex.get(2 * i..2 * i + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect();
    let mut m = hmac(key);
    m.update(&message(c, shard, csv, accounting));
    bytes.is_some_and(|b| hex.len() == 64 && m.verify_slice(&b).is_ok())
}

/// Checks one row of a shard against what the merge re-derives (see the module's doc).
pub(crate) fn check_row(c: &Campaign, line: &str, row: &RunRow) -> Result<(), String> {
    if row.to_csv(c.options.seed) != line {
        return Err("not a row as Tumble writes it (this campaign's seed, each number in its shortest form)".into());
    }
    let drawn = super::dispersion::draw_run(&c.dispersions, c.options.seed, row.index);
    if let Some(((key, want), got)) = drawn.iter().zip(&row.values).find(|((_, want), got)| want != *got) {
        return Err(format!("`{key}` = {got}, where run {} of this seed draws {want}", row.index));
    }
    if !declared(c, &row.status) {
        let mut all: Vec<&str> = c.kind.statuses().to_vec();
        all.extend(["failed", "invalid"]);
        return Err(format!("status `{}` is not one a run of this campaign writes ({})", row.status, all.join(", ")));
    }
    if let Some((i, x)) = row.results.iter().enumerate().find(|(_, x)| x.is_infinite() || x.abs() > ABSURD) {
        let col = c.kind.columns().get(i).cloned().unwrap_or_default();
        return Err(format!("`{col}` = {x:e}, beyond the guard's bound ({ABSURD:e}) that every run's values keep"));
    }
    Ok(())
}

/// Whether a run of campaign `c` can end with `status`.
pub(crate) fn declared(c: &Campaign, status: &str) -> bool {
    ["failed", "invalid"].contains(&status) || c.kind.statuses().contains(&status)
}

/// The runs and wall time a shard's accounting claims, checked: a whole number of runs no more
/// than its `size`, a wall time finite, not negative and under 10 years.
pub(crate) fn accounting(acc: &Value, size: u64) -> Result<(u64, f64), String> {
    let runs = acc.get("runs_executed").and_then(Value::as_u64);
    let wall = acc.get("wall_time_s").and_then(Value::as_f64);
    match (runs, wall) {
        (Some(n), Some(t)) if n <= size && t.is_finite() && (0.0..3.2e8).contains(&t) => Ok((n, t)),
        _ => Err(format!(
            "its accounting is not a shard's (runs_executed a whole number up to its {size} runs, wall_time_s from 0 to 3.2e8 s): {}",
            canonical(acc)
        )),
    }
}

/// `n` run indices of `range` drawn from the operating system's randomness (without repeats
/// where the range allows), for the re-runs of an unkeyed merge.
pub(crate) fn draw(range: std::ops::Range<u64>, n: u64) -> Vec<u64> {
    use std::hash::{BuildHasher, Hasher};
    let size = range.end - range.start;
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(size);
    let mut lcg = tumble_math::Lcg::new(h.finish());
    // Every run when asked for as many (a `--verify-runs` past the shard's size), without
    // drawing; otherwise draws into a set (each draw O(log n), so a large N stays quick).
    if n >= size {
        return range.collect();
    }
    let mut picks = std::collections::BTreeSet::new();
    while (picks.len() as u64) < n {
        picks.insert(range.start + ((lcg.unit() * size as f64) as u64).min(size - 1));
    }
    picks.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_text_does_not_depend_on_key_order() {
        let a: Value = serde_json::from_str(r#"{"b": 1, "a": {"y": [1, 2.5], "x": "s"}}"#).expect("json");
        let b = json!({ "a": { "x": "s", "y": [1, 2.5] }, "b": 1 });
        assert_eq!(canonical(&a), canonical(&b));
        assert_eq!(canonical(&b), r#"{"a":{"x":"s","y":[1,2.5]},"b":1}"#);
    }

    #[test]
    fn accounting_claims_are_bounded() {
        let ok = json!({ "runs_executed": 8, "wall_time_s": 1.5 });
        assert_eq!(accounting(&ok, 8), Ok((8, 1.5)));
        for bad in [
            json!({ "runs_executed": 9, "wall_time_s": 1.5 }),
            json!({ "runs_executed": 1.8e19, "wall_time_s": 1.5 }),
            json!({ "runs_executed": -1, "wall_time_s": 1.5 }),
            json!({ "runs_executed": 8, "wall_time_s": -1.0 }),
            json!({ "runs_executed": 8, "wall_time_s": 1e300 }),
            json!({ "runs_executed": 8 }),
        ] {
            assert!(accounting(&bad, 8).is_err(), "{bad}");
        }
        assert!(accounting(&Value::Null, 8).is_err());
    }

    #[test]
    fn draws_stay_in_range_without_repeats() {
        let d = draw(10..14, 10);
        assert_eq!(d.len(), 4);
        assert!(d.iter().all(|i| (10..14).contains(i)));
        let mut s = d.clone();
        s.sort();
        s.dedup();
        assert_eq!(s.len(), 4);
        assert!(draw(5..5, 3).is_empty());
        // A count past any shard (a user's --verify-runs of 2^64 - 1) is every run, at once.
        assert_eq!(draw(3..1_003, u64::MAX).len(), 1_000);
        assert_eq!(draw(0..1_000_000, 999).len(), 999);
    }
}
