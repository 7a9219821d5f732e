//! Unit tests of the vertex contact: the regularisation, the stick force, the tangent basis, the
//! power of friction and rolling resistance.

use super::*;
use tumble_geometry::sdf::{HalfSpace, Sphere};

fn params() -> VertexContactParams {
    VertexContactParams {
        stiffness: 1e4,
        damping: 50.0,
        mu: 0.5,
        mu_static: 0.6,
        rolling: 0.01,
        v_star: 1e-3,
        w_star: 1e-3,
        stable_dt: 0.0,
    }
}

/// The tangential phase with `J α₀` from the body's own inertia.
fn tangential(
    p: &VertexContactParams,
    kin: &BodyKinematics,
    body: &Mobility,
    normal: (&NormalContact, &Patch),
    a0: &Vec3,
    alpha0: &Vec3,
) -> TangentialContact {
    let inertia = body.inertia_inv.try_inverse().expect("positive definite");
    tangential_phase(p, kin, body, normal, a0, (alpha0, &(inertia * alpha0)))
}

fn cube_body() -> Mobility {
    let i = Mat3::identity() * (2.0 * 0.04 / 6.0);
    Mobility { mass: 2.0, inertia_inv: i.try_inverse().expect("pd") }
}

#[test]
fn the_tangent_basis_is_orthonormal_and_right_handed() {
    let mut rng = tumble_math::Lcg::new(3u64);
    let mut normals: Vec<Vec3> =
        (0..1000).map(|_| Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()).normalize()).collect();
    normals.extend([Vec3::z(), -Vec3::z(), Vec3::x(), Vec3::new(0.0, 0.0, -0.0) - Vec3::z()]);
    for n in normals {
        let (t1, t2) = tangent_basis(&n);
        for (a, b, want) in [(t1, t1, 1.0), (t2, t2, 1.0), (t1, t2, 0.0), (t1, n, 0.0), (t2, n, 0.0)] {
            assert!((a.dot(&b) - want).abs() < 1e-15, "{n:?}");
        }
        assert!((t1.cross(&t2) - n).norm() < 1e-15, "{n:?}");
    }
}

#[test]
fn eta_ramps_smoothly_from_stick_to_slip() {
    assert_eq!(eta(0.0), 0.0);
    assert_eq!(eta(1.0), 1.0);
    assert_eq!(eta(3.0), 1.0);
    assert!((eta(1e-6) / 1e-6 - 2.0).abs() < 1e-5, "linear near zero");
    assert!((eta(1.0 - 1e-6) - 1.0).abs() < 1e-11, "C¹ at s = 1");
}

#[test]
fn stick_force_cancels_the_tangential_acceleration_and_stays_in_the_cone() {
    // A tilted body resting on a plane with two corners in, pushed sideways.
    let plane = HalfSpace { point: Vec3::zeros(), normal: Vec3::z() };
    let r_B = [Vec3::new(0.1, 0.1, -0.1), Vec3::new(-0.1, 0.1, -0.1), Vec3::new(0.1, -0.1, 0.1)];
    let kin =
        BodyKinematics { x: Vec3::new(0.0, 0.0, 0.0999), R_WB: Mat3::identity(), v: Vec3::zeros(), w: Vec3::zeros() };
    let body = cube_body();
    let p = params();
    let mut patch = Patch::new();
    let normal = normal_phase(&plane, &p, &kin, &r_B, &mut patch);
    assert_eq!(normal.active, 2);
    assert_eq!(patch.vertices(), &r_B[..2], "the patch holds the touching vertices");
    // Small push: the stick force holds the point still.
    let a0 = Vec3::new(0.3, -0.2, 0.0) + normal.force / body.mass;
    let alpha0 = body.inertia_inv * normal.torque;
    let t = tangential(&p, &kin, &body, (&normal, &patch), &a0, &alpha0);
    let a_p =
        a0 + t.friction / body.mass + (alpha0 + body.inertia_inv * normal.r_p.cross(&t.friction)).cross(&normal.r_p);
    let n = normal.n_p;
    assert!((a_p - n * n.dot(&a_p)).norm() < 1e-12, "tangential acceleration {a_p}");
    assert!(t.friction.dot(&n).abs() < 1e-12);
    // A large push: capped at μ_s F_N.
    let a0 = Vec3::new(300.0, 0.0, 0.0) + normal.force / body.mass;
    let t = tangential(&p, &kin, &body, (&normal, &patch), &a0, &alpha0);
    assert!((t.friction.norm() - p.mu_static * normal.load).abs() < 1e-9);
}

#[test]
fn friction_and_rolling_never_do_positive_work() {
    let plane = HalfSpace { point: Vec3::zeros(), normal: Vec3::z() };
    let r_B: Vec<Vec3> = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { 0.1 } else { -0.1 },
                if i & 2 == 0 { 0.1 } else { -0.1 },
                if i & 4 == 0 { 0.1 } else { -0.1 },
            )
        })
        .collect();
    let body = cube_body();
    let p = params();
    let mut rng = tumble_math::Lcg::new(5u64);
    let mut u = || rng.symmetric();
    let mut patch = Patch::new();
    for _ in 0..2000 {
        let kin = BodyKinematics {
            x: Vec3::new(0.0, 0.0, 0.1 + 0.002 * u()),
            R_WB: tumble_math::UnitQuat::from_scaled_axis(Vec3::new(u(), u(), u()) * 0.05)
                .to_rotation_matrix()
                .into_inner(),
            v: Vec3::new(u(), u(), u()) * 2e-3,
            w: Vec3::new(u(), u(), u()) * 2e-3,
        };
        let normal = normal_phase(&plane, &p, &kin, &r_B, &mut patch);
        if normal.active == 0 {
            continue;
        }
        let a0 = Vec3::new(u(), u(), u()) * 10.0;
        let alpha0 = Vec3::new(u(), u(), u()) * 100.0;
        let t = tangential(&p, &kin, &body, (&normal, &patch), &a0, &alpha0);
        assert!(t.friction_power <= 1e-15, "friction power {}", t.friction_power);
        assert!(t.rolling_power <= 1e-15, "rolling power {}", t.rolling_power);
        assert!(t.friction.norm() <= p.mu_static.max(p.mu) * normal.load * (1.0 + 1e-12), "Coulomb cone");
        assert!(t.rolling_torque.norm() <= p.rolling * normal.load * (1.0 + 1e-12));
        // The pair's moment about the contact point is bounded by the normal load's lever
        // arm.
        let moment = t.rolling_torque - normal.r_p.cross(&t.rolling_force);
        assert!(moment.norm() <= p.rolling * normal.load * (1.0 + 1e-12), "moment {}", moment.norm());
        assert!(normal.damper_power <= 0.0);
    }
}

/// A plane that counts the vertices it is asked about.
struct Counting(HalfSpace, std::cell::Cell<usize>);

impl ContactField for Counting {
    fn vertices(&self, index: &[usize], points: &[Vec3], out: &mut [(f64, Vec3)]) {
        self.1.set(self.1.get() + index.len());
        self.0.vertices(index, points, out)
    }
    fn application(&self, p: &Vec3) -> (f64, Vec3) {
        self.0.eval(p)
    }
}

#[test]
fn skipped_vertices_give_the_forces_of_querying_them() {
    // A 0.2 m cube tilted onto two corners, its upper corners 0.1 to 0.3 m out; recorded at one
    // state, then evaluated at states up to 5 mm and 0.05 rad away, with and without the record.
    let r_B: Vec<Vec3> =
        (0..8).map(|i| Vec3::new([0.1, -0.1][i & 1], [0.1, -0.1][(i >> 1) & 1], [0.1, -0.1][(i >> 2) & 1])).collect();
    let field = Counting(HalfSpace { point: Vec3::zeros(), normal: Vec3::z() }, 0.into());
    let turn = |a: Vec3| tumble_math::UnitQuat::from_scaled_axis(a).to_rotation_matrix().into_inner();
    let tilt = turn(Vec3::new(0.3, 0.1, 0.0));
    // The lowest corner 2 mm in.
    let low = r_B.iter().map(|r| (tilt * r).z).fold(f64::INFINITY, f64::min);
    let kin0 = BodyKinematics {
        x: Vec3::new(0.0, 0.0, -low - 0.002),
        R_WB: tilt,
        v: Vec3::new(0.01, 0.0, -0.02),
        w: Vec3::new(0.0, 0.1, 0.0),
    };
    let mut gaps = vec![0.0; 8];
    let (mut patch, mut patch_without) = (Patch::new(), Patch::new());
    let recorded = normal_phase_recording(&field, &params(), &kin0, &r_B, &mut gaps, &mut patch);
    assert!(recorded.active > 0 && recorded.active < 8);
    let mut rng = tumble_math::Lcg::new(11u64);
    let (mut skipped, mut compared) = (0, 0);
    for _ in 0..500 {
        let mut u = || rng.symmetric();
        let kin = BodyKinematics {
            x: kin0.x + Vec3::new(u(), u(), u()) * 3e-3,
            R_WB: turn(Vec3::new(0.3 + 0.03 * u(), 0.1 + 0.03 * u(), 0.03 * u())),
            ..kin0
        };
        // The bound the caller gives: 2 (|Δx|² + ‖ΔR‖_F² r_max²), r_max² = 0.03 m².
        let moved2 = 2.0 * ((kin.x - kin0.x).norm_squared() + (kin.R_WB - kin0.R_WB).norm_squared() * 0.03);
        field.1.set(0);
        let with = normal_forces_with(&field, &params(), &kin, &r_B, Some((&gaps, moved2)), &mut patch);
        let queried = field.1.get();
        let without = normal_forces_with(&field, &params(), &kin, &r_B, None, &mut patch_without);
        assert_eq!(field.1.get() - queried, 8, "without a record every vertex is queried");
        skipped += 8 - queried;
        compared += 1;
        assert_eq!(with.active, without.active);
        for (a, b) in [(with.force, without.force), (with.torque, without.torque), (with.r_p, without.r_p)] {
            assert_eq!(a, b, "the same figures, to the bit");
        }
        assert_eq!((with.load, with.damper_power), (without.load, without.damper_power));
        assert_eq!(patch.vertices(), patch_without.vertices(), "the same patch");
    }
    assert!(skipped >= 3 * compared, "the far corners are skipped: {skipped} in {compared} looks");
    // A bound larger than the gaps skips nothing.
    field.1.set(0);
    normal_forces_with(&field, &params(), &kin0, &r_B, Some((&gaps, 1.0)), &mut patch);
    assert_eq!(field.1.get(), 8);
}

#[test]
fn the_patch_holds_every_touching_vertex_across_chunks_and_skips() {
    // A lander of 21 vertices (more than two chunks of CHUNK): a 4 × 4 grid of feet 0.1 m
    // apart under it, interleaved with five points on its upper body. Tilted a little and
    // pressed 2 mm into a plane: some feet touch, the body points do not. The patch holds the
    // touching feet in their order, whether every vertex is queried or the far ones skipped.
    let mut r_B = Vec::new();
    for i in 0..16 {
        r_B.push(Vec3::new(0.1 * (i % 4) as f64 - 0.15, 0.1 * (i / 4) as f64 - 0.15, -0.2));
        if i % 3 == 0 {
            r_B.push(Vec3::new(0.05 * i as f64 - 0.4, 0.1, 0.3));
        }
    }
    assert!(r_B.len() > 2 * CHUNK);
    let plane = HalfSpace { point: Vec3::zeros(), normal: Vec3::z() };
    let tilt = tumble_math::UnitQuat::from_scaled_axis(Vec3::new(0.02, 0.01, 0.0)).to_rotation_matrix().into_inner();
    let low = r_B.iter().map(|r| (tilt * r).z).fold(f64::INFINITY, f64::min);
    let kin = BodyKinematics { x: Vec3::new(0.0, 0.0, -low - 0.002), R_WB: tilt, v: Vec3::zeros(), w: Vec3::zeros() };
    let want: Vec<Vec3> = r_B.iter().map(|r| tilt * r).filter(|r| (kin.x + r).z < 0.0).collect();
    assert!(want.len() > 2 && want.len() < 16, "{} feet touch", want.len());
    let (mut queried, mut skipping) = (Patch::new(), Patch::new());
    let mut gaps = vec![0.0; r_B.len()];
    let all = normal_phase_recording(&plane, &params(), &kin, &r_B, &mut gaps, &mut queried);
    assert_eq!(queried.vertices(), want.as_slice());
    assert_eq!(all.active, want.len());
    // Again a little later (0.1 mm down): the record lets the body points be skipped.
    let later = BodyKinematics { x: kin.x - Vec3::new(0.0, 0.0, 1e-4), ..kin };
    let skipped = normal_forces_with(&plane, &params(), &later, &r_B, Some((&gaps, 2.0 * 1e-8)), &mut skipping);
    let full = normal_forces_with(&plane, &params(), &later, &r_B, None, &mut queried);
    assert_eq!(skipping.vertices(), queried.vertices());
    assert_eq!((skipped.force, skipped.torque, skipped.active), (full.force, full.torque, full.active));
}

/// The normal phase's forces, written as the module docs state them with their divisions,
/// vertex by vertex: the reference for the shortcut of unit slopes.
fn forces_with_divisions(sdf: &dyn Sdf, p: &VertexContactParams, kin: &BodyKinematics, r_B: &[Vec3]) -> [f64; 7] {
    let (mut force, mut torque, mut load) = (Vec3::zeros(), Vec3::zeros(), 0.0);
    for r in r_B {
        let r = kin.R_WB * r;
        let (phi, grad) = sdf.eval(&(kin.x + r));
        if phi >= 0.0 {
            continue;
        }
        let norm = grad.norm();
        let vel = kin.v + kin.w.cross(&r);
        let closing = (-vel.dot(&grad) / norm).max(0.0);
        let (spring, damper) = (p.stiffness * -phi, p.damping * closing);
        let f = grad * (spring + damper / norm);
        force += f;
        torque += r.cross(&f);
        load += spring * norm + damper;
    }
    [force.x, force.y, force.z, torque.x, torque.y, torque.z, load]
}

#[test]
fn the_length_is_the_root_to_the_bit_about_one() {
    // The squares the shortcut takes are exactly those about 1 whose root rounds to 1 (checked
    // eight doubles either side), and on unit vectors as `normalize` leaves them `length` is
    // `norm` to the bit while the shortcut is taken for most of them.
    for k in -8i64..=8 {
        let n2 = f64::from_bits(1.0f64.to_bits().wrapping_add_signed(k));
        assert_eq!(unit_square(n2), n2.sqrt() == 1.0, "|v|² = 1 {k:+} ulp");
    }
    let mut g = tumble_math::Lcg::new(2);
    let mut shortcut = 0;
    for _ in 0..10_000 {
        let v = Vec3::new(g.symmetric(), g.symmetric(), g.symmetric()).normalize();
        assert_eq!(length(&v).to_bits(), v.norm().to_bits());
        shortcut += usize::from(unit_square(v.norm_squared()));
    }
    // About two in three (200,000 vectors: 50 % |v|² = 1, 17 % 1 + 2⁻⁵²).
    assert!(shortcut > 6_000, "{shortcut} of 10,000 unit vectors take the shortcut");
}

#[test]
fn a_unit_slope_skips_the_divisions_and_gives_their_bits() {
    // Fields whose gradient is of length 1 exactly (an axis), within a rounding of 1 (a tilted
    // unit normal, a sphere's radial direction) and 1.3 (a steep field): the shortcut of
    // `length` applies where the root rounds to 1, and all give the bits of the law divided
    // through.
    let mut g = tumble_math::Lcg::new(11);
    let cube: Vec<Vec3> = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { -0.5 } else { 0.5 },
                if i & 2 == 0 { -0.5 } else { 0.5 },
                if i & 4 == 0 { -0.5 } else { 0.5 },
            )
        })
        .collect();
    for case in 0..400 {
        let tilted = Vec3::new(0.3 * g.symmetric(), 0.3 * g.symmetric(), 1.0).normalize();
        let axis = Vec3::new(g.symmetric(), g.symmetric(), g.symmetric());
        let kin = BodyKinematics {
            // Less than half the cube's width from the surface: a corner is in.
            x: tilted * (0.49 - 0.04 * g.unit()),
            R_WB: *tumble_math::UnitQuat::from_scaled_axis(axis * 0.2).to_rotation_matrix().matrix(),
            v: Vec3::new(g.symmetric(), g.symmetric(), g.symmetric()) * 0.1,
            w: Vec3::new(g.symmetric(), g.symmetric(), g.symmetric()),
        };
        // The fourth field: a sphere of 20 m under the cube, whose radial gradients differ from
        // corner to corner and have length 1 to the bit at some of them only.
        let sphere = Sphere { center: tilted * -20.0, radius: 20.0 };
        let normal = [Vec3::z(), tilted, tilted * 1.3][case % 4 % 3];
        let plane = HalfSpace { point: Vec3::zeros(), normal };
        let field: &dyn Sdf = if case % 4 == 3 { &sphere } else { &plane };
        let out = normal_phase(field, &params(), &kin, &cube, &mut Patch::new());
        let got = [out.force.x, out.force.y, out.force.z, out.torque.x, out.torque.y, out.torque.z, out.load];
        let want = forces_with_divisions(field, &params(), &kin, &cube);
        assert!(out.active > 0, "case {case}: no vertex touches");
        assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits), "case {case}, normal {normal:?}");
        let g_p = field.eval(&(kin.x + out.r_p)).1;
        let n_p = g_p * (1.0 / g_p.norm());
        assert_eq!([out.n_p.x, out.n_p.y, out.n_p.z].map(f64::to_bits), [n_p.x, n_p.y, n_p.z].map(f64::to_bits));
    }
}
