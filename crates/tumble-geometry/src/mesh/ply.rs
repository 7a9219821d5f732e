//! PLY (Stanford polygon format): ASCII, binary little- and big-endian. Vertex `x, y, z` and the
//! face index list (`vertex_indices` or `vertex_index`) are read; other properties and elements
//! are skipped. Polygons are fan-triangulated.

use super::{LengthUnit, MeshError, TriMesh};
use std::path::Path;
use tumble_math::Vec3;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Ty {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    F32,
    F64,
}

impl Ty {
    fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "char" | "int8" => Ty::I8,
            "uchar" | "uint8" => Ty::U8,
            "short" | "int16" => Ty::I16,
            "ushort" | "uint16" => Ty::U16,
            "int" | "int32" => Ty::I32,
            "uint" | "uint32" => Ty::U32,
            "float" | "float32" => Ty::F32,
            "double" | "float64" => Ty::F64,
            _ => return None,
        })
    }
    fn size(self) -> usize {
        match self {
            Ty::I8 | Ty::U8 => 1,
            Ty::I16 | Ty::U16 => 2,
            Ty::I32 | Ty::U32 | Ty::F32 => 4,
            Ty::F64 => 8,
        }
    }
}

#[derive(Debug)]
enum Prop {
    Scalar(String, Ty),
    List(String, Ty, Ty),
}

#[derive(Debug)]
struct Element {
    name: String,
    count: usize,
    props: Vec<Prop>,
}

#[derive(Clone, Copy, PartialEq)]
enum Format {
    Ascii,
    Little,
    Big,
}

/// Reads a PLY file whose coordinates are in `unit`.
pub fn read_ply(path: &Path, unit: LengthUnit) -> Result<TriMesh, MeshError> {
    let file = path.display().to_string();
    let bytes = tumble_math::input::read(path).map_err(|source| MeshError::Io { file: file.clone(), source })?;
    parse_ply(&file, &bytes, unit)
}

/// Parses PLY bytes (`file` names it in errors).
pub fn parse_ply(file: &str, bytes: &[u8], unit: LengthUnit) -> Result<TriMesh, MeshError> {
    let perr = |line: usize, message: String| MeshError::Parse { file: file.to_string(), line, message };
    let invalid = |message: String| MeshError::Invalid { file: file.to_string(), message };
    let end = bytes
        .windows(10)
        .position(|w| w == b"end_header")
        .ok_or_else(|| invalid("no `end_header`: not a PLY file".into()))?;
    // The header ends with exactly one line break; binary data may begin with 0x0D or 0x0A.
    let rest = &bytes[end + 10..];
    let body_start = end + 10 + if rest.starts_with(b"\r\n") { 2 } else { usize::from(rest.starts_with(b"\n")) };
    let header = std::str::from_utf8(&bytes[..end]).map_err(|_| invalid("PLY header is not text".into()))?;
    let mut format = None;
    let mut elements: Vec<Element> = Vec::new();
    for (n, l) in header.lines().enumerate() {
        let t: Vec<&str> = l.split_whitespace().collect();
        match t.as_slice() {
            ["ply"] | [] => {}
            ["comment", ..] | ["obj_info", ..] => {}
            ["format", f, _] => {
                format = Some(match *f {
                    "ascii" => Format::Ascii,
                    "binary_little_endian" => Format::Little,
                    "binary_big_endian" => Format::Big,
                    _ => return Err(perr(n + 1, format!("unknown PLY format `{f}`"))),
                })
            }
            ["element", name, count] => elements.push(Element {
                name: name.to_string(),
                count: count.parse().map_err(|_| perr(n + 1, format!("element count `{count}` is not an integer")))?,
                props: Vec::new(),
            }),
            ["property", "list", c, i, name] => {
                let (c, i) = (Ty::parse(c), Ty::parse(i));
                let (Some(c), Some(i)) = (c, i) else { return Err(perr(n + 1, format!("unknown type in `{l}`"))) };
                let el = elements.last_mut().ok_or_else(|| perr(n + 1, "property before any element".into()))?;
                el.props.push(Prop::List(name.to_string(), c, i));
            }
            ["property", ty, name] => {
                let ty = Ty::parse(ty).ok_or_else(|| perr(n + 1, format!("unknown property type `{ty}`")))?;
                let el = elements.last_mut().ok_or_else(|| perr(n + 1, "property before any element".into()))?;
                el.props.push(Prop::Scalar(name.to_string(), ty));
            }
            _ => return Err(perr(n + 1, format!("unexpected header line `{l}`"))),
        }
    }
    let format = format.ok_or_else(|| invalid("missing `format` line".into()))?;
    let mut reader = Reader { bytes: &bytes[body_start..], pos: 0, format, tokens: Vec::new() };
    if format == Format::Ascii {
        let text = std::str::from_utf8(reader.bytes).map_err(|_| invalid("ASCII PLY body is not text".into()))?;
        reader.tokens = text.split_whitespace().map(str::to_string).collect();
        reader.tokens.reverse();
    }
    let s = unit.to_metres();
    let mut mesh = TriMesh::default();
    for el in &elements {
        for k in 0..el.count {
            let mut xyz = [f64::NAN; 3];
            for p in &el.props {
                match p {
                    Prop::Scalar(name, ty) => {
                        let v = reader.scalar(*ty).ok_or_else(|| truncated(file, &el.name, k))?;
                        if let Some(i) = ["x", "y", "z"].iter().position(|c| c == name) {
                            xyz[i] = v;
                        }
                    }
                    Prop::List(name, cty, ity) => {
                        let n = reader.scalar(*cty).ok_or_else(|| truncated(file, &el.name, k))? as usize;
                        let mut idx = Vec::with_capacity(n.min(16)); // n comes from the file: do not trust it for allocation
                        for _ in 0..n {
                            idx.push(reader.scalar(*ity).ok_or_else(|| truncated(file, &el.name, k))?);
                        }
                        if el.name == "face" && (name == "vertex_indices" || name == "vertex_index") {
                            if n < 3 {
                                return Err(invalid(format!("face {k} has {n} vertices; at least 3 are needed")));
                            }
                            let nv = elements.iter().find(|e| e.name == "vertex").map_or(0, |e| e.count);
                            let idx: Vec<u32> = idx
                                .iter()
                                .map(|&i| {
                                    if i >= 0.0 && (i as usize) < nv {
                                        Ok(i as u32)
                                    } else {
                                        Err(invalid(format!(
                                            "face {k} has vertex index {i}, out of range for {nv} vertices"
                                        )))
                                    }
                                })
                                .collect::<Result<_, _>>()?;
                            for j in 1..idx.len() - 1 {
                                mesh.faces.push([idx[0], idx[j], idx[j + 1]]);
                            }
                        }
                    }
                }
            }
            if el.name == "vertex" {
                if xyz.iter().any(|c| !c.is_finite()) {
                    return Err(invalid(format!("vertex {k} has a missing or non-finite coordinate")));
                }
                mesh.vertices.push(Vec3::from(xyz) * s);
            }
        }
    }
    if mesh.faces.is_empty() {
        return Err(invalid("no faces".into()));
    }
    Ok(mesh)
}

fn truncated(file: &str, element: &str, k: usize) -> MeshError {
    MeshError::Invalid { file: file.to_string(), message: format!("truncated: the data end inside {element} {k}") }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    format: Format,
    tokens: Vec<String>,
}

impl Reader<'_> {
    fn scalar(&mut self, ty: Ty) -> Option<f64> {
        if self.format == Format::Ascii {
            return self.tokens.pop()?.parse().ok();
        }
        let n = ty.size();
        let raw = self.bytes.get(self.pos..self.pos + n)?;
        self.pos += n;
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(raw);
        if self.format == Format::Big {
            b[..n].reverse();
        }
        Some(match ty {
            Ty::I8 => b[0] as i8 as f64,
            Ty::U8 => b[0] as f64,
            Ty::I16 => i16::from_le_bytes([b[0], b[1]]) as f64,
            Ty::U16 => u16::from_le_bytes([b[0], b[1]]) as f64,
            Ty::I32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            Ty::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            Ty::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
            Ty::F64 => f64::from_le_bytes(b),
        })
    }
}

/// Writes `mesh` as binary little-endian PLY (double coordinates, int indices) in `unit`.
/// Used by the tests to check the reader; Tumble's own outputs use OBJ and STL.
#[cfg(test)]
fn write_ply(path: &Path, mesh: &TriMesh, unit: LengthUnit, big: bool) -> std::io::Result<()> {
    use std::io::Write;
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    let fmt = if big { "binary_big_endian" } else { "binary_little_endian" };
    write!(
        w,
        "ply\nformat {fmt} 1.0\ncomment tumble\nelement vertex {}\nproperty double x\nproperty double y\nproperty double z\nproperty uchar red\nelement face {}\nproperty list uchar int vertex_indices\nend_header\n",
        mesh.vertices.len(),
        mesh.faces.len()
    )?;
    let s = 1.0 / unit.to_metres();
    for v in &mesh.vertices {
        for c in v.iter() {
            w.write_all(&if big { (c * s).to_be_bytes() } else { (c * s).to_le_bytes() })?;
        }
        w.write_all(&[200])?;
    }
    for f in &mesh.faces {
        w.write_all(&[3])?;
        for i in f {
            w.write_all(&if big { (*i as i32).to_be_bytes() } else { (*i as i32).to_le_bytes() })?;
        }
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_both_endians_and_ascii() {
        let m = TriMesh::ellipsoid([2.0, 1.0, 0.5], 2);
        for big in [false, true] {
            let p = std::env::temp_dir().join(format!("tumble_ply_{}_{big}.ply", std::process::id()));
            write_ply(&p, &m, LengthUnit::M, big).expect("writes");
            let back = read_ply(&p, LengthUnit::M).expect("reads");
            let bytes = std::fs::read(&p).expect("bytes");
            let _ = std::fs::remove_file(&p);
            assert_eq!(back, m, "exact round trip (big endian {big})");
            let e = parse_ply("t.ply", &bytes[..bytes.len() - 5], LengthUnit::M).expect_err("truncated").to_string();
            assert!(e.contains("truncated"), "{e}");
        }
        let text = "ply\r\nformat ascii 1.0\r\nelement vertex 4\r\nproperty float x\r\nproperty float y\r\nproperty float z\r\nelement face 1\r\nproperty list uchar int vertex_indices\r\nend_header\r\n0 0 0\r\n1 0 0\r\n1 1 0\r\n0 1 0\r\n4 0 1 2 3\r\n";
        let m = parse_ply("q.ply", text.as_bytes(), LengthUnit::Km).expect("ascii quad");
        assert_eq!(m.faces, vec![[0, 1, 2], [0, 2, 3]]);
        assert_eq!(m.vertices[2], Vec3::new(1000.0, 1000.0, 0.0));
        let bad = text.replace("4 0 1 2 3", "3 0 1 9");
        assert!(
            parse_ply("q.ply", bad.as_bytes(), LengthUnit::M).expect_err("index").to_string().contains("out of range")
        );
        assert!(parse_ply("q.ply", b"", LengthUnit::M).expect_err("empty").to_string().contains("not a PLY file"));
    }
}
