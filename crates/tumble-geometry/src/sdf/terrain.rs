//! Procedural terrain: a base body perturbed by fBm heights, with two surface types blended by
//! a low-frequency region field (smooth "sandy" and rough "rocky" ground).
//!
//! Height `h(p) = (1 − w) F_s(p) + w F_r(p)`, with the region weight
//! `w = S((R(p) − threshold)/width)` (`S` the cubic smoothstep clamped to [0, 1], `R` an fBm),
//! and field `φ(p) = φ_base(p) − h(p)`: positive heights raise the ground. The gradient is exact:
//! `∇φ = ∇φ_base − (1 − w)∇F_s − w∇F_r − (F_r − F_s)∇w`.
//!
//! The perturbed field is no longer an exact distance: it is Lipschitz with constant
//! `1 + max|∇h|`, so keep `amplitude · frequency` small (≪ 1) for contact queries that treat it
//! as a distance.

use super::Sdf;
use crate::noise::Fbm;
use tumble_math::Vec3;

/// Terrain on a base field.
pub struct Terrain {
    /// The body without terrain.
    pub base: Box<dyn Sdf>,
    /// Heights of the smooth ground.
    pub sandy: Fbm,
    /// Heights of the rough ground.
    pub rocky: Fbm,
    /// Region field: where it exceeds `threshold` the ground is rocky.
    pub region: Fbm,
    /// Region value at the middle of the transition.
    pub threshold: f64,
    /// Width of the transition in region values (> 0).
    pub width: f64,
}

impl Terrain {
    /// Rocky weight `w ∈ [0, 1]` and its gradient at `p`.
    pub fn rocky_weight(&self, p: &Vec3) -> (f64, Vec3) {
        let (r, dr) = self.region.eval(p);
        let x = (r - self.threshold) / self.width + 0.5;
        if x <= 0.0 {
            (0.0, Vec3::zeros())
        } else if x >= 1.0 {
            (1.0, Vec3::zeros())
        } else {
            (x * x * (3.0 - 2.0 * x), 6.0 * x * (1.0 - x) / self.width * dr)
        }
    }
}

impl Sdf for Terrain {
    fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        let (d, g) = self.base.eval(p);
        let (w, dw) = self.rocky_weight(p);
        // Inside a region only its own heights count (and ∇w = 0 there).
        if w == 0.0 {
            let (s, ds) = self.sandy.eval(p);
            return (d - s, g - ds);
        }
        if w == 1.0 {
            let (r, dr) = self.rocky.eval(p);
            return (d - r, g - dr);
        }
        let (s, ds) = self.sandy.eval(p);
        let (r, dr) = self.rocky.eval(p);
        let h = (1.0 - w) * s + w * r;
        (d - h, g - (1.0 - w) * ds - w * dr - (r - s) * dw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdf::Sphere;

    fn terrain() -> Terrain {
        let f = |seed, amplitude, frequency| Fbm { seed, octaves: 4, lacunarity: 2.0, gain: 0.5, amplitude, frequency };
        Terrain {
            base: Box::new(Sphere { center: Vec3::zeros(), radius: 100.0 }),
            sandy: f(1, 0.2, 0.05),
            rocky: f(2, 2.0, 0.2),
            region: f(3, 1.0, 0.01),
            threshold: 0.0,
            width: 0.3,
        }
    }

    #[test]
    fn gradient_is_exact_and_regions_differ_in_roughness() {
        let t = terrain();
        let (mut sandy_h, mut rocky_h, mut seen) = (0.0_f64, 0.0_f64, [false; 2]);
        for k in 0..400 {
            let (th, ph) = (0.1 + 3.0 * (k as f64 * 0.618).fract(), std::f64::consts::TAU * (k as f64 * 0.414).fract());
            let p = Vec3::new(th.sin() * ph.cos(), th.sin() * ph.sin(), th.cos()) * (100.0 + 0.5 * (k % 3) as f64);
            let (d, g) = t.eval(&p);
            let num = tumble_math::numdiff::central_gradient(|q| t.distance(q), &p, 1e-5);
            assert!((g - num).norm() < 1e-6, "{p}: {g} vs {num}");
            let (w, _) = t.rocky_weight(&p);
            let height = (t.base.distance(&p) - d).abs();
            if w == 0.0 {
                sandy_h = sandy_h.max(height);
                seen[0] = true;
            }
            if w == 1.0 {
                rocky_h = rocky_h.max(height);
                seen[1] = true;
            }
        }
        assert!(seen[0] && seen[1], "both regions are sampled");
        assert!(sandy_h <= t.sandy.bound() && rocky_h > 2.0 * sandy_h, "sandy {sandy_h} m, rocky {rocky_h} m");
    }
}
