"""A campaign on Dask workers, its table read back from Parquet.

Runs N (default 100) dispersed cube-on-Phobos runs (scenarios/lander/cube_phobos.toml) on a
dask.distributed cluster: by default a LocalCluster of two worker processes on this machine;
with `--slurm`, a dask-jobqueue SLURMCluster of 8 jobs (16 cores each) on a Slurm cluster, the
same code. Each finished chunk of runs is appended to runs.csv as it arrives; the folder
(out/python_examples/dask_campaign) then holds runs.csv, runs.parquet, summary.json (with each
worker's runs and wall time) and the plots. Re-running resumes: only missing runs are done.

    pip install "dask[distributed]" pyarrow            # (and dask-jobqueue for --slurm)
    python examples/python/dask_campaign.py 1000
"""

import json
import os
import sys

import pyarrow.parquet as pq
from distributed import Client, LocalCluster

import tumble


def cluster(slurm: bool):
    if not slurm:
        return LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    from dask_jobqueue import SLURMCluster

    # One Dask worker process per core: the engine runs one run per worker thread.
    c = SLURMCluster(cores=16, processes=16, memory="32GB", walltime="02:00:00")
    c.scale(jobs=8)
    return c


if __name__ == "__main__":
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    os.chdir(root)
    runs = int(next((a for a in sys.argv[1:] if a.isdigit()), 100))
    out = os.path.join("out", "python_examples", "dask_campaign")
    with cluster("--slurm" in sys.argv) as c, Client(c) as client:
        table = tumble.campaign(
            "scenarios/lander/cube_phobos.toml", runs, seed=7, out=out, resume=True, client=client, progress=True
        )
    print(table.groupby("status").size().to_string())

    parquet = pq.read_table(os.path.join(out, "runs.parquet"))
    meta = {k.decode(): v.decode() for k, v in parquet.schema.metadata.items()}
    print(f"runs.parquet: {parquet.num_rows} rows, seed {meta['tumble.seed']}, scenario {meta['tumble.scenario']}")
    assert parquet.num_rows == runs and parquet.column("run").to_pylist() == list(range(runs))
    accounting = json.load(open(os.path.join(out, "summary.json")))["accounting"]
    for w in accounting["workers"]:
        print(f"  {w['name']}: {w['runs']} runs in {w['wall_time_s']:.1f} s")
