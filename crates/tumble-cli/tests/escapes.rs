//! Untrusted input at the command line: output folders that would leave the output area or
//! mix with an earlier run, devices given as input files, and a closed standard output.

use std::path::Path;
use std::process::{Command, Stdio};

mod common;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

#[test]
fn a_file_system_root_is_refused_as_an_output_folder() {
    let scenario = common::scenario("basics/dzhanibekov.toml");
    for args in [
        vec!["run", scenario.as_str(), "--out", "/", "--set", "simulation.duration=0.1"],
        vec!["mc", scenario.as_str(), "--runs", "1", "--out", "/"],
    ] {
        let o = common::tumble(&args);
        let err = stderr(&o);
        assert!(!o.status.success(), "{args:?}: {err}");
        assert!(err.contains("a file system's root cannot be an output folder"), "{args:?}: {err}");
    }
    assert!(!Path::new("/summary.json").exists() && !Path::new("/runs.csv").exists());
}

#[test]
fn a_run_into_a_used_folder_keeps_no_plot_of_the_earlier_run() {
    let out = common::tmp("escapes_stale");
    std::fs::create_dir_all(out.join("plots")).expect("dir");
    for f in ["plots/earlier_run.png", "plots/earlier_run.svg", "plots/notes.txt"] {
        std::fs::write(out.join(f), "x").expect("write");
    }
    let o = common::tumble(&[
        "run",
        &common::scenario("basics/dzhanibekov.toml"),
        "--out",
        &out.display().to_string(),
        "--set",
        "simulation.duration=1.0",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!out.join("plots/earlier_run.png").exists() && !out.join("plots/earlier_run.svg").exists());
    assert!(out.join("plots/notes.txt").exists(), "only plots are removed");
    assert!(std::fs::read_dir(out.join("plots")).expect("plots").count() > 1, "this run's plots are there");
}

#[test]
fn a_device_is_refused_as_a_scenario_mesh_or_sdf_file() {
    let o = common::tumble(&["check", "/dev/zero"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("/dev/zero") && err.contains("not a regular file"), "{err}");
    // A mesh and an SDF file named by their extension, linked to endless devices.
    let dir = common::tmp("escapes_devices");
    for (link, device) in [("zero.obj", "/dev/zero"), ("random.sdf", "/dev/urandom")] {
        std::os::unix::fs::symlink(device, dir.join(link)).expect("symlink");
    }
    let mesh = dir.join("zero.obj").display().to_string();
    let sdf = dir.join("random.sdf").display().to_string();
    let points = dir.join("points.csv");
    std::fs::write(&points, "0,0,0\n").expect("points");
    let out = dir.join("q.csv").display().to_string();
    for args in [
        vec!["mesh", "info", mesh.as_str(), "--unit", "m"],
        vec!["sdf", "query", sdf.as_str(), "--points", &points.display().to_string(), "--out", &out],
    ] {
        let o = common::tumble(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
    }
    let o = common::tumble(&[
        "check",
        &common::scenario("lander/lander_on_mesh.toml"),
        "--set",
        &format!("target.shape.path=\"{mesh}\""),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("zero.obj") && err.contains("not a regular file"), "{err}");
}

#[test]
fn a_closed_standard_output_ends_the_command_quietly() {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader); // every write to the pipe now fails with EPIPE
    let o = Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(["check", &common::scenario("basics/dzhanibekov.toml")])
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("tumble runs");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_thread_count_past_the_bound_is_refused_at_once() {
    let started = std::time::Instant::now();
    let o = common::tumble(&["mc", &common::scenario("lander/cube_phobos.toml"), "--runs", "1", "--threads", "20000"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("threads must be between 1 and 1024"), "{err}");
    // Refused before any thread starts (starting 20,000 took minutes).
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}
