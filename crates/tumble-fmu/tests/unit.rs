//! The co-simulation unit against the mechanism's own engine, and its refusals.

use std::path::PathBuf;
use tumble_contact::interference::Engine;
use tumble_fmu::Unit;
use tumble_fmu::description::model_description;
use tumble_fmu::package::{resources, scenario_token};
use tumble_math::{Pose, UnitQuat, Vec3};
use tumble_sim::Scenario;
use tumble_sim::mechanism::Mechanism;

fn probe_cone(overrides: &[(&str, &str)]) -> Scenario {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/contact/probe_cone.toml");
    let o: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Scenario::load(&path, &o).expect("the bundled scenario")
}

fn vr(u: &Unit, name: &str) -> u32 {
    u.variables().iter().position(|v| v.name == name).unwrap_or_else(|| panic!("no variable {name}")) as u32
}

/// The chaser's pose and twist `[p, q, v, w]` set on the unit.
fn set_chaser(u: &mut Unit, y: &[f64; 13]) {
    let names = ["x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"];
    for (n, x) in names.iter().zip(y) {
        u.set_f64(vr(u, &format!("chaser.{n}")), *x).expect("an input");
    }
}

fn wrench(u: &mut Unit, body: &str) -> [f64; 6] {
    ["fx", "fy", "fz", "tx", "ty", "tz"].map(|n| u.get_f64(vr(u, &format!("{body}.{n}"))).expect("an output"))
}

#[test]
fn the_units_outputs_are_the_mechanisms_engine_bit_for_bit_over_steps() {
    let sc = probe_cone(&[]);
    let m = Mechanism::build(&sc).expect("builds");
    let mut unit = Unit::new(&sc).expect("a unit");
    let mut engine: Engine = m.engine().expect("the engine");
    let h = 1e-3;
    // Where the chaser comes to rest in its own run (x, y), descending 5 cm through the contact.
    let mut y = [0.096, 0.045, 1.05, 1.0, 0.0, 0.0, 0.0, 0.01, -0.02, -0.25, 0.0, 0.0, 0.1];
    let mut touched = false;
    for k in 0..200 {
        // A prescribed sliding path through the floor's contact.
        y[2] = 1.05 - 0.25 * k as f64 * h;
        set_chaser(&mut unit, &y);
        let got = [wrench(&mut unit, "chaser"), wrench(&mut unit, "drogue")];
        let q = UnitQuat::new_normalize(tumble_math::Quat::new(y[3], y[4], y[5], y[6]));
        let pose = Pose::new(Vec3::new(y[0], y[1], y[2]), q);
        engine.set_body(0, 0, &pose, Vec3::new(y[7], y[8], y[9]), Vec3::new(y[10], y[11], y[12])).expect("set");
        engine.evaluate();
        for (b, w) in got.iter().enumerate() {
            let s = engine.body(b, 0);
            let own = [s.force.x, s.force.y, s.force.z, s.torque.x, s.torque.y, s.torque.z];
            assert_eq!(w.map(f64::to_bits), own.map(f64::to_bits), "step {k}, body {b}");
        }
        touched |= got[0][2].abs() > 0.0;
        // Newton's third law between the two bodies (forces; the moments are about different origins).
        for i in 0..3 {
            assert!((got[0][i] + got[1][i]).abs() <= 1e-9 * got[0][i].abs().max(1.0), "step {k}: {got:?}");
        }
        unit.do_step(k as f64 * h, h).expect("a step");
        engine.commit(h);
    }
    assert!(touched, "the prescribed path must meet the drogue's floor");
    let pairs = unit.get_i32(vr(&unit, "chaser|drogue.contacts")).expect("contacts");
    assert_eq!(pairs, unit.get_i32(vr(&unit, "contacts")).expect("contacts"));
    assert!(unit.get_i32(vr(&unit, "contact_starts")).expect("events") >= 1);
}

#[test]
fn inputs_outputs_and_steps_are_checked_by_name() {
    let sc = probe_cone(&[]);
    let mut unit = Unit::new(&sc).expect("a unit");
    let fz = vr(&unit, "chaser.fz");
    let e = unit.set_f64(fz, 1.0).unwrap_err();
    assert!(e.contains("chaser.fz is not an input"), "{e}");
    let e = unit.set_f64(vr(&unit, "chaser.x"), f64::NAN).unwrap_err();
    assert!(e.contains("chaser.x = NaN") && e.contains("finite"), "{e}");
    let e = unit.get_i32(fz).unwrap_err();
    assert!(e.contains("Float64, not Int32"), "{e}");
    let e = unit.get_f64(10_000).unwrap_err();
    assert!(e.contains("value reference 10000"), "{e}");
    unit.set_f64(vr(&unit, "chaser.qw"), 0.5).expect("an input");
    let e = unit.get_f64(fz).unwrap_err();
    assert!(e.contains("chaser.q") && e.contains("normalised"), "{e}");
    unit.set_f64(vr(&unit, "chaser.qw"), 1.0).expect("an input");
    let e = unit.do_step(0.5, 1e-3).unwrap_err();
    assert!(e.contains("the unit is at t = 0 s"), "{e}");
    let e = unit.do_step(0.0, -1e-3).unwrap_err();
    assert!(e.contains("positive"), "{e}");
    unit.do_step(0.0, 1e-3).expect("a step");
    assert_eq!(unit.time(), 1e-3);
    unit.reset().expect("reset");
    assert_eq!(unit.time(), 0.0);
}

#[test]
fn the_description_and_token_follow_the_scenario() {
    let sc = probe_cone(&[]);
    let unit = Unit::new(&sc).expect("a unit");
    let files = resources(&sc).expect("resources");
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["models/probe.toml", "models/drogue.toml", "models/drogue.obj"]);
    let token = scenario_token(&sc.text, &files);
    let xml = model_description(&unit, &token, "d");
    assert!(xml.contains(&format!("instantiationToken=\"{token}\"")));
    // 1 time + 13 inputs of the free chaser + 6 outputs of each of 2 bodies + 2 per pair + 3.
    assert_eq!(unit.variables().len(), 1 + 13 + 12 + 2 + 3);
    assert_eq!(xml.matches("causality=\"input\"").count(), 13);
    // Another scenario text (a changed start) is another token.
    let moved = probe_cone(&[("mechanism.bodies.0.position", "[0.1, 0.05, 1.5]")]);
    assert_ne!(scenario_token(&moved.text, &files), token);
}

/// Every bundled mechanism of free and fixed bodies (one or several free bodies, several pairs)
/// becomes a unit whose outputs at the start are its own engine's, bit for bit, and whose
/// inputs are 13 per free body; the others are refused by name.
#[test]
fn every_bundled_mechanism_is_a_unit_or_refused_by_name() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/contact");
    let mut made = 0;
    for entry in std::fs::read_dir(&dir).expect("scenarios") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let sc = Scenario::load(&path, &[]).expect("bundled");
        let m = Mechanism::build(&sc).expect("builds");
        let mut unit = match Unit::new(&sc) {
            Ok(u) => u,
            Err(e) => {
                assert!(m.arm.is_some() || m.snare.is_some(), "{}: {e}", path.display());
                assert!(e.contains("free and fixed bodies only"), "{e}");
                continue;
            }
        };
        let free = m.bodies.iter().filter(|b| b.body.is_some()).count();
        let inputs = unit.variables().iter().filter(|v| v.causality == "input").count();
        assert_eq!(inputs, 13 * free, "{}", path.display());
        let mut engine = m.engine().expect("engine");
        engine.evaluate();
        for (b, body) in m.bodies.iter().enumerate() {
            let got = wrench(&mut unit, &body.name);
            let s = engine.body(b, 0);
            let own = [s.force.x, s.force.y, s.force.z, s.torque.x, s.torque.y, s.torque.z];
            assert_eq!(got.map(f64::to_bits), own.map(f64::to_bits), "{}: {}", path.display(), body.name);
        }
        made += 1;
    }
    assert!(made >= 4, "drawer, peg_in_hole, probe_cone, tripod");
}
