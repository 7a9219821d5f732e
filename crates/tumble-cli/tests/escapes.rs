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
        assert!(err.contains("symbolic link"), "{args:?}: {err}");
    }
    let o = common::tumble(&[
        "check",
        &common::scenario("lander/lander_on_mesh.toml"),
        "--set",
        &format!("target.shape.path=\"{mesh}\""),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("zero.obj") && err.contains("symbolic link"), "{err}");
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

#[test]
fn a_closed_standard_error_loses_messages_not_the_exit_status() {
    let scenario = common::scenario("basics/dzhanibekov.toml");
    let out = common::tmp("escapes_stderr").display().to_string();
    for (args, code) in [
        (vec!["check", "/nonexistent/scenario.toml"], 2),
        (vec!["check", scenario.as_str(), "--set", "simulation.dt=-1"], 2),
        (vec!["run", scenario.as_str(), "--out", &out, "--set", "simulation.duration=0.1"], 0),
    ] {
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader); // every write to standard error now fails with EPIPE
        let o = Command::new(env!("CARGO_BIN_EXE_tumble"))
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::from(writer))
            .status()
            .expect("tumble runs");
        assert_eq!(o.code(), Some(code), "{args:?}");
    }
}

#[cfg(unix)]
#[test]
fn an_output_folder_is_resolved_before_it_is_checked_and_its_links_are_not_followed() {
    use std::os::unix::fs::symlink;
    let scenario = common::scenario("basics/dzhanibekov.toml");
    let base = common::tmp("escapes_links");
    // A path that does not exist yet and resolves to the root: refused, nothing created.
    let up = format!("{}/X{}", base.display(), "/..".repeat(64));
    let o = common::tumble(&["run", &scenario, "--out", &up, "--set", "simulation.duration=0.1", "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("root"), "{}", stderr(&o));
    assert!(!base.join("X").exists() && !Path::new("/summary.json").exists());
    // Links planted under the names of outputs: replaced by the run's files, their targets kept.
    let victim = base.join("victim.txt");
    std::fs::write(&victim, "keep").expect("victim");
    let out = base.join("out");
    std::fs::create_dir_all(&out).expect("out");
    symlink(&victim, out.join("summary.json")).expect("link");
    symlink(base.join("dangling"), out.join("animation.glb")).expect("dangling");
    std::fs::hard_link(&victim, out.join("timeseries.csv")).expect("hard link");
    let run = |out: &Path| {
        common::tumble(&[
            "run",
            &scenario,
            "--out",
            &out.display().to_string(),
            "--set",
            "simulation.duration=0.1",
            "-q",
        ])
    };
    let o = run(&out);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "keep");
    assert!(!base.join("dangling").exists());
    for f in ["summary.json", "animation.glb", "timeseries.csv"] {
        assert!(std::fs::symlink_metadata(out.join(f)).expect(f).is_file(), "{f}");
    }
    // A `plots` link to another folder: refused, the other folder's plots kept.
    let other = base.join("other");
    std::fs::create_dir_all(&other).expect("other");
    std::fs::write(other.join("figure.png"), "x").expect("png");
    let out2 = base.join("out2");
    std::fs::create_dir_all(&out2).expect("out2");
    symlink(&other, out2.join("plots")).expect("link");
    let o = run(&out2);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("plots") && stderr(&o).contains("symbolic link"), "{}", stderr(&o));
    assert!(other.join("figure.png").exists());
    // The output folder itself a link.
    symlink(&other, base.join("linked")).expect("link");
    let o = run(&base.join("linked"));
    assert!(stderr(&o).contains("symbolic link"), "{}", stderr(&o));
    assert!(!other.join("summary.json").exists());
}
