//! [`BodyHull`]: the corners and edges of a body's convex hull, which are all the membrane's
//! hull needs of the body while its section lies inside the suspension polygon.

use super::{Membrane, RelativeMotion};
use tumble_math::Vec3;

/// A body's convex hull: its corners and edges. While the body's section by the
/// suspension plane lies inside the suspension polygon, the membrane's hull is the hull of the
/// suspension points and of the body's *hull* vertices below the plane: the body's part below
/// the plane is the hull of those vertices and of the section, and the section lies inside
/// the suspension polygon. Other vertices are then left out, exactly.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BodyHull {
    /// The hull's corners (indices into the body's vertices).
    pub(super) vertices: Vec<usize>,
    /// Neighbours of corner `k` (positions in `vertices`): `next[start[k]..start[k + 1]]`.
    start: Vec<usize>,
    next: Vec<usize>,
}

impl BodyHull {
    /// The hull of `vertices` (body frame); `None` for a flat or degenerate body.
    pub fn new(vertices: &[Vec3]) -> Option<Self> {
        let h = tumble_geometry::hull::convex_hull(vertices).ok().filter(|h| h.dimension == 3)?;
        // The triangles' corners: the extreme vertices and any boundary point the
        // triangulation kept on a flat face (a superset of the extreme ones is just as exact).
        let mut corners: Vec<usize> = h.triangles.iter().flatten().copied().collect();
        corners.sort_unstable();
        corners.dedup();
        let at = |i: usize| corners.binary_search(&i).unwrap_or_default();
        // Both directions of every edge, grouped by their first corner.
        let mut edges: Vec<[usize; 2]> = h
            .triangles
            .iter()
            .flat_map(|t| (0..3).flat_map(move |k| [[at(t[k]), at(t[(k + 1) % 3])], [at(t[(k + 1) % 3]), at(t[k])]]))
            .collect();
        edges.sort_unstable();
        edges.dedup();
        let mut start = vec![0; corners.len() + 1];
        for e in &edges {
            start[e[0] + 1] += 1;
        }
        for k in 0..corners.len() {
            start[k + 1] += start[k];
        }
        Some(Self { vertices: corners, start, next: edges.iter().map(|e| e[1]).collect() })
    }

    /// Hull corners (indices into the body's vertices).
    pub fn vertices(&self) -> &[usize] {
        &self.vertices
    }

    /// How many points where a hull edge meets the suspension plane project outside the
    /// suspension polygon (none: the whole section lies inside); `z`: heights of the hull
    /// vertices above the plane.
    pub(super) fn section_outside(&self, m: &Membrane, body: &RelativeMotion, z: &[f64]) -> usize {
        let mut outside = 0;
        // Each crossing edge once, from its corner below the plane.
        for (a, &za) in z.iter().enumerate() {
            if za >= 0.0 {
                continue;
            }
            for &b in &self.next[self.start[a]..self.start[a + 1]] {
                let zb = z[b];
                if zb < 0.0 {
                    continue;
                }
                let (xa, xb) =
                    (body.R_MB * body.vertices[self.vertices[a]], body.R_MB * body.vertices[self.vertices[b]]);
                let c = body.p_MB + xa + (xb - xa) * (za / (za - zb));
                outside += !m.inside(&c) as usize;
            }
        }
        outside
    }
}
