//! Campaigns: the same `Campaign` as `tumble mc`, written to the same folder, with the GIL
//! released while the runs execute on the engine's threads.

use crate::scenario::PyScenario;
use crate::{TumbleError, bad_input};
use pyo3::prelude::*;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;
use tumble_sim::campaign::{Accounting, Campaign, CampaignOptions, MAX_RUNS, RunRow, Worker, write_report};

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
        shard: None,
    };
    tumble_sim::registry::campaign(sc, options).map_err(bad_input)
}

/// Runs `runs` dispersed runs of `scenario` (as `tumble mc`), writing `runs.csv`,
/// `summary.json`, `runs.parquet` and the plots into `out` (default `out/NAME_mc`). Returns the
/// folder, the number of runs this call executed (fewer than `runs` on a resume) and the wall
/// time, s.
///
/// With `runner`, the runs execute elsewhere (the Python layer's Dask executor):
/// `runner(indices)` returns an iterator of `(lines, worker, wall_time_s)`, each a chunk of
/// finished rows as `runs.csv` lines, which are appended at once (so an interruption loses no
/// finished chunk and `resume` continues), then sorted and reported as on the engine's threads.
#[pyfunction]
#[pyo3(signature = (scenario, runs, seed = None, threads = None, out = None, resume = false, runner = None))]
#[allow(clippy::too_many_arguments)]
fn run_campaign(
    py: Python<'_>,
    scenario: &PyScenario,
    runs: u64,
    seed: Option<u64>,
    threads: Option<usize>,
    out: Option<PathBuf>,
    resume: bool,
    runner: Option<Py<PyAny>>,
) -> PyResult<(PathBuf, u64, f64)> {
    let c = campaign(scenario, runs, seed, threads, out, resume)?;
    let raised: Mutex<Option<PyErr>> = Mutex::new(None);
    let workers: Mutex<BTreeMap<String, Worker>> = Mutex::new(BTreeMap::new());
    py.detach(|| {
        let started = Instant::now();
        let executed = match &runner {
            None => c.execute(&|_, _| {}),
            Some(r) => c.execute_with(&|_, _| {}, &|todo, done, _| {
                elsewhere(&c, r, todo, done, &workers).map_err(|e| {
                    let text = e.to_string();
                    *raised.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                    text
                })
            }),
        };
        let (rows, ran) = match executed {
            Ok(x) => x,
            Err(e) => {
                return Err(raised.lock().unwrap_or_else(|p| p.into_inner()).take().unwrap_or_else(|| bad_input(e)));
            }
        };
        let wall = started.elapsed().as_secs_f64();
        let workers = workers.into_inner().unwrap_or_else(|p| p.into_inner()).into_values().collect();
        // Runs on workers use none of this process's threads.
        let threads = if runner.is_some() { 0 } else { c.options.threads };
        let accounting = Accounting { workers, ..Accounting::new(wall, ran, threads) };
        write_report(&c, &rows, &accounting).map_err(TumbleError::new_err)?;
        Ok((c.options.out.clone(), ran, wall))
    })
}

/// Hands `todo` to the Python `runner` and each row it returns to `done`; tallies the workers.
fn elsewhere(
    c: &Campaign,
    runner: &Py<PyAny>,
    todo: &[u64],
    done: &(dyn Fn(RunRow) + Sync),
    workers: &Mutex<BTreeMap<String, Worker>>,
) -> PyResult<()> {
    Python::attach(|py| {
        let chunks = runner.call1(py, (todo.to_vec(),))?;
        for chunk in chunks.bind(py).try_iter()? {
            let (lines, name, wall): (Vec<String>, String, f64) = chunk?.extract()?;
            for line in &lines {
                done(c.parse_row(line).map_err(TumbleError::new_err)?);
            }
            let mut w = workers.lock().unwrap_or_else(|p| p.into_inner());
            let tally = w.entry(name.clone()).or_insert_with(|| Worker { name, ..Worker::default() });
            tally.runs += lines.len() as u64;
            tally.wall_time_s += wall;
        }
        Ok(())
    })
}

/// The runs of a campaign, on a worker: built once from the scenario, runs and seed (what the
/// runs share: a lander's target, a capture study's funnel), then asked for chunks of rows.
#[pyclass(module = "tumble._tumble", frozen)]
struct CampaignRows {
    c: Campaign,
    pool: rayon::ThreadPool,
}

#[pymethods]
impl CampaignRows {
    #[new]
    #[pyo3(signature = (scenario, runs, seed = None, threads = 1))]
    fn new(py: Python<'_>, scenario: &PyScenario, runs: u64, seed: Option<u64>, threads: usize) -> PyResult<Self> {
        let c = py.detach(|| campaign(scenario, runs, seed, Some(threads), None, false))?;
        let pool = tumble_sim::thread_pool(threads).map_err(bad_input)?;
        Ok(Self { c, pool })
    }

    /// The rows of runs `indices`, as `runs.csv` lines, in the order given.
    fn rows(&self, py: Python<'_>, indices: Vec<u64>) -> PyResult<Vec<String>> {
        if let Some(&i) = indices.iter().find(|&&i| i >= self.c.options.runs) {
            return Err(bad_input(format!("run {i} is not in this campaign of {} runs", self.c.options.runs)));
        }
        let seed = self.c.options.seed;
        Ok(py.detach(|| {
            let rows: Vec<String> =
                self.pool.install(|| indices.par_iter().map(|&i| self.c.run_one(i).to_csv(seed)).collect());
            rows
        }))
    }
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
    m.add_class::<CampaignRows>()?;
    Ok(())
}
