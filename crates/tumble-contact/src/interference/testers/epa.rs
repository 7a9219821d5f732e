//! Penetration depth of two convex shapes given by their support mappings, for the pairs with
//! curved or mixed shapes (ellipsoids, and triangle–polyhedron).
//!
//! With `h_X(n) = max_{x∈X} n·x` the support function, the overlap of A and B along a unit
//! direction `n` (pointing from A into B) is `h_A(n) + h_B(−n)`, the support function of the
//! Minkowski difference `D = A − B`. The penetration depth (minimum translational distance) is
//! `δ = min_{|n|=1} h_D(n)`: positive when the origin is inside `D` (the shapes overlap),
//! negative (minus the distance) otherwise.
//!
//! Method: the expanding polytope algorithm (van den Bergen, *Proximity queries and penetration
//! depth computation on 3D game objects*, GDC 2001) on `D`, started from a tetrahedron of support
//! points. Faces carry signed distances, so a start that does not enclose the origin expands
//! towards it; any support query with `h_D(n) < 0` proves separation and stops the search. When
//! the closest face's gap `h_D(n_f) − d_f` is below tolerance, `n_f` is polished by Newton steps
//! on the unit sphere (`∇h_D = s_A(n) − s_B(−n)`; Riemannian Hessian `Tᵀ∇²h_D T − h_D I`,
//! with the ellipsoid's `∇²h = M/√q − (Mn)(Mn)ᵀ/q^{3/2}`, `q = nᵀMn`), each step kept only if it
//! lowers `h_D`; where a flat-sided shape meets a curved one the minimum may sit on a kink of
//! `h_D` (an edge or face normal of the flat one), solved on that feature's normal cone (see
//! `finish`). The reported depth is `h_D(n)` at the final normal — the exact overlap along the
//! reported normal — and the contact point is midway between deepest points `x_A`, `x_B` with
//! `x_A − x_B = δ n` (the curved shape's support point, or for two polytopes the closest face's
//! barycentric witness), so the rate kernel of a depth contact (`S = n`, `M = x × n`) is the
//! derivative of `δ` (envelope theorem: `δ̇ = n · (v_A(x_A) − v_B(x_B))`).

use super::{Contact, Contacts, Frame, Scratch};
use tumble_geometry::convex::ConvexPolyhedron;
use tumble_geometry::primitive::Primitive;
use tumble_math::{Mat3, Vec3};

/// A convex shape in the tester's frame A, described by its support mapping.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Shape<'a> {
    /// A point.
    Point(Vec3),
    /// A line segment.
    Segment(Vec3, Vec3),
    /// A triangle.
    Triangle([Vec3; 3]),
    /// An ellipsoid `{x : (x − c)ᵀ M⁻¹ (x − c) ≤ 1}`, `M = R diag(r²) Rᵀ` (a ball: `M = r² I`).
    Ellipsoid { c: Vec3, m: Mat3 },
    /// A convex polyhedron in its own frame, and the map of that frame into A.
    Polyhedron(&'a ConvexPolyhedron, Frame),
}

impl<'a> Shape<'a> {
    /// Primitive `p`, given in a frame that `X` maps into A; `None` for unbounded primitives
    /// (plane, ray) that have closed-form testers instead.
    pub(crate) fn of(p: &'a Primitive, X: &Frame) -> Option<Shape<'a>> {
        Some(match p {
            Primitive::Point(x) => Shape::Point(X.point(x)),
            Primitive::Segment { a, b } => Shape::Segment(X.point(a), X.point(b)),
            Primitive::Triangle(t) => Shape::Triangle(t.map(|v| X.point(&v))),
            Primitive::Sphere { center, radius } => {
                Shape::Ellipsoid { c: X.point(center), m: Mat3::identity() * (radius * radius) }
            }
            Primitive::Ellipsoid { center, rotation, radii } => {
                let r = X.R * rotation;
                let d = Mat3::from_diagonal(&radii.component_mul(radii));
                Shape::Ellipsoid { c: X.point(center), m: r * d * r.transpose() }
            }
            Primitive::Polyhedron(p) => Shape::Polyhedron(p, *X),
            Primitive::Plane { .. } | Primitive::Ray { .. } => return None,
        })
    }

    /// A point of the shape (its centre).
    fn center(&self) -> Vec3 {
        match self {
            Shape::Point(x) => *x,
            Shape::Segment(a, b) => 0.5 * (a + b),
            Shape::Triangle(t) => (t[0] + t[1] + t[2]) / 3.0,
            Shape::Ellipsoid { c, .. } => *c,
            Shape::Polyhedron(p, X) => X.point(&p.center),
        }
    }

    /// A point `s(n)` of the shape farthest along `n` (`n` need not be unit).
    fn support(&self, n: &Vec3) -> Vec3 {
        match self {
            Shape::Point(x) => *x,
            Shape::Segment(a, b) => {
                if n.dot(b) > n.dot(a) {
                    *b
                } else {
                    *a
                }
            }
            Shape::Triangle(t) => {
                let mut best = t[0];
                for v in &t[1..] {
                    if n.dot(v) > n.dot(&best) {
                        best = *v;
                    }
                }
                best
            }
            Shape::Ellipsoid { c, m } => {
                let mn = m * n;
                let q = n.dot(&mn);
                if q > 0.0 { c + mn / q.sqrt() } else { *c }
            }
            Shape::Polyhedron(p, X) => X.point(&p.vertices[p.support(&X.inv_vector(n)).1]),
        }
    }

    /// Whether the support function is piecewise linear (a polytope).
    fn is_flat(&self) -> bool {
        !matches!(self, Shape::Ellipsoid { .. })
    }

    /// Hessian of the support function at `n` (zero for flat-sided shapes, whose support
    /// function is piecewise linear).
    fn hessian(&self, n: &Vec3) -> Mat3 {
        match self {
            Shape::Ellipsoid { m, .. } => {
                let mn = m * n;
                let q = n.dot(&mn);
                if q > 0.0 { m / q.sqrt() - mn * mn.transpose() / (q * q.sqrt()) } else { Mat3::zeros() }
            }
            _ => Mat3::zeros(),
        }
    }
}

/// A face of the expanding polytope: vertex indices (counter-clockwise seen from outside),
/// outward unit normal, signed distance of its plane from the origin.
#[derive(Clone, Copy, Debug)]
struct Face {
    v: [u32; 3],
    n: Vec3,
    d: f64,
}

/// Reusable storage of the expanding polytope: support points of `D` with the support point of
/// A that made each, faces, and the horizon edges of one expansion.
#[derive(Default, Debug)]
pub struct Polytope {
    verts: Vec<(Vec3, Vec3)>,
    faces: Vec<Face>,
    edges: Vec<[u32; 2]>,
    stack: Vec<u32>,
}

/// The result: unit normal from A into B, depth (m) and contact point, in frame A.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Penetration {
    pub normal: Vec3,
    pub depth: f64,
    pub point: Vec3,
}

/// Most polytope expansions; the gap tolerance is met far sooner (tens of steps).
const MAX_EXPANSIONS: usize = 128;

/// `(s_D(n), s_A(n))`.
#[inline]
fn support(a: &Shape, b: &Shape, n: &Vec3) -> (Vec3, Vec3) {
    let sa = a.support(n);
    (sa - b.support(&-n), sa)
}

/// Some unit vector perpendicular to `e`.
fn perpendicular(e: &Vec3) -> Vec3 {
    let t = if e.x.abs() < 0.6 { Vec3::x() } else { Vec3::y() };
    e.cross(&t).normalize()
}

impl Polytope {
    fn add_face(&mut self, v: [u32; 3]) {
        let [a, b, c] = v.map(|i| self.verts[i as usize].0);
        let n = (b - a).cross(&(c - a));
        let len = n.norm();
        // A sliver face (zero area) can never be the closest: give it an infinite distance.
        let face = if len > 0.0 {
            let n = n / len;
            Face { v, n, d: n.dot(&a) }
        } else {
            Face { v, n: Vec3::zeros(), d: f64::INFINITY }
        };
        self.faces.push(face);
    }

    /// Adds support point `w` and replaces the faces that see it — the connected set of them
    /// around face `start`, so that round-off on nearly coplanar faces cannot tear the surface —
    /// by a fan over their horizon; false when `start` does not see it.
    fn expand(&mut self, start: usize, w: (Vec3, Vec3), eps: f64) -> bool {
        let sees = |f: &Face| f.d.is_finite() && f.n.dot(&w.0) - f.d > eps;
        if !sees(&self.faces[start]) {
            return false;
        }
        // Flood fill over shared edges; `edges` collects the directed edges of the visible
        // faces, an edge met from both sides is interior and cancels.
        self.edges.clear();
        self.stack.clear();
        self.stack.push(start as u32);
        self.faces[start].d = f64::NAN;
        while let Some(k) = self.stack.pop() {
            let v = self.faces[k as usize].v;
            for (i, j) in [(0, 1), (1, 2), (2, 0)] {
                let e = [v[i], v[j]];
                if let Some(p) = self.edges.iter().position(|x| *x == [e[1], e[0]]) {
                    self.edges.swap_remove(p);
                    continue;
                }
                // The neighbour across this edge holds it reversed.
                let nb = self.faces.iter().position(|f| {
                    !f.d.is_nan()
                        && (f.v == [e[1], e[0], f.v[2]] || f.v[1..] == [e[1], e[0]] || [f.v[2], f.v[0]] == [e[1], e[0]])
                });
                match nb {
                    Some(nb) if sees(&self.faces[nb]) => {
                        self.faces[nb].d = f64::NAN;
                        self.stack.push(nb as u32);
                        self.edges.push(e);
                    }
                    _ => self.edges.push(e),
                }
            }
        }
        self.faces.retain(|f| !f.d.is_nan());
        let iw = self.verts.len() as u32;
        self.verts.push(w);
        for k in 0..self.edges.len() {
            let [i, j] = self.edges[k];
            self.add_face([i, j, iw]);
        }
        true
    }
}

/// Penetration of A and B (`None` when they are separated or only touch).
pub(crate) fn penetration(a: &Shape, b: &Shape, poly: &mut Polytope) -> Option<Penetration> {
    poly.verts.clear();
    poly.faces.clear();
    // Starting tetrahedron; every support query doubles as a separating-axis test.
    let query = |n: &Vec3| {
        let s = support(a, b, n);
        if s.0.dot(n) < 0.0 { None } else { Some(s) }
    };
    let mut u = b.center() - a.center();
    if u.norm_squared() == 0.0 {
        u = Vec3::x();
    }
    let p0 = query(&u)?;
    let p1 = query(&-u)?;
    let e = p1.0 - p0.0;
    let scale = e.norm();
    if scale.is_nan() || scale <= 0.0 {
        return None;
    }
    let v = perpendicular(&e);
    let mut p2 = query(&v)?;
    let flat = 1e-9 * scale;
    if (p2.0 - p0.0).cross(&e).norm() <= flat * scale {
        p2 = query(&-v)?;
    }
    let m = e.cross(&(p2.0 - p0.0));
    if m.norm() <= flat * scale {
        return None;
    }
    let m = m.normalize();
    let mut p3 = query(&m)?;
    if m.dot(&(p3.0 - p0.0)).abs() <= flat {
        p3 = query(&-m)?;
    }
    if m.dot(&(p3.0 - p0.0)).abs() <= flat {
        return None;
    }
    poly.verts.extend([p0, p1, p2, p3]);
    for (face, other) in [([0, 1, 2], 3), ([0, 3, 1], 2), ([0, 2, 3], 1), ([1, 3, 2], 0)] {
        poly.add_face(face);
        let f = poly.faces.last_mut().expect("just added");
        let inward = f.n.dot(&poly.verts[other].0) > f.d;
        if inward {
            let [i, j, k] = f.v;
            poly.faces.pop();
            poly.add_face([i, k, j]);
        }
    }
    // Two polytopes: the expansion ends on an exact face of `D`. Otherwise the polytope only
    // needs to bring `n` into the basin of the minimum (the result is within the gap of it
    // whatever the basin) and `finish` solves for it; a tight gap would also build faces from
    // nearly coincident points, whose planes round-off tilts.
    let tol = if a.is_flat() && b.is_flat() { 1e-10 } else { 1e-4 } * scale;
    let mut last = Face { d: f64::NEG_INFINITY, ..poly.faces[0] };
    for _ in 0..MAX_EXPANSIONS {
        let (k, f) = poly.faces.iter().enumerate().min_by(|x, y| x.1.d.total_cmp(&y.1.d))?;
        // The closest distance grows with each expansion; a fall is round-off: stop there.
        if f.d < last.d - tol && last.d >= 0.0 {
            break;
        }
        last = *f;
        let w = query(&last.n)?;
        if last.n.dot(&w.0) - last.d <= tol || !poly.expand(k, w, tol) {
            break;
        }
    }
    // Two polytopes: the closest face is exact; its point nearest the origin, `d n`, in
    // barycentric coordinates gives the witness on A.
    let witness = {
        let [p0, p1, p2] = last.v.map(|i| poly.verts[i as usize]);
        let (e1, e2, q) = (p1.0 - p0.0, p2.0 - p0.0, last.n * last.d - p0.0);
        let (d11, d12, d22) = (e1.dot(&e1), e1.dot(&e2), e2.dot(&e2));
        let det = d11 * d22 - d12 * d12;
        let (l1, l2) = ((d22 * e1.dot(&q) - d12 * e2.dot(&q)) / det, (d11 * e2.dot(&q) - d12 * e1.dot(&q)) / det);
        p0.1 + (p1.1 - p0.1) * l1 + (p2.1 - p0.1) * l2
    };
    finish(a, b, last.n, &witness)
}

/// A kink of a flat shape's support function: the normal cone of an edge (a great circle
/// perpendicular to its unit direction) or of a face (its outward normal).
#[derive(Clone, Copy, Debug)]
enum Kink {
    Edge(Vec3),
    Face(Vec3),
}

impl Shape<'_> {
    /// The kinks of the support function around direction `n`: the edges and faces at the
    /// support vertex.
    fn kinks(&self, n: &Vec3, visit: &mut dyn FnMut(Kink)) {
        match self {
            Shape::Segment(a, b) => visit(Kink::Edge((b - a).normalize())),
            Shape::Triangle(t) => {
                let i = (0..3).max_by(|&i, &j| n.dot(&t[i]).total_cmp(&n.dot(&t[j]))).unwrap_or(0);
                visit(Kink::Edge((t[(i + 1) % 3] - t[i]).normalize()));
                visit(Kink::Edge((t[(i + 2) % 3] - t[i]).normalize()));
                let m = (t[1] - t[0]).cross(&(t[2] - t[0])).normalize();
                visit(Kink::Face(if m.dot(n) < 0.0 { -m } else { m }));
            }
            Shape::Polyhedron(p, X) => {
                let v = p.support(&X.inv_vector(n)).1 as u32;
                for e in p.edges.iter().filter(|e| e.contains(&v)) {
                    let d = p.vertices[e[1] as usize] - p.vertices[e[0] as usize];
                    visit(Kink::Edge(X.vector(&d).normalize()));
                }
                for f in 0..p.face_count() {
                    if p.face(f).contains(&v) {
                        visit(Kink::Face(X.vector(&p.normals[f])));
                    }
                }
            }
            Shape::Point(_) | Shape::Ellipsoid { .. } => {}
        }
    }
}

/// The minimum near `n`: Newton steps on the unit sphere from `n`, and, where a flat-sided shape
/// meets a curved one, the minimum over the normal cone of each kink of the flat one's support
/// function near `n` (there `h_D` is not smooth and the polytope approaches only linearly): a
/// great circle perpendicular to an edge (Newton in one angle), or a face's normal. The
/// smallest overlap found wins; the contact is taken along it.
fn finish(a: &Shape, b: &Shape, n: Vec3, witness: &Vec3) -> Option<Penetration> {
    let mut best = newton(a, b, n, None);
    let flat = match (a.is_flat(), b.is_flat()) {
        (true, false) => Some((a, n, 1.0)),
        (false, true) => Some((b, -n, -1.0)),
        _ => None,
    };
    if let Some((shape, dir, sign)) = flat {
        shape.kinks(&dir, &mut |kink| {
            let c = match kink {
                Kink::Edge(e) => {
                    let m = n - e * e.dot(&n);
                    if m.norm() == 0.0 {
                        return;
                    }
                    newton(a, b, m.normalize(), Some(e))
                }
                Kink::Face(m) => {
                    let m = m * sign;
                    (support(a, b, &m).0.dot(&m), m)
                }
            };
            if c.0 < best.0 {
                best = c;
            }
        });
    }
    let (h, n) = best;
    if h.is_nan() || h <= 0.0 {
        return None;
    }
    // The deepest points `x_A − x_B = h n`, from the curved shape's unique support point (a
    // flat side's support may be a whole edge or face).
    let xa = if !a.is_flat() {
        a.support(&n)
    } else if !b.is_flat() {
        b.support(&-n) + n * h
    } else {
        *witness
    };
    Some(Penetration { normal: n, depth: h, point: xa - n * (0.5 * h) })
}

/// Newton steps for the smallest `h_D` on the unit sphere from `n` (on the great circle
/// perpendicular to `edge` when given), backtracking until a step lowers `h_D`: `(h_D, n)`.
fn newton(a: &Shape, b: &Shape, mut n: Vec3, edge: Option<Vec3>) -> (f64, Vec3) {
    let h_d = |n: &Vec3| {
        let w = support(a, b, n).0;
        (w.dot(n), w)
    };
    let (mut h, mut g) = h_d(&n);
    for _ in 0..24 {
        let hess = a.hessian(&n) + b.hessian(&-n);
        // Newton where the Riemannian Hessian is positive definite; elsewhere (far from the
        // minimum, where the shapes' curvature radii are below the depth) a gradient step of
        // length |g| / (‖∇²h_D‖ + h_D), a bound on the Hessian.
        let descent = |gt: Vec3| -gt / (hess.norm() + h.abs());
        let (step, newton) = match edge {
            None => {
                let t1 = perpendicular(&n);
                let t2 = n.cross(&t1);
                let (g1, g2) = (t1.dot(&g), t2.dot(&g));
                let (h11, h12, h22) = (t1.dot(&(hess * t1)) - h, t1.dot(&(hess * t2)), t2.dot(&(hess * t2)) - h);
                let det = h11 * h22 - h12 * h12;
                if h11 > 0.0 && det > 0.0 {
                    (t1 * (-(h22 * g1 - h12 * g2) / det) + t2 * (-(h11 * g2 - h12 * g1) / det), true)
                } else {
                    (descent(t1 * g1 + t2 * g2), false)
                }
            }
            Some(e) => {
                let t = e.cross(&n).normalize();
                let curvature = t.dot(&(hess * t)) - h;
                if curvature > 0.0 { (t * (-t.dot(&g) / curvature), true) } else { (descent(t * t.dot(&g)), false) }
            }
        };
        if !step.iter().all(|x| x.is_finite()) {
            break;
        }
        // Backtracking: the full step, else halves of it, while they lower `h_D`. A short
        // Newton step is taken as it is: near the minimum `h_D` changes by less than its
        // round-off, and the step (from gradients) is the more accurate.
        let mut accepted = None;
        let mut scale = 1.0;
        for _ in 0..12 {
            let trial = (n + step * scale).normalize();
            let (ht, gt) = h_d(&trial);
            if ht < h || (newton && step.norm() < 1e-6 && ht <= h + 1e-12 * h.abs()) {
                accepted = Some((trial, ht, gt));
                break;
            }
            scale *= 0.5;
        }
        let Some(next) = accepted else { break };
        (n, h, g) = next;
        if step.norm() * scale < 1e-15 {
            break;
        }
    }
    (h, n)
}

/// The tester of every pair measured this way: `a` in frame A, `b` mapped by `X_AB`.
pub(super) fn test(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, scratch: &mut Scratch) {
    let (Some(sa), Some(sb)) = (Shape::of(a, &Frame::identity()), Shape::of(b, X_AB)) else { return };
    if let Some(p) = penetration(&sa, &sb, &mut scratch.polytope) {
        out.push(Contact::depth(p.point, p.normal, p.depth, 0));
    }
}

/// The one-sided tester of a triangle `a` (a mesh facet: its front is where
/// `(t₁ − t₀) × (t₂ − t₀)` points) against a solid `b` that meets it, as for sphere–triangle: a
/// solid whose centre is in front gets the minimum translational distance; one whose centre sank
/// behind the plane over the triangle is pushed back out along the normal by its overlap along
/// it, `δ = n·t₀ + h_B(−n)`; one centred behind the plane outside the triangle's prism belongs
/// to the neighbouring facets: no contact.
pub(super) fn test_triangle(a: &Primitive, b: &Primitive, X_AB: &Frame, out: &mut Contacts, scratch: &mut Scratch) {
    let (Primitive::Triangle(t), Some(sb)) = (a, Shape::of(b, X_AB)) else { return };
    let n = (t[1] - t[0]).cross(&(t[2] - t[0])).normalize();
    let c = sb.center();
    let behind = n.dot(&(c - t[0])) < 0.0;
    if behind && (0..3).any(|k| (t[(k + 1) % 3] - t[k]).cross(&(c - t[k])).dot(&n) < 0.0) {
        return;
    }
    let Some(p) = penetration(&Shape::Triangle(*t), &sb, &mut scratch.polytope) else { return };
    if !behind {
        out.push(Contact::depth(p.point, p.normal, p.depth, 0));
        return;
    }
    let deepest = sb.support(&-n);
    let depth = n.dot(&(t[0] - deepest));
    if depth > 0.0 {
        out.push(Contact::depth(deepest + n * (0.5 * depth), n, depth, 0));
    }
}
