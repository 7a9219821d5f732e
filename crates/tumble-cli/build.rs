//! Embeds the browser viewer's built bundle (`viewer/dist/`, made by `npm run build` in
//! `viewer/`) when it exists; otherwise `tumble view` serves the run's files alone and says how
//! to build the viewer.

use std::path::Path;

fn main() {
    let dist = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../viewer/dist");
    println!("cargo:rerun-if-changed={}", dist.display());
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
    std::fs::write(out, format!("[{}]", entries.join(", "))).expect("write the bundle table");
}
