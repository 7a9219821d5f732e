//! Fuzz targets of the file system around Tumble: output folders with planted links, inputs
//! that are pipes, links, devices or huge, forged shards and saved capture designs
//! (docs/limits.md, "Names and output folders", "Shards and merges").

use super::mutate::{self, HOSTILE_NUMBERS, Rng};
use super::{HANG, Verdict, common, note};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Memory a command may take, KiB of address space (`ulimit -v`): far above any refusal's need
/// (a 4 MiB scenario parses in about 300 MB), far below an unbounded read of a device.
const MEMORY_KIB: u64 = 3 << 20;

/// Runs `tumble ARGS` in `dir` under [`MEMORY_KIB`] and a time bound, with `env` set: its
/// status code and stderr.
fn tumble_capped(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Result<(Option<i32>, String), String> {
    let script = format!("ulimit -v {MEMORY_KIB}; exec \"$0\" \"$@\"");
    let mut c = Command::new("bash");
    c.arg("-c").arg(script).arg(env!("CARGO_BIN_EXE_tumble")).args(args);
    c.env_remove("TUMBLE_SHARD_KEY").env_remove("TUMBLE_READ_SPECIAL");
    for (k, v) in env {
        c.env(k, v);
    }
    let (code, _, err) = super::targets::run_bounded(c, args, dir, HANG * 3)?;
    Ok((code, err))
}

/// What a victim folder holds: (name, content) of every file, sorted.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| (e.file_name().to_string_lossy().to_string(), std::fs::read(e.path()).unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    all.sort();
    all
}

/// The names a run or campaign writes in its folder.
const OUTPUTS: [&str; 9] = [
    "summary.json",
    "timeseries.csv",
    "animation.glb",
    "plots",
    "runs.csv",
    "campaign.json",
    "runs.parquet",
    "shard.json",
    "plots/energy.png",
];

/// Plants one thing under `name` in `out`: a link to the victim file or folder, a dangling
/// link, a hard link, a FIFO or a folder.
fn plant(rng: &mut Rng, out: &Path, name: &str, victim: &Path) -> String {
    let at = out.join(name);
    if let Some(parent) = at.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let kind = rng.below(6);
    let _ = match kind {
        0 => symlink(victim.join("secret.txt"), &at),
        1 => symlink(victim, &at),
        2 => symlink(victim.join("nowhere"), &at),
        3 => std::fs::hard_link(victim.join("secret.txt"), &at),
        4 => Command::new("mkfifo").arg(&at).status().map(|_| ()),
        _ => std::fs::create_dir(&at),
    };
    format!("{name}:{}", ["link", "folder link", "dangling", "hard link", "fifo", "folder"][kind])
}

/// A run or a short campaign into a folder with one to three planted entries (links, hard
/// links, FIFOs, folders under output names) or an `--out` spelt with `..`: the victim folder
/// beside it unchanged, nothing created outside the case folder's `out` and `victim`, an exit
/// of 0, 1 or 2 within the bound, a refusal that names what it refused.
pub fn output_folder(rng: &mut Rng, dir: &Path) -> Verdict {
    let victim = dir.join("victim");
    std::fs::create_dir_all(&victim).map_err(|e| e.to_string())?;
    std::fs::write(victim.join("secret.txt"), "keep").map_err(|e| e.to_string())?;
    std::fs::write(victim.join("figure.png"), "keep").map_err(|e| e.to_string())?;
    let out = dir.join("out");
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let planted: Vec<String> = (0..1 + rng.below(3))
        .map(|_| {
            let name = rng_pick(rng);
            plant(rng, &out, name, &victim)
        })
        .collect();
    let before = contents(&victim);
    let spelt = match rng.below(4) {
        0 => format!("out/X{}", "/..".repeat(1 + rng.below(40))),
        1 => "victim/../out".to_string(),
        _ => "out".to_string(),
    };
    note(&format!("{planted:?} --out {spelt}"));
    let scenario = common::scenario("basics/dzhanibekov.toml");
    let cube = common::scenario("lander/cube_phobos.toml");
    let args: Vec<&str> = if rng.below(3) == 0 {
        vec!["mc", &cube, "--runs", "2", "--threads", "1", "--set", "lander.settle.speed=1e-3", "--quiet"]
    } else {
        vec!["run", &scenario, "--set", "simulation.duration=0.05", "--quiet"]
    };
    let args: Vec<&str> = args.into_iter().chain(["--out", spelt.as_str()]).collect();
    let (code, err) = tumble_capped(&args, dir, &[])?;
    if contents(&victim) != before {
        return Err(format!("{planted:?} --out {spelt}: the victim folder changed: {err}"));
    }
    for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())? {
        let name = entry.map_err(|e| e.to_string())?.file_name();
        if !["out", "victim", "stdout.txt", "stderr.txt"].iter().any(|n| name == *n) {
            return Err(format!("{planted:?} --out {spelt}: wrote {name:?} outside its output folder"));
        }
    }
    match code {
        Some(0) => Ok("ran"),
        Some(1 | 2) if err.contains("error:") => Ok("refused"),
        other => Err(format!("{planted:?} --out {spelt}: exit {other:?}: {err}")),
    }
}

fn rng_pick(rng: &mut Rng) -> &'static str {
    OUTPUTS[rng.below(OUTPUTS.len())]
}

/// What an input file is made into.
fn hostile_file(rng: &mut Rng, at: &Path, good: &[u8]) -> String {
    let _ = std::fs::remove_file(at);
    match rng.below(6) {
        0 => {
            let _ = Command::new("mkfifo").arg(at).status();
            "fifo".into()
        }
        1 => {
            let _ = symlink("/dev/zero", at);
            "link to /dev/zero".into()
        }
        2 => {
            let real = at.with_extension("real");
            let _ = std::fs::write(&real, good);
            let _ = symlink(&real, at);
            "link to a good file".into()
        }
        3 => {
            // A sparse file past every bound: no disk used, 3 GiB reported.
            let _ = std::fs::File::create(at).and_then(|f| f.set_len(3 << 30));
            "3 GiB sparse".into()
        }
        4 => {
            let _ = std::fs::create_dir_all(at);
            "folder".into()
        }
        _ => {
            // Past the format's own bound, filled with one repeated token.
            let tokens: [&[u8]; 4] = [b"[],", b"1,", b"{a=1},", b"f 1 1 1\n"];
            let token = *rng.pick(&tokens);
            let mut big = Vec::with_capacity((17 << 20) + token.len());
            while big.len() < 17 << 20 {
                big.extend_from_slice(token);
            }
            let _ = std::fs::write(at, big);
            "17 MiB of one token".into()
        }
    }
}

/// A scenario, a campaign's `campaign.json` on `--resume`, a shard's `shard.json` on `--merge`,
/// a saved design or a shape model made a FIFO, a link, a huge (sparse) file, a folder or a
/// file of repeated tokens: every command ends within the bound, under the memory cap, with 0
/// only where the input was good, else 1 or 2 naming the file.
pub fn input_file(rng: &mut Rng, dir: &Path) -> Verdict {
    let cube = common::scenario("lander/cube_phobos.toml");
    let which = rng.below(5);
    let (args, file): (Vec<String>, PathBuf) = match which {
        0 => {
            let f = dir.join("scenario.toml");
            let what = hostile_file(rng, &f, &std::fs::read(&cube).unwrap_or_default());
            note(&format!("scenario: {what}"));
            (vec!["check".into(), f.display().to_string()], f)
        }
        1 | 2 => {
            let out = dir.join("c");
            let name = if which == 1 { "campaign.json" } else { "runs.csv" };
            std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
            std::fs::write(out.join("runs.csv"), "run\n").map_err(|e| e.to_string())?;
            let what = hostile_file(rng, &out.join(name), b"{}");
            note(&format!("--resume with {name}: {what}"));
            let args = ["mc", &cube, "--runs", "1", "--resume", "--quiet", "--out", "c"];
            (args.iter().map(|s| s.to_string()).collect(), out.join(name))
        }
        3 => {
            let shard = dir.join("s0");
            std::fs::create_dir_all(&shard).map_err(|e| e.to_string())?;
            let id = r#"{"scenario":"x","scenario_hash":"0","seed":0,"dispersions":[],"runs":2,"shard":"0/1"}"#;
            std::fs::write(shard.join("campaign.json"), id).map_err(|e| e.to_string())?;
            std::fs::write(shard.join("runs.csv"), "run\n").map_err(|e| e.to_string())?;
            let name = *rng.pick(&["shard.json", "runs.csv", "campaign.json"]);
            let what = hostile_file(rng, &shard.join(name), b"{}");
            note(&format!("--merge with {name}: {what}"));
            let args = ["mc", &cube, "--runs", "2", "--quiet", "--out", "m", "--merge", "s0"];
            (args.iter().map(|s| s.to_string()).collect(), shard.join(name))
        }
        _ => {
            let f = dir.join("design.json");
            let what = hostile_file(rng, &f, b"{}");
            note(&format!("design: {what}"));
            let args = ["capture", "check", "design.json", "--state", "0", "--impulse", "0,0,0,0,0,0"];
            (args.iter().map(|s| s.to_string()).collect(), f)
        }
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, err) = tumble_capped(&args, dir, &[])?;
    let name = file.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    match code {
        Some(1 | 2) if err.contains(&name) || err.contains("campaign") => Ok("refused"),
        Some(1 | 2) => Err(format!("refused without naming {name}: {err}")),
        other => Err(format!("exit {other:?} (only 1 or 2 may end these): {err}")),
    }
}

/// Two finished shards of a small campaign (keyed with [`KEY`]), made once.
fn genuine_shards() -> &'static Result<(PathBuf, Vec<u8>), String> {
    static SHARDS: OnceLock<Result<(PathBuf, Vec<u8>), String>> = OnceLock::new();
    SHARDS.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz").join("genuine_shards");
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).map_err(|e| e.to_string())?;
        let cube = common::scenario("lander/cube_phobos.toml");
        for k in 0..2 {
            let args = ["mc", &cube, "--runs", "4", "--seed", "9", "--threads", "1", "--quiet"];
            let (code, err) = tumble_capped(
                &[
                    &args[..],
                    &["--set", "lander.settle.speed=1e-3", "--shard", &format!("{k}/2"), "--out", &k.to_string()],
                ]
                .concat(),
                &root,
                &[("TUMBLE_SHARD_KEY", KEY)],
            )?;
            if code != Some(0) {
                return Err(format!("shard {k}: {err}"));
            }
        }
        let (code, err) = merge(&root, &root.join("genuine"), &[], true)?;
        if code != Some(0) {
            return Err(format!("genuine merge: {err}"));
        }
        let csv = std::fs::read(root.join("genuine/runs.csv")).map_err(|e| e.to_string())?;
        Ok((root, csv))
    })
}

const KEY: &str = "fuzz-key-0123456789abcdef";

fn merge(root: &Path, out: &Path, extra: &[&str], keyed: bool) -> Result<(Option<i32>, String), String> {
    let cube = common::scenario("lander/cube_phobos.toml");
    let (o, s0, s1) = (out.display().to_string(), root.join("0"), root.join("1"));
    let (s0, s1) = (s0.display().to_string(), s1.display().to_string());
    let args = ["mc", &cube, "--runs", "4", "--seed", "9", "--threads", "1", "--quiet"];
    let args = [&args[..], &["--set", "lander.settle.speed=1e-3", "--out", &o], extra, &["--merge", &s0, &s1]].concat();
    tumble_capped(&args, root, if keyed { &[("TUMBLE_SHARD_KEY", KEY)] } else { &[] })
}

/// A genuine shard's `runs.csv` or `shard.json` mutated and its FNV-1a checksum recomputed (what
/// anyone can do), merged with the key, or without it re-running every run: exit 0 only when the
/// merged rows are the genuine merge's byte for byte, else 2 naming the shard.
pub fn forged_shard(rng: &mut Rng, dir: &Path) -> Verdict {
    let (root, genuine) = genuine_shards().as_ref().map_err(|e| format!("genuine shards: {e}"))?;
    let forged_root = dir.join("shards");
    for k in ["0", "1"] {
        std::fs::create_dir_all(forged_root.join(k)).map_err(|e| e.to_string())?;
        for f in ["campaign.json", "runs.csv", "shard.json"] {
            std::fs::copy(root.join(k).join(f), forged_root.join(k).join(f)).map_err(|e| e.to_string())?;
        }
    }
    let k = rng.pick(&["0", "1"]);
    let shard = forged_root.join(k);
    let csv = std::fs::read_to_string(shard.join("runs.csv")).map_err(|e| e.to_string())?;
    let mut record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(shard.join("shard.json")).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    let csv = if rng.below(4) == 0 {
        // The accounting: hostile numbers where counts and times go.
        let key = *rng.pick(&["runs_executed", "wall_time_s", "threads"]);
        let hostile: &str = HOSTILE_NUMBERS[rng.below(HOSTILE_NUMBERS.len())];
        let n: serde_json::Value = serde_json::from_str(hostile).unwrap_or(serde_json::Value::Null);
        note(&format!("shard {k}: accounting {key} = {n}"));
        record["accounting"][key] = n;
        csv
    } else {
        note(&format!("shard {k}: runs.csv mutated"));
        let body = csv.split_once('\n').map_or("", |(_, b)| b);
        let count = 1 + rng.below(2);
        format!("{}\n{}", csv.lines().next().unwrap_or(""), mutate::text(body, rng, count))
    };
    let fnv = csv.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
    record["runs_csv_fnv1a"] = format!("{fnv:016x}").into();
    std::fs::write(shard.join("runs.csv"), &csv).map_err(|e| e.to_string())?;
    std::fs::write(shard.join("shard.json"), record.to_string()).map_err(|e| e.to_string())?;
    let keyed = rng.below(2) == 0;
    let extra: &[&str] = if keyed { &[] } else { &["--verify-runs", "2"] };
    // Unkeyed shards carry no code: copy them without it.
    if !keyed {
        for k in ["0", "1"] {
            let p = forged_root.join(k).join("shard.json");
            let mut r: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&p).map_err(|e| e.to_string())?)
                    .map_err(|e| e.to_string())?;
            r.as_object_mut().map(|m| m.remove("hmac_sha256"));
            std::fs::write(&p, r.to_string()).map_err(|e| e.to_string())?;
        }
    }
    let out = dir.join("merged");
    let (code, err) = merge(&forged_root, &out, extra, keyed)?;
    let merged = std::fs::read(out.join("runs.csv")).ok();
    match code {
        Some(0) if merged.as_ref() == Some(genuine) => Ok("accepted, unchanged"),
        Some(0) => Err(format!("a forged shard merged (keyed: {keyed}) into other rows: {err}")),
        Some(2) if err.contains("shards/") || err.contains("TUMBLE_SHARD_KEY") => Ok("refused"),
        other => Err(format!("exit {other:?}: {err}")),
    }
}

/// The small design of the C interface's tests as JSON: seven chaser velocities, one joint.
fn design_text() -> String {
    let eye = |n: usize, m: usize, d: f64| -> Vec<Vec<f64>> {
        (0..n).map(|i| (0..m).map(|j| if i == j { d } else { 0.0 }).collect()).collect()
    };
    serde_json::json!({
        "format": tumble_control::capture_check::FORMAT, "version": tumble_control::capture_check::VERSION,
        "scenario": "small", "seed": 0, "frames": tumble_control::capture_check::FRAMES,
        "chaser_velocities": 7, "joint_angles": [0.5], "nominal_chaser_velocity": vec![0.0; 7],
        "nominal_target_velocity": vec![0.0; 6], "dt": 0.1, "stride": 1,
        "x_nom": [[0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]], "u_nom": [], "s": [eye(8, 8, 2.0)],
        "rho0": 1.0, "rho": [1.0], "funnel_bounded": true,
        "map": { "name": "chaser", "chaser": eye(7, 7, 1.0), "target": eye(7, 6, 0.0), "impulse": eye(7, 6, 0.5) },
        "joint_angle_spread": 0.0, "joint_names": ["shoulder"], "target_mass": 100.0,
    })
    .to_string()
}

/// A saved design, its text mutated (numbers made hostile, characters changed), asked a verdict
/// for hostile velocities and impulses: refused with an error, or answered with every number
/// finite and within the guard's bound.
pub fn design(rng: &mut Rng, _dir: &Path) -> Verdict {
    use tumble_control::capture_check::CaptureCheck;
    let count = rng.below(3);
    let text = mutate::text(&design_text(), rng, count);
    let Ok(check) = CaptureCheck::from_json(&text) else { return Ok("refused") };
    let mut number = || {
        if rng.below(3) == 0 {
            let hostile = *rng.pick(&HOSTILE_NUMBERS);
            hostile.parse::<f64>().unwrap_or(f64::NAN)
        } else {
            rng.unit() - 0.5
        }
    };
    let (v_c, v_t, imp): (Vec<f64>, Vec<f64>, Vec<f64>) =
        ((0..7).map(|_| number()).collect(), (0..6).map(|_| number()).collect(), (0..6).map(|_| number()).collect());
    note(&format!("{v_c:?} {v_t:?} {imp:?}"));
    match check.verdict(&v_c, &v_t, &imp) {
        Err(_) => Ok("refused"),
        Ok(v) => {
            let all = [v.v0, v.margin, v.rho0].into_iter().chain(v.state.iter().copied());
            match all.into_iter().find(|x| !(x.is_finite() && x.abs() <= 1e30)) {
                Some(x) => Err(format!("verdict holds {x:e} for {v_c:?} {v_t:?} {imp:?}")),
                None => Ok("answered"),
            }
        }
    }
}
