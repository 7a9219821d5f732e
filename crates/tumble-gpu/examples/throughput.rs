//! Lander steps per second on the GPU backend against the CPU engine on one core and on all
//! cores, in the same process on the same machine: by default the box of
//! `scenarios/lander/comet_drop.toml` (5-octave fBm terrain on a 128-cell grid, polyhedron
//! gravity through its expansion, rotating frame) released a few centimetres above the ground,
//! or any lander scenario from its own start; position, velocity and spin dispersed, every step
//! of `dt` integrated (no long free-flight steps, no settling stop, so no hop once settled).
//!
//!     cargo run --release -p tumble-gpu --example throughput -- [BATCHES] [LANDER_STEPS] [CPU_RUNS] [SCENARIO]
//!
//! BATCHES: runs per batch, comma-separated (default 1000,10000,100000,1000000); LANDER_STEPS:
//! runs × steps per batch (default 2e6: each run steps LANDER_STEPS / runs, at least 1);
//! CPU_RUNS: at most this many of a batch's runs measure the CPU engine's rate at the same steps
//! a run (default 2000; its rate per lander step does not depend on the batch); SCENARIO: a
//! lander scenario's path from the repository's root (default `scenarios/lander/comet_drop.toml`,
//! the comet's box lowered to a few centimetres above its ground). Every run of a polyhedron
//! target starts with a sweep of the gravity polyhedron (its expansion), on either engine: with
//! few steps a run that sweep dominates.

use rayon::prelude::*;
use std::path::Path;
use std::time::Instant;
use tumble_gpu::Gpu;
use tumble_gpu::lander::{GpuRun, max_batch, simulate};
use tumble_math::{Lcg, Vec3};
use tumble_sim::Scenario;
use tumble_sim::lander::{LanderModel, LanderSettings, STATE_LEN};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let batches: Vec<usize> = args
        .first()
        .map_or("1000,10000,100000,1000000", String::as_str)
        .split(',')
        .map(|s| s.trim().parse().map_err(|_| format!("BATCHES: `{s}` is not a count")))
        .collect::<Result<_, _>>()?;
    let budget: f64 = args.get(1).map_or(Ok(2e6), |s| s.parse().map_err(|_| format!("LANDER_STEPS: `{s}`")))?;
    let cpu_runs: usize = args.get(2).map_or(Ok(2000), |s| s.parse().map_err(|_| format!("CPU_RUNS: `{s}`")))?;

    let name = args.get(3).map_or("scenarios/lander/comet_drop.toml", String::as_str);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(name);
    let mut set = vec![("simulation.flight_steps".to_string(), "1".to_string())];
    if name.ends_with("comet_drop.toml") {
        set.push(("lander.position".into(), "[-760.0, 0.0, 959.95]".into()));
    }
    let sc = Scenario::load(&path, &set).map_err(|e| e.to_string())?;
    let model = LanderModel::build(&sc).map_err(|e| e.to_string())?;
    let gpu = Gpu::new()?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("{name}; device: {}; CPU: {cores} cores", gpu.name());

    // Start states: ±0.2 m in x and y, ±2 cm/s, ±0.1 rad/s about the horizontal axes.
    let starts = |n: usize| -> Vec<[f64; STATE_LEN]> {
        let mut rng = Lcg::new(9);
        (0..n)
            .map(|_| {
                let mut y = model.initial_state;
                y[0] += 0.2 * rng.symmetric();
                y[1] += 0.2 * rng.symmetric();
                let v = Vec3::new(rng.symmetric(), rng.symmetric(), -1.0) * 0.02;
                y[3..6].copy_from_slice(v.as_slice());
                y[10] = 0.1 * rng.symmetric();
                y[11] = 0.1 * rng.symmetric();
                y
            })
            .collect()
    };
    let settings_for = |steps: usize| LanderSettings {
        duration: steps as f64 * model.settings.dt,
        settle: None,
        energy_tolerance: f64::INFINITY,
        ..model.settings.clone()
    };

    // Compile the kernels before timing.
    let warm = settings_for(1);
    let y0 = starts(1);
    simulate(&gpu, &[GpuRun { system: &model.system, settings: &warm, start: y0[0] }], &mut |_| {})?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(cores).build().map_err(|e| e.to_string())?;
    println!(
        "| runs | steps a run | GPU wall time | GPU lander steps/s | CPU 1 core | CPU {cores} cores | GPU ÷ 1 core | GPU ÷ {cores} cores |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &n in &batches {
        let steps = (budget / n as f64).max(1.0) as usize;
        let s = settings_for(steps);
        let ys = starts(n);
        // CPU: the first runs of the batch (at most CPU_RUNS) through tumble-sim, the same
        // steps a run, on one core and on all.
        let run = |y: &[f64; STATE_LEN]| {
            tumble_sim::lander::simulate(&mut model.system.clone(), *y, &s, &mut |_| {});
        };
        let m = n.min(cpu_runs);
        let t = Instant::now();
        ys.iter().take((m / cores).max(1)).for_each(run);
        let one = ((m / cores).max(1) * steps) as f64 / t.elapsed().as_secs_f64();
        let t = Instant::now();
        pool.install(|| ys[..m].par_iter().for_each(run));
        let all = (m * steps) as f64 / t.elapsed().as_secs_f64();
        // GPU: the whole batch, split where the device's buffers need it.
        let runs: Vec<GpuRun> = ys.iter().map(|&start| GpuRun { system: &model.system, settings: &s, start }).collect();
        let t = Instant::now();
        for chunk in runs.chunks(max_batch(&gpu).max(1)) {
            simulate(&gpu, chunk, &mut |_| {})?;
        }
        let wall = t.elapsed().as_secs_f64();
        let rate = (n * steps) as f64 / wall;
        println!(
            "| {n} | {steps} | {wall:.2} s | {rate:.0} | {one:.0} | {all:.0} | {:.2} | {:.2} |",
            rate / one,
            rate / all
        );
    }
    Ok(())
}
