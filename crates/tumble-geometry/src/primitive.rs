//! Contact primitives of the interference engine (Pong's primitive set plus the ray): point,
//! plane, line segment, ray, sphere, triangle, ellipsoid and convex polyhedron, each in the frame
//! of the group that holds it.
//!
//! What each one means as a contact surface:
//! - **point**: a probe tip; contacts solids (plane, sphere, ellipsoid, polyhedron).
//! - **plane**: the half-space `n · (x − p) ≤ 0` is solid (a floor, a guide face); unbounded.
//! - **segment**: an edge or a rail line `a–b`.
//! - **ray**: a plunger from `origin` along unit `direction`, its tip at `length`: it measures
//!   how far its tip has gone past the surface it hits *along its own axis* and pushes back
//!   along that axis (Pong's RTLI and thermal-standoff plungers).
//! - **sphere**, **ellipsoid** (centre, rotation `R_GE` whose columns are the principal axes,
//!   semi-axes), **convex polyhedron**: solids.
//! - **triangle**: a one-sided surface patch of a mesh, counter-clockwise seen from its solid's
//!   outside (outward normal `(b − a) × (c − a)`).

use crate::convex::ConvexPolyhedron;
use tumble_math::{Mat3, Vec3};

/// The type of a primitive (for the dispatch table and error messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PrimitiveKind {
    /// [`Primitive::Point`].
    Point = 0,
    /// [`Primitive::Plane`].
    Plane,
    /// [`Primitive::Segment`].
    Segment,
    /// [`Primitive::Ray`].
    Ray,
    /// [`Primitive::Sphere`].
    Sphere,
    /// [`Primitive::Triangle`].
    Triangle,
    /// [`Primitive::Ellipsoid`].
    Ellipsoid,
    /// [`Primitive::Polyhedron`].
    Polyhedron,
}

impl PrimitiveKind {
    /// Number of kinds.
    pub const COUNT: usize = 8;
    /// Every kind, in index order.
    pub const ALL: [PrimitiveKind; 8] = [
        PrimitiveKind::Point,
        PrimitiveKind::Plane,
        PrimitiveKind::Segment,
        PrimitiveKind::Ray,
        PrimitiveKind::Sphere,
        PrimitiveKind::Triangle,
        PrimitiveKind::Ellipsoid,
        PrimitiveKind::Polyhedron,
    ];

    /// The name used in model files (`"point"`, `"plane"`, …).
    pub fn name(self) -> &'static str {
        ["point", "plane", "segment", "ray", "sphere", "triangle", "ellipsoid", "polyhedron"][self as usize]
    }
}

/// A primitive in its group's frame (m).
#[derive(Clone, Debug, PartialEq)]
pub enum Primitive {
    /// A point.
    Point(Vec3),
    /// The solid half-space below `normal` (unit) through `point`.
    Plane {
        /// A point of the boundary plane.
        point: Vec3,
        /// Outward unit normal.
        normal: Vec3,
    },
    /// The segment from `a` to `b`.
    Segment {
        /// First end.
        a: Vec3,
        /// Second end.
        b: Vec3,
    },
    /// A plunger: `origin + t · direction`, `0 ≤ t ≤ length`.
    Ray {
        /// Base.
        origin: Vec3,
        /// Unit direction.
        direction: Vec3,
        /// Tip distance from the base, m.
        length: f64,
    },
    /// A solid ball.
    Sphere {
        /// Centre.
        center: Vec3,
        /// Radius, m.
        radius: f64,
    },
    /// A one-sided triangle, counter-clockwise from outside.
    Triangle([Vec3; 3]),
    /// A solid ellipsoid `|diag(1/radii) R^T (x − center)| ≤ 1`.
    Ellipsoid {
        /// Centre.
        center: Vec3,
        /// `R_GE`: columns are the principal axes in the group frame.
        rotation: Mat3,
        /// Semi-axes, m.
        radii: Vec3,
    },
    /// A solid convex polyhedron.
    Polyhedron(Box<ConvexPolyhedron>),
}

/// Why a primitive is unusable.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PrimitiveError {
    /// A coordinate or parameter is NaN or infinite.
    #[error("{0}: non-finite coordinate or parameter")]
    NonFinite(&'static str),
    /// A size that must be positive is not.
    #[error("{what} must be > 0 m, got {value}")]
    NonPositive {
        /// Which parameter.
        what: &'static str,
        /// Its value.
        value: f64,
    },
    /// A direction or normal of zero length.
    #[error("{0} has zero length (give a non-zero vector)")]
    ZeroVector(&'static str),
    /// A direction that should be a unit vector is not.
    #[error("{0} must be a unit vector")]
    NotUnit(&'static str),
    /// Coincident ends or corners.
    #[error("{0} is degenerate (coincident or collinear corners)")]
    Degenerate(&'static str),
    /// A rotation that is not orthonormal.
    #[error("ellipsoid rotation is not a proper rotation (R^T R ≠ I or det ≠ +1)")]
    NotRotation,
}

impl Primitive {
    /// Its kind.
    pub fn kind(&self) -> PrimitiveKind {
        match self {
            Primitive::Point(_) => PrimitiveKind::Point,
            Primitive::Plane { .. } => PrimitiveKind::Plane,
            Primitive::Segment { .. } => PrimitiveKind::Segment,
            Primitive::Ray { .. } => PrimitiveKind::Ray,
            Primitive::Sphere { .. } => PrimitiveKind::Sphere,
            Primitive::Triangle(_) => PrimitiveKind::Triangle,
            Primitive::Ellipsoid { .. } => PrimitiveKind::Ellipsoid,
            Primitive::Polyhedron(_) => PrimitiveKind::Polyhedron,
        }
    }

    /// Checks finiteness and non-degeneracy (a polyhedron is checked when it is built).
    pub fn validate(&self) -> Result<(), PrimitiveError> {
        let finite = |v: &Vec3, what| {
            if v.iter().all(|c| c.is_finite()) { Ok(()) } else { Err(PrimitiveError::NonFinite(what)) }
        };
        let positive = |value: f64, what| {
            if !value.is_finite() {
                Err(PrimitiveError::NonFinite(what))
            } else if value <= 0.0 {
                Err(PrimitiveError::NonPositive { what, value })
            } else {
                Ok(())
            }
        };
        match self {
            Primitive::Point(p) => finite(p, "point"),
            Primitive::Plane { point, normal } => {
                finite(point, "plane point")?;
                finite(normal, "plane normal")?;
                unit(normal, "plane normal")
            }
            Primitive::Segment { a, b } => {
                finite(a, "segment end a")?;
                finite(b, "segment end b")?;
                if (b - a).norm() <= 1e-12 * (a.norm() + b.norm()).max(1.0) {
                    return Err(PrimitiveError::Degenerate("segment"));
                }
                Ok(())
            }
            Primitive::Ray { origin, direction, length } => {
                finite(origin, "ray origin")?;
                finite(direction, "ray direction")?;
                unit(direction, "ray direction")?;
                positive(*length, "ray length")
            }
            Primitive::Sphere { center, radius } => {
                finite(center, "sphere centre")?;
                positive(*radius, "sphere radius")
            }
            Primitive::Triangle(t) => {
                for v in t {
                    finite(v, "triangle corner")?;
                }
                let n = (t[1] - t[0]).cross(&(t[2] - t[0])).norm();
                let scale = (t[1] - t[0]).norm_squared().max((t[2] - t[0]).norm_squared());
                if n <= 1e-12 * scale || scale == 0.0 {
                    return Err(PrimitiveError::Degenerate("triangle"));
                }
                Ok(())
            }
            Primitive::Ellipsoid { center, rotation, radii } => {
                finite(center, "ellipsoid centre")?;
                if !rotation.iter().all(|c| c.is_finite()) {
                    return Err(PrimitiveError::NonFinite("ellipsoid rotation"));
                }
                if (rotation.transpose() * rotation - Mat3::identity()).norm() > 1e-9 || rotation.determinant() < 0.0 {
                    return Err(PrimitiveError::NotRotation);
                }
                for r in radii.iter() {
                    positive(*r, "ellipsoid semi-axis")?;
                }
                Ok(())
            }
            Primitive::Polyhedron(_) => Ok(()),
        }
    }

    /// Support function `max_{x ∈ shape} u · x` in the group frame (`+∞` for a plane unless
    /// `u` is along its inward normal).
    pub fn support(&self, u: &Vec3) -> f64 {
        match self {
            Primitive::Point(p) => u.dot(p),
            Primitive::Plane { point, normal } => {
                let along = u.dot(normal);
                if (u - along * normal).norm() <= 1e-12 * u.norm() && along <= 0.0 {
                    u.dot(point)
                } else {
                    f64::INFINITY
                }
            }
            Primitive::Segment { a, b } => u.dot(a).max(u.dot(b)),
            Primitive::Ray { origin, direction, length } => u.dot(origin).max(u.dot(&(origin + direction * *length))),
            Primitive::Sphere { center, radius } => u.dot(center) + radius * u.norm(),
            Primitive::Triangle(t) => u.dot(&t[0]).max(u.dot(&t[1])).max(u.dot(&t[2])),
            Primitive::Ellipsoid { center, rotation, radii } => {
                u.dot(center) + (rotation.transpose() * u).component_mul(radii).norm()
            }
            Primitive::Polyhedron(p) => p.support(u).0,
        }
    }

    /// A point inside or on the primitive (for bounding-sphere centres and fitting).
    pub fn anchor(&self) -> Vec3 {
        match self {
            Primitive::Point(p) => *p,
            Primitive::Plane { point, .. } => *point,
            Primitive::Segment { a, b } => 0.5 * (a + b),
            Primitive::Ray { origin, direction, length } => origin + direction * (0.5 * length),
            Primitive::Sphere { center, .. } | Primitive::Ellipsoid { center, .. } => *center,
            Primitive::Triangle(t) => (t[0] + t[1] + t[2]) / 3.0,
            Primitive::Polyhedron(p) => p.center,
        }
    }

    /// Largest distance from `c` to a point of the primitive (`+∞` for a plane).
    pub fn reach(&self, c: &Vec3) -> f64 {
        match self {
            Primitive::Point(p) => (p - c).norm(),
            Primitive::Plane { .. } => f64::INFINITY,
            Primitive::Segment { a, b } => (a - c).norm().max((b - c).norm()),
            Primitive::Ray { origin, direction, length } => {
                (origin - c).norm().max((origin + direction * *length - c).norm())
            }
            Primitive::Sphere { center, radius } => (center - c).norm() + radius,
            Primitive::Triangle(t) => t.iter().map(|v| (v - c).norm()).fold(0.0, f64::max),
            Primitive::Ellipsoid { center, radii, .. } => (center - c).norm() + radii.max(),
            Primitive::Polyhedron(p) => p.vertices.iter().map(|v| (v - c).norm()).fold(0.0, f64::max),
        }
    }

    /// Points that span the primitive (corners, ends, centres) for principal-axis fitting.
    pub fn sample_points(&self, out: &mut Vec<Vec3>) {
        match self {
            Primitive::Point(p) => out.push(*p),
            Primitive::Plane { point, .. } => out.push(*point),
            Primitive::Segment { a, b } => out.extend([*a, *b]),
            Primitive::Ray { origin, direction, length } => out.extend([*origin, origin + direction * *length]),
            Primitive::Sphere { center, radius } => {
                out.extend((0..3).flat_map(|k| [-1.0, 1.0].map(|s| center + Vec3::ith(k, s * radius))))
            }
            Primitive::Triangle(t) => out.extend(t),
            Primitive::Ellipsoid { center, rotation, radii } => {
                out.extend((0..3).flat_map(|k| [-1.0, 1.0].map(|s| center + rotation.column(k) * (s * radii[k]))))
            }
            Primitive::Polyhedron(p) => out.extend(&p.vertices),
        }
    }
}

fn unit(v: &Vec3, what: &'static str) -> Result<(), PrimitiveError> {
    if (v.norm() - 1.0).abs() > 1e-9 {
        if v.norm() == 0.0 {
            return Err(PrimitiveError::ZeroVector(what));
        }
        return Err(PrimitiveError::NotUnit(what));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degenerate_primitives_are_refused() {
        let z = Vec3::zeros();
        assert!(matches!(
            Primitive::Sphere { center: z, radius: 0.0 }.validate(),
            Err(PrimitiveError::NonPositive { what: "sphere radius", .. })
        ));
        assert_eq!(Primitive::Segment { a: z, b: z }.validate(), Err(PrimitiveError::Degenerate("segment")));
        assert_eq!(
            Primitive::Triangle([z, Vec3::x(), 2.0 * Vec3::x()]).validate(),
            Err(PrimitiveError::Degenerate("triangle"))
        );
        assert_eq!(Primitive::Point(Vec3::new(f64::NAN, 0.0, 0.0)).validate(), Err(PrimitiveError::NonFinite("point")));
        assert_eq!(
            Primitive::Plane { point: z, normal: z }.validate(),
            Err(PrimitiveError::ZeroVector("plane normal"))
        );
        let e = Primitive::Ellipsoid { center: z, rotation: 2.0 * Mat3::identity(), radii: Vec3::repeat(1.0) };
        assert_eq!(e.validate(), Err(PrimitiveError::NotRotation));
    }

    #[test]
    fn support_of_an_ellipsoid_is_its_extent() {
        let r = *tumble_math::UnitQuat::from_euler_angles(0.3, -0.2, 0.9).to_rotation_matrix().matrix();
        let e = Primitive::Ellipsoid { center: Vec3::new(1.0, 2.0, 3.0), rotation: r, radii: Vec3::new(3.0, 2.0, 1.0) };
        // Along its own first axis the extent is the first semi-axis.
        let u = r.column(0).into_owned();
        assert!((e.support(&u) - (u.dot(&Vec3::new(1.0, 2.0, 3.0)) + 3.0)).abs() < 1e-12);
    }
}
