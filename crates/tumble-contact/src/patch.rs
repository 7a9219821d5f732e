//! The contact patch of a vertex contact: the polygon of the touching vertices, over which the
//! normal load's centre of pressure can move (rolling resistance is that move; see
//! [`crate::vertex_sdf`]).
//!
//! A [`Patch`] belongs to one body's contact: the normal phase
//! ([`crate::vertex_sdf::normal_phase_with`] and its kin) fills it with the touching vertices and
//! [`crate::vertex_sdf::tangential_phase`] reads them. The caller keeps it between calls, so its
//! store is reused (no allocation once it has grown to the most vertices that touch at once).
//! It also holds the normal phase's arrays for a chunk of vertices, so that a call does not
//! clear them anew (a lander's step calls it four times).

use tumble_math::Vec3;

/// Vertices queried together: one call of [`crate::vertex_sdf::ContactField::vertices`] answers
/// this many (a cube's eight corners at once).
pub(crate) const CHUNK: usize = 8;

/// The touching vertices of a body's last normal phase, from its centre of mass, W axes (m).
#[derive(Clone, Debug, Default)]
pub struct Patch {
    vertices: Vec<Vec3>,
    /// The normal phase's working arrays.
    pub(crate) chunk: Chunk,
}

/// A chunk of vertices as the normal phase queries them: arms from the centre of mass and
/// positions (W axes, m), indices, and the field's `(φ, ∇φ)` there.
#[derive(Clone, Debug)]
pub(crate) struct Chunk {
    pub arms: [Vec3; CHUNK],
    pub points: [Vec3; CHUNK],
    pub index: [usize; CHUNK],
    pub at: [(f64, Vec3); CHUNK],
}

impl Default for Chunk {
    fn default() -> Self {
        let zero = Vec3::zeros();
        Chunk { arms: [zero; CHUNK], points: [zero; CHUNK], index: [0; CHUNK], at: [(0.0, zero); CHUNK] }
    }
}

impl Patch {
    /// An empty patch.
    pub fn new() -> Self {
        Self::default()
    }

    /// The touching vertices, from the centre of mass, W axes (m).
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// Empties the patch for a new normal phase (its store kept).
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.vertices.clear();
    }

    /// Adds the chunk's first `touching` arms as touching vertices.
    #[inline]
    pub(crate) fn keep(&mut self, touching: usize) {
        self.vertices.extend_from_slice(&self.chunk.arms[..touching]);
    }

    /// How far along `e` (tangent to the surface of normal `n`), as a fraction of `e` capped at 1,
    /// the centre of pressure can move from `r_p` and stay on the patch: the largest `t ∈ [0, 1]`
    /// with `r_p + t e` in the convex hull of the touching vertices, seen along `n` (0 for one
    /// vertex; 0 across the line of two).
    ///
    /// The ray leaves the hull through one of its edges, and every segment between two vertices
    /// lies in the hull: so the exit is the farthest crossing of the ray with any such segment (or
    /// any vertex on the ray itself). `O(n²)` in the touching vertices; it stops at the first
    /// crossing at or beyond `e`'s end. Seen along `n`, the cross product of two vectors is
    /// `(a × b)·n = b·(n × a)`, which their components along `n` do not change: no vertex is
    /// projected onto the plane.
    #[inline]
    pub(crate) fn reach(&self, r_p: &Vec3, n: &Vec3, e: &Vec3) -> f64 {
        reach_over(&self.vertices, r_p, n, e)
    }
}

/// [`Patch::reach`] over the touching vertices `patch`.
#[inline(always)]
fn reach_over(patch: &[Vec3], r_p: &Vec3, n: &Vec3, e: &Vec3) -> f64 {
    let (ee, ne) = (e.norm_squared(), n.cross(e));
    let mut far: f64 = 0.0;
    for (i, pi) in patch.iter().enumerate() {
        let di = pi - r_p;
        let nd = n.cross(&di);
        // The segment to `pj` crosses the ray at `t = w·nd / den`, along the segment at
        // `u = e·nd / den`: compared multiplied through by `den` (a division only for a
        // crossing farther than the last); one at or beyond `e`'s end settles it.
        let t_e = e.dot(&nd);
        for pj in &patch[i + 1..] {
            let w = pj - pi;
            let den = w.dot(&ne);
            let (t_den, sign) = (w.dot(&nd), den.signum());
            let within = t_e * sign >= 0.0 && t_e * sign <= den * sign;
            if den != 0.0 && within && t_den * sign > far * den * sign {
                if t_den * sign >= den * sign {
                    return 1.0;
                }
                far = t_den / den;
            }
        }
        // A vertex on the ray: |e × d| ≤ 1e-12 |e| |d| (d seen along n).
        let (along, across) = (di.dot(e), di.dot(&ne));
        if along > 0.0 && across * across <= 1e-24 * ee * (di.norm_squared() - n.dot(&di).powi(2)) {
            far = far.max(along / ee);
            if far >= 1.0 {
                return 1.0;
            }
        }
    }
    far
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patch(points: &[Vec3]) -> Patch {
        Patch { vertices: points.to_vec(), ..Patch::new() }
    }

    #[test]
    fn the_reach_is_the_exit_from_the_polygon_of_the_touching_vertices() {
        let n = Vec3::z();
        // A square face 0.3 m wide, 0.15 m below the centre of mass: from its centre, 0.15 m
        // along an axis, 0.15√2 m along a diagonal.
        let h = 0.15;
        let square = patch(&[Vec3::new(h, h, -h), Vec3::new(-h, h, -h), Vec3::new(-h, -h, -h), Vec3::new(h, -h, -h)]);
        let r_p = Vec3::new(0.0, 0.0, -h);
        assert!((square.reach(&r_p, &n, &Vec3::new(0.3, 0.0, 0.0)) - 0.5).abs() < 1e-12);
        assert!((square.reach(&r_p, &n, &Vec3::new(0.6, 0.6, 0.0)) - 0.25).abs() < 1e-12);
        // Capped at the end of the shift.
        assert_eq!(square.reach(&r_p, &n, &Vec3::new(0.01, 0.01, 0.0)), 1.0);
        // An edge along x: along it, to its end; across it, nothing.
        let edge = patch(&[Vec3::new(h, 0.0, -0.2), Vec3::new(-h, 0.0, -0.2)]);
        let r_p = Vec3::new(0.05, 0.0, -0.2);
        assert!((edge.reach(&r_p, &n, &Vec3::new(0.4, 0.0, 0.0)) - 0.25).abs() < 1e-12);
        assert!(edge.reach(&r_p, &n, &Vec3::new(0.0, 0.01, 0.0)) < 1e-12);
        assert!(edge.reach(&r_p, &n, &Vec3::new(0.01, 0.01, 0.0)) < 1e-12);
        // One corner: nowhere.
        let corner = patch(&[Vec3::new(0.1, 0.1, -0.25)]);
        assert_eq!(corner.reach(&Vec3::new(0.1, 0.1, -0.25), &n, &Vec3::new(0.0, 0.01, 0.0)), 0.0);
    }
}
