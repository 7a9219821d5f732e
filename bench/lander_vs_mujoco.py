#!/usr/bin/env python3
"""Lander step rate, Tumble against MuJoCo, side by side in one run.

    pip install mujoco==4.0.0
    cargo build --release
    python3 bench/lander_vs_mujoco.py

The case: a 1000 kg cube of 1 m with contact at its eight corners, resting on a plane in
Phobos-like gravity (5.7e-3 m/s²), sliding at 1 cm/s, stepped at 1 ms on one core.

- Tumble: `tumble bench` case `lander_cube_plane` (RK4, the lander's event loop: contact
  log, energy budget, settling checks). The same binary also reports the cube on the
  procedural comet (128-cell grid, 6-octave fBm terrain), with the terrain evaluated at every
  query and through local surface models of 2 mm radius, and the plane itself through local
  models (where a model is exact: their own cost, apart from curvature).
- MuJoCo: the box as one body with eight 1 cm spheres at its corners (`contype` on the
  spheres only), a plane, friction 0.5, `mj_step` with the default semi-implicit Euler and
  with RK4; one thread, no rendering. The figure is steps per second, best of three repeats.
"""
import pathlib
import subprocess
import tempfile
import time

import mujoco

ROOT = pathlib.Path(__file__).resolve().parent.parent
TUMBLE = ROOT / "target/release/tumble"
STEPS = 200_000

CORNERS = "\n".join(
    f'<geom type="sphere" size="0.01" pos="{x} {y} {z}" contype="1" conaffinity="1" mass="0"/>'
    for x in (-0.5, 0.5)
    for y in (-0.5, 0.5)
    for z in (-0.5, 0.5)
)


def model(integrator):
    xml = f"""
<mujoco>
  <option timestep="0.001" gravity="0 0 -5.7e-3" integrator="{integrator}"/>
  <worldbody>
    <geom type="plane" size="10 10 0.1" friction="0.5 0.005 0.0001"/>
    <body pos="0 0 0.51">
      <freejoint/>
      <geom type="box" size="0.5 0.5 0.5" mass="1000" contype="0" conaffinity="0"/>
      {CORNERS}
    </body>
  </worldbody>
</mujoco>"""
    return mujoco.MjModel.from_xml_string(xml)


def mujoco_rate(integrator):
    m = model(integrator)
    best = float("inf")
    for _ in range(3):
        d = mujoco.MjData(m)
        d.qvel[0] = 0.01
        # Settle onto the corners first, then time.
        for _ in range(2000):
            mujoco.mj_step(m, d)
        t = time.perf_counter()
        for _ in range(STEPS):
            mujoco.mj_step(m, d)
        best = min(best, time.perf_counter() - t)
        assert d.ncon == 4, f"expected the four bottom corners in contact, got {d.ncon}"
    return STEPS / best


def tumble_rates():
    with tempfile.TemporaryDirectory() as tmp:
        csv = pathlib.Path(tmp) / "bench.csv"
        subprocess.run([TUMBLE, "bench", "--only", "lander_cube_", "--csv", csv], check=True, capture_output=True)
        # A `# machine: …` line, the header, then one row per case.
        rows = [line.split(",") for line in csv.read_text().splitlines() if not line.startswith(("#", "case,"))]
        return {r[0]: float(r[4]) for r in rows}


if __name__ == "__main__":
    t = tumble_rates()
    plane = t["lander_cube_plane"]
    comet = t["lander_cube_comet_sdf_128_fbm6"]
    local = t["lander_cube_comet_fbm6_local_models"]
    plane_local = t["lander_cube_plane_local_models"]
    euler, rk4 = mujoco_rate("Euler"), mujoco_rate("RK4")
    print(f"{'case':<52} {'steps/s':>12}")
    print(f"{'Tumble, cube on plane (RK4)':<52} {plane:>12,.0f}")
    print(f"{'Tumble, cube on 128-cell comet + 6-octave fBm (RK4)':<52} {comet:>12,.0f}")
    print(f"{'  the same through local surface models (2 mm)':<52} {local:>12,.0f}")
    print(f"{'Tumble, cube on plane through local models (2 mm)':<52} {plane_local:>12,.0f}")
    print(f"{'MuJoCo ' + mujoco.__version__ + ', corner spheres on plane (Euler)':<52} {euler:>12,.0f}")
    print(f"{'MuJoCo ' + mujoco.__version__ + ', corner spheres on plane (RK4)':<52} {rk4:>12,.0f}")
    print(f"Tumble / MuJoCo Euler: {plane / euler:.2f}x; Tumble / MuJoCo RK4: {plane / rk4:.2f}x; "
          f"comet / plane cost: {plane / comet:.1f}x exact, {plane / local:.2f}x with local models "
          f"(the plane through local models: {plane / plane_local:.2f}x)")
