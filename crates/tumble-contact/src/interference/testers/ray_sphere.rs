//! Ray–sphere (plunger): the ray enters the ball at `t_hit = b − √(b² − (|o − c|² − r²))`,
//! `b = d · (c − o)`; travel `δ = L − t_hit` along the ray. A base inside the ball gives none.

use super::{Contacts, Frame, Scratch, plunger};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Ray { origin, direction, length }, Primitive::Sphere { center, radius }) = (a, b) else { return };
    let oc = X_AB.point(center) - origin;
    let c = oc.norm_squared() - radius * radius;
    if c <= 0.0 {
        return;
    }
    let bb = direction.dot(&oc);
    let disc = bb * bb - c;
    if bb <= 0.0 || disc <= 0.0 {
        return;
    }
    let t_hit = bb - disc.sqrt();
    if t_hit < *length {
        let m = (origin + direction * t_hit - X_AB.point(center)) / *radius;
        plunger(out, origin, direction, *length, t_hit, &m);
    }
}
