//! The snare's drives against the contact energy, and its capture verdict.
use super::*;
use crate::mechanism::{Mechanism, Mount};
use tumble_dynamics::BodyState;
use tumble_geometry::MassProperties;

/// The bundled LEE's fixture (a free 500 kg payload) and face (fixed at the origin, x out of
/// the face), the ring 8 cm inside it, the fixture placed by its knob's centre `knob` in the
/// ring frame; its wires the linear lateral spring (`wire_linear`).
fn lee(knob: Vec3) -> Mechanism {
    lee_with(knob, "wire_linear")
}

/// The same with the wires' contact set `wires` (`wire`: the identified wire).
fn lee_with(knob: Vec3, wires: &str) -> Mechanism {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/contact/models");
    let model = |f: &str| ContactModel::load(&dir.join(f)).expect("model");
    let ring = (UnitQuat::from_axis_angle(&Vec3::y_axis(), 0.5 * PI), Vec3::new(-0.08, 0.0, 0.0));
    let knob_E = ring.1 + ring.0 * knob;
    let start = BodyState {
        p_WB: knob_E + Vec3::new(1.2, 0.0, 0.0),
        v_WB: Vec3::zeros(),
        q_WB: UnitQuat::identity(),
        w_WB_B: Vec3::zeros(),
    };
    let payload = Mount::Free(MassProperties::new(500.0, Mat3::from_diagonal(&Vec3::new(415.0, 83.0, 415.0))));
    let drive = |stall, no_load_speed, inertia| DcDrive { stall, no_load_speed, inertia };
    Mechanism::builder("lee")
        .body("payload", model("lee_fixture.toml"), payload, start)
        .fixed_body("effector", model("lee_effector.toml"), Vec3::zeros(), UnitQuat::identity())
        .pair("payload", "effector")
        .snare(SnareInput {
            carrier: "effector".into(),
            target: "payload".into(),
            contact: wires.into(),
            ring,
            ring_radius: 0.1,
            open_angle: 30f64.to_radians(),
            tip: Vec3::new(-1.2, 0.0, 0.0),
            trigger: 0.03,
            motor: drive(15.0, 1.2, 1.0),
            carriage: drive(500.0, 0.02, 100.0),
            stroke: 0.15,
        })
        .timing(5e-4, 1.0, 0.01)
        .build()
        .expect("builds")
}

/// `½ k δ²` summed over the wires' contacts (the wire law's spring) at `d`, with the
/// generalised forces and the carrier's wrench.
fn evaluate(m: &Mechanism, d: &[f64]) -> (f64, [f64; 2], Vec3, Vec3, Engine) {
    let sn = m.snare.as_ref().expect("snare");
    let mut e = m.engine().expect("engine");
    sn.place(&mut e, &[2, 3, 4], d);
    e.evaluate();
    let (q, f, t) = sn.loads(&e, &[2, 3, 4], d);
    let k = 2e4;
    let energy = e.contacts().iter().filter(|c| c.key.0 >= 1).map(|c| 0.5 * k * c.measure * c.measure).sum();
    (energy, q, f, t, e)
}

#[test]
fn the_drives_feel_the_wires_as_the_derivatives_of_their_contact_energy() {
    // The knob 1 cm behind the ring's plane, off its axis; at Δ = 145° and s = 4 mm the
    // wires (inradius 30 mm) sink about 4 mm into it from three sides, each at its own
    // depth. At rest the wires' law is its spring alone (no rate for the dashpot or the
    // friction), so Q_Δ = −∂U/∂Δ and Q_s = −∂U/∂s with U = Σ ½ k δ².
    let m = lee(Vec3::new(0.004, -0.002, -0.01));
    let d = [145f64.to_radians(), 0.0, 0.004, 0.0];
    let (u, q, f, t, e) = evaluate(&m, &d);
    assert_eq!(e.contacts().iter().filter(|c| c.key.0 >= 1).count(), 3, "{:?}", e.contacts());
    assert!(u > 1e-3, "{u}");
    let h = 1e-7;
    let shifted = |i: usize, by: f64| {
        let mut x = d;
        x[i] += by;
        evaluate(&m, &x).0
    };
    let du_dangle = (shifted(0, h) - shifted(0, -h)) / (2.0 * h);
    let du_ds = (shifted(2, h) - shifted(2, -h)) / (2.0 * h);
    // Central differences of a smooth U with h = 1e-7: truncation ~h² U''' and round-off
    // ~1e-16 U / h, both below 1e-6 of the forces here (several N·m and N).
    assert!((q[0] + du_dangle).abs() < 1e-6 * du_dangle.abs(), "Q_Δ {} vs −∂U/∂Δ {}", q[0], -du_dangle);
    assert!((q[1] + du_ds).abs() < 1e-6 * du_ds.abs().max(1.0), "Q_s {} vs −∂U/∂s {}", q[1], -du_ds);
    // Action and reaction: what the wires take from the payload, the carrier receives (a
    // fixed carrier's origin is the world's).
    let p = e.body(0, 0);
    assert!((p.force + f).norm() < 1e-9 * f.norm(), "{} vs {f}", p.force);
    let moment = p.torque + p.X_WB.p.cross(&p.force);
    assert!((moment + t).norm() < 1e-9 * t.norm().max(f.norm()), "{moment} vs {t}");
}

#[test]
fn a_held_shaft_is_told_from_one_the_wires_miss() {
    // A centred shaft closed on by all three wires is held; one 9 cm off the axis meets
    // one wire only.
    let holds = |knob: Vec3, angle: f64| {
        let m = lee(knob);
        let (.., e) = evaluate(&m, &[angle, 0.0, 0.0, 0.0]);
        m.snare.as_ref().expect("snare").holds(&e, &[1, 2, 3])
    };
    let held = holds(Vec3::new(0.001, 0.0, -0.06), 2.0 * (0.010f64 / 0.1).acos());
    assert!(held.is_ok(), "{held:?}");
    let e = holds(Vec3::new(0.0, -0.088, -0.06), 60f64.to_radians()).expect_err("one wire");
    assert!(e.contains("only 1 of 3"), "{e}");
    let e = holds(Vec3::new(0.0, 0.0, 0.3), PI).expect_err("none");
    assert!(e.contains("only 0 of 3"), "{e}");
}

/// The identified wire: the carriage's generalised force is the derivative of the wires'
/// stored energy (retracting moves the wires along the shaft's axis, not their anchors' span,
/// so each wire's law is a potential in it); the closing angle also changes the span the law
/// is scaled to, so `Q_Δ` is the contact forces' virtual work only (docs/snare.md).
#[test]
fn the_carriage_feels_the_identified_wires_as_the_derivative_of_their_energy() {
    let m = lee_with(Vec3::new(0.004, -0.002, -0.01), "wire");
    let sn = m.snare.as_ref().expect("snare");
    let law = sn.wire.params[0].wire.expect("an identified wire");
    let d = [160f64.to_radians(), 0.0, 0.004, 0.0];
    let energy = |d: &[f64; 4]| {
        let mut e = m.engine().expect("engine");
        sn.place(&mut e, &[2, 3, 4], d);
        e.evaluate();
        let span = sn.span(d[0]);
        let u: f64 = (0..3)
            .flat_map(|k| {
                let b = *e.body(2 + k, 0);
                e.contacts()
                    .iter()
                    .filter(move |c| c.key.0 as usize == k + 1)
                    .map(move |c| {
                        let s = 0.5 * span + (c.point - b.X_WB.p).dot(&b.X_WB.R.column(1));
                        law.wire(span, s).energy(c.measure)
                    })
                    .collect::<Vec<_>>()
            })
            .sum();
        (u, sn.loads(&e, &[2, 3, 4], d).0, e.contacts().iter().filter(|c| c.key.0 >= 1).count())
    };
    let (u, q, touching) = energy(&d);
    assert_eq!(touching, 3, "each wire on the shaft");
    assert!(u > 1e-3, "{u}");
    let h = 1e-7;
    let (up, down) = (energy(&[d[0], 0.0, d[2] + h, 0.0]).0, energy(&[d[0], 0.0, d[2] - h, 0.0]).0);
    let du_ds = (up - down) / (2.0 * h);
    assert!((q[1] + du_ds).abs() < 1e-6 * du_ds.abs().max(1.0), "Q_s {} vs −∂U/∂s {}", q[1], -du_ds);
    // The wires here are slack (each below its limit Q): no tension.
    let tension = sn.peak_tension(
        &m.engine()
            .map(|mut e| {
                sn.place(&mut e, &[2, 3, 4], &d);
                e.evaluate();
                e
            })
            .expect("engine"),
        &[2, 3, 4],
        &[1, 2, 3],
        d[0],
    );
    assert_eq!(tension.map(|t| t.1), Some(0.0));
}
