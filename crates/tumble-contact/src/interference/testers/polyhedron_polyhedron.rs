//! Polyhedron–polyhedron (volumetric): the intersection of two convex polyhedra. Each face of A
//! is clipped by every face plane of B (the part of `∂A` inside B), each face of B by every
//! plane of A; together they bound `I = A ∩ B`. Volume, centroid and the rate kernel follow
//! from [`super::volume`]; the normal is the area vector of `∂A ∩ B`, which points from A
//! into B.

use super::volume::{VolumeAcc, clip_polygon};
use super::{Contacts, Frame, Scratch};
use tumble_geometry::convex::ConvexPolyhedron;
use tumble_geometry::primitive::Primitive;
use tumble_math::Vec3;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, scratch: &mut Scratch) {
    let (Primitive::Polyhedron(pa), Primitive::Polyhedron(pb)) = (a, b) else { return };
    let Scratch { ring, ring2, verts, .. } = scratch;
    verts.clear();
    verts.extend(pb.vertices.iter().map(|v| X_AB.point(v)));
    // Quick separation on A's face normals (the common no-contact case ends here).
    for (n, d) in pa.normals.iter().zip(&pa.offsets) {
        if verts.iter().all(|v| n.dot(v) >= *d) {
            return;
        }
    }
    let plane_b = |f: usize| {
        let n = X_AB.vector(&pb.normals[f]);
        (n, pb.offsets[f] + n.dot(&X_AB.p))
    };
    let mut acc = VolumeAcc::new(pa.center);
    for f in 0..pa.face_count() {
        ring.clear();
        ring.extend(pa.face(f).iter().map(|&i| pa.vertices[i as usize]));
        for g in 0..pb.face_count() {
            let (n, d) = plane_b(g);
            clip_polygon(ring, &n, d, ring2);
            std::mem::swap(ring, ring2);
            if ring.is_empty() {
                break;
            }
        }
        acc.polygon(ring, 1.0);
    }
    for g in 0..pb.face_count() {
        ring.clear();
        ring.extend(pb.face(g).iter().map(|&i| verts[i as usize]));
        clip_by(pa, ring, ring2);
        acc.polygon(ring, 0.0);
    }
    if let Some(c) = acc.contact(&(X_AB.p - pa.center)) {
        out.push(c);
    }
}

/// Clips `ring` by every face plane of `p` (in place, `tmp` as the other buffer).
fn clip_by(p: &ConvexPolyhedron, ring: &mut Vec<Vec3>, tmp: &mut Vec<Vec3>) {
    for (n, d) in p.normals.iter().zip(&p.offsets) {
        clip_polygon(ring, n, *d, tmp);
        std::mem::swap(ring, tmp);
        if ring.is_empty() {
            return;
        }
    }
}
