//! Normal contact force laws and regularised Coulomb friction, shared by every contact model
//! (snare wires, the primitive engine).
//!
//! One family, the snare-wire document's eq. (3) (Abiko et al. 2012, after Gilardi & Sharf
//! 2002): `F_n = F_e(δ) + F_d(δ, δ̇)`, penetration `δ ≥ 0` (m), its rate `δ̇` (m/s, positive
//! closing), force in N, **never negative** (no pulling: a law that would pull returns 0).
//!
//! Elastic part [`Stiffness`]:
//! - `Power { k, p }`: `k δ^p` (linear `p = 1`, Hertz `p = 3/2` for spheres);
//! - `Polynomial { a, b, c, zero_offset }`: `A δ² + B δ + C`, the document's identified wire law
//!   (Table 4). A fitted offset `C ≠ 0` would push at `δ = 0`; `zero_offset = true` drops it so
//!   that `F(0) = 0`;
//! - `Table`: piecewise-linear `F(δ)` through points `(δᵢ, Fᵢ)` with `δ₀ = 0`, continued along
//!   the last segment.
//!
//! Damping part [`Damping`]:
//! - `Power { c, g, q }`: `c δ^g sign(δ̇)|δ̇|^q` — eq. (3) with `G(δ) = δ^g` (the linear
//!   spring–dashpot is `g = 0, q = 1`);
//! - `HuntCrossley { alpha }`: `α F_e δ̇` (Hunt & Crossley 1975: damping proportional to the
//!   elastic force, so the force is continuous at contact and separation);
//! - `HuntCrossleyRestitution { e }`: `α = 3(1 − e)/(2 v₀)` (Marhefka & Orin's reading, good for
//!   `e` near 1), `v₀` the approach speed at first contact;
//! - `Flores { e }`: `α = 8(1 − e)/(5 e v₀)` (Flores et al. 2011, valid over the whole range).
//!
//! For the Hunt–Crossley family the exact coefficient of restitution of a point mass is the root
//! `v_f` of `−v_f/α − ln(1 − α v_f)/α² = v₀/α − ln(1 + α v₀)/α²` (independent of `k` and `p`),
//! [`hunt_crossley_restitution`]; for the linear spring–dashpot with the non-adhesive clamp,
//! [`spring_dashpot_restitution`].

use tumble_math::Vec3;

/// The elastic part `F_e(δ)`.
#[derive(Clone, Debug, PartialEq)]
pub enum Stiffness {
    /// `k δ^p`.
    Power {
        /// Stiffness, N/m^p.
        k: f64,
        /// Exponent.
        p: f64,
    },
    /// `A δ² + B δ + C`.
    Polynomial {
        /// N/m².
        a: f64,
        /// N/m.
        b: f64,
        /// N.
        c: f64,
        /// Drop `C` so that `F(0) = 0`.
        zero_offset: bool,
    },
    /// Piecewise linear through `(δᵢ, Fᵢ)`.
    Table {
        /// Penetrations, m, ascending from 0.
        delta: Vec<f64>,
        /// Forces, N.
        force: Vec<f64>,
    },
}

/// The damping part `F_d(δ, δ̇)`.
#[derive(Clone, Debug, PartialEq)]
pub enum Damping {
    /// No damping.
    None,
    /// `c δ^g sign(δ̇)|δ̇|^q`.
    Power {
        /// Coefficient, N/(m^g (m/s)^q).
        c: f64,
        /// Exponent of the penetration (`G(δ) = δ^g`).
        g: f64,
        /// Exponent of the rate.
        q: f64,
    },
    /// `α F_e δ̇`.
    HuntCrossley {
        /// s/m.
        alpha: f64,
    },
    /// Hunt–Crossley with `α = 3(1 − e)/(2 v₀)`.
    HuntCrossleyRestitution {
        /// Target coefficient of restitution.
        e: f64,
    },
    /// Flores et al. 2011: `α = 8(1 − e)/(5 e v₀)`.
    Flores {
        /// Target coefficient of restitution.
        e: f64,
    },
}

/// A normal contact law.
#[derive(Clone, Debug, PartialEq)]
pub struct ContactLaw {
    /// Elastic part.
    pub stiffness: Stiffness,
    /// Damping part.
    pub damping: Damping,
}

impl ContactLaw {
    /// Linear spring–dashpot `k δ + c δ̇` (the document's eq. 4).
    pub fn spring_dashpot(k: f64, c: f64) -> Self {
        Self { stiffness: Stiffness::Power { k, p: 1.0 }, damping: Damping::Power { c, g: 0.0, q: 1.0 } }
    }

    /// Hertz `k δ^{3/2}`, undamped.
    pub fn hertz(k: f64) -> Self {
        Self { stiffness: Stiffness::Power { k, p: 1.5 }, damping: Damping::None }
    }

    /// Hunt–Crossley `k δ^p (1 + α δ̇)`.
    pub fn hunt_crossley(k: f64, p: f64, alpha: f64) -> Self {
        Self { stiffness: Stiffness::Power { k, p }, damping: Damping::HuntCrossley { alpha } }
    }

    /// Flores `k δ^p (1 + 8(1 − e)/(5 e) δ̇/v₀)`.
    pub fn flores(k: f64, p: f64, e: f64) -> Self {
        Self { stiffness: Stiffness::Power { k, p }, damping: Damping::Flores { e } }
    }

    /// The snare-wire document's Table 4 law for contact position `s` = 40, 65 or 90 mm (the
    /// SUS-304 wire, 1.5 mm, `L` = 180 mm, `l` = 175 mm), `A δ² + B δ + C`, offset dropped.
    pub fn snare_wire_table4(s_mm: u32) -> Option<Self> {
        let (a, b, c) = match s_mm {
            40 => (719_880.0, -13.578, 0.0533),
            65 => (878_089.0, -1086.0, 0.2115),
            90 => (890_183.0, -1297.6, 0.3457),
            _ => return None,
        };
        Some(Self { stiffness: Stiffness::Polynomial { a, b, c, zero_offset: true }, damping: Damping::None })
    }

    /// Checks the parameters: finite, non-negative stiffness and damping, a table that starts at
    /// 0 and ascends, restitution in (0, 1].
    pub fn validate(&self) -> Result<(), String> {
        let finite = |name: &str, x: f64| {
            if x.is_finite() { Ok(()) } else { Err(format!("{name} must be finite, got {x}")) }
        };
        match &self.stiffness {
            Stiffness::Power { k, p } => {
                finite("k", *k)?;
                finite("p", *p)?;
                if *k < 0.0 || *p <= 0.0 {
                    return Err(format!("stiffness k must be >= 0 and exponent p > 0, got k = {k}, p = {p}"));
                }
            }
            Stiffness::Polynomial { a, b, c, .. } => {
                finite("A", *a)?;
                finite("B", *b)?;
                finite("C", *c)?;
                if *a < 0.0 {
                    return Err(format!("A must be >= 0 (a stiffness that grows with penetration), got {a}"));
                }
            }
            Stiffness::Table { delta, force } => {
                if delta.len() != force.len() || delta.len() < 2 {
                    return Err("a force table needs at least two (δ, F) points of equal count".into());
                }
                if delta[0] != 0.0
                    || delta.windows(2).any(|w| w[1].partial_cmp(&w[0]) != Some(std::cmp::Ordering::Greater))
                {
                    return Err("the table's penetrations must start at 0 and strictly ascend".into());
                }
                if force.iter().chain(delta.iter()).any(|x| !x.is_finite()) || force.iter().any(|f| *f < 0.0) {
                    return Err("the table's forces must be finite and >= 0".into());
                }
            }
        }
        match &self.damping {
            Damping::None => Ok(()),
            Damping::Power { c, g, q } => {
                finite("c", *c)?;
                if !(*c >= 0.0 && *g >= 0.0 && *q > 0.0 && g.is_finite() && q.is_finite()) {
                    return Err(format!("damping needs c >= 0, g >= 0, q > 0; got c = {c}, g = {g}, q = {q}"));
                }
                Ok(())
            }
            Damping::HuntCrossley { alpha } => {
                if alpha.is_finite() && *alpha >= 0.0 {
                    Ok(())
                } else {
                    Err(format!("alpha must be >= 0 (s/m), got {alpha}"))
                }
            }
            Damping::HuntCrossleyRestitution { e } | Damping::Flores { e } => {
                if *e > 0.0 && *e <= 1.0 {
                    Ok(())
                } else {
                    Err(format!("restitution e must be in (0, 1], got {e}"))
                }
            }
        }
    }

    /// The elastic force at penetration `delta` (m), N (may be negative for a polynomial law
    /// before clamping).
    pub fn elastic(&self, delta: f64) -> f64 {
        match &self.stiffness {
            Stiffness::Power { k, p } => k * pow(delta, *p),
            Stiffness::Polynomial { a, b, c, zero_offset } => {
                a * delta * delta + b * delta + if *zero_offset { 0.0 } else { *c }
            }
            Stiffness::Table { delta: d, force: f } => {
                let n = d.len();
                let i = d.partition_point(|x| *x <= delta).clamp(1, n - 1);
                let w = (delta - d[i - 1]) / (d[i] - d[i - 1]);
                f[i - 1] + w * (f[i] - f[i - 1])
            }
        }
    }

    /// The normal force at penetration `delta` ≥ 0 (m) and rate `rate` (m/s, positive closing),
    /// with `v0` the approach speed at first contact (used by the restitution-based dampings),
    /// clamped at zero: never pulls. Zero for `delta ≤ 0`.
    pub fn force(&self, delta: f64, rate: f64, v0: f64) -> f64 {
        if delta <= 0.0 {
            return 0.0;
        }
        let fe = self.elastic(delta);
        let fd = match &self.damping {
            Damping::None => 0.0,
            Damping::Power { c, g, q } => c * pow(delta, *g) * rate.signum() * pow(rate.abs(), *q),
            Damping::HuntCrossley { alpha } => alpha * fe * rate,
            Damping::HuntCrossleyRestitution { e } => hc_alpha(3.0 * (1.0 - e) / 2.0, v0) * fe * rate,
            Damping::Flores { e } => hc_alpha(8.0 * (1.0 - e) / (5.0 * e), v0) * fe * rate,
        };
        (fe + fd).max(0.0)
    }

    /// Potential energy stored at penetration `delta`, J: `∫₀^δ F_e`, the elastic part as
    /// clamped (used for energy balances).
    pub fn energy(&self, delta: f64) -> f64 {
        if delta <= 0.0 {
            return 0.0;
        }
        match &self.stiffness {
            Stiffness::Power { k, p } => k * delta.powf(p + 1.0) / (p + 1.0),
            Stiffness::Table { delta: d, force: f } => {
                let mut e = 0.0;
                let mut x0 = 0.0;
                let mut f0 = f[0];
                for (xi, fi) in d.iter().zip(f).skip(1) {
                    if *xi >= delta {
                        break;
                    }
                    e += 0.5 * (f0 + fi) * (xi - x0);
                    (x0, f0) = (*xi, *fi);
                }
                e + 0.5 * (f0 + self.elastic(delta)) * (delta - x0)
            }
            Stiffness::Polynomial { a, b, c, zero_offset } => {
                // Clamped polynomial: integrate max(0, F) exactly by Simpson on sub-intervals
                // split at the roots (the integrand is a quadratic between them).
                let c = if *zero_offset { 0.0 } else { *c };
                // The ends and the roots (at most four cuts; no allocation).
                let disc = b * b - 4.0 * a * c;
                let roots = if *a != 0.0 && disc >= 0.0 {
                    [(-b - disc.sqrt()) / (2.0 * a), (-b + disc.sqrt()) / (2.0 * a)]
                } else if *a == 0.0 && *b != 0.0 {
                    [-c / b, f64::NAN]
                } else {
                    [f64::NAN; 2]
                };
                let (mut cuts, mut n) = ([0.0; 4], 0);
                for r in [0.0, delta, roots[0], roots[1]] {
                    if (0.0..=delta).contains(&r) {
                        cuts[n] = r;
                        n += 1;
                    }
                }
                cuts[..n].sort_unstable_by(f64::total_cmp);
                cuts[..n]
                    .windows(2)
                    .map(|w| {
                        let (x0, x1) = (w[0], w[1]);
                        let f = |x: f64| self.elastic(x).max(0.0);
                        (x1 - x0) / 6.0 * (f(x0) + 4.0 * f(0.5 * (x0 + x1)) + f(x1))
                    })
                    .sum()
            }
        }
    }
}

fn hc_alpha(factor: f64, v0: f64) -> f64 {
    if v0 > 0.0 { factor / v0 } else { 0.0 }
}

/// Regularised Coulomb friction on the slip velocity `slip` (m/s, tangential): magnitude
/// `μ F_n η(|v|/v*)` against the slip, with the same `η(s) = s(2 − s)` (1 beyond `v*`) as the
/// lander contact, so the force is continuous through zero slip.
pub fn friction(mu: f64, normal: f64, slip: &Vec3, v_star: f64) -> Vec3 {
    let s = slip.norm();
    if s == 0.0 || normal <= 0.0 {
        return Vec3::zeros();
    }
    -slip / s * (mu * normal * crate::vertex_sdf::eta(s / v_star))
}

/// The coefficient of restitution of a point mass under the Hunt–Crossley family
/// `F = k δ^p (1 + α δ̇)` at approach speed `v0`: the root of
/// `−v_f/α − ln(1 − α v_f)/α² = v₀/α − ln(1 + α v₀)/α²` in `(0, v₀]`, returned as `v_f/v₀`.
pub fn hunt_crossley_restitution(alpha: f64, v0: f64) -> f64 {
    if alpha * v0 < 1e-12 {
        return 1.0;
    }
    // In x = α v: g(x) = −x_f − ln(1 − x_f) must equal h = x₀ − ln(1 + x₀); g grows on [0, 1).
    let h = alpha * v0 - (alpha * v0).ln_1p();
    let g = |x: f64| -x - (-x).ln_1p();
    let (mut lo, mut hi) = (0.0f64, (alpha * v0).min(1.0 - 1e-16));
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if g(mid) < h { lo = mid } else { hi = mid }
    }
    0.5 * (lo + hi) / (alpha * v0)
}

/// The coefficient of restitution of a point mass `m` on a linear spring–dashpot `k δ + c δ̇`
/// that cannot pull (separation when the force returns to zero, before `δ` does). With
/// `ζ = c/(2√(km))`, `w = √|1 − ζ²|`: the force vanishes at `ω_d t = π − 2 atan(ζ/w)`, where
/// the speed is `v₀ e^{−ζω t}`, so `e = exp(−2 (ζ/w) atan(w/ζ))` for `ζ < 1`, `e^{−2}` at
/// `ζ = 1` and `exp(−2 (ζ/w) atanh(w/ζ))` beyond (over-damped contacts still rebound).
pub fn spring_dashpot_restitution(k: f64, c: f64, m: f64) -> f64 {
    let z = c / (2.0 * (k * m).sqrt());
    let w = (1.0 - z * z).abs().sqrt();
    if z == 0.0 {
        1.0
    } else if w == 0.0 {
        (-2.0f64).exp()
    } else if z < 1.0 {
        (-2.0 * z / w * (w / z).atan()).exp()
    } else {
        (-2.0 * z / w * (w / z).atanh()).exp()
    }
}

/// `x^p` (x ≥ 0) with the exponents of the presets (0, 1, 1.5, 2) taken without `powf`.
fn pow(x: f64, p: f64) -> f64 {
    if p == 0.0 {
        1.0
    } else if p == 1.0 {
        x
    } else if p == 1.5 {
        x * x.sqrt()
    } else if p == 2.0 {
        x * x
    } else {
        x.powf(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A point mass `m` hitting the law at `v0`: RK4 at `dt` until it leaves; returns the exit
    /// speed, the impulse `∫F dt` and the largest rise of `½mv² + E(δ)` over the contact.
    fn bounce(law: &ContactLaw, m: f64, v0: f64, dt: f64) -> (f64, f64, f64) {
        // State (δ, δ̇, impulse); δ̇ positive closing.
        let f = |y: [f64; 3]| {
            let force = law.force(y[0], y[1], v0);
            [y[1], -force / m, force]
        };
        let mut y = [0.0, v0, 0.0];
        let energy = |y: &[f64; 3]| 0.5 * m * y[1] * y[1] + law.energy(y[0]);
        let mut rise = 0.0f64;
        let mut e_prev = energy(&y);
        for _ in 0..10_000_000 {
            let k1 = f(y);
            let a = |k: &[f64; 3], h: f64| [y[0] + h * k[0], y[1] + h * k[1], y[2] + h * k[2]];
            let k2 = f(a(&k1, 0.5 * dt));
            let k3 = f(a(&k2, 0.5 * dt));
            let k4 = f(a(&k3, dt));
            for i in 0..3 {
                y[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
            let e = energy(&y);
            rise = rise.max(e - e_prev);
            e_prev = e;
            if y[0] <= 0.0 && y[1] < 0.0 {
                return (-y[1], y[2], rise);
            }
        }
        panic!("never left");
    }

    #[test]
    fn restitution_matches_the_closed_forms() {
        let (m, k, v0): (f64, f64, f64) = (2.0, 1e5, 0.5);
        // Linear spring–dashpot across under-, critically and over-damped contacts; the
        // non-adhesive clamp makes each rebound faster than the unclamped exp(−ζπ/w).
        for z in [0.0, 0.1, 0.4, 0.8, 1.0, 1.6] {
            let c = 2.0 * z * (k * m).sqrt();
            let law = ContactLaw::spring_dashpot(k, c);
            let (vf, _, _) = bounce(&law, m, v0, 1e-6);
            let e = spring_dashpot_restitution(k, c, m);
            // RK4 at ω dt = 2.2e-4; the clamp's kink makes that step first order: ~1e-4.
            assert!((vf / v0 - e).abs() < 2e-4, "ζ = {z}: {} vs {e}", vf / v0);
        }
        // Hertz is elastic.
        let (vf, _, _) = bounce(&ContactLaw::hertz(1e7), m, v0, 1e-6);
        assert!((vf / v0 - 1.0).abs() < 1e-9, "Hertz {}", vf / v0);
        // Hunt–Crossley family: the exact implicit restitution, for any k and p.
        for (law, alpha) in [
            (ContactLaw::hunt_crossley(1e7, 1.5, 0.8), 0.8),
            (ContactLaw::hunt_crossley(1e5, 1.0, 3.0), 3.0),
            (ContactLaw::flores(1e7, 1.5, 0.5), 8.0 * 0.5 / (5.0 * 0.5 * v0)),
            (
                ContactLaw {
                    stiffness: Stiffness::Power { k: 1e7, p: 1.5 },
                    damping: Damping::HuntCrossleyRestitution { e: 0.9 },
                },
                3.0 * 0.1 / (2.0 * v0),
            ),
        ] {
            let (vf, _, _) = bounce(&law, m, v0, 1e-6);
            let e = hunt_crossley_restitution(alpha, v0);
            // The force is continuous at entry and exit: RK4's error stays ~1e-9.
            assert!((vf / v0 - e).abs() < 1e-6, "{law:?}: {} vs {e}", vf / v0);
        }
        // Flores' design rule lands near its target over the whole range (within 0.05 here)
        // and the Hunt–Crossley rule only near e = 1.
        for e in [0.3, 0.6, 0.9] {
            let flores = hunt_crossley_restitution(8.0 * (1.0 - e) / (5.0 * e * v0), v0);
            assert!((flores - e).abs() < 0.05, "Flores e = {e}: {flores}");
        }
        let hc = hunt_crossley_restitution(3.0 * 0.05 / (2.0 * v0), v0);
        assert!((hc - 0.95).abs() < 0.01 && hunt_crossley_restitution(3.0 * 0.7 / (2.0 * v0), v0) > 0.4);
    }

    #[test]
    fn laws_never_pull_keep_the_impulse_and_only_dissipate() {
        let (m, v0) = (8.9, 0.05);
        let laws = [
            ContactLaw::spring_dashpot(2e4, 300.0),
            ContactLaw::hunt_crossley(1e7, 1.5, 0.5),
            ContactLaw::flores(1e6, 1.0, 0.4),
            ContactLaw::snare_wire_table4(90).expect("table 4"),
            ContactLaw {
                stiffness: Stiffness::Table { delta: vec![0.0, 0.002, 0.01], force: vec![0.0, 1.0, 60.0] },
                damping: Damping::Power { c: 40.0, g: 0.0, q: 1.0 },
            },
        ];
        for law in &laws {
            law.validate().expect("valid");
            for i in 0..200 {
                let (d, r) = (i as f64 * 1e-4, (i as f64 * 0.37).sin() * 0.3);
                assert!(law.force(d, r, v0) >= 0.0, "{law:?} pulls at δ = {d}, δ̇ = {r}");
            }
            let (vf, impulse, rise) = bounce(law, m, v0, 2e-6);
            // ∫F dt is the momentum change m (v₀ + v_f) (same RK4 on both: rounding only).
            assert!((impulse - m * (v0 + vf)).abs() < 1e-9 * m * v0, "{law:?}: impulse");
            assert!(vf <= v0 * (1.0 + 1e-9), "{law:?} gains energy");
            // ½mv² + E(δ) never rises beyond RK4's local error (≤ 1e-9 of ½mv₀²).
            assert!(rise < 1e-9 * 0.5 * m * v0 * v0, "{law:?}: energy rose by {rise}");
        }
    }

    #[test]
    fn the_offset_the_table_and_bad_parameters() {
        let mut law = ContactLaw::snare_wire_table4(90).expect("table 4");
        assert_eq!(law.force(1e-12, 0.0, 0.0), 0.0, "no push at contact with the offset dropped");
        // δ = 10 mm: 890183e-4 − 12.976 = 76.04 N.
        assert!((law.force(0.01, 0.0, 0.0) - (89.0183 - 12.976)).abs() < 1e-9);
        if let Stiffness::Polynomial { zero_offset, .. } = &mut law.stiffness {
            *zero_offset = false;
        }
        assert!((law.force(1e-12, 0.0, 0.0) - 0.3457).abs() < 1e-8, "the fitted offset when asked");
        // The clamped quadratic's energy against a fine quadrature.
        let fine: f64 = (0..100_000).map(|i| law.elastic((i as f64 + 0.5) * 1e-7).max(0.0) * 1e-7).sum();
        assert!((law.energy(0.01) - fine).abs() < 1e-8 * fine);
        let table = ContactLaw {
            stiffness: Stiffness::Table { delta: vec![0.0, 0.001, 0.003], force: vec![0.0, 2.0, 10.0] },
            damping: Damping::None,
        };
        assert!((table.elastic(0.002) - 6.0).abs() < 1e-12 && (table.elastic(0.004) - 14.0).abs() < 1e-12);
        assert!((table.energy(0.002) - (0.001 + 0.004)).abs() < 1e-15);
        for (bad, why) in [
            (ContactLaw::spring_dashpot(-1.0, 0.0), "k must be >= 0"),
            (ContactLaw::spring_dashpot(1.0, -2.0), "c >= 0"),
            (ContactLaw::flores(1e6, 1.5, 0.0), "(0, 1]"),
            (ContactLaw::hunt_crossley(f64::NAN, 1.5, 0.1), "finite"),
            (
                ContactLaw {
                    stiffness: Stiffness::Table { delta: vec![0.0, 0.0], force: vec![0.0, 1.0] },
                    damping: Damping::None,
                },
                "ascend",
            ),
        ] {
            let e = bad.validate().expect_err(why);
            assert!(e.contains(why), "{why}: {e}");
        }
    }
}
