"""The contact engine as an FMI 3.0 co-simulation FMU (crates/tumble-fmu): packed by its cargo
command, accepted by FMPy's validator, stepped by FMPy against a Python dynamics model
(examples/python/fmu_probe_cone.py), its outputs equal to the engine's own (the C interface,
libtumble_capi, driven with the same inputs) bit for bit."""

import ctypes
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

import numpy as np
import pytest

fmpy = pytest.importorskip("fmpy")

ROOT = pathlib.Path(__file__).resolve().parents[3]
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "debug"


@pytest.fixture(scope="module")
def built():
    subprocess.run(["cargo", "build", "--quiet", "-p", "tumble-fmu", "-p", "tumble-capi"], cwd=ROOT, check=True)
    return TARGET


def pack(built, scenario, out):
    return subprocess.run([str(built / "tumble-fmu"), scenario, "--out", str(out)], cwd=ROOT, capture_output=True,
                          text=True)


@pytest.fixture(scope="module")
def probe_fmu(built, tmp_path_factory):
    out = tmp_path_factory.mktemp("fmu") / "probe_cone.fmu"
    done = pack(built, "scenarios/contact/probe_cone.toml", out)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("fmu_probe_cone", ROOT / "examples/python/fmu_probe_cone.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fmpy_validator_accepts_the_fmu(probe_fmu):
    from fmpy.validation import validate_fmu

    assert validate_fmu(str(probe_fmu)) == []
    md = fmpy.read_model_description(str(probe_fmu))
    assert md.fmiVersion == "3.0" and md.coSimulation is not None
    names = {v.name: v for v in md.modelVariables}
    assert names["chaser.x"].causality == "input" and names["chaser.fz"].causality == "output"
    assert names["chaser|drogue.contacts"].type == "Int32"


def test_packing_is_reproducible(built, probe_fmu, tmp_path):
    again = tmp_path / "again.fmu"
    assert pack(built, "scenarios/contact/probe_cone.toml", again).returncode == 0
    assert again.read_bytes() == probe_fmu.read_bytes()


def _engine_replay(sent, h):
    """The same inputs through the engine's C interface: set the chaser, evaluate, read its
    wrench, commit the friction state over h."""
    name = {"darwin": "libtumble_capi.dylib", "win32": "tumble_capi.dll"}.get(sys.platform, "libtumble_capi.so")
    lib = ctypes.CDLL(str(TARGET / name))
    lib.tumble_model_load.restype = ctypes.c_void_p
    lib.tumble_model_load.argtypes = [ctypes.c_char_p]
    lib.tumble_engine_new.restype = ctypes.c_void_p
    lib.tumble_engine_add_object.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p]
    lib.tumble_engine_pair.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
    d3 = ctypes.POINTER(ctypes.c_double)
    lib.tumble_engine_set_body.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, d3, d3, d3, d3]
    lib.tumble_engine_evaluate.argtypes = [ctypes.c_void_p]
    lib.tumble_engine_commit.argtypes = [ctypes.c_void_p, ctypes.c_double]
    lib.tumble_engine_wrench.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, d3, d3]
    lib.tumble_engine_free.argtypes = [ctypes.c_void_p]
    lib.tumble_model_free.argtypes = [ctypes.c_void_p]
    models = [lib.tumble_model_load(str(ROOT / f"scenarios/contact/models/{m}.toml").encode()) for m in ("probe", "drogue")]
    assert all(models)
    engine = lib.tumble_engine_new()
    for m, name in zip(models, (b"chaser", b"drogue")):
        assert lib.tumble_engine_add_object(engine, m, name) >= 0
    assert lib.tumble_engine_pair(engine, 0, 1) >= 0
    arr = lambda v: (ctypes.c_double * len(v))(*v)  # noqa: E731
    assert lib.tumble_engine_set_body(engine, 1, 0, arr([0, 0, 0]), arr([1, 0, 0, 0]), arr([0, 0, 0]), arr([0, 0, 0])) == 0
    out = np.empty((len(sent), 6))
    f, t = arr([0, 0, 0]), arr([0, 0, 0])
    for k, y in enumerate(sent):
        assert lib.tumble_engine_set_body(engine, 0, 0, arr(y[:3]), arr(y[3:7]), arr(y[7:10]), arr(y[10:])) == 0
        lib.tumble_engine_evaluate(engine)
        assert lib.tumble_engine_wrench(engine, 0, 0, 0, f, t) == 0
        out[k] = [*f, *t]
        lib.tumble_engine_commit(engine, h)
    lib.tumble_engine_free(engine)
    for m in models:
        lib.tumble_model_free(m)
    return out


def test_cosimulation_equals_the_engine_and_follows_tumbles_run(probe_fmu, example):
    h = 1e-3
    times, sent, got, (starts, ends), chaser = example.cosimulate(str(probe_fmu), t_end=4.0, h=h)
    assert starts >= 1 and np.abs(got).max() > 100.0  # the probe met the cone
    # The FMU and the engine's C interface run the same code on the same inputs: equal bits.
    assert np.array_equal(got, _engine_replay(sent, h))


def test_changed_resources_are_refused(built, probe_fmu, tmp_path):
    """An FMU whose files were edited after packing does not instantiate (its token)."""
    from fmpy import extract, read_model_description
    from fmpy.fmi3 import FMU3Slave

    md = read_model_description(str(probe_fmu))
    unzipped = pathlib.Path(extract(str(probe_fmu)))
    model = unzipped / "resources" / "models" / "probe.toml"
    model.write_text(model.read_text() + "# edited after packing\n")
    messages = []
    fmu = FMU3Slave(guid=md.guid, unzipDirectory=str(unzipped), modelIdentifier=md.coSimulation.modelIdentifier,
                    instanceName="edited")
    with pytest.raises(Exception, match="Failed to instantiate"):
        fmu.instantiate(logMessage=lambda env, status, category, message: messages.append(message.decode()))
    shutil.rmtree(unzipped, ignore_errors=True)
    assert any("instantiation token" in m and "changed after it was packed" in m for m in messages), messages


@pytest.mark.parametrize(
    "scenario, message",
    [
        ("scenarios/lander/comet_drop.toml", "takes a mechanism scenario"),
        ("scenarios/contact/lee_capture.toml", "free and fixed bodies only"),
    ],
)
def test_what_cannot_be_an_fmu_is_refused_by_name(built, tmp_path, scenario, message):
    done = pack(built, scenario, tmp_path / "x.fmu")
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert not (tmp_path / "x.fmu").exists()


def test_a_model_outside_the_scenarios_folder_is_refused(built, tmp_path):
    text = (ROOT / "scenarios/contact/probe_cone.toml").read_text()
    (tmp_path / "sc").mkdir()
    shutil.copytree(ROOT / "scenarios/contact/models", tmp_path / "models")
    (tmp_path / "sc" / "probe_cone.toml").write_text(text.replace('"models/', '"../models/'))
    done = pack(built, str(tmp_path / "sc" / "probe_cone.toml"), tmp_path / "x.fmu")
    assert done.returncode == 2 and "inside the scenario's folder" in done.stderr, done.stderr


def test_the_archive_holds_the_standard_layout(probe_fmu):
    names = zipfile.ZipFile(probe_fmu).namelist()
    assert names[0] == "modelDescription.xml"
    assert any(n.startswith("binaries/") and "/tumble_fmu." in n for n in names)
    assert {"resources/scenario.toml", "resources/models/probe.toml", "resources/models/drogue.obj"} <= set(names)
