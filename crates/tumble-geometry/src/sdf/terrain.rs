//! Procedural terrain: a base body perturbed by fBm heights, with two surface types (smooth
//! "sandy" and rough "rocky" ground, the document's words) blended by a region mask.
//!
//! Height `h(p) = (1 − w) F_s(p) + w F_r(p)`, with the rocky weight `w ∈ [0, 1]` of the
//! [`Region`] (a noise field or a latitude–longitude grid), and field `φ(p) = φ_base(p) − h(p)`:
//! positive heights raise the ground; the heights and a noise mask take `p − origin`, so terrain
//! moves with a shape translated along with its origin. The gradient is exact:
//! `∇φ = ∇φ_base − (1 − w)∇F_s − w∇F_r − (F_r − F_s)∇w`.
//!
//! The perturbed field is no longer an exact distance: it is Lipschitz with constant
//! `1 + max|∇h|`, so keep `amplitude · frequency` small (≪ 1) for contact queries that treat it
//! as a distance.

use super::Sdf;
use super::region::Region;
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
    /// Where the ground is rocky.
    pub region: Region,
    /// The point the heights and a noise mask are measured from (a shape's centre of mass, so
    /// that terrain moves with it), m.
    pub origin: Vec3,
}

impl Terrain {
    /// Rocky weight `w ∈ [0, 1]` and its gradient at `p`.
    #[inline(always)]
    pub fn rocky_weight(&self, p: &Vec3) -> (f64, Vec3) {
        match &self.region {
            Region::Noise { .. } => self.region.weight(&(p - self.origin)),
            _ => self.region.weight(p),
        }
    }

    /// A bound of `|h|` everywhere, m.
    pub fn height_bound(&self) -> f64 {
        match self.region {
            Region::Uniform => self.sandy.bound(),
            _ => self.sandy.bound().max(self.rocky.bound()),
        }
    }
}

impl Sdf for Terrain {
    fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        let mut out = [(0.0, Vec3::zeros())];
        self.eval_many(std::slice::from_ref(p), &mut out);
        out[0]
    }
    fn eval_many(&self, points: &[Vec3], out: &mut [(f64, Vec3)]) {
        tumble_math::wide::dispatch(Many { terrain: self, points, out });
    }
}

/// Points of a terrain (one, or a body's vertices at once): a kernel
/// [`tumble_math::wide::dispatch`] builds twice.
struct Many<'a> {
    terrain: &'a Terrain,
    points: &'a [Vec3],
    out: &'a mut [(f64, Vec3)],
}

impl tumble_math::wide::Kernel for Many<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        for (p, o) in self.points.iter().zip(self.out) {
            *o = self.terrain.at(p);
        }
    }
}

impl Terrain {
    /// [`Sdf::eval`].
    #[inline(always)]
    fn at(&self, p: &Vec3) -> (f64, Vec3) {
        let (d, g) = self.base.eval(p);
        let (w, dw) = self.rocky_weight(p);
        let q = p - self.origin;
        // Inside a region only its own heights count (and ∇w = 0 there).
        if w == 0.0 {
            let (s, ds) = self.sandy.eval(&q);
            return (d - s, g - ds);
        }
        if w == 1.0 {
            let (r, dr) = self.rocky.eval(&q);
            return (d - r, g - dr);
        }
        let (s, ds) = self.sandy.eval(&q);
        let (r, dr) = self.rocky.eval(&q);
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
            region: Region::Noise { field: f(3, 1.0, 0.01), threshold: 0.0, width: 0.3 },
            origin: Vec3::zeros(),
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
