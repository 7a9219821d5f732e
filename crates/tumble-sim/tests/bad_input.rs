//! Bad scenarios are refused with a one-line error that names the file, the place and the key.

use std::path::Path;
use tumble_sim::{Model, Scenario};

const GOOD: &str = r#"
name = "t"
kind = "rigid_bodies"
[simulation]
duration = 1.0
dt = 0.01

[bodies.b]
mass = 1.0
inertia = [1.0, 2.0, 2.5]
orientation = [1.0, 0.0, 0.0, 0.0]
"#;

/// Loads `text` (optionally with one line replaced) and returns the error line.
fn error_of(text: &str) -> String {
    let path = Path::new("case.toml");
    let res = Scenario::from_text(path, text.to_string(), &[]).and_then(|sc| Model::build(&sc).map(|_| ()));
    let e = res.expect_err("the scenario must be refused").to_string();
    assert!(!e.contains('\n'), "error must be one line: {e}");
    assert!(e.starts_with("case.toml"), "error must name the file: {e}");
    e
}

fn with(from: &str, to: &str) -> String {
    assert!(GOOD.contains(from), "test setup: `{from}` not in the base scenario");
    GOOD.replace(from, to)
}

#[test]
fn good_scenario_is_accepted() {
    let sc = Scenario::from_text(Path::new("case.toml"), GOOD.to_string(), &[]).expect("parses");
    Model::build(&sc).expect("valid");
}

#[test]
fn missing_file() {
    let e = Scenario::load(Path::new("no/such/scenario.toml"), &[]).expect_err("missing").to_string();
    assert!(e.starts_with("no/such/scenario.toml: ") && e.contains("no such file"), "{e}");
}

#[test]
fn toml_syntax_error_has_line_and_column() {
    let e = error_of(&with("duration = 1.0", "duration = = 1.0"));
    assert!(e.starts_with("case.toml:5:"), "{e}");
}

#[test]
fn unknown_key_is_named() {
    let e = error_of(&with("dt = 0.01", "dt = 0.01\ntimestep = 0.1"));
    assert!(e.contains("timestep") && e.contains("case.toml:7:"), "{e}");
}

#[test]
fn wrong_type_names_the_key() {
    let e = error_of(&with("mass = 1.0", "mass = \"heavy\""));
    assert!(e.contains("bodies.b.mass") && e.contains("case.toml:9:"), "{e}");
}

#[test]
fn negative_and_zero_mass() {
    for m in ["-1.0", "0.0"] {
        let e = error_of(&with("mass = 1.0", &format!("mass = {m}")));
        assert!(e.contains("key `bodies.b.mass`") && e.contains("case.toml:9:") && e.contains("positive"), "{e}");
    }
}

#[test]
fn inertia_not_positive_definite() {
    let e = error_of(&with("inertia = [1.0, 2.0, 2.5]", "inertia = [1.0, 2.0, 2.5, 3.0, 0.0, 0.0]"));
    assert!(
        e.contains("key `bodies.b.inertia`") && e.contains("case.toml:10:") && e.contains("positive definite"),
        "{e}"
    );
}

#[test]
fn inertia_violating_triangle_inequality() {
    let e = error_of(&with("inertia = [1.0, 2.0, 2.5]", "inertia = [1.0, 1.0, 3.0]"));
    assert!(e.contains("key `bodies.b.inertia`") && e.contains("triangle inequality"), "{e}");
}

#[test]
fn non_positive_time_step_and_duration() {
    for (from, to, key, line) in [
        ("dt = 0.01", "dt = 0.0", "simulation.dt", 6),
        ("dt = 0.01", "dt = -0.01", "simulation.dt", 6),
        ("duration = 1.0", "duration = 0.0", "simulation.duration", 5),
        ("duration = 1.0", "duration = -5.0", "simulation.duration", 5),
    ] {
        let e = error_of(&with(from, to));
        assert!(e.contains(&format!("key `{key}`")) && e.contains(&format!("case.toml:{line}:")), "{e}");
    }
}

#[test]
fn non_unit_and_zero_quaternions() {
    for q in ["[1.0, 0.1, 0.0, 0.0]", "[0.0, 0.0, 0.0, 0.0]"] {
        let e = error_of(&with("orientation = [1.0, 0.0, 0.0, 0.0]", &format!("orientation = {q}")));
        assert!(
            e.contains("key `bodies.b.orientation`") && e.contains("case.toml:11:") && e.contains("unit quaternion"),
            "{e}"
        );
    }
}

#[test]
fn missing_required_keys_and_conflicts() {
    let e = error_of(&with("dt = 0.01", ""));
    assert!(e.contains("simulation.dt") && e.contains("required"), "{e}");
    let e = error_of(&with("mass = 1.0", "density = 10.0"));
    assert!(e.contains("bodies.b.density"), "{e}");
    let e = error_of(&with("inertia = [1.0, 2.0, 2.5]", "inertia = [1.0, 2.0]"));
    assert!(e.contains("3 values"), "{e}");
    let e = error_of(&with("[bodies.b]", "[bodies.b]\nshape = { type = \"cube\", size = 1.0 }"));
    assert!(e.contains("bodies.b.shape") && e.contains("cube"), "{e}");
}

#[test]
fn output_interval_must_be_a_multiple_of_dt() {
    let e = error_of(&with("dt = 0.01", "dt = 0.01\noutput_interval = 0.015"));
    assert!(e.contains("simulation.output_interval") && e.contains("multiple"), "{e}");
}

#[test]
fn overrides_patch_by_dotted_path() {
    let ov = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
    let sc = Scenario::from_text(Path::new("case.toml"), GOOD.into(), &ov("bodies.b.mass", "2.5")).expect("ok");
    assert_eq!(Model::build(&sc).expect("valid").system.bodies[0].mass, 2.5);
    let sc = Scenario::from_text(Path::new("case.toml"), GOOD.into(), &ov("bodies.b.inertia.2", "2.9")).expect("ok");
    assert_eq!(Model::build(&sc).expect("valid").system.bodies[0].inertia[(2, 2)], 2.9);
    // A new key in a new table is created.
    let sc =
        Scenario::from_text(Path::new("case.toml"), GOOD.into(), &ov("bodies.b.angular_velocity", "[0.0, 1.0, 0.0]"))
            .expect("ok");
    assert_eq!(sc.file.bodies["b"].angular_velocity, [0.0, 1.0, 0.0]);
    // Errors at an overridden key say so; bad override values are refused.
    let sc = Scenario::from_text(Path::new("case.toml"), GOOD.into(), &ov("bodies.b.mass", "-3.0")).expect("parses");
    let e = Model::build(&sc).err().expect("refused").to_string();
    assert!(e.contains("override") && e.contains("case.toml:9:"), "{e}");
    let e = Scenario::from_text(Path::new("case.toml"), GOOD.into(), &ov("bodies.b.mass", "two"))
        .expect_err("bad value")
        .to_string();
    assert!(e.contains("not a TOML value"), "{e}");
    let e = Scenario::from_text(Path::new("case.toml"), GOOD.into(), &ov("bodies.b.inertia.7", "1.0"))
        .expect_err("bad index")
        .to_string();
    assert!(e.contains("out of range"), "{e}");
}

/// A `name` is the default output folder's name: one that would leave `out/` is refused.
#[test]
fn a_name_that_is_not_one_folder_name_is_refused() {
    for bad in ["../../../x", "/etc", "a/b", "..", ".", "", "a\\\\b", "c:x", "tab\\there"] {
        let e = error_of(&with("name = \"t\"", &format!("name = \"{bad}\"")));
        assert!(e.contains("key `name`") && e.contains("cannot be a folder name"), "{bad}: {e}");
    }
    let e = error_of(&with("name = \"t\"", &format!("name = \"{}\"", "x".repeat(101))));
    assert!(e.contains("at most 100 characters"), "{e}");
    // Overrides go through the same check.
    let e = Scenario::from_text(Path::new("case.toml"), GOOD.into(), &[("name".into(), "\"../up\"".into())])
        .expect_err("refused")
        .to_string();
    assert!(e.contains("(value set by an override)"), "{e}");
    for good in ["cube_phobos", "Šteins drop", "run-2.b"] {
        Scenario::from_text(Path::new("case.toml"), with("name = \"t\"", &format!("name = \"{good}\"")), &[])
            .expect(good);
    }
}

/// A step that would never let the run end is refused when the scenario is read (`tumble check`
/// accepted it, and the run never ended).
#[test]
fn a_step_count_past_the_bound_is_refused() {
    for (from, to) in
        [("dt = 0.01", "dt = 1e-300"), ("duration = 1.0", "duration = 1e300"), ("duration = 1.0", "duration = inf")]
    {
        let e = error_of(&with(from, to));
        assert!(e.contains("key `simulation.dt`") && e.contains("steps, more than 1e9"), "{to}: {e}");
    }
}

/// An adaptive run whose motion needs steps shorter than duration / 1e9 (a 5e6 rad/s spin at
/// rtol 1e-11 needs ~1e-9 s over a 5,829 s orbit) ends at once with a diagnosis: it ran for
/// ever before, since the smallest step allowed was 1e-12 of the duration.
#[test]
fn an_adaptive_run_that_needs_too_many_steps_ends_with_a_diagnosis() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/basics/orbit.toml");
    let set = [("bodies.sat.angular_velocity".to_string(), "[5e6, 0.0, 0.0]".to_string())];
    let sc = Scenario::load(&path, &set).expect("valid");
    let mut model = Model::build(&sc).expect("builds");
    let start = std::time::Instant::now();
    let run = tumble_sim::simulate(&mut model, &mut |_| {});
    let tumble_sim::Outcome::Failed(d) = &run.outcome else { panic!("{:?}", run.outcome) };
    // Named as the step budget it would exhaust, with the spin that explains the step.
    assert!(d.what.contains("at which the run would take more than 1e9 steps"), "{d}");
    assert!(d.likely_cause.contains("body `sat` spins at 5.000e6 rad/s"), "{d}");
    assert!(run.stats.steps < 100 && start.elapsed().as_secs() < 10, "{:?}", run.stats);
}

/// A capture study whose detumble is too fast for its step is refused when it is built, so by
/// `tumble check` (it was accepted there and refused only by `tumble capture-map`, without the
/// file or key).
#[test]
fn a_capture_whose_detumble_outruns_its_step_is_refused_when_built() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/capture_map/tumbling_500kg.toml");
    let set = [("capture.control.angle_scale".to_string(), "0.0002".to_string())];
    let sc = Scenario::load(&path, &set).expect("valid");
    let e = tumble_sim::capture_map::CaptureStudy::build(&sc).err().expect("refused").to_string();
    assert!(e.contains("tumbling_500kg.toml:") && e.contains("key `simulation.dt`") && e.contains("too fast"), "{e}");
}
