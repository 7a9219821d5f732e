//! Ellipsoid–triangle (Pong's pair; table order puts the triangle first): minimum translational
//! distance of the ellipsoid out of the triangle (`epa.rs`), one contact midway between
//! the two deepest points; one-sided like sphere–triangle (`epa.rs`).

use super::{Contacts, Frame, Scratch, epa};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, scratch: &mut Scratch) {
    if let (Primitive::Triangle(_), Primitive::Ellipsoid { .. }) = (a, b) {
        epa::test_triangle(a, b, X_AB, out, scratch);
    }
}
