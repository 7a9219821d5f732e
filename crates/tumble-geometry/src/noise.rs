//! Gradient noise and fractional Brownian motion (fBm), deterministic from a seed, with the
//! analytic gradient consistent with the value.
//!
//! Gradient noise (Perlin, "Improving noise", SIGGRAPH 2002): at each integer lattice point a
//! pseudo-random gradient `gᵢ` (one of the 12 cube-edge directions, chosen by a hash of the
//! lattice coordinates and the seed, so no table and no platform dependence), blended with the
//! quintic fade `f(t) = 6t⁵ − 15t⁴ + 10t³`:
//! `n(p) = Σ_corners f(±tx) f(±ty) f(±tz) gᵢ·(p − cᵢ)`; `n = 0` on the lattice; the largest
//! `|n|` found over 3·10⁶ random points is 0.9954.
//!
//! fBm: `F(p) = A Σ_{o<octaves} gainᵒ n(freq · lacunarityᵒ · p + offsetₒ)`, with its gradient
//! summed the same way (chain rule brings the factor `freq · lacunarityᵒ`).
//!
//! Many points at once ([`Fbm::eval_many`], the terrain's vertex queries): a point's octaves are
//! independent until they are summed, so every (point, octave) pair is one lane of four
//! ([`gradient_noise4`], packed arithmetic in the AVX2 kernels), and the lanes' values are then
//! summed per point in the octaves' order: the same operations in the same order as one point
//! at a time, so the same bits (tests `four_lanes_give_the_bits_of_one`, and the terrain's
//! `many_points_at_once_give_the_bits_of_one`).

use tumble_math::Vec3;

const GRADIENTS: [[f64; 3]; 12] = [
    [1.0, 1.0, 0.0],
    [-1.0, 1.0, 0.0],
    [1.0, -1.0, 0.0],
    [-1.0, -1.0, 0.0],
    [1.0, 0.0, 1.0],
    [-1.0, 0.0, 1.0],
    [1.0, 0.0, -1.0],
    [-1.0, 0.0, -1.0],
    [0.0, 1.0, 1.0],
    [0.0, -1.0, 1.0],
    [0.0, 1.0, -1.0],
    [0.0, -1.0, -1.0],
];

/// SplitMix64 finaliser.
fn mix(mut h: u64) -> u64 {
    h = (h ^ (h >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 31)
}

fn fade(t: f64) -> (f64, f64) {
    (t * t * t * (t * (t * 6.0 - 15.0) + 10.0), 30.0 * t * t * (t * (t - 2.0) + 1.0))
}

/// `⌊x⌋` as an integer (exact for |x| < 2⁶³; faster than a library call where the target has
/// no rounding instruction). Beyond that, and for NaN, some integer: lattice indices wrap (as
/// the hash does), so a point far outside any body (a blown-up run) is no overflow panic; its
/// noise is meaningless there, and the run's own checks judge such a state.
fn floor_i64(x: f64) -> i64 {
    let i = x as i64;
    if (i as f64) > x { i.wrapping_sub(1) } else { i }
}

/// Gradient noise value and gradient at `p`. The lattice hash of corner `(i, j, k)` is the
/// SplitMix64 finaliser of `seed ⊕ i·C₁ ⊕ j·C₂ ⊕ k·C₃`; its top 32 bits pick one of the 12
/// gradients by a multiply-shift.
#[inline(always)]
pub fn gradient_noise(p: &Vec3, seed: u64) -> (f64, Vec3) {
    let (i0, j0, k0) = (floor_i64(p.x), floor_i64(p.y), floor_i64(p.z));
    let t = p - Vec3::new(i0 as f64, j0 as f64, k0 as f64);
    let (fx, dfx) = fade(t.x);
    let (fy, dfy) = fade(t.y);
    let (fz, dfz) = fade(t.z);
    let hx = [i0, i0.wrapping_add(1)].map(|i| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let hy = [j0, j0.wrapping_add(1)].map(|j| (j as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F));
    let hz = [k0, k0.wrapping_add(1)].map(|k| (k as u64).wrapping_mul(0x1656_67B1_9E37_79F9));
    let (mut v, mut g) = (0.0, Vec3::zeros());
    for c in 0..8 {
        let (a, b, e) = (c & 1, (c >> 1) & 1, (c >> 2) & 1);
        let h = mix(seed ^ hx[a] ^ hy[b] ^ hz[e]);
        let gr = Vec3::from(GRADIENTS[(((h >> 32) * 12) >> 32) as usize]);
        let d = t - Vec3::new(a as f64, b as f64, e as f64);
        let dot = gr.dot(&d);
        // Weight w = wx·wy·wz with wx = fx (corner 1) or 1 − fx (corner 0).
        let (wx, dwx) = if a == 1 { (fx, dfx) } else { (1.0 - fx, -dfx) };
        let (wy, dwy) = if b == 1 { (fy, dfy) } else { (1.0 - fy, -dfy) };
        let (wz, dwz) = if e == 1 { (fz, dfz) } else { (1.0 - fz, -dfz) };
        let w = wx * wy * wz;
        v += w * dot;
        g += w * gr + dot * Vec3::new(dwx * wy * wz, wx * dwy * wz, wx * wy * dwz);
    }
    (v, g)
}

/// `GRADIENTS[i]` (`i < 12`) by its pattern rather than a load: `x` is `±1` for the first
/// eight (odd: −1), `y` for the first four (`i & 2`: −1) and the last four (odd: −1), `z`
/// for the last eight (`i & 2`: −1); 0 otherwise. Lanes of a packed select, where the table
/// would be a gather.
#[inline(always)]
fn gradient(i: u32) -> [f64; 3] {
    let sign = |negative: bool| if negative { -1.0 } else { 1.0 };
    let x = if i < 8 { sign(i & 1 == 1) } else { 0.0 };
    let y = if i < 4 {
        sign(i & 2 == 2)
    } else if i < 8 {
        0.0
    } else {
        sign(i & 1 == 1)
    };
    let z = if i < 4 { 0.0 } else { sign(i & 2 == 2) };
    [x, y, z]
}

/// Lanes of four points, one coordinate an array.
pub type Lanes = [[f64; 4]; 3];

/// [`gradient_noise`] at four points at once (`p[axis][lane]`, each with its own seed), each
/// lane the same operations in the same order, so the same bits; compiled into a kernel of
/// [`tumble_math::wide::dispatch`], the lanes run as packed arithmetic (1.75× four single
/// calls).
#[inline(always)]
pub fn gradient_noise4(p: &Lanes, seed: [u64; 4]) -> ([f64; 4], Lanes) {
    // `⌊x⌋` as `floor_i64` takes it; through 32-bit integers (packed conversions) where every
    // coordinate allows (|x| < 2³¹ − 1, not NaN: the same integers), else lane by lane.
    let (mut floor, mut fl) = ([[0i64; 4]; 3], [[0.0; 4]; 3]);
    if p.iter().all(|a| a.iter().all(|x| x.abs() < 2_147_483_647.0)) {
        for k in 0..3 {
            for l in 0..4 {
                let i = p[k][l] as i32;
                let i = if f64::from(i) > p[k][l] { i - 1 } else { i };
                (floor[k][l], fl[k][l]) = (i64::from(i), f64::from(i));
            }
        }
    } else {
        for k in 0..3 {
            for l in 0..4 {
                floor[k][l] = floor_i64(p[k][l]);
                fl[k][l] = floor[k][l] as f64;
            }
        }
    }
    let mut t = [[0.0; 4]; 3];
    for k in 0..3 {
        for l in 0..4 {
            t[k][l] = p[k][l] - fl[k][l];
        }
    }
    let fade4 = |a: [f64; 4]| {
        let mut f = [[0.0; 4]; 2];
        for l in 0..4 {
            (f[0][l], f[1][l]) = fade(a[l]);
        }
        f
    };
    let f = [fade4(t[0]), fade4(t[1]), fade4(t[2])];
    const C: [u64; 3] = [0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9];
    let mut h = [[[0u64; 4]; 2]; 3];
    for k in 0..3 {
        for l in 0..4 {
            h[k][0][l] = (floor[k][l] as u64).wrapping_mul(C[k]);
            h[k][1][l] = (floor[k][l].wrapping_add(1) as u64).wrapping_mul(C[k]);
        }
    }
    let (mut v, mut g) = ([0.0; 4], [[0.0; 4]; 3]);
    for c in 0..8 {
        let (a, b, e) = (c & 1, (c >> 1) & 1, (c >> 2) & 1);
        for l in 0..4 {
            let hash = mix(seed[l] ^ h[0][a][l] ^ h[1][b][l] ^ h[2][e][l]);
            let gr = gradient((((hash >> 32) * 12) >> 32) as u32);
            let d = [t[0][l] - a as f64, t[1][l] - b as f64, t[2][l] - e as f64];
            let dot = gr[0] * d[0] + gr[1] * d[1] + gr[2] * d[2];
            let side =
                |s: usize, k: usize| if s == 1 { (f[k][0][l], f[k][1][l]) } else { (1.0 - f[k][0][l], -f[k][1][l]) };
            let ((wx, dwx), (wy, dwy), (wz, dwz)) = (side(a, 0), side(b, 1), side(e, 2));
            let w = wx * wy * wz;
            v[l] += w * dot;
            g[0][l] += w * gr[0] + dot * (dwx * wy * wz);
            g[1][l] += w * gr[1] + dot * (wx * dwy * wz);
            g[2][l] += w * gr[2] + dot * (wx * wy * dwz);
        }
    }
    (v, g)
}

/// Fractional Brownian motion parameters. Lengths in m.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fbm {
    /// Seed of the lattice gradients.
    pub seed: u64,
    /// Number of octaves (≥ 1).
    pub octaves: u32,
    /// Frequency multiplier between octaves (typically 2).
    pub lacunarity: f64,
    /// Amplitude multiplier between octaves (typically 0.5).
    pub gain: f64,
    /// Amplitude of the first octave, m.
    pub amplitude: f64,
    /// Spatial frequency of the first octave, 1/m (features of about 1/frequency metres).
    pub frequency: f64,
}

/// Adds the first `used` lanes of `(n, dn)` to their points' sums: `v += amp n`,
/// `g += (amp freq) dn`, as [`Fbm::eval`] adds an octave.
#[inline(always)]
fn sum_lanes(
    (n, dn): ([f64; 4], Lanes),
    used: usize,
    into: &[usize; 4],
    weights: &[(f64, f64); 4],
    out: &mut [(f64, Vec3)],
) {
    for l in 0..used {
        let (amp, scale) = weights[l];
        let o = &mut out[into[l]];
        o.0 += amp * n[l];
        o.1 += scale * Vec3::new(dn[0][l], dn[1][l], dn[2][l]);
    }
}

impl Fbm {
    /// Value (m) and gradient at `p`. Inlined where it is called, so that it is compiled into
    /// the kernels of [`tumble_math::wide::dispatch`] that call it (the terrain's vertex queries).
    #[inline(always)]
    pub fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        let (mut v, mut g) = (0.0, Vec3::zeros());
        let (mut amp, mut freq) = (self.amplitude, self.frequency);
        for o in 0..self.octaves {
            let (n, dn) = gradient_noise(&(p * freq), self.octave_seed(o));
            v += amp * n;
            g += amp * freq * dn;
            amp *= self.gain;
            freq *= self.lacunarity;
        }
        (v, g)
    }

    /// [`Fbm::eval`] at each of `points` into `out` (of the same length), each the bits of
    /// `eval`: every (point, octave) pair one lane of [`gradient_noise4`] (a point's octaves
    /// are independent until they are summed), summed per point in the octaves' order as
    /// `eval` sums them. Fewer than three pairs are evaluated singly (a padded lane costs more).
    #[inline(always)]
    pub fn eval_many(&self, points: &[Vec3], out: &mut [(f64, Vec3)]) {
        let n = points.len().min(out.len());
        let (points, out) = (&points[..n], &mut out[..n]);
        if n * (self.octaves as usize) < 3 {
            for (p, o) in points.iter().zip(out.iter_mut()) {
                *o = self.eval(p);
            }
            return;
        }
        out.fill((0.0, Vec3::zeros()));
        // The pairs waiting for a lane: the point, its octave's weight and scale of the gradient.
        let mut lanes: Lanes = [[0.0; 4]; 3];
        let (mut seeds, mut into, mut weights) = ([0u64; 4], [0usize; 4], [(0.0, 0.0); 4]);
        let mut full = 0;
        for (i, p) in points.iter().enumerate() {
            let (mut amp, mut freq) = (self.amplitude, self.frequency);
            for o in 0..self.octaves {
                let q = p * freq;
                for k in 0..3 {
                    lanes[k][full] = q[k];
                }
                seeds[full] = self.octave_seed(o);
                (into[full], weights[full]) = (i, (amp, amp * freq));
                full += 1;
                if full == 4 {
                    sum_lanes(gradient_noise4(&lanes, seeds), 4, &into, &weights, out);
                    full = 0;
                }
                amp *= self.gain;
                freq *= self.lacunarity;
            }
        }
        if full > 0 {
            // The last lanes repeat the last pair; only the first `full` are summed.
            for l in full..4 {
                for k in 0..3 {
                    lanes[k][l] = lanes[k][full - 1];
                }
                seeds[l] = seeds[full - 1];
            }
            sum_lanes(gradient_noise4(&lanes, seeds), full, &into, &weights, out);
        }
    }

    /// Octave `o`'s seed: each octave its own, so that octaves do not share lattice points at
    /// the origin.
    #[inline(always)]
    fn octave_seed(&self, o: u32) -> u64 {
        self.seed.wrapping_add(u64::from(o).wrapping_mul(0x632B_E59B_D9B4_E019))
    }

    /// A bound of `|F|`: `1.1 · A Σ |gain|ᵒ` (1.1 covers the largest single-octave value
    /// observed, 0.996, with margin).
    pub fn bound(&self) -> f64 {
        1.1 * (0..self.octaves).map(|o| self.amplitude.abs() * self.gain.abs().powi(o as i32)).sum::<f64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use tumble_math::numdiff::central_gradient as fd;

    #[test]
    fn far_and_nan_points_do_not_panic() {
        // Points past 2⁶³ and NaN, as a diverging run reaches them (a hopper spun at 100 rad/s).
        for x in [1e300, -1e300, -9.3e18, 9.3e18, f64::NAN, f64::NEG_INFINITY] {
            let _ = gradient_noise(&Vec3::new(x, -x, 0.5), 7);
        }
    }

    #[test]
    fn gradient_matches_finite_differences_and_lattice_zeros() {
        for k in 0..200 {
            let p = Vec3::new(0.37 * k as f64 - 30.0, 1.3 * (k as f64).sin() * 10.0, -0.71 * k as f64 + 3.3);
            let (_, g) = gradient_noise(&p, 42);
            let num = fd(|q| gradient_noise(q, 42).0, &p, 1e-6);
            assert!((g - num).norm() < 1e-7, "{p}: {g} vs {num}");
        }
        assert_eq!(gradient_noise(&Vec3::new(3.0, -2.0, 7.0), 9).0, 0.0);
        let fbm = Fbm { seed: 7, octaves: 6, lacunarity: 2.0, gain: 0.5, amplitude: 3.0, frequency: 0.01 };
        for k in 0..100 {
            let p = Vec3::new(13.0 * k as f64, -7.0 * k as f64, 0.5 * k as f64 * k as f64);
            let (v, g) = fbm.eval(&p);
            let num = fd(|q| fbm.eval(q).0, &p, 1e-4);
            assert!((g - num).norm() < 1e-6 * (1.0 + g.norm()), "{p}: {g} vs {num}");
            assert!(v.abs() <= fbm.bound());
        }
    }

    #[test]
    fn deterministic_per_seed() {
        let p = Vec3::new(1.234, -5.678, 9.1011);
        assert_eq!(gradient_noise(&p, 1), gradient_noise(&p, 1));
        assert_ne!(gradient_noise(&p, 1).0, gradient_noise(&p, 2).0);
    }

    #[test]
    fn the_gradients_pattern_is_the_table() {
        for (i, g) in GRADIENTS.iter().enumerate() {
            let p = gradient(i as u32);
            assert!(p.iter().zip(g).all(|(a, b)| a.to_bits() == b.to_bits()), "{i}: {p:?} vs {g:?}");
        }
    }

    /// `Fbm::eval_many` against `eval` point by point, to the bit, for the fields a user sets
    /// up: 0 to 13 octaves, one to nine points (full, padded and single lanes, the fallback of
    /// fewer than three pairs), other gains and lacunarities, and an output longer than the
    /// points (left as it was beyond them).
    #[test]
    fn every_octave_count_and_point_count_gives_the_bits_of_one_point() {
        let mut g = tumble_math::Lcg::new(17);
        for octaves in 0..=13 {
            for n in 1..=9 {
                let f = Fbm {
                    seed: (g.unit() * 1e18) as u64,
                    octaves,
                    lacunarity: g.uniform(1.5, 3.0),
                    gain: g.uniform(0.3, 0.7),
                    amplitude: g.uniform(0.1, 10.0),
                    frequency: g.uniform(0.01, 2.0),
                };
                let pts: Vec<Vec3> =
                    (0..n).map(|_| Vec3::new(g.symmetric(), g.symmetric(), g.symmetric()) * 100.0).collect();
                let mut out = vec![(7.0, Vec3::repeat(7.0)); n + 1];
                f.eval_many(&pts, &mut out);
                for (p, o) in pts.iter().zip(&out) {
                    let one = f.eval(p);
                    assert_eq!(one.0.to_bits(), o.0.to_bits(), "{octaves} octaves, {n} points");
                    assert!((0..3).all(|k| one.1[k].to_bits() == o.1[k].to_bits()), "{octaves} octaves, {n} points");
                }
                assert_eq!(out[n], (7.0, Vec3::repeat(7.0)), "beyond the points");
            }
        }
    }

    /// Four lanes against one point at a time, to the bit, both through the same kernel
    /// dispatch: points from a hundredth to ten thousand lattice cells from the origin, on
    /// lattice planes (whole coordinates), either side of zero and of 2³¹.
    #[test]
    fn four_lanes_give_the_bits_of_one() {
        let mut g = tumble_math::Lcg::new(5);
        let mut pts: Vec<Vec3> = (0..20_000)
            .map(|k| {
                let s = 10f64.powi(k % 7 - 2);
                let p = Vec3::new(s * g.symmetric(), s * g.symmetric(), s * g.symmetric());
                if k % 5 == 0 { p.map(f64::round) } else { p }
            })
            .collect();
        // Either side of the 32-bit integers' reach (lanes then floored one by one), and
        // coordinates no integer holds.
        let edge = 2_147_483_647.0;
        pts.extend([Vec3::zeros(), Vec3::repeat(-0.0), Vec3::new(-1.0, 1.0, -0.5)]);
        pts.extend([Vec3::new(edge - 0.5, 1.5, -2.5), Vec3::new(-edge + 0.5, 0.5, 3.0), Vec3::new(edge, -edge, 0.0)]);
        pts.extend([
            Vec3::new(edge + 1.0, -edge - 1.25, 1.0),
            Vec3::new(-edge - 1.5, 2.0, 0.1),
            Vec3::new(3e9, -5e12, 1e300),
            Vec3::new(0.5, f64::INFINITY, 1.0),
        ]);
        while !pts.len().is_multiple_of(4) {
            pts.push(Vec3::repeat(0.25));
        }
        for seed in [0, 7, u64::MAX] {
            for p in pts.chunks_exact(4) {
                let lanes: Lanes = std::array::from_fn(|k| std::array::from_fn(|l| p[l][k]));
                let (v, dv) = gradient_noise4(&lanes, [seed, seed ^ 1, seed, seed.wrapping_add(3)]);
                for (l, seed) in [seed, seed ^ 1, seed, seed.wrapping_add(3)].into_iter().enumerate() {
                    let (w, dw) = gradient_noise(&p[l], seed);
                    let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
                    assert!(same(v[l], w), "{:?}: {} vs {w}", p[l], v[l]);
                    assert!((0..3).all(|k| same(dv[k][l], dw[k])), "{:?}", p[l]);
                }
            }
        }
    }
}
