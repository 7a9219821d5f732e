//! The fuzz targets: one function per reader or run, each a case from its generator.

use super::mutate::{self, HOSTILE_NUMBERS, HOSTILE_VALUES, Rng};
use super::{HANG, Verdict, common, note};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Instant;
use tumble_dynamics::multibody::urdf::{Base, urdf_from_str};
use tumble_geometry::TriMesh;
use tumble_geometry::mesh::{LengthUnit, MAX_COORDINATE, read_mesh, write_obj, write_stl};
use tumble_geometry::sdf::{GridSdf, Sdf};
use tumble_math::Vec3;
use tumble_sim::Scenario;
use tumble_sim::pipeline::ABSURD;
use tumble_sim::scenario::IntegratorKind;

/// Bundled scenarios whose model builds a signed distance field from a shape: 5 to 20 s each in
/// a debug build (a fraction of a second optimised), too slow for the bounded run's hundreds of
/// cases. They are fuzzed in an optimised build and in the long mode.
const SLOW_IN_DEBUG: [&str; 4] = ["comet_drop.toml", "hopper_67p.toml", "hopper_comet.toml", "lander_on_mesh.toml"];

/// The bundled scenarios and their texts (less [`SLOW_IN_DEBUG`] in a bounded debug run).
fn scenarios() -> &'static [(PathBuf, String)] {
    static ALL: OnceLock<Vec<(PathBuf, String)>> = OnceLock::new();
    ALL.get_or_init(|| {
        let all = !cfg!(debug_assertions) || std::env::var_os("TUMBLE_FUZZ_SECONDS").is_some();
        common::bundled()
            .into_iter()
            .filter(|p| all || !SLOW_IN_DEBUG.iter().any(|s| p.ends_with(s)))
            .map(|p| (p.clone(), std::fs::read_to_string(&p).expect("scenario")))
            .collect()
    })
}

/// A refusal must name `file`, and for scenarios a key or a line.
fn refused(message: &str, file: &Path, keyed: bool) -> Verdict {
    let name = file.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    if !message.contains(&name) {
        return Err(format!("refused without naming {name}: {message}"));
    }
    let line = message.split(':').any(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()));
    if keyed && !(message.contains("key `") || line) {
        return Err(format!("refused without naming a key or line: {message}"));
    }
    Ok("refused")
}

/// A finite value within the guard's bound.
fn sane(x: f64) -> bool {
    x.abs() <= ABSURD
}

fn check_scenario(
    path: &Path,
    text: String,
    set: &[(String, String)],
) -> Result<Result<Scenario, &'static str>, String> {
    note(&format!("{} with {set:?}", path.display()));
    let sc = match Scenario::from_text(path, text, set) {
        Ok(sc) => sc,
        Err(e) => return refused(&e.to_string(), path, true).map(Err),
    };
    // As `tumble check`.
    let built = tumble_sim::registry::check(&sc).map(|_| ()).map_err(|e| e.to_string());
    match built {
        Ok(()) => Ok(Ok(sc)),
        Err(e) => refused(&e, path, true).map(Err),
    }
}

/// Mutated scenario text, loaded and checked as `tumble check` does.
pub fn scenario_text(rng: &mut Rng, dir: &Path) -> Verdict {
    let (path, text) = rng.pick(scenarios());
    let count = 1 + rng.below(3);
    let text = mutate::text(text, rng, count);
    // Kept with the case (a hang leaves it in the case's folder).
    std::fs::write(dir.join("case.toml"), &text).map_err(|e| e.to_string())?;
    Ok(check_scenario(path, text, &[])?.map_or_else(|r| r, |_| "accepted"))
}

/// The dotted keys of a scenario's values (`simulation.dt`, `arm.links.0.mass`, `lander.size.1`)
/// with their text, from its lines: tables, arrays of tables, keys and their array elements.
fn keys(text: &str) -> Vec<(String, String)> {
    let (mut prefix, mut out) = (String::new(), Vec::new());
    let mut arrays: std::collections::HashMap<String, usize> = Default::default();
    for line in text.lines().map(|l| l.split('#').next().unwrap_or("").trim()) {
        if let Some(t) = line.strip_prefix("[[").and_then(|l| l.strip_suffix("]]")) {
            let n = arrays.entry(t.to_string()).or_insert(0);
            prefix = format!("{t}.{n}.");
            *n += 1;
        } else if let Some(t) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            prefix = format!("{t}.");
        } else if let Some((k, v)) = line.split_once('=') {
            let (key, v) = (format!("{prefix}{}", k.trim()), v.trim());
            if let Some(items) = v.strip_prefix('[').and_then(|v| v.strip_suffix(']')).filter(|_| !v.starts_with("[["))
            {
                out.extend(items.split(',').enumerate().map(|(i, x)| (format!("{key}.{i}"), x.trim().to_string())));
            }
            if !v.starts_with('{') {
                out.push((key, v.to_string()));
            }
        }
    }
    out
}

/// An override an adversary gives with `--set`: a hostile number or value for a key of the
/// scenario (now and then one it does not have).
fn hostile_override(rng: &mut Rng, text: &str) -> (String, String) {
    let keys = keys(text);
    if keys.is_empty() || rng.below(10) == 0 {
        return ("simulation.nonsense".into(), "1".into());
    }
    let key = rng.pick(&keys).0.clone();
    let value = if rng.below(3) == 0 { rng.pick(&HOSTILE_VALUES) } else { rng.pick(&HOSTILE_NUMBERS) };
    (key, value.to_string())
}

/// An override a dispersion study could draw: one of the scenario's numbers scaled (by 0, −1,
/// or 1e-3 to 1e6), or half the time a hostile one.
fn run_override(rng: &mut Rng, text: &str) -> (String, String) {
    let numbers: Vec<(String, f64)> =
        keys(text).into_iter().filter_map(|(k, v)| v.parse::<f64>().ok().map(|x| (k, x))).collect();
    if numbers.is_empty() || rng.below(2) == 0 {
        return hostile_override(rng, text);
    }
    let (key, x) = rng.pick(&numbers).clone();
    let scale = *rng.pick(&[0.0, -1.0, 1e-3, 0.1, 0.5, 2.0, 10.0, 1e3, 1e6]);
    (key, format!("{:?}", x * scale))
}

/// A bundled scenario with a hostile `--set`.
pub fn scenario_set(rng: &mut Rng, _dir: &Path) -> Verdict {
    let (path, text) = rng.pick(scenarios());
    let set = [hostile_override(rng, text)];
    Ok(check_scenario(path, text.clone(), &set)?.map_or_else(|r| r, |_| "accepted"))
}

/// The override that shortens a run to at most `steps` of its step (or a 200th of it).
fn shorten(sc: &Scenario, steps: f64) -> (String, String) {
    let sim = &sc.file.simulation;
    let short = sim.dt.map_or(sim.duration / 200.0, |dt| (dt * steps).min(sim.duration));
    ("simulation.duration".to_string(), format!("{short:?}"))
}

/// A bundled scenario with one number changed (scaled or hostile), run for a few steps through
/// its campaign kind, every output written and checked.
pub fn scenario_run(rng: &mut Rng, dir: &Path) -> Verdict {
    let (path, text) = rng.pick(scenarios());
    let set = vec![run_override(rng, text)];
    let sc = match check_scenario(path, text.clone(), &set)? {
        Ok(sc) => sc,
        Err(refused) => return Ok(refused),
    };
    let mut set = set;
    if sc.file.capture.is_some() {
        // A capture study's campaign judges by its funnel: from 16 rollouts, one verified (a
        // fraction of a second).
        set.extend([("capture.roa.samples".into(), "16".into()), ("capture.roa.verify".into(), "1".into())]);
    } else {
        set.push(shorten(&sc, 20.0 + rng.below(200) as f64));
    }
    if sc.file.simulation.integrator == IntegratorKind::Dopri5 {
        // An adaptive run's steps depend on the motion (a 5e4 rad/s spin takes 9e6 steps over
        // 29 s): a few thousand, then the budget's diagnosis.
        set.push(("simulation.max_steps".into(), "5000".into()));
    }
    let Ok(sc) = Scenario::from_text(path, text.clone(), &set) else { return Ok("not shortened") };
    let app =
        tumble_sim::registry::application(&sc).map_err(|e| format!("the checked scenario has no application: {e}"))?;
    let kind = match app.campaign(&sc, &[]) {
        Ok(kind) => kind,
        // A capture study's campaign designs the detumble, which may fail on a valid input (its
        // nominal does not detumble): `tumble capture-map` exits 1 with the reason.
        Err(_) if sc.file.capture.is_some() => return Ok("failed run"),
        Err(e) => return Err(format!("the checked scenario has no campaign: {e}")),
    };
    note("running");
    let Ok(run) = kind.run(&sc, Some(dir)) else { return Ok("not built") };
    if let Some(x) = run.results.iter().find(|x| x.is_infinite() || (x.is_finite() && !sane(**x))) {
        return Err(format!("{set:?}: status {}, result {x}", run.status));
    }
    if run.status == "failed" && run.note.is_empty() {
        return Err(format!("{set:?}: failed without a diagnosis"));
    }
    outputs_are_sane(dir).map_err(|e| format!("{set:?}: {e}"))?;
    Ok(if run.status == "failed" { "failed run" } else { "ran" })
}

/// Every CSV cell and JSON number under `dir` finite and within the guard's bound.
fn outputs_are_sane(dir: &Path) -> Result<(), String> {
    for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if path.is_dir() {
            outputs_are_sane(&path)?;
        } else if ext == "csv" {
            let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
            for (i, line) in text.lines().enumerate().skip(1) {
                if let Some(bad) = line.split(',').find(|c| c.trim().parse::<f64>().is_ok_and(|x| !sane(x))) {
                    return Err(format!("{}:{}: {bad}", path.display(), i + 1));
                }
            }
        } else if ext == "json" {
            let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
            let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            json_is_sane(&v).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

fn json_is_sane(v: &serde_json::Value) -> Result<(), String> {
    match v {
        serde_json::Value::Number(n) if !n.as_f64().is_some_and(sane) => Err(format!("number {n}")),
        serde_json::Value::Array(a) => a.iter().try_for_each(json_is_sane),
        serde_json::Value::Object(o) => o.values().try_for_each(json_is_sane),
        _ => Ok(()),
    }
}

/// Runs `tumble ARGS` with a time bound; its status code (None: killed by a signal), stdout and
/// stderr.
fn tumble(args: &[&str], dir: &Path, bound: std::time::Duration) -> Result<(Option<i32>, String, String), String> {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tumble"));
    c.args(args);
    run_bounded(c, args, dir, bound)
}

/// Runs command `c` (a `tumble` invocation with `args`) in `dir` with a time bound; its status
/// code (None: killed by a signal), stdout and stderr.
pub fn run_bounded(
    mut c: Command,
    args: &[&str],
    dir: &Path,
    bound: std::time::Duration,
) -> Result<(Option<i32>, String, String), String> {
    let (out, err) = (dir.join("stdout.txt"), dir.join("stderr.txt"));
    let file = |p: &Path| std::fs::File::create(p).map(Stdio::from).map_err(|e| e.to_string());
    let mut child = c
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(file(&out)?)
        .stderr(file(&err)?)
        .spawn()
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if start.elapsed() > bound {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("hang: `tumble {}` ran past {} s", args.join(" "), bound.as_secs()));
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    Ok((status.code(), read(&out), read(&err)))
}

/// A bundled scenario with a hostile `--set`, shortened, run by `tumble run`: exit 0 only for a
/// run that did not fail and wrote sane outputs, 1 with a diagnosis, 2 naming the file.
pub fn command_run(rng: &mut Rng, dir: &Path) -> Verdict {
    let (path, text) = rng.pick(scenarios());
    let (key, value) = run_override(rng, text);
    let Ok(sc) = Scenario::from_text(path, text.clone(), &[]) else { return Err("bundled scenario refused".into()) };
    let (dk, dv) = shorten(&sc, 50.0);
    let (set, short) = (format!("{key}={value}"), format!("{dk}={dv}"));
    let file = path.to_string_lossy().to_string();
    let args = ["run", &file, "--set", &set, "--set", &short, "--out", "out", "--quiet"];
    let (code, _, err) = tumble(&args, dir, HANG * 3)?;
    // Nothing written outside the output folder (the command runs in `dir`).
    for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())? {
        let name = entry.map_err(|e| e.to_string())?.file_name();
        if !["out", "stdout.txt", "stderr.txt"].iter().any(|n| name == *n) {
            return Err(format!("--set {key}={value}: wrote {name:?} outside its output folder"));
        }
    }
    let summary = std::fs::read_to_string(dir.join("out/summary.json")).unwrap_or_default();
    let failed = summary.contains("\"status\": \"failed\"");
    match code {
        Some(0) if failed => Err(format!("--set {set}: exit 0 after a guard trip")),
        Some(0) => outputs_are_sane(&dir.join("out")).map(|_| "ran").map_err(|e| format!("--set {set}: {e}")),
        Some(1) if err.contains("error:") => Ok("failed run"),
        Some(2) => refused(&err, path, true).map_err(|e| format!("--set {set}: {e}")),
        other => Err(format!("--set {set}: exit {other:?}: {err}")),
    }
}

/// Valid files of every mesh format: (extension, bytes).
fn mesh_samples() -> &'static [(&'static str, Vec<u8>)] {
    static ALL: OnceLock<Vec<(&'static str, Vec<u8>)>> = OnceLock::new();
    ALL.get_or_init(|| {
        let cube = TriMesh::cuboid([2.0, 1.0, 0.5]);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz_mesh_samples");
        std::fs::create_dir_all(&dir).expect("samples");
        let written = |name: &str, write: &dyn Fn(&Path)| {
            let p = dir.join(name);
            write(&p);
            std::fs::read(&p).expect("sample")
        };
        let obj = written("s.obj", &|p| write_obj(p, &cube, LengthUnit::M).expect("obj"));
        let stl = written("s.stl", &|p| write_stl(p, &cube, LengthUnit::M, false).expect("stl"));
        let ascii_stl = written("a.stl", &|p| write_stl(p, &cube, LengthUnit::M, true).expect("stl"));
        let mut ply = format!(
            "ply\nformat ascii 1.0\nelement vertex {}\nproperty float x\nproperty float y\nproperty float z\nelement face {}\nproperty list uchar int vertex_indices\nend_header\n",
            cube.vertices.len(),
            cube.faces.len()
        );
        cube.vertices.iter().for_each(|v| ply += &format!("{} {} {}\n", v.x, v.y, v.z));
        cube.faces.iter().for_each(|f| ply += &format!("3 {} {} {}\n", f[0], f[1], f[2]));
        let mut icq = String::from("2\n");
        for face in 0..6 {
            for j in 0..3 {
                for i in 0..3 {
                    let (u, v) = (i as f64 - 1.0, j as f64 - 1.0);
                    let p = match face {
                        0 => [u, v, 1.0],
                        1 => [1.0, u, v],
                        2 => [v, 1.0, u],
                        3 => [-u, -1.0, v],
                        4 => [-1.0, v, u],
                        _ => [v, u, -1.0],
                    };
                    icq += &format!("{} {} {}\n", p[0], p[1], p[2]);
                }
            }
        }
        let tab = String::from_utf8_lossy(&obj).replace("# ", "");
        vec![
            ("obj", obj),
            ("stl", stl),
            ("stl", ascii_stl),
            ("ply", ply.into_bytes()),
            ("icq", icq.into_bytes()),
            ("tab", tab.into_bytes()),
        ]
    })
}

/// A mutated mesh file of any format.
pub fn mesh(rng: &mut Rng, dir: &Path) -> Verdict {
    let (ext, data) = rng.pick(mesh_samples());
    let count = 1 + rng.below(4);
    let bytes = match std::str::from_utf8(data) {
        Ok(text) if rng.below(2) == 0 => mutate::text(text, rng, count).into_bytes(),
        _ => mutate::bytes(data, rng, count),
    };
    let path = dir.join(format!("case.{ext}"));
    std::fs::write(&path, &bytes).map_err(|e| e.to_string())?;
    match read_mesh(&path, LengthUnit::M) {
        Err(e) => refused(&e.to_string(), &path, false),
        Ok(m) => {
            if let Some(v) = m.vertices.iter().find(|v| !v.iter().all(|c| c.abs() <= MAX_COORDINATE)) {
                return Err(format!("accepted a vertex at {:?}", v.as_slice()));
            }
            if m.faces.iter().flatten().any(|&i| i as usize >= m.vertices.len()) {
                return Err("accepted a face indexing past the vertices".into());
            }
            let (_, volume) = (m.report(), m.volume());
            if !volume.is_finite() { Err(format!("volume {volume}")) } else { Ok("accepted") }
        }
    }
}

/// Valid grid SDF files: a plain grid and one with its mesh refinement.
fn sdf_samples() -> &'static [Vec<u8>] {
    static ALL: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    ALL.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz_sdf_samples");
        std::fs::create_dir_all(&dir).expect("samples");
        let plain = GridSdf::from_fn(Vec3::new(-1.0, -1.0, -1.0), 0.5, [5, 5, 5], |p| p.norm() - 0.7);
        let refined = GridSdf::from_mesh(&TriMesh::ellipsoid([1.0, 0.8, 0.6], 1), 6, 0.2).expect("grid");
        [plain, refined]
            .iter()
            .map(|g| {
                let p = dir.join("s.sdf");
                g.save(&p).expect("save");
                std::fs::read(&p).expect("sample")
            })
            .collect()
    })
}

/// A mutated grid SDF file, queried when accepted.
pub fn sdf(rng: &mut Rng, dir: &Path) -> Verdict {
    let data = rng.pick(sdf_samples());
    let count = 1 + rng.below(3);
    let path = dir.join("case.sdf");
    std::fs::write(&path, mutate::bytes(data, rng, count)).map_err(|e| e.to_string())?;
    let grid = match GridSdf::load(&path) {
        Err(e) => return refused(&e.to_string(), &path, false),
        Ok(g) => g,
    };
    let (lo, hi) = (grid.origin, grid.upper());
    for _ in 0..20 {
        let t = Vec3::new(rng.unit(), rng.unit(), rng.unit()) * 1.4 - Vec3::repeat(0.2);
        let p = lo + (hi - lo).component_mul(&t);
        let (d, g) = grid.eval(&p);
        if !(d.is_finite() && g.iter().all(|c| c.is_finite())) {
            return Err(format!("accepted grid answers d = {d}, gradient {:?} at {:?}", g.as_slice(), p.as_slice()));
        }
    }
    Ok("accepted")
}

const URDF: &str = r#"<?xml version="1.0"?>
<robot name="arm">
  <link name="base"><inertial><origin xyz="0 0 0.1" rpy="0 0 0"/><mass value="5"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <link name="upper"><inertial><origin xyz="0 0 0.25" rpy="0 0 0"/><mass value="2"/>
    <inertia ixx="0.05" ixy="0" ixz="0" iyy="0.05" iyz="0" izz="0.01"/></inertial></link>
  <link name="slide"><inertial><origin xyz="0 0 0.1"/><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.2" rpy="0 0.1 0"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="100" velocity="2"/></joint>
  <joint name="extend" type="prismatic"><parent link="upper"/><child link="slide"/>
    <origin xyz="0 0 0.5"/><axis xyz="0 0 1"/><limit lower="0" upper="0.3" effort="50" velocity="1"/></joint>
</robot>
"#;

/// A mutated URDF, its mass matrix evaluated when accepted.
pub fn urdf(rng: &mut Rng, _dir: &Path) -> Verdict {
    let count = 1 + rng.below(3);
    let text = mutate::text(URDF, rng, count);
    let base = if rng.below(2) == 0 { Base::Fixed } else { Base::Free };
    match urdf_from_str(&text, "case.urdf", base, Vec3::new(0.0, 0.0, -9.81)) {
        Err(e) => refused(&e.to_string(), Path::new("case.urdf"), false),
        Ok(m) => {
            let q = m.multibody.neutral();
            let mm = m.multibody.mass_matrix(&q);
            if mm.iter().all(|x| x.is_finite()) { Ok("accepted") } else { Err(format!("mass matrix {mm}")) }
        }
    }
}

/// A number of random sign and magnitude: mostly 1e-3 to 1e3, now and then 1e-300 to 1e300.
fn magnitude(rng: &mut Rng) -> f64 {
    let exp = if rng.below(6) == 0 { rng.unit() * 600.0 - 300.0 } else { rng.unit() * 6.0 - 3.0 };
    let sign = if rng.below(2) == 0 { -1.0 } else { 1.0 };
    if rng.below(8) == 0 { 0.0 } else { sign * 10f64.powf(exp) }
}

fn matrix(rows: usize, cols: usize, f: &mut dyn FnMut(usize, usize) -> f64) -> String {
    let r: Vec<String> = (0..rows)
        .map(|i| format!("[{}]", (0..cols).map(|j| format!("{:e}", f(i, j))).collect::<Vec<_>>().join(", ")))
        .collect();
    format!("[{}]", r.join(", "))
}

/// An LQR problem in JSON (random sizes and scales, weights mostly valid), through `tumble lqr`.
pub fn lqr_json(rng: &mut Rng, dir: &Path) -> Verdict {
    let (n, m) = (1 + rng.below(5), 1 + rng.below(3));
    let a = matrix(n, n, &mut |_, _| magnitude(rng));
    let b = matrix(n, m, &mut |_, _| magnitude(rng));
    let (qs, rs) = (magnitude(rng).abs(), magnitude(rng).abs());
    let q = matrix(n, n, &mut |i, j| if i == j { qs } else { 0.0 });
    let r = matrix(m, m, &mut |i, j| if i == j { rs } else { 0.0 });
    let mut text = format!("{{\"A\": {a}, \"B\": {b}, \"Q\": {q}, \"R\": {r}}}");
    if rng.below(4) == 0 {
        text = mutate::text(&text, rng, 1);
    }
    let path = dir.join("case.json");
    std::fs::write(&path, &text).map_err(|e| e.to_string())?;
    let (code, out, err) = tumble(&["lqr", "case.json", "--json"], dir, HANG)?;
    match code {
        Some(0) => {
            let v: serde_json::Value = serde_json::from_str(&out).map_err(|e| format!("{e}: {out}"))?;
            let finite = |k: &str| {
                v[k].as_array().is_some_and(|rows| {
                    rows.iter()
                        .flat_map(|r| r.as_array().into_iter().flatten())
                        .all(|x| x.is_f64() || x.is_i64() || x.is_u64())
                })
            };
            if ["K", "S", "closed_loop_eigenvalues"].iter().all(|k| finite(k)) {
                Ok("designed")
            } else {
                Err(format!("exit 0 with a non-finite value: {out}"))
            }
        }
        Some(2) => refused(&err, &path, false),
        other => Err(format!("exit {other:?}: {err}")),
    }
}

/// Force–displacement data in CSV (random scales, now and then mutated), through `tumble fit`.
pub fn fit_csv(rng: &mut Rng, dir: &Path) -> Verdict {
    let (sd, sf) = (magnitude(rng).abs().max(1e-300), magnitude(rng).abs().max(1e-300));
    let rows = 3 + rng.below(30);
    let mut text = String::from("displacement,force,velocity\n");
    for i in 0..rows {
        let d = sd * (i as f64 + 1.0) / rows as f64;
        let f = sf * (d / sd).powf(1.5) * (1.0 + 0.01 * (rng.unit() - 0.5));
        text += &format!("{d:e},{f:e},{:e}\n", rng.unit() - 0.5);
    }
    if rng.below(3) == 0 {
        let count = 1 + rng.below(2);
        text = mutate::text(&text, rng, count);
    }
    let path = dir.join("case.csv");
    std::fs::write(&path, &text).map_err(|e| e.to_string())?;
    let model = *rng.pick(&["quadratic", "power", "hunt-crossley"]);
    let (code, out, err) =
        tumble(&["fit", "contact", "case.csv", "--model", model, "--json", "--out", "fit"], dir, HANG)?;
    match code {
        Some(0) => {
            // Coefficients may be huge in the data's units (k = F/δ^p); they must be numbers.
            serde_json::from_str::<serde_json::Value>(&out).map_err(|e| format!("{e}: {out}"))?;
            if out.contains("null") { Err(format!("{model}: exit 0 with a null: {out}")) } else { Ok("fitted") }
        }
        Some(2) => refused(&err, &path, false),
        other => Err(format!("{model}: exit {other:?}: {err}")),
    }
}

/// Contact models as files bring them: the Blender latch (a glTF node tree with extras) and
/// TOML models with wires, volumes and sets.
fn model_samples() -> &'static [(&'static str, String)] {
    static ALL: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
    ALL.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let read = |p: &str| std::fs::read_to_string(root.join(p)).expect("model sample");
        vec![
            ("gltf", read("docs/examples/blender_tree/latch.gltf")),
            ("toml", read("scenarios/contact/models/cbm_hook.toml")),
            ("toml", read("scenarios/contact/models/lee_effector.toml")),
            ("toml", read("scenarios/contact/models/cbm_passive.toml")),
        ]
    })
}

/// A mutated contact model: refused naming the file, or accepted with every body's home pose
/// and every primitive's bounding sphere finite.
pub fn contact_model(rng: &mut Rng, dir: &Path) -> Verdict {
    let (ext, text) = rng.pick(model_samples());
    let count = 1 + rng.below(4);
    let path = dir.join(format!("case.{ext}"));
    std::fs::write(&path, mutate::text(text, rng, count)).map_err(|e| e.to_string())?;
    match tumble_contact::interference::Model::load(&path) {
        Err(e) => refused(&e.to_string(), &path, false),
        Ok(m) => {
            let homes = m.bodies.iter().all(|b| b.home.p.iter().chain(b.home.R.iter()).all(|x| x.is_finite()));
            let bounds = m.prims.iter().all(|p| p.bound.0.iter().all(|x| x.is_finite()) && !p.bound.1.is_nan());
            if homes && bounds {
                Ok("accepted")
            } else {
                Err(format!("accepted a model with a non-finite pose or bound: {}", m.name))
            }
        }
    }
}
