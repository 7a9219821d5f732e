//! Ellipsoid–polyhedron (Pong's pair): minimum translational distance (`epa.rs`), one
//! contact midway between the ellipsoid's deepest point and the polyhedron's.

use super::{Contacts, Frame, Scratch, epa};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, scratch: &mut Scratch) {
    if let (Primitive::Ellipsoid { .. }, Primitive::Polyhedron(_)) = (a, b) {
        epa::test(a, b, X_AB, out, scratch);
    }
}
