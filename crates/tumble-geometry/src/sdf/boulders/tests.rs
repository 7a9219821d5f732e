use super::*;
use crate::sdf::{HalfSpace, Sphere};
use tumble_math::numdiff::central_gradient;

/// A square of side `side` (m) in the plane z = 0, two triangles, normal +z.
fn square(side: f64) -> TriMesh {
    let h = 0.5 * side;
    TriMesh {
        vertices: vec![Vec3::new(-h, -h, 0.0), Vec3::new(h, -h, 0.0), Vec3::new(h, h, 0.0), Vec3::new(-h, h, 0.0)],
        faces: vec![[0, 1, 2], [0, 2, 3]],
    }
}

fn spec() -> BoulderSpec {
    BoulderSpec {
        seed: 5,
        alpha: 3.1,
        diameters: [0.5, 8.0],
        density: 0.02,
        axis_ratios: [0.71, 0.5],
        burial: 0.3,
        within: None,
    }
}

fn plane() -> HalfSpace {
    HalfSpace { point: Vec3::zeros(), normal: Vec3::z() }
}

#[test]
fn sizes_follow_the_truncated_power_law() {
    let s = spec();
    let boulders = place_boulders(&plane(), &square(2000.0), &s, &|_| 1.0).expect("fits");
    // density × area, every candidate kept on a plane.
    assert_eq!(boulders.len(), 80_000);
    let mut d: Vec<f64> = boulders.iter().map(|b| 2.0 * b.semi_axes.x).collect();
    d.sort_by(f64::total_cmp);
    let [lo, hi] = s.diameters;
    let law = |x: f64| (x.powf(-s.alpha) - hi.powf(-s.alpha)) / (lo.powf(-s.alpha) - hi.powf(-s.alpha));
    // Kolmogorov–Smirnov distance of the fraction larger than D: 1.95/√n = 0.0069 is its 0.1 %
    // critical value for n = 80,000.
    let n = d.len() as f64;
    let ks = d.iter().enumerate().map(|(i, &x)| (law(x) - (1.0 - i as f64 / n)).abs()).fold(0.0, f64::max);
    assert!(ks < 1.95 / n.sqrt(), "KS distance {ks}");
    assert!(d[0] >= lo && d[d.len() - 1] <= hi);
    // Shapes and burial: short axis along the normal, the stated fraction of the height below.
    for b in &boulders[..100] {
        assert!((b.axes.column(2) - Vec3::z()).norm() < 1e-12);
        let bottom = b.centre.z - b.semi_axes.z;
        assert!((bottom + s.burial * 2.0 * b.semi_axes.z).abs() < 1e-12, "{bottom}");
        assert!((b.semi_axes.y / b.semi_axes.x - 0.71).abs() < 1e-12);
    }
}

#[test]
fn regions_and_weights_thin_the_field() {
    let s = BoulderSpec { within: Some((Vec3::new(100.0, 0.0, 0.0), 300.0)), ..spec() };
    let all = place_boulders(&plane(), &square(2000.0), &s, &|_| 1.0).expect("fits");
    assert!(all.iter().all(|b| (b.centre.xy() - Vec3::new(100.0, 0.0, 0.0).xy()).norm() <= 300.0));
    // Triangles are kept by their centroid: both halves of the square count, every point then
    // tested against the disc.
    assert!(all.len() < 80_000 && all.len() > 2000, "{}", all.len());
    // Only the half x > 100 m carries boulders when the weight says so.
    let half = place_boulders(&plane(), &square(2000.0), &s, &|p| if p.x > 100.0 { 1.0 } else { 0.0 }).expect("fits");
    assert!(half.iter().all(|b| b.centre.x > 100.0));
    let ratio = half.len() as f64 / all.len() as f64;
    assert!((ratio - 0.5).abs() < 0.03, "{ratio}");
    // Too many is refused with the count.
    let e = place_boulders(&plane(), &square(1e5), &spec(), &|_| 1.0).unwrap_err();
    assert!(e.contains("boulders") && e.contains("density"), "{e}");
}

/// Every boulder, level by level in index order, with no culling: the field by definition.
fn brute(field: &BoulderField, p: &Vec3) -> (f64, Vec3) {
    let mut cur = field.ground.eval(p);
    for level in &field.levels {
        let mut members: Vec<u32> = level.items.clone();
        members.sort_unstable();
        members.dedup();
        for i in members {
            let b = &field.boulders[i as usize];
            cur = smin(cur, b.eval(p), b.blend);
        }
    }
    cur
}

#[test]
fn culling_is_exact_where_the_field_is_not_positive_and_a_lower_bound_elsewhere() {
    // A 60 m sphere: curved ground, boulders from 0.5 to 8 m, dense enough to overlap.
    let ground = Sphere { center: Vec3::zeros(), radius: 60.0 };
    let mesh = TriMesh::ellipsoid([60.0; 3], 4);
    let s = BoulderSpec { density: 0.02, ..spec() };
    let boulders = place_boulders(&ground, &mesh, &s, &|_| 1.0).expect("fits");
    assert!(boulders.len() > 800, "{}", boulders.len());
    let field = BoulderField::new(Box::new(ground), boulders.clone());
    assert!(field.levels.len() >= 4, "{} size classes", field.levels.len());
    let mut rng = Lcg::new(11);
    let (mut inside, mut above) = (0, 0);
    for k in 0..1500 {
        let u = Vec3::new(rng.normal(), rng.normal(), rng.normal()).normalize();
        let p = if k % 3 == 0 {
            // From 3 m below the ground to 12 m above it: in flight and between boulders.
            u * (57.0 + 15.0 * rng.unit() * rng.unit())
        } else {
            // Within twice its long semi-axis of a boulder: inside it, in its fillet, beside it.
            let b = &boulders[k % boulders.len()];
            b.centre + u * (2.0 * b.semi_axes.x * rng.unit())
        };
        let fast = field.eval(&p);
        let exact = brute(&field, &p);
        if fast.0 <= 0.0 || exact.0 <= 0.0 {
            assert_eq!(fast, exact, "{p}");
            inside += 1;
        } else {
            assert!(fast.0 <= exact.0 + 1e-12, "{p}: {} above {}", fast.0, exact.0);
            above += 1;
        }
    }
    assert!(inside > 300 && above > 300, "{inside} inside, {above} above");
}

#[test]
fn the_gradient_matches_finite_differences_near_boulders() {
    let boulders =
        place_boulders(&plane(), &square(200.0), &BoulderSpec { density: 0.05, ..spec() }, &|_| 1.0).expect("fits");
    let field = BoulderField::new(Box::new(plane()), boulders.clone());
    let mut checked = 0;
    for (k, b) in boulders.iter().enumerate().take(300) {
        // A point near the boulder's surface, in some direction from its centre.
        let dir = Vec3::new((k as f64).sin(), (1.3 * k as f64).cos(), 0.5 + 0.4 * (0.7 * k as f64).sin()).normalize();
        let p = b.centre + dir * (b.semi_axes.y * 1.05);
        let (d, g) = field.eval(&p);
        if d > 0.5 * b.semi_axes.z {
            continue;
        }
        let num = central_gradient(|q| field.eval(q).0, &p, 1e-6);
        assert!((g - num).norm() < 1e-5, "{p}: {g} vs {num}");
        checked += 1;
    }
    assert!(checked > 100, "{checked}");
}

/// A field's points queried together (the ground's in one query: a terrain's lanes) give the
/// bits of querying them one by one: boulders on a plane and on fBm terrain, points among
/// the boulders and above them, in queries of one to eleven points.
#[test]
fn points_queried_together_give_the_bits_of_one_at_a_time() {
    use crate::noise::Fbm;
    use crate::sdf::{Region, Terrain};
    let f = |seed| Fbm { seed, octaves: 5, lacunarity: 2.0, gain: 0.5, amplitude: 0.3, frequency: 0.1 };
    let rough =
        Terrain { base: Box::new(plane()), sandy: f(1), rocky: f(2), region: Region::Uniform, origin: Vec3::zeros() };
    let mut g = tumble_math::Lcg::new(8);
    for ground in [Box::new(plane()) as Box<dyn Sdf>, Box::new(rough)] {
        let boulders = place_boulders(ground.as_ref(), &square(100.0), &spec(), &|_| 1.0).expect("fits");
        let field = BoulderField::new(ground, boulders);
        for n in 1..=11 {
            let pts: Vec<Vec3> =
                (0..n).map(|_| Vec3::new(50.0 * g.symmetric(), 50.0 * g.symmetric(), 3.0 * g.unit() - 0.5)).collect();
            let mut many = vec![(0.0, Vec3::zeros()); n];
            field.eval_many(&pts, &mut many);
            for (p, m) in pts.iter().zip(&many) {
                let one = field.eval(p);
                assert_eq!(one.0.to_bits(), m.0.to_bits(), "{n} points, at {p:?}");
                assert!((0..3).all(|k| one.1[k].to_bits() == m.1[k].to_bits()), "{n} points, at {p:?}");
            }
        }
    }
}
