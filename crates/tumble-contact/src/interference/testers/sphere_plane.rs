//! Sphere–plane: `δ = r − (n · c − d)`, at the midpoint of the sphere's deepest point and its
//! projection on the plane.

use super::{Contact, Contacts, Frame, Scratch};
use tumble_geometry::primitive::Primitive;

/// Plane first (table order), sphere second.
pub(super) fn test_reversed(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Plane { point, normal }, Primitive::Sphere { center, radius }) = (a, b) else { return };
    let c = X_AB.point(center);
    let h = normal.dot(&(c - point));
    let delta = radius - h;
    if delta > 0.0 {
        out.push(Contact::depth(c - normal * (0.5 * (radius + h)), *normal, delta, 0));
    }
}
