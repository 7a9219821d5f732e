//! Ray–polyhedron (plunger): the ray `o + t d` enters the polyhedron at `t_hit` through face
//! `f` (Cyrus–Beck); the plunger travel is `δ = L − t_hit` and the force acts along the ray.
//! A ray whose base is already inside gives no contact.

use super::{Contacts, Frame, Scratch, plunger};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Ray { origin, direction, length }, Primitive::Polyhedron(p)) = (a, b) else { return };
    let (o, d) = (X_AB.inv_point(origin), X_AB.inv_vector(direction));
    let (mut t_in, mut t_out, mut face) = (f64::NEG_INFINITY, f64::INFINITY, usize::MAX);
    for (f, (n, off)) in p.normals.iter().zip(&p.offsets).enumerate() {
        let (num, den) = (off - n.dot(&o), n.dot(&d));
        if den == 0.0 {
            if num < 0.0 {
                return;
            }
        } else if den < 0.0 {
            if num / den > t_in {
                (t_in, face) = (num / den, f);
            }
        } else {
            t_out = t_out.min(num / den);
        }
    }
    if face == usize::MAX || t_in < 0.0 || t_in > t_out || t_in >= *length {
        return;
    }
    plunger(out, origin, direction, *length, t_in, &X_AB.vector(&p.normals[face]));
}
