//! Mass properties of the solid bounded by a closed, outward-oriented mesh at uniform density.
//!
//! Each face `(a, b, c)` spans a signed tetrahedron with a reference point `o` (the vertex
//! centroid, which keeps round-off small for meshes far from the origin). With
//! `A = [a−o, b−o, c−o]` and `d = det A`, its volume is `d/6`, its centroid `o + (a+b+c−3o)/4`,
//! and its second moment `∫ r rᵀ dV = d/120 · (Σᵢ vᵢvᵢᵀ + (Σᵢ vᵢ)(Σᵢ vᵢ)ᵀ)` over the three
//! vertices relative to `o` (the canonical-tetrahedron covariance, e.g. Blow & Binstock,
//! "How to find the inertia tensor (or other mass properties) of a 3D solid body represented by
//! a triangle mesh", 2004). Summing gives exact results for the polyhedron; the inertia about
//! the centre of mass follows from `I = tr(C) 𝟙 − C` with `C` shifted to the centre of mass.

use super::TriMesh;
use crate::MassProperties;
use tumble_math::{Mat3, Vec3};

/// Volume (m³), centroid (m) and second-moment matrix about the centroid (m⁵) of the bounded
/// solid.
pub(crate) fn volume_moments(mesh: &TriMesh) -> (f64, Vec3, Mat3) {
    let n = mesh.vertices.len().max(1) as f64;
    let o = mesh.vertices.iter().fold(Vec3::zeros(), |s, v| s + v) / n;
    let (mut vol, mut first, mut second) = (0.0, Vec3::zeros(), Mat3::zeros());
    for f in 0..mesh.faces.len() {
        let [a, b, c] = mesh.triangle(f).map(|v| v - o);
        let d = a.dot(&b.cross(&c));
        let s = a + b + c;
        vol += d / 6.0;
        first += d / 24.0 * s;
        second += d / 120.0 * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
    }
    let com_rel = if vol != 0.0 { first / vol } else { Vec3::zeros() };
    let c_com = second - vol * com_rel * com_rel.transpose();
    (vol, o + com_rel, c_com)
}

impl TriMesh {
    /// Volume of the bounded solid, m³ (positive for an outward mesh).
    pub fn volume(&self) -> f64 {
        volume_moments(self).0
    }

    /// Mass properties at uniform `density` (kg/m³): mass, centre of mass (in the mesh frame)
    /// and inertia about the centre of mass in the mesh axes. Requires a closed, outward mesh
    /// (see [`TriMesh::report`]); otherwise the numbers mean nothing.
    pub fn mass_properties(&self, density: f64) -> MassProperties {
        let (vol, com, c) = volume_moments(self);
        let c = c * density;
        MassProperties { mass: vol * density, com, inertia: Mat3::identity() * c.trace() - c }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Solid, TriMesh};
    use approx::assert_relative_eq;
    use tumble_math::Vec3;

    #[test]
    fn box_mesh_matches_closed_form_anywhere() {
        let size = [1.0, 2.0, 3.0];
        let exact = Solid::Box { size }.with_density(7.0);
        let offset = Vec3::new(1.0e6, -2.0e5, 3.0e4);
        let mp = TriMesh::cuboid(size).translated(&offset).mass_properties(7.0);
        assert_relative_eq!(mp.mass, exact.mass, max_relative = 1e-12);
        assert_relative_eq!(mp.com, offset, max_relative = 1e-14);
        assert_relative_eq!(mp.inertia, exact.inertia, max_relative = 1e-9, epsilon = 1e-9);
    }

    #[test]
    fn ellipsoid_mesh_converges_to_closed_form() {
        // Inscribed polyhedron: the volume error falls as the faces' sagitta, ~4× a level.
        let semi = [3.0, 2.0, 1.0];
        let exact = Solid::Ellipsoid { semi_axes: semi }.with_density(1.0);
        let err = |lv| (TriMesh::ellipsoid(semi, lv).mass_properties(1.0).mass / exact.mass - 1.0).abs();
        let (e3, e4) = (err(3), err(4));
        assert!(e4 < 1e-2 && e3 / e4 > 3.5 && e3 / e4 < 4.5, "{e3} {e4}");
        let mp = TriMesh::ellipsoid(semi, 5).mass_properties(1.0);
        assert_relative_eq!(mp.inertia, exact.inertia, max_relative = 2e-3, epsilon = 1e-9);
        assert!(mp.com.norm() < 1e-12);
    }
}
