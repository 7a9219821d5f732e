#!/usr/bin/env python3
"""Reference gravity of asteroid Itokawa from an independent implementation.

Generates `itokawa_polyhedral_gravity.csv` with the ESA `polyhedral-gravity` package (Tsoulis'
line-integral formulation, independent of Tumble's Werner–Scheeres code):

    pip install polyhedral-gravity==3.3.1 numpy
    python3 gen_polyhedral_gravity.py

Mesh: ../shared/data/shapes/itokawa_sbgat_q32.obj (km, converted to m); density 1950 kg/m³.
Points (fixed seed): inside (vertices pulled to 50 % and 90 % of their distance from the
centroid), near the surface (105 %, 120 %), and far (3, 10 and 30 body radii).
Columns: x,y,z [m], region, U [m²/s², polyhedral-gravity's positive convention],
ax,ay,az [m/s²], Vxx,Vyy,Vzz,Vxy,Vxz,Vyz [1/s²] (second derivatives of U).
"""
import csv
import pathlib

import numpy as np
import polyhedral_gravity as pg

HERE = pathlib.Path(__file__).resolve().parent
OBJ = HERE / "../../../../../shared/data/shapes/itokawa_sbgat_q32.obj"
DENSITY = 1950.0


def read_obj(path):
    v, f = [], []
    for line in path.read_text().splitlines():
        t = line.split()
        if not t:
            continue
        if t[0] == "v":
            v.append([float(x) * 1000.0 for x in t[1:4]])
        elif t[0] == "f":
            f.append([int(x.split("/")[0]) - 1 for x in t[1:4]])
    return np.array(v), np.array(f)


def main():
    v, f = read_obj(OBJ)
    # The mesh is closed and outward (checked by Tumble's validation and the data README);
    # polyhedral-gravity's ray-casting orientation check misjudges faces in Itokawa's
    # concavities, so it is disabled rather than letting HEAL flip correct faces.
    poly = pg.Polyhedron((v, f), DENSITY, integrity_check=pg.PolyhedronIntegrity.DISABLE)
    rng = np.random.default_rng(20261121)
    c = v.mean(axis=0)
    radius = np.linalg.norm(v - c, axis=1).max()
    pts = []
    for region, factors in [("inside", [0.5, 0.9]), ("near", [1.05, 1.2])]:
        for s in factors:
            for i in rng.choice(len(v), 12, replace=False):
                pts.append((region, c + s * (v[i] - c)))
    for k in [3.0, 10.0, 30.0]:
        for _ in range(8):
            d = rng.normal(size=3)
            pts.append(("far" if k > 5 else "near", c + k * radius * d / np.linalg.norm(d)))
    res = pg.evaluate(poly, [p for _, p in pts], parallel=False)
    with open(HERE / "itokawa_polyhedral_gravity.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["x", "y", "z", "region", "U", "ax", "ay", "az", "Vxx", "Vyy", "Vzz", "Vxy", "Vxz", "Vyz"])
        for (region, p), (u, a, t) in zip(pts, res):
            w.writerow([repr(float(x)) for x in p] + [region, repr(u)] + [repr(x) for x in a] + [repr(x) for x in t])


if __name__ == "__main__":
    main()
