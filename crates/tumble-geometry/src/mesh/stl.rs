//! STL, binary and ASCII. STL stores a triangle soup: vertices at bit-identical positions are
//! merged on reading so that a closed surface comes back closed. Binary STL holds 32-bit floats;
//! the ASCII writer keeps full double precision.

use super::{LengthUnit, MeshError, TriMesh};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use tumble_math::Vec3;

/// Reads a binary or ASCII STL file whose coordinates are in `unit`.
pub fn read_stl(path: &Path, unit: LengthUnit) -> Result<TriMesh, MeshError> {
    let file = path.display().to_string();
    let bytes = tumble_math::input::read(path).map_err(|source| MeshError::Io { file: file.clone(), source })?;
    parse_stl(&file, &bytes, unit)
}

/// Parses STL bytes (`file` names it in errors).
pub fn parse_stl(file: &str, bytes: &[u8], unit: LengthUnit) -> Result<TriMesh, MeshError> {
    let invalid = |message: String| MeshError::Invalid { file: file.to_string(), message };
    if bytes.len() >= 84 {
        let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
        if 84 + 50 * n == bytes.len() {
            return binary(file, bytes, n, unit);
        }
        if !bytes.trim_ascii_start().starts_with(b"solid") {
            return Err(invalid(format!(
                "binary STL header says {n} triangles ({} bytes) but the file has {} bytes: truncated or corrupt",
                84 + 50 * n,
                bytes.len()
            )));
        }
    }
    if bytes.trim_ascii_start().starts_with(b"solid") {
        let text = std::str::from_utf8(bytes).map_err(|_| invalid("ASCII STL is not valid UTF-8 text".into()))?;
        return ascii(file, text, unit);
    }
    Err(invalid(format!(
        "not an STL file: {} bytes, too short for a binary header and not `solid …` text",
        bytes.len()
    )))
}

fn binary(file: &str, bytes: &[u8], n: usize, unit: LengthUnit) -> Result<TriMesh, MeshError> {
    let s = unit.to_metres();
    let mut welder = Welder::default();
    for t in 0..n {
        let rec = &bytes[84 + 50 * t..84 + 50 * (t + 1)];
        let f = |k: usize| f32::from_le_bytes([rec[4 * k], rec[4 * k + 1], rec[4 * k + 2], rec[4 * k + 3]]) as f64;
        let mut tri = [0u32; 3];
        for (c, idx) in tri.iter_mut().enumerate() {
            let p = Vec3::new(f(3 + 3 * c), f(4 + 3 * c), f(5 + 3 * c));
            if p.iter().any(|x| !x.is_finite()) {
                return Err(MeshError::Invalid {
                    file: file.to_string(),
                    message: format!("triangle {} has a non-finite vertex", t + 1),
                });
            }
            *idx = welder.index(p * s);
        }
        welder.mesh.faces.push(tri);
    }
    finish(file, welder.mesh)
}

fn ascii(file: &str, text: &str, unit: LengthUnit) -> Result<TriMesh, MeshError> {
    let s = unit.to_metres();
    let mut welder = Welder::default();
    let mut corners: Vec<u32> = Vec::with_capacity(3);
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let mut it = raw.split_whitespace();
        match it.next() {
            Some("vertex") => {
                let c: Vec<f64> =
                    it.map(|t| t.parse::<f64>()).collect::<Result<_, _>>().map_err(|_| MeshError::Parse {
                        file: file.to_string(),
                        line,
                        message: format!("`{}`: a vertex needs three numbers", raw.trim()),
                    })?;
                if c.len() != 3 || c.iter().any(|x| !x.is_finite()) {
                    return Err(MeshError::Parse {
                        file: file.to_string(),
                        line,
                        message: "a vertex needs three finite numbers".into(),
                    });
                }
                corners.push(welder.index(Vec3::new(c[0], c[1], c[2]) * s));
            }
            Some("endloop") => {
                if corners.len() != 3 {
                    return Err(MeshError::Parse {
                        file: file.to_string(),
                        line,
                        message: format!("a facet needs 3 vertices, found {}", corners.len()),
                    });
                }
                welder.mesh.faces.push([corners[0], corners[1], corners[2]]);
                corners.clear();
            }
            _ => {}
        }
    }
    finish(file, welder.mesh)
}

fn finish(file: &str, mesh: TriMesh) -> Result<TriMesh, MeshError> {
    if mesh.faces.is_empty() {
        return Err(MeshError::Invalid { file: file.to_string(), message: "no triangles".into() });
    }
    Ok(mesh)
}

/// Merges bit-identical positions into one vertex.
#[derive(Default)]
struct Welder {
    mesh: TriMesh,
    seen: HashMap<[u64; 3], u32>,
}

impl Welder {
    fn index(&mut self, p: Vec3) -> u32 {
        let key = [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()];
        let mesh = &mut self.mesh;
        *self.seen.entry(key).or_insert_with(|| {
            mesh.vertices.push(p);
            (mesh.vertices.len() - 1) as u32
        })
    }
}

/// Writes `mesh` as STL with coordinates in `unit`: binary (32-bit floats) or ASCII (full
/// precision).
pub fn write_stl(path: &Path, mesh: &TriMesh, unit: LengthUnit, ascii: bool) -> Result<(), MeshError> {
    let io = |source| MeshError::Io { file: path.display().to_string(), source };
    let mut w = std::io::BufWriter::new(tumble_math::output::create(path).map_err(io)?);
    let s = 1.0 / unit.to_metres();
    let normal = |f: usize| {
        let [a, b, c] = mesh.triangle(f);
        (b - a).cross(&(c - a)).try_normalize(0.0).unwrap_or_else(Vec3::zeros)
    };
    (|| -> std::io::Result<()> {
        if ascii {
            writeln!(w, "solid tumble")?;
            for f in 0..mesh.faces.len() {
                let n = normal(f);
                writeln!(w, "facet normal {} {} {}\n outer loop", n.x, n.y, n.z)?;
                for v in mesh.triangle(f) {
                    writeln!(w, "  vertex {} {} {}", v.x * s, v.y * s, v.z * s)?;
                }
                writeln!(w, " endloop\nendfacet")?;
            }
            writeln!(w, "endsolid tumble")?;
        } else {
            let mut header = [b' '; 80];
            header[..13].copy_from_slice(b"tumble binary");
            w.write_all(&header)?;
            w.write_all(&(mesh.faces.len() as u32).to_le_bytes())?;
            for f in 0..mesh.faces.len() {
                let n = normal(f);
                let mut put = |v: Vec3| -> std::io::Result<()> {
                    for c in v.iter() {
                        w.write_all(&(*c as f32).to_le_bytes())?;
                    }
                    Ok(())
                };
                put(n)?;
                for v in mesh.triangle(f) {
                    put(v * s)?;
                }
                w.write_all(&[0, 0])?;
            }
        }
        w.into_inner().map_err(|e| e.into_error())?.commit()
    })()
    .map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("tumble_stl_{}_{name}", std::process::id()))
    }

    #[test]
    fn round_trips_ascii_exactly_and_binary_to_f32() {
        let m = TriMesh::ellipsoid([1.5, 1.0, 0.7], 2);
        for ascii in [true, false] {
            let p = tmp(if ascii { "a.stl" } else { "b.stl" });
            write_stl(&p, &m, LengthUnit::Km, ascii).expect("writes");
            let back = read_stl(&p, LengthUnit::Km).expect("reads");
            let _ = std::fs::remove_file(&p);
            assert_eq!(back.faces.len(), m.faces.len());
            assert_eq!(back.vertices.len(), m.vertices.len(), "welded back to the shared vertices");
            let r = back.report();
            assert!(r.closed && r.outward, "{r:?}");
            // ASCII: shortest decimals, km → m, one ulp; binary: f32 rounding, 2⁻²⁴ relative.
            let tol = if ascii { 4.0 * f64::EPSILON } else { 1.0 / (1u64 << 23) as f64 };
            for f in 0..m.faces.len() {
                for (a, b) in back.triangle(f).iter().zip(m.triangle(f)) {
                    assert!((a - b).norm() <= tol * b.norm(), "{a} vs {b}");
                }
            }
        }
    }

    #[test]
    fn refuses_truncated_and_malformed_files() {
        let m = TriMesh::cuboid([1.0, 1.0, 1.0]);
        let p = tmp("t.stl");
        write_stl(&p, &m, LengthUnit::M, false).expect("writes");
        let bytes = std::fs::read(&p).expect("reads");
        let _ = std::fs::remove_file(&p);
        let e = parse_stl("t.stl", &bytes[..bytes.len() - 7], LengthUnit::M).expect_err("truncated").to_string();
        assert!(e.contains("truncated"), "{e}");
        let e = parse_stl("t.stl", b"", LengthUnit::M).expect_err("empty").to_string();
        assert!(e.contains("not an STL file"), "{e}");
        let e =
            parse_stl("t.stl", b"solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0\n", LengthUnit::M)
                .expect_err("short vertex")
                .to_string();
        assert!(e.contains("t.stl:5:"), "{e}");
        let e = parse_stl("t.stl", b"solid x\nendsolid x\n", LengthUnit::M).expect_err("empty solid").to_string();
        assert!(e.contains("no triangles"), "{e}");
    }
}
