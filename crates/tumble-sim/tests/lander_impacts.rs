//! Impact loads (`lander::impact`): one touchdown against the closed-form spring and
//! compression-only damper, and the bundled Phobos cube, none of whose contact phases may fall
//! between samples.

use std::path::Path;
use std::sync::Arc;
use tumble_contact::VertexContactParams;
use tumble_dynamics::NoGravity;
use tumble_dynamics::rotating::TargetSpin;
use tumble_geometry::sdf::HalfSpace;
use tumble_math::{Mat3, UnitQuat, Vec3};
use tumble_sim::Scenario;
use tumble_sim::lander::{LanderModel, LanderSettings, LanderSystem, pack, simulate};

#[test]
fn one_touchdown_carries_the_closed_form_loads_of_the_spring_and_damper() {
    // One vertex at the centre of mass, no gravity, no friction: the approach is at v₀ along
    // the normal and u across it. Compression: m ẍ + c ẋ + k x = 0, so
    // x = (v₀/ω_d) e^{−ζω_n t} sin ω_d t until ẋ = 0 at t_c = atan2(ω_d, ζω_n)/ω_d; restitution:
    // m ẍ + k x = 0 for a quarter period π/(2ω_n). The normal load is k x + c ẋ (compression),
    // k x after; the damper takes ½ m v₀² − ½ k x_max².
    let (m, k, c, v0, u) = (1.0, 1000.0, 10.0, 0.1, 0.03);
    let mut sys = LanderSystem {
        mass: m,
        inertia: Mat3::identity() * 0.01,
        inertia_inv: Mat3::identity() * 100.0,
        vertices: vec![Vec3::zeros()],
        contact: VertexContactParams {
            stiffness: k,
            damping: c,
            mu: 0.0,
            mu_static: 0.0,
            rolling: 0.0,
            v_star: 1e-3,
            w_star: 1e-3,
            stable_dt: 0.0,
        },
        surface: Arc::new(HalfSpace { point: Vec3::zeros(), normal: Vec3::z() }),
        gravity: Arc::new(NoGravity),
        spin: TargetSpin::Uniform,
        centre: Vec3::zeros(),
        expansion_radius: 0.0,
        expansion: None,
        actuation: Default::default(),
        sun: None,
    };
    let y0 = pack(
        Vec3::new(0.0, 0.0, 0.001),
        Vec3::new(u, 0.0, -v0),
        UnitQuat::identity(),
        Vec3::zeros(),
        UnitQuat::identity(),
        Vec3::zeros(),
    );
    let dt = 1e-5;
    let run = simulate(&mut sys, y0, &LanderSettings::plain(dt, 0.2), &mut |_| {});
    assert_eq!(run.impacts.len(), 1, "{:?}", run.impacts);
    let i = run.impacts[0];

    let (wn, zeta) = ((k / m).sqrt(), c / (2.0 * (k * m).sqrt()));
    let wd = wn * (1.0 - zeta * zeta).sqrt();
    let tc = wd.atan2(zeta * wn) / wd;
    let x = |t: f64| v0 / wd * (-zeta * wn * t).exp() * (wd * t).sin();
    let xd = |t: f64| v0 * (-zeta * wn * t).exp() * ((wd * t).cos() - zeta * wn / wd * (wd * t).sin());
    let x_max = x(tc);
    let peak = (0..=100_000).map(|j| tc * j as f64 / 1e5).map(|t| k * x(t) + c * xd(t)).fold(0.0, f64::max);
    let t0 = 0.001 / v0;
    let duration = tc + std::f64::consts::FRAC_PI_2 / wn;
    let lost = 0.5 * m * v0 * v0 - 0.5 * k * x_max * x_max;
    let rebound = (u * u + (wn * x_max).powi(2)).sqrt();

    // Speeds are those of the step before touchdown, which no force had touched: exact.
    assert!((i.normal_speed - v0).abs() < 1e-15 && (i.tangential_speed - u).abs() < 1e-15, "{i:?}");
    // Touchdown and lift-off are the ends of the steps they fall in: within one step each.
    assert!(i.time >= t0 && i.time - t0 <= dt * (1.0 + 1e-9), "touchdown {} vs {t0}", i.time);
    assert!((i.duration - duration).abs() <= 2.0 * dt, "duration {} vs {duration}", i.duration);
    assert!((i.liftoff - i.time - i.duration).abs() < 1e-15);
    // Loads sampled at every step: the peak within (ω_n dt)² ~ 1e-7 of the continuous one, the
    // integration's error at the damper's switch-on (ω_n dt = 3e-4 for that step) on top.
    for (what, got, want) in [
        ("peak force", i.peak_force, peak),
        ("peak penetration", i.peak_penetration, x_max),
        ("energy lost", i.energy_lost, lost),
        ("lift-off speed", i.liftoff_speed, rebound),
    ] {
        assert!((got / want - 1.0).abs() < 1e-3, "{what}: {got} vs {want}");
    }
    // Where: the application point, on the plane at touchdown (within a step's travel).
    assert!((i.site - Vec3::new(u * i.time, 0.0, 0.0)).norm() < v0 * dt, "site {:?}", i.site);
}

#[test]
fn no_contact_phase_of_the_bundled_phobos_cube_falls_between_samples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let sc = Scenario::load(&root.join("scenarios/lander/cube_phobos.toml"), &[]).expect("scenario");
    let mut model = LanderModel::build(&sc).expect("builds");
    let run = simulate(&mut model.system, model.initial_state, &model.settings, &mut |_| {});
    assert!(run.impacts.len() >= 10, "{} touchdowns", run.impacts.len());
    let step = model.settings.dt * model.settings.impact_every as f64;
    let mut worst: f64 = 1.0;
    for (n, i) in run.impacts.iter().enumerate() {
        let end = if i.liftoff.is_finite() { i.liftoff } else { run.final_time };
        let inside: Vec<_> = run.rows.iter().filter(|r| r[0] >= i.time && r[0] <= end).collect();
        // Touchdown and lift-off are sampled, and the impact samples in between.
        let window = tumble_sim::lander::impact::window(model.system.mass, model.system.contact.stiffness);
        let want = ((end - i.time).min(window) / step).floor() as usize;
        assert!(
            inside.len() > want,
            "touchdown {n} at {:.3} s: {} samples, want more than {want}",
            i.time,
            inside.len()
        );
        // Sampled at least every twentieth of a vertex's shortest contact period, a half-sine
        // pulse's peak lies at most π/20 of its phase from a sample: within cos(π/20) = 0.988 of
        // it. Loads shared by several vertices are not half-sines; 0.95 allows that (measured
        // worst over the 42 touchdowns: 0.996). No sample can exceed the step-resolution peak.
        let sampled = inside.iter().map(|r| r[24]).fold(0.0, f64::max);
        worst = worst.min(sampled / i.peak_force);
        assert!(
            sampled <= i.peak_force * (1.0 + 1e-12) && sampled >= 0.95 * i.peak_force,
            "touchdown {n} at {:.3} s: sampled peak {sampled} N vs {} N",
            i.time,
            i.peak_force
        );
        assert!(i.energy_lost > 0.0 && i.normal_speed > 0.0, "touchdown {n}: {i:?}");
    }
    eprintln!("worst sampled peak / peak: {worst:.4}");
}
