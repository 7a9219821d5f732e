//! The C interface: the generated header is current, and the C examples (compiled with the
//! system C compiler against the `cdylib`) print the same numbers, bit for bit, as the same
//! steps driven through the Rust API: the contact engine's forces, the laws, the capture check,
//! and a controller in the loop of a mechanism run.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use tumble_contact::interference::{Engine, Model};
use tumble_math::{Pose, Vec3, quat_from_wxyz};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn header_is_current() {
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir())
        .with_config(cbindgen::Config::from_file(crate_dir().join("cbindgen.toml")).unwrap())
        .generate()
        .expect("cbindgen")
        .write(&mut out);
    let generated = String::from_utf8(out).unwrap();
    let path = crate_dir().join("include/tumble.h");
    if std::env::var_os("TUMBLE_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(committed == generated, "include/tumble.h is stale: run `TUMBLE_BLESS=1 cargo test -p tumble-capi`");
}

/// The directory holding `libtumble_capi.so`: `cargo test` leaves the cdylib beside the test
/// binary in `deps/` (a clean build does not copy it up to the profile directory).
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap().to_path_buf();
    let so = |d: &Path| d.join(format!("{}tumble_capi{}", std::env::consts::DLL_PREFIX, std::env::consts::DLL_SUFFIX));
    if so(&deps).exists() { deps } else { deps.parent().unwrap().to_path_buf() }
}

/// Compiles `examples/c/NAME.c` against the cdylib into `exe`.
fn compile(name: &str, exe: &Path) {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .arg(crate_dir().join("examples/c").join(format!("{name}.c")))
        .arg("-I")
        .arg(crate_dir().join("include"))
        .arg("-L")
        .arg(lib_dir())
        .arg("-ltumble_capi")
        .arg(format!("-Wl,-rpath,{}", lib_dir().display()))
        .args(["-Wall", "-Werror", "-o"])
        .arg(exe)
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
    assert!(status.success(), "compiling {name}.c failed");
}

/// Rows of numbers a C example printed.
fn numbers(out: std::process::Output) -> Vec<Vec<f64>> {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().map(|x| x.parse().unwrap()).collect())
        .collect()
}

/// The C example's steps through the Rust API, printed the same way (`%.17g` ≡ Rust's
/// shortest round-trip form compared as numbers).
fn rust_run(dir: &Path) -> Vec<Vec<f64>> {
    let tripod = Arc::new(Model::load(&dir.join("tripod.toml")).unwrap());
    let ground = Arc::new(Model::load(&dir.join("ground.toml")).unwrap());
    let mut e = Engine::new();
    let (a, b) = (e.add_object(tripod, "tripod"), e.add_object(ground, "ground"));
    e.pair(a, b).unwrap();
    let q = quat_from_wxyz([0.9999500004166653, 0.008944122839546013, 0.0044720614197730066, 0.0]).unwrap();
    let (v, w, dt) = (Vec3::new(0.05, 0.0, -1.2), Vec3::new(0.0, 0.0, 0.2), 1e-3);
    (0..20)
        .map(|k| {
            let p = Vec3::new(0.05 * k as f64 * dt, 0.0, 0.011 - 1.2 * k as f64 * dt);
            e.set_body(a, 0, &Pose::new(p, q), v, w).unwrap();
            e.evaluate();
            let s = e.body(a, 0);
            let row =
                [vec![k as f64, e.contacts().len() as f64], s.force.iter().chain(s.torque.iter()).copied().collect()];
            e.commit(dt);
            row.concat()
        })
        .collect()
}

#[test]
fn the_c_example_gives_the_forces_of_the_rust_api() {
    let dir = crate_dir().join("examples/c");
    let exe = std::env::temp_dir().join(format!("tumble_pong_like_{}", std::process::id()));
    compile("pong_like", &exe);
    let out = Command::new(&exe).arg(dir.join("tripod.toml")).arg(dir.join("ground.toml")).output().unwrap();
    let _ = std::fs::remove_file(&exe);
    let c = numbers(out);
    let rust = rust_run(&dir);
    assert_eq!(c.len(), rust.len());
    // The tripod lands during the run: contacts appear, and the last step carries load.
    assert!(c[0][1] == 0.0 && c[19][1] == 3.0 && c[19][4] > 0.0, "{:?} … {:?}", c[0], c[19]);
    // Same library, same inputs: identical to the last bit (%.17g round-trips a double).
    assert_eq!(c, rust);
}

#[test]
fn errors_are_reported_with_their_cause() {
    use std::ffi::{CStr, CString};
    use tumble_capi::*;
    let path = CString::new("/nonexistent/model.toml").unwrap();
    // SAFETY: valid NUL-terminated strings and pointers from this API.
    unsafe {
        assert!(tumble_model_load(path.as_ptr()).is_null());
        let msg = CStr::from_ptr(tumble_last_error()).to_str().unwrap().to_owned();
        assert!(msg.contains("/nonexistent/model.toml"), "{msg}");
        let e = tumble_engine_new();
        assert_eq!(tumble_engine_pair(e, 0, 1), TUMBLE_ERROR);
        let msg = CStr::from_ptr(tumble_last_error()).to_str().unwrap().to_owned();
        assert!(msg.contains("0 objects"), "{msg}");
        let bad_q = [1.0, 1.0, 0.0, 0.0];
        let z = [0.0; 3];
        assert_eq!(tumble_engine_set_body(e, 0, 0, z.as_ptr(), bad_q.as_ptr(), z.as_ptr(), z.as_ptr()), TUMBLE_ERROR);
        assert_eq!(tumble_engine_commit(e, -1.0), TUMBLE_ERROR);
        assert!(CStr::from_ptr(tumble_last_error()).to_str().unwrap().contains("dt = -1"));
        assert_eq!(tumble_engine_evaluate(std::ptr::null_mut()), TUMBLE_ERROR);
        tumble_engine_free(e);
        // A negative count of overrides is refused, not read as none.
        let scenario = CString::new("../../scenarios/basics/dzhanibekov.toml").unwrap();
        assert!(tumble_run_start(scenario.as_ptr(), std::ptr::null(), -3).is_null());
        assert!(CStr::from_ptr(tumble_last_error()).to_str().unwrap().contains("n_set must be 0 to 10000"));
    }
}

/// A design file for a one-joint chaser (nv = 7, state 8) with simple matrices: the map adds
/// half the impulse to the base rates (`P_c = 1`, `P_t = 0`, `P_i = ½` on the first six), the
/// nominal is at rest, `S₀ = 2·1`, `ρ₀ = 1`; so `V₀ = 2 |v_c + ½ I|²`.
fn small_design() -> tumble_control::capture_check::DesignFile {
    use tumble_control::capture_check::{DesignFile, FORMAT, FRAMES, MapRows, VERSION};
    let eye =
        |n: usize, m: usize, d: f64| (0..n).map(|i| (0..m).map(|j| if i == j { d } else { 0.0 }).collect()).collect();
    DesignFile {
        format: FORMAT.into(),
        version: VERSION,
        scenario: "small".into(),
        seed: 0,
        frames: FRAMES.into(),
        chaser_velocities: 7,
        joint_angles: vec![0.5],
        nominal_chaser_velocity: vec![0.0; 7],
        nominal_target_velocity: vec![0.0; 6],
        dt: 0.1,
        stride: 1,
        x_nom: vec![[0.5].into_iter().chain([0.0; 7]).collect()],
        u_nom: vec![],
        s: vec![eye(8, 8, 2.0)],
        rho0: 1.0,
        rho: vec![1.0],
        funnel_bounded: true,
        map: MapRows { name: "chaser".into(), chaser: eye(7, 7, 1.0), target: eye(7, 6, 0.0), impulse: eye(7, 6, 0.5) },
        joint_angle_spread: 0.0,
        joint_names: vec!["shoulder".into()],
        target_mass: Some(100.0),
    }
}

#[test]
fn the_c_capture_check_answers_the_rust_verdicts() {
    use std::io::Write;
    use tumble_control::capture_check::{CaptureCheck, write_design};
    let tmp = std::env::temp_dir().join(format!("tumble_capture_check_{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let design = tmp.join("design.json");
    write_design(&design, &small_design()).unwrap();
    let exe = tmp.join("capture_check");
    compile("capture_check", &exe);
    // v_c = 0.25 on the first rate, I = 0.5 there: v⁺ = 0.5, V₀ = 2 · 0.25 = 0.5 (safe); with
    // I = 2.5 there: v⁺ = 1.5, V₀ = 4.5 (unsafe). Target velocities do not enter (P_t = 0).
    let captures = [
        ([0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.1; 6], [0.5, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ([0.25, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0; 6], [2.5, 0.0, 0.0, 0.0, 0.0, 0.0]),
        ([0.01, -0.02, 0.03, 0.1, 0.0, -0.1, 0.3], [0.2; 6], [0.1, 0.2, -0.3, 0.05, 0.0, 0.7]),
    ];
    let mut child = Command::new(&exe)
        .arg(&design)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = String::new();
    for (c, t, i) in &captures {
        let line: Vec<String> = c.iter().chain(t).chain(i).map(|x| format!("{x:e}")).collect();
        input += &(line.join(" ") + "\n");
    }
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let rows = numbers(child.wait_with_output().unwrap());
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0], vec![1.0, 0.5, 1.0, 0.5]);
    assert_eq!(rows[1], vec![0.0, 4.5, 1.0, 4.5]);
    let check = CaptureCheck::load(&design).unwrap();
    for ((c, t, i), row) in captures.iter().zip(&rows) {
        let v = check.verdict(c, t, i).unwrap();
        assert_eq!(row, &vec![f64::from(u8::from(v.safe)), v.v0, v.rho0, v.margin]);
    }
    // A wrong count is refused with the reason; a missing file gives NULL with the path.
    use std::ffi::{CStr, CString};
    use tumble_capi::*;
    let path = CString::new(design.display().to_string()).unwrap();
    let missing = CString::new("/nonexistent/design.json").unwrap();
    // SAFETY: valid NUL-terminated strings, arrays of the lengths passed, pointers from this API.
    unsafe {
        let h = tumble_capture_check_load(path.as_ptr());
        assert_eq!(tumble_capture_check_chaser_velocities(h), 7);
        let (c, z) = ([0.0; 6], [0.0; 6]);
        let mut v = TumbleVerdict::default();
        assert_eq!(tumble_capture_check_verdict(h, c.as_ptr(), 6, z.as_ptr(), z.as_ptr(), &mut v), TUMBLE_ERROR);
        assert!(CStr::from_ptr(tumble_last_error()).to_str().unwrap().contains("7 velocity coordinates expected"));
        tumble_capture_check_free(h);
        assert!(tumble_capture_check_load(missing.as_ptr()).is_null());
        assert!(CStr::from_ptr(tumble_last_error()).to_str().unwrap().contains("/nonexistent/design.json"));
    }
    std::fs::remove_dir_all(&tmp).ok();
}

/// The laws, friction and the wire from C print what the Rust API computes, to the last bit,
/// and the analytic values where they are simple.
#[test]
fn the_c_laws_and_wire_give_the_rust_forces() {
    use tumble_contact::laws::{ContactLaw, Damping, Stiffness, friction};
    use tumble_contact::snare::LooseWire;
    let exe = std::env::temp_dir().join(format!("tumble_laws_{}", std::process::id()));
    compile("laws", &exe);
    let rows = numbers(Command::new(&exe).output().unwrap());
    let _ = std::fs::remove_file(&exe);
    let laws = [
        ContactLaw::spring_dashpot(1e4, 50.0),
        ContactLaw::hertz(1e6),
        ContactLaw::hunt_crossley(1e6, 1.5, 0.3),
        ContactLaw::flores(1e6, 1.5, 0.8),
        ContactLaw {
            stiffness: Stiffness::Power { k: 2e5, p: 1.2 },
            damping: Damping::Power { c: 30.0, g: 0.5, q: 1.0 },
        },
        ContactLaw::snare_wire_table4(90).unwrap(),
        ContactLaw {
            stiffness: Stiffness::Table { delta: vec![0.0, 0.01, 0.02], force: vec![0.0, 100.0, 400.0] },
            damping: Damping::None,
        },
    ];
    assert_eq!(rows.len(), 7 * 15 + 4 + 2);
    for r in &rows[..105] {
        let law = &laws[r[0] as usize];
        assert_eq!((r[3], r[4]), (law.force(r[1], r[2], 0.5), law.energy(r[1])), "law {}", r[0]);
    }
    let at = |law: usize, delta: f64, rate: f64| {
        rows.iter().find(|r| r[0] == law as f64 && r[1] == delta && r[2] == rate).unwrap()[3]
    };
    // k δ + c δ̇; never pulling; zero out of contact; Hertz; the table's interpolation.
    assert_eq!(at(0, 0.001, 0.2), 1e4 * 0.001 + 50.0 * 0.2);
    assert_eq!(at(0, 0.001, -0.1), 1e4 * 0.001 - 50.0 * 0.1);
    assert_eq!((at(0, -0.001, 0.2), at(0, 0.0, 0.2)), (0.0, 0.0));
    assert!((at(1, 0.015, 0.0) - 1e6 * 0.015f64.powf(1.5)).abs() < 1e-9);
    assert!((at(6, 0.015, 0.0) - 250.0).abs() < 1e-9);
    let wire = LooseWire::table4(0.09, 50.0).unwrap();
    for r in &rows[105..109] {
        assert_eq!((r[3], r[4]), (wire.force(r[1], r[2], 0.0), wire.tension(r[1])));
    }
    assert_eq!(rows[107][4], 0.0, "slack at Q: no tension");
    assert!(rows[108][4] > 0.0, "taut past Q");
    assert_eq!((rows[109][1], rows[109][2]), (wire.slack, wire.yield_load));
    // μ F_n η(|v|/v*) against the slip: |v| = 5 mm/s, v* = 10 mm/s, η(0.5) = 0.75.
    let f = friction(0.3, 100.0, &tumble_math::Vec3::new(0.003, -0.004, 0.0), 0.01);
    assert_eq!(&rows[110][1..4], f.as_slice());
    assert!((f.norm() - 0.3 * 100.0 * 0.75).abs() < 1e-12 && (f.x + 13.5).abs() < 1e-12);
}

/// The controller loop of `examples/c/run_loop.c` through the Rust application interface:
/// the same rows, to the bit.
fn rust_loop(scenario: &Path, body: &str, set: &[(String, String)]) -> (Vec<Vec<f64>>, String) {
    let sc = tumble_sim::registry::load(scenario, set).unwrap();
    let mut run = tumble_sim::registry::start(&sc).unwrap();
    let value = |run: &dyn tumble_sim::app::Run, name: &str| {
        run.state().into_iter().find(|q| q.name == name).map(|q| q.values).unwrap()
    };
    let mut rows = Vec::new();
    for k in 0.. {
        let (p, v) =
            (value(run.as_ref(), &format!("{body}.position")), value(run.as_ref(), &format!("{body}.velocity")));
        if k % 250 == 0 {
            rows.push(vec![run.time(), p[0], p[1], p[2]]);
        }
        run.set_input(&format!("{body}.wrench"), &[20.0 - 50.0 * v[0], 0.0, 0.0, 0.0, 0.0, 0.0]).unwrap();
        run.step().unwrap();
        if run.ended().is_some() {
            break;
        }
    }
    (rows, run.report(None).unwrap().status)
}

#[test]
fn a_controller_in_c_steers_a_mechanism_run_as_rust_does() {
    let root = crate_dir().join("../..");
    let scenario = root.join("scenarios/contact/drawer.toml");
    let exe = std::env::temp_dir().join(format!("tumble_run_loop_{}", std::process::id()));
    let out_dir = std::env::temp_dir().join(format!("tumble_run_loop_out_{}", std::process::id()));
    compile("run_loop", &exe);
    let out =
        Command::new(&exe).arg(&scenario).arg("pallet").arg(&out_dir).arg("simulation.duration=0.5").output().unwrap();
    let _ = std::fs::remove_file(&exe);
    let summary: serde_json::Value = serde_json::from_slice(out.stderr.trim_ascii()).expect("the summary as JSON");
    let c = numbers(out);
    let written = out_dir.join("timeseries.csv").is_file();
    let _ = std::fs::remove_dir_all(&out_dir);
    assert!(written, "the outputs were written");
    let set = [("simulation.duration".to_string(), "0.5".to_string())];
    let (rust, status) = rust_loop(&scenario, "pallet", &set);
    assert_eq!(summary["status"], status.as_str());
    assert_eq!(c, rust, "same library, same law: identical to the last bit");
    // The push shows: the pallet ends further along than without it (measured 2.0 mm at 0.5 s,
    // the law's 50 N·s/m holding the push back; the bound is half that).
    let free = tumble_sim::registry::start(&tumble_sim::registry::load(&scenario, &set).unwrap()).map(|mut run| {
        tumble_sim::app::run_to_end(run.as_mut(), &mut |_| {});
        run.state().into_iter().find(|q| q.name == "pallet.position").unwrap().values[0]
    });
    let (pushed, free) = (c.last().unwrap()[1], free.unwrap());
    assert!(pushed - free > 1e-3, "{pushed} vs {free}");

    // Errors name their cause: a missing file, an override without `=`, an unknown input.
    let exe = std::env::temp_dir().join(format!("tumble_run_loop_bad_{}", std::process::id()));
    compile("run_loop", &exe);
    for (args, cause) in [
        (vec!["missing.toml", "pallet", "out"], "missing.toml"),
        (vec![scenario.to_str().unwrap(), "pallet", "out", "simulation.duration"], "KEY=VALUE"),
        (vec![scenario.to_str().unwrap(), "rails", "out", "simulation.duration=0.01"], "no state `rails.position`"),
    ] {
        let out = Command::new(&exe).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(cause), "{args:?}: {stderr}");
    }
    let _ = std::fs::remove_file(&exe);
}
