//! ARCHITECTURE.md and docs/*.md stay true to the tree: every repository path they name in
//! backticks exists, and every Rust item they name (`Type`, `module::item`, `Type::method`) is
//! defined in the workspace's sources.
//!
//! Paths: spans of path characters with a `/` whose first segment names a folder of the
//! repository (so run outputs like `plots/speeds.png`, files beside the repository like
//! `../shared/data` and formulas like `dV/dt` are not taken for paths); a path is found if
//! some file or folder of the repository ends with it (docs name crate-local paths like
//! `tests/cli.rs`). Items: spans that are Rust paths with `::`, or single
//! CamelCase words, must have each segment defined (`fn`, `struct`, `enum`, `trait`, `type`,
//! `const`, `static`, `mod`, an enum variant or a crate `tumble_*`) or be a foreign crate's
//! (`nalgebra`, `serde`, `std`, …).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file and folder of the repository (relative, `/`-separated), outside build and run
/// outputs (`target/`, `node_modules/`, `out/`).
fn tree(dir: &Path, rel: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name.starts_with('.') || ["target", "node_modules", "out"].contains(&name.as_str()) {
            continue;
        }
        let r = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
        if e.path().is_dir() {
            out.push(format!("{r}/"));
            tree(&e.path(), &r, out);
        }
        out.push(r);
    }
}

/// Names defined in the workspace's Rust sources.
fn defined(files: &[String]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let keywords = ["fn", "struct", "enum", "trait", "type", "const", "static", "mod"];
    for f in files.iter().filter(|f| f.ends_with(".rs")) {
        let Ok(text) = std::fs::read_to_string(root().join(f)) else { continue };
        let words: Vec<&str> =
            text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        for w in words.windows(2) {
            if keywords.contains(&w[0]) {
                names.insert(w[1].to_string());
            }
        }
        // Enum variants: `Name,`, `Name(…`, `Name {` alone at the start of a line.
        for line in text.lines() {
            let t = line.trim_start();
            let id: String = t.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let rest = &t[id.len()..];
            if !id.is_empty() && (rest == "," || rest.starts_with('(') || rest == " {" || rest.starts_with(" = ")) {
                names.insert(id);
            }
        }
    }
    names
}

const FOREIGN: [&str; 16] = [
    "std",
    "core",
    "nalgebra",
    "serde",
    "serde_json",
    "toml",
    "toml_edit",
    "rayon",
    "wgpu",
    "plotters",
    "parry3d",
    "mujoco",
    "pinocchio",
    "numpy",
    "clap",
    "gltf",
];

fn is_item(span: &str) -> bool {
    let seg = |s: &str| {
        s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if span.contains("::") {
        return span.split("::").all(seg);
    }
    // A single CamelCase word with a lower-case letter after its first (`Diagnosis`, not `RK4`).
    seg(span)
        && span.chars().next().is_some_and(char::is_uppercase)
        && span.chars().skip(1).any(char::is_lowercase)
        && span.chars().skip(1).any(char::is_uppercase)
}

/// A repository path: `[A-Za-z0-9_.-/]` only, with a `/`, its first segment the name of a folder
/// of the repository (output paths like `plots/speeds.png` and formulas like `dV/dt` are not).
fn is_path(span: &str, folders: &BTreeSet<&str>) -> bool {
    span.contains('/')
        && span.chars().all(|c| c.is_ascii_alphanumeric() || "_.-/".contains(c))
        && span.split('/').next().is_some_and(|first| folders.contains(first))
}

#[test]
fn every_path_and_item_the_docs_name_exists() {
    let mut files = vec![];
    tree(&root(), "", &mut files);
    let names = defined(&files);
    let folders: BTreeSet<&str> =
        files.iter().filter_map(|f| f.strip_suffix('/')).map(|f| f.rsplit('/').next().unwrap_or(f)).collect();
    let mut docs = vec!["ARCHITECTURE.md".to_string()];
    docs.extend(files.iter().filter(|f| f.starts_with("docs/") && f.ends_with(".md")).cloned());
    let mut missing = vec![];
    for doc in &docs {
        let text = std::fs::read_to_string(root().join(doc)).expect("doc readable");
        let mut in_code = false;
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                in_code = !in_code;
                continue;
            }
            if in_code {
                continue;
            }
            for (i, span) in line.split('`').enumerate() {
                if i % 2 == 0 {
                    continue;
                }
                if is_path(span, &folders) {
                    let p = span.trim_end_matches('/');
                    let found = files.iter().any(|f| {
                        let f = f.trim_end_matches('/');
                        f == p || f.ends_with(&format!("/{p}"))
                    });
                    if !found {
                        missing.push(format!("{doc}:{}: path `{span}`", n + 1));
                    }
                } else if is_item(span) {
                    let first = span.split("::").next().unwrap_or("");
                    if FOREIGN.contains(&first) {
                        continue;
                    }
                    for s in span.split("::") {
                        let known = names.contains(s) || s.starts_with("tumble_") || s == "crate" || s == "self";
                        if !known {
                            missing.push(format!("{doc}:{}: item `{span}` (no `{s}` in the sources)", n + 1));
                        }
                    }
                }
            }
        }
    }
    assert!(missing.is_empty(), "names in the docs that the tree lacks:\n{}", missing.join("\n"));
}
