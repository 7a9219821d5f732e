//! The contact patch of a vertex contact: the polygon of the touching vertices, over which the
//! normal load's centre of pressure can move (rolling resistance is that move; see
//! [`crate::vertex_sdf`]).
//!
//! [`crate::vertex_sdf::normal_phase_with`] records the touching vertices on its thread and
//! [`crate::vertex_sdf::tangential_phase`] reads them: the two are always called in that order
//! for one body, and the store is reused (no allocation once it has grown to the most vertices
//! that touch at once).

use std::cell::RefCell;
use tumble_math::Vec3;

thread_local! {
    /// Touching vertices from the centre of mass, W axes, of the last normal phase here.
    static PATCH: RefCell<Vec<Vec3>> = const { RefCell::new(Vec::new()) };
}

/// The patch store of this thread, emptied, for one normal phase to push the touching vertices
/// (from the centre of mass, W axes) into; [`keep`] gives it back. Taken, not borrowed through
/// a closure: the phase's loop stays in the function that calls it, and is compiled with it.
#[inline]
pub(crate) fn take() -> Vec<Vec3> {
    let mut patch = PATCH.with_borrow_mut(std::mem::take);
    patch.clear();
    patch
}

/// Gives the store [`take`] took back to this thread, for [`reach`] to read.
#[inline]
pub(crate) fn keep(patch: Vec<Vec3>) {
    PATCH.with_borrow_mut(|p| *p = patch);
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
pub(crate) fn reach(r_p: &Vec3, n: &Vec3, e: &Vec3) -> f64 {
    let patch = PATCH.with_borrow_mut(std::mem::take);
    let k = reach_over(&patch, r_p, n, e);
    keep(patch);
    k
}

/// [`reach`] over the touching vertices `patch`.
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

    fn patch(points: &[Vec3]) {
        let mut p = take();
        p.extend_from_slice(points);
        keep(p);
    }

    #[test]
    fn the_reach_is_the_exit_from_the_polygon_of_the_touching_vertices() {
        let n = Vec3::z();
        // A square face 0.3 m wide, 0.15 m below the centre of mass: from its centre, 0.15 m
        // along an axis, 0.15√2 m along a diagonal.
        let h = 0.15;
        patch(&[Vec3::new(h, h, -h), Vec3::new(-h, h, -h), Vec3::new(-h, -h, -h), Vec3::new(h, -h, -h)]);
        let r_p = Vec3::new(0.0, 0.0, -h);
        assert!((reach(&r_p, &n, &Vec3::new(0.3, 0.0, 0.0)) - 0.5).abs() < 1e-12);
        assert!((reach(&r_p, &n, &Vec3::new(0.6, 0.6, 0.0)) - 0.25).abs() < 1e-12);
        // Capped at the end of the shift.
        assert_eq!(reach(&r_p, &n, &Vec3::new(0.01, 0.01, 0.0)), 1.0);
        // An edge along x: along it, to its end; across it, nothing.
        patch(&[Vec3::new(h, 0.0, -0.2), Vec3::new(-h, 0.0, -0.2)]);
        let r_p = Vec3::new(0.05, 0.0, -0.2);
        assert!((reach(&r_p, &n, &Vec3::new(0.4, 0.0, 0.0)) - 0.25).abs() < 1e-12);
        assert!(reach(&r_p, &n, &Vec3::new(0.0, 0.01, 0.0)) < 1e-12);
        assert!(reach(&r_p, &n, &Vec3::new(0.01, 0.01, 0.0)) < 1e-12);
        // One corner: nowhere.
        patch(&[Vec3::new(0.1, 0.1, -0.25)]);
        assert_eq!(reach(&Vec3::new(0.1, 0.1, -0.25), &n, &Vec3::new(0.0, 0.01, 0.0)), 0.0);
    }
}
