"""The LEE's capture loads with the snare document's identified wire against a linear lateral
spring (docs/snare.md, "The wires as wires"): runs the bundled scenarios/contact/lee_capture.toml
with each of the effector's two wire sets and plots the wires' forces, the closing angle and
the face's load. Run from the repository root:

    python3 docs/examples/lee_wires/compare.py [TUMBLE_BINARY]

(default target/release/tumble); writes docs/images/lee_wire_laws.png and prints the figures.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

exe = sys.argv[1] if len(sys.argv) > 1 else "target/release/tumble"
runs = {}
with tempfile.TemporaryDirectory() as tmp:
    for name, contact in [("identified wire (Table 4, then stretch)", "wire"), ("linear 2e4 N/m", "wire_linear")]:
        out = os.path.join(tmp, contact)
        subprocess.run([exe, "run", "scenarios/contact/lee_capture.toml", "--out", out, "--quiet",
                        "--set", f'mechanism.snare.contact="{contact}"'], check=True)
        with open(os.path.join(out, "timeseries.csv")) as f:
            rows = list(csv.DictReader(f))
        with open(os.path.join(out, "summary.json")) as f:
            runs[name] = (rows, json.load(f)["snare"])

fig, ax = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
for name, (rows, snare) in runs.items():
    t = [float(r["t [s]"]) for r in rows]
    ax[0].plot(t, [sum(float(r[f"wire_{k} [N]"]) for k in (1, 2, 3)) for r in rows], label=name)
    ax[1].plot(t, [float(r["snare_angle [deg]"]) for r in rows], label=name)
    ax[2].plot(t, [float(r["face [N]"]) for r in rows], label=name)
    print(f"{name}: captured {snare['captured_s']:.3f} s at {snare['closed_angle_deg']:.1f} deg, "
          f"rigidised {snare['rigidised_s']:.3f} s, peak wire {snare['peak_wire_force_N']:.1f} N, "
          f"wires' sum {snare['peak_wire_sum_N']:.1f} N, face {snare['peak_face_load_N']:.1f} N, "
          f"tension {snare.get('peak_wire_tension_N', '-')}")
ax[0].set_ylabel("wires' contact force [N]")
ax[1].set_ylabel("closing angle [deg]")
ax[2].set_ylabel("face load [N]")
ax[2].set_xlabel("t [s]")
ax[0].legend()
ax[0].set_title("LEE capture of a 500 kg payload: the wires' law")
fig.tight_layout()
fig.savefig("docs/images/lee_wire_laws.png", dpi=90)
