//! Polyhedron gravity of Itokawa against the independent `polyhedral-gravity` package
//! (reference data and generator script in tests/reference/). Skipped when the shared shape
//! models are not present.

use std::path::Path;
use tumble_dynamics::Polyhedron;
use tumble_geometry::{LengthUnit, mesh::read_obj};
use tumble_math::{Mat3, Vec3};

#[test]
fn itokawa_matches_polyhedral_gravity() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let obj = here.join("../../../shared/data/shapes/itokawa_sbgat_q32.obj");
    if !obj.exists() {
        eprintln!("skipped: {} not present", obj.display());
        return;
    }
    let poly = Polyhedron::new(&read_obj(&obj, LengthUnit::Km).expect("mesh"), 1950.0).expect("valid");
    let csv = std::fs::read_to_string(here.join("tests/reference/itokawa_polyhedral_gravity.csv")).expect("reference");
    let mut worst = [[0.0_f64; 3]; 2];
    for line in csv.lines().skip(1) {
        let t: Vec<&str> = line.split(',').collect();
        let n = |i: usize| t[i].parse::<f64>().expect("number");
        let p = Vec3::new(n(0), n(1), n(2));
        let s = poly.sample(&p);
        // polyhedral-gravity's U is positive (G∫ρ/r dV); ours is its negative.
        let (u, a) = (-n(4), Vec3::new(n(5), n(6), n(7)));
        let g = Mat3::new(n(8), n(11), n(12), n(11), n(9), n(13), n(12), n(13), n(10));
        let eu = ((s.potential - u) / u).abs();
        let ea = (s.acceleration - a).norm() / a.norm();
        let eg = (s.gradient - g).norm() / g.norm();
        // Requirement: ≤ 1e-9 relative; beyond ten radii ≤ 1e-6 (cancellation in the sums).
        // Measured: U 8.5e-13 and a 6.6e-12 inside and near; 2.9e-10 and 4.0e-9 far.
        let far = t[3] == "far";
        let bound = if far { 1e-6 } else { 1e-9 };
        // The gradient tensor falls off as r⁻³ while each edge and face term stays of order Gρ:
        // its relative round-off grows as (r/R)³, so it is held to 1e-8 near and 1e-5 far
        // (measured 2.1e-9 at three radii, 2.7e-7 at thirty).
        let gbound = if far { 1e-5 } else { 1e-8 };
        assert!(
            eu <= bound && ea <= bound && eg <= gbound,
            "{} point {:?}: U {eu:e}, a {ea:e}, ∇a {eg:e}",
            t[3],
            p.as_slice()
        );
        let k = usize::from(far);
        worst[k] = [worst[k][0].max(eu), worst[k][1].max(ea), worst[k][2].max(eg)];
    }
    eprintln!("worst relative errors [U, a, ∇a]: inside/near {:?}, far {:?}", worst[0], worst[1]);
}
