//! A snare-wire experiment's files: `timeseries.csv`, `summary.json`, plots and the animation.

use super::{WIRE_SPAN, WireExperiment, WireRun, WireSample, WireSummary};
use crate::outputs::RunDir;
use crate::plot::{Series, line_plot};
use crate::table::Table;
use std::path::Path;
use tumble_math::Vec3;

/// Steps between the samples `timeseries.csv` keeps: `simulation.output_interval` over the step
/// `dt`, or every step.
pub fn output_every(sc: &crate::Scenario, dt: f64) -> usize {
    sc.file.simulation.output_interval.map_or(1, |oi| ((oi / dt).round() as usize).max(1))
}

/// Every `every`-th sample as `timeseries.csv` has them: the payload's velocity and rate, the
/// wire's friction and normal force, the impulse, the penetration, the energy and the work of
/// the push.
pub fn timeseries(run: &WireRun, every: usize) -> Table {
    let mut table = Table::new(
        [
            "t [s]",
            "vx [m/s]",
            "vy [m/s]",
            "omega [rad/s]",
            "friction [N]",
            "normal [N]",
            "impulse_x [N·s]",
            "impulse_y [N·s]",
            "penetration [m]",
            "energy [J]",
            "work [J]",
        ]
        .map(String::from)
        .to_vec(),
    );
    for s in run.samples.iter().step_by(every.max(1)) {
        let (v, f, j) = (s.velocity, s.force, s.impulse);
        table.push(&[s.t, v[0], v[1], s.omega, f[0], f[1], j[0], j[1], s.delta, s.energy, s.work]);
    }
    table
}

/// Writes `timeseries.csv` (every `every`-th step), `summary.json` and plots into `dir`.
pub fn write_wire_run(
    dir: &Path,
    name: &str,
    exp: &WireExperiment,
    run: &WireRun,
    every: usize,
) -> Result<WireSummary, String> {
    let out = RunDir::create(dir)?;
    let kept: Vec<&WireSample> = run.samples.iter().step_by(every.max(1)).collect();
    out.csv("timeseries.csv", |w| timeseries(run, every).write_csv(w))?;
    let t: Vec<f64> = kept.iter().map(|s| s.t).collect();
    let col = |f: &dyn Fn(&WireSample) -> f64| kept.iter().map(|s| f(s)).collect::<Vec<f64>>();
    let plots: [(&str, &str, &str, Vec<Series>); 4] = [
        (
            "velocity",
            "Centre-of-mass velocity",
            "m/s",
            vec![
                Series { label: "vx".into(), x: &t, y: col(&|s| s.velocity[0]) },
                Series { label: "vy".into(), x: &t, y: col(&|s| s.velocity[1]) },
            ],
        ),
        (
            "angular_velocity",
            "Angular velocity",
            "rad/s",
            vec![Series { label: "ω".into(), x: &t, y: col(&|s| s.omega) }],
        ),
        (
            "force",
            "Wire force on the probe",
            "N",
            vec![
                Series { label: "normal".into(), x: &t, y: col(&|s| s.force[1]) },
                Series { label: "friction".into(), x: &t, y: col(&|s| s.force[0]) },
            ],
        ),
        (
            "impulse",
            "Impulse given by the wire",
            "N·s",
            vec![
                Series { label: "along the chord".into(), x: &t, y: col(&|s| s.impulse[0]) },
                Series { label: "normal".into(), x: &t, y: col(&|s| s.impulse[1]) },
            ],
        ),
    ];
    for (stem, title, unit, series) in &plots {
        line_plot(&out.plot(stem), title, "time (s)", unit, series, false)?;
    }
    let summary = WireSummary::new(name, exp, run)?;
    out.json("summary.json", &serde_json::to_value(&summary).map_err(|e| e.to_string())?)?;
    animation(exp, &kept).write_glb(&dir.join("animation.glb"))?;
    Ok(summary)
}

/// The experiment as an animation in its plane (z up): the target as the square plate of its
/// mass and planar inertia (`I = m s²/6`) with its probe to the tip, the wire (bent at the tip
/// while the tip presses it) and its force on the probe.
pub fn animation(exp: &WireExperiment, samples: &[&WireSample]) -> crate::anim::Animation {
    use crate::anim::{Animation, box_mesh, rod};
    use tumble_math::{Mat3, UnitQuat};
    let side = (6.0 * exp.inertia / exp.mass).sqrt();
    let mut anim = Animation::new();
    let tip = Vec3::new(exp.probe[0], exp.probe[1], 0.0);
    anim.body(
        "target",
        vec![
            box_mesh(
                &Vec3::zeros(),
                &Mat3::identity(),
                &Vec3::new(0.5 * side, 0.5 * side, 0.05 * side),
                [0.3, 0.5, 0.8, 1.0],
            ),
            rod(&Vec3::zeros(), &tip, 0.01, [0.8, 0.8, 0.8, 1.0]),
        ],
    );
    // The wire from its ends to the probe's tip while the tip presses it (its two segments),
    // straight otherwise; the wire's force on the probe at the tip, the largest as long as the
    // target's side.
    anim.strand("wire to the left end", 0.006, [0.9, 0.3, 0.2, 1.0]);
    anim.strand("wire to the right end", 0.006, [0.9, 0.3, 0.2, 1.0]);
    let peak = samples.iter().map(|s| s.force[0].hypot(s.force[1])).fold(0.0, f64::max);
    let per_newton = if peak > 0.0 { side / peak } else { 0.0 };
    anim.arrow("wire force", 0.02 * side, crate::anim::FORCE_COLOR);
    let ends = [Vec3::zeros(), Vec3::new(WIRE_SPAN, 0.0, 0.0)];
    for s in samples {
        let [x, y, th] = s.pose;
        let q = UnitQuat::from_axis_angle(&Vec3::z_axis(), th);
        let p = Vec3::new(x, y, 0.0);
        anim.frame(s.t, &[(p, q)]);
        let at = p + q * tip;
        let pressed = s.force[1] != 0.0;
        let bend = if pressed { at } else { 0.5 * (ends[0] + ends[1]) };
        let force = Vec3::new(s.force[0], s.force[1], 0.0) * per_newton;
        anim.overlays(&[(ends[0], bend - ends[0]), (ends[1], bend - ends[1]), (at, force)]);
    }
    anim
}
