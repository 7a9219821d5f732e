//! `tumble mc` on every bundled scenario, as a user starts it: each kind runs its campaign,
//! exits 0, prints its headline and writes one row per run with its kind's columns, and the
//! report's distributions of every result.

use std::path::Path;
use std::process::Command;

mod common;

#[test]
fn every_bundled_scenario_runs_a_campaign() {
    // Those reading `../shared/data` only where it is present.
    let files = common::bundled();
    assert!(files.len() >= 15, "{files:?}");
    for f in files {
        let name = f.file_stem().expect("stem").to_string_lossy().to_string();
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("campaigns").join(&name);
        let _ = std::fs::remove_dir_all(&out);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tumble"));
        cmd.args(["mc", &f.display().to_string(), "--runs", "2", "--threads", "2", "--out"]).arg(&out);
        // The capture study's funnel from fewer samples: the campaign's machinery is under test.
        if name == "tumbling_500kg" {
            cmd.args(["--set", "capture.roa.samples=24"]);
        }
        // The 67P hopper's 15,000 s (its hop at about 1.1 h, then 15 min of flight and the
        // settling) took 292 s for two runs of 9,000 s in a debug build; its campaign's
        // machinery is the same over the first 1,200 s (release, bounces, the first rest: 6 s).
        if name == "hopper_67p" {
            cmd.args(["--set", "simulation.duration=1200"]);
        }
        let o = cmd.output().expect("tumble runs");
        let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert!(o.status.success(), "{name}: {stderr}");
        assert!(stdout.contains(": 2 runs ("), "{name}: {stdout}");
        let csv = std::fs::read_to_string(out.join("runs.csv")).expect("runs.csv");
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3, "{name}: {csv}");
        let width = lines[0].split(',').count();
        assert!(width > 5, "{name}: a kind names its result columns: {}", lines[0]);
        assert!(lines[1..].iter().all(|l| !l.contains(",invalid,")), "{name}: {csv}");
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).expect("summary")).expect("json");
        assert_eq!(summary["runs"], 2, "{name}");
        // run, seed, the dispersed values, status, the results, note.
        let dispersed = summary["dispersions"].as_array().map_or(0, |d| d.len());
        let results = summary["results"].as_object().map_or(0, |r| r.len());
        assert_eq!(results + dispersed + 4, width, "{name}: a distribution for each result column");
    }
}

/// A run index past any campaign is refused with exit 2 and one line, not an overflow.
#[test]
fn a_run_index_past_any_campaign_is_refused() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/lander/cube_phobos.toml");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("campaigns_bad_run");
    let o = Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(["mc", &f.display().to_string(), "--run", &u64::MAX.to_string(), "--out"])
        .arg(&out)
        .output()
        .expect("tumble runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--run must be below"), "{err}");
}

/// A campaign whose every draw makes an invalid scenario writes its rows (each saying why) and
/// exits with status 2, quoting run 0's reason.
#[test]
fn a_campaign_of_only_invalid_runs_exits_2() {
    let text = std::fs::read_to_string(common::scenario("lander/cube_phobos.toml")).expect("scenario");
    let head = text.split("[dispersions]").next().expect("head");
    let dir = common::tmp("campaigns_all_invalid");
    let f = dir.join("bad_mu.toml");
    std::fs::write(&f, format!("{head}[dispersions]\n\"lander.contact.mu\" = {{ uniform = [-0.5, -0.4] }}\n"))
        .expect("write");
    let out = dir.join("out");
    let o = common::tumble(&["mc", &f.display().to_string(), "--runs", "2", "--out", &out.display().to_string()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("every run's dispersed values make an invalid scenario") && err.contains("lander.contact.mu"),
        "{err}"
    );
    let csv = std::fs::read_to_string(out.join("runs.csv")).expect("runs.csv");
    assert_eq!(csv.lines().filter(|l| l.contains(",invalid,")).count(), 2, "{csv}");
}
