//! Nothing lost: every bundled scenario, run as a user runs it (`tumble run`; `tumble capture-map`
//! for capture studies; `tumble mc` for two campaigns), still prints the figures of its
//! `summary.json` that `tests/reference/bundled_figures.json` stores.
//!
//! Every value in a summary is compared except those measured on the wall clock. Runs are
//! deterministic, so on one machine the figures are bit-identical; the tolerance, 1e-9
//! relative, only lets a libm that rounds a last bit differently pass where that difference
//! stays small, while any change
//! in the physics, its parameters or the order of its arithmetic over a run moves figures by
//! far more (a bouncing lander's final position by metres). Figures below 1e-15 in magnitude
//! on both sides are treated as zero (round-off in quantities that vanish, e.g. momenta).
//!
//! When a change moves figures on purpose, regenerate the file with
//! `TUMBLE_BLESS=1 cargo test -p tumble-cli --test bundled_figures` and say why in the commit.
//!
//! The same runs' `animation.glb` files are checked (one run of each scenario serves both): an
//! independent loader (the `gltf` crate: document structure, indices, accessor bounds) reads
//! each, its animation data are sound (key times strictly increasing, as many values as keys,
//! finite values, unit rotations), with at least one moving body, and each run wrote plots;
//! where the viewer's npm packages are installed (`.ci/run` installs them), the Khronos
//! glTF-Validator passes every file with no error and no warning. A capture study's animation is
//! its nominal capture's detumble.

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{bundled, root};

/// The soundness checks on one file; returns the number of moving bodies (nodes with
/// translation and rotation channels and no scale channel).
fn check(path: &Path) -> usize {
    let bytes = std::fs::read(path).expect("animation.glb");
    let g = gltf::Gltf::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let bin = g.blob.as_deref().expect("a BIN chunk");
    let floats = |a: &gltf::Accessor| -> Vec<f32> {
        assert_eq!(a.data_type(), gltf::accessor::DataType::F32);
        let (view, n) = (a.view().expect("a buffer view"), a.dimensions().multiplicity());
        let at = view.offset() + a.offset();
        assert!(at + 4 * n * a.count() <= bin.len(), "{}: accessor past the buffer", path.display());
        (0..n * a.count()).map(|k| f32::from_le_bytes(bin[at + 4 * k..at + 4 * k + 4].try_into().unwrap())).collect()
    };
    let anim = g.animations().next().unwrap_or_else(|| panic!("{}: no animation", path.display()));
    let mut moving = std::collections::BTreeMap::<usize, [bool; 3]>::new();
    for c in anim.channels() {
        let (times, values) = (floats(&c.sampler().input()), floats(&c.sampler().output()));
        let name = c.target().node().name().unwrap_or("?").to_string();
        assert!(times.windows(2).all(|w| w[0] < w[1]), "{}: '{name}': key times not increasing", path.display());
        assert!(values.iter().all(|v| v.is_finite()), "{}: '{name}': non-finite values", path.display());
        let n = c.sampler().output().dimensions().multiplicity();
        assert_eq!(values.len(), n * times.len(), "{}: '{name}': values for {} keys", path.display(), times.len());
        let slot = moving.entry(c.target().node().index()).or_default();
        match c.target().property() {
            gltf::animation::Property::Translation => slot[0] = true,
            gltf::animation::Property::Rotation => {
                slot[1] = true;
                for q in values.chunks(4) {
                    let norm = q.iter().map(|x| x * x).sum::<f32>().sqrt();
                    // glTF asks for unit quaternions; f32 storage of a unit f64 one: ~1e-7.
                    assert!((norm - 1.0).abs() < 1e-5, "{}: '{name}': |q| = {norm}", path.display());
                }
            }
            _ => slot[2] = true,
        }
    }
    moving.values().filter(|s| s[0] && s[1] && !s[2]).count()
}

/// The Khronos validator through `node`, where the viewer's packages are installed.
fn khronos(files: &[PathBuf]) -> Option<Vec<serde_json::Value>> {
    let viewer = root().join("viewer");
    if !viewer.join("node_modules/gltf-validator").is_dir() {
        return None;
    }
    let out = Command::new("node").current_dir(&viewer).arg("validate.mjs").args(files).output().ok()?;
    assert!(out.status.success(), "validate.mjs: {}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect())
}

/// The stored figures.
fn reference_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/bundled_figures.json")
}

/// Summary keys measured on the wall clock, which vary between runs.
const WALL_CLOCK: [&str; 3] = ["wall_time_s", "real_time_factor", "runs_per_second"];

/// The leaves of a summary (numbers, strings, booleans, nulls) by their key path
/// (`energy.max_balance_error_J`, `hops.0.time_s`), without wall-clock figures.
fn figures(v: &Value, path: &str, out: &mut Map<String, Value>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if !WALL_CLOCK.contains(&k.as_str()) {
                    figures(x, &if path.is_empty() { k.clone() } else { format!("{path}.{k}") }, out);
                }
            }
        }
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| figures(x, &format!("{path}.{i}"), out)),
        Value::Number(_) | Value::String(_) | Value::Bool(_) | Value::Null => {
            out.insert(path.to_string(), v.clone());
        }
    }
}

/// Runs `tumble ARGS --quiet --out DIR` and returns the figures of `DIR/summary.json`.
fn run(args: &[&str], dir: &Path) -> Map<String, Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_tumble"))
        .current_dir(root())
        .args(args)
        .args(["--quiet", "--out", dir.to_str().unwrap()])
        .output()
        .expect("tumble runs");
    assert!(out.status.success(), "tumble {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json");
    let mut m = Map::new();
    figures(&serde_json::from_str(&text).expect("summary.json is JSON"), "", &mut m);
    m
}

/// Whether two stored values agree (see the module's tolerance).
fn agree(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => {
            x == y || (x.abs() < 1e-15 && y.abs() < 1e-15) || (x - y).abs() <= 1e-9 * x.abs().max(y.abs())
        }
        _ => a == b,
    }
}

/// Every case: its name in the reference and the command's arguments, run from the repository's
/// root with the scenario's path relative to it (summaries that name their file then read the
/// same in every checkout).
fn cases() -> Vec<(String, Vec<String>)> {
    let mut all = Vec::new();
    for s in bundled() {
        let name = s.file_stem().unwrap().to_string_lossy().to_string();
        let path = s.strip_prefix(root()).expect("a bundled scenario").to_string_lossy().to_string();
        if std::fs::read_to_string(&s).expect("scenario").contains("[capture]") {
            all.push((
                format!("capture {name}"),
                vec!["capture-map".into(), path, "--samples=16".into(), "--verify=16".into()],
            ));
        } else {
            all.push((format!("run {name}"), vec!["run".into(), path]));
        }
    }
    for s in ["lander/cube_phobos", "membrane/asteroid_capture"] {
        let path = format!("scenarios/{s}.toml");
        let name = s.rsplit('/').next().unwrap();
        let args = ["mc", &path, "--runs=8", "--seed=3", "--threads=2"];
        all.push((format!("mc {name}"), args.iter().map(|a| a.to_string()).collect()));
    }
    all
}

#[test]
fn bundled_scenarios_print_their_stored_figures() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bundled_figures");
    let _ = std::fs::remove_dir_all(&tmp);
    let stored: Map<String, Value> = std::fs::read_to_string(reference_path())
        .map(|t| serde_json::from_str(&t).expect("the reference is JSON"))
        .unwrap_or_default();
    let bless = std::env::var_os("TUMBLE_BLESS").is_some();
    let mut now = stored.clone();
    let (mut problems, mut animations) = (Vec::new(), Vec::new());
    for (i, (name, args)) in cases().into_iter().enumerate() {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let dir = tmp.join(i.to_string());
        let got = run(&args, &dir);
        if !name.starts_with("mc ") {
            assert!(check(&dir.join("animation.glb")) >= 1, "{name}: no moving body");
            assert!(dir.join("plots").read_dir().is_ok_and(|mut d| d.next().is_some()), "{name}: no plots");
            animations.push(dir.join("animation.glb"));
        }
        // A capture study run as `tumble run` steps its nominal detumble, with its own animation.
        if name.starts_with("capture ") {
            let stepped = tmp.join(format!("{i}_run"));
            run(&["run", args[1]], &stepped);
            assert!(check(&stepped.join("animation.glb")) >= 1, "{name} (tumble run): no moving body");
            animations.push(stepped.join("animation.glb"));
        }
        match stored.get(&name).and_then(Value::as_object) {
            _ if bless => {}
            None => problems.push(format!("{name}: no stored figures (bless them, see the module doc)")),
            Some(want) => {
                for (k, w) in want {
                    match got.get(k) {
                        Some(g) if agree(g, w) => {}
                        g => problems.push(format!(
                            "{name}: `{k}` = {} (stored {w})",
                            g.map_or("missing".into(), Value::to_string)
                        )),
                    }
                }
                for k in got.keys().filter(|k| !want.contains_key(*k)) {
                    problems.push(format!("{name}: `{k}` is new (bless it, see the module doc)"));
                }
            }
        }
        now.insert(name, Value::Object(got));
    }
    if bless {
        let text = serde_json::to_string_pretty(&Value::Object(now)).unwrap() + "\n";
        std::fs::write(reference_path(), text).expect("write the reference");
    }
    assert!(problems.is_empty(), "{} figures differ:\n{}", problems.len(), problems.join("\n"));
    assert!(animations.len() >= 15, "{} animations", animations.len());
    match khronos(&animations) {
        Some(reports) => {
            assert_eq!(reports.len(), animations.len());
            for r in reports {
                assert!(r["errors"] == 0 && r["warnings"] == 0, "glTF-Validator: {r}");
            }
        }
        None => eprintln!("skipped the Khronos glTF-Validator: run `npm ci` in viewer/ to install it"),
    }
}
