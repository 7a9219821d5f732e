//! A glTF file's node tree as a contact model's group tree: the contact document's Blender
//! workflow (seed 004), where the parenting tree of the scene is the bounding-volume tree and a
//! `movable` group with its children is a body of its own.
//!
//! Each node becomes a group with the node's pose in its parent (its rotation and translation;
//! scale is applied to the vertices below it) and the node's name. A node's mesh becomes the
//! group's primitives, typed as [`super::import`] types imported objects (`tumble_type`, or the
//! name's prefix); a node with a mesh and children keeps its primitives in a leaf group of its
//! own, `NAME/shape`, at its frame (a group holds groups or primitives, never both).
//!
//! Node `extras` (Blender's custom properties, exported with *Include › Custom Properties*):
//!
//! | key | value | meaning |
//! |---|---|---|
//! | `movable` | `true`/`false` (or 1/0) | the group and its subtree are a body, its home pose the node's |
//! | `tumble_type` | a primitive type, or `"ignore"` | how the node's mesh becomes primitives; `ignore` leaves a visual mesh out |
//! | `tumble_contact` | a set's name | the contact set of this group's primitives and everything below it |
//! | `tumble_bv` | `aabb`, `sphere`, `obb` | the group's bounding volume (default `aabb`) |
//! | `tumble_sets` | `{NAME: {law, volume_law, friction, priority}}` | contact sets, in the schema of a model file's `[contact.NAME]` |
//!
//! The scene's own extras may hold `tumble_sets`, `tumble_contact` and `tumble_bv` for the
//! root. Any other `tumble_` key, a set defined twice, a `movable` that is not a boolean, a
//! `tumble_type` on a node without a mesh: each refused with the node's name.
//!
//! Axes and units: glTF is Y-up; with `up = "y"` every frame and vertex is turned into Tumble's
//! Z-up axes by `C: (x, y, z) → (x, −z, y)` (rotations `C R Cᵀ`, so a Blender object's
//! orientation is the group's), and lengths are multiplied by `scale`.

use super::gltf::{Scene, TreeNode};
use super::import::Axes;
use super::model::{GroupSpec, ParamsSpec};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use tumble_math::Mat3;

/// The node extras this module reads.
const KEYS: [&str; 5] = ["movable", "tumble_type", "tumble_contact", "tumble_bv", "tumble_sets"];

/// A glTF tree read as groups.
pub(super) struct Tree {
    /// The scene's name, if it has one.
    pub(super) name: Option<String>,
    /// The root group's settings from the scene's extras (`tumble_contact`, `tumble_bv`).
    pub(super) root: GroupSpec,
    /// Contact sets defined in the file.
    pub(super) sets: BTreeMap<String, ParamsSpec>,
}

/// Reads `path`'s default scene as groups: the root group holds the scene's root nodes. Errors
/// name the node (or the scene), not the file, which the caller adds.
pub(super) fn read(path: &Path, axes: Axes) -> Result<Tree, String> {
    let scene: Scene = super::gltf::read_tree(path)?;
    let mut reader = Reader { axes, sets: BTreeMap::new() };
    let mut root = GroupSpec::default();
    let at = "the scene".to_string();
    if let Some(e) = &scene.extras {
        reader.settings(e, &at, &mut root, false)?;
    }
    root.groups = scene.roots.iter().map(|n| reader.group(n)).collect::<Result<_, _>>()?;
    Ok(Tree { name: scene.name, root, sets: reader.sets })
}

struct Reader {
    axes: Axes,
    sets: BTreeMap<String, ParamsSpec>,
}

impl Reader {
    /// The axis change `C` (identity for a Z-up file).
    fn c(&self) -> Mat3 {
        if self.axes.y_up { Mat3::new(1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0) } else { Mat3::identity() }
    }

    /// The group of node `n` and its subtree.
    fn group(&mut self, n: &TreeNode) -> Result<GroupSpec, String> {
        let at = format!("node '{}'", n.name);
        let C = self.c();
        let R = C * n.rotation * C.transpose();
        let q = tumble_math::quat_from_matrix(&R);
        let mut g = GroupSpec {
            name: Some(n.name.clone()),
            position: (self.axes.scale * (C * n.translation)).into(),
            orientation: [q.w, q.i, q.j, q.k],
            source: Some(at.clone()),
            ..Default::default()
        };
        let mut keep_mesh = n.mesh.is_some();
        if let Some(e) = &n.extras {
            keep_mesh &= self.settings(e, &at, &mut g, n.mesh.is_some())?;
        }
        let prims = match (&n.mesh, keep_mesh) {
            (Some(mesh), true) => super::import::primitives(std::slice::from_ref(mesh), self.axes, None)
                .map_err(|m| format!("{at}: {m}"))?,
            _ => Vec::new(),
        };
        let children: Vec<GroupSpec> = n.children.iter().map(|c| self.group(c)).collect::<Result<_, _>>()?;
        if children.is_empty() {
            g.primitives = prims;
        } else {
            if !prims.is_empty() {
                let name = format!("{}/shape", n.name);
                let source = Some(format!("node '{}' (its mesh)", n.name));
                g.groups.push(GroupSpec { name: Some(name), primitives: prims, source, ..Default::default() });
            }
            g.groups.extend(children);
        }
        Ok(g)
    }

    /// Applies a node's (or the scene's) extras to its group; false when its mesh is ignored.
    fn settings(&mut self, extras: &Value, at: &str, g: &mut GroupSpec, has_mesh: bool) -> Result<bool, String> {
        let Some(map) = extras.as_object() else { return Ok(true) };
        let text = |key: &str| -> Result<Option<String>, String> {
            match map.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(v) => Err(format!("{at}: extras `{key}` must be a string, got {v}")),
            }
        };
        if let Some(key) = map.keys().find(|k| k.starts_with("tumble_") && !KEYS.contains(&k.as_str())) {
            return Err(format!("{at}: unknown extras key `{key}` (Tumble reads {})", KEYS.join(", ")));
        }
        if let Some(m) = map.get("movable") {
            g.movable = match m {
                Value::Bool(b) => *b,
                Value::Number(x) if x.as_u64() == Some(0) || x.as_u64() == Some(1) => x.as_u64() == Some(1),
                v => return Err(format!("{at}: extras `movable` must be true or false, got {v}")),
            };
        }
        g.contact = text("tumble_contact")?;
        g.bv = text("tumble_bv")?;
        let kind = text("tumble_type")?;
        if kind.is_some() && !has_mesh {
            return Err(format!("{at}: extras `tumble_type` on a node without a mesh (it types a mesh's primitives)"));
        }
        if let Some(sets) = map.get("tumble_sets") {
            let sets = sets.as_object().ok_or(format!(
                "{at}: extras `tumble_sets` must map set names to {{law, volume_law, friction, priority}}"
            ))?;
            for (name, spec) in sets {
                if self.sets.contains_key(name) {
                    return Err(format!("{at}: contact set '{name}' is defined twice in the file"));
                }
                let spec: ParamsSpec =
                    serde_json::from_value(spec.clone()).map_err(|e| format!("{at}: tumble_sets.{name}: {e}"))?;
                self.sets.insert(name.clone(), spec);
            }
        }
        Ok(kind.as_deref() != Some("ignore"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tumble_math::Vec3;

    fn v3(a: [f64; 3]) -> Vec3 {
        Vec3::from(a)
    }

    #[test]
    fn y_up_frames_turn_into_z_up_by_conjugation() {
        // A Blender object turned 90° about its Z (up) axis is exported as a turn about glTF's
        // Y: C R_y(90°) Cᵀ must be R_z(90°).
        let r = Reader { axes: Axes { scale: 2.0, y_up: true }, sets: BTreeMap::new() };
        let C = r.c();
        let Ry = Mat3::new(0.0, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 0.0);
        let Rz = C * Ry * C.transpose();
        assert!((Rz - Mat3::new(0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0)).norm() < 1e-15);
        // Blender's (1, 2, 3) is glTF's (1, 3, −2).
        assert_eq!(2.0 * (C * v3([1.0, 3.0, -2.0])), v3([2.0, 4.0, 6.0]));
    }
}
