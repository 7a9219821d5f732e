//! `tumble mc --shard K/N` and `--merge`, as a batch scheduler runs them: shards as separate
//! processes at once, one killed mid-way and run again with `--resume`; the merge must be byte
//! for byte the campaign run on one machine (all but `summary.json`'s measured `accounting`),
//! and a merge of missing, duplicated, foreign, unfinished or altered shards is refused with
//! the folder named.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

mod common;

const RUNS: &str = "24";

/// `tumble mc` on the cube-on-Phobos campaign with `extra` arguments. The looser settling test
/// keeps runs short (about a quarter of a second each in a debug build) without changing what is
/// under test.
fn mc(extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tumble"));
    c.args(["mc", &common::scenario("lander/cube_phobos.toml"), "--runs", RUNS, "--seed", "5", "--quiet"]);
    c.args(["--set", "lander.settle.speed=1e-3"]).args(extra);
    c
}

fn shard(k: usize, dir: &Path) -> Child {
    let out = dir.join(k.to_string());
    mc(&["--threads", "1", "--resume", "--shard", &format!("{k}/3"), "--out", &out.display().to_string()])
        .spawn()
        .expect("shard starts")
}

fn merge(out: &Path, shards: &[PathBuf]) -> (bool, String) {
    let o = mc(&["--out", &out.display().to_string(), "--merge"]).args(shards).output().expect("merge runs");
    (o.status.success(), String::from_utf8_lossy(&o.stderr).to_string())
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

/// The summary without its measured part.
fn summary(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json");
    let mut s: serde_json::Value = serde_json::from_str(&text).expect("json");
    s.as_object_mut().and_then(|m| m.remove("accounting")).expect("an accounting section");
    s
}

#[test]
fn shards_run_apart_merge_into_the_one_machine_campaign() {
    let root = common::tmp("shards");
    let (one, dir) = (root.join("one"), root.join("shards"));
    assert!(mc(&["--threads", "2", "--out", &one.display().to_string()]).status().expect("runs").success());

    // Three shards at once; shard 1 is killed once it has a run or two in its runs.csv.
    let mut children: Vec<Child> = (0..3).map(|k| shard(k, &dir)).collect();
    let started = Instant::now();
    while lines(&dir.join("1/runs.csv")) < 3 {
        assert!(started.elapsed() < Duration::from_secs(120), "shard 1 wrote no run");
        std::thread::sleep(Duration::from_millis(10));
    }
    children[1].kill().expect("kill");
    for c in &mut children {
        c.wait().expect("wait");
    }
    let shards: Vec<PathBuf> = (0..3).map(|k| dir.join(k.to_string())).collect();
    assert!(!dir.join("1/shard.json").exists(), "the killed shard did not finish");

    // The killed shard is named as unfinished; nothing is written.
    let merged = root.join("merged");
    let (ok, err) = merge(&merged, &shards);
    assert!(!ok && err.contains("shard 1/3 has not finished") && err.contains("shards/1"), "{err}");
    assert!(!merged.exists());

    // Run again alone, it finishes what it had not done.
    assert!(shard(1, &dir).wait().expect("rerun").success());
    let (ok, err) = merge(&merged, &shards);
    assert!(ok, "{err}");
    let mut files = vec!["runs.csv".to_string(), "campaign.json".into()];
    // The Parquet table where this build writes one (the default `parquet` feature).
    assert_eq!(one.join("runs.parquet").exists(), cfg!(feature = "parquet"));
    if cfg!(feature = "parquet") {
        files.push("runs.parquet".into());
    }
    for p in std::fs::read_dir(one.join("plots")).expect("plots") {
        files.push(format!("plots/{}", p.expect("entry").file_name().to_string_lossy()));
    }
    assert!(files.len() > 4, "{files:?}");
    for f in &files {
        let (a, b) = (std::fs::read(one.join(f)).expect(f), std::fs::read(merged.join(f)).expect(f));
        assert!(a == b, "{f} differs between the one-machine campaign and the merge");
    }
    assert_eq!(summary(&one), summary(&merged));
    let acc =
        &serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(merged.join("summary.json")).expect("s"))
            .expect("json")["accounting"]["workers"];
    assert_eq!(acc.as_array().map(Vec::len), Some(3), "one entry per shard: {acc}");

    refusals(&root, &shards);
}

/// Missing, duplicated, foreign and altered shards are each refused with the folder named.
fn refusals(root: &Path, shards: &[PathBuf]) {
    let out = root.join("refused");
    let (ok, err) = merge(&out, &shards[..2]);
    assert!(!ok && err.contains("shard 2/3 (runs 16..24) is missing"), "{err}");
    let (ok, err) = merge(&out, &[shards[0].clone(), shards[1].clone(), shards[2].clone(), shards[1].clone()]);
    assert!(!ok && err.contains("are both shard 1/3"), "{err}");

    // Another seed: every shard is foreign to this campaign.
    let o = Command::new(env!("CARGO_BIN_EXE_tumble"))
        .args(["mc", &common::scenario("lander/cube_phobos.toml"), "--runs", RUNS, "--seed", "6"])
        .args(["--set", "lander.settle.speed=1e-3", "--out", &out.display().to_string(), "--merge"])
        .args(shards)
        .output()
        .expect("merge runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("shards/0: a shard of another campaign (seed 5 where this campaign's is 6"), "{err}");

    // One digit of a finished shard's result changed: still a readable row, refused by its checksum.
    let altered = root.join("altered");
    std::fs::create_dir_all(&altered).expect("dir");
    for f in ["campaign.json", "runs.csv", "shard.json"] {
        std::fs::copy(shards[2].join(f), altered.join(f)).expect("copy");
    }
    let csv = std::fs::read_to_string(altered.join("runs.csv")).expect("csv");
    let at = csv.rfind(|c: char| c.is_ascii_digit() && c != '9').expect("a digit");
    let mut bytes = csv.into_bytes();
    bytes[at] += 1;
    std::fs::write(altered.join("runs.csv"), bytes).expect("write");
    let (ok, err) = merge(&out, &[shards[0].clone(), shards[1].clone(), altered]);
    assert!(!ok && err.contains("altered/runs.csv: changed since the shard finished"), "{err}");
    assert!(!out.exists(), "a refused merge writes nothing");
}

/// The Slurm scripts of `examples/slurm/` as a job array runs them (the task number set by hand,
/// as the scripts' README shows), then the merge script: the campaign folder with every run.
#[test]
fn the_slurm_scripts_run_and_merge_a_campaign() {
    let root = common::tmp("slurm");
    let scripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/slurm");
    let vars = [
        ("TUMBLE", env!("CARGO_BIN_EXE_tumble").to_string()),
        ("SCENARIO", common::scenario("lander/cube_phobos.toml")),
        ("RUNS", "6".into()),
        ("SEED", "5".into()),
        ("SHARDS", "2".into()),
        ("SHARD_DIR", root.join("shards").display().to_string()),
        ("OUT", root.join("campaign").display().to_string()),
    ];
    for k in ["0", "1"] {
        let o = Command::new("bash")
            .arg(scripts.join("campaign.sbatch"))
            .envs(vars.clone())
            .env("SLURM_ARRAY_TASK_ID", k)
            .output()
            .expect("bash runs");
        assert!(o.status.success(), "task {k}: {}", String::from_utf8_lossy(&o.stderr));
    }
    let o = Command::new("bash").arg(scripts.join("merge.sbatch")).envs(vars).output().expect("bash runs");
    assert!(o.status.success(), "merge: {}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(root.join("campaign/runs.csv")).expect("runs.csv");
    let runs: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').next().unwrap_or("")).collect();
    assert_eq!(runs, ["0", "1", "2", "3", "4", "5"]);
}

/// FNV-1a as shard.json's checksum has it: anyone can recompute it.
fn fnv(text: &str) -> String {
    format!(
        "{:016x}",
        text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
    )
}

/// Copies shard folder `src` to `dst` with `edit` applied to the fields of its first row (or to
/// its shard.json), then recomputes the checksum, as someone forging a shard would.
/// An edit of a row's fields and of the shard's record, given the header's column names.
type EditFn<'a> = dyn Fn(&mut Vec<String>, &mut serde_json::Value, &[&str]) + 'a;

fn forge(src: &Path, dst: &Path, edit: &EditFn<'_>) {
    std::fs::create_dir_all(dst).expect("dir");
    std::fs::copy(src.join("campaign.json"), dst.join("campaign.json")).expect("copy");
    let csv = std::fs::read_to_string(src.join("runs.csv")).expect("csv");
    let mut lines: Vec<String> = csv.lines().map(String::from).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let mut record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src.join("shard.json")).expect("record")).expect("json");
    let mut fields: Vec<String> = lines[1].split(',').map(String::from).collect();
    edit(&mut fields, &mut record, &header);
    lines[1] = fields.join(",");
    let text = lines.join("\n") + "\n";
    record["runs_csv_fnv1a"] = fnv(&text).into();
    std::fs::write(dst.join("runs.csv"), &text).expect("csv");
    std::fs::write(dst.join("shard.json"), record.to_string()).expect("record");
}

/// A small campaign in two shards, with `key` in TUMBLE_SHARD_KEY where given.
fn small(extra: &[&str], key: Option<&str>) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tumble"));
    c.args(["mc", &common::scenario("lander/cube_phobos.toml"), "--runs", "6", "--seed", "3"]);
    c.args(["--threads", "1", "--set", "lander.settle.speed=1e-3"]).args(extra).env_remove("TUMBLE_SHARD_KEY");
    if let Some(k) = key {
        c.env("TUMBLE_SHARD_KEY", k);
    }
    c
}

fn small_merge(out: &Path, shards: &[PathBuf], key: Option<&str>, extra: &[&str]) -> (Option<i32>, String) {
    let o = small(&["--out", &out.display().to_string()], key).args(extra).arg("--merge").args(shards).output();
    let o = o.expect("merge runs");
    (o.status.code(), String::from_utf8_lossy(&o.stderr).to_string() + &String::from_utf8_lossy(&o.stdout))
}

/// Shards edited after they finished, their checksum recomputed: rows out of canonical form,
/// values the guard refuses, statuses no run writes, draws that are not the seed's, forged
/// accounting, and a plausible value that only a re-run (unkeyed) or the key (keyed) can tell.
#[test]
fn forged_shards_are_refused_by_what_the_merge_recomputes() {
    let root = common::tmp("shards_forged");
    let run_shards = |dir: &Path, key: Option<&str>| -> Vec<PathBuf> {
        (0..2)
            .map(|k| {
                let out = dir.join(k.to_string());
                let args = ["--quiet", "--shard", &format!("{k}/2"), "--out", &out.display().to_string()];
                assert!(small(&args, key).status().expect("shard").success());
                out
            })
            .collect()
    };
    let shards = run_shards(&root.join("plain"), None);
    let col = |h: &[&str], name: &str| h.iter().position(|c| *c == name).expect(name);
    type Edit = Box<EditFn<'static>>;
    let cases: Vec<(&str, Edit, &str)> = vec![
        ("inf", Box::new(move |f, _, h| f[col(h, "status") + 1] = "inf".into()), "beyond the guard's bound"),
        ("nan", Box::new(move |f, _, h| f[col(h, "status") + 1] = "NaN".into()), "not a row as Tumble writes it"),
        ("huge", Box::new(move |f, _, h| f[col(h, "status") + 1] = "1e300".into()), "beyond the guard's bound"),
        ("status", Box::new(move |f, _, h| f[col(h, "status")] = "hacked".into()), "status `hacked`"),
        ("seed", Box::new(|f, _, _| f[1] = "4".into()), "not a row as Tumble writes it"),
        ("draw", Box::new(|f, _, _| f[2] = "0.5".into()), "where run 0 of this seed draws"),
        (
            "accounting",
            Box::new(|_, r, _| r["accounting"]["runs_executed"] = 18446744073709551615u64.into()),
            "accounting is not a shard's",
        ),
    ];
    for (name, edit, says) in &cases {
        let forged = root.join(format!("forged_{name}"));
        forge(&shards[0], &forged, edit.as_ref());
        let (code, err) = small_merge(&root.join("out"), &[forged, shards[1].clone()], None, &[]);
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}");
    }
    // A plausible value: its row is well formed; re-running every run of the shard finds it.
    let nudge = |f: &mut Vec<String>, _: &mut serde_json::Value, h: &[&str]| {
        let i =
            (col(h, "status") + 1..f.len()).find(|&i| f[i].parse::<f64>().is_ok_and(|x| x != 0.0)).expect("a number");
        f[i] = format!("{:?}", f[i].parse::<f64>().expect("number") * 1.001);
    };
    let plausible = root.join("forged_plausible");
    forge(&shards[0], &plausible, &nudge);
    let (code, err) =
        small_merge(&root.join("out"), &[plausible.clone(), shards[1].clone()], None, &["--verify-runs", "3"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("re-run here gives"), "{err}");
    assert!(!root.join("out").exists(), "a refused merge writes nothing");
    let (code, err) = small_merge(&root.join("out"), &shards, None, &["--verify-runs", "3"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("3 run(s) of each shard re-run bit-identical"), "{err}");

    // Keyed shards: the merge with the key takes them and refuses the forged one without any
    // re-run; without the key it cannot check them and says so.
    let key = "0123456789abcdef0123456789abcdef";
    let keyed = run_shards(&root.join("keyed"), Some(key));
    let (code, err) = small_merge(&root.join("keyed_out"), &keyed, Some(key), &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("integrity code verified"), "{err}");
    let forged = root.join("keyed_forged");
    forge(&keyed[0], &forged, &nudge);
    let (code, err) =
        small_merge(&root.join("keyed_out2"), &[forged, keyed[1].clone()], Some(key), &["--verify-runs", "0"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("integrity code does not match"), "{err}");
    let (code, err) = small_merge(&root.join("keyed_out3"), &keyed, None, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("set TUMBLE_SHARD_KEY"), "{err}");
    let (code, err) = small_merge(&root.join("keyed_out4"), &shards, Some(key), &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("has no integrity code"), "{err}");
    let (code, err) = small_merge(&root.join("keyed_out5"), &keyed, Some("short"), &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("at least 16"), "{err}");
}
