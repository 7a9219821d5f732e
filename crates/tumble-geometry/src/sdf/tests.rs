use super::*;
use approx::assert_relative_eq;
use tumble_math::numdiff::central_gradient;
use tumble_math::{Pose, UnitQuat};

/// Deterministic points in a box (xorshift), no dependency needed.
fn points(n: usize, half: f64) -> Vec<Vec3> {
    let mut s = 0x9E37_79B9_7F4A_7C15_u64;
    let mut u = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    (0..n).map(|_| Vec3::new(u(), u(), u()) * half).collect()
}

/// An exact SDF: unit gradient equal to the finite-difference gradient, and the projection
/// `p − φ∇φ` lands on the surface.
fn check_exact(s: &dyn Sdf, half: f64) {
    for p in points(400, half) {
        let (d, g) = s.eval(&p);
        assert_relative_eq!(g.norm(), 1.0, epsilon = 1e-12);
        assert!(s.distance(&(p - d * g)).abs() < 1e-9 * half, "projection of {p} misses the surface");
        let fd = central_gradient(|q| s.distance(q), &p, 1e-6 * half);
        // Skips the medial set (creases of the field) where the gradient jumps.
        if (fd.norm() - 1.0).abs() < 1e-4 {
            assert!((fd - g).norm() < 1e-5, "gradient at {p}: {g} vs FD {fd}");
        }
    }
}

#[test]
fn primitives_are_exact_distance_fields() {
    check_exact(&Sphere { center: Vec3::new(0.1, -0.2, 0.3), radius: 0.8 }, 2.0);
    check_exact(&HalfSpace { point: Vec3::new(0.0, 0.0, 0.2), normal: Vec3::new(0.0, 0.6, 0.8) }, 2.0);
    check_exact(&BoxSdf { half: Vec3::new(0.5, 0.3, 0.8) }, 2.0);
    check_exact(&Capsule { a: Vec3::new(-0.5, 0.0, 0.0), b: Vec3::new(0.4, 0.3, 0.1), radius: 0.25 }, 2.0);
    check_exact(&Ellipsoid { semi_axes: Vec3::new(1.0, 0.6, 0.35) }, 2.0);
    // Elongated and nearly spherical ellipsoids stress the root finder.
    check_exact(&Ellipsoid { semi_axes: Vec3::new(0.2, 3.0, 0.05) }, 4.0);
    check_exact(&Ellipsoid { semi_axes: Vec3::new(1.0, 1.0 - 1e-9, 1.0) }, 2.0);
}

#[test]
fn ellipsoid_distance_is_the_minimum_over_its_surface() {
    let e = Ellipsoid { semi_axes: Vec3::new(1.5, 1.0, 0.5) };
    // Dense surface sampling (the distance to it exceeds the true one by at most the sampling
    // gap's sagitta), including points on axes and planes where the root finder branches.
    let mut surface = Vec::new();
    let n = 400;
    for i in 0..=n {
        let th = std::f64::consts::PI * i as f64 / n as f64;
        for j in 0..2 * n {
            let ph = std::f64::consts::PI * j as f64 / n as f64;
            surface.push(Vec3::new(th.sin() * ph.cos(), th.sin() * ph.sin(), th.cos()).component_mul(&e.semi_axes));
        }
    }
    let mut probes = points(40, 2.5);
    probes.extend([
        Vec3::zeros(),
        Vec3::new(0.3, 0.0, 0.0),
        Vec3::new(0.0, 0.0, 0.2),
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::new(0.0, 0.5, 0.0),
        Vec3::new(1.2, 0.3, 0.0),
    ]);
    for p in probes {
        let d = e.distance(&p).abs();
        let brute = surface.iter().map(|s| (s - p).norm()).fold(f64::INFINITY, f64::min);
        // Sampling gap ≈ 1.5·π/400 ≈ 0.012 m: the brute-force minimum can only be larger, by
        // at most about half the gap.
        assert!(d <= brute + 1e-12 && brute - d < 0.006, "{p}: exact {d}, sampled {brute}");
        let inside = p.component_div(&e.semi_axes).norm_squared() < 1.0;
        assert_eq!(e.distance(&p) < 0.0, inside, "sign at {p}");
    }
}

#[test]
fn smooth_union_blends_only_near_the_seam() {
    let a = Sphere { center: Vec3::new(-0.6, 0.0, 0.0), radius: 0.5 };
    let b = Sphere { center: Vec3::new(0.6, 0.0, 0.0), radius: 0.5 };
    let k = 0.2;
    let u = SmoothUnion { parts: vec![Box::new(a), Box::new(b)], k };
    for p in points(300, 2.0) {
        let (da, db) = (a.distance(&p), b.distance(&p));
        let (d, g) = u.eval(&p);
        assert!(d <= da.min(db) + 1e-15, "never above the sharp union");
        if (da - db).abs() >= k {
            assert_eq!(d, da.min(db));
        }
        let fd = central_gradient(|q| u.distance(q), &p, 1e-7);
        assert!((fd - g).norm() < 1e-6, "{p}: {g} vs {fd}");
    }
    // The neck between the spheres is filled: the origin is outside both spheres but the blend
    // pulls it inward by k/4 at the seam.
    assert_relative_eq!(u.distance(&Vec3::zeros()), 0.1 - k / 4.0, epsilon = 1e-15);
}

#[test]
fn placed_field_moves_rigidly() {
    let e = Ellipsoid { semi_axes: Vec3::new(1.0, 0.5, 0.3) };
    let X_WB = Pose::new(Vec3::new(10.0, -3.0, 2.0), UnitQuat::from_scaled_axis(Vec3::new(0.4, -0.7, 0.2)));
    let placed = Placed { sdf: e, X_WB };
    for p_B in points(50, 2.0) {
        let (d, g) = placed.eval(&X_WB.transform_point(&p_B));
        let (d0, g0) = e.eval(&p_B);
        assert_relative_eq!(d, d0, epsilon = 1e-12);
        assert_relative_eq!(g, X_WB.transform_vector(&g0), epsilon = 1e-12);
    }
}

#[test]
fn radial_extent_finds_the_outermost_surface_point_on_a_ray() {
    // A box's surface along u lies at min_i h_i/|u_i| (exit of the ray from its centre).
    let b = BoxSdf { half: Vec3::new(1.0, 2.0, 3.0) };
    for p in points(200, 1.0) {
        let Some(u) = p.try_normalize(1e-9) else { continue };
        let want = (0..3).map(|i| b.half[i] / u[i].abs()).fold(f64::INFINITY, f64::min);
        let r = radial_extent(&b, &Vec3::zeros(), &u, 10.0, 1e-10).expect("a hit");
        assert!((r - want).abs() < 1e-9, "{u}: {r} vs {want}");
    }
    // A sphere off the origin: the far side first along +x, nothing along −x.
    let s = Sphere { center: Vec3::new(5.0, 0.0, 0.0), radius: 1.0 };
    assert!((radial_extent(&s, &Vec3::zeros(), &Vec3::x(), 10.0, 1e-10).unwrap() - 6.0).abs() < 1e-9);
    assert_eq!(radial_extent(&s, &Vec3::zeros(), &-Vec3::x(), 10.0, 1e-10), None);
}
