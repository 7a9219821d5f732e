"""Interoperability with other people's tools: SPICE kernels written by NAIF's toolkit
(SpiceyPy) read by Tumble to 1e-12."""

import pathlib

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


EROS = "scenarios/lander/eros_spice.toml"
SHAPES = pathlib.Path(__file__).resolve().parents[3].parent / "shared" / "data" / "shapes"


def _quat_rotate(q, v):
    """Hamilton quaternions [w, x, y, z] (n × 4) rotating vectors v (n × 3), written out."""
    w, u = q[:, :1], q[:, 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


@pytest.fixture(scope="module")
def eros_run(cli, tmp_path_factory):
    if not (SHAPES / "eros_sbgat_49k.obj").exists():
        pytest.skip("needs ../shared/data (the Eros shape model)")
    out = tmp_path_factory.mktemp("eros")
    done = cli("run", EROS, "--set", "simulation.duration=300", "--quiet", "--out", out)
    assert done.returncode == 0, done.stderr
    return out


def _epochs_et(epochs):
    """ET of TDB calendar epochs, by SPICE (its own calendar arithmetic)."""
    return np.array([sp.str2et(str(e).replace("T", " ") + " TDB") for e in epochs])


def test_oem_states_read_back_by_other_parsers(eros_run):
    import pandas as pd
    from oem import OrbitEphemerisMessage

    ts = pd.read_csv(eros_run / "timeseries.csv")
    et0 = tumble.Kernels(["scenarios/lander/kernels/naif.tls"]).et("2026-03-20T12:00:00 UTC")
    x = ts[["x [m]", "y [m]", "z [m]"]].to_numpy()
    v = ts[["vx [m/s]", "vy [m/s]", "vz [m/s]"]].to_numpy()
    q_nt = ts[["target_qw [1]", "target_qx [1]", "target_qy [1]", "target_qz [1]"]].to_numpy()
    w = ts[["target_wx [rad/s]", "target_wy [rad/s]", "target_wz [rad/s]"]].to_numpy()
    # Inertial (EME2000) relative to the body centre: R_NT x and R_NT (v + Ω × x).
    expect = {
        "lander_body_fixed": (x, v, "IAU_EROS"),
        "lander_eme2000": (_quat_rotate(q_nt, x), _quat_rotate(q_nt, v + np.cross(w, x)), "EME2000"),
    }
    for stem, (p, vel, frame) in expect.items():
        for path in [eros_run / "ccsds" / f"{stem}.oem", eros_run / "ccsds" / f"{stem}_oem.xml"]:
            oem = OrbitEphemerisMessage.open(str(path))
            (segment,) = oem.segments
            assert segment.metadata["REF_FRAME"] == frame and segment.metadata["CENTER_NAME"] == "EROS"
            states = list(segment.states)
            # Every sample of the series whose epoch advances (the stop repeats the last one).
            assert len(states) >= len(ts) - 1 and len(states) <= len(ts)
            pos = np.array([s.position for s in states]) * 1e3
            vv = np.array([s.velocity for s in states]) * 1e3
            n = len(states)
            # 17 significant digits written, km read back as doubles: 1e-15 relative.
            assert np.abs(pos - p[:n]).max() <= 1e-12 * np.abs(p).max()
            assert np.abs(vv - vel[:n]).max() <= 1e-12 * np.abs(vel).max()
            et = _epochs_et([s.epoch.strftime("%Y-%m-%dT%H:%M:%S.%f") for s in states[:5]])
            assert np.abs(et - (et0 + ts["t [s]"].to_numpy()[:5])).max() < 1e-6


def test_aem_attitudes_read_back_by_ccsds_ndm(eros_run):
    import pandas as pd
    from ccsds_ndm.ndm_io import NdmIo

    ts = pd.read_csv(eros_run / "timeseries.csv")
    q_ts = ts[["qw [1]", "qx [1]", "qy [1]", "qz [1]"]].to_numpy()
    q_nt = ts[["target_qw [1]", "target_qx [1]", "target_qy [1]", "target_qz [1]"]].to_numpy()
    # q_NS = q_NT q_TS, Hamilton products written out.
    a, b = q_nt, q_ts
    q_ns = np.column_stack([
        a[:, 0] * b[:, 0] - np.sum(a[:, 1:] * b[:, 1:], axis=1),
        a[:, :1] * b[:, 1:] + b[:, :1] * a[:, 1:] + np.cross(a[:, 1:], b[:, 1:]),
    ])
    for stem, expect in [("lander_attitude", q_ns), ("target_attitude", q_nt)]:
        for name in [f"{stem}.aem", f"{stem}_aem.xml"]:
            aem = NdmIo().from_path(str(eros_run / "ccsds" / name))
            seg = aem.body.segment[0]
            assert seg.metadata.ref_frame_a == "EME2000" and seg.metadata.attitude_dir.value == "A2B"
            states = [s.quaternion_state for s in seg.data.attitude_state]
            got = np.array([[s.quaternion.qc, s.quaternion.q1, s.quaternion.q2, s.quaternion.q3] for s in states])
            assert len(got) >= len(ts) - 1, name
            n = len(got)
            # Sign: the scalar part is kept non-negative.
            e = expect[:n] * np.where(expect[:n, :1] < 0, -1.0, 1.0)
            # Written to 17 digits; the products rounded in another order: a few ulp of 1.
            assert np.abs(got - e).max() <= 4e-15
            et0 = _epochs_et([states[0].epoch])[0]
            assert abs(et0 - (tumble.Kernels(["scenarios/lander/kernels/naif.tls"]).et("2026-03-20T12:00:00 UTC")
                              + ts["t [s]"].iloc[0])) < 1e-6


def test_python_run_writes_the_same_messages(eros_run, tmp_path):
    """``tumble.run(..., out=)`` writes the messages `tumble run` writes, byte for byte but
    the creation date."""
    tumble.run(EROS, {"simulation.duration": 300}, out=tmp_path)
    names = sorted(p.name for p in (eros_run / "ccsds").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "ccsds").iterdir()) and len(names) == 8
    for name in names:
        a, b = ((d / "ccsds" / name).read_text().splitlines() for d in (eros_run, tmp_path))
        keep = [i for i, line in enumerate(a) if "CREATION_DATE" not in line]
        assert [a[i] for i in keep] == [b[i] for i in keep], name


def test_out_refuses_a_link(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(tumble.TumbleError, match="symbolic link"):
        tumble.Simulation(tumble.load("scenarios/lander/comet_drop.toml"), tmp_path / "link")


def test_campaign_landing_sites_with_epochs(cli, tmp_path):
    """`landing_sites.csv`: each settled run's site from runs.csv with the epoch it came to rest,
    its calendar read back by SPICE."""
    import pandas as pd

    if not (SHAPES / "eros_sbgat_49k.obj").exists():
        pytest.skip("needs ../shared/data (the Eros shape model)")
    done = cli("mc", EROS, "--runs", "2", "--quiet", "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    runs = pd.read_csv(tmp_path / "runs.csv")
    sites = pd.read_csv(tmp_path / "landing_sites.csv")
    settled = runs[runs["status"] == "settled"].reset_index(drop=True)
    assert len(settled) >= 1 and list(sites["run"]) == list(settled["run"])
    et0 = tumble.Kernels(["scenarios/lander/kernels/naif.tls"]).et("2026-03-20T12:00:00 UTC")
    assert np.array_equal(sites["et [s]"], et0 + settled["settle_time [s]"])
    # The calendar to the microsecond it is written with.
    assert np.abs(_epochs_et(sites["epoch [TDB]"]) - sites["et [s]"]).max() <= 1e-6
    for c in ["latitude [deg]", "longitude [deg]", "x [m]", "y [m]", "z [m]", "sun_elevation_end [deg]"]:
        assert np.array_equal(sites[c], settled[c]), c


def test_a_campaign_run_alone_writes_its_messages(cli, tmp_path):
    """`tumble mc --run N` writes run N's messages, its dispersed start in them."""
    import pandas as pd

    if not (SHAPES / "eros_sbgat_49k.obj").exists():
        pytest.skip("needs ../shared/data (the Eros shape model)")
    done = cli("mc", EROS, "--run", "1", "--set", "simulation.duration=60", "--quiet", "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    run = tmp_path / "run_1"
    ts = pd.read_csv(run / "timeseries.csv")
    from oem import OrbitEphemerisMessage

    (segment,) = OrbitEphemerisMessage.open(str(run / "ccsds" / "lander_body_fixed.oem")).segments
    first = np.array(list(segment.states)[0].position) * 1e3
    assert np.abs(first - ts[["x [m]", "y [m]", "z [m]"]].to_numpy()[0]).max() <= 1e-9
    # Run 1's release is dispersed away from the nominal one.
    assert abs(ts["x [m]"].iloc[0] - (-220.0)) > 1e-6
