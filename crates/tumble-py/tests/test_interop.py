"""Interoperability with other people's tools: SPICE kernels written by NAIF's toolkit
(SpiceyPy) read by Tumble to 1e-12."""

import numpy as np
import pytest

import tumble

from kernels import MOONLET, SSB, START, SUN, TARGET, DAYS, write

sp = pytest.importorskip("spiceypy")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    paths = write(tmp_path_factory.mktemp("kernels"))
    for p in paths.values():
        sp.furnsh(str(p))
    yield paths
    sp.kclear()


def test_utc_epochs_convert_as_spice_does(kernels):
    k = tumble.Kernels([kernels["lsk"]])
    for utc in ["1972-01-01T00:00:00", "1999-06-30T23:59:59.5", "2017-01-01T00:00:00", "2026-11-28T16:39:08.25"]:
        # The time terms are one sine evaluation: agreement to the rounding of seconds near 1e9.
        assert k.et(utc) == pytest.approx(sp.str2et(utc), abs=2e-7), utc
    assert k.et("2000-01-01T12:00:00 TDB") == 0.0
    with pytest.raises(tumble.ScenarioError, match="leapseconds"):
        tumble.Kernels([kernels["tpc"]]).et("2020-01-01T00:00:00")


def test_states_match_spkgeo_through_the_barycentre_and_ecliptic(kernels):
    k = tumble.Kernels([kernels["spk"]])
    for et in np.linspace(START, START + DAYS * 86400.0, 23):
        for target, observer in [(SUN, TARGET), (TARGET, SSB), (SUN, SSB)]:
            ref, _ = sp.spkgeo(target, et, "J2000", observer)
            p, v = k.state(target, observer, et)
            ref = np.asarray(ref) * 1e3
            # Relative 1e-12 of the distance: both evaluate the same Chebyshev sums in doubles.
            assert np.linalg.norm(p - ref[:3]) <= 1e-12 * np.linalg.norm(ref[:3])
            assert np.linalg.norm(v - ref[3:]) <= 1e-12 * np.linalg.norm(ref[3:])
    with pytest.raises(tumble.ScenarioError, match="no ephemeris links body 499"):
        k.state(499, SSB, START)


@pytest.mark.parametrize("body,frame", [(TARGET, "TEST_TARGET_FIXED"), (MOONLET, "TEST_MOONLET_FIXED")])
def test_rotations_match_sxform(kernels, body, frame):
    k = tumble.Kernels([kernels["bpc"], kernels["tpc"]])
    for et in np.linspace(START, START + DAYS * 86400.0, 17):
        x = np.asarray(sp.sxform("J2000", frame, et))
        r, dr = x[:3, :3], x[3:, :3]
        rot, omega = k.rotation(body, et)
        # The prime meridian's angle W grows as spin × time (1e7 degrees for the moonlet after
        # 25 years): both tools round it to one unit in its last place, |W| · 2.2e-16 rad.
        assert np.abs(rot - r).max() <= 1e-13 + 2 * 2.2e-16 * np.linalg.norm(omega) * et
        # dR/dt = −[ω×] R (R: J2000 → body): ω in body axes from SPICE's state transformation.
        w = -dr @ r.T
        ref = np.array([w[2, 1], w[0, 2], w[1, 0]])
        assert np.linalg.norm(omega - ref) <= 1e-12 * np.linalg.norm(ref)
