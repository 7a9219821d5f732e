//! Segment–triangle (one-sided): when the segment pierces the triangle from its front (the
//! crossing point lies inside the triangle), the end behind the plane is a contact with depth
//! its height below the plane, pushed out along the triangle's normal.

use super::{Contact, Contacts, Frame, Scratch};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Segment { a: s0, b: s1 }, Primitive::Triangle(t)) = (a, b) else { return };
    let (p0, p1) = (X_AB.inv_point(s0), X_AB.inv_point(s1));
    let n = (t[1] - t[0]).cross(&(t[2] - t[0])).normalize();
    let (h0, h1) = (n.dot(&(p0 - t[0])), n.dot(&(p1 - t[0])));
    if (h0 < 0.0) == (h1 < 0.0) {
        return;
    }
    let x = p0 + (p1 - p0) * (h0 / (h0 - h1));
    // Inside test by edge orientations about the normal.
    for k in 0..3 {
        let (e0, e1) = (t[k], t[(k + 1) % 3]);
        if (e1 - e0).cross(&(x - e0)).dot(&n) < 0.0 {
            return;
        }
    }
    let (end, h) = if h0 < 0.0 { (p0, h0) } else { (p1, h1) };
    out.push(Contact::depth(X_AB.point(&end), -X_AB.vector(&n), -h, 0));
}
