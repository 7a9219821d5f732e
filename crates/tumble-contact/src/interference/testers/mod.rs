//! Contact testers, one file per primitive pair (named `first_second.rs`), dispatched from
//! [`TABLE`].
//!
//! A tester `fn(a, b, X_AB, out, scratch)` receives primitive `a` in body frame A, primitive `b`
//! in body frame B and the pose `X_AB` of B in A, and appends [`Contact`]s in frame A with the
//! normal pointing from A into B. The table lists each pair once, in the order of
//! [`PrimitiveKind`]; [`tester`] serves the reversed order by swapping the roles and flipping
//! the results. A pair without a tester is ignored, as in Pong.
//!
//! Which measure each pair uses, and why:
//!
//! | pair | measure |
//! |---|---|
//! | point–plane, point–sphere, point–polyhedron, point–ellipsoid | depth of the point below the surface (closest surface point) |
//! | segment–plane | depth of each end below the plane (a segment lying on a plane gets two contacts) |
//! | segment–sphere | `r` minus the centre's distance to the segment |
//! | segment–polyhedron | minimum translational distance (separating axes: faces, segment × edge directions); on a face axis, the two ends of the part inside, each with its depth below that face; on an edge axis, one contact at the crossed edge |
//! | segment–triangle | depth of the end behind the triangle when the segment pierces it |
//! | ray–plane, ray–sphere, ray–triangle, ray–ellipsoid, ray–polyhedron | plunger travel `L − t_hit` past the first surface along the ray, pushing along the ray |
//! | sphere–sphere, sphere–plane, sphere–triangle, sphere–polyhedron | minimum translational distance (`r` minus the centre's distance, or plus its depth when inside) |
//! | plane–ellipsoid | depth of the ellipsoid's lowest point below the plane |
//! | segment–ellipsoid, sphere–ellipsoid, ellipsoid–ellipsoid, ellipsoid–polyhedron | minimum translational distance by the expanding polytope on support mappings, Newton-polished where both shapes are curved (`epa.rs`) |
//! | triangle–ellipsoid, triangle–polyhedron | as sphere–triangle: minimum translational distance for a solid whose centre is in front of the (one-sided) triangle, depth along the normal for one sunk behind it over the triangle |
//! | plane–polyhedron, polyhedron–polyhedron | interference **volume**, at its centroid, normal along the area vector of A's boundary inside B (volumetric: a face resting on a face has one contact whose centroid carries the moment) |
//!
//! Pairs without a meaningful penetration measure have no tester: point–point, point–segment,
//! point–triangle, segment–segment, triangle–triangle (zero-volume shapes meet on sets of
//! measure zero), plane–plane and plane–triangle (unbounded or one-sided against unbounded).

mod ellipsoid_ellipsoid;
mod ellipsoid_polyhedron;
mod ellipsoid_triangle;
mod epa;
mod plane_ellipsoid;
mod plane_polyhedron;
mod point_ellipsoid;
mod point_plane;
mod point_polyhedron;
mod point_sphere;
mod polyhedron_polyhedron;
mod ray_ellipsoid;
mod ray_plane;
mod ray_polyhedron;
mod ray_sphere;
mod ray_triangle;
mod segment_ellipsoid;
mod segment_plane;
mod segment_polyhedron;
mod segment_sphere;
mod segment_triangle;
mod sphere_ellipsoid;
mod sphere_plane;
mod sphere_polyhedron;
mod sphere_sphere;
mod sphere_triangle;
mod triangle_polyhedron;
mod volume;

use super::contact::{Contact, Contacts, Frame};
use tumble_geometry::primitive::{Primitive, PrimitiveKind};
use tumble_math::Vec3;

/// Per-thread reusable buffers for testers that clip polygons.
#[derive(Default, Debug)]
pub struct Scratch {
    pub(crate) ring: Vec<Vec3>,
    pub(crate) ring2: Vec<Vec3>,
    pub(crate) verts: Vec<Vec3>,
    pub(crate) polytope: epa::Polytope,
}

/// A tester: primitive `a` (frame A), primitive `b` (frame B), `X_AB`, output in frame A.
pub type TesterFn = fn(&Primitive, &Primitive, &Frame, &mut Contacts, &mut Scratch);

use PrimitiveKind as K;

/// What a tester's contacts measure (which law of the contact set applies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// A depth, m (`law`).
    Depth,
    /// An interference volume, m³ (`volume_law`).
    Volume,
}

/// The testers, listed once per unordered pair with the first kind not after the second.
pub const TABLE: &[(PrimitiveKind, PrimitiveKind, TesterFn, Measure)] = &[
    (K::Point, K::Plane, point_plane::test, Measure::Depth),
    (K::Point, K::Sphere, point_sphere::test, Measure::Depth),
    (K::Point, K::Ellipsoid, point_ellipsoid::test, Measure::Depth),
    (K::Point, K::Polyhedron, point_polyhedron::test, Measure::Depth),
    (K::Plane, K::Segment, segment_plane::test_reversed, Measure::Depth),
    (K::Plane, K::Ray, ray_plane::test_reversed, Measure::Depth),
    (K::Plane, K::Sphere, sphere_plane::test_reversed, Measure::Depth),
    (K::Plane, K::Ellipsoid, plane_ellipsoid::test, Measure::Depth),
    (K::Plane, K::Polyhedron, plane_polyhedron::test, Measure::Volume),
    (K::Segment, K::Sphere, segment_sphere::test, Measure::Depth),
    (K::Segment, K::Triangle, segment_triangle::test, Measure::Depth),
    (K::Segment, K::Ellipsoid, segment_ellipsoid::test, Measure::Depth),
    (K::Segment, K::Polyhedron, segment_polyhedron::test, Measure::Depth),
    (K::Ray, K::Sphere, ray_sphere::test, Measure::Depth),
    (K::Ray, K::Triangle, ray_triangle::test, Measure::Depth),
    (K::Ray, K::Ellipsoid, ray_ellipsoid::test, Measure::Depth),
    (K::Ray, K::Polyhedron, ray_polyhedron::test, Measure::Depth),
    (K::Sphere, K::Sphere, sphere_sphere::test, Measure::Depth),
    (K::Sphere, K::Triangle, sphere_triangle::test, Measure::Depth),
    (K::Sphere, K::Ellipsoid, sphere_ellipsoid::test, Measure::Depth),
    (K::Sphere, K::Polyhedron, sphere_polyhedron::test, Measure::Depth),
    (K::Triangle, K::Ellipsoid, ellipsoid_triangle::test, Measure::Depth),
    (K::Triangle, K::Polyhedron, triangle_polyhedron::test, Measure::Depth),
    (K::Ellipsoid, K::Ellipsoid, ellipsoid_ellipsoid::test, Measure::Depth),
    (K::Ellipsoid, K::Polyhedron, ellipsoid_polyhedron::test, Measure::Depth),
    (K::Polyhedron, K::Polyhedron, polyhedron_polyhedron::test, Measure::Volume),
];

/// How to test a pair of kinds.
#[derive(Clone, Copy, Debug)]
pub enum Dispatch {
    /// No tester: the pair is ignored.
    None,
    /// Call the tester with the primitives as given.
    Direct(TesterFn),
    /// Call the tester with the roles swapped and flip the results.
    Swapped(TesterFn),
}

/// The tester for `(a, b)` (a table lookup: the engine asks once per candidate pair).
#[inline]
pub fn tester(a: PrimitiveKind, b: PrimitiveKind) -> Dispatch {
    DISPATCH[a as usize][b as usize]
}

/// [`TABLE`] as a matrix over ordered pairs of kinds.
const DISPATCH: [[Dispatch; PrimitiveKind::COUNT]; PrimitiveKind::COUNT] = {
    let mut m = [[Dispatch::None; PrimitiveKind::COUNT]; PrimitiveKind::COUNT];
    let mut i = 0;
    while i < TABLE.len() {
        let (x, y, f, _) = TABLE[i];
        m[x as usize][y as usize] = Dispatch::Direct(f);
        if x as usize != y as usize {
            m[y as usize][x as usize] = Dispatch::Swapped(f);
        }
        i += 1;
    }
    m
};

/// Whether the pair's measure is a volume (the contact set needs a volumetric law).
pub fn is_volumetric(a: PrimitiveKind, b: PrimitiveKind) -> bool {
    TABLE.iter().any(|&(x, y, _, m)| ((x, y) == (a, b) || (x, y) == (b, a)) && m == Measure::Volume)
}

/// Runs the right tester for `a` (frame A) and `b` (frame B, pose `X_AB`), contacts in frame A.
pub fn run(dispatch: Dispatch, a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, scratch: &mut Scratch) {
    out.clear();
    match dispatch {
        Dispatch::None => {}
        Dispatch::Direct(f) => f(a, b, X_AB, out, scratch),
        Dispatch::Swapped(f) => {
            f(b, a, &X_AB.inverse(), out, scratch);
            for c in out.as_mut_slice() {
                *c = c.swapped(X_AB);
            }
        }
    }
}

/// `(n, d)` of a plane primitive moved by `X`: `n · x = d` on its boundary.
#[inline]
pub(crate) fn plane_in(point: &Vec3, normal: &Vec3, X: &Frame) -> (Vec3, f64) {
    let n = X.vector(normal);
    (n, n.dot(&X.point(point)))
}

/// A unit vector perpendicular to nothing in particular, for coincident centres.
pub(crate) const FALLBACK_NORMAL: Vec3 = Vec3::new(0.0, 0.0, 1.0);

/// A plunger contact (ray A with base `o`, unit direction `d`, length `L`, all in frame A)
/// that met B's surface with outward normal `m` at `t_hit`: travel `L − t_hit` along `d`, rate
/// kernel `S = m / (m · d)` (the hit point slides along the ray as the surface moves:
/// `ṫ = m · (v_B − v_A) / (m · d)`).
pub(crate) fn plunger(out: &mut Contacts, o: &Vec3, d: &Vec3, length: f64, t_hit: f64, m: &Vec3) {
    let x = o + d * t_hit;
    let s = m / m.dot(d);
    out.push(Contact {
        point: x,
        normal: *d,
        measure: length - t_hit,
        volumetric: false,
        rate_s: s,
        rate_m: x.cross(&s),
        sub: 0,
    });
}
