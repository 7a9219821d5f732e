"""Campaigns from Python are `tumble mc`'s; the building blocks against analytic answers."""

import math
import pathlib

import numpy as np
import pytest

import tumble

PHOBOS = "scenarios/lander/cube_phobos.toml"


def test_campaign_is_the_cli_campaign(cli, tmp_path):
    done = cli("mc", PHOBOS, "--runs", 6, "--seed", 3, "--threads", 2, "--out", tmp_path / "cli", "--quiet")
    assert done.returncode == 0, done.stderr
    table = tumble.campaign(PHOBOS, runs=6, seed=3, threads=1, out=tmp_path / "py", as_pandas=False)
    cli_csv = (tmp_path / "cli" / "runs.csv").read_bytes()
    assert (tmp_path / "py" / "runs.csv").read_bytes() == cli_csv
    assert list(table["run"]) == list(range(6))
    assert table["run"].dtype == np.int64 and table["seed"].dtype == np.uint64
    header = cli_csv.decode().splitlines()[0].split(",")
    assert list(table) == header
    assert set(table["status"]) <= {"settled", "escaped", "completed", "failed", "invalid"}
    first = [float(c) for c in cli_csv.decode().splitlines()[1].split(",")[2:4]]
    assert [table[header[2]][0], table[header[3]][0]] == first


def test_campaign_to_pandas_and_the_run_alone(cli, tmp_path):
    pd = pytest.importorskip("pandas")
    frame = tumble.campaign(PHOBOS, runs=4, seed=3, out=tmp_path / "py")
    assert isinstance(frame, pd.DataFrame) and len(frame) == 4
    assert frame["run"].tolist() == [0, 1, 2, 3]
    # Run 2 alone, with its full time series, is the campaign's run 2.
    sim = tumble.campaign_run(PHOBOS, 2, seed=3)
    sim.run()
    row = frame[frame["run"] == 2].iloc[0]
    assert sim.status == row["status"]
    assert sim.status == "settled"  # every cube_phobos run settles
    assert sim.summary()["settle_time_s"] == row["settle_time [s]"]
    done = cli("mc", PHOBOS, "--runs", 4, "--seed", 3, "--run", 2, "--out", tmp_path / "cli", "--quiet")
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "cli" / "run_2" / "timeseries.csv").read_text().splitlines()
    assert len(lines) - 1 == len(sim.samples()["t"])
    assert float(lines[-1].split(",")[1]) == sim.samples()["x"][-1]


def test_a_resumed_campaign_keeps_its_rows(tmp_path):
    out = tmp_path / "c"
    tumble.campaign(PHOBOS, runs=3, seed=5, out=out, as_pandas=False)
    before = (out / "runs.csv").read_text()
    with pytest.raises(tumble.ScenarioError, match="resume"):
        tumble.campaign(PHOBOS, runs=5, seed=5, out=out, as_pandas=False)
    table = tumble.campaign(PHOBOS, runs=5, seed=5, out=out, resume=True, as_pandas=False)
    assert len(table["run"]) == 5
    assert (out / "runs.csv").read_text().startswith(before)


def box(a, b, c):
    v = np.array([[x, y, z] for x in (-a / 2, a / 2) for y in (-b / 2, b / 2) for z in (-c / 2, c / 2)])
    # Outward, counter-clockwise faces of the box (vertex index = 4i + 2j + k).
    f = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
         [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    return tumble.Mesh(v, np.array(f, dtype=np.int64))


def test_mesh_mass_properties_are_the_boxs():
    m = box(2.0, 1.0, 0.5)
    assert m.vertices.shape == (8, 3) and m.faces.shape == (12, 3)
    assert m.volume == pytest.approx(1.0, rel=1e-12)
    report = m.validate()
    assert report["boundary_edges"]["count"] == 0 and report["euler_characteristic"] == 2
    holed = tumble.Mesh(m.vertices, m.faces[:-1])
    assert holed.validate()["boundary_edges"]["count"] == 3
    mass, com, inertia = m.mass_properties(1000.0)
    assert mass == pytest.approx(1000.0, rel=1e-12)
    assert np.allclose(com, 0.0, atol=1e-12)
    want = mass / 12 * np.diag([1.0**2 + 0.5**2, 2.0**2 + 0.5**2, 2.0**2 + 1.0**2])
    assert np.allclose(inertia, want, rtol=1e-12, atol=1e-9)
    with pytest.raises(tumble.ScenarioError, match="density"):
        m.mass_properties(-1.0)
    with pytest.raises(tumble.ScenarioError, match="out of range"):
        tumble.Mesh(np.zeros((3, 3)), np.array([[0, 1, 5]]))


def test_polyhedron_gravity_far_field_and_gradient():
    m = box(2.0, 1.0, 0.5)
    density = 2000.0
    G = 6.674e-11
    gm = G * density * 1.0
    far = np.array([[300.0, 0.0, 0.0], [0.0, -250.0, 100.0]])
    acc, pot = tumble.polyhedron_gravity(m, density, far)
    assert acc.shape == (2, 3) and pot.shape == (2,)
    r = np.linalg.norm(far, axis=1)
    # Far away a body is a point mass (the quadrupole term is (size/r)² ≈ 1e-5 smaller).
    assert np.allclose(np.linalg.norm(acc, axis=1), gm / r**2, rtol=1e-3)
    assert np.allclose(pot, -gm / r, rtol=1e-4)
    # a = −∇U, by central differences near the surface.
    p, h = np.array([1.3, 0.4, 0.6]), 1e-4
    a, _ = tumble.polyhedron_gravity(m, density, p[None, :])
    grad = [(tumble.polyhedron_gravity(m, density, (p + h * e)[None, :])[1][0]
             - tumble.polyhedron_gravity(m, density, (p - h * e)[None, :])[1][0]) / (2 * h) for e in np.eye(3)]
    assert np.allclose(a[0], -np.array(grad), rtol=1e-5)
    with pytest.raises(tumble.ScenarioError, match="shape"):
        tumble.polyhedron_gravity(m, density, np.zeros((2, 2)))


def test_a_shape_model_reads_with_its_unit():
    path = pathlib.Path("../shared/data")
    models = sorted(path.glob("**/*itokawa*.obj")) + sorted(path.glob("**/*Itokawa*.obj"))
    if not models:
        pytest.skip("no Itokawa model beside the checkout")
    m = tumble.Mesh.read(models[0], unit="km")
    assert m.faces.shape[0] > 1000
    # Itokawa is about 535 m long.
    extent = m.vertices.max(axis=0) - m.vertices.min(axis=0)
    assert 450 < extent.max() < 600
    with pytest.raises(tumble.ScenarioError, match="unit"):
        tumble.Mesh.read(models[0], unit="furlong")


def test_lqr_of_the_double_integrator():
    a = np.array([[0.0, 1.0], [0.0, 0.0]])
    b = np.array([[0.0], [1.0]])
    k, s, eig = tumble.lqr(a, b, np.eye(2), np.eye(1))
    r3 = math.sqrt(3.0)
    assert np.allclose(k, [[1.0, r3]], rtol=1e-10)
    assert np.allclose(s, [[r3, 1.0], [1.0, r3]], rtol=1e-10)
    # Closed loop s² + √3 s + 1: a damping ratio of √3/2.
    assert all(re < 0 for re, _ in eig)
    with pytest.raises(tumble.ScenarioError, match="lqr"):
        tumble.lqr(a, b, np.eye(3), np.eye(1))


def test_grid_sdf_of_a_box(tmp_path):
    m = box(2.0, 1.0, 0.5)
    sdf = tumble.Sdf.from_mesh(m, 40, padding=1.0)
    points = np.array([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 0.75]])
    d, g = sdf.query(points)
    assert d.shape == (3,) and g.shape == (3, 3)
    # Exact near the surface (the mesh refines the grid): (2, 0, 0) is 1 m off the +x face,
    # (0, 0, 0.75) 0.5 m above the top. Deep inside the field is trilinear between samples 0.1 m
    # apart: the centre, 0.25 m inside, reads between −0.25 and −0.15 (the distance's ridge
    # there is cut by one spacing at most).
    assert d[1:] == pytest.approx([1.0, 0.5], abs=1e-9)
    assert -0.25 - 1e-12 <= d[0] <= -0.15
    assert np.allclose(g[1], [1.0, 0.0, 0.0], atol=1e-6) and np.allclose(g[2], [0.0, 0.0, 1.0], atol=1e-6)
    path = tmp_path / "box.sdf"
    sdf.save(path)
    again = tumble.Sdf.load(path)
    # The file keeps the samples; a loaded field has no mesh to refine with, so it is the grid's
    # trilinear value everywhere (within a spacing of the exact distance).
    assert np.allclose(again.query(points)[0], [-0.25, 1.0, 0.5], atol=0.1)
    with pytest.raises(tumble.ScenarioError):
        tumble.Sdf.load(tmp_path / "missing.sdf")


def test_contact_fit_recovers_a_power_law():
    delta = np.linspace(1e-4, 5e-3, 40)
    force = 2.0e5 * delta**1.5
    fit = tumble.fit_contact("power", delta, force)
    values = dict(zip(fit["names"], fit["values"]))
    assert values["k"] == pytest.approx(2.0e5, rel=1e-6) and values["p"] == pytest.approx(1.5, rel=1e-6)
    assert fit["r2"] == pytest.approx(1.0) and fit["n"] == 40
    with pytest.raises(tumble.ScenarioError, match="model"):
        tumble.fit_contact("linear", delta, force)
    with pytest.raises(tumble.ScenarioError, match="same length"):
        tumble.fit_contact("power", delta, force[:-1])


def test_tvlqr_converges_to_the_lqr_backward_in_time():
    a = np.array([[0.0, 1.0], [0.0, 0.0]])
    b = np.array([[0.0], [1.0]])
    times, gains, solutions = tumble.tvlqr(lambda t: (a, b), np.eye(2), np.eye(1), np.zeros((2, 2)), 0.0, 20.0, 2000)
    assert times[0] == pytest.approx(0.0, abs=1e-12) and times[-1] == 20.0 and len(gains) == len(times)
    # Far from the horizon S(t) is the algebraic Riccati solution; at the horizon, S_final.
    r3 = math.sqrt(3.0)
    assert np.allclose(solutions[0], [[r3, 1.0], [1.0, r3]], atol=1e-6)
    assert np.allclose(gains[0], [[1.0, r3]], atol=1e-6)
    assert np.allclose(solutions[-1], 0.0)

    def broken(t):
        raise RuntimeError("no model at t")

    with pytest.raises(RuntimeError, match="no model"):
        tumble.tvlqr(broken, np.eye(2), np.eye(1), np.zeros((2, 2)), 0.0, 1.0, 10)
    with pytest.raises(tumble.ScenarioError, match="A must be"):
        tumble.tvlqr(lambda t: (np.eye(3), b), np.eye(2), np.eye(1), np.zeros((2, 2)), 0.0, 1.0, 10)


def test_contact_laws_against_their_equations():
    delta = np.array([0.0, 1e-4, 1e-3, 4e-3])
    rate = np.array([0.0, 0.1, -0.05, -10.0])
    hertz = tumble.ContactLaw.hertz(1e7)
    assert np.allclose(hertz.force(delta), 1e7 * delta**1.5, rtol=1e-14)
    # Hunt–Crossley k δ^p (1 + α δ̇), clamped at zero: never pulls (the last, fast separation).
    hc = tumble.ContactLaw.hunt_crossley(1e7, 1.5, 0.3)
    want = np.maximum(1e7 * delta**1.5 * (1 + 0.3 * rate), 0.0)
    assert np.allclose(hc.force(delta, rate), want, rtol=1e-14) and hc.force(delta, rate)[3] == 0.0
    # The elastic energy is ∫ F_e dδ = k δ^(p+1)/(p+1).
    assert np.allclose(hertz.energy(delta), 1e7 * delta**2.5 / 2.5, rtol=1e-12)
    table = tumble.ContactLaw.table([0.0, 1e-3, 2e-3], [0.0, 10.0, 30.0])
    assert np.allclose(table.force(np.array([5e-4, 1.5e-3])), [5.0, 20.0])
    assert tumble.ContactLaw.snare_wire(90).force(np.array([0.0]))[0] == 0.0
    with pytest.raises(tumble.ScenarioError, match="Table 4"):
        tumble.ContactLaw.snare_wire(50)
    with pytest.raises(tumble.ScenarioError, match="contact law"):
        tumble.ContactLaw.spring_dashpot(-1.0, 0.0)
