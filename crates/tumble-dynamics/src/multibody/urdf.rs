//! URDF import: links, joints, inertials and limits into a [`Multibody`].
//!
//! Each root link (a link that is no joint's child) starts a tree attached to the world by a
//! fixed or a free joint, as asked. Joint types: `revolute` and `continuous` (revolute),
//! `prismatic`, `fixed`, `floating` (free) and `spherical`; `planar` is refused. Poses use the
//! URDF convention `R = Rz(yaw) Ry(pitch) Rx(roll)`; inertias are given about the centre of
//! mass in the inertial frame and are rotated into the link frame. Visual and collision meshes
//! are not needed and are ignored here.

use super::{Joint, Link, MAX_LINK_MASS, Multibody};
use std::collections::HashMap;
use std::path::Path;
use tumble_geometry::MassProperties;
use tumble_math::{Mat3, UnitQuat, Vec3};

/// How each root link is attached to the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// Bolted to the world.
    Fixed,
    /// Floating (six degrees of freedom).
    Free,
}

/// A URDF that cannot be used, with the file and what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct UrdfError {
    /// The file (or `<string>`).
    pub file: String,
    /// What is wrong and what would be right.
    pub message: String,
}

/// The imported model and the URDF names behind its links.
#[derive(Clone, Debug)]
pub struct UrdfModel {
    /// The tree.
    pub multibody: Multibody,
    /// Robot name.
    pub name: String,
    /// URDF joint name carrying each link (`None` for roots).
    pub joint_names: Vec<Option<String>>,
    /// Position limits `(lower, upper)` of each link's joint, where the URDF gives them.
    pub limits: Vec<Option<(f64, f64)>>,
}

/// Reads a URDF file.
pub fn read_urdf(path: &Path, base: Base, gravity: Vec3) -> Result<UrdfModel, UrdfError> {
    let file = path.display().to_string();
    let text = tumble_math::input::read_to_string(path)
        .map_err(|e| UrdfError { file: file.clone(), message: format!("cannot read: {e}") })?;
    urdf_from_str(&text, &file, base, gravity)
}

/// Parses URDF text (`file` names it in errors).
pub fn urdf_from_str(text: &str, file: &str, base: Base, gravity: Vec3) -> Result<UrdfModel, UrdfError> {
    let bad = |message: String| UrdfError { file: file.to_string(), message };
    // The XML parser recurses once per level: a deep nesting would overflow the stack.
    if xml_depth(text, MAX_XML_DEPTH) > MAX_XML_DEPTH {
        return Err(bad(format!(
            "elements nested more than {MAX_XML_DEPTH} deep: not a URDF (robot > link > inertial > origin is 4 deep)"
        )));
    }
    let robot = urdf_rs::read_from_string(text).map_err(|e| bad(format!("not a readable URDF: {e}")))?;
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (k, l) in robot.links.iter().enumerate() {
        if index.insert(l.name.as_str(), k).is_some() {
            return Err(bad(format!("link `{}` is defined twice", l.name)));
        }
    }
    if robot.links.is_empty() {
        return Err(bad("the robot has no links".into()));
    }
    // The joint carrying each link, and each link's children.
    let mut carried_by: Vec<Option<usize>> = vec![None; robot.links.len()];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); robot.links.len()];
    for (j, joint) in robot.joints.iter().enumerate() {
        let find = |name: &str, role: &str| {
            index
                .get(name)
                .copied()
                .ok_or_else(|| bad(format!("joint `{}`: its {role} link `{name}` is not defined", joint.name)))
        };
        let (p, c) = (find(&joint.parent.link, "parent")?, find(&joint.child.link, "child")?);
        if let Some(other) = carried_by[c] {
            return Err(bad(format!(
                "link `{}` is the child of joints `{}` and `{}`: a URDF describes a tree (closed loops are not supported)",
                robot.links[c].name, robot.joints[other].name, joint.name
            )));
        }
        carried_by[c] = Some(j);
        children[p].push(c);
    }
    // Breadth-first from the roots: parents precede children.
    let mut order: Vec<usize> = (0..robot.links.len()).filter(|&k| carried_by[k].is_none()).collect();
    if order.is_empty() {
        return Err(bad("every link is some joint's child: the joints form a loop".into()));
    }
    let mut at = 0;
    while at < order.len() {
        let k = order[at];
        order.extend(children[k].iter().copied());
        at += 1;
    }
    if order.len() != robot.links.len() {
        let lost: Vec<&str> =
            (0..robot.links.len()).filter(|k| !order.contains(k)).map(|k| robot.links[k].name.as_str()).collect();
        return Err(bad(format!("links {lost:?} form a loop and hang from no root")));
    }
    let slot: HashMap<usize, usize> = order.iter().enumerate().map(|(s, &k)| (k, s)).collect();

    let mut links = Vec::with_capacity(order.len());
    let (mut joint_names, mut limits) = (Vec::new(), Vec::new());
    for &k in &order {
        let l = &robot.links[k];
        let inert = &l.inertial;
        let r_in = rpy(&inert.origin.rpy.0);
        let i = &inert.inertia;
        let i_frame = Mat3::new(i.ixx, i.ixy, i.ixz, i.ixy, i.iyy, i.iyz, i.ixz, i.iyz, i.izz);
        let mass = inert.mass.value;
        let numbers = [inert.origin.xyz.0, inert.origin.rpy.0, [i.ixx, i.iyy, i.izz], [i.ixy, i.ixz, i.iyz]];
        if !numbers.iter().flatten().all(|x| x.is_finite()) {
            return Err(bad(format!(
                "link `{}`: inertial: every origin and inertia value must be a finite number",
                l.name
            )));
        }
        if mass > MAX_LINK_MASS {
            return Err(bad(format!("link `{}`: mass {mass} kg is more than {MAX_LINK_MASS:e} kg", l.name)));
        }
        let inertia = r_in * i_frame * r_in.transpose();
        if mass > 0.0 {
            MassProperties::new(mass, inertia)
                .validate()
                .map_err(|e| bad(format!("link `{}`: inertial: {e}", l.name)))?;
        } else if mass < 0.0 || !mass.is_finite() {
            return Err(bad(format!("link `{}`: mass must be >= 0 kg, got {mass}", l.name)));
        }
        let (parent, joint, pose, name, limit) = match carried_by[k] {
            None => {
                let joint = if base == Base::Free { Joint::Free } else { Joint::Fixed };
                (None, joint, (Mat3::identity(), Vec3::zeros()), None, None)
            }
            Some(j) => {
                let jt = &robot.joints[j];
                let numbers = [jt.axis.xyz.0, jt.origin.xyz.0, jt.origin.rpy.0];
                if !numbers.iter().flatten().all(|x| x.is_finite()) {
                    return Err(bad(format!(
                        "joint `{}`: every axis and origin value must be a finite number",
                        jt.name
                    )));
                }
                let axis = Vec3::from(jt.axis.xyz.0);
                let unit = || {
                    axis.try_normalize(1e-12).ok_or_else(|| {
                        bad(format!("joint `{}`: the axis {:?} has no direction", jt.name, axis.as_slice()))
                    })
                };
                use urdf_rs::JointType as T;
                let joint = match jt.joint_type {
                    T::Revolute | T::Continuous => Joint::Revolute(unit()?),
                    T::Prismatic => Joint::Prismatic(unit()?),
                    T::Fixed => Joint::Fixed,
                    T::Floating => Joint::Free,
                    T::Spherical => Joint::Spherical,
                    T::Planar => {
                        return Err(bad(format!(
                            "joint `{}`: planar joints are not supported (use a prismatic–prismatic–revolute chain)",
                            jt.name
                        )));
                    }
                };
                let limit =
                    matches!(jt.joint_type, T::Revolute | T::Prismatic).then_some((jt.limit.lower, jt.limit.upper));
                let parent = slot[&index[jt.parent.link.as_str()]];
                (
                    Some(parent),
                    joint,
                    (rpy(&jt.origin.rpy.0), Vec3::from(jt.origin.xyz.0)),
                    Some(jt.name.clone()),
                    limit,
                )
            }
        };
        links.push(Link {
            name: l.name.clone(),
            parent,
            joint,
            parent_to_joint: pose,
            mass: mass.max(0.0),
            com: Vec3::from(inert.origin.xyz.0),
            inertia,
        });
        joint_names.push(name);
        limits.push(limit);
    }
    // A moving joint must carry some mass, or the mass matrix is singular.
    let mut subtree_mass: Vec<f64> = links.iter().map(|l| l.mass).collect();
    for s in (0..links.len()).rev() {
        if let Some(p) = links[s].parent {
            subtree_mass[p] += subtree_mass[s];
        }
    }
    for (s, l) in links.iter().enumerate() {
        if l.joint.nv() > 0 && subtree_mass[s] <= 0.0 {
            return Err(bad(format!(
                "link `{}` moves on joint `{}` but it and everything it carries are massless: give it an <inertial>",
                l.name,
                joint_names[s].as_deref().unwrap_or("(base)")
            )));
        }
    }
    let multibody = Multibody::new(links, gravity).map_err(|e| bad(e.to_string()))?;
    Ok(UrdfModel { multibody, name: robot.name, joint_names, limits })
}

/// Deepest element nesting a URDF may have.
const MAX_XML_DEPTH: usize = 64;

/// The deepest element nesting of XML `text`, counted from its tags (comments, CDATA,
/// declarations and processing instructions skipped), the count stopping once past `limit`.
fn xml_depth(text: &str, limit: usize) -> usize {
    let (mut depth, mut deepest, mut i) = (0usize, 0usize, 0usize);
    while let Some(off) = text[i..].find('<') {
        let at = i + off;
        let rest = &text[at..];
        let skip = |close: &str| rest.find(close).map_or(text.len(), |e| at + e + close.len());
        if rest.starts_with("<!--") {
            i = skip("-->");
            continue;
        }
        if rest.starts_with("<![CDATA[") {
            i = skip("]]>");
            continue;
        }
        i = skip(">");
        let tag = &text[at..i];
        if tag.starts_with("</") {
            depth = depth.saturating_sub(1);
        } else if !(tag.starts_with("<?") || tag.starts_with("<!") || tag.ends_with("/>")) {
            depth += 1;
            deepest = deepest.max(depth);
            if deepest > limit {
                break;
            }
        }
    }
    deepest
}

/// URDF fixed-axis roll–pitch–yaw: `Rz(y) Ry(p) Rx(r)`.
fn rpy(a: &[f64; 3]) -> Mat3 {
    UnitQuat::from_euler_angles(a[0], a[1], a[2]).to_rotation_matrix().into_inner()
}
