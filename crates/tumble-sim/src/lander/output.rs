//! A lander run's output folder: `timeseries.csv`, `contacts.csv` (one row per touchdown with
//! its impact loads), `summary.json` and plots (trajectory, speeds with contact phases shaded,
//! tangential application-point speed, contact forces, energy budget, energy through the first
//! impact).

use super::impact::{Impact, ImpactMaxima};
use super::model::LanderModel;
use super::sim::{COLUMNS, LanderOutcome, LanderRun};
use crate::plot::{Series, line_plot, shaded_plot};
use serde_json::{Value, json};

use std::path::Path;
use tumble_math::Vec3;

/// The run's headline numbers.
pub fn summary(model: &LanderModel, run: &LanderRun) -> Value {
    let y = &run.final_state;
    let x = Vec3::new(y[0], y[1], y[2]);
    let status = run.outcome.name();
    let time = match &run.outcome {
        LanderOutcome::Settled(t) | LanderOutcome::Escaped(t) => Some(*t),
        LanderOutcome::Completed | LanderOutcome::Failed(_) => None,
    };
    let last = run.rows.last().copied().unwrap_or([0.0; COLUMNS.len()]);
    let clearance = model.system.clearance(y);
    let on_surface = model.system.on_surface(y);
    let (lat, lon) = match model.sites {
        Some(f) if on_surface => f.lat_lon(&x),
        _ => (f64::NAN, f64::NAN),
    };
    json!({
        "scenario": model.name,
        "description": model.description,
        "seed": model.seed,
        "status": status,
        "diagnosis": match &run.outcome { LanderOutcome::Failed(d) => Value::from(d.to_string()), _ => Value::Null },
        "settle_time_s": if status == "settled" { time } else { None },
        "escape_time_s": if status == "escaped" { time } else { None },
        "final_time_s": run.final_time,
        "final_position_m": x.as_slice(),
        "final_clearance_m": clearance,
        "on_surface": on_surface,
        "latitude_deg": if lat.is_finite() { Some(lat) } else { None },
        "longitude_deg": if lon.is_finite() { Some(lon) } else { None },
        "bounces": run.bounces(),
        "hops": run.hops.iter().map(|h| json!({
            "time_s": h.time,
            "impulse_body_Nms": h.impulse.as_slice(),
            "aim_m": h.aim.map(|a| a.as_slice().to_vec()),
            "predicted_landing_m": h.predicted.map(|a| a.as_slice().to_vec()),
            "predicted_miss_m": h.aim.zip(h.predicted).map(|(a, p)| (p - a).norm()),
            "landing_m": h.landing.map(|a| a.as_slice().to_vec()),
            "rest_m": h.rest.map(|a| a.as_slice().to_vec()),
            "saturated": h.saturated,
        })).collect::<Vec<_>>(),
        "max_penetration_m": run.max_penetration,
        "impacts": impact_summary(&run.impacts),
        "energy": {
            "dissipated_damper_J": last[20],
            "dissipated_friction_J": last[21],
            "dissipated_rolling_J": last[22],
            "frame_and_hop_work_J": run.external_work,
            "max_balance_error_J": run.max_balance_error,
            "flight_time_s": run.flight_time,
            "flight_error_J_per_hour": (run.flight_time > 0.0).then(|| run.flight_error / run.flight_time * 3600.0),
        },
        "illumination": model.ephemeris.as_ref().map(|e| {
            let [touchdown, end] = super::ephemeris::illumination(model, run);
            let finite = |x: f64| x.is_finite().then_some(x);
            json!({
                "epoch": e.epoch,
                "epoch_et_s": e.et,
                "sun_elevation_touchdown_deg": finite(touchdown),
                "sun_elevation_end_deg": finite(end),
            })
        }),
        "warnings": model.warnings,
    })
}

/// The impacts' count and maxima (`null` where there is none).
fn impact_summary(impacts: &[Impact]) -> Value {
    let m = ImpactMaxima::of(impacts);
    let finite = |x: f64| x.is_finite().then_some(x);
    json!({
        "count": impacts.len(),
        "max_normal_speed_m_s": finite(m.normal_speed),
        "max_tangential_speed_m_s": finite(m.tangential_speed),
        "max_normal_force_N": finite(m.force),
        "max_energy_lost_J": finite(m.energy_lost),
        "max_duration_s": finite(impacts.iter().map(|i| i.duration).fold(f64::NAN, f64::max)),
    })
}

/// Columns of `contacts.csv`: one row per touchdown ([`Impact`]).
pub const CONTACT_COLUMNS: [&str; 15] = [
    "touchdown [s]",
    "liftoff [s]",
    "duration [s]",
    "x [m]",
    "y [m]",
    "z [m]",
    "latitude [deg]",
    "longitude [deg]",
    "normal_speed [m/s]",
    "tangential_speed [m/s]",
    "rate [rad/s]",
    "peak_normal_force [N]",
    "peak_penetration [m]",
    "energy_lost [J]",
    "liftoff_speed [m/s]",
];

/// The touchdowns as `contacts.csv` has them ([`CONTACT_COLUMNS`]; NaN for a lift-off that
/// did not happen, and for latitudes and longitudes on a plane).
pub fn contacts(model: &LanderModel, run: &LanderRun) -> crate::Table {
    let mut table = crate::Table::new(CONTACT_COLUMNS.iter().map(|c| c.to_string()).collect());
    for i in &run.impacts {
        let (lat, lon) = model.sites.map_or((f64::NAN, f64::NAN), |f| f.lat_lon(&i.site));
        table.push(&[
            i.time,
            i.liftoff,
            i.duration,
            i.site.x,
            i.site.y,
            i.site.z,
            lat,
            lon,
            i.normal_speed,
            i.tangential_speed,
            i.rate,
            i.peak_force,
            i.peak_penetration,
            i.energy_lost,
            i.liftoff_speed,
        ]);
    }
    table
}

/// The samples as `timeseries.csv` has them ([`COLUMNS`]).
pub fn timeseries(run: &LanderRun) -> crate::Table {
    let mut table = crate::Table::new(COLUMNS.iter().map(|c| c.to_string()).collect());
    run.rows.iter().for_each(|r| table.push(r));
    table
}

/// Writes every output of a run into `dir` (created if needed). Returns the summary.
pub fn write_lander_run(dir: &Path, model: &LanderModel, run: &LanderRun) -> Result<Value, String> {
    let out = crate::outputs::RunDir::create(dir)?;
    out.csv("timeseries.csv", |w| timeseries(run).write_csv(w))?;
    out.csv("contacts.csv", |w| contacts(model, run).write_csv(w))?;
    let summary = summary(model, run);
    out.json("summary.json", &summary)?;
    plots(&dir.join("plots"), run)?;
    animation(model, run).write_glb(&dir.join("animation.glb"))?;
    super::ccsds::write(dir, model, run)?;
    Ok(summary)
}

/// Faces kept of a large target mesh in the animation (a coarser copy keeps the file small).
pub const TARGET_FACES: usize = 60_000;

/// The run as an animation in the target's body-fixed frame: the target (its mesh, coarsened
/// past [`TARGET_FACES`] faces, or a square of the plane under the start), the lander as the
/// convex hull of its contact vertices, animated, and the contact force at its application
/// point.
pub fn animation(model: &LanderModel, run: &LanderRun) -> crate::anim::Animation {
    use crate::anim::{Animation, Mesh};
    use tumble_math::UnitQuat;
    let mut anim = Animation::new();
    let verts = &model.system.vertices;
    let lander = match tumble_geometry::hull::convex_hull(verts) {
        Ok(h) if h.dimension >= 2 => Mesh::new(
            verts,
            &h.triangles.iter().map(|f| f.map(|i| i as u32)).collect::<Vec<_>>(),
            [0.85, 0.7, 0.2, 1.0],
        ),
        // Flat or degenerate vertex sets: a small sphere at each vertex.
        _ => {
            let mut m = Mesh::default();
            for v in verts {
                let s = crate::anim::ellipsoid_mesh(v, &(tumble_math::Mat3::identity() * 0.02), [0.85, 0.7, 0.2, 1.0]);
                let base = m.positions.len() as u32;
                m.positions.extend(s.positions);
                m.triangles.extend(s.triangles.iter().map(|t| t.map(|i| i + base)));
                m.color = s.color;
            }
            m
        }
    };
    anim.body("lander", vec![lander]);
    let ground = [0.45, 0.42, 0.4, 1.0];
    let target = match &model.target_mesh {
        Some(mesh) => crate::anim::coarsened(mesh, TARGET_FACES, ground),
        None => {
            // A square of the plane around the start, ten times the lander's reach across.
            let y = model.initial_state;
            let p = Vec3::new(y[0], y[1], y[2]);
            let reach = verts.iter().map(|v| v.norm()).fold(0.1, f64::max);
            let (d, n) = model.system.surface.eval(&p);
            let n = n.try_normalize(0.0).unwrap_or(Vec3::z());
            let foot = p - n * d;
            let R = tumble_math::Mat3::from_columns(&{
                let t = if n.x.abs() < 0.6 { Vec3::x() } else { Vec3::y() };
                let u = n.cross(&t).normalize();
                [u, n.cross(&u), n]
            });
            crate::anim::box_mesh(
                &(foot - n * 0.01 * reach),
                &R,
                &Vec3::new(10.0 * reach, 10.0 * reach, 0.01 * reach),
                ground,
            )
        }
    };
    anim.scenery("target", vec![target], &Vec3::zeros(), &UnitQuat::identity());
    // The contact's total force at its application point, the largest as long as the lander's
    // reach (landers see brief impact peaks: the arrow shows the bounces).
    let reach = verts.iter().map(|v| v.norm()).fold(0.0, f64::max).max(1e-3);
    let force = |r: &[f64; COLUMNS.len()]| Vec3::new(r[26], r[27], r[28]);
    let peak = run.rows.iter().map(|r| force(r).norm()).fold(0.0, f64::max);
    let per_newton = if peak > 0.0 { reach / peak } else { 0.0 };
    anim.arrow("contact force", 0.05 * reach, crate::anim::FORCE_COLOR);
    for r in &run.rows {
        let q = tumble_math::nalgebra::Quaternion::new(r[9], r[10], r[11], r[12]);
        let p = Vec3::new(r[1], r[2], r[3]);
        anim.frame(r[0], &[(p, UnitQuat::try_new(q, 0.0).unwrap_or_else(UnitQuat::identity))]);
        anim.overlays(&[(p + Vec3::new(r[29], r[30], r[31]), force(r) * per_newton)]);
    }
    anim
}

fn plots(dir: &Path, run: &LanderRun) -> Result<(), String> {
    let col = |i: usize| run.rows.iter().map(|r| r[i]).collect::<Vec<f64>>();
    let t = col(0);
    // Contact phases from the event log.
    let mut shade = Vec::new();
    let mut start = None;
    for e in &run.contacts {
        match (e.start, start) {
            (true, None) => start = Some(e.time),
            (false, Some(s)) => {
                shade.push((s, e.time));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        shade.push((s, run.final_time));
    }
    let (x, y, z) = (col(1), col(2), col(3));
    line_plot(
        &dir.join("trajectory"),
        "Trajectory (target frame, top view)",
        "x [m]",
        "y [m]",
        &[Series { label: String::new(), x: &x, y: y.clone() }],
        true,
    )?;
    line_plot(
        &dir.join("position"),
        "Position in the target frame",
        "time [s]",
        "position [m]",
        &[
            Series { label: "x".into(), x: &t, y: x },
            Series { label: "y".into(), x: &t, y },
            Series { label: "z".into(), x: &t, y: z },
        ],
        false,
    )?;
    let log = |v: Vec<f64>| v.into_iter().map(|s| if s > 0.0 { s.log10() } else { f64::NAN }).collect::<Vec<f64>>();
    shaded_plot(
        &dir.join("speeds"),
        "Speed and angular rate (contact phases shaded)",
        "time [s]",
        "log10 of |v| [m/s] and |ω| [rad/s]",
        &[Series { label: "|v|".into(), x: &t, y: log(col(7)) }, Series { label: "|ω|".into(), x: &t, y: log(col(8)) }],
        false,
        &shade,
    )?;
    shaded_plot(
        &dir.join("tangential_speed"),
        "Tangential speed of the application point",
        "time [s]",
        "log10 of |v_T,p| [m/s]",
        &[Series { label: String::new(), x: &t, y: log(col(15)) }],
        false,
        &shade,
    )?;
    shaded_plot(
        &dir.join("contact_forces"),
        "Contact forces (contact phases shaded)",
        "time [s]",
        "force [N]",
        &[
            Series { label: "normal load".into(), x: &t, y: col(24) },
            Series { label: "|friction|".into(), x: &t, y: col(25) },
        ],
        false,
        &shade,
    )?;
    if let Some(first) = run.impacts.first() {
        impact_energy_plot(dir, run, first)?;
    }
    let (kl, ka, pot, el) = (col(16), col(17), col(18), col(19));
    let p0 = pot.first().copied().unwrap_or(0.0);
    let total: Vec<f64> = (0..t.len()).map(|i| kl[i] + ka[i] + pot[i] - p0 + el[i]).collect();
    let dissipated: Vec<f64> = run.rows.iter().map(|r| r[20] + r[21] + r[22]).collect();
    shaded_plot(
        &dir.join("energy"),
        "Energy budget (potential relative to its start)",
        "time [s]",
        "energy [J]",
        &[
            Series { label: "total".into(), x: &t, y: total },
            Series { label: "kinetic, linear".into(), x: &t, y: kl },
            Series { label: "kinetic, angular".into(), x: &t, y: ka },
            Series { label: "potential".into(), x: &t, y: pot.iter().map(|p| p - p0).collect() },
            Series { label: "elastic".into(), x: &t, y: el },
            Series { label: "dissipated".into(), x: &t, y: dissipated },
        ],
        false,
        &shade,
    )
}

/// The energy terms through one impact, as changes from their values at the last sample before
/// it (the document's Fig. 10): kinetic (linear, angular), potential, elastic, dissipated and
/// their total, from the sample before touchdown to the one after lift-off (or the run's end).
fn impact_energy_plot(dir: &Path, run: &LanderRun, impact: &Impact) -> Result<(), String> {
    let from = run.rows.iter().rposition(|r| r[0] < impact.time).unwrap_or(0);
    let end = if impact.liftoff.is_finite() { impact.liftoff } else { run.final_time };
    let to = run.rows.iter().position(|r| r[0] > end).unwrap_or(run.rows.len());
    let rows = &run.rows[from..to];
    if rows.len() < 3 {
        return Ok(());
    }
    let t: Vec<f64> = rows.iter().map(|r| r[0]).collect();
    let change =
        |f: &dyn Fn(&[f64; COLUMNS.len()]) -> f64| rows.iter().map(|r| f(r) - f(&rows[0])).collect::<Vec<f64>>();
    let dissipated = |r: &[f64; COLUMNS.len()]| r[20] + r[21] + r[22];
    line_plot(
        &dir.join("impact_energy"),
        &format!("Energy through the impact at {:.2} s (changes from before it)", impact.time),
        "time [s]",
        "energy change [J]",
        &[
            Series { label: "total".into(), x: &t, y: change(&|r| r[16] + r[17] + r[18] + r[19]) },
            Series { label: "kinetic, linear".into(), x: &t, y: change(&|r| r[16]) },
            Series { label: "kinetic, angular".into(), x: &t, y: change(&|r| r[17]) },
            Series { label: "potential".into(), x: &t, y: change(&|r| r[18]) },
            Series { label: "elastic".into(), x: &t, y: change(&|r| r[19]) },
            Series { label: "dissipated".into(), x: &t, y: change(&dissipated) },
        ],
        false,
    )
}
