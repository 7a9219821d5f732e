"""A hopper campaign on the bundled comet, plotted with matplotlib.

Runs N dispersed MINERVA-II-like hopper runs (default 16; `python hopper_campaign.py 64` for
the README's 64) of scenarios/lander/hopper_comet.toml from the repository root, then plots
the landing sites on a latitude/longitude map coloured by settling time, and replays run 0
alone to plot its speed with the contact phases shaded. Figures go to
out/python_examples/hopper_campaign.png.
"""

import os
import sys

import matplotlib.pyplot as plt
import numpy as np

import tumble

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(ROOT)
runs = int(sys.argv[1]) if len(sys.argv) > 1 else 16
scenario = tumble.load("scenarios/lander/hopper_comet.toml")
out = os.path.join("out", "python_examples")
table = tumble.campaign(scenario, runs=runs, seed=1, out=os.path.join(out, "hopper_campaign"), resume=True, as_pandas=False)

settled = table["status"] == "settled"
print(f"{runs} runs: {settled.sum()} settled; statuses {sorted(set(table['status']))}")
lat, lon = table["latitude [deg]"], table["longitude [deg]"]
settle = table["settle_time [s]"]

run0 = tumble.campaign_run(scenario, 0, seed=1)
run0.run()
s = run0.samples()

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
points = ax1.scatter(lon[settled] % 360, lat[settled], c=settle[settled] / 3600, cmap="viridis")
fig.colorbar(points, ax=ax1, label="settling time [h]")
ax1.set(xlabel="longitude east [deg, 0–360]", ylabel="latitude [deg]", title=f"Landing sites of {runs} hopper runs")
ax2.semilogy(s["t"] / 3600, np.maximum(s["speed"], 1e-9), lw=0.8)
contact = s["contacts"] > 0  # vertices in contact
ax2.fill_between(s["t"] / 3600, 1e-9, 1, where=contact, color="orange", alpha=0.3, label="in contact")
for e in run0.events():
    if e.name == "hop":
        ax2.axvline(e.time / 3600, color="red", lw=0.8)
ax2.set(xlabel="t [h]", ylabel="speed [m/s]", title=f"Run 0: {run0.status} after {run0.summary()['bounces']} bounces", ylim=(1e-9, 1))
ax2.legend()
fig.tight_layout()
os.makedirs(out, exist_ok=True)
fig.savefig(os.path.join(out, "hopper_campaign.png"), dpi=120)
print(f"plot: {os.path.join(out, 'hopper_campaign.png')}")
assert settled.any(), "no run settled"
