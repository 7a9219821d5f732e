//! Segment–sphere: `δ = r − |c − q|` for the segment's point `q` closest to the centre, along
//! `q → c`, midway between `q` and the sphere's deepest point. A centre on the segment takes
//! any direction perpendicular to it.

use super::{Contact, Contacts, Frame, Scratch};
use tumble_geometry::primitive::Primitive;
use tumble_math::Vec3;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Segment { a: s0, b: s1 }, Primitive::Sphere { center, radius }) = (a, b) else { return };
    let c = X_AB.point(center);
    let e = s1 - s0;
    let t = if e.norm_squared() > 0.0 { ((c - s0).dot(&e) / e.norm_squared()).clamp(0.0, 1.0) } else { 0.0 };
    let q = s0 + e * t;
    let d = c - q;
    let dist = d.norm();
    if dist >= *radius {
        return;
    }
    let n = if dist > 0.0 {
        d / dist
    } else {
        let k = if e.x.abs() < 0.6 * e.norm() { Vec3::x() } else { Vec3::y() };
        e.cross(&k).normalize()
    };
    out.push(Contact::depth(q + n * (0.5 * (dist - radius)), n, radius - dist, 0));
}
