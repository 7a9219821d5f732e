#!/usr/bin/env python3
"""Reference convex hulls from Qhull (scipy.spatial.ConvexHull) for tests/hull_qhull.rs.

Run from this directory:  python3 qhull_generate.py  (writes qhull_reference.json).
Needs numpy and scipy from PyPI. Each case records the input points (floats written by repr,
so they read back bit for bit), Qhull's extreme vertices, area and volume (3D) or the polygon
area (sets lying exactly in one plane, hulled by Qhull in 2D on in-plane coordinates), and
Qhull's facet planes so that a test can measure how far a point is from Qhull's boundary.
Qhull works in floating point and merges facets closer than its precision, so for nearly
coplanar sets `exact_vertices` is false: there the test checks that any vertex the two hulls
disagree on lies on the other's boundary within a tolerance.
"""
import json

import numpy as np
from scipy.spatial import ConvexHull

rng = np.random.default_rng(20261121)
cases = []


def add3(name, pts, exact_vertices=True):
    pts = np.asarray(pts, dtype=float)
    h = ConvexHull(pts)
    cases.append(
        {
            "name": name,
            "dimension": 3,
            "exact_vertices": exact_vertices,
            "points": pts.tolist(),
            "vertices": sorted(int(i) for i in h.vertices),
            "area": float(h.area),
            "volume": float(h.volume),
            "equations": h.equations.tolist(),
        }
    )


def add2(name, pts, axes, normal):
    """Points exactly in the plane with `normal`; Qhull hulls the coordinates `axes` (a 2D
    projection, whose area is the polygon's times the cosine between `normal` and the dropped
    axis)."""
    pts = np.asarray(pts, dtype=float)
    h = ConvexHull(pts[:, axes])
    normal = np.asarray(normal, float)
    dropped = 3 - sum(axes)
    stretch = np.linalg.norm(normal) / abs(normal[dropped])
    cases.append(
        {
            "name": name,
            "dimension": 2,
            "exact_vertices": True,
            "points": pts.tolist(),
            "vertices": sorted(int(i) for i in h.vertices),
            "area": float(h.volume * stretch),  # in 2D Qhull's "volume" is the area
            "projection_axes": axes,
        }
    )


# Generic random sets.
for n in (20, 200, 1000):
    add3(f"uniform_cube_{n}", rng.uniform(-1, 1, (n, 3)))
g = rng.normal(size=(400, 3))
add3("sphere_400", g / np.linalg.norm(g, axis=1)[:, None])
add3("gaussian_500_scaled", rng.normal(size=(500, 3)) * [1e3, 2e-2, 5.0])

# Exactly coplanar subsets: a 5x5x5 grid (only the 8 corners are vertices), a cylinder with
# flat ends, an octahedron with points on its edges and faces.
grid = np.array([[i, j, k] for i in range(5) for j in range(5) for k in range(5)], float) * 0.25
add3("grid_5x5x5", rng.permutation(grid))
ang = np.arange(12) * (2 * np.pi / 12)
ring = np.stack([np.cos(ang), np.sin(ang)], 1)
cyl = np.concatenate([np.c_[ring, np.zeros(12)], np.c_[ring, np.full(12, 2.0)], [[0, 0, 1.0]]])
add3("cylinder_12", cyl)
octa = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]
extra = [[0.5, 0.5, 0], [0.25, 0.25, 0.5], [0, 0.5, -0.5], [0.5, 0, 0.5]]
add3("octahedron_edges_faces", octa + extra)

# The membrane's shape: six suspension points exactly in z = 0 and points below them.
hexagon = [[7.5 * np.cos(a), 7.5 * np.sin(a), 0.0] for a in np.arange(6) * np.pi / 3]
below = rng.uniform(-3, 3, (40, 3)) * [1, 1, 0.3] - [0, 0, 1.0]
add3("hexagon_and_body", np.concatenate([hexagon, below]))
shallow = np.c_[rng.uniform(-2, 2, (30, 2)), -rng.uniform(1e-6, 1e-3, 30)]
add3("hexagon_shallow_body", np.concatenate([hexagon, shallow]))

# Nearly coplanar: a plane with tiny offsets, and a rotated unit grid (rounding leaves the
# face points off their planes by ~1e-16).
flat = np.c_[rng.uniform(-1, 1, (60, 2)), rng.uniform(-1e-7, 1e-7, 60)]
add3("nearly_flat_1e-7", flat, exact_vertices=False)
th = 0.3
rot = np.array([[np.cos(th), -np.sin(th), 0], [np.sin(th), np.cos(th), 0], [0, 0, 1]])
rot = rot @ np.array([[1, 0, 0], [0, np.cos(0.7), -np.sin(0.7)], [0, np.sin(0.7), np.cos(0.7)]])
add3("rotated_grid_4x4x4", (np.array([[i, j, k] for i in range(4) for j in range(4) for k in range(4)], float) / 3) @ rot.T, exact_vertices=False)
cube_pert = np.concatenate([grid, grid + rng.uniform(-1e-12, 1e-12, grid.shape)])
add3("grid_with_1e-12_jitter", cube_pert, exact_vertices=False)

# Exactly planar sets: the hull is a polygon.
sq = np.c_[rng.uniform(-1, 1, (50, 2)), np.full(50, 3.0)]
add2("plane_z3_random_50", sq, [0, 1], [0, 0, 1])
hexpts = np.array(hexagon)
add2("suspension_hexagon", np.concatenate([hexpts, [[0.0, 0.0, 0.0], [1.0, 1.0, 0.0]]]), [0, 1], [0, 0, 1])
# The plane x + y + z = 1 with dyadic coordinates, so every point lies on it exactly.
uv = rng.integers(-64, 64, (40, 2)) / 64.0
tilted = np.c_[uv, 1.0 - uv[:, 0] - uv[:, 1]]
add2("tilted_plane_dyadic_40", tilted, [0, 1], [1, 1, 1])

with open("qhull_reference.json", "w") as f:
    json.dump({"generator": "qhull_generate.py", "cases": cases}, f)
print(f"{len(cases)} cases written")
