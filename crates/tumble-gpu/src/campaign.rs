//! Lander campaigns on the device (`tumble mc --backend gpu`): the CPU campaign's drawing,
//! `runs.csv`, resume and report ([`Campaign::execute_with`]), with the runs built on the CPU
//! threads and stepped on the device in batches.

use crate::Gpu;
use crate::lander::{GpuRun, has_shared_data, max_batch, simulate, unsupported};
use rayon::prelude::*;
use tumble_sim::campaign::{Campaign, RunRow};
use tumble_sim::lander::LanderModel;
use tumble_sim::lander::campaign::{LanderEnd, LanderRuns, lander_model, lander_results};
use tumble_sim::lander::ephemeris::illumination_at;

/// Runs per batch unless told otherwise: enough to fill a large GPU (an H200 keeps ~270,000
/// invocations resident), few enough for the memory of a small one (~400 MB of buffers).
pub const DEFAULT_BATCH: usize = 262_144;

/// The campaign's name for this backend in `campaign.json` and `summary.json`.
pub const BACKEND: &str = "gpu";

/// Why the device cannot run campaign `c`, checked on run 0 before any work: it must be a
/// lander campaign whose model the GPU path implements.
pub fn check(c: &Campaign) -> Result<(), String> {
    let path = c.scenario.path.display();
    let Some(LanderRuns { shared }) = c.kind_as::<LanderRuns>() else {
        return Err(format!("{path}: the GPU backend runs lander campaigns; run this one with `--backend cpu`"));
    };
    let (sc, _) = c.scenario_of(0)?;
    let m = lander_model(shared.as_ref(), &sc)?;
    if let Some(why) = unsupported(&m.system) {
        return Err(format!("{path}: {why}; run this campaign with `--backend cpu`"));
    }
    if shared.is_none() && has_shared_data(&m.system) {
        return Err(format!(
            "{path}: a dispersion of a `target.*` or `gravity.*` key gives every run its own target grid or gravity polyhedron, and the runs of a GPU batch share one; run this campaign with `--backend cpu`"
        ));
    }
    Ok(())
}

/// Runs every run of `c` not yet in `runs.csv` on `gpu`, `batch` runs at a time (at most what
/// the device's buffers hold); `progress(done, total)` as runs finish. As
/// [`Campaign::execute`] otherwise.
pub fn execute(
    c: &mut Campaign,
    gpu: &Gpu,
    batch: usize,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<(Vec<RunRow>, u64), String> {
    check(c)?;
    c.backend = Some(BACKEND.into());
    let c = &*c;
    let Some(LanderRuns { shared }) = c.kind_as::<LanderRuns>() else {
        return Err("the GPU backend runs lander campaigns only".into());
    };
    let batch = batch.clamp(1, max_batch(gpu).max(1));
    let pool = tumble_sim::thread_pool(c.options.threads)?;
    c.execute_with(progress, &|todo, done, in_flight| {
        for chunk in todo.chunks(batch) {
            // Build the runs on the CPU threads; a run that cannot be built is a row at once.
            let built: Vec<(u64, Built)> =
                pool.install(|| chunk.par_iter().map(|&i| (i, build(c, shared.as_ref(), i))).collect());
            let mut models = Vec::with_capacity(built.len());
            for (i, b) in built {
                match b {
                    Ok(m) => models.push((i, m)),
                    Err(row) => done(row),
                }
            }
            // A dispersion may give one run a feature the device lacks: stop rather than
            // simulate it differently (the rows so far stay for a resume on the CPU).
            for (i, (m, _)) in &models {
                if let Some(why) = unsupported(&m.system) {
                    return Err(format!("run {i}: {why}; run this campaign with `--backend cpu`"));
                }
            }
            let runs: Vec<GpuRun> = models
                .iter()
                .map(|(_, (m, _))| GpuRun { system: &m.system, settings: &m.settings, start: m.initial_state })
                .collect();
            let ends = simulate(gpu, &runs, &mut |n| in_flight(n as u64))?;
            drop(runs);
            for ((index, (m, values)), end) in models.into_iter().zip(ends) {
                let f = lander_results(&LanderEnd {
                    sites: m.sites,
                    outcome: &end.outcome,
                    final_time: end.final_time,
                    final_state: &end.final_state,
                    on_surface: m.system.on_surface(&end.final_state),
                    bounces: end.bounces,
                    max_penetration: end.max_penetration,
                    max_balance_error: end.max_balance_error,
                    impacts: end.impacts,
                    hop_miss: end.hop_miss,
                    illumination: illumination_at(&m, end.first_touchdown, end.final_time, &end.final_state),
                });
                done(RunRow { index, values, status: f.status, results: f.results, note: f.note });
            }
        }
        Ok(())
    })
}

/// A run's model and dispersed values, or its `invalid` row.
type Built = Result<(LanderModel, Vec<String>), RunRow>;

/// Run `index`'s model and dispersed values, or its `invalid` row.
fn build(c: &Campaign, shared: Option<&tumble_sim::lander::Target>, index: u64) -> Built {
    let (sc, values) = c.scenario_of(index).map_err(|e| c.invalid(index, vec![], e))?;
    match lander_model(shared, &sc) {
        Ok(m) => Ok((m, values)),
        Err(e) => Err(c.invalid(index, values, e)),
    }
}
