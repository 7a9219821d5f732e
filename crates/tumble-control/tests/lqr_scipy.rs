//! LQR gains and Riccati solutions against SciPy's `solve_continuous_are` (reference generated
//! by tests/reference/gen_lqr_scipy.py).

use tumble_control::lqr;
use tumble_math::nalgebra::DMatrix;

fn matrix(v: &serde_json::Value) -> DMatrix<f64> {
    let rows: Vec<Vec<f64>> = v
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r.as_array().expect("row").iter().map(|x| x.as_f64().expect("number")).collect())
        .collect();
    DMatrix::from_fn(rows.len(), rows[0].len(), |i, j| rows[i][j])
}

#[test]
fn lqr_matches_scipy() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/reference/lqr_scipy.json"))
        .expect("reference");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    for c in doc["cases"].as_array().expect("cases") {
        let n = c.get("N").map(matrix);
        let d =
            lqr(&matrix(&c["A"]), &matrix(&c["B"]), &matrix(&c["Q"]), &matrix(&c["R"]), n.as_ref()).expect("design");
        let (s_ref, k_ref) = (matrix(&c["S"]), matrix(&c["K"]));
        let (es, ek) = ((&d.s - &s_ref).norm() / s_ref.norm(), (&d.k - &k_ref).norm() / k_ref.norm());
        // Both solve the same well-conditioned equations; ≤ 1e-8 relative is the criterion.
        eprintln!("{}: S {es:e}, K {ek:e}", c["name"]);
        assert!(es < 1e-8 && ek < 1e-8, "{}: S {es:e}, K {ek:e}", c["name"]);
    }
}
