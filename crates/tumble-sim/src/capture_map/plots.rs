//! A capture study's plots: the funnel with sampled cost-to-go curves, the verdict against
//! the simulated outcome, and the nominal detumble's states and inputs.

use super::{CaptureReport, Sample};
use crate::plot::{Panel, Series, line_plot, panels_plot, scatter_groups};
use std::path::Path;
use tumble_math::nalgebra::DVector;

/// Writes `plots/funnel`, `plots/verdict`, `plots/detumble_angles`, `plots/detumble_rates` and
/// `plots/detumble_inputs` into `dir`.
pub(super) fn write(dir: &Path, rep: &CaptureReport) -> Result<(), String> {
    let rho0 = rep.funnel.rho0;
    let d = &rep.design;
    let steps = d.steps();
    let t: Vec<f64> = (0..=steps).map(|k| k as f64 * d.spec.dt).collect();
    let log = |y: &[f64]| y.iter().map(|v| v.max(1e-300).log10()).collect::<Vec<_>>();
    // (The nominal capture is the trajectory itself: its V is zero, not drawn.)
    let mut series = vec![Series { label: "funnel ρ(t)".into(), x: &t, y: log(&rep.funnel.rho) }];
    for s in rep.verification.iter().filter(|s| s.v0 < rho0 && s.rollout.cost_to_go.len() > 1).take(5) {
        let n = s.rollout.cost_to_go.len();
        series.push(Series { label: format!("sample {}", s.index), x: &t[..n], y: log(&s.rollout.cost_to_go) });
    }
    line_plot(
        &dir.join("plots/funnel"),
        "Funnel ρ(t) and simulated XᵀS(t)X",
        "time after capture (s)",
        "log10 cost-to-go",
        &series,
        false,
    )?;
    let point = |s: &Sample| ((s.v0_predicted / rho0).log10(), (s.rollout.final_rate / d.spec.goal_rate).log10());
    let outcome = |ok: bool| -> Vec<(f64, f64)> {
        rep.verification.iter().filter(|s| s.rollout.success == ok).map(point).collect()
    };
    let (detumbled, failed) = (outcome(true), outcome(false));
    scatter_groups(
        &dir.join("plots/verdict"),
        "Verdict margin vs simulated outcome (right of 0: predicted unsafe)",
        "log10 (X₀ᵀS₀X₀ / ρ₀)",
        "log10 (final rate / goal rate)",
        &[("detumbled", &detumbled), ("failed", &failed)],
    )?;
    detumble(dir, &d.theta_capture, &d.x_nom, &d.u_nom, d.spec.dt, "Nominal detumble")
}

/// A detumble's plots from its states `x(t) = [θ; ω; v; θ̇]` and inputs
/// `u(t) = [τ_base; f_base; τ_joints]` at steps of `dt`, titled `what` (the nominal detumble: the
/// trajectory the TVLQR was designed along, which the nominal capture follows).
pub(super) fn detumble(
    dir: &Path,
    theta_capture: &[f64],
    xs: &[DVector<f64>],
    us: &[DVector<f64>],
    dt: f64,
    what: &str,
) -> Result<(), String> {
    let n = theta_capture.len();
    let t: Vec<f64> = (0..xs.len()).map(|k| k as f64 * dt).collect();
    let t = &t;
    let component = |rows: &[DVector<f64>], i: usize, scale: f64, offset: f64| -> Vec<f64> {
        rows.iter().map(|x| scale * (x[i] - offset)).collect()
    };
    let deg = 180.0 / std::f64::consts::PI;
    let angles: Vec<Series> = (0..n)
        .map(|j| Series { label: format!("joint {}", j + 1), x: t, y: component(xs, j, deg, theta_capture[j]) })
        .collect();
    let ut = &t[..us.len().min(t.len())];
    let us = &us[..ut.len()];
    // Each quantity on an axis of its unit: base rates, base velocity, joint rates; base torque,
    // base force, joint torques.
    fn panel<'a>(
        rows: &[DVector<f64>],
        x: &'a [f64],
        unit: &str,
        what: &str,
        labels: &[String],
        first: usize,
    ) -> Panel<'a> {
        let series = labels
            .iter()
            .enumerate()
            .map(|(k, l)| Series { label: l.clone(), x, y: rows.iter().map(|r| r[first + k]).collect() })
            .collect();
        Panel { y_label: format!("{what} [{unit}]"), series }
    }
    let axes = |p: &str| ["x", "y", "z"].map(|a| format!("{p}{a}")).to_vec();
    let joints = |p: &str| (1..=n).map(|j| format!("{p} {j}")).collect::<Vec<_>>();
    let rates = [
        panel(xs, t, "rad/s", "base rate", &axes("ω"), n),
        panel(xs, t, "m/s", "base velocity", &axes("v"), n + 3),
        panel(xs, t, "rad/s", "joint rate", &joints("joint"), n + 6),
    ];
    let inputs = [
        panel(us, ut, "N·m", "base torque", &axes("τ"), 0),
        panel(us, ut, "N", "base force", &axes("f"), 3),
        panel(us, ut, "N·m", "joint torque", &joints("joint"), 6),
    ];
    let time = "time after capture [s]";
    line_plot(
        &dir.join("plots/detumble_angles"),
        &format!("{what}: joint angles from capture"),
        time,
        "angle from capture [deg]",
        &angles,
        false,
    )?;
    panels_plot(&dir.join("plots/detumble_rates"), &format!("{what}: rates"), time, &rates, &[])?;
    panels_plot(&dir.join("plots/detumble_inputs"), &format!("{what}: inputs"), time, &inputs, &[])
}

/// The nominal detumble as an animation (`animation.glb`): the chaser's links and the target
/// welded to its tool, as inertia-equivalent boxes, every `stride` design steps. The design's
/// state holds the joint angles and every rate but not the base's pose, which is integrated here
/// from the base's rates (midpoint rule at the design step, the quaternion renormalised).
pub fn animation(study: &super::CaptureStudy, rep: &CaptureReport) -> crate::anim::Animation {
    states_animation(study, &rep.design.x_nom, rep.design.spec.dt)
}

/// The detumble through the states `xs` at steps of `dt` as an animation (see [`animation`]).
pub(super) fn states_animation(study: &super::CaptureStudy, xs: &[DVector<f64>], dt: f64) -> crate::anim::Animation {
    let mb = &study.plant.model;
    let (n, nq, nv) = (study.plant.joints(), mb.nq(), mb.nv());
    let mut q = study.q.clone();
    let mut qd = vec![0.0; nq];
    let mut mid = vec![0.0; nq];
    let stride = (xs.len() / 600).max(1);
    let mut frames: Vec<(f64, Vec<f64>, Vec<f64>)> = Vec::with_capacity(xs.len() / stride + 1);
    for (k, x) in xs.iter().enumerate() {
        q[nq - n..].copy_from_slice(&x.as_slice()[..n]);
        let v = &x.as_slice()[n..n + nv];
        if k % stride == 0 {
            frames.push((k as f64 * dt, q.clone(), v.to_vec()));
        }
        mb.q_dot(&q, v, &mut qd);
        mid.iter_mut().zip(&q).zip(&qd).for_each(|((m, q), qd)| *m = q + 0.5 * dt * qd);
        mb.q_dot(&mid, v, &mut qd);
        q.iter_mut().zip(&qd).for_each(|(q, qd)| *q += dt * qd);
        mb.normalize(&mut q);
    }
    crate::arm::tree_animation(mb, frames.iter().map(|(t, q, v)| (*t, q.as_slice(), v.as_slice())))
}
