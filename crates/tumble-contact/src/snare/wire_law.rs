//! The snare document's identified wire as a contact law: a wire between two anchors, pushed
//! sideways by a shaft, slack (Table 4's `F(δ) = A δ² + B δ` at the push's position) until it
//! is pulled straight at its geometric limit `Q`, then stretching (`EA ΔL/L`); the
//! [`LooseWire`] of the identified wire at whatever span its anchors have.
//!
//! The interference engine uses it for the segment primitives of a contact set with `wire`:
//! the segment is the wire's line, its anchors `span` apart and centred on the segment's
//! midpoint (the segment's own length unless the engine is told the span,
//! `Engine::set_wire_span`), and the push's position `s` is the contact point's along it.
//!
//! **Scaling to another span** (an assumption: the document identified one wire, `L` = 180 mm
//! over `l` = 175 mm): the wire is `slack_ratio` longer than its span (`L = l (1 + ρ)`, the
//! document's `ρ` = 5/175), so `Q` scales with the span; Table 4's coefficients are taken at
//! the equivalent position `s · 175 mm / l` unchanged (the same wire, its slack law per unit of
//! deflection). `Q` is the point at `s` on the ellipse whose foci are the anchors and whose
//! major axis is `L`: with `x = s − l/2`, `a = L/2`, `b² = a² − l²/4`,
//! `Q = b √(1 − x²/a²)` (exact; [`super::slack_deflection`] bisects the same equation).

use super::{LooseWire, SUS304_1_5MM_EA, SUS304_1_5MM_YIELD, table4_law};

/// The identified wire's law at any span (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WireLaw {
    /// `ρ = L/l − 1`: how much longer than its span the wire is (the document's 5/175).
    pub slack_ratio: f64,
    /// Axial stiffness `EA`, N (the document's 1.5 mm SUS-304: 3.41e5 N).
    pub axial_stiffness: f64,
    /// Tension at which the steel yields, N (362 N): past it the model does not hold.
    pub yield_load: f64,
    /// Linear damping on the deflection rate, N·s/m.
    pub damping: f64,
}

impl Default for WireLaw {
    /// The document's wire (Table 3), undamped.
    fn default() -> Self {
        Self {
            slack_ratio: 5.0 / 175.0,
            axial_stiffness: SUS304_1_5MM_EA,
            yield_load: SUS304_1_5MM_YIELD,
            damping: 0.0,
        }
    }
}

impl WireLaw {
    /// Checks every parameter positive and finite (damping may be zero).
    pub fn validate(&self) -> Result<(), String> {
        for (name, x) in [
            ("slack_ratio", self.slack_ratio),
            ("axial_stiffness", self.axial_stiffness),
            ("yield_load", self.yield_load),
        ] {
            if !(x.is_finite() && x > 0.0) {
                return Err(format!("wire {name} must be positive and finite, got {x}"));
            }
        }
        if !(self.damping.is_finite() && self.damping >= 0.0) {
            return Err(format!("wire damping must be >= 0 (N·s/m), got {}", self.damping));
        }
        Ok(())
    }

    /// The wire with anchors `span` m apart pushed at `position` m from one of them (kept
    /// within the span's inner 99.8 %: the wire ends at its anchors).
    pub fn wire(&self, span: f64, position: f64) -> LooseWire {
        let length = span * (1.0 + self.slack_ratio);
        let s = position.clamp(1e-3 * span, (1.0 - 1e-3) * span);
        let (a, x) = (0.5 * length, s - 0.5 * span);
        let b2 = a * a - 0.25 * span * span;
        let slack = (b2 * (1.0 - x * x / (a * a))).max(0.0).sqrt();
        LooseWire {
            length,
            span,
            position: s,
            law: table4_law(s * (0.175 / span), self.damping),
            axial_stiffness: self.axial_stiffness,
            slack,
            yield_load: self.yield_load,
        }
    }

    /// Force on the shaft (N ≥ 0) at deflection `delta` (m), rate `rate` (m/s, closing) and
    /// first-contact rate `v0`, for the wire of `span` pushed at `position`.
    pub fn force(&self, span: f64, position: f64, delta: f64, rate: f64, v0: f64) -> f64 {
        self.wire(span, position).force(delta, rate, v0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documents_span_gives_the_documents_wire() {
        let law = WireLaw { damping: 30.0, ..WireLaw::default() };
        for s in [0.02, 0.04, 0.0875, 0.09, 0.13] {
            let (w, doc) = (law.wire(0.175, s), LooseWire::table4(s, 30.0).expect("wire"));
            // The closed-form Q against the bisection: rounding of b² = a² − l²/4 (a 5e-4 m
            // difference of 8e-3 m² squares) is ~1e-16 m² / 2Q.
            assert!((w.slack - doc.slack).abs() < 1e-13, "s = {s}: {} vs {}", w.slack, doc.slack);
            assert!((w.length - doc.length).abs() < 1e-16 && w.law == doc.law, "s = {s}");
            for d in [0.003, 0.5 * doc.slack, 1.001 * doc.slack] {
                let (f, g) = (w.force(d, 0.01, 0.0), doc.force(d, 0.01, 0.0));
                assert!((f - g).abs() < 1e-9 * g.max(1.0), "s = {s}, δ = {d}: {f} vs {g}");
            }
        }
    }

    #[test]
    fn the_limit_scales_with_the_span_and_the_wire_ends_at_its_anchors() {
        let law = WireLaw::default();
        let (short, long) = (law.wire(0.1, 0.03), law.wire(0.2, 0.06));
        assert!((long.slack - 2.0 * short.slack).abs() < 1e-15, "{} {}", short.slack, long.slack);
        // Straight at Q: the two segments from the anchors are exactly L.
        let q = long.slack;
        let total = (0.06f64.powi(2) + q * q).sqrt() + (0.14f64.powi(2) + q * q).sqrt();
        assert!((total - long.length).abs() < 1e-15, "{total}");
        // A push past an anchor is held at the anchor's inner edge, not outside the wire.
        assert_eq!(law.wire(0.2, -0.05).position, 2e-4);
        assert_eq!(law.wire(0.2, 0.3).position, 0.2 * (1.0 - 1e-3));
        assert!(WireLaw { slack_ratio: 0.0, ..law }.validate().is_err());
        assert!(WireLaw { damping: -1.0, ..law }.validate().is_err());
    }
}
