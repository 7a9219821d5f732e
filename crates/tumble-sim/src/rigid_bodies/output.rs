//! A rigid-body run's outputs: `timeseries.csv`, `summary.json`, `plots/` and its animation.

use super::metrics;
use super::model::Model;
use super::run::{Outcome, RunResult};
use crate::outputs::RunDir;
use crate::plot::{Series, line_plot};
use serde_json::{Map, Value, json};
use std::path::Path;
use tumble_dynamics::Method;
use tumble_math::quat_to_wxyz;

/// Writes every output of a run into `dir` (created if needed). Returns the summary.
pub fn write_run(dir: &Path, scenario_file: &Path, model: &Model, res: &RunResult) -> Result<Value, String> {
    let out = RunDir::create(dir)?;
    out.csv("timeseries.csv", |w| res.recording.table().write_csv(w))?;
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
