//! The lander step does not allocate: RK4 steps of the contact pipeline (vertices in contact,
//! friction and rolling resistance active) counted by `allocation-counter`.

use std::sync::Arc;
use tumble_contact::VertexContactParams;
use tumble_dynamics::rotating::TargetSpin;
use tumble_dynamics::{Integrator, Method, Uniform};
use tumble_geometry::TriMesh;
use tumble_geometry::sdf::HalfSpace;
use tumble_math::{Mat3, UnitQuat, Vec3};
use tumble_sim::lander::{LanderSystem, pack};

/// The contact law of both tests: every term active.
fn contact() -> VertexContactParams {
    VertexContactParams {
        stiffness: 2000.0,
        damping: 20.0,
        mu: 0.5,
        mu_static: 0.6,
        rolling: 0.01,
        v_star: 0.01,
        w_star: 0.01,
        stable_dt: 0.002,
    }
}

/// Resting on its face at the static sag mg/(4k), sliding and turning: all contact terms
/// active throughout.
fn resting() -> [f64; tumble_sim::lander::STATE_LEN] {
    pack(
        Vec3::new(0.0, 0.0, 0.15 - 10.0 * 5.7e-3 / 8000.0),
        Vec3::new(0.01, 0.0, 0.0),
        UnitQuat::identity(),
        Vec3::new(0.0, 0.0, 0.02),
        UnitQuat::identity(),
        Vec3::zeros(),
    )
}

#[test]
fn the_lander_step_does_not_allocate() {
    let i = Mat3::identity() * (10.0 * 0.09 / 6.0);
    let mut sys = LanderSystem {
        mass: 10.0,
        inertia: i,
        inertia_inv: i.try_inverse().expect("pd"),
        vertices: TriMesh::cuboid([0.3; 3]).vertices,
        contact: contact(),
        surface: Arc::new(HalfSpace { point: Vec3::zeros(), normal: Vec3::z() }),
        gravity: Arc::new(Uniform { g: Vec3::new(0.0, 0.0, -5.7e-3) }),
        spin: TargetSpin::Uniform,
        centre: Vec3::zeros(),
        expansion_radius: 0.0,
        expansion: None,
        actuation: Default::default(),
        sun: None,
    };
    let mut y = resting();
    let mut integ = Integrator::new(Method::Rk4 { dt: 0.002 }, y.len());
    integ.step_once(&mut sys, 0.0, &mut y, 0.002);
    assert!(sys.snapshot(&y).normal.active == 4);
    // The counter sees allocations (so the assertion below can fail).
    assert!(allocation_counter::measure(|| drop(std::hint::black_box(vec![0u8; 64]))).count_total >= 1);
    let info = allocation_counter::measure(|| {
        for k in 1..1000 {
            integ.step_once(&mut sys, k as f64 * 0.002, &mut y, 0.002);
        }
    });
    assert_eq!(info.count_total, 0, "{} allocations in 999 steps", info.count_total);
    assert!(sys.snapshot(&y).normal.active > 0, "still in contact");
}

/// The same through the pipeline: `Driver::step` on a `LanderSim` built with the builder (guard,
/// events, energy budget) allocates nothing between output samples.
#[test]
fn the_driven_lander_step_does_not_allocate() {
    use tumble_sim::lander::{LanderSettings, LanderSim};
    use tumble_sim::pipeline::Driver;
    let mut sys = LanderSystem::builder()
        .mass(10.0)
        .box_shape(Vec3::new(0.3, 0.3, 0.3))
        .contact(contact())
        .surface(Arc::new(HalfSpace { point: Vec3::zeros(), normal: Vec3::z() }))
        .gravity(Arc::new(Uniform { g: Vec3::new(0.0, 0.0, -5.7e-3) }))
        .build()
        .expect("valid lander");
    let y = resting();
    // One sample at the start and one at the end of 10 s: none inside the measured steps.
    let settings = LanderSettings { output_every: 5000, ..LanderSettings::plain(0.002, 10.0) };
    let sim = LanderSim::new(&mut sys, y, &settings).expect("valid settings");
    let schedule = sim.schedule();
    let mut driver = Driver::new(sim, schedule);
    for _ in 0..10 {
        driver.step().expect("a stable step");
    }
    let info = allocation_counter::measure(|| {
        for _ in 0..999 {
            let report = driver.step().expect("a stable step");
            assert!(!report.sampled && report.stop.is_none());
        }
    });
    assert_eq!(info.count_total, 0, "{} allocations in 999 driven steps", info.count_total);
    assert!(driver.sim().snapshot().normal.active > 0, "still in contact");
}
