//! Point–plane: depth `δ = d − n · x` of the point below the plane, at the point.

use super::{Contact, Contacts, Frame, Scratch, plane_in};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Point(x), Primitive::Plane { point, normal }) = (a, b) else { return };
    let (n, d) = plane_in(point, normal, X_AB);
    let delta = d - n.dot(x);
    if delta > 0.0 {
        out.push(Contact::depth(*x, -n, delta, 0));
    }
}
