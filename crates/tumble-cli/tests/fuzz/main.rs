//! The fuzz harness: mutation tests over every reader of untrusted input and short runs of
//! accepted mutants of every bundled scenario (docs/limits.md, "Fuzzing").
//!
//! Each target turns (seed, case index) into an input by mutating a valid one, feeds it to the
//! reader (in process, or to the `tumble` command for the LQR JSON and fit CSV readers and for
//! whole runs) and checks what must hold for any input:
//!
//! - no panic, and no case running past [`HANG`] (a watchdog ends the process, naming the case);
//! - a refused input's message names the file (and, for scenarios, the key or line);
//! - an accepted input gives finite values below the guard's bound in every output, and a run
//!   that fails has a diagnosis (and, from the command, exit status 1, never 0).
//!
//! `cargo test -p tumble-cli --test fuzz` runs a bounded number of cases per target (one or two
//! minutes in all on two cores). Longer: `TUMBLE_FUZZ_SECONDS=600` gives each target that many
//! seconds (add `--release`), `TUMBLE_FUZZ_SEED=N` another sequence, `TUMBLE_FUZZ_CASE=target:i`
//! one case. A finding prints how to reproduce it, and its input is kept under the test's
//! temporary folder (`target/tmp/fuzz/findings`).

#[path = "../common/mod.rs"]
mod common;
mod files;
mod mutate;
mod targets;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// Longest a case may run: 10 s optimised (`check`, a step, a reader); a debug build is 3 to 10
/// times slower, so 30 s there.
pub const HANG: Duration = Duration::from_secs(if cfg!(debug_assertions) { 30 } else { 10 });

/// What a case found wrong.
pub type Finding = String;

/// A case's outcome: when every property held, what became of the input (`refused`,
/// `accepted`, `ran`, `failed run`), tallied in the report.
pub type Verdict = Result<&'static str, Finding>;

/// One fuzz target: its name, the default number of cases, and a case.
struct Target {
    name: &'static str,
    cases: u64,
    case: fn(&mut mutate::Rng, &Path) -> Verdict,
}

static CASES: Mutex<Option<HashMap<std::thread::ThreadId, (Instant, String)>>> = Mutex::new(None);

/// Panics inside a case are findings, not test failures of the harness: their message is kept.
static PANIC: Mutex<Option<String>> = Mutex::new(None);

thread_local! {
    static IN_CASE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Adds what the current case is feeding (a file, an override) to its name, for the watchdog's
/// report.
pub fn note(detail: &str) {
    let id = std::thread::current().id();
    if let Some((_, what)) =
        CASES.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new).get_mut(&id)
    {
        what.push_str(": ");
        what.push_str(detail);
    }
}

fn start_watchdog() {
    static START: Once = Once::new();
    START.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_CASE.with(|c| c.get()) {
                *PANIC.lock().unwrap_or_else(|e| e.into_inner()) = Some(info.to_string());
            } else {
                default(info);
            }
        }));
        std::thread::spawn(|| {
            loop {
                std::thread::sleep(Duration::from_millis(200));
                let cases = CASES.lock().unwrap_or_else(|e| e.into_inner());
                if let Some((_, what)) = cases.iter().flatten().find(|(_, (t, _))| t.elapsed() > HANG).map(|(_, c)| c) {
                    // Straight to the process's stderr: the test harness captures `eprintln!`.
                    use std::io::Write;
                    let _ = writeln!(std::io::stderr(), "fuzz finding: hang: {what} ran past {} s", HANG.as_secs());
                    std::process::exit(3);
                }
            }
        });
    });
}

/// The test's scratch folder for `target`.
fn scratch(target: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz").join(target);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Runs `target`'s cases (the bounded count, or for `TUMBLE_FUZZ_SECONDS`) and fails listing
/// every finding.
fn fuzz(target: Target) {
    start_watchdog();
    let seed = std::env::var("TUMBLE_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1u64);
    let seconds = std::env::var("TUMBLE_FUZZ_SECONDS").ok().and_then(|s| s.parse::<f64>().ok());
    let only = std::env::var("TUMBLE_FUZZ_CASE").ok().and_then(|c| {
        let (t, i) = c.split_once(':')?;
        (t == target.name).then(|| i.parse::<u64>().ok()).flatten()
    });
    if std::env::var("TUMBLE_FUZZ_CASE").is_ok() && only.is_none() {
        return;
    }
    let dir = scratch(target.name);
    let (start, mut findings, mut index) = (Instant::now(), Vec::new(), only.unwrap_or(0));
    let mut tally = std::collections::BTreeMap::<&str, u64>::new();
    // The slowest case, against the hang bound on a slower machine.
    let mut slowest = (Duration::ZERO, String::new());
    loop {
        let done = match (only, seconds) {
            (Some(i), _) => index > i,
            (None, Some(s)) => start.elapsed().as_secs_f64() > s,
            (None, None) => index >= target.cases,
        };
        if done {
            break;
        }
        let what = format!("{} case {index} (seed {seed})", target.name);
        let id = std::thread::current().id();
        CASES
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(HashMap::new)
            .insert(id, (Instant::now(), what.clone()));
        let case_dir = dir.join(format!("case{index}"));
        std::fs::create_dir_all(&case_dir).expect("case folder");
        let mut rng = mutate::Rng::for_case(seed, target.name, index);
        IN_CASE.with(|c| c.set(true));
        let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (target.case)(&mut rng, &case_dir)));
        IN_CASE.with(|c| c.set(false));
        let verdict = verdict.unwrap_or_else(|_| {
            Err(format!("panic: {}", PANIC.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default()))
        });
        let (began, what) = CASES
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(HashMap::new)
            .remove(&id)
            .unwrap_or((Instant::now(), what));
        if began.elapsed() > slowest.0 {
            slowest = (began.elapsed(), what.clone());
        }
        match verdict {
            Ok(outcome) => {
                *tally.entry(outcome).or_default() += 1;
                let _ = std::fs::remove_dir_all(&case_dir);
            }
            Err(f) => {
                let keep = dir.parent().expect("fuzz folder").join("findings").join(format!("{}-{index}", target.name));
                let _ = std::fs::create_dir_all(keep.parent().expect("findings"));
                let _ = std::fs::remove_dir_all(&keep);
                let _ = std::fs::rename(&case_dir, &keep);
                findings.push(format!(
                    "{what}: {f}\n  input: {}\n  again: TUMBLE_FUZZ_SEED={seed} TUMBLE_FUZZ_CASE={}:{index} cargo test -p tumble-cli --test fuzz {}",
                    keep.display(),
                    target.name,
                    target.name
                ));
            }
        }
        index += 1;
    }
    eprintln!("fuzz {}: {index} cases in {:.1} s {tally:?}", target.name, start.elapsed().as_secs_f64());
    eprintln!("  slowest: {:.1} s, {}", slowest.0.as_secs_f64(), slowest.1);
    assert!(findings.is_empty(), "{} findings:\n{}", findings.len(), findings.join("\n"));
}

macro_rules! targets {
    ($($module:ident::$name:ident: $cases:expr),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                fuzz(Target { name: stringify!($name), cases: $cases, case: $module::$name });
            }
        )*
    };
}

targets! {
    targets::scenario_text: 3000,
    targets::scenario_set: 3000,
    targets::scenario_run: 400,
    targets::command_run: 100,
    targets::mesh: 4000,
    targets::sdf: 2000,
    targets::urdf: 3000,
    targets::contact_model: 2000,
    targets::lqr_json: 400,
    targets::fit_csv: 300,
    files::output_folder: 40,
    files::input_file: 60,
    files::forged_shard: 16,
    files::design: 2000,
}
