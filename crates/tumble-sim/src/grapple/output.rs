//! A grapple capture's files: `timeseries.csv`, `summary.json`, plots and the animation.

use super::sim::rotation;
use super::{Effector, GrappleCapture, GrappleRun, GrappleSample, GrappleSummary};
use crate::outputs::{RunDir, first_last};
use crate::plot::{Series, line_plot};
use crate::snare::WIRE_SPAN;
use crate::table::Table;

use std::path::Path;
use tumble_math::{Mat3, UnitQuat, Vec3};

/// The samples as `timeseries.csv` has them: joint and motor angles, the wire and face loads,
/// the payload's pose, velocity and impulse, the energy and the snare's closing angle.
pub fn timeseries(run: &GrappleRun) -> Table {
    let (nq, nf) = run.samples.first().map_or((0, 0), |s| (s.q.len(), s.motors.len()));
    let mut head = vec!["t [s]".to_string()];
    head.extend((0..nq).map(|i| format!("q{i} [rad]")));
    head.extend((0..nf).map(|i| format!("motor{i} [rad]")));
    head.extend(
        [
            "wire_fx [N]",
            "wire_fy [N]",
            "wire_fz [N]",
            "face [N]",
            "penetration [m]",
            "x [m]",
            "y [m]",
            "z [m]",
            "roll [rad]",
            "pitch [rad]",
            "yaw [rad]",
            "vx [m/s]",
            "vy [m/s]",
            "vz [m/s]",
            "wx [rad/s]",
            "wy [rad/s]",
            "wz [rad/s]",
            "impulse_x [N·s]",
            "impulse_y [N·s]",
            "impulse_z [N·s]",
            "energy [J]",
            "closing_angle [rad]",
        ]
        .map(String::from),
    );
    let mut table = Table::new(head);
    for s in &run.samples {
        let mut row = vec![s.t];
        row.extend(&s.q);
        row.extend(&s.motors);
        row.extend(s.wire_force);
        row.extend([s.face_force, s.penetration]);
        row.extend(s.position.iter().chain(&s.attitude).chain(&s.velocity).chain(&s.omega).chain(&s.impulse));
        row.extend([s.energy, s.closing_angle]);
        table.push(&row);
    }
    table
}

/// Each flexible joint's motor angle (change from the start) and deflection `q − θ`, degrees.
fn flexible_series<'a>(cap: &GrappleCapture, run: &GrappleRun, t: &'a [f64]) -> (Vec<Series<'a>>, Vec<Series<'a>>) {
    let mb = &cap.arm.system.model;
    let first = run.samples.first();
    let (mut motors, mut deflections) = (Vec::new(), Vec::new());
    for (i, f) in cap.arm.system.flexible.iter().enumerate() {
        let label = mb.link_of_velocity(f.dof).and_then(|l| cap.arm.joint_names.get(l).cloned().flatten());
        let label = label.unwrap_or_else(|| format!("dof{}", f.dof));
        let (qi, m0) = (mb.q_index(f.dof), first.map_or(0.0, |s| s.motors[i]));
        let motor = run.samples.iter().map(|s| (s.motors[i] - m0).to_degrees()).collect();
        let deflection = run.samples.iter().map(|s| (s.q[qi] - s.motors[i]).to_degrees()).collect();
        motors.push(Series { label: label.clone(), x: t, y: motor });
        deflections.push(Series { label, x: t, y: deflection });
    }
    (motors, deflections)
}

/// Writes `timeseries.csv`, `summary.json` and plots (joint angles, motor angles and joint
/// deflections, reaction force, payload attitude and velocity, snare closing) into `dir`.
pub fn write_grapple_run(dir: &Path, cap: &GrappleCapture, run: &GrappleRun) -> Result<GrappleSummary, String> {
    let out = RunDir::create(dir)?;
    let (first, _) = first_last(&run.samples)?;
    out.csv("timeseries.csv", |w| timeseries(run).write_csv(w))?;

    let t: Vec<f64> = run.samples.iter().map(|s| s.t).collect();
    let col = |f: &dyn Fn(&GrappleSample) -> f64| run.samples.iter().map(f).collect::<Vec<f64>>();
    let mb = &cap.arm.system.model;
    let joints: Vec<Series> = (0..mb.links.len())
        .filter(|&l| mb.links[l].joint.nv() == 1)
        .map(|l| {
            let i = mb.q_index(mb.v_index(l));
            Series {
                label: cap.arm.joint_names.get(l).cloned().flatten().unwrap_or_else(|| mb.links[l].name.clone()),
                x: &t,
                y: col(&|s| (s.q[i] - first.q[i]).to_degrees()),
            }
        })
        .collect();
    let deg = |i: usize| move |s: &GrappleSample| s.attitude[i].to_degrees();
    let (motors, deflections) = flexible_series(cap, run, &t);
    let plots: Vec<(&str, &str, &str, Vec<Series>)> = vec![
        ("joint_angles", "Joint angles (change from the start)", "deg", joints),
        ("motor_angles", "Motor angles θ (change from the start)", "deg", motors),
        ("joint_deflections", "Joint deflections q − θ", "deg", deflections),
        (
            "reaction_force",
            "Reaction force on the payload (effector axes)",
            "N",
            vec![
                Series { label: "x (axial)".into(), x: &t, y: col(&|s| s.wire_force[0]) },
                Series { label: "y".into(), x: &t, y: col(&|s| s.wire_force[1]) },
                Series { label: "z".into(), x: &t, y: col(&|s| s.wire_force[2]) },
                Series { label: "face".into(), x: &t, y: col(&|s| s.face_force) },
            ],
        ),
        (
            "payload_attitude",
            "Payload attitude (from the start)",
            "deg",
            vec![
                Series { label: "roll".into(), x: &t, y: col(&deg(0)) },
                Series { label: "pitch".into(), x: &t, y: col(&deg(1)) },
                Series { label: "yaw".into(), x: &t, y: col(&deg(2)) },
            ],
        ),
        (
            "payload_velocity",
            "Payload velocity (world)",
            "m/s",
            vec![
                Series { label: "vx".into(), x: &t, y: col(&|s| s.velocity[0]) },
                Series { label: "vy".into(), x: &t, y: col(&|s| s.velocity[1]) },
                Series { label: "vz".into(), x: &t, y: col(&|s| s.velocity[2]) },
            ],
        ),
    ];
    for (stem, title, unit, series) in &plots {
        line_plot(&out.plot(stem), title, "time [s]", unit, series, false)?;
    }
    let summary = GrappleSummary::new(cap, run)?;
    out.json("summary.json", &serde_json::to_value(&summary).map_err(|e| e.to_string())?)?;
    animation(cap, run).write_glb(&dir.join("animation.glb"))?;
    Ok(summary)
}

/// How the capture ended, by where things are at the end:
/// - `failed`: the run stopped early (its diagnosis says why: a wire past its yield load, or a
///   failure of the integration);
/// - a snare: `rigidised` (the plate on the face with the preload), `captured` (the shaft held
///   by the three wires), `not captured`;
/// - one wire: `no contact` (never engaged), `held against the wire` (in contact at the end),
///   `passed through` (the whole shaft beyond the wire's line, `final_side > r`: past its ends
///   or through it), else `bounced off` (back on the side it came from, free of the wire).
pub fn outcome(cap: &GrappleCapture, run: &GrappleRun) -> &'static str {
    let held = run.samples.last().is_some_and(|s| s.penetration > 0.0);
    if run.diagnosis.is_some() {
        return "failed";
    }
    match (&cap.effector, run.captured_at.is_some(), run.rigidised_at) {
        (_, _, Some(_)) => "rigidised",
        (_, true, None) => "captured",
        (Effector::Snare(_), false, _) => "not captured",
        (Effector::Wire { .. }, _, _) => match (&run.wire, held) {
            (None, _) => "no contact",
            (Some(_), true) => "held against the wire",
            (Some(_), false) if run.final_side > cap.payload.shaft_radius => "passed through",
            (Some(_), false) => "bounced off",
        },
    }
}

/// The capture as an animation: the arm's links (inertia-equivalent boxes; the effector's link
/// with its ring or the wire's span), and the payload (its inertia box, shaft and plate points),
/// all animated; the wires as they close or bend, and their force on the payload.
pub fn animation(cap: &GrappleCapture, run: &GrappleRun) -> crate::anim::Animation {
    use crate::anim::{Animation, ellipsoid_mesh, inertia_box, inertia_box_at, rod};
    let mb = &cap.arm.system.model;
    let mut anim = Animation::new();
    let (re, oe) = cap.frame;
    let (depth, radius) = match &cap.effector {
        Effector::Snare(sn) => (sn.depth, sn.snare.ring_radius),
        Effector::Wire { depth, .. } => (*depth, 0.5 * WIRE_SPAN),
    };
    for (k, l) in mb.links.iter().enumerate() {
        let mut meshes = Vec::new();
        if l.mass > 0.0 {
            meshes.push(inertia_box_at(l.mass, &l.inertia, &l.com, [0.8, 0.75, 0.3, 1.0]));
        }
        if k == cap.link {
            // The effector: its ring (or the wire's span) in the plane x = −depth of frame E.
            let at = |a: f64| oe + re * Vec3::new(-depth, radius * a.cos(), radius * a.sin());
            for i in 0..24 {
                let (a0, a1) = (i as f64 / 24.0 * std::f64::consts::TAU, (i + 1) as f64 / 24.0 * std::f64::consts::TAU);
                meshes.push(rod(&at(a0), &at(a1), 0.01 * radius, [0.3, 0.3, 0.35, 1.0]));
            }
        }
        anim.body(&l.name, meshes);
    }
    let pl = &cap.payload;
    let mut payload = vec![
        inertia_box(pl.mass, &pl.inertia, [0.3, 0.5, 0.8, 1.0]),
        rod(&pl.base, &(pl.base + pl.axis * pl.shaft_length), pl.shaft_radius, [0.7, 0.7, 0.75, 1.0]),
    ];
    payload.extend(pl.plate.iter().map(|p| ellipsoid_mesh(p, &(Mat3::identity() * 0.02), [0.9, 0.3, 0.2, 1.0])));
    anim.body("payload", payload);
    // The wires (effector frame, plane x = −depth): the snare's three chords from the fixed
    // anchors at 2πi/3 to the turning ones at 2πi/3 + Δ; the loose wire's two segments from its
    // ends to the shaft's surface while the shaft presses it, straight otherwise. Then the wires'
    // force on the payload at the crossing, the largest as long as the ring's radius.
    let wires = match &cap.effector {
        Effector::Snare(_) => 3,
        Effector::Wire { .. } => 2,
    };
    for i in 0..wires {
        anim.strand(&format!("wire {}", i + 1), 0.1 * pl.shaft_radius, [0.9, 0.3, 0.2, 1.0]);
    }
    let peak = run.samples.iter().map(|s| Vec3::from(s.wire_force).norm()).fold(0.0, f64::max);
    let per_newton = if peak > 0.0 { radius / peak } else { 0.0 };
    anim.arrow("wire force", 0.2 * pl.shaft_radius, crate::anim::FORCE_COLOR);
    let q0 = tumble_math::quat_from_matrix(&rotation(&cap.start[3..7]));
    let nv = mb.nv();
    let on_ring = |a: f64| Vec3::new(-depth, radius * a.cos(), radius * a.sin());
    for s in &run.samples {
        let k = mb.kinematics(&s.q, &vec![0.0; nv]);
        let mut poses: Vec<(Vec3, UnitQuat)> =
            k.pose.iter().map(|(R, p)| (*p, tumble_math::quat_from_matrix(R))).collect();
        let [roll, pitch, yaw] = s.attitude;
        let (pp, qp) = (Vec3::from(s.position), q0 * UnitQuat::from_euler_angles(roll, pitch, yaw));
        poses.push((pp, qp));
        anim.frame(s.t, &poses);
        let (rl, ol) = k.pose[cap.link];
        let (rw, ow) = (rl * re, ol + rl * oe);
        let world = |x: Vec3| ow + rw * x;
        let crossing = cap.crossing(&(rw.transpose() * (pp + qp * pl.base - ow)), &(rw.transpose() * (qp * pl.axis)));
        let mut overlays: Vec<(Vec3, Vec3)> = match &cap.effector {
            Effector::Snare(_) => (0..3)
                .map(|i| {
                    let a = i as f64 * std::f64::consts::TAU / 3.0;
                    let from = world(on_ring(a));
                    (from, world(on_ring(a + s.closing_angle)) - from)
                })
                .collect(),
            Effector::Wire { .. } => {
                let ends = [Vec3::new(-depth, 0.0, -radius), Vec3::new(-depth, 0.0, radius)];
                let bend = match crossing {
                    Some((ce, _)) if s.penetration > 0.0 && ce.z.abs() < radius => {
                        Vec3::new(-depth, ce.y + pl.shaft_radius, ce.z)
                    }
                    _ => Vec3::new(-depth, 0.0, 0.0),
                };
                ends.iter().map(|e| (world(*e), rw * (bend - e))).collect()
            }
        };
        let at = crossing.map_or(pp, |(ce, _)| world(ce));
        overlays.push((at, rw * Vec3::from(s.wire_force) * per_newton));
        anim.overlays(&overlays);
    }
    anim
}
