//! The capture verdict off the nominal case: a funnel whose inlet one outlying failure does not
//! set, a verdict refused at a pose or for a target its design does not cover, and targets of
//! 250 to 2,000 kg tumbling at half to twice the bundled rate, each told the horizon its
//! detumble needs and then judged.

use std::path::Path;
use tumble_control::capture_check::{Asked, CaptureCheck};
use tumble_sim::capture_map::detumble::{Rollout, funnel};
use tumble_sim::capture_map::{CaptureStudy, confusion, late};
use tumble_sim::scenario::Scenario;

const SCENARIO: &str = "../../scenarios/capture_map/tumbling_500kg.toml";

fn study(set: &[(&str, &str)]) -> CaptureStudy {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIO);
    let o: Vec<(String, String)> = set.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    CaptureStudy::build(&Scenario::load(&path, &o).expect("scenario")).expect("study")
}

/// A rollout that starts at `v0` and keeps it, succeeding or not.
fn rollout(v0: f64, success: bool) -> Rollout {
    Rollout {
        cost_to_go: vec![v0; 3],
        success,
        failure: (!success).then(|| "still turning".into()),
        max_excursion: 0.0,
        final_rate: 0.0,
        goal_ratio: if success { 0.5 } else { 1.5 },
    }
}

#[test]
fn one_outlying_failure_does_not_close_the_funnel() {
    // 99 successes at V₀ = 1 … 99 and one failure below them all.
    let mut set: Vec<Rollout> = (1..100).map(|v| rollout(v as f64, true)).collect();
    set.push(rollout(0.5, false));
    let refs: Vec<&Rollout> = set.iter().collect();
    // The first-failure rule (false_safe = 0) has nothing below the outlier: empty.
    assert!(funnel(&refs, 0.0).expect_err("empty").contains("funnel is empty"));
    // At 2 %, one failure among 100 samples is admitted: every sample is inside and the inlet
    // is the largest sampled V₀ (no failure above it: a lower bound).
    let f = funnel(&refs, 0.02).expect("funnel");
    assert_eq!((f.inside, f.failures_inside, f.bounded, f.rho0), (100, 1, false, 99.0));
    // Ten failures above V₀ = 99: the inlet is cut at the first of them.
    set.extend((0..10).map(|k| rollout(99.5 + k as f64, false)));
    let refs: Vec<&Rollout> = set.iter().collect();
    let f = funnel(&refs, 0.02).expect("funnel");
    assert_eq!((f.inside, f.failures_inside, f.bounded, f.rho0), (100, 1, true, 99.5));
    // ρ(t) bounds the successes inside, not the failure's curve.
    assert_eq!(f.rho, vec![99.0; 3]);
    // Two failures among the first ten: 2 % does not admit them until 100 samples lie below.
    let mut dense: Vec<Rollout> = (1..=10).map(|v| rollout(v as f64, v != 3 && v != 7)).collect();
    let refs: Vec<&Rollout> = dense.iter().collect();
    let f = funnel(&refs, 0.02).expect("funnel");
    assert_eq!((f.inside, f.rho0), (2, 3.0), "cut at the first failure");
    dense.extend((11..=100).map(|v| rollout(v as f64, true)));
    let refs: Vec<&Rollout> = dense.iter().collect();
    assert_eq!(funnel(&refs, 0.02).expect("funnel").inside, 100);
}

#[test]
fn a_pose_or_target_the_design_does_not_cover_is_refused_by_name() {
    let spread = 0.02;
    let s = study(&[
        ("capture.roa.samples", "40"),
        ("capture.roa.verify", "0"),
        ("capture.roa.joint_angle_spread", &spread.to_string()),
    ]);
    let c = s.controller(2).expect("design");
    let file = s.design_file(&c.design, &c.funnel);
    assert_eq!((file.joint_angle_spread, file.target_mass), (spread, Some(500.0)));
    let check = CaptureCheck::new(file).expect("loads");
    let exact = s.map.constrained(&s.v_c, &s.v_t).expect("map").impulse;
    // Inside the spread: the study (true impulse mapped at the pose) and the saved design agree.
    let mut theta = s.joint_angles().to_vec();
    theta[3] += 0.8 * spread;
    let v = s.verdict_at(&c, &theta, &s.v_c, &s.v_t, Some(&exact)).expect("covered");
    let asked = Asked { joint_angles: Some(&theta), target_mass: Some(500.0) };
    let online = check.verdict_asked(asked, s.v_c.as_slice(), s.v_t.as_slice(), exact.as_slice()).expect("covered");
    assert_eq!(online.v0.to_bits(), v.v0_predicted.to_bits());
    assert_eq!(&online.state.as_slice()[..6], theta.as_slice(), "the state holds the asked angles");
    // Outside: refused, naming the joint and the key that widens it.
    theta[3] += spread;
    let e = s.verdict_at(&c, &theta, &s.v_c, &s.v_t, None).expect_err("outside");
    assert!(e.contains("joint `elbow`") && e.contains("capture.roa.joint_angle_spread"), "{e}");
    let asked = Asked { joint_angles: Some(&theta), target_mass: None };
    let e = check.verdict_asked(asked, s.v_c.as_slice(), s.v_t.as_slice(), exact.as_slice()).expect_err("outside");
    assert!(e.contains("joint `elbow`"), "{e}");
    // Another target: refused by the saved design and by a campaign's nominal study.
    let asked = Asked { joint_angles: None, target_mass: Some(900.0) };
    let e = check.verdict_asked(asked, s.v_c.as_slice(), s.v_t.as_slice(), exact.as_slice()).expect_err("mass");
    assert!(e.contains("900 kg") && e.contains("500 kg"), "{e}");
    let heavier = study(&[("capture.target.mass", "900")]);
    assert!(s.covers(&heavier).expect_err("target").starts_with("capture.target"));
    assert!(s.covers(&s).is_ok());
}

/// Runs the study of a `mass` kg target tumbling at `scale` times the bundled rate (and spread)
/// at the scenario's 120 s horizon; then at the horizon its late failures advise (rounded up to
/// 10 s), when they do. Returns the confusion of the verdict on `n` samples, the funnel's
/// inside count and the horizon used.
fn judged(mass: f64, scale: f64, n: u64) -> ([[u64; 2]; 2], usize, f64, f64) {
    let w = [0.02 * scale, 0.04 * scale, -0.03 * scale];
    let w = format!("[{}, {}, {}]", w[0], w[1], w[2]);
    let (m, sd, n) = (mass.to_string(), (0.06 * scale).to_string(), n.to_string());
    let mut set = vec![
        ("capture.target.mass", m.as_str()),
        ("capture.target.angular_velocity", w.as_str()),
        ("capture.roa.angular_velocity_sd", sd.as_str()),
        ("capture.roa.samples", n.as_str()),
        ("capture.roa.verify", n.as_str()),
    ];
    let first = study(&set);
    let (design, nominal, samples) = first.estimate(2).expect("estimation");
    assert!(nominal.success, "{mass} kg ×{scale}: the nominal detumbles");
    let horizon = match late::late(&design, samples.iter().map(|s| &s.rollout)) {
        Some(l) => {
            assert!(l.advised > l.horizon && l.message().contains("simulation.duration"));
            (l.advised / 10.0).ceil() * 10.0
        }
        None => 120.0,
    };
    let h = horizon.to_string();
    set.push(("simulation.duration", h.as_str()));
    let rep = study(&set).run(2, &|_, _| {}).expect("study at the advised horizon");
    let rho0 = rep.funnel.rho0;
    // The worst false safe: how far from the goal it ended (infinite: a joint left its range or
    // the detumble diverged).
    let worst = rep
        .verification
        .iter()
        .filter(|s| s.v0_predicted < rho0 && !s.rollout.success)
        .map(|s| s.rollout.goal_ratio)
        .fold(0.0, f64::max);
    (confusion(&rep.verification, rho0), rep.funnel.inside, horizon, worst)
}

#[test]
fn a_heavier_target_is_told_its_horizon_then_judged() {
    // The 1000 kg target of the bundled study: at 120 s its funnel was empty (the smallest V₀
    // failed, 0.3 % short of the goal rate). Its failures are late, not lost: the study says
    // how long the slowest closed-loop mode needs, and at that horizon the verdict works.
    let s = study(&[("capture.target.mass", "1000"), ("capture.roa.samples", "60"), ("capture.roa.verify", "0")]);
    if let Err(e) = s.controller(2) {
        assert!(e.contains("funnel is empty") && e.contains("a horizon of"), "{e}");
    }
    let (m, inside, horizon, worst) = judged(1000.0, 1.0, 60);
    println!("1000 kg at {horizon} s: {inside} of 60 inside, confusion {m:?}, worst false safe {worst}× the goal");
    assert!(horizon > 120.0);
    // Most captures are inside and called safe. A false safe is a late detumble, not a lost one:
    // it ends within 25 % of the goal (the slowest mode takes it there in ln(1.25)/σ ≈ 25 s
    // more), never out of its joint range or diverged.
    assert!(inside >= 30 && m[0][0] >= 30, "{m:?}");
    assert!(worst < 1.25, "{m:?}: a false safe ended {worst}× the goal");
}

/// The sweep of docs/capture.md: `cargo test --release -p tumble-sim --test capture_funnel --
/// --ignored --nocapture`.
#[test]
#[ignore = "12 studies, about 4 minutes in release"]
fn targets_of_250_to_2000_kg_at_half_to_twice_the_rate() {
    for mass in [250.0, 500.0, 1000.0, 2000.0] {
        for scale in [0.5, 1.0, 2.0] {
            let (m, inside, horizon, worst) = judged(mass, scale, 100);
            println!(
                "| {mass} | {scale} | {horizon} | {inside} | {} | {} | {} | {} | {worst:.2} |",
                m[0][0], m[0][1], m[1][0], m[1][1]
            );
            // The estimation admits 2 % of failures below the inlet; on 100 checks more than
            // 5 false safes would happen by chance 1.5 % of the time (binomial).
            assert!(inside > 0 && m[0][1] <= 5, "{mass} kg ×{scale}: {m:?}, worst {worst}");
        }
    }
}
