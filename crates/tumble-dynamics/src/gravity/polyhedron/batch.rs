//! The polyhedron's sums in batches. Every term, edge or face, adds `w (rᵀD r, −D r, D)` for
//! a symmetric dyad `D` at `r = v − p` (`v` a vertex of the term, `p` the field point): an edge
//! with `w = L_e`, `D = E_e`; a face with `w = −ω_f`, `D = F_f`. Expanded in `p`,
//!
//! ```text
//! Σ w rᵀD r = S − 2 p·C + pᵀG p,   −Σ w D r = G p − C,   Σ w D = G,
//! with G = Σ w D,  C = Σ w (D v),  S = Σ w (vᵀD v),
//! ```
//!
//! so each term adds `w` times ten numbers fixed by the model (`D`'s six entries, `D v`,
//! `vᵀD v`; coordinates about the centroid), one loop the compiler keeps in vector registers.
//! Each batch of [`BATCH`] terms first gathers the arguments of its logarithms or arctangents
//! from the rays to the vertices, evaluates them in one vector loop (`ln(1 + x)` and `atan2`
//! as branch-free polynomials, fdlibm's as in musl, where the C library's calls took half the
//! time of a sample), then adds the terms in order. The expansion regroups the same products;
//! its round-off is that of the textbook sums, relative to the same sum of the terms'
//! magnitudes (tests).
//!
//! Every term does the same IEEE operations in the same order on any machine (no fused
//! multiply-add, no variant the CPU picks): the results are the same bits wherever they run,
//! which the C library's functions, chosen per CPU when it loads, do not promise. Both
//! functions are within 2 ulps of the C library's on their ranges here (tests), each within
//! about an ulp of the exact value.

use tumble_math::{Mat3, Vec3};

/// Terms whose transcendental functions are evaluated together.
pub const BATCH: usize = 64;

/// What a term adds per unit weight: `D`'s entries `xx, xy, xz, yy, yz, zz`, then `D v`, then
/// `vᵀD v`.
type Coefficients = [f64; 10];

/// `D`'s entries, `D v` and `vᵀD v` for the symmetric `D` at `v`.
fn coefficients(d: &Mat3, v: &Vec3) -> Coefficients {
    let dv = d * v;
    [d[(0, 0)], d[(0, 1)], d[(0, 2)], d[(1, 1)], d[(1, 2)], d[(2, 2)], dv.x, dv.y, dv.z, v.dot(&dv)]
}

/// The model's edges and faces as the sums read them (coordinates about `origin`).
#[derive(Clone, Debug, Default)]
pub struct Terms {
    origin: Vec3,
    vertices: Vec<Vec3>,
    edge_ends: Vec<[u32; 2]>,
    edge_len: Vec<f64>,
    edge_terms: Vec<Coefficients>,
    face_corners: Vec<[u32; 3]>,
    face_terms: Vec<Coefficients>,
}

impl Terms {
    /// From the vertices, the edges (ends, `E_e`) and the faces (corners, `F_f`), about
    /// `origin` (the centroid keeps the expansion's products the size of the body).
    /// `E_e` is symmetric: its antisymmetric part is `n_A × n_{A,e} + n_B × n_{B,e} = t − t`.
    ///
    /// Laid out in space, not in the file's order: the faces sorted along a Morton curve
    /// through their centroids, the vertices numbered as those faces first reach them, the
    /// edges sorted by their ends' new numbers. The sums gather each term's rays to its
    /// vertices, and a shape model whose faces jump across the body from one line to the next
    /// (67P's SBGAT model: consecutive faces' vertices 6,900 numbers apart on average, Eros's
    /// 180) sent most gathers to memory: 67P 1.8× faster so. Each term is the one the file's
    /// order gives (about the same vertex); only the order of the sums changes.
    pub fn new(vertices: &[Vec3], edges: &[([u32; 2], Mat3)], faces: &[([u32; 3], Mat3)], origin: Vec3) -> Self {
        let v: Vec<Vec3> = vertices.iter().map(|v| v - origin).collect();
        let order = spatial_order(&v, faces);
        let mut number = vec![u32::MAX; v.len()];
        let mut placed: Vec<Vec3> = Vec::with_capacity(v.len());
        for c in order.iter().flat_map(|&f| faces[f].0).chain(0..v.len() as u32) {
            if number[c as usize] == u32::MAX {
                number[c as usize] = placed.len() as u32;
                placed.push(v[c as usize]);
            }
        }
        let renumber = |e: [u32; 2]| e.map(|c| number[c as usize]);
        let mut edge_order: Vec<usize> = (0..edges.len()).collect();
        edge_order.sort_by_key(|&k| {
            let [a, b] = renumber(edges[k].0);
            (a.min(b), a.max(b))
        });
        let edges: Vec<&([u32; 2], Mat3)> = edge_order.iter().map(|&k| &edges[k]).collect();
        let faces: Vec<&([u32; 3], Mat3)> = order.iter().map(|&f| &faces[f]).collect();
        Self {
            origin,
            edge_ends: edges.iter().map(|e| renumber(e.0)).collect(),
            edge_len: edges.iter().map(|(e, _)| (v[e[1] as usize] - v[e[0] as usize]).norm()).collect(),
            edge_terms: edges.iter().map(|(e, d)| coefficients(d, &v[e[0] as usize])).collect(),
            face_corners: faces.iter().map(|f| f.0.map(|c| number[c as usize])).collect(),
            face_terms: faces.iter().map(|(f, d)| coefficients(d, &v[f[0] as usize])).collect(),
            vertices: placed,
        }
    }
}

#[cfg(test)]
impl Terms {
    /// The faces' corners in the order the sums take them (vertex numbers of the layout).
    pub fn face_corners(&self) -> &[[u32; 3]] {
        &self.face_corners
    }
}

/// The faces' indices along a Morton (Z-order) curve through their centroids: 21 bits a
/// coordinate within the centroids' bounding box, ties in the file's order.
fn spatial_order(v: &[Vec3], faces: &[([u32; 3], Mat3)]) -> Vec<usize> {
    let centroid = |f: &[u32; 3]| (v[f[0] as usize] + v[f[1] as usize] + v[f[2] as usize]) / 3.0;
    let (mut lo, mut hi) = (Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY));
    for (f, _) in faces {
        let c = centroid(f);
        lo = lo.inf(&c);
        hi = hi.sup(&c);
    }
    let scale = (hi - lo).max();
    let cell = |x: f64, lo: f64| -> u64 {
        let t = if scale > 0.0 { (x - lo) / scale } else { 0.0 };
        ((t * 2_097_151.0) as u64).min(2_097_151)
    };
    let spread = |mut x: u64| {
        // Bit k of x to bit 3k.
        x &= 0x1f_ffff;
        x = (x | (x << 32)) & 0x1f_0000_0000_ffff;
        x = (x | (x << 16)) & 0x1f_0000_ff00_00ff;
        x = (x | (x << 8)) & 0x100f_00f0_0f00_f00f;
        x = (x | (x << 4)) & 0x10c3_0c30_c30c_30c3;
        (x | (x << 2)) & 0x1249_2492_4924_9249
    };
    let mut keyed: Vec<(u64, usize)> = faces
        .iter()
        .enumerate()
        .map(|(k, (f, _))| {
            let c = centroid(f);
            (spread(cell(c.x, lo.x)) | spread(cell(c.y, lo.y)) << 1 | spread(cell(c.z, lo.z)) << 2, k)
        })
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, k)| k).collect()
}

/// `rᵢ = vᵢ − p` and `|rᵢ|` for every vertex: `[x, y, z, |r|]`.
#[derive(Clone, Debug, Default)]
pub struct Rays(Vec<[f64; 4]>);

/// Sums of the Werner–Scheeres terms (before the factor `Gρ`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sums {
    /// `Σ_e r_eᵀE_e r_e L_e − Σ_f r_fᵀF_f r_f ω_f`.
    pub u: f64,
    /// `−Σ_e E_e r_e L_e + Σ_f F_f r_f ω_f`.
    pub a: [f64; 3],
    /// `Σ_e E_e L_e − Σ_f F_f ω_f`, entries `xx, xy, xz, yy, yz, zz`.
    pub grad: [f64; 6],
}

/// Adds `w` times each term's coefficients to `acc`.
fn accumulate(acc: &mut Coefficients, terms: &[Coefficients], w: &[f64]) {
    for (t, w) in terms.iter().zip(w) {
        for j in 0..10 {
            acc[j] += w * t[j];
        }
    }
}

/// The model's sums at `p`, with `rays` as scratch.
pub fn sums(t: &Terms, p: &Vec3, rays: &mut Rays) -> Sums {
    let p = p - t.origin;
    rays.0.clear();
    rays.0.extend(t.vertices.iter().map(|v| {
        let d = v - p;
        [d.x, d.y, d.z, (d.x * d.x + d.y * d.y + d.z * d.z).sqrt()]
    }));
    let r = &rays.0;
    let mut acc = [0.0; 10];
    let (mut x, mut y) = ([0.0; BATCH], [0.0; BATCH]);
    for ((ends, len), terms) in t.edge_ends.chunks(BATCH).zip(t.edge_len.chunks(BATCH)).zip(t.edge_terms.chunks(BATCH))
    {
        for ((e, len), x) in ends.iter().zip(len).zip(&mut x) {
            // On the edge (r₁ + r₂ = |e|) the term's limit is zero.
            let s = r[e[0] as usize][3] + r[e[1] as usize][3];
            let den = s - len;
            *x = if den <= 1e-14 * s { 0.0 } else { 2.0 * len / den };
        }
        ln_1p(&mut x[..ends.len()]);
        accumulate(&mut acc, terms, &x);
    }
    for (corners, terms) in t.face_corners.chunks(BATCH).zip(t.face_terms.chunks(BATCH)) {
        for ((f, y), x) in corners.iter().zip(&mut y).zip(&mut x) {
            let [r1, r2, r3] = f.map(|c| r[c as usize]);
            let dot = |p: &[f64; 4], q: &[f64; 4]| p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
            let c = [r2[1] * r3[2] - r2[2] * r3[1], r2[2] * r3[0] - r2[0] * r3[2], r2[0] * r3[1] - r2[1] * r3[0]];
            *y = r1[0] * c[0] + r1[1] * c[1] + r1[2] * c[2];
            *x = r1[3] * r2[3] * r3[3] + r1[3] * dot(&r2, &r3) + r2[3] * dot(&r3, &r1) + r3[3] * dot(&r1, &r2);
        }
        let n = corners.len();
        atan2(&mut y[..n], &x[..n]);
        // w = −ω_f = −2 atan2(…).
        for y in &mut y[..n] {
            *y *= -2.0;
        }
        accumulate(&mut acc, terms, &y);
    }
    let [xx, xy, xz, yy, yz, zz, cx, cy, cz, s] = acc;
    let gp = [xx * p.x + xy * p.y + xz * p.z, xy * p.x + yy * p.y + yz * p.z, xz * p.x + yz * p.y + zz * p.z];
    Sums {
        u: s - 2.0 * (p.x * cx + p.y * cy + p.z * cz) + (p.x * gp[0] + p.y * gp[1] + p.z * gp[2]),
        a: [gp[0] - cx, gp[1] - cy, gp[2] - cz],
        grad: [xx, xy, xz, yy, yz, zz],
    }
}

// fdlibm's constants as published (musl's `log1p.c`, `atan.c`, `atan2.c`): `ln 2` in two
// parts, the `log1p` and `atan` polynomials' coefficients, and the low parts of π/4, π/2, π.
#[allow(clippy::excessive_precision)]
const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-1;
#[allow(clippy::excessive_precision)]
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;
#[allow(clippy::excessive_precision)]
const LG: [f64; 7] = [
    6.666_666_666_666_735_130e-1,
    3.999_999_999_940_941_908e-1,
    2.857_142_874_366_239_149e-1,
    2.222_219_843_214_978_396e-1,
    1.818_357_216_161_805_012e-1,
    1.531_383_769_920_937_332e-1,
    1.479_819_860_511_658_591e-1,
];

/// `ln(1 + x)` in place for finite `x ≥ 0` (musl's `log1p`, its branches as selects):
/// `1 + x = 2^k (1 + f)` with `√2/2 ≤ 1 + f < √2`, a correction `c` for the rounding of `1 + x`,
/// then `ln(1 + f)` from `s = f/(2 + f)` by a degree-14 polynomial.
pub fn ln_1p(xs: &mut [f64]) {
    for x in xs {
        let u = 1.0 + *x;
        let bits = u.to_bits();
        let hu = (bits >> 32) + (0x3ff0_0000 - 0x3fe6_a09e);
        // k as a double without an integer conversion: 2^52 + (k + 1023), less 2^52 + 1023.
        let dk = f64::from_bits(0x4330_0000_0000_0000 + (hu >> 20)) - 4_503_599_627_371_519.0;
        let c = if dk >= 2.0 { 1.0 - (u - *x) } else { *x - (u - 1.0) };
        let c = if dk < 54.0 { c / u } else { 0.0 };
        let reduced = (((hu & 0x000f_ffff) + 0x3fe6_a09e) << 32) | (bits & 0xffff_ffff);
        let f = f64::from_bits(reduced) - 1.0;
        let hfsq = 0.5 * f * f;
        let s = f / (2.0 + f);
        let z = s * s;
        let w = z * z;
        let t1 = w * (LG[1] + w * (LG[3] + w * LG[5]));
        let t2 = z * (LG[0] + w * (LG[2] + w * (LG[4] + w * LG[6])));
        *x = s * (hfsq + (t2 + t1)) + (dk * LN2_LO + c) - hfsq + f + dk * LN2_HI;
    }
}

#[allow(clippy::excessive_precision)]
const AT: [f64; 11] = [
    3.333_333_333_333_293_180_27e-1,
    -1.999_999_999_987_648_324_76e-1,
    1.428_571_427_250_346_637_11e-1,
    -1.111_111_040_546_235_578_80e-1,
    9.090_887_133_436_506_561_96e-2,
    -7.691_876_205_044_829_994_95e-2,
    6.661_073_137_387_531_206_69e-2,
    -5.833_570_133_790_573_486_45e-2,
    4.976_877_994_615_932_360_17e-2,
    -3.653_157_274_421_691_552_70e-2,
    1.628_582_011_536_578_236_23e-2,
];
/// fdlibm's high part, the double nearest the constant.
const PIO4_HI: f64 = std::f64::consts::FRAC_PI_4;
/// What the high part leaves.
#[allow(clippy::excessive_precision)]
const PIO4_LO: f64 = 3.061_616_997_868_383_017_93e-17;
/// fdlibm's high part, the double nearest the constant.
const PIO2_HI: f64 = std::f64::consts::FRAC_PI_2;
#[allow(clippy::excessive_precision)]
const PIO2_LO: f64 = 6.123_233_995_736_766_035_87e-17;
/// fdlibm's high part, the double nearest the constant.
const PI_HI: f64 = std::f64::consts::PI;
#[allow(clippy::excessive_precision)]
const PI_LO: f64 = 1.224_646_799_147_353_177_22e-16;

/// `atan2(y, x)` in place of `y`, for finite arguments: `t = min(|x|, |y|)/max(|x|, |y|)` in
/// `[0, 1]`, above `tan(π/8)` reduced to `(t − 1)/(t + 1)` about π/4, fdlibm's `atan`
/// polynomial on `|t| < 7/16`, then the octant restored. Unlike the C library's, `x = −0`
/// counts as positive (`atan2(±0, ±0) = ±0`).
pub fn atan2(ys: &mut [f64], xs: &[f64]) {
    for (y, &x) in ys.iter_mut().zip(xs) {
        let (ax, ay) = (x.abs(), y.abs());
        let swap = ay > ax;
        let (lo, hi) = if swap { (ax, ay) } else { (ay, ax) };
        let t = if hi > 0.0 { lo / hi } else { 0.0 };
        let reduce = t > 0.414_213_562_373_095_1;
        let t = if reduce { (t - 1.0) / (t + 1.0) } else { t };
        let (base_hi, base_lo) = if reduce { (PIO4_HI, PIO4_LO) } else { (0.0, 0.0) };
        let z = t * t;
        let w = z * z;
        let s1 = z * (AT[0] + w * (AT[2] + w * (AT[4] + w * (AT[6] + w * (AT[8] + w * AT[10])))));
        let s2 = w * (AT[1] + w * (AT[3] + w * (AT[5] + w * (AT[7] + w * AT[9]))));
        let mut r = base_hi - ((t * (s1 + s2) - base_lo) - t);
        if swap {
            r = PIO2_HI - (r - PIO2_LO);
        }
        if x < 0.0 {
            r = PI_HI - (r - PI_LO);
        }
        *y = r.copysign(*y);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tumble_math::Lcg;

    /// Distance in units in the last place between `a` and `b` (same sign, finite).
    fn ulps(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    #[test]
    fn ln_1p_is_within_an_ulp_of_the_library_over_the_edges_range() {
        // The edge terms' argument 2|e|/(r₁ + r₂ − |e|): from ~1e-20 (far points) to ~1e15 (on
        // an edge's line), log-uniform, and the exact points 0 and 1.
        let mut rng = Lcg::new(7);
        let mut worst = 0;
        for _ in 0..200_000 {
            let x = 10f64.powf(-20.0 + 35.0 * rng.unit());
            let mut got = [x];
            ln_1p(&mut got);
            let got = got[0];
            worst = worst.max(ulps(got, x.ln_1p()));
        }
        let mut exact = [0.0, 1.0];
        ln_1p(&mut exact);
        assert_eq!(exact, [0.0, std::f64::consts::LN_2]);
        // The library's own error is up to 1 ulp of the true value, ours the same: 2 apart.
        assert!(worst <= 2, "{worst} ulps");
    }

    #[test]
    fn atan2_is_within_an_ulp_of_the_library_in_every_octant() {
        let mut rng = Lcg::new(9);
        let mut worst = 0;
        for _ in 0..200_000 {
            let (y, x) = (rng.symmetric() * 10f64.powf(6.0 * rng.symmetric()), rng.symmetric());
            let mut got = [y];
            atan2(&mut got, &[x]);
            worst = worst.max(ulps(got[0], y.atan2(x)));
        }
        assert!(worst <= 2, "{worst} ulps");
        for (y, x) in [(0.0, 1.0), (1.0, 0.0), (0.0, -1.0), (-1.0, 0.0), (1.0, 1.0), (-1.0, -1.0), (0.0, 0.0)] {
            let mut got = [y];
            atan2(&mut got, &[x]);
            assert!(ulps(got[0], f64::atan2(y, x)) <= 1, "atan2({y}, {x}) = {}", got[0]);
        }
    }
}
