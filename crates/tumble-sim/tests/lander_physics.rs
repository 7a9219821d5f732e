//! Physics of the lander model against analytic results and invariants.

use std::sync::Arc;
use tumble_contact::VertexContactParams;
use tumble_dynamics::rotating::TargetSpin;
use tumble_dynamics::{NoGravity, Uniform};
use tumble_geometry::sdf::HalfSpace;
use tumble_math::{Mat3, UnitQuat, Vec3};
use tumble_sim::lander::{LanderOutcome, LanderSettings, LanderSystem, Settle, pack, simulate};

const G: f64 = 1.0;

fn contact(k: f64, c: f64, mu: f64, rolling: f64) -> VertexContactParams {
    VertexContactParams {
        stiffness: k,
        damping: c,
        mu,
        mu_static: mu,
        rolling,
        v_star: 1e-3,
        w_star: 1e-3,
        stable_dt: 0.0,
    }
}

fn cube_vertices(a: f64) -> Vec<Vec3> {
    (0..8)
        .map(|i| {
            let s = |b: usize| if i & b == 0 { 0.5 * a } else { -0.5 * a };
            Vec3::new(s(1), s(2), s(4))
        })
        .collect()
}

/// A 1 kg cube of side 0.2 m on the plane with normal `n` through the origin, gravity `g`.
fn cube(n: Vec3, g: Vec3, params: VertexContactParams) -> LanderSystem {
    let i = Mat3::identity() * (0.04 / 6.0);
    LanderSystem {
        mass: 1.0,
        inertia: i,
        inertia_inv: i.try_inverse().expect("pd"),
        vertices: cube_vertices(0.2),
        contact: params,
        surface: Arc::new(HalfSpace { point: Vec3::zeros(), normal: n.normalize() }),
        gravity: Arc::new(Uniform { g }),
        spin: TargetSpin::Uniform,
        centre: Vec3::zeros(),
        expansion_radius: 0.0,
        expansion: None,
        actuation: Default::default(),
        sun: None,
    }
}

fn settings(dt: f64, duration: f64) -> LanderSettings {
    LanderSettings::plain(dt, duration)
}

fn column(run: &tumble_sim::lander::LanderRun, i: usize) -> Vec<(f64, f64)> {
    run.rows.iter().map(|r| (r[0], r[i])).collect()
}

#[test]
fn a_vertex_rebounds_with_the_restitution_of_the_compression_only_damper() {
    // One vertex at the centre of mass, no gravity: during compression m ẍ + c ẋ + k x = 0,
    // during restitution m ẍ + k x = 0. The deepest penetration is
    // x_max = (v₀/ω_n) exp(−ζ/√(1−ζ²) · atan2(√(1−ζ²), ζ)) and the spring returns all of
    // ½ k x_max², so e = ω_n x_max / v₀.
    let (m, k, c, v0) = (1.0, 1000.0, 10.0, 0.1);
    let mut sys = LanderSystem {
        mass: m,
        inertia: Mat3::identity() * 0.01,
        inertia_inv: Mat3::identity() * 100.0,
        vertices: vec![Vec3::zeros()],
        contact: contact(k, c, 0.0, 0.0),
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
        Vec3::new(0.0, 0.0, -v0),
        UnitQuat::identity(),
        Vec3::zeros(),
        UnitQuat::identity(),
        Vec3::zeros(),
    );
    let run = simulate(&mut sys, y0, &settings(1e-5, 0.4), &mut |_| {});
    let wn = (k / m).sqrt();
    let zeta = c / (2.0 * (k * m).sqrt());
    let s = (1.0 - zeta * zeta).sqrt();
    let e = (-zeta / s * s.atan2(zeta)).exp();
    let x_max = v0 / wn * e;
    let v_out = run.final_state[5];
    // Tolerances: the damper force jumps at touchdown (RK4 drops to first order for that one
    // step: relative error ~ ωₙ·dt = 3e-4), and the start/end of contact fall between steps.
    assert!((v_out / v0 - e).abs() < 1e-3 * e, "restitution {} vs {e}", v_out / v0);
    assert!((run.max_penetration / x_max - 1.0).abs() < 1e-3, "penetration {} vs {x_max}", run.max_penetration);
    assert_eq!(run.bounces(), 1);
}

#[test]
fn a_sliding_cube_decelerates_at_mu_g() {
    let mu = 0.3;
    let mut sys = cube(Vec3::z(), Vec3::new(0.0, 0.0, -G), contact(1e4, 40.0, mu, 0.0));
    // Start at the static sag mg/(4k) on the bottom face, sliding along x.
    let y0 = pack(
        Vec3::new(0.0, 0.0, 0.1 - G / 4e4),
        Vec3::new(0.5, 0.0, 0.0),
        UnitQuat::identity(),
        Vec3::zeros(),
        UnitQuat::identity(),
        Vec3::zeros(),
    );
    let run = simulate(&mut sys, y0, &settings(2e-4, 2.5), &mut |_| {});
    let vx = column(&run, 4);
    let at = |t: f64| vx.iter().find(|(ti, _)| *ti >= t - 1e-9).expect("sample").1;
    let decel = (at(0.2) - at(1.2)) / 1.0;
    // The normal load oscillates slightly as friction pitches the cube; the mean is mg.
    assert!((decel / (mu * G) - 1.0).abs() < 0.01, "deceleration {decel} vs μg = {}", mu * G);
    // It stops where v₀²/(2μg) puts it, to the length of the stick transition.
    let x_stop = run.final_state[0];
    assert!((x_stop - 0.25 / (2.0 * mu * G)).abs() < 2e-3, "stopped at {x_stop}");
    assert!(run.final_state[3].abs() < 1e-5, "at rest: {}", run.final_state[3]);
}

fn on_slope(theta_deg: f64, mu: f64, duration: f64) -> (tumble_sim::lander::LanderRun, Vec3) {
    let th = theta_deg.to_radians();
    let n = Vec3::new(-th.sin(), 0.0, th.cos());
    let mut sys = cube(n, Vec3::new(0.0, 0.0, -G), contact(1e4, 40.0, mu, 0.0));
    // Resting on its face, aligned with the slope, at the static sag.
    let q = UnitQuat::from_axis_angle(&Vec3::y_axis(), -th);
    let y0 = pack(n * (0.1 - G * th.cos() / 4e4), Vec3::zeros(), q, Vec3::zeros(), UnitQuat::identity(), Vec3::zeros());
    let run = simulate(&mut sys, y0, &settings(2e-4, duration), &mut |_| {});
    (run, n)
}

#[test]
fn a_block_on_a_slope_sticks_below_atan_mu_and_slides_above() {
    let mu = 0.5; // atan μ = 26.6°
    let (run, n) = on_slope(20.0, mu, 20.0);
    let th = 20f64.to_radians();
    let downhill = Vec3::new(-th.cos(), 0.0, -th.sin());
    let at = |t: f64| {
        let r = run.rows.iter().find(|r| r[0] >= t - 1e-9).expect("sample");
        Vec3::new(r[1], r[2], r[3])
    };
    // The first second is the elastic response: friction at the face centre tilts the cube on
    // its vertex springs (about 1e-5 m at the centre of mass). After it, the block must not
    // creep downhill: the stick force holds the application point, and the regularised slip
    // term (a viscous drag μF_N/v*) absorbs the stick force's residual. Bound: 1 nm over 18 s.
    let creep = at(19.9) - at(2.0);
    assert!(creep.dot(&downhill).abs() < 1e-9, "downhill creep {} m", creep.dot(&downhill));
    assert!(creep.dot(&n).abs() < 1e-9, "sinking {} m", creep.dot(&n));
    // A single friction point cannot resist spin about the normal (rolling resistance does
    // that): the residual yaw, seeded by rounding during the first 0.2 s of the transient
    // (1e-7 to 2e-6 rad/s depending on the last bits of the arithmetic), turns the centre of
    // mass about the application point, which the stick force holds: it does not slide
    // (|v_T| at rounding, 1e-16 m/s; bound 1e-12), and the sideways creep is no more than the
    // yaw carries the centre of mass over 17.9 s (|ω| |r_p| t).
    let late = run.rows.iter().filter(|r| r[0] >= 2.0);
    let (slide, turn) =
        late.fold((0.0f64, 0.0f64), |(s, w), r| (s.max(r[15]), w.max(r[8] * Vec3::new(r[29], r[30], r[31]).norm())));
    assert!(slide < 1e-12, "the application point slides at {slide} m/s");
    assert!(creep.norm() <= turn * 17.9 * (1.0 + 1e-3), "creep {creep}, yaw sweep {turn} m/s");
    // At rest the recorded contact force carries the weight: normal load m g cos θ, friction
    // m g sin θ, their sum −m g; for the moments to balance, applied where the vertical through
    // the centre of mass meets the face (n·r = −0.1 m): r = −0.1/cos θ ẑ. The transient has
    // decayed to ~1e-9 (creep above), so 1e-6 on forces; the application point is a weighted
    // mean of vertex positions, off by the cube's elastic tilt on its springs (~1e-5 rad × 0.1 m).
    let r = run.rows.last().unwrap();
    let (load, friction) = (r[24], r[25]);
    let (f, at) = (Vec3::new(r[26], r[27], r[28]), Vec3::new(r[29], r[30], r[31]));
    assert!((load - G * th.cos()).abs() < 1e-6 && (friction - G * th.sin()).abs() < 1e-6, "{load} {friction}");
    assert!((f - Vec3::new(0.0, 0.0, G)).norm() < 1e-6, "{f}");
    assert!((at - Vec3::new(0.0, 0.0, -0.1 / th.cos())).norm() < 1e-5, "{at}");

    let (run, n) = on_slope(35.0, mu, 1.0);
    let th = 35f64.to_radians();
    let downhill = Vec3::new(-th.cos(), 0.0, -th.sin());
    let a = G * (th.sin() - mu * th.cos());
    let v = Vec3::new(run.final_state[3], run.final_state[4], run.final_state[5]);
    // The normal velocity is the residual bounce of the spring settling (c = 40 N·s/m damps it
    // within ~0.1 s to well below 1e-4 m/s); the 1 % on the slide covers the pitch oscillation of
    // the normal load, as on the flat.
    assert!(v.dot(&n).abs() < 1e-4);
    assert!((v.dot(&downhill) / (a * 1.0) - 1.0).abs() < 0.01, "slides at {} vs {}", v.dot(&downhill), a);
}

#[test]
fn rolling_resistance_stops_a_spinning_cube_at_the_predicted_rate() {
    // Spinning about the vertical on its face: the application point is the centre of the
    // face, which does not move, so friction is idle and ω̇ = −C_RR m g / I_zz exactly.
    let c_rr = 0.01;
    let mut sys = cube(Vec3::z(), Vec3::new(0.0, 0.0, -G), contact(1e4, 40.0, 0.5, c_rr));
    let y0 = pack(
        Vec3::new(0.0, 0.0, 0.1 - G / 4e4),
        Vec3::zeros(),
        UnitQuat::identity(),
        Vec3::new(0.0, 0.0, 0.5),
        UnitQuat::identity(),
        Vec3::zeros(),
    );
    let run = simulate(&mut sys, y0, &settings(2e-4, 0.6), &mut |_| {});
    let rate = column(&run, 8);
    let at = |t: f64| rate.iter().find(|(ti, _)| *ti >= t - 1e-9).expect("sample").1;
    let expected = c_rr * G / (0.04 / 6.0);
    let measured = (at(0.05) - at(0.25)) / 0.2;
    // The normal load settles at m g to the spring's residual oscillation (≪ 1e-3 after 0.05 s
    // at ζ = 0.2 per vertex); once stopped, the regularised stick holds ω within ω*·(a few 1e-3).
    assert!((measured / expected - 1.0).abs() < 1e-3, "ω̇ {measured} vs {expected}");
    assert!(run.final_state[12].abs() < 1e-5, "stopped: {}", run.final_state[12]);
}

/// A 1 kg cube of side 0.2 m thrown at a plane with a spin, in a Phobos-like field.
fn phobos_cube() -> (LanderSystem, [f64; tumble_sim::lander::STATE_LEN]) {
    let sys = cube(Vec3::z(), Vec3::new(0.0, 0.0, -5.7e-3), contact(100.0, 2.0, 0.5, 0.005));
    let y0 = pack(
        Vec3::new(0.0, 0.0, 0.25),
        Vec3::new(0.03, 0.01, -0.05),
        UnitQuat::from_scaled_axis(Vec3::new(0.3, -0.2, 0.5)),
        Vec3::new(0.05, -0.1, 0.02),
        UnitQuat::identity(),
        Vec3::zeros(),
    );
    (sys, y0)
}

#[test]
fn contact_never_creates_energy_and_the_budget_closes() {
    let (mut sys, y0) = phobos_cube();
    let run = simulate(&mut sys, y0, &settings(1e-3, 200.0), &mut |_| {});
    assert!(run.bounces() >= 2, "bounces {}", run.bounces());
    let energy = |r: &[f64]| r[16] + r[17] + r[18] + r[19];
    let e0 = energy(&run.rows[0]);
    let mut prev = run.rows[0];
    let mut lowest = e0;
    for r in &run.rows[1..] {
        // Dissipation is ≥ 0 on every step, by construction of each force (to the rounding of
        // a power that is clipped to zero).
        for c in 20..23 {
            assert!(
                r[c] >= prev[c] - 1e-15 * e0,
                "{} decreased at t = {}: {} → {}",
                tumble_sim::lander::sim::COLUMNS[c],
                r[0],
                prev[c],
                r[c]
            );
        }
        // So the energy can only rise by the integration error, which the budget bounds.
        assert!(energy(r) <= lowest + 2.0 * run.max_balance_error, "energy rose at t = {}", r[0]);
        lowest = lowest.min(energy(r));
        prev = *r;
    }
    // Budget: E + dissipated − E₀ stays within RK4's error on the integrated powers. It is
    // first order at each touchdown, where the damper force jumps by c·v_N: at most
    // c·v_N²·dt per touchdown, with v_N bounded by the speed plus the rate times the
    // half-diagonal.
    let dissipated = prev[20] + prev[21] + prev[22];
    assert!(dissipated > 0.5 * (e0 - energy(&prev)));
    let bound: f64 =
        run.contacts.iter().filter(|c| c.start).map(|c| 2.0 * (c.speed + c.rate * 0.174).powi(2) * 1e-3).sum();
    assert!(run.max_balance_error < bound, "balance error {} J, bound {bound} J", run.max_balance_error);
}

#[test]
fn settling_is_detected_on_the_cube() {
    let (mut sys, y0) = phobos_cube();
    let mut s = settings(5e-3, 3000.0);
    s.output_every = 100;
    s.settle = Some(Settle { speed: 1e-4, rate: 1e-3, dwell: 5.0 });
    let run = simulate(&mut sys, y0, &s, &mut |_| {});
    let LanderOutcome::Settled(t) = run.outcome else { panic!("outcome {:?}", run.outcome) };
    let fs = run.final_state;
    assert!(Vec3::new(fs[3], fs[4], fs[5]).norm() < 1e-4 && t < 3000.0);
    // Resting on a face: the centre of mass sits half a side above the plane, less the sag.
    assert!((fs[2] - 0.1).abs() < 1e-3, "height {}", fs[2]);
}

/// Frame T turns about the target's centre of mass `c` (not T's origin): a free spacecraft's
/// inertial position `Q_NT (x − c)` moves on a straight line, for uniform rotation and for a
/// torque-free target whose principal axes are not T's.
#[test]
fn a_free_spacecraft_moves_on_a_straight_inertial_line_in_the_rotating_frame() {
    let tilt = UnitQuat::from_scaled_axis(Vec3::new(0.3, -0.5, 0.2)).to_rotation_matrix();
    let tensor = tilt * Mat3::from_diagonal(&Vec3::new(1.0, 2.0, 3.0)) * tilt.transpose();
    let tilted = TargetSpin::TorqueFree { inertia: tensor, inertia_inv: tensor.try_inverse().expect("pd") };
    let c = Vec3::new(37.0, -12.0, 5.0);
    let cases = [
        (TargetSpin::Uniform, Vec3::zeros()),
        (TargetSpin::principal([1.0, 2.0, 3.0]), Vec3::zeros()),
        (TargetSpin::Uniform, c),
        (tilted, c),
    ];
    for (spin, centre) in cases {
        let i = Mat3::from_diagonal(&Vec3::new(2.0, 3.0, 4.0));
        let mut sys = LanderSystem {
            mass: 5.0,
            inertia: i,
            inertia_inv: i.try_inverse().expect("pd"),
            vertices: vec![],
            contact: contact(0.0, 0.0, 0.0, 0.0),
            surface: Arc::new(HalfSpace { point: Vec3::new(0.0, 0.0, -1e9), normal: Vec3::z() }),
            gravity: Arc::new(NoGravity),
            spin,
            centre,
            expansion_radius: 0.0,
            expansion: None,
            actuation: Default::default(),
            sun: None,
        };
        let (x0, v0, w0, omega0) = (
            Vec3::new(100.0, -50.0, 20.0),
            Vec3::new(0.3, 0.1, -0.2),
            Vec3::new(0.01, 0.02, -0.03),
            Vec3::new(0.02, 0.1, 0.03),
        );
        let q0 = UnitQuat::from_scaled_axis(Vec3::new(0.2, 0.1, -0.4));
        let y0 = pack(x0, v0, q0, w0, UnitQuat::identity(), omega0);
        let run = simulate(&mut sys, y0, &settings(1e-2, 100.0), &mut |_| {});
        let y = run.final_state;
        let qn = UnitQuat::new_normalize(tumble_math::Quat::new(y[13], y[14], y[15], y[16]));
        let qs = UnitQuat::new_normalize(tumble_math::Quat::new(y[6], y[7], y[8], y[9]));
        let x_n = qn * (Vec3::new(y[0], y[1], y[2]) - centre);
        let expected = (x0 - centre) + (v0 + omega0.cross(&(x0 - centre))) * 100.0;
        // RK4 at 1e-2 s over 100 s of rotation at ~0.1 rad/s: error ~ (Ω dt)⁴ per unit time.
        assert!((x_n - expected).norm() < 1e-6, "{spin:?}: {x_n} vs {expected}");
        // The spacecraft's inertial angular momentum is constant.
        let h = |qn: UnitQuat, qs: UnitQuat, w: Vec3, omega: Vec3| {
            let ws = w + qs.inverse() * omega;
            qn * (qs * (i * ws))
        };
        let h0 = h(UnitQuat::identity(), q0, w0, omega0);
        let h1 = h(qn, qs, Vec3::new(y[10], y[11], y[12]), Vec3::new(y[17], y[18], y[19]));
        assert!((h1 - h0).norm() < 1e-9 * h0.norm(), "{spin:?}: H {h0} → {h1}");
        // The energy budget (with the frame's work for the tumbling target) closes.
        assert!(run.max_balance_error < 1e-9, "{spin:?}: balance error {}", run.max_balance_error);
    }
}

#[test]
fn rolling_resistance_slows_a_rolling_cylinder_as_the_model_predicts() {
    // A cylinder (radius a, axis y, 2 × 360 rim vertices) rolling without slip along x. The
    // rolling torque L and its compensating force F_RR = −m ((J⁻¹ L) × r_p)_T at the centre of
    // mass leave the contact point's tangential velocity alone, so the stick friction does not
    // respond, and their moment about the contact point is C_RR F_N: the normal load acting
    // C_RR ahead of the contact point, the textbook rolling resistance. About the contact line
    // (I_yy + m a²) ω̇ = −C_RR F_N, so v̇ = a ω̇ = −(2/3) C_RR g / a for I_yy = m a²/2 (rings
    // carry the mass of a solid cylinder here). Capping the torque about the centre of mass
    // instead (the document) gives −2 C_RR g / a, three times the textbook deceleration.
    let (a, m, c_rr) = (0.1, 1.0, 0.002);
    let i = Mat3::from_diagonal(&Vec3::new(
        m * (3.0 * a * a + 0.01) / 12.0,
        0.5 * m * a * a,
        m * (3.0 * a * a + 0.01) / 12.0,
    ));
    let vertices: Vec<Vec3> = (0..720)
        .map(|k| {
            let th = std::f64::consts::TAU * (k % 360) as f64 / 360.0;
            Vec3::new(a * th.cos(), if k < 360 { 0.05 } else { -0.05 }, a * th.sin())
        })
        .collect();
    let mut sys = LanderSystem {
        mass: m,
        inertia: i,
        inertia_inv: i.try_inverse().expect("pd"),
        vertices,
        contact: contact(200.0, 0.0, 0.8, c_rr),
        surface: Arc::new(HalfSpace { point: Vec3::zeros(), normal: Vec3::z() }),
        gravity: Arc::new(Uniform { g: Vec3::new(0.0, 0.0, -G) }),
        spin: TargetSpin::Uniform,
        centre: Vec3::zeros(),
        expansion_radius: 0.0,
        expansion: None,
        actuation: Default::default(),
        sun: None,
    };
    let v0 = 0.2;
    let y0 = pack(
        Vec3::new(0.0, 0.0, a - 1e-4),
        Vec3::new(v0, 0.0, 0.0),
        UnitQuat::identity(),
        Vec3::new(0.0, v0 / a, 0.0),
        UnitQuat::identity(),
        Vec3::zeros(),
    );
    let run = simulate(&mut sys, y0, &settings(1e-3, 3.0), &mut |_| {});
    let vx = column(&run, 4);
    let at = |t: f64| vx.iter().find(|(ti, _)| *ti >= t - 1e-9).expect("sample").1;
    let measured = (at(0.5) - at(2.5)) / 2.0;
    let expected = 2.0 / 3.0 * c_rr * G / a;
    // Dampers are off: compression-only dampers at the leading edge of the contact patch add a
    // viscoelastic rolling loss of their own (10 % more deceleration at c = 2 N·s/m). What is
    // left is the 360-gon's ripple (several vertices share the load; chord sagitta 3.8e-6 m
    // against ~1e-4 m penetration), measured at 0.23 %: 1 % bounds it.
    assert!((measured / expected - 1.0).abs() < 0.01, "v̇ = {measured} vs {expected}");
}

#[test]
fn local_surface_models_follow_the_exact_terrain() {
    // A 10 kg, 0.3 m cube dropped on the bundled comet's fBm terrain, sliding and rocking on
    // it: the run through local quadratic models (radius 2 mm) against the run with exact
    // queries, over the impact and 5 s of contact.
    use tumble_geometry::bodies::{BodyKind, body_sdf};
    use tumble_geometry::sdf::Sdf;
    let terrain: Arc<dyn Sdf> = Arc::new(body_sdf(BodyKind::BilobedComet, 4000.0, 3, true));
    let mut p = Vec3::new(-760.0, 0.0, 1200.0);
    for _ in 0..60 {
        let (d, g) = terrain.eval(&p);
        p -= g.normalize() * d;
    }
    let up = terrain.eval(&p).1.normalize();
    let q = UnitQuat::rotation_between(&Vec3::z(), &up).expect("not antiparallel");
    let i = Mat3::identity() * (10.0 * 0.09 / 6.0);
    let run = |radius: f64| {
        let mut sys = LanderSystem {
            mass: 10.0,
            inertia: i,
            inertia_inv: i.try_inverse().expect("pd"),
            vertices: cube_vertices(0.3),
            contact: contact(2000.0, 20.0, 0.5, 0.01),
            surface: terrain.clone(),
            gravity: Arc::new(Uniform { g: -up * 2e-4 }),
            spin: TargetSpin::Uniform,
            centre: Vec3::zeros(),
            expansion_radius: 0.0,
            expansion: None,
            actuation: Default::default(),
            sun: None,
        };
        sys.contact.v_star = 0.01;
        sys.contact.w_star = 0.01;
        let y0 = pack(
            p + up * 0.16,
            q * Vec3::new(0.02, 0.0, -0.01),
            q,
            Vec3::new(0.05, 0.0, 0.02),
            UnitQuat::identity(),
            Vec3::zeros(),
        );
        let mut s = settings(2e-3, 8.0);
        s.surface_expansion = radius;
        simulate(&mut sys, y0, &s, &mut |_| {})
    };
    let (exact, local) = (run(0.0), run(2e-3));
    assert!(exact.bounces() >= 1 && exact.max_penetration > 1e-4);
    let dx = Vec3::new(
        exact.final_state[0] - local.final_state[0],
        exact.final_state[1] - local.final_state[1],
        exact.final_state[2] - local.final_state[2],
    );
    // The models' Taylor remainder is |∇³φ| R³/6 ≈ 0.5 · (2 mm)³/6 ≈ 7e-10 m at this radius (the
    // finest octave, ~1 m at 0.8 rad/m, sets |∇³φ|); after two impacts and 5 s of rocking the
    // runs agree to 4.7e-10 m. 1e-8 m is ten remainders, room for the chaotic amplification of a
    // few bounces without letting an error of the models' order 1e-6 m (R/2000) through.
    assert!(dx.norm() < 1e-8, "positions differ by {} m", dx.norm());
    // The models' rebuild remainders are booked, so the budget closes as well as with exact
    // queries (measured: equal to 5 digits); twice allows for the bounces falling differently.
    assert!(local.max_balance_error < 2.0 * exact.max_balance_error + 1e-9);
}

#[test]
fn the_attitude_is_the_normalised_quaternion_at_every_stage() {
    // RK4's stages evaluate the rates at y + c h k, whose quaternions lie off the unit sphere by
    // O(h²|q̇|²). The rotation is that of q/|q|: a cube pressed into the plane, spinning in a
    // turning frame, has the same rates (forces, torques, q̇ and the frame's) at q scaled by
    // 1 + 1e-6 as at q itself. Built from q unnormalised, the contact torques moved by 1e-6
    // of themselves (and the CPU and GPU backends, which built it differently, by that apart).
    use tumble_dynamics::integrator::OdeSystem;
    let mut sys = cube(Vec3::z(), Vec3::new(0.0, 0.0, -1.0), contact(1e4, 20.0, 0.5, 0.005));
    let q = UnitQuat::from_scaled_axis(Vec3::new(0.1, -0.2, 0.05));
    let q_frame = UnitQuat::from_scaled_axis(Vec3::new(0.0, 0.0, 0.3));
    let y = pack(
        Vec3::new(0.0, 0.0, 0.1),
        Vec3::new(0.02, -0.01, -0.1),
        q,
        Vec3::new(0.3, 0.2, -0.4),
        q_frame,
        Vec3::new(0.0, 0.0, 1e-3),
    );
    let mut scaled = y;
    for i in (6..10).chain(13..17) {
        scaled[i] *= 1.0 + 1e-6;
    }
    let (mut a, mut b) = ([0.0; tumble_sim::lander::STATE_LEN], [0.0; tumble_sim::lander::STATE_LEN]);
    sys.rhs(0.0, &y, &mut a);
    sys.rhs(0.0, &scaled, &mut b);
    assert!(a[10..13].iter().any(|x| x.abs() > 10.0), "in contact: {:?}", &a[10..13]);
    for (i, (p, s)) in a.iter().zip(&b).enumerate() {
        // Normalising a quaternion scaled by 1 + 1e-6 lands within an ulp or two of the
        // original, which the contact stiffness (1e4 N/m on ~1e-2 m) carries to ~1e-13 of
        // the rates.
        assert!((p - s).abs() <= 1e-12 * p.abs().max(1.0), "rate {i}: {p:e} vs {s:e}");
    }
}
