#!/usr/bin/env python3
"""TVLQR references from SciPy for tests/lqr_scipy.rs.

    pip install scipy==1.17.1 numpy
    python3 crates/tumble-control/tests/reference/gen_tvlqr_scipy.py

The Riccati differential equation −Ṡ = AᵀS + SA − S B R⁻¹ Bᵀ S + Q, S(T) = S_f, integrated
backward by scipy.integrate.solve_ivp (DOP853, rtol = atol = 1e-13) for two time-varying
systems (the matrices are written as formulas in the test, here and in tests/lqr_scipy.rs):

1. "mathieu": A(t) = [[0, 1], [−(1 + 0.5 sin 2t), −0.1]], B = [[0], [1]], Q = diag(2, 1),
   R = [[0.5]], S_f = diag(1, 0.5), t ∈ [0, 6].
2. "rotating": A(t) = [[0, 1, 0], [−2, 0, 0.3 cos t], [0.2 sin t, 0, −0.5]],
   B(t) = [[0, 0], [1, 0], [0, 1 + 0.3 sin t]], Q = I, R = diag(1, 2), S_f = 0, t ∈ [0, 4].

S is written at the listed times. JSON, 17 digits.
"""
import json
import pathlib

import numpy as np
import scipy
from scipy.integrate import solve_ivp

HERE = pathlib.Path(__file__).resolve().parent


def mathieu(t):
    return np.array([[0.0, 1.0], [-(1.0 + 0.5 * np.sin(2 * t)), -0.1]]), np.array([[0.0], [1.0]])


def rotating(t):
    a = np.array([[0.0, 1.0, 0.0], [-2.0, 0.0, 0.3 * np.cos(t)], [0.2 * np.sin(t), 0.0, -0.5]])
    b = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0 + 0.3 * np.sin(t)]])
    return a, b


def case(name, lin, q, r, sf, horizon, times):
    n = q.shape[0]
    r_inv = np.linalg.inv(r)

    def rate(t, y):
        s = y.reshape(n, n)
        a, b = lin(t)
        return -(a.T @ s + s @ a - s @ b @ r_inv @ b.T @ s + q).ravel()

    sol = solve_ivp(rate, (horizon, 0.0), sf.ravel(), method="DOP853", rtol=1e-13, atol=1e-13, dense_output=True)
    return {"name": name, "horizon": horizon, "times": times, "S": [sol.sol(t).reshape(n, n).tolist() for t in times]}


cases = [
    case("mathieu", mathieu, np.diag([2.0, 1.0]), np.array([[0.5]]), np.diag([1.0, 0.5]), 6.0, [0.0, 1.5, 3.0, 5.5]),
    case("rotating", rotating, np.eye(3), np.diag([1.0, 2.0]), np.zeros((3, 3)), 4.0, [0.0, 1.0, 2.0, 3.5]),
]
(HERE / "tvlqr_scipy.json").write_text(json.dumps({"generator": "scipy " + scipy.__version__, "cases": cases}, indent=1) + "\n")
print(f"wrote {len(cases)} cases")
