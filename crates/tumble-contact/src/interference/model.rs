//! Contact models: a tree of groups holding primitives, read from a TOML (or JSON) model file
//! and flattened into bodies (the Object root and each movable group) with bounding-volume trees.
//!
//! File layout (all lengths m, quaternions `[w, x, y, z]`):
//!
//! ```toml
//! name = "tripod"
//! [contact.pad]                         # named contact parameter sets
//! law = { k = 1e5, c = 200 }            # depth law: k δ^p + damping (c | alpha | restitution)
//! volume_law = { k = 1e9, c = 1e6 }     # for volumetric pairs: N/m³ and N·s/m³
//! friction = { model = "bristle", mu = 0.3, mu_static = 0.4, stiffness = 1e4, damping = 50 }
//! priority = 0                          # the higher priority's set acts when two sets meet
//! # wire = { damping = 200 }            # segments as the snare document's identified wire
//! #   (slack_ratio L/l − 1, axial_stiffness EA N, yield_load N, damping N·s/m; each defaults
//! #   to the document's 1.5 mm SUS-304 wire: see crate::snare::WireLaw)
//!
//! [object]                              # the root group (an Object is a movable group)
//! bv = "aabb"                           # aabb | sphere | obb
//! contact = "pad"                       # default for everything below
//! [[object.groups]]
//! name = "foot1"
//! movable = false                       # true: its own pose and twist from dynamics
//! position = [0.5, 0, 0]                # pose in the parent group
//! orientation = [1, 0, 0, 0]
//! [[object.groups.primitives]]
//! type = "point"
//! point = [0, 0, -0.3]
//! ```
//!
//! A group holds groups or primitives, never both (Pong's rule). A movable group and everything
//! under it form an independent tree in the movable group's own frame; the other groups are
//! rigidly attached to their nearest movable ancestor (or the Object). Every bounding volume is
//! fitted at load time to the primitives under its group in that body's frame.

use super::bristle::{Bristle, Friction};
use super::contact::Frame;
use crate::laws::{ContactLaw, Damping, Stiffness};
use crate::snare::WireLaw;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use tumble_geometry::bv::{Bv, BvKind};
use tumble_geometry::convex::ConvexPolyhedron;
use tumble_geometry::mesh::MAX_COORDINATE;
use tumble_geometry::primitive::Primitive;
use tumble_math::{Vec3, quat_from_wxyz};

/// A model file or model-building error, naming the file and the element.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{file}: {location}: {message}")]
pub struct ModelError {
    /// The file (or `<model>` for models built in code).
    pub file: String,
    /// Key path of the element (`object.groups[1].primitives[0]`), with its name when it has one.
    pub location: String,
    /// What is wrong and what would be right.
    pub message: String,
}

/// A contact parameter set.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactParams {
    /// Its name in the model file.
    pub name: String,
    /// Normal law for depth contacts (δ in m).
    pub law: Option<ContactLaw>,
    /// Normal law for volumetric contacts (the measure is a volume in m³: `k` in N/m³).
    pub volume_law: Option<ContactLaw>,
    /// Friction.
    pub friction: Friction,
    /// Which set acts when two meet: the higher priority.
    pub priority: i32,
    /// The identified snare wire's law for this set's segments (the segment is the wire's
    /// line; [`crate::snare::WireLaw`]); other primitives use `law`.
    pub wire: Option<WireLaw>,
}

/// A node of a body's bounding-volume tree.
#[derive(Clone, Debug)]
pub struct Node {
    /// Name of the group.
    pub name: String,
    /// The bounding volume in the body frame (`None`: nothing under it in this body).
    pub bv: Option<Bv>,
    /// Child nodes (same body).
    pub children: Vec<u32>,
    /// Primitives (indices into [`Model::prims`]) of a leaf.
    pub prims: Vec<u32>,
}

/// A primitive placed in its body's frame.
#[derive(Clone, Debug)]
pub struct PrimDef {
    /// Name (given, or `group/k`).
    pub name: String,
    /// The shape in the body frame.
    pub shape: Primitive,
    /// Contact parameter set (index into [`Model::params`]).
    pub params: u32,
    /// Bounding sphere in the body frame: centre and radius (∞ for a plane).
    pub bound: (Vec3, f64),
}

/// A body: the Object root or a movable group.
#[derive(Clone, Debug)]
pub struct BodyDef {
    /// Name of its group.
    pub name: String,
    /// Its root node.
    pub root: u32,
    /// Its pose in the Object frame as modelled (for initial placement).
    pub home: Frame,
}

/// A loaded contact model (shared by all Object instances made from it).
#[derive(Clone, Debug)]
pub struct Model {
    /// Model name.
    pub name: String,
    /// Contact parameter sets.
    pub params: Vec<ContactParams>,
    /// Bodies; body 0 is the Object root.
    pub bodies: Vec<BodyDef>,
    /// Nodes of all bodies' trees.
    pub nodes: Vec<Node>,
    /// Primitives of all bodies.
    pub prims: Vec<PrimDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelFile {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    contact: BTreeMap<String, ParamsSpec>,
    object: GroupSpec,
}

/// A contact parameter set in a model file (`[contact.NAME]`) or a glTF node's `tumble_sets`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ParamsSpec {
    #[serde(default)]
    law: Option<LawSpec>,
    #[serde(default)]
    volume_law: Option<LawSpec>,
    #[serde(default)]
    friction: Option<FrictionSpec>,
    #[serde(default)]
    priority: i32,
    #[serde(default)]
    wire: Option<WireSpec>,
}

/// `wire = { … }`: the identified wire, each key defaulting to the document's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireSpec {
    slack_ratio: Option<f64>,
    axial_stiffness: Option<f64>,
    yield_load: Option<f64>,
    damping: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LawSpec {
    k: f64,
    #[serde(default = "one")]
    p: f64,
    #[serde(default)]
    c: Option<f64>,
    #[serde(default)]
    alpha: Option<f64>,
    #[serde(default)]
    restitution: Option<f64>,
}

fn one() -> f64 {
    1.0
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, tag = "model", rename_all = "snake_case")]
enum FrictionSpec {
    None,
    Coulomb { mu: f64, v_star: f64 },
    Bristle { mu: f64, mu_static: Option<f64>, stiffness: f64, damping: f64 },
}

/// A group in a model file (or a node of an imported glTF tree).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct GroupSpec {
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) bv: Option<String>,
    #[serde(default)]
    pub(super) movable: bool,
    #[serde(default)]
    pub(super) position: [f64; 3],
    #[serde(default = "identity_wxyz")]
    pub(super) orientation: [f64; 4],
    #[serde(default)]
    pub(super) contact: Option<String>,
    #[serde(default)]
    pub(super) groups: Vec<GroupSpec>,
    #[serde(default)]
    pub(super) primitives: Vec<PrimSpec>,
    #[serde(default)]
    pub(super) import: Option<ImportSpec>,
    /// Where an imported group came from (`cbm.glb: node 'latch_1'`), for its errors.
    #[serde(skip)]
    pub(super) source: Option<String>,
}

/// Geometry imported into a group (see [`super::import`] and [`super::tree`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ImportSpec {
    /// OBJ, glTF or GLB file, relative to the model file.
    file: String,
    /// Length scale of the file's units to metres.
    #[serde(default = "one")]
    scale: f64,
    /// The file's up axis: `"y"` (glTF; Blender's OBJ default) or `"z"`.
    #[serde(default = "y_up")]
    up: String,
    /// Contact set of objects that name none.
    #[serde(default)]
    contact: Option<String>,
    /// A glTF file's node tree becomes this group's groups (movable nodes bodies, contact
    /// sets from extras), instead of its meshes becoming this group's primitives.
    #[serde(default)]
    tree: bool,
}

impl ImportSpec {
    /// How the file's coordinates become the model's (`at`: the import's key path).
    fn axes(&self, file: &str, at: &str) -> Result<super::import::Axes, ModelError> {
        let err =
            |key: &str, message: String| ModelError { file: file.into(), location: format!("{at}.{key}"), message };
        let y_up = match self.up.as_str() {
            "y" => true,
            "z" => false,
            other => return Err(err("up", format!("'{other}': expected \"y\" or \"z\""))),
        };
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(err("scale", format!("{}: a scale must be positive", self.scale)));
        }
        Ok(super::import::Axes { scale: self.scale, y_up })
    }
}

fn y_up() -> String {
    "y".into()
}

fn identity_wxyz() -> [f64; 4] {
    [1.0, 0.0, 0.0, 0.0]
}

/// A primitive in a model file: `type` and the keys of that type.
#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct PrimSpec {
    /// `point`, `plane`, `segment`, `ray`, `sphere`, `triangle`, `ellipsoid` or `polyhedron`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Optional name (for errors and reports).
    #[serde(default)]
    pub name: Option<String>,
    /// Contact parameter set (default: the group's).
    #[serde(default)]
    pub contact: Option<String>,
    /// Point of a point or plane.
    #[serde(default)]
    pub point: Option<[f64; 3]>,
    /// Plane normal (normalised on load).
    #[serde(default)]
    pub normal: Option<[f64; 3]>,
    /// Segment ends.
    #[serde(default)]
    pub a: Option<[f64; 3]>,
    /// Segment ends.
    #[serde(default)]
    pub b: Option<[f64; 3]>,
    /// Ray base.
    #[serde(default)]
    pub origin: Option<[f64; 3]>,
    /// Ray direction (normalised on load).
    #[serde(default)]
    pub direction: Option<[f64; 3]>,
    /// Ray length, m.
    #[serde(default)]
    pub length: Option<f64>,
    /// Sphere or ellipsoid centre.
    #[serde(default)]
    pub center: Option<[f64; 3]>,
    /// Sphere radius, m.
    #[serde(default)]
    pub radius: Option<f64>,
    /// Triangle corners, counter-clockwise from outside.
    #[serde(default)]
    pub corners: Option<[[f64; 3]; 3]>,
    /// Ellipsoid semi-axes, m.
    #[serde(default)]
    pub radii: Option<[f64; 3]>,
    /// Ellipsoid orientation `[w, x, y, z]`.
    #[serde(default)]
    pub orientation: Option<[f64; 4]>,
    /// Polyhedron corners.
    #[serde(default)]
    pub vertices: Option<Vec<[f64; 3]>>,
}

impl Model {
    /// Reads a model file: TOML (`.toml`) or JSON (`.json`), named after the file unless it sets
    /// `name`; or a glTF scene (`.gltf`, `.glb`, Y-up, metres) whose node tree is the group tree
    /// ([`super::tree`]), named after its scene (else the file).
    pub fn load(path: &Path) -> Result<Model, ModelError> {
        let file = path.display().to_string();
        let stem = path.file_stem().map_or("model".into(), |s| s.to_string_lossy().into_owned());
        let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
        if ext == "gltf" || ext == "glb" {
            return from_gltf(path, stem);
        }
        let text = tumble_math::input::read_to_string(path).map_err(|e| ModelError {
            file: file.clone(),
            location: "file".into(),
            message: format!("cannot read the model file: {e}"),
        })?;
        parse(&file, &text, ext == "json", stem)
    }

    /// Parses model-file text (TOML) as if read from `file`.
    pub fn from_toml(file: &str, text: &str) -> Result<Model, ModelError> {
        parse(file, text, false, "model".into())
    }

    /// A model of one primitive `shape` (named `prim`, in the Object frame) with the contact set
    /// `params`, built in code (an AABB around it); the shape is validated as a file's is.
    pub fn single(name: &str, params: ContactParams, prim: &str, shape: Primitive) -> Result<Model, ModelError> {
        shape.validate().map_err(|e| ModelError {
            file: "<model>".into(),
            location: prim.into(),
            message: e.to_string(),
        })?;
        let center = shape.anchor();
        let bound = (center, shape.reach(&center));
        let bv = Some(Bv::fit(BvKind::Aabb, std::iter::once(&shape), 0.0));
        Ok(Model {
            name: name.into(),
            params: vec![params],
            bodies: vec![BodyDef { name: "object".into(), root: 0, home: Frame::identity() }],
            nodes: vec![Node { name: "object".into(), bv, children: Vec::new(), prims: vec![0] }],
            prims: vec![PrimDef { name: prim.into(), shape, params: 0, bound }],
        })
    }

    /// Index of the body named `name`.
    pub fn body(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }

    /// Number of primitives.
    pub fn primitive_count(&self) -> usize {
        self.prims.len()
    }
}

fn parse(file: &str, text: &str, json: bool, default_name: String) -> Result<Model, ModelError> {
    let err = |location: String, message: String| ModelError { file: file.into(), location, message };
    let spec: ModelFile = if json {
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de).map_err(|e| err(e.path().to_string(), e.inner().to_string()))?
    } else {
        let de = toml::Deserializer::parse(text).map_err(|e| err("syntax".into(), e.to_string()))?;
        serde_path_to_error::deserialize(de).map_err(|e| err(e.path().to_string(), e.inner().message().to_string()))?
    };
    let name = spec.name.clone().unwrap_or(default_name);
    build(file, name, spec)
}

struct Builder<'a> {
    file: &'a str,
    params: Vec<ContactParams>,
    model: Model,
}

/// The model of a whole glTF file: its scene is the Object.
fn from_gltf(path: &Path, stem: String) -> Result<Model, ModelError> {
    let file = path.display().to_string();
    let tree = super::tree::read(path, super::import::Axes { scale: 1.0, y_up: true })
        .map_err(|message| ModelError { file: file.clone(), location: "node tree".into(), message })?;
    let spec = ModelFile { name: tree.name, contact: tree.sets, object: tree.root };
    let name = spec.name.clone().unwrap_or(stem);
    build(&file, name, spec)
}

/// Replaces every `import = { tree = true, … }` under `g` by the file's groups, adding the
/// file's contact sets to `sets`.
fn expand_trees(
    file: &str,
    g: &mut GroupSpec,
    location: &str,
    sets: &mut BTreeMap<String, ParamsSpec>,
) -> Result<(), ModelError> {
    let err = |location: String, message: String| ModelError { file: file.into(), location, message };
    if let Some(imp) = g.import.take_if(|i| i.tree) {
        let at = format!("{location}.import");
        if !g.groups.is_empty() || !g.primitives.is_empty() {
            return Err(err(at, "a tree import fills the group with the file's nodes: it holds nothing else".into()));
        }
        let axes = imp.axes(file, &at)?;
        let path = Path::new(file).parent().unwrap_or(Path::new("")).join(&imp.file);
        let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
        if ext != "gltf" && ext != "glb" {
            return Err(err(format!("{at}.tree"), format!("{}: a node tree is read from .gltf or .glb", imp.file)));
        }
        let tree = super::tree::read(&path, axes).map_err(|m| err(at.clone(), format!("{}: {m}", imp.file)))?;
        for (name, set) in tree.sets {
            if sets.contains_key(&name) {
                return Err(err(
                    at.clone(),
                    format!("contact set '{name}' is defined in the model file and in {}", imp.file),
                ));
            }
            sets.insert(name, set);
        }
        g.groups = tree.root.groups;
        g.contact = g.contact.take().or(tree.root.contact.or(imp.contact));
        g.bv = g.bv.take().or(tree.root.bv);
    }
    for (k, c) in g.groups.iter_mut().enumerate() {
        expand_trees(file, c, &format!("{location}.groups[{k}]"), sets)?;
    }
    Ok(())
}

fn build(file: &str, name: String, mut spec: ModelFile) -> Result<Model, ModelError> {
    expand_trees(file, &mut spec.object, "object", &mut spec.contact)?;
    let mut params = Vec::new();
    for (key, p) in &spec.contact {
        params.push(params_from(file, key, p)?);
    }
    let mut b = Builder {
        file,
        params,
        model: Model { name, params: Vec::new(), bodies: Vec::new(), nodes: Vec::new(), prims: Vec::new() },
    };
    let root_name = spec.object.name.clone().unwrap_or_else(|| "object".into());
    b.body(&spec.object, "object", root_name, None, Frame::identity())?;
    b.model.params = b.params;
    Ok(b.model)
}

fn params_from(file: &str, key: &str, p: &ParamsSpec) -> Result<ContactParams, ModelError> {
    let location = format!("contact.{key}");
    let err =
        |what: &str, message: String| ModelError { file: file.into(), location: format!("{location}{what}"), message };
    let law = |l: &Option<LawSpec>, what: &str| -> Result<Option<ContactLaw>, ModelError> {
        let Some(l) = l else { return Ok(None) };
        let damping = match (l.c, l.alpha, l.restitution) {
            (None, None, None) => Damping::None,
            (Some(c), None, None) => Damping::Power { c, g: 0.0, q: 1.0 },
            (None, Some(alpha), None) => Damping::HuntCrossley { alpha },
            (None, None, Some(e)) => Damping::Flores { e },
            _ => {
                return Err(err(
                    what,
                    "give at most one of c (dashpot), alpha (Hunt–Crossley) and restitution (Flores)".into(),
                ));
            }
        };
        let law = ContactLaw { stiffness: Stiffness::Power { k: l.k, p: l.p }, damping };
        law.validate().map_err(|m| err(what, m))?;
        if l.k.is_nan() || l.k <= 0.0 {
            return Err(err(what, format!("k must be > 0, got {}", l.k)));
        }
        Ok(Some(law))
    };
    let friction = match &p.friction {
        None | Some(FrictionSpec::None) => Friction::None,
        Some(FrictionSpec::Coulomb { mu, v_star }) => Friction::Coulomb { mu: *mu, v_star: *v_star },
        Some(FrictionSpec::Bristle { mu, mu_static, stiffness, damping }) => Friction::Bristle(Bristle {
            mu: *mu,
            mu_static: mu_static.unwrap_or(*mu),
            stiffness: *stiffness,
            damping: *damping,
        }),
    };
    friction.validate().map_err(|m| err(".friction", m))?;
    let out = ContactParams {
        name: key.into(),
        law: law(&p.law, ".law")?,
        volume_law: law(&p.volume_law, ".volume_law")?,
        friction,
        priority: p.priority,
        wire: match &p.wire {
            None => None,
            Some(w) => {
                let d = WireLaw::default();
                let law = WireLaw {
                    slack_ratio: w.slack_ratio.unwrap_or(d.slack_ratio),
                    axial_stiffness: w.axial_stiffness.unwrap_or(d.axial_stiffness),
                    yield_load: w.yield_load.unwrap_or(d.yield_load),
                    damping: w.damping.unwrap_or(d.damping),
                };
                law.validate().map_err(|m| err(".wire", m))?;
                Some(law)
            }
        },
    };
    if out.law.is_none() && out.volume_law.is_none() && out.wire.is_none() {
        return Err(err(
            "",
            "give law (depth contacts), volume_law (volumetric contacts) and/or wire (segments as snare wires)".into(),
        ));
    }
    Ok(out)
}

impl Builder<'_> {
    fn err(&self, location: &str, message: impl Into<String>) -> ModelError {
        ModelError { file: self.file.into(), location: location.into(), message: message.into() }
    }

    /// The primitives of an `import` (relative paths from the model file's directory).
    fn import(&self, imp: &ImportSpec, here: &str, has_groups: bool) -> Result<Vec<PrimSpec>, ModelError> {
        let at = format!("{here}.import");
        if has_groups {
            return Err(self.err(&at, "a group holds either groups or primitives (an import is primitives), not both"));
        }
        let axes = imp.axes(self.file, &at)?;
        let path = Path::new(self.file).parent().unwrap_or(Path::new("")).join(&imp.file);
        let objects = super::import::read(&path).map_err(|m| self.err(&at, m))?;
        if objects.is_empty() {
            return Err(self.err(&at, format!("{} holds no mesh objects", path.display())));
        }
        super::import::primitives(&objects, axes, imp.contact.as_deref())
            .map_err(|m| self.err(&at, format!("{}: {m}", path.display())))
    }

    fn params_index(&self, location: &str, name: &str) -> Result<u32, ModelError> {
        self.params.iter().position(|p| p.name == name).map(|i| i as u32).ok_or_else(|| {
            let known: Vec<&str> = self.params.iter().map(|p| p.name.as_str()).collect();
            self.err(location, format!("unknown contact set '{name}' (defined: {})", known.join(", ")))
        })
    }

    /// Adds a body rooted at `g` (the Object or a movable group) whose frame is `home` in the
    /// Object frame.
    fn body(
        &mut self,
        g: &GroupSpec,
        location: &str,
        name: String,
        contact: Option<u32>,
        home: Frame,
    ) -> Result<(), ModelError> {
        if self.model.bodies.iter().any(|b| b.name == name) {
            let what = format!("two bodies (movable groups) are named '{name}': give each its own name");
            return Err(self.err(location, what));
        }
        let index = self.model.bodies.len();
        self.model.bodies.push(BodyDef { name, root: 0, home });
        let root = self.group(g, location, Frame::identity(), home, contact)?;
        self.model.bodies[index].root = root;
        Ok(())
    }

    /// Adds group `g` of the body being built, whose frame is `in_body` in the body frame; returns its
    /// node.
    fn group(
        &mut self,
        g: &GroupSpec,
        location: &str,
        in_body: Frame,
        home: Frame,
        contact: Option<u32>,
    ) -> Result<u32, ModelError> {
        let name = g.name.clone().unwrap_or_else(|| location.to_string());
        let here = g.source.clone().unwrap_or_else(|| format!("{location} ('{name}')"));
        // A key as the user wrote it: a model file's `.bv`, a glTF node's `extras tumble_bv`.
        let key = |at: &str, k: &str| match g.source {
            Some(_) => format!("{at} extras tumble_{k}"),
            None => format!("{at}.{k}"),
        };
        if !g.groups.is_empty() && !g.primitives.is_empty() {
            return Err(self.err(
                &here,
                "a group holds either groups or primitives, not both: move the primitives into a child group",
            ));
        }
        let kind = match g.bv.as_deref() {
            None => BvKind::Aabb,
            Some(s) => BvKind::from_name(s).ok_or_else(|| {
                self.err(&key(&here, "bv"), format!("unknown bounding volume '{s}': expected aabb, sphere or obb"))
            })?,
        };
        let contact = match &g.contact {
            Some(c) => Some(self.params_index(&key(&here, "contact"), c)?),
            None => contact,
        };
        let imported = match &g.import {
            None => Vec::new(),
            Some(imp) => self.import(imp, &here, !g.groups.is_empty())?,
        };
        let node = self.model.nodes.len() as u32;
        self.model.nodes.push(Node { name: name.clone(), bv: None, children: Vec::new(), prims: Vec::new() });
        let listed = g.primitives.iter().enumerate().map(|(k, p)| match &g.source {
            Some(source) => (p, format!("{source}, primitive {k}")),
            None => (p, format!("{location}.primitives[{k}]")),
        });
        let from_file = imported.iter().map(|p| (p, format!("{location}.import")));
        for (k, (p, ploc)) in listed.chain(from_file).enumerate() {
            let named = match &p.name {
                Some(n) => format!("{ploc} ('{n}')"),
                None => ploc.clone(),
            };
            let shape = transform(&primitive(p).map_err(|m| self.err(&named, m))?, &in_body);
            let params = match &p.contact {
                Some(c) => self.params_index(&key(&ploc, "contact"), c)?,
                None => contact.ok_or_else(|| {
                    let how = match g.source {
                        Some(_) => "give `tumble_contact` in the extras of this node, a node above or the scene",
                        None => "give `contact` here or on a group above",
                    };
                    self.err(&ploc, format!("no contact set: {how}"))
                })?,
            };
            let center = shape.anchor();
            let bound = (center, shape.reach(&center));
            // A model's part beyond a million kilometres is a unit or a typo (meshes are held to
            // the same bound); its contacts would be rounding.
            let far = center.norm() + if bound.1.is_finite() { bound.1 } else { 0.0 };
            if far.is_nan() || far > MAX_COORDINATE {
                let what = format!(
                    "the primitive reaches {far:e} m from its body's origin, beyond {MAX_COORDINATE:e} m: check the units and positions"
                );
                return Err(self.err(&named, what));
            }
            let index = self.model.prims.len() as u32;
            self.model.prims.push(PrimDef {
                name: p.name.clone().unwrap_or_else(|| format!("{name}/{k}")),
                shape,
                params,
                bound,
            });
            self.model.nodes[node as usize].prims.push(index);
        }
        for (k, child) in g.groups.iter().enumerate() {
            let cloc = format!("{location}.groups[{k}]");
            let q = quat_from_wxyz(child.orientation)
                .map_err(|e| self.err(&format!("{cloc}.orientation"), e.to_string()))?;
            let pose = Frame { R: *q.to_rotation_matrix().matrix(), p: Vec3::from(child.position) };
            if !pose.p.iter().all(|x| x.is_finite()) {
                return Err(self.err(&format!("{cloc}.position"), "non-finite coordinate"));
            }
            if child.movable {
                let cname = child.name.clone().unwrap_or_else(|| cloc.clone());
                let child_home = home.compose(&in_body.compose(&pose));
                self.body(child, &cloc, cname, contact, child_home)?;
            } else {
                let c = self.group(child, &cloc, in_body.compose(&pose), home, contact)?;
                self.model.nodes[node as usize].children.push(c);
            }
        }
        // Fit the volume to every primitive under this node (in this body).
        let mut under = Vec::new();
        self.collect(node, &mut under);
        if !under.is_empty() {
            let prims = under.iter().map(|&i| &self.model.prims[i as usize].shape);
            self.model.nodes[node as usize].bv = Some(Bv::fit(kind, prims, 0.0));
        }
        Ok(node)
    }

    fn collect(&self, node: u32, out: &mut Vec<u32>) {
        let n = &self.model.nodes[node as usize];
        out.extend(&n.prims);
        for &c in &n.children {
            self.collect(c, out);
        }
    }
}

fn vec3(v: Option<[f64; 3]>, key: &str, kind: &str) -> Result<Vec3, String> {
    v.map(Vec3::from).ok_or_else(|| format!("a {kind} needs `{key}`"))
}

fn unit(v: Vec3, key: &str) -> Result<Vec3, String> {
    let n = v.norm();
    if !(n > 0.0 && n.is_finite()) {
        return Err(format!("`{key}` must be a non-zero finite vector, got {v:?}"));
    }
    Ok(v / n)
}

/// The primitive a model-file entry describes (its own group frame), validated.
pub fn primitive(p: &PrimSpec) -> Result<Primitive, String> {
    let kind = p.kind.as_str();
    let given: Vec<&str> = [
        ("point", p.point.is_some()),
        ("normal", p.normal.is_some()),
        ("a", p.a.is_some()),
        ("b", p.b.is_some()),
        ("origin", p.origin.is_some()),
        ("direction", p.direction.is_some()),
        ("length", p.length.is_some()),
        ("center", p.center.is_some()),
        ("radius", p.radius.is_some()),
        ("corners", p.corners.is_some()),
        ("radii", p.radii.is_some()),
        ("orientation", p.orientation.is_some()),
        ("vertices", p.vertices.is_some()),
    ]
    .into_iter()
    .filter_map(|(k, g)| g.then_some(k))
    .collect();
    let allowed: &[&str] = match kind {
        "point" => &["point"],
        "plane" => &["point", "normal"],
        "segment" => &["a", "b"],
        "ray" => &["origin", "direction", "length"],
        "sphere" => &["center", "radius"],
        "triangle" => &["corners"],
        "ellipsoid" => &["center", "radii", "orientation"],
        "polyhedron" => &["vertices"],
        other => {
            return Err(format!(
                "unknown primitive type '{other}': expected point, plane, segment, ray, sphere, triangle, ellipsoid or polyhedron"
            ));
        }
    };
    if let Some(extra) = given.iter().find(|k| !allowed.contains(k)) {
        return Err(format!("key `{extra}` does not apply to a {kind} (its keys: {})", allowed.join(", ")));
    }
    let shape = match kind {
        "point" => Primitive::Point(vec3(p.point, "point", kind)?),
        "plane" => Primitive::Plane {
            point: vec3(p.point, "point", kind)?,
            normal: unit(vec3(p.normal, "normal", kind)?, "normal")?,
        },
        "segment" => Primitive::Segment { a: vec3(p.a, "a", kind)?, b: vec3(p.b, "b", kind)? },
        "ray" => Primitive::Ray {
            origin: vec3(p.origin, "origin", kind)?,
            direction: unit(vec3(p.direction, "direction", kind)?, "direction")?,
            length: p.length.ok_or("a ray needs `length`")?,
        },
        "sphere" => Primitive::Sphere {
            center: vec3(p.center, "center", kind)?,
            radius: p.radius.ok_or("a sphere needs `radius`")?,
        },
        "triangle" => Primitive::Triangle(p.corners.ok_or("a triangle needs `corners`")?.map(Vec3::from)),
        "ellipsoid" => {
            let q =
                quat_from_wxyz(p.orientation.unwrap_or(identity_wxyz())).map_err(|e| format!("orientation: {e}"))?;
            Primitive::Ellipsoid {
                center: vec3(p.center, "center", kind)?,
                rotation: *q.to_rotation_matrix().matrix(),
                radii: vec3(p.radii, "radii", kind)?,
            }
        }
        _ => {
            let v: Vec<Vec3> =
                p.vertices.as_ref().ok_or("a polyhedron needs `vertices`")?.iter().map(|v| Vec3::from(*v)).collect();
            Primitive::Polyhedron(Box::new(ConvexPolyhedron::new(&v).map_err(|e| e.to_string())?))
        }
    };
    shape.validate().map_err(|e| e.to_string())?;
    Ok(shape)
}

/// `shape` moved by `X` (group frame → body frame).
pub fn transform(shape: &Primitive, X: &Frame) -> Primitive {
    let pt = |x: &Vec3| X.point(x);
    match shape {
        Primitive::Point(p) => Primitive::Point(pt(p)),
        Primitive::Plane { point, normal } => Primitive::Plane { point: pt(point), normal: X.vector(normal) },
        Primitive::Segment { a, b } => Primitive::Segment { a: pt(a), b: pt(b) },
        Primitive::Ray { origin, direction, length } => {
            Primitive::Ray { origin: pt(origin), direction: X.vector(direction), length: *length }
        }
        Primitive::Sphere { center, radius } => Primitive::Sphere { center: pt(center), radius: *radius },
        Primitive::Triangle(t) => Primitive::Triangle(t.map(|v| pt(&v))),
        Primitive::Ellipsoid { center, rotation, radii } => {
            Primitive::Ellipsoid { center: pt(center), rotation: X.R * rotation, radii: *radii }
        }
        Primitive::Polyhedron(p) => Primitive::Polyhedron(Box::new(p.transformed(&X.R, &X.p))),
    }
}
