//! A spacecraft capturing a tumbling asteroid through its membrane (`[membrane]` +
//! `[spacecraft]`, the document's Fig. 7): the energy budget holds without losses and with them
//! (`∫c Ȧ² dt` and the SADA dampers' loss), momentum is exchanged exactly between asteroid and
//! spacecraft (action equals reaction, friction included), the approach is flown on its
//! reference, the bundled capture keeps the SADA moments below their limit, and bad keys are
//! refused by name.

use std::path::{Path, PathBuf};
use tumble_math::Vec3;
use tumble_sim::Scenario;
use tumble_sim::membrane_capture::{MembraneCapture, MembraneCaptureRun};

fn scenario() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/membrane/asteroid_capture.toml")
}

fn load(set: &[(&str, &str)]) -> Scenario {
    let set: Vec<(String, String)> = set.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Scenario::load(&scenario(), &set).expect("scenario loads")
}

fn build(set: &[(&str, &str)]) -> MembraneCapture {
    MembraneCapture::build(&load(set)).expect("valid capture")
}

/// A coarser asteroid (cells = 8) and a minute of contact keep these quick.
fn quick(extra: &[(&str, &str)]) -> MembraneCapture {
    let mut set = vec![
        ("simulation.duration", "60.0"),
        ("membrane.body.shape", "{ type = \"body\", kind = \"pear\", length = 11.0, seed = 7, cells = 8 }"),
    ];
    set.extend_from_slice(extra);
    build(&set)
}

/// Largest departure of the energy budget from its start, J.
fn budget_drift(run: &MembraneCaptureRun) -> f64 {
    let e0 = run.samples[0].budget();
    run.samples.iter().map(|s| (s.budget() - e0).abs()).fold(0.0, f64::max)
}

/// Friction off, `c = 0`, SADA dampers off, thrust on: asteroid and spacecraft kinetic energy,
/// SADA springs and `½k(A − A₀)²` change only by the work of guidance and thrust. The hull's
/// kinks make RK4's error first order in the step (see the drop test); measured 4.2e-7 of the
/// energy in play at 0.05 s. Bounds: 1e-5 and a fall with the step. The asteroid must stay
/// inside the rim, where the model's energy is continuous.
#[test]
fn conservative_capture_keeps_its_budget() {
    // 50 s: without friction the asteroid slides towards the rim and crosses it after 55 s.
    let set = [
        ("membrane.c", "0.0"),
        ("membrane.mu", "0.0"),
        ("spacecraft.arrays.damping", "0.0"),
        ("simulation.duration", "50.0"),
    ];
    let run = |dt: &str| {
        let mut s = set.to_vec();
        s.push(("simulation.dt", dt));
        quick(&s).run()
    };
    let (coarse, fine) = (run("0.05"), run("0.025"));
    for r in [&coarse, &fine] {
        assert!(r.diagnosis.is_none(), "{:?}", r.diagnosis);
        assert!(r.contact_time.is_some_and(|t| t < 15.0), "contact after about 10 s: {:?}", r.contact_time);
        assert!(r.samples.iter().all(|s| s.contact.outside_rim == 0), "the asteroid crossed the rim");
    }
    let scale = fine.samples.iter().map(|s| s.asteroid_kinetic + s.spacecraft_energy).fold(0.0, f64::max);
    let peak = fine.samples.iter().map(|s| s.contact.energy).fold(0.0, f64::max);
    let work = fine.samples.last().unwrap().work;
    let (dc, df) = (budget_drift(&coarse), budget_drift(&fine));
    println!("energy in play {scale:.1} J, membrane peak {peak:.1} J, work {work:.1} J; drift {dc:.3e} / {df:.3e} J");
    assert!(peak > 20.0 && work.abs() > 20.0, "the membrane and the thrust take part: {peak} J, {work} J");
    assert!(df < 1e-5 * scale, "budget drift {df} J of {scale} J");
    assert!(df < dc, "the drift falls with the step: {dc} → {df} J");
}

/// With area damping and SADA dampers (no friction) the budget including `∫c Ȧ² dt` and
/// `∫c_s|ω_j|² dt` holds to the same integration error while those losses are large.
#[test]
fn damping_removes_exactly_its_integral() {
    let run = quick(&[("membrane.mu", "0.0"), ("simulation.dt", "0.025")]).run();
    assert!(run.diagnosis.is_none(), "{:?}", run.diagnosis);
    let last = run.samples.last().unwrap();
    let scale = run.samples.iter().map(|s| s.asteroid_kinetic + s.spacecraft_energy).fold(0.0, f64::max);
    let drift = budget_drift(&run);
    println!("damping {:.2} J, SADA {:.3e} J, drift {drift:.3e} J of {scale:.1} J", last.damping_loss, last.sada_loss);
    assert!(last.damping_loss > 20.0 && last.sada_loss > 0.0);
    // Measured 2.3e-8 of the energy in play; bound 1e-5 as without losses.
    assert!(drift < 1e-5 * scale && drift < 1e-3 * last.damping_loss, "drift {drift} J");
}

/// No thrust: after contact nothing outside the pair acts, so the total linear and angular
/// momentum stay constant while friction, damping and the SADA springs pass momentum between
/// the bodies. Bound 1e-9 of the exchanged momentum: RK4 conserves the linear invariants of the
/// exact flow up to rounding when every internal force has its exact reaction.
#[test]
fn action_equals_reaction() {
    let run = quick(&[("spacecraft.thrust", "0.0"), ("simulation.dt", "0.05")]).run();
    let tc = run.contact_time.expect("contact");
    let after: Vec<_> = run.samples.iter().filter(|s| s.t > tc + 0.1).collect();
    let (p0, h0) = (Vec3::from(after[0].momentum), Vec3::from(after[0].angular_momentum));
    let (mut dp, mut dh) = (0.0_f64, 0.0_f64);
    for s in &after {
        dp = dp.max((Vec3::from(s.momentum) - p0).norm());
        dh = dh.max((Vec3::from(s.angular_momentum) - h0).norm());
    }
    let last = run.samples.last().unwrap();
    let force = run.samples.iter().map(|s| s.contact.force().norm()).fold(0.0, f64::max);
    let friction = run.samples.iter().map(|s| s.contact.friction_force.norm()).fold(0.0, f64::max);
    let turned = (Vec3::from(last.bus_rate) - Vec3::from(after[0].bus_rate)).norm();
    println!(
        "|Δp| {dp:.3e} of {:.1} kg·m/s, |ΔH| {dh:.3e} of {:.4e} kg·m²/s; peak force {force:.1} N \
         (friction {friction:.1} N), bus rate change {turned:.3e} rad/s",
        p0.norm(),
        h0.norm()
    );
    assert!(force > 10.0 && friction > 1.0 && turned > 1e-3, "the membrane and friction must act");
    // Measured 2e-12 and 6e-14 of the totals (rounding of 1000 steps); bound 1e-10: a reaction
    // applied about the wrong point moves H by the membrane's moment arm times its impulse.
    assert!(dp < 1e-10 * p0.norm(), "linear momentum moved by {dp}");
    assert!(dh < 1e-10 * h0.norm(), "angular momentum moved by {dh}");
}

/// Before contact the guidance flies the corkscrew: the bus keeps the asteroid's geometric
/// centre on its axis and spins at `ω·Ĥ`, so the asteroid's offset from the membrane axis stays
/// at its start value while the gap closes at the set speed.
#[test]
fn approach_flies_the_corkscrew() {
    let m = build(&[("simulation.duration", "8.0"), ("simulation.dt", "0.05")]);
    let run = m.run();
    assert!(run.contact_time.is_none());
    let s0 = &run.samples[0];
    let s1 = run.samples.last().unwrap();
    let closing = (s0.asteroid_in_membrane[2] - s1.asteroid_in_membrane[2]) / (s1.t - s0.t);
    let spin = Vec3::from(s1.bus_rate).dot(&m.guidance.axis);
    let h_rate = Vec3::from(s1.asteroid_rate).dot(&m.guidance.axis);
    println!("closing {closing:.8} m/s, bus spin {spin:.8} vs asteroid {h_rate:.8} rad/s");
    // The spacecraft starts on the reference with feed-forward and the torque-free asteroid's
    // centre of mass stays put, so only the guidance's tracking error remains: measured below
    // 5e-9 m/s and 5e-9 relative; bounds 1e-6.
    assert!((closing - 0.05).abs() < 1e-6, "closing speed {closing}");
    assert!((spin - h_rate).abs() < 1e-6 * h_rate.abs().max(1e-3), "spin {spin} vs {h_rate}");
}

/// The bundled capture (first 150 s): contact, the spacecraft catches up with the asteroid's
/// rotation, and the SADA bending moments stay well below the 1765 N·m limit, as the document
/// reports.
#[test]
fn bundled_capture_keeps_sada_moments_below_the_limit() {
    let m = build(&[("simulation.duration", "150.0")]);
    let run = m.run();
    assert!(run.diagnosis.is_none(), "{:?}", run.diagnosis);
    let peak = run.peak_bending();
    let catch_up = run.catch_up_time(m.catch_up_rate);
    println!("contact {:?} s, peak SADA {peak:.1} N·m, catch-up {catch_up:?} s", run.contact_time);
    assert!(run.contact_time.is_some());
    assert!(peak > 10.0 && peak < 0.5 * m.moment_limit, "peak SADA bending {peak} N·m");
    assert!(catch_up.is_some(), "the spacecraft catches up with the asteroid");
    assert!(run.samples.iter().all(|s| s.contact.outside_rim == 0));
}

#[test]
fn bad_keys_are_refused_by_name() {
    for (key, value, expect) in [
        ("spacecraft.mass", "-1.0", "spacecraft.mass"),
        ("spacecraft.membrane_offset", "2.0", "spacecraft.membrane_offset"),
        ("spacecraft.arrays.stiffness", "0.0", "spacecraft.arrays.stiffness"),
        ("spacecraft.arrays.damping", "-5.0", "spacecraft.arrays.damping"),
        ("spacecraft.approach.gap", "-1.0", "spacecraft.approach.gap"),
        ("spacecraft.thrust", "nan", "spacecraft.thrust"),
        ("simulation.integrator", "\"dopri5\"", "simulation.integrator"),
    ] {
        let e = MembraneCapture::build(&load(&[(key, value)])).expect_err("refused").to_string();
        assert!(e.contains(expect), "{key} = {value}: {e}");
    }
    let mut sc = load(&[]);
    sc.file.gravity = tumble_sim::scenario::GravitySpec::Uniform { g: [0.0, 0.0, -9.81] };
    let e = MembraneCapture::build(&sc).expect_err("refused").to_string();
    assert!(e.contains("gravity"), "{e}");
}

/// A real shape model as the asteroid: Itokawa's 12,288-face mesh (km) scaled to about 10 m
/// by the `unit` factor, its inertia from the shape. Contact is made, the budget holds and the
/// SADA moments stay below the limit. Skipped without `../shared/data`.
#[test]
fn a_shape_model_file_is_captured() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/shapes/itokawa_sbgat_q32.obj");
    if !path.exists() {
        eprintln!("skipped: {} not present", path.display());
        return;
    }
    let shape = format!("{{ type = \"mesh\", path = \"{}\", unit = \"18.0\" }}", path.display());
    let m = build(&[("membrane.body.shape", &shape), ("simulation.duration", "40.0")]);
    let run = m.run();
    assert_eq!(m.mesh.faces.len(), 12_288);
    assert!(run.diagnosis.is_none(), "{:?}", run.diagnosis);
    assert!(run.contact_time.is_some_and(|t| t < 15.0), "{:?}", run.contact_time);
    let scale = run.samples.iter().map(|s| s.asteroid_kinetic + s.spacecraft_energy).fold(0.0, f64::max);
    // At the bundled step (0.1 s): measured 0.11 J of 9.9 kJ (1.2e-5); bound 1e-3, a tenth of
    // the run's own 1 % guard (the finer mesh has more hull kinks, each a first-order error).
    println!("drift {:.3e} J of {scale:.1} J", budget_drift(&run));
    assert!(budget_drift(&run) < 1e-3 * scale, "drift {} J of {scale} J", budget_drift(&run));
    assert!(run.peak_bending() < m.moment_limit);
}

#[test]
fn a_capture_built_in_code_matches_the_scenario_file() {
    use tumble_contact::membrane::{Distribution, Membrane, MembraneFriction};
    use tumble_geometry::bodies::{BodyKind, body_mesh};
    use tumble_math::UnitQuat;
    use tumble_sim::scenario::membrane::{ApproachSpec, ArraySpec};
    let from_file = quick(&[("simulation.duration", "20.0")]);
    let friction = MembraneFriction { mu: 1.0, v_star: 0.05, distribution: Distribution::Auto };
    let membrane = Membrane::regular(6, Membrane::regular_radius(6, 146.0), 1.5, 15.0, Some(friction)).expect("valid");
    let pear = body_mesh(BodyKind::PearAsteroid, 11.0, 7, true, 8).expect("pear");
    let spin = Vec3::new(0.3, 0.5, 0.8).normalize() * 0.5 * std::f64::consts::TAU / 60.0;
    let arrays = ArraySpec {
        mass: 350.0,
        radius: 3.5,
        thickness: 0.05,
        boom: 1.5,
        stiffness: 1.0e4,
        damping: 1.0e3,
        moment_limit: 1765.0,
    };
    let builder = MembraneCapture::builder("asteroid_capture")
        .membrane(membrane)
        .asteroid(pear, 1.0e6)
        .asteroid_pose(Vec3::zeros(), UnitQuat::identity())
        .asteroid_twist(Vec3::zeros(), spin)
        .bus(15000.0, 1.5, 6.0)
        .membrane_offset(7.0)
        .thrust(475.0)
        .arrays(arrays)
        .approach(ApproachSpec { speed: 0.05, gap: 0.5, corkscrew: true, bandwidth: 0.2 })
        .timing(0.1, 20.0, 0.5);
    let in_code = builder.clone().build().expect("valid capture");
    assert_eq!(in_code.spacecraft_start, from_file.spacecraft_start, "the derived start on the reference");
    let (a, b) = (from_file.run(), in_code.run());
    assert_eq!(a.samples, b.samples, "the same inputs, the same run bit for bit");
    assert!(a.contact_time.is_some(), "the run reaches contact");
    let key = |b: tumble_sim::membrane_capture::MembraneCaptureBuilder| b.build().err().map(|e| e.key);
    assert_eq!(key(builder.clone().membrane_offset(2.0)).as_deref(), Some("spacecraft.membrane_offset"));
    assert_eq!(key(builder.clone().thrust(-1.0)).as_deref(), Some("spacecraft.thrust"));
    assert_eq!(key(builder.clone().timing(0.1, 20.0, 0.25)).as_deref(), Some("simulation.output_interval"));
    assert_eq!(
        key(builder.clone().asteroid_inertia(tumble_math::Mat3::zeros())).as_deref(),
        Some("membrane.body.inertia")
    );
    assert_eq!(key(MembraneCapture::builder("bare")).as_deref(), Some("membrane"));
}

/// A user's wrench on the asteroid through the application interface: 20 kN along x for the
/// first 2 s, long before the membrane closes the 0.5 m gap (near 10 s), moves its centre of
/// mass as `v = F t / m` (it starts at rest; RK4 integrates it exactly: bound 1e-10, rounding).
/// The 800 J it does is more than 1 % of the budget's scale (the tumble's energy): the guard
/// passes because the work is in the budget.
#[test]
fn a_wrench_on_the_asteroid_follows_newton_and_its_work_is_in_the_budget() {
    let sc = load(&[("simulation.duration", "2.0")]);
    let mut run = tumble_sim::registry::start(&sc).expect("starts");
    let (m, f) = (1.0e6, 2.0e4);
    run.set_input("asteroid.wrench", &[f, 0.0, 0.0, 0.0, 0.0, 0.0]).expect("a wrench");
    tumble_sim::app::run_to_end(run.as_mut(), &mut |_| {});
    assert!(matches!(run.ended(), Some(Ok(_))), "{:?}", run.ended());
    let v = run.state().into_iter().find(|q| q.name == "asteroid_velocity").expect("velocity").values;
    let want = f * run.time() / m;
    assert!((v[0] - want).abs() <= 1e-10 * want && v[1] == 0.0 && v[2] == 0.0, "{v:?} vs {want}");
}
