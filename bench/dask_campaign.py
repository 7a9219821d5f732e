"""A campaign on two Dask worker processes against the CLI's two threads, on the same machine.

1,000 cube-on-plane lander runs (scenarios/lander/cube_phobos.toml, four dispersed values,
each run until settled) with the same seed:

- CLI: `tumble mc ... --threads 2` (the process, from start to exit: runs, runs.csv, Parquet,
  summary, plots);
- Dask: `tumble.campaign(..., client=client)` on a LocalCluster of two worker processes with one
  thread each (started once, before timing, as a user keeps a cluster), the default chunking
  (16 chunks per worker); the call from start to return, which also writes the same folder.
  Each repeat starts the workers' campaign afresh (their cached build is cleared).

Best of 3, alternating. The two `runs.csv` are checked byte-identical. Needs the release CLI
(`cargo build --release -p tumble-cli`) and the release package with Dask (`pip install
./crates/tumble-py "dask[distributed]"`); run from the repository root:
`python bench/dask_campaign.py [RUNS]`.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

from distributed import Client, LocalCluster

import tumble

CLI = os.path.join("target", "release", "tumble")
PHOBOS = "scenarios/lander/cube_phobos.toml"


def cli(runs, out):
    t = time.perf_counter()
    subprocess.run([CLI, "mc", PHOBOS, "--runs", str(runs), "--seed", "7", "--threads", "2", "--out", out, "-q"], check=True)
    return time.perf_counter() - t


def _forget():
    import tumble._dask

    tumble._dask._BUILT.clear()


def dask(client, runs, out):
    client.run(_forget)
    t = time.perf_counter()
    tumble.campaign(PHOBOS, runs, 7, out=out, client=client, as_pandas=False)
    return time.perf_counter() - t


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    tmp = tempfile.mkdtemp(prefix="tumble_dask_bench_")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(lambda: __import__("tumble"))
        a, b, busy = [], [], []
        for i in range(3):
            a.append(cli(runs, os.path.join(tmp, f"cli{i}")))
            b.append(dask(client, runs, os.path.join(tmp, f"dask{i}")))
            acc = json.load(open(os.path.join(tmp, f"dask{i}", "summary.json")))["accounting"]
            busy.append(sum(w["wall_time_s"] for w in acc["workers"]))
        same = open(os.path.join(tmp, "cli0", "runs.csv"), "rb").read() == open(os.path.join(tmp, "dask0", "runs.csv"), "rb").read()
    tc, td = min(a), min(b)
    print(f"runs: {runs}; runs.csv byte-identical: {same}")
    print(f"CLI, 2 threads:            {tc:7.3f} s  {runs / tc:7.2f} runs/s   (all: {', '.join(f'{x:.3f}' for x in a)})")
    print(f"Dask, 2 worker processes:  {td:7.3f} s  {runs / td:7.2f} runs/s   (all: {', '.join(f'{x:.3f}' for x in b)})")
    print(f"efficiency (Dask / CLI throughput): {tc / td * 100:.1f} %")
    print(f"overhead per run: {(td - tc) * 2 / runs * 1e3:.3f} core-ms  (of {tc * 2 / runs * 1e3:.3f} core-ms a run)")
    print(f"workers busy in tumble: {min(busy):.3f} s of {2 * td:.3f} worker-seconds ({min(busy) / (2 * td) * 100:.1f} %)")


if __name__ == "__main__":
    main()
