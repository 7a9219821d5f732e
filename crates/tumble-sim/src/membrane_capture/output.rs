//! An asteroid capture's files: `timeseries.csv`, `summary.json`, plots and the animation.

use super::{MembraneCapture, MembraneCaptureRun, MembraneCaptureSample, MembraneCaptureSummary};
use crate::membrane_drop::membrane_plot;
use crate::outputs::{RunDir, first_last};
use crate::plot::{Series, shaded_plot};
use crate::table::Table;

use std::path::Path;
use tumble_contact::membrane::RelativeMotion;
use tumble_math::Vec3;

/// The samples as `timeseries.csv` has them: rates, the asteroid in the membrane's frame, SADA
/// moments, the membrane's action, the energy budget's terms and the rim count.
pub fn timeseries(run: &MembraneCaptureRun) -> Table {
    let mut table = Table::new(
        [
            "t [s]",
            "thrusting [1]",
            "asteroid_wx [rad/s]",
            "asteroid_wy [rad/s]",
            "asteroid_wz [rad/s]",
            "bus_wx [rad/s]",
            "bus_wy [rad/s]",
            "bus_wz [rad/s]",
            "relative_rate [rad/s]",
            "asteroid_x_M [m]",
            "asteroid_y_M [m]",
            "asteroid_z_M [m]",
            "relative_vx [m/s]",
            "relative_vy [m/s]",
            "relative_vz [m/s]",
            "sada1_bending [N·m]",
            "sada2_bending [N·m]",
            "sada1_torsion [N·m]",
            "sada2_torsion [N·m]",
            "area [m²]",
            "area_rate [m²/s]",
            "tension [N/m]",
            "normal_force [N]",
            "friction_force [N]",
            "max_slip [m/s]",
            "contact_vertices [1]",
            "depth [m]",
            "asteroid_kinetic [J]",
            "spacecraft_energy [J]",
            "membrane_energy [J]",
            "damping_loss [J]",
            "friction_loss [J]",
            "sada_loss [J]",
            "work [J]",
            "budget [J]",
            "outside_rim [1]",
        ]
        .map(String::from)
        .to_vec(),
    );
    for s in &run.samples {
        let c = &s.contact;
        let mut row = vec![s.t, if s.thrusting { 1.0 } else { 0.0 }];
        row.extend(s.asteroid_rate.iter().chain(&s.bus_rate));
        row.push(s.relative_rate());
        row.extend(s.asteroid_in_membrane.iter().chain(&s.relative_velocity));
        row.extend([s.bending(0), s.bending(1), s.sada_torque[0][1], s.sada_torque[1][1]]);
        row.extend([c.area, c.area_rate, c.tension, c.normal_force.norm(), c.friction_force.norm(), c.max_slip]);
        row.extend([c.contact_vertices as f64, c.depth]);
        row.extend([s.asteroid_kinetic, s.spacecraft_energy, c.energy, s.damping_loss, s.friction_loss]);
        row.extend([s.sada_loss, s.work, s.budget(), s.contact.outside_rim as f64]);
        table.push(&row);
    }
    table
}

/// Writes `timeseries.csv`, `summary.json` and plots (rates, SADA moments, membrane, slip,
/// hull, centring, energy) into `dir`.
pub fn write_capture_run(
    dir: &Path,
    model: &MembraneCapture,
    run: &MembraneCaptureRun,
) -> Result<MembraneCaptureSummary, String> {
    let out = RunDir::create(dir)?;
    let (first, last) = first_last(&run.samples)?;
    let a0 = model.membrane.area0();
    out.csv("timeseries.csv", |w| timeseries(run).write_csv(w))?;

    let t: Vec<f64> = run.samples.iter().map(|s| s.t).collect();
    let col = |f: &dyn Fn(&MembraneCaptureSample) -> f64| run.samples.iter().map(f).collect::<Vec<f64>>();
    let limit = model.moment_limit;
    let shade: Vec<(f64, f64)> = run.contact_time.map(|tc| vec![(tc, last.t)]).unwrap_or_default();
    let contacts: Vec<_> = run.samples.iter().map(|s| s.contact).collect();
    membrane_plot(&out.plot("membrane"), &t, &contacts, a0, &shade)?;
    let plots: Vec<(&str, &str, &str, Vec<Series>)> = vec![
        (
            "rates",
            "Angular rates (world), asteroid and bus",
            "rad/s",
            vec![
                Series { label: "|ω asteroid|".into(), x: &t, y: col(&|s| Vec3::from(s.asteroid_rate).norm()) },
                Series { label: "|ω bus|".into(), x: &t, y: col(&|s| Vec3::from(s.bus_rate).norm()) },
                Series { label: "|ω asteroid − ω bus|".into(), x: &t, y: col(&|s| s.relative_rate()) },
            ],
        ),
        (
            "sada",
            "SADA bending moments and their limit",
            "N·m",
            vec![
                Series { label: "SADA +y".into(), x: &t, y: col(&|s| s.bending(0)) },
                Series { label: "SADA −y".into(), x: &t, y: col(&|s| s.bending(1)) },
                Series { label: "limit".into(), x: &t, y: col(&|_| limit) },
            ],
        ),
        (
            "slip",
            "Slip and relative velocity",
            "m/s",
            vec![
                Series { label: "max slip".into(), x: &t, y: col(&|s| s.contact.max_slip) },
                Series {
                    label: "|v asteroid rel. M|".into(),
                    x: &t,
                    y: col(&|s| Vec3::from(s.relative_velocity).norm()),
                },
            ],
        ),
        (
            "hull",
            "Hull size: body vertices on the membrane and depth",
            "count, m",
            vec![
                Series { label: "contact vertices".into(), x: &t, y: col(&|s| s.contact.contact_vertices as f64) },
                Series { label: "depth [m]".into(), x: &t, y: col(&|s| s.contact.depth) },
            ],
        ),
        (
            "centring",
            "Asteroid centre of mass in the membrane frame",
            "m",
            vec![
                Series {
                    label: "off axis".into(),
                    x: &t,
                    y: col(&|s| s.asteroid_in_membrane[0].hypot(s.asteroid_in_membrane[1])),
                },
                Series { label: "height above plane".into(), x: &t, y: col(&|s| s.asteroid_in_membrane[2]) },
            ],
        ),
        (
            "energy",
            "Energy budget",
            "J",
            vec![
                Series { label: "asteroid kinetic".into(), x: &t, y: col(&|s| s.asteroid_kinetic) },
                Series { label: "spacecraft".into(), x: &t, y: col(&|s| s.spacecraft_energy) },
                Series { label: "membrane".into(), x: &t, y: col(&|s| s.contact.energy) },
                Series { label: "losses".into(), x: &t, y: col(&|s| s.damping_loss + s.friction_loss + s.sada_loss) },
                Series { label: "work in".into(), x: &t, y: col(&|s| s.work) },
                Series { label: "sum − start".into(), x: &t, y: col(&|s| s.budget() - first.budget()) },
            ],
        ),
    ];
    for (stem, title, unit, series) in &plots {
        shaded_plot(&out.plot(stem), title, "time [s]", unit, series, false, &shade)?;
    }
    let summary = MembraneCaptureSummary::new(model, run)?;
    out.json("summary.json", &serde_json::to_value(&summary).map_err(|e| e.to_string())?)?;
    animation(model, run).write_glb(&dir.join("animation.glb"))?;
    Ok(summary)
}

/// The capture as an animation: the asteroid's mesh and the spacecraft's links
/// (inertia-equivalent boxes), all animated; the membrane as it deflects and its force on the
/// asteroid.
pub fn animation(model: &MembraneCapture, run: &MembraneCaptureRun) -> crate::anim::Animation {
    use crate::anim::FORCE_COLOR;
    use crate::anim::{Animation, Mesh, inertia_box_at};
    use crate::membrane_drop::{MEMBRANE_COLOR, membrane_shape};
    let mut anim = Animation::new();
    anim.body("asteroid", vec![Mesh::new(&model.mesh.vertices, &model.mesh.faces, [0.5, 0.45, 0.4, 1.0])]);
    let sc = &model.spacecraft.model;
    for l in &sc.links {
        let meshes = if l.mass > 0.0 {
            vec![inertia_box_at(l.mass, &l.inertia, &l.com, [0.75, 0.75, 0.8, 1.0])]
        } else {
            Vec::new()
        };
        anim.body(&l.name, meshes);
    }
    // The membrane (in `M`: `offset` ahead of the bus centre of mass, bus axes) drawn in the
    // world, and its force on the asteroid at the asteroid's centre of mass, the largest as
    // long as the asteroid's diameter (out of the asteroid).
    let surface = anim.surface("membrane", MEMBRANE_COLOR);
    let force = |s: &MembraneCaptureSample| s.contact.normal_force + s.contact.friction_force;
    let peak = run.samples.iter().map(|s| force(s).norm()).fold(0.0, f64::max);
    let per_newton = if peak > 0.0 { 2.0 * model.radius / peak } else { 0.0 };
    anim.arrow("membrane force", 0.06 * model.radius, FORCE_COLOR);
    let mut ws = tumble_contact::membrane::MembraneWorkspace::default();
    let o = Vec3::new(0.0, 0.0, model.offset);
    for s in &run.samples {
        let mut poses = vec![s.asteroid_pose];
        poses.extend(s.link_poses.iter().copied());
        anim.frame(s.t, &poses);
        let ((p_A, q_A), (p_b, q_b)) = (s.asteroid_pose, s.link_poses[0]);
        let R_b = q_b.to_rotation_matrix().into_inner();
        anim.overlays(&[(p_A, R_b * force(s) * per_newton)]);
        let motion = RelativeMotion {
            vertices: &model.mesh.vertices,
            radius: model.radius,
            R_MB: R_b.transpose() * q_A.to_rotation_matrix().into_inner(),
            p_MB: R_b.transpose() * (p_A - p_b) - o,
            v_MB: Vec3::zeros(),
            w_MB: Vec3::zeros(),
            hull: model.hull.as_ref(),
        };
        let (v, t) = membrane_shape(&model.membrane, &motion, &mut ws);
        let world: Vec<Vec3> = v.iter().map(|x| p_b + R_b * (x + o)).collect();
        anim.shape(surface, &world, &t);
    }
    anim
}
