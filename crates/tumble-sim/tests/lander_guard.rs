//! The lander's guard and figures off the bundled path (docs/lander.md, "Energy budget"): the
//! limit never falls below the rounding of the budget's own terms, free-flight steps follow a
//! tumbling body's spin, a trip names the cause its replays measured, a start inside the surface
//! is named, no output holds a figure the guard refused, and a run that ends in flight has no
//! landing site.

use std::path::Path;
use tumble_sim::Scenario;
use tumble_sim::lander::output::summary;
use tumble_sim::lander::{LanderModel, LanderOutcome, LanderRun, simulate};

fn model(over: &[(&str, &str)]) -> LanderModel {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/lander/cube_67p.toml");
    let over: Vec<(String, String)> = over.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let sc = Scenario::load(&file, &over).expect("scenario");
    LanderModel::build(&sc).expect("model")
}

fn run(m: &mut LanderModel) -> LanderRun {
    simulate(&mut m.system, m.initial_state, &m.settings, &mut |_| {})
}

#[test]
fn a_long_fall_never_trips_on_rounding() {
    // A cube falling 400 m in uniform gravity for a million steps of 2 ms: RK4 integrates the
    // parabola exactly, so only rounding moves the budget (3.2e-12 J over the first 5e5 steps,
    // of a 2 J potential). With the growth allowed set to nothing the limit is the rounding
    // floor alone, which the run stays under; with a floor of 8 ε √k of the terms' size it
    // tripped at 1008 s, with none at the first step (4.4e-16 J).
    let mut m = model(&[
        ("lander.position", "[0, 0, 1000]"),
        ("lander.velocity", "[0.3, 0.1, 0]"),
        ("lander.angular_velocity", "[0.1, 0.2, 0.3]"),
        ("simulation.max_energy_growth", "1e-300"),
        ("simulation.duration", "2000"),
        ("simulation.flight_steps", "1"),
        ("simulation.output_interval", "1"),
    ]);
    let r = run(&mut m);
    assert_eq!(r.outcome, LanderOutcome::Completed);
    assert!(r.max_balance_error > 0.0 && r.max_balance_error < 1e-9, "{}", r.max_balance_error);
}

#[test]
fn free_flight_steps_follow_a_tumbling_body() {
    // A 0.4 × 0.2 × 0.1 m box tumbling at 2.3 rad/s, 1 km above the plane for 2000 s, with
    // flight steps of up to 100 dt = 0.5 s (1.1 rad a step). Bounded to 0.1 rad a step its
    // budget drifts 5.5e-6 J an hour (5.5e-5 of its 0.1 J of spin); at 0.2 rad it drifts 1.9e-4
    // J/h, unbounded 0.92 J/h and the guard trips. The bound checked: 2e-4 of the spin energy.
    let mut m = model(&[
        ("lander.position", "[0, 0, 1000]"),
        ("lander.velocity", "[0, 0, 0]"),
        ("lander.angular_velocity", "[2, 1, 0.5]"),
        ("lander.shape.size", "[0.4, 0.2, 0.1]"),
        ("lander.vertices.size", "[0.4, 0.2, 0.1]"),
        ("simulation.flight_steps", "100"),
        ("simulation.dt", "0.005"),
        ("simulation.duration", "2000"),
        ("simulation.output_interval", "1"),
    ]);
    let r = run(&mut m);
    assert_eq!(r.outcome, LanderOutcome::Completed);
    let spin = r.rows[0][17];
    let per_hour = r.flight_error / r.flight_time * 3600.0;
    assert!((r.flight_time - 2000.0).abs() < 1e-6, "{}", r.flight_time);
    assert!(per_hour.abs() < 2e-4 * spin, "{per_hour} J/h against {spin} J of spin");
    // It ended in flight: no landing site, its clearance given instead.
    let s = summary(&m, &r);
    assert_eq!(s["on_surface"], false);
    assert!(s["final_clearance_m"].as_f64().expect("clearance") > 500.0, "{s}");
    assert!(s["energy"]["flight_error_J_per_hour"].as_f64().is_some());
}

#[test]
fn a_trip_names_the_cause_its_replays_measured() {
    // The thrown cube at the bundled dt with the growth allowed cut to 1e-6: the replays of
    // the steps before the trip at dt/4 shrink the error (≈ 20×), so the step is named.
    let mut m = model(&[("simulation.max_energy_growth", "1e-6")]);
    let r = run(&mut m);
    let LanderOutcome::Failed(d) = &r.outcome else { panic!("{:?}", r.outcome) };
    assert!(d.what.contains("replayed with steps of dt"), "{d}");
    assert!(d.likely_cause.starts_with("the time step: the error shrinks from"), "{d}");
    // No output holds the refused step's figures.
    let limit = d.what.split("limit ").nth(1).and_then(|s| s.split(' ').next()).expect("limit");
    let limit: f64 = limit.parse().expect("a number");
    assert!(r.max_balance_error <= limit, "{} > {limit}", r.max_balance_error);
    assert!(r.rows.iter().all(|row| row[23].abs() <= limit));
}

#[test]
fn a_start_inside_the_surface_is_named_and_a_blow_up_leaves_no_absurd_figure() {
    // Started 5 cm into the plane with a step 80× the stable one: the warning names the
    // overlap; the run stops at its first step and its summary holds only figures the guard
    // passed (the blown step's 1e36 J is in the diagnosis, not in max_balance_error_J).
    let mut m = model(&[
        ("lander.position", "[0, 0, 0.1]"),
        ("lander.velocity", "[0, 0, 0]"),
        ("lander.angular_velocity", "[0, 0, 0]"),
        ("lander.orientation", "[1, 0, 0, 0]"),
        ("lander.contact.stiffness", "2e8"),
        ("simulation.dt", "0.01"),
    ]);
    assert!(
        m.warnings.iter().any(|w| w.contains("4 vertices inside the surface") && w.contains("5.000e-2 m")),
        "{:?}",
        m.warnings
    );
    let r = run(&mut m);
    let LanderOutcome::Failed(d) = &r.outcome else { panic!("{:?}", r.outcome) };
    let s = summary(&m, &r);
    let e = s["energy"]["max_balance_error_J"].as_f64().expect("finite");
    let p = s["max_penetration_m"].as_f64().expect("finite");
    assert!(e < 1.0 && p < 0.06, "{e} J, {p} m: {d}");
}
