//! No application allocates in its steady-state step: each bundled scenario's simulation,
//! driven by the pipeline's `Driver` between two output samples (guard, events and energy
//! check included), and the articulated-body step of a seven-joint free-flying arm (revolute
//! joints with PD servos and limits, the base's six-degree-of-freedom joint), alone and driven,
//! counted by `allocation-counter`. The lander has its own (`lander_allocations.rs`).

use std::path::Path;
use tumble_sim::Scenario;
use tumble_sim::arm::{ArmModel, ArmSim};
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
    let m = tumble_sim::membrane_drop::MembraneDrop::build(&scenario(
        "membrane/drop_test.toml",
        &[("simulation.output_interval", "3.0")],
    ))
    .expect("drop");
    let sim = tumble_sim::membrane_drop::MembraneSim::new(&m);
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
fn the_berthing_step_does_not_allocate() {
    // The CBM from 1 cm/s: its indicators trip at 13.5 s, the hooks meet their fittings and
    // pull; counted from 19 s to 19.5 s, the latches driving and pulling (the berthing's
    // sequence, indicators and feature loads looked at every step). On one thread: with two,
    // the engine's parallel walk (over 64 candidates here) allocates rayon's jobs, 39–41 in
    // these 500 steps.
    let m = tumble_sim::mechanism::Mechanism::build(&scenario(
        "contact/cbm_berthing.toml",
        &[("simulation.output_interval", "50.0"), ("mechanism.bodies.1.velocity.2", "-0.01")],
    ))
    .expect("cbm");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
    pool.install(|| {
        let sim = tumble_sim::mechanism::MechanismSim::new(&m).expect("sim");
        let schedule = sim.schedule();
        count("cbm", sim, schedule, 19_000, 500);
    });
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
    let m = tumble_sim::membrane_capture::MembraneCapture::build(&scenario(
        "membrane/asteroid_capture.toml",
        &[("simulation.output_interval", "300.0")],
    ))
    .expect("capture");
    let sim = tumble_sim::membrane_capture::MembraneCaptureSim::new(&m);
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
    let sim = tumble_sim::grapple::GrappleSim::new(std::sync::Arc::new(cap));
    let schedule = sim.schedule();
    count("jemrms snare", sim, schedule, 3000, 500);
}

#[test]
fn the_snare_wire_step_does_not_allocate() {
    let exp = tumble_sim::snare::WireExperiment::build(&scenario("snare/floating_target.toml", &[])).expect("snare");
    let sim = tumble_sim::snare::WireSim::new(exp).expect("sim");
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

/// A seven-joint arm (alternating pitch and roll joints, 0.4 m links) on a 500 kg free base,
/// every joint servoed towards a pose away from its start.
fn arm_scenario() -> String {
    let mut text = String::from(
        r#"name = "seven_joints"
kind = "arm"
[simulation]
duration = 20.0
dt = 0.002
output_interval = 20.0
[arm]
base = "free"
[[arm.links]]
name = "bus"
joint = "free"
mass = 500.0
com = [0.0, 0.0, 0.0]
inertia = [300.0, 300.0, 300.0]
"#,
    );
    for j in 0..7 {
        let parent = if j == 0 { "parent = \"bus\"\n".to_string() } else { format!("parent = \"l{}\"\n", j - 1) };
        let axis = if j % 2 == 0 { "[0.0, 1.0, 0.0]" } else { "[1.0, 0.0, 0.0]" };
        text += &format!(
            "[[arm.links]]\nname = \"l{j}\"\n{parent}joint = \"revolute\"\naxis = {axis}\norigin = [0.4, 0.0, 0.0]\nmass = 10.0\ncom = [0.2, 0.0, 0.0]\ninertia = [0.1, 0.15, 0.15]\n"
        );
    }
    for j in 0..7 {
        text += &format!(
            "[[arm.joints]]\nname = \"l{j}\"\npd = [50.0, 5.0]\ntarget = 0.3\nlimits = [-2.0, 2.0, 1000.0, 10.0]\n"
        );
    }
    text
}

fn arm() -> ArmModel {
    let sc = Scenario::from_text(Path::new("seven_joints.toml"), arm_scenario(), &[]).expect("scenario");
    ArmModel::build(&sc).expect("arm")
}

#[test]
fn the_arm_step_does_not_allocate() {
    let mut model = arm();
    assert_eq!(model.system.model.nv(), 6 + 7);
    let mut y = model.initial_state.clone();
    let mut integ = tumble_dynamics::Integrator::new(model.method, y.len());
    integ.step_once(&mut model.system, 0.0, &mut y, 0.002);
    // The counter sees allocations (so the assertion below can fail).
    assert!(allocation_counter::measure(|| drop(std::hint::black_box(vec![0u8; 64]))).count_total >= 1);
    let info = allocation_counter::measure(|| {
        for k in 1..1000 {
            integ.step_once(&mut model.system, k as f64 * 0.002, &mut y, 0.002);
        }
    });
    assert_eq!(info.count_total, 0, "{} allocations in 999 steps", info.count_total);
    assert!(y.iter().all(|x| x.is_finite()));
}

#[test]
fn the_driven_arm_step_does_not_allocate() {
    let mut model = arm();
    let sim = ArmSim::new(&mut model);
    let schedule = sim.schedule();
    count("seven-joint arm", sim, schedule, 10, 999);
}
