//! What every application's outputs share: the run's folder and its files (written with errors
//! that name the folder and the file, refusing absurd numbers), and small formatting helpers.
//! It knows no application (test `shared_modules_import_no_application` in `registry.rs`).

use crate::pipeline::ABSURD;
use serde_json::Value;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;

/// A run's output folder: created with its `plots/`, every file written with an error that
/// names the folder and the file.
pub(crate) struct RunDir<'a>(&'a Path);

/// Refuses `dir` as an output folder when it is a file system's root: outputs go into a
/// folder of their own (a run, a campaign or a merge writes several files and `plots/` there).
pub(crate) fn output_folder(dir: &Path) -> Result<(), String> {
    match dir.canonicalize() {
        Ok(full) if full.parent().is_none() => Err(format!(
            "{}: a file system's root cannot be an output folder; give a folder for the outputs (--out)",
            dir.display()
        )),
        _ => Ok(()),
    }
}

impl<'a> RunDir<'a> {
    /// Creates `dir` and `dir/plots`, the one place a run's output folder is made: a file
    /// system's root is refused (a run writes `plots/`, `summary.json`, … into its folder), and
    /// the plots of an earlier run in the same folder are removed, so that every plot there is
    /// this run's (the other files are rewritten; nothing but `plots/*.png` and `plots/*.svg` is
    /// removed).
    pub(crate) fn create(dir: &'a Path) -> Result<Self, String> {
        let out = RunDir(dir);
        output_folder(dir)?;
        let plots = dir.join("plots");
        fs::create_dir_all(&plots).map_err(|e| out.error("the output folder", e))?;
        let entries = fs::read_dir(&plots).map_err(|e| out.error("plots/", e))?;
        for p in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
            let plot = matches!(p.extension().and_then(|x| x.to_str()), Some("png" | "svg"));
            if plot && p.is_file() {
                fs::remove_file(&p).map_err(|e| out.error("plots/ (removing an earlier run's plot)", e))?;
            }
        }
        Ok(out)
    }

    fn error(&self, what: &str, e: std::io::Error) -> String {
        format!("{}: cannot write {what}: {e}", self.0.display())
    }

    /// Writes the file `name` through `write` (buffered, flushed); removes it where `write`
    /// fails (a table that refuses an absurd value leaves no file).
    pub(crate) fn csv(
        &self,
        name: &str,
        write: impl FnOnce(&mut BufWriter<fs::File>) -> std::io::Result<()>,
    ) -> Result<(), String> {
        let path = self.0.join(name);
        let mut w = BufWriter::new(fs::File::create(&path).map_err(|e| self.error(name, e))?);
        write(&mut w).and_then(|_| w.flush()).map_err(|e| {
            let _ = fs::remove_file(&path);
            self.error(name, e)
        })
    }

    /// Writes `value` as pretty JSON to the file `name`; refuses (writing nothing) a value
    /// holding a number beyond [`ABSURD`] in magnitude (see [`absurd_in`]).
    pub(crate) fn json(&self, name: &str, value: &Value) -> Result<(), String> {
        if let Some((key, x)) = absurd_in(value, "") {
            return Err(format!(
                "{}: {name} not written: `{key}` = {x:e}, beyond any physical magnitude ({ABSURD:e}); the run's inputs are out of physical range (masses, speeds, stiffnesses)",
                self.0.display()
            ));
        }
        let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
        fs::write(self.0.join(name), text + "\n").map_err(|e| self.error(name, e))
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
