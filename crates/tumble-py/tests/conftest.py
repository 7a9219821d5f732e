"""Shared fixtures: the repository root (scenarios are read from it) and the `tumble` CLI the
Python results are compared with."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    # Scenario paths in the tests are those a user types from a checkout.
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="session")
def cli():
    """A function running the `tumble` CLI (TUMBLE_BIN, or the workspace's debug build)."""
    exe = os.environ.get("TUMBLE_BIN")
    if not exe:
        subprocess.run(["cargo", "build", "--quiet", "-p", "tumble-cli"], cwd=ROOT, check=True)
        exe = str(ROOT / "target" / "debug" / "tumble")

    def run(*args):
        done = subprocess.run([exe, *map(str, args)], cwd=ROOT, capture_output=True, text=True)
        return done

    return run
