"""The Python package's cost against the engine and the CLI on the same work.

1. One `sim.step()` call from Python on the cube-on-plane lander (scenarios/lander/
   cube_phobos.toml, kept running with a long settling dwell): N calls of `step()` against one
   `step(N)` over the same N steps from the same start; the difference per call is what Python
   adds (the call, argument parsing, releasing and taking back the GIL).
2. `sim.run()` against `tumble run` on the same lander run: the CLI prints the wall time of
   its simulation loop (outputs excluded); the Python figure is the `run()` call alone.
3. `tumble.campaign()` against `tumble mc` on the same 64-run hopper campaign, two threads,
   both writing the same folder contents (runs.csv, summary, plots).

Best of 5 (1, 2) or 3 (3) repeats, alternating the two sides. Needs the release extension
(`cd crates/tumble-py && maturin develop --release`) and `cargo build --release -p tumble-cli`;
run from the repository root: `python bench/python_overhead.py`.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time

import tumble

CLI = os.path.join("target", "release", "tumble")
PHOBOS = "scenarios/lander/cube_phobos.toml"
LONG = {"lander.settle.dwell": 1.0e6, "simulation.duration": 4000.0}


def step_overhead(n=200_000, repeats=5):
    scenario = tumble.load(PHOBOS, overrides=LONG)
    single, batch = [], []
    for _ in range(repeats):
        sim = tumble.Simulation(scenario)
        sim.step(1000)  # past the first touchdown: every step is one dt in contact
        t = time.perf_counter()
        for _ in range(n):
            sim.step()
        single.append(time.perf_counter() - t)
        sim = tumble.Simulation(scenario)
        sim.step(1000)
        t = time.perf_counter()
        sim.step(n)
        batch.append(time.perf_counter() - t)
    s, b = min(single) / n, min(batch) / n
    print(f"step(): {1e6 * s:.3f} µs a call; step(N): {1e6 * b:.3f} µs a step; Python adds {1e6 * (s - b):.3f} µs a call")


def run_vs_cli(repeats=5):
    sets = [f"--set={k}={v}" for k, v in LONG.items()]
    py, cli = [], []
    out = tempfile.mkdtemp()
    for _ in range(repeats):
        sim = tumble.Simulation(tumble.load(PHOBOS, overrides=LONG))
        t = time.perf_counter()
        sim.run()
        py.append(time.perf_counter() - t)
        done = subprocess.run([CLI, "run", PHOBOS, "--out", out, *sets], capture_output=True, text=True, check=True)
        cli.append(float(re.search(r"steps in ([0-9.]+) s wall", done.stdout).group(1)))
    shutil.rmtree(out)
    print(f"run(): {min(py):.3f} s; tumble run's loop: {min(cli):.2f} s; ratio {min(py) / min(cli):.3f}")


def campaign_vs_cli(repeats=3, runs=64):
    path = "scenarios/lander/hopper_comet.toml"
    py, cli = [], []
    for _ in range(repeats):
        out = tempfile.mkdtemp()
        t = time.perf_counter()
        tumble.campaign(path, runs=runs, seed=1, threads=2, out=os.path.join(out, "py"), as_pandas=False)
        py.append(time.perf_counter() - t)
        t = time.perf_counter()
        subprocess.run([CLI, "mc", path, "--runs", str(runs), "--seed", "1", "--threads", "2", "--out", os.path.join(out, "cli"), "--quiet"], check=True)
        cli.append(time.perf_counter() - t)
        same = open(os.path.join(out, "py", "runs.csv"), "rb").read() == open(os.path.join(out, "cli", "runs.csv"), "rb").read()
        shutil.rmtree(out)
        assert same, "runs.csv differs"
    print(f"campaign(): {min(py):.2f} s; tumble mc: {min(cli):.2f} s; ratio {min(py) / min(cli):.3f} ({runs} runs, 2 threads, same runs.csv)")


if __name__ == "__main__":
    step_overhead()
    run_vs_cli()
    campaign_vs_cli()
