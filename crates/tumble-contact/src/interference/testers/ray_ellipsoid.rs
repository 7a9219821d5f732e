//! Ray–ellipsoid (plunger): in the ellipsoid's unit-ball coordinates `y = diag(1/r) Rᵀ (x − c)`
//! the ray `o + t d` is `y₀ + t e`; it enters at the smaller root of `|y₀ + t e|² = 1`, and the
//! outward normal there is `R diag(1/r) y`. Travel `δ = L − t_hit` along the ray. A base inside
//! the ellipsoid gives none.

use super::{Contacts, Frame, Scratch, plunger};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Ray { origin, direction, length }, Primitive::Ellipsoid { center, rotation, radii }) = (a, b)
    else {
        return;
    };
    let r = X_AB.R * rotation;
    let y0 = r.tr_mul(&(origin - X_AB.point(center))).component_div(radii);
    let e = r.tr_mul(direction).component_div(radii);
    let (qa, qb, qc) = (e.norm_squared(), y0.dot(&e), y0.norm_squared() - 1.0);
    if qc <= 0.0 || qb >= 0.0 {
        return;
    }
    let disc = qb * qb - qa * qc;
    if disc <= 0.0 {
        return;
    }
    let t_hit = (-qb - disc.sqrt()) / qa;
    if t_hit < *length {
        let m = (r * (y0 + e * t_hit).component_div(radii)).normalize();
        plunger(out, origin, direction, *length, t_hit, &m);
    }
}
