//! `[target.terrain]` on every kind of target (docs/lander.md, "Terrain and boulders"): fBm
//! heights, a noise or latitude–longitude mask between two terrain types, boulder fields; the
//! keys' errors; a cube landing among boulders.

mod common;
use common::tmp;
use std::path::Path;
use tumble_geometry::TriMesh;
use tumble_geometry::mesh::{LengthUnit, write_obj};
use tumble_geometry::sdf::{BoulderField, GridSdf, Sdf, Sphere, Terrain};
use tumble_math::{Lcg, Vec3};
use tumble_sim::Scenario;
use tumble_sim::lander::{LanderModel, LanderOutcome, Target, build_target, simulate};

/// A 10 kg, 0.3 m cube lander; `{gravity}`, `{shape}`, `{terrain}` and `{position}` filled in.
const CASE: &str = r#"
name = "terrain"
kind = "lander"
seed = 1
[simulation]
duration = 3000.0
dt = 0.002
output_interval = 1.0
flight_steps = 50
[gravity]
{gravity}
[target]
shape = {shape}
[target.terrain]
seed = 4
{terrain}
[lander]
mass = 10.0
shape = { type = "box", size = [0.3, 0.3, 0.3] }
vertices = { type = "box", size = [0.3, 0.3, 0.3] }
position = {position}
[lander.contact]
stiffness = 2000.0
damping = 20.0
mu = 0.5
mu_static = 0.6
rolling = 0.01
v_star = 0.01
w_star = 0.01
[lander.settle]
speed = 1e-4
rate = 1e-3
dwell = 10.0
"#;

const PLANE: (&str, &str) = ("type = \"uniform\"\ng = [0.0, 0.0, -5.7e-3]", "{ type = \"plane\" }");

/// Two terrain types under a noise mask, and boulders within 30 m of the origin.
const ROCKY_PLAIN: &str = r#"
sandy = { amplitude = 0.02, wavelength = 4.0, octaves = 4 }
rocky = { amplitude = 0.08, wavelength = 2.0, octaves = 6 }
mask = { type = "noise", wavelength = 40.0 }
boulders = { alpha = 3.1, d_min = 0.3, d_max = 3.0, density = 0.05, center = [0.0, 0.0, 0.0], radius = 30.0 }
"#;

fn scenario(dir: &Path, (gravity, shape): (&str, &str), terrain: &str, position: &str) -> Result<Scenario, String> {
    let text = CASE
        .replace("{gravity}", gravity)
        .replace("{shape}", shape)
        .replace("{terrain}", terrain)
        .replace("{position}", position);
    let file = dir.join("case.toml");
    std::fs::write(&file, text).expect("write scenario");
    Scenario::load(&file, &[]).map_err(|e| e.to_string())
}

fn target(dir: &Path, case: (&str, &str), terrain: &str) -> Result<Target, String> {
    build_target(&scenario(dir, case, terrain, "[0.0, 0.0, 50.0]")?).map_err(|e| e.to_string())
}

fn boulders(t: &Target) -> &BoulderField {
    boulders_of(t.surface.as_ref())
}

fn boulders_of(s: &dyn Sdf) -> &BoulderField {
    (s as &dyn std::any::Any).downcast_ref::<BoulderField>().expect("a boulder field")
}

#[test]
fn every_kind_of_target_takes_terrain_and_boulders() {
    let dir = tmp("terrain_kinds");
    // A 200 m sphere as a mesh, and as a saved field.
    write_obj(&dir.join("ball.obj"), &TriMesh::ellipsoid([200.0; 3], 4), LengthUnit::M).expect("mesh");
    let grid = GridSdf::covering(Vec3::repeat(-240.0), Vec3::repeat(240.0), 8.0, |p| {
        Sphere { center: Vec3::zeros(), radius: 200.0 }.distance(p)
    })
    .expect("grid");
    grid.save(&dir.join("ball.sdf")).expect("save");
    let point_mass = "type = \"point_mass\"\nmu = 2.2";
    let cases = [
        ("plane", PLANE),
        (
            "body",
            (
                "type = \"uniform\"\ng = [0.0, 0.0, -1e-4]",
                "{ type = \"body\", kind = \"pear\", length = 400.0, cells = 32 }",
            ),
        ),
        ("mesh", (point_mass, "{ type = \"mesh\", path = \"ball.obj\", unit = \"m\", resolution = 48 }")),
        ("sdf", (point_mass, "{ type = \"sdf\", path = \"ball.sdf\" }")),
    ];
    // Boulders within 30 m of a point on each surface (the pear's top is at z ≈ 0.25 L).
    let centres = [Vec3::zeros(), Vec3::new(0.0, 0.0, 100.0), Vec3::new(0.0, 0.0, 200.0), Vec3::new(0.0, 0.0, 200.0)];
    for ((name, case), centre) in cases.into_iter().zip(centres) {
        let terrain = ROCKY_PLAIN.replace("center = [0.0, 0.0, 0.0]", &format!("center = [0.0, 0.0, {:?}]", centre.z));
        let t = target(&dir, case, &terrain).unwrap_or_else(|e| panic!("{name}: {e}"));
        let field = boulders(&t);
        // 0.05 per m² over a 30 m disc (2,827 m²; a little more on the sphere's cap): some
        // hundreds, every one inside the disc.
        let n = field.boulders().len();
        assert!((100..300).contains(&n), "{name}: {n} boulders");
        for b in field.boulders() {
            assert!((b.centre - centre).norm() < 30.0 + b.semi_axes.x, "{name}: {b:?}");
            // Each boulder's centre lies inside the surface; its top, above the ground.
            assert!(t.surface.distance(&b.centre) < 0.0, "{name}");
        }
        let terrain = (field.ground.as_ref() as &dyn std::any::Any).downcast_ref::<Terrain>().expect("terrain");
        // The ground under the boulders is the base moved by at most the heights' bound.
        let bound = terrain.height_bound();
        let mut rng = Lcg::new(3);
        for _ in 0..200 {
            let u = Vec3::new(rng.normal(), rng.normal(), rng.normal()).normalize();
            let p = match name {
                "plane" => Vec3::new(u.x * 500.0 + 100.0, u.y * 500.0, 0.0),
                "body" => Vec3::new(0.0, 0.0, -100.0) - u.abs() * 10.0,
                _ => -u.abs() * 200.0,
            };
            let (h, base) = (terrain.distance(&p), terrain.base.distance(&p));
            assert!((h - base).abs() <= bound, "{name}: {h} vs {base} (bound {bound})");
        }
    }
}

#[test]
fn a_grid_mask_puts_the_rocky_ground_where_it_says() {
    let dir = tmp("terrain_grid_mask");
    // An ellipsoid whose axis of major inertia (its shortest) is z: the pole of latitudes.
    write_obj(&dir.join("ball.obj"), &TriMesh::ellipsoid([220.0, 200.0, 180.0], 4), LengthUnit::M).expect("mesh");
    // Rocky north of 45°, sandy south of −45° (rows every 45° from the south pole).
    let terrain = r#"
sandy = { amplitude = 0.01, wavelength = 8.0, octaves = 3 }
rocky = { amplitude = 1.0, wavelength = 8.0, octaves = 3 }
mask = { type = "grid", values = [[0.0, 0.0], [0.0, 0.0], [0.5, 0.5], [1.0, 1.0], [1.0, 1.0]] }
"#;
    let case =
        ("type = \"point_mass\"\nmu = 2.2", "{ type = \"mesh\", path = \"ball.obj\", unit = \"m\", resolution = 48 }");
    let t = target(&dir, case, terrain).expect("target");
    let terrain = (t.surface.as_ref() as &dyn std::any::Any).downcast_ref::<Terrain>().expect("terrain");
    let (mut north, mut south) = (0.0_f64, 0.0_f64);
    let mut rng = Lcg::new(8);
    for _ in 0..400 {
        let u = Vec3::new(rng.normal(), rng.normal(), rng.normal()).normalize();
        let p = u * 200.0;
        let h = (t.surface.distance(&p) - terrain.base.distance(&p)).abs();
        // Latitude about the centre of mass (the origin) and the pole z.
        let lat = u.z.asin().to_degrees();
        if lat > 50.0 {
            north = north.max(h);
        } else if lat < -50.0 {
            south = south.max(h);
        }
    }
    // Sandy heights are bounded by 1.1 · 0.01 · 1.75 = 0.019 m; the rocky ground reaches a
    // good part of its 1.9 m bound.
    assert!(south < 0.02 && north > 0.3, "south {south} m, north {north} m");
}

#[test]
fn a_cube_lands_and_settles_among_boulders() {
    let dir = tmp("terrain_landing");
    let sc = scenario(&dir, PLANE, ROCKY_PLAIN, "[2.0, 1.0, 6.0]").expect("scenario");
    let mut m = LanderModel::build(&sc).expect("model");
    let run = simulate(&mut m.system, m.initial_state, &m.settings, &mut |_| {});
    assert!(matches!(run.outcome, LanderOutcome::Settled(_)), "{:?}", run.outcome);
    // Settled on the ground it found, at rest, with the energy budget closed.
    let y = run.final_state;
    let p = Vec3::new(y[0], y[1], y[2]);
    let lowest = m.system.vertices.iter().map(|r| m.system.surface.distance(&(p + r))).fold(f64::INFINITY, f64::min);
    assert!(lowest < 0.0 && lowest > -0.05, "lowest vertex at {lowest} m");
    // The first touchdown is on a boulder: its site stands above the ground beneath it.
    let field = boulders_of(m.system.surface.as_ref());
    let first = run.contacts[0].position;
    let above_ground = field.ground.distance(&first);
    eprintln!("first touchdown at {:?}: {above_ground:.3} m above the ground", first.as_slice());
    // (the fBm ground itself is the zero of `ground`; 5 cm is above any rounding of a contact
    // point that sinks a few millimetres.)
    assert!(above_ground > 0.05, "touched down {above_ground} m above the ground");
    // The energy budget closes: the drop's 10 kg · 5.7e-3 m/s² · 6 m = 0.34 J is dissipated
    // with a balance error of 1.7e-5 J (5e-5 of it, measured); 1e-3 of it would be a leak.
    let drop = 10.0 * 5.7e-3 * 6.0;
    eprintln!(
        "settled at {:?} after {} contacts, {:.0} s, balance error {:.2e} J",
        p.as_slice(),
        run.bounces(),
        run.final_time,
        run.max_balance_error
    );
    assert!(run.max_balance_error < 1e-3 * drop, "{:e} J", run.max_balance_error);
}

/// A field whose density gives no boulder over its ground warns by name instead of leaving
/// the user with bare ground; the bundled density gives none.
#[test]
fn an_empty_boulder_field_is_warned_about() {
    let dir = tmp("terrain_empty_field");
    let sparse = ROCKY_PLAIN.replace("density = 0.05", "density = 1e-9");
    let m = LanderModel::build(&scenario(&dir, PLANE, &sparse, "[0.0, 0.0, 6.0]").expect("scenario")).expect("model");
    assert!(boulders_of(m.system.surface.as_ref()).boulders().is_empty());
    assert!(m.warnings.iter().any(|w| w.starts_with("target.terrain.boulders: no boulder")), "{:?}", m.warnings);
    let m =
        LanderModel::build(&scenario(&dir, PLANE, ROCKY_PLAIN, "[0.0, 0.0, 6.0]").expect("scenario")).expect("model");
    assert!(!m.warnings.iter().any(|w| w.starts_with("target.terrain.boulders")), "{:?}", m.warnings);
}

#[test]
fn terrain_keys_are_checked_by_name() {
    let dir = tmp("terrain_errors");
    let cases: &[(&str, &str)] = &[
        ("rocky = { amplitude = 0.1, wavelength = 2.0 }", "target.terrain.sandy"),
        (
            "sandy = { amplitude = 0.1, wavelength = 2.0 }\nrocky = { amplitude = 0.1, wavelength = 1.0 }",
            "target.terrain.mask",
        ),
        ("sandy = { amplitude = -0.1, wavelength = 2.0 }", "target.terrain.sandy.amplitude"),
        ("sandy = { amplitude = 0.1, wavelength = 0.0 }", "target.terrain.sandy.wavelength"),
        ("sandy = { amplitude = 0.1, wavelength = 2.0, octaves = 40 }", "target.terrain.sandy.octaves"),
        ("sandy = { amplitude = 0.1, wavelength = 2.0, lacunarity = 1.0 }", "target.terrain.sandy.lacunarity"),
        ("sandy = { amplitude = 0.1, wavelength = 2.0, gain = 1.5 }", "target.terrain.sandy.gain"),
        (
            "sandy = { amplitude = 0.1, wavelength = 2.0 }\nrocky = { amplitude = 0.1, wavelength = 1.0 }\nmask = { type = \"grid\", values = [[0.0], [1.0]] }",
            "target.terrain.mask",
        ),
        ("boulders = { alpha = 3.0, d_min = 0.5, d_max = 2.0, density = 0.1 }", "target.terrain.boulders.center"),
        (
            "boulders = { alpha = 3.0, d_min = 0.5, d_max = 0.4, density = 0.1, center = [0.0, 0.0, 0.0], radius = 5.0 }",
            "target.terrain.boulders.d_max",
        ),
        (
            "boulders = { alpha = 3.0, d_min = 0.5, d_max = 2.0, density = 1e3, center = [0.0, 0.0, 0.0], radius = 1e3 }",
            "target.terrain.boulders.density",
        ),
        (
            "boulders = { alpha = 3.0, d_min = 0.5, d_max = 2.0, density = 0.1, center = [0.0, 0.0, 0.0], radius = 5.0, burial = 1.0 }",
            "target.terrain.boulders.burial",
        ),
        (
            "boulders = { alpha = 3.0, d_min = 0.5, d_max = 2.0, density = 0.1, center = [0.0, 0.0, 0.0], radius = 5.0, on = \"rocky\" }",
            "target.terrain.boulders.on",
        ),
    ];
    for (terrain, key) in cases {
        let e = target(&dir, PLANE, terrain).err().unwrap_or_else(|| panic!("accepted: {terrain}"));
        assert!(e.contains(key), "{terrain}: {e}");
    }
}

#[test]
fn terrain_and_boulders_move_with_a_translated_shape() {
    // Stated terrain is measured from the centre of mass, boulders drawn on the shape's own
    // triangles: a shape moved by d carries its relief with it (docs/lander.md, "Frames").
    let shape = TriMesh::ellipsoid([220.0, 200.0, 180.0], 4);
    let d = Vec3::new(-812.25, 1377.5, -433.125);
    let case =
        ("type = \"point_mass\"\nmu = 2.2", "{ type = \"mesh\", path = \"shape.obj\", unit = \"m\", resolution = 48 }");
    let terrain = ROCKY_PLAIN.replace("center = [0.0, 0.0, 0.0]", "center = [0.0, 0.0, 180.0]");
    let build = |name: &str, mesh: &TriMesh, centre: Vec3| {
        let dir = tmp(name);
        write_obj(&dir.join("shape.obj"), mesh, LengthUnit::M).expect("mesh");
        let t = terrain.replace(
            "center = [0.0, 0.0, 180.0]",
            &format!("center = [{:?}, {:?}, {:?}]", centre.x, centre.y, centre.z),
        );
        target(&dir, case, &t).expect("target")
    };
    let a = build("terrain_moved_a", &shape, Vec3::new(0.0, 0.0, 180.0));
    let b = build("terrain_moved_b", &shape.translated(&d), Vec3::new(0.0, 0.0, 180.0) + d);
    assert_eq!(boulders(&a).boulders().len(), boulders(&b).boulders().len());
    let mut rng = Lcg::new(5);
    let mut worst = 0.0_f64;
    for _ in 0..500 {
        // Points near the top of the shape, among the boulders.
        let p = Vec3::new(30.0 * rng.symmetric(), 30.0 * rng.symmetric(), 176.0 + 6.0 * rng.unit());
        worst = worst.max((a.surface.distance(&p) - b.surface.distance(&(p + d))).abs());
    }
    // Coordinates near |d| = 1.7 km carry rounding of 2e-13 m; the Newton projections of the
    // boulders and the noise's gradients (≲ 1) keep it far below a micrometre.
    assert!(worst < 1e-6, "the moved surface differs by {worst:e} m");
}
