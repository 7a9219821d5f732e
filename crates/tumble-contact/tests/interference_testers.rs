//! Differential tests of the contact testers over random poses: against parry3d-f64 (an
//! independent GJK/EPA and ray-casting implementation) where it has the pair, against exact
//! constructions otherwise (the interference polyhedron rebuilt as a hull of its vertices), and
//! of every tester's rate kernel against a finite difference of its measure.

use parry3d_f64::math::{Pose as PPose, Rotation as PRot, Vector as PVec};
use parry3d_f64::query::{PointQuery, Ray, RayCast};
use parry3d_f64::shape::{Ball, ConvexPolyhedron as PPoly, HalfSpace, Segment, Shape, Triangle};
use tumble_contact::interference::testers::{Scratch, run, tester};
use tumble_contact::interference::{Contacts, Frame};
use tumble_geometry::convex::ConvexPolyhedron;
use tumble_geometry::primitive::Primitive;
use tumble_math::{Lcg, Mat3, UnitQuat, Vec3};

fn pv(v: &Vec3) -> PVec {
    PVec::new(v.x, v.y, v.z)
}
fn tv(v: PVec) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}
fn ppose(f: &Frame) -> PPose {
    let q = UnitQuat::from_matrix(&f.R);
    PPose::from_parts(pv(&f.p), PRot::from_xyzw(q.i, q.j, q.k, q.w))
}

fn rand_vec(rng: &mut Lcg, s: f64) -> Vec3 {
    Vec3::new(rng.uniform(-s, s), rng.uniform(-s, s), rng.uniform(-s, s))
}
fn rand_rot(rng: &mut Lcg) -> Mat3 {
    let q = UnitQuat::from_euler_angles(rng.uniform(-3.1, 3.1), rng.uniform(-1.5, 1.5), rng.uniform(-3.1, 3.1));
    *q.to_rotation_matrix().matrix()
}
fn rand_frame(rng: &mut Lcg, s: f64) -> Frame {
    Frame { R: rand_rot(rng), p: rand_vec(rng, s) }
}

/// A random convex polyhedron: the hull of 12 points on an ellipsoid-ish cloud of size ~0.5 m.
fn rand_poly(rng: &mut Lcg) -> ConvexPolyhedron {
    loop {
        let pts: Vec<Vec3> =
            (0..12).map(|_| rand_vec(rng, 1.0).normalize().component_mul(&Vec3::new(0.6, 0.45, 0.3))).collect();
        let hull = tumble_geometry::hull::convex_hull(&pts).unwrap();
        let corners: Vec<Vec3> = hull.vertices.iter().map(|&i| pts[i]).collect();
        if let Ok(p) = ConvexPolyhedron::new(&corners) {
            return p;
        }
    }
}

fn ppoly(p: &ConvexPolyhedron) -> PPoly {
    PPoly::from_convex_hull(&p.vertices.iter().map(pv).collect::<Vec<_>>()).unwrap()
}

fn test(a: &Primitive, b: &Primitive, X_AB: &Frame) -> Contacts {
    let mut out = Contacts::default();
    run(tester(a.kind(), b.kind()), a, b, X_AB, &mut out, &mut Scratch::default());
    out
}

/// Checks one contact against parry's contact query on the same pair: depth and normal.
fn against_parry(a: &Primitive, ga: &dyn Shape, b: &Primitive, gb: &dyn Shape, X_AB: &Frame, tol: f64) -> bool {
    let ours = test(a, b, X_AB);
    let theirs = parry3d_f64::query::contact(&PPose::IDENTITY, ga, &ppose(X_AB), gb, 0.0).unwrap();
    match theirs.filter(|c| c.dist < -1e-9) {
        None => {
            assert!(
                ours.as_slice().iter().all(|c| c.measure < 1e-9),
                "{a:?} {b:?}: parry finds no contact, ours {ours:?}"
            );
            false
        }
        Some(c) => {
            let deepest = ours
                .as_slice()
                .iter()
                .max_by(|x, y| x.measure.total_cmp(&y.measure))
                .expect("parry finds a contact, we none");
            assert!((deepest.measure + c.dist).abs() < tol, "depth {} vs parry {}", deepest.measure, -c.dist);
            assert!(
                (deepest.normal - tv(c.normal1)).norm() < 1e-6,
                "normal {} vs parry {:?}",
                deepest.normal,
                c.normal1
            );
            true
        }
    }
}

// Tolerances: parry's EPA/GJK stop at about 1e-10 relative on polytopes; depths here are ~0.1 m,
// so 1e-8 m leaves margin yet fails on any wrong feature (errors of a wrong face are ≥ 1e-3 m).
const TOL: f64 = 1e-8;

#[test]
fn sphere_pairs_agree_with_parry() {
    let mut rng = Lcg::new(11);
    let mut hits = [0; 3];
    for _ in 0..400 {
        let (ra, rb) = (rng.uniform(0.1, 0.5), rng.uniform(0.1, 0.5));
        let sa = Primitive::Sphere { center: rand_vec(&mut rng, 0.2), radius: ra };
        let X = rand_frame(&mut rng, 0.9);
        // sphere–sphere: parry's balls are centred, so put the centres at the frame origins.
        let (a0, b0) = (
            Primitive::Sphere { center: Vec3::zeros(), radius: ra },
            Primitive::Sphere { center: Vec3::zeros(), radius: rb },
        );
        hits[0] += against_parry(&a0, &Ball::new(ra), &b0, &Ball::new(rb), &X, TOL) as usize;
        // sphere–polyhedron.
        let poly = rand_poly(&mut rng);
        let pb = Primitive::Polyhedron(Box::new(poly.clone()));
        hits[1] += against_parry(&a0, &Ball::new(ra), &pb, &ppoly(&poly), &X, TOL) as usize;
        // sphere–triangle, centre in front of the triangle (ours is one-sided).
        let t = [rand_vec(&mut rng, 0.6), rand_vec(&mut rng, 0.6), rand_vec(&mut rng, 0.6)];
        let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
        let c_B = X.inv_point(&Vec3::zeros());
        if n.dot(&(c_B - t[0])) > 0.0 {
            let tri = Primitive::Triangle(t);
            let pt = Triangle::new(pv(&t[0]), pv(&t[1]), pv(&t[2]));
            hits[2] += against_parry(&a0, &Ball::new(ra), &tri, &pt, &X, TOL) as usize;
        }
        let _ = sa;
    }
    assert!(hits.iter().all(|&h| h > 20), "too few contacts exercised: {hits:?}");
}

#[test]
fn plane_pairs_agree_with_parry() {
    let mut rng = Lcg::new(12);
    let mut hits = 0;
    for _ in 0..300 {
        let plane = Primitive::Plane { point: Vec3::zeros(), normal: Vec3::z() };
        let r = rng.uniform(0.1, 0.5);
        let X = rand_frame(&mut rng, 0.5);
        let ball = Primitive::Sphere { center: Vec3::zeros(), radius: r };
        hits += against_parry(&plane, &HalfSpace::new(PVec::Z), &ball, &Ball::new(r), &X, TOL) as usize;
        // point–plane and segment–plane: exact depths of the points below.
        let (a, b) = (rand_vec(&mut rng, 0.5), rand_vec(&mut rng, 0.5));
        let out = test(&Primitive::Point(a), &plane, &Frame::identity());
        assert_eq!(out.len(), (a.z < 0.0) as usize);
        if a.z < 0.0 {
            assert_eq!((out.as_slice()[0].measure, out.as_slice()[0].normal), (-a.z, -Vec3::z()));
        }
        let out = test(&Primitive::Segment { a, b }, &plane, &Frame::identity());
        let want: Vec<f64> = [a.z, b.z].into_iter().filter(|z| *z < 0.0).map(|z| -z).collect();
        assert_eq!(out.as_slice().iter().map(|c| c.measure).collect::<Vec<_>>(), want);
    }
    assert!(hits > 50, "{hits}");
}

#[test]
fn point_and_segment_polyhedron_agree_with_parry() {
    let mut rng = Lcg::new(13);
    let (mut points, mut segments) = (0, 0);
    for _ in 0..400 {
        let poly = rand_poly(&mut rng);
        let pp = ppoly(&poly);
        let pb = Primitive::Polyhedron(Box::new(poly.clone()));
        // Point: depth = distance to the boundary from inside (parry's boundary projection).
        let x = rand_vec(&mut rng, 0.4);
        let out = test(&Primitive::Point(x), &pb, &Frame::identity());
        let proj = pp.project_local_point(pv(&x), false);
        if proj.is_inside {
            let d = (tv(proj.point) - x).norm();
            assert!((out.as_slice()[0].measure - d).abs() < 1e-12, "point depth {} vs {d}", out.as_slice()[0].measure);
            points += 1;
        } else {
            assert!(out.is_empty());
        }
        // Segment poking in: one end inside near the surface, the other outside.
        let inner = poly.center + (x - poly.center) * 0.3;
        let outer = inner + rand_vec(&mut rng, 1.0).normalize() * 0.8;
        let seg = Primitive::Segment { a: inner, b: outer };
        let X = Frame::identity();
        let ps = Segment::new(pv(&inner), pv(&outer));
        if poly.signed_distance_inside(&outer) > 0.0 {
            segments += against_parry(&seg, &ps, &pb, &pp, &X, TOL) as usize;
        }
        // Any segment: contact exactly when parry finds penetration.
        let (a, b) = (rand_vec(&mut rng, 0.8), rand_vec(&mut rng, 0.8));
        let out = test(&Primitive::Segment { a, b }, &pb, &X);
        let c =
            parry3d_f64::query::contact(&PPose::IDENTITY, &Segment::new(pv(&a), pv(&b)), &PPose::IDENTITY, &pp, 0.0)
                .unwrap();
        let pen = c.is_some_and(|c| c.dist < -1e-9);
        assert_eq!(!out.is_empty(), pen, "{a} {b}: ours {out:?} parry {c:?}");
        if let Some(c) = c.filter(|_| pen) {
            let deepest = out.as_slice().iter().map(|c| c.measure).fold(0.0, f64::max);
            assert!(deepest <= -c.dist + TOL, "a contact deeper than the minimum translational distance");
        }
    }
    assert!(points > 50 && segments > 50, "{points} {segments}");
}

#[test]
fn a_segment_across_a_box_edge_touches_at_that_edge() {
    // A box's four edges along z share one separating axis with a segment crossing any of
    // them: the contact must sit at the crossed edge (midway between it and the segment, so
    // within the depth of the segment), whichever of the four the axes were tried with first.
    let cube = Primitive::Polyhedron(Box::new(ConvexPolyhedron::cuboid(Vec3::new(1.0, 1.0, 1.0))));
    for (sx, sy) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)] {
        // The line x sx + y sy = 1.9 at z = 0.3 cuts the corner (sx, sy) 0.1/√2 deep.
        let (a, b) = (Vec3::new(1.5 * sx, 0.4 * sy, 0.3), Vec3::new(0.4 * sx, 1.5 * sy, 0.3));
        let out = test(&Primitive::Segment { a, b }, &cube, &Frame::identity());
        let c = &out.as_slice()[0];
        assert!((c.measure - 0.1 / 2f64.sqrt()).abs() < 1e-12, "{}", c.measure);
        let t = ((c.point - a).dot(&(b - a)) / (b - a).norm_squared()).clamp(0.0, 1.0);
        let off = (c.point - (a + (b - a) * t)).norm();
        assert!(off <= c.measure, "corner ({sx}, {sy}): contact {} is {off} m from the segment", c.point);
    }
}

#[test]
fn plungers_agree_with_parry_ray_casts() {
    let mut rng = Lcg::new(14);
    let mut hits = [0; 3];
    for _ in 0..400 {
        let poly = rand_poly(&mut rng);
        let origin = rand_vec(&mut rng, 1.0).normalize() * 1.2;
        let direction = (rand_vec(&mut rng, 0.3) - origin).normalize();
        let length = rng.uniform(0.5, 2.0);
        let ray = Primitive::Ray { origin, direction, length };
        let pr = Ray::new(pv(&origin), pv(&direction));
        let cases: [(Primitive, Option<f64>); 3] = [
            (Primitive::Polyhedron(Box::new(poly.clone())), ppoly(&poly).cast_local_ray(&pr, length, true)),
            (
                Primitive::Sphere { center: Vec3::zeros(), radius: 0.4 },
                Ball::new(0.4).cast_local_ray(&pr, length, true),
            ),
            {
                let t = [Vec3::new(-0.5, -0.4, 0.1), Vec3::new(0.6, -0.3, -0.1), Vec3::new(0.0, 0.5, 0.05)];
                let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
                let front = n.dot(&direction) < 0.0;
                let toi =
                    Triangle::new(pv(&t[0]), pv(&t[1]), pv(&t[2])).cast_local_ray(&pr, length, true).filter(|_| front);
                (Primitive::Triangle(t), toi)
            },
        ];
        for (k, (shape, toi)) in cases.iter().enumerate() {
            let out = test(&ray, shape, &Frame::identity());
            match toi.filter(|t| *t < length) {
                Some(t) => {
                    assert_eq!(out.len(), 1, "{shape:?}: parry hits at {t}");
                    let c = out.as_slice()[0];
                    assert!((c.measure - (length - t)).abs() < 1e-10, "travel {} vs {}", c.measure, length - t);
                    assert_eq!(c.normal, direction);
                    hits[k] += 1;
                }
                None => assert!(out.is_empty(), "{shape:?}: parry misses, ours {out:?}"),
            }
        }
    }
    assert!(hits.iter().all(|&h| h > 40), "{hits:?}");
}

/// The exact interference of two convex polyhedra, built independently of the clipping tester:
/// the hull of the corners of each inside the other and of the edge–face crossings.
fn intersection_hull(a: &ConvexPolyhedron, b: &ConvexPolyhedron) -> Option<ConvexPolyhedron> {
    let mut pts = Vec::new();
    let inside = |p: &ConvexPolyhedron, x: &Vec3| p.signed_distance_inside(x) <= 1e-12;
    for (p, q) in [(a, b), (b, a)] {
        pts.extend(p.vertices.iter().filter(|v| inside(q, v)));
        for e in &p.edges {
            let (x0, x1) = (p.vertices[e[0] as usize], p.vertices[e[1] as usize]);
            for (n, d) in q.normals.iter().zip(&q.offsets) {
                let (h0, h1) = (n.dot(&x0) - d, n.dot(&x1) - d);
                if (h0 < 0.0) != (h1 < 0.0) {
                    let x = x0 + (x1 - x0) * (h0 / (h0 - h1));
                    pts.push(x);
                }
            }
        }
    }
    pts.retain(|x| inside(a, x) && inside(b, x));
    ConvexPolyhedron::new(&pts).ok()
}

fn centroid(p: &ConvexPolyhedron) -> Vec3 {
    let mut m = Vec3::zeros();
    let mut v = 0.0;
    for f in 0..p.face_count() {
        let r = p.face(f);
        for w in 1..r.len() - 1 {
            let (a, b, c) = (p.vertices[r[0] as usize], p.vertices[r[w] as usize], p.vertices[r[w + 1] as usize]);
            let t = (a - p.center).dot(&(b - p.center).cross(&(c - p.center))) / 6.0;
            v += t;
            m += t * (p.center + a + b + c) / 4.0;
        }
    }
    m / v
}

#[test]
fn interference_volumes_match_the_exact_intersection() {
    let mut rng = Lcg::new(15);
    let mut hits = 0;
    for _ in 0..200 {
        let (pa, pb) = (rand_poly(&mut rng), rand_poly(&mut rng));
        let X = rand_frame(&mut rng, 0.5);
        let moved: Vec<Vec3> = pb.vertices.iter().map(|v| X.point(v)).collect();
        let pb_in_a = ConvexPolyhedron::new(&moved).unwrap();
        let out = test(&Primitive::Polyhedron(Box::new(pa.clone())), &Primitive::Polyhedron(Box::new(pb.clone())), &X);
        match intersection_hull(&pa, &pb_in_a) {
            Some(h) if h.volume() > 1e-9 => {
                let c = out.as_slice().first().expect("exact intersection has volume, tester none");
                assert!((c.measure - h.volume()).abs() < 1e-10, "volume {} vs {}", c.measure, h.volume());
                assert!((c.point - centroid(&h)).norm() < 1e-8, "centroid {} vs {}", c.point, centroid(&h));
                hits += 1;
            }
            _ => assert!(out.as_slice().iter().all(|c| c.measure < 1e-9), "{out:?}"),
        }
        // Plane–polyhedron: the plane z = 0 against the moved polyhedron.
        let plane = Primitive::Plane { point: Vec3::zeros(), normal: Vec3::z() };
        let out = test(&plane, &Primitive::Polyhedron(Box::new(pb.clone())), &X);
        let slab = ConvexPolyhedron::cuboid(Vec3::new(5.0, 5.0, 5.0));
        let below: Vec<Vec3> = slab.vertices.iter().map(|v| v - Vec3::new(0.0, 0.0, 5.0)).collect();
        match intersection_hull(&ConvexPolyhedron::new(&below).unwrap(), &pb_in_a) {
            Some(h) if h.volume() > 1e-9 => {
                let c = out.as_slice().first().expect("plane cuts the polyhedron, tester finds nothing");
                assert!((c.measure - h.volume()).abs() < 1e-10);
                assert!((c.point - centroid(&h)).norm() < 1e-8);
                // The cut's area vector is the plane's normal times the cut area, to round-off;
                // a polyhedron wholly below the plane has no cut (no kernel, fallback normal).
                assert!((c.normal - Vec3::z()).norm() < 1e-12 || c.rate_s.norm() == 0.0);
            }
            _ => assert!(out.is_empty()),
        }
    }
    assert!(hits > 30, "{hits}");
}

fn rand_ellipsoid(rng: &mut Lcg) -> Primitive {
    Primitive::Ellipsoid {
        center: rand_vec(rng, 0.2),
        rotation: rand_rot(rng),
        radii: Vec3::new(rng.uniform(0.1, 0.6), rng.uniform(0.1, 0.6), rng.uniform(0.1, 0.6)),
    }
}

/// The overlap `h_A(n) + h_B(−n)` of A and B along unit `n` (B in A by `X`), from
/// `Primitive::support` (not the testers' support mappings).
fn overlap_along(a: &Primitive, b: &Primitive, X: &Frame, n: &Vec3) -> f64 {
    let n = n.normalize();
    a.support(&n) + b.support(&X.inv_vector(&-n)) - n.dot(&X.p)
}

/// Pattern search for the smallest overlap from `n`: 90 tangent directions (a minimum on a ridge
/// of `h`, where a polyhedron's faces meet the ellipsoid, is approached only within a narrow
/// cone), halving the step down to 1e-13 rad.
fn descend(f: &dyn Fn(&Vec3) -> f64, mut n: Vec3) -> (f64, Vec3) {
    let mut best = f(&n);
    let (mut step, mut turn) = (0.05, 0.0);
    while step > 1e-13 {
        let t1 = if n.x.abs() < 0.6 { n.cross(&Vec3::x()) } else { n.cross(&Vec3::y()) }.normalize();
        let t2 = n.cross(&t1);
        let mut moved = false;
        for j in 0..90 {
            let phi = turn + j as f64 * std::f64::consts::PI / 45.0;
            let m = (n + (t1 * phi.cos() + t2 * phi.sin()) * step).normalize();
            if f(&m) < best {
                (best, n, moved) = (f(&m), m, true);
            }
        }
        turn += 0.37;
        if !moved {
            step *= 0.5;
        }
    }
    (best, n)
}

/// The brute-force global search: the best of 4,000 directions on a Fibonacci sphere, descended.
fn min_overlap(f: &dyn Fn(&Vec3) -> f64) -> (f64, Vec3) {
    let k = 4000;
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let (mut best, mut n) = (f64::INFINITY, Vec3::z());
    for i in 0..k {
        let z = 1.0 - 2.0 * (i as f64 + 0.5) / k as f64;
        let r = (1.0 - z * z).sqrt();
        let m = Vec3::new(r * (golden * i as f64).cos(), r * (golden * i as f64).sin(), z);
        if f(&m) < best {
            (best, n) = (f(&m), m);
        }
    }
    descend(f, n)
}

#[test]
fn support_mapping_testers_match_the_minimum_overlap_over_directions() {
    let mut rng = Lcg::new(21);
    let mut hits = std::collections::BTreeMap::new();
    for _ in 0..2400 {
        let e = rand_ellipsoid(&mut rng);
        let others = [
            Primitive::Point(rand_vec(&mut rng, 0.4)),
            Primitive::Segment { a: rand_vec(&mut rng, 0.5), b: rand_vec(&mut rng, 0.5) },
            Primitive::Sphere { center: rand_vec(&mut rng, 0.2), radius: rng.uniform(0.1, 0.4) },
            Primitive::Triangle([rand_vec(&mut rng, 0.6), rand_vec(&mut rng, 0.6), rand_vec(&mut rng, 0.6)]),
            rand_ellipsoid(&mut rng),
            Primitive::Polyhedron(Box::new(rand_poly(&mut rng))),
        ];
        let X = rand_frame(&mut rng, 0.5);
        // The ellipsoid against each kind, triangle–polyhedron and segment–sphere; both orders.
        let (first, second) = match (rng.unit() * 8.0) as usize {
            6 => (others[3].clone(), others[5].clone()),
            7 => (others[1].clone(), others[2].clone()),
            k => (e.clone(), others[k].clone()),
        };
        let (a, b) = if rng.unit() < 0.5 { (first, second) } else { (second, first) };
        // Triangles are one-sided: the oracle is the minimum overlap for a solid centred in front.
        let tri_front = |t: &Primitive, other: &Primitive, to_tri: &Frame| match t {
            Primitive::Triangle(t) => {
                let n = (t[1] - t[0]).cross(&(t[2] - t[0]));
                n.dot(&(to_tri.point(&other.anchor()) - t[0])) > 0.0
            }
            _ => true,
        };
        if !tri_front(&a, &b, &X) || !tri_front(&b, &a, &X.inverse()) {
            continue;
        }
        let ours = test(&a, &b, &X);
        let f = |n: &Vec3| overlap_along(&a, &b, &X, n);
        let (delta, n) = min_overlap(&f);
        // The depth must be (1) the overlap along the reported normal, (2) no more than the
        // global search found, (3) not lowered by descending from the reported normal. The
        // pattern search stops at 1e-13 rad, the tester's polytope gap at 1e-13 of the shapes'
        // size: 1e-8 m leaves margin on ~0.1 m depths, while a wrong local minimum or feature
        // errs by ≥ 1e-3 m. (The global search alone can stall on a ridge by ~1e-7 m.)
        if delta > 1e-8 {
            assert_eq!(ours.len(), 1, "{a:?} {b:?} {X:?}: overlap {delta}, contacts {ours:?}");
            let c = ours.as_slice()[0];
            let (kinds, m) = ((a.kind(), b.kind()), c.measure);
            assert!(
                (m - f(&c.normal)).abs() < 1e-12,
                "{kinds:?}: depth {m} vs overlap along the normal {}",
                f(&c.normal)
            );
            assert!(m < delta + 1e-8, "{kinds:?}: depth {m} vs global search {delta}");
            let (local, _) = descend(&f, c.normal);
            assert!(m < local + 1e-8, "{kinds:?}: depth {m}, yet {local} near the reported normal");
            // Near a minimum the overlap grows as κ|Δn|²/2, so depths within 1e-8 m pin the
            // normal to √(2e-8/κ): 1e-3 holds for κ ≥ 0.02 m (shallow minima of nearly equal
            // curvature radius and depth), a wrong local minimum is off by ≥ 0.1.
            assert!((c.normal - n).norm() < 1e-3 || m < delta - 1e-9, "{kinds:?}: normal {} vs {n}", c.normal);
            *hits.entry((a.kind(), b.kind())).or_insert(0) += 1;
        } else if delta < -1e-8 {
            assert!(ours.is_empty(), "{a:?} {b:?}: separated by {delta}, contacts {ours:?}");
        }
    }
    assert!(hits.len() == 15 && hits.values().all(|&n| n >= 10), "{hits:?}");
}

/// For a segment–polyhedron pair: the segment's ends and the polyhedron's face normals in A.
fn segment_and_normals(a: &Primitive, b: &Primitive, X: &Frame) -> Option<([Vec3; 2], Vec<Vec3>)> {
    match (a, b) {
        (Primitive::Segment { a: s0, b: s1 }, Primitive::Polyhedron(p)) => {
            Some(([*s0, *s1], p.normals.iter().map(|n| X.vector(n)).collect()))
        }
        (Primitive::Polyhedron(p), Primitive::Segment { a: s0, b: s1 }) => {
            Some(([X.point(s0), X.point(s1)], p.normals.clone()))
        }
        _ => None,
    }
}

/// Measure of the pair after moving B by a twist `(v, w)` (about A's origin, in A) for time `h`.
fn measure_after(a: &Primitive, b: &Primitive, X: &Frame, v: &Vec3, w: &Vec3, h: f64, sub: u8) -> Option<f64> {
    let rot = *UnitQuat::from_scaled_axis(w * h).to_rotation_matrix().matrix();
    let moved = Frame { R: rot * X.R, p: rot * X.p + v * h };
    test(a, b, &moved).as_slice().iter().find(|c| c.sub == sub).map(|c| c.measure)
}

#[test]
fn rate_kernels_match_finite_differences_for_every_tester() {
    let mut rng = Lcg::new(16);
    let mut checked = std::collections::BTreeMap::new();
    for _ in 0..8000 {
        let poly = Primitive::Polyhedron(Box::new(rand_poly(&mut rng)));
        let shapes = [
            Primitive::Point(rand_vec(&mut rng, 0.2)),
            Primitive::Plane { point: rand_vec(&mut rng, 0.1), normal: rand_vec(&mut rng, 1.0).normalize() },
            Primitive::Segment { a: rand_vec(&mut rng, 0.5), b: rand_vec(&mut rng, 0.5) },
            {
                let origin = rand_vec(&mut rng, 1.0).normalize();
                Primitive::Ray { origin, direction: (rand_vec(&mut rng, 0.2) - origin).normalize(), length: 1.5 }
            },
            Primitive::Sphere { center: rand_vec(&mut rng, 0.2), radius: 0.3 },
            Primitive::Triangle([rand_vec(&mut rng, 0.6), rand_vec(&mut rng, 0.6), rand_vec(&mut rng, 0.6)]),
            rand_ellipsoid(&mut rng),
            poly,
        ];
        let (i, j) = (rng.unit() * 8.0, rng.unit() * 8.0);
        let (a, b) = (&shapes[i as usize], &shapes[j as usize]);
        let X = rand_frame(&mut rng, 0.3);
        let out = test(a, b, &X);
        let (v, w) = (rand_vec(&mut rng, 1.0), rand_vec(&mut rng, 1.0));
        let h = 1e-6;
        for c in out.as_slice() {
            // The measure the tester reports is the one the table declares (the law chosen).
            assert_eq!(c.volumetric, tumble_contact::interference::testers::is_volumetric(a.kind(), b.kind()));
            // A clipped interior end of a segment in a polyhedron (face axis, point not at a
            // segment end) slides along the segment as the bodies move: its kernel is the
            // material points' approach rate, not the derivative of the depth (see `Contact`).
            if let Some((seg, normals)) = segment_and_normals(a, b, &X) {
                let at_end = seg.iter().any(|e| (e - c.point).norm() < 1e-12);
                let face_axis = normals.iter().any(|n| n.cross(&c.normal).norm() < 1e-12);
                if face_axis && !at_end {
                    continue;
                }
            }
            // B moves with (v, w) about A's origin: v_A − v_B at the origin is −v, ω_A − ω_B is −w.
            let rate = -v.dot(&c.rate_s) - w.dot(&c.rate_m);
            let (Some(up), Some(down)) =
                (measure_after(a, b, &X, &v, &w, h, c.sub), measure_after(a, b, &X, &v, &w, -h, c.sub))
            else {
                continue;
            };
            let fd = (up - down) / (2.0 * h);
            // Central difference error O(h²·m''') ~ 1e-10 here; a wrong kernel errs by O(|v|).
            // Features can switch within ±h (clipping changes), so a mismatch must persist at h/10.
            if (fd - rate).abs() > 1e-5 * (1.0 + rate.abs()) {
                let h2 = h / 10.0;
                let fd2 = (measure_after(a, b, &X, &v, &w, h2, c.sub).unwrap_or(up)
                    - measure_after(a, b, &X, &v, &w, -h2, c.sub).unwrap_or(down))
                    / (2.0 * h2);
                assert!(
                    (fd2 - rate).abs() < 1e-4 * (1.0 + rate.abs()),
                    "{:?}–{:?}: kernel rate {rate}, finite difference {fd} / {fd2}",
                    a.kind(),
                    b.kind()
                );
            }
            *checked.entry((a.kind(), b.kind())).or_insert(0) += 1;
        }
    }
    // Every tester the shapes above can reach was exercised.
    assert!(checked.len() == 49 && checked.values().all(|&n| n >= 3), "{} pairs exercised: {checked:?}", checked.len());
}
