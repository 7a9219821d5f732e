//! A lander run's output folder: `timeseries.csv`, `contacts.csv`, `summary.json` and plots
//! (trajectory, speeds with contact phases shaded, tangential application-point speed, energy
//! budget).

use super::model::LanderModel;
use super::sim::{COLUMNS, LanderOutcome, LanderRun};
use crate::plot::{Series, line_plot, shaded_plot};
use serde_json::{Value, json};
use std::fs;
use std::io::{BufWriter, Write};
use std::path::Path;
use tumble_math::Vec3;

/// Latitude and longitude (degrees) of a point in T: `asin(z/|x|)`, `atan2(y, x)`.
pub fn lat_lon(x: &Vec3) -> (f64, f64) {
    let r = x.norm();
    if r == 0.0 {
        return (0.0, 0.0);
    }
    ((x.z / r).clamp(-1.0, 1.0).asin().to_degrees(), x.y.atan2(x.x).to_degrees())
}

/// The run's headline numbers.
pub fn summary(model: &LanderModel, run: &LanderRun) -> Value {
    let y = &run.final_state;
    let x = Vec3::new(y[0], y[1], y[2]);
    let (status, time) = match &run.outcome {
        LanderOutcome::Settled(t) => ("settled", Some(*t)),
        LanderOutcome::Escaped(t) => ("escaped", Some(*t)),
        LanderOutcome::Completed => ("completed", None),
        LanderOutcome::Failed(_) => ("failed", None),
    };
    let last = run.rows.last().copied().unwrap_or([0.0; COLUMNS.len()]);
    let (lat, lon) = if model.body_target { lat_lon(&x) } else { (f64::NAN, f64::NAN) };
    json!({
        "scenario": model.name,
        "description": model.description,
        "seed": model.seed,
        "status": status,
        "diagnosis": match &run.outcome { LanderOutcome::Failed(d) => Value::from(d.clone()), _ => Value::Null },
        "settle_time_s": if status == "settled" { time } else { None },
        "escape_time_s": if status == "escaped" { time } else { None },
        "final_time_s": run.final_time,
        "final_position_m": x.as_slice(),
        "latitude_deg": if lat.is_finite() { Some(lat) } else { None },
        "longitude_deg": if lon.is_finite() { Some(lon) } else { None },
        "bounces": run.bounces(),
        "hops": run.hops.iter().map(|(t, i)| json!({ "time_s": t, "impulse_body_Nms": i.as_slice() })).collect::<Vec<_>>(),
        "max_penetration_m": run.max_penetration,
        "energy": {
            "dissipated_damper_J": last[20],
            "dissipated_friction_J": last[21],
            "dissipated_rolling_J": last[22],
            "frame_and_hop_work_J": run.external_work,
            "max_balance_error_J": run.max_balance_error,
        },
        "warnings": model.warnings,
    })
}

/// Writes every output of a run into `dir` (created if needed). Returns the summary.
pub fn write_lander_run(dir: &Path, model: &LanderModel, run: &LanderRun) -> Result<Value, String> {
    let ctx = |what: &str, e: std::io::Error| format!("{}: cannot write {what}: {e}", dir.display());
    fs::create_dir_all(dir.join("plots")).map_err(|e| ctx("the output folder", e))?;
    let mut w = BufWriter::new(fs::File::create(dir.join("timeseries.csv")).map_err(|e| ctx("timeseries.csv", e))?);
    let write_rows = |w: &mut BufWriter<fs::File>| -> std::io::Result<()> {
        writeln!(w, "{}", COLUMNS.join(","))?;
        for r in &run.rows {
            let line: Vec<String> =
                r.iter().map(|v| if v.is_finite() { format!("{v:e}") } else { String::new() }).collect();
            writeln!(w, "{}", line.join(","))?;
        }
        w.flush()
    };
    write_rows(&mut w).map_err(|e| ctx("timeseries.csv", e))?;
    let mut c = BufWriter::new(fs::File::create(dir.join("contacts.csv")).map_err(|e| ctx("contacts.csv", e))?);
    let write_contacts = |c: &mut BufWriter<fs::File>| -> std::io::Result<()> {
        writeln!(c, "t [s],event,x [m],y [m],z [m],speed [m/s],rate [rad/s]")?;
        for e in &run.contacts {
            let kind = if e.start { "touchdown" } else { "liftoff" };
            let p = e.position;
            writeln!(c, "{:e},{kind},{:e},{:e},{:e},{:e},{:e}", e.time, p.x, p.y, p.z, e.speed, e.rate)?;
        }
        c.flush()
    };
    write_contacts(&mut c).map_err(|e| ctx("contacts.csv", e))?;
    let summary = summary(model, run);
    let text = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
    fs::write(dir.join("summary.json"), text + "\n").map_err(|e| ctx("summary.json", e))?;
    plots(&dir.join("plots"), run)?;
    Ok(summary)
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
