//! `tumble lqr`: LQR design from matrices in a JSON file.

use crate::{Failure, output};
use serde_json::json;
use std::path::Path;
use tumble_control::lqr;
use tumble_math::nalgebra::DMatrix;

fn matrix(file: &Path, doc: &serde_json::Value, key: &str) -> Result<Option<DMatrix<f64>>, String> {
    let Some(v) = doc.get(key) else { return Ok(None) };
    let bad = |m: String| format!("{}: key `{key}`: {m}", file.display());
    let rows = v.as_array().ok_or_else(|| bad("must be an array of rows (nested arrays of numbers)".into()))?;
    let mut data: Vec<Vec<f64>> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let r = r.as_array().ok_or_else(|| bad(format!("row {i} is not an array")))?;
        data.push(
            r.iter()
                .enumerate()
                .map(|(j, x)| x.as_f64().ok_or_else(|| bad(format!("entry [{i}][{j}] is not a number"))))
                .collect::<Result<_, _>>()?,
        );
    }
    let cols = data.first().map_or(0, |r| r.len());
    if data.is_empty() || cols == 0 || data.iter().any(|r| r.len() != cols) {
        return Err(bad("rows must be non-empty and of equal length".into()));
    }
    Ok(Some(DMatrix::from_fn(data.len(), cols, |i, j| data[i][j])))
}

fn rows(m: &DMatrix<f64>) -> Vec<Vec<f64>> {
    (0..m.nrows()).map(|i| m.row(i).iter().copied().collect()).collect()
}

pub fn run(file: &Path, as_json: bool) -> Result<(), Failure> {
    let text = tumble_math::input::read_to_string(file).map_err(|e| format!("{}: cannot read: {e}", file.display()))?;
    let doc: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", file.display()))?;
    let need = |k: &str| -> Result<DMatrix<f64>, String> {
        matrix(file, &doc, k)?
            .ok_or_else(|| format!("{}: key `{k}` is missing (give A, B, Q, R and optionally N)", file.display()))
    };
    let (a, b, q, r) = (need("A")?, need("B")?, need("Q")?, need("R")?);
    let n = matrix(file, &doc, "N")?;
    let d = lqr(&a, &b, &q, &r, n.as_ref()).map_err(|e| format!("{}: {e}", file.display()))?;
    let eig: Vec<[f64; 2]> = d.closed_loop.iter().map(|e| [e.re, e.im]).collect();
    if as_json {
        let out = json!({ "K": rows(&d.k), "S": rows(&d.s), "closed_loop_eigenvalues": eig });
        say!("{}", serde_json::to_string_pretty(&out).map_err(output)?);
        return Ok(());
    }
    let show = |title: &str, m: &DMatrix<f64>| {
        say!("{title}");
        for r in rows(m) {
            say!("  {}", r.iter().map(|x| format!("{x:>14.6e}")).collect::<Vec<_>>().join(" "));
        }
    };
    show("gain K (u = −K x):", &d.k);
    show("Riccati solution S:", &d.s);
    say!("closed-loop eigenvalues of A − B K:");
    for [re, im] in eig {
        say!("  {re:>14.6e} {im:+.6e}i");
    }
    Ok(())
}
