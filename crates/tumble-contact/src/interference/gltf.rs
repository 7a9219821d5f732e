//! A minimal glTF 2.0 reader for contact geometry: `.gltf` (JSON with embedded `data:` or
//! external buffers) and `.glb` (binary container); node names, `extras`, transforms (matrix or
//! translation/rotation/scale) down the default scene's node tree, and the POSITION and index
//! accessors of mesh primitives in triangle, line and point modes. Materials, textures,
//! animations and skins are ignored.

use super::import::MeshObject;
use serde_json::Value;
use std::path::{Component, Path};
use tumble_math::{Mat3, UnitQuat, Vec3};

/// An affine map as (linear part, translation).
type Affine = (Mat3, Vec3);

/// A parsed glTF document with its buffers' bytes.
struct Doc {
    json: Value,
    buffers: Vec<Vec<u8>>,
}

/// Parses a `.gltf` or `.glb` file and reads its buffers.
fn open(path: &Path) -> Result<Doc, String> {
    let bytes = tumble_math::input::read(path).map_err(|e| format!("cannot read: {e}"))?;
    let (json, bin) = if bytes.starts_with(b"glTF") { glb(&bytes)? } else { (bytes, None) };
    let json: Value = serde_json::from_slice(&json).map_err(|e| format!("JSON: {e}"))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let buffers = json["buffers"]
        .as_array()
        .map(|bs| bs.iter().enumerate().map(|(i, b)| buffer(b, i, dir, &bin)).collect::<Result<Vec<_>, _>>())
        .transpose()?
        .unwrap_or_default();
    Ok(Doc { json, buffers })
}

impl Doc {
    /// The default scene's root nodes (every node when the file has no scene).
    fn roots(&self) -> Vec<usize> {
        let scene = self.json["scene"].as_u64().unwrap_or(0) as usize;
        match self.json["scenes"].get(scene) {
            Some(s) => s["nodes"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_u64).map(|x| x as usize).collect())
                .unwrap_or_default(),
            None => (0..self.json["nodes"].as_array().map_or(0, Vec::len)).collect(),
        }
    }

    /// Node `n`, or an error.
    fn node(&self, n: usize) -> Result<&Value, String> {
        self.json["nodes"].get(n).ok_or_else(|| format!("node {n} does not exist"))
    }

    /// The name of node `n` (its mesh's name, or `node{n}`, when it has none).
    fn name(&self, n: usize, node: &Value) -> String {
        let mesh = node["mesh"].as_u64().map(|m| &self.json["meshes"][m as usize]);
        node["name"].as_str().or(mesh.and_then(|m| m["name"].as_str())).map_or(format!("node{n}"), str::to_string)
    }

    /// The mesh of node `n` (if it has one) with its vertices mapped by `map`.
    fn mesh(&self, n: usize, node: &Value, map: &Affine) -> Result<Option<MeshObject>, String> {
        let Some(m) = node["mesh"].as_u64() else { return Ok(None) };
        let mesh = &self.json["meshes"][m as usize];
        let name = self.name(n, node);
        let extras = [&node["extras"], &mesh["extras"]].into_iter().find(|e| e.is_object()).cloned();
        let mut obj = MeshObject { name: name.clone(), extras, ..Default::default() };
        for (k, prim) in mesh["primitives"].as_array().into_iter().flatten().enumerate() {
            let at = |m: String| format!("mesh of '{name}', primitive {k}: {m}");
            let pos = prim["attributes"]["POSITION"].as_u64().ok_or_else(|| at("no POSITION".into()))?;
            let base = obj.vertices.len();
            let pts = read_accessor(&self.json, &self.buffers, pos as usize).map_err(at)?;
            obj.vertices.extend(pts.chunks(3).map(|c| map.0 * Vec3::new(c[0], c[1], c[2]) + map.1));
            let count = obj.vertices.len() - base;
            let idx: Vec<usize> = match prim["indices"].as_u64() {
                Some(i) => read_accessor(&self.json, &self.buffers, i as usize)
                    .map_err(at)?
                    .into_iter()
                    .map(|x| x as usize)
                    .collect(),
                None => (0..count).collect(),
            };
            if let Some(bad) = idx.iter().find(|&&i| i >= count) {
                return Err(at(format!("index {bad} out of range ({count} vertices)")));
            }
            let idx: Vec<usize> = idx.into_iter().map(|i| i + base).collect();
            let elements = obj.faces.len() + obj.lines.len() + idx.len() / 3;
            if elements > super::import::MAX_OBJECT_ELEMENTS {
                return Err(at(super::import::too_many(&name)));
            }
            match prim["mode"].as_u64().unwrap_or(4) {
                4 => obj.faces.extend(idx.chunks_exact(3).map(<[usize]>::to_vec)),
                1 => obj.lines.extend(idx.chunks_exact(2).map(<[usize]>::to_vec)),
                3 => obj.lines.push(idx),
                0 => {}
                mode => return Err(at(format!("primitive mode {mode} (strips/fans) is not read: export triangles"))),
            }
        }
        // glTF winding is counter-clockwise from the front, as Tumble's.
        Ok((!obj.vertices.is_empty()).then_some(obj))
    }

    /// The children of a node.
    fn children(node: &Value) -> impl Iterator<Item = usize> + '_ {
        node["children"].as_array().into_iter().flatten().filter_map(Value::as_u64).map(|c| c as usize)
    }
}

/// Refuses a walk deeper than 64 or longer than a million visits: a node tree is a tree, and a
/// file whose nodes share children is read at most this far.
fn bounded(depth: usize, visits: usize) -> Result<(), String> {
    if depth > 64 || visits > 1_000_000 {
        return Err(
            "the node tree is deeper than 64 or has more than a million visits (shared or cyclic children)".into()
        );
    }
    Ok(())
}

/// Reads the mesh nodes of a glTF file, each in the file's world coordinates.
pub fn read(path: &Path) -> Result<Vec<MeshObject>, String> {
    let err = |m: String| format!("{}: {m}", path.display());
    let doc = open(path).map_err(err)?;
    let mut out = Vec::new();
    let mut visits = 0usize;
    let mut stack: Vec<(usize, Affine, usize)> =
        doc.roots().into_iter().map(|n| (n, (Mat3::identity(), Vec3::zeros()), 0)).collect();
    while let Some((n, parent, depth)) = stack.pop() {
        visits += 1;
        bounded(depth, visits).map_err(err)?;
        let node = doc.node(n).map_err(err)?;
        // What only the tree says is refused here rather than lost.
        for key in ["movable", "tumble_sets", "tumble_bv"] {
            if node["extras"].get(key).is_some_and(|v| v != &Value::Bool(false)) {
                return Err(err(format!(
                    "node '{}' has extras `{key}`, which only its tree carries: import the tree (`import = {{ file = …, tree = true }}`) or load the glTF file as the model",
                    doc.name(n, node)
                )));
            }
        }
        let local = transform(node).map_err(|m| err(format!("node {n}: {m}")))?;
        let world = (parent.0 * local.0, parent.0 * local.1 + parent.1);
        if let Some(obj) = doc.mesh(n, node, &world).map_err(err)? {
            out.push(obj);
        }
        stack.extend(Doc::children(node).map(|c| (c, world, depth + 1)));
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// A node of a glTF file's tree: its rigid pose in its parent's rigid frame (file axes and
/// units), its mesh in its own rigid frame (the node's scale, and its ancestors', applied to
/// the vertices), its extras and its children.
#[derive(Clone, Debug)]
pub struct TreeNode {
    /// Node name (its mesh's, or `node{i}`, when it has none).
    pub name: String,
    /// The node's `extras`, if an object.
    pub extras: Option<Value>,
    /// Rotation of the node's frame in its parent's.
    pub rotation: Mat3,
    /// Origin of the node's frame in its parent's.
    pub translation: Vec3,
    /// The node's mesh, vertices in the node's frame.
    pub mesh: Option<MeshObject>,
    /// Child nodes, in file order.
    pub children: Vec<TreeNode>,
}

/// A glTF file's default scene: its name, its extras and its root nodes as trees.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The scene's name, if it has one.
    pub name: Option<String>,
    /// The scene's `extras`, if an object.
    pub extras: Option<Value>,
    /// Root nodes.
    pub roots: Vec<TreeNode>,
}

/// Reads a glTF file's default scene as a tree of rigid frames (errors without the file's
/// name, which the caller adds). The rigid frame of a node is
/// the polar factor of its world transform's linear part (its rotation, scale and shear
/// removed); a mirrored (negative determinant) or degenerate transform is refused.
pub fn read_tree(path: &Path) -> Result<Scene, String> {
    let doc = open(path)?;
    let scene = doc.json["scenes"].get(doc.json["scene"].as_u64().unwrap_or(0) as usize);
    let mut visits = 0usize;
    let world = (Mat3::identity(), Vec3::zeros());
    let roots = doc
        .roots()
        .into_iter()
        .map(|n| tree_node(&doc, n, &world, &Mat3::identity(), 0, &mut visits))
        .collect::<Result<_, _>>()?;
    Ok(Scene {
        name: scene.and_then(|s| s["name"].as_str()).map(str::to_string),
        extras: scene.map(|s| &s["extras"]).filter(|e| e.is_object()).cloned(),
        roots,
    })
}

/// Node `n` under a parent whose world transform is `parent` and rigid rotation `parent_R`.
fn tree_node(
    doc: &Doc,
    n: usize,
    parent: &Affine,
    parent_R: &Mat3,
    depth: usize,
    visits: &mut usize,
) -> Result<TreeNode, String> {
    *visits += 1;
    bounded(depth, *visits)?;
    let node = doc.node(n)?;
    let name = doc.name(n, node);
    let local = transform(node).map_err(|m| format!("node '{name}': {m}"))?;
    let world = (parent.0 * local.0, parent.0 * local.1 + parent.1);
    let R = rigid(&world.0).map_err(|m| format!("node '{name}': {m}"))?;
    // Vertices in the node's rigid frame: Rᵀ (A v + t − t).
    let mesh = doc.mesh(n, node, &(R.transpose() * world.0, Vec3::zeros()))?;
    let children =
        Doc::children(node).map(|c| tree_node(doc, c, &world, &R, depth + 1, visits)).collect::<Result<_, _>>()?;
    Ok(TreeNode {
        name,
        extras: Some(&node["extras"]).filter(|e| e.is_object()).cloned(),
        rotation: parent_R.transpose() * R,
        translation: parent_R.transpose() * (world.1 - parent.1),
        mesh,
        children,
    })
}

/// The rotation of a linear map (its polar factor `U Vᵀ`), refused when it mirrors or
/// collapses space.
fn rigid(A: &Mat3) -> Result<Mat3, String> {
    let det = A.determinant();
    let size = A.norm();
    if det.is_nan() || det <= 1e-12 * size * size * size {
        return Err(format!(
            "its transform mirrors or flattens space (determinant {det:.3e}): apply the object's scale in Blender (Object › Apply › Scale) so that no scale is negative or zero"
        ));
    }
    let svd = A.svd(true, true);
    let (Some(u), Some(v_t)) = (svd.u, svd.v_t) else {
        return Err("its transform has no singular value decomposition".into());
    };
    Ok(u * v_t)
}

/// The JSON and BIN chunks of a `.glb`.
fn glb(bytes: &[u8]) -> Result<(Vec<u8>, Option<Vec<u8>>), String> {
    let u32_at = |o: usize| bytes.get(o..o + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let mut at = 12;
    let (mut json, mut bin) = (None, None);
    while let (Some(len), Some(kind)) = (u32_at(at), u32_at(at + 4)) {
        let chunk = bytes.get(at + 8..at + 8 + len).ok_or("truncated .glb chunk")?.to_vec();
        match kind {
            0x4E4F534A => json = Some(chunk),
            0x004E4942 => bin = Some(chunk),
            _ => {}
        }
        at += 8 + len;
    }
    Ok((json.ok_or("a .glb without a JSON chunk")?, bin))
}

/// A buffer's bytes: the GLB BIN chunk, a `data:` URI (base64) or a file beside the glTF.
fn buffer(b: &Value, i: usize, dir: &Path, bin: &Option<Vec<u8>>) -> Result<Vec<u8>, String> {
    match b["uri"].as_str() {
        None => bin.clone().ok_or(format!("buffer {i} has no uri and there is no .glb BIN chunk")),
        Some(uri) if uri.starts_with("data:") => {
            let (_, data) = uri.split_once(";base64,").ok_or(format!("buffer {i}: only base64 data URIs are read"))?;
            base64(data).ok_or(format!("buffer {i}: bad base64"))
        }
        Some(uri) => {
            let rel = Path::new(uri);
            let inside = rel.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
            if !inside || uri.contains(':') {
                return Err(format!(
                    "buffer {i} ('{uri}'): a buffer file must be in the model's folder or below it (a relative path without `..`)"
                ));
            }
            tumble_math::input::read_below(dir, rel).map_err(|e| format!("buffer {i} ('{uri}'): {e}"))
        }
    }
}

fn base64(s: &str) -> Option<Vec<u8>> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    };
    let digits: Vec<u8> =
        s.bytes().filter(|&c| c != b'=' && !c.is_ascii_whitespace()).map(val).collect::<Option<_>>()?;
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (k, &d)| n | (d as u32) << (18 - 6 * k));
        out.extend(&n.to_be_bytes()[1..chunk.len()]);
    }
    Some(out)
}

/// A node's local transform.
fn transform(node: &Value) -> Result<Affine, String> {
    let nums = |key: &str, n: usize| -> Result<Option<Vec<f64>>, String> {
        match node.get(key) {
            None => Ok(None),
            Some(v) => {
                let a: Vec<f64> =
                    v.as_array().map(|a| a.iter().filter_map(Value::as_f64).collect()).unwrap_or_default();
                if a.len() == n && a.iter().all(|x| x.is_finite()) {
                    Ok(Some(a))
                } else {
                    Err(format!("`{key}` needs {n} finite numbers"))
                }
            }
        }
    };
    if let Some(m) = nums("matrix", 16)? {
        // Column-major 4×4.
        let lin = Mat3::new(m[0], m[4], m[8], m[1], m[5], m[9], m[2], m[6], m[10]);
        return Ok((lin, Vec3::new(m[12], m[13], m[14])));
    }
    let t = nums("translation", 3)?.map_or(Vec3::zeros(), |t| Vec3::new(t[0], t[1], t[2]));
    let r = match nums("rotation", 4)? {
        Some(q) => *UnitQuat::new_normalize(tumble_math::nalgebra::Quaternion::new(q[3], q[0], q[1], q[2]))
            .to_rotation_matrix()
            .matrix(),
        None => Mat3::identity(),
    };
    let s = nums("scale", 3)?.map_or(Vec3::repeat(1.0), |s| Vec3::new(s[0], s[1], s[2]));
    Ok((r * Mat3::from_diagonal(&s), t))
}

/// The values of an accessor as f64 (float VEC3 positions, unsigned integer scalars).
fn read_accessor(doc: &Value, buffers: &[Vec<u8>], i: usize) -> Result<Vec<f64>, String> {
    let a = doc["accessors"].get(i).ok_or(format!("accessor {i} does not exist"))?;
    let count = a["count"].as_u64().ok_or(format!("accessor {i}: no count"))? as usize;
    let comps = match a["type"].as_str() {
        Some("SCALAR") => 1,
        Some("VEC3") => 3,
        t => return Err(format!("accessor {i}: type {t:?} is not read (VEC3 positions, SCALAR indices)")),
    };
    let (size, read): (usize, fn(&[u8]) -> f64) = match a["componentType"].as_u64() {
        Some(5126) => (4, |b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64),
        Some(5125) => (4, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64),
        Some(5123) => (2, |b| u16::from_le_bytes([b[0], b[1]]) as f64),
        Some(5121) => (1, |b| b[0] as f64),
        c => return Err(format!("accessor {i}: component type {c:?} is not read")),
    };
    let view = doc["bufferViews"]
        .get(a["bufferView"].as_u64().ok_or(format!("accessor {i}: no bufferView (sparse accessors are not read)"))?
            as usize)
        .ok_or(format!("accessor {i}: no such bufferView"))?;
    let buf =
        buffers.get(view["buffer"].as_u64().unwrap_or(0) as usize).ok_or(format!("accessor {i}: no such buffer"))?;
    let offset = |v: &Value| v["byteOffset"].as_u64().unwrap_or(0) as usize;
    let start = offset(view).saturating_add(offset(a));
    let stride = view["byteStride"].as_u64().map_or(size * comps, |s| s as usize);
    // The last element must lie in the buffer (checked before allocating for `count`).
    let end = count.checked_sub(1).map_or(Some(start), |last| {
        last.checked_mul(stride).and_then(|x| x.checked_add(start.saturating_add(comps * size)))
    });
    if end.is_none_or(|e| e > buf.len()) {
        return Err(format!("accessor {i}: {count} elements read past the end of its buffer ({} bytes)", buf.len()));
    }
    let mut out = Vec::with_capacity(count * comps);
    for e in 0..count {
        for c in 0..comps {
            let at = start + e * stride + c * size;
            let b = buf.get(at..at + size).ok_or(format!("accessor {i}: reads past the end of its buffer"))?;
            out.push(read(b));
        }
    }
    if out.iter().any(|x| !x.is_finite()) {
        return Err(format!("accessor {i}: non-finite value"));
    }
    Ok(out)
}
