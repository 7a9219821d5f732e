//! Triangle meshes: the [`TriMesh`] type, file readers and writers, validation and repair, and
//! mass properties of the solid a closed mesh bounds.
//!
//! Convention: faces are counter-clockwise seen from outside, so right-hand normals point out
//! and the signed volume is positive. Shape-model units vary (km for most small-body models):
//! every reader takes an explicit [`LengthUnit`], and coordinates are stored in metres.

mod icq;
mod mass;
mod obj;
mod ply;
mod stl;
mod validate;

pub use icq::{parse_icq, read_icq};
pub use obj::{parse_obj, read_obj, write_obj};
pub use ply::{parse_ply, read_ply};
pub use stl::{parse_stl, read_stl, write_stl};
pub use validate::{Found, MeshReport, Repair};

use tumble_math::Vec3;

/// A triangle mesh in metres.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriMesh {
    /// Vertex positions, m.
    pub vertices: Vec<Vec3>,
    /// Faces as vertex indices, counter-clockwise seen from outside.
    pub faces: Vec<[u32; 3]>,
}

/// The length unit of a mesh file's coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LengthUnit {
    /// Metres.
    M,
    /// Kilometres.
    Km,
    /// Any factor to metres (a scaled, non-dimensional model).
    Scale(f64),
}

impl LengthUnit {
    /// Metres per file unit.
    pub fn to_metres(self) -> f64 {
        match self {
            LengthUnit::M => 1.0,
            LengthUnit::Km => 1000.0,
            LengthUnit::Scale(s) => s,
        }
    }
}

impl std::str::FromStr for LengthUnit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "m" => Ok(LengthUnit::M),
            "km" => Ok(LengthUnit::Km),
            _ => s.parse::<f64>().ok().filter(|x| x.is_finite() && *x > 0.0).map(LengthUnit::Scale).ok_or_else(|| {
                format!("unknown length unit `{s}`: use `m`, `km`, or a positive scale factor to metres")
            }),
        }
    }
}

/// Why a mesh file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    /// The file could not be opened or read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The content is malformed at a line.
    #[error("{file}:{line}: {message}")]
    Parse {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// What is wrong and what would be right.
        message: String,
    },
    /// The content is malformed as a whole.
    #[error("{file}: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// What is wrong.
        message: String,
    },
}

/// Reads a mesh file, choosing the format by its extension: `.obj`, `.stl`, `.ply`, `.tab`
/// (PDS vertex–facet `v`/`f` rows), `.icq` (Gaskell).
pub fn read_mesh(path: &std::path::Path, unit: LengthUnit) -> Result<TriMesh, MeshError> {
    let mesh = read_any(path, unit)?;
    // Coordinates past the bound overflow the products of gravity and contact (NaN rows).
    if let Some(v) = mesh.vertices.iter().find(|v| !v.iter().all(|x| x.abs() <= MAX_COORDINATE)) {
        return Err(MeshError::Invalid {
            file: path.display().to_string(),
            message: format!(
                "a vertex at ({:e}, {:e}, {:e}) m (after the unit) is beyond {MAX_COORDINATE:e} m: check the unit",
                v.x, v.y, v.z
            ),
        });
    }
    Ok(mesh)
}

/// Largest vertex coordinate read, m (after the unit): a million kilometres, far beyond any
/// small body; farther, the products of gravity and contact overflow.
pub const MAX_COORDINATE: f64 = 1e9;

fn read_any(path: &std::path::Path, unit: LengthUnit) -> Result<TriMesh, MeshError> {
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        // PDS vertex–facet tables use the same `v`/`f` rows as OBJ.
        Some("obj") | Some("tab") => read_obj(path, unit),
        Some("icq") => read_icq(path, unit),
        Some("stl") => read_stl(path, unit),
        Some("ply") => read_ply(path, unit),
        other => Err(MeshError::Invalid {
            file: path.display().to_string(),
            message: format!(
                "unsupported mesh format `.{}`; supported: .obj, .stl, .ply, .tab (PDS vertex–facet), .icq (Gaskell)",
                other.unwrap_or("")
            ),
        }),
    }
}

impl TriMesh {
    /// The three corners of face `f`.
    pub fn triangle(&self, f: usize) -> [Vec3; 3] {
        self.faces[f].map(|i| self.vertices[i as usize])
    }

    /// Axis-aligned bounding box `(min, max)`, m; `None` for a mesh without vertices.
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        let first = *self.vertices.first()?;
        Some(self.vertices.iter().fold((first, first), |(lo, hi), v| (lo.inf(v), hi.sup(v))))
    }

    /// `n` points spread uniformly over the surface (faces drawn in proportion to their area,
    /// points uniform on each), each with its face; deterministic from `seed` (SplitMix64).
    /// Empty for a mesh without faces.
    pub fn sample_surface(&self, n: usize, seed: u64) -> Vec<(Vec3, usize)> {
        if self.faces.is_empty() {
            return Vec::new();
        }
        let mut cum = Vec::with_capacity(self.faces.len());
        let mut total = 0.0;
        for f in 0..self.faces.len() {
            let [a, b, c] = self.triangle(f);
            total += 0.5 * (b - a).cross(&(c - a)).norm();
            cum.push(total);
        }
        let mut s = seed ^ 0x5DEE_CE66_D1A4_F87D;
        let mut u = || {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        };
        (0..n)
            .map(|_| {
                let target = u() * total;
                let f = cum.partition_point(|&c| c < target).min(cum.len() - 1);
                let [a, b, c] = self.triangle(f);
                let (mut r1, mut r2) = (u(), u());
                if r1 + r2 > 1.0 {
                    (r1, r2) = (1.0 - r1, 1.0 - r2);
                }
                (a + (b - a) * r1 + (c - a) * r2, f)
            })
            .collect()
    }

    /// A copy translated by `d` (m).
    pub fn translated(&self, d: &Vec3) -> TriMesh {
        TriMesh { vertices: self.vertices.iter().map(|v| v + d).collect(), faces: self.faces.clone() }
    }

    /// An axis-aligned box of full edge lengths `size` (m), centred on the origin, 12 faces.
    pub fn cuboid(size: [f64; 3]) -> TriMesh {
        let h = Vec3::from(size) / 2.0;
        let vertices = (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { -h.x } else { h.x },
                    if i & 2 == 0 { -h.y } else { h.y },
                    if i & 4 == 0 { -h.z } else { h.z },
                )
            })
            .collect();
        let faces = vec![
            [0, 2, 1],
            [1, 2, 3], // z−
            [4, 5, 6],
            [5, 7, 6], // z+
            [0, 1, 4],
            [1, 5, 4], // y−
            [2, 6, 3],
            [3, 6, 7], // y+
            [0, 4, 2],
            [2, 4, 6], // x−
            [1, 3, 5],
            [3, 7, 5], // x+
        ];
        TriMesh { vertices, faces }
    }

    /// A geodesic sphere-like mesh: an icosahedron subdivided `levels` times, projected onto
    /// the ellipsoid with semi-axes `semi_axes` (m). `20·4^levels` faces.
    pub fn ellipsoid(semi_axes: [f64; 3], levels: u32) -> TriMesh {
        let t = (1.0 + 5f64.sqrt()) / 2.0;
        let mut v: Vec<Vec3> = [
            [-1.0, t, 0.0],
            [1.0, t, 0.0],
            [-1.0, -t, 0.0],
            [1.0, -t, 0.0],
            [0.0, -1.0, t],
            [0.0, 1.0, t],
            [0.0, -1.0, -t],
            [0.0, 1.0, -t],
            [t, 0.0, -1.0],
            [t, 0.0, 1.0],
            [-t, 0.0, -1.0],
            [-t, 0.0, 1.0],
        ]
        .iter()
        .map(|p| Vec3::from(*p).normalize())
        .collect();
        let mut f: Vec<[u32; 3]> = vec![
            [0, 11, 5],
            [0, 5, 1],
            [0, 1, 7],
            [0, 7, 10],
            [0, 10, 11],
            [1, 5, 9],
            [5, 11, 4],
            [11, 10, 2],
            [10, 7, 6],
            [7, 1, 8],
            [3, 9, 4],
            [3, 4, 2],
            [3, 2, 6],
            [3, 6, 8],
            [3, 8, 9],
            [4, 9, 5],
            [2, 4, 11],
            [6, 2, 10],
            [8, 6, 7],
            [9, 8, 1],
        ];
        for _ in 0..levels {
            let mut mid = std::collections::HashMap::new();
            let mut next = Vec::with_capacity(f.len() * 4);
            for tri in &f {
                let mut m = [0u32; 3];
                for k in 0..3 {
                    let (a, b) = (tri[k], tri[(k + 1) % 3]);
                    let key = (a.min(b), a.max(b));
                    m[k] = *mid.entry(key).or_insert_with(|| {
                        v.push(((v[a as usize] + v[b as usize]) / 2.0).normalize());
                        (v.len() - 1) as u32
                    });
                }
                next.extend([[tri[0], m[0], m[2]], [tri[1], m[1], m[0]], [tri[2], m[2], m[1]], m]);
            }
            f = next;
        }
        let s = Vec3::from(semi_axes);
        TriMesh { vertices: v.iter().map(|p| p.component_mul(&s)).collect(), faces: f }
    }
}
