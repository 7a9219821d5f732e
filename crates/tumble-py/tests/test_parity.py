"""Results from Python are the CLI's, bit for bit: the same scenario run both ways gives the
same `timeseries.csv` values and the same `summary.json`."""

import csv
import json
import struct

import numpy as np
import pytest

import tumble

# One bundled scenario of each application (the fastest of each), run as `tumble run` runs it.
SCENARIOS = [
    "scenarios/lander/cube_phobos.toml",
    "scenarios/basics/dzhanibekov.toml",
    "scenarios/arms/double_pendulum.toml",
    "scenarios/membrane/drop_test.toml",
    "scenarios/membrane/asteroid_capture.toml",
    "scenarios/snare/floating_target.toml",
    "scenarios/contact/drawer.toml",
    "scenarios/contact/grapple_snare.toml",
]


def bits(x):
    return struct.pack("<d", float(x))


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def without_wall_time(value):
    """A summary without the wall-clock figures (which differ run to run)."""
    if isinstance(value, dict):
        return {k: without_wall_time(v) for k, v in value.items() if "wall" not in k and k not in ("realtime_factor", "real_time_factor")}
    if isinstance(value, list):
        return [without_wall_time(v) for v in value]
    return value


@pytest.mark.parametrize("path", SCENARIOS)
def test_python_run_equals_the_cli_bit_for_bit(path, cli, tmp_path):
    out = tmp_path / "cli"
    done = cli("run", path, "--out", out, "--quiet")
    assert done.returncode == 0, done.stderr
    sim = tumble.Simulation(tumble.load(path))
    sim.run()
    header, rows = read_csv(out / "timeseries.csv")
    samples = sim.samples()
    assert samples.columns == header
    assert len(rows) == len(samples[tumble._split(header[0])[0]]) > 1
    for j, column in enumerate(header):
        got = samples[tumble._split(column)[0]]
        want = [float(r[j]) if r[j] else float("nan") for r in rows]
        mismatch = [i for i, (a, b) in enumerate(zip(got, want)) if bits(a) != bits(b)]
        assert not mismatch, f"{column}: first differing sample {mismatch[0]}: {got[mismatch[0]]!r} vs {want[mismatch[0]]!r}"
    with open(out / "summary.json") as f:
        cli_summary = json.load(f)
    assert without_wall_time(sim.summary()) == without_wall_time(cli_summary)


def test_an_override_from_python_is_the_cli_set(cli, tmp_path):
    path = "scenarios/lander/cube_phobos.toml"
    done = cli("run", path, "--out", tmp_path, "--quiet", "--set", "lander.contact.mu=0.3")
    assert done.returncode == 0, done.stderr
    sim = tumble.run(path, overrides={"lander.contact.mu": 0.3})
    header, rows = read_csv(tmp_path / "timeseries.csv")
    assert np.array_equal(sim.samples()["x"], [float(r[1]) for r in rows])
    # And the override changed the run: friction 0.3 is not the file's 0.5.
    assert not np.array_equal(sim.samples()["x"], tumble.run(path).samples()["x"])
