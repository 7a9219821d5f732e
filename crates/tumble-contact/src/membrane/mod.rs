//! The convex-hull membrane ("trampoline") of Grip et al., *Modeling and simulation of asteroid
//! capture using a deformable membrane capture device* (DETC2015-47840): a membrane suspended
//! from fixed points whose shape, at every instant, is the convex hull of the suspension points
//! and of the body's vertices that have passed the suspension plane; its internal dynamics are
//! ignored. Energy `½k(A − A₀)²` in the deflected area `A` and a loss `c Ȧ²` give the restoring
//! and damping forces; friction is Coulomb's law applied per contact vertex and normal after the
//! total normal wrench is distributed over the contact normals. See `docs/membrane.md` for the
//! derivation and [`planar`] for the document's 2D model.
//!
//! Frames: everything is expressed in the membrane frame `M`: suspension points in the plane
//! `z = 0` (counter-clockwise about `+z`), the body arriving from `z > 0` and deflecting the
//! membrane towards `z < 0`. The caller gives the body's pose and twist relative to `M`; forces
//! come back in `M`, torques about the body's centre of mass. Whatever carries the suspension
//! points receives exactly the opposite wrench ([`MembraneContact::reaction_about`]): every force
//! here is internal to the pair.
//!
//! Units: `k` in N/m³ (the energy `½k(A − A₀)²` is in J with `A` in m²), `c` in N·s/m³.

mod body_hull;
pub mod distribute;
pub mod planar;

use tumble_geometry::hull::{ConvexHull, HullBuilder};
use tumble_math::nalgebra::SVector;
use tumble_math::{Mat3, Vec3};

pub use body_hull::BodyHull;
pub use distribute::{Distribution, DistributionReport, Distributor};

use crate::laws;

/// Coulomb friction between body and membrane, regularised as in [`laws::friction`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MembraneFriction {
    /// Friction coefficient.
    pub mu: f64,
    /// Regularisation speed, m/s: full `μ F_N` beyond it.
    pub v_star: f64,
    /// How the normal wrench is shared among the contact normals.
    pub distribution: Distribution,
}

/// A membrane suspended from a convex polygon of points.
#[derive(Clone, Debug, PartialEq)]
pub struct Membrane {
    suspension: Vec<Vec3>,
    area0: f64,
    /// Area stiffness `k`, N/m³.
    pub k: f64,
    /// Area damping `c`, N·s/m³.
    pub c: f64,
    /// Friction, if any.
    pub friction: Option<MembraneFriction>,
}

/// The body's motion relative to the membrane frame `M`.
#[derive(Clone, Copy, Debug)]
pub struct RelativeMotion<'a> {
    /// Vertices in the body frame (origin at the centre of mass), m.
    pub vertices: &'a [Vec3],
    /// Radius of a sphere about the centre of mass holding every vertex, m (a quick rejection).
    pub radius: f64,
    /// Rotation from body to `M` coordinates.
    pub R_MB: Mat3,
    /// Centre of mass in `M`, m.
    pub p_MB: Vec3,
    /// Rate of `p_MB` (velocity relative to `M`, in `M`), m/s.
    pub v_MB: Vec3,
    /// Angular velocity of the body relative to `M`, in `M`, rad/s.
    pub w_MB: Vec3,
    /// The body's own convex hull (built once), to leave out vertices that cannot be on the
    /// membrane; `None`: every vertex is considered.
    pub hull: Option<&'a BodyHull>,
}

/// One membrane triangle holding a suspension point, with the document's closed-form forces.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TriangleForce {
    /// Hull point indices: `< n` suspension points, `≥ n` body vertices (see
    /// [`MembraneWorkspace::body_vertex`]).
    pub points: [usize; 3],
    /// Area `A_j`, m².
    pub area: f64,
    /// `f_Nj1`, `f_Nj2`: forces on the body along the edges `ρ_j1`, `ρ_j2`, N (in `M`).
    pub f1: Vec3,
    /// See `f1`.
    pub f2: Vec3,
    /// Torque of `f1` and `f2` about the body's centre of mass, N·m.
    pub torque: Vec3,
    /// The closed form was ill-conditioned (edges within 2e-5 rad of parallel) and the
    /// area-gradient form was used instead; `f1` then holds the whole force.
    pub gradient_form: bool,
}

/// What the membrane does to the body at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MembraneContact {
    /// Some body vertex is below the suspension plane.
    pub in_contact: bool,
    /// Membrane area `A` (suspension-only triangles removed), m²; `A₀` when not in contact.
    pub area: f64,
    /// `Ȧ`, m²/s.
    pub area_rate: f64,
    /// `a = k(A − A₀) + c Ȧ`, N/m: the factor of every normal force.
    pub tension: f64,
    /// Stored energy `½k(A − A₀)²`, J.
    pub energy: f64,
    /// Normal (restoring and damping) force on the body, N, in `M`.
    pub normal_force: Vec3,
    /// Its torque about the body's centre of mass, N·m.
    pub normal_torque: Vec3,
    /// Friction force on the body, N.
    pub friction_force: Vec3,
    /// Its torque about the centre of mass, N·m.
    pub friction_torque: Vec3,
    /// Power of friction on the relative motion (≤ 0), W.
    pub friction_power: f64,
    /// Sum of the (non-negative) normal loads the friction acts on, N: friction is at most
    /// `μ` times this.
    pub distributed_load: f64,
    /// Largest slip speed among the loaded contact normals, m/s.
    pub max_slip: f64,
    /// Body vertices on the membrane.
    pub contact_vertices: usize,
    /// Normal-force distribution diagnostics.
    pub distribution: DistributionReport,
    /// Largest extent of the hull below the suspension plane, m (depth of the deflection).
    pub depth: f64,
    /// The body reaches past the rim: with the body's hull given, the number of its edges that
    /// cross the suspension plane outside the suspension polygon; without, the number of body
    /// vertices below the plane outside the polygon. The model holds while this is zero: a
    /// vertex that crosses the plane outside the polygon joins the hull with a jump in area
    /// (the capture bag's rim would be struck there).
    pub outside_rim: usize,
}

impl MembraneContact {
    /// Total force on the body, N.
    pub fn force(&self) -> Vec3 {
        self.normal_force + self.friction_force
    }

    /// Total torque on the body about its centre of mass, N·m.
    pub fn torque(&self) -> Vec3 {
        self.normal_torque + self.friction_torque
    }

    /// The opposite wrench, on whatever carries the suspension points, as a torque about the
    /// point `o` (in `M`): force `−F`, torque `−(τ + (p_MB − o) × F)`. Exact action and reaction,
    /// including moments.
    pub fn reaction_about(&self, p_MB: &Vec3, o: &Vec3) -> (Vec3, Vec3) {
        let f = self.force();
        (-f, -(self.torque() + (p_MB - o).cross(&f)))
    }
}

/// A membrane triangle of the last evaluation: corners, suspension corners, unit outward
/// normal, area.
#[derive(Clone, Copy, Debug)]
struct Tri {
    t: [usize; 3],
    ns: usize,
    n_hat: Vec3,
    area: f64,
}

/// Buffers reused between evaluations (no allocation once grown).
#[derive(Clone, Debug, Default)]
pub struct MembraneWorkspace {
    hull: HullBuilder,
    out: ConvexHull,
    z: Vec<f64>,
    sides: Vec<(Vec3, f64)>,
    points: Vec<Vec3>,
    vel: Vec<Vec3>,
    body: Vec<usize>,
    on_membrane: Vec<bool>,
    tris: Vec<Tri>,
    /// Per membrane triangle with a suspension point: the closed-form forces (for a = tension).
    pub triangles: Vec<TriangleForce>,
    cols: Vec<SVector<f64, 6>>,
    col_point: Vec<usize>,
    col_normal: Vec<Vec3>,
    loads: Vec<f64>,
    dist: Distributor,
}

impl MembraneWorkspace {
    /// A workspace with room for `membrane` against a body of `body_vertices` vertices, so that
    /// evaluations allocate nothing in the usual case.
    pub fn for_body(membrane: &Membrane, body_vertices: usize) -> Self {
        let mut ws = Self::default();
        let n = membrane.suspension.len() + body_vertices;
        ws.hull.reserve(n, &mut ws.out);
        ws.sides.reserve(membrane.suspension.len());
        for v in [&mut ws.z, &mut ws.loads, &mut ws.dist.z] {
            v.reserve(n);
        }
        for v in [&mut ws.points, &mut ws.vel, &mut ws.col_normal] {
            v.reserve(n);
        }
        ws.body.reserve(n);
        ws.col_point.reserve(n);
        ws.on_membrane.reserve(n);
        ws.dist.passive.reserve(n);
        ws.cols.reserve(n);
        ws.tris.reserve(2 * n);
        ws.triangles.reserve(2 * n);
        ws
    }

    /// Body vertex index of hull point `i` (`None` for a suspension point), for the last
    /// evaluation of a membrane with `n` suspension points.
    pub fn body_vertex(&self, i: usize, n: usize) -> Option<usize> {
        i.checked_sub(n).map(|k| self.body[k])
    }

    /// Hull points of the last evaluation, in `M`.
    pub fn points(&self) -> &[Vec3] {
        &self.points
    }

    /// Membrane triangles of the last evaluation (outward, suspension-only ones removed).
    pub fn membrane_triangles(&self, n: usize) -> impl Iterator<Item = &[usize; 3]> {
        self.out.triangles.iter().filter(move |t| t.iter().any(|&i| i >= n))
    }
}

/// Area gradient of a triangle with respect to its corner `k`: `½ n̂ × (x_{k+2} − x_{k+1})`
/// for corners counter-clockwise about the unit normal `n̂`.
pub fn area_gradient(x: &[Vec3; 3], n_hat: &Vec3, k: usize) -> Vec3 {
    0.5 * n_hat.cross(&(x[(k + 2) % 3] - x[(k + 1) % 3]))
}

/// The document's per-triangle forces for edges `ρ₁ = b₁ − s₁`, `ρ₂ = b₂ − s₂` from suspension
/// points to body vertices (one shared end when the triangle has one suspension point or one
/// body vertex), factor `a` (N/m): `f_Nj1 = F₁e₁`, `f_Nj2 = F₂e₂` with
/// `[F₁; F₂] = −a/(2(1 − b²)) [1 −b; −b 1] [e₁ᵀ; e₂ᵀ] S(ê)(ρ₁ − ρ₂)`, `b = e₁ᵀe₂`, `ê` the unit
/// normal `ρ₁ × ρ₂ / |ρ₁ × ρ₂|` (the document writes `e₁ × e₂`, whose norm is `sin θ`; the
/// derivation of its eq. (3) needs the unit vector). Returns `None` when `1 − b² < 4e-10`
/// (edges within 2e-5 rad of parallel), where the form loses its digits to cancellation.
pub fn closed_form(rho1: &Vec3, rho2: &Vec3, a: f64) -> Option<(Vec3, Vec3)> {
    let (l1, l2) = (rho1.norm(), rho2.norm());
    if l1 == 0.0 || l2 == 0.0 {
        return None;
    }
    let (e1, e2) = (rho1 / l1, rho2 / l2);
    let b = e1.dot(&e2);
    let s2 = 1.0 - b * b;
    if s2 < 4e-10 {
        return None;
    }
    let n = rho1.cross(rho2);
    let e = n / n.norm();
    let u = e.cross(&(rho1 - rho2));
    let (u1, u2) = (e1.dot(&u), e2.dot(&u));
    let g = -a / (2.0 * s2);
    Some((e1 * (g * (u1 - b * u2)), e2 * (g * (u2 - b * u1))))
}

impl Membrane {
    /// A membrane from its suspension points `[x, y]` in `M` (m), a strictly convex polygon,
    /// counter-clockwise about `+z`; area stiffness `k` (N/m³) and damping `c` (N·s/m³).
    pub fn new(suspension: &[[f64; 2]], k: f64, c: f64, friction: Option<MembraneFriction>) -> Result<Self, String> {
        let n = suspension.len();
        if n < 3 {
            return Err(format!("{n} suspension points: at least 3 are needed"));
        }
        if let Some(i) = suspension.iter().position(|p| !(p[0].is_finite() && p[1].is_finite())) {
            return Err(format!("suspension point {i} is not finite"));
        }
        for i in 0..n {
            let (a, b, c) = (suspension[i], suspension[(i + 1) % n], suspension[(i + 2) % n]);
            let turn = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
            if turn <= 0.0 {
                return Err(format!(
                    "suspension points must form a strictly convex polygon, counter-clockwise \
                     about +z: the turn at point {} is not to the left",
                    (i + 1) % n
                ));
            }
        }
        if !(k.is_finite() && k > 0.0) {
            return Err(format!("area stiffness k = {k}: must be positive (N/m^3)"));
        }
        if !(c.is_finite() && c >= 0.0) {
            return Err(format!("area damping c = {c}: must be zero or positive (N*s/m^3)"));
        }
        if let Some(f) = friction {
            if !(f.mu.is_finite() && f.mu >= 0.0) {
                return Err(format!("friction coefficient mu = {}: must be >= 0", f.mu));
            }
            if !(f.v_star.is_finite() && f.v_star > 0.0) {
                return Err(format!("friction speed v_star = {}: must be > 0 (m/s)", f.v_star));
            }
        }
        let area0 = 0.5
            * (0..n)
                .map(|i| {
                    let (a, b) = (suspension[i], suspension[(i + 1) % n]);
                    a[0] * b[1] - a[1] * b[0]
                })
                .sum::<f64>();
        Ok(Self { suspension: suspension.iter().map(|p| Vec3::new(p[0], p[1], 0.0)).collect(), area0, k, c, friction })
    }

    /// A regular polygon of `n` suspension points on a circle of radius `radius` (m), the first
    /// on `+x` (the document's membrane: `n = 6`).
    pub fn regular(n: usize, radius: f64, k: f64, c: f64, friction: Option<MembraneFriction>) -> Result<Self, String> {
        if !(radius.is_finite() && radius > 0.0) {
            return Err(format!("suspension radius {radius}: must be positive (m)"));
        }
        let pts: Vec<[f64; 2]> = (0..n)
            .map(|i| {
                let a = std::f64::consts::TAU * i as f64 / n as f64;
                [radius * a.cos(), radius * a.sin()]
            })
            .collect();
        Self::new(&pts, k, c, friction)
    }

    /// The circumradius of a regular `n`-gon of area `area`.
    pub fn regular_radius(n: usize, area: f64) -> f64 {
        let t = std::f64::consts::TAU / n as f64;
        (2.0 * area / (n as f64 * t.sin())).sqrt()
    }

    /// Leaves out body points strictly inside the pyramid of the suspension polygon and the
    /// deepest body point: they are inside the membrane's hull, so the hull is unchanged. A
    /// point is dropped only when it is inside every side plane by more than 1e-9 of the
    /// pyramid's size, far beyond the rounding of the test; points near a side are kept.
    fn drop_interior(&self, ws: &mut MembraneWorkspace) {
        let n = self.suspension.len();
        if ws.body.len() < 8 || !ws.points.iter().all(|p| p.iter().all(|x| x.is_finite())) {
            return;
        }
        let apex = (n..ws.points.len()).fold(n, |a, i| if ws.points[i].z < ws.points[a].z { i } else { a });
        let d = ws.points[apex];
        let s = &self.suspension;
        let size = s.iter().map(|p| p.norm()).fold(-d.z, f64::max);
        // Inward normals of the side faces (a, b, apex) of a counter-clockwise polygon, and
        // each face's margin.
        ws.sides.clear();
        ws.sides.extend((0..n).map(|j| {
            let (a, b) = (s[j], s[(j + 1) % n]);
            let nrm = (b - a).cross(&(d - a));
            (nrm, nrm.dot(&a) + 1e-9 * size * nrm.norm())
        }));
        let mut keep = n;
        for i in n..ws.points.len() {
            let x = ws.points[i];
            let inside = i != apex && ws.sides.iter().all(|(nrm, c)| nrm.dot(&x) > *c);
            if !inside {
                ws.points[keep] = x;
                ws.vel[keep] = ws.vel[i];
                ws.body[keep - n] = ws.body[i - n];
                keep += 1;
            }
        }
        ws.points.truncate(keep);
        ws.vel.truncate(keep);
        ws.body.truncate(keep - n);
    }

    /// `x` projects into the suspension polygon (boundary included).
    fn inside(&self, x: &Vec3) -> bool {
        let (s, n) = (&self.suspension, self.suspension.len());
        (0..n).all(|j| {
            let (a, b) = (s[j], s[(j + 1) % n]);
            (b.x - a.x) * (x.y - a.y) - (b.y - a.y) * (x.x - a.x) >= 0.0
        })
    }

    /// Suspension points in `M`.
    pub fn suspension(&self) -> &[Vec3] {
        &self.suspension
    }

    /// Undeflected area `A₀`, m².
    pub fn area0(&self) -> f64 {
        self.area0
    }

    /// The membrane's action on the body. A non-finite pose (a blown-up state) gives NaN forces,
    /// which the caller's finiteness check turns into a diagnosis.
    pub fn evaluate(&self, body: &RelativeMotion, ws: &mut MembraneWorkspace) -> MembraneContact {
        let n = self.suspension.len();
        let mut out = MembraneContact { area: self.area0, ..Default::default() };
        ws.triangles.clear();
        ws.out.triangles.clear();
        ws.tris.clear();
        if body.p_MB.z - body.radius >= 0.0 {
            return out;
        }
        ws.points.clear();
        ws.vel.clear();
        ws.body.clear();
        ws.points.extend_from_slice(&self.suspension);
        ws.vel.resize(n, Vec3::zeros());
        let mut depth = 0.0_f64;
        let row = body.R_MB.row(2).transpose();
        let mut take = |i: usize, out: &mut MembraneContact, count_rim: bool| {
            let r = &body.vertices[i];
            if body.p_MB.z + row.dot(r) >= 0.0 {
                return;
            }
            let rm = body.R_MB * r;
            let x = body.p_MB + rm;
            if count_rim {
                out.outside_rim += !self.inside(&x) as usize;
            }
            ws.points.push(x);
            ws.vel.push(body.v_MB + body.w_MB.cross(&rm));
            ws.body.push(i);
            depth = depth.max(-x.z);
        };
        match body.hull {
            Some(h) => {
                // Heights of the hull vertices once; the section test and the selection share them.
                ws.z.clear();
                ws.z.extend(h.vertices.iter().map(|&i| body.p_MB.z + row.dot(&body.vertices[i])));
                out.outside_rim = h.section_outside(self, body, &ws.z);
                if out.outside_rim == 0 {
                    for (k, &i) in h.vertices.iter().enumerate() {
                        if ws.z[k] < 0.0 {
                            take(i, &mut out, false);
                        }
                    }
                } else {
                    (0..body.vertices.len()).for_each(|i| take(i, &mut out, false));
                }
            }
            None => (0..body.vertices.len()).for_each(|i| take(i, &mut out, true)),
        }
        if ws.body.is_empty() {
            return out;
        }
        out.in_contact = true;
        out.depth = depth;
        self.drop_interior(ws);
        if ws.hull.build(&ws.points, &mut ws.out).is_err() {
            out.normal_force = Vec3::repeat(f64::NAN);
            return out;
        }
        // Membrane triangles once: suspension corners, unit normal, area; then `A` and `Ȧ`
        // (body-only triangles keep their area: only mixed ones change).
        let (mut area, mut rate) = (0.0, 0.0);
        ws.on_membrane.clear();
        ws.on_membrane.resize(ws.body.len(), false);
        for t in &ws.out.triangles {
            let ns = t.iter().filter(|&&i| i < n).count();
            if ns == 3 {
                continue;
            }
            for &i in t.iter().filter(|&&i| i >= n) {
                ws.on_membrane[i - n] = true;
            }
            let x = t.map(|i| ws.points[i]);
            let nrm = (x[1] - x[0]).cross(&(x[2] - x[0]));
            let len = nrm.norm();
            area += 0.5 * len;
            if len == 0.0 {
                continue;
            }
            let n_hat = nrm / len;
            if ns > 0 {
                for k in 0..3 {
                    rate += area_gradient(&x, &n_hat, k).dot(&ws.vel[t[k]]);
                }
            }
            ws.tris.push(Tri { t: *t, ns, n_hat, area: 0.5 * len });
        }
        let a = self.k * (area - self.area0) + self.c * rate;
        out.contact_vertices = ws.on_membrane.iter().filter(|&&b| b).count();
        out.area = area;
        out.area_rate = rate;
        out.tension = a;
        out.energy = 0.5 * self.k * (area - self.area0).powi(2);
        // Restoring and damping forces, triangle by triangle (closed form).
        let (mut f, mut tau) = (Vec3::zeros(), Vec3::zeros());
        for tri in ws.tris.iter().filter(|tr| tr.ns > 0) {
            let t = tri.t;
            // Rotate the corners so that the pattern is (s, s, b) or (s, b, b).
            let k0 = (0..3)
                .find(|&k| (t[k] < n) && (t[(k + 2) % 3] >= n))
                .expect("a mixed triangle has a suspension corner after a body corner");
            let idx = [t[k0], t[(k0 + 1) % 3], t[(k0 + 2) % 3]];
            let (s1, s2, b1, b2) =
                if tri.ns == 2 { (idx[0], idx[1], idx[2], idx[2]) } else { (idx[0], idx[0], idx[1], idx[2]) };
            let rho1 = ws.points[b1] - ws.points[s1];
            let rho2 = ws.points[b2] - ws.points[s2];
            let (r1, r2) = (ws.points[b1] - body.p_MB, ws.points[b2] - body.p_MB);
            let (f1, f2, torque, gradient_form) = match closed_form(&rho1, &rho2, a) {
                Some((f1, f2)) => (f1, f2, r1.cross(&f1) + r2.cross(&f2), false),
                None => {
                    let x = t.map(|i| ws.points[i]);
                    let (mut fg, mut tg) = (Vec3::zeros(), Vec3::zeros());
                    for k in (0..3).filter(|&k| t[k] >= n) {
                        let fk = -a * area_gradient(&x, &tri.n_hat, k);
                        fg += fk;
                        tg += (x[k] - body.p_MB).cross(&fk);
                    }
                    (fg, Vec3::zeros(), tg, true)
                }
            };
            f += f1 + f2;
            tau += torque;
            ws.triangles.push(TriangleForce { points: t, area: tri.area, f1, f2, torque, gradient_form });
        }
        out.normal_force = f;
        out.normal_torque = tau;
        if let Some(fr) = self.friction {
            self.friction(body, fr, &mut out, ws);
        }
        out
    }

    /// Distributes the normal wrench over the inward normals of the membrane triangles at each
    /// contact vertex and applies Coulomb friction per vertex and normal, the slip being the
    /// vertex velocity projected on that triangle.
    fn friction(
        &self,
        body: &RelativeMotion,
        fr: MembraneFriction,
        out: &mut MembraneContact,
        ws: &mut MembraneWorkspace,
    ) {
        let n = self.suspension.len();
        ws.cols.clear();
        ws.col_point.clear();
        ws.col_normal.clear();
        for tri in &ws.tris {
            let inward = -tri.n_hat;
            for &i in tri.t.iter().filter(|&&i| i >= n) {
                let m = (ws.points[i] - body.p_MB).cross(&inward);
                ws.cols.push(SVector::<f64, 6>::from_column_slice(&[inward.x, inward.y, inward.z, m.x, m.y, m.z]));
                ws.col_point.push(i);
                ws.col_normal.push(inward);
            }
        }
        let (fn_, tn) = (out.normal_force, out.normal_torque);
        let w = SVector::<f64, 6>::from_column_slice(&[fn_.x, fn_.y, fn_.z, tn.x, tn.y, tn.z]);
        out.distribution = ws.dist.solve(&ws.cols, &w, fr.distribution, &mut ws.loads);
        let (mut f, mut tau, mut power, mut slip_max, mut total) = (Vec3::zeros(), Vec3::zeros(), 0.0, 0.0, 0.0);
        for j in 0..ws.cols.len() {
            let load = ws.loads[j].max(0.0);
            if load == 0.0 {
                continue;
            }
            total += load;
            let i = ws.col_point[j];
            let nn = ws.col_normal[j];
            let v = ws.vel[i];
            let slip = v - nn * nn.dot(&v);
            slip_max = f64::max(slip_max, slip.norm());
            let fj = laws::friction(fr.mu, load, &slip, fr.v_star);
            f += fj;
            tau += (ws.points[i] - body.p_MB).cross(&fj);
            power += fj.dot(&v);
        }
        out.friction_force = f;
        out.friction_torque = tau;
        out.friction_power = power;
        out.max_slip = slip_max;
        out.distributed_load = total;
    }
}
