//! Monte Carlo campaigns: reproducibility across thread counts, resume after an interruption,
//! a run alone equal to its campaign row, and refusal of impossible dispersions.

use std::path::{Path, PathBuf};
use tumble_sim::Scenario;
use tumble_sim::campaign::{Campaign, CampaignOptions};

fn cube() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/lander/cube_phobos.toml")
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn campaign(out: &Path, runs: u64, threads: usize, resume: bool) -> Campaign {
    // Shorter runs: a looser settling test keeps the test quick without changing the physics.
    let sc = Scenario::load(&cube(), &[("lander.settle.speed".into(), "1e-3".into())]).expect("scenario");
    tumble_sim::registry::campaign(
        sc,
        CampaignOptions { runs, seed: 11, threads, out: out.to_path_buf(), resume, shard: None },
    )
    .expect("campaign")
}

#[test]
fn runs_csv_is_identical_on_one_and_two_threads_and_after_a_resume() {
    let (a, b, c) = (tmp("mc_a"), tmp("mc_b"), tmp("mc_c"));
    let (rows_a, _) = campaign(&a, 8, 1, false).execute(&|_, _| {}).expect("runs");
    campaign(&b, 8, 2, false).execute(&|_, _| {}).expect("runs");
    let full = std::fs::read_to_string(a.join("runs.csv")).expect("csv");
    assert_eq!(full, std::fs::read_to_string(b.join("runs.csv")).expect("csv"));
    assert_eq!(rows_a.len(), 8);
    assert!(rows_a.iter().all(|r| r.status == "settled"), "{rows_a:?}");

    // An interrupted campaign: some runs finished out of order, the last line cut short.
    let lines: Vec<&str> = full.lines().collect();
    std::fs::create_dir_all(&c).expect("dir");
    std::fs::copy(a.join("campaign.json"), c.join("campaign.json")).expect("copy");
    let partial = format!("{}\n{}\n{}\n{}", lines[0], lines[5], lines[2], &lines[7][..20]);
    std::fs::write(c.join("runs.csv"), partial).expect("write");
    let err = campaign(&c, 8, 2, false).execute(&|_, _| {}).expect_err("refuses to overwrite");
    assert!(err.contains("--resume"), "{err}");
    let (_, ran) = campaign(&c, 8, 2, true).execute(&|_, _| {}).expect("resumes");
    assert_eq!(ran, 6, "only the missing runs are redone");
    assert_eq!(std::fs::read_to_string(c.join("runs.csv")).expect("csv"), full);

    // A resume of a different campaign is refused.
    let sc = Scenario::load(&cube(), &[]).expect("scenario");
    let other = tumble_sim::registry::campaign(
        sc,
        CampaignOptions { runs: 8, seed: 12, threads: 1, out: c.clone(), resume: true, shard: None },
    );
    let err = other.expect("valid").execute(&|_, _| {}).expect_err("different seed");
    assert!(err.contains("another scenario, seed"), "{err}");

    // Run 3 alone reproduces its row bit for bit, with full outputs.
    let alone = campaign(&a, 8, 1, true).run_alone(3, &a.join("run_3")).expect("run alone");
    assert_eq!(alone, rows_a[3]);
    assert!(a.join("run_3/plots/energy.png").exists());
}

#[test]
fn impossible_dispersions_are_refused_with_the_key() {
    let base = std::fs::read_to_string(cube()).expect("scenario");
    let base = base.split("[dispersions]").next().expect("head").to_string();
    for (disp, expected) in [
        ("\"lander.nonexistent\" = { normal = [1.0, 0.1] }", "no such key"),
        ("\"lander.contact.mu\" = { normal = [0.5, -0.1] }", "standard deviation"),
        ("\"lander.contact.mu\" = { uniform = [0.9, 0.1] }", "low <= high"),
        ("\"lander.contact.mu\" = { normal = [0.5, 0.01], min = 0.9, max = 1.0 }", "standard deviations from the mean"),
        ("\"lander.contact.mu\" = { normal = [0.5, 0.1], uniform = [0.1, 0.2] }", "exactly one"),
        ("\"seed\" = { normal = [1.0, 0.1] }", "integer"),
        ("\"target.shape.type\" = { uniform = [0.0, 1.0] }", "a string"),
        ("\"lander.contact.mu\" = { choice = [] }", "at least one"),
    ] {
        let text = format!("{base}[dispersions]\n{disp}\n");
        let sc = Scenario::from_text(&cube(), text, &[]).expect("parses");
        let err = tumble_sim::registry::campaign(
            sc,
            CampaignOptions { runs: 2, seed: 1, threads: 1, out: tmp("mc_bad"), resume: false, shard: None },
        )
        .err()
        .unwrap_or_else(|| panic!("{disp}: accepted"));
        assert!(err.contains(expected), "{disp}: {err}");
        assert!(err.contains("cube_phobos.toml"), "names the file: {err}");
    }
}

#[test]
fn impossible_run_counts_are_refused() {
    for runs in [0, tumble_sim::campaign::MAX_RUNS + 1] {
        let sc = Scenario::load(&cube(), &[]).expect("scenario");
        let err = tumble_sim::registry::campaign(
            sc,
            CampaignOptions { runs, seed: 1, threads: 1, out: tmp("mc_runs"), resume: false, shard: None },
        )
        .err()
        .unwrap_or_else(|| panic!("{runs} runs accepted"));
        assert!(err.contains("--runs must be between 1 and"), "{err}");
    }
}

/// The same machinery runs asteroid captures: rows identical on one and two threads, a run
/// alone equal to its row, and the capture's results (peak SADA moment, catch-up) recorded.
#[test]
fn capture_campaigns_share_the_machinery() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/membrane/asteroid_capture.toml");
    let set = [
        ("simulation.duration", "40.0"),
        ("membrane.body.shape", "{ type = \"body\", kind = \"pear\", length = 11.0, seed = 7, cells = 8 }"),
    ];
    let set: Vec<(String, String)> = set.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let make = |out: &Path, threads: usize, resume: bool| {
        let sc = Scenario::load(&path, &set).expect("scenario");
        tumble_sim::registry::campaign(
            sc,
            CampaignOptions { runs: 4, seed: 5, threads, out: out.to_path_buf(), resume, shard: None },
        )
        .expect("campaign")
    };
    let (a, b) = (tmp("mc_cap_a"), tmp("mc_cap_b"));
    let (rows, _) = make(&a, 1, false).execute(&|_, _| {}).expect("runs");
    make(&b, 2, false).execute(&|_, _| {}).expect("runs");
    let csv = std::fs::read_to_string(a.join("runs.csv")).expect("csv");
    assert_eq!(csv, std::fs::read_to_string(b.join("runs.csv")).expect("csv"));
    assert!(csv.lines().next().unwrap().contains("peak_sada_bending [N m]"));
    let c = make(&a, 1, true);
    for r in &rows {
        assert!(["caught_up", "in_contact", "separated"].contains(&r.status.as_str()), "{r:?}");
        let peak = r.get(c.kind.as_ref(), "peak_sada_bending [N m]").expect("a peak moment");
        assert!(peak > 0.0 && peak < 1765.0, "{peak}");
    }
    let alone = c.run_alone(2, &a.join("run_2")).expect("run alone");
    assert_eq!(alone, rows[2]);
    assert!(a.join("run_2/plots/sada.png").exists());
    let summary = tumble_sim::campaign::write_report(&c, &rows, &tumble_sim::campaign::Accounting::new(1.0, 4, 1))
        .expect("report");
    assert_eq!(summary["peak_sada_bending_N_m"]["count"], 4);
}

/// A campaign on a body draws its landing sites on a latitude/longitude map of the body (with
/// the map's field marched on the comet), and close up.
#[test]
fn a_body_campaign_maps_its_landing_sites() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/lander/hopper_comet.toml");
    // Short runs: the map is drawn whether or not runs settle (only settled sites are marked).
    let sc = Scenario::load(&path, &[("simulation.duration".into(), "120".into())]).expect("scenario");
    let out = tmp("mc_body");
    let c = tumble_sim::registry::campaign(
        sc,
        CampaignOptions { runs: 2, seed: 3, threads: 1, out: out.clone(), resume: false, shard: None },
    )
    .expect("campaign");
    let (rows, ran) = c.execute(&|_, _| {}).expect("runs");
    assert_eq!(rows.len(), 2);
    tumble_sim::campaign::write_report(&c, &rows, &tumble_sim::campaign::Accounting::new(1.0, ran, 1)).expect("report");
    for f in ["landing_map.png", "landing_map.svg", "landing_sites.png"] {
        assert!(out.join("plots").join(f).is_file(), "missing {f}");
    }
}

/// An engine that runs one kind finds it: a lander campaign is `LanderRuns` (with its shared
/// target), an asteroid capture's is not.
#[test]
fn a_campaign_kind_is_found_by_its_type() {
    use tumble_sim::lander::campaign::LanderRuns;
    let c = campaign(&tmp("mc_kind"), 1, 1, false);
    assert!(c.kind_as::<LanderRuns>().is_some_and(|k| k.shared.is_some()));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/membrane/asteroid_capture.toml");
    let sc = Scenario::load(&path, &[]).expect("scenario");
    let c = tumble_sim::registry::campaign(
        sc,
        CampaignOptions { runs: 1, seed: 1, threads: 1, out: tmp("mc_kind_c"), resume: false, shard: None },
    )
    .expect("campaign");
    assert!(c.kind_as::<LanderRuns>().is_none());
}

/// A draw that makes run 0 invalid makes an `invalid` row with its drawn values, as it does for
/// any other run; the campaign goes on.
#[test]
fn an_invalid_draw_in_run_0_is_a_row_like_any_other() {
    let base = std::fs::read_to_string(cube()).expect("scenario");
    let base = base.split("[dispersions]").next().expect("head").to_string();
    let text = format!("{base}[dispersions]\n\"lander.contact.mu\" = {{ choice = [-0.5, 0.5] }}\n");
    let set = [("lander.settle.speed".to_string(), "1e-3".to_string())];
    let sc = Scenario::from_text(&cube(), text, &set).expect("parses");
    let d = tumble_sim::campaign::dispersion::parse(&sc).expect("dispersions");
    let seed = (0..64).find(|&s| tumble_sim::campaign::dispersion::draw_run(&d, s, 0)[0].1 == "-0.5").expect("a seed");
    let out = tmp("mc_run0");
    let c = tumble_sim::registry::campaign(
        sc,
        CampaignOptions { runs: 3, seed, threads: 1, out, resume: false, shard: None },
    )
    .expect("the nominal scenario is valid: the campaign starts");
    let (rows, _) = c.execute(&|_, _| {}).expect("runs");
    assert_eq!(rows[0].status, "invalid", "{:?}", rows[0]);
    assert_eq!(rows[0].values, ["-0.5"], "the row keeps its drawn value");
    assert!(rows[0].note.contains("lander.contact.mu"), "{}", rows[0].note);
    for r in &rows[1..] {
        let valid = r.values[0] == "0.5";
        assert_eq!(r.status == "settled", valid, "{r:?}");
    }
    // Every draw invalid: every row says why (the command line then exits with status 2).
    let text = format!("{base}[dispersions]\n\"lander.contact.mu\" = {{ uniform = [-0.5, -0.4] }}\n");
    let sc = Scenario::from_text(&cube(), text, &set).expect("parses");
    let out = tmp("mc_all_invalid");
    let c = tumble_sim::registry::campaign(
        sc,
        CampaignOptions { runs: 2, seed: 1, threads: 1, out, resume: false, shard: None },
    )
    .expect("the file's scenario is valid");
    let (rows, _) = c.execute(&|_, _| {}).expect("runs");
    assert!(rows.iter().all(|r| r.status == "invalid" && r.note.contains("lander.contact.mu")), "{rows:?}");
}

/// A campaign resumes from another working directory: the scenario's path as given differs,
/// its text (hash), seed and dispersions do not.
#[test]
fn a_campaign_resumes_whatever_path_named_its_scenario() {
    let out = tmp("mc_elsewhere");
    campaign(&out, 2, 1, false).execute(&|_, _| {}).expect("runs");
    let full = std::fs::read_to_string(out.join("runs.csv")).expect("csv");
    let id = out.join("campaign.json");
    let text = std::fs::read_to_string(&id).expect("id");
    let moved = text.replace(&cube().display().to_string(), "../somewhere/else/cube_phobos.toml");
    assert_ne!(moved, text);
    std::fs::write(&id, moved).expect("write");
    let lines: Vec<&str> = full.lines().collect();
    std::fs::write(out.join("runs.csv"), format!("{}\n{}\n", lines[0], lines[2])).expect("write");
    let (_, ran) = campaign(&out, 2, 1, true).execute(&|_, _| {}).expect("resumes");
    assert_eq!(ran, 1);
    assert_eq!(std::fs::read_to_string(out.join("runs.csv")).expect("csv"), full);
}
