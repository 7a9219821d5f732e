#!/usr/bin/env python3
"""Polyhedron gravity throughput, Tumble against polyhedral-gravity, side by side in one run.

    pip install polyhedral-gravity==3.3.1 numpy
    cargo build --release
    python3 bench/gravity_vs_polyhedral_gravity.py

Both evaluate potential, acceleration and gradient tensor single-threaded at the same points
between 1 and 2 body radii: 200 for Eros (../shared/data/shapes/eros_sbgat_49k.obj, 49,152
faces, km) and Phobos (phobos_thomas_m1.obj, 32,040 faces), 500 for Itokawa
(itokawa_sbgat_q32.obj, 12,288 faces), 200 for 67P (67p_sbgat_lowres.obj, 62,908 faces) and
Šteins (steins_cosmographia.obj, 58,144 faces), 1,000 and 2,000 for ellipsoids of 5,120 and
1,280 faces (semi-axes 3, 2, 1 km). The
figure is points per second, the best of three repeats. Tumble's time is the evaluation alone as
`tumble gravity` reports it (file reading and writing excluded, as for polyhedral-gravity).
"""
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import polyhedral_gravity as pg

ROOT = pathlib.Path(__file__).resolve().parent.parent
TUMBLE = ROOT / "target/release/tumble"
EROS = ROOT / "../shared/data/shapes/eros_sbgat_49k.obj"
PHOBOS = ROOT / "../shared/data/shapes/phobos_thomas_m1.obj"
ITOKAWA = ROOT / "../shared/data/shapes/itokawa_sbgat_q32.obj"
COMET = ROOT / "../shared/data/shapes/67p_sbgat_lowres.obj"
STEINS = ROOT / "../shared/data/shapes/steins_cosmographia.obj"
DENSITY = 2670.0


def read_obj(path):
    v, f = [], []
    for line in pathlib.Path(path).read_text().splitlines():
        t = line.split()
        if t and t[0] == "v":
            v.append([float(x) * 1000.0 for x in t[1:4]])
        elif t and t[0] == "f":
            f.append([int(x.split("/")[0]) - 1 for x in t[1:4]])
    return np.array(v), np.array(f)


def icosphere(levels, semi_axes):
    t = (1 + 5 ** 0.5) / 2
    v = [[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t],
         [0, -1, -t], [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]]
    v = [list(np.array(p) / np.linalg.norm(p)) for p in v]
    f = [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4],
         [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8],
         [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]]
    for _ in range(levels):
        mid, nf = {}, []
        for a, b, c in f:
            m = []
            for i, j in ((a, b), (b, c), (c, a)):
                k = (min(i, j), max(i, j))
                if k not in mid:
                    p = (np.array(v[i]) + np.array(v[j])) / 2
                    v.append(list(p / np.linalg.norm(p)))
                    mid[k] = len(v) - 1
                m.append(mid[k])
            nf += [[a, m[0], m[2]], [b, m[1], m[0]], [c, m[2], m[1]], m]
        f = nf
    return np.array(v) * np.array(semi_axes), np.array(f)


def points(v, f, n, seed):
    used = np.unique(f)
    c = v[used].mean(axis=0)
    r = np.linalg.norm(v[used] - c, axis=1).max()
    rng = np.random.default_rng(seed)
    d = rng.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=1)[:, None]
    return c + d * (r * (1 + rng.random(n)))[:, None]


def bench_pg(v, f, pts):
    poly = pg.Polyhedron((v, f), DENSITY, integrity_check=pg.PolyhedronIntegrity.DISABLE)
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        pg.evaluate(poly, [list(p) for p in pts], parallel=False)
        best = min(best, time.perf_counter() - t)
    return len(pts) / best


def bench_tumble(obj, pts, tmp):
    pfile = tmp / "points.csv"
    np.savetxt(pfile, pts, delimiter=",", header="x,y,z", comments="", fmt="%.17g")
    best = 0.0
    for _ in range(3):
        out = subprocess.run([str(TUMBLE), "gravity", "--mesh", str(obj), "--unit", "m", "--density", str(DENSITY),
                              "--points", str(pfile), "--out", str(tmp / "g.csv"), "--threads", "1"],
                             capture_output=True, text=True, check=True)
        best = max(best, float(re.search(r"\(([\d.]+) points/s", out.stderr).group(1)))
    return best


def write_obj(path, v, f):
    with open(path, "w") as fh:
        fh.writelines(f"v {float(x)!r} {float(y)!r} {float(z)!r}\n" for x, y, z in v)
        fh.writelines(f"f {a + 1} {b + 1} {c + 1}\n" for a, b, c in f)


def main():
    if not TUMBLE.exists():
        sys.exit("build first: cargo build --release")
    cases = [
        ("ellipsoid 1,280 faces", *icosphere(3, [3000.0, 2000.0, 1000.0]), 2000),
        ("ellipsoid 5,120 faces", *icosphere(4, [3000.0, 2000.0, 1000.0]), 1000),
    ]
    for name, file, n in [("Steins 58,144 faces", STEINS, 200), ("67P 62,908 faces", COMET, 200),
                          ("Eros 49,152 faces", EROS, 200), ("Phobos 32,040 faces", PHOBOS, 200),
                          ("Itokawa 12,288 faces", ITOKAWA, 500)]:
        if file.exists():
            cases.insert(0, (name, *read_obj(file), n))
    print(f"polyhedral-gravity {pg.__version__}, single thread, points/s (best of 3)")
    print(f"{'mesh':<24}{'Tumble':>12}{'polyhedral-gravity':>22}{'ratio':>8}")
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        for name, v, f, n in cases:
            obj = tmp / "mesh.obj"
            write_obj(obj, v, f)
            pts = points(v, f, n, 1)
            t, p = bench_tumble(obj, pts, tmp), bench_pg(v, f, pts)
            print(f"{name:<24}{t:>12.1f}{p:>22.1f}{t / p:>8.2f}")


if __name__ == "__main__":
    main()
