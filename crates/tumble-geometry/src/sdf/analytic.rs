//! Exact signed distance of primitives (m). Every gradient is the outward unit normal at the
//! closest surface point (where the closest point is unique).
//!
//! Sources: Quilez, "Distance functions" (box, capsule); Eberly, "Distance from a point to an
//! ellipse, an ellipsoid, or a hyperellipsoid" (Geometric Tools, 2013) for the ellipsoid.

use super::Sdf;
use tumble_math::Vec3;

/// Sphere of `radius` about `center`.
#[derive(Clone, Copy, Debug)]
pub struct Sphere {
    /// Centre, m.
    pub center: Vec3,
    /// Radius, m.
    pub radius: f64,
}

impl Sdf for Sphere {
    fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        let d = p - self.center;
        let n = d.norm();
        (n - self.radius, if n > 0.0 { d / n } else { Vec3::z() })
    }
}

/// Half-space below the plane through `point` with outward unit `normal`.
#[derive(Clone, Copy, Debug)]
pub struct HalfSpace {
    /// A point of the plane, m.
    pub point: Vec3,
    /// Outward unit normal.
    pub normal: Vec3,
}

impl Sdf for HalfSpace {
    #[inline]
    fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        ((p - self.point).dot(&self.normal), self.normal)
    }
}

/// Axis-aligned box with half extents `half` (m), centred on the origin.
#[derive(Clone, Copy, Debug)]
pub struct BoxSdf {
    /// Half extents, m.
    pub half: Vec3,
}

impl Sdf for BoxSdf {
    fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        let q = p.abs() - self.half;
        let sign = p.map(|c| if c < 0.0 { -1.0 } else { 1.0 });
        let outside = q.map(|c| c.max(0.0));
        let n = outside.norm();
        if n > 0.0 {
            (n, (outside / n).component_mul(&sign))
        } else {
            // Inside: the nearest face is the axis with the largest (least negative) q.
            let k = q.imax();
            let mut g = Vec3::zeros();
            g[k] = sign[k];
            (q[k], g)
        }
    }
}

/// Capsule: the points within `radius` of the segment `a`–`b`.
#[derive(Clone, Copy, Debug)]
pub struct Capsule {
    /// Segment start, m.
    pub a: Vec3,
    /// Segment end, m.
    pub b: Vec3,
    /// Radius, m.
    pub radius: f64,
}

impl Sdf for Capsule {
    fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        let ab = self.b - self.a;
        let l2 = ab.norm_squared();
        let t = if l2 > 0.0 { ((p - self.a).dot(&ab) / l2).clamp(0.0, 1.0) } else { 0.0 };
        let d = p - (self.a + t * ab);
        let n = d.norm();
        let g = if n > 0.0 { d / n } else { ab.cross(&Vec3::x()).try_normalize(0.0).unwrap_or_else(Vec3::y) };
        (n - self.radius, g)
    }
}

/// Ellipsoid centred on the origin with semi-axes `semi_axes` (m) along x, y, z; exact
/// distance by Eberly's bisection on the Lagrange-multiplier equation (robust for every point,
/// inside or outside, on or near the axes).
#[derive(Clone, Copy, Debug)]
pub struct Ellipsoid {
    /// Semi-axes, m.
    pub semi_axes: Vec3,
}

impl Ellipsoid {
    /// The closest surface point to `p` and the unsigned distance.
    pub fn closest(&self, p: &Vec3) -> (Vec3, f64) {
        // Sort the axes in decreasing size and work in the first octant.
        let mut idx = [0usize, 1, 2];
        idx.sort_by(|&a, &b| self.semi_axes[b].total_cmp(&self.semi_axes[a]));
        let e = idx.map(|i| self.semi_axes[i]);
        let y = idx.map(|i| p[i].abs());
        let (d, x) = point_ellipsoid(e, y);
        let mut c = Vec3::zeros();
        for (k, &i) in idx.iter().enumerate() {
            c[i] = x[k].copysign(p[i]);
        }
        (c, d)
    }
}

impl Sdf for Ellipsoid {
    fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        let (c, d) = self.closest(p);
        let inside = p.component_div(&self.semi_axes).norm_squared() < 1.0;
        // Outward normal at the closest point: ∇(Σ x²/a²) ∝ x/a².
        let n = c.component_div(&self.semi_axes.component_mul(&self.semi_axes)).normalize();
        (if inside { -d } else { d }, n)
    }
}

const MAX_BISECTIONS: usize = 1100; // enough for every binade of f64

fn robust_length(v: &[f64]) -> f64 {
    let m = v.iter().fold(0.0_f64, |a, b| a.max(b.abs()));
    if m == 0.0 { 0.0 } else { m * v.iter().map(|x| (x / m) * (x / m)).sum::<f64>().sqrt() }
}

/// Root of `Σ (rᵢ zᵢ / (s + rᵢ))² − 1 = 0` for `s` by bisection (Eberly's GetRoot).
fn get_root(r: &[f64], z: &[f64], g: f64) -> f64 {
    // At most three terms: kept on the stack (this runs inside every contact query).
    let mut buf = [0.0; 3];
    let n = &mut buf[..z.len()];
    for (ni, (ri, zi)) in n.iter_mut().zip(r.iter().zip(z)) {
        *ni = ri * zi;
    }
    let n = &*n;
    let last = z.len() - 1;
    let mut s0 = z[last] - 1.0;
    let mut s1 = if g < 0.0 { 0.0 } else { robust_length(n) - 1.0 };
    let mut s = 0.0;
    for _ in 0..MAX_BISECTIONS {
        s = 0.5 * (s0 + s1);
        if s == s0 || s == s1 {
            break;
        }
        let gs: f64 = n.iter().zip(r).map(|(ni, ri)| (ni / (s + ri)).powi(2)).sum::<f64>() - 1.0;
        if gs > 0.0 {
            s0 = s;
        } else if gs < 0.0 {
            s1 = s;
        } else {
            break;
        }
    }
    s
}

/// Closest point on the ellipse `e0 ≥ e1` to `(y0, y1)` in the first quadrant.
fn point_ellipse(e: [f64; 2], y: [f64; 2]) -> (f64, [f64; 2]) {
    if y[1] > 0.0 {
        if y[0] > 0.0 {
            let z = [y[0] / e[0], y[1] / e[1]];
            let g = z[0] * z[0] + z[1] * z[1] - 1.0;
            if g != 0.0 {
                let r0 = (e[0] / e[1]).powi(2);
                let s = get_root(&[r0, 1.0], &z, g);
                let x = [r0 * y[0] / (s + r0), y[1] / (s + 1.0)];
                return (((x[0] - y[0]).powi(2) + (x[1] - y[1]).powi(2)).sqrt(), x);
            }
            return (0.0, y);
        }
        return ((y[1] - e[1]).abs(), [0.0, e[1]]);
    }
    let (numer0, denom0) = (e[0] * y[0], e[0] * e[0] - e[1] * e[1]);
    if numer0 < denom0 {
        let xde0 = numer0 / denom0;
        let x = [e[0] * xde0, e[1] * (1.0 - xde0 * xde0).sqrt()];
        return (((x[0] - y[0]).powi(2) + x[1] * x[1]).sqrt(), x);
    }
    ((y[0] - e[0]).abs(), [e[0], 0.0])
}

/// Closest point on the ellipsoid `e0 ≥ e1 ≥ e2` to `y` in the first octant.
fn point_ellipsoid(e: [f64; 3], y: [f64; 3]) -> (f64, [f64; 3]) {
    let dist = |x: [f64; 3]| ((x[0] - y[0]).powi(2) + (x[1] - y[1]).powi(2) + (x[2] - y[2]).powi(2)).sqrt();
    if y[2] > 0.0 {
        if y[1] > 0.0 {
            if y[0] > 0.0 {
                let z = [y[0] / e[0], y[1] / e[1], y[2] / e[2]];
                let g = z[0] * z[0] + z[1] * z[1] + z[2] * z[2] - 1.0;
                if g != 0.0 {
                    let r = [(e[0] / e[2]).powi(2), (e[1] / e[2]).powi(2), 1.0];
                    let s = get_root(&r, &z, g);
                    let x = [r[0] * y[0] / (s + r[0]), r[1] * y[1] / (s + r[1]), y[2] / (s + 1.0)];
                    return (dist(x), x);
                }
                return (0.0, y);
            }
            let (d, x) = point_ellipse([e[1], e[2]], [y[1], y[2]]);
            return (d, [0.0, x[0], x[1]]);
        }
        if y[0] > 0.0 {
            let (d, x) = point_ellipse([e[0], e[2]], [y[0], y[2]]);
            return (d, [x[0], 0.0, x[1]]);
        }
        return ((y[2] - e[2]).abs(), [0.0, 0.0, e[2]]);
    }
    let denom = [e[0] * e[0] - e[2] * e[2], e[1] * e[1] - e[2] * e[2]];
    let numer = [e[0] * y[0], e[1] * y[1]];
    if numer[0] < denom[0] && numer[1] < denom[1] {
        let xde = [numer[0] / denom[0], numer[1] / denom[1]];
        let discr = 1.0 - xde[0] * xde[0] - xde[1] * xde[1];
        if discr > 0.0 {
            let x = [e[0] * xde[0], e[1] * xde[1], e[2] * discr.sqrt()];
            return (dist(x), x);
        }
    }
    let (d, x) = point_ellipse([e[0], e[1]], [y[0], y[1]]);
    (d, [x[0], x[1], 0.0])
}
