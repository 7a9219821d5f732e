//! Ellipsoid–ellipsoid: minimum translational distance (`epa.rs`, Newton-polished), one
//! contact midway between the two deepest points.

use super::{Contacts, Frame, Scratch, epa};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, scratch: &mut Scratch) {
    if let (Primitive::Ellipsoid { .. }, Primitive::Ellipsoid { .. }) = (a, b) {
        epa::test(a, b, X_AB, out, scratch);
    }
}
