//! Point–ellipsoid: depth of the point below the ellipsoid's surface (distance to the nearest
//! surface point), along the surface normal there — the expanding polytope on the support
//! mappings, polished by Newton steps (`epa.rs`).

use super::{Contacts, Frame, Scratch, epa};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, scratch: &mut Scratch) {
    if let (Primitive::Point(_), Primitive::Ellipsoid { .. }) = (a, b) {
        epa::test(a, b, X_AB, out, scratch);
    }
}
