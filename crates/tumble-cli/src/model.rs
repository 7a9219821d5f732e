//! `tumble model FILE`: what Tumble reads from a contact model (TOML, JSON, or a glTF scene
//! exported from Blender): its contact sets, its bodies with their home poses, and each body's
//! group tree with bounding volumes and primitives.

use crate::Failure;
use serde_json::{Value, json};
use std::path::Path;
use tumble_contact::interference::model::Node;
use tumble_contact::interference::{Friction, Model};
use tumble_contact::laws::{Damping, Stiffness};
use tumble_geometry::bv::Bv;

/// Prints the model at `file`, as text or as JSON.
pub(crate) fn run(file: &Path, as_json: bool) -> Result<(), Failure> {
    let model = Model::load(file).map_err(|e| Failure::Input(e.to_string()))?;
    let doc = describe(&model);
    if as_json {
        say!("{}", serde_json::to_string_pretty(&doc).map_err(|e| Failure::Output(e.to_string()))?);
        return Ok(());
    }
    say!("model '{}': {} bodies, {} primitives", model.name, model.bodies.len(), model.prims.len());
    for s in doc["sets"].as_array().into_iter().flatten() {
        let wire = if s["wire"].is_null() { String::new() } else { format!(", wire {}", s["wire"]) };
        say!(
            "set '{}' (priority {}): law {}, volume law {}, friction {}{wire}",
            s["name"].as_str().unwrap_or(""),
            s["priority"],
            s["law"],
            s["volume_law"],
            s["friction"]
        );
    }
    for (b, body) in model.bodies.iter().zip(doc["bodies"].as_array().into_iter().flatten()) {
        say!("body '{}' at {} orientation {}", b.name, body["position"], body["orientation"]);
        tree(&model, b.root, 1);
    }
    Ok(())
}

/// The group tree under `node`, one line a group.
fn tree(model: &Model, node: u32, depth: usize) {
    let n = &model.nodes[node as usize];
    let mut kinds: Vec<&str> = n.prims.iter().map(|&p| model.prims[p as usize].shape.kind().name()).collect();
    kinds.sort_unstable();
    kinds.dedup_by_key(|k| *k);
    let counts: Vec<String> = kinds
        .iter()
        .map(|k| {
            let count = n.prims.iter().filter(|&&p| model.prims[p as usize].shape.kind().name() == *k).count();
            format!("{count} {k}")
        })
        .collect();
    let prims = if counts.is_empty() { String::new() } else { format!(": {}", counts.join(", ")) };
    say!("{}group '{}' [{}]{prims}", "  ".repeat(depth), n.name, bv_name(&n.bv));
    for &c in &n.children {
        tree(model, c, depth + 1);
    }
}

fn bv_name(bv: &Option<Bv>) -> &'static str {
    match bv {
        None => "empty",
        Some(Bv::Aabb { .. }) => "aabb",
        Some(Bv::Sphere { .. }) => "sphere",
        Some(Bv::Obb { .. }) => "obb",
        Some(Bv::Everything) => "unbounded",
    }
}

/// The model as JSON: sets, bodies (home pose, groups, primitives by name and type with their
/// set and bounding sphere in the body frame).
pub(crate) fn describe(model: &Model) -> Value {
    let sets: Vec<Value> = model.params.iter().map(set).collect();
    let bodies: Vec<Value> = model
        .bodies
        .iter()
        .map(|b| {
            let q = tumble_math::quat_from_matrix(&b.home.R);
            let mut groups = Vec::new();
            collect(model, b.root, &mut groups);
            json!({
                "name": b.name,
                "position": [b.home.p.x, b.home.p.y, b.home.p.z],
                "orientation": [q.w, q.i, q.j, q.k],
                "groups": groups,
            })
        })
        .collect();
    json!({ "name": model.name, "sets": sets, "bodies": bodies })
}

fn collect(model: &Model, node: u32, out: &mut Vec<Value>) {
    let n: &Node = &model.nodes[node as usize];
    let prims: Vec<Value> = n
        .prims
        .iter()
        .map(|&p| {
            let p = &model.prims[p as usize];
            let c = p.bound.0;
            json!({
                "name": p.name,
                "type": p.shape.kind().name(),
                "set": model.params[p.params as usize].name,
                "center": [c.x, c.y, c.z],
                "reach": if p.bound.1.is_finite() { json!(p.bound.1) } else { Value::Null },
            })
        })
        .collect();
    let children: Vec<&str> = n.children.iter().map(|&c| model.nodes[c as usize].name.as_str()).collect();
    out.push(json!({ "name": n.name, "bv": bv_name(&n.bv), "children": children, "primitives": prims }));
    for &c in &n.children {
        collect(model, c, out);
    }
}

fn set(p: &tumble_contact::interference::ContactParams) -> Value {
    let law = |l: &Option<tumble_contact::laws::ContactLaw>| match l {
        None => Value::Null,
        Some(l) => {
            let mut v = match l.stiffness {
                Stiffness::Power { k, p } => json!({ "k": k, "p": p }),
                ref other => json!({ "stiffness": format!("{other:?}") }),
            };
            match l.damping {
                Damping::None => {}
                Damping::Power { c, .. } => v["c"] = json!(c),
                Damping::HuntCrossley { alpha } => v["alpha"] = json!(alpha),
                Damping::Flores { e } => v["restitution"] = json!(e),
                ref other => v["damping"] = json!(format!("{other:?}")),
            }
            v
        }
    };
    let friction = match &p.friction {
        Friction::None => json!({ "model": "none" }),
        Friction::Coulomb { mu, v_star } => json!({ "model": "coulomb", "mu": mu, "v_star": v_star }),
        Friction::Bristle(b) => json!({
            "model": "bristle", "mu": b.mu, "mu_static": b.mu_static, "stiffness": b.stiffness, "damping": b.damping,
        }),
    };
    json!({
        "name": p.name,
        "law": law(&p.law),
        "volume_law": law(&p.volume_law),
        "friction": friction,
        "priority": p.priority,
        "wire": p.wire.map_or(Value::Null, |w| json!({
            "slack_ratio": w.slack_ratio, "axial_stiffness": w.axial_stiffness, "yield_load": w.yield_load, "damping": w.damping,
        })),
    })
}
