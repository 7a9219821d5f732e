//! Point–sphere: depth `δ = r − |x − c|`, normal from the point towards the centre.

use super::{Contact, Contacts, FALLBACK_NORMAL, Frame, Scratch};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Point(x), Primitive::Sphere { center, radius }) = (a, b) else { return };
    let c = X_AB.point(center);
    let d = c - x;
    let dist = d.norm();
    if dist < *radius {
        let n = if dist > 0.0 { d / dist } else { FALLBACK_NORMAL };
        out.push(Contact::depth(*x, n, radius - dist, 0));
    }
}
