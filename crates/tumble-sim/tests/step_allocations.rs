//! No application allocates in its steady-state step: each bundled scenario's simulation,
//! driven by the pipeline's `Driver` between two output samples (guard, events and energy
//! check included), counted by `allocation-counter`. The lander and the arm have their own
//! tests (`lander_allocations.rs`, `arm_allocations.rs`).

use std::path::Path;
use tumble_sim::Scenario;
use tumble_sim::pipeline::{Driver, Schedule, Simulation};

/// The bundled scenario `rel` with its samples only at the start and the end.
fn scenario(rel: &str, set: &[(&str, &str)]) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(rel);
    let set: Vec<(String, String)> = set.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Scenario::load(&path, &set).expect("scenario")
}

/// Steps `warm` times, then counts the allocations of `n` steps, none of which samples or stops.
fn count<S: Simulation>(name: &str, sim: S, schedule: Schedule, warm: usize, n: usize) {
    count_with(name, sim, schedule, warm, n, false);
}

/// [`count`]; with `sampling`, the steps may record samples (into memory reserved up front).
fn count_with<S: Simulation>(name: &str, sim: S, schedule: Schedule, warm: usize, n: usize, sampling: bool) {
    let mut driver = Driver::new(sim, schedule);
    for _ in 0..warm {
        driver.step().expect("a stable step");
    }
    let info = allocation_counter::measure(|| {
        for _ in 0..n {
            let report = driver.step().expect("a stable step");
            assert!(sampling || !report.sampled, "{name}: a sample inside the count");
            assert!(report.stop.is_none(), "{name}: a stop inside the count");
        }
    });
    assert_eq!(info.count_total, 0, "{name}: {} allocations in {n} driven steps", info.count_total);
}

#[test]
fn the_membrane_drop_step_does_not_allocate() {
    // From the first contact (1.4 s) on: the membrane's contact pass at work.
    let m = tumble_sim::membrane::MembraneDrop::build(&scenario(
        "membrane/drop_test.toml",
        &[("simulation.output_interval", "3.0")],
    ))
    .expect("drop");
    let sim = tumble_sim::membrane::MembraneSim::new(&m);
    let schedule = sim.schedule();
    count("membrane drop", sim, schedule, 1500, 500);
}

#[test]
fn the_mechanism_step_does_not_allocate() {
    let m = tumble_sim::mechanism::Mechanism::build(&scenario(
        "contact/tripod.toml",
        &[("simulation.output_interval", "1.5")],
    ))
    .expect("tripod");
    let sim = tumble_sim::mechanism::MechanismSim::new(&m).expect("sim");
    let schedule = sim.schedule();
    count("tripod", sim, schedule, 2000, 500);
}

#[test]
fn the_mechanism_on_an_arm_step_does_not_allocate() {
    let m = tumble_sim::mechanism::Mechanism::build(&scenario(
        "contact/grapple_snare.toml",
        &[("simulation.output_interval", "8.0")],
    ))
    .expect("grapple on the engine");
    let sim = tumble_sim::mechanism::MechanismSim::new(&m).expect("sim");
    let schedule = sim.schedule();
    count("grapple_snare", sim, schedule, 200, 300);
}

#[test]
fn the_asteroid_capture_step_does_not_allocate() {
    let m = tumble_sim::membrane_capture::AsteroidCapture::build(&scenario(
        "membrane/asteroid_capture.toml",
        &[("simulation.output_interval", "300.0")],
    ))
    .expect("capture");
    let sim = tumble_sim::membrane_capture::AsteroidCaptureSim::new(&m);
    let schedule = sim.schedule();
    count("asteroid capture", sim, schedule, 200, 200);
}

#[test]
fn the_grapple_step_does_not_allocate() {
    let cap = tumble_sim::grapple::GrappleCapture::build(&scenario(
        "snare/jemrms_snare.toml",
        &[("simulation.output_interval", "8.0")],
    ))
    .expect("grapple");
    let mut on_step = |_: f64, _: &[f64]| {};
    let sim = tumble_sim::grapple::GrappleSim::new(&cap, &mut on_step);
    let schedule = sim.schedule();
    count("jemrms snare", sim, schedule, 3000, 500);
}

#[test]
fn the_snare_wire_step_does_not_allocate() {
    let exp = tumble_sim::snare::WireExperiment::build(&scenario("snare/floating_target.toml", &[])).expect("snare");
    let sim = tumble_sim::snare::WireSim::new(&exp).expect("sim");
    let schedule = sim.schedule();
    // The experiment records every step, into samples reserved for the whole run.
    count_with("snare wire", sim, schedule, 1000, 500, true);
}

#[test]
fn the_rigid_body_step_does_not_allocate() {
    let mut model =
        tumble_sim::Model::build(&scenario("basics/dzhanibekov.toml", &[("simulation.output_interval", "20.0")]))
            .expect("model");
    let sim = tumble_sim::RigidSim::new(&mut model);
    let schedule = sim.schedule();
    count("dzhanibekov", sim, schedule, 100, 500);
}
