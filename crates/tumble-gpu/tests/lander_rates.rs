//! The lander's right-hand side on the device against tumble-sim's `LanderSystem` on the CPU,
//! state by state: a cube on a plane under uniform gravity in a uniformly rotating frame, and on
//! a sampled sphere grid under point-mass gravity in a torque-free tumbling frame, and that grid
//! with fBm terrain; vertices in and out of contact, sticking and slipping, rolling resistance on.

use std::sync::Arc;
use tumble_contact::VertexContactParams;
use tumble_dynamics::rotating::TargetSpin;
use tumble_dynamics::{PointMass, Uniform};
use tumble_geometry::noise::Fbm;
use tumble_geometry::sdf::{GridSdf, HalfSpace, Sdf};
use tumble_gpu::lander::rates;
use tumble_math::{Lcg, Mat3, UnitQuat, Vec3};
use tumble_sim::lander::{LanderSystem, STATE_LEN, pack};

mod common;
use common::gpu;

fn params() -> VertexContactParams {
    VertexContactParams {
        stiffness: 2e4,
        damping: 40.0,
        mu: 0.5,
        mu_static: 0.6,
        rolling: 0.01,
        v_star: 1e-3,
        w_star: 1e-3,
        stable_dt: 1e-3,
    }
}

/// A 2 kg box 0.3 × 0.2 × 0.1 m with its 8 corners as contact vertices.
fn spacecraft() -> (f64, Mat3, Vec<Vec3>) {
    let (m, a, b, c) = (2.0, 0.3, 0.2, 0.1);
    let i = Mat3::from_diagonal(&Vec3::new(b * b + c * c, a * a + c * c, a * a + b * b)) * (m / 12.0);
    let v = (0..8)
        .map(|k| {
            let s = |bit: usize, h: f64| if k & bit == 0 { 0.5 * h } else { -0.5 * h };
            Vec3::new(s(1, a), s(2, b), s(4, c))
        })
        .collect();
    (m, i, v)
}

/// The box of [`spacecraft`] with [`params`] on `surface` under `gravity`, the target
/// uniformly turning about T's origin, without the actuator or the Sun.
fn box_system(surface: Arc<dyn Sdf>, gravity: Arc<dyn tumble_dynamics::Gravity>) -> LanderSystem {
    let (mass, inertia, vertices) = spacecraft();
    LanderSystem::builder()
        .mass(mass)
        .inertia(inertia)
        .vertices(vertices)
        .contact(params())
        .surface(surface)
        .gravity(gravity)
        .build()
        .expect("a valid box")
}

/// Random states with the centre of mass `0.05 ± 0.01` m above the surface point under
/// `foot(u)`, random attitude (some corners in, some out), speeds from 0 (sticking) to 0.2 m/s.
/// Two states in three hold their quaternions off the unit sphere by ∓1e-6, as RK4's stages
/// do (both backends take the attitude of q/|q|).
fn states(rng: &mut Lcg, n: usize, foot: &dyn Fn(Vec3) -> (Vec3, Vec3), omega: f64) -> Vec<[f64; STATE_LEN]> {
    (0..n)
        .map(|k| {
            let dir = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric());
            let (p, nrm) = foot(dir);
            let x = p + nrm * (0.05 + 0.01 * rng.symmetric());
            let q = UnitQuat::from_scaled_axis(Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()) * 0.6);
            let speed = if k % 4 == 0 { 0.0 } else { 0.2 * rng.unit() };
            let v = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()) * speed;
            let w = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()) * speed;
            let big_q = UnitQuat::from_scaled_axis(Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()));
            let o = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()) * omega;
            let mut y = pack(x, v, q, w, big_q, o);
            for i in (6..10).chain(13..17) {
                y[i] *= 1.0 + 1e-6 * ((k % 3) as f64 - 1.0);
            }
            y
        })
        .collect()
}

/// Largest difference per state component, relative to that component's largest magnitude over
/// the batch; and how many states had a vertex in contact.
fn compare(cpu: &mut LanderSystem, gpu_rates: &[[f64; STATE_LEN]], ys: &[[f64; STATE_LEN]]) -> (f64, usize, usize) {
    let want: Vec<[f64; STATE_LEN]> = ys.iter().map(|y| cpu.snapshot(y).rates).collect();
    let touching = ys.iter().filter(|y| cpu.snapshot(&y[..]).normal.active > 0).count();
    let (mut worst, mut at) = (0.0f64, 0);
    for c in 0..STATE_LEN {
        let scale = want.iter().map(|r| r[c].abs()).fold(0.0, f64::max).max(1e-300);
        for (w, g) in want.iter().zip(gpu_rates) {
            let e = (w[c] - g[c]).abs() / scale;
            if e > worst {
                (worst, at) = (e, c);
            }
        }
    }
    (worst, at, touching)
}

#[test]
fn the_rates_on_the_device_are_the_cpu_rates() {
    let Some(gpu) = gpu() else { return };
    let mut rng = Lcg::new(42);

    // A plane tilted 10° about x, uniform gravity, uniform spin.
    let normal = Vec3::new(0.0, -(10f64.to_radians()).sin(), (10f64.to_radians()).cos());
    let g = Vec3::new(0.0, 0.0, -0.3);
    let mut cpu = box_system(Arc::new(HalfSpace { point: Vec3::zeros(), normal }), Arc::new(Uniform { g }));
    let ys = states(&mut rng, 2000, &|d| (Vec3::new(d.x, d.y, 0.0) * 2.0, normal), 1e-3);
    let got = rates(&gpu, &cpu, &ys).expect("kernel runs");
    let (worst, at, touching) = compare(&mut cpu, &got, &ys);
    assert!(touching > 500, "{touching} of 2000 states touch");
    // Same operations in the same order; drivers may fuse a multiply and an add (one rounding
    // less) and compute sqrt and division to their own last bit: differences of a few ulps of
    // the intermediate sums, which the contact's stiff terms (k = 2e4 on mm penetrations,
    // cancelling against gravity) lift to 1e-15 (plane), 1e-14 (grid) and 5e-14 (terrain) of a
    // component's range (measured). Bound 1e-12.
    assert!(worst < 1e-12, "plane: component {at} differs by {worst:e} of its range");

    // A sphere of radius 5 m sampled every 0.1 m (trilinear), point-mass gravity at its centre,
    // torque-free tumbling about a centre of mass off T's origin with principal axes that are
    // not T's.
    let (radius, h) = (5.0, 0.1);
    let sphere = tumble_geometry::sdf::Sphere { center: Vec3::zeros(), radius };
    let grid = GridSdf::from_fn(Vec3::repeat(-5.6), h, [113; 3], |p| sphere.distance(p));
    let tilt = UnitQuat::from_scaled_axis(Vec3::new(0.4, -0.2, 0.6)).to_rotation_matrix();
    let tensor = tilt * Mat3::from_diagonal(&Vec3::new(3.0, 4.0, 5.0)) * tilt.transpose();
    let mu = 0.05;
    let mut cpu = LanderSystem {
        surface: Arc::new(grid.clone()),
        gravity: Arc::new(PointMass { center: Vec3::zeros(), mu }),
        spin: TargetSpin::TorqueFree { inertia: tensor, inertia_inv: tensor.try_inverse().expect("pd") },
        centre: Vec3::new(0.7, -0.4, 0.3),
        ..cpu
    };
    let on_sphere = |d: Vec3| (d.normalize() * radius, d.normalize());
    let ys = states(&mut rng, 2000, &on_sphere, 1e-2);
    let got = rates(&gpu, &cpu, &ys).expect("kernel runs");
    let (worst, at, touching) = compare(&mut cpu, &got, &ys);
    assert!(touching > 500, "{touching} of 2000 states touch");
    assert!(worst < 1e-12, "grid: component {at} differs by {worst:e} of its range");

    // The same grid with fBm terrain: sandy and rocky ground (heights up to ~5 cm) and the
    // transition between them, where the region weight's gradient enters.
    let f = |seed, amplitude, frequency| Fbm { seed, octaves: 4, lacunarity: 2.0, gain: 0.5, amplitude, frequency };
    let mut cpu = LanderSystem {
        surface: Arc::new(tumble_geometry::sdf::Terrain {
            base: Box::new(grid),
            sandy: f(11, 0.01, 3.0),
            rocky: f(12, 0.03, 8.0),
            region: tumble_geometry::sdf::Region::Noise { field: f(13, 1.0, 0.4), threshold: 0.0, width: 0.3 },
            origin: Vec3::zeros(),
        }),
        ..cpu
    };
    let ys = states(&mut rng, 2000, &on_sphere, 1e-2);
    let got = rates(&gpu, &cpu, &ys).expect("kernel runs");
    let (worst, at, touching) = compare(&mut cpu, &got, &ys);
    assert!(touching > 500, "{touching} of 2000 states touch");
    assert!(worst < 1e-12, "terrain: component {at} differs by {worst:e} of its range");
}

/// A grid built from a mesh answers near the surface from the mesh itself (its exact
/// refinement): a faceted sphere (320 faces, 1.4–1.6 m edges, 7–11° creases; the states stand on
/// the sphere through its corners) with terrain measured from a point off the origin, as on a
/// shape model whose centre of mass is off the file's origin.
#[test]
fn the_rates_on_a_mesh_target_are_the_cpu_rates() {
    let Some(gpu) = gpu() else { return };
    let mut rng = Lcg::new(7);
    let mesh = tumble_geometry::TriMesh::ellipsoid([5.0; 3], 2);
    let grid = GridSdf::from_mesh(&mesh, 96, 0.5).expect("grid");
    let f = |seed, amplitude, frequency| Fbm { seed, octaves: 3, lacunarity: 2.0, gain: 0.5, amplitude, frequency };
    let terrain = |base: GridSdf| tumble_geometry::sdf::Terrain {
        base: Box::new(base),
        sandy: f(21, 0.005, 3.0),
        rocky: f(22, 0.02, 8.0),
        region: tumble_geometry::sdf::Region::Noise { field: f(23, 1.0, 0.4), threshold: 0.0, width: 0.3 },
        origin: Vec3::new(0.4, -0.3, 0.2),
    };
    let mut cpu = box_system(Arc::new(terrain(grid.clone())), Arc::new(PointMass { center: Vec3::zeros(), mu: 0.05 }));
    let on_sphere = |d: Vec3| (d.normalize() * 4.97, d.normalize());
    let ys = states(&mut rng, 2000, &on_sphere, 1e-3);
    let got = rates(&gpu, &cpu, &ys).expect("kernel runs");
    let (worst, at, touching) = compare(&mut cpu, &got, &ys);
    assert!(touching > 500, "{touching} of 2000 states touch");
    // As on the sampled grids above (measured 2e-14: the closest points and pseudonormals are
    // the CPU's operations too). Bound 1e-12.
    assert!(worst < 1e-12, "mesh grid: component {at} differs by {worst:e} of its range");
    // The grid's trilinear values alone (no refinement) give other rates (measured: 0.23 of a
    // component's range): a kernel that skipped the refinement fails here.
    let mut plain = LanderSystem { surface: Arc::new(terrain(GridSdf { refinement: None, ..grid })), ..cpu };
    let (apart, _, _) = compare(&mut plain, &got, &ys);
    assert!(apart > 1e-4, "the refinement moves the rates by {apart:e} of their range only");
}

/// A kernel whose loops lavapipe cuts short (its 65,535 loop iterations per invocation group:
/// here one sweep of a 26,784-face, 40,176-edge polyhedron per evaluation) is an error, not a
/// wrong answer; a driver without the limit answers, and answers right.
#[test]
fn a_loop_the_driver_cuts_short_is_an_error_not_a_wrong_answer() {
    let Some(gpu) = gpu() else { return };
    let mesh =
        tumble_geometry::bodies::body_mesh(tumble_geometry::bodies::BodyKind::BilobedComet, 4000.0, 7, false, 48)
            .expect("comet mesh");
    let poly = tumble_dynamics::Polyhedron::new(&mesh, 533.0).expect("polyhedron");
    let cpu =
        box_system(Arc::new(HalfSpace { point: Vec3::new(0.0, 0.0, -3000.0), normal: Vec3::z() }), Arc::new(poly));
    let y = pack(
        Vec3::new(0.0, 0.0, 3000.0),
        Vec3::zeros(),
        UnitQuat::identity(),
        Vec3::zeros(),
        UnitQuat::identity(),
        Vec3::zeros(),
    );
    match rates(&gpu, &cpu, &[y]) {
        Err(e) => assert!(e.contains("cut a kernel loop short") && e.contains("--backend cpu"), "{e}"),
        Ok(r) => {
            assert!(!gpu.name().contains("llvmpipe"), "lavapipe ran 66,960 loop iterations in one invocation group");
            let want = cpu.snapshot(&y).rates;
            assert!((r[0][5] - want[5]).abs() <= 1e-12 * want[5].abs(), "{} vs {}", r[0][5], want[5]);
        }
    }
}

/// Boulders on terrain with a latitude–longitude region mask: a plane with fBm heights blended
/// by a 9 × 12 grid of weights about a centre 3 m below it (a tilted frame: latitudes 45–90° and
/// every longitude over the states), and about 50 ellipsoidal boulders (0.2–0.8 m) strewn on it,
/// their fillets blended with the ground. The states stand on the field itself (boulder tops
/// and flanks, fillets, bare ground); the Sun's radiation pressure and tide act (exaggerated, a
/// tenth of gravity, to be seen in the comparison).
#[test]
fn the_rates_on_boulders_and_a_region_grid_are_the_cpu_rates() {
    use tumble_geometry::sdf::{BoulderField, BoulderSpec, Region, RegionGrid, Terrain, place_boulders};
    let Some(gpu) = gpu() else { return };
    let mut rng = Lcg::new(9);
    let f = |seed, amplitude, frequency| Fbm { seed, octaves: 3, lacunarity: 2.0, gain: 0.5, amplitude, frequency };
    let values: Vec<Vec<f64>> =
        (0..9).map(|i| (0..12).map(|j| ((i * 5 + j * 7) % 11) as f64 / 10.0).collect()).collect();
    let axes = UnitQuat::from_scaled_axis(Vec3::new(0.2, -0.1, 0.4)).to_rotation_matrix().into_inner();
    let region = Region::Grid(RegionGrid::new(Vec3::new(0.3, -0.2, -3.0), axes, &values).expect("grid"));
    let plane = HalfSpace { point: Vec3::zeros(), normal: Vec3::z() };
    let ground = Terrain {
        base: Box::new(plane),
        sandy: f(31, 0.01, 2.0),
        rocky: f(32, 0.04, 3.0),
        region,
        origin: Vec3::zeros(),
    };
    let spec = BoulderSpec {
        seed: 3,
        alpha: 3.0,
        diameters: [0.2, 0.8],
        density: 2.5,
        axis_ratios: [0.71, 0.5],
        burial: 0.3,
        within: Some((Vec3::zeros(), 2.5)),
    };
    let r = 2.5;
    let patch = tumble_geometry::TriMesh {
        vertices: vec![Vec3::new(-r, -r, 0.0), Vec3::new(r, -r, 0.0), Vec3::new(r, r, 0.0), Vec3::new(-r, r, 0.0)],
        faces: vec![[0, 1, 2], [0, 2, 3]],
    };
    let boulders = place_boulders(&ground, &patch, &spec, &|_| 1.0).expect("boulders");
    assert!(boulders.len() > 30, "{} boulders", boulders.len());
    let field = BoulderField::new(Box::new(ground), boulders);
    // The field's zero level under a point of the disc, by Newton steps down its gradient.
    let foot = |d: Vec3| {
        let mut p = Vec3::new(2.0 * d.x, 2.0 * d.y, 1.0);
        for _ in 0..20 {
            let (phi, g) = field.eval(&p);
            p -= g * (phi / g.norm_squared());
        }
        (p, field.eval(&p).1.normalize())
    };
    let ys = states(&mut rng, 1500, &foot, 1e-3);
    // States standing on a boulder (its field more than 1 mm above the bare ground's at the
    // centre of mass's foot), so that the boulders' branch is what the comparison exercises.
    let on_boulders = ys
        .iter()
        .filter(|y| {
            let p = Vec3::new(y[0], y[1], y[2]) - field.eval(&Vec3::new(y[0], y[1], y[2])).1.normalize() * 0.05;
            (field.eval(&p).0 - field.ground.eval(&p).0).abs() > 1e-3
        })
        .count();
    let sun = tumble_sim::lander::ephemeris::SunForces {
        direction: Vec3::new(0.6, -0.48, 0.64),
        radiation: 0.03,
        tide: 0.01,
    };
    let mut cpu = LanderSystem {
        sun: Some(sun),
        ..box_system(Arc::new(field), Arc::new(Uniform { g: Vec3::new(0.0, 0.0, -0.3) }))
    };
    let got = rates(&gpu, &cpu, &ys).expect("kernel runs");
    let (worst, at, touching) = compare(&mut cpu, &got, &ys);
    assert!(touching > 400, "{touching} of 1500 states touch");
    // Measured 585; bound 300, a fifth of the states.
    assert!(on_boulders > 300, "{on_boulders} of 1500 states stand on boulders");
    // As on the grids above, plus the region grid's latitudes and longitudes (the device's
    // atan2, math.wgsl's, is within a few ulps of the CPU's libm) and the boulders'
    // bisections: measured 3.8e-14 of a component's range (1,352 states touching).
    assert!(worst < 1e-12, "boulders: component {at} differs by {worst:e} of its range");
}
