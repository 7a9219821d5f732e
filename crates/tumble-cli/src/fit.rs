//! `tumble fit contact`: least-squares identification of a contact law from measured data.

use crate::{Failure, output};
use clap::{Subcommand, ValueEnum};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use tumble_contact::identify::{Fit, FitModel, Point, fit};

#[derive(Subcommand)]
pub enum FitCommand {
    /// Fit a contact force law to force–displacement (and velocity) data: coefficients, standard
    /// errors, R², and a plot of data and fit.
    #[command(
        after_help = "DATA.csv has a header naming `displacement` (m) and `force` (N), optionally `velocity` (m/s).

Models:
  quadratic      F = A δ² + B δ + C
  power          F = k δ^p  (+ c sign(δ̇)|δ̇|^q with a velocity column)
  hunt-crossley  F = k δ^p + c δ^p δ̇  (needs velocity)

Examples:
  tumble fit contact wire_s90.csv --model quadratic
  tumble fit contact impact.csv --model hunt-crossley --json --out out/fit"
    )]
    Contact {
        /// CSV file with a header.
        data: PathBuf,
        /// The law to fit.
        #[arg(long, value_enum)]
        model: Model,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Folder for the plot [default: out/fit].
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Model {
    Quadratic,
    Power,
    HuntCrossley,
}

pub fn run(cmd: FitCommand) -> Result<(), Failure> {
    let FitCommand::Contact { data, model, json, out } = cmd;
    let points = read(&data)?;
    let model = match model {
        Model::Quadratic => FitModel::Quadratic,
        Model::Power => FitModel::Power,
        Model::HuntCrossley => FitModel::HuntCrossley,
    };
    let f = fit(model, &points).map_err(|e| format!("{}: {e}", data.display()))?;
    let out = out.unwrap_or_else(|| Path::new("out").join("fit"));
    tumble_math::output::folder(&out)
        .map_err(|e| output(format!("{}: cannot be an output folder: {e}", out.display())))?;
    let stem = out.join(format!(
        "{}_{}",
        data.file_stem().map_or("data".into(), |s| s.to_string_lossy().to_string()),
        name(model)
    ));
    plot(&stem, &f, &points).map_err(Failure::Output)?;
    if json {
        say!("{}", serde_json::to_string_pretty(&to_json(&f)).map_err(|e| e.to_string())?);
    } else {
        say!("{} fit of {} points ({}):", name(model), f.n, formula(&f));
        for ((n, v), se) in f.names.iter().zip(&f.values).zip(&f.std_errors) {
            say!("  {n:<2} = {v:>14.6e} ± {se:.2e}");
        }
        say!("  R² = {:.6}, RSS = {:.4e} N²; plot {}.png", f.r2, f.rss, stem.display());
    }
    Ok(())
}

fn name(m: FitModel) -> &'static str {
    match m {
        FitModel::Quadratic => "quadratic",
        FitModel::Power => "power",
        FitModel::HuntCrossley => "hunt-crossley",
    }
}

fn formula(f: &Fit) -> &'static str {
    match (f.model, f.names.len()) {
        (FitModel::Quadratic, _) => "F = A δ² + B δ + C",
        (FitModel::Power, 2) => "F = k δ^p",
        (FitModel::Power, _) => "F = k δ^p + c sign(δ̇)|δ̇|^q",
        (FitModel::HuntCrossley, _) => "F = k δ^p + c δ^p δ̇",
    }
}

fn to_json(f: &Fit) -> Value {
    let mut m = Map::new();
    m.insert("model".into(), json!(name(f.model)));
    m.insert("formula".into(), json!(formula(f)));
    m.insert("n".into(), json!(f.n));
    for ((n, v), se) in f.names.iter().zip(&f.values).zip(&f.std_errors) {
        m.insert((*n).into(), json!({"value": v, "std_error": se}));
    }
    m.insert(
        "coefficients".into(),
        Value::Object(f.names.iter().zip(&f.values).map(|(n, v)| ((*n).into(), json!(v))).collect()),
    );
    m.insert(
        "std_errors".into(),
        Value::Object(f.names.iter().zip(&f.std_errors).map(|(n, v)| ((*n).into(), json!(v))).collect()),
    );
    m.insert("r2".into(), json!(f.r2));
    m.insert("rss".into(), json!(f.rss));
    Value::Object(m)
}

fn plot(stem: &Path, f: &Fit, points: &[Point]) -> Result<(), String> {
    let data: Vec<(f64, f64)> = points.iter().map(|p| (p.delta, p.force)).collect();
    let curve: Vec<(f64, f64)> = if points.iter().any(|p| p.velocity.is_some_and(|v| v != 0.0)) {
        // With rates the fit is not a curve in (δ, F): draw the fitted force at each point.
        let mut c: Vec<(f64, f64)> =
            points.iter().map(|p| (p.delta, f.predict(p.delta, p.velocity.unwrap_or(0.0)))).collect();
        c.sort_by(|a, b| a.0.total_cmp(&b.0));
        c
    } else {
        let (lo, hi) = data.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |a, p| (a.0.min(p.0), a.1.max(p.0)));
        (0..=200).map(|i| lo + (hi - lo) * i as f64 / 200.0).map(|d| (d, f.predict(d, 0.0))).collect()
    };
    let title = format!("{} fit, R² = {:.5}", name(f.model), f.r2);
    tumble_sim::tools::fit_plot(stem, (&title, "displacement (m)", "force (N)"), &data, &curve)
}

/// Reads the CSV: a header naming `displacement`, `force` and optionally `velocity` (any order,
/// other columns ignored, `#` comments and blank lines skipped).
fn read(path: &Path) -> Result<Vec<Point>, String> {
    let text = tumble_math::input::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((_, header)) = lines.next() else { return Err(format!("{}: empty file", path.display())) };
    let cols: Vec<String> = header.split(',').map(|c| c.trim().to_lowercase()).collect();
    let find = |name: &str| {
        cols.iter().position(|c| {
            c == name
                || c.starts_with(&format!("{name} "))
                || c.starts_with(&format!("{name}_"))
                || c.starts_with(&format!("{name}["))
                || c.starts_with(&format!("{name}("))
        })
    };
    let (Some(d), Some(f)) = (find("displacement"), find("force")) else {
        return Err(format!(
            "{}:1: the header must name `displacement` (m) and `force` (N) columns, got `{}`",
            path.display(),
            header.trim()
        ));
    };
    let v = find("velocity");
    let mut points = vec![];
    for (i, line) in lines {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let num = |k: usize, what: &str| -> Result<f64, String> {
            let cell = cells.get(k).ok_or_else(|| format!("{}:{}: no {what} value", path.display(), i + 1))?;
            let x: f64 =
                cell.parse().map_err(|_| format!("{}:{}: {what} `{cell}` is not a number", path.display(), i + 1))?;
            if x.is_finite() {
                Ok(x)
            } else {
                Err(format!("{}:{}: {what} `{cell}` is not finite", path.display(), i + 1))
            }
        };
        points.push(Point {
            delta: num(d, "displacement")?,
            force: num(f, "force")?,
            velocity: v.map(|k| num(k, "velocity")).transpose()?,
        });
    }
    Ok(points)
}
