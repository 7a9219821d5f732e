//! Sphere–polyhedron: minimum translational distance. With the centre outside, `δ = r − |c − q|`
//! for the closest point `q` of the polyhedron, along `c − q`; with the centre inside, the
//! sphere leaves through the nearest face: `δ = r + (offset_f − n_f · c)` along `n_f`. The
//! point is midway between the two deepest points.

use super::{Contact, Contacts, Frame, Scratch};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Sphere { center, radius }, Primitive::Polyhedron(p)) = (a, b) else { return };
    let c = X_AB.inv_point(center);
    let (f, s) = p.nearest_face(&c);
    if s > *radius {
        return;
    }
    let (u, dist) = if s <= 0.0 {
        (p.normals[f], s)
    } else {
        let (q, dist) = p.closest_point(&c);
        if dist >= *radius || dist == 0.0 {
            return;
        }
        ((c - q) / dist, dist)
    };
    let x = c - u * (0.5 * (radius + dist));
    out.push(Contact::depth(X_AB.point(&x), -X_AB.vector(&u), radius - dist, 0));
}
