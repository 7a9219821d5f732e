//! Segment–plane: each end below the plane is a contact with its own depth, so a segment lying
//! on the plane is carried at both ends (and one crossing it at the end below).

use super::{Contact, Contacts, Frame, Scratch};
use tumble_geometry::primitive::Primitive;

/// Plane first (table order), segment second.
pub(super) fn test_reversed(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Plane { point, normal }, Primitive::Segment { a: s0, b: s1 }) = (a, b) else { return };
    // Work in the plane's frame A: the segment's ends move in.
    let d = normal.dot(point);
    for (k, end) in [s0, s1].into_iter().enumerate() {
        let x = X_AB.point(end);
        let delta = d - normal.dot(&x);
        if delta > 0.0 {
            out.push(Contact::depth(x, *normal, delta, k as u8));
        }
    }
}
