//! Ray–triangle (plunger, one-sided): the ray hits the triangle's front at `t_hit`
//! (Möller–Trumbore); travel `δ = L − t_hit` along the ray.

use super::{Contacts, Frame, Scratch, plunger};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, _: &mut Scratch) {
    let (Primitive::Ray { origin, direction, length }, Primitive::Triangle(t)) = (a, b) else { return };
    let (o, d) = (X_AB.inv_point(origin), X_AB.inv_vector(direction));
    let (e1, e2) = (t[1] - t[0], t[2] - t[0]);
    let n = e1.cross(&e2);
    let det = -d.dot(&n);
    if det <= 0.0 {
        return; // parallel or from behind
    }
    let s = o - t[0];
    let t_hit = s.dot(&n) / det;
    let dxs = s.cross(&d);
    let (u, v) = (e2.dot(&dxs) / det, -e1.dot(&dxs) / det);
    if t_hit < 0.0 || t_hit >= *length || u < 0.0 || v < 0.0 || u + v > 1.0 {
        return;
    }
    plunger(out, origin, direction, *length, t_hit, &X_AB.vector(&n.normalize()));
}
