//! The convex-hull membrane: forces are the negative gradient of its energy (whole membrane and
//! triangle by triangle), the suspension points receive exactly the opposite wrench, the 2D and
//! 3D models agree on an extruded case, and the normal-force distribution is legal.

use tumble_contact::membrane::planar::{PlanarMembrane, PlanarMotion, PlanarWorkspace};
use tumble_contact::membrane::{
    Distribution, Membrane, MembraneFriction, MembraneWorkspace, RelativeMotion, area_gradient,
};
use tumble_math::nalgebra::{Rotation3, Vector2};
use tumble_math::{Lcg, Mat3, Vec3};

fn uni(rng: &mut Lcg, a: f64, b: f64) -> f64 {
    a + (b - a) * rng.unit()
}

/// A lumpy closed body: 80 points on a perturbed ellipsoid, radius about 2 m.
fn lumpy_body(rng: &mut Lcg) -> Vec<Vec3> {
    (0..80)
        .map(|_| {
            let d = Vec3::new(rng.normal(), rng.normal(), rng.normal()).normalize();
            Vec3::new(2.2 * d.x, 1.6 * d.y, 1.3 * d.z) * uni(rng, 0.85, 1.0)
        })
        .collect()
}

fn motion<'a>(v: &'a [Vec3], R: Mat3, p: Vec3) -> RelativeMotion<'a> {
    RelativeMotion { vertices: v, radius: 3.0, R_MB: R, p_MB: p, v_MB: Vec3::zeros(), w_MB: Vec3::zeros(), hull: None }
}

fn hexagon(k: f64, c: f64, friction: Option<MembraneFriction>) -> Membrane {
    Membrane::regular(6, Membrane::regular_radius(6, 146.0), k, c, friction).unwrap()
}

fn rot(w: Vec3) -> Mat3 {
    *Rotation3::new(w).matrix()
}

/// The document's nominal membrane: a regular hexagon of 146 m² has a 7.50 m circumradius.
#[test]
fn hexagon_area() {
    let m = hexagon(30.0, 1.5, None);
    assert!((m.area0() - 146.0).abs() < 1e-12);
    assert!((Membrane::regular_radius(6, 146.0) - 7.4963).abs() < 1e-4);
}

/// With `c = 0` the normal wrench is minus the gradient of `½k(A − A₀)²` with respect to the
/// body's position and a small rotation (central differences, step 1e-6: truncation ~h²·V''' and
/// rounding ~1e-16·V/h, both below 1e-7 of the force here, so 1e-6 relative has margin; torques
/// are compared on the force's scale times 3 m, the body's largest lever).
#[test]
fn forces_are_the_negative_energy_gradient() {
    let mut rng = Lcg::new(11);
    let m = hexagon(30.0, 0.0, None);
    let mut ws = MembraneWorkspace::default();
    let mut checked = 0;
    for _ in 0..20 {
        let body = lumpy_body(&mut rng);
        let R = rot(Vec3::new(uni(&mut rng, -3.0, 3.0), uni(&mut rng, -3.0, 3.0), uni(&mut rng, -3.0, 3.0)));
        let p = Vec3::new(uni(&mut rng, -1.0, 1.0), uni(&mut rng, -1.0, 1.0), uni(&mut rng, -1.2, 0.8));
        let c = m.evaluate(&motion(&body, R, p), &mut ws);
        if !c.in_contact {
            continue;
        }
        checked += 1;
        let energy = |R: Mat3, p: Vec3| m.evaluate(&motion(&body, R, p), &mut MembraneWorkspace::default()).energy;
        let h = 1e-6;
        let scale = c.normal_force.norm().max(1e-3);
        for k in 0..3 {
            let mut e = Vec3::zeros();
            e[k] = h;
            let df = -(energy(R, p + e) - energy(R, p - e)) / (2.0 * h);
            assert!((df - c.normal_force[k]).abs() < 1e-6 * scale, "force {k}: {df} vs {}", c.normal_force[k]);
            let dt = -(energy(rot(e) * R, p) - energy(rot(-e) * R, p)) / (2.0 * h);
            assert!((dt - c.normal_torque[k]).abs() < 1e-6 * scale * 3.0, "torque {k}: {dt} vs {}", c.normal_torque[k]);
        }
    }
    assert!(checked >= 10, "{checked} contact states");
}

/// Triangle by triangle: the closed-form pair `f_Nj1 + f_Nj2` and its torque equal `−a ∂A_j/∂`
/// (body position, rotation) by finite differences of that triangle's area, and the
/// suspension-only triangles never appear. Scale: a triangle's force is at most `a` times an
/// edge (≤ 10 m here); 1e-6 of it covers the difference quotient's error as above.
#[test]
fn per_triangle_closed_form_matches_area_gradient() {
    let mut rng = Lcg::new(5);
    let m = hexagon(1.5, 0.0, None);
    let n = m.suspension().len();
    let mut ws = MembraneWorkspace::default();
    let mut triangles = 0;
    for _ in 0..10 {
        let body = lumpy_body(&mut rng);
        let R = rot(Vec3::new(uni(&mut rng, -3.0, 3.0), uni(&mut rng, -3.0, 3.0), uni(&mut rng, -3.0, 3.0)));
        let p = Vec3::new(uni(&mut rng, -1.0, 1.0), uni(&mut rng, -1.0, 1.0), -0.5);
        let c = m.evaluate(&motion(&body, R, p), &mut ws);
        let a = c.tension;
        for t in &ws.triangles {
            assert!(t.points.iter().any(|&i| i >= n) && t.points.iter().any(|&i| i < n));
            let corner = |i: usize, R: &Mat3, p: &Vec3| match ws.body_vertex(i, n) {
                Some(b) => p + R * body[b],
                None => m.suspension()[i],
            };
            let area = |R: Mat3, p: Vec3| {
                let x = t.points.map(|i| corner(i, &R, &p));
                0.5 * (x[1] - x[0]).cross(&(x[2] - x[0])).norm()
            };
            let h = 1e-6;
            let f = t.f1 + t.f2;
            let scale = a.abs() * 10.0;
            for k in 0..3 {
                let mut e = Vec3::zeros();
                e[k] = h;
                let df = -a * (area(R, p + e) - area(R, p - e)) / (2.0 * h);
                assert!((df - f[k]).abs() < 1e-6 * scale, "f{k}: {df} vs {}", f[k]);
                let dt = -a * (area(rot(e) * R, p) - area(rot(-e) * R, p)) / (2.0 * h);
                assert!((dt - t.torque[k]).abs() < 1e-6 * scale * 3.0, "t{k}: {dt} vs {}", t.torque[k]);
            }
            triangles += 1;
        }
    }
    assert!(triangles > 50, "{triangles}");
}

/// The suspension points' forces, computed independently as `−a ∂A/∂sᵢ`, sum to the opposite
/// of the body's force, and their moments about a distant point to the opposite of its moment
/// there, as `reaction_about` gives them (without friction, whose reaction is the same
/// transfer): the membrane creates no net force or torque. Tolerance: rounding of sums of about
/// 30 products of forces and lever arms up to 10 m, 1e-9 relative.
#[test]
fn action_equals_reaction() {
    let mut rng = Lcg::new(21);
    let fr = MembraneFriction { mu: 0.5, v_star: 0.01, distribution: Distribution::Auto };
    let m = hexagon(30.0, 1.5, Some(fr));
    let m0 = hexagon(30.0, 1.5, None);
    let n = m.suspension().len();
    let mut ws = MembraneWorkspace::default();
    let mut ws0 = MembraneWorkspace::default();
    for _ in 0..10 {
        let body = lumpy_body(&mut rng);
        let R = rot(Vec3::new(uni(&mut rng, -3.0, 3.0), uni(&mut rng, -3.0, 3.0), uni(&mut rng, -3.0, 3.0)));
        let p = Vec3::new(uni(&mut rng, -1.0, 1.0), uni(&mut rng, -1.0, 1.0), -0.4);
        let mut mo = motion(&body, R, p);
        mo.v_MB = Vec3::new(0.1, -0.2, -0.3);
        mo.w_MB = Vec3::new(0.05, 0.1, -0.02);
        let c = m.evaluate(&mo, &mut ws);
        assert!(c.in_contact);
        let o = Vec3::new(0.3, -2.0, -5.0);
        let c0 = m0.evaluate(&mo, &mut ws0);
        // Friction leaves the normal wrench alone.
        assert_eq!((c0.normal_force, c0.normal_torque), (c.normal_force, c.normal_torque));
        let (f_s, t_s) = c0.reaction_about(&p, &o);
        // Independent: suspension forces from the area gradient (normal part only).
        let (mut f, mut t) = (Vec3::zeros(), Vec3::zeros());
        let pts = ws.points().to_vec();
        for tri in ws.membrane_triangles(n) {
            let x = tri.map(|i| pts[i]);
            let nrm = (x[1] - x[0]).cross(&(x[2] - x[0]));
            for k in 0..3 {
                if tri[k] < n {
                    let fk = -c.tension * area_gradient(&x, &(nrm / nrm.norm()), k);
                    f += fk;
                    t += (x[k] - o).cross(&fk);
                }
            }
        }
        let scale = c.normal_force.norm() * 10.0;
        assert!((f - f_s).norm() < 1e-9 * scale, "{} vs {}", f, f_s);
        assert!((t - t_s).norm() < 1e-9 * scale * 10.0, "{} vs {}", t, t_s);
    }
}

/// An extruded case: a prism of depth W whose cross-section is a 2D polygon, on a rectangular
/// membrane of the same depth. The 3D model's lateral triangles (normals perpendicular to the
/// extrusion) have area `W ℓ` and rate `W ℓ̇`, and their closed-form forces sum to `W` times the
/// 2D model's force for the same factor, with the moment about the extrusion axis `W` times the
/// 2D moment (the end caps, which the 2D model has no counterpart of, are left out). The two
/// computations share no code, only the geometry: tolerances are rounding (1e-12 for the
/// areas, sums of ~10 terms; 1e-9 for the closed forms, which divide by `1 − b²`).
#[test]
fn extruded_two_d_case_agrees_with_three_d() {
    let (l0, w) = (10.0, 3.0);
    let mut rng = Lcg::new(2);
    let section: Vec<Vector2<f64>> = (0..9)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / 9.0;
            Vector2::new(2.0 * a.cos(), 1.3 * a.sin()) * uni(&mut rng, 0.8, 1.0)
        })
        .collect();
    // 2D frame (x, y) maps to 3D (x, z); the prism spans y in [−W/2, W/2].
    let prism: Vec<Vec3> =
        section.iter().flat_map(|q| [Vec3::new(q.x, -w / 2.0, q.y), Vec3::new(q.x, w / 2.0, q.y)]).collect();
    let rect = [[-l0 / 2.0, -w / 2.0], [l0 / 2.0, -w / 2.0], [l0 / 2.0, w / 2.0], [-l0 / 2.0, w / 2.0]];
    let m3 = Membrane::new(&rect, 1.0, 0.0, None).unwrap();
    let m2 = PlanarMembrane::new(-l0 / 2.0, l0 / 2.0, 1.0, 0.0, None).unwrap();
    let mut ws3 = MembraneWorkspace::default();
    let mut ws2 = PlanarWorkspace::default();
    for step in 0..12 {
        let theta = 0.4 * step as f64;
        let p2 = Vector2::new(uni(&mut rng, -2.0, 2.0), uni(&mut rng, -1.0, 0.5));
        let (v2, om) = (Vector2::new(0.3, -0.4), 0.2);
        let c2 = m2.evaluate(&PlanarMotion { vertices: &section, angle: theta, p: p2, v: v2, omega: om }, &mut ws2);
        // Rotation by θ in the (x, y) plane is a rotation by −θ about +y in 3D.
        let mut mo = motion(&prism, rot(Vec3::new(0.0, -theta, 0.0)), Vec3::new(p2.x, 0.0, p2.y));
        mo.radius = 4.0;
        mo.v_MB = Vec3::new(v2.x, 0.0, v2.y);
        mo.w_MB = Vec3::new(0.0, -om, 0.0);
        let c3 = m3.evaluate(&mo, &mut ws3);
        assert_eq!(c2.in_contact, c3.in_contact);
        if !c2.in_contact {
            continue;
        }
        let lateral = |t: &[usize; 3]| {
            let x = t.map(|i| ws3.points()[i]);
            let nrm = (x[1] - x[0]).cross(&(x[2] - x[0]));
            nrm.y.abs() < 1e-12 * nrm.norm()
        };
        let pts = ws3.points();
        let lat_area: f64 = ws3
            .membrane_triangles(4)
            .filter(|t| lateral(t))
            .map(|t| 0.5 * (pts[t[1]] - pts[t[0]]).cross(&(pts[t[2]] - pts[t[0]])).norm())
            .sum();
        assert!((lat_area - w * c2.length).abs() < 1e-12 * w * l0, "{lat_area} vs {}", w * c2.length);
        let a3 = c3.tension;
        let (mut f, mut t) = (Vec3::zeros(), 0.0);
        for tri in ws3.triangles.iter().filter(|tr| lateral(&tr.points)) {
            f += (tri.f1 + tri.f2) / a3;
            t += tri.torque.y / a3;
        }
        let f2 = c2.normal_force / c2.tension;
        assert!((f.x - w * f2.x).abs() < 1e-9 * w && (f.z - w * f2.y).abs() < 1e-9 * w, "{f} vs {f2}");
        assert!(f.y.abs() < 1e-9 * w);
        assert!(
            (t + w * c2.normal_torque / c2.tension).abs() < 1e-9 * w * l0,
            "{t} vs {}",
            c2.normal_torque / c2.tension
        );
        // Rates: the lateral part of Ȧ is W ℓ̇ (the caps add their own).
        let lat_rate: f64 = ws3
            .membrane_triangles(4)
            .filter(|t| lateral(t))
            .map(|t| {
                let x = t.map(|i| pts[i]);
                let nrm = (x[1] - x[0]).cross(&(x[2] - x[0]));
                (0..3)
                    .filter(|&k| t[k] >= 4)
                    .map(|k| {
                        let r = x[k] - mo.p_MB;
                        area_gradient(&x, &(nrm / nrm.norm()), k).dot(&(mo.v_MB + mo.w_MB.cross(&r)))
                    })
                    .sum::<f64>()
            })
            .sum();
        assert!((lat_rate - w * c2.length_rate).abs() < 1e-9 * w, "{lat_rate} vs {}", w * c2.length_rate);
    }
}

/// The 2D model: the force is `−a(e_L + e_R)`, which is minus the gradient of `½k(ℓ − ℓ₀)²`
/// (central differences as in the 3D test; the moment on the force's scale times the 2 m lever).
#[test]
fn planar_force_is_the_negative_length_gradient() {
    let sq: Vec<Vector2<f64>> =
        [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]].iter().map(|a| Vector2::new(a[0], a[1])).collect();
    let m = PlanarMembrane::new(-4.0, 5.0, 30.0, 0.0, None).unwrap();
    let mut ws = PlanarWorkspace::default();
    let at = |theta: f64, p: Vector2<f64>, ws: &mut PlanarWorkspace| {
        m.evaluate(&PlanarMotion { vertices: &sq, angle: theta, p, v: Vector2::zeros(), omega: 0.0 }, ws)
    };
    for (theta, p) in [(0.3, Vector2::new(0.5, -0.2)), (1.2, Vector2::new(-0.5, 0.4)), (0.0, Vector2::new(0.0, -0.3))] {
        let c = at(theta, p, &mut ws);
        assert!(c.in_contact);
        let h = 1e-6;
        let e = |th: f64, q: Vector2<f64>| at(th, q, &mut PlanarWorkspace::default()).energy;
        let fx = -(e(theta, p + Vector2::new(h, 0.0)) - e(theta, p - Vector2::new(h, 0.0))) / (2.0 * h);
        let fy = -(e(theta, p + Vector2::new(0.0, h)) - e(theta, p - Vector2::new(0.0, h))) / (2.0 * h);
        let tz = -(e(theta + h, p) - e(theta - h, p)) / (2.0 * h);
        let s = c.normal_force.norm();
        assert!((fx - c.normal_force.x).abs() < 1e-6 * s && (fy - c.normal_force.y).abs() < 1e-6 * s);
        assert!((tz - c.normal_torque).abs() < 1e-6 * s * 2.0);
    }
}

/// NNLS distributes the membrane's normal wrench with non-negative components and reproduces
/// it (to its Tikhonov weight's residual): the membrane pushes (it is the gradient of an area that grows as vertices sink), so its
/// wrench lies in the cone of the inward normals.
#[test]
fn nnls_distribution_reproduces_the_normal_wrench() {
    let mut rng = Lcg::new(8);
    let fr = MembraneFriction { mu: 0.0, v_star: 0.01, distribution: Distribution::Nnls };
    let m = hexagon(30.0, 0.0, Some(fr));
    let mut ws = MembraneWorkspace::default();
    let mut n = 0;
    for _ in 0..30 {
        let body = lumpy_body(&mut rng);
        let R = rot(Vec3::new(uni(&mut rng, -3.0, 3.0), uni(&mut rng, -3.0, 3.0), uni(&mut rng, -3.0, 3.0)));
        let p = Vec3::new(uni(&mut rng, -1.0, 1.0), uni(&mut rng, -1.0, 1.0), uni(&mut rng, -1.0, 0.5));
        let c = m.evaluate(&motion(&body, R, p), &mut ws);
        if c.contact_vertices < 2 {
            continue;
        }
        n += 1;
        // The least-norm NNLS forces come through a Tikhonov weight (1e-9 of the Gram matrix's
        // mean eigenvalue), which leaves a residual of about that over the smallest eigenvalue
        // involved: measured up to 5e-9 here, bounded at 1e-6 as in the distribution's tests.
        assert!(c.distribution.nnls && c.distribution.residual < 1e-6, "{:?}", c.distribution);
    }
    assert!(n >= 10);
}

/// A blown-up pose (infinite position) gives NaN forces for the caller's finiteness check, not
/// a panic, in 3D and 2D.
#[test]
fn non_finite_pose_gives_nan_not_panic() {
    let m = hexagon(30.0, 1.5, None);
    let body = lumpy_body(&mut Lcg::new(1));
    let c = m.evaluate(
        &motion(&body, Mat3::identity(), Vec3::new(0.0, 0.0, f64::NEG_INFINITY)),
        &mut MembraneWorkspace::default(),
    );
    assert!(c.normal_force.x.is_nan());
    let sq = [Vector2::new(-1.0, -1.0), Vector2::new(1.0, 1.0)];
    let m2 = PlanarMembrane::new(-4.0, 4.0, 30.0, 0.0, None).unwrap();
    let p = Vector2::new(f64::INFINITY, -1.0);
    let c = m2.evaluate(
        &PlanarMotion { vertices: &sq, angle: 0.0, p, v: Vector2::zeros(), omega: 0.0 },
        &mut PlanarWorkspace::default(),
    );
    assert!(c.normal_force.x.is_nan());
}

/// Leaving out the vertices inside the body's own hull changes nothing while the body's section
/// lies inside the suspension polygon: same area, rate, forces, contact vertices (1e-12: only
/// the order of the hull's input changes, and with it the triangulation's rounding). Bodies
/// wider than the membrane fall back to every vertex, also with identical results. The area is
/// also checked against the hull of every suspension point and every vertex below the plane,
/// computed here without any culling.
#[test]
fn culling_by_the_body_hull_is_exact() {
    use tumble_contact::membrane::BodyHull;
    let mut rng = Lcg::new(5);
    let fr = MembraneFriction { mu: 0.4, v_star: 0.01, distribution: Distribution::Nnls };
    let (mut wa, mut wb) = (MembraneWorkspace::default(), MembraneWorkspace::default());
    let mut culled = 0;
    for scale in [1.0, 4.0] {
        let m = hexagon(30.0, 1.5, Some(fr));
        for _ in 0..20 {
            // Lumpy bodies with interior vertices just under the surface (a quarter of them
            // pulled 3 % inwards), so that a wrong cull would show.
            let body: Vec<Vec3> = lumpy_body(&mut rng)
                .into_iter()
                .enumerate()
                .map(|(i, v)| if i % 4 == 0 { v * 0.97 * scale } else { v * scale })
                .collect();
            let hull = BodyHull::new(&body).expect("solid body");
            let R = rot(Vec3::new(uni(&mut rng, -3.0, 3.0), uni(&mut rng, -3.0, 3.0), uni(&mut rng, -3.0, 3.0)));
            let p = Vec3::new(uni(&mut rng, -1.0, 1.0), uni(&mut rng, -1.0, 1.0), uni(&mut rng, -1.2, 0.8)) * scale;
            let mut all = motion(&body, R, p);
            all.radius = 3.0 * scale;
            all.v_MB = Vec3::new(uni(&mut rng, -1.0, 1.0), uni(&mut rng, -1.0, 1.0), -1.0);
            all.w_MB = Vec3::new(uni(&mut rng, -1.0, 1.0), uni(&mut rng, -1.0, 1.0), uni(&mut rng, -1.0, 1.0));
            let cull = RelativeMotion { hull: Some(&hull), ..all };
            let (a, b) = (m.evaluate(&all, &mut wa), m.evaluate(&cull, &mut wb));
            culled += (wb.points().len() < wa.points().len()) as usize;
            let mut all_pts: Vec<Vec3> = m.suspension().to_vec();
            all_pts.extend(body.iter().map(|r| p + R * r).filter(|x| x.z < 0.0));
            if all_pts.len() > 6 {
                let h = tumble_geometry::hull::convex_hull(&all_pts).expect("hull");
                let area: f64 = h
                    .triangles
                    .iter()
                    .filter(|t| t.iter().any(|&i| i >= 6))
                    .map(|t| 0.5 * tumble_geometry::hull::tri_normal(&all_pts, t).norm())
                    .sum();
                assert!((area - b.area).abs() < 1e-12 * area, "area {} vs hull of all points {area}", b.area);
            }
            let f = a.force().norm().max(1.0);
            assert_eq!(a.contact_vertices, b.contact_vertices);
            assert!((a.area - b.area).abs() < 1e-12 * a.area && (a.area_rate - b.area_rate).abs() < 1e-9 * f);
            assert!((a.force() - b.force()).norm() < 1e-9 * f, "{} vs {}", a.force(), b.force());
            assert!((a.torque() - b.torque()).norm() < 1e-9 * f * 3.0 * scale);
        }
    }
    assert!(culled > 5, "culling took effect in {culled} cases");
}
