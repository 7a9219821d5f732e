//! A lander run as CCSDS messages (`ccsds/` in its folder, when the run has an epoch from
//! `[target.spice]`): the spacecraft's trajectory as OEMs in the target's body-fixed frame and
//! in EME2000, its attitude and the target's as AEMs, each in KVN and XML
//! ([`crate::ccsds`]; docs/interop.md, "CCSDS messages out").
//!
//! Positions are relative to the origin of the shape's coordinates, the body centre that the
//! PCK's body-fixed frame and the SPK refer to: body-fixed `x`, `v` as the run has them;
//! inertial `R_NT x` and `R_NT (v + Ω × x)`.

use super::model::LanderModel;
use super::samples::COLUMNS;
use super::sim::LanderRun;
use crate::ccsds::{Meta, aem, creation_date, oem};
use std::path::Path;
use tumble_math::{Quat, UnitQuat, Vec3, output};

/// The column of `name` in [`COLUMNS`].
fn col(name: &str) -> usize {
    COLUMNS.iter().position(|c| *c == name).expect("a lander column")
}

fn quat(r: &[f64], at: usize) -> UnitQuat {
    UnitQuat::new_normalize(Quat::new(r[at], r[at + 1], r[at + 2], r[at + 3]))
}

fn wxyz(q: &UnitQuat) -> [f64; 4] {
    [q.w, q.i, q.j, q.k]
}

/// The messages of a run: `(file name, text)`, none without an epoch.
pub fn messages(model: &LanderModel, run: &LanderRun) -> Vec<(String, String)> {
    let Some(e) = &model.ephemeris else { return Vec::new() };
    let name = e.name.to_uppercase().replace([' ', '-'], "_");
    let fixed = format!("IAU_{name}");
    let (x, v, q, tq, tw) =
        (col("x [m]"), col("vx [m/s]"), col("qw [1]"), col("target_qw [1]"), col("target_wx [rad/s]"));
    let rows = &run.rows;
    let times: Vec<f64> = rows.iter().map(|r| e.et + r[0]).collect();
    let v3 = |r: &[f64], i: usize| Vec3::new(r[i], r[i + 1], r[i + 2]);
    let body_fixed: Vec<[f64; 6]> = rows.iter().map(|r| [r[x], r[x + 1], r[x + 2], r[v], r[v + 1], r[v + 2]]).collect();
    let inertial: Vec<[f64; 6]> = rows
        .iter()
        .map(|r| {
            let r_nt = quat(r, tq);
            let (p, vel) = (v3(r, x), v3(r, v) + v3(r, tw).cross(&v3(r, x)));
            let (p, vel) = (r_nt * p, r_nt * vel);
            [p.x, p.y, p.z, vel.x, vel.y, vel.z]
        })
        .collect();
    let lander_n: Vec<[f64; 4]> = rows.iter().map(|r| wxyz(&(quat(r, tq) * quat(r, q)))).collect();
    let target_n: Vec<[f64; 4]> = rows.iter().map(|r| wxyz(&quat(r, tq))).collect();
    let meta = |frame: &str, body: &str, what: &str| Meta {
        object_name: model.name.clone(),
        object_id: model.name.clone(),
        center_name: name.clone(),
        ref_frame: frame.to_string(),
        body_frame: body.to_string(),
        comments: vec![format!("Tumble lander run '{}' from epoch {}: {what}", model.name, e.epoch)],
    };
    let created = creation_date();
    let relative = "positions relative to the shape model's origin (the body centre)";
    let mut out = Vec::new();
    let mut push = |stem: &str, ext: &str, (kvn, xml): (String, String)| {
        out.push((format!("{stem}.{ext}"), kvn));
        out.push((format!("{stem}_{ext}.xml"), xml));
    };
    push("lander_body_fixed", "oem", oem(&meta(&fixed, "", relative), &times, &body_fixed, &created));
    push("lander_eme2000", "oem", oem(&meta("EME2000", "", relative), &times, &inertial, &created));
    let attitude = "the lander's body frame relative to EME2000";
    push("lander_attitude", "aem", aem(&meta("EME2000", "SC_BODY_1", attitude), &times, &lander_n, &created));
    let target = format!("the target's body-fixed frame {fixed} relative to EME2000");
    let mut target_meta = meta("EME2000", &fixed, &target);
    target_meta.object_name = name.clone();
    target_meta.object_id = name.clone();
    push("target_attitude", "aem", aem(&target_meta, &times, &target_n, &created));
    out
}

/// Writes the messages into `dir/ccsds/` (nothing without an epoch).
pub fn write(dir: &Path, model: &LanderModel, run: &LanderRun) -> Result<(), String> {
    let files = messages(model, run);
    if files.is_empty() {
        return Ok(());
    }
    let error = |e: std::io::Error| format!("{}: cannot write ccsds/: {e}", dir.display());
    let folder = output::subfolder(dir, "ccsds").map_err(error)?;
    for (name, text) in files {
        output::write(&folder.join(&name), text)
            .map_err(|e| format!("{}: cannot write: {e}", folder.join(&name).display()))?;
    }
    Ok(())
}
