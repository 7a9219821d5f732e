//! Segment–polyhedron: minimum translational distance by separating axes — the face normals
//! and the normalised cross products of the segment with each edge direction (one edge of each
//! set of parallel edges, `ConvexPolyhedron::edge_axes`; Gottschalk et al. 1996). On axis `u`
//! the overlap is `min(h_P(u) − min_s u·x, max_s u·x + h_P(−u))`; the smallest over all axes is
//! the depth, and a positive gap on any axis means no contact.
//!
//! Contact points: when a face normal wins, the segment is clipped to the polyhedron
//! (Cyrus–Beck) and each end of the inside part is a contact with its depth below that face —
//! a rail lying in a slot is carried at both ends; when an edge axis wins, one contact midway
//! between the closest points of the segment and the edge of that direction furthest towards
//! the segment (the crossed one: a box's or a prism's parallel edges share the axis).

use super::{Contact, Contacts, Frame, Scratch};
use tumble_geometry::convex::ConvexPolyhedron;
use tumble_geometry::primitive::Primitive;
use tumble_math::Vec3;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Segment { a: s0, b: s1 }, Primitive::Polyhedron(p)) = (a, b) else { return };
    let (p0, p1) = (X_AB.inv_point(s0), X_AB.inv_point(s1));
    let Some((axis, overlap, edge)) = min_overlap(p, &p0, &p1) else { return };
    // `axis` points the way the segment must move out of the polyhedron.
    let normal = -X_AB.vector(&axis);
    match edge {
        None => {
            let Some((t0, t1)) = clip(p, &p0, &p1) else { return };
            let lift = axis.dot(&p.vertices[p.support(&axis).1]);
            for (k, t) in [t0, t1].into_iter().enumerate() {
                let x = p0 + (p1 - p0) * t;
                let d = (lift - axis.dot(&x)).min(overlap);
                if d > 0.0 {
                    out.push(Contact::depth(X_AB.point(&x), normal, d, k as u8));
                }
            }
        }
        Some(e) => {
            let e = deepest_parallel(p, e, &axis);
            let (e0, e1) = (p.vertices[p.edges[e][0] as usize], p.vertices[p.edges[e][1] as usize]);
            let (x, y) = closest_between_segments(&p0, &p1, &e0, &e1);
            out.push(Contact::depth(X_AB.point(&(0.5 * (x + y))), normal, overlap, 0));
        }
    }
}

/// The separating axis of least overlap: `(u, overlap, Some(edge) for an edge axis)`, `u`
/// oriented so that moving the segment along `+u` separates it; `None` when separated.
fn min_overlap(p: &ConvexPolyhedron, p0: &Vec3, p1: &Vec3) -> Option<(Vec3, f64, Option<usize>)> {
    let mut best: Option<(Vec3, f64, Option<usize>)> = None;
    let mut consider = |u: Vec3, edge: Option<usize>| -> bool {
        let (pmin, pmax) = p.extent(&u);
        let (s0, s1) = (u.dot(p0), u.dot(p1));
        let (smin, smax) = (s0.min(s1), s0.max(s1));
        if smax <= pmin || smin >= pmax {
            return false;
        }
        let (up, down) = (pmax - smin, smax - pmin);
        let (d, dir) = if up <= down { (up, u) } else { (down, -u) };
        if best.is_none_or(|b| d < b.1) {
            best = Some((dir, d, edge));
        }
        true
    };
    for n in &p.normals {
        if !consider(*n, None) {
            return None;
        }
    }
    let s = p1 - p0;
    for &k in &p.edge_axes {
        let e = p.edges[k as usize];
        let c = s.cross(&(p.vertices[e[1] as usize] - p.vertices[e[0] as usize]));
        let len = c.norm();
        if len > 1e-9 * s.norm() * p.radius && !consider(c / len, Some(k as usize)) {
            return None;
        }
    }
    best
}

/// Of the edges parallel to edge `e` (which share its axis), the one furthest along `u`, the
/// polyhedron's side facing the segment: the contact lies there, not at whichever of them the
/// axes were tried with first (a prism's or a box's edges come in parallel sets).
fn deepest_parallel(p: &ConvexPolyhedron, e: usize, u: &Vec3) -> usize {
    let ends = |k: usize| (p.vertices[p.edges[k][0] as usize], p.vertices[p.edges[k][1] as usize]);
    let (a, b) = ends(e);
    let d = b - a;
    let mut best = (u.dot(&(a + b)), e);
    for k in 0..p.edges.len() {
        let (a, b) = ends(k);
        let c = b - a;
        let along = u.dot(&(a + b));
        if along > best.0 && c.cross(&d).norm() <= 1e-9 * c.norm() * d.norm() {
            best = (along, k);
        }
    }
    best.1
}

/// Parameters `[t0, t1] ⊂ [0, 1]` of the part of `p0 + t (p1 − p0)` inside the polyhedron.
fn clip(p: &ConvexPolyhedron, p0: &Vec3, p1: &Vec3) -> Option<(f64, f64)> {
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    let s = p1 - p0;
    for (n, d) in p.normals.iter().zip(&p.offsets) {
        let (num, den) = (d - n.dot(p0), n.dot(&s));
        if den == 0.0 {
            if num < 0.0 {
                return None;
            }
        } else if den > 0.0 {
            t1 = t1.min(num / den);
        } else {
            t0 = t0.max(num / den);
        }
        if t0 > t1 {
            return None;
        }
    }
    Some((t0, t1))
}

/// Closest points of segments `p0–p1` and `q0–q1` (Ericson §5.1.9).
fn closest_between_segments(p0: &Vec3, p1: &Vec3, q0: &Vec3, q1: &Vec3) -> (Vec3, Vec3) {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.dot(&d1), d2.dot(&d2), d2.dot(&r));
    let c = d1.dot(&r);
    let b = d1.dot(&d2);
    let denom = a * e - b * b;
    let mut s = if denom > 1e-300 { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (p0 + d1 * s, q0 + d2 * t)
}
