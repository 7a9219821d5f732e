//! The regression check of `tumble bench --baseline FILE`: each case's fastest time against a
//! committed baseline of the same machine class, and whether it moved beyond noise.
//!
//! A case's noise is its repeats' spread ((median − fastest) / fastest), in the baseline and
//! now; a case moved when its time ratio leaves `1 ± max(NOISE_FLOOR, 3 (s_base + s_now))`.
//! The floor is what two runs of the same binary on the same 2-core machine differ by
//! (BENCHMARKS.md, "Regression check").
//!
//! A baseline records the machine it was measured on twice: by name, and by the times of the
//! [`super::probe`] workloads, which no change of Tumble moves. Names do not tell virtual
//! machines apart (two hosts both reported "AMD EPYC, 2 cores" and differed by 1.2–1.6× in
//! every case), the probes do: [`identify`] calls the machine the baseline's when each probe is
//! within [`MACHINE_TOLERANCE`] of the baseline's, and another machine otherwise, whose ratios
//! compare machines, not changes.

use super::BenchResult;
use super::probe::Probe;

/// The smallest relative change called a move.
pub const NOISE_FLOOR: f64 = 0.08;

/// The largest relative difference of a probe's time on the same machine: the probes' own
/// spread from one run to the next on one machine is 1.1 % (latency) and 4 % (throughput), a
/// different machine's case times differed by 16 % or more.
pub const MACHINE_TOLERANCE: f64 = 0.10;

/// Largest baseline file read, bytes.
pub const MAX_BYTES: u64 = 1 << 20;

/// The header of a baseline's table (`tumble bench --csv`).
pub const HEADER: &str = "case,bodies,steps,seconds,steps_per_second,ns_per_body_step,spread";

/// This machine in words: its CPU model and the cores this process may use.
pub fn machine() -> String {
    let cpu = tumble_math::input::read_to_string_max(std::path::Path::new("/proc/cpuinfo"), 1 << 20)
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cpu}, {cores} cores")
}

/// A table of results as `tumble bench --csv` writes it, with the machine (its name and its
/// probes' times) as its first lines.
pub fn to_csv(results: &[BenchResult], machine: &str, probes: &[Probe]) -> String {
    let mut out = format!("# machine: {machine}\n");
    for p in probes {
        out += &format!("# probe: {},{}\n", p.name, p.ns);
    }
    out += &format!("{HEADER}\n");
    for r in results {
        out += &format!(
            "{},{},{},{},{},{},{}\n",
            r.name,
            r.bodies,
            r.steps,
            r.seconds,
            r.steps_per_second(),
            r.ns_per_body_step(),
            r.spread
        );
    }
    out
}

/// A baseline: the machine it was measured on and its results.
#[derive(Clone, Debug)]
pub struct Baseline {
    /// The machine, as [`machine`] named it (empty if the file does not say).
    pub machine: String,
    /// Its probes' times (none in a table written before the probes were).
    pub probes: Vec<Probe>,
    /// Its cases.
    pub results: Vec<BenchResult>,
}

/// Reads a baseline's text (`file` names it in errors).
pub fn parse(file: &str, text: &str) -> Result<Baseline, String> {
    let mut machine = String::new();
    let (mut probes, mut results) = (Vec::new(), Vec::new());
    let mut header = false;
    for (i, line) in text.lines().enumerate() {
        let at = format!("{file}:{}", i + 1);
        if let Some(m) = line.strip_prefix("# machine:") {
            machine = m.trim().to_string();
            continue;
        }
        if let Some(p) = line.strip_prefix("# probe:") {
            probes.push(parse_probe(&at, p)?);
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !header {
            if line.trim() != HEADER {
                return Err(format!("{at}: expected the header `{HEADER}` (a table of `tumble bench --csv`)"));
            }
            header = true;
            continue;
        }
        let cells: Vec<&str> = line.split(',').collect();
        if cells.len() != 7 {
            return Err(format!("{at}: {} cells; a row has 7 ({HEADER})", cells.len()));
        }
        let number = |k: usize| -> Result<f64, String> {
            let x: f64 = cells[k].trim().parse().map_err(|_| format!("{at}: `{}` is not a number", cells[k]))?;
            if x.is_finite() && x >= 0.0 {
                Ok(x)
            } else {
                Err(format!("{at}: `{}` must be finite and ≥ 0", cells[k]))
            }
        };
        let seconds = number(3)?;
        if seconds <= 0.0 {
            return Err(format!("{at}: seconds must be positive"));
        }
        let count = |k: usize| number(k).map(|x| x as u64);
        results.push(BenchResult {
            name: cells[0].to_string(),
            bodies: count(1)? as usize,
            steps: count(2)?,
            seconds,
            spread: number(6)?,
        });
    }
    if !header {
        return Err(format!("{file}: no table (expected the header `{HEADER}`)"));
    }
    Ok(Baseline { machine, probes, results })
}

/// A `# probe: name,ns` line's value (`at`: its file and line, for errors).
fn parse_probe(at: &str, text: &str) -> Result<Probe, String> {
    let expected = format!("`# probe: NAME,NS` with NAME one of {}", super::probe::NAMES.join(", "));
    let (name, ns) = text.split_once(',').ok_or_else(|| format!("{at}: expected {expected}"))?;
    let name = name.trim();
    if !super::probe::NAMES.contains(&name) {
        return Err(format!("{at}: unknown probe `{name}`; expected {expected}"));
    }
    match ns.trim().parse::<f64>() {
        Ok(ns) if ns.is_finite() && ns > 0.0 => Ok(Probe { name: name.to_string(), ns }),
        _ => Err(format!("{at}: probe {name}'s time `{}` must be a positive number of ns", ns.trim())),
    }
}

/// Whether this machine is the baseline's, by the probes.
#[derive(Clone, Debug, PartialEq)]
pub enum Machine {
    /// Every probe within [`MACHINE_TOLERANCE`]: the ratios compare changes.
    Same(Vec<(String, f64)>),
    /// A probe beyond it: the ratios compare machines.
    Other(Vec<(String, f64)>),
    /// The baseline has no probes (a table written before them): the machine is taken to be
    /// the same, as its name says.
    Unknown,
}

/// This machine (`now`'s probes) against the baseline's: each probe's time ratio, now over
/// then, and the verdict.
pub fn identify(base: &[Probe], now: &[Probe]) -> Machine {
    let ratios: Vec<(String, f64)> = now
        .iter()
        .filter_map(|p| base.iter().find(|b| b.name == p.name).map(|b| (p.name.clone(), p.ns / b.ns)))
        .collect();
    if ratios.is_empty() {
        Machine::Unknown
    } else if ratios.iter().all(|(_, r)| (1.0 / (1.0 + MACHINE_TOLERANCE)..=1.0 + MACHINE_TOLERANCE).contains(r)) {
        Machine::Same(ratios)
    } else {
        Machine::Other(ratios)
    }
}

/// How a case moved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// Slower beyond noise.
    Slower,
    /// Faster beyond noise.
    Faster,
    /// Within noise.
    Same,
    /// Not in the baseline.
    New,
}

/// One case against its baseline.
#[derive(Clone, Debug)]
pub struct Moved {
    /// The case.
    pub name: String,
    /// Time now over time in the baseline (NaN for a new case).
    pub ratio: f64,
    /// The relative change taken as noise.
    pub noise: f64,
    /// The verdict.
    pub verdict: Verdict,
}

/// Every case of `now` against `base`.
pub fn compare(base: &Baseline, now: &[BenchResult]) -> Vec<Moved> {
    now.iter()
        .map(|r| match base.results.iter().find(|b| b.name == r.name && b.steps > 0) {
            None => Moved { name: r.name.clone(), ratio: f64::NAN, noise: NOISE_FLOOR, verdict: Verdict::New },
            Some(b) => {
                // Per step, so a baseline taken at another --scale compares too.
                let ratio = (r.seconds / r.steps as f64) / (b.seconds / b.steps as f64);
                let noise = NOISE_FLOOR.max(3.0 * (b.spread + r.spread));
                let verdict = if ratio > 1.0 + noise {
                    Verdict::Slower
                } else if ratio < 1.0 / (1.0 + noise) {
                    Verdict::Faster
                } else {
                    Verdict::Same
                };
                Moved { name: r.name.clone(), ratio, noise, verdict }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(name: &str, ns: f64) -> Probe {
        Probe { name: name.into(), ns }
    }

    /// The machine is the baseline's when every probe is within the tolerance; one probe
    /// beyond it (a host a fifth slower in its latency alone) makes it another; a baseline
    /// without probes cannot say.
    #[test]
    fn another_machine_is_told_by_its_probes() {
        let base = [probe("latency", 10.0), probe("throughput", 2.0)];
        let now = |l: f64, t: f64| [probe("latency", l), probe("throughput", t)];
        assert!(matches!(identify(&base, &now(10.1, 2.1)), Machine::Same(_)));
        assert!(matches!(identify(&base, &now(10.9, 1.85)), Machine::Same(_)));
        let Machine::Other(r) = identify(&base, &now(12.0, 2.0)) else { panic!("a fifth slower is another machine") };
        assert!((r[0].1 - 1.2).abs() < 1e-12 && r[0].0 == "latency", "{r:?}");
        assert!(matches!(identify(&base, &now(10.0, 1.6)), Machine::Other(_)), "a probe faster beyond it too");
        assert_eq!(identify(&[], &now(10.0, 2.0)), Machine::Unknown);
    }

    fn case(name: &str, seconds: f64, spread: f64) -> BenchResult {
        BenchResult { name: name.into(), bodies: 1, steps: 1000, seconds, spread }
    }

    /// A change that costs 16 % is seen; one of 3 % is noise; a noisy case needs more.
    #[test]
    fn a_sixteen_percent_slowdown_is_seen_and_noise_is_not() {
        let base = Baseline {
            machine: machine(),
            probes: Vec::new(),
            results: vec![case("a", 1.0, 0.01), case("b", 1.0, 0.01), case("c", 1.0, 0.1)],
        };
        let now = [case("a", 1.16, 0.01), case("b", 1.03, 0.02), case("c", 1.16, 0.05), case("d", 1.0, 0.0)];
        let v: Vec<Verdict> = compare(&base, &now).iter().map(|m| m.verdict).collect();
        assert_eq!(v, [Verdict::Slower, Verdict::Same, Verdict::Same, Verdict::New]);
        let faster = compare(&base, &[case("a", 0.8, 0.01)]);
        assert_eq!(faster[0].verdict, Verdict::Faster);
        assert!((faster[0].ratio - 0.8).abs() < 1e-12);
    }

    /// A table written is read back; a damaged one is refused with its line.
    #[test]
    fn baselines_round_trip_and_damage_is_named() {
        let probes = [probe("latency", 11.0), probe("throughput", 1.6)];
        let text = to_csv(&[case("lander_cube_plane", 0.5, 0.02)], "CPU X, 2 cores", &probes);
        let b = parse("b.csv", &text).expect("reads");
        assert_eq!(b.machine, "CPU X, 2 cores");
        assert_eq!(b.probes, probes);
        assert_eq!((b.results[0].seconds, b.results[0].spread, b.results[0].steps), (0.5, 0.02, 1000));
        let e = parse("b.csv", &text.replace("0.5,", "-0.5,")).unwrap_err();
        assert!(e.starts_with("b.csv:5: `-0.5` must be finite"), "{e}");
        let e = parse("b.csv", &text.replace("latency,11", "latency,-11")).unwrap_err();
        assert!(e.starts_with("b.csv:2: probe latency's time `-11` must be a positive"), "{e}");
        let e = parse("b.csv", &text.replace("latency,", "speed,")).unwrap_err();
        assert!(e.starts_with("b.csv:2: unknown probe `speed`; expected `# probe: NAME,NS`"), "{e}");
        assert!(parse("b.csv", &text.replace("latency,", "latency ")).unwrap_err().starts_with("b.csv:2: expected"));
        assert!(parse("b.csv", "x,y\n").unwrap_err().contains("b.csv:1: expected the header"));
        assert!(parse("b.csv", "").unwrap_err().contains("no table"));
    }
}
