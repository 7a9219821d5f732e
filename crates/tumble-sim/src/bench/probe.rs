//! The machine, measured: fixed workloads that no change of Tumble's code moves, timed with
//! the cases, so that a baseline names the machine it was measured on by what it does rather
//! than by its name. Virtual machines that report the same CPU ("AMD EPYC, 2 cores") can
//! differ by a third in every case's time; a comparison across them would call the difference
//! a regression.
//!
//! - `latency`: a chain of dependent square roots and divisions (`x ← 1 + 1/√(x + ½)`), the
//!   latency a step's contact law waits on; ns per link.
//! - `throughput`: sixteen independent multiply–add chains in registers, the arithmetic
//!   throughput of the vectorised kernels; ns per sixteen multiply–adds.
//!
//! Both stay in the core: a walk through memory was tried as a third and dropped, since it read
//! 14 or 21 ns a hop on one machine from one process to the next (how its pages were mapped).
//! Each is the fastest of [`REPEATS`] timings, as the cases are, and `tumble bench` measures
//! them before and after its cases and keeps the faster ([`faster`]): a probe disturbed by
//! the other hardware thread of its core (the throughput read 24 % slower once in ten under
//! load) is measured again a minute later.

use std::hint::black_box;
use std::time::Instant;

/// Timings of each probe; the fastest is kept.
pub const REPEATS: usize = 9;

/// The probes' names, in the order [`measure`] returns them.
pub const NAMES: [&str; 2] = ["latency", "throughput"];

/// One probe's time.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    /// Its name (one of [`NAMES`]).
    pub name: String,
    /// Nanoseconds per iteration, the fastest repeat.
    pub ns: f64,
}

/// The probes on this machine (a few milliseconds).
pub fn measure() -> Vec<Probe> {
    let times = [fastest(|| latency(1 << 16), 1 << 16), fastest(|| throughput(1 << 16), 1 << 16)];
    NAMES.iter().zip(times).map(|(name, ns)| Probe { name: (*name).to_string(), ns }).collect()
}

/// Each probe's faster time of two measurements.
pub fn faster(a: Vec<Probe>, b: &[Probe]) -> Vec<Probe> {
    a.into_iter()
        .map(|p| match b.iter().find(|q| q.name == p.name) {
            Some(q) => Probe { ns: p.ns.min(q.ns), ..p },
            None => p,
        })
        .collect()
}

/// The fastest of [`REPEATS`] runs of `work`, ns per one of its `n` iterations.
fn fastest(mut work: impl FnMut() -> f64, n: u64) -> f64 {
    (0..REPEATS)
        .map(|_| {
            let start = Instant::now();
            black_box(work());
            start.elapsed().as_secs_f64() * 1e9 / n as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn latency(n: u64) -> f64 {
    let (one, half) = black_box((1.0, 0.5));
    let mut x = black_box(1.5f64);
    for _ in 0..n {
        x = one + one / (x + half).sqrt();
    }
    x
}

fn throughput(n: u64) -> f64 {
    let (m, c) = black_box((0.999_999_9, 1e-7));
    let mut acc: [f64; 16] = std::array::from_fn(|i| i as f64);
    for _ in 0..n {
        for a in &mut acc {
            *a = *a * m + c;
        }
    }
    acc.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probes_are_positive_and_the_faster_is_kept() {
        let probes = measure();
        assert_eq!(probes.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), NAMES);
        assert!(probes.iter().all(|p| p.ns.is_finite() && p.ns > 0.0), "{probes:?}");
        let slow: Vec<Probe> = probes.iter().map(|p| Probe { ns: 2.0 * p.ns, ..p.clone() }).collect();
        assert_eq!(faster(slow.clone(), &probes), probes);
        assert_eq!(faster(probes.clone(), &slow), probes);
    }
}
