//! Sphere–triangle (one-sided): with the centre in front of the triangle, `δ = r − |c − q|` for
//! the closest point `q`, along `c − q`; with the centre a height `h < r` behind it over its
//! interior (the sphere sank through the facet but still meets it), `δ = r + h` along the
//! normal. A centre behind the plane and outside the triangle's prism belongs to the
//! neighbouring triangles of the mesh: no contact; so does a sphere that passed wholly through.

use super::{Contact, Contacts, Frame, Scratch};
use tumble_geometry::closest::{Feature, closest_on_triangle};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Sphere { center, radius }, Primitive::Triangle(t)) = (a, b) else { return };
    let c = X_AB.inv_point(center);
    let n = (t[1] - t[0]).cross(&(t[2] - t[0])).normalize();
    let h = n.dot(&(c - t[0]));
    if h >= *radius {
        return;
    }
    let (q, feature) = closest_on_triangle(&c, t);
    let (u, dist) = if h > 0.0 {
        let dist = (c - q).norm();
        if dist >= *radius {
            return;
        }
        ((c - q) / dist, dist)
    } else if feature == Feature::Face && h > -radius {
        (n, h)
    } else {
        return;
    };
    let x = c - u * (0.5 * (radius + dist));
    out.push(Contact::depth(X_AB.point(&x), -X_AB.vector(&u), radius - dist, 0));
}
