//! Any application's run for an external code, through the one application interface
//! ([`tumble_sim::app::Run`], found by the scenario's `kind` in [`tumble_sim::registry`]): start
//! it from a scenario file, take one accepted step at a time, read its state by name, set its
//! inputs by name between steps (a wrench on a mechanism's body, an arm's joint forces, the
//! LEE snare's drive commands, …), then write its outputs. No state layout is written here:
//! the names, units and lengths are the application's ([`tumble_run_describe`]).

use crate::{TUMBLE_OK, boxed, fail, free, text};
use serde_json::json;
use std::ffi::{CString, c_char, c_int};
use std::path::Path;
use std::ptr;
use tumble_sim::app::Run;

/// [`tumble_run_step`]: the run has ended (its end is in [`tumble_run_report`]'s summary).
pub const TUMBLE_ENDED: c_int = 1;

/// A running simulation of any application.
pub struct TumbleRun {
    run: Box<dyn Run>,
    /// The last text handed to C (a description or a summary), kept until the next one.
    text: CString,
}

impl TumbleRun {
    fn hand(&mut self, s: String) -> *const c_char {
        self.text = CString::new(s.replace('\0', " ")).unwrap_or_default();
        self.text.as_ptr()
    }
}

/// Most overrides [`tumble_run_start`] takes.
const MAX_OVERRIDES: usize = 10_000;

/// Reads the scenario file at `path` (any kind the registry knows) with the `n_set` overrides
/// `set` (each `"KEY=VALUE"`, as `tumble run --set` takes them; NULL with 0 for none), builds
/// its model and starts its run at t = 0. NULL on failure (the error names the file and the
/// key).
///
/// # Safety
/// `path` is NULL or a NUL-terminated string; `set` NULL (with `n_set` = 0) or `n_set`
/// NUL-terminated strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_run_start(
    path: *const c_char,
    set: *const *const c_char,
    n_set: c_int,
) -> *mut TumbleRun {
    // SAFETY: forwarded contract.
    let Ok(path) = (unsafe { text(path, "path") }) else { return ptr::null_mut() };
    let Some(n) = usize::try_from(n_set).ok().filter(|n| *n <= MAX_OVERRIDES) else {
        fail(format!("n_set must be 0 to {MAX_OVERRIDES} (the number of strings in set), got {n_set}"));
        return ptr::null_mut();
    };
    if n > 0 && set.is_null() {
        fail("set is NULL");
        return ptr::null_mut();
    }
    let mut overrides = Vec::with_capacity(n);
    for i in 0..n {
        // SAFETY: `set` holds `n_set` strings by the caller's contract.
        let Ok(kv) = (unsafe { text(*set.add(i), "an override") }) else { return ptr::null_mut() };
        let Some((k, v)) = kv.split_once('=') else {
            fail(format!("override {kv:?}: write KEY=VALUE, e.g. simulation.duration=0.5"));
            return ptr::null_mut();
        };
        overrides.push((k.trim().to_string(), v.trim().to_string()));
    }
    let started = tumble_sim::registry::load(Path::new(path), &overrides)
        .and_then(|sc| tumble_sim::registry::start(&sc))
        .map_err(|e| e.to_string());
    boxed(started.map(|run| TumbleRun { run, text: CString::default() }))
}

/// Frees a run (NULL is ignored).
///
/// # Safety
/// `run` is NULL or from [`tumble_run_start`], not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_run_free(run: *mut TumbleRun) {
    // SAFETY: forwarded contract.
    unsafe { free(run) }
}

/// The run, or a failure for NULL.
///
/// # Safety
/// `run` is NULL or a live run.
unsafe fn live<'a>(run: *mut TumbleRun) -> Result<&'a mut TumbleRun, c_int> {
    // SAFETY: NULL or live by the caller's contract.
    unsafe { run.as_mut() }.ok_or_else(|| fail("run is NULL"))
}

/// Takes one accepted step: [`TUMBLE_OK`] while the run goes on, [`TUMBLE_ENDED`] once it has
/// ended, [`crate::TUMBLE_ERROR`] when the guard stopped it (the diagnosis in
/// [`crate::tumble_last_error`]; the samples up to then are kept for [`tumble_run_report`]).
///
/// # Safety
/// `run` is NULL or a live run.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_run_step(run: *mut TumbleRun) -> c_int {
    // SAFETY: forwarded contract.
    let r = match unsafe { live(run) } {
        Ok(r) => r,
        Err(e) => return e,
    };
    match r.run.step() {
        Err(d) => fail(d.to_string()),
        Ok(_) if r.run.ended().is_some() => TUMBLE_ENDED,
        Ok(_) => TUMBLE_OK,
    }
}

/// Simulated time, s (NaN for NULL).
///
/// # Safety
/// `run` is NULL or a live run.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_run_time(run: *const TumbleRun) -> f64 {
    // SAFETY: NULL or live by the caller's contract.
    unsafe { run.as_ref() }.map_or(f64::NAN, |r| r.run.time())
}

/// What the run has, as JSON valid until the next call on this run that returns text:
/// `{"state": [{"name", "unit", "len"}], "inputs": [{"name", "unit", "len", "release", "what"}]}`.
/// NULL for NULL.
///
/// # Safety
/// `run` is NULL or a live run.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_run_describe(run: *mut TumbleRun) -> *const c_char {
    // SAFETY: forwarded contract.
    let Ok(r) = (unsafe { live(run) }) else { return ptr::null() };
    let state: Vec<_> =
        r.run.state().iter().map(|q| json!({"name": q.name, "unit": q.unit, "len": q.values.len()})).collect();
    let inputs: Vec<_> = r
        .run
        .inputs()
        .iter()
        .map(|i| json!({"name": i.name, "unit": i.unit, "len": i.len, "release": i.release, "what": i.what}))
        .collect();
    let description = json!({"state": state, "inputs": inputs}).to_string();
    r.hand(description)
}

/// Writes the values of the state part `name` (see [`tumble_run_describe`]) into `out`, which
/// holds `capacity` doubles; returns how many it has (written only when they fit), or
/// [`crate::TUMBLE_ERROR`] for an unknown name.
///
/// # Safety
/// `run` is NULL or a live run; `name` NULL or a NUL-terminated string; `out` NULL or
/// `capacity` writable doubles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_run_state(
    run: *const TumbleRun,
    name: *const c_char,
    out: *mut f64,
    capacity: c_int,
) -> c_int {
    // SAFETY: NULL or live by the caller's contract.
    let Some(r) = (unsafe { run.as_ref() }) else { return fail("run is NULL") };
    // SAFETY: forwarded contract.
    let name = match unsafe { text(name, "name") } {
        Ok(n) => n,
        Err(e) => return e,
    };
    let state = r.run.state();
    let Some(q) = state.iter().find(|q| q.name == name) else {
        let names: Vec<&str> = state.iter().map(|q| q.name.as_str()).collect();
        return fail(format!("no state `{name}`: the run has {}", names.join(", ")));
    };
    let n = q.values.len();
    if !out.is_null() && usize::try_from(capacity).is_ok_and(|c| c >= n) {
        // SAFETY: `out` holds `capacity` ≥ n doubles by the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(out, n) }.copy_from_slice(&q.values);
    }
    c_int::try_from(n).unwrap_or(c_int::MAX)
}

/// Sets input `name` to the `n` values at `values`, held from the next step on (`n` = 0
/// releases an input that can be released). Refused with what would be right: an unknown
/// name, a wrong count, a value that is not finite.
///
/// # Safety
/// `run` is NULL or a live run; `name` NULL or a NUL-terminated string; `values` NULL (with
/// `n` = 0) or `n` readable doubles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_run_set_input(
    run: *mut TumbleRun,
    name: *const c_char,
    values: *const f64,
    n: c_int,
) -> c_int {
    // SAFETY: forwarded contract.
    let r = match unsafe { live(run) } {
        Ok(r) => r,
        Err(e) => return e,
    };
    // SAFETY: forwarded contract.
    let name = match unsafe { text(name, "name") } {
        Ok(n) => n,
        Err(e) => return e,
    };
    let Ok(n) = usize::try_from(n) else { return fail(format!("{name}: a negative count of values ({n})")) };
    if n > 0 && values.is_null() {
        return fail(format!("{name}: values is NULL"));
    }
    // SAFETY: `values` holds `n` doubles by the caller's contract (checked non-NULL above).
    let values = if n == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(values, n) } };
    match r.run.set_input(name, values) {
        Ok(()) => TUMBLE_OK,
        Err(e) => fail(e),
    }
}

/// Once the run has ended: its `summary.json` as text (valid until the next call on this run
/// that returns text), with `out_dir` (or NULL for none) also every file `tumble run` writes
/// there. NULL on failure (the run has not ended, the folder cannot be written).
///
/// # Safety
/// `run` is NULL or a live run; `out_dir` NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tumble_run_report(run: *mut TumbleRun, out_dir: *const c_char) -> *const c_char {
    // SAFETY: forwarded contract.
    let Ok(r) = (unsafe { live(run) }) else { return ptr::null() };
    let dir = if out_dir.is_null() {
        None
    } else {
        // SAFETY: non-NULL and NUL-terminated by the caller's contract.
        match unsafe { text(out_dir, "out_dir") } {
            Ok(d) => Some(Path::new(d)),
            Err(_) => return ptr::null(),
        }
    };
    match r.run.report(dir) {
        Ok(report) => {
            let mut summary = report.summary;
            if let Some(fields) = summary.as_object_mut() {
                fields.insert("status".into(), json!(report.status));
            }
            r.hand(summary.to_string())
        }
        Err(e) => {
            fail(e);
            ptr::null()
        }
    }
}
