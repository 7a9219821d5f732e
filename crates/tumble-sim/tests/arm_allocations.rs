//! The articulated-body step does not allocate: RK4 steps of a seven-joint arm on a free-flying
//! base (revolute joints with PD servos and limits, the base's six-degree-of-freedom joint),
//! counted by `allocation-counter`, alone and driven by the pipeline between output samples.

use std::path::Path;
use tumble_sim::Scenario;
use tumble_sim::arm::{ArmModel, ArmSim};
use tumble_sim::pipeline::Driver;

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
    let mut driver = Driver::new(sim, schedule);
    for _ in 0..10 {
        driver.step().expect("a stable step");
    }
    let info = allocation_counter::measure(|| {
        for _ in 0..999 {
            let report = driver.step().expect("a stable step");
            assert!(!report.sampled && report.stop.is_none());
        }
    });
    assert_eq!(info.count_total, 0, "{} allocations in 999 driven steps", info.count_total);
}
