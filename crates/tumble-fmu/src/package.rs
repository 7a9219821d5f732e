//! Packing a mechanism scenario into a `.fmu`: the scenario and the files it names as
//! resources, the model description, the shared library of this crate; a ZIP archive whose
//! bytes depend on these inputs only.

use crate::description::{MODEL_IDENTIFIER, model_description, token};
use crate::unit::Unit;
use crate::zip;
use serde_json::Value;
use std::path::{Component, Path, PathBuf};
use tumble_math::{input, output};
use tumble_sim::Scenario;

/// The scenario's name inside `resources/`.
pub const SCENARIO: &str = "scenario.toml";

/// FMI 3.0's platform tuple and shared-library extension of this build's target.
pub fn platform() -> Result<(String, &'static str), String> {
    let (arch, os) = (std::env::consts::ARCH, std::env::consts::OS);
    let (os, ext) = match os {
        "linux" => ("linux", "so"),
        "macos" => ("darwin", "dylib"),
        "windows" => ("windows", "dll"),
        other => return Err(format!("no FMI platform tuple for the operating system '{other}'")),
    };
    match arch {
        "x86_64" | "aarch64" | "x86" => Ok((format!("{arch}-{os}"), ext)),
        other => Err(format!("no FMI platform tuple for the architecture '{other}'")),
    }
}

/// `rel` (a path a file names) as a path inside the scenario's folder, `/`-separated; refused
/// when absolute or when it climbs out of the folder.
fn inside(rel: &Path, key: &str) -> Result<String, String> {
    let mut parts: Vec<String> = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir if !parts.is_empty() => {
                parts.pop();
            }
            _ => {
                return Err(format!(
                    "{key} = '{}': the FMU packs files inside the scenario's folder only (move it beside the scenario)",
                    rel.display()
                ));
            }
        }
    }
    if parts.is_empty() {
        return Err(format!("{key} = '{}': not a file", rel.display()));
    }
    Ok(parts.join("/"))
}

/// Every `import.file` of a model (TOML or JSON), relative to the model.
fn imports(model: &Value, out: &mut Vec<String>) {
    match model {
        Value::Object(map) => {
            if let Some(Value::String(f)) = map.get("import").and_then(|i| i.get("file")) {
                out.push(f.clone());
            }
            map.values().for_each(|v| imports(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| imports(v, out)),
        _ => {}
    }
}

/// A glTF's external buffers and images, relative to it.
fn gltf_uris(doc: &Value) -> Vec<String> {
    ["buffers", "images"]
        .iter()
        .filter_map(|k| doc.get(*k).and_then(Value::as_array))
        .flatten()
        .filter_map(|b| b.get("uri").and_then(Value::as_str))
        .filter(|u| !u.starts_with("data:"))
        .map(str::to_string)
        .collect()
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Value, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", path.display()))?;
    match path.extension().and_then(|e| e.to_str()) {
        Some("json" | "gltf") => serde_json::from_str(text).map_err(|e| format!("{}: {e}", path.display())),
        _ => {
            let t: toml::Value = toml::from_str(text).map_err(|e| format!("{}: {e}", path.display()))?;
            serde_json::to_value(t).map_err(|e| format!("{}: {e}", path.display()))
        }
    }
}

/// The files a mechanism scenario names (its models and what they import), as paths inside
/// its folder with their bytes, in a fixed order.
pub fn resources(sc: &Scenario) -> Result<Vec<(String, Vec<u8>)>, String> {
    let dir = sc.path.parent().unwrap_or(Path::new("")).to_path_buf();
    let Some(spec) = &sc.file.mechanism else { return Err("the scenario has no [mechanism]".into()) };
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut add = |rel: String, key: &str| -> Result<Option<(PathBuf, Vec<u8>)>, String> {
        if files.iter().any(|(r, _)| *r == rel) {
            return Ok(None);
        }
        let path = dir.join(&rel);
        let bytes = input::read(&path).map_err(|e| format!("{key}: {}: {e}", path.display()))?;
        files.push((rel, bytes.clone()));
        Ok(Some((path, bytes)))
    };
    for (k, b) in spec.bodies.iter().enumerate() {
        let key = format!("mechanism.bodies.{k}.model");
        let rel = inside(Path::new(&b.model), &key)?;
        let Some((path, bytes)) = add(rel.clone(), &key)? else { continue };
        let mut found = Vec::new();
        imports(&parse(&path, &bytes)?, &mut found);
        let here = Path::new(&rel).parent().unwrap_or(Path::new("")).to_path_buf();
        for f in found {
            let key = format!("{}: import.file", path.display());
            let irel = inside(&here.join(&f), &key)?;
            let Some((ipath, ibytes)) = add(irel.clone(), &key)? else { continue };
            if ipath.extension().is_some_and(|e| e == "gltf") {
                let ihere = Path::new(&irel).parent().unwrap_or(Path::new("")).to_path_buf();
                for u in gltf_uris(&parse(&ipath, &ibytes)?) {
                    let key = format!("{}: uri", ipath.display());
                    add(inside(&ihere.join(&u), &key)?, &key)?;
                }
            }
        }
    }
    Ok(files)
}

/// The instantiation token of a scenario's text and resources.
pub fn scenario_token(text: &str, files: &[(String, Vec<u8>)]) -> String {
    let mut parts: Vec<&[u8]> = vec![text.as_bytes()];
    for (rel, bytes) in files {
        parts.push(rel.as_bytes());
        parts.push(bytes);
    }
    token(&parts)
}

/// Packs `scenario` with the shared library `library` into the `.fmu` at `out`; returns the
/// number of variables.
pub fn pack(scenario: &Path, library: &Path, out: &Path) -> Result<usize, String> {
    let sc = Scenario::load(scenario, &[]).map_err(|e| e.to_string())?;
    let unit = Unit::new(&sc)?;
    let files = resources(&sc)?;
    let token = scenario_token(&sc.text, &files);
    let lib = input::read(library).map_err(|e| format!("{}: cannot read the FMU's library: {e}", library.display()))?;
    let (tuple, ext) = platform()?;
    let description = sc.file.description.clone();
    let mut entries: Vec<(String, Vec<u8>)> = vec![
        ("modelDescription.xml".into(), model_description(&unit, &token, &description).into_bytes()),
        (format!("binaries/{tuple}/{MODEL_IDENTIFIER}.{ext}"), lib),
        (format!("resources/{SCENARIO}"), sc.text.clone().into_bytes()),
    ];
    entries.extend(files.into_iter().map(|(rel, bytes)| (format!("resources/{rel}"), bytes)));
    let archive = zip::stored(&entries)?;
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        output::folder(parent).map_err(|e| format!("{}: cannot be an output folder: {e}", parent.display()))?;
    }
    output::write(out, archive).map_err(|e| format!("{}: cannot write: {e}", out.display()))?;
    Ok(unit.variables().len())
}
