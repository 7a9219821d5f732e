//! A mechanism run's files: `timeseries.csv`, `summary.json`, plots and the animation.

use super::{MechRun, Mechanism, MechanismSummary};
use crate::outputs::{RunDir, first_last};
use crate::plot::{Series, line_plot};
use crate::table::Table;
use std::path::Path;
use tumble_math::{UnitQuat, Vec3};

/// A snare's columns: its closing angle and rate, the carriage's retraction and speed, the
/// drives' outputs, each wire's contact force and the face's normal force.
const SNARE_COLUMNS: [&str; 10] = [
    "snare_angle [deg]",
    "snare_rate [rad/s]",
    "carriage [m]",
    "carriage_speed [m/s]",
    "snare_torque [N·m]",
    "carriage_force [N]",
    "wire_1 [N]",
    "wire_2 [N]",
    "wire_3 [N]",
    "face [N]",
];

/// The samples as `timeseries.csv` has them: per moving body its position, velocity, rate,
/// contact wrench, attitude and the contact force's normal and friction parts; the number of
/// contacts and the energy.
pub fn timeseries(m: &Mechanism, run: &MechRun) -> Table {
    let free: Vec<usize> = (0..m.bodies.len()).filter(|&i| m.bodies[i].moves()).collect();
    let mut head = vec!["t [s]".to_string()];
    for &i in &free {
        let n = &m.bodies[i].name;
        for q in
            ["x [m]", "y [m]", "z [m]", "vx [m/s]", "vy [m/s]", "vz [m/s]", "wx [rad/s]", "wy [rad/s]", "wz [rad/s]"]
                .into_iter()
                .chain([
                    "contact_fx [N]",
                    "contact_fy [N]",
                    "contact_fz [N]",
                    "contact_tx [N·m]",
                    "contact_ty [N·m]",
                    "contact_tz [N·m]",
                ])
                .chain(["qw [1]", "qx [1]", "qy [1]", "qz [1]"])
                .chain([
                    "normal_fx [N]",
                    "normal_fy [N]",
                    "normal_fz [N]",
                    "friction_fx [N]",
                    "friction_fy [N]",
                    "friction_fz [N]",
                ])
        {
            head.push(format!("{n}.{q}"));
        }
    }
    head.extend(["contacts [1]".into(), "energy [J]".into()]);
    if m.snare.is_some() {
        head.extend(SNARE_COLUMNS.map(String::from));
    }
    if let Some(b) = &m.berthing {
        head.extend(super::latch::output::columns(b));
    }
    let mut table = Table::new(head);
    for s in &run.samples {
        let mut row = vec![s.t];
        for &i in &free {
            row.extend(s.bodies[i].iter().flat_map(|v| v.iter().copied()));
            row.extend(tumble_math::quat_to_wxyz(&s.attitudes[i]));
            row.extend(s.split[i].iter().flat_map(|v| v.iter().copied()));
        }
        row.extend([s.contacts as f64, s.energy]);
        if let Some(sn) = &s.snare {
            row.extend([sn.angle[0].to_degrees(), sn.angle[1], sn.retraction[0], sn.retraction[1]]);
            row.extend(sn.drives.iter().chain(&sn.wires).chain([&sn.face]));
        }
        if let Some(b) = &s.berthing {
            row.extend(super::latch::output::row(b));
        }
        table.push(&row);
    }
    table
}

/// Writes `timeseries.csv`, `summary.json` and plots (positions, contact forces, energy) into
/// `dir`.
pub fn write_mechanism_run(dir: &Path, m: &Mechanism, run: &MechRun) -> Result<MechanismSummary, String> {
    let out = RunDir::create(dir)?;
    first_last(&run.samples)?;
    // Bodies that move: free ones and those carried by the arm.
    let free: Vec<usize> = (0..m.bodies.len()).filter(|&i| m.bodies[i].moves()).collect();
    out.csv("timeseries.csv", |w| timeseries(m, run).write_csv(w))?;
    let t: Vec<f64> = run.samples.iter().map(|s| s.t).collect();
    let col =
        |i: usize, f: &dyn Fn(&[Vec3; 5]) -> f64| run.samples.iter().map(|s| f(&s.bodies[i])).collect::<Vec<f64>>();
    let mut position = Vec::new();
    let mut force = Vec::new();
    for &i in &free {
        let n = &m.bodies[i].name;
        for (k, axis) in ["x", "y", "z"].iter().enumerate() {
            position.push(Series { label: format!("{n} {axis}"), x: &t, y: col(i, &|b| b[0][k]) });
        }
        for (k, axis) in ["Fx", "Fy", "Fz"].iter().enumerate() {
            force.push(Series { label: format!("{n} {axis}"), x: &t, y: col(i, &|b| b[3][k]) });
        }
        for (k, part) in ["normal", "friction"].iter().enumerate() {
            let y = run.samples.iter().map(|s| s.split[i][k].norm()).collect();
            force.push(Series { label: format!("{n} |{part}|"), x: &t, y });
        }
    }
    line_plot(&out.plot("position"), "Centre of mass positions", "time [s]", "m", &position, false)?;
    let title = "Contact force on each moving body: components (W) and its normal and friction parts";
    line_plot(&out.plot("contact_force"), title, "time [s]", "N", &force, false)?;
    let energy =
        vec![Series { label: "T + V_g + V_springs".into(), x: &t, y: run.samples.iter().map(|s| s.energy).collect() }];
    line_plot(&out.plot("energy"), "Mechanical energy", "time [s]", "J", &energy, false)?;
    if m.snare.is_some() {
        snare_plots(&out, run, &t)?;
    }
    if let Some(b) = &m.berthing {
        super::latch::output::plots(&out, b, run, &t)?;
    }
    let summary = MechanismSummary::new(m, run)?;
    out.json("summary.json", &serde_json::to_value(&summary).map_err(|e| e.to_string())?)?;
    animation(m, run).write_glb(&dir.join("animation.glb"))?;
    Ok(summary)
}

/// A snare's plots: the wires' and the face's forces with the carriage's pull, and the drives'
/// closing angle and retraction.
fn snare_plots(out: &RunDir, run: &MechRun, t: &[f64]) -> Result<(), String> {
    let col = |f: &dyn Fn(&super::SnareSample) -> f64| {
        run.samples.iter().map(|s| s.snare.as_ref().map_or(0.0, f)).collect::<Vec<f64>>()
    };
    let mut forces: Vec<Series> =
        (0..3).map(|k| Series { label: format!("wire {}", k + 1), x: t, y: col(&|s| s.wires[k]) }).collect();
    forces.push(Series { label: "face (normal)".into(), x: t, y: col(&|s| s.face) });
    forces.push(Series { label: "carriage drive".into(), x: t, y: col(&|s| s.drives[1]) });
    line_plot(
        &out.plot("snare_forces"),
        "Snare: contact force on each wire, the face's load, the carriage's pull",
        "time [s]",
        "N",
        &forces,
        false,
    )?;
    let drives = vec![
        Series { label: "closing angle [deg]".into(), x: t, y: col(&|s| s.angle[0].to_degrees()) },
        Series { label: "retraction [mm]".into(), x: t, y: col(&|s| 1e3 * s.retraction[0]) },
        Series { label: "closing torque [N·m]".into(), x: t, y: col(&|s| s.drives[0]) },
    ];
    line_plot(&out.plot("snare_drives"), "Snare drives", "time [s]", "deg, mm, N·m", &drives, false)
}

/// The run as an animation: every body's primitives, moving bodies animated.
pub fn animation(m: &Mechanism, run: &MechRun) -> crate::anim::Animation {
    use crate::anim::{Animation, primitive_mesh};
    const PALETTE: [[f32; 4]; 5] = [
        [0.85, 0.45, 0.1, 1.0],
        [0.2, 0.45, 0.8, 1.0],
        [0.3, 0.7, 0.35, 1.0],
        [0.75, 0.2, 0.5, 1.0],
        [0.6, 0.6, 0.6, 1.0],
    ];
    let mut anim = Animation::new();
    // The scene's size: the largest body's bounding radius.
    let size = m
        .bodies
        .iter()
        .filter_map(|b| b.model.nodes[b.model.bodies[0].root as usize].bv)
        .map(|bv| bv.bounding_sphere().1)
        .filter(|r| r.is_finite())
        .fold(0.0, f64::max)
        .max(1e-3);
    let moving: Vec<usize> = (0..m.bodies.len()).filter(|&i| m.bodies[i].moves()).collect();
    for (i, b) in m.bodies.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let meshes = b.model.prims.iter().map(|p| primitive_mesh(&p.shape, size, color)).collect();
        if moving.contains(&i) {
            anim.body(&b.name, meshes);
        } else {
            anim.scenery(&b.name, meshes, &b.start.p_WB, &b.start.q_WB);
        }
    }
    // A snare's wires move after the bodies.
    if let Some(sn) = &m.snare {
        for k in 1..=3 {
            let meshes = sn.wire.prims.iter().map(|p| primitive_mesh(&p.shape, size, PALETTE[4])).collect();
            anim.body(&format!("wire_{k}"), meshes);
        }
    }
    // A berthing's hooks after those.
    if let Some(b) = &m.berthing {
        for l in &b.latches {
            let meshes = l.hook.prims.iter().map(|p| primitive_mesh(&p.shape, size, PALETTE[3])).collect();
            anim.body(&format!("hook_{}", l.name), meshes);
        }
    }
    // Contact-force arrows at the moving bodies' centres of mass, the largest force as long as
    // the largest body's radius.
    let peak = run.samples.iter().flat_map(|s| moving.iter().map(|&i| s.bodies[i][3].norm())).fold(0.0, f64::max);
    let per_newton = if peak > 0.0 { size / peak } else { 0.0 };
    for &i in &moving {
        anim.arrow(&format!("{} contact force", m.bodies[i].name), 0.03 * size, crate::anim::FORCE_COLOR);
    }
    for s in &run.samples {
        let mut poses: Vec<(Vec3, UnitQuat)> = moving.iter().map(|&i| (s.bodies[i][0], s.attitudes[i])).collect();
        poses.extend(s.snare.iter().flat_map(|sn| sn.poses));
        poses.extend(s.berthing.iter().flat_map(|b| b.hooks.iter().copied()));
        anim.frame(s.t, &poses);
        let arrows: Vec<(Vec3, Vec3)> = moving.iter().map(|&i| (s.bodies[i][0], s.bodies[i][3] * per_newton)).collect();
        anim.overlays(&arrows);
    }
    anim
}
