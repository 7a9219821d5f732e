//! Plane–polyhedron (volumetric): the part of the polyhedron below the plane. Its faces are
//! clipped by the plane; the volume and centroid come from tetrahedra on a reference point *in*
//! the plane (so the unknown cut polygon adds nothing), and the plane's share of the boundary —
//! the cut, area vector `A n` — is minus the sum over the clipped faces (closed surface).

use super::volume::{VolumeAcc, clip_polygon};
use super::{Contacts, Frame, Scratch};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, scratch: &mut Scratch) {
    let (Primitive::Plane { point, normal }, Primitive::Polyhedron(p)) = (a, b) else { return };
    // The plane in the polyhedron's frame B.
    let n = X_AB.inv_vector(normal);
    let d = n.dot(&X_AB.inv_point(point));
    if -p.support(&-n).0 >= d {
        return;
    }
    let r = p.center - n * (n.dot(&p.center) - d);
    let mut acc = VolumeAcc::new(r);
    let Scratch { ring, ring2, .. } = scratch;
    for f in 0..p.face_count() {
        ring.clear();
        ring.extend(p.face(f).iter().map(|&i| p.vertices[i as usize]));
        clip_polygon(ring, &n, d, ring2);
        acc.polygon(ring2, -1.0);
    }
    if let Some(c) = acc.contact(&n) {
        out.push(c.transformed(X_AB));
    }
}
