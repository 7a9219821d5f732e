"""Campaigns on a real Dask cluster (a LocalCluster of two worker processes), one worker killed
mid-campaign, and the Parquet table read back by pyarrow, pandas and polars.

The cube-on-Phobos campaign with a looser settling test keeps runs short (about 0.2 s each in a
debug build); the overrides are written as the CLI's `--set` is, so the two campaigns are the
same campaign (the same scenario text) and their files can be compared byte for byte."""

import json
import os
import shutil
import signal
import threading
import time

import numpy as np
import pytest

import tumble

if os.environ.get("CI"):
    import distributed  # CI installs Dask: the test must run there.
else:
    distributed = pytest.importorskip("distributed")

PHOBOS = "scenarios/lander/cube_phobos.toml"
SET = {"lander.settle.speed": 0.001}
RUNS, SEED = 40, 5


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def cli_campaign(tmp_path_factory, request):
    cli = request.getfixturevalue("cli")
    out = tmp_path_factory.mktemp("cli") / "mc"
    done = cli("mc", PHOBOS, "--runs", RUNS, "--seed", SEED, "--set", "lander.settle.speed=0.001", "--out", out, "--quiet")
    assert done.returncode == 0, done.stderr
    return out


def rows(path):
    return len((path / "runs.csv").read_text().splitlines()) - 1 if (path / "runs.csv").exists() else 0


def test_a_worker_killed_mid_campaign_loses_no_run(client, cli_campaign, tmp_path):
    out = tmp_path / "dask"
    sc = tumble.load(PHOBOS, SET)
    result, failure = {}, []

    def drive():
        try:
            result["table"] = tumble.campaign(sc, RUNS, SEED, out=out, client=client, chunk_size=2)
        except BaseException as e:  # reported by the assertion below
            failure.append(e)

    driver = threading.Thread(target=drive)
    driver.start()
    started = time.monotonic()
    while rows(out) < 6:
        assert time.monotonic() - started < 120, "no chunk came back"
        assert driver.is_alive(), failure
        time.sleep(0.01)
    done_at_kill = rows(out)
    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    os.kill(pids[victim], signal.SIGKILL)
    driver.join(timeout=300)
    assert not driver.is_alive() and not failure, failure
    assert done_at_kill < RUNS, "the worker was killed before the campaign ended"

    # Every run once, in order, exactly the CLI's rows and table.
    table = result["table"]
    assert table["run"].tolist() == list(range(RUNS))
    assert (out / "runs.csv").read_bytes() == (cli_campaign / "runs.csv").read_bytes()
    assert (out / "runs.parquet").read_bytes() == (cli_campaign / "runs.parquet").read_bytes()
    summary = json.loads((out / "summary.json").read_text())
    workers = summary["accounting"]["workers"]
    assert sum(w["runs"] for w in workers) == RUNS, workers  # no chunk counted twice
    assert all(w["name"].startswith("tcp://") for w in workers)
    assert summary["accounting"]["threads"] == 0


def test_an_interrupted_dask_campaign_resumes(client, cli_campaign, tmp_path):
    # A campaign stopped after some chunks: runs.csv holds what finished (out of order).
    out = tmp_path / "resumed"
    out.mkdir()
    shutil.copy(cli_campaign / "campaign.json", out / "campaign.json")
    lines = (cli_campaign / "runs.csv").read_text().splitlines()
    (out / "runs.csv").write_text("\n".join([lines[0], *lines[12:20], *lines[3:7]]) + "\n")
    tumble.campaign(PHOBOS, RUNS, SEED, overrides=SET, out=out, client=client, resume=True)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["accounting"]["runs_executed"] == RUNS - 12
    assert (out / "runs.csv").read_bytes() == (cli_campaign / "runs.csv").read_bytes()


def test_parquet_reads_back_with_its_columns_types_and_metadata(cli_campaign):
    pa = pytest.importorskip("pyarrow") if not os.environ.get("CI") else __import__("pyarrow")
    import pyarrow.parquet as pq

    path = cli_campaign / "runs.parquet"
    t = pq.read_table(path)
    csv = (cli_campaign / "runs.csv").read_text().splitlines()
    header = csv[0].split(",")
    assert t.column_names == header
    summary = json.loads((cli_campaign / "summary.json").read_text())
    keys = [d["key"] for d in summary["dispersions"]]
    results = list(summary["results"])
    types = {f.name: f.type for f in t.schema}
    assert types["run"] == pa.uint64() and types["seed"] == pa.uint64()
    assert all(types[k] == pa.float64() for k in keys + results)
    assert types["status"] == pa.string() and types["note"] == pa.string()
    assert t.num_rows == RUNS and t.column("run").to_pylist() == list(range(RUNS))
    assert set(t.column("seed").to_pylist()) == {SEED}

    meta = {k.decode(): v.decode() for k, v in t.schema.metadata.items()}
    assert meta["tumble.seed"] == str(SEED) and meta["tumble.runs"] == str(RUNS)
    assert meta["tumble.backend"] == "cpu" and meta["tumble.version"] == tumble.__version__
    assert meta["tumble.scenario"].endswith("cube_phobos.toml")
    assert meta["tumble.scenario_text"] == tumble.load(PHOBOS, SET).text
    assert json.loads(meta["tumble.dispersions"]) == summary["dispersions"]

    # The same numbers as runs.csv, a missing result a null; pandas and polars read it too.
    pd = pytest.importorskip("pandas")
    from_csv = pd.read_csv(cli_campaign / "runs.csv", keep_default_na=False, na_values=[""])
    from_pq = pd.read_parquet(path)
    for c in keys + results:
        np.testing.assert_array_equal(from_pq[c].to_numpy(), from_csv[c].to_numpy())
    assert from_pq["status"].tolist() == from_csv["status"].tolist()
    pl = pytest.importorskip("polars")
    assert pl.read_parquet(path).shape == (RUNS, len(header))


class _Scheduler:
    """A client whose scheduler knows `n` workers."""

    def __init__(self, n):
        self.n = n

    def scheduler_info(self):
        return {"workers": {f"tcp://w{i}": {} for i in range(self.n)}}


def test_default_chunks_spread_over_the_workers_there_are_or_will_be():
    from tumble import _dask

    assert _dask._chunk_size(_Scheduler(2), 1000, None) == 32  # 16 chunks a worker
    assert _dask._chunk_size(_Scheduler(4096), 1000, None) == 1  # never empty
    assert _dask._chunk_size(_Scheduler(0), 1_000_000, None) == 977  # 1024 chunks for workers to come
    assert _dask._chunk_size(_Scheduler(2), 1000, 5) == 5
    with pytest.raises(ValueError, match="chunk_size must be at least 1"):
        _dask._chunk_size(_Scheduler(2), 1000, 0)
