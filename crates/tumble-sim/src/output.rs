//! A run's output folder: `timeseries.csv`, `summary.json` and `plots/`.

use crate::metrics;
use crate::model::Model;
use crate::pipeline::ABSURD;
use crate::plot::{Series, line_plot};
use crate::run::{Outcome, RunResult};
use serde_json::{Map, Value, json};
use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;
use tumble_dynamics::Method;
use tumble_math::quat_to_wxyz;

/// Writes every output of a run into `dir` (created if needed). Returns the summary.
pub fn write_run(dir: &Path, scenario_file: &Path, model: &Model, res: &RunResult) -> Result<Value, String> {
    let out = RunDir::create(dir)?;
    out.csv("timeseries.csv", |w| res.recording.write_csv(w))?;
    let summary = summary(scenario_file, model, res);
    out.json("summary.json", &summary)?;
    plots(&dir.join("plots"), model, res)?;
    animation(model, res).write_glb(&dir.join("animation.glb"))?;
    Ok(summary)
}

/// The run as an animation: each body as its inertia-equivalent box, animated.
pub fn animation(model: &Model, res: &RunResult) -> crate::anim::Animation {
    use tumble_math::{UnitQuat, Vec3};
    let mut anim = crate::anim::Animation::new();
    let bodies = &model.system.bodies;
    for (i, b) in bodies.iter().enumerate() {
        let shade = 0.35 + 0.5 * (i as f32 / bodies.len().max(1) as f32);
        anim.body(&b.name, vec![crate::anim::inertia_box(b.mass, &b.inertia, [0.9, shade, 0.2, 1.0])]);
    }
    let rec = &res.recording;
    let col = |name: &str| rec.column(name).unwrap_or_default();
    let t = col("t");
    let cols: Vec<[Vec<f64>; 7]> = bodies
        .iter()
        .map(|b| ["x", "y", "z", "qw", "qx", "qy", "qz"].map(|c| col(&format!("{}.{c}", b.name))))
        .collect();
    for (k, &tk) in t.iter().enumerate() {
        let poses: Vec<(Vec3, UnitQuat)> = cols
            .iter()
            .map(|c| {
                let v = |j: usize| c[j].get(k).copied().unwrap_or(0.0);
                let q = tumble_math::nalgebra::Quaternion::new(v(3), v(4), v(5), v(6));
                (Vec3::new(v(0), v(1), v(2)), UnitQuat::try_new(q, 0.0).unwrap_or_else(UnitQuat::identity))
            })
            .collect();
        anim.frame(tk, &poses);
    }
    anim
}

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

/// The run's `summary.json`: outcome, integrator counts, energy and momentum metrics.
pub fn summary(scenario_file: &Path, model: &Model, res: &RunResult) -> Value {
    let (status, detail) = match &res.outcome {
        Outcome::Completed => ("completed", Value::Null),
        Outcome::Stopped { event } => ("stopped", json!({ "event": event })),
        Outcome::Failed(d) => {
            ("failed", json!({ "time_s": d.time, "body": d.body, "what": d.what, "likely_cause": d.likely_cause }))
        }
    };
    let mut bodies = Map::new();
    for (i, b) in model.system.bodies.iter().enumerate() {
        let s = model.system.body_state(&res.final_state, i);
        bodies.insert(
            b.name.clone(),
            json!({
                "position_m": s.p_WB.as_slice(),
                "velocity_m_per_s": s.v_WB.as_slice(),
                "orientation_wxyz": quat_to_wxyz(&s.q_WB),
                "angular_velocity_body_rad_per_s": s.w_WB_B.as_slice(),
            }),
        );
    }
    let integrator = match model.method {
        Method::Rk4 { dt } => json!({ "method": "rk4", "dt_s": dt }),
        Method::SymplecticEuler { dt } => json!({ "method": "symplectic_euler", "dt_s": dt }),
        Method::Dopri5(s) => json!({ "method": "dopri5", "rtol": s.rtol, "atol": s.atol, "max_step_s": s.h_max }),
    };
    json!({
        "scenario": model.name,
        "description": model.description,
        "file": scenario_file.display().to_string(),
        "seed": model.seed,
        "status": status,
        "detail": detail,
        "integrator": integrator,
        "t_end_s": res.t_end,
        "duration_s": model.duration,
        "wall_time_s": res.wall_time,
        "steps": res.stats.steps,
        "rejected_steps": res.stats.rejected,
        "rhs_evaluations": res.stats.evaluations,
        "samples": res.recording.len(),
        "final_state": bodies,
        "metrics": metrics::compute(model, &res.recording),
        "tumble_version": env!("CARGO_PKG_VERSION"),
    })
}

fn plots(dir: &Path, model: &Model, res: &RunResult) -> Result<(), String> {
    let rec = &res.recording;
    let col = |n: &str| rec.column(n).unwrap_or_default();
    let t = col("t");
    let series = |names: &[(&str, &str)]| -> Vec<Series> {
        names.iter().map(|(c, label)| Series { label: label.to_string(), x: &t, y: col(c) }).collect()
    };
    line_plot(
        &dir.join("energy"),
        "Energy",
        "time [s]",
        "energy [J]",
        &series(&[
            ("kinetic_energy", "kinetic T"),
            ("potential_energy", "potential V"),
            ("energy_balance", "T + V − W (conserved)"),
        ]),
        false,
    )?;
    let bal = col("energy_balance");
    let (kin, pot) = (col("kinetic_energy"), col("potential_energy"));
    let scale =
        (kin.first().copied().unwrap_or(0.0) + pot.first().copied().unwrap_or(0.0).abs()).max(f64::MIN_POSITIVE);
    let e0 = bal.first().copied().unwrap_or(0.0);
    let err = Series { label: String::new(), x: &t, y: bal.iter().map(|e| (e - e0) / scale).collect() };
    line_plot(
        &dir.join("energy_error"),
        "Energy error (T + V − W − E₀) / (T₀ + |V₀|)",
        "time [s]",
        "relative error [-]",
        &[err],
        false,
    )?;
    line_plot(
        &dir.join("angular_momentum"),
        "Angular momentum about the world origin",
        "time [s]",
        "H [kg·m²/s]",
        &series(&[("Hx", "Hx"), ("Hy", "Hy"), ("Hz", "Hz"), ("H_norm", "|H|")]),
        false,
    )?;
    let mut traj = Vec::new();
    let mut moved = false;
    for b in &model.system.bodies {
        let n = &b.name;
        line_plot(
            &dir.join(format!("angular_velocity_{n}")),
            &format!("Angular velocity of `{n}` (body axes)"),
            "time [s]",
            "ω [rad/s]",
            &series(&[(&format!("{n}.wx"), "ωx"), (&format!("{n}.wy"), "ωy"), (&format!("{n}.wz"), "ωz")]),
            false,
        )?;
        let (x, y) = (col(&format!("{n}.x")), col(&format!("{n}.y")));
        let varies = |v: &[f64]| v.first().is_some_and(|&v0| v.iter().any(|&vi| vi != v0));
        moved |= varies(&x) || varies(&y);
        traj.push((n.clone(), x, y));
    }
    if moved {
        let s: Vec<Series> = traj.iter().map(|(n, x, y)| Series { label: n.clone(), x, y: y.clone() }).collect();
        line_plot(&dir.join("trajectory_xy"), "Trajectory, world x–y plane", "x [m]", "y [m]", &s, true)?;
    }
    Ok(())
}

/// Numbers as `[a, b, c]` with four decimals, for headlines.
pub(crate) fn vec3(v: &[f64]) -> String {
    let xs: Vec<String> = v.iter().map(|x| format!("{x:.4}")).collect();
    format!("[{}]", xs.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

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
