//! Micro-benchmarks (`tumble bench`): integrators on rigid bodies, grid SDF queries, the lander
//! step on a plane and on a procedural comet, the membrane's hull and evaluation, the asteroid
//! capture. Single-threaded; each
//! case is timed several times and the fastest repeat is kept (the least disturbed by the
//! machine), with the repeats' spread as its noise; [`compare`] sets them against a baseline.

pub mod compare;
pub mod probe;

use std::time::Instant;
use tumble_dynamics::{
    BodyState, Dopri5Settings, Gravity, Integrator, Method, NoGravity, OdeSystem, PointMass, RigidBody, RigidBodySystem,
};
use tumble_geometry::Solid;
use tumble_math::Vec3;

/// One benchmark figure.
#[derive(Debug, Clone)]
pub struct BenchResult {
    /// Case name.
    pub name: String,
    /// Bodies in the system.
    pub bodies: usize,
    /// Steps timed per repeat.
    pub steps: u64,
    /// Fastest repeat, s.
    pub seconds: f64,
    /// The repeats' spread: (median − fastest) / fastest (0 for a single repeat).
    pub spread: f64,
}

/// The wall times of a case's repeats, s.
#[derive(Default)]
struct Repeats(Vec<f64>);

impl Repeats {
    fn push(&mut self, seconds: f64) {
        self.0.push(seconds);
    }

    /// The result: the fastest repeat and the spread.
    fn result(mut self, name: impl Into<String>, bodies: usize, steps: u64) -> BenchResult {
        self.0.sort_by(f64::total_cmp);
        let best = self.0.first().copied().unwrap_or(f64::NAN);
        let median = self.0.get(self.0.len() / 2).copied().unwrap_or(best);
        BenchResult { name: name.into(), bodies, steps, seconds: best, spread: (median - best) / best }
    }
}

impl BenchResult {
    /// Integration steps per second.
    pub fn steps_per_second(&self) -> f64 {
        self.steps as f64 / self.seconds
    }
    /// Nanoseconds per step of one body.
    pub fn ns_per_body_step(&self) -> f64 {
        self.seconds * 1e9 / (self.steps as f64 * self.bodies as f64)
    }
}

fn system(n: usize, gravity: Box<dyn Gravity>) -> (RigidBodySystem, Vec<f64>) {
    let props = Solid::Box { size: [1.0, 2.0, 3.0] }.with_mass(10.0);
    let bodies = (0..n).map(|i| RigidBody::new(format!("b{i}"), &props)).collect();
    let sys = RigidBodySystem { bodies, gravity };
    let states: Vec<BodyState> = (0..n)
        .map(|i| BodyState {
            p_WB: Vec3::new(7.0e6 + i as f64, 0.0, 0.0),
            v_WB: Vec3::new(0.0, 7.5e3, 0.0),
            w_WB_B: Vec3::new(0.01, 1.0, 0.02),
            ..Default::default()
        })
        .collect();
    let y = sys.pack(&states);
    (sys, y)
}

fn time_case(
    name: &str,
    n: usize,
    gravity: fn() -> Box<dyn Gravity>,
    method: Method,
    steps: u64,
    repeats: usize,
) -> BenchResult {
    let mut times = Repeats::default();
    for _ in 0..repeats {
        let (mut sys, mut y) = system(n, gravity());
        let mut integ = Integrator::new(method, sys.dim());
        let h = 1e-3;
        let start = Instant::now();
        for k in 0..steps {
            integ.step_once(&mut sys, k as f64 * h, &mut y, h);
        }
        times.push(start.elapsed().as_secs_f64());
        std::hint::black_box(&y);
    }
    times.result(name, n, steps)
}

/// Grid SDF queries (value and gradient) on a 4 km procedural comet sampled at 128 cells
/// along its length, at points within ±50 m of its surface.
fn sdf_queries(n: u64) -> BenchResult {
    use tumble_geometry::bodies::{BodyKind, body_grid};
    use tumble_geometry::sdf::Sdf;
    let grid = body_grid(BodyKind::BilobedComet, 4000.0, 1, true, 128, 200.0).expect("a valid layout");
    // Points: along random directions from the centre, projected to near the surface.
    let mut rng = tumble_math::Lcg::new(1u64);
    let pts: Vec<Vec3> = (0..4096)
        .map(|_| {
            let mut u = || rng.symmetric();
            let p = Vec3::new(1800.0 * u(), 1200.0 * u(), 1200.0 * u());
            let (d, g) = grid.eval(&p);
            p - g * d + g * (50.0 * u())
        })
        .collect();
    time_queries("sdf_grid_query_comet_128", &grid, &pts, n)
}

/// The benchmarks' boulder field: `density` boulders per m² from 0.2 to 4 m, α = 3.1, within
/// the disc `within` (centre, radius in m).
fn bench_boulders(density: f64, within: (Vec3, f64)) -> tumble_geometry::sdf::BoulderSpec {
    tumble_geometry::sdf::BoulderSpec {
        seed: 1,
        alpha: 3.1,
        diameters: [0.2, 4.0],
        density,
        axis_ratios: [0.71, 0.5],
        burial: 0.3,
        within: Some(within),
    }
}

/// Boulder-field queries on a plane strewn within `radius` (m) of the origin at `density`
/// boulders per m² (0.2 to 4 m, α = 3.1), at points uniform over a disc of radius `spread` (m)
/// from 0.5 m below the ground to 2.5 m above it: the cost of the culled smooth union alone, as
/// the boulder count grows with the area (same density) or with the density. A lander's
/// vertices query a few metres of ground (`spread` 10 m: what it touches stays in cache);
/// points spread over the whole field measure memory latency instead.
fn boulder_queries(n: u64, density: f64, radius: f64, spread: f64) -> BenchResult {
    use tumble_geometry::TriMesh;
    use tumble_geometry::sdf::{BoulderField, HalfSpace, place_boulders};
    let plane = HalfSpace { point: Vec3::zeros(), normal: Vec3::z() };
    let square = TriMesh {
        vertices: [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]
            .map(|[x, y]| Vec3::new(radius * x, radius * y, 0.0))
            .to_vec(),
        faces: vec![[0, 1, 2], [0, 2, 3]],
    };
    let spec = bench_boulders(density, (Vec3::zeros(), radius));
    let boulders = place_boulders(&plane, &square, &spec, &|_| 1.0).expect("fits");
    let name = format!("sdf_boulders_query_{}_at_{density}_per_m2_within_{spread}_m", boulders.len());
    let field = BoulderField::new(Box::new(plane), boulders);
    let mut rng = tumble_math::Lcg::new(4u64);
    let pts: Vec<Vec3> = (0..4096)
        .map(|_| {
            let (r, a) = (spread * rng.unit().sqrt(), std::f64::consts::TAU * rng.unit());
            Vec3::new(r * a.cos(), r * a.sin(), rng.uniform(-0.5, 2.5))
        })
        .collect();
    time_queries(&name, &field, &pts, n)
}

/// Grid SDF queries on a mesh grid (a 20,480-face ellipsoid of 2 × 1.4 × 1 km at 128 cells along
/// its length) within ±1 cell of the surface, where the exact refinement answers.
fn mesh_sdf_queries(n: u64) -> BenchResult {
    use tumble_geometry::TriMesh;
    use tumble_geometry::sdf::{GridSdf, Sdf};
    let mesh = TriMesh::ellipsoid([1000.0, 700.0, 500.0], 5);
    let grid = GridSdf::from_mesh(&mesh, 128, 100.0).expect("a valid layout");
    let mut rng = tumble_math::Lcg::new(3u64);
    let pts: Vec<Vec3> = (0..4096)
        .map(|_| {
            let mut u = || rng.symmetric();
            let p = Vec3::new(1000.0 * u(), 700.0 * u(), 500.0 * u());
            let (d, g) = grid.eval(&p);
            p - g * d + g * (grid.spacing * u())
        })
        .collect();
    time_queries("sdf_mesh_grid_query_ellipsoid_128", &grid, &pts, n)
}

/// Polyhedron gravity (potential, acceleration, gradient) of a 5,120-face ellipsoid (3 × 2 × 1 km)
/// at points between one and two radii: the sums `bench/gravity_vs_polyhedral_gravity.py`
/// compares with polyhedral-gravity, here for the regression check.
fn polyhedron_samples(n: u64) -> BenchResult {
    use tumble_dynamics::Polyhedron;
    let mesh = tumble_geometry::TriMesh::ellipsoid([3000.0, 2000.0, 1000.0], 4);
    let poly = Polyhedron::new(&mesh, 2000.0).expect("a closed, outward mesh");
    let mut rng = tumble_math::Lcg::new(5u64);
    let pts: Vec<Vec3> = (0..256)
        .map(|_| {
            let d = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()).normalize();
            d * 3000.0 * (1.0 + rng.unit())
        })
        .collect();
    let mut times = Repeats::default();
    for _ in 0..5 {
        let start = Instant::now();
        let mut acc = 0.0;
        for k in 0..n {
            acc += poly.sample(&pts[k as usize % pts.len()]).potential;
        }
        std::hint::black_box(acc);
        times.push(start.elapsed().as_secs_f64());
    }
    times.result(format!("polyhedron_gravity_ellipsoid_{}", mesh.faces.len()), 1, n)
}

fn time_queries(name: &str, grid: &dyn tumble_geometry::sdf::Sdf, pts: &[Vec3], n: u64) -> BenchResult {
    let mut times = Repeats::default();
    for _ in 0..5 {
        let start = Instant::now();
        let mut acc = 0.0;
        for k in 0..n {
            acc += grid.eval(&pts[k as usize % pts.len()]).0;
        }
        std::hint::black_box(acc);
        times.push(start.elapsed().as_secs_f64());
    }
    times.result(name, 1, n)
}

/// A 1000 kg, 1 m cube with its eight corners as contact vertices resting on `surface` at
/// `x0` (centre of mass) under gravity `g`, stepped `n` times at 1 ms with RK4 and the event
/// loop of a lander run (local surface models of radius `surface_expansion`, m, when > 0).
fn lander_case(
    name: &str,
    surface: std::sync::Arc<dyn tumble_geometry::sdf::Sdf>,
    (x0, q0): (Vec3, tumble_math::UnitQuat),
    g: Vec3,
    n: u64,
    surface_expansion: f64,
) -> BenchResult {
    use crate::lander::{LanderSettings, LanderSystem, pack, simulate};
    use tumble_contact::VertexContactParams;
    use tumble_dynamics::{Uniform, rotating::TargetSpin};
    use tumble_math::{Mat3, UnitQuat};
    let inertia = Mat3::identity() * (1000.0 / 6.0);
    let mut times = Repeats::default();
    for _ in 0..3 {
        let mut sys = LanderSystem {
            mass: 1000.0,
            inertia,
            inertia_inv: inertia.try_inverse().expect("positive definite"),
            vertices: tumble_geometry::TriMesh::cuboid([1.0; 3]).vertices,
            contact: VertexContactParams {
                stiffness: 1e6,
                damping: 2e4,
                mu: 0.5,
                mu_static: 0.6,
                rolling: 0.01,
                v_star: 0.01,
                w_star: 0.01,
                stable_dt: 1e-3,
            },
            surface: surface.clone(),
            gravity: std::sync::Arc::new(Uniform { g }),
            spin: TargetSpin::Uniform,
            centre: Vec3::zeros(),
            expansion_radius: 0.0,
            expansion: None,
            actuation: Default::default(),
            sun: None,
        };
        let y0 = pack(x0, q0 * Vec3::new(0.01, 0.0, 0.0), q0, Vec3::zeros(), UnitQuat::identity(), Vec3::zeros());
        let settings = LanderSettings {
            dt: 1e-3,
            duration: n as f64 * 1e-3,
            output_every: n,
            settle: None,
            escape_distance: None,
            hops: vec![],
            actuator: None,
            energy_tolerance: f64::INFINITY,
            energy_growth: 0.0,
            flight_steps: 1,
            surface_expansion,
            impact_every: 0,
        };
        let start = Instant::now();
        let run = simulate(&mut sys, y0, &settings, &mut |_| {});
        times.push(start.elapsed().as_secs_f64());
        std::hint::black_box(run.final_state);
    }
    times.result(name, 1, n)
}

/// The cube on a plane in Phobos-like gravity; through local surface models of radius
/// `surface_expansion` (m) when > 0 — the models' own cost, on a surface where they are exact
/// (a plane's quadratic model is the plane: unit gradient, zero Hessian), apart from curvature.
fn lander_plane(n: u64, surface_expansion: f64) -> BenchResult {
    use tumble_geometry::sdf::HalfSpace;
    let plane = std::sync::Arc::new(HalfSpace { point: Vec3::zeros(), normal: Vec3::z() });
    lander_case(
        if surface_expansion > 0.0 { "lander_cube_plane_local_models" } else { "lander_cube_plane" },
        plane,
        (Vec3::new(0.0, 0.0, 0.5 - 1000.0 * 5.7e-3 / 4e6), tumble_math::UnitQuat::identity()),
        Vec3::new(0.0, 0.0, -5.7e-3),
        n,
        surface_expansion,
    )
}

/// The cube on a 4 km procedural comet: smooth body on a 128-cell grid, with fBm terrain of
/// `octaves` octaves (6: finest wavelength 7.8 m on the rocky ground; 13: 6 cm, so features down
/// to 0.1 m) evaluated exactly at every query (`surface_expansion` 0) or through local models of
/// that radius (m); resting on the top of the large lobe. With `boulders`, a boulder field of
/// that density (per m², 0.2 to 4 m, α = 3.1) within 150 m of the cube.
fn lander_comet(n: u64, surface_expansion: f64, octaves: u32, boulders: Option<f64>) -> BenchResult {
    use tumble_geometry::bodies::{BodyKind, body_grid, body_mesh, body_sdf};
    use tumble_geometry::noise::Fbm;
    use tumble_geometry::sdf::{BoulderField, Sdf, Terrain, place_boulders};
    let grid = body_grid(BodyKind::BilobedComet, 4000.0, 1, false, 128, 200.0).expect("a valid layout");
    let t = body_sdf(BodyKind::BilobedComet, 4000.0, 1, true);
    let fine = |f: Fbm| Fbm { octaves, ..f };
    let terrain = Terrain {
        base: Box::new(grid),
        sandy: fine(t.sandy),
        rocky: fine(t.rocky),
        region: t.region,
        origin: t.origin,
    };
    let top = Vec3::new(-760.0, 0.0, 960.0);
    let terrain: Box<dyn Sdf> = match boulders {
        None => Box::new(terrain),
        Some(density) => {
            let mesh = body_mesh(BodyKind::BilobedComet, 4000.0, 1, false, 128).expect("a valid layout");
            let spec = bench_boulders(density, (top, 150.0));
            let field = place_boulders(&terrain, &mesh, &spec, &|_| 1.0).expect("fits");
            Box::new(BoulderField::new(Box::new(terrain), field))
        }
    };
    // Walk down from above the large lobe to the surface, then up by half the cube.
    let mut p = Vec3::new(-760.0, 0.0, 1200.0);
    for _ in 0..50 {
        let (d, g) = terrain.eval(&p);
        p -= g.normalize() * d;
    }
    let (_, g) = terrain.eval(&p);
    let up = g.normalize();
    let surface: std::sync::Arc<dyn Sdf> = std::sync::Arc::from(terrain);
    let count = (surface.as_ref() as &dyn std::any::Any).downcast_ref::<BoulderField>().map(|b| b.boulders().len());
    let name = match (surface_expansion > 0.0, count) {
        (false, None) => format!("lander_cube_comet_sdf_128_fbm{octaves}"),
        (true, None) => format!("lander_cube_comet_fbm{octaves}_local_models"),
        (false, Some(k)) => format!("lander_cube_comet_fbm{octaves}_boulders ({k})"),
        (true, Some(k)) => format!("lander_cube_comet_fbm{octaves}_boulders_local_models ({k})"),
    };
    // Face down on the local tangent plane, raised until the lowest corner just touches the
    // rough ground (the terrain's metre-scale relief would otherwise bury corners).
    let q = tumble_math::UnitQuat::rotation_between(&Vec3::z(), &up).expect("not antiparallel");
    let mut x0 = p + up * 0.5;
    let corners = tumble_geometry::TriMesh::cuboid([1.0; 3]).vertices;
    for _ in 0..20 {
        let lowest = corners.iter().map(|c| surface.distance(&(x0 + q * c))).fold(f64::INFINITY, f64::min);
        x0 -= up * lowest;
    }
    lander_case(&name, surface, (x0, q), -up * 5.7e-3, n, surface_expansion)
}

/// The membrane of the drop test: the 4.5 m procedural pear (1764 faces) with its centre at
/// `z` (m) on a 146 m² hexagon, tumbling (`z = −1.2`: the bottom of the bounce, nearly every
/// vertex below the plane; `z = 0.6`: early contact). Times the hull of the contact set alone
/// (`membrane_hull`) and the whole evaluation with friction (`membrane_evaluate`).
fn membrane_cases(n: u64, z: f64) -> [BenchResult; 2] {
    use tumble_contact::membrane::{
        BodyHull, Distribution, Membrane, MembraneFriction, MembraneWorkspace, RelativeMotion,
    };
    use tumble_geometry::bodies::{BodyKind, body_mesh};
    use tumble_geometry::hull::{ConvexHull, HullBuilder};
    let mesh = body_mesh(BodyKind::PearAsteroid, 4.5, 3, true, 12).expect("procedural body");
    let fr = MembraneFriction { mu: 0.2, v_star: 0.01, distribution: Distribution::Auto };
    let m = Membrane::regular(6, Membrane::regular_radius(6, 146.0), 30.0, 1.5, Some(fr)).expect("membrane");
    let R = *tumble_math::nalgebra::Rotation3::new(Vec3::new(0.3, -0.5, 0.2)).matrix();
    let body_hull = BodyHull::new(&mesh.vertices);
    let motion = RelativeMotion {
        vertices: &mesh.vertices,
        radius: 3.0,
        R_MB: R,
        p_MB: Vec3::new(0.2, -0.1, z),
        v_MB: Vec3::new(0.1, 0.0, -3.0),
        w_MB: Vec3::new(0.5, 1.0, -0.2),
        hull: body_hull.as_ref(),
    };
    let mut pts: Vec<Vec3> = m.suspension().to_vec();
    pts.extend(mesh.vertices.iter().map(|r| motion.p_MB + R * r).filter(|x| x.z < 0.0));
    let (mut hb, mut out) = (HullBuilder::default(), ConvexHull::default());
    let mut ws = MembraneWorkspace::default();
    let (mut hull, mut evaluate) = (Repeats::default(), Repeats::default());
    for _ in 0..5 {
        let t = std::time::Instant::now();
        for _ in 0..n {
            hb.build(std::hint::black_box(&pts), &mut out).expect("hull");
        }
        hull.push(t.elapsed().as_secs_f64());
        let t = std::time::Instant::now();
        for _ in 0..n {
            std::hint::black_box(m.evaluate(std::hint::black_box(&motion), &mut ws));
        }
        evaluate.push(t.elapsed().as_secs_f64());
    }
    let name = |s: &str| format!("{s} ({} points below)", pts.len() - 6);
    [hull.result(name("membrane_hull"), 1, n), evaluate.result(name("membrane_evaluate"), 1, n)]
}

/// The bundled asteroid capture (`scenarios/membrane/asteroid_capture.toml`: 1992-face pear,
/// spacecraft of three bodies, RK4 at 0.1 s, 300 s with contact from 10 s), whole runs timed:
/// steps per second times 0.1 s is the real-time factor.
fn asteroid_capture(repeats: usize) -> BenchResult {
    let text = include_str!("../../../../scenarios/membrane/asteroid_capture.toml");
    let path = std::path::Path::new("scenarios/membrane/asteroid_capture.toml");
    let sc = crate::Scenario::from_text(path, text.to_string(), &[]).expect("bundled scenario");
    let m = crate::membrane_capture::MembraneCapture::build(&sc).expect("bundled scenario");
    let mut times = Repeats::default();
    (0..repeats).for_each(|_| times.push(m.run().wall_s));
    times.result("asteroid_capture_rk4_0.1s", 4, (m.duration / m.dt).round() as u64)
}

/// Runs the standard cases. `scale` multiplies the step counts (1.0: about a second in all).
pub fn run_all(scale: f64) -> Vec<BenchResult> {
    run_matching(scale, "")
}

/// The standard cases whose name contains `only` (all of them for `""`), in their usual order.
pub fn run_matching(scale: f64, only: &str) -> Vec<BenchResult> {
    let steps = |s: f64| ((s * scale) as u64).max(1);
    let none: fn() -> Box<dyn Gravity> = || Box::new(NoGravity);
    let pm: fn() -> Box<dyn Gravity> = || Box::new(PointMass { mu: 3.986_004_418e14, center: Vec3::zeros() });
    let dopri = Method::Dopri5(Dopri5Settings {
        rtol: 1e-9,
        atol: 1e-12,
        h_initial: 1e-3,
        h_min: 1e-12,
        h_max: 1.0,
        max_steps: u64::MAX,
    });
    type Case<'a> = (&'a [&'a str], Box<dyn Fn() -> Vec<BenchResult> + 'a>);
    let cases: Vec<Case> = vec![
        (
            &["rk4_free_body"],
            Box::new(|| vec![time_case("rk4_free_body", 1, none, Method::Rk4 { dt: 1e-3 }, steps(1e6), 5)]),
        ),
        (
            &["rk4_body_point_mass"],
            Box::new(|| vec![time_case("rk4_body_point_mass", 1, pm, Method::Rk4 { dt: 1e-3 }, steps(1e6), 5)]),
        ),
        (
            &["rk4_100_bodies_point_mass"],
            Box::new(|| vec![time_case("rk4_100_bodies_point_mass", 100, pm, Method::Rk4 { dt: 1e-3 }, steps(1e4), 5)]),
        ),
        (&["dopri5_free_body"], Box::new(|| vec![time_case("dopri5_free_body", 1, none, dopri, steps(5e5), 5)])),
        (
            &["symplectic_euler_free_body"],
            Box::new(|| {
                vec![time_case(
                    "symplectic_euler_free_body",
                    1,
                    none,
                    Method::SymplecticEuler { dt: 1e-3 },
                    steps(1e6),
                    5,
                )]
            }),
        ),
        (&["sdf_grid_query_comet_128"], Box::new(|| vec![sdf_queries(steps(2e6))])),
        (&["sdf_mesh_grid_query_ellipsoid_128"], Box::new(|| vec![mesh_sdf_queries(steps(2e5))])),
        (
            &["sdf_boulders_query"],
            Box::new(|| {
                [(0.2, 50.0, 10.0), (0.2, 150.0, 10.0), (0.2, 450.0, 10.0), (0.02, 150.0, 10.0), (2.0, 150.0, 10.0)]
                    .into_iter()
                    .chain([(0.2, 50.0, 50.0), (0.2, 150.0, 150.0), (0.2, 450.0, 450.0)])
                    .map(|(d, r, spread)| boulder_queries(steps(2e5), d, r, spread))
                    .collect()
            }),
        ),
        (&["polyhedron_gravity_ellipsoid"], Box::new(|| vec![polyhedron_samples(steps(2e3))])),
        (&["lander_cube_plane"], Box::new(|| vec![lander_plane(steps(2e5), 0.0)])),
        (&["lander_cube_plane_local_models"], Box::new(|| vec![lander_plane(steps(2e5), 2e-3)])),
        (&["lander_cube_comet_sdf_128_fbm6"], Box::new(|| vec![lander_comet(steps(2e5), 0.0, 6, None)])),
        (&["lander_cube_comet_fbm6_local_models"], Box::new(|| vec![lander_comet(steps(2e5), 2e-3, 6, None)])),
        (&["lander_cube_comet_sdf_128_fbm13"], Box::new(|| vec![lander_comet(steps(1e5), 0.0, 13, None)])),
        (&["lander_cube_comet_fbm13_local_models"], Box::new(|| vec![lander_comet(steps(2e5), 2e-3, 13, None)])),
        (&["lander_cube_comet_fbm13_boulders"], Box::new(|| vec![lander_comet(steps(1e5), 0.0, 13, Some(0.2))])),
        (
            &["lander_cube_comet_fbm13_boulders_local_models"],
            Box::new(|| vec![lander_comet(steps(2e5), 2e-3, 13, Some(0.2))]),
        ),
        (&["membrane_hull", "membrane_evaluate"], Box::new(|| membrane_cases(steps(1e5), 0.6).into())),
        (&["membrane_hull", "membrane_evaluate"], Box::new(|| membrane_cases(steps(2e4), -1.2).into())),
        (&["asteroid_capture_rk4_0.1s"], Box::new(|| vec![asteroid_capture(if scale < 1.0 { 1 } else { 5 })])),
    ];
    cases
        .iter()
        .filter(|(names, _)| names.iter().any(|n| n.contains(only)))
        .flat_map(|(_, run)| run())
        .filter(|r| r.name.contains(only))
        .collect()
}
