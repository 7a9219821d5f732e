//! Tests of the convex hull builders.

use super::*;

/// The floating-point filter never contradicts the exact predicate: points on a plane
/// through three random points, moved off it by 0 to a few ulps, at scales from 1e-3 to
/// 1e6 m. (Points exactly on the plane in real arithmetic are rare in floating point; the
/// nudges make both signs and exact zeros common.)
#[test]
fn filter_agrees_with_the_exact_sign() {
    let mut rng = tumble_math::Lcg::new(3);
    let mut hb = HullBuilder::default();
    let (mut exact_calls, mut total) = (0, 0);
    for k in 0..2000 {
        let s = 10f64.powi(k % 10 - 3);
        let r = |rng: &mut tumble_math::Lcg| Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()) * s;
        let (a, b, c) = (r(&mut rng), r(&mut rng), r(&mut rng));
        let (u, v) = (rng.unit(), rng.unit());
        let mut p = a + (b - a) * u + (c - a) * v;
        let nudge = (rng.unit() * 8.0) as i32 - 4;
        p.z += nudge as f64 * f64::EPSILON * p.z.abs();
        let pts = vec![a, b, c, p];
        hb.faces.clear();
        let f = hb.new_face(&pts, [0, 1, 2]);
        let face = hb.faces[f as usize];
        let exact = height(&a, &b, &c, &p) > 0.0;
        let d = p - a;
        exact_calls += (face.n.dot(&d).abs() <= FILTER * face.n_abs.dot(&d.abs())) as usize;
        total += 1;
        assert_eq!(face.above(&pts, &p), exact, "case {k}");
    }
    assert!(exact_calls > 100 && exact_calls < total, "{exact_calls} of {total} left to the exact stage");
}

fn cube_with_extras() -> Vec<Vec3> {
    let mut p = Vec::new();
    for i in 0..8 {
        p.push(Vec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64));
    }
    // Face centres, edge midpoints, the centre and a repeated corner: none is extreme.
    p.push(Vec3::new(0.5, 0.5, 1.0));
    p.push(Vec3::new(0.5, 0.0, 0.0));
    p.push(Vec3::new(0.5, 0.5, 0.5));
    p.push(Vec3::new(1.0, 1.0, 1.0));
    p.push(Vec3::new(0.0, 0.5, 0.5));
    p
}

#[test]
fn cube_corners_area_volume() {
    let p = cube_with_extras();
    let h = convex_hull(&p).unwrap();
    assert_eq!(h.dimension, 3);
    assert_eq!(h.vertices, (0..8).collect::<Vec<_>>());
    assert!((h.area(&p) - 6.0).abs() < 1e-14);
    assert!((h.volume(&p) - 1.0).abs() < 1e-14);
    // Every point is inside or on every face plane (exactly).
    for t in &h.triangles {
        for q in &p {
            assert!(height(&p[t[0]], &p[t[1]], &p[t[2]], q) <= 0.0);
        }
    }
}

#[test]
fn lower_dimensions() {
    let sq: Vec<Vec3> = [[0., 0.], [2., 0.], [2., 1.], [0., 1.], [1., 0.5], [1., 0.]]
        .iter()
        .map(|a| Vec3::new(a[0], a[1], 3.0))
        .collect();
    let h = convex_hull(&sq).unwrap();
    assert_eq!(h.dimension, 2);
    assert_eq!(h.vertices, vec![0, 1, 2, 3]);
    assert!((h.area(&sq) - 2.0).abs() < 1e-15);
    let line: Vec<Vec3> = (0..5).map(|i| Vec3::new(i as f64, 2.0 * i as f64, -1.0)).collect();
    let h = convex_hull(&line).unwrap();
    assert_eq!((h.dimension, h.vertices.clone()), (1, vec![0, 4]));
    let h = convex_hull(&[Vec3::new(1.0, 2.0, 3.0); 3]).unwrap();
    assert_eq!((h.dimension, h.vertices.len()), (0, 1));
    assert_eq!(convex_hull(&[]), Err(HullError::Empty));
    let bad = [Vec3::zeros(), Vec3::new(f64::NAN, 0.0, 0.0)];
    assert_eq!(convex_hull(&bad), Err(HullError::NonFinite { index: 1 }));
}
