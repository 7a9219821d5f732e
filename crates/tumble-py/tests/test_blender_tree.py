"""The Blender workflow of the contact engine, round trip: the latch example is built and
exported (by Blender, headless, where it is installed; otherwise as Blender's exporter writes
it, with pygltflib), tagged by tools/blender/tumble_blender.py, and `tumble model --json` must
read back the bodies, poses, primitives and contact sets the script made."""

import json
import math
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

SCRIPT = ROOT / "docs" / "examples" / "blender_tree" / "make_latch.py"


def export(out):
    blender = shutil.which("blender")
    if blender:
        cmd = [blender, "-b", "--factory-startup", "--python", str(SCRIPT), "--", str(out)]
    else:
        pytest.importorskip("pygltflib")
        cmd = [sys.executable, str(SCRIPT), str(out)]
    subprocess.run(cmd, check=True, capture_output=True)


@pytest.mark.parametrize("suffix", [".glb", ".gltf"])
def test_the_latch_round_trips_through_the_blender_helper(cli, tmp_path, suffix):
    out = tmp_path / ("latch" + suffix)
    export(out)
    done = cli("model", out, "--json")
    assert done.returncode == 0, done.stderr
    model = json.loads(done.stdout)
    assert [b["name"] for b in model["bodies"]] == ["object", "HookPivot"]
    pivot = model["bodies"][1]
    # 30° about Blender's Z (up) is 30° about Tumble's Z: q = (cos 15°, 0, 0, sin 15°).
    half = math.radians(15.0)
    assert pivot["position"] == pytest.approx([0.1, 0.0, 0.05], abs=1e-12)
    assert pivot["orientation"] == pytest.approx([math.cos(half), 0.0, 0.0, math.sin(half)], abs=1e-12)
    prims = {p["name"]: p for b in model["bodies"] for g in b["groups"] for p in g["primitives"]}
    assert sorted(prims) == ["Plate", "Tip", "hull_hook"]  # the bolt is a visual mesh, ignored
    assert (prims["Plate"]["type"], prims["Plate"]["set"]) == ("polyhedron", "steel")
    assert (prims["hull_hook"]["type"], prims["hull_hook"]["set"]) == ("polyhedron", "steel")
    tip = prims["Tip"]
    assert (tip["type"], tip["set"]) == ("sphere", "rubber")
    # The tip: octahedron of 0.01 m scaled 2 at (0.2, 0, 0) in the pivot; f32 vertices.
    assert tip["center"] == pytest.approx([0.2, 0.0, 0.0], abs=1e-7)
    assert tip["reach"] == pytest.approx(0.02, abs=1e-7)
    sets = {s["name"]: s for s in model["sets"]}
    assert sets["steel"]["law"] == {"k": 1e6, "p": 1.0, "c": 100.0}
    assert sets["steel"]["friction"] == {"model": "bristle", "mu": 0.3, "mu_static": 0.3, "stiffness": 1e4,
                                         "damping": 50.0}
    assert sets["rubber"]["law"] == {"k": 2e5, "p": 1.0, "alpha": 0.5}
    assert sets["rubber"]["friction"] == {"model": "coulomb", "mu": 0.8, "v_star": 1e-3}
    assert (sets["steel"]["priority"], sets["rubber"]["priority"]) == (0, 1)


def test_the_helper_refuses_what_tumble_would(tmp_path):
    sys.path.insert(0, str(ROOT / "tools" / "blender"))
    import tumble_blender as tb

    obj = {}
    with pytest.raises(ValueError, match="primitive type 'cube'"):
        tb.primitive(obj, "cube")
    with pytest.raises(ValueError, match="at most one of c, alpha and restitution"):
        tb.contact_set(obj, "x", k=1.0, c=1.0, alpha=1.0)
    tb.contact_set(obj, "a", k=1.0)
    tb.contact_set(obj, "b", k=2.0, restitution=0.5)
    assert sorted(obj["tumble_sets"]) == ["a", "b"]
