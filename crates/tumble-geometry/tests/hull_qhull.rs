//! The convex hull against Qhull (scipy) on random, coplanar and nearly coplanar point sets.
//! Reference data: `tests/data/qhull_reference.json`, made by `tests/data/qhull_generate.py`.

use robust::{Coord3D, orient3d};
use serde_json::Value;
use tumble_geometry::hull::{ConvexHull, HullBuilder};
use tumble_math::Vec3;

fn cases() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/qhull_reference.json");
    let text = std::fs::read_to_string(path).expect("reference data is committed");
    let v: Value = serde_json::from_str(&text).unwrap();
    v["cases"].as_array().unwrap().clone()
}

fn points(case: &Value) -> Vec<Vec3> {
    case["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let a: Vec<f64> = p.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
            Vec3::new(a[0], a[1], a[2])
        })
        .collect()
}

fn indices(v: &Value) -> Vec<usize> {
    v.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect()
}

/// Largest signed distance of `p` from Qhull's facet planes (0 on the boundary, < 0 inside).
fn qhull_distance(case: &Value, p: &Vec3) -> f64 {
    case["equations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let e: Vec<f64> = e.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
            e[0] * p.x + e[1] * p.y + e[2] * p.z + e[3]
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Largest signed distance of `p` from our triangles' planes. Sliver triangles (possible in
/// nearly coplanar sets: exact, but their floating-point normal is meaningless) are skipped.
fn our_distance(hull: &ConvexHull, pts: &[Vec3], p: &Vec3, scale: f64) -> f64 {
    hull.triangles
        .iter()
        .filter_map(|t| {
            let n = (pts[t[1]] - pts[t[0]]).cross(&(pts[t[2]] - pts[t[0]]));
            let len = n.norm();
            (len > 1e-8 * scale * scale).then(|| n.dot(&(p - pts[t[0]])) / len)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

fn c3(p: &Vec3) -> Coord3D<f64> {
    Coord3D { x: p.x, y: p.y, z: p.z }
}

#[test]
fn hulls_match_qhull() {
    let mut builder = HullBuilder::default();
    let mut hull = ConvexHull::default();
    let all = cases();
    assert!(all.len() >= 16);
    for case in &all {
        let name = case["name"].as_str().unwrap();
        let pts = points(case);
        builder.build(&pts, &mut hull).unwrap();
        let dim = case["dimension"].as_u64().unwrap() as u8;
        assert_eq!(hull.dimension, dim, "{name}: dimension");
        let scale = pts.iter().map(|p| p.amax()).fold(0.0, f64::max);
        let q_vertices = indices(&case["vertices"]);
        let q_area = case["area"].as_f64().unwrap();
        // Areas and volumes are sums of O(n) products of coordinates; Qhull's and ours round
        // differently, by a few ulps per term: 1e-12 relative is ~100 ulps of margin.
        let area = hull.area(&pts);
        assert!((area - q_area).abs() <= 1e-12 * q_area.max(scale * scale), "{name}: area {area} vs Qhull {q_area}");
        if dim == 3 {
            let q_volume = case["volume"].as_f64().unwrap();
            let volume = hull.volume(&pts);
            assert!(
                (volume - q_volume).abs() <= 1e-12 * q_volume.max(scale.powi(3) * 1e-6),
                "{name}: volume {volume} vs Qhull {q_volume}"
            );
            // Every input point inside or on every triangle's plane, decided exactly.
            for t in &hull.triangles {
                let [a, b, c] = t.map(|i| c3(&pts[i]));
                for p in &pts {
                    assert!(orient3d(a, b, c, c3(p)) >= 0.0, "{name}: point outside");
                }
            }
        }
        if case["exact_vertices"].as_bool().unwrap() {
            assert_eq!(hull.vertices, q_vertices, "{name}: vertices");
        } else {
            // Qhull merges facets flatter than its precision (~1e-15 relative here); any vertex
            // the two disagree on must lie on the other's boundary within a few times that.
            let tol = 1e-13 * scale;
            for &i in hull.vertices.iter().filter(|i| !q_vertices.contains(i)) {
                let d = qhull_distance(case, &pts[i]);
                assert!(d.abs() <= tol, "{name}: our vertex {i} is {d} from Qhull's boundary");
            }
            for &i in q_vertices.iter().filter(|i| !hull.vertices.contains(i)) {
                let d = our_distance(&hull, &pts, &pts[i], scale);
                assert!(d.abs() <= tol, "{name}: Qhull vertex {i} is {d} from our boundary");
            }
        }
    }
}

/// A point outside must see its hull grow; the same builder reused on different sets gives the
/// same answers as a fresh one.
#[test]
fn builder_reuse_is_stateless() {
    let all = cases();
    let mut reused = HullBuilder::default();
    let mut a = ConvexHull::default();
    for case in all.iter().rev() {
        let pts = points(case);
        reused.build(&pts, &mut a).unwrap();
        let b = tumble_geometry::hull::convex_hull(&pts).unwrap();
        assert_eq!(a, b, "{}", case["name"]);
    }
}
