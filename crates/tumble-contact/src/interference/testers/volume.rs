//! Interference-volume accumulation shared by the volumetric testers: the boundary of the
//! intersection `I = A ∩ B` is given polygon by polygon (convex, counter-clockwise seen from
//! outside `I`), each tagged with the body whose surface it lies on.
//!
//! - volume and centroid: tetrahedra from a reference point `r` over each polygon's fan;
//! - `S = Σ_{polygons on ∂A} a n` (area vectors) and `M = Σ_{on ∂A} c × a n` (face centroids
//!   `c`): the rate kernel of [`super::Contact`]; as `I` is closed, `Σ_{∂A} = −Σ_{∂B}`, so
//!   polygons on `∂B` alone suffice when that is easier (then `S`, `M` are negated sums).

use super::Contact;
use tumble_math::Vec3;

pub(crate) struct VolumeAcc {
    r: Vec3,
    volume: f64,
    moment: Vec3,
    s: Vec3,
    m: Vec3,
    /// Sum of the areas added to `s` (to tell a vanishing `s` from round-off).
    area: f64,
}

impl VolumeAcc {
    pub(crate) fn new(r: Vec3) -> Self {
        Self { r, volume: 0.0, moment: Vec3::zeros(), s: Vec3::zeros(), m: Vec3::zeros(), area: 0.0 }
    }

    /// Adds a boundary polygon; `sign` is `+1` for a polygon on `∂A`, `−1` to add a polygon of
    /// `∂B` to `S` and `M` with the opposite sign, `0` to count it in the volume only.
    pub(crate) fn polygon(&mut self, ring: &[Vec3], sign: f64) {
        if ring.len() < 3 {
            return;
        }
        let v0 = ring[0];
        for w in 1..ring.len() - 1 {
            let (v1, v2) = (ring[w], ring[w + 1]);
            let tet = (v0 - self.r).dot(&(v1 - self.r).cross(&(v2 - self.r))) / 6.0;
            self.volume += tet;
            self.moment += tet * 0.25 * (self.r + v0 + v1 + v2);
            if sign != 0.0 {
                let a = 0.5 * (v1 - v0).cross(&(v2 - v0));
                self.s += sign * a;
                self.area += a.norm();
                self.m += sign * ((v0 + v1 + v2) / 3.0).cross(&a);
            }
        }
    }

    /// The contact (frame of the polygons), or `None` for an empty intersection.
    pub(crate) fn contact(&self, fallback_normal: &Vec3) -> Option<Contact> {
        if self.volume <= 0.0 {
            return None;
        }
        // A body wholly inside the other has no boundary inside it: `s` vanishes up to
        // round-off, and the fallback direction (and no damping) is used.
        let area = self.s.norm();
        let (normal, s, m) = if area > 1e-9 * self.area {
            (self.s / area, self.s, self.m)
        } else {
            (fallback_normal.normalize(), Vec3::zeros(), Vec3::zeros())
        };
        Some(Contact {
            point: self.moment / self.volume,
            normal,
            measure: self.volume,
            volumetric: true,
            rate_s: s,
            rate_m: m,
            sub: 0,
        })
    }
}

/// Sutherland–Hodgman: the part of convex polygon `src` with `n · x ≤ d` into `dst`.
pub(crate) fn clip_polygon(src: &[Vec3], n: &Vec3, d: f64, dst: &mut Vec<Vec3>) {
    dst.clear();
    let Some(last) = src.last() else { return };
    let mut prev = *last;
    let mut hp = n.dot(&prev) - d;
    for x in src {
        let hx = n.dot(x) - d;
        if (hp <= 0.0) != (hx <= 0.0) {
            dst.push(prev + (x - prev) * (hp / (hp - hx)));
        }
        if hx <= 0.0 {
            dst.push(*x);
        }
        prev = *x;
        hp = hx;
    }
}
