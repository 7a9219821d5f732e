//! Ray–plane (plunger): the ray meets the plane from above at `t_hit = (d_p − n · o)/(n · d)`;
//! travel `δ = L − t_hit` along the ray.

use super::{Contacts, Frame, Scratch};
use tumble_geometry::primitive::Primitive;

/// Plane first (table order), ray second.
pub(super) fn test_reversed(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Plane { point, normal }, Primitive::Ray { origin, direction, length }) = (a, b) else { return };
    let (o, d) = (X_AB.point(origin), X_AB.vector(direction));
    let den = normal.dot(&d);
    let h = normal.dot(&(o - point));
    if den >= 0.0 || h < 0.0 {
        return;
    }
    let t_hit = -h / den;
    if t_hit < *length {
        // Computed with the ray as A in the plane's frame, then swapped to the plane's view.
        let mut tmp = Contacts::default();
        super::plunger(&mut tmp, &o, &d, *length, t_hit, normal);
        for c in tmp.as_slice() {
            out.push(c.swapped(&Frame::identity()));
        }
    }
}
