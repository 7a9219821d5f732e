//! Animation export: `animation.glb`, a binary glTF 2.0 file with the meshes of a run's bodies
//! and one animated node per moving body (translation and rotation samplers, linear), which
//! Blender's glTF importer and three.js open.
//!
//! The recording interface is model-agnostic: a run adds its bodies once ([`Animation::body`],
//! with meshes in the body frame), static scenery ([`Animation::scenery`]), then one pose per
//! body per recorded instant ([`Animation::frame`]), and optionally arrows (forces) drawn from a
//! base along a vector ([`Animation::arrow`], [`Animation::arrows`]; a scale channel sizes them). Tumble's world is Z-up and glTF's Y-up: a
//! root node turns the one into the other (`(x, y, z) → (x, z, −y)`), so node data stay in
//! Tumble's axes. Lengths in metres, times in seconds (f32, as glTF stores them).

use std::path::Path;
use tumble_geometry::primitive::Primitive;
use tumble_math::{Mat3, UnitQuat, Vec3};

/// A triangle mesh with one colour.
#[derive(Clone, Debug, Default)]
pub struct Mesh {
    /// Vertices, m.
    pub positions: Vec<[f32; 3]>,
    /// Triangles (counter-clockwise from outside), indices into `positions`.
    pub triangles: Vec<[u32; 3]>,
    /// Base colour, linear RGBA.
    pub color: [f32; 4],
}

impl Mesh {
    /// A mesh from `f64` vertices and triangles.
    pub fn new(vertices: &[Vec3], triangles: &[[u32; 3]], color: [f32; 4]) -> Self {
        Mesh {
            positions: vertices.iter().map(|v| [v.x as f32, v.y as f32, v.z as f32]).collect(),
            triangles: triangles.to_vec(),
            color,
        }
    }

    /// Per-vertex normals: area-weighted sums of the adjacent faces' normals.
    fn normals(&self) -> Vec<[f32; 3]> {
        let p = |i: u32| {
            let v = self.positions[i as usize];
            Vec3::new(v[0] as f64, v[1] as f64, v[2] as f64)
        };
        let mut n = vec![Vec3::zeros(); self.positions.len()];
        for t in &self.triangles {
            let f = (p(t[1]) - p(t[0])).cross(&(p(t[2]) - p(t[0])));
            for &i in t {
                n[i as usize] += f;
            }
        }
        n.iter()
            .map(|v| {
                let u = v.try_normalize(0.0).unwrap_or(Vec3::z());
                [u.x as f32, u.y as f32, u.z as f32]
            })
            .collect()
    }
}

/// An ellipsoid `c + A u` (`u` on the unit sphere) as a mesh.
pub fn ellipsoid_mesh(c: &Vec3, A: &Mat3, color: [f32; 4]) -> Mesh {
    let unit = tumble_geometry::TriMesh::ellipsoid([1.0; 3], 2);
    let v: Vec<Vec3> = unit.vertices.iter().map(|u| c + A * u).collect();
    Mesh::new(&v, &unit.faces, color)
}

/// A box of half-extents `half` about `c`, axes `R`, as a mesh.
pub fn box_mesh(c: &Vec3, R: &Mat3, half: &Vec3, color: [f32; 4]) -> Mesh {
    let v: Vec<Vec3> = (0..8)
        .map(|k| {
            let s = Vec3::new([-1.0, 1.0][k & 1], [-1.0, 1.0][(k >> 1) & 1], [-1.0, 1.0][(k >> 2) & 1]);
            c + R * s.component_mul(half)
        })
        .collect();
    let f = [
        [0, 2, 3],
        [0, 3, 1],
        [4, 5, 7],
        [4, 7, 6],
        [0, 1, 5],
        [0, 5, 4],
        [2, 6, 7],
        [2, 7, 3],
        [0, 4, 6],
        [0, 6, 2],
        [1, 3, 7],
        [1, 7, 5],
    ];
    Mesh::new(&v, &f, color)
}

/// The box of uniform density with the body's mass and inertia (about its centre of mass, body
/// axes): along principal axis `i`, half-extent `√(3 (I_j + I_k − I_i) / (2m))`. Every rigid
/// body can be drawn this way, its tumbling visible, whatever shape (if any) it was given.
pub fn inertia_box(mass: f64, inertia: &Mat3, color: [f32; 4]) -> Mesh {
    inertia_box_at(mass, inertia, &Vec3::zeros(), color)
}

/// [`inertia_box`] centred at `com` (body frame), for bodies whose frame origin is elsewhere.
pub fn inertia_box_at(mass: f64, inertia: &Mat3, com: &Vec3, color: [f32; 4]) -> Mesh {
    let eig = inertia.symmetric_eigen();
    let mut R = eig.eigenvectors;
    if R.determinant() < 0.0 {
        R.set_column(2, &-R.column(2));
    }
    let I = eig.eigenvalues;
    let half = Vec3::from_fn(|i, _| {
        let (j, k) = ((i + 1) % 3, (i + 2) % 3);
        (1.5 * (I[j] + I[k] - I[i]).max(0.0) / mass).sqrt().max(1e-3)
    });
    box_mesh(com, &R, &half, color)
}

/// A drawing of a triangle mesh with at most about `max_faces` faces: the mesh itself when it
/// is small enough, else a vertex clustering on a grid (vertices in a cell merged at their mean,
/// faces that collapse dropped), the cell shrunk until the count fits.
pub fn coarsened(mesh: &tumble_geometry::TriMesh, max_faces: usize, color: [f32; 4]) -> Mesh {
    if mesh.faces.len() <= max_faces {
        return Mesh::new(&mesh.vertices, &mesh.faces, color);
    }
    let (lo, hi) = mesh.bounds().unwrap_or((Vec3::zeros(), Vec3::repeat(1.0)));
    let span = (hi - lo).max().max(1e-9);
    // Faces scale with the square of the cells per side.
    let mut cells = ((max_faces as f64 / 2.0).sqrt() as usize).max(4);
    loop {
        let h = span / cells as f64;
        let mut id = std::collections::HashMap::new();
        let mut sum: Vec<(Vec3, f64)> = Vec::new();
        let map: Vec<u32> = mesh
            .vertices
            .iter()
            .map(|v| {
                let key = ((v - lo) / h).map(|x| x.floor() as i64);
                let k = *id.entry((key.x, key.y, key.z)).or_insert_with(|| {
                    sum.push((Vec3::zeros(), 0.0));
                    sum.len() as u32 - 1
                });
                sum[k as usize].0 += v;
                sum[k as usize].1 += 1.0;
                k
            })
            .collect();
        let faces: Vec<[u32; 3]> = mesh
            .faces
            .iter()
            .map(|f| f.map(|i| map[i as usize]))
            .filter(|f| f[0] != f[1] && f[1] != f[2] && f[0] != f[2])
            .collect();
        if faces.len() <= max_faces || cells <= 4 {
            let verts: Vec<Vec3> = sum.iter().map(|(s, n)| s / *n).collect();
            return Mesh::new(&verts, &faces, color);
        }
        cells = cells * 3 / 4;
    }
}

/// A thin box from `a` to `b` of half-thickness `r` (segments, rays, wires).
pub fn rod(a: &Vec3, b: &Vec3, r: f64, color: [f32; 4]) -> Mesh {
    let d = b - a;
    let len = d.norm().max(1e-9);
    let x = d / len;
    let t = if x.x.abs() < 0.6 { Vec3::x() } else { Vec3::y() };
    let y = x.cross(&t).normalize();
    let R = Mat3::from_columns(&[x, y, x.cross(&y)]);
    box_mesh(&(0.5 * (a + b)), &R, &Vec3::new(0.5 * len, r, r), color)
}

/// A drawing of a contact primitive (body frame) in a scene of size `size` (m): spheres and
/// ellipsoids as geodesic spheres, polyhedra by their faces, triangles as such, segments and
/// rays as rods `size/100` thick, points as spheres of radius `size/50`, planes as a square of
/// side `4 size` about their point.
pub fn primitive_mesh(p: &Primitive, size: f64, color: [f32; 4]) -> Mesh {
    let (dot, plane_size) = (0.02 * size, 4.0 * size);
    match p {
        Primitive::Point(x) => ellipsoid_mesh(x, &(Mat3::identity() * dot), color),
        Primitive::Sphere { center, radius } => ellipsoid_mesh(center, &(Mat3::identity() * *radius), color),
        Primitive::Ellipsoid { center, rotation, radii } => {
            ellipsoid_mesh(center, &(rotation * Mat3::from_diagonal(radii)), color)
        }
        Primitive::Segment { a, b } => rod(a, b, 0.25 * dot, color),
        Primitive::Ray { origin, direction, length } => rod(origin, &(origin + direction * *length), 0.25 * dot, color),
        Primitive::Triangle(t) => Mesh::new(t, &[[0, 1, 2]], color),
        Primitive::Plane { point, normal } => {
            let t = if normal.x.abs() < 0.6 { Vec3::x() } else { Vec3::y() };
            let u = normal.cross(&t).normalize();
            let R = Mat3::from_columns(&[u, normal.cross(&u), *normal]);
            box_mesh(&(point - normal * 0.005), &R, &Vec3::new(0.5 * plane_size, 0.5 * plane_size, 0.005), color)
        }
        Primitive::Polyhedron(poly) => {
            let mut tris = Vec::new();
            for f in 0..poly.face_count() {
                let ids = poly.face(f);
                for k in 1..ids.len().saturating_sub(1) {
                    tris.push([ids[0], ids[k], ids[k + 1]]);
                }
            }
            // Flat shading: each face its own vertices.
            let mut v = Vec::with_capacity(tris.len() * 3);
            let mut f = Vec::with_capacity(tris.len());
            for t in tris {
                let base = v.len() as u32;
                v.extend(t.iter().map(|&i| poly.vertices[i as usize]));
                f.push([base, base + 1, base + 2]);
            }
            Mesh::new(&v, &f, color)
        }
    }
}

/// A body: name, meshes in its frame, and its poses (one per frame), or fixed scenery.
#[derive(Clone, Debug)]
struct Node {
    name: String,
    meshes: Vec<Mesh>,
    /// Positions (m) and attitudes `[x, y, z, w]` per frame; one entry for scenery.
    translations: Vec<[f32; 3]>,
    rotations: Vec<[f32; 4]>,
    /// Scales per frame (arrows only).
    scales: Vec<[f32; 3]>,
    animated: bool,
    arrow: bool,
}

/// An animation being recorded.
#[derive(Clone, Debug, Default)]
pub struct Animation {
    times: Vec<f32>,
    nodes: Vec<Node>,
}

fn pose_f32(p: &Vec3, q: &UnitQuat) -> ([f32; 3], [f32; 4]) {
    ([p.x as f32, p.y as f32, p.z as f32], [q.i as f32, q.j as f32, q.k as f32, q.w as f32])
}

impl Animation {
    /// An empty animation.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a moving body (meshes in its frame); returns its index for [`Animation::frame`].
    pub fn body(&mut self, name: &str, meshes: Vec<Mesh>) -> usize {
        self.nodes.push(Node {
            name: name.into(),
            meshes,
            translations: Vec::new(),
            rotations: Vec::new(),
            scales: Vec::new(),
            animated: true,
            arrow: false,
        });
        self.nodes.len() - 1
    }

    /// Adds an arrow overlay (a force, a velocity): `width` its shaft's thickness (m);
    /// [`Animation::arrows`] gives its base and vector at each instant.
    pub fn arrow(&mut self, name: &str, width: f64, color: [f32; 4]) {
        // Unit length along +z: a shaft to 0.8 and a square pyramid to 1.
        let (w, h) = (0.5 * width, 1.5 * width);
        let mut v: Vec<Vec3> = [[-w, -w], [w, -w], [w, w], [-w, w]]
            .iter()
            .flat_map(|[x, y]| [Vec3::new(*x, *y, 0.0), Vec3::new(*x, *y, 0.8)])
            .collect();
        v.extend([Vec3::new(-h, -h, 0.8), Vec3::new(h, -h, 0.8), Vec3::new(h, h, 0.8), Vec3::new(-h, h, 0.8)]);
        v.push(Vec3::new(0.0, 0.0, 1.0));
        let mut f = Vec::new();
        for k in 0..4u32 {
            let (a, b) = (2 * k, 2 * ((k + 1) % 4));
            f.extend([[a, b, b + 1], [a, b + 1, a + 1]]);
            f.push([8 + k, 8 + (k + 1) % 4, 12]);
        }
        f.extend([[8, 11, 10], [8, 10, 9]]);
        self.nodes.push(Node {
            name: name.into(),
            meshes: vec![Mesh::new(&v, &f, color)],
            translations: Vec::new(),
            rotations: Vec::new(),
            scales: Vec::new(),
            animated: true,
            arrow: true,
        });
    }

    /// The arrows at the last recorded instant, in the order they were added: base and vector
    /// (m; a zero vector hides the arrow).
    pub fn arrows(&mut self, values: &[(Vec3, Vec3)]) {
        let mut it = values.iter();
        for n in self.nodes.iter_mut().filter(|n| n.arrow) {
            let (base, vec) = it.next().copied().unwrap_or((Vec3::zeros(), Vec3::zeros()));
            let len = vec.norm();
            let q = if len > 0.0 {
                UnitQuat::rotation_between(&Vec3::z(), &vec)
                    .unwrap_or_else(|| UnitQuat::from_axis_angle(&Vec3::x_axis(), std::f64::consts::PI))
            } else {
                UnitQuat::identity()
            };
            let (t, r) = pose_f32(&base, &q);
            let s = if len > 0.0 { 1.0 } else { 0.0 };
            n.translations.push(t);
            n.rotations.push(r);
            n.scales.push([s, s, len as f32]);
        }
    }

    /// Adds fixed scenery at a pose.
    pub fn scenery(&mut self, name: &str, meshes: Vec<Mesh>, p: &Vec3, q: &UnitQuat) {
        let (t, r) = pose_f32(p, q);
        self.nodes.push(Node {
            name: name.into(),
            meshes,
            translations: vec![t],
            rotations: vec![r],
            scales: Vec::new(),
            animated: false,
            arrow: false,
        });
    }

    /// Records an instant: the pose of every body, in the order they were added.
    pub fn frame(&mut self, t: f64, poses: &[(Vec3, UnitQuat)]) {
        self.times.push(t as f32);
        let mut it = poses.iter();
        for n in self.nodes.iter_mut().filter(|n| n.animated && !n.arrow) {
            let (p, q) = it.next().copied().unwrap_or((Vec3::zeros(), UnitQuat::identity()));
            let (t, r) = pose_f32(&p, &q);
            n.translations.push(t);
            n.rotations.push(r);
        }
    }

    /// Writes the binary glTF file.
    pub fn write_glb(&self, path: &Path) -> Result<(), String> {
        let bytes = self.glb()?;
        std::fs::write(path, bytes).map_err(|e| format!("{}: cannot write: {e}", path.display()))
    }

    /// The binary glTF bytes.
    pub fn glb(&self) -> Result<Vec<u8>, String> {
        use serde_json::{Value, json};
        let mut bin: Vec<u8> = Vec::new();
        let mut views: Vec<Value> = Vec::new();
        let mut accessors: Vec<Value> = Vec::new();
        // Appends data as a buffer view and an accessor; returns the accessor's index.
        let mut add = |data: Vec<u8>, target: Option<u32>, accessor: Value| -> usize {
            while !bin.len().is_multiple_of(4) {
                bin.push(0);
            }
            let mut view = json!({ "buffer": 0, "byteOffset": bin.len(), "byteLength": data.len() });
            if let Some(t) = target {
                view["target"] = json!(t);
            }
            bin.extend(data);
            views.push(view);
            let mut a = accessor;
            a["bufferView"] = json!(views.len() - 1);
            accessors.push(a);
            accessors.len() - 1
        };
        let f32s = |v: &mut dyn Iterator<Item = f32>| v.flat_map(f32::to_le_bytes).collect::<Vec<u8>>();
        let bounds = |pts: &[[f32; 3]]| {
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            for p in pts {
                for k in 0..3 {
                    lo[k] = lo[k].min(p[k]);
                    hi[k] = hi[k].max(p[k]);
                }
            }
            (lo, hi)
        };
        let mut materials: Vec<Value> = Vec::new();
        let mut meshes: Vec<Value> = Vec::new();
        let mut nodes: Vec<Value> = vec![json!({
            "name": "tumble (Z up)",
            // Z-up into glTF's Y-up: −90° about x.
            "rotation": [-std::f32::consts::FRAC_1_SQRT_2, 0.0, 0.0, std::f32::consts::FRAC_1_SQRT_2],
            "children": [],
        })];
        let mut channels: Vec<Value> = Vec::new();
        let mut samplers: Vec<Value> = Vec::new();
        let time_acc = if self.times.is_empty() {
            None
        } else {
            let (lo, hi) =
                self.times.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &t| (a.min(t), b.max(t)));
            Some(add(
                f32s(&mut self.times.iter().copied()),
                None,
                json!({ "componentType": 5126, "count": self.times.len(), "type": "SCALAR", "min": [lo], "max": [hi] }),
            ))
        };
        for n in &self.nodes {
            let mut prims = Vec::new();
            for m in n.meshes.iter().filter(|m| !m.triangles.is_empty()) {
                if let Some(bad) = m.triangles.iter().flatten().find(|&&i| i as usize >= m.positions.len()) {
                    return Err(format!("body '{}': triangle index {bad} out of range", n.name));
                }
                let (lo, hi) = bounds(&m.positions);
                let pos = add(
                    f32s(&mut m.positions.iter().flatten().copied()),
                    Some(34962),
                    json!({ "componentType": 5126, "count": m.positions.len(), "type": "VEC3", "min": lo, "max": hi }),
                );
                let normals = m.normals();
                let nor = add(
                    f32s(&mut normals.iter().flatten().copied()),
                    Some(34962),
                    json!({ "componentType": 5126, "count": normals.len(), "type": "VEC3" }),
                );
                let idx = add(
                    m.triangles.iter().flatten().flat_map(|i| i.to_le_bytes()).collect(),
                    Some(34963),
                    json!({ "componentType": 5125, "count": m.triangles.len() * 3, "type": "SCALAR" }),
                );
                materials.push(json!({
                    "pbrMetallicRoughness": { "baseColorFactor": m.color, "metallicFactor": 0.1, "roughnessFactor": 0.7 },
                    "doubleSided": true,
                }));
                prims.push(json!({
                    "attributes": { "POSITION": pos, "NORMAL": nor },
                    "indices": idx,
                    "material": materials.len() - 1,
                }));
            }
            let index = nodes.len();
            let mut node = json!({ "name": n.name, "translation": n.translations.first().copied().unwrap_or([0.0; 3]),
                "rotation": n.rotations.first().copied().unwrap_or([0.0, 0.0, 0.0, 1.0]) });
            if !prims.is_empty() {
                meshes.push(json!({ "name": n.name, "primitives": prims }));
                node["mesh"] = json!(meshes.len() - 1);
            }
            nodes.push(node);
            nodes[0]["children"].as_array_mut().expect("root children").push(json!(index));
            if let (true, Some(time)) = (n.animated, time_acc) {
                if n.translations.len() != self.times.len() {
                    return Err(format!(
                        "body '{}': {} poses for {} instants",
                        n.name,
                        n.translations.len(),
                        self.times.len()
                    ));
                }
                let tr = add(
                    f32s(&mut n.translations.iter().flatten().copied()),
                    None,
                    json!({ "componentType": 5126, "count": n.translations.len(), "type": "VEC3" }),
                );
                let ro = add(
                    f32s(&mut n.rotations.iter().flatten().copied()),
                    None,
                    json!({ "componentType": 5126, "count": n.rotations.len(), "type": "VEC4" }),
                );
                let mut outputs = vec![("translation", tr), ("rotation", ro)];
                if n.arrow {
                    if n.scales.len() != self.times.len() {
                        return Err(format!(
                            "arrow '{}': {} values for {} instants",
                            n.name,
                            n.scales.len(),
                            self.times.len()
                        ));
                    }
                    let sc = add(
                        f32s(&mut n.scales.iter().flatten().copied()),
                        None,
                        json!({ "componentType": 5126, "count": n.scales.len(), "type": "VEC3" }),
                    );
                    outputs.push(("scale", sc));
                }
                for (path, out) in outputs {
                    samplers.push(json!({ "input": time, "output": out, "interpolation": "LINEAR" }));
                    channels.push(json!({ "sampler": samplers.len() - 1, "target": { "node": index, "path": path } }));
                }
            }
        }
        let mut doc = json!({
            "asset": { "version": "2.0", "generator": "Tumble" },
            "scene": 0,
            "scenes": [{ "nodes": [0] }],
            "nodes": nodes,
            "meshes": meshes,
            "materials": materials,
            "accessors": accessors,
            "bufferViews": views,
            "buffers": [{ "byteLength": bin.len() }],
        });
        if !channels.is_empty() {
            doc["animations"] = json!([{ "name": "run", "channels": channels, "samplers": samplers }]);
        }
        let mut text = serde_json::to_vec(&doc).map_err(|e| e.to_string())?;
        while !text.len().is_multiple_of(4) {
            text.push(b' ');
        }
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        let total = 12 + 8 + text.len() + 8 + bin.len();
        let mut out = Vec::with_capacity(total);
        out.extend(b"glTF");
        out.extend(2u32.to_le_bytes());
        out.extend((total as u32).to_le_bytes());
        out.extend((text.len() as u32).to_le_bytes());
        out.extend(0x4E4F534Au32.to_le_bytes());
        out.extend(text);
        out.extend((bin.len() as u32).to_le_bytes());
        out.extend(0x004E4942u32.to_le_bytes());
        out.extend(bin);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coarsening_keeps_the_face_budget_and_the_shape() {
        let mesh = tumble_geometry::TriMesh::ellipsoid([1.0; 3], 5);
        assert_eq!(mesh.faces.len(), 20480);
        let small = coarsened(&mesh, 2000, [1.0; 4]);
        assert!(small.triangles.len() <= 2000 && small.triangles.len() > 200, "{}", small.triangles.len());
        // Cluster means of points on the unit sphere lie just inside it (a cell is ~0.1 across).
        for p in &small.positions {
            let r = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
            assert!(r <= 1.0 + 1e-6 && r > 0.97, "{r}");
        }
        // A small mesh is kept as it is.
        assert_eq!(coarsened(&mesh, 30000, [1.0; 4]).triangles.len(), 20480);
    }
}
