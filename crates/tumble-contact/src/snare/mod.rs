//! Snare wires (Abiko et al. 2012, the snare-wire document, §4).
//!
//! **Loose wire.** A wire of length `L` whose ends are fixed a distance `l < L` apart is pushed
//! at `s` (from one end, along the chord) by a grapple-fixture shaft. The penetration `δ` is the
//! deflection from first contact, measured from the chord: the loose wire offers the identified
//! law `F(δ)` (Table 4: `A δ² + B δ + C` at `s` = 40, 65, 90 mm) until it is pulled straight
//! into two segments from the ends to the shaft, at
//!
//! ```text
//! √(s² + Q²) + √((l − s)² + Q²) = L        (Q: the largest slack deflection)
//! ```
//!
//! (`L` = 180 mm, `l` = 175 mm, `s` = 90 mm give `Q` = 21.06 mm). Beyond `Q` the wire stretches:
//! with `ΔL(δ) = √(s² + δ²) + √((l − s)² + δ²) − L` and tension `T = EA ΔL/L`, the shaft feels
//! `T (δ/√(s² + δ²) + δ/√((l − s)² + δ²)) = T ∂ΔL/∂δ` on top of `F(Q)`: the force is continuous
//! at `Q` and derives from the potential `E(min(δ, Q)) + F(Q)(δ − Q)⁺ + EA ΔL⁺²/(2L)`.
//!
//! **Validity.** The identified law holds to `Q` (the document: "the phenomena after the point
//! Q will change due to the stretch of the total length of the wire"); the elastic stretch
//! beyond it holds while the tension stays below the wire's yield load `σ_y A`
//! ([`LooseWire::tension`], [`LooseWire::yield_load`]). Past it the steel deforms plastically
//! and then breaks (SUS-304 annealed: `σ_y` ≥ 205 MPa, `σ_u` ≥ 520 MPa; 362 N and 920 N for the
//! 1.5 mm wire), which this model does not follow: a simulation stops there and says so.

use crate::laws::{ContactLaw, Damping, Stiffness};

mod wire_law;
pub use wire_law::WireLaw;

/// A loose wire fixed at both ends.
#[derive(Clone, Debug)]
pub struct LooseWire {
    /// Wire length `L`, m.
    pub length: f64,
    /// Distance between the fixed ends `l`, m.
    pub span: f64,
    /// Contact position `s` from one end along the chord, m.
    pub position: f64,
    /// The law of the slack wire at this position, `F(δ)`.
    pub law: ContactLaw,
    /// Axial stiffness `EA` of the wire, N (SUS-304, 1.5 mm: 193 GPa × 1.77 mm² = 3.41e5 N).
    pub axial_stiffness: f64,
    /// Largest slack deflection `Q`, m.
    pub slack: f64,
    /// Tension at which the steel yields, `σ_y A`, N: the end of the model's validity.
    pub yield_load: f64,
}

/// `EA` of the document's SUS-304 wire, 1.5 mm diameter, N.
pub const SUS304_1_5MM_EA: f64 = 193e9 * SUS304_1_5MM_AREA;
/// Cross-section of a 1.5 mm wire, m².
const SUS304_1_5MM_AREA: f64 = std::f64::consts::PI * 0.75e-3 * 0.75e-3;
/// Yield load `σ_y A` of the 1.5 mm SUS-304 wire (annealed, 0.2 % proof stress ≥ 205 MPa), N.
pub const SUS304_1_5MM_YIELD: f64 = 205e6 * SUS304_1_5MM_AREA;

impl LooseWire {
    /// A wire with the given law; checks `0 < l < L`, `0 < s < l`, `EA > 0` and the law.
    pub fn new(length: f64, span: f64, position: f64, law: ContactLaw, axial_stiffness: f64) -> Result<Self, String> {
        if !(length.is_finite() && span > 0.0 && span < length) {
            return Err(format!(
                "a loose wire needs 0 < l < L (ends closer than the wire is long), got L = {length} m, l = {span} m"
            ));
        }
        if !(position > 0.0 && position < span) {
            return Err(format!("the contact position s must lie between the ends (0, {span}) m, got {position}"));
        }
        if !(axial_stiffness.is_finite() && axial_stiffness > 0.0) {
            return Err(format!("the axial stiffness EA must be positive (N), got {axial_stiffness}"));
        }
        law.validate()?;
        let slack = slack_deflection(length, span, position);
        Ok(Self { length, span, position, law, axial_stiffness, slack, yield_load: SUS304_1_5MM_YIELD })
    }

    /// The document's wire (Table 3: `L` = 180 mm, `l` = 175 mm, SUS-304 1.5 mm) at `s` (m),
    /// with Table 4's law for that position (linear in `s` between its rows at 40, 65 and
    /// 90 mm; beyond 90 mm by symmetry about the middle; clamped at 40 mm towards the ends),
    /// offset dropped, and linear damping `c` (N·s/m).
    pub fn table4(position: f64, damping: f64) -> Result<Self, String> {
        Self::new(0.180, 0.175, position, table4_law(position, damping), SUS304_1_5MM_EA)
    }
}

/// Table 4's law at `s` (m) along the document's 175 mm span (linear in `s` between its rows
/// at 40, 65 and 90 mm; beyond 90 mm by symmetry about the middle; clamped at 40 mm towards the
/// ends), offset dropped, with linear damping `c` (N·s/m).
pub fn table4_law(position: f64, damping: f64) -> ContactLaw {
    let span = 0.175;
    let s = if position > 0.090 { span - position } else { position }.clamp(0.040, 0.090);
    let rows = [(0.040, 719_880.0, -13.578), (0.065, 878_089.0, -1086.0), (0.090, 890_183.0, -1297.6)];
    let i = if s <= 0.065 { 0 } else { 1 };
    let w = (s - rows[i].0) / (rows[i + 1].0 - rows[i].0);
    let a = rows[i].1 + w * (rows[i + 1].1 - rows[i].1);
    let b = rows[i].2 + w * (rows[i + 1].2 - rows[i].2);
    ContactLaw {
        stiffness: Stiffness::Polynomial { a, b, c: 0.0, zero_offset: true },
        damping: if damping > 0.0 { Damping::Power { c: damping, g: 0.0, q: 1.0 } } else { Damping::None },
    }
}

impl LooseWire {
    /// Stretch `ΔL(δ)` of the straightened wire (negative while slack), m, and `∂ΔL/∂δ`.
    fn stretch(&self, delta: f64) -> (f64, f64) {
        let (a, b) = (self.position, self.span - self.position);
        let (ra, rb) = ((a * a + delta * delta).sqrt(), (b * b + delta * delta).sqrt());
        (ra + rb - self.length, delta / ra + delta / rb)
    }

    /// Axial tension `EA ΔL⁺ / L` of the straightened wire at penetration `delta` (m), N: zero
    /// while slack.
    pub fn tension(&self, delta: f64) -> f64 {
        if delta <= self.slack {
            return 0.0;
        }
        self.axial_stiffness * self.stretch(delta).0.max(0.0) / self.length
    }

    /// The penetration at which the tension reaches the yield load, m (bisection; the tension
    /// grows with `δ` beyond `Q`): the end of the model's validity.
    pub fn yield_penetration(&self) -> f64 {
        let (mut lo, mut hi) = (self.slack, self.slack + self.length);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if self.tension(mid) < self.yield_load { lo = mid } else { hi = mid }
        }
        0.5 * (lo + hi)
    }

    /// Force on the shaft at penetration `delta` (m) and rate `rate` (m/s, closing), N ≥ 0.
    pub fn force(&self, delta: f64, rate: f64, v0: f64) -> f64 {
        if delta <= 0.0 {
            return 0.0;
        }
        let slack = self.law.force(delta.min(self.slack), rate, v0);
        if delta <= self.slack {
            return slack;
        }
        slack + self.tension(delta) * self.stretch(delta).1
    }

    /// Potential energy at penetration `delta`, J.
    pub fn energy(&self, delta: f64) -> f64 {
        if delta <= self.slack {
            return self.law.energy(delta);
        }
        let dl = self.stretch(delta).0.max(0.0);
        self.law.energy(self.slack)
            + self.law.elastic(self.slack).max(0.0) * (delta - self.slack)
            + 0.5 * self.axial_stiffness * dl * dl / self.length
    }
}

/// `Q` with `√(s² + Q²) + √((l − s)² + Q²) = L` (bisection; the left side grows with `Q`).
pub fn slack_deflection(length: f64, span: f64, position: f64) -> f64 {
    let f = |q: f64| (position * position + q * q).sqrt() + ((span - position).powi(2) + q * q).sqrt() - length;
    let (mut lo, mut hi) = (0.0, length);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < 0.0 { lo = mid } else { hi = mid }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slack_deflection_follows_from_the_geometry_and_the_force_is_continuous() {
        let w = LooseWire::table4(0.090, 0.0).expect("wire");
        // The two straight segments are exactly L long at Q.
        let q = w.slack;
        let total = (0.09f64.powi(2) + q * q).sqrt() + (0.085f64.powi(2) + q * q).sqrt();
        assert!((total - 0.180).abs() < 1e-15 && (q - 0.021057).abs() < 1e-6, "Q = {q}");
        // Symmetric pushes at midspan: 2√((l/2)² + Q²) = L.
        let mid = slack_deflection(0.18, 0.175, 0.0875);
        assert!((mid - (0.09f64.powi(2) - 0.0875f64.powi(2)).sqrt()).abs() < 1e-15);
        // Continuous at Q, and far stiffer beyond (the steel stretches).
        let (below, above) = (w.force(q * (1.0 - 1e-9), 0.0, 0.0), w.force(q * (1.0 + 1e-9), 0.0, 0.0));
        assert!((above - below).abs() < 1e-4 * below, "{below} → {above}");
        let slope_slack = (w.force(q, 0.0, 0.0) - w.force(0.99 * q, 0.0, 0.0)) / (0.01 * q);
        let slope_taut = (w.force(1.01 * q, 0.0, 0.0) - w.force(q, 0.0, 0.0)) / (0.01 * q);
        assert!(slope_taut > 10.0 * slope_slack, "{slope_slack} vs {slope_taut}");
        // The force is the derivative of the energy, on both sides of Q.
        for d in [0.3 * q, 0.9 * q, 1.002 * q, 1.01 * q] {
            let h = 1e-9;
            let num = (w.energy(d + h) - w.energy(d - h)) / (2.0 * h);
            assert!((num - w.force(d, 0.0, 0.0)).abs() < 1e-5 * w.force(d, 0.0, 0.0).max(1.0), "δ = {d}: {num}");
        }
        // Tension: none while slack, EA ΔL/L beyond; the yield load (205 MPa × 1.77 mm²) is
        // reached 0.4 mm past Q (ΔL = 362 N × 0.18 m / 3.41e5 N over ∂ΔL/∂δ ≈ 0.46).
        assert_eq!(w.tension(q), 0.0);
        assert!((w.yield_load - 362.3).abs() < 0.1, "{}", w.yield_load);
        let y = w.yield_penetration();
        assert!(
            (w.tension(y) - w.yield_load).abs() < 1e-6 * w.yield_load && (y - q - 4.1e-4).abs() < 0.3e-4,
            "{}",
            y - q
        );
        // Table 4 at its rows, and symmetry about the middle.
        let w40 = LooseWire::table4(0.040, 0.0).expect("wire");
        let row = ContactLaw::snare_wire_table4(40).expect("row");
        assert!([0.002, 0.01, 0.02].iter().all(|d| w40.law.elastic(*d) == row.elastic(*d)));
        let w135 = LooseWire::table4(0.135, 0.0).expect("wire");
        assert_eq!(w135.law, w40.law);
    }

    #[test]
    fn the_snare_closes_on_a_centred_shaft_at_the_predicted_angle() {
        let snare = ThreeWireSnare::new(0.1, 0.0125, ContactLaw::spring_dashpot(2e4, 0.0)).expect("snare");
        let at = snare.closing_angle_at_contact();
        // Just before: no wire touches; just after: all three, equally, and the forces cancel.
        let (f, pen) = snare.force([0.0, 0.0], [0.0, 0.0], at - 1e-6, 0.0);
        assert!(pen.iter().all(|p| *p == 0.0) && f == [0.0, 0.0]);
        let (f, pen) = snare.force([0.0, 0.0], [0.0, 0.0], at + 1e-3, 0.0);
        assert!(pen.iter().all(|p| *p > 0.0 && (p - pen[0]).abs() < 1e-15), "{pen:?}");
        assert!(f[0].hypot(f[1]) < 1e-9 * 2e4 * pen[0], "{f:?}");
        // Off-centre, the nearest wire pushes the shaft back toward the centre.
        let (f, _) = snare.force([0.0, -0.05], [0.0, 0.0], 2.0, 0.0);
        assert!(f[1] > 0.0, "{f:?}");
        assert!(snare.encloses([0.0, 0.0], 2.5) && !snare.encloses([0.0, 0.09], 2.5));
        // Capture verdicts: held by three wires; touched by none yet; closed beside the shaft.
        let verdict = |c: [f64; 2], delta: f64| snare.holds(c, delta, &snare.force(c, [0.0; 2], delta, 0.0).1);
        assert!(verdict([0.0, 0.0], at + 1e-3).is_ok());
        assert!(verdict([0.0, 0.0], at - 1e-3).expect_err("untouched").contains("only 0 of 3"));
        assert!(verdict([0.0, 0.09], 3.0).expect_err("outside").contains("without enclosing"));
        let (_, pen) = snare.force([0.0, 0.0], [0.0; 2], at + 1e-3, 0.0);
        assert!((snare.wire_load(&pen) - 3.0 * snare.law.force(pen[0], 0.0, 0.0)).abs() < 1e-12);
        assert!(ThreeWireSnare::new(0.01, 0.02, ContactLaw::spring_dashpot(1.0, 0.0)).is_err());
    }

    #[test]
    fn impossible_wires_are_refused() {
        let law = ContactLaw::spring_dashpot(1e4, 0.0);
        for (l_total, span, s, ea, why) in [
            (0.175, 0.175, 0.09, 1e5, "0 < l < L"),
            (0.18, 0.19, 0.09, 1e5, "0 < l < L"),
            (0.18, 0.175, 0.2, 1e5, "between the ends"),
            (0.18, 0.175, 0.09, -1.0, "EA must be positive"),
        ] {
            let e = LooseWire::new(l_total, span, s, law.clone(), ea).expect_err(why);
            assert!(e.contains(why), "{why}: {e}");
        }
        let e = LooseWire::new(0.18, 0.175, 0.09, ContactLaw::spring_dashpot(-5.0, 0.0), 1e5).expect_err("k < 0");
        assert!(e.contains("k must be >= 0"), "{e}");
    }
}

/// A three-wire snare (LEE-like), in the plane of its ring: wire `i` runs as a chord of the
/// ring (radius `R`) from the fixed anchor at angle `aᵢ = 2πi/3` to the rotating anchor at
/// `aᵢ + Δ`. Its line is `nᵢ·x = d` with `nᵢ = (cos(aᵢ + Δ/2), sin(aᵢ + Δ/2))` and
/// `d = R cos(Δ/2)`; the three lines bound an equilateral triangle of inradius `d`. Closing the
/// snare (growing `Δ` from `Δ₀` towards π) shrinks the triangle around the grapple shaft
/// (radius `r`). A wire touches the shaft (centre `c`) when its line comes within `r` of `c`:
/// from inside, penetration `δ = nᵢ·c + r − d`, pushing along `−nᵢ` (towards the centre); from
/// outside (`nᵢ·c > d`), `δ = d + r − nᵢ·c`, pushing along `+nᵢ`.
#[derive(Clone, Debug)]
pub struct ThreeWireSnare {
    /// Ring radius `R`, m.
    pub ring_radius: f64,
    /// Grapple shaft radius `r`, m.
    pub shaft_radius: f64,
    /// Law of each taut wire against the shaft.
    pub law: ContactLaw,
}

impl ThreeWireSnare {
    /// Checks `0 < r < R` and the law.
    pub fn new(ring_radius: f64, shaft_radius: f64, law: ContactLaw) -> Result<Self, String> {
        if !(shaft_radius > 0.0 && ring_radius > shaft_radius && ring_radius.is_finite()) {
            return Err(format!(
                "a snare needs 0 < shaft radius < ring radius, got r = {shaft_radius} m, R = {ring_radius} m"
            ));
        }
        law.validate()?;
        Ok(Self { ring_radius, shaft_radius, law })
    }

    /// The wires' unit normals and the lines' distance `d` from the ring centre at closing
    /// angle `delta`.
    pub fn lines(&self, delta: f64) -> ([[f64; 2]; 3], f64) {
        // The three normals are one unit vector at Δ/2 turned by 0, 120 and 240 degrees.
        let (s, c) = (0.5 * delta).sin_cos();
        let (s3, c3) = (0.75f64.sqrt(), -0.5);
        let n = [[c, s], [c * c3 - s * s3, s * c3 + c * s3], [c * c3 + s * s3, s * c3 - c * s3]];
        (n, self.ring_radius * c)
    }

    /// The closing angle at which the triangle's inradius equals the shaft radius (a centred
    /// shaft is then touched by all three wires).
    pub fn closing_angle_at_contact(&self) -> f64 {
        2.0 * (self.shaft_radius / self.ring_radius).acos()
    }

    /// The force on the shaft (N, ring plane) at centre `c` and velocity `v` with the snare at
    /// closing angle `delta` closing at `delta_rate` (rad/s), and the penetration of each wire.
    pub fn force(&self, c: [f64; 2], v: [f64; 2], delta: f64, delta_rate: f64) -> ([f64; 2], [f64; 3]) {
        let (normals, d) = self.lines(delta);
        // The lines move inward at ḋ = −R sin(Δ/2) Δ̇/2 and turn with Δ̇/2.
        let d_rate = -0.5 * self.ring_radius * (0.5 * delta).sin() * delta_rate;
        let mut f = [0.0; 2];
        let mut pen = [0.0; 3];
        for (i, n) in normals.iter().enumerate() {
            let nc = n[0] * c[0] + n[1] * c[1];
            // n rotates at Δ̇/2: d(n·c)/dt = n·v + (Δ̇/2) t·c with t = (−n_y, n_x).
            let nc_rate = n[0] * v[0] + n[1] * v[1] + 0.5 * delta_rate * (-n[1] * c[0] + n[0] * c[1]);
            let (delta_i, rate, sign) = if nc <= d {
                (nc + self.shaft_radius - d, nc_rate - d_rate, -1.0)
            } else {
                (d + self.shaft_radius - nc, d_rate - nc_rate, 1.0)
            };
            if delta_i > 0.0 {
                let mag = self.law.force(delta_i, rate, 0.0);
                f[0] += sign * mag * n[0];
                f[1] += sign * mag * n[1];
                pen[i] = delta_i;
            }
        }
        (f, pen)
    }

    /// Whether the shaft centre lies inside the wires' triangle.
    pub fn encloses(&self, c: [f64; 2], delta: f64) -> bool {
        let (normals, d) = self.lines(delta);
        normals.iter().all(|n| n[0] * c[0] + n[1] * c[1] < d)
    }

    /// The wires' total elastic force on the shaft at penetrations `pen` (as [`Self::force`]
    /// reports them), N: what the closing motor works against.
    pub fn wire_load(&self, pen: &[f64; 3]) -> f64 {
        pen.iter().filter(|p| **p > 0.0).map(|p| self.law.force(*p, 0.0, 0.0)).sum()
    }

    /// Whether the shaft at `c`, with penetrations `pen`, is captured when the closing stops
    /// at `delta`: enclosed by the triangle and held by all three wires; otherwise why not.
    pub fn holds(&self, c: [f64; 2], delta: f64, pen: &[f64; 3]) -> Result<(), String> {
        let touching = pen.iter().filter(|p| **p > 0.0).count();
        if !self.encloses(c, delta) {
            Err(format!(
                "the wires closed without enclosing the shaft (it ended {:.1} mm from the centre)",
                1e3 * c[0].hypot(c[1])
            ))
        } else if touching < 3 {
            Err(format!("only {touching} of 3 wires hold the shaft when the closing stopped"))
        } else {
            Ok(())
        }
    }
}
