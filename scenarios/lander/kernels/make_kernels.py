"""Writes the kernels of scenarios/lander/eros_spice.toml with NAIF's toolkit (SpiceyPy):

- naif.tls: leap seconds (TAI − UTC from the IERS bulletins up to the 2017-01-01 leap second,
  the terms of NAIF's naif0012.tls);
- eros.tpc: 433 Eros's IAU rotation model (Archinal et al. 2018, "Report of the IAU Working
  Group on Cartographic Coordinates and Rotational Elements: 2015"): pole RA 11.35°,
  Dec 17.22°, prime meridian 326.07° + 1639.38864745°/day;
- eros_sun.bsp: Eros about the Sun (SPK type 2, J2000) for 2026, a Keplerian orbit from
  approximate osculating elements (a = 1.4579 au, e = 0.2227, i = 10.83°, Ω = 304.28°,
  ω = 178.93°, M = 310.5° at 2025-05-05 TDB, ecliptic J2000), fitted by Chebyshev polynomials of
  degree 12 over 30-day records (fit error below 1 m). It is not JPL's ephemeris: for mission
  work load JPL's SPK of Eros and a planetary ephemeris (DE440) instead.

Run: `python make_kernels.py` (needs spiceypy and numpy) in this folder."""

import pathlib

import numpy as np
import spiceypy as sp

HERE = pathlib.Path(__file__).resolve().parent
AU = 149_597_870_700.0  # m
GM_SUN = 1.327_124_400_419_394e11  # km³/s²
OBLIQUITY = np.radians(84381.448 / 3600.0)
LEAPS = [
    (10, "1972-JAN-1"), (11, "1972-JUL-1"), (12, "1973-JAN-1"), (13, "1974-JAN-1"), (14, "1975-JAN-1"),
    (15, "1976-JAN-1"), (16, "1977-JAN-1"), (17, "1978-JAN-1"), (18, "1979-JAN-1"), (19, "1980-JAN-1"),
    (20, "1981-JUL-1"), (21, "1982-JUL-1"), (22, "1983-JUL-1"), (23, "1985-JUL-1"), (24, "1988-JAN-1"),
    (25, "1990-JAN-1"), (26, "1991-JAN-1"), (27, "1992-JUL-1"), (28, "1993-JUL-1"), (29, "1994-JUL-1"),
    (30, "1996-JAN-1"), (31, "1997-JUL-1"), (32, "1999-JAN-1"), (33, "2006-JAN-1"), (34, "2009-JAN-1"),
    (35, "2012-JUL-1"), (36, "2015-JUL-1"), (37, "2017-JAN-1"),
]


def lsk():
    table = "\n".join(f"  {dt}, @{date}" for dt, date in LEAPS)
    return (
        "KPL/LSK\n\nLeap seconds (TAI - UTC) and the TDB - TT terms, as NAIF's naif0012.tls.\n\n"
        "\\begindata\n\nDELTET/DELTA_T_A = 32.184\nDELTET/K = 1.657D-3\nDELTET/EB = 1.671D-2\n"
        f"DELTET/M = ( 6.239996D0 1.99096871D-7 )\nDELTET/DELTA_AT = (\n{table} )\n\n\\begintext\n"
    )


def tpc():
    return (
        "KPL/PCK\n\n433 Eros, IAU WGCCRE 2015 (Archinal et al. 2018).\n\n\\begindata\n"
        "BODY2000433_POLE_RA = ( 11.35 0. 0. )\nBODY2000433_POLE_DEC = ( 17.22 0. 0. )\n"
        "BODY2000433_PM = ( 326.07 1639.38864745 0. )\nBODY10_GM = 1.3271244004193938D+11\n\\begintext\n"
    )


def kepler(et):
    """Eros relative to the Sun, J2000 equatorial, km: two-body motion from the elements."""
    a = 1.4579 * AU / 1e3
    e, i, node, peri = 0.2227, np.radians(10.83), np.radians(304.28), np.radians(178.93)
    epoch = sp.str2et("2025-05-05 00:00:00 TDB")
    n = np.sqrt(GM_SUN / a**3)
    m = np.radians(310.5) + n * (et - epoch)
    ea = m
    for _ in range(30):
        ea = ea - (ea - e * np.sin(ea) - m) / (1 - e * np.cos(ea))
    x, y = a * (np.cos(ea) - e), a * np.sqrt(1 - e * e) * np.sin(ea)
    rot = sp.eul2m(-node, -i, -peri, 3, 1, 3)  # orbital plane -> ecliptic
    ecl = np.asarray(rot) @ np.array([x, y, 0.0])
    return np.asarray(sp.rotate(-OBLIQUITY, 1)) @ ecl  # ecliptic -> equatorial


def spk(path):
    first, n, deg, days = sp.str2et("2026-01-01 00:00:00 TDB"), 13, 12, 30.0
    intlen = days * 86400.0
    nodes = np.cos(np.pi * (np.arange(4 * deg) + 0.5) / (4 * deg))
    coeffs = []
    for k in range(n):
        mid, rad = first + (k + 0.5) * intlen, intlen / 2
        pts = np.array([kepler(mid + rad * s) for s in nodes])
        coeffs.append(np.concatenate([np.polynomial.chebyshev.chebfit(nodes, pts[:, c], deg) for c in range(3)]))
        check = np.array([np.polynomial.chebyshev.chebval(s, coeffs[-1][c * (deg + 1):(c + 1) * (deg + 1)])
                          for s in (0.123,) for c in range(3)])
        assert np.linalg.norm(check - kepler(mid + rad * 0.123)) < 1e-3  # km
    path.unlink(missing_ok=True)
    h = sp.spkopn(str(path), "Eros about the Sun (Keplerian)", 0)
    sp.spkw02(h, 2000433, 10, "J2000", first, first + n * intlen, "EROS KEPLERIAN 2026", intlen, n, deg,
              np.concatenate(coeffs), first)
    sp.spkcls(h)


if __name__ == "__main__":
    (HERE / "naif.tls").write_text(lsk())
    (HERE / "eros.tpc").write_text(tpc())
    sp.furnsh(str(HERE / "naif.tls"))
    spk(HERE / "eros_sun.bsp")
    print("wrote", *(p.name for p in sorted(HERE.glob("*.t*")) + [HERE / "eros_sun.bsp"]))
