//! Convex polyhedra as contact primitives: corners, polygon faces with outward unit planes, and
//! unique edges, built from a point set by the exact hull ([`crate::hull`]) and checked for
//! convexity.
//!
//! A polyhedron is given by its corners. The hull's coplanar triangles are merged into polygon
//! faces (one plane each), so that separating-axis tests try each facet normal once and a box
//! has 6 faces and 12 edges, not 12 triangles and 18 edges. A point of the input that lies
//! strictly inside the hull (farther than [`CONVEX_TOLERANCE`] × size from its surface) means
//! the input was not convex — a dent — and is refused rather than silently filled in; points on
//! faces or edges (a subdivided face from a modelling tool) are accepted and dropped.

use crate::hull::{HullError, convex_hull, tri_normal};
use tumble_math::{Mat3, Vec3};

/// Relative tolerance (of the polyhedron's size) for coplanarity and convexity decisions.
pub const CONVEX_TOLERANCE: f64 = 1e-9;

/// Why a set of points is not a usable convex polyhedron.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ConvexError {
    /// Fewer than four points, or all points (nearly) coplanar.
    #[error("a convex polyhedron needs four or more points not all in one plane (got {0} spanning {1} dimensions)")]
    Degenerate(usize, u8),
    /// A coordinate is NaN or infinite.
    #[error("vertex {0} has a non-finite coordinate")]
    NonFinite(usize),
    /// A point lies inside the hull of the others: the shape is not convex.
    #[error(
        "not convex: vertex {index} lies {depth:.3e} m inside the convex hull of the others (a dent); split the shape into convex parts"
    )]
    NotConvex {
        /// Index of the point in the input.
        index: usize,
        /// Its distance below the hull surface, m.
        depth: f64,
    },
    /// A coordinate beyond the hull's range ([`crate::hull::MAX_MAGNITUDE`]).
    #[error("vertex {0} has a coordinate beyond {max:e} in magnitude", max = crate::hull::MAX_MAGNITUDE)]
    TooLarge(usize),
    /// A face given with the vertices (a mesh import) is not on the hull's surface.
    #[error("not convex: face {0} does not lie on the convex hull (a concave fold); split the shape into convex parts")]
    FaceInside(usize),
}

impl From<HullError> for ConvexError {
    fn from(e: HullError) -> Self {
        match e {
            HullError::NonFinite { index } => ConvexError::NonFinite(index),
            HullError::TooLarge { index } => ConvexError::TooLarge(index),
            _ => ConvexError::Degenerate(0, 0),
        }
    }
}

/// A convex polyhedron in its own frame.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolyhedron {
    /// Corners, m.
    pub vertices: Vec<Vec3>,
    /// Outward unit normal of each face.
    pub normals: Vec<Vec3>,
    /// Plane offset of each face: `n · x = offset` on the face.
    pub offsets: Vec<f64>,
    /// Face `f`'s corners, counter-clockwise seen from outside, are
    /// `face_vertices[face_start[f]..face_start[f + 1]]`.
    pub face_start: Vec<u32>,
    /// Corner indices of all faces, concatenated.
    pub face_vertices: Vec<u32>,
    /// Unique edges (corner index pairs, lower first).
    pub edges: Vec<[u32; 2]>,
    /// The first edge (index into `edges`) of each set of parallel edges: the edge directions
    /// a separating-axis test needs (a prism's lateral edges are one).
    pub edge_axes: Vec<u32>,
    /// Mean of the corners (an interior point), m.
    pub center: Vec3,
    /// Largest distance of a corner from `center`, m.
    pub radius: f64,
}

impl ConvexPolyhedron {
    /// The polyhedron with corners `points` (see the module docs for what is refused).
    pub fn new(points: &[Vec3]) -> Result<Self, ConvexError> {
        let hull = convex_hull(points)?;
        if hull.dimension < 3 || points.len() < 4 {
            return Err(ConvexError::Degenerate(points.len(), hull.dimension));
        }
        let size = bbox_diagonal(points);
        let tol = CONVEX_TOLERANCE * size;
        // Merge coplanar triangles: triangles sharing an edge whose normals agree.
        let tris = &hull.triangles;
        let normals: Vec<Vec3> = tris.iter().map(|t| tri_normal(points, t).normalize()).collect();
        let mut face_of = vec![usize::MAX; tris.len()];
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for seed in 0..tris.len() {
            if face_of[seed] != usize::MAX {
                continue;
            }
            let g = groups.len();
            face_of[seed] = g;
            let mut members = vec![seed];
            let mut k = 0;
            while k < members.len() {
                let t = members[k];
                for (u, other) in tris.iter().enumerate() {
                    if face_of[u] == usize::MAX
                        && shares_edge(&tris[t], other)
                        && (normals[u] - normals[seed]).norm() < 1e-9
                        && normals[seed].dot(&(points[other[0]] - points[tris[seed][0]])).abs() <= tol
                    {
                        face_of[u] = g;
                        members.push(u);
                    }
                }
                k += 1;
            }
            groups.push(members);
        }
        // Corners only (the hull's extreme points), renumbered.
        let mut corner = vec![u32::MAX; points.len()];
        let mut vertices = Vec::with_capacity(hull.vertices.len());
        for &i in &hull.vertices {
            corner[i] = vertices.len() as u32;
            vertices.push(points[i]);
        }
        let mut poly = ConvexPolyhedron {
            vertices,
            normals: Vec::new(),
            offsets: Vec::new(),
            face_start: vec![0],
            face_vertices: Vec::new(),
            edges: Vec::new(),
            edge_axes: Vec::new(),
            center: Vec3::zeros(),
            radius: 0.0,
        };
        for members in &groups {
            let loop_ = boundary_loop(tris, members);
            let n = members.iter().fold(Vec3::zeros(), |s, &t| s + tri_normal(points, &tris[t])).normalize();
            let ring: Vec<u32> = loop_.iter().filter(|&&v| corner[v] != u32::MAX).map(|&v| corner[v]).collect();
            poly.offsets.push(n.dot(&poly.vertices[ring[0] as usize]));
            poly.normals.push(n);
            for w in 0..ring.len() {
                let (a, b) = (ring[w], ring[(w + 1) % ring.len()]);
                let e = [a.min(b), a.max(b)];
                if !poly.edges.contains(&e) {
                    poly.edges.push(e);
                }
            }
            poly.face_vertices.extend(ring);
            poly.face_start.push(poly.face_vertices.len() as u32);
        }
        poly.edge_axes = poly.parallel_sets();
        poly.center = poly.vertices.iter().sum::<Vec3>() / poly.vertices.len() as f64;
        poly.radius = poly.vertices.iter().map(|v| (v - poly.center).norm()).fold(0.0, f64::max);
        // Convexity: every input point on the surface (a point inside the hull is a dent).
        for (index, p) in points.iter().enumerate() {
            let depth = -poly.signed_distance_inside(p);
            if depth > tol {
                return Err(ConvexError::NotConvex { index, depth });
            }
        }
        Ok(poly)
    }

    /// The polyhedron of a closed mesh (`triangles` index `points`, counter-clockwise from
    /// outside), refusing a mesh that is not convex: a vertex inside the hull, or a triangle
    /// whose centroid is not on the hull surface (a fold).
    pub fn from_mesh(points: &[Vec3], triangles: &[[usize; 3]]) -> Result<Self, ConvexError> {
        let poly = Self::new(points)?;
        let tol = CONVEX_TOLERANCE * bbox_diagonal(points);
        for (f, t) in triangles.iter().enumerate() {
            let c = (points[t[0]] + points[t[1]] + points[t[2]]) / 3.0;
            if poly.signed_distance_inside(&c) < -tol {
                return Err(ConvexError::FaceInside(f));
            }
        }
        Ok(poly)
    }

    /// An axis-aligned box with half extents `half` (m), centred at the origin.
    pub fn cuboid(half: Vec3) -> Self {
        let mut pts = Vec::with_capacity(8);
        for i in 0..8 {
            let s = |b: usize| if i >> b & 1 == 1 { 1.0 } else { -1.0 };
            pts.push(Vec3::new(s(0) * half.x, s(1) * half.y, s(2) * half.z));
        }
        Self::new(&pts).expect("a box with positive half extents is a convex polyhedron")
    }

    /// The same polyhedron moved by the rigid transform `x ↦ R x + t` (`R` a rotation): corners
    /// and planes mapped, the face structure kept (no new hull, so it cannot fail).
    pub fn transformed(&self, R: &Mat3, t: &Vec3) -> Self {
        let vertices: Vec<Vec3> = self.vertices.iter().map(|v| R * v + t).collect();
        let normals: Vec<Vec3> = self.normals.iter().map(|n| R * n).collect();
        let offsets = normals.iter().zip(&self.offsets).map(|(n, d)| d + n.dot(t)).collect();
        ConvexPolyhedron { vertices, normals, offsets, center: R * self.center + t, ..self.clone() }
    }

    /// Number of faces.
    pub fn face_count(&self) -> usize {
        self.normals.len()
    }

    /// Corner indices of face `f`, counter-clockwise from outside.
    pub fn face(&self, f: usize) -> &[u32] {
        &self.face_vertices[self.face_start[f] as usize..self.face_start[f + 1] as usize]
    }

    /// `max_f (n_f · x − offset_f)`: negative inside (minus the distance to the nearest face
    /// plane), positive outside (a lower bound of the distance; exact in a face's region).
    pub fn signed_distance_inside(&self, x: &Vec3) -> f64 {
        let mut best = f64::NEG_INFINITY;
        for (n, d) in self.normals.iter().zip(&self.offsets) {
            best = best.max(n.dot(x) - d);
        }
        best
    }

    /// The face whose plane is nearest above `x` (largest `n · x − offset`), with that value.
    pub fn nearest_face(&self, x: &Vec3) -> (usize, f64) {
        let mut best = (0, f64::NEG_INFINITY);
        for (f, (n, d)) in self.normals.iter().zip(&self.offsets).enumerate() {
            let s = n.dot(x) - d;
            if s > best.1 {
                best = (f, s);
            }
        }
        best
    }

    /// `max_v (u · v)` over the corners (support function), with the corner index.
    pub fn support(&self, u: &Vec3) -> (f64, usize) {
        let mut best = (f64::NEG_INFINITY, 0);
        for (i, v) in self.vertices.iter().enumerate() {
            let s = u.dot(v);
            if s > best.0 {
                best = (s, i);
            }
        }
        best
    }

    /// The first edge of each set of parallel edges (directions within 1e-9 rad).
    fn parallel_sets(&self) -> Vec<u32> {
        let dir = |k: u32| {
            let [a, b] = self.edges[k as usize];
            self.vertices[b as usize] - self.vertices[a as usize]
        };
        let mut first: Vec<u32> = Vec::new();
        for k in 0..self.edges.len() as u32 {
            let d = dir(k);
            if !first.iter().any(|&r| dir(r).cross(&d).norm() <= 1e-9 * dir(r).norm() * d.norm()) {
                first.push(k);
            }
        }
        first
    }

    /// `(min_v u · v, max_v u · v)` over the corners in one pass: the polyhedron's extent along
    /// `u` (the same values as `(−support(−u), support(u))`, bit for bit).
    pub fn extent(&self, u: &Vec3) -> (f64, f64) {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in &self.vertices {
            let s = u.dot(v);
            if s < lo {
                lo = s;
            }
            if s > hi {
                hi = s;
            }
        }
        (lo, hi)
    }

    /// Closest point of the solid polyhedron to `x` and the distance (zero inside).
    pub fn closest_point(&self, x: &Vec3) -> (Vec3, f64) {
        if self.signed_distance_inside(x) <= 0.0 {
            return (*x, 0.0);
        }
        let mut best = (*x, f64::INFINITY);
        for f in 0..self.face_count() {
            if self.normals[f].dot(x) - self.offsets[f] <= 0.0 {
                continue;
            }
            let ring = self.face(f);
            let a = self.vertices[ring[0] as usize];
            for w in 1..ring.len() - 1 {
                let t = [a, self.vertices[ring[w] as usize], self.vertices[ring[w + 1] as usize]];
                let (q, _) = crate::closest::closest_on_triangle(x, &t);
                let d = (q - x).norm();
                if d < best.1 {
                    best = (q, d);
                }
            }
        }
        best
    }

    /// Volume, m³ (divergence theorem over the face fans).
    pub fn volume(&self) -> f64 {
        let mut v = 0.0;
        for f in 0..self.face_count() {
            let ring = self.face(f);
            let a = self.vertices[ring[0] as usize] - self.center;
            for w in 1..ring.len() - 1 {
                let b = self.vertices[ring[w] as usize] - self.center;
                let c = self.vertices[ring[w + 1] as usize] - self.center;
                v += a.dot(&b.cross(&c)) / 6.0;
            }
        }
        v
    }
}

fn bbox_diagonal(points: &[Vec3]) -> f64 {
    let mut lo = Vec3::repeat(f64::INFINITY);
    let mut hi = Vec3::repeat(f64::NEG_INFINITY);
    for p in points {
        lo = lo.inf(p);
        hi = hi.sup(p);
    }
    (hi - lo).norm()
}

fn shares_edge(a: &[usize; 3], b: &[usize; 3]) -> bool {
    a.iter().filter(|v| b.contains(v)).count() == 2
}

/// The boundary of a set of coplanar triangles (a convex polygon) as a vertex loop, keeping the
/// triangles' counter-clockwise orientation.
fn boundary_loop(tris: &[[usize; 3]], members: &[usize]) -> Vec<usize> {
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for &t in members {
        for k in 0..3 {
            edges.push((tris[t][k], tris[t][(k + 1) % 3]));
        }
    }
    let boundary: Vec<(usize, usize)> = edges.iter().copied().filter(|&(a, b)| !edges.contains(&(b, a))).collect();
    let mut ring = vec![boundary[0].0];
    let mut at = boundary[0].1;
    while at != ring[0] && ring.len() <= boundary.len() {
        ring.push(at);
        at = boundary.iter().find(|e| e.0 == at).map_or(ring[0], |e| e.1);
    }
    ring
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn a_box_has_six_faces_twelve_edges_and_its_volume() {
        let b = ConvexPolyhedron::cuboid(Vec3::new(1.0, 2.0, 3.0));
        assert_eq!((b.vertices.len(), b.face_count(), b.edges.len(), b.edge_axes.len()), (8, 6, 12, 3));
        assert_relative_eq!(b.volume(), 48.0, max_relative = 1e-14);
        for f in 0..6 {
            assert_eq!(b.face(f).len(), 4);
            // Counter-clockwise from outside: the fan's normal agrees with the face normal.
            let r = b.face(f);
            let (a, p, q) = (b.vertices[r[0] as usize], b.vertices[r[1] as usize], b.vertices[r[2] as usize]);
            assert!((p - a).cross(&(q - a)).dot(&b.normals[f]) > 0.0);
        }
        assert_relative_eq!(b.signed_distance_inside(&Vec3::new(0.5, 0.0, 0.0)), -0.5);
        for u in [Vec3::new(0.3, -0.8, 0.1), Vec3::new(-1.0, 0.0, 0.0), Vec3::new(0.2, 0.4, -2.0)] {
            assert_eq!(b.extent(&u), (-b.support(&-u).0, b.support(&u).0));
        }
        let (q, d) = b.closest_point(&Vec3::new(2.0, 3.0, 0.0));
        assert_relative_eq!(d, 2f64.sqrt(), max_relative = 1e-14);
        assert_relative_eq!(q, Vec3::new(1.0, 2.0, 0.0));
    }

    #[test]
    fn a_moved_polyhedron_keeps_its_faces_and_planes() {
        let b = ConvexPolyhedron::cuboid(Vec3::new(1.0, 2.0, 3.0));
        let R = *tumble_math::UnitQuat::from_euler_angles(0.3, -0.7, 1.1).to_rotation_matrix().matrix();
        let t = Vec3::new(4.0, -5.0, 6.0);
        let m = b.transformed(&R, &t);
        assert!((m.volume() - 48.0).abs() < 1e-12);
        for f in 0..m.face_count() {
            for &i in m.face(f) {
                // Every corner of a face lies on that face's moved plane.
                assert!((m.normals[f].dot(&m.vertices[i as usize]) - m.offsets[f]).abs() < 1e-12);
            }
        }
        assert!(m.signed_distance_inside(&(R * Vec3::new(0.5, 0.0, 0.0) + t)) + 0.5 < 1e-12);
    }

    #[test]
    fn dents_and_flat_sets_are_refused_points_on_faces_accepted() {
        let mut pts: Vec<Vec3> = ConvexPolyhedron::cuboid(Vec3::repeat(1.0)).vertices;
        pts.push(Vec3::new(0.0, 0.0, 1.0)); // on the top face: fine
        assert_eq!(ConvexPolyhedron::new(&pts).unwrap().vertices.len(), 8);
        pts.push(Vec3::new(0.0, 0.0, 0.9)); // a dent
        assert!(matches!(ConvexPolyhedron::new(&pts), Err(ConvexError::NotConvex { index: 9, .. })));
        let flat = [Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::new(1.0, 1.0, 0.0)];
        assert!(matches!(ConvexPolyhedron::new(&flat), Err(ConvexError::Degenerate(4, 2))));
        let nan = [Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::new(f64::NAN, 0.0, 1.0)];
        assert_eq!(ConvexPolyhedron::new(&nan), Err(ConvexError::NonFinite(3)));
    }
}
