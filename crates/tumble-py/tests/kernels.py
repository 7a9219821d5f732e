"""Writes small SPICE kernels with NAIF's own toolkit (SpiceyPy): a leapseconds kernel with the
IERS table of TAI − UTC, SPK segments of types 2 and 3, binary PCK segments of type 2 and a text
PCK with nutation–precession terms, each with random Chebyshev coefficients, and the frame
kernel SpiceyPy needs to evaluate the body-fixed frames. Used by test_interop.py, and runnable as
a script to write them into a folder: `python kernels.py OUT`."""

import pathlib
import sys

import numpy as np

LEAPS = [
    (10, "1972-JAN-1"), (11, "1972-JUL-1"), (12, "1973-JAN-1"), (13, "1974-JAN-1"), (14, "1975-JAN-1"),
    (15, "1976-JAN-1"), (16, "1977-JAN-1"), (17, "1978-JAN-1"), (18, "1979-JAN-1"), (19, "1980-JAN-1"),
    (20, "1981-JUL-1"), (21, "1982-JUL-1"), (22, "1983-JUL-1"), (23, "1985-JUL-1"), (24, "1988-JAN-1"),
    (25, "1990-JAN-1"), (26, "1991-JAN-1"), (27, "1992-JUL-1"), (28, "1993-JUL-1"), (29, "1994-JUL-1"),
    (30, "1996-JAN-1"), (31, "1997-JUL-1"), (32, "1999-JAN-1"), (33, "2006-JAN-1"), (34, "2009-JAN-1"),
    (35, "2012-JUL-1"), (36, "2015-JUL-1"), (37, "2017-JAN-1"),
]

# Bodies of the test kernels: a target with an SPK of type 2 and a binary PCK, the Sun with
# type 3 through the solar-system barycentre, and a satellite-like body with a text PCK.
TARGET, SUN, SSB, MOONLET = 2000433, 10, 0, 401
START, DAYS = 8.0e8, 4.0


def lsk_text():
    table = "\n".join(f"  {dt}, @{date}" for dt, date in LEAPS)
    return (
        "KPL/LSK\n\n\\begindata\n\nDELTET/DELTA_T_A = 32.184\nDELTET/K = 1.657D-3\n"
        "DELTET/EB = 1.671D-2\nDELTET/M = ( 6.239996D0 1.99096871D-7 )\n"
        f"DELTET/DELTA_AT = (\n{table} )\n\n\\begintext\n"
    )


def tpc_text():
    return (
        "KPL/PCK\n\n\\begindata\n"
        f"BODY{MOONLET}_POLE_RA = ( 317.68 -0.108 0.0 )\n"
        f"BODY{MOONLET}_POLE_DEC = ( 52.90 -0.061 0.0 )\n"
        f"BODY{MOONLET}_PM = ( 35.06 1128.8445850 6.6443009930565219D-10 )\n"
        f"BODY{MOONLET}_NUT_PREC_RA = ( -1.79 0 0 )\n"
        f"BODY{MOONLET}_NUT_PREC_DEC = ( -1.08 0 0 )\n"
        f"BODY{MOONLET}_NUT_PREC_PM = ( 1.42 0.78 0 )\n"
        "BODY4_NUT_PREC_ANGLES = ( 169.51 -15917.1 192.93 41215158.18 53.47 -20262.8 )\n"
        "\\begintext\n"
    )


def fk_text():
    """Body-fixed frames for SpiceyPy's evaluation (Tumble needs none)."""
    out = ["KPL/FK\n\n\\begindata\n"]
    for fid, name, body in [(1400433, "TEST_TARGET_FIXED", TARGET), (1400401, "TEST_MOONLET_FIXED", MOONLET)]:
        out.append(
            f"FRAME_{name} = {fid}\nFRAME_{fid}_NAME = '{name}'\nFRAME_{fid}_CLASS = 2\n"
            f"FRAME_{fid}_CLASS_ID = {body}\nFRAME_{fid}_CENTER = {body}\n"
        )
    out.append("\\begintext\n")
    return "".join(out)


def write(folder, seed=1):
    """Writes naif.tls, test.bsp, test.bpc, test.tpc and test.tf into `folder`; returns their paths."""
    import spiceypy as sp

    folder = pathlib.Path(folder)
    rng = np.random.default_rng(seed)
    paths = {k: folder / f for k, f in
             [("lsk", "naif.tls"), ("spk", "test.bsp"), ("bpc", "test.bpc"), ("tpc", "test.tpc"), ("fk", "test.tf")]}
    paths["lsk"].write_text(lsk_text())
    paths["tpc"].write_text(tpc_text())
    paths["fk"].write_text(fk_text())
    n, deg, intlen = 8, 9, DAYS * 86400.0 / 8
    end = START + n * intlen
    scale = 1.0 / np.arange(1, deg + 2) ** 2

    h = sp.spkopn(str(paths["spk"]), "tumble test", 0)
    # Type 2: the target about the barycentre (x, y, z coefficients per record), km.
    c2 = np.concatenate([np.concatenate([rng.normal(0, 2e8, deg + 1) * scale for _ in range(3)]) for _ in range(n)])
    sp.spkw02(h, TARGET, SSB, "J2000", START, end, "target", intlen, n, deg, c2, START)
    # Type 3: the Sun about the barycentre in ECLIPJ2000, positions then velocities.
    rec = []
    for _ in range(n):
        rec.append(np.concatenate([rng.normal(0, 1e6, deg + 1) * scale for _ in range(3)]
                                  + [rng.normal(0, 1e-2, deg + 1) * scale for _ in range(3)]))
    sp.spkw03(h, SUN, SSB, "ECLIPJ2000", START, end, "sun", intlen, n, deg, np.concatenate(rec), START)
    sp.spkcls(h)

    h = sp.pckopn(str(paths["bpc"]), "tumble test", 0)
    recs = []
    for _ in range(n):
        phi = rng.normal(0, 1, deg + 1) * scale
        delta = np.abs(rng.normal(0, 1, deg + 1)) * scale
        delta[0] = 1.2
        w = rng.normal(0, 1, deg + 1) * scale
        w[1] = 300.0  # about 0.9 rad/h over a record: a spinning body
        recs.append(np.concatenate([phi, delta, w]))
    sp.pckw02(h, TARGET, "J2000", START, end, "target", intlen, n, deg, np.concatenate(recs), START)
    sp.pckcls(h)
    return paths


if __name__ == "__main__":
    print(write(sys.argv[1]))
