//! The bundled contact-engine scenarios (`scenarios/contact/`) run through Tumble's rigid-body
//! dynamics, each checked against what its physics requires at the end.

use std::path::PathBuf;
use tumble_math::Vec3;
use tumble_sim::mechanism::{MechRun, MechSample, Mechanism, Stage};
use tumble_sim::scenario::Scenario;

fn run(name: &str, set: &[(&str, &str)]) -> (Mechanism, MechRun) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/contact").join(name);
    let set: Vec<(String, String)> = set.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let sc = Scenario::load(&path, &set).expect("scenario loads");
    let m = Mechanism::build(&sc).unwrap_or_else(|e| panic!("{e}"));
    let r = m.run();
    assert!(r.diagnosis.is_none(), "{name}: {:?}", r.diagnosis);
    (m, r)
}

/// Position (m) of a body-frame point of body `i` at a sample.
fn point(s: &MechSample, i: usize, x_B: Vec3) -> Vec3 {
    s.bodies[i][0] + s.attitudes[i] * x_B
}

#[test]
fn the_tripod_settles_carrying_its_weight() {
    let (m, r) = run("tripod.toml", &[]);
    let last = r.samples.last().unwrap();
    let [p, v, w, f, _] = last.bodies[0];
    let weight = 10.0 * 1.62;
    // At rest on three compliant feet: the contact force is the weight (the bristles hold the
    // sideways load: none here) and each foot sinks F_i/k ≈ 54 µm.
    assert_eq!(last.contacts, 3);
    assert!(v.norm() < 1e-4 && w.norm() < 1e-4, "{v} {w}");
    assert!((f - Vec3::new(0.0, 0.0, weight)).norm() < 1e-4 * weight, "{f}");
    assert!(p.z < 0.3 && p.z > 0.3 - 2.0 * weight / 1e5, "{}", p.z);
    // Landing and bouncing dissipated energy (contact damping and friction): at rest, the
    // energy is below the start by at least the kinetic energy the tripod came with.
    let [_, v0, ..] = r.samples[0].bodies[0];
    assert!(last.energy < r.samples[0].energy - 0.5 * 10.0 * v0.norm_squared() * 0.99);
    // The recorded normal and friction parts add up to the contact force at every sample, the
    // friction lies in the ground's plane and the normal part along its normal (+z); at rest
    // the normal part carries the weight.
    for s in &r.samples {
        let [normal, friction] = s.split[0];
        let force = s.bodies[0][3];
        assert!(
            (normal + friction - force).norm() <= 1e-9 * force.norm().max(1.0),
            "t = {}: {normal} + {friction} ≠ {force}",
            s.t
        );
        let off = normal.x.hypot(normal.y);
        assert!(
            friction.z.abs() <= 1e-9 * force.norm().max(1.0) && off <= 1e-9 * normal.norm().max(1.0),
            "t = {}: {normal} {friction}",
            s.t
        );
    }
    assert!((last.split[0][0].z - weight).abs() < 1e-4 * weight);
    assert_eq!(m.bodies.len(), 2);
}

#[test]
fn the_peg_goes_down_the_hole_against_one_wall() {
    let (_, r) = run("peg_in_hole.toml", &[]);
    let last = r.samples.last().unwrap();
    let tip = point(last, 0, Vec3::new(0.0, 0.0, -0.045));
    // 45 mm below the rim, centred within the 1 mm clearance, pressed on the +x wall by the
    // wrist's 2 mm offset: 200 N/m × 2 mm = 0.4 N (friction acts along the insertion).
    // Tolerances: the wall gives ~1e-8 m under 0.4 N (volume law 2e10 N/m³ on a ~1.6e-3 m²
    // face), so the centre's offset from x = 1 mm is the peg's tilt within the clearance (a
    // fifth of it allowed; measured 0.0010 m); the force differs from 0.4 N by the lateral
    // damper on the residual drift (2 N·s/m × < 1 mm/s), 5 % allowed (measured −0.4006 N).
    assert!(tip.z < -0.04, "tip at {tip}");
    assert!((last.bodies[0][0].x - 0.001).abs() < 2e-4 && last.bodies[0][0].y.abs() <= 0.0011, "{}", last.bodies[0][0]);
    let fx = last.bodies[0][3].x;
    assert!((fx + 0.4).abs() < 0.02, "wall force {fx} N");
}

#[test]
fn the_drawer_runs_along_its_rails_on_the_walls() {
    let (_, r) = run("drawer.toml", &[]);
    let last = r.samples.last().unwrap();
    let [p, v, _, f, _] = last.bodies[0];
    let (weight, mu) = (20.0 * 9.81, 0.05);
    // Drawn 0.3 m at the drive's speed; the rails carry the weight, the walls the drive's side
    // pull 500 N/m × (10 − 5) mm; rolling friction μ on both. The drive's spring lags the
    // anchor by F/k = 9.9 N / 2000 N/m = 5 mm (x = 0.3 − 0.005; measured 0.2950 m); the walls
    // give ~1 µm under 2.5 N (measured y = −0.0050 m, F_y = 2.4997 N), 2 % allowed on F_y for
    // the side damper on what drift remains.
    assert!((v.x - 0.1).abs() < 1e-3 && (p.x - 0.295).abs() < 0.01, "{p} {v}");
    assert!((p.y + 0.005).abs() < 2e-4, "{}", p.y);
    assert!((f.z - weight).abs() < 1e-3 * weight && (f.y - 2.5).abs() < 0.05, "{f}");
    assert!((f.x + mu * (f.z + f.y.abs())).abs() < 1e-3, "{f}");
}

#[test]
fn the_probe_is_guided_into_the_drogue_throat() {
    let (_, r) = run("probe_cone.toml", &[]);
    let first = &r.samples[0];
    let tip = |s: &MechSample| point(s, 0, Vec3::new(0.0, 0.0, -1.0));
    // It starts 13 cm off the axis; the cone brings the tip to the 20 mm throat (within its
    // play) at the floor, and the docking dissipates most of the approach energy.
    assert!((tip(first).xy().norm() - 0.13).abs() < 1e-3);
    let closest = r.samples.iter().map(|s| (tip(s).xy().norm(), tip(s).z)).filter(|&(_, z)| z < 0.03).map(|(d, _)| d);
    let closest = closest.fold(f64::INFINITY, f64::min);
    assert!(closest < 0.01, "the tip reached the floor {closest} m off the axis");
    assert!(r.samples.last().unwrap().energy < 0.1 * first.energy);
}

#[test]
fn the_grapple_fixture_passes_the_open_snare_of_the_arm_to_its_stop() {
    let (m, r) = run("grapple_snare.toml", &[]);
    let knob = |s: &MechSample| point(s, 0, Vec3::new(0.0, 0.0, -0.1));
    // The effector's frame at a sample: the knob's depth behind the wires' plane, and its
    // distance from the wires.
    let local = |s: &MechSample, x: Vec3| s.attitudes[1].inverse() * (x - s.bodies[1][0]);
    let wires: Vec<(Vec3, Vec3)> = m.bodies[1]
        .model
        .prims
        .iter()
        .filter_map(|p| match p.shape {
            tumble_geometry::primitive::Primitive::Segment { a, b } => Some((a, b)),
            _ => None,
        })
        .collect();
    let to_wires = |x: Vec3| {
        wires
            .iter()
            .map(|(a, b)| {
                let t = ((x - a).dot(&(b - a)) / (b - a).norm_squared()).clamp(0.0, 1.0);
                (x - (a + (b - a) * t)).norm()
            })
            .fold(f64::INFINITY, f64::min)
    };
    // Aimed 5 mm into a wire, the knob is pushed off it: where it crosses the wires' plane it
    // clears them but for the wire's compliant give (force / k, a few mm at most), nearer the
    // axis than it came; then it strikes the stop plate (knob centre 35 mm above it, 0.2 m
    // behind the wires).
    let start = local(&r.samples[0], knob(&r.samples[0]));
    assert!(to_wires(Vec3::new(start.x, start.y, 0.0)) < 0.035 - 0.004, "{start}");
    let crossing = r.samples.iter().find(|s| local(s, knob(s)).z < 0.0).expect("the knob crosses the wires");
    let at = local(crossing, knob(crossing));
    assert!(to_wires(at) > 0.035 - 0.003, "knob {at} is {} m from a wire", to_wires(at));
    assert!(at.xy().norm() < start.xy().norm() - 0.005, "{at}");
    // The plate's law is 2e4 N/m: the peak force (< 60 N) sinks the knob by under 3 mm.
    let deepest = r.samples.iter().map(|s| local(s, knob(s)).z).fold(f64::INFINITY, f64::min);
    let peak = r.samples.iter().map(|s| s.bodies[0][3].norm()).fold(0.0, f64::max);
    assert!(peak < 60.0 && deepest < -0.165 && deepest > -0.165 - 3e-3, "knob at {deepest}, peak {peak} N");
    // The contact acts on the arm as on the payload, oppositely, and moves it through its
    // flexible joints.
    for s in &r.samples {
        let (fp, fe) = (s.bodies[0][3], s.bodies[1][3]);
        assert!((fp + fe).norm() <= 1e-9 * fp.norm().max(1.0), "{fp} {fe}");
    }
    let moved = r.samples.iter().map(|s| (s.bodies[1][0] - r.samples[0].bodies[1][0]).norm()).fold(0.0, f64::max);
    assert!(moved > 1e-4, "the effector moved {moved} m");
}

#[test]
fn bad_mechanisms_are_refused_with_the_key() {
    let dir = std::env::temp_dir().join(format!("tumble_mech_{}", std::process::id()));
    std::fs::create_dir_all(dir.join("models")).unwrap();
    let models = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/contact/models");
    for f in ["tripod.toml", "ground.toml"] {
        std::fs::copy(models.join(f), dir.join("models").join(f)).unwrap();
    }
    let base =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/contact/tripod.toml"))
            .unwrap();
    let error = |from: &str, to: &str| {
        let text = base.replace(from, to);
        assert_ne!(text, base, "{from}");
        std::fs::write(dir.join("s.toml"), text).unwrap();
        let sc = Scenario::load(&dir.join("s.toml"), &[]).expect("parses");
        Mechanism::build(&sc).expect_err(from).to_string()
    };
    let e = error(r#"pairs = [["lander", "ground"]]"#, r#"pairs = [["lander", "grund"]]"#);
    assert!(e.contains("mechanism.pairs") && e.contains("no body named 'grund'"), "{e}");
    let e = error("fixed = true", "fixed = true\nmass = 3.0");
    assert!(e.contains("a fixed body takes no mass"), "{e}");
    let e = error("mass = 10.0                          # kg\n", "");
    assert!(e.contains("needs `mass`"), "{e}");
    let e = error("fixed = true", "link = \"wrist\"");
    assert!(e.contains("mechanism.bodies.1.link") && e.contains("[arm]"), "{e}");
    let e = error("models/ground.toml", "models/nothing.toml");
    assert!(e.contains("mechanism.bodies.1.model") && e.contains("nothing.toml"), "{e}");
    let e = error("integrator = \"rk4\"", "integrator = \"dopri5\"");
    assert!(e.contains("simulation.integrator"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_tripod_built_in_code_is_the_scenario_tripod() {
    use tumble_contact::interference::Model as ContactModel;
    use tumble_geometry::MassProperties;
    use tumble_math::{Mat3, UnitQuat, quat_from_wxyz};
    use tumble_sim::mechanism::{Mount, SpringDamper};
    let (_, from_file) = run("tripod.toml", &[("simulation.duration", "0.3")]);
    let models = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/contact/models");
    let load = |f: &str| ContactModel::load(&models.join(f)).expect("model loads");
    let mass = MassProperties::new(10.0, Mat3::from_diagonal(&Vec3::new(0.8, 0.8, 1.2)));
    let start = tumble_dynamics::BodyState {
        p_WB: Vec3::new(0.0, 0.0, 0.32),
        v_WB: Vec3::new(0.02, 0.0, -0.05),
        q_WB: quat_from_wxyz([0.99996875, 0.0025, 0.0075, 0.0]).expect("unit"),
        w_WB_B: Vec3::zeros(),
    };
    let builder = Mechanism::builder("tripod")
        .body("lander", load("tripod.toml"), Mount::Free(mass), start)
        .fixed_body("ground", load("ground.toml"), Vec3::zeros(), UnitQuat::identity())
        .pair("lander", "ground")
        .gravity(Vec3::new(0.0, 0.0, -1.62))
        .timing(1e-4, 0.3, 0.005);
    let in_code = builder.clone().build().expect("valid mechanism").run();
    assert!(in_code.diagnosis.is_none(), "{:?}", in_code.diagnosis);
    assert_eq!(in_code.samples, from_file.samples, "the same inputs, the same run bit for bit");
    let key = |b: tumble_sim::mechanism::MechanismBuilder| b.build().err().map(|e| e.key);
    assert_eq!(key(builder.clone().pair("lander", "lander")).as_deref(), Some("mechanism.pairs.1"));
    assert_eq!(key(builder.clone().pair("lander", "moon")).as_deref(), Some("mechanism.pairs.1"));
    assert_eq!(
        key(builder.clone().spring(SpringDamper::new("ground", Vec3::repeat(1.0), Vec3::zeros()))).as_deref(),
        Some("mechanism.springs.0.body")
    );
    assert_eq!(
        key(builder.clone().spring(SpringDamper::new("lander", Vec3::repeat(-1.0), Vec3::zeros()))).as_deref(),
        Some("mechanism.springs.0.stiffness")
    );
    assert_eq!(key(builder.clone().margin(f64::NAN)).as_deref(), Some("mechanism.margin"));
    assert_eq!(key(builder.clone().timing(1e-4, 0.3, 0.00015)).as_deref(), Some("simulation.output_interval"));
    let heavy = MassProperties::new(-1.0, Mat3::identity());
    let twice = builder.clone().body("lander", load("tripod.toml"), Mount::Free(heavy), start);
    assert_eq!(key(twice).as_deref(), Some("mechanism.bodies.2.name"));
    let negative = builder.clone().body("probe", load("tripod.toml"), Mount::Free(heavy), start);
    assert_eq!(key(negative).as_deref(), Some("mechanism.bodies.2.mass"));
    let carried = builder.body("tool", load("tripod.toml"), Mount::Link("wrist".into()), start);
    assert_eq!(key(carried).as_deref(), Some("mechanism.bodies.2"), "a carried body takes no velocity");
}

#[test]
fn the_lee_captures_and_rigidises_the_payload_on_the_contact_engine() {
    let (m, r) = run("lee_capture.toml", &[]);
    let log = r.snare.as_ref().expect("a snare's record");
    assert_eq!(log.outcome, Stage::Rigidised, "{:?}", log.reason);
    let (trigger, captured, rigidised) =
        (log.triggered_at.unwrap(), log.captured_at.unwrap(), log.rigidised_at.unwrap());
    // The knob starts 1.04 cm behind the ring's plane and drifts in at 1 cm/s: 3 cm deep after
    // 1.96 s, and the payload's 2 mm/s of closing spin cannot change that by a step's worth.
    assert!((trigger - 1.96).abs() < 0.05, "{trigger}");
    // The ring cannot close faster than its motor's no-load speed: from 30° to where a wire
    // first meets a shaft 11 mm off the axis, 2 acos((12.5 + 11) mm / 0.1 m) = 152.8°.
    let first_touch = 2.0 * (0.0235f64 / 0.1).acos() - 30f64.to_radians();
    assert!(captured - trigger > first_touch / 1.2, "{}", captured - trigger);
    let last = r.samples.last().unwrap();
    let sn = last.snare.as_ref().unwrap();
    // Held by all three wires, the plate pressed on the face by the carriage's stall force:
    // the face carries 99 % of it; just before (the last sample still retracting), the
    // carriage's drive pulls as hard as the face pushes, to 3 % (what the remaining speed and
    // the wires' friction leave); the payload's net contact force is what the face and the
    // wires leave of each other (< 2 % of the preload). Rigidised, the drives are braked.
    assert!(sn.face >= 0.99 * 500.0 && sn.wires.iter().all(|w| *w > 100.0), "{sn:?}");
    assert_eq!(sn.drives, [0.0, 0.0]);
    let before = r.samples[r.samples.len() - 2].snare.as_ref().unwrap();
    assert!(before.drives[1] > 0.97 * 500.0 && (before.drives[1] - before.face).abs() < 0.03 * 500.0, "{before:?}");
    assert!(last.bodies[0][3].norm() < 0.02 * 500.0, "{}", last.bodies[0][3]);
    // The plate's front (payload x = −1 m) lies on the face's plane (effector x = 0), sunk by
    // what 500 N does to a 3.2e6 N/m face (0.16 mm), and the knob is behind the ring.
    let local = |s: &MechSample, x_B: Vec3| s.attitudes[1].inverse() * (point(s, 0, x_B) - s.bodies[1][0]);
    let plate = local(last, Vec3::new(-1.0, 0.0, 0.0));
    assert!(plate.x < 0.0 && plate.x > -1e-3, "{plate}");
    assert!(local(last, Vec3::new(-1.2, 0.0, 0.0)).x < -0.08, "knob");
    assert!(rigidised > captured && log.peak_face >= sn.face, "{log:?}");
    // The wires' reaction reaches the arm: the effector's recorded load is the payload's,
    // reversed.
    let (fp, fe) = (last.bodies[0][3], last.bodies[1][3]);
    assert!((fp + fe).norm() < 1e-9 * 500.0, "{fp} {fe}");
    assert_eq!(m.snare.as_ref().unwrap().target, 0);
}

#[test]
fn a_payload_that_strikes_the_rim_and_leaves_is_missed() {
    // The payload 15 cm off the LEE's axis (the ring's radius is 10 cm), 2.2 m out and closing
    // at 0.15 m/s: its plate strikes the effector's rim, it turns away, and its knob never
    // reaches the trigger. Receding after touching, with nothing to turn it round, it is
    // `missed` (it stayed `open` to the end of the run before).
    let (_, r) = run(
        "lee_capture.toml",
        &[
            ("mechanism.bodies.0.position.0", "10.2"),
            ("mechanism.bodies.0.position.1", "0.15"),
            ("mechanism.bodies.0.velocity", "[-0.15, 0.0, 0.0]"),
        ],
    );
    let log = r.snare.as_ref().expect("a snare's record");
    assert_eq!(log.outcome, Stage::Missed, "{log:?}");
    assert!(log.peak_face > 0.0 && log.triggered_at.is_none(), "{log:?}");
    let why = log.reason.as_deref().expect("a reason");
    assert!(why.contains("touched the effector and left") && why.contains("receding"), "{why}");
    // The run ended when it left, not at its 12 s.
    assert!(r.samples.last().expect("samples").t < 11.0);
}

#[test]
fn a_payload_placed_inside_the_effector_is_named_by_check_and_by_the_diagnosis() {
    // 10 cm off the axis (the ring's radius) at the bundled distance, the shaft starts 3.9 mm
    // into the second snare wire (78 N): `check` warns with the pair, depth and force, and the
    // run's energy trip names the overlap, not the time step.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/contact/lee_capture.toml");
    let set = [("mechanism.bodies.0.position.1".to_string(), "0.1".to_string())];
    let sc = Scenario::load(&path, &set).expect("scenario loads");
    let warnings = tumble_sim::registry::check(&sc).expect("builds");
    assert!(
        warnings.iter().any(|w| w.contains("placed overlapping") && w.contains("snare wire 2 3.949e-3 m deep")),
        "{warnings:?}"
    );
    let r = Mechanism::build(&sc).expect("model").run();
    let d = r.diagnosis.expect("the energy guard trips");
    assert!(d.likely_cause.contains("started overlapping") && d.time < 0.01, "{d}");
}

/// A user's wrench on a free body through the application interface, against the closed form:
/// the probe-and-drogue chaser at rest in no gravity stays 0.2 m clear of the drogue for the
/// second it is pushed (it moves under 3 mm), so `v = F t / m`, `x = x₀ + F t² / 2m`,
/// `ω_z = τ_z t / I_z` (z is a principal axis: no gyroscopic coupling), and the work the guard
/// counts is the kinetic energy it gave. RK4 integrates these polynomials exactly; what is left
/// is rounding over 1000 steps (~1e-13 relative), and the bounds are 1e-10 of each value.
#[test]
fn a_wrench_on_a_free_body_follows_newton_and_its_work_is_in_the_budget() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/contact/probe_cone.toml");
    let set = [("mechanism.bodies.0.velocity", "[0.0, 0.0, 0.0]"), ("simulation.duration", "1.0")];
    let set: Vec<(String, String)> = set.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let sc = Scenario::load(&path, &set).expect("scenario loads");
    let mut run = tumble_sim::registry::start(&sc).expect("starts");
    // Only the free body takes a wrench, of six values (or none, to release it).
    let names: Vec<String> = run.inputs().into_iter().map(|i| i.name).collect();
    assert_eq!(names, ["chaser.wrench"]);
    let short = run.set_input("chaser.wrench", &[1.0]).expect_err("one value");
    assert!(short.contains("takes 6") && short.contains("or none"), "{short}");
    assert!(run.set_input("drogue.wrench", &[0.0; 6]).expect_err("fixed").contains("takes chaser.wrench"));
    let (f, tau, m, i_z, t) = (Vec3::new(2.0, -1.0, 0.5), 0.3, 500.0, 100.0, 1.0);
    run.set_input("chaser.wrench", &[f.x, f.y, f.z, 0.0, 0.0, tau]).expect("a free body");
    tumble_sim::app::run_to_end(run.as_mut(), &mut |_| {});
    assert!(matches!(run.ended(), Some(Ok(_))), "{:?}", run.ended());
    let state = run.state();
    let get = |name: &str| state.iter().find(|q| q.name == name).map(|q| Vec3::from_column_slice(&q.values));
    let (p, v, w) =
        (get("chaser.position").unwrap(), get("chaser.velocity").unwrap(), get("chaser.angular_velocity").unwrap());
    let close = |got: Vec3, want: Vec3| (got - want).norm() <= 1e-10 * want.norm();
    assert!(close(v, f * t / m), "{v}");
    assert!(close(p - Vec3::new(0.12, 0.05, 1.5), f * t * t / (2.0 * m)), "{p}");
    assert!(close(w, Vec3::new(0.0, 0.0, tau * t / i_z)), "{w}");
    let work = *run.y().last().expect("the work is the state's last component");
    let kinetic = 0.5 * m * v.norm_squared() + 0.5 * i_z * w.z * w.z;
    assert!((work - kinetic).abs() <= 1e-10 * kinetic, "work {work} J, kinetic {kinetic} J");
}

/// A user's controller on the LEE's drives through the application interface. Once the ring
/// has closed on the shaft (its rate braked to zero past the open angle), the controller runs
/// the carriage at 60 % of its rated voltage: its line `F = F_s (0.6 − ṡ/v₀)` stalls at 300 N,
/// so the face is pressed with 60 % of the bundled preload (rigidised at 0.99 × 300 N; the
/// overshoot the plate's impact adds, at most 3 % as on the bundled case, bounds it above). It
/// retracts at most 0.6 v₀ = 12 mm/s: 20 s of run in place of 12.
/// A ring commanded at 0 from the start holds still (`τ = −τ_s Δ̇/ω₀`, a damper from rest), so
/// the snare never closes. Out of range commands are refused.
#[test]
fn the_lees_drives_follow_a_users_commands() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/contact/lee_capture.toml");
    let sc = Scenario::load(&path, &[("simulation.duration".into(), "20.0".into())]).expect("scenario loads");
    let scalar = |run: &dyn tumble_sim::app::Run, name: &str| {
        run.state().into_iter().find(|q| q.name == name).map(|q| q.values[0]).expect(name)
    };
    let mut run = tumble_sim::registry::start(&sc).expect("starts");
    let names: Vec<String> = run.inputs().into_iter().map(|i| i.name).collect();
    assert!(names.iter().any(|n| n == "snare.ring") && names.iter().any(|n| n == "snare.carriage"), "{names:?}");
    let wrong = run.set_input("snare.carriage", &[1.5]).expect_err("out of range");
    assert!(wrong.contains("-1 to 1"), "{wrong}");
    let open = 30f64.to_radians();
    let mut commanded = None;
    while run.ended().is_none() {
        run.step().expect("no failure");
        let (angle, rate) = (scalar(run.as_ref(), "snare.ring_angle"), scalar(run.as_ref(), "snare.ring_rate"));
        if commanded.is_none() && rate == 0.0 && angle > open + 0.1 {
            run.set_input("snare.carriage", &[0.6]).expect("a command");
            commanded = Some(run.time());
        }
    }
    assert!(commanded.is_some(), "the ring closed");
    let report = run.report(None).expect("report");
    let snare = &report.summary["snare"];
    assert_eq!(snare["outcome"], "rigidised", "{snare}");
    let face = report.table.column("face [N]").expect("face").last().copied().expect("rows");
    assert!((0.99 * 300.0..=1.03 * 300.0).contains(&face), "face {face} N");
    assert!(snare["peak_face_load_N"].as_f64().expect("peak") <= 1.03 * 300.0, "{snare}");

    let held = Scenario::load(&path, &[("simulation.duration".into(), "3.0".into())]).expect("scenario loads");
    let mut run = tumble_sim::registry::start(&held).expect("starts");
    run.set_input("snare.ring", &[0.0]).expect("a command");
    tumble_sim::app::run_to_end(run.as_mut(), &mut |_| {});
    assert!(matches!(run.ended(), Some(Ok(_))), "{:?}", run.ended());
    assert_eq!(scalar(run.as_ref(), "snare.ring_angle"), open, "the ring held still");
    let report = run.report(None).expect("report");
    assert_eq!(report.summary["snare"]["outcome"], "closing", "triggered at 1.96 s, never closed");
}

/// A failure the mechanism cannot explain itself is measured by the registry's run before it is
/// reported: the tripod at 20 ms (bundled: 1 ms) passes its failure time at dt/4, so the step is
/// named with the step that passed; the same run steered by an input cannot be rerun (the rerun
/// would not repeat the input) and says so, naming both causes.
#[test]
fn a_failure_is_measured_by_rerunning_unless_inputs_steered_it() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/contact/tripod.toml");
    let set = [("simulation.dt", "0.02"), ("simulation.output_interval", "0.02")];
    let set: Vec<(String, String)> = set.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let sc = Scenario::load(&path, &set).expect("scenario loads");
    let mut run = tumble_sim::registry::start(&sc).expect("starts");
    tumble_sim::app::run_to_end(run.as_mut(), &mut |_| {});
    let Some(Err(d)) = run.ended() else { panic!("the tripod at 20 ms must fail: {:?}", run.ended()) };
    assert!(d.likely_cause.starts_with("the time step, measured: rerun at dt/4 = 5.000e-3 s"), "{d}");
    assert!(d.likely_cause.ends_with("take simulation.dt ≤ 5.000e-3 s") && d.step.is_none(), "{d}");
    let report = run.report(None).expect("a report");
    assert_eq!(report.diagnosis.as_deref(), Some(d.to_string().as_str()));

    let mut steered = tumble_sim::registry::start(&sc).expect("starts");
    let free = steered.inputs().into_iter().next().expect("a free body's wrench").name;
    steered.set_input(&free, &[0.0; 6]).expect("a zero wrench");
    tumble_sim::app::run_to_end(steered.as_mut(), &mut |_| {});
    let Some(Err(s)) = steered.ended() else { panic!("fails as before: {:?}", steered.ended()) };
    assert!(s.likely_cause.starts_with("the time step simulation.dt = 0.02 s or, if not, "), "{s}");
    assert!(s.likely_cause.contains("not measured: inputs were set during the run"), "{s}");
    assert_eq!(s.time, d.time, "a zero wrench changes nothing");
}

/// Identified wires taut almost at once (1e-4 of slack: `Q` ≈ 1.4 mm at a 0.2 m chord) stretch
/// as the ring closes on the shaft; past the steel's yield load the run stops, failed, naming
/// the wire and its tension, and the largest tension is in the record.
#[test]
fn a_wire_stretched_past_its_yield_load_ends_the_capture() {
    let dir = std::env::temp_dir().join(format!("tumble_lee_yield_{}", std::process::id()));
    std::fs::create_dir_all(dir.join("models")).unwrap();
    let contact = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/contact");
    for f in ["lee_fixture.toml", "lee_effector.toml"] {
        std::fs::copy(contact.join("models").join(f), dir.join("models").join(f)).unwrap();
    }
    std::fs::copy(contact.join("lee_capture.toml"), dir.join("lee_capture.toml")).unwrap();
    let effector = dir.join("models/lee_effector.toml");
    let text = std::fs::read_to_string(&effector).unwrap();
    let taut = text.replace("wire = { damping = 200 }", "wire = { damping = 200, slack_ratio = 1e-4 }");
    assert_ne!(taut, text);
    std::fs::write(&effector, taut).unwrap();
    let sc = Scenario::load(&dir.join("lee_capture.toml"), &[]).expect("scenario loads");
    let m = Mechanism::build(&sc).unwrap_or_else(|e| panic!("{e}"));
    let r = m.run();
    let log = r.snare.as_ref().expect("a snare");
    assert_eq!(log.outcome, Stage::Failed, "{log:?}");
    let why = log.reason.as_deref().unwrap_or("");
    assert!(why.contains("passed its yield load 362 N"), "{why}");
    assert!(log.peak_tension.is_some_and(|t| t > 362.2), "{log:?}");
    // It yields while the ring closes on the shaft (triggered at 2.0 s), never holding it.
    assert!(log.triggered_at.is_some() && log.captured_at.is_none(), "{log:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Common Berthing Mechanism (`cbm_berthing.toml`): the passive half drifts in at 3 mm/s,
/// its strikers trip the indicators when its face is 0.115 m out (45 s), the four latches
/// drive, each hook pulls its fitting, every latch stalls at its preload on the standoffs,
/// and the module comes to rest berthed. At the end the loads balance: what the hooks pull,
/// the standoffs, bumpers and indicators push back.
#[test]
fn the_cbm_berths_its_passive_half() {
    use tumble_sim::mechanism::BerthStage;
    let (m, r) = run("cbm_berthing.toml", &[]);
    let log = r.berthing.as_ref().expect("a berthing");
    assert_eq!(log.outcome, BerthStage::Berthed, "{log:?}");
    // The indicators trip at the drift's time to 0.115 m: (0.25 − 0.115)/0.003 = 45 s (the
    // plungers' 50 N/m barely slow 12 t).
    let drive = log.drive_at.expect("latches drove");
    assert!((drive - 45.0).abs() < 0.1, "latches drive at {drive} s");
    let (captured, berthed) = (log.captured_at.expect("captured"), log.berthed_at.expect("berthed"));
    assert!(captured > drive + 5.0 && berthed >= captured, "{log:?}");
    assert!(log.latched_at.iter().all(Option::is_some) && log.rtli_peak == 4);
    let last = r.samples.last().expect("samples");
    let b = last.berthing.as_ref().expect("a berthing sample");
    // Mated: the face 0.04 m above the ACBM's, the standoffs compressed by their load
    // (≈ 700 N each at 2e6 N/m: 0.35 mm).
    let face = b.offset[0] - 3.0;
    assert!((face - 0.04).abs() < 1e-3 && b.offset[1] < 1e-6, "face at {face} m, {} m across", b.offset[1]);
    // The loads balance: the module's net contact force is what is left of the hooks' pull
    // against the standoffs, bumpers and indicators (< 0.1 % of the pull), and it is at rest.
    let pcbm = m.bodies.iter().position(|x| x.name == "pcbm").expect("pcbm");
    let net = last.bodies[pcbm][3].norm();
    let pull: f64 = b.latches.iter().map(|l| l[4]).sum();
    let pushed: f64 = b.groups.iter().sum();
    assert!(pull > 1000.0 && net < 1e-3 * pull, "hooks {pull} N, net {net} N");
    // Along the axis: the features' loads are axial (standoffs, bumpers and indicators on
    // flat faces); what is left is the friction at the hooks and the guides' (< 1 %).
    assert!((pushed - pull).abs() < 0.01 * pull, "hooks pull {pull} N, the features push {pushed} N");
    assert!(last.bodies[pcbm][1].norm() < 1e-3);
    // Each latch stalled under its load: its motor at its stall torque.
    assert!(log.peak_torque.iter().all(|t| *t >= 20.0 - 1e-9), "{:?}", log.peak_torque);
}

/// Outside the guides' funnel (10 cm across) the pins land on the petals' tops, the
/// indicators never trip and the run ends cleanly: missed, with the count in the reason.
#[test]
fn a_cbm_outside_its_envelope_misses_cleanly() {
    use tumble_sim::mechanism::BerthStage;
    let (_, r) = run("cbm_berthing.toml", &[("mechanism.bodies.1.position.0", "0.1")]);
    let log = r.berthing.as_ref().expect("a berthing");
    assert_eq!(log.outcome, BerthStage::Approach, "{log:?}");
    let why = log.reason.as_deref().unwrap_or("");
    assert!(why.contains("not captured") && why.contains("of 4 ready-to-latch indicators"), "{why}");
    assert!(log.latched_at.iter().all(Option::is_none) && log.drive_at.is_none());
}

/// A user's guidance in the loop commands the CBM's latch motors by name (`latch_k.motor`): the
/// first latch held open (command 0) stays at its open angle while the other three close on
/// their fittings (pulling the module down askew: the one opposite may not settle); with one
/// latch never latched the berthing stays capturing. The crank angles
/// are in the state by name.
#[test]
fn the_cbms_latches_follow_a_users_commands() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/contact/cbm_berthing.toml");
    let sc = Scenario::load(&path, &[("simulation.duration".into(), "60.0".into())]).expect("scenario loads");
    let mut run = tumble_sim::registry::start(&sc).expect("starts");
    let names: Vec<String> = run.inputs().into_iter().map(|i| i.name).collect();
    assert!((1..=4).all(|k| names.contains(&format!("latch_{k}.motor"))), "{names:?}");
    let wrong = run.set_input("latch_1.motor", &[2.0]).expect_err("out of range");
    assert!(wrong.contains("-1 to 1"), "{wrong}");
    run.set_input("latch_1.motor", &[0.0]).expect("a command");
    while run.ended().is_none() {
        run.step().expect("no failure");
    }
    let crank = |k: usize| {
        run.state().into_iter().find(|q| q.name == format!("latch_{k}.crank")).map(|q| q.values[0]).expect("crank")
    };
    assert!((crank(1) - 30f64.to_radians()).abs() < 1e-9, "the held latch moved: {}", crank(1));
    // The others swing past where their hooks meet the fittings (crank ≈ 120°) and pull.
    let others: Vec<f64> = (2..=4).map(crank).collect();
    assert!(others.iter().all(|c| *c > 2.5), "{others:?}");
    let report = run.report(None).expect("report");
    let b = &report.summary["berthing"];
    assert_eq!(b["outcome"], "capturing", "{b}");
    let latched = b["latched_s"].as_array().expect("latched");
    assert!(latched[0].is_null() && latched.iter().any(|t| t.is_number()), "{b}");
}

/// The CBM beyond its bundled module: a 3 t and a 30 t module, and the 12 t one arriving at
/// 1 cm/s, each berth on their standoffs (0.04 m out, within the standoffs' 1 mm of
/// compression) with their indicators all tripped.
#[test]
fn cbms_of_other_masses_and_speeds_berth() {
    use tumble_sim::mechanism::BerthStage;
    for set in [
        [("mechanism.bodies.1.mass", "3000.0")],
        [("mechanism.bodies.1.mass", "30000.0")],
        [("mechanism.bodies.1.velocity.2", "-0.01")],
    ] {
        let (_, r) = run("cbm_berthing.toml", &set);
        let log = r.berthing.as_ref().expect("a berthing");
        assert_eq!(log.outcome, BerthStage::Berthed, "{set:?}: {log:?}");
        assert_eq!(log.rtli_peak, 4, "{set:?}");
        let b = r.samples.last().and_then(|s| s.berthing.as_ref()).expect("a sample");
        let face = b.offset[0] - 3.0;
        assert!((face - 0.04).abs() < 1e-3 && b.offset[1] < 1e-6, "{set:?}: face at {face} m");
    }
}
