//! Solid primitives of uniform density and their closed-form mass properties.
//!
//! Every shape is centred on its centre of mass; a cylinder's or tube's axis is the body z axis.
//! Formulas: the standard tables (e.g. Meriam & Kraige, *Engineering Mechanics: Dynamics*,
//! appendix D); the hollow sphere is the difference of two solid spheres.

use crate::MassProperties;
use serde::Deserialize;
use std::f64::consts::PI;
use tumble_math::{Mat3, Vec3};

/// A solid primitive (dimensions in m).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Solid {
    /// Solid sphere of `radius`.
    Sphere {
        /// Radius, m.
        radius: f64,
    },
    /// Rectangular box with full edge lengths `size = [x, y, z]`.
    Box {
        /// Full edge lengths along the body axes, m.
        size: [f64; 3],
    },
    /// Solid circular cylinder of `radius` and `length` along z.
    Cylinder {
        /// Radius, m.
        radius: f64,
        /// Length along z, m.
        length: f64,
    },
    /// Solid ellipsoid with semi-axes `semi_axes = [a, b, c]` along x, y, z.
    Ellipsoid {
        /// Semi-axes, m.
        semi_axes: [f64; 3],
    },
    /// Hollow sphere between `inner_radius` and `outer_radius`.
    HollowSphere {
        /// Outer radius, m.
        outer_radius: f64,
        /// Inner radius, m (0 ≤ inner < outer).
        inner_radius: f64,
    },
    /// Tube (hollow cylinder) along z between `inner_radius` and `outer_radius`.
    Tube {
        /// Outer radius, m.
        outer_radius: f64,
        /// Inner radius, m (0 ≤ inner < outer).
        inner_radius: f64,
        /// Length along z, m.
        length: f64,
    },
}

/// Why a primitive's dimensions are impossible.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SolidError {
    /// A dimension is not positive and finite.
    #[error("`{0}` must be positive and finite (m), got {1}")]
    Dimension(&'static str, f64),
    /// Inner radius not below outer radius.
    #[error("`inner_radius` ({inner}) must be >= 0 and < `outer_radius` ({outer}) (m)")]
    Hollow {
        /// Inner radius, m.
        inner: f64,
        /// Outer radius, m.
        outer: f64,
    },
}

fn positive(name: &'static str, x: f64) -> Result<(), SolidError> {
    if x.is_finite() && x > 0.0 { Ok(()) } else { Err(SolidError::Dimension(name, x)) }
}

fn hollow(outer: f64, inner: f64) -> Result<(), SolidError> {
    positive("outer_radius", outer)?;
    if inner.is_finite() && inner >= 0.0 && inner < outer { Ok(()) } else { Err(SolidError::Hollow { inner, outer }) }
}

impl Solid {
    /// Checks that every dimension is physically possible.
    pub fn validate(&self) -> Result<(), SolidError> {
        match *self {
            Solid::Sphere { radius } => positive("radius", radius),
            Solid::Box { size } => size.iter().try_for_each(|&s| positive("size", s)),
            Solid::Cylinder { radius, length } => {
                positive("radius", radius)?;
                positive("length", length)
            }
            Solid::Ellipsoid { semi_axes } => semi_axes.iter().try_for_each(|&s| positive("semi_axes", s)),
            Solid::HollowSphere { outer_radius, inner_radius } => hollow(outer_radius, inner_radius),
            Solid::Tube { outer_radius, inner_radius, length } => {
                hollow(outer_radius, inner_radius)?;
                positive("length", length)
            }
        }
    }

    /// Volume, m³.
    pub fn volume(&self) -> f64 {
        match *self {
            Solid::Sphere { radius: r } => 4.0 / 3.0 * PI * r.powi(3),
            Solid::Box { size: [a, b, c] } => a * b * c,
            Solid::Cylinder { radius: r, length: h } => PI * r * r * h,
            Solid::Ellipsoid { semi_axes: [a, b, c] } => 4.0 / 3.0 * PI * a * b * c,
            Solid::HollowSphere { outer_radius: ro, inner_radius: ri } => 4.0 / 3.0 * PI * (ro.powi(3) - ri.powi(3)),
            Solid::Tube { outer_radius: ro, inner_radius: ri, length: h } => PI * (ro * ro - ri * ri) * h,
        }
    }

    /// Principal moments of inertia per unit mass about the centre, m² (body axes are principal).
    pub fn inertia_per_mass(&self) -> Vec3 {
        match *self {
            Solid::Sphere { radius: r } => Vec3::repeat(0.4 * r * r),
            Solid::Box { size: [a, b, c] } => Vec3::new(b * b + c * c, a * a + c * c, a * a + b * b) / 12.0,
            Solid::Cylinder { radius: r, length: h } => {
                let t = (3.0 * r * r + h * h) / 12.0;
                Vec3::new(t, t, 0.5 * r * r)
            }
            Solid::Ellipsoid { semi_axes: [a, b, c] } => Vec3::new(b * b + c * c, a * a + c * c, a * a + b * b) / 5.0,
            Solid::HollowSphere { outer_radius: ro, inner_radius: ri } => {
                Vec3::repeat(0.4 * (ro.powi(5) - ri.powi(5)) / (ro.powi(3) - ri.powi(3)))
            }
            Solid::Tube { outer_radius: ro, inner_radius: ri, length: h } => {
                let s = ro * ro + ri * ri;
                let t = (3.0 * s + h * h) / 12.0;
                Vec3::new(t, t, 0.5 * s)
            }
        }
    }

    /// Mass properties for a given total mass (kg).
    pub fn with_mass(&self, mass: f64) -> MassProperties {
        MassProperties::new(mass, Mat3::from_diagonal(&(self.inertia_per_mass() * mass)))
    }

    /// Mass properties for a given uniform density (kg/m³).
    pub fn with_density(&self, density: f64) -> MassProperties {
        self.with_mass(density * self.volume())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    /// Inertia per unit mass by Monte-Carlo-free midpoint quadrature over the bounding box,
    /// an independent check of the closed forms.
    fn quadrature(inside: impl Fn(Vec3) -> bool, half: Vec3, n: usize) -> (f64, Vec3) {
        let (mut count, mut acc) = (0usize, Vec3::zeros());
        for i in 0..n {
            for j in 0..n {
                for k in 0..n {
                    let f = |idx: usize, h: f64| -h + (idx as f64 + 0.5) * 2.0 * h / n as f64;
                    let p = Vec3::new(f(i, half.x), f(j, half.y), f(k, half.z));
                    if inside(p) {
                        count += 1;
                        acc += Vec3::new(p.y * p.y + p.z * p.z, p.x * p.x + p.z * p.z, p.x * p.x + p.y * p.y);
                    }
                }
            }
        }
        let cell = 8.0 * half.x * half.y * half.z / (n * n * n) as f64;
        (count as f64 * cell, acc / count as f64)
    }

    #[test]
    fn closed_forms_match_quadrature() {
        // 160³ cells: the boundary error of the indicator quadrature is O(1/n) ≈ 1%, so 2%.
        let n = 160;
        type Inside = Box<dyn Fn(Vec3) -> bool>;
        let cases: Vec<(Solid, Inside, Vec3)> = vec![
            (
                Solid::Ellipsoid { semi_axes: [1.0, 0.6, 0.3] },
                Box::new(|p: Vec3| (p.x).powi(2) + (p.y / 0.6).powi(2) + (p.z / 0.3).powi(2) <= 1.0),
                Vec3::new(1.0, 0.6, 0.3),
            ),
            (
                Solid::Cylinder { radius: 0.5, length: 2.0 },
                Box::new(|p: Vec3| p.x * p.x + p.y * p.y <= 0.25),
                Vec3::new(0.5, 0.5, 1.0),
            ),
            (
                Solid::Tube { outer_radius: 0.5, inner_radius: 0.3, length: 1.0 },
                Box::new(|p: Vec3| {
                    let r2 = p.x * p.x + p.y * p.y;
                    (0.09..=0.25).contains(&r2)
                }),
                Vec3::new(0.5, 0.5, 0.5),
            ),
            (
                Solid::HollowSphere { outer_radius: 1.0, inner_radius: 0.7 },
                Box::new(|p: Vec3| (0.49..=1.0).contains(&p.norm_squared())),
                Vec3::repeat(1.0),
            ),
        ];
        for (s, inside, half) in cases {
            s.validate().expect("valid");
            let (v, i) = quadrature(inside, half, n);
            assert_relative_eq!(v, s.volume(), max_relative = 0.02);
            assert_relative_eq!(i, s.inertia_per_mass(), max_relative = 0.02);
        }
    }

    #[test]
    fn exact_values() {
        let b = Solid::Box { size: [1.0, 2.0, 3.0] }.with_density(10.0);
        assert_relative_eq!(b.mass, 60.0);
        assert_relative_eq!(b.inertia[(0, 0)], 60.0 * 13.0 / 12.0, max_relative = 1e-15);
        let s = Solid::Sphere { radius: 2.0 }.with_mass(5.0);
        assert_relative_eq!(s.inertia[(2, 2)], 0.4 * 5.0 * 4.0, max_relative = 1e-15);
        // Thin shell limit of a hollow sphere: 2/3 m R².
        let shell = Solid::HollowSphere { outer_radius: 1.0, inner_radius: 1.0 - 1e-6 }.inertia_per_mass();
        assert_relative_eq!(shell.x, 2.0 / 3.0, max_relative = 1e-5);
    }

    #[test]
    fn refuses_impossible_dimensions() {
        assert_eq!(Solid::Sphere { radius: 0.0 }.validate(), Err(SolidError::Dimension("radius", 0.0)));
        assert!(Solid::Box { size: [1.0, -1.0, 1.0] }.validate().is_err());
        assert!(Solid::Tube { outer_radius: 1.0, inner_radius: 1.0, length: 1.0 }.validate().is_err());
    }
}
