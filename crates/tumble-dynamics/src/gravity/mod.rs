//! Gravity models behind one trait.
//!
//! Convention (shared with the polyhedron model): `U(p)` is the gravitational potential energy
//! per unit mass, J/kg, negative for an attracting body, and the acceleration is `a = −∇U`.

mod polyhedron;

pub use polyhedron::{FieldSample, G, Polyhedron, PolyhedronError, PolyhedronParts};
use tumble_math::{Mat3, Vec3};

/// A gravity field in the world frame W. `Any`, so that a backend can recognise the models it
/// implements itself (the GPU path packs point masses, uniform fields and polyhedra).
pub trait Gravity: std::any::Any + Send + Sync {
    /// Acceleration `a = −∇U` at `p_W` (m), m/s².
    fn acceleration(&self, p_W: &Vec3) -> Vec3;
    /// Potential energy per unit mass `U` at `p_W` (m), J/kg.
    fn potential(&self, p_W: &Vec3) -> f64;
    /// A time scale of the field at `p_W`, s, for step-size advice in diagnoses
    /// (`∞` when the field has none).
    fn time_scale(&self, _p_W: &Vec3) -> f64 {
        f64::INFINITY
    }
    /// Potential, acceleration and its gradient at `p_W`. The default differentiates the
    /// acceleration by central differences (step 1e-6 of `max(|p|, 1 m)`); models override it
    /// with exact gradients.
    fn field(&self, p_W: &Vec3) -> FieldSample {
        let h = 1e-6 * p_W.norm().max(1.0);
        let mut gradient = Mat3::zeros();
        for k in 0..3 {
            let e = Vec3::ith(k, h);
            gradient.set_column(k, &((self.acceleration(&(p_W + e)) - self.acceleration(&(p_W - e))) / (2.0 * h)));
        }
        FieldSample { potential: self.potential(p_W), acceleration: self.acceleration(p_W), gradient }
    }
}

/// A second-order Taylor model of a field about `center`: with `d = p − center`,
/// `a(p) = a₀ + ∇a d` and `U(p) = U₀ − a₀·d − ½ dᵀ ∇a d`, so that `a = −∇U` holds exactly for the
/// model (energy stays conserved under it). Its error grows as `|d|³` times the third
/// derivatives of `U`; used by the lander to evaluate an expensive field (the polyhedron) once
/// per move of a chosen radius instead of at every stage.
#[derive(Clone, Copy, Debug)]
pub struct Expansion {
    /// Expansion point, m.
    pub center: Vec3,
    /// The field there.
    pub sample: FieldSample,
}

impl Expansion {
    /// Expands `field` about `center`.
    pub fn new(field: &dyn Gravity, center: Vec3) -> Self {
        Self { center, sample: field.field(&center) }
    }

    /// Acceleration and potential of the model at `p`.
    pub fn eval(&self, p: &Vec3) -> (Vec3, f64) {
        let d = p - self.center;
        let gd = self.sample.gradient * d;
        (self.sample.acceleration + gd, self.sample.potential - self.sample.acceleration.dot(&d) - 0.5 * d.dot(&gd))
    }
}

/// No gravity.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoGravity;

impl Gravity for NoGravity {
    fn acceleration(&self, _: &Vec3) -> Vec3 {
        Vec3::zeros()
    }
    fn potential(&self, _: &Vec3) -> f64 {
        0.0
    }
    fn field(&self, _: &Vec3) -> FieldSample {
        FieldSample { potential: 0.0, acceleration: Vec3::zeros(), gradient: Mat3::zeros() }
    }
}

/// A uniform field `g` (m/s²): `a = g`, `U = −g·p`.
#[derive(Clone, Copy, Debug)]
pub struct Uniform {
    /// Acceleration, m/s².
    pub g: Vec3,
}

impl Gravity for Uniform {
    fn acceleration(&self, _: &Vec3) -> Vec3 {
        self.g
    }
    fn potential(&self, p: &Vec3) -> f64 {
        -self.g.dot(p)
    }
    fn field(&self, p: &Vec3) -> FieldSample {
        FieldSample { potential: self.potential(p), acceleration: self.g, gradient: Mat3::zeros() }
    }
}

/// A point mass (or a spherically symmetric body) with gravitational parameter `mu = GM`
/// (m³/s²) at `center` (m): `a = −μ r / |r|³`, `U = −μ / |r|`, with `r = p − center`.
#[derive(Clone, Copy, Debug)]
pub struct PointMass {
    /// Gravitational parameter GM, m³/s².
    pub mu: f64,
    /// Position of the attracting centre in W, m.
    pub center: Vec3,
}

impl Gravity for PointMass {
    fn acceleration(&self, p: &Vec3) -> Vec3 {
        let r = p - self.center;
        let r2 = r.norm_squared();
        -self.mu * r / (r2 * r2.sqrt())
    }
    fn potential(&self, p: &Vec3) -> f64 {
        -self.mu / (p - self.center).norm()
    }
    /// `∇a = μ (3 r rᵀ − |r|² I) / |r|⁵`.
    fn field(&self, p: &Vec3) -> FieldSample {
        let r = p - self.center;
        let r2 = r.norm_squared();
        let gradient = self.mu * (3.0 * r * r.transpose() - Mat3::identity() * r2) / (r2 * r2 * r2.sqrt());
        FieldSample { potential: self.potential(p), acceleration: self.acceleration(p), gradient }
    }
    /// `√(r³/μ)`: the orbital period over 2π at this radius.
    fn time_scale(&self, p: &Vec3) -> f64 {
        ((p - self.center).norm().powi(3) / self.mu).sqrt()
    }
}

/// A sum of point masses (mascons): `U = −Σ μᵢ/|p − cᵢ|`, `a = −Σ μᵢ (p − cᵢ)/|p − cᵢ|³`.
/// Singular at each centre, like a point mass.
#[derive(Clone, Debug, Default)]
pub struct Mascons {
    /// The point masses: centre (m) and gravitational parameter GM (m³/s²).
    pub masses: Vec<PointMass>,
}

impl Gravity for Mascons {
    fn acceleration(&self, p: &Vec3) -> Vec3 {
        self.masses.iter().map(|m| m.acceleration(p)).sum()
    }
    fn potential(&self, p: &Vec3) -> f64 {
        self.masses.iter().map(|m| m.potential(p)).sum()
    }
    fn time_scale(&self, p: &Vec3) -> f64 {
        let mu: f64 = self.masses.iter().map(|m| m.mu).sum();
        let r = self.masses.iter().map(|m| (p - m.center).norm()).fold(f64::INFINITY, f64::min);
        (r.powi(3) / mu).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    /// `a = −∇U` checked by central differences.
    fn check_gradient(g: &dyn Gravity, p: Vec3) {
        let grad = tumble_math::numdiff::central_gradient(|q| g.potential(q), &p, 1e-4 * p.norm().max(1.0));
        assert_relative_eq!(g.acceleration(&p), -grad, max_relative = 1e-7);
    }

    #[test]
    fn acceleration_is_minus_gradient_of_potential() {
        check_gradient(&Uniform { g: Vec3::new(0.0, 0.1, -9.81) }, Vec3::new(1.0, 2.0, 3.0));
        let pm = PointMass { mu: 3.986_004_418e14, center: Vec3::new(10.0, 0.0, 0.0) };
        check_gradient(&pm, Vec3::new(7.0e6, -1.0e6, 2.0e5));
        let ms = Mascons {
            masses: vec![
                PointMass { mu: 5.0, center: Vec3::new(-1.0, 0.0, 0.0) },
                PointMass { mu: 3.0, center: Vec3::new(1.0, 0.5, 0.0) },
            ],
        };
        check_gradient(&ms, Vec3::new(0.3, 2.0, -1.0));
        // On the axis between two equal masses the pull cancels; far away it is one mass.
        let pair = Mascons {
            masses: vec![PointMass { mu: 2.0, center: Vec3::x() }, PointMass { mu: 2.0, center: -Vec3::x() }],
        };
        assert!(pair.acceleration(&Vec3::new(0.0, 0.0, 0.0)).norm() < 1e-15);
        let far = Vec3::new(0.0, 1e6, 0.0);
        assert_relative_eq!(pair.potential(&far), -4.0 / 1e6, max_relative = 1e-12);
        // Surface gravity of the Earth from μ and the mean radius: 9.82 m/s².
        let g0 = pm.acceleration(&(pm.center + Vec3::new(0.0, 0.0, 6.371e6))).norm();
        assert_relative_eq!(g0, 9.820, max_relative = 1e-3);
    }
}
