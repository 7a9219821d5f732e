//! A membrane drop's files: `timeseries.csv`, `summary.json`, plots and the animation.

use super::{DropSummary, MembraneDrop, MembraneRun, MembraneSample};
use crate::outputs::{RunDir, first_last};
use crate::plot::{Panel, Series, line_plot, panels_plot};
use crate::table::Table;

use std::path::Path;
use tumble_contact::membrane::{Membrane, MembraneContact, MembraneWorkspace, RelativeMotion};
use tumble_math::{Vec3, quat_from_wxyz};

/// The samples as `timeseries.csv` has them: time, the body's state, the membrane's action
/// and the energy budget's terms.
pub fn timeseries(run: &MembraneRun) -> Table {
    let mut table = Table::new(
        [
            "t [s]",
            "x [m]",
            "y [m]",
            "z [m]",
            "vx [m/s]",
            "vy [m/s]",
            "vz [m/s]",
            "wx [rad/s]",
            "wy [rad/s]",
            "wz [rad/s]",
            "area [m²]",
            "area_rate [m²/s]",
            "tension [N/m]",
            "normal_fx [N]",
            "normal_fy [N]",
            "normal_fz [N]",
            "friction_fx [N]",
            "friction_fy [N]",
            "friction_fz [N]",
            "max_slip [m/s]",
            "contact_vertices [1]",
            "depth [m]",
            "kinetic [J]",
            "gravity_potential [J]",
            "membrane_energy [J]",
            "damping_loss [J]",
            "friction_loss [J]",
            "work [J]",
            "budget [J]",
        ]
        .map(String::from)
        .to_vec(),
    );
    for s in &run.samples {
        let c = &s.contact;
        let mut row = vec![s.t];
        row.extend(s.position.iter().chain(&s.velocity).chain(&s.omega));
        row.extend([c.area, c.area_rate, c.tension]);
        row.extend(c.normal_force.iter().chain(c.friction_force.iter()));
        row.extend([c.max_slip, c.contact_vertices as f64, c.depth]);
        row.extend([s.kinetic, s.gravity_potential, c.energy, s.damping_loss, s.friction_loss, s.work, s.budget()]);
        table.push(&row);
    }
    table
}

/// Writes `timeseries.csv`, `summary.json` and plots (membrane, energy budget, speeds, slip)
/// into `dir`.
pub fn write_membrane_run(dir: &Path, model: &MembraneDrop, run: &MembraneRun) -> Result<DropSummary, String> {
    let out = RunDir::create(dir)?;
    let (first, _) = first_last(&run.samples)?;
    out.csv("timeseries.csv", |w| timeseries(run).write_csv(w))?;

    let t: Vec<f64> = run.samples.iter().map(|s| s.t).collect();
    let col = |f: &dyn Fn(&MembraneSample) -> f64| run.samples.iter().map(f).collect::<Vec<f64>>();
    let a0 = model.membrane.area0();
    membrane_plot(&out.plot("membrane"), &t, &run.samples.iter().map(|s| s.contact).collect::<Vec<_>>(), a0, &[])?;
    let plots: Vec<(&str, &str, &str, Vec<Series>)> = vec![
        (
            "energy",
            "Energy budget",
            "J",
            vec![
                Series { label: "kinetic".into(), x: &t, y: col(&|s| s.kinetic) },
                Series { label: "gravity".into(), x: &t, y: col(&|s| s.gravity_potential - first.gravity_potential) },
                Series { label: "membrane".into(), x: &t, y: col(&|s| s.contact.energy) },
                Series { label: "damping loss".into(), x: &t, y: col(&|s| s.damping_loss) },
                Series { label: "friction loss".into(), x: &t, y: col(&|s| s.friction_loss) },
                Series { label: "sum − start".into(), x: &t, y: col(&|s| s.budget() - first.budget()) },
            ],
        ),
        (
            "speeds",
            "Body speed, rate and slip",
            "m/s, rad/s",
            vec![
                Series { label: "|v| [m/s]".into(), x: &t, y: col(&|s| Vec3::from(s.velocity).norm()) },
                Series { label: "|ω| [rad/s]".into(), x: &t, y: col(&|s| Vec3::from(s.omega).norm()) },
                Series { label: "max slip [m/s]".into(), x: &t, y: col(&|s| s.contact.max_slip) },
            ],
        ),
        (
            "height",
            "Centre of mass height and membrane depth",
            "m",
            vec![
                Series { label: "z".into(), x: &t, y: col(&|s| s.position[2]) },
                Series { label: "depth".into(), x: &t, y: col(&|s| -s.contact.depth) },
            ],
        ),
    ];
    for (stem, title, unit, series) in &plots {
        line_plot(&out.plot(stem), title, "time [s]", unit, series, false)?;
    }
    let summary = DropSummary::new(model, run)?;
    out.json("summary.json", &serde_json::to_value(&summary).map_err(|e| e.to_string())?)?;
    animation(model, run).write_glb(&dir.join("animation.glb"))?;
    Ok(summary)
}

/// The drop as an animation: the body's mesh, moving; the membrane as it deflects; its force on
/// the body.
pub fn animation(model: &MembraneDrop, run: &MembraneRun) -> crate::anim::Animation {
    use crate::anim::{Animation, Mesh};
    let mut anim = Animation::new();
    anim.body("body", vec![Mesh::new(&model.mesh.vertices, &model.mesh.faces, [0.55, 0.45, 0.35, 1.0])]);
    let surface = anim.surface("membrane", MEMBRANE_COLOR);
    // The membrane's force on the body at its centre of mass, the largest as long as the body's
    // diameter (out of the body).
    let force = |s: &MembraneSample| s.contact.normal_force + s.contact.friction_force;
    let peak = run.samples.iter().map(|s| force(s).norm()).fold(0.0, f64::max);
    let per_newton = if peak > 0.0 { 2.0 * model.radius / peak } else { 0.0 };
    anim.arrow("membrane force", 0.06 * model.radius, crate::anim::FORCE_COLOR);
    let mut ws = MembraneWorkspace::default();
    for s in &run.samples {
        let q = quat_from_wxyz(s.attitude).unwrap_or_else(|_| tumble_math::UnitQuat::identity());
        let p = Vec3::from(s.position);
        anim.frame(s.t, &[(p, q)]);
        anim.overlays(&[(p, force(s) * per_newton)]);
        let motion = RelativeMotion {
            vertices: &model.mesh.vertices,
            radius: model.radius,
            R_MB: q.to_rotation_matrix().into_inner(),
            p_MB: p,
            v_MB: Vec3::zeros(),
            w_MB: Vec3::zeros(),
            hull: model.hull.as_ref(),
        };
        let (v, t) = membrane_shape(&model.membrane, &motion, &mut ws);
        anim.shape(surface, &v, &t);
    }
    anim
}

/// The membrane's colour in animations.
pub(crate) const MEMBRANE_COLOR: [f32; 4] = [0.8, 0.8, 0.9, 0.6];

/// The membrane's shape with the body at `motion`, in `M`: out of contact its suspension polygon
/// (a fan about the polygon's mean point), in contact the hull's membrane triangles (the
/// triangles with a body corner: the deflected sheet, including where it wraps the body).
pub(crate) fn membrane_shape(
    m: &Membrane,
    motion: &RelativeMotion,
    ws: &mut MembraneWorkspace,
) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let n = m.suspension().len();
    if m.evaluate(motion, ws).in_contact {
        let t = ws.membrane_triangles(n).map(|t| t.map(|i| i as u32)).collect();
        return (ws.points().to_vec(), t);
    }
    let mut v = vec![m.suspension().iter().sum::<Vec3>() / n as f64];
    v.extend_from_slice(m.suspension());
    let n = n as u32;
    (v, (0..n).map(|k| [0, 1 + k, 1 + (k + 1) % n]).collect())
}

/// Writes the `membrane` plot at `stem`: `A − A₀` (m²) over the normal and friction forces (N),
/// each on its own axis, the x intervals `shade` shaded.
pub(crate) fn membrane_plot(
    stem: &Path,
    t: &[f64],
    contacts: &[MembraneContact],
    a0: f64,
    shade: &[(f64, f64)],
) -> Result<(), String> {
    let col = |f: &dyn Fn(&MembraneContact) -> f64| contacts.iter().map(f).collect::<Vec<f64>>();
    let panels = [
        Panel {
            y_label: "A − A₀ [m²]".into(),
            series: vec![Series { label: "A − A₀".into(), x: t, y: col(&|c| c.area - a0) }],
        },
        Panel {
            y_label: "force [N]".into(),
            series: vec![
                Series { label: "|normal force|".into(), x: t, y: col(&|c| c.normal_force.norm()) },
                Series { label: "|friction|".into(), x: t, y: col(&|c| c.friction_force.norm()) },
            ],
        },
    ];
    panels_plot(stem, "Membrane: deflected area and forces", "time [s]", &panels, shade)
}
