//! Convex hulls of point sets in 3D (and of planar sets), exact in their combinatorics.
//!
//! The 3D hull is Quickhull (Barber, Dobkin & Huhdanpaa 1996): an initial tetrahedron, each
//! face's *outside set* (the points above its plane), the farthest point of an outside set
//! added by replacing the faces it sees with a cone from their horizon, the outside points of
//! the removed faces redistributed over the new ones. Every above/below decision is Shewchuk's
//! adaptive exact `orient3d` (crate `robust`), so the hull is the exact hull of the input
//! coordinates whatever their degeneracy: coplanar and nearly coplanar points, repeated points,
//! points on edges. A point exactly on a face's plane is never outside it, so points inside a
//! face or on an edge are not added.
//!
//! The result is triangulated (as Qhull's `Qt`): a facet with more than three corners comes out
//! as several coplanar triangles. [`ConvexHull::vertices`] lists only the *extreme* points
//! (corners of the polytope, as Qhull's `vertices`): a triangulation vertex lying inside a facet
//! or on an edge of the polytope (possible when such a point was added before the points that
//! cover it) stays in [`ConvexHull::triangles`], where it changes neither area nor volume, but
//! is not a vertex. A vertex of a 3D polytope meets at least three facets, so a triangulation
//! vertex is extreme exactly when at least three of its edges are creases (edges between
//! non-coplanar triangles, decided exactly).
//!
//! Inputs of lower dimension are answered too: all points coplanar (exactly) gives the convex
//! polygon in their plane (`dimension = 2`, triangles a fan over it, one side), collinear gives
//! the two end points, coincident the one point.
//!
//! [`HullBuilder`] keeps its buffers between calls, so hulls computed in a simulation loop do
//! not allocate once the buffers have grown.

use robust::{Coord, Coord3D, orient2d, orient3d};
use tumble_math::Vec3;

const NONE: u32 = u32::MAX;

/// Why no hull could be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum HullError {
    /// No points were given.
    #[error("convex hull of an empty point set")]
    Empty,
    /// A coordinate is NaN or infinite.
    #[error("point {index} has a non-finite coordinate")]
    NonFinite {
        /// Index of the point in the input.
        index: usize,
    },
    /// More points than the 32-bit indices of the builder hold.
    #[error("{0} points: at most 4294967294 are supported")]
    TooMany(usize),
    /// A coordinate beyond [`MAX_MAGNITUDE`]: the exact predicates' products would overflow.
    #[error(
        "point {index} has a coordinate beyond {MAX_MAGNITUDE:e} in magnitude (the hull's exact tests would overflow)"
    )]
    TooLarge {
        /// Index of the point in the input.
        index: usize,
    },
}

/// The largest coordinate magnitude a hull takes: the orientation tests multiply three
/// coordinate differences, which stay finite below about 1e102.
pub const MAX_MAGNITUDE: f64 = 1e100;

/// A convex hull: indices into the input points.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConvexHull {
    /// 3 for a solid hull, 2 for coplanar input, 1 collinear, 0 a single (repeated) point.
    pub dimension: u8,
    /// The extreme points, ascending.
    pub vertices: Vec<usize>,
    /// Triangles, counter-clockwise seen from outside (outward normal `(b − a) × (c − a)`).
    /// For planar input, a fan over the polygon, counter-clockwise about its normal.
    pub triangles: Vec<[usize; 3]>,
    /// For planar input: the polygon's corners in order; empty otherwise.
    pub polygon: Vec<usize>,
}

impl ConvexHull {
    /// Surface area (m² for points in m): the sum of the triangle areas. For planar input the
    /// area of the polygon (one side).
    pub fn area(&self, points: &[Vec3]) -> f64 {
        self.triangles.iter().map(|t| 0.5 * tri_normal(points, t).norm()).sum()
    }

    /// Enclosed volume (zero below dimension 3): divergence theorem over the triangles, taken
    /// about the first vertex to keep the products small.
    pub fn volume(&self, points: &[Vec3]) -> f64 {
        if self.dimension < 3 {
            return 0.0;
        }
        let o = points[self.vertices[0]];
        self.triangles
            .iter()
            .map(|t| (points[t[0]] - o).dot(&(points[t[1]] - o).cross(&(points[t[2]] - o))) / 6.0)
            .sum()
    }
}

/// `(b − a) × (c − a)` of a triangle.
pub fn tri_normal(points: &[Vec3], t: &[usize; 3]) -> Vec3 {
    let a = points[t[0]];
    (points[t[1]] - a).cross(&(points[t[2]] - a))
}

/// The convex hull of `points` (a one-off call; see [`HullBuilder`] to reuse buffers).
pub fn convex_hull(points: &[Vec3]) -> Result<ConvexHull, HullError> {
    let mut hull = ConvexHull::default();
    HullBuilder::default().build(points, &mut hull)?;
    Ok(hull)
}

#[derive(Clone, Copy, Debug)]
struct Face {
    v: [u32; 3],
    /// Neighbour across edge `(v[i], v[i+1])`.
    adj: [u32; 3],
    alive: bool,
    /// Stamp of the last visibility search that found the face visible.
    seen: u32,
    /// First point of the outside set (linked through `HullBuilder::next`).
    head: u32,
    /// Farthest outside point and its (unnormalised) height.
    far: u32,
    far_h: f64,
    /// Unnormalised outward normal `(b − a) × (c − a)` in floating point.
    n: Vec3,
    /// Its permanent: `|e₁ᵧe₂_z| + |e₁_ze₂ᵧ|` and so on, for the error bound of `n·(p − a)`.
    n_abs: Vec3,
}

/// Reusable Quickhull workspace.
#[derive(Clone, Debug, Default)]
pub struct HullBuilder {
    faces: Vec<Face>,
    next: Vec<u32>,
    pending: Vec<u32>,
    stack: Vec<u32>,
    visible: Vec<u32>,
    horizon: Vec<(u32, u32, u32)>,
    new_faces: Vec<u32>,
    start_of: Vec<u32>,
    crease: Vec<u32>,
    order: Vec<usize>,
    stamp: u32,
}

fn c3(p: &Vec3) -> Coord3D<f64> {
    Coord3D { x: p.x, y: p.y, z: p.z }
}

/// Positive when `d` is strictly above the plane of `(a, b, c)` (the side the normal
/// `(b − a) × (c − a)` points to), zero when exactly on it; exact sign.
fn height(a: &Vec3, b: &Vec3, c: &Vec3, d: &Vec3) -> f64 {
    -orient3d(c3(a), c3(b), c3(c), c3(d))
}

/// Relative error bound of `n·(p − a)` against the exact determinant, in units of the
/// permanent: eight roundings (three differences, the cross product's products and difference,
/// the dot product's products and sums) of at most 2⁻⁵³ each, i.e. 8.9e-16, doubled for the
/// rounding of the permanent itself and margin.
const FILTER: f64 = 2e-15;

impl Face {
    /// Sign of the height of `p` above the face's plane, exact: a floating-point evaluation
    /// whose error bound decides almost every case, Shewchuk's adaptive `orient3d` the rest.
    ///
    /// The filter inlined where the hull is built, the exact evaluation a call: which of them
    /// the compiler inlines otherwise depends on how it splits the crate, and the membrane's hulls
    /// took 1.23× as long when it put the filter out of line (`tumble bench --baseline`).
    #[inline]
    fn above(&self, points: &[Vec3], p: &Vec3) -> bool {
        let a = &points[self.v[0] as usize];
        let d = p - a;
        let h = self.n.dot(&d);
        let bound = FILTER * self.n_abs.dot(&d.abs());
        if h > bound {
            return true;
        }
        // A zero bound means every product term is zero, hence the exact determinant too
        // (coplanar suspension points meet this all the time): barring underflow, which needs
        // coordinate differences below 1e-154.
        if h < -bound || bound == 0.0 {
            return false;
        }
        self.above_exactly(points, p)
    }

    /// [`Face::above`] by the exact determinant.
    #[inline(never)]
    fn above_exactly(&self, points: &[Vec3], p: &Vec3) -> bool {
        let [a, b, c] = self.v.map(|k| &points[k as usize]);
        height(a, b, c, p) > 0.0
    }
}

impl HullBuilder {
    /// Gives the builder and `out` empty buffers with room for hulls of up to `points` points,
    /// so that building them allocates nothing in the usual case (the construction's dead faces
    /// included: 8 per point; a rarer hull that needs more grows the buffers once).
    pub fn reserve(&mut self, points: usize, out: &mut ConvexHull) {
        // Fresh buffers of the capacity (not `Vec::reserve`, whose growth path would be shared
        // with `build`'s pushes and change how the compiler inlines them: 14 % slower hulls).
        let (f, n) = (8 * points + 8, points);
        for v in [&mut self.next, &mut self.start_of] {
            *v = Vec::with_capacity(n);
        }
        for v in [&mut self.pending, &mut self.stack, &mut self.visible, &mut self.new_faces, &mut self.crease] {
            *v = Vec::with_capacity(f);
        }
        self.faces = Vec::with_capacity(f);
        self.horizon = Vec::with_capacity(f);
        self.order = Vec::with_capacity(n);
        out.vertices = Vec::with_capacity(n);
        out.triangles = Vec::with_capacity(2 * n);
        out.polygon = Vec::with_capacity(n);
    }

    /// Computes the hull of `points` into `out` (its vectors are reused).
    pub fn build(&mut self, points: &[Vec3], out: &mut ConvexHull) -> Result<(), HullError> {
        out.vertices.clear();
        out.triangles.clear();
        out.polygon.clear();
        out.dimension = 0;
        if points.is_empty() {
            return Err(HullError::Empty);
        }
        if points.len() >= NONE as usize {
            return Err(HullError::TooMany(points.len()));
        }
        if let Some(index) = points.iter().position(|p| !p.iter().all(|x| x.is_finite())) {
            return Err(HullError::NonFinite { index });
        }
        if let Some(index) = points.iter().position(|p| !p.iter().all(|x| x.abs() <= MAX_MAGNITUDE)) {
            return Err(HullError::TooLarge { index });
        }
        let Some(simplex) = self.simplex(points, out) else {
            return Ok(());
        };
        self.faces.clear();
        self.next.clear();
        self.next.resize(points.len(), NONE);
        self.start_of.clear();
        self.start_of.resize(points.len(), NONE);
        self.init_faces(points, simplex);
        for (i, p) in points.iter().enumerate() {
            if simplex.contains(&(i as u32)) {
                continue;
            }
            for f in 0..4 {
                if self.assign(points, f, i as u32, p) {
                    break;
                }
            }
        }
        self.pending.clear();
        self.pending.extend(0..4);
        while let Some(f) = self.pending.pop() {
            let face = self.faces[f as usize];
            if !face.alive || face.head == NONE {
                continue;
            }
            self.add_point(points, f, face.far);
        }
        self.finish(points, out);
        Ok(())
    }

    /// Picks four affinely independent points, or answers the lower-dimensional cases into
    /// `out` and returns `None`.
    fn simplex(&mut self, points: &[Vec3], out: &mut ConvexHull) -> Option<[u32; 4]> {
        // Extremes along the axes, ties broken lexicographically so each is a polytope corner.
        let lex = |a: &Vec3, b: &Vec3| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)).then(a.z.total_cmp(&b.z));
        let mut ext = [0usize; 6];
        for axis in 0..3 {
            let key = |i: usize| {
                let p = &points[i];
                [p[axis], p[(axis + 1) % 3], p[(axis + 2) % 3]]
            };
            let cmp = |i: usize, j: usize| {
                let (a, b) = (key(i), key(j));
                a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])).then(a[2].total_cmp(&b[2]))
            };
            let (mut lo, mut hi) = (0, 0);
            for i in 1..points.len() {
                if cmp(i, lo).is_lt() {
                    lo = i;
                }
                if cmp(i, hi).is_gt() {
                    hi = i;
                }
            }
            ext[2 * axis] = lo;
            ext[2 * axis + 1] = hi;
        }
        let (mut i0, mut i1, mut best) = (ext[0], ext[0], -1.0);
        for a in 0..6 {
            for b in a + 1..6 {
                let d = (points[ext[a]] - points[ext[b]]).norm_squared();
                if d > best {
                    (i0, i1, best) = (ext[a], ext[b], d);
                }
            }
        }
        if best == 0.0 {
            out.dimension = 0;
            out.vertices.push(i0);
            return None;
        }
        let (p0, p1) = (points[i0], points[i1]);
        let dir = p1 - p0;
        let mut i2 = NONE as usize;
        let mut best = -1.0;
        for (i, p) in points.iter().enumerate() {
            let d = dir.cross(&(p - p0)).norm_squared();
            if d > best && !collinear(&p0, &p1, p) {
                (i2, best) = (i, d);
            }
        }
        if i2 == NONE as usize {
            // Collinear: the end points are the lexicographic extremes.
            out.dimension = 1;
            let (mut lo, mut hi) = (0, 0);
            for i in 1..points.len() {
                if lex(&points[i], &points[lo]).is_lt() {
                    lo = i;
                }
                if lex(&points[i], &points[hi]).is_gt() {
                    hi = i;
                }
            }
            out.vertices.extend([lo.min(hi), lo.max(hi)]);
            return None;
        }
        let p2 = points[i2];
        let n = (p1 - p0).cross(&(p2 - p0));
        let mut i3 = NONE as usize;
        let mut best = -1.0;
        for (i, p) in points.iter().enumerate() {
            let d = n.dot(&(p - p0)).abs();
            if d > best && height(&p0, &p1, &p2, p) != 0.0 {
                (i3, best) = (i, d);
            }
        }
        if i3 == NONE as usize {
            self.planar(points, &n, out);
            return None;
        }
        Some([i0 as u32, i1 as u32, i2 as u32, i3 as u32])
    }

    /// The hull of exactly coplanar points with normal `n`: Andrew's monotone chain on the
    /// projection that drops `n`'s largest component (an affine bijection of the plane, so
    /// exact 2D orientations keep one global sign).
    fn planar(&mut self, points: &[Vec3], n: &Vec3, out: &mut ConvexHull) {
        let drop = n.iamax();
        let (u, w) = ((drop + 1) % 3, (drop + 2) % 3);
        let flip = n[drop] < 0.0;
        let xy = |i: usize| Coord { x: points[i][u], y: points[i][w] };
        self.order.clear();
        self.order.extend(0..points.len());
        self.order.sort_by(|&a, &b| {
            let (pa, pb) = (xy(a), xy(b));
            pa.x.total_cmp(&pb.x).then(pa.y.total_cmp(&pb.y))
        });
        self.order.dedup_by(|a, b| xy(*a) == xy(*b));
        let chain = monotone_chain(&self.order, |a, b, c| orient2d(xy(a), xy(b), xy(c)));
        let mut poly = chain;
        if flip {
            poly.reverse();
        }
        out.dimension = 2;
        for k in 1..poly.len().saturating_sub(1) {
            out.triangles.push([poly[0], poly[k], poly[k + 1]]);
        }
        out.vertices.extend(poly.iter().copied());
        out.vertices.sort_unstable();
        out.polygon = poly;
    }

    fn new_face(&mut self, points: &[Vec3], v: [u32; 3]) -> u32 {
        let a = points[v[0] as usize];
        let (e1, e2) = (points[v[1] as usize] - a, points[v[2] as usize] - a);
        let n = e1.cross(&e2);
        let n_abs = Vec3::new(
            (e1.y * e2.z).abs() + (e1.z * e2.y).abs(),
            (e1.z * e2.x).abs() + (e1.x * e2.z).abs(),
            (e1.x * e2.y).abs() + (e1.y * e2.x).abs(),
        );
        self.faces.push(Face {
            v,
            adj: [NONE; 3],
            alive: true,
            seen: 0,
            head: NONE,
            far: NONE,
            far_h: f64::NEG_INFINITY,
            n,
            n_abs,
        });
        (self.faces.len() - 1) as u32
    }

    fn init_faces(&mut self, points: &[Vec3], s: [u32; 4]) {
        let [a, b, c, d] = s;
        let p = |i: u32| &points[i as usize];
        // Orient (a, b, c) so that d lies below it.
        let (b, c) = if height(p(a), p(b), p(c), p(d)) > 0.0 { (c, b) } else { (b, c) };
        let f = [[a, b, c], [a, d, b], [b, d, c], [c, d, a]];
        for v in f {
            self.new_face(points, v);
        }
        for i in 0..4 {
            for e in 0..3 {
                let (u, w) = (f[i][e], f[i][(e + 1) % 3]);
                for j in 0..4 {
                    if j == i {
                        continue;
                    }
                    if (0..3).any(|k| f[j][k] == w && f[j][(k + 1) % 3] == u) {
                        self.faces[i].adj[e] = j as u32;
                    }
                }
            }
        }
    }

    /// Puts point `i` in face `f`'s outside set if it is strictly above it.
    fn assign(&mut self, points: &[Vec3], f: u32, i: u32, p: &Vec3) -> bool {
        let face = &mut self.faces[f as usize];
        if !face.above(points, p) {
            return false;
        }
        self.next[i as usize] = face.head;
        face.head = i;
        let h = face.n.dot(&(p - points[face.v[0] as usize]));
        if h > face.far_h {
            face.far_h = h;
            face.far = i;
        }
        true
    }

    /// Adds the point `eye` (outside face `f`): removes the faces it sees, closes the hole with
    /// a cone and redistributes their outside points.
    fn add_point(&mut self, points: &[Vec3], f: u32, eye: u32) {
        self.stamp = self.stamp.wrapping_add(1).max(1);
        let stamp = self.stamp;
        let pe = points[eye as usize];
        self.visible.clear();
        self.horizon.clear();
        self.stack.clear();
        self.stack.push(f);
        self.faces[f as usize].seen = stamp;
        while let Some(g) = self.stack.pop() {
            self.visible.push(g);
            for e in 0..3 {
                let h = self.faces[g as usize].adj[e];
                let hf = &self.faces[h as usize];
                if hf.seen == stamp {
                    continue;
                }
                if hf.above(points, &pe) {
                    self.faces[h as usize].seen = stamp;
                    self.stack.push(h);
                } else {
                    let v = self.faces[g as usize].v;
                    self.horizon.push((v[e], v[(e + 1) % 3], h));
                }
            }
        }
        // The cone: one face (u, w, eye) per horizon edge (u, w) of a visible face.
        self.new_faces.clear();
        for k in 0..self.horizon.len() {
            let (u, w, h) = self.horizon[k];
            let nf = self.new_face(points, [u, w, eye]);
            self.faces[nf as usize].adj[0] = h;
            let hf = &mut self.faces[h as usize];
            let e = (0..3)
                .find(|&e| hf.v[e] == w && hf.v[(e + 1) % 3] == u)
                .expect("horizon edge belongs to its outer face");
            hf.adj[e] = nf;
            self.start_of[u as usize] = nf;
            self.new_faces.push(nf);
        }
        for k in 0..self.new_faces.len() {
            let nf = self.new_faces[k];
            let w = self.faces[nf as usize].v[1];
            // Across (w, eye): the cone face starting at w; across (eye, u): the one ending at u.
            let after = self.start_of[w as usize];
            self.faces[nf as usize].adj[1] = after;
            self.faces[after as usize].adj[2] = nf;
        }
        for k in 0..self.horizon.len() {
            self.start_of[self.horizon[k].0 as usize] = NONE;
        }
        // Redistribute the outside points of the removed faces.
        for k in 0..self.visible.len() {
            let g = self.visible[k] as usize;
            self.faces[g].alive = false;
            let mut i = self.faces[g].head;
            self.faces[g].head = NONE;
            while i != NONE {
                let nxt = self.next[i as usize];
                if i != eye {
                    let p = points[i as usize];
                    for m in 0..self.new_faces.len() {
                        if self.assign(points, self.new_faces[m], i, &p) {
                            break;
                        }
                    }
                }
                i = nxt;
            }
        }
        for k in 0..self.new_faces.len() {
            let nf = self.new_faces[k];
            if self.faces[nf as usize].head != NONE {
                self.pending.push(nf);
            }
        }
    }

    fn finish(&mut self, points: &[Vec3], out: &mut ConvexHull) {
        out.dimension = 3;
        self.crease.clear();
        self.crease.resize(points.len(), 0);
        for (fi, f) in self.faces.iter().enumerate() {
            if !f.alive {
                continue;
            }
            out.triangles.push([f.v[0] as usize, f.v[1] as usize, f.v[2] as usize]);
            let [a, b, c] = f.v.map(|k| &points[k as usize]);
            for e in 0..3 {
                let g = f.adj[e] as usize;
                if g < fi {
                    continue;
                }
                // Exactly coplanar neighbours make no crease; test the neighbour's far corner.
                let gv = self.faces[g].v;
                let (u, w) = (f.v[e], f.v[(e + 1) % 3]);
                let far = gv.iter().copied().find(|&k| k != u && k != w).unwrap_or(u);
                if height(a, b, c, &points[far as usize]) != 0.0 {
                    self.crease[u as usize] += 1;
                    self.crease[w as usize] += 1;
                }
            }
        }
        for (i, &n) in self.crease.iter().enumerate() {
            if n >= 3 {
                out.vertices.push(i);
            }
        }
    }
}

/// Exact orientation of three points in the plane: positive when `a, b, c` turn left
/// (counter-clockwise), zero when exactly collinear (Shewchuk's adaptive predicate).
pub fn orient2d_exact(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> f64 {
    let p = |v: [f64; 2]| Coord { x: v[0], y: v[1] };
    orient2d(p(a), p(b), p(c))
}

/// Exactly collinear: all three coordinate-plane projections have zero orientation.
fn collinear(a: &Vec3, b: &Vec3, c: &Vec3) -> bool {
    (0..3).all(|k| {
        let (u, w) = (k, (k + 1) % 3);
        let p = |v: &Vec3| Coord { x: v[u], y: v[w] };
        orient2d(p(a), p(b), p(c)) == 0.0
    })
}

/// Andrew's monotone chain over indices sorted by (x, y) without duplicates, `orient(a, b, c)`
/// positive for a left turn. Returns the corners counter-clockwise, collinear points dropped.
pub fn monotone_chain(sorted: &[usize], orient: impl Fn(usize, usize, usize) -> f64) -> Vec<usize> {
    if sorted.len() < 3 {
        return sorted.to_vec();
    }
    let mut hull: Vec<usize> = Vec::with_capacity(2 * sorted.len());
    for pass in 0..2 {
        let start = hull.len();
        for k in 0..sorted.len() {
            let i = if pass == 0 { sorted[k] } else { sorted[sorted.len() - 1 - k] };
            while hull.len() >= start + 2 && orient(hull[hull.len() - 2], hull[hull.len() - 1], i) <= 0.0 {
                hull.pop();
            }
            hull.push(i);
        }
        hull.pop();
    }
    hull
}

#[cfg(test)]
mod tests;
