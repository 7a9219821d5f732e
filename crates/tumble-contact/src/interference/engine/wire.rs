//! A snare wire's contact: a segment of a contact set with `wire` against a target primitive.
//!
//! A slack wire pushed sideways by a shaft wraps it: it stays on the side it first touched
//! however far it is deflected, where a straight segment sinking into a convex shaft past the
//! shaft's centre would be pushed out through the other side (the testers' least-depth normal
//! flips there). So a wire keeps its side: the push direction `n` (from the wire into the
//! target, perpendicular to the wire) is the tester's normal at first contact, kept in the
//! wire's frame while the contact lasts; the deflection is how far the target reaches past the
//! wire's line against `n`, from its support function, `δ = h_B(−n) + n·a` (`a` a point of the
//! line); the force acts at the tester's point moved onto the line, at the position `s` there
//! along the wire ([`crate::snare::WireLaw`]). A target that has passed wholly through the line
//! (`δ ≤ 0`) leaves it.
//!
//! The support is the whole target primitive's: a wire's targets are slender (a shaft, a knob),
//! as a snare's are.

use super::super::contact::{Contact, Frame};
use crate::snare::WireLaw;
use tumble_geometry::primitive::Primitive;
use tumble_math::Vec3;

/// A wire segment and the target primitive it meets, in W.
pub(super) struct Wire<'a> {
    /// The law.
    pub law: &'a WireLaw,
    /// The segment's ends, W.
    pub ends: (Vec3, Vec3),
    /// The anchors' span when not the segment's length, m.
    pub span: Option<f64>,
    /// The wire's body frame.
    pub frame: Frame,
    /// The target primitive, in its body's frame, and that frame.
    pub target: (&'a Primitive, Frame),
    /// Whether the wire is the pair's A side (the contact normal runs A → B).
    pub is_a: bool,
}

impl Wire<'_> {
    /// The wire's contact from the tester's `c` (W), its side `side` (wire frame) if the
    /// contact was already on: the contact on the wire's line with its deflection, the side to
    /// keep, and the position along the wire (m from its first anchor) with the span; `None`
    /// when the target has passed through.
    pub fn contact(&self, c: &Contact, side: Option<Vec3>) -> Option<(Contact, Vec3, f64, f64)> {
        let (a, b) = self.ends;
        let length = (b - a).norm();
        let t = (b - a) / length;
        let first = if self.is_a { c.normal } else { -c.normal };
        let n0 = side.map_or(first, |s| self.frame.R * s);
        let n = n0 - t * t.dot(&n0);
        let norm = n.norm();
        if norm.is_nan() || norm <= 1e-9 {
            return None;
        }
        let n = n / norm;
        let (shape, X) = &self.target;
        let delta = shape.support(&(X.R.transpose() * -n)) - n.dot(&X.p) + n.dot(&a);
        if delta.is_nan() || delta <= 0.0 {
            return None;
        }
        let along = t.dot(&(c.point - a));
        let point = a + t * along;
        let normal = if self.is_a { n } else { -n };
        let span = self.span.unwrap_or(length);
        let s = 0.5 * span + (along - 0.5 * length);
        Some((Contact::depth(point, normal, delta, c.sub), self.frame.R.transpose() * n, s, span))
    }

    /// The wire's push (N ≥ 0) at deflection `delta`, position `s` on `span`, rate and
    /// first-contact rate.
    pub fn force(&self, span: f64, s: f64, delta: f64, rate: f64, v0: f64) -> f64 {
        self.law.force(span, s, delta, rate, v0)
    }
}
