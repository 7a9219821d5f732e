//! Helpers the lander tests share.

use std::path::{Path, PathBuf};

/// An empty folder `name` under the test target's scratch directory (emptied if it exists).
pub fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("tmp");
    d
}

/// The text of the bundled scenario `path` (from the repository's `scenarios/`, e.g.
/// `lander/cube_67p.toml`).
#[allow(dead_code)] // Not every test binary that includes this module reads one.
pub fn bundled(path: &str) -> String {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(path);
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}
