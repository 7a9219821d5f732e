//! Plane–ellipsoid: the ellipsoid's lowest point below the plane `n·x = d` is
//! `s = c − Mn/√(nᵀMn)` (`M = R diag(r²) Rᵀ`), depth `δ = d − n·s = d − n·c + √(nᵀMn)`, along the
//! plane's normal, at the midpoint of `s` and its projection on the plane.

use super::{Contact, Contacts, Frame, Scratch};
use tumble_geometry::primitive::Primitive;
use tumble_math::Mat3;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Plane { point, normal }, Primitive::Ellipsoid { center, rotation, radii }) = (a, b) else {
        return;
    };
    // The plane's normal in the ellipsoid's principal frame.
    let u = (X_AB.R * rotation).tr_mul(normal);
    let m_u = Mat3::from_diagonal(&radii.component_mul(radii)) * u;
    let reach = u.dot(&m_u).sqrt();
    let c = X_AB.point(center);
    let delta = normal.dot(&(point - c)) + reach;
    if delta > 0.0 {
        let s = c - X_AB.R * rotation * m_u / reach;
        out.push(Contact::depth(s + normal * (0.5 * delta), *normal, delta, 0));
    }
}
