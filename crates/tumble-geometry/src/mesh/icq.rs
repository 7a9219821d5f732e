//! Gaskell's implicitly connected quadrilateral (ICQ) shape models: a first line `q`, then
//! `6(q+1)²` lines `x y z`, the vertices of six `(q+1)×(q+1)` grids (one per cube face, `i`
//! fastest, then `j`, then the face). Each grid cell becomes two triangles; the vertices that
//! neighbouring faces repeat along shared edges are welded, and faces are oriented outward.

use super::{LengthUnit, MeshError, Repair, TriMesh};
use std::path::Path;
use tumble_math::Vec3;

/// Reads an ICQ file whose coordinates are in `unit`.
pub fn read_icq(path: &Path, unit: LengthUnit) -> Result<TriMesh, MeshError> {
    let file = path.display().to_string();
    let text =
        tumble_math::input::read_to_string(path).map_err(|source| MeshError::Io { file: file.clone(), source })?;
    parse_icq(&file, &text, unit)
}

/// Parses ICQ text (`file` names it in errors).
pub fn parse_icq(file: &str, text: &str, unit: LengthUnit) -> Result<TriMesh, MeshError> {
    let perr = |line: usize, message: String| MeshError::Parse { file: file.to_string(), line, message };
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let (n0, first) =
        lines.next().ok_or_else(|| MeshError::Invalid { file: file.to_string(), message: "empty file".into() })?;
    let q: usize = first
        .trim()
        .parse()
        .map_err(|_| perr(n0 + 1, format!("the first line must be the grid size q, found `{}`", first.trim())))?;
    if q == 0 || q > 4096 {
        return Err(perr(n0 + 1, format!("grid size q = {q} is out of range (1 to 4096)")));
    }
    let n = q + 1;
    let s = unit.to_metres();
    let mut vertices = Vec::new(); // q comes from the file: do not trust it for allocation
    for (k, l) in lines {
        let c: Vec<f64> = l
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map_err(|_| perr(k + 1, format!("`{}` is not three numbers", l.trim())))?;
        if c.len() != 3 || c.iter().any(|x| !x.is_finite()) {
            return Err(perr(k + 1, "a vertex line needs three finite numbers".into()));
        }
        vertices.push(Vec3::new(c[0], c[1], c[2]) * s);
    }
    if vertices.len() != 6 * n * n {
        return Err(MeshError::Invalid {
            file: file.to_string(),
            message: format!("q = {q} needs 6(q+1)² = {} vertex lines, found {}", 6 * n * n, vertices.len()),
        });
    }
    let id = |f: usize, i: usize, j: usize| (f * n * n + j * n + i) as u32;
    let mut faces = Vec::with_capacity(12 * q * q);
    for f in 0..6 {
        for j in 0..q {
            for i in 0..q {
                let (a, b, c, d) = (id(f, i, j), id(f, i + 1, j), id(f, i + 1, j + 1), id(f, i, j + 1));
                faces.push([a, b, c]);
                faces.push([a, c, d]);
            }
        }
    }
    Ok(TriMesh { vertices, faces }.repaired(Repair::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cube-sphere in ICQ layout: faces parameterised so that shared edges repeat the very
    /// same numbers, as Gaskell's files do.
    fn sphere_icq(q: usize, r: f64) -> String {
        let mut out = format!("{q}\n");
        let t = |k: usize| -1.0 + 2.0 * k as f64 / q as f64;
        let faces: [fn(f64, f64) -> [f64; 3]; 6] = [
            |u, v| [u, v, 1.0],
            |u, v| [1.0, u, v],
            |u, v| [v, 1.0, u],
            |u, v| [-1.0, v, u],
            |u, v| [u, -1.0, v],
            |u, v| [v, u, -1.0],
        ];
        for f in faces {
            for j in 0..=q {
                for i in 0..=q {
                    let p = Vec3::from(f(t(i), t(j))).normalize() * r;
                    out.push_str(&format!("{} {} {}\n", p.x, p.y, p.z));
                }
            }
        }
        out
    }

    #[test]
    fn cube_sphere_becomes_a_closed_outward_mesh() {
        let q = 16;
        let m = parse_icq("s.icq", &sphere_icq(q, 2.0), LengthUnit::Km).expect("parses");
        let r = m.report();
        assert!(r.closed && r.outward && r.euler_characteristic == 2, "{r:?}");
        // 6q² + 2 distinct vertices once the edges are welded; 12q² triangles.
        assert_eq!((m.vertices.len(), m.faces.len()), (6 * q * q + 2, 12 * q * q));
        let exact = 4.0 / 3.0 * std::f64::consts::PI * 2000f64.powi(3);
        assert!((m.volume() / exact - 1.0).abs() < 0.01, "inscribed polyhedron within 1 % of the sphere");
    }

    #[test]
    fn refuses_malformed_files() {
        for (text, expect) in [
            ("", "empty file"),
            ("abc\n", "s.icq:1: the first line must be the grid size"),
            ("2\n0 0 0\n", "needs 6(q+1)² = 54 vertex lines, found 1"),
            ("1\n0 0 x\n", "s.icq:2:"),
        ] {
            let e = parse_icq("s.icq", text, LengthUnit::M).expect_err(expect).to_string();
            assert!(e.contains(expect), "{e}");
        }
    }
}
