//! Contact geometry from OBJ and glTF files as a modelling tool (Blender) exports them.
//!
//! A group of a model file may say `import = { file = "latch.obj" }`: every mesh object of the
//! file becomes primitives of that group. Each object's primitive type comes from its glTF
//! `extras` (`tumble_type`, `tumble_contact`; Blender writes an object's custom properties
//! there when *Include › Custom Properties* is ticked) or else from its name:
//! `TYPE[_label][@contact_set]`, e.g. `sphere_wheel@rubber`, `hull_housing`, `points_feet`.
//!
//! | type (name prefix) | primitives made from the object's mesh |
//! |---|---|
//! | `point`, `points` | one point per vertex |
//! | `segment`, `segments`, `edges` | one segment per edge of its line elements (loose edges) |
//! | `ray` | a ray from the first to the second vertex of its first line, as long as that edge |
//! | `plane` | the plane of its first face, normal by the face's counter-clockwise order |
//! | `sphere` | a sphere at the centre of the vertices' bounding box, radius their mean distance from it |
//! | `ellipsoid` | principal axes of the vertices (covariance eigenvectors), semi-axes their extents |
//! | `triangle`, `triangles`, `mesh` | one one-sided triangle per face (fans for polygons) |
//! | `polyhedron`, `poly`, `convex` | a convex polyhedron of the vertices (refused if one is inside the others' hull) |
//! | `hull` | the convex hull of the vertices (interior vertices dropped) |
//!
//! Coordinates are scaled by `scale` (a file in millimetres: `scale = 0.001`) and turned from
//! the file's up axis (`up = "y"`, the glTF convention and Blender's OBJ default, or `"z"`)
//! into Tumble's Z-up axes: `(x, y, z)_file → (x, −z, y)`. OBJ objects are `o` (or `g`)
//! blocks with world coordinates (Blender applies transforms on export); glTF nodes carry their
//! transforms, applied down the node tree. Blender's duplicate suffix (`.001`) is dropped from
//! contact-set names. An object of no known type is an error that names it.

use super::model::PrimSpec;
use serde_json::Value;
use std::path::Path;
use tumble_math::{Mat3, Vec3};

/// One mesh object read from a file: name, extras, vertices (file axes and units), faces and
/// line elements as vertex indices.
#[derive(Clone, Debug, Default)]
pub struct MeshObject {
    /// Object (or node) name.
    pub name: String,
    /// glTF `extras` of the node, if any.
    pub extras: Option<Value>,
    /// Vertices.
    pub vertices: Vec<Vec3>,
    /// Polygons, counter-clockwise from outside.
    pub faces: Vec<Vec<usize>>,
    /// Polylines.
    pub lines: Vec<Vec<usize>>,
}

/// Reads the mesh objects of an OBJ or glTF (`.gltf`, `.glb`) file.
pub fn read(path: &Path) -> Result<Vec<MeshObject>, String> {
    let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "obj" => {
            let text =
                tumble_math::input::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            read_obj(&text).map_err(|e| format!("{}: {e}", path.display()))
        }
        "gltf" | "glb" => super::gltf::read(path),
        _ => Err(format!("{}: unknown geometry format '.{ext}': expected .obj, .gltf or .glb", path.display())),
    }
}

/// Parses OBJ text: `o`/`g` start objects, which own the vertices listed after them; `v`, `f`,
/// `l`, `p` (1-based or negative indices, `v/vt/vn` forms) are read, other statements ignored.
pub fn read_obj(text: &str) -> Result<Vec<MeshObject>, String> {
    let mut vertices: Vec<Vec3> = Vec::new();
    let mut objects: Vec<MeshObject> = Vec::new();
    // Faces index the file's global vertex list; objects keep their own, remapped.
    let mut current: Option<(MeshObject, std::collections::HashMap<usize, usize>)> = None;
    let finish = |cur: Option<(MeshObject, _)>, objects: &mut Vec<MeshObject>| {
        if let Some((o, _)) = cur
            && !(o.vertices.is_empty())
        {
            objects.push(o);
        }
    };
    for (n, line) in text.lines().enumerate() {
        let at = |m: String| format!("line {}: {m}", n + 1);
        let mut it = line.split_whitespace();
        let Some(tag) = it.next() else { continue };
        match tag {
            "o" | "g" => {
                finish(current.take(), &mut objects);
                let name = it.collect::<Vec<_>>().join(" ");
                current = Some((MeshObject { name, ..Default::default() }, Default::default()));
            }
            "v" => {
                let c: Vec<f64> = it
                    .take(3)
                    .map(|x| x.parse::<f64>())
                    .collect::<Result<_, _>>()
                    .map_err(|e| at(format!("vertex: {e}")))?;
                if c.len() != 3 || !c.iter().all(|x| x.is_finite()) {
                    return Err(at(format!("a vertex needs three finite coordinates, got '{line}'")));
                }
                vertices.push(Vec3::new(c[0], c[1], c[2]));
                // A vertex listed in an object belongs to it even when no element uses it
                // (loose vertices: points).
                if let Some((obj, map)) = current.as_mut() {
                    map.insert(vertices.len() - 1, obj.vertices.len());
                    obj.vertices.push(vertices[vertices.len() - 1]);
                }
            }
            "f" | "l" | "p" => {
                let (obj, map) = current.get_or_insert_with(|| {
                    (MeshObject { name: "unnamed".into(), ..Default::default() }, Default::default())
                });
                let mut poly = Vec::new();
                for item in it {
                    let k: i64 =
                        item.split('/').next().unwrap_or("").parse().map_err(|e| at(format!("index '{item}': {e}")))?;
                    let g = if k > 0 { k as usize - 1 } else { (vertices.len() as i64 + k) as usize };
                    if k == 0 || g >= vertices.len() {
                        return Err(at(format!("vertex index {k} out of range ({} vertices so far)", vertices.len())));
                    }
                    let local = *map.entry(g).or_insert_with(|| {
                        obj.vertices.push(vertices[g]);
                        obj.vertices.len() - 1
                    });
                    poly.push(local);
                }
                let need = match tag {
                    "f" => 3,
                    "l" => 2,
                    _ => 1,
                };
                if poly.len() < need {
                    return Err(at(format!("'{tag}' needs at least {need} vertices")));
                }
                match tag {
                    "f" => obj.faces.push(poly),
                    "l" => obj.lines.push(poly),
                    _ => {}
                }
                if obj.faces.len() + obj.lines.len() > MAX_OBJECT_ELEMENTS {
                    return Err(at(too_many(&obj.name)));
                }
            }
            _ => {}
        }
    }
    finish(current, &mut objects);
    Ok(objects)
}

/// Most faces and lines one imported object may have. A contact model's objects are primitives
/// (the bundled drogue has 64 faces); the engine prepares a polyhedron in time growing with the
/// square of its faces (measured in a debug build: 10,000 faces 1.4 s, 40,000 faces 21 s, 2
/// million faces past 5 minutes), so a scanned or CAD-resolution mesh is refused at once.
pub const MAX_OBJECT_ELEMENTS: usize = 10_000;

/// The refusal of object `name` past [`MAX_OBJECT_ELEMENTS`].
pub(crate) fn too_many(name: &str) -> String {
    format!(
        "object '{name}' has more than {MAX_OBJECT_ELEMENTS} faces and lines: a contact model's objects are primitives; simplify the mesh (Blender's Decimate modifier) to at most {MAX_OBJECT_ELEMENTS}"
    )
}

/// How file coordinates become model coordinates.
#[derive(Clone, Copy, Debug)]
pub struct Axes {
    /// Length scale to metres.
    pub scale: f64,
    /// Whether the file is Y-up.
    pub y_up: bool,
}

impl Axes {
    fn map(&self, v: &Vec3) -> Vec3 {
        let v = v * self.scale;
        if self.y_up { Vec3::new(v.x, -v.z, v.y) } else { v }
    }
}

/// A type name of the convention, or of `tumble_type`.
fn known(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "point" | "points" => "point",
        "segment" | "segments" | "edges" => "segment",
        "ray" => "ray",
        "plane" => "plane",
        "sphere" => "sphere",
        "ellipsoid" => "ellipsoid",
        "triangle" | "triangles" | "mesh" => "triangle",
        "polyhedron" | "poly" | "convex" => "polyhedron",
        "hull" => "hull",
        _ => return None,
    })
}

/// `(type, contact set)` of an object: from its extras, else from its name.
fn kind_of(o: &MeshObject) -> Result<(&'static str, Option<String>), String> {
    let extra = |key: &str| o.extras.as_ref().and_then(|e| e.get(key)).and_then(Value::as_str).map(str::to_string);
    let strip = |s: &str| {
        // Blender's duplicate suffix: `.001`.
        match s.rsplit_once('.') {
            Some((head, tail)) if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) => head.to_string(),
            _ => s.to_string(),
        }
    };
    let (base, set) = match o.name.split_once('@') {
        Some((b, s)) => (b, Some(strip(s))),
        None => (o.name.as_str(), None),
    };
    let set = extra("tumble_contact").or(set);
    if let Some(t) = extra("tumble_type") {
        return known(&t.to_lowercase())
            .map(|k| (k, set))
            .ok_or_else(|| format!("object '{}': tumble_type '{t}' is not a primitive type", o.name));
    }
    let prefix = base.split(['_', '.', ' ']).next().unwrap_or("").to_lowercase();
    known(&prefix).map(|k| (k, set)).ok_or_else(|| {
        format!(
            "object '{}': its name does not start with a primitive type (point, segment, ray, plane, sphere, ellipsoid, triangle, polyhedron, hull), nor has it a tumble_type extra; rename it (e.g. 'sphere_{}') or leave it out of the export",
            o.name, base
        )
    })
}

fn arr(v: &Vec3) -> [f64; 3] {
    [v.x, v.y, v.z]
}

/// The primitives of the imported objects, in model coordinates, as model-file entries (so
/// that they are validated and placed like written ones). `contact` is the import's default set.
pub fn primitives(objects: &[MeshObject], axes: Axes, contact: Option<&str>) -> Result<Vec<PrimSpec>, String> {
    let mut out = Vec::new();
    for o in objects {
        let (kind, set) = kind_of(o)?;
        let v: Vec<Vec3> = o.vertices.iter().map(|x| axes.map(x)).collect();
        let contact = set.or(contact.map(str::to_string));
        let spec = |k: &str, i: Option<usize>| PrimSpec {
            kind: k.into(),
            name: Some(match i {
                Some(i) => format!("{}/{i}", o.name),
                None => o.name.clone(),
            }),
            contact: contact.clone(),
            ..Default::default()
        };
        let bad = |what: &str| format!("object '{}' ({kind}): {what}", o.name);
        let need = |ok: bool, what: &str| if ok { Ok(()) } else { Err(bad(what)) };
        match kind {
            "point" => out
                .extend(v.iter().enumerate().map(|(i, x)| PrimSpec { point: Some(arr(x)), ..spec("point", Some(i)) })),
            "segment" => {
                need(!o.lines.is_empty(), "no line elements (loose edges): export them, or use another type")?;
                let mut i = 0;
                for l in &o.lines {
                    for w in l.windows(2) {
                        out.push(PrimSpec {
                            a: Some(arr(&v[w[0]])),
                            b: Some(arr(&v[w[1]])),
                            ..spec("segment", Some(i))
                        });
                        i += 1;
                    }
                }
            }
            "ray" => {
                let Some(l) = o.lines.first().filter(|l| l.len() >= 2) else {
                    return Err(bad("a ray needs a line element (an edge) from its base to its tip"));
                };
                let d = v[l[1]] - v[l[0]];
                out.push(PrimSpec {
                    origin: Some(arr(&v[l[0]])),
                    direction: Some(arr(&d)),
                    length: Some(d.norm()),
                    ..spec("ray", None)
                });
            }
            "plane" => {
                let Some(f) = o.faces.first() else { return Err(bad("a plane needs a face")) };
                let n = (v[f[1]] - v[f[0]]).cross(&(v[f[2]] - v[f[0]]));
                out.push(PrimSpec { point: Some(arr(&v[f[0]])), normal: Some(arr(&n)), ..spec("plane", None) });
            }
            "sphere" | "ellipsoid" => {
                need(v.len() >= 4, "fewer than 4 vertices")?;
                let (lo, hi) = v.iter().fold((v[0], v[0]), |(lo, hi), x| (lo.inf(x), hi.sup(x)));
                let c = 0.5 * (lo + hi);
                if kind == "sphere" {
                    let r = v.iter().map(|x| (x - c).norm()).sum::<f64>() / v.len() as f64;
                    out.push(PrimSpec { center: Some(arr(&c)), radius: Some(r), ..spec("sphere", None) });
                } else {
                    let mean = v.iter().sum::<Vec3>() / v.len() as f64;
                    let cov = v.iter().fold(Mat3::zeros(), |m, x| m + (x - mean) * (x - mean).transpose());
                    let mut axes = cov.symmetric_eigen().eigenvectors;
                    if axes.determinant() < 0.0 {
                        axes.set_column(2, &-axes.column(2));
                    }
                    // Centre and semi-axes from the extents along the principal axes.
                    let (mut lo, mut hi) = (Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY));
                    for x in &v {
                        let y = axes.tr_mul(x);
                        (lo, hi) = (lo.inf(&y), hi.sup(&y));
                    }
                    let q = tumble_math::quat_from_matrix(&axes);
                    out.push(PrimSpec {
                        center: Some(arr(&(axes * (0.5 * (lo + hi))))),
                        radii: Some(arr(&(0.5 * (hi - lo)))),
                        orientation: Some([q.w, q.i, q.j, q.k]),
                        ..spec("ellipsoid", None)
                    });
                }
            }
            "triangle" => {
                need(!o.faces.is_empty(), "no faces")?;
                let mut i = 0;
                for f in &o.faces {
                    for k in 1..f.len() - 1 {
                        out.push(PrimSpec {
                            corners: Some([arr(&v[f[0]]), arr(&v[f[k]]), arr(&v[f[k + 1]])]),
                            ..spec("triangle", Some(i))
                        });
                        i += 1;
                    }
                }
            }
            _ => {
                // polyhedron or hull
                let corners: Vec<Vec3> = if kind == "hull" {
                    let h = tumble_geometry::hull::convex_hull(&v)
                        .map_err(|e| format!("object '{}': hull: {e}", o.name))?;
                    h.vertices.iter().map(|&i| v[i]).collect()
                } else {
                    v
                };
                out.push(PrimSpec { vertices: Some(corners.iter().map(arr).collect()), ..spec("polyhedron", None) });
            }
        }
    }
    Ok(out)
}
