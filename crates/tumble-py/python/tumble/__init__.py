"""Tumble: contact dynamics for space operations, from Python.

Load a scenario file (or patch it with overrides), build its simulation, step it with your own
guidance between steps or run it to the end, and read its samples as numpy arrays; run
campaigns of dispersed runs into the same ``runs.csv`` table as ``tumble mc``. See
``docs/python.md``.

>>> import tumble
>>> sim = tumble.Simulation(tumble.load("scenarios/lander/cube_phobos.toml"))
>>> sim.run()
'settled'
>>> sim.samples()["speed"][-1]   # m/s
"""

from __future__ import annotations

import csv
import json
import math
import os
from typing import Any, Iterable, Mapping

import numpy as np

from . import _tumble
from ._tumble import (
    CaptureCheck,
    CaptureStudy as _CaptureStudy,
    ContactLaw,
    Kernels,
    Mesh,
    Scenario,
    ScenarioError,
    Sdf,
    SimulationError,
    TumbleError,
    __version__,
    fit_contact,
    lqr,
    polyhedron_gravity,
    tvlqr,
)

__all__ = [
    "__version__",
    "CaptureCheck",
    "CaptureStudy",
    "ContactLaw",
    "Event",
    "Kernels",
    "Mesh",
    "Samples",
    "Scenario",
    "ScenarioError",
    "Sdf",
    "Simulation",
    "SimulationError",
    "TumbleError",
    "campaign",
    "campaign_run",
    "fit_contact",
    "load",
    "lqr",
    "polyhedron_gravity",
    "run",
    "scenario",
    "tvlqr",
]


def _toml(value: Any, key: str) -> str:
    """A Python value as TOML value text (what ``--set KEY=VALUE`` takes)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a valid TOML basic string
    if isinstance(value, (list, tuple, np.ndarray)):
        return "[" + ", ".join(_toml(v, key) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml(v, key)}" for k, v in value.items()) + "}"
    raise ScenarioError(
        f"override {key}: cannot write a {type(value).__name__} as a TOML value "
        "(use a number, bool, string or list of them)"
    )


def _overrides(overrides: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    if overrides is None:
        return []
    if not isinstance(overrides, Mapping):
        raise ScenarioError("overrides must be a dict of dotted keys to values, e.g. {'lander.contact.mu': 0.3}")
    return [(str(k), _toml(v, str(k))) for k, v in overrides.items()]


def load(path: str | os.PathLike, overrides: Mapping[str, Any] | None = None) -> Scenario:
    """Reads a scenario file and applies ``overrides`` (dotted keys to values), as ``tumble
    check FILE --set KEY=VALUE`` does. Raises :class:`ScenarioError` naming the file, line,
    column and key of anything wrong."""
    return Scenario.load(os.fspath(path), _overrides(overrides))


def _scenario(scenario: Scenario | str | os.PathLike, overrides: Mapping[str, Any] | None) -> Scenario:
    """A loaded scenario, or the one at a path; with ``overrides`` applied to it."""
    if isinstance(scenario, Scenario):
        if overrides:
            return Scenario.from_text(os.fspath(scenario.path), scenario.text, _overrides(overrides))
        return scenario
    return load(scenario, overrides)


_BARE = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _key(k: str) -> str:
    return k if k and set(k) <= _BARE else json.dumps(k)


def _is_table_array(v: Any) -> bool:
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(isinstance(x, Mapping) for x in v)


def _document(spec: Mapping[str, Any]) -> str:
    """A nested dict as a TOML document: scalars, then tables and arrays of tables."""
    lines: list[str] = []

    def table(prefix: list[str], d: Mapping[str, Any]) -> None:
        for k, v in d.items():
            if not isinstance(v, Mapping) and not _is_table_array(v):
                lines.append(f"{_key(str(k))} = {_toml(v, '.'.join(prefix + [str(k)]))}")
        for k, v in d.items():
            name = prefix + [str(k)]
            if isinstance(v, Mapping):
                lines.extend(["", "[" + ".".join(map(_key, name)) + "]"])
                table(name, v)
            elif _is_table_array(v):
                for item in v:
                    lines.extend(["", "[[" + ".".join(map(_key, name)) + "]]"])
                    table(name, item)

    table([], spec)
    return "\n".join(lines) + "\n"


def scenario(spec: Mapping[str, Any], path: str | os.PathLike = "scenario.toml") -> Scenario:
    """A scenario built in code: ``spec`` is the scenario file as nested dicts (the keys of
    docs/scenario.md: ``{"kind": "lander", "simulation": {"dt": 0.002, ...}, "lander": {...}}``),
    validated as a file is; errors name the key. ``path`` places it: files it names (meshes,
    URDFs) resolve against its folder, and errors cite it."""
    if not isinstance(spec, Mapping):
        raise ScenarioError("a scenario is a dict of its tables, e.g. {'kind': 'lander', 'lander': {...}}")
    return Scenario.from_text(os.fspath(path), _document(spec))


class CaptureStudy(_CaptureStudy):
    """A capture-map study (``kind = "capture_map"``): ``design()`` the detumble controller and
    its funnel, ``verdict(...)`` on pre-capture velocities and a measured impulse, ``run()``
    the whole study as ``tumble capture-map`` does."""

    def __new__(cls, scenario: Scenario | str | os.PathLike, overrides: Mapping[str, Any] | None = None):
        return super().__new__(cls, _scenario(scenario, overrides))

    def run(self, out: str | os.PathLike | None = None, threads: int | None = None) -> dict:
        """Runs the study, writes its outputs into ``out`` (default ``out/NAME``) and returns
        its ``summary.json`` as a dict."""
        return json.loads(self._run(None if out is None else os.fspath(out), threads))


class Event:
    """Something that happened during a step: ``time`` (s) and ``name`` (``contact_start``,
    ``contact_end``, ``hop``)."""

    __slots__ = ("time", "name")

    def __init__(self, time: float, name: str) -> None:
        self.time = time
        self.name = name

    def __repr__(self) -> str:
        return f"Event(time={self.time!r}, name={self.name!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Event) and (self.time, self.name) == (other.time, other.name)


def _split(column: str) -> tuple[str, str]:
    """``"speed [m/s]"`` → ``("speed", "m/s")`` (every ``timeseries.csv`` column is
    ``name [unit]``; a name without brackets is kept whole, with no unit)."""
    if column.endswith("]") and " [" in column:
        name, unit = column[:-1].split(" [", 1)
        return name, unit
    return column, ""


class Samples(dict):
    """A run's samples: column name → numpy array (float64, one value per sample), the columns
    of its ``timeseries.csv``, keyed by name without the unit (``speed`` for ``speed [m/s]``);
    ``units`` maps each name to its unit (``1`` for a pure number)."""

    def __init__(self, columns: list[str], data: np.ndarray) -> None:
        super().__init__()
        self.units: dict[str, str] = {}
        self.columns = list(columns)
        for i, c in enumerate(columns):
            name, unit = _split(c)
            self[name] = np.ascontiguousarray(data[:, i])
            self.units[name] = unit

    def to_pandas(self):
        """The samples as a pandas DataFrame with the file's column names (units included)."""
        import pandas as pd

        return pd.DataFrame({c: self[_split(c)[0]] for c in self.columns})


class Simulation(_tumble.Simulation):
    """A scenario's simulation. ``Simulation(scenario)`` builds and validates it; ``step(n)``
    takes accepted steps (your guidance may act in between: ``state()`` by name, ``inputs()``
    and :meth:`set_input`, or :meth:`hop`, :meth:`command`, :meth:`set_joint_forces`), ``run()``
    goes to the end; both release the GIL. Every application steps the same way.
    ``Simulation(scenario, out)`` writes the finished run's outputs into the folder ``out`` as
    ``tumble run --out`` does (a pickled copy does not: it is rebuilt without a folder)."""

    def samples(self) -> Samples:
        """The samples so far (or of the finished run), as named numpy arrays."""
        columns, data = self._table()
        return Samples(columns, data)

    def summary(self) -> dict:
        """The finished run's ``summary.json`` as a dict."""
        return json.loads(self._summary_json())

    def events(self) -> list[Event]:
        """Contact starts and ends and hops so far, in order."""
        return [Event(t, n) for t, n in self._events()]

    def __reduce__(self):
        return (_replay, (self.scenario, self.steps, self._inputs()))


def _replay(scenario: Scenario, steps: int, inputs: list) -> Simulation:
    """A simulation rebuilt from its scenario with its inputs applied at the steps they came:
    the engine is deterministic, so it is the pickled one bit for bit."""
    sim = Simulation(scenario)
    for at, name, values in inputs:
        _quiet_step(sim, at - sim.steps)
        sim.set_input(name, values)
    _quiet_step(sim, steps - sim.steps)
    return sim


def _quiet(f, *args):
    try:
        f(*args)
    except SimulationError:
        pass  # the replayed run failed where the original did; its status says so


def _quiet_step(sim: Simulation, n: int) -> None:
    if n > 0:
        _quiet(sim.step, n)


def run(
    scenario: Scenario | str | os.PathLike,
    overrides: Mapping[str, Any] | None = None,
    out: str | os.PathLike | None = None,
) -> Simulation:
    """Loads (if given a path) and runs a scenario to the end; returns its simulation. Given
    ``out``, its outputs are written there as ``tumble run --out`` writes them (time series,
    summary, plots, animation, and a lander run with an epoch its CCSDS messages)."""
    sim = Simulation(_scenario(scenario, overrides), out)
    sim.run()
    return sim


def _read_runs(path: str) -> dict[str, np.ndarray]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    table: dict[str, np.ndarray] = {}
    for i, name in enumerate(header):
        cells = [r[i] if i < len(r) else "" for r in body]
        if name == "run":
            table[name] = np.array([int(c) for c in cells], dtype=np.int64)
        elif name == "seed":
            table[name] = np.array([int(c) for c in cells], dtype=np.uint64)
        else:
            try:
                table[name] = np.array([float(c) if c else math.nan for c in cells], dtype=np.float64)
            except ValueError:
                table[name] = np.array(cells, dtype=object)
    return table


def campaign(
    scenario: Scenario | str | os.PathLike,
    runs: int,
    seed: int | None = None,
    *,
    threads: int | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    overrides: Mapping[str, Any] | None = None,
    as_pandas: bool | None = None,
    client=None,
    chunk_size: int | None = None,
    progress: bool = False,
):
    """Runs ``runs`` dispersed runs of a scenario (as ``tumble mc``), writing ``runs.csv``,
    ``runs.parquet``, ``summary.json`` and the plots into ``out`` (default ``out/NAME_mc``),
    and returns the ``runs.csv`` table: a pandas DataFrame when pandas is installed (or
    ``as_pandas=True``), else a dict of numpy arrays. ``seed`` defaults to the scenario's; the
    same seed gives the same table whatever the thread count, the workers or the interruptions.

    The runs execute on the engine's ``threads``, or, given a ``dask.distributed.Client``, on
    its workers: chunks of ``chunk_size`` runs (default: about 16 chunks per worker) as Dask
    tasks, each chunk appended to ``runs.csv`` as it completes; a worker that dies loses only
    its running chunks, which Dask runs again; ``resume=True`` continues an interrupted
    campaign. With a client, ``progress=True`` prints the runs done, the rate and the time left
    on stderr (the Dask dashboard, ``client.dashboard_link``, shows the tasks). Scenario files and the files
    they name must be at the same paths on the workers, with the same tumble version."""
    sc = _scenario(scenario, overrides)
    folder = None if out is None else os.fspath(out)
    if chunk_size is not None and chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    run = None
    if client is not None:
        from . import _dask

        run = _dask.runner(client, sc, runs, seed, chunk_size, progress)
    folder, _, _ = _tumble.run_campaign(sc, runs, seed, threads, folder, resume, run)
    path = os.path.join(folder, "runs.csv")
    if as_pandas is None:
        try:
            import pandas  # noqa: F401

            as_pandas = True
        except ImportError:
            as_pandas = False
    if as_pandas:
        import pandas as pd

        return pd.read_csv(path, dtype={"run": "int64", "seed": "uint64", "status": str, "note": str}, keep_default_na=False, na_values=[""])
    return _read_runs(path)


def campaign_run(
    scenario: Scenario | str | os.PathLike,
    index: int,
    seed: int | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Simulation:
    """Run ``index`` of a campaign alone (``tumble mc --run INDEX``): its dispersed scenario
    as a simulation, ready to step or run, with its full time series."""
    sc, _ = _tumble.campaign_run_scenario(_scenario(scenario, overrides), index, seed)
    return Simulation(sc)
