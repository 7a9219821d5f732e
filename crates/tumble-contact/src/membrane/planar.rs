//! The document's 2D membrane model (for verification and teaching): a polygon body, a membrane
//! suspended from two points, its shape the convex hull of those points and of the body
//! vertices below the line joining them, with that line removed.
//!
//! Frame: the suspension points lie on the `x` axis, `(x_L, 0)` and `(x_R, 0)` with
//! `x_L < x_R`; the body comes from `y > 0` and deflects the membrane towards `y < 0`. Length
//! `ℓ = Σ ℓⱼ` of the hull's lower chain, `ℓ₀ = x_R − x_L`; energy `½k(ℓ − ℓ₀)²`, loss `c ℓ̇²`,
//! `ℓ̇ = e_Lᵀ ẋ_L + e_Rᵀ ẋ_R` (only the two end segments change length), and the forces
//! `F_L = F_R = −(k(ℓ − ℓ₀) + c ℓ̇)` along `e_L`, `e_R` (unit vectors from each suspension point
//! to the first and last contact vertex) at those vertices. `k` in N/m² (the energy is in J with
//! `ℓ` in m; per unit depth), `c` in N·s/m². Friction: each contact vertex gets the inward
//! normals of its two segments; the normal wrench `[f_N; τ_N]` is distributed over them
//! ([`super::distribute`]) and Coulomb's law applied per normal, the slip being the vertex
//! velocity projected on that segment.

use tumble_geometry::hull::{monotone_chain, orient2d_exact};
use tumble_math::Vec3;
use tumble_math::nalgebra::{SVector, Vector2};

use super::{DistributionReport, Distributor, MembraneFriction};
use crate::laws;

type V2 = Vector2<f64>;

fn cross2(a: &V2, b: &V2) -> f64 {
    a.x * b.y - a.y * b.x
}

/// A membrane between two suspension points on the `x` axis.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanarMembrane {
    left: f64,
    right: f64,
    /// Length stiffness `k`, N/m².
    pub k: f64,
    /// Length damping `c`, N·s/m².
    pub c: f64,
    /// Friction, if any.
    pub friction: Option<MembraneFriction>,
}

/// The body's planar motion relative to the membrane frame.
#[derive(Clone, Copy, Debug)]
pub struct PlanarMotion<'a> {
    /// Polygon vertices in the body frame (origin at the centre of mass), m.
    pub vertices: &'a [V2],
    /// Body angle (body to membrane frame), rad.
    pub angle: f64,
    /// Centre of mass, m.
    pub p: V2,
    /// Its velocity, m/s.
    pub v: V2,
    /// Angular rate, rad/s.
    pub omega: f64,
}

/// What the membrane does to the body.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlanarContact {
    /// Some vertex is below the suspension line.
    pub in_contact: bool,
    /// `ℓ`, m (`ℓ₀` without contact).
    pub length: f64,
    /// `ℓ̇`, m/s.
    pub length_rate: f64,
    /// `k(ℓ − ℓ₀) + c ℓ̇`, N.
    pub tension: f64,
    /// `½k(ℓ − ℓ₀)²`, J.
    pub energy: f64,
    /// Unit vectors `e_L`, `e_R`.
    pub e_l: V2,
    /// See `e_l`.
    pub e_r: V2,
    /// Normal force on the body, N.
    pub normal_force: V2,
    /// Its torque about the centre of mass, N·m.
    pub normal_torque: f64,
    /// Friction force, N.
    pub friction_force: V2,
    /// Its torque, N·m.
    pub friction_torque: f64,
    /// Friction power on the relative motion (≤ 0), W.
    pub friction_power: f64,
    /// Contact vertices.
    pub contact_vertices: usize,
    /// Distribution diagnostics.
    pub distribution: DistributionReport,
}

/// Reusable buffers.
#[derive(Clone, Debug, Default)]
pub struct PlanarWorkspace {
    pts: Vec<V2>,
    vel: Vec<V2>,
    order: Vec<usize>,
    /// The membrane polyline of the last evaluation, indices into [`Self::points`]:
    /// left suspension point, contact vertices, right suspension point.
    pub path: Vec<usize>,
    cols: Vec<SVector<f64, 6>>,
    col_info: Vec<(usize, V2, V2)>,
    loads: Vec<f64>,
    dist: Distributor,
}

impl PlanarWorkspace {
    /// Points of the last evaluation: the two suspension points, then the vertices below.
    pub fn points(&self) -> &[V2] {
        &self.pts
    }
}

impl PlanarMembrane {
    /// Suspension points at `x = left` and `x = right` (m), stiffness `k` (N/m²), damping `c`.
    pub fn new(left: f64, right: f64, k: f64, c: f64, friction: Option<MembraneFriction>) -> Result<Self, String> {
        if !(left.is_finite() && right.is_finite() && left < right) {
            return Err(format!("suspension points {left}, {right}: need left < right"));
        }
        if !(k.is_finite() && k > 0.0 && c.is_finite() && c >= 0.0) {
            return Err(format!("k = {k}, c = {c}: need k > 0 and c >= 0"));
        }
        Ok(Self { left, right, k, c, friction })
    }

    /// `ℓ₀`, m.
    pub fn length0(&self) -> f64 {
        self.right - self.left
    }

    /// The membrane's action on the body. A non-finite pose (a blown-up state) gives NaN forces.
    pub fn evaluate(&self, body: &PlanarMotion, ws: &mut PlanarWorkspace) -> PlanarContact {
        let l0 = self.length0();
        let mut out = PlanarContact { length: l0, ..Default::default() };
        ws.path.clear();
        ws.pts.clear();
        ws.vel.clear();
        ws.pts.push(V2::new(self.left, 0.0));
        ws.pts.push(V2::new(self.right, 0.0));
        ws.vel.resize(2, V2::zeros());
        let (s, c) = body.angle.sin_cos();
        for r in body.vertices {
            let rm = V2::new(c * r.x - s * r.y, s * r.x + c * r.y);
            let x = body.p + rm;
            if x.y < 0.0 {
                ws.pts.push(x);
                ws.vel.push(body.v + body.omega * V2::new(-rm.y, rm.x));
            }
        }
        if ws.pts.len() == 2 {
            return out;
        }
        out.in_contact = true;
        if ws.pts.iter().any(|x| !(x.x.is_finite() && x.y.is_finite())) {
            out.normal_force = V2::repeat(f64::NAN);
            return out;
        }
        ws.order.clear();
        ws.order.extend(0..ws.pts.len());
        let pts = &ws.pts;
        ws.order.sort_by(|&a, &b| pts[a].x.total_cmp(&pts[b].x).then(pts[a].y.total_cmp(&pts[b].y)));
        ws.order.dedup_by(|a, b| pts[*a] == pts[*b]);
        let p = |i: usize| [pts[i].x, pts[i].y];
        let poly = monotone_chain(&ws.order, |a, b, c| orient2d_exact(p(a), p(b), p(c)));
        // Counter-clockwise from the left suspension point to the right one: the lower chain.
        let start = poly.iter().position(|&i| i == 0).expect("suspension points are corners");
        for k in 0..poly.len() {
            let i = poly[(start + k) % poly.len()];
            ws.path.push(i);
            if i == 1 {
                break;
            }
        }
        let path = &ws.path;
        let length: f64 = path.windows(2).map(|w| (pts[w[1]] - pts[w[0]]).norm()).sum();
        let (first, last) = (path[1], path[path.len() - 2]);
        let e_l = (pts[first] - pts[0]).normalize();
        let e_r = (pts[last] - pts[1]).normalize();
        let rate = e_l.dot(&ws.vel[first]) + e_r.dot(&ws.vel[last]);
        let a = self.k * (length - l0) + self.c * rate;
        let (r_l, r_r) = (pts[first] - body.p, pts[last] - body.p);
        out.length = length;
        out.length_rate = rate;
        out.tension = a;
        out.energy = 0.5 * self.k * (length - l0).powi(2);
        out.e_l = e_l;
        out.e_r = e_r;
        out.normal_force = -a * (e_l + e_r);
        out.normal_torque = -a * (cross2(&r_l, &e_l) + cross2(&r_r, &e_r));
        out.contact_vertices = path.len() - 2;
        if let Some(fr) = self.friction {
            ws.cols.clear();
            ws.col_info.clear();
            for k in 1..path.len() - 1 {
                let i = path[k];
                let r = pts[i] - body.p;
                for seg in [(path[k - 1], i), (i, path[k + 1])] {
                    let d = (pts[seg.1] - pts[seg.0]).normalize();
                    let nrm = V2::new(-d.y, d.x);
                    ws.cols.push(SVector::<f64, 6>::new(nrm.x, nrm.y, cross2(&r, &nrm), 0.0, 0.0, 0.0));
                    ws.col_info.push((i, d, r));
                }
            }
            let (f, t) = (out.normal_force, out.normal_torque);
            let w = SVector::<f64, 6>::new(f.x, f.y, t, 0.0, 0.0, 0.0);
            out.distribution = ws.dist.solve(&ws.cols, &w, fr.distribution, &mut ws.loads);
            for (j, &(i, d, r)) in ws.col_info.iter().enumerate() {
                let load = ws.loads[j].max(0.0);
                let v = ws.vel[i];
                let slip = d * d.dot(&v);
                let f3 = laws::friction(fr.mu, load, &Vec3::new(slip.x, slip.y, 0.0), fr.v_star);
                let f = V2::new(f3.x, f3.y);
                out.friction_force += f;
                out.friction_torque += cross2(&r, &f);
                out.friction_power += f.dot(&v);
            }
        }
        out
    }
}
