//! `tumble run` on every bundled scenario writes an `animation.glb` that an independent loader
//! (the `gltf` crate: document structure, indices, accessor bounds) reads, whose animation data
//! are sound (key times strictly increasing, as many values as keys, finite values, unit
//! rotations), with at least one moving body; and, where the viewer's npm packages are installed
//! (`.ci/run` installs them), that the Khronos glTF-Validator passes with no error and no
//! warning. A capture study's run is its nominal capture's detumble.

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

#[test]
fn every_bundled_run_writes_a_valid_animation() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("animations");
    let _ = std::fs::remove_dir_all(&tmp);
    let mut files = Vec::new();
    for scenario in bundled() {
        let name = scenario.file_stem().unwrap().to_string_lossy().to_string();
        let out = tmp.join(&name);
        let run = Command::new(env!("CARGO_BIN_EXE_tumble"))
            .args(["run", scenario.to_str().unwrap(), "--quiet", "--out", out.to_str().unwrap()])
            .output()
            .expect("tumble runs");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(run.status.success(), "{}: {stderr}", scenario.display());
        let glb = out.join("animation.glb");
        let bodies = check(&glb);
        assert!(bodies >= 1, "{}: no moving body", scenario.display());
        assert!(out.join("plots").read_dir().is_ok_and(|mut d| d.next().is_some()), "{name}: no plots");
        files.push(glb);
    }
    assert!(files.len() >= 15, "{} runs", files.len());
    match khronos(&files) {
        Some(reports) => {
            assert_eq!(reports.len(), files.len());
            for r in reports {
                assert!(r["errors"] == 0 && r["warnings"] == 0, "glTF-Validator: {r}");
            }
        }
        None => eprintln!("skipped the Khronos glTF-Validator: run `npm ci` in viewer/ to install it"),
    }
}
