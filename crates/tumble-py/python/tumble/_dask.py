"""Campaigns on a Dask cluster (``tumble.campaign(..., client=client)``).

The driver splits the run indices still to do into chunks and submits one task per chunk with
``client.map``; each worker process builds the campaign once (what its runs share: a lander's
target, a capture study's funnel) and returns the chunk's rows as ``runs.csv`` lines. The driver
appends each chunk to ``runs.csv`` as it completes (``as_completed``), so a chunk lost with a
worker that dies is simply run again by Dask's scheduler, and an interrupted campaign resumes
with ``resume=True``. Dask schedules; Tumble adds no scheduler, protocol or cluster manager.
"""

from __future__ import annotations

import math
import os
import socket
import sys
import time
import uuid
from typing import Any, Iterator

from . import _tumble

#: The campaign a worker process last built, by its key, so that a worker builds it once.
_BUILT: dict[tuple, Any] = {}

#: Chunks per worker when ``chunk_size`` is not given: small enough that the last chunks keep
#: every worker busy to the end (an idle tail of about 1/16 of a worker's share at worst),
#: large enough that Dask's cost stays small against the runs (measured: 1.2 core-ms per 55 ms
#: cube run with chunks of 31 runs, BENCHMARKS.md).
CHUNKS_PER_WORKER = 16

#: Chunks when no worker has joined yet (the default chunking cannot know how many will).
SPREAD_WITHOUT_WORKERS = 1024


def _worker_name() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return f"{socket.gethostname()}:{os.getpid()}"


def _rows(indices: list[int], *, scenario, runs: int, seed: int | None, version: str) -> tuple[list[str], str, float]:
    """One chunk on a worker: its ``runs.csv`` lines, the worker's name and the wall time, s."""
    if version != _tumble.__version__:
        raise _tumble.TumbleError(
            f"worker {_worker_name()} has tumble {_tumble.__version__} and the driver {version}: "
            "install the same version on every worker"
        )
    key = (scenario.path, scenario.text, runs, seed)
    built = _BUILT.get(key)
    if built is None:
        _BUILT.clear()
        built = _BUILT[key] = _tumble.CampaignRows(scenario, runs, seed)
    started = time.perf_counter()
    lines = built.rows(list(indices))
    return lines, _worker_name(), time.perf_counter() - started


def _chunk_size(client, todo: int, chunk_size: int | None) -> int:
    if chunk_size is not None:
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
        return chunk_size
    workers = len(client.scheduler_info().get("workers", {}))
    if workers == 0:
        # A cluster still starting (a SLURMCluster whose jobs wait in the queue): chunks small
        # enough to spread over the workers that will come.
        return max(1, math.ceil(todo / SPREAD_WITHOUT_WORKERS))
    return max(1, math.ceil(todo / (CHUNKS_PER_WORKER * workers)))


class _Progress:
    """A line on stderr with the runs done, the rate and the time left."""

    def __init__(self, total: int, show: bool) -> None:
        self.total, self.show, self.done = total, show, 0
        self.started = time.perf_counter()

    def add(self, n: int) -> None:
        self.done += n
        if not self.show:
            return
        t = time.perf_counter() - self.started
        rate = self.done / t if t > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else float("nan")
        end = "\n" if self.done >= self.total else ""
        print(f"\r{self.done}/{self.total} runs  {rate:.1f} runs/s  ETA {eta:.0f} s   ", end=end, file=sys.stderr, flush=True)


def runner(client, scenario, runs: int, seed: int | None, chunk_size: int | None, progress: bool):
    """The function the engine calls with the run indices to do; it yields finished chunks."""

    def run(todo: list[int]) -> Iterator[tuple[list[str], str, float]]:
        from distributed import as_completed

        size = _chunk_size(client, len(todo), chunk_size)
        chunks = [todo[i : i + size] for i in range(0, len(todo), size)]
        tag = uuid.uuid4().hex[:8]
        futures = client.map(
            _rows,
            chunks,
            key=[f"tumble-runs-{tag}-{i}" for i in range(len(chunks))],
            pure=False,
            scenario=scenario,
            runs=runs,
            seed=seed,
            version=_tumble.__version__,
        )
        shown, pending = _Progress(len(todo), progress), set(futures)
        try:
            for future, chunk in as_completed(futures, with_results=True):
                pending.discard(future)
                future.release()
                shown.add(len(chunk[0]))
                yield chunk
        finally:
            # Interrupted (an exception, the driver stopped): the rest is not wanted.
            client.cancel(list(pending))

    return run
