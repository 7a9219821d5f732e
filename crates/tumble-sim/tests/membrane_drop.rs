//! A body dropped on the convex-hull membrane (`[membrane]`, the document's Fig. 5): energy is
//! conserved without damping and friction, the area damping removes exactly `∫c Ȧ² dt`, friction
//! only removes energy, the body bounces, and bad keys are refused by name.

use std::path::{Path, PathBuf};
use tumble_sim::Scenario;
use tumble_sim::membrane_drop::{MembraneDrop, MembraneRun};

fn scenario() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/membrane/drop_test.toml")
}

fn build(set: &[(&str, &str)]) -> MembraneDrop {
    let set: Vec<(String, String)> = set.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let sc = Scenario::load(&scenario(), &set).expect("scenario loads");
    MembraneDrop::build(&sc).expect("valid membrane run")
}

fn build_err(set: &[(&str, &str)]) -> String {
    let set: Vec<(String, String)> = set.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let sc = Scenario::load(&scenario(), &set).expect("scenario loads");
    MembraneDrop::build(&sc).expect_err("refused").to_string()
}

/// Largest departure of the energy budget from its start over the run, J.
fn budget_drift(run: &MembraneRun) -> f64 {
    let e0 = run.samples[0].budget();
    run.samples.iter().map(|s| (s.budget() - e0).abs()).fold(0.0, f64::max)
}

/// One bounce (2.6 s: contact from 1.4 s to about 2.3 s), a coarse ellipsoid to keep it quick.
const QUICK: [(&str, &str); 3] = [
    ("simulation.duration", "2.6"),
    ("membrane.body.shape", "{ type = \"ellipsoid\", semi_axes = [2.25, 1.6, 1.2], levels = 2 }"),
    ("membrane.body.position", "[0.0, 0.0, 11.3]"),
];

fn quick(extra: &[(&str, &str)]) -> MembraneDrop {
    let mut set = QUICK.to_vec();
    set.extend_from_slice(extra);
    build(&set)
}

/// Friction off and `c = 0`: `T + V_g + ½k(A − A₀)²` is conserved to RK4's error, which falls
/// with the step. The hull's area has kinks (a vertex pushing out across a fold edge of the hull
/// adds area in proportion to its distance), so the force jumps when a vertex joins or leaves
/// the membrane and each such event leaves an error of first order in the step: measured
/// 1.3e-5 of the energy at 1 ms, 24× more at 4 ms. Bounds: 5e-5 and a fourfold fall from 4 ms
/// to 1 ms (first order).
#[test]
fn conservative_membrane_conserves_energy() {
    let set = [("membrane.c", "0.0"), ("membrane.mu", "0.0")];
    let coarse = quick(&[set[0], set[1], ("simulation.dt", "4e-3"), ("simulation.output_interval", "0.02")]).run();
    let fine = quick(&set).run();
    let e_scale = fine.samples[0].budget();
    assert!(!fine.contacts.is_empty());
    let peak = fine.samples.iter().map(|s| s.contact.energy).fold(0.0, f64::max);
    assert!(peak > 0.5 * e_scale, "the membrane stores most of the energy at the bottom: {peak} J");
    let (dc, df) = (budget_drift(&coarse), budget_drift(&fine));
    println!("drift dt 4 ms {dc:.3e} J, 1 ms {df:.3e} J of {e_scale:.1} J");
    assert!(df < 5e-5 * e_scale, "drift {df} J");
    assert!(df < dc / 4.0, "drift must fall with the step: {dc} → {df}");
}

/// With `c > 0` the energy falls by exactly `∫c Ȧ² dt` (integrated alongside): the budget
/// including that loss is conserved to the same integration error (measured 0.10 J of 11162 J,
/// 9e-6, at 1 ms; 1.3 J at 4 ms), while the loss itself is half the energy.
#[test]
fn damping_removes_exactly_c_adot_squared() {
    let coarse =
        quick(&[("membrane.mu", "0.0"), ("simulation.dt", "4e-3"), ("simulation.output_interval", "0.02")]).run();
    let run = quick(&[("membrane.mu", "0.0")]).run();
    let last = run.samples.last().unwrap();
    let e0 = run.samples[0].budget();
    assert!(last.damping_loss > 0.2 * e0, "damping loss {} J of {e0} J", last.damping_loss);
    let drift = budget_drift(&run);
    println!(
        "damping loss {:.1} J, budget drift {drift:.3e} J (4 ms: {:.3e} J)",
        last.damping_loss,
        budget_drift(&coarse)
    );
    assert!(drift < 5e-5 * e0, "drift {drift} J");
    assert!(drift < budget_drift(&coarse) / 4.0);
    // And the mechanical energy alone did fall by that much.
    let mech = |s: &tumble_sim::membrane_drop::MembraneSample| s.kinetic + s.gravity_potential + s.contact.energy;
    assert!((mech(&run.samples[0]) - mech(last) - last.damping_loss).abs() < 5e-5 * e0);
}

/// Friction only removes energy (its power is never positive) and the budget with its loss
/// closes; the body leaves the membrane going up, spinning differently (the document's bounce).
#[test]
fn drop_bounces_and_friction_dissipates() {
    let run = quick(&[]).run();
    let e0 = run.samples[0].budget();
    assert!(run.samples.iter().all(|s| s.contact.friction_power <= 0.0));
    let last = run.samples.last().unwrap();
    assert!(last.friction_loss > 0.0);
    assert!(budget_drift(&run) < 5e-5 * e0);
    assert_eq!(run.contacts.len(), 1, "one bounce: {:?}", run.contacts);
    let [t0, t1] = run.contacts[0];
    assert!((1.3..1.5).contains(&t0), "first contact at {t0} s (free fall of about 10 m)");
    assert!(!last.contact.in_contact && last.velocity[2] > 1.0, "bounced: v = {:?}", last.velocity);
    assert!(t1 < 2.6);
    let w0 = run.samples[0].omega;
    let dw: f64 = (0..3).map(|i| (last.omega[i] - w0[i]).powi(2)).sum::<f64>().sqrt();
    assert!(dw > 0.05, "friction and the off-centre push change the spin: {dw} rad/s");
    // Friction is at most μ times the distributed normal loads it acts on (triangle inequality
    // over the per-normal forces; 1e-12 relative for the rounding of the sum).
    for s in &run.samples {
        let c = &s.contact;
        assert!(c.friction_force.norm() <= 0.2 * c.distributed_load * (1.0 + 1e-12), "{c:?}");
    }
    assert!(run.samples.iter().any(|s| s.contact.distributed_load > 0.0));
}

#[test]
fn bad_keys_are_named() {
    for (set, key) in [
        (vec![("membrane.k", "-1.0")], "membrane.k"),
        (vec![("membrane.c", "-1.0")], "membrane.c"),
        (vec![("membrane.points", "2")], "membrane.points"),
        (vec![("membrane.distribution", "\"lsq\"")], "membrane.distribution"),
        (vec![("membrane.radius", "7.5")], "membrane"),
        (vec![("membrane.body.mass", "0.0")], "membrane.body.mass"),
        (vec![("membrane.body.position", "[0.0, 0.0, 0.5]")], "membrane.body.position"),
        (vec![("membrane.body.spin_rpm", "0.5")], "membrane.body"),
        (vec![("simulation.integrator", "\"dopri5\"")], "simulation.integrator"),
        (
            vec![("membrane.body.shape", "{ type = \"body\", kind = \"cube\", length = 4.0 }")],
            "membrane.body.shape.kind",
        ),
    ] {
        let e = build_err(&set);
        assert!(e.contains(key), "{set:?}: {e}");
    }
}

/// The builder makes the same drop as the scenario file (the same membrane, rock, start and
/// timing), so its run is bit-identical; its refusals name the scenario's keys.
#[test]
fn the_drop_built_in_code_is_the_scenario_drop() {
    use tumble_contact::membrane::{Distribution, Membrane, MembraneFriction};
    use tumble_geometry::bodies::{BodyKind, body_mesh};
    use tumble_math::{UnitQuat, Vec3};
    let from_file = build(&[("simulation.duration", "1.6")]);
    let friction = MembraneFriction { mu: 0.2, v_star: 0.01, distribution: Distribution::Auto };
    let membrane = Membrane::regular(6, Membrane::regular_radius(6, 146.0), 30.0, 1.5, Some(friction)).expect("valid");
    let rock = body_mesh(BodyKind::PearAsteroid, 4.5, 3, true, 12).expect("rock");
    let builder = MembraneDrop::builder("membrane_drop_test")
        .membrane(membrane)
        .body(rock, 100.0)
        .pose(Vec3::new(0.0, 0.0, 12.0), UnitQuat::identity())
        .twist(Vec3::zeros(), Vec3::new(0.5, 1.0, -0.2))
        .gravity(Vec3::new(0.0, 0.0, -9.81))
        .timing(1e-3, 1.6, 0.01);
    let in_code = builder.clone().build().expect("valid drop");
    let (a, b) = (from_file.run(), in_code.run());
    assert_eq!(a.samples, b.samples);
    assert!(a.contacts.len() == 1, "the run reaches the membrane: {:?}", a.contacts);
    let key = |b: tumble_sim::membrane_drop::MembraneDropBuilder| b.build().err().map(|e| e.key);
    assert_eq!(key(builder.clone().timing(1e-3, 1.6, 0.0015)).as_deref(), Some("simulation.output_interval"));
    assert_eq!(
        key(builder.clone().pose(Vec3::new(0.0, 0.0, 1.0), UnitQuat::identity())).as_deref(),
        Some("membrane.body.position")
    );
    let flat = tumble_geometry::TriMesh { vertices: vec![Vec3::zeros(); 3], faces: vec![[0, 1, 2]] };
    assert_eq!(key(builder.body(flat, 100.0)).as_deref(), Some("membrane.body.shape"));
}

#[test]
fn a_body_past_the_rim_stops_with_the_rim_named_at_any_step() {
    // Dropped 0.33 m off centre and spinning, the 4.5 m pear bounces sideways and comes down
    // with its end past the hexagon's edge (y = −5.7 m, the apothem is 6.5 m). The hull then
    // takes in points outside the suspension polygon and its area jumps (+2 m², +66 J of
    // membrane energy in one step, whatever the step): the run stops there, naming the rim,
    // not the step, and keeps only samples from inside the model.
    for dt in ["1e-3", "5e-4"] {
        let run = build(&[
            ("membrane.body.position.0", "-0.3298881070565485"),
            ("membrane.body.angular_velocity.2", "0.07015988405924356"),
            ("simulation.dt", dt),
        ])
        .run();
        let d = run.diagnosis.clone().expect("stopped at the rim");
        assert!(d.what.contains("past the membrane's rim") && d.likely_cause.contains("membrane.area"), "{d:?}");
        assert!((2.9..3.0).contains(&d.time), "dt {dt}: at {} s", d.time);
        assert!(run.samples.iter().all(|s| s.contact.outside_rim == 0 && s.t <= d.time));
        assert!(budget_drift(&run) < 1e-3 * run.samples[0].budget().abs(), "the budget held until then");
    }
}

/// A user's wrench on the dropped body through the application interface: 981 N up holds the
/// 100 kg body against gravity, and 10 N along x pushes it, so it never reaches the membrane
/// and its centre of mass moves as `v = (F_x t / m, 0, 0)`, which RK4 integrates exactly (the
/// bound 1e-12 is rounding over 1000 steps). The budget `T + V_g + … − W` holds to rounding,
/// and the work counted is the kinetic energy of the push.
#[test]
fn a_wrench_holding_and_pushing_the_body_follows_newton_and_closes_the_budget() {
    let mut set: Vec<(String, String)> = QUICK.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    set.push(("simulation.duration".into(), "1.0".into()));
    let sc = Scenario::load(&scenario(), &set).expect("scenario loads");
    let mut run = tumble_sim::registry::start(&sc).expect("starts");
    let (m, fx) = (100.0, 10.0);
    run.set_input("wrench", &[fx, 0.0, m * 9.81, 0.0, 0.0, 0.0]).expect("a wrench");
    tumble_sim::app::run_to_end(run.as_mut(), &mut |_| {});
    assert!(matches!(run.ended(), Some(Ok(_))), "{:?}", run.ended());
    let (t, y) = (run.time(), run.y().to_vec());
    assert!((y[3] - fx * t / m).abs() <= 1e-12 * fx * t / m && y[4] == 0.0 && y[5].abs() < 1e-12, "{:?}", &y[3..6]);
    let report = run.report(None).expect("report");
    let col = |name: &str| report.table.column(name).expect(name);
    let (budget, work) = (col("budget [J]"), col("work [J]"));
    let drift = budget.iter().map(|b| (b - budget[0]).abs()).fold(0.0, f64::max);
    let pushed = 0.5 * m * y[3] * y[3];
    assert!(drift < 1e-9 * budget[0].abs(), "budget drift {drift} J of {}", budget[0]);
    assert!((work.last().expect("rows") - pushed).abs() < 1e-9 * pushed, "work {work:?}");
}

/// A step far too coarse for the impact: the guard replays the steps since its checkpoint at
/// `dt/4` and `dt/16` before naming a cause, and names the time step with the growth it
/// measured at each.
#[test]
fn a_coarse_step_is_named_by_the_replays() {
    let run = quick(&[("simulation.dt", "0.1"), ("simulation.output_interval", "0.1")]).run();
    let d = run.diagnosis.expect("100 ms trips the guard in the impact");
    println!("{d}");
    assert!(d.likely_cause.starts_with("the time step"), "{d:?}");
    assert!(d.likely_cause.contains("at dt/4") && d.likely_cause.contains("take simulation.dt ≤"), "{d:?}");
}
