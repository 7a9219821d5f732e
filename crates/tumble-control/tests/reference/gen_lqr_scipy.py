#!/usr/bin/env python3
"""LQR references from SciPy for tests/lqr_scipy.rs.

    pip install scipy==1.17.1 numpy
    python3 crates/tumble-control/tests/reference/gen_lqr_scipy.py

For each system: S = scipy.linalg.solve_continuous_are(A, B, Q, R, s=N) and
K = R⁻¹ (Bᵀ S + Nᵀ). Systems: a double integrator, a spacecraft attitude (three axes, inertia
diag(800, 900, 700) kg·m², torque input), a random stabilisable 6-state/2-input system, the same
with a cross term N, and a lightly damped two-mass oscillator with one input. JSON, 17 digits.
"""
import json
import pathlib

import numpy as np
import scipy
from scipy.linalg import solve_continuous_are

HERE = pathlib.Path(__file__).resolve().parent
rng = np.random.default_rng(2026)


def case(name, a, b, q, r, n=None):
    s = solve_continuous_are(a, b, q, r, s=n)
    nn = np.zeros_like(b) if n is None else n
    k = np.linalg.solve(r, b.T @ s + nn.T)
    out = {"name": name, "A": a.tolist(), "B": b.tolist(), "Q": q.tolist(), "R": r.tolist(), "S": s.tolist(), "K": k.tolist()}
    if n is not None:
        out["N"] = n.tolist()
    return out


cases = []
cases.append(case("double integrator", np.array([[0.0, 1.0], [0.0, 0.0]]), np.array([[0.0], [1.0]]), np.diag([4.0, 0.0]), np.array([[1.0]])))
inertia = np.array([800.0, 900.0, 700.0])
a = np.zeros((6, 6)); a[:3, 3:] = np.eye(3)
b = np.zeros((6, 3)); b[3:, :] = np.diag(1.0 / inertia)
cases.append(case("attitude", a, b, np.diag([10.0, 10.0, 10.0, 100.0, 100.0, 100.0]), np.eye(3) * 0.01))
a = rng.normal(size=(6, 6)); b = rng.normal(size=(6, 2))
m = rng.normal(size=(6, 6)); q = m @ m.T + 0.1 * np.eye(6); r = np.array([[2.0, 0.3], [0.3, 1.0]])
cases.append(case("random", a, b, q, r))
n = 0.1 * rng.normal(size=(6, 2))
cases.append(case("random with cross term", a, b, q, r, n))
k, c, m1, m2 = 100.0, 0.05, 1.0, 2.0
a = np.array([[0, 1, 0, 0], [-k / m1, -c / m1, k / m1, c / m1], [0, 0, 0, 1], [k / m2, c / m2, -k / m2, -c / m2]], dtype=float)
cases.append(case("two-mass oscillator", a, np.array([[0.0], [1.0 / m1], [0.0], [0.0]]), np.eye(4), np.array([[0.1]])))
(HERE / "lqr_scipy.json").write_text(json.dumps({"generator": "scipy " + scipy.__version__, "cases": cases}, indent=1) + "\n")
print(f"wrote {len(cases)} cases")
