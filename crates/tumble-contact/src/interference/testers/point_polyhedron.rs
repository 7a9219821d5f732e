//! Point–polyhedron: a point inside is pushed out through the nearest face plane (the
//! minimum translational distance of a point): `δ = offset_f − n_f · x`, normal `−n_f` (the
//! polyhedron is pushed away from the point).

use super::{Contact, Contacts, Frame, Scratch};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Point(x), Primitive::Polyhedron(p)) = (a, b) else { return };
    let x_B = X_AB.inv_point(x);
    let (f, s) = p.nearest_face(&x_B);
    if s < 0.0 {
        out.push(Contact::depth(*x, -X_AB.vector(&p.normals[f]), -s, 0));
    }
}
