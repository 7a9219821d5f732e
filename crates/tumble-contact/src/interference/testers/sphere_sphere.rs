//! Sphere–sphere: `δ = r_a + r_b − |c_b − c_a|`, along the line of centres, at the midpoint of
//! the two deepest points.

use super::{Contact, Contacts, FALLBACK_NORMAL, Frame, Scratch};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Sphere { center: ca, radius: ra }, Primitive::Sphere { center, radius: rb }) = (a, b) else {
        return;
    };
    let cb = X_AB.point(center);
    let d = cb - ca;
    let dist = d.norm();
    let delta = ra + rb - dist;
    if delta > 0.0 {
        let n = if dist > 0.0 { d / dist } else { FALLBACK_NORMAL };
        let x = 0.5 * ((ca + n * *ra) + (cb - n * *rb));
        out.push(Contact::depth(x, n, delta, 0));
    }
}
