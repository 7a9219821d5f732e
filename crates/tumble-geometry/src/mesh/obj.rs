//! Wavefront OBJ: `v x y z` and `f` records (`f a b c`, `a/b/c`, `a//c`, negative indices
//! relative to the vertices read so far, polygons fan-triangulated); comments, other records
//! (`vn`, `vt`, `o`, `g`, `s`, `usemtl`, `mtllib`) and CRLF line endings are accepted.

use super::{LengthUnit, MeshError, TriMesh};
use std::io::Write;
use std::path::Path;
use tumble_math::Vec3;

/// Reads an OBJ file whose coordinates are in `unit`.
pub fn read_obj(path: &Path, unit: LengthUnit) -> Result<TriMesh, MeshError> {
    let file = path.display().to_string();
    let text =
        tumble_math::input::read_to_string(path).map_err(|source| MeshError::Io { file: file.clone(), source })?;
    parse_obj(&file, &text, unit)
}

/// Parses OBJ text (`file` names it in errors).
pub fn parse_obj(file: &str, text: &str, unit: LengthUnit) -> Result<TriMesh, MeshError> {
    let scale = unit.to_metres();
    let mut mesh = TriMesh::default();
    let err = |line: usize, message: String| MeshError::Parse { file: file.to_string(), line, message };
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let l = raw.split('#').next().unwrap_or("").trim();
        let mut it = l.split_whitespace();
        match it.next() {
            Some("v") => {
                let mut c = [0.0; 3];
                for (k, ck) in c.iter_mut().enumerate() {
                    let tok = it.next().ok_or_else(|| err(line, format!("vertex needs 3 coordinates, found {k}")))?;
                    *ck = tok
                        .parse::<f64>()
                        .map_err(|_| err(line, format!("vertex coordinate `{tok}` is not a number")))?;
                    if !ck.is_finite() {
                        return Err(err(line, format!("vertex coordinate `{tok}` is not finite")));
                    }
                }
                mesh.vertices.push(Vec3::from(c) * scale);
            }
            Some("f") => {
                let nv = mesh.vertices.len();
                let idx = it
                    .map(|tok| {
                        let first = tok.split('/').next().unwrap_or("");
                        let i: i64 = first.parse().map_err(|_| err(line, format!("face index `{tok}` is not an integer")))?;
                        let resolved = if i > 0 { i - 1 } else { nv as i64 + i };
                        if i == 0 || resolved < 0 || resolved >= nv as i64 {
                            return Err(err(line, format!("face index {i} is out of range: {nv} vertices are defined before this line (OBJ indices start at 1; negative ones count back)")));
                        }
                        Ok(resolved as u32)
                    })
                    .collect::<Result<Vec<u32>, MeshError>>()?;
                if idx.len() < 3 {
                    return Err(err(line, format!("a face needs at least 3 vertices, found {}", idx.len())));
                }
                for k in 1..idx.len() - 1 {
                    mesh.faces.push([idx[0], idx[k], idx[k + 1]]);
                }
            }
            _ => {}
        }
    }
    if mesh.faces.is_empty() {
        return Err(MeshError::Invalid {
            file: file.to_string(),
            message: "no faces (`f` records) found: not a triangle mesh".into(),
        });
    }
    if mesh.vertices.len() > u32::MAX as usize {
        return Err(MeshError::Invalid { file: file.to_string(), message: "more than 2³² vertices".into() });
    }
    Ok(mesh)
}

/// Writes `mesh` as OBJ with coordinates in `unit`, shortest round-trip decimals.
pub fn write_obj(path: &Path, mesh: &TriMesh, unit: LengthUnit) -> Result<(), MeshError> {
    let io = |source| MeshError::Io { file: path.display().to_string(), source };
    let mut w = std::io::BufWriter::new(tumble_math::output::create(path).map_err(io)?);
    let s = 1.0 / unit.to_metres();
    (|| -> std::io::Result<()> {
        for v in &mesh.vertices {
            writeln!(w, "v {} {} {}", v.x * s, v.y * s, v.z * s)?;
        }
        for f in &mesh.faces {
            writeln!(w, "f {} {} {}", f[0] + 1, f[1] + 1, f[2] + 1)?;
        }
        w.into_inner().map_err(|e| e.into_error())?.commit()
    })()
    .map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_obj_variants() {
        let text = "# comment\r\nv 0 0 0\r\nv 1 0 0\r\nvn 0 0 1\r\nv 1 1 0\r\nv 0 1 0\r\nf 1/1/1 2/2/1 3/3/1\r\nf -4//1 -2//1 -1//1\r\no quad\r\nf 1 2 3 4\r\n";
        let m = parse_obj("t.obj", text, LengthUnit::Km).expect("parses");
        assert_eq!(m.vertices.len(), 4);
        assert_eq!(m.vertices[2], Vec3::new(1000.0, 1000.0, 0.0));
        assert_eq!(m.faces, vec![[0, 1, 2], [0, 2, 3], [0, 1, 2], [0, 2, 3]]);
    }

    #[test]
    fn refuses_bad_files_with_the_line() {
        let cases = [
            ("", "no faces"),
            ("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", "t.obj:4: face index 4 is out of range"),
            ("v 0 0 nan\n", "t.obj:1: vertex coordinate `nan` is not finite"),
            ("v 0 0\n", "t.obj:1: vertex needs 3 coordinates"),
            ("v 0 0 0\nf 1 1\n", "t.obj:2: a face needs at least 3"),
            ("v 0 0 0\nf 0 1 1\n", "t.obj:2: face index 0 is out of range"),
        ];
        for (text, expect) in cases {
            let e = parse_obj("t.obj", text, LengthUnit::M).expect_err(expect).to_string();
            assert!(e.contains(expect), "{e}");
        }
    }

    #[test]
    fn round_trips_through_the_writer() {
        let m = TriMesh::ellipsoid([1.5, 1.0, 0.7], 2);
        let p = std::env::temp_dir().join(format!("tumble_obj_roundtrip_{}.obj", std::process::id()));
        write_obj(&p, &m, LengthUnit::Km).expect("writes");
        let back = read_obj(&p, LengthUnit::Km).expect("reads");
        let _ = std::fs::remove_file(&p);
        assert_eq!(back.faces, m.faces);
        for (a, b) in back.vertices.iter().zip(&m.vertices) {
            // km → m multiplies by 1000 after the shortest decimal: at most one ulp apart.
            assert!((a - b).norm() <= 2.0 * f64::EPSILON * b.norm(), "{a} vs {b}");
        }
    }

    #[test]
    fn units_parse() {
        assert_eq!("km".parse::<LengthUnit>(), Ok(LengthUnit::Km));
        assert_eq!("2.5".parse::<LengthUnit>(), Ok(LengthUnit::Scale(2.5)));
        assert!("miles".parse::<LengthUnit>().is_err());
    }
}
