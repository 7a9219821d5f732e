use super::*;
use crate::Load;
use crate::analytic::torque_free_period;
use crate::gravity::{NoGravity, PointMass};
use crate::integrator::{Dopri5Settings, Integrator, Method};
use approx::assert_relative_eq;
use std::ops::ControlFlow;
use tumble_geometry::MassProperties;
use tumble_math::special::jacobi_sn_cn_dn;
use tumble_math::{Mat3, UnitQuat};

fn body(name: &str, mass: f64, moments: [f64; 3]) -> RigidBody {
    RigidBody::new(name, &MassProperties::new(mass, Mat3::from_diagonal(&Vec3::from(moments))))
}

fn free(bodies: Vec<RigidBody>) -> RigidBodySystem {
    RigidBodySystem { bodies, gravity: Box::new(NoGravity) }
}

fn tight() -> Method {
    Method::Dopri5(Dopri5Settings {
        rtol: 1e-12,
        atol: 1e-14,
        h_initial: 1e-3,
        h_min: 1e-12,
        h_max: 1.0,
        max_steps: u64::MAX,
    })
}

/// Integrates to `t_end`, calling `f` after every step.
fn run(
    sys: &mut RigidBodySystem,
    method: Method,
    y: &mut [f64],
    t_end: f64,
    f: &mut dyn FnMut(f64, &[f64]),
) -> Integrator {
    let mut integ = Integrator::new(method, y.len());
    let mut t = 0.0;
    let flow = integ
        .advance_to(sys, &mut t, y, t_end, &mut |t, y| {
            f(t, y);
            ControlFlow::Continue(())
        })
        .expect("integration succeeds");
    assert!(flow.is_continue());
    integ
}

const MOMENTS: [f64; 3] = [1.0, 2.0, 3.0];

fn tumbling() -> (RigidBodySystem, Vec<f64>) {
    let sys = free(vec![body("b", 2.0, MOMENTS)]);
    let s = BodyState {
        p_WB: Vec3::new(1.0, -2.0, 0.5),
        v_WB: Vec3::new(0.1, 0.2, -0.3),
        q_WB: UnitQuat::from_scaled_axis(Vec3::new(0.3, -0.2, 0.8)),
        w_WB_B: Vec3::new(0.2, 1.0, 0.3),
    };
    let y = sys.pack(&[s]);
    (sys, y)
}

/// Largest relative drift of kinetic energy and of world angular momentum over a run.
fn drifts(method: Method, t_end: f64) -> (f64, f64) {
    let (mut sys, mut y) = tumbling();
    let i0 = sys.invariants(&y);
    let (mut de, mut dh) = (0.0_f64, 0.0_f64);
    let probe = free(vec![body("b", 2.0, MOMENTS)]);
    run(&mut sys, method, &mut y, t_end, &mut |_, y| {
        let i = probe.invariants(y);
        de = de.max((i.kinetic - i0.kinetic).abs() / i0.kinetic);
        dh = dh.max((i.angular_momentum - i0.angular_momentum).norm() / i0.angular_momentum.norm());
    });
    (de, dh)
}

#[test]
fn torque_free_body_conserves_energy_and_momentum_dopri5() {
    // Requirement: relative drift ≤ 1e-9 over 1000 s at tight tolerance (rtol 1e-12).
    // Measured: 1.3e-11 in energy, 1.9e-11 in angular momentum.
    let (de, dh) = drifts(tight(), 1000.0);
    assert!(de <= 1e-9, "energy drift {de:e}");
    assert!(dh <= 1e-9, "angular momentum drift {dh:e}");
}

#[test]
fn torque_free_body_rk4_drift_at_10ms() {
    // RK4 at dt = 10 ms (|ω|·dt ≈ 0.01) over 1000 s: measured 4.2e-11 in energy and 1.2e-10
    // in angular momentum (RK4 is not symplectic: the drift is secular, linear in time).
    // Bounded at 1e-9, an order of magnitude above the measurement.
    let (de, dh) = drifts(Method::Rk4 { dt: 0.01 }, 1000.0);
    assert!(de <= 1e-9, "energy drift {de:e}");
    assert!(dh <= 1e-9, "angular momentum drift {dh:e}");
}

#[test]
fn euler_equations_match_jacobi_elliptic_solution() {
    // Initial rate with ω₂ = 0 and H² > 2T I₂: the exact solution is
    // ω = (A cn, B sn, C dn)(λt | m) with the amplitudes of Landau & Lifshitz §37.
    let (i1, i2, i3) = (MOMENTS[0], MOMENTS[1], MOMENTS[2]);
    let w0 = Vec3::new(0.4, 0.0, 0.9);
    let two_t = i1 * w0.x * w0.x + i3 * w0.z * w0.z;
    let h2 = (i1 * w0.x).powi(2) + (i3 * w0.z).powi(2);
    assert!(h2 > two_t * i2);
    let a = ((two_t * i3 - h2) / (i1 * (i3 - i1))).sqrt();
    let b = ((two_t * i3 - h2) / (i2 * (i3 - i2))).sqrt();
    let c = ((h2 - two_t * i1) / (i3 * (i3 - i1))).sqrt();
    let lam = ((i3 - i2) * (h2 - two_t * i1) / (i1 * i2 * i3)).sqrt();
    let m = (i2 - i1) * (two_t * i3 - h2) / ((i3 - i2) * (h2 - two_t * i1));
    let mut sys = free(vec![body("b", 1.0, MOMENTS)]);
    let mut y = sys.pack(&[BodyState { w_WB_B: w0, ..Default::default() }]);
    let mut worst = 0.0_f64;
    run(&mut sys, tight(), &mut y, 60.0, &mut |t, y| {
        let (sn, cn, dn) = jacobi_sn_cn_dn(lam * t, m);
        let exact = Vec3::new(a * cn, b * sn, c * dn);
        worst = worst.max((BodyState::read(&y[..13]).w_WB_B - exact).norm());
    });
    // Tolerance 1e-12 per step over ~10⁴ steps: global error of order 1e-10.
    assert!(worst < 1e-9, "largest |ω − ω_exact| = {worst:e} rad/s");
}

#[test]
fn intermediate_axis_flip_period_matches_elliptic_integral() {
    // Spin about the intermediate axis with a small perturbation: ω₂ flips sign periodically.
    let w0 = Vec3::new(0.01, 2.0, 0.01);
    let expected = torque_free_period(MOMENTS, &w0).expect("not on the separatrix");
    let mut sys = free(vec![body("b", 1.0, MOMENTS)]);
    let mut y = sys.pack(&[BodyState { w_WB_B: w0, ..Default::default() }]);
    let mut upward = Vec::new();
    let mut prev = (0.0, w0.y);
    run(&mut sys, Method::Rk4 { dt: 1e-3 }, &mut y, 3.5 * expected, &mut |t, y| {
        let w2 = y[11];
        if prev.1 < 0.0 && w2 >= 0.0 {
            // Linear interpolation of the crossing time.
            upward.push(prev.0 + (t - prev.0) * (-prev.1) / (w2 - prev.1));
        }
        prev = (t, w2);
    });
    assert!(upward.len() >= 2, "ω₂ must flip at least twice, crossings {upward:?}");
    let measured = upward[1] - upward[0];
    assert_relative_eq!(measured, expected, max_relative = 0.01);
}

#[test]
fn circular_orbit_closes_after_one_period() {
    let mu: f64 = 3.986_004_418e14;
    let r: f64 = 7.0e6;
    let v = (mu / r).sqrt();
    let period = 2.0 * std::f64::consts::PI * (r * r * r / mu).sqrt();
    let start = BodyState { p_WB: Vec3::new(r, 0.0, 0.0), v_WB: Vec3::new(0.0, v, 0.0), ..Default::default() };
    for (method, bound) in [
        // Position miss after one 97-minute revolution at r = 7000 km. Bounds are 10× the
        // measured misses: DOPRI5 at rtol 1e-12 misses by 1.0e-4 m (1.5e-11 of r)…
        (
            Method::Dopri5(Dopri5Settings {
                rtol: 1e-12,
                atol: 1e-9,
                h_initial: 1.0,
                h_min: 1e-9,
                h_max: 600.0,
                max_steps: u64::MAX,
            }),
            1e-3,
        ),
        // …and RK4 at 1 s (5828 steps a revolution) by 9.5e-7 m.
        (Method::Rk4 { dt: 1.0 }, 1e-5),
    ] {
        let mut sys = RigidBodySystem {
            bodies: vec![body("sat", 100.0, [1.0, 2.0, 2.5])],
            gravity: Box::new(PointMass { mu, center: Vec3::zeros() }),
        };
        let mut y = sys.pack(&[start]);
        run(&mut sys, method, &mut y, period, &mut |_, _| {});
        let end = sys.body_state(&y, 0);
        let miss = (end.p_WB - start.p_WB).norm();
        assert!(miss < bound, "{method:?}: orbit misses closure by {miss:e} m");
    }
}

#[test]
fn applied_loads_accelerate_and_their_work_balances_energy() {
    // A thruster force along body x applied off the centre of mass, plus a world force: the
    // energy balance T(t) − W(t) = T(0) holds to integration accuracy.
    let mut b = body("b", 4.0, MOMENTS);
    b.loads = vec![
        Load::BodyForce { force_B: Vec3::new(2.0, 0.0, 0.0), point_B: Vec3::new(0.0, 0.1, 0.0) },
        Load::WorldForce { force_W: Vec3::new(0.0, 0.0, -1.0), point_B: Vec3::new(0.2, 0.0, 0.0) },
        Load::BodyTorque { torque_B: Vec3::new(0.0, 0.05, 0.0) },
    ];
    let mut sys = free(vec![b]);
    let mut y = sys.pack(&[BodyState { w_WB_B: Vec3::new(0.1, 0.2, 0.3), ..Default::default() }]);
    let t0 = sys.invariants(&y).kinetic;
    let probe = free(vec![body("b", 4.0, MOMENTS)]);
    let mut worst = 0.0_f64;
    run(&mut sys, tight(), &mut y, 20.0, &mut |_, y| {
        let inv = probe.invariants(y);
        worst = worst.max((inv.kinetic - inv.work - t0).abs());
    });
    let inv = sys.invariants(&y);
    assert!(inv.work.abs() > 1.0, "loads did work {}", inv.work);
    assert!(worst < 1e-9 * inv.work.abs(), "energy balance error {worst:e} J");
}

#[test]
fn world_force_gives_its_impulse_whatever_the_spin() {
    // A world-fixed force at an off-centre body point: linear momentum grows by exactly F·t
    // (the point of application only adds torque), while the body tumbles.
    let mut b = body("b", 4.0, MOMENTS);
    let f = Vec3::new(0.3, 0.0, -1.0);
    b.loads = vec![Load::WorldForce { force_W: f, point_B: Vec3::new(0.2, 0.1, 0.0) }];
    let mut sys = free(vec![b]);
    let mut y = sys.pack(&[BodyState { w_WB_B: Vec3::new(0.1, 0.2, 0.3), ..Default::default() }]);
    run(&mut sys, Method::Rk4 { dt: 0.01 }, &mut y, 20.0, &mut |_, _| {});
    // Translation decouples from rotation, and RK4 integrates a constant force exactly: only
    // round-off remains.
    assert_relative_eq!(sys.invariants(&y).linear_momentum, f * 20.0, max_relative = 1e-12);
    // The off-centre force exerts a torque: the spin angular momentum R·I·ω changes.
    let s = sys.body_state(&y, 0);
    let h = s.q_WB * (sys.bodies[0].inertia * s.w_WB_B);
    let h0 = sys.bodies[0].inertia * Vec3::new(0.1, 0.2, 0.3);
    // Torque-free it would stay h0 to round-off; measured change 0.72 kg·m²/s.
    assert!((h - h0).norm() > 0.5, "spin angular momentum changed by {}", (h - h0).norm());
}

#[test]
fn pure_torque_about_principal_axis_spins_up_linearly() {
    let mut b = body("b", 1.0, MOMENTS);
    b.loads = vec![Load::BodyTorque { torque_B: Vec3::new(0.0, 0.0, 0.6) }];
    let mut sys = free(vec![b]);
    let mut y = sys.pack(&[BodyState::default()]);
    run(&mut sys, Method::Rk4 { dt: 0.01 }, &mut y, 5.0, &mut |_, _| {});
    let s = sys.body_state(&y, 0);
    // ω_z = τ/I₃ t = 0.2 · 5 = 1 rad/s; angle = ½ ω̇ t² = 2.5 rad about z.
    assert_relative_eq!(s.w_WB_B, Vec3::new(0.0, 0.0, 1.0), epsilon = 1e-12);
    assert_relative_eq!(s.q_WB.angle(), 2.5, epsilon = 1e-10);
}
