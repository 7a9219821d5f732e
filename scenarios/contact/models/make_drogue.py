"""Writes drogue.obj: the inner surface of a docking drogue (a truncated cone, half-angle 30°,
mouth radius 0.25 m at z = 0.3 m, throat radius 0.02 m at z = 0) as triangles facing the axis,
and a floor block under the throat. Z up, metres. Run: python3 make_drogue.py"""
import math

n, r0, r1, h = 32, 0.02, 0.25, 0.3
lines = ["# docking drogue, written by make_drogue.py (Z up, metres)", "o triangles_cone"]
for z, r in ((0.0, r0), (h, r1)):
    for k in range(n):
        a = 2 * math.pi * k / n
        lines.append("v %.9f %.9f %.9f" % (r * math.cos(a), r * math.sin(a), z))
for k in range(n):
    a0, a1 = 1 + k, 1 + (k + 1) % n          # throat ring
    b0, b1 = 1 + n + k, 1 + n + (k + 1) % n  # mouth ring
    # Counter-clockwise seen from the axis (inside the cone): the faces look inwards.
    lines.append(f"f {a0} {b0} {b1}")
    lines.append(f"f {a0} {b1} {a1}")
lines.append("o hull_floor")
for x in (-0.1, 0.1):
    for y in (-0.1, 0.1):
        for z in (-0.05, 0.0):
            lines.append("v %.3f %.3f %.3f" % (x, y, z))
with open("drogue.obj", "w") as f:
    f.write("\n".join(lines) + "\n")
