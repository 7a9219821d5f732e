//! Campaigns over the applications besides the lander and the asteroid capture (tested in
//! `campaign.rs`): for each, `runs.csv` is the same on one and two threads and after an
//! interrupted campaign resumes, a run alone reproduces its row, and each row's physics holds
//! (momentum given by the snare wire, energy lost by feet settling on a plane, the capture
//! verdict's prediction from the true impulse, the snare's capture sequence).

use std::path::{Path, PathBuf};
use tumble_sim::Scenario;
use tumble_sim::campaign::{Campaign, CampaignOptions, RunRow};

fn scenario(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(rel)
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The campaign of `rel` with `set` overrides, its `[dispersions]` replaced by `dispersions`
/// when given.
fn make(
    rel: &str,
    set: &[(&str, &str)],
    dispersions: Option<&str>,
    out: &Path,
    threads: usize,
    resume: bool,
) -> Campaign {
    let path = scenario(rel);
    let text = std::fs::read_to_string(&path).expect("scenario");
    let text = match dispersions {
        Some(d) => format!("{}\n[dispersions]\n{d}\n", text.split("[dispersions]").next().expect("head")),
        None => text,
    };
    let set: Vec<(String, String)> = set.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let sc = Scenario::from_text(&path, text, &set).expect("scenario");
    tumble_sim::registry::campaign(
        sc,
        CampaignOptions { runs: 4, seed: 7, threads, out: out.to_path_buf(), resume, shard: None },
    )
    .expect("campaign")
}

/// Runs the campaign on one and two threads and resumed after an interruption (rows 3 and 1
/// finished, a third row cut short); all three `runs.csv` must be identical, and run 2 alone
/// must reproduce its row with `tumble run`'s outputs. Returns the campaign and its rows.
fn machinery(name: &str, rel: &str, set: &[(&str, &str)], dispersions: Option<&str>) -> (Campaign, Vec<RunRow>) {
    let (a, b, c) = (tmp(&format!("{name}_a")), tmp(&format!("{name}_b")), tmp(&format!("{name}_c")));
    let (rows, _) = make(rel, set, dispersions, &a, 1, false).execute(&|_, _| {}).expect("runs");
    make(rel, set, dispersions, &b, 2, false).execute(&|_, _| {}).expect("runs");
    let full = std::fs::read_to_string(a.join("runs.csv")).expect("csv");
    assert_eq!(full, std::fs::read_to_string(b.join("runs.csv")).expect("csv"), "{name}: 1 vs 2 threads");
    let lines: Vec<&str> = full.lines().collect();
    std::fs::create_dir_all(&c).expect("dir");
    std::fs::copy(a.join("campaign.json"), c.join("campaign.json")).expect("copy");
    std::fs::write(c.join("runs.csv"), format!("{}\n{}\n{}\n{}", lines[0], lines[4], lines[2], &lines[1][..8]))
        .expect("write");
    let (_, ran) = make(rel, set, dispersions, &c, 2, true).execute(&|_, _| {}).expect("resumes");
    assert_eq!(ran, 2, "{name}: only the missing runs are redone");
    assert_eq!(std::fs::read_to_string(c.join("runs.csv")).expect("csv"), full, "{name}: after a resume");
    let campaign = make(rel, set, dispersions, &a, 1, true);
    let alone = campaign.run_alone(2, &a.join("run_2")).expect("run alone");
    assert_eq!(alone, rows[2], "{name}: run 2 alone");
    assert!(a.join("run_2/summary.json").is_file(), "{name}: run 2 writes its outputs");
    assert!(rows.iter().all(|r| r.status != "invalid" && r.status != "failed"), "{name}: {rows:?}");
    (campaign, rows)
}

/// The dispersed value of `key` in `row`.
fn drawn(c: &Campaign, row: &RunRow, key: &str) -> f64 {
    let i = c.dispersions.iter().position(|d| d.key == key).expect(key);
    row.values[i].parse().expect("a number")
}

/// The snare wire is the only force on the floating target, so the impulse it gives is the
/// target's momentum change from `(0, −speed)` at each dispersed speed.
#[test]
fn snare_campaigns_conserve_momentum_through_the_wire() {
    let (c, rows) = machinery("mc_snare", "snare/floating_target.toml", &[], None);
    let k = c.kind.as_ref();
    for r in &rows {
        assert_eq!(r.status, "touched");
        let speed = drawn(&c, r, "snare.speed");
        let m = 8.9;
        let dp = [m * r.get(k, "final_vx [m/s]").unwrap(), m * (r.get(k, "final_vy [m/s]").unwrap() + speed)];
        let j = [r.get(k, "impulse_x [N s]").unwrap(), r.get(k, "impulse_y [N s]").unwrap()];
        // Both are integrated by the same RK4 steps: they agree to round-off, far below the
        // ~1 N·s impulse.
        for i in 0..2 {
            assert!((dp[i] - j[i]).abs() < 1e-9, "{dp:?} vs {j:?}");
        }
        assert!(j[1] > m * speed, "the target bounces back: {j:?}");
    }
}

/// Feet settling on a plane dissipate: each dispersed drop ends at rest on its three feet with
/// less energy than it started with.
#[test]
fn mechanism_campaigns_settle_and_dissipate() {
    let d = r#""mechanism.bodies.0.velocity.0" = { uniform = [-0.05, 0.05] }
"mechanism.bodies.0.velocity.2" = { uniform = [-0.1, -0.02] }"#;
    let (c, rows) = machinery("mc_tripod", "contact/tripod.toml", &[], Some(d));
    let k = c.kind.as_ref();
    for r in &rows {
        assert_eq!(r.status, "in_contact");
        assert_eq!(r.get(k, "contacts_final"), Some(3.0), "{r:?}");
        let (e0, e1) = (r.get(k, "energy_initial [J]").unwrap(), r.get(k, "energy_final [J]").unwrap());
        assert!(e1 < e0, "energy grew from {e0} to {e1} J");
        let v = ["vx", "vy", "vz"].map(|a| r.get(k, &format!("lander.{a} [m/s]")).unwrap());
        assert!(v.iter().all(|x| x.abs() < 1e-3), "not at rest: {v:?}");
    }
    assert!(rows.windows(2).any(|w| w[0].results != w[1].results), "the dispersions change the runs");
}

/// Each dispersed capture is judged by the nominal capture's funnel; with no measured impulse
/// dispersed, the prediction uses the run's true impulse, and eq. 23 with the true impulse
/// reproduces the constrained post-capture state: the predicted `V₀` equals the true one to
/// round-off.
#[test]
fn capture_map_campaigns_judge_each_capture() {
    let set = [("capture.roa.samples", "24"), ("capture.roa.verify", "0")];
    let (c, rows) = machinery("mc_verdict", "capture_map/tumbling_500kg.toml", &set, None);
    let k = c.kind.as_ref();
    for r in &rows {
        let (v0, vp, rho0) = (r.get(k, "V0").unwrap(), r.get(k, "V0_predicted").unwrap(), r.get(k, "rho0").unwrap());
        assert!(v0 > 0.0, "a dispersed capture leaves the nominal trajectory");
        // Relative 1e-9: the two differ by the solves' round-off (seen ~1e-14).
        assert!((vp - v0).abs() <= 1e-9 * v0, "{vp} vs {v0}");
        assert_eq!(r.status.starts_with("safe"), vp < rho0, "{r:?}");
    }
}

/// Dispersed arrivals of the payload's shaft: the snare closes, captures and rigidises, in that
/// order.
#[test]
fn grapple_campaigns_capture_in_sequence() {
    let (c, rows) = machinery("mc_grapple", "snare/jemrms_snare.toml", &[], None);
    let k = c.kind.as_ref();
    for r in &rows {
        assert_eq!(r.status, "rigidised", "{r:?}");
        let t = ["closing_started [s]", "captured [s]", "rigidised [s]"].map(|n| r.get(k, n).unwrap());
        assert!(t[0] < t[1] && t[1] < t[2], "{t:?}");
        assert!(r.get(k, "peak_wire_force [N]").unwrap() > 0.0);
    }
}
