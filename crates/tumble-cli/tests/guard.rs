//! The pipeline's blow-up guard as a user meets it: a run driven past its stable step, whatever
//! its application, exits 1 with a diagnosis on stderr and leaves only finite values of sane
//! magnitude in its outputs (the samples before the guard tripped); the diagnosis names the cause
//! its replays or reruns measured.

use std::path::{Path, PathBuf};
use std::process::Command;

use tumble_sim::pipeline::ABSURD;

fn scenario(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(rel).display().to_string()
}

/// Runs `tumble run SCENARIO --out DIR ARGS…`, asserts exit 1 with a diagnosis naming `cause`,
/// and checks every number of every CSV and of `summary.json` it wrote.
fn blows_up(name: &str, rel: &str, sets: &[&str], cause: &str) {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("guard").join(name);
    let _ = std::fs::remove_dir_all(&out);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tumble"));
    cmd.args(["run", &scenario(rel), "--out", &out.display().to_string()]);
    for s in sets {
        cmd.args(["--set", s]);
    }
    let o = cmd.output().expect("tumble runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{name}: {err}");
    assert!(err.contains("simulation failed") && err.contains("Likely cause") && err.contains(cause), "{name}: {err}");
    let files = csv_files(&out);
    assert!(!files.is_empty(), "{name}: no CSV written");
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable CSV");
        for (i, line) in text.lines().enumerate().skip(1).filter(|(_, l)| !l.starts_with('#')) {
            for cell in line.split(',').filter(|c| !c.is_empty()) {
                if let Ok(x) = cell.parse::<f64>() {
                    assert!(x.is_finite() && x.abs() <= ABSURD, "{name}: {}:{}: {x}", f.display(), i + 1);
                }
            }
        }
    }
    let summary = std::fs::read_to_string(out.join("summary.json")).expect("summary written");
    let v: serde_json::Value = serde_json::from_str(&summary).expect("summary is JSON");
    numbers(&v, &mut |x| assert!(x.abs() <= ABSURD, "{name}: summary holds {x}"));
}

fn csv_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = vec![];
    for e in std::fs::read_dir(dir).expect("output folder").flatten() {
        let p = e.path();
        if p.is_dir() {
            found.extend(csv_files(&p));
        } else if p.extension().is_some_and(|x| x == "csv") {
            found.push(p);
        }
    }
    found
}

fn numbers(v: &serde_json::Value, f: &mut dyn FnMut(f64)) {
    match v {
        serde_json::Value::Number(n) => f(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::Array(a) => a.iter().for_each(|x| numbers(x, f)),
        serde_json::Value::Object(o) => o.values().for_each(|x| numbers(x, f)),
        _ => {}
    }
}

/// A hopper spun at 1,118 rad/s. Free flight once took steps of up to 100 dt (0.5 s), in which
/// RK4 turned the body 56 rad at 112 rad/s and the state diverged to ~1e30 in one step (before
/// the guard that run exited 0 as "escaped" with 8e180 J of damper work); flight steps now
/// follow the spin, and since the attitude is taken from the normalised quaternion at every RK4
/// stage the step of dt itself (0.56 rad) holds at 112 rad/s too. At 1,118 rad/s one step of
/// dt turns the body 5.6 rad, past RK4's stability: the first step adds 1.1e3 J, the guard's
/// replay at dt/4 adds −4 J, and it names the step.
#[test]
fn a_hopper_spun_past_its_step_stops_with_the_step_named() {
    blows_up(
        "hopper",
        "lander/hopper_comet.toml",
        &["lander.angular_velocity=[0.0,500.0,1000.0]"],
        "the time step: the error shrinks",
    );
}

/// A lander stepped at 0.2 s on a contact whose stable step is ~ms.
#[test]
fn a_lander_past_its_stable_contact_step_stops() {
    blows_up(
        "lander",
        "lander/cube_phobos.toml",
        &["simulation.dt=0.2", "simulation.output_interval=0.2"],
        "the time step: the error shrinks",
    );
}

/// A spinning handle integrated with RK4 at 0.5 s (its rotation time scale is 0.16 s).
#[test]
fn rigid_bodies_past_their_stable_step_stop() {
    blows_up(
        "rigid",
        "basics/dzhanibekov.toml",
        &["simulation.dt=0.5", "simulation.output_interval=0.5"],
        "simulation.dt",
    );
}

/// The membrane drop at 0.05 s (bundled: 1 ms): the budget `T + V_g + ½k(A − A₀)² + D_c + D_f`
/// grows by 272 J against a limit of 143 J in the contact.
#[test]
fn a_membrane_drop_past_its_stable_step_stops() {
    blows_up(
        "membrane",
        "membrane/drop_test.toml",
        &["simulation.dt=0.05", "simulation.output_interval=0.05"],
        "simulation.dt",
    );
}

/// Interference-engine mechanisms past their stable step: the tripod at 0.02 s (bundled: 1e-4 s)
/// and the peg at 1 ms (bundled: 5e-5 s), which before the guard finished "completed" with the
/// peg at 14.5 km/s and 1.4e23 J.
#[test]
fn mechanisms_past_their_stable_step_stop() {
    blows_up(
        "tripod",
        "contact/tripod.toml",
        &["simulation.dt=0.02", "simulation.output_interval=0.02"],
        "the time step, measured: rerun at dt/4 = 5.000e-3 s",
    );
    blows_up(
        "peg",
        "contact/peg_in_hole.toml",
        &["simulation.dt=0.001", "simulation.output_interval=0.005"],
        "the time step, measured: rerun at dt/4 = 2.500e-4 s",
    );
}

/// A mechanism carried by an arm (the grapple fixture entering the open snare) at 0.1 s
/// (bundled: 0.5 ms): in the first contact `E − W − E₀`, the arm's energy included, grows by
/// 2.5e-2 J against a limit of 8.8e-4 J (1 % of the scale) at t = 2.3 s. (The wire's contact,
/// 2e4 N/m on 50 kg, and the motors' damping, 9000 N·m·s/rad on 200 kg·m², allow about 0.06 s.)
#[test]
fn a_mechanism_on_an_arm_past_its_stable_step_stops() {
    blows_up(
        "grapple_snare",
        "contact/grapple_snare.toml",
        &["simulation.dt=0.1", "simulation.output_interval=0.1"],
        "the time step, measured: rerun at dt/4 = 2.500e-2 s",
    );
}

/// The asteroid capture at 2 s (bundled: the document's 0.1 s): the budget moves by 85 % of the
/// energy in play in the first contact.
#[test]
fn an_asteroid_capture_past_its_stable_step_stops() {
    blows_up(
        "asteroid_capture",
        "membrane/asteroid_capture.toml",
        &["simulation.dt=2.0", "simulation.output_interval=2.0"],
        "the time step, measured: rerun at dt/4 = 5.000e-1 s",
    );
}

/// A double pendulum at 0.5 s (bundled: 1 ms): its energy has grown a hundredfold by the second
/// step (it would reach 3e80 rad within four).
#[test]
fn an_arm_past_its_stable_step_stops() {
    blows_up(
        "arm",
        "arms/double_pendulum.toml",
        &["simulation.dt=0.5", "simulation.output_interval=0.5"],
        "the time step, measured: rerun at dt/4 = 1.250e-1 s",
    );
}

/// The flexible JEMRMS joint at 0.8 s (bundled: 0.5 ms): its stiff band rings at 5.1 rad/s, so
/// `ω dt` = 4.1, past RK4's 2.8; the energy grows a hundredfold in the first step and the check
/// stops it there.
#[test]
fn a_flexible_joint_that_gains_energy_stops() {
    blows_up(
        "jemrms_flexible_joint",
        "arms/jemrms_flexible_joint.toml",
        &["simulation.dt=0.8", "simulation.output_interval=0.8"],
        "the time step, measured: rerun at dt/4 = 2.000e-1 s",
    );
}

/// The arm capturing a payload with its snare at 50 ms (bundled: 1 ms): the flexible joints
/// diverge to 7e49 after the capture.
#[test]
fn a_snare_capture_past_its_stable_step_stops() {
    blows_up(
        "jemrms_snare",
        "snare/jemrms_snare.toml",
        &["simulation.dt=0.05", "simulation.output_interval=0.05"],
        "the time step, measured: rerun at dt/4 = 1.250e-2 s",
    );
}

/// A uniform gravity of 9.2e18 m/s² (an adversary's `--set`): within 0.1 s the cube moves at
/// 9e17 m/s, a state still below ABSURD whose kinetic energy (4e36 J) is not; it exited 0 with
/// those values written. The guard stops a body faster than light, and its replays down to
/// dt/256 pass light speed too, so it names the input, not the step, with the acceleration.
#[test]
fn a_lander_driven_past_the_speed_of_light_stops() {
    blows_up(
        "faster_than_light",
        "lander/cube_phobos.toml",
        &["gravity.g.0=-9223372036854775808", "simulation.duration=1.0"],
        "not the time step: the same",
    );
}
