//! Gravity of a constant-density polyhedron (Werner & Scheeres 1996, "Exterior gravitation of
//! a polyhedron derived and compared with harmonic and mascon gravitation representations of
//! asteroid 4769 Castalia", Celest. Mech. Dyn. Astron. 65, 313–344).
//!
//! With `rᵢ = vᵢ − p` from the field point to the vertices, per face `f` the dyad
//! `F_f = n_f n_fᵀ` and the solid angle
//! `ω_f = 2 atan2(r₁·(r₂×r₃), r₁r₂r₃ + r₁(r₂·r₃) + r₂(r₃·r₁) + r₃(r₁·r₂))`, and per edge `e`
//! (shared by faces A and B) the dyad `E_e = n_A n_{A,e}ᵀ + n_B n_{B,e}ᵀ` (`n_{A,e}`: outward
//! normal of the edge in face A's plane) and the wire potential
//! `L_e = ln((r₁ + r₂ + |e|)/(r₁ + r₂ − |e|))`:
//!
//! ```text
//! U_WS = ½Gρ [Σ_e r_eᵀE_e r_e L_e − Σ_f r_fᵀF_f r_f ω_f]        (positive; U = −U_WS here)
//! a    = −Gρ Σ_e E_e r_e L_e + Gρ Σ_f F_f r_f ω_f                   (= ∇U_WS = −∇U)
//! ∇a   =  Gρ Σ_e E_e L_e − Gρ Σ_f F_f ω_f,   tr ∇a = −Gρ Σ_f ω_f  (−4πGρ inside, 0 outside)
//! ```
//!
//! `r_e`, `r_f` are any vertex of the edge or face. On an edge itself `E_e r_e = 0` and the
//! term's limit is zero; on a face plane `n_f·r_f = 0` removes the face term: the model is
//! finite on faces, edges and vertices. `L_e` is evaluated as `ln1p(2|e|/(r₁+r₂−|e|))`, which
//! keeps full precision far from the body.
//!
//! The sums run in batches with their own `ln1p` and `atan2` (`batch.rs`); the results are the
//! same bits on every machine and thread count.

mod batch;

use super::Gravity;
use batch::{Rays, Terms};
use std::cell::RefCell;
use std::collections::HashMap;
use tumble_geometry::TriMesh;
use tumble_math::{Mat3, Vec3};

/// Newtonian constant of gravitation, m³/(kg·s²) (CODATA 2018).
pub const G: f64 = 6.674_30e-11;

/// A polyhedron that cannot be used for gravity.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PolyhedronError {
    /// An edge is not shared by exactly two faces.
    #[error(
        "the mesh is not closed: the edge between vertices {0} and {1} (1-based) belongs to {2} face(s), not 2; repair the mesh first"
    )]
    NotClosed(u32, u32, u32),
    /// Neighbouring faces disagree in orientation.
    #[error(
        "the mesh is not consistently oriented at the edge between vertices {0} and {1} (1-based); repair the mesh first"
    )]
    NotOriented(u32, u32),
    /// Negative volume: faces point inward.
    #[error("the mesh is inside out (signed volume {0:e} m³ < 0); repair the mesh to orient it outward")]
    InsideOut(f64),
    /// Density not positive and finite.
    #[error("density must be positive and finite (kg/m³), got {0}")]
    Density(f64),
}

/// Potential, acceleration and gravity-gradient tensor at a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldSample {
    /// Potential energy per unit mass `U` (negative), J/kg.
    pub potential: f64,
    /// Acceleration `−∇U`, m/s².
    pub acceleration: Vec3,
    /// Gradient of the acceleration `∇a = −∇∇U`, 1/s².
    pub gradient: Mat3,
}

/// The gravity field of a constant-density polyhedron, with per-edge and per-face dyads
/// precomputed.
#[derive(Clone, Debug)]
pub struct Polyhedron {
    g_rho: f64,
    vertices: Vec<Vec3>,
    faces: Vec<[u32; 3]>,
    face_dyads: Vec<Mat3>,
    edges: Vec<[u32; 2]>,
    edge_dyads: Vec<Mat3>,
    terms: Box<Terms>,
    mass: f64,
    com: Vec3,
    radius: f64,
}

/// A polyhedron model's terms: `Gρ` (1/s²), the vertices (m), and per face and per edge its
/// vertex indices and dyad.
#[derive(Clone, Copy, Debug)]
pub struct PolyhedronParts<'a> {
    /// `G` times the density, 1/s².
    pub g_rho: f64,
    /// Vertices, m.
    pub vertices: &'a [Vec3],
    /// Faces (vertex indices, outward).
    pub faces: &'a [[u32; 3]],
    /// `n_f n_fᵀ` per face.
    pub face_dyads: &'a [Mat3],
    /// Edges (vertex indices, each once).
    pub edges: &'a [[u32; 2]],
    /// `n_A n_{A,e}ᵀ + n_B n_{B,e}ᵀ` per edge.
    pub edge_dyads: &'a [Mat3],
}

thread_local! {
    /// Per-thread scratch: `rᵢ = vᵢ − p` and `|rᵢ|` for every vertex.
    static SCRATCH: RefCell<Rays> = RefCell::new(Rays::default());
}

impl Polyhedron {
    /// Builds the model from a closed, outward mesh (m) and a density (kg/m³).
    pub fn new(mesh: &TriMesh, density: f64) -> Result<Self, PolyhedronError> {
        if !(density.is_finite() && density > 0.0) {
            return Err(PolyhedronError::Density(density));
        }
        let mut directed: HashMap<[u32; 2], usize> = HashMap::new();
        let mut face_dyads = Vec::with_capacity(mesh.faces.len());
        let mut normals = Vec::with_capacity(mesh.faces.len());
        for (fi, f) in mesh.faces.iter().enumerate() {
            let [a, b, c] = mesh.triangle(fi);
            let n = (b - a).cross(&(c - a)).normalize();
            normals.push(n);
            face_dyads.push(n * n.transpose());
            for k in 0..3 {
                if directed.insert([f[k], f[(k + 1) % 3]], fi).is_some() {
                    return Err(PolyhedronError::NotOriented(f[k] + 1, f[(k + 1) % 3] + 1));
                }
            }
        }
        let mut keys: Vec<[u32; 2]> = directed.keys().copied().collect();
        keys.sort_unstable();
        let mut edges = Vec::with_capacity(keys.len() / 2);
        let mut edge_dyads = Vec::with_capacity(keys.len() / 2);
        for [i, j] in keys {
            let Some(&fb) = directed.get(&[j, i]) else {
                return Err(PolyhedronError::NotClosed(i.min(j) + 1, i.max(j) + 1, 1));
            };
            if i > j {
                continue;
            }
            let fa = directed[&[i, j]];
            let (vi, vj) = (mesh.vertices[i as usize], mesh.vertices[j as usize]);
            // Face A traverses i→j, face B traverses j→i; the outward edge normal is e × n.
            let (na, nb) = (normals[fa], normals[fb]);
            let nae = (vj - vi).cross(&na).normalize();
            let nbe = (vi - vj).cross(&nb).normalize();
            edges.push([i, j]);
            edge_dyads.push(na * nae.transpose() + nb * nbe.transpose());
        }
        let volume = mesh.volume();
        if volume <= 0.0 {
            return Err(PolyhedronError::InsideOut(volume));
        }
        let com = mesh.mass_properties(1.0).com;
        let radius = mesh.vertices.iter().map(|v| (v - com).norm()).fold(0.0, f64::max);
        let edge_terms: Vec<_> = edges.iter().copied().zip(edge_dyads.iter().copied()).collect();
        let face_terms: Vec<_> = mesh.faces.iter().copied().zip(face_dyads.iter().copied()).collect();
        let terms = Box::new(Terms::new(&mesh.vertices, &edge_terms, &face_terms, com));
        Ok(Self {
            g_rho: G * density,
            vertices: mesh.vertices.clone(),
            faces: mesh.faces.clone(),
            face_dyads,
            edges,
            edge_dyads,
            terms,
            mass: density * volume,
            com,
            radius,
        })
    }

    /// Total mass, kg.
    pub fn mass(&self) -> f64 {
        self.mass
    }

    /// Gravitational parameter `GM`, m³/s².
    pub fn mu(&self) -> f64 {
        G * self.mass
    }

    /// The terms [`Polyhedron::sample`] sums (for other evaluators of the same model, e.g. GPU
    /// kernels).
    pub fn parts(&self) -> PolyhedronParts<'_> {
        PolyhedronParts {
            g_rho: self.g_rho,
            vertices: &self.vertices,
            faces: &self.faces,
            face_dyads: &self.face_dyads,
            edges: &self.edges,
            edge_dyads: &self.edge_dyads,
        }
    }

    /// Potential, acceleration and gradient tensor at `p` (m).
    pub fn sample(&self, p: &Vec3) -> FieldSample {
        SCRATCH.with(|r| {
            let t = batch::sums(&self.terms, p, &mut r.borrow_mut());
            let [xx, xy, xz, yy, yz, zz] = t.grad;
            FieldSample {
                potential: -0.5 * self.g_rho * t.u,
                acceleration: self.g_rho * Vec3::from(t.a),
                gradient: self.g_rho * Mat3::new(xx, xy, xz, xy, yy, yz, xz, yz, zz),
            }
        })
    }

    /// Samples every point, in parallel on the current rayon pool. Each point is evaluated
    /// alone, so the results do not depend on the thread count.
    pub fn sample_all(&self, points: &[Vec3]) -> Vec<FieldSample> {
        use rayon::prelude::*;
        points.par_iter().map(|p| self.sample(p)).collect()
    }
}

impl Gravity for Polyhedron {
    fn acceleration(&self, p: &Vec3) -> Vec3 {
        self.sample(p).acceleration
    }
    fn potential(&self, p: &Vec3) -> f64 {
        self.sample(p).potential
    }
    fn field(&self, p: &Vec3) -> FieldSample {
        self.sample(p)
    }
    fn time_scale(&self, p: &Vec3) -> f64 {
        let r = (p - self.com).norm().max(self.radius);
        (r.powi(3) / (G * self.mass)).sqrt()
    }
}

#[cfg(test)]
mod tests;
