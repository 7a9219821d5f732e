//! Triangle–polyhedron: minimum translational distance of the triangle out of the polyhedron
//! (`epa.rs`; both shapes are polytopes, so the expanding polytope ends on an exact face of
//! the Minkowski difference), one contact midway between the two deepest points; one-sided
//! like sphere–triangle (`epa.rs`).

use super::{Contacts, Frame, Scratch, epa};
use tumble_geometry::primitive::Primitive;

pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, scratch: &mut Scratch) {
    if let (Primitive::Triangle(_), Primitive::Polyhedron(_)) = (a, b) {
        epa::test_triangle(a, b, X_AB, out, scratch);
    }
}
