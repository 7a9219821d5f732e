"""A capture thrust law written in Python, closing the loop on the asteroid capture.

scenarios/membrane/asteroid_capture.toml: a 15 t spacecraft approaches a tumbling 1000 t
asteroid with its built-in guidance and, from first contact, pushes with a constant 475 N along
its axis. Here the push is our own law, applied between steps: a damper on the asteroid's
axial velocity relative to the membrane, F = 475 N + c·v_z (c = 2000 N·s/m; v_z < 0 while
the asteroid presses into the membrane), limited to 0..950 N, so the spacecraft eases off
while the asteroid comes at it and pushes as it rebounds. Both runs are plotted
(out/python_examples/capture_thrust_law.png), and the law's work shows in the energy budget,
which closes as well as the built-in run's.
"""

import os

import matplotlib.pyplot as plt
import numpy as np

import tumble

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(ROOT)
scenario = tumble.load("scenarios/membrane/asteroid_capture.toml", overrides={"simulation.duration": 120.0})

builtin = tumble.Simulation(scenario)
builtin.run()

sim = tumble.Simulation(scenario)
thrust = []
while sim.step() is None:
    if any(e.name == "contact_start" for e in sim.events()):
        vz = sim.state()["relative_velocity"][2]  # m/s, asteroid relative to the membrane, bus axes
        f = float(np.clip(475.0 + 2000.0 * vz, 0.0, 950.0))
        sim.command(force=[0.0, 0.0, f], torque=[0.0, 0.0, 0.0])
        thrust.append((sim.time, f))

a, b = sim.samples(), builtin.samples()
scale = np.abs(a["asteroid_kinetic"]).max()
drift = abs(a["budget"][-1] - a["budget"][0]) / scale
peak = (a["relative_vz"].min(), b["relative_vz"].min())
print(f"built-in: {builtin.status}, Python law: {sim.status}; closing speed peaks at {-peak[1]:.3f} m/s (built-in) and {-peak[0]:.3f} m/s (law); the law's budget moved by {drift:.2e} of the asteroid's energy")

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
ax1.plot(b["t"], b["relative_vz"], label="built-in 475 N")
ax1.plot(a["t"], a["relative_vz"], label="Python damper law")
ax1.set(xlabel="t [s]", ylabel="axial relative velocity [m/s]", title="Asteroid relative to the membrane")
ax1.legend()
t, f = np.array(thrust).T
ax2.plot(t, f)
ax2.set(xlabel="t [s]", ylabel="thrust [N]", title="The Python law's thrust")
fig.tight_layout()
os.makedirs(os.path.join("out", "python_examples"), exist_ok=True)
fig.savefig(os.path.join("out", "python_examples", "capture_thrust_law.png"), dpi=120)
assert sim.status == "completed" and drift < 0.01, "the budget must close"
