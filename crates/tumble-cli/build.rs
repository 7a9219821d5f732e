//! Embeds the browser viewer's built bundle (`viewer/dist/`, made by `npm run build` in
//! `viewer/`) when it exists; otherwise `tumble view` serves the run's files alone and says how
//! to build the viewer.

use std::path::Path;

fn main() {
    let viewer = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../viewer");
    let dist = viewer.join("dist");
    // Watch what exists (a missing path would rerun this script on every build): the bundle, or
    // the viewer folder, whose listing changes when the bundle appears.
    println!("cargo:rerun-if-changed={}", if dist.exists() { dist.display() } else { viewer.display() });
    let mut entries = Vec::new();
    let mut stack = vec![dist.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&dir) else { continue };
        let mut items: Vec<_> = read.flatten().map(|e| e.path()).collect();
        items.sort();
        for p in items {
            if p.is_dir() {
                println!("cargo:rerun-if-changed={}", p.display());
                stack.push(p);
            } else if let Ok(rel) = p.strip_prefix(&dist) {
                println!("cargo:rerun-if-changed={}", p.display());
                let rel = rel.to_string_lossy().replace('\\', "/");
                entries.push(format!("({rel:?}, include_bytes!({:?}) as &[u8])", p.display().to_string()));
            }
        }
    }
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("viewer_bundle.rs");
    let table = format!("[{}]", entries.join(", "));
    // Rewritten only when it changes, so that tumble is not recompiled for nothing.
    if std::fs::read_to_string(&out).ok().as_deref() != Some(table.as_str()) {
        std::fs::write(out, table).expect("write the bundle table");
    }
}
