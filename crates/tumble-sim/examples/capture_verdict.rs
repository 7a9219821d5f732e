//! The capture document's online check for one capture, from code: a 1500 kg chaser with a
//! six-joint arm and a 500 kg target tumbling at 3°/s (the bundled capture-map scenario, built
//! here without its file), the detumble controller and its funnel built once, then the verdict
//! `V₀(predicted) < ρ₀` on pre-capture states chosen here — the nominal one, and the same target
//! tumbling four times faster — each proved right or wrong by detumbling it. The nominal capture
//! must be judged safe and detumble; the fast one must be judged unsafe (the verdict is
//! conservative — the funnel's inlet is the largest ellipsoid free of sampled failures — and
//! this capture still detumbles, as 448 of the 1000 checks judged unsafe in docs/capture.md do).
//!
//! ```text
//! cargo run -p tumble-sim --example capture_verdict
//! ```

use tumble_dynamics::multibody::{Joint, Link, Multibody};
use tumble_math::nalgebra::DVector;
use tumble_math::{Mat3, Vec3};
use tumble_sim::capture_map::CaptureStudy;
use tumble_sim::scenario::capture::{CaptureControlSpec, RoaSpec};

/// The chaser: a free-floating bus and a six-joint arm (SI units, link frames at the joints).
fn chaser() -> Result<Multibody, String> {
    let diag = |a: f64, b: f64, c: f64| Mat3::from_diagonal(&Vec3::new(a, b, c));
    let mut links = vec![Link {
        name: "bus".into(),
        parent: None,
        joint: Joint::Free,
        parent_to_joint: (Mat3::identity(), Vec3::zeros()),
        mass: 1500.0,
        com: Vec3::zeros(),
        inertia: diag(1200.0, 1500.0, 1300.0),
    }];
    // name, joint axis, joint origin in the parent frame (m), mass (kg), centre of mass along
    // x (m), principal inertia (kg·m²); each link hangs from the one before.
    let arm = [
        ("shoulder_yaw", Vec3::z(), Vec3::new(1.0, 0.0, 0.5), 20.0, 0.1, diag(0.2, 0.3, 0.3)),
        ("shoulder_pitch", Vec3::y(), Vec3::new(0.2, 0.0, 0.0), 15.0, 0.1, diag(0.15, 0.2, 0.2)),
        ("upper_arm", Vec3::x(), Vec3::new(0.2, 0.0, 0.0), 40.0, 0.7, diag(0.3, 6.5, 6.5)),
        ("elbow", Vec3::y(), Vec3::new(1.4, 0.0, 0.0), 35.0, 0.7, diag(0.25, 4.2, 4.2)),
        ("wrist_pitch", Vec3::y(), Vec3::new(1.4, 0.0, 0.0), 8.0, 0.1, diag(0.05, 0.06, 0.06)),
        ("wrist_roll", Vec3::x(), Vec3::new(0.2, 0.0, 0.0), 6.0, 0.15, diag(0.04, 0.05, 0.05)),
    ];
    for (i, (name, axis, origin, mass, com, inertia)) in arm.into_iter().enumerate() {
        links.push(Link {
            name: name.into(),
            parent: Some(i),
            joint: Joint::Revolute(axis),
            parent_to_joint: (Mat3::identity(), origin),
            mass,
            com: Vec3::new(com, 0.0, 0.0),
            inertia,
        });
    }
    Multibody::new(links, Vec3::zeros()).map_err(|e| e.to_string())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The capture configuration: the bus at the origin, the arm reaching out; the grasp 0.3 m
    // out of the wrist; the target's fixture 1 m from its centre of mass.
    let q = vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.3, -0.5, 0.2, 1.2, 0.6, 0.1];
    let control = CaptureControlSpec {
        angle_scale: 0.2,   // rad: Bryson weights Q = 1/scale², R = 1/limit²
        rate_scale: 0.05,   // rad/s
        speed_scale: 0.05,  // m/s
        base_torque: 10.0,  // N·m per axis
        base_force: 20.0,   // N per axis
        joint_torque: 20.0, // N·m
        joint_range: 0.5,   // rad
        goal_rate: 0.002,   // rad/s: detumbled
        goal_speed: 0.005,  // m/s
    };
    // 100 sampled captures estimate the funnel (the bundled scenario takes 300).
    let roa = RoaSpec { samples: 100, verify: 0, angular_velocity_sd: 0.06, velocity_sd: 0.04, ..RoaSpec::default() };
    let study = CaptureStudy::builder("capture_tumbling_500kg", chaser()?)
        .seed(1)
        .chaser_state(q, vec![0.0; 12])
        .grasp("wrist_roll", Vec3::new(0.3, 0.0, 0.0))
        .target(500.0, Mat3::from_diagonal(&Vec3::new(300.0, 400.0, 350.0)), Vec3::new(-1.0, 0.0, 0.0))
        .target_twist(Vec3::new(0.01, -0.01, 0.005), Vec3::new(0.02, 0.04, -0.03))
        .control(control)
        .horizon(120.0, 0.05)
        .roa(roa)
        .build()?;
    let controller = study.controller(2)?;
    println!(
        "funnel inlet rho0 = {:.4e} from {} sampled captures",
        controller.funnel.rho0,
        controller.estimation.len()
    );

    // Pre-capture states: the chaser's velocities as built; the target's `[v_G; ω]` (m/s,
    // rad/s, world axes) at its nominal tumble and four times faster.
    let v_c = study.v_c.clone();
    let nominal = study.v_t.clone();
    let mut fast = nominal.clone();
    fast.rows_mut(3, 3).scale_mut(4.0);
    let mut verdicts = Vec::new();
    for (name, v_t) in [("nominal tumble", &nominal), ("tumble x4", &fast)] {
        // No impulse measured here: the verdict is predicted from the true one.
        let v = study.verdict(&controller, &v_c, v_t, None::<&DVector<f64>>)?;
        println!(
            "{name}: |ω| = {:.4} rad/s, V0 = {:.4e}, margin V0/rho0 = {:.3e}: predicted {}; the detumble {} (final rate {:.2e} rad/s)",
            v_t.rows(3, 3).norm(),
            v.v0_predicted,
            v.v0_predicted / v.rho0,
            if v.safe { "safe" } else { "unsafe" },
            if v.rollout.success { "succeeds" } else { "fails" },
            v.rollout.final_rate
        );
        verdicts.push(v);
    }
    if !(verdicts[0].safe && verdicts[0].rollout.success) {
        return Err("the nominal capture should be judged safe and detumble".into());
    }
    if verdicts[1].safe {
        return Err("a tumble four times faster should be judged unsafe".into());
    }
    Ok(())
}
