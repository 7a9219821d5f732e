"""Reference for scenarios/arms/jemrms_flexible_joint.toml: the snare-wire document's eqs. (1)-(2)
for one link on a flexible joint, integrated independently of Tumble (plain Python, RK4).

    J q''  + K(q - qm) = 0                                   (1), no gravity, no contact
    B qm'' + (D0 + Dn(|q - qm|)) qm' - K(q - qm) = ks (0 - qm)  (2), tau a position loop

K is Table 2's stiffness read as the tangent stiffness of a continuous torque-deflection curve
(12.5 N m/deg below 0.04 deg, 475 above), Dn Table 2's viscosity (48.9, 87.3, 17.6 N m s/deg)
on the motor rate as eq. (2) writes it. Writes the times between successive zero crossings of
the deflection q - qm (half-periods) with the largest |q - qm| between them.

Run: python3 gen_jemrms_joint.py > jemrms_joint.json
"""
import json
import math

DEG = math.pi / 180.0
BREAKS = [0.0, 0.04 * DEG, 0.06 * DEG]
STIFFNESS = [12.5 / DEG, 475.0 / DEG, 475.0 / DEG]
VISCOSITY = [48.9 / DEG, 87.3 / DEG, 17.6 / DEG]
J = 540.0 + 400.0 * 2.0**2  # link about the joint axis: 540 about its centre of mass at 2 m
B, D0, KS = 2000.0, 0.0, 1000.0
Q0, H, T = 0.008727, 5e-4, 10.0


def spring(d):
    a, torque = abs(d), 0.0
    for i, b in enumerate(BREAKS):
        if a <= b:
            break
        end = BREAKS[i + 1] if i + 1 < len(BREAKS) else math.inf
        torque += STIFFNESS[i] * (min(a, end) - b)
    return math.copysign(torque, d)


def viscosity(d):
    return VISCOSITY[max(i for i, b in enumerate(BREAKS) if abs(d) >= b)]


def rhs(y):
    q, qd, m, md = y
    k = spring(q - m)
    return [qd, -k / J, md, (k - (D0 + viscosity(q - m)) * md - KS * m) / B]


def main():
    y, t, rows = [Q0, 0.0, 0.0, 0.0], 0.0, []
    for n in range(round(T / H)):
        k1 = rhs(y)
        k2 = rhs([a + 0.5 * H * b for a, b in zip(y, k1)])
        k3 = rhs([a + 0.5 * H * b for a, b in zip(y, k2)])
        k4 = rhs([a + H * b for a, b in zip(y, k3)])
        y = [a + H / 6.0 * (b + 2.0 * c + 2.0 * d + e) for a, b, c, d, e in zip(y, k1, k2, k3, k4)]
        rows.append(((n + 1) * H, (y[0] - y[2]) / DEG))
    crossings = []
    for (t0, d0), (t1, d1) in zip(rows, rows[1:]):
        if d0 * d1 < 0.0:
            crossings.append(t0 + (t1 - t0) * d0 / (d0 - d1))
    half = [b - a for a, b in zip(crossings, crossings[1:])]
    peaks = [max(abs(d) for t, d in rows if a <= t <= b) for a, b in zip(crossings, crossings[1:])]
    print(json.dumps({"half_periods_s": half, "peak_deflection_deg": peaks}, indent=1))


main()
