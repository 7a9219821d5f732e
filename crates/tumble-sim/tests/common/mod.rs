//! Helpers the lander tests share.

use std::path::{Path, PathBuf};

/// An empty folder `name` under the test target's scratch directory (emptied if it exists).
pub fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("tmp");
    d
}
