//! Scenario files: reading, patching by dotted key path, and errors that point into the file.
//!
//! Any value is addressed by its dotted path through tables, with array elements by index:
//! `simulation.dt`, `bodies.target.mass`, `bodies.target.angular_velocity.1`,
//! `bodies.probe.loads.0.force`. [`Scenario::load`] applies `path = value` overrides (the
//! CLI's `--set`, Monte Carlo dispersions) to the text before it is parsed, keeping the file's
//! layout, so error positions stay those of the user's file.

pub mod arm;
pub mod capture;
pub(crate) mod check;
mod error;
mod exact;
pub mod grapple;
mod kind;
pub mod lander;
pub mod mechanism;
pub mod membrane;
mod schema;
pub mod snare;
mod spans;

pub use error::ScenarioError;
pub(crate) use error::line_col;
pub use kind::{COMMON, Sections, check_kind};
pub use schema::*;

use std::path::{Path, PathBuf};

/// A parsed scenario and the text it came from.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The scenario file.
    pub path: PathBuf,
    /// The text after overrides.
    pub text: String,
    /// The parsed content.
    pub file: ScenarioFile,
    /// The parsed document, for sections only an application of its kind knows.
    pub table: toml::Table,
    /// Keys set by overrides.
    pub overridden: Vec<String>,
}

impl Scenario {
    /// Reads `path`, applies `overrides` (`(dotted.path, TOML value)`), and parses it.
    pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<Self, ScenarioError> {
        let text = tumble_math::input::read_to_string_max(path, MAX_SCENARIO_BYTES).map_err(|e| {
            let hint = match e.kind() {
                std::io::ErrorKind::NotFound => {
                    "no such file; give the path of a scenario .toml file (bundled scenarios are in scenarios/)"
                        .to_string()
                }
                _ => format!("cannot read the file: {e}"),
            };
            ScenarioError::file(path, hint)
        })?;
        Self::from_text(path, text, overrides)
    }

    /// Parses scenario `text` as if read from `path`.
    pub fn from_text(path: &Path, text: String, overrides: &[(String, String)]) -> Result<Self, ScenarioError> {
        if text.len() as u64 > MAX_SCENARIO_BYTES {
            let hint = format!(
                "{} bytes: a scenario has at most {MAX_SCENARIO_BYTES} (shape models and tables go in files it names)",
                text.len()
            );
            return Err(ScenarioError::file(path, hint));
        }
        let text = if overrides.is_empty() { text } else { apply_overrides(path, &text, overrides)? };
        let de = toml::Deserializer::parse(&text).map_err(|e| toml_error(path, &text, &e, None))?;
        let file: ScenarioFile = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            let key = (key != ".").then_some(key);
            toml_error(path, &text, e.inner(), key)
        })?;
        let table = text.parse::<toml::Table>().map_err(|e| toml_error(path, &text, &e, None))?;
        let sc = Self {
            path: path.to_path_buf(),
            table,
            text,
            file,
            overridden: overrides.iter().map(|(k, _)| k.clone()).collect(),
        };
        folder_name(&sc.file.name).map_err(|m| sc.error_at("name", m))?;
        step_count(&sc.file.simulation).map_err(|(key, m)| sc.error_at(key, m))?;
        Ok(sc)
    }

    /// What it simulates: its `kind` (empty when the file gives none), checked against its
    /// sections by the registry.
    pub fn kind(&self) -> &str {
        self.file.kind.as_deref().unwrap_or_default()
    }

    /// The top-level section `name` as the type `T` its application defines; an error names
    /// the key at fault (`name.path.to.key`) and its place in the file.
    pub fn section<T: serde::de::DeserializeOwned>(&self, name: &str) -> Result<T, ScenarioError> {
        let Some(value) = self.table.get(name).cloned() else {
            return Err(self.error_at(name, "missing"));
        };
        serde_path_to_error::deserialize(value).map_err(|e| {
            let at = e.path().to_string();
            let key = if at == "." { name.to_string() } else { format!("{name}.{at}") };
            self.error_at(&key, e.inner().message().to_string())
        })
    }

    /// A path named in the scenario, relative to the scenario file's folder.
    pub fn resolve(&self, path: &str) -> PathBuf {
        self.path.parent().unwrap_or(Path::new(".")).join(path)
    }

    /// An error about the value at `key`, placed at its line and column in the file.
    pub fn error_at(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        let position = toml_edit::Document::parse(self.text.as_str())
            .ok()
            .and_then(|doc| spans::span_of(&doc, key))
            .map(|s| error::line_col(&self.text, s.start));
        let mut message = message.into();
        if self.overridden.iter().any(|k| key == k || key.starts_with(&format!("{k}."))) {
            message.push_str(" (value set by an override)");
        }
        ScenarioError { file: self.path.clone(), position, key: Some(key.to_string()), message }
    }
}

/// Longest scenario `name`, characters.
pub const MAX_NAME_CHARS: usize = 100;

/// A scenario's `name` names its default output folder (`out/NAME`, `out/NAME_mc`): it must be
/// one plain folder name, so that no name writes outside `out/`.
fn folder_name(name: &str) -> Result<(), String> {
    let bad = name.is_empty()
        || name == "."
        || name == ".."
        || name.chars().count() > MAX_NAME_CHARS
        || name.chars().any(|c| matches!(c, '/' | '\\' | ':') || c.is_control());
    if bad {
        return Err(format!(
            "{name:?} cannot be a folder name (the default output folder is out/NAME): one folder name without `/`, `\\`, `:` or control characters, not `.` or `..`, at most {MAX_NAME_CHARS} characters, such as \"cube_phobos\""
        ));
    }
    Ok(())
}

/// Most steps of `simulation.dt` a run may take over `simulation.duration` (hours of computing
/// for the cheapest step; the bundled scenarios take at most 1e7): more is a mistake, such as
/// `dt = 1e-300`, that would run for ever.
pub const MAX_STEPS: f64 = 1e9;

fn step_count(sim: &schema::SimulationSpec) -> Result<(), (&'static str, String)> {
    step_budget(sim.max_steps).map_err(|e| ("simulation.max_steps", e.message))?;
    let Some(dt) = sim.dt.filter(|dt| *dt > 0.0) else { return Ok(()) };
    let steps = sim.duration / dt;
    if steps > MAX_STEPS {
        return Err((
            "simulation.dt",
            format!(
                "{dt} s over simulation.duration = {} s would take {steps:.1e} steps, more than {MAX_STEPS:.0e}: raise dt or shorten the duration",
                sim.duration
            ),
        ));
    }
    if sim.integrator != schema::IntegratorKind::Dopri5 {
        fixed_step_budget(dt, sim.duration, sim.max_steps).map_err(|e| ("simulation.max_steps", e.message))?;
    }
    Ok(())
}

/// Refuses a budget `max_steps` that `duration / dt` fixed steps (s, s) exceed.
pub fn fixed_step_budget(dt: f64, duration: f64, max_steps: Option<u64>) -> Result<(), crate::pipeline::BuildError> {
    let (budget, steps) = (step_budget(max_steps)?, (duration / dt).ceil());
    if steps > budget as f64 {
        let msg = format!(
            "is {budget}, but the fixed step dt = {dt} s takes {steps:.0} steps over simulation.duration = {duration} s: raise max_steps, raise dt or shorten the duration"
        );
        return Err(crate::pipeline::BuildError::new("simulation.max_steps", msg));
    }
    Ok(())
}

/// The most accepted steps a run may take: `simulation.max_steps`, by default [`MAX_STEPS`];
/// refused when zero.
pub fn step_budget(max_steps: Option<u64>) -> Result<u64, crate::pipeline::BuildError> {
    match max_steps {
        None => Ok(MAX_STEPS as u64),
        Some(0) => Err(crate::pipeline::BuildError::new("simulation.max_steps", "is 0: give at least 1 step")),
        Some(n) => Ok(n),
    }
}

/// Largest scenario file, bytes (4 MiB: the bundled ones are under 10 kB; shape models, tables
/// and URDFs are files a scenario names). Parsing takes memory in proportion to the text (up to
/// 67 times it, measured on 16 MiB of empty arrays), so this bounds it at about 300 MB.
pub const MAX_SCENARIO_BYTES: u64 = 4 << 20;

/// Parts a dotted key may have (`a.b.c` has 3): the bundled scenarios' deepest has 4; TOML's
/// parser stops at 80 without saying where.
pub const MAX_KEY_PARTS: usize = 32;

/// The number of parts of the dotted key `key` (dots inside quotes are part of a name).
fn key_parts(key: &str) -> usize {
    let mut quote = None;
    1 + key
        .chars()
        .filter(|&c| {
            match (quote, c) {
                (None, '"' | '\'') => quote = Some(c),
                (Some(q), _) if q == c => quote = None,
                _ => {}
            }
            quote.is_none() && c == '.'
        })
        .count()
}

/// The line (from 1) of the key in `text` with the most dotted parts, and their number: where a
/// parser's "recursion limit" without a position was reached.
fn deepest_key(text: &str) -> Option<(usize, usize)> {
    (text.lines().enumerate())
        .filter_map(|(i, l)| {
            let l = l.trim_start();
            let key =
                if l.starts_with('[') { l.trim_start_matches('[').split(']').next() } else { l.split('=').next() };
            key.map(|k| (i + 1, key_parts(k.trim())))
        })
        .max_by_key(|&(line, parts)| (parts, std::cmp::Reverse(line)))
}

fn toml_error(path: &Path, text: &str, e: &toml::de::Error, key: Option<String>) -> ScenarioError {
    parse_error(path, text, e.span(), e.message(), key)
}

/// A TOML reader's error (`toml` or `toml_edit`) at its position; its "recursion limit", which
/// comes without one, placed at the line of the deepest key.
fn parse_error(
    path: &Path,
    text: &str,
    span: Option<std::ops::Range<usize>>,
    message: &str,
    key: Option<String>,
) -> ScenarioError {
    let mut position = span.map(|s| error::line_col(text, s.start));
    let mut message = message.to_string();
    if position.is_none()
        && message.contains("recursion limit")
        && let Some((line, parts)) = deepest_key(text)
    {
        position = Some((line, 1));
        message = format!(
            "a key of {parts} dotted parts nests deeper than a TOML reader goes (80; the scenarios' keys have at most 4 parts)"
        );
    }
    ScenarioError { file: path.to_path_buf(), position, key, message }
}

/// Sets each `path = value` in the document, creating tables as needed.
fn apply_overrides(path: &Path, text: &str, overrides: &[(String, String)]) -> Result<String, ScenarioError> {
    let mut doc: toml_edit::DocumentMut =
        text.parse().map_err(|e: toml_edit::TomlError| parse_error(path, text, e.span(), e.message(), None))?;
    for (key, raw) in overrides {
        let bad = |m: &str| ScenarioError {
            file: path.to_path_buf(),
            position: None,
            key: Some(key.clone()),
            message: m.to_string(),
        };
        let value: toml_edit::Value = raw.parse().map_err(|_| {
            bad(&format!(
                "override value `{raw}` is not a TOML value (numbers as 1.5, arrays as [1, 2, 3], strings quoted)"
            ))
        })?;
        if key_parts(key) > MAX_KEY_PARTS {
            return Err(bad(&format!(
                "an override key has at most {MAX_KEY_PARTS} dotted parts (this one has {})",
                key_parts(key)
            )));
        }
        // TOML's own key syntax: `dispersions."lander.mass".sigma` names the quoted key.
        let keys = toml_edit::Key::parse(key).map_err(|_| {
            bad("an override key is a dotted path such as bodies.target.mass (a key with dots in it quoted: dispersions.\"lander.mass\")")
        })?;
        let parts: Vec<&str> = keys.iter().map(|k| k.get()).collect();
        if parts.iter().any(|p| p.is_empty()) {
            return Err(bad("an override key is a dotted path such as bodies.target.mass"));
        }
        set_path(doc.as_item_mut(), &parts, value).map_err(|m| bad(&m))?;
    }
    Ok(doc.to_string())
}

fn set_path(item: &mut toml_edit::Item, parts: &[&str], value: toml_edit::Value) -> Result<(), String> {
    use toml_edit::Item;
    match item {
        Item::Table(t) => set_in_table(t, parts, value),
        Item::ArrayOfTables(a) => {
            let (head, tail) = parts.split_first().ok_or("empty key path")?;
            let len = a.len();
            let t = index(head, len)
                .and_then(|i| a.get_mut(i).ok_or(format!("index {i} is out of range for {len} tables")))?;
            if tail.is_empty() {
                return Err(format!("`{head}` names a whole table; add the key to set inside it"));
            }
            set_in_table(t, tail, value)
        }
        Item::Value(v) => set_in_value(v, parts, value),
        Item::None => Err("the key has no parent table".to_string()),
    }
}

fn set_in_table(t: &mut toml_edit::Table, parts: &[&str], value: toml_edit::Value) -> Result<(), String> {
    let (head, tail) = parts.split_first().ok_or("empty key path")?;
    if tail.is_empty() {
        t.insert(head, toml_edit::Item::Value(value));
        return Ok(());
    }
    set_path(t.entry(head).or_insert_with(toml_edit::table), tail, value)
}

fn set_in_value(v: &mut toml_edit::Value, parts: &[&str], value: toml_edit::Value) -> Result<(), String> {
    use toml_edit::Value;
    let (head, tail) = parts.split_first().ok_or("empty key path")?;
    match v {
        Value::InlineTable(t) if tail.is_empty() => {
            t.insert(*head, value);
            Ok(())
        }
        Value::InlineTable(t) => {
            let c = t.get_mut(head).ok_or(format!("`{head}` is not in this inline table"))?;
            set_in_value(c, tail, value)
        }
        Value::Array(a) => {
            let i = index(head, a.len())?;
            if tail.is_empty() {
                a.replace(i, value);
                Ok(())
            } else {
                let c = a.get_mut(i).ok_or(format!("index {i} is out of range"))?;
                set_in_value(c, tail, value)
            }
        }
        _ => Err(format!("cannot set `{head}` inside a value that is neither a table nor an array")),
    }
}

fn index(part: &str, len: usize) -> Result<usize, String> {
    match part.parse::<usize>() {
        Ok(i) if i < len => Ok(i),
        Ok(i) => Err(format!("index {i} is out of range for {len} elements")),
        Err(_) => Err(format!("`{part}` is not an array index (0, 1, …)")),
    }
}
