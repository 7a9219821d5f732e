//! Campaigns: the same `Campaign` as `tumble mc`, written to the same folder, with the GIL
//! released while the runs execute on the engine's threads.

use crate::scenario::PyScenario;
use crate::{TumbleError, bad_input};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::time::Instant;
use tumble_sim::campaign::{Campaign, CampaignOptions, MAX_RUNS, write_report};

fn campaign(
    sc: &PyScenario,
    runs: u64,
    seed: Option<u64>,
    threads: Option<usize>,
    out: Option<PathBuf>,
    resume: bool,
) -> PyResult<Campaign> {
    if runs == 0 || runs > MAX_RUNS {
        return Err(bad_input(format!("runs must be between 1 and {MAX_RUNS}, got {runs}")));
    }
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        return Err(bad_input("threads must be at least 1"));
    }
    let sc = sc.sc.clone();
    let options = CampaignOptions {
        runs,
        seed: seed.unwrap_or(sc.file.seed),
        threads,
        out: out.unwrap_or_else(|| PathBuf::from("out").join(format!("{}_mc", sc.file.name))),
        resume,
    };
    Campaign::new(sc, options).map_err(bad_input)
}

/// Runs `runs` dispersed runs of `scenario` (as `tumble mc`), writing `runs.csv`,
/// `summary.json` and the plots into `out` (default `out/NAME_mc`). Returns the folder, the
/// number of runs this call executed (fewer than `runs` on a resume) and the wall time, s.
#[pyfunction]
#[pyo3(signature = (scenario, runs, seed = None, threads = None, out = None, resume = false))]
fn run_campaign(
    py: Python<'_>,
    scenario: &PyScenario,
    runs: u64,
    seed: Option<u64>,
    threads: Option<usize>,
    out: Option<PathBuf>,
    resume: bool,
) -> PyResult<(PathBuf, u64, f64)> {
    let c = campaign(scenario, runs, seed, threads, out, resume)?;
    py.detach(|| {
        let started = Instant::now();
        let (rows, ran) = c.execute(&|_, _| {}).map_err(bad_input)?;
        let wall = started.elapsed().as_secs_f64();
        write_report(&c, &rows, wall, ran).map_err(TumbleError::new_err)?;
        Ok((c.options.out.clone(), ran, wall))
    })
}

/// The scenario of run `index` of a campaign of `scenario` with `seed`: the dispersed values
/// drawn and applied, as `tumble mc --run INDEX` runs it.
#[pyfunction]
#[pyo3(signature = (scenario, index, seed = None))]
fn campaign_run_scenario(scenario: &PyScenario, index: u64, seed: Option<u64>) -> PyResult<(PyScenario, Vec<String>)> {
    let c = campaign(scenario, index.saturating_add(1), seed, Some(1), None, false)?;
    let (sc, values) = c.scenario_of(index).map_err(bad_input)?;
    Ok((PyScenario { sc }, values))
}

/// Adds the campaign calls to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_campaign, m)?)?;
    m.add_function(wrap_pyfunction!(campaign_run_scenario, m)?)?;
    Ok(())
}
