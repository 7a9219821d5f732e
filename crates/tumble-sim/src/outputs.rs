//! What every application's outputs share: the run's folder and its files (written with errors
//! that name the folder and the file, refusing absurd numbers), and small formatting helpers.
//! It knows no application (test `shared_modules_import_no_application` in `registry.rs`).

use crate::pipeline::ABSURD;
use serde_json::Value;
use std::fs;
use std::io::BufWriter;
use std::path::Path;
use tumble_math::output;

/// A run's output folder: created with its `plots/`, every file written with an error that
/// names the folder and the file.
pub(crate) struct RunDir<'a>(&'a Path);

/// Refuses `dir` as an output folder (creating nothing) when it resolves to a file system's
/// root or is a symbolic link or a file (`tumble_math::output::check_folder`): outputs go into
/// a folder of their own (a run, a campaign or a merge writes several files and `plots/`
/// there), and nothing is written through a link.
pub(crate) fn output_folder(dir: &Path) -> Result<(), String> {
    output::check_folder(dir).map_err(|e| format!("{}: cannot be an output folder: {e}", dir.display()))
}

/// Creates the output folder `dir` as [`output_folder`] allows.
pub(crate) fn create_output_folder(dir: &Path) -> Result<(), String> {
    output::folder(dir).map_err(|e| format!("{}: cannot be an output folder: {e}", dir.display()))
}

/// Creates `dir/plots` (refusing a link there) and removes the plots of an earlier run in it
/// (`*.png`, `*.svg`: the entries themselves, a link and not what it points to), so that every
/// plot there is this run's.
pub(crate) fn fresh_plots(dir: &Path) -> Result<std::path::PathBuf, String> {
    let error = |e: std::io::Error| format!("{}: cannot write plots/: {e}", dir.display());
    let plots = output::subfolder(dir, "plots").map_err(error)?;
    for entry in fs::read_dir(&plots).map_err(error)?.filter_map(|e| e.ok()) {
        let p = entry.path();
        let plot = matches!(p.extension().and_then(|x| x.to_str()), Some("png" | "svg"));
        let dir_entry = entry.file_type().is_ok_and(|t| t.is_dir());
        if plot && !dir_entry {
            output::remove(&p).map_err(error)?;
        }
    }
    Ok(plots)
}

impl<'a> RunDir<'a> {
    /// Creates `dir` and `dir/plots`, the one place a run's output folder is made: a file
    /// system's root and links are refused ([`output_folder`]), and the plots of an earlier run
    /// in the same folder are removed ([`fresh_plots`]; the other files are rewritten).
    pub(crate) fn create(dir: &'a Path) -> Result<Self, String> {
        create_output_folder(dir)?;
        fresh_plots(dir)?;
        Ok(RunDir(dir))
    }

    fn error(&self, what: &str, e: std::io::Error) -> String {
        format!("{}: cannot write {what}: {e}", self.0.display())
    }

    /// Writes the file `name` through `write` (buffered, `tumble_math::output::write_with`):
    /// where `write` fails nothing is put in place (a table that refuses an absurd value leaves
    /// no file).
    pub(crate) fn csv(
        &self,
        name: &str,
        write: impl FnOnce(&mut BufWriter<output::FileOut>) -> std::io::Result<()>,
    ) -> Result<(), String> {
        output::write_with(&self.0.join(name), write).map_err(|e| self.error(name, e))
    }

    /// Writes `value` as pretty JSON to the file `name`; refuses (writing nothing) a value
    /// holding a number beyond [`ABSURD`] in magnitude (see [`absurd_in`]).
    pub(crate) fn json(&self, name: &str, value: &Value) -> Result<(), String> {
        write_json(&self.0.join(name), value)
    }

    /// The `plots/` folder.
    pub(crate) fn plots(&self) -> std::path::PathBuf {
        self.0.join("plots")
    }

    /// The path of a plot (without extension) in `plots/`.
    pub(crate) fn plot(&self, stem: &str) -> std::path::PathBuf {
        self.plots().join(stem)
    }
}

/// Writes `value` as pretty JSON to `path` (`tumble_math::output::write`); refuses (writing
/// nothing) a value holding a number beyond [`ABSURD`] in magnitude (see [`absurd_in`]).
pub(crate) fn write_json(path: &Path, value: &Value) -> Result<(), String> {
    if let Some((key, x)) = absurd_in(value, "") {
        return Err(format!(
            "{}: not written: `{key}` = {x:e}, beyond any physical magnitude ({ABSURD:e}); the run's inputs are out of physical range (masses, speeds, stiffnesses)",
            path.display()
        ));
    }
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    output::write(path, text + "\n").map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

/// The first number in `v` (JSON) beyond [`ABSURD`] in magnitude, with its key path under
/// `path`: a product of inputs out of physical range (the potential energy of a 1e30 kg body)
/// that no state guard sees.
pub(crate) fn absurd_in(v: &Value, path: &str) -> Option<(String, f64)> {
    let at = |k: &dyn std::fmt::Display| if path.is_empty() { k.to_string() } else { format!("{path}.{k}") };
    match v {
        Value::Number(n) => n.as_f64().filter(|x| x.abs() > ABSURD).map(|x| (path.to_string(), x)),
        Value::Array(a) => a.iter().enumerate().find_map(|(i, x)| absurd_in(x, &at(&i))),
        Value::Object(m) => m.iter().find_map(|(k, x)| absurd_in(x, &at(k))),
        _ => None,
    }
}

/// The first and last of a run's samples, or the error of a run that recorded none.
pub(crate) fn first_last<T>(samples: &[T]) -> Result<(&T, &T), String> {
    match (samples.first(), samples.last()) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err("the run recorded no samples".into()),
    }
}

/// Numbers as `[a, b, c]` with four decimals, for headlines.
pub(crate) fn vec3(v: &[f64]) -> String {
    let xs: Vec<String> = v.iter().map(|x| format!("{x:.4}")).collect();
    format!("[{}]", xs.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_absurd_summary_is_refused_by_key_and_not_written() {
        let v = json!({ "energy": { "initial_J": 1.0, "final_J": [0.0, -1.2e32] }, "name": "x" });
        assert_eq!(absurd_in(&v, ""), Some(("energy.final_J.1".to_string(), -1.2e32)));
        assert_eq!(absurd_in(&json!({ "a": 1e30, "b": null }), ""), None);
        let dir = std::env::temp_dir().join(format!("tumble_absurd_{}", std::process::id()));
        let out = RunDir::create(&dir).expect("folder");
        let e = out.json("summary.json", &v).expect_err("absurd");
        assert!(e.contains("`energy.final_J.1` = -1.2e32") && !dir.join("summary.json").exists(), "{e}");
        let _ = fs::remove_dir_all(&dir);
    }
}
