//! Animation export: `animation.glb`, a binary glTF 2.0 file with the meshes of a run's bodies
//! and one animated node per moving body (translation and rotation samplers, linear), which
//! Blender's glTF importer and three.js open.
//!
//! The recording interface is model-agnostic: a run adds its bodies once ([`Animation::body`],
//! with meshes in the body frame), static scenery ([`Animation::scenery`]), then one pose per
//! body per recorded instant ([`Animation::frame`]); optionally overlays drawn from a base along
//! a vector, arrows for forces and strands for wires ([`Animation::arrow`],
//! [`Animation::strand`], [`Animation::overlays`]; a scale channel sizes them), and surfaces that
//! change shape ([`Animation::surface`], [`Animation::shape`]: a mesh per distinct shape, shown
//! by a step-interpolated scale while it holds). Tumble's world is Z-up and glTF's Y-up: a
//! root node turns the one into the other (`(x, y, z) → (x, z, −y)`), so node data stay in
//! Tumble's axes. Lengths in metres, times in seconds (f32, as glTF stores them).

use std::path::Path;
use tumble_geometry::primitive::Primitive;
use tumble_math::{Mat3, UnitQuat, Vec3};

/// A triangle mesh with one colour.
#[derive(Clone, Debug, Default, PartialEq)]
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

/// What a node is and how it moves.
#[derive(Clone, Debug, PartialEq)]
enum Kind {
    /// A moving body: translation and rotation per frame.
    Body,
    /// Fixed at one pose.
    Scenery,
    /// An arrow or a strand: translation, rotation and scale per frame.
    Overlay,
    /// Geometry that changes shape: its colour and its successive shapes, each with the first
    /// frame it shows.
    Surface { color: [f32; 4], shapes: Vec<(usize, Mesh)> },
}

/// A node: name, meshes in its frame, and its poses (one per frame, one for scenery).
#[derive(Clone, Debug)]
struct Node {
    name: String,
    meshes: Vec<Mesh>,
    /// Positions (m) and attitudes `[x, y, z, w]` per frame; one entry for scenery.
    translations: Vec<[f32; 3]>,
    rotations: Vec<[f32; 4]>,
    /// Scales per frame (overlays only).
    scales: Vec<[f32; 3]>,
    kind: Kind,
}

impl Node {
    fn new(name: &str, meshes: Vec<Mesh>, kind: Kind) -> Self {
        Node { name: name.into(), meshes, translations: Vec::new(), rotations: Vec::new(), scales: Vec::new(), kind }
    }
}

/// The colour of force arrows.
pub const FORCE_COLOR: [f32; 4] = [0.95, 0.25, 0.2, 1.0];

/// At most this many distinct shapes of a surface are written (a longer run shows every k-th);
/// each costs a mesh in the file.
pub const MAX_SHAPES: usize = 600;

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
        self.nodes.push(Node::new(name, meshes, Kind::Body));
        self.nodes.len() - 1
    }

    /// Adds an arrow overlay (a force, a velocity): `width` its shaft's thickness (m);
    /// [`Animation::overlays`] gives its base and vector at each instant.
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
        self.nodes.push(Node::new(name, vec![Mesh::new(&v, &f, color)], Kind::Overlay));
    }

    /// Adds a strand overlay (a wire, a tether): a rod `width` thick (m) whose ends
    /// [`Animation::overlays`] gives at each instant (as base and vector).
    pub fn strand(&mut self, name: &str, width: f64, color: [f32; 4]) {
        let rod = rod(&Vec3::zeros(), &Vec3::z(), 0.5 * width, color);
        self.nodes.push(Node::new(name, vec![rod], Kind::Overlay));
    }

    /// The overlays (arrows and strands) at the last recorded instant, in the order they were
    /// added: base and vector (m; a zero vector hides the overlay).
    pub fn overlays(&mut self, values: &[(Vec3, Vec3)]) {
        let mut it = values.iter();
        for n in self.nodes.iter_mut().filter(|n| n.kind == Kind::Overlay) {
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

    /// Adds a surface whose shape changes (a deflecting membrane), in world coordinates;
    /// returns its handle for [`Animation::shape`].
    pub fn surface(&mut self, name: &str, color: [f32; 4]) -> usize {
        self.nodes.push(Node::new(name, Vec::new(), Kind::Surface { color, shapes: Vec::new() }));
        self.nodes.len() - 1
    }

    /// The shape of surface `id` from the last recorded instant on (until the next call that
    /// changes it): vertices (m) and triangles. In the file, each distinct shape is a mesh shown
    /// (unit scale, step interpolation) while it holds and hidden (zero scale) otherwise.
    pub fn shape(&mut self, id: usize, vertices: &[Vec3], triangles: &[[u32; 3]]) {
        let frame = self.times.len().saturating_sub(1);
        let Some(Node { kind: Kind::Surface { color, shapes }, .. }) = self.nodes.get_mut(id) else {
            return;
        };
        let mesh = Mesh::new(vertices, triangles, *color);
        match shapes.last_mut() {
            Some((_, last)) if last.positions == mesh.positions && last.triangles == mesh.triangles => {}
            Some((f, last)) if *f == frame => *last = mesh,
            _ => shapes.push((frame, mesh)),
        }
    }

    /// Adds fixed scenery at a pose.
    pub fn scenery(&mut self, name: &str, meshes: Vec<Mesh>, p: &Vec3, q: &UnitQuat) {
        let (t, r) = pose_f32(p, q);
        let mut n = Node::new(name, meshes, Kind::Scenery);
        n.translations.push(t);
        n.rotations.push(r);
        self.nodes.push(n);
    }

    /// Records an instant: the pose of every body, in the order they were added.
    pub fn frame(&mut self, t: f64, poses: &[(Vec3, UnitQuat)]) {
        self.times.push(t as f32);
        let mut it = poses.iter();
        for n in self.nodes.iter_mut().filter(|n| n.kind == Kind::Body) {
            let (p, q) = it.next().copied().unwrap_or((Vec3::zeros(), UnitQuat::identity()));
            let (t, r) = pose_f32(&p, &q);
            n.translations.push(t);
            n.rotations.push(r);
        }
    }

    /// Writes the binary glTF file.
    pub fn write_glb(&self, path: &Path) -> Result<(), String> {
        let bytes = self.glb()?;
        tumble_math::output::write(path, bytes).map_err(|e| format!("{}: cannot write: {e}", path.display()))
    }

    /// The binary glTF bytes.
    pub fn glb(&self) -> Result<Vec<u8>, String> {
        use serde_json::{Value, json};
        let mut g = Builder::default();
        let mut nodes: Vec<Value> = vec![json!({
            "name": "tumble (Z up)",
            // Z-up into glTF's Y-up: −90° about x.
            "rotation": [-std::f32::consts::FRAC_1_SQRT_2, 0.0, 0.0, std::f32::consts::FRAC_1_SQRT_2],
            "children": [],
        })];
        let mut channels: Vec<Value> = Vec::new();
        let mut samplers: Vec<Value> = Vec::new();
        let time_acc = (!self.times.is_empty()).then(|| g.times(&self.times));
        let mut channel = |samplers: &mut Vec<Value>, input: usize, output: usize, step: bool, node: usize, path| {
            let interpolation = if step { "STEP" } else { "LINEAR" };
            samplers.push(json!({ "input": input, "output": output, "interpolation": interpolation }));
            channels.push(json!({ "sampler": samplers.len() - 1, "target": { "node": node, "path": path } }));
        };
        for n in &self.nodes {
            let index = nodes.len();
            let mut node = json!({ "name": n.name, "translation": n.translations.first().copied().unwrap_or([0.0; 3]),
                "rotation": n.rotations.first().copied().unwrap_or([0.0, 0.0, 0.0, 1.0]) });
            if let Some(mesh) = g.mesh(&n.name, &n.meshes)? {
                node["mesh"] = json!(mesh);
            }
            nodes.push(node);
            nodes[0]["children"].as_array_mut().expect("root children").push(json!(index));
            let Some(time) = time_acc else { continue };
            match &n.kind {
                Kind::Scenery => {}
                Kind::Body | Kind::Overlay => {
                    let count = self.times.len();
                    if n.translations.len() != count || (n.kind == Kind::Overlay && n.scales.len() != count) {
                        return Err(format!("'{}': {} poses for {count} instants", n.name, n.translations.len()));
                    }
                    let tr = g.vec3s(&n.translations);
                    channel(&mut samplers, time, tr, false, index, "translation");
                    let ro = g.floats(n.rotations.iter().flatten().copied(), n.rotations.len(), "VEC4");
                    channel(&mut samplers, time, ro, false, index, "rotation");
                    if n.kind == Kind::Overlay {
                        let sc = g.vec3s(&n.scales);
                        channel(&mut samplers, time, sc, false, index, "scale");
                    }
                }
                Kind::Surface { shapes, .. } => {
                    // Every k-th shape within the budget, each shown until the next kept one.
                    let kept: Vec<&(usize, Mesh)> =
                        shapes.iter().step_by(shapes.len().div_ceil(MAX_SHAPES).max(1)).collect();
                    let mut children = Vec::new();
                    for (j, (first, mesh)) in kept.iter().enumerate() {
                        let Some(m) = g.mesh(&n.name, std::slice::from_ref(mesh))? else { continue };
                        let mut keys = Vec::new();
                        if *first > 0 {
                            keys.push((self.times[0], 0.0));
                        }
                        keys.push((self.times[*first], 1.0));
                        if let Some((next, _)) = kept.get(j + 1) {
                            keys.push((self.times[*next], 0.0));
                        }
                        let child = nodes.len();
                        let s0 = keys[0].1;
                        nodes.push(json!({ "name": format!("{} {j}", n.name), "mesh": m, "scale": [s0, s0, s0] }));
                        children.push(child);
                        let input = g.times(&keys.iter().map(|k| k.0).collect::<Vec<_>>());
                        let scales: Vec<[f32; 3]> = keys.iter().map(|k| [k.1; 3]).collect();
                        let output = g.vec3s(&scales);
                        channel(&mut samplers, input, output, true, child, "scale");
                    }
                    nodes[index]["children"] = json!(children);
                }
            }
        }
        let Builder { mut bin, views, accessors, materials, meshes } = g;
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

/// The binary chunk and the arrays that index it, as they are built.
#[derive(Default)]
struct Builder {
    bin: Vec<u8>,
    views: Vec<serde_json::Value>,
    accessors: Vec<serde_json::Value>,
    materials: Vec<serde_json::Value>,
    meshes: Vec<serde_json::Value>,
}

impl Builder {
    /// Appends data as a buffer view and an accessor; returns the accessor's index.
    fn add(&mut self, data: Vec<u8>, target: Option<u32>, mut accessor: serde_json::Value) -> usize {
        use serde_json::json;
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut view = json!({ "buffer": 0, "byteOffset": self.bin.len(), "byteLength": data.len() });
        if let Some(t) = target {
            view["target"] = json!(t);
        }
        self.bin.extend(data);
        self.views.push(view);
        accessor["bufferView"] = json!(self.views.len() - 1);
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// `count` elements of `kind` (f32 components) as an accessor.
    fn floats(&mut self, v: impl Iterator<Item = f32>, count: usize, kind: &str) -> usize {
        let data = v.flat_map(f32::to_le_bytes).collect();
        self.add(data, None, serde_json::json!({ "componentType": 5126, "count": count, "type": kind }))
    }

    fn vec3s(&mut self, v: &[[f32; 3]]) -> usize {
        self.floats(v.iter().flatten().copied(), v.len(), "VEC3")
    }

    /// Key times (an animation input: min and max required).
    fn times(&mut self, t: &[f32]) -> usize {
        let (lo, hi) = t.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), &t| (a.min(t), b.max(t)));
        let data = t.iter().flat_map(|x| x.to_le_bytes()).collect();
        let acc =
            serde_json::json!({ "componentType": 5126, "count": t.len(), "type": "SCALAR", "min": [lo], "max": [hi] });
        self.add(data, None, acc)
    }

    /// A mesh of the non-empty `meshes` (one primitive and material each); `None` if all are
    /// empty.
    fn mesh(&mut self, name: &str, meshes: &[Mesh]) -> Result<Option<usize>, String> {
        use serde_json::json;
        let mut prims = Vec::new();
        for m in meshes.iter().filter(|m| !m.triangles.is_empty()) {
            if let Some(bad) = m.triangles.iter().flatten().find(|&&i| i as usize >= m.positions.len()) {
                return Err(format!("'{name}': triangle index {bad} out of range"));
            }
            let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
            for p in &m.positions {
                for k in 0..3 {
                    lo[k] = lo[k].min(p[k]);
                    hi[k] = hi[k].max(p[k]);
                }
            }
            let data = m.positions.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
            let pos = self.add(
                data,
                Some(34962),
                json!({ "componentType": 5126, "count": m.positions.len(), "type": "VEC3", "min": lo, "max": hi }),
            );
            let normals = m.normals();
            let data = normals.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
            let nor =
                self.add(data, Some(34962), json!({ "componentType": 5126, "count": normals.len(), "type": "VEC3" }));
            let data = m.triangles.iter().flatten().flat_map(|i| i.to_le_bytes()).collect();
            let idx = self.add(
                data,
                Some(34963),
                json!({ "componentType": 5125, "count": m.triangles.len() * 3, "type": "SCALAR" }),
            );
            self.materials.push(json!({
                "pbrMetallicRoughness": { "baseColorFactor": m.color, "metallicFactor": 0.1, "roughnessFactor": 0.7 },
                "doubleSided": true,
            }));
            prims.push(json!({
                "attributes": { "POSITION": pos, "NORMAL": nor },
                "indices": idx,
                "material": self.materials.len() - 1,
            }));
        }
        if prims.is_empty() {
            return Ok(None);
        }
        self.meshes.push(json!({ "name": name, "primitives": prims }));
        Ok(Some(self.meshes.len() - 1))
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
