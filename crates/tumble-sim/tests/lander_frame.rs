//! The target turns about its centre of mass: a shape moved by any constant vector, with the
//! lander's start moved by the same vector, gives the same run moved by it (docs/lander.md,
//! "Frames"). Shapes: ellipsoids drawn at random orientations and offsets, the procedural comet,
//! and the real Itokawa model (skipped without `../shared/data`).

mod common;
use common::tmp;
use std::path::Path;
use std::sync::Arc;
use tumble_dynamics::{FieldSample, Gravity};
use tumble_geometry::TriMesh;
use tumble_geometry::mesh::{LengthUnit, read_mesh, write_obj};
use tumble_geometry::sdf::{Sdf, radial_extent};
use tumble_math::{Lcg, UnitQuat, Vec3};
use tumble_sim::Scenario;
use tumble_sim::lander::{LanderModel, LanderRun, build_target, simulate};

/// A 10 kg, 0.3 m box lander dropped onto a mesh target with polyhedron gravity, spinning at
/// `spin_rate` about its axis of major inertia; `{path}`, `{unit}`, `{density}`, `{rate}` and
/// `{position}` filled in.
const DROP: &str = r#"
name = "frame"
kind = "lander"
seed = 1
[simulation]
duration = 40000.0
dt = 0.004
output_interval = 5.0
flight_steps = 100
[gravity]
type = "polyhedron"
mesh = "target"
density = {density}
[target]
shape = { type = "mesh", path = "{path}", unit = "{unit}", resolution = 64 }
spin_rate = {rate}
[lander]
mass = 10.0
shape = { type = "box", size = [0.3, 0.3, 0.3] }
vertices = { type = "box", size = [0.3, 0.3, 0.3] }
position = {position}
velocity = [0.01, -0.005, 0.0]
angular_velocity = [0.02, -0.01, 0.03]
[lander.contact]
stiffness = 2000.0
damping = 20.0
mu = 0.5
mu_static = 0.6
rolling = 0.01
v_star = 0.02
w_star = 0.02
[lander.settle]
speed = 2e-4
rate = 2e-3
dwell = 20.0
"#;

fn scenario(dir: &Path, mesh: &TriMesh, unit: f64, density: f64, rate: f64, position: Vec3) -> Scenario {
    let path = dir.join("shape.obj");
    write_obj(&path, mesh, LengthUnit::Scale(unit)).expect("write mesh");
    let text = DROP
        .replace("{path}", "shape.obj")
        .replace("{unit}", &format!("{unit:?}"))
        .replace("{density}", &format!("{density:?}"))
        .replace("{rate}", &format!("{rate:?}"))
        .replace("{position}", &format!("[{:?}, {:?}, {:?}]", position.x, position.y, position.z));
    let file = dir.join("drop.toml");
    std::fs::write(&file, text).expect("write scenario");
    Scenario::load(&file, &[]).expect("scenario")
}

/// A start `height` m above the surface over the target's north pole, in the shape's
/// coordinates.
fn over_the_pole(sc: &Scenario, height: f64) -> Vec3 {
    let target = build_target(sc).expect("target");
    let sites = LanderModel::build_with(sc, &target).expect("model").sites.expect("a body");
    let pole = sites.direction(std::f64::consts::FRAC_PI_2, 0.0);
    let size = target.size.expect("a body");
    let r = radial_extent(target.surface.as_ref(), &sites.centre, &pole, 2.0 * size, 1e-6 * size).expect("a surface");
    sites.centre + (r + height) * pole
}

/// Runs the scenario and its copy moved by `d`, and checks the second is the first moved.
fn assert_moved(name: &str, a: &Scenario, b: &Scenario, d: Vec3) {
    let run = |sc: &Scenario| -> (LanderModel, LanderRun) {
        let mut m = LanderModel::build(sc).expect("model");
        let r = simulate(&mut m.system, m.initial_state, &m.settings, &mut |_| {});
        (m, r)
    };
    let ((ma, ra), (mb, rb)) = (run(a), run(b));
    let (ca, cb) = (ma.sites.expect("body").centre, mb.sites.expect("body").centre);
    // The centre of mass moves with the shape (to rounding of the file's coordinates).
    assert!((cb - ca - d).norm() < 1e-9 * d.norm().max(1.0), "{name}: centre {ca} → {cb}");
    compare(name, &ra, &rb, d);
}

/// Checks that run `b` is run `a` moved by `d`: the flight to 1e-6 m, the first touchdown, the
/// outcome.
fn compare(name: &str, ra: &LanderRun, rb: &LanderRun, d: Vec3) {
    assert!(ra.bounces() > 0, "{name}: the lander lands ({:?})", ra.outcome);
    let landing = ra.contacts.first().map_or(f64::INFINITY, |c| c.time);
    let mut flight = 0.0_f64;
    for (ya, yb) in ra.rows.iter().zip(&rb.rows).take_while(|(ya, _)| ya[0] < landing) {
        assert_eq!(ya[0], yb[0], "{name}: sample times");
        flight = flight.max((Vec3::new(yb[1] - ya[1], yb[2] - ya[2], yb[3] - ya[3]) - d).norm());
    }
    // The two runs differ only by rounding: coordinates near |d| carry ~1e-16 |d| (1e-13 m),
    // which a ballistic flight of hundreds of seconds amplifies by well under 1e6.
    assert!(flight < 1e-6, "{name}: the flights differ by {flight:e} m beyond the shift");
    assert_eq!(ra.outcome.name(), rb.outcome.name(), "{name}: outcome");
    // The first touchdown: same time, same place moved.
    let (ta, tb) = (&ra.contacts[0], &rb.contacts[0]);
    assert_eq!(ta.time, tb.time, "{name}: touchdown time");
    let site = (tb.position - ta.position - d).norm();
    assert!(site < 1e-6, "{name}: touchdowns differ by {site:e} m beyond the shift");
    // Then contact is chaotic: a tumbling box's attitude at its next impact depends sensitively
    // on the last one, so runs that touch down 1e-12 m apart chatter differently and come to
    // rest apart (as two runs of one shape started 1e-12 m apart do); the outcome is the same.
    let (fa, fb) = (&ra.final_state, &rb.final_state);
    let end = (Vec3::new(fb[0] - fa[0], fb[1] - fa[1], fb[2] - fa[2]) - d).norm();
    eprintln!(
        "{name}: {} at {:.0} s after {} and {} contacts; flight {flight:.1e} m, end {end:.1e} m",
        ra.outcome.name(),
        ra.final_time,
        ra.bounces(),
        rb.bounces()
    );
}

#[test]
fn a_moved_ellipsoid_gives_the_moved_run() {
    let mut rng = Lcg::new(2026);
    for case in 0..2 {
        // An ellipsoid at a random attitude and offset: its centre of mass is off the file's
        // origin and its axis of major inertia off the file's z.
        let q = UnitQuat::from_scaled_axis(Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()));
        let offset = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()) * 300.0;
        let base = TriMesh::ellipsoid([300.0, 200.0, 150.0], 3);
        let shape = TriMesh { vertices: base.vertices.iter().map(|v| q * v + offset).collect(), faces: base.faces };
        let d = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()) * 2000.0;
        let dir = tmp(&format!("frame_ellipsoid_{case}"));
        let probe = scenario(&dir, &shape, 1.0, 2000.0, 1.5e-4, Vec3::new(0.0, 0.0, 1e4));
        let start = over_the_pole(&probe, 20.0);
        let a = scenario(&dir, &shape, 1.0, 2000.0, 1.5e-4, start);
        let dir_b = tmp(&format!("frame_ellipsoid_{case}_moved"));
        let b = scenario(&dir_b, &shape.translated(&d), 1.0, 2000.0, 1.5e-4, start + d);
        assert_moved(&format!("ellipsoid {case}"), &a, &b, d);
    }
}

#[test]
fn a_moved_real_shape_gives_the_moved_run() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/shapes/itokawa_sbgat_q32.obj");
    if !path.exists() {
        eprintln!("skipped: {} not found", path.display());
        return;
    }
    let mesh = read_mesh(&path, LengthUnit::Km).expect("Itokawa");
    // Itokawa: 1.9 g/cm³, a 12.132 h spin.
    let rate = std::f64::consts::TAU / (12.132 * 3600.0);
    let d = Vec3::new(-812.25, 1377.5, -433.125);
    let dir = tmp("frame_itokawa");
    let probe = scenario(&dir, &mesh, 1.0, 1900.0, rate, Vec3::new(0.0, 0.0, 1e4));
    let start = over_the_pole(&probe, 20.0);
    let a = scenario(&dir, &mesh, 1.0, 1900.0, rate, start);
    let dir_b = tmp("frame_itokawa_moved");
    let b = scenario(&dir_b, &mesh.translated(&d), 1.0, 1900.0, rate, start + d);
    assert_moved("Itokawa", &a, &b, d);
}

/// A field fixed to the target, moved by `d`.
struct Moved<T: ?Sized> {
    inner: Arc<T>,
    d: Vec3,
}

impl Sdf for Moved<dyn Sdf> {
    fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        self.inner.eval(&(p - self.d))
    }
}

impl Gravity for Moved<dyn Gravity> {
    fn acceleration(&self, p: &Vec3) -> Vec3 {
        self.inner.acceleration(&(p - self.d))
    }
    fn potential(&self, p: &Vec3) -> f64 {
        self.inner.potential(&(p - self.d))
    }
    fn field(&self, p: &Vec3) -> FieldSample {
        self.inner.field(&(p - self.d))
    }
}

#[test]
fn the_procedural_comet_moved_gives_the_moved_run() {
    // The bundled hopper's comet (its centre of mass is 284 m from the body's origin), no
    // terrain, a short drop; the moved copy is the same fields read at p − d.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/lander/hopper_comet.toml");
    let sc = Scenario::load(
        &path,
        &[
            ("target.shape.terrain".into(), "false".into()),
            ("simulation.duration".into(), "40000.0".into()),
            ("lander.hops".into(), "[]".into()),
        ],
    )
    .expect("scenario");
    let mut a = LanderModel::build(&sc).expect("model");
    let c = a.sites.expect("body").centre;
    assert!(c.norm() > 100.0, "the comet's centre of mass {c} is off its origin");
    let d = Vec3::new(1500.0, -2500.0, 700.0);
    let mut b = LanderModel::build(&sc).expect("model");
    b.system.surface = Arc::new(Moved { inner: a.system.surface.clone(), d });
    b.system.gravity = Arc::new(Moved { inner: a.system.gravity.clone(), d });
    b.system.centre += d;
    for k in 0..3 {
        b.initial_state[k] += d[k];
    }
    let ra = simulate(&mut a.system, a.initial_state, &a.settings, &mut |_| {});
    let rb = simulate(&mut b.system, b.initial_state, &b.settings, &mut |_| {});
    compare("comet", &ra, &rb, d);
}

/// A uniform spin off the axis of major inertia is refused with its key; `spin_rate` spins about
/// that axis; a torque-free target takes the shape's inertia tensor; a saved grid's centre of
/// mass comes from its own surface.
#[test]
fn the_spin_must_be_one_a_free_body_can_have() {
    // An ellipsoid turned 20° about x: its major axis (the 150 m one) leaves the file's z by 20°.
    let q = UnitQuat::from_axis_angle(&Vec3::x_axis(), 20f64.to_radians());
    let base = TriMesh::ellipsoid([300.0, 200.0, 150.0], 3);
    let offset = Vec3::new(40.0, -30.0, 20.0);
    let shape = TriMesh { vertices: base.vertices.iter().map(|v| q * v + offset).collect(), faces: base.faces };
    let dir = tmp("frame_spin");
    let sc = scenario(&dir, &shape, 1.0, 2000.0, 1.5e-4, Vec3::new(0.0, 0.0, 1e3));
    let text = std::fs::read_to_string(dir.join("drop.toml")).expect("text");
    let load = |from: &str, to: &str| {
        std::fs::write(dir.join("spin.toml"), text.replace(from, to)).expect("write");
        Scenario::load(&dir.join("spin.toml"), &[]).expect("scenario")
    };
    let about_z = load("spin_rate = 0.00015", "angular_velocity = [0.0, 0.0, 1.5e-4]");
    let e = LanderModel::build(&about_z).err().expect("refused");
    assert!(e.to_string().contains("target.angular_velocity") && e.to_string().contains("20.00° off"), "{e}");
    let both = load("spin_rate = 0.00015", "spin_rate = 1.5e-4\nangular_velocity = [0.0, 0.0, 1.5e-4]");
    assert!(LanderModel::build(&both).err().expect("refused").to_string().contains("target.spin_rate"));
    // `spin_rate`: about the major axis through the centre of mass.
    let m = LanderModel::build(&sc).expect("model");
    let omega = Vec3::new(m.initial_state[17], m.initial_state[18], m.initial_state[19]);
    assert!((omega - 1.5e-4 * (q * Vec3::z())).norm() < 1e-6 * 1.5e-4, "Ω = {omega}");
    let c = m.sites.expect("body").centre;
    assert!((c - offset).norm() < 1e-9 * 300.0, "centre {c}");
    // Torque-free without moments: the shape's tensor, so Ω along the major axis stays put.
    let tumbling = load("spin_rate = 0.00015", "spin = \"torque_free\"\nspin_rate = 1.5e-4");
    let m = LanderModel::build(&tumbling).expect("model");
    let omega_dot = m.system.spin.omega_dot(&omega);
    assert!(omega_dot.norm() < 1e-9 * omega.norm().powi(2), "Ω̇ = {omega_dot}");
    // An explicit centre of mass wins and skips the axis check (the mass distribution is the
    // user's).
    let stated = load("spin_rate = 0.00015", "angular_velocity = [0.0, 0.0, 1.5e-4]\ncentre_of_mass = [1.0, 2.0, 3.0]");
    let m = LanderModel::build(&stated).expect("model");
    assert_eq!(m.system.centre, Vec3::new(1.0, 2.0, 3.0));
    // A saved grid of the same shape: its centre of mass from the surface marched from its
    // samples, within a fraction of its 10 m cells.
    let grid = tumble_geometry::sdf::GridSdf::from_mesh(&shape, 64, 30.0).expect("grid");
    grid.save(&dir.join("shape.sdf")).expect("save");
    let saved = text
        .replace(
            r#"shape = { type = "mesh", path = "shape.obj", unit = "1.0", resolution = 64 }"#,
            r#"shape = { type = "sdf", path = "shape.sdf" }"#,
        )
        .replace(
            "type = \"polyhedron\"\nmesh = \"target\"\ndensity = 2000.0",
            "type = \"point_mass\"\nmu = 5.0\ncenter = [40.0, -30.0, 20.0]",
        );
    assert!(saved.contains("type = \"sdf\"") && saved.contains("point_mass"), "{saved}");
    std::fs::write(dir.join("saved.toml"), &saved).expect("write");
    let m = LanderModel::build(&Scenario::load(&dir.join("saved.toml"), &[]).expect("scenario")).expect("model");
    let c = m.sites.expect("body").centre;
    // The marched surface departs from the true one by a small fraction of a 10 m cell, nearly
    // symmetrically: 5 cm bounds the shift of its centroid (measured: 2 mm).
    assert!((c - offset).norm() < 0.05, "centre from the grid {c}");
}
