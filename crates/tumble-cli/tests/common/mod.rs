//! Shared by the command-line tests.

use std::path::{Path, PathBuf};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The bundled scenarios (`scenarios/*/*.toml`), less those reading `../shared/data` where it
/// is absent.
pub fn bundled() -> Vec<PathBuf> {
    let shared = root().join("../shared/data").exists();
    let mut all = Vec::new();
    for dir in std::fs::read_dir(root().join("scenarios")).expect("scenarios") {
        for f in std::fs::read_dir(dir.expect("entry").path()).expect("folder") {
            let path = f.expect("entry").path();
            if path.extension().is_some_and(|e| e == "toml")
                && (shared || !std::fs::read_to_string(&path).expect("scenario").contains("shared/data"))
            {
                all.push(path);
            }
        }
    }
    all.sort();
    all
}
