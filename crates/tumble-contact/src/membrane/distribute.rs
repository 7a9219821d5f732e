//! Distributing a resultant wrench over contact normals: `Σ Fᵢ cᵢ = w`, where each column
//! `cᵢ = [nᵢ; rᵢ × nᵢ]` is the wrench of a unit normal force `nᵢ` at lever `rᵢ` (six rows in
//! 3D; in the plane the first three: two force components and the moment).
//!
//! - [`Distribution::PseudoInverse`] — the membrane document's choice: the minimum-norm solution
//!   `F = Cᵀ (C Cᵀ)⁺ w`, computed through the `K × K` Gram matrix `G = Σ cᵢ cᵢᵀ` and its
//!   eigen-decomposition (eigenvalues below `1e-12 λ_max` treated as zero, so rank-deficient
//!   contact sets work). It may give negative components ("illegal" in the document); they are
//!   counted, and the friction built on them uses `max(Fᵢ, 0)`.
//! - [`Distribution::Nnls`] — non-negative least squares: `min ‖C F − w‖` subject to `F ≥ 0`,
//!   and of its minimisers the one of least norm. Never negative; reproduces `w` whenever `w`
//!   lies in the cone of the columns, otherwise gives its closest point `w'` in that cone.
//!   Lawson & Hanson's active set (1974, ch. 23) on `min ‖C F − w‖` alone finds a minimiser with
//!   at most `K` positive forces — a vertex of the solution set, which with more than `K`
//!   contact normals is not unique: as the body moves the active set jumps from one vertex to
//!   another, and the friction built on the forces jumps with it inside a step (1.11 J of
//!   energy-budget drift in the drop test at 1 ms, against 0.5 mJ for the pseudoinverse). So the
//!   active set solves the Tikhonov problem `min ‖C F − w‖² + ε‖F‖²`, `F ≥ 0` (NNLS of the
//!   stacked `[C; √ε I]`, `[w; 0]`), whose minimiser is unique and continuous in `C` and `w`
//!   and tends to the least-norm NNLS solution as `ε → 0`; its passive-set fits are
//!   `F_P = C_Pᵀ (G_P + ε I)⁻¹ w`, a 6 × 6 solve. `ε = 1e-9` of the mean eigenvalue of the
//!   Gram matrix: the wrench is then reproduced to about `ε/λ` of the smallest eigenvalue `λ`
//!   involved (1e-9 to 1e-6 relative; friction, the only use of the forces, moves by as much).
//! - [`Distribution::Auto`] — the pseudoinverse when it is legal (it spreads the load over all
//!   normals, so friction acts at every contact vertex), NNLS otherwise.

use tumble_math::nalgebra::{SMatrix, SVector, SymmetricEigen};

/// Rows of a column: force and moment in 3D. Planar problems use the first three
/// (`[f_x, f_y, τ_z, 0, 0, 0]`); the zero rows add zero eigenvalues, which the pseudoinverse
/// ignores.
pub const K: usize = 6;

/// The NNLS Tikhonov weight `ε`, as a fraction of the mean eigenvalue of the Gram matrix.
const TIKHONOV: f64 = 1e-9;

/// How the resultant normal wrench is shared among the contact normals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Distribution {
    /// Moore–Penrose pseudoinverse (minimum norm; may be negative).
    PseudoInverse,
    /// Non-negative least squares.
    Nnls,
    /// Pseudoinverse when all components are non-negative, NNLS otherwise.
    #[default]
    Auto,
}

impl Distribution {
    /// Parses a scenario key value.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pinv" | "pseudoinverse" => Some(Self::PseudoInverse),
            "nnls" => Some(Self::Nnls),
            "auto" => Some(Self::Auto),
            _ => None,
        }
    }
}

/// What a distribution did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DistributionReport {
    /// Components of the pseudoinverse solution below zero (0 for NNLS).
    pub negative: usize,
    /// `‖C F − w‖ / ‖w‖` of the forces returned (0 when `w = 0`).
    pub residual: f64,
    /// NNLS was used.
    pub nnls: bool,
}

/// Reusable buffers for [`Distributor::solve`].
#[derive(Clone, Debug, Default)]
pub struct Distributor {
    pub(super) z: Vec<f64>,
    pub(super) passive: Vec<bool>,
}

fn gram_pinv(g: &SMatrix<f64, K, K>, w: &SVector<f64, K>) -> SVector<f64, K> {
    let eig = SymmetricEigen::new(*g);
    let lmax = eig.eigenvalues.amax();
    if lmax <= 0.0 {
        return SVector::zeros();
    }
    let qtw = eig.eigenvectors.transpose() * w;
    let mut y = SVector::<f64, K>::zeros();
    for i in 0..K {
        let l = eig.eigenvalues[i];
        if l > 1e-12 * lmax {
            y += eig.eigenvectors.column(i) * (qtw[i] / l);
        }
    }
    y
}

impl Distributor {
    /// Solves `Σ Fᵢ cᵢ ≈ w` into `f` (resized to the number of columns).
    pub fn solve(
        &mut self,
        cols: &[SVector<f64, K>],
        w: &SVector<f64, K>,
        method: Distribution,
        f: &mut Vec<f64>,
    ) -> DistributionReport {
        f.clear();
        f.resize(cols.len(), 0.0);
        let wn = w.norm();
        if cols.is_empty() || wn == 0.0 {
            return DistributionReport { residual: if wn == 0.0 { 0.0 } else { 1.0 }, ..Default::default() };
        }
        let mut report = DistributionReport::default();
        if method != Distribution::Nnls {
            let g = cols.iter().fold(SMatrix::<f64, K, K>::zeros(), |g, c| g + c * c.transpose());
            let y = gram_pinv(&g, w);
            for (fi, c) in f.iter_mut().zip(cols) {
                *fi = c.dot(&y);
            }
            report.negative = f.iter().filter(|&&x| x < 0.0).count();
        }
        if method == Distribution::Nnls || (method == Distribution::Auto && report.negative > 0) {
            let all = cols.iter().fold(SMatrix::<f64, K, K>::zeros(), |g, c| g + c * c.transpose());
            self.nnls(cols, w, TIKHONOV * all.trace() / K as f64, f);
            report.nnls = true;
        }
        let r = cols.iter().zip(f.iter()).fold(*w, |r, (c, &fi)| r - c * fi);
        report.residual = r.norm() / wn;
        report
    }

    /// Lawson–Hanson active-set NNLS of `min ‖C x − w‖² + eps ‖x‖²`, `x ≥ 0` (the stacked
    /// system `[C; √eps I]`, `[w; 0]`: a column off the passive set has gradient `cⱼᵀ(w − C x)`,
    /// and the passive fit is `x_P = C_Pᵀ (G_P + eps I)⁻¹ w`). With `eps = 0` the passive columns
    /// stay independent (a column enters only along a residual orthogonal to them) and at most
    /// `K` are positive; with `eps > 0` the minimiser is unique.
    fn nnls(&mut self, cols: &[SVector<f64, K>], w: &SVector<f64, K>, eps: f64, x: &mut [f64]) {
        let m = cols.len();
        x.fill(0.0);
        self.z.clear();
        self.z.resize(m, 0.0);
        self.passive.clear();
        self.passive.resize(m, false);
        let cmax = cols.iter().map(|c| c.norm()).fold(0.0, f64::max);
        let tol = 1e-12 * cmax * w.norm();
        for _ in 0..(3 * K + 3 * m) {
            let r = cols.iter().zip(x.iter()).fold(*w, |r, (c, &xi)| r - c * xi);
            let mut best = (tol, usize::MAX);
            for (j, c) in cols.iter().enumerate() {
                if !self.passive[j] {
                    let g = c.dot(&r);
                    if g > best.0 {
                        best = (g, j);
                    }
                }
            }
            if best.1 == usize::MAX {
                return;
            }
            self.passive[best.1] = true;
            for _ in 0..=K + 1 {
                let g = cols
                    .iter()
                    .zip(&self.passive)
                    .filter(|(_, p)| **p)
                    .fold(SMatrix::<f64, K, K>::zeros(), |g, (c, _)| g + c * c.transpose());
                let y = if eps > 0.0 {
                    (g + SMatrix::<f64, K, K>::identity() * eps)
                        .cholesky()
                        .map_or_else(|| gram_pinv(&g, w), |c| c.solve(w))
                } else {
                    gram_pinv(&g, w)
                };
                let mut all_positive = true;
                for j in 0..m {
                    self.z[j] = if self.passive[j] { cols[j].dot(&y) } else { 0.0 };
                    if self.passive[j] && self.z[j] <= 0.0 {
                        all_positive = false;
                    }
                }
                if all_positive {
                    x.copy_from_slice(&self.z);
                    break;
                }
                let mut alpha = 1.0_f64;
                for j in 0..m {
                    if self.passive[j] && self.z[j] <= 0.0 {
                        alpha = alpha.min(x[j] / (x[j] - self.z[j]));
                    }
                }
                for j in 0..m {
                    x[j] += alpha * (self.z[j] - x[j]);
                    if self.passive[j] && x[j] <= 0.0 {
                        self.passive[j] = false;
                        x[j] = 0.0;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tumble_math::Lcg;

    fn uni(rng: &mut Lcg, a: f64, b: f64) -> f64 {
        a + (b - a) * rng.unit()
    }

    fn random_cols(rng: &mut Lcg, m: usize) -> Vec<SVector<f64, 6>> {
        (0..m)
            .map(|_| {
                let n = tumble_math::Vec3::new(uni(rng, -0.3, 0.3), uni(rng, -0.3, 0.3), 1.0).normalize();
                let r = tumble_math::Vec3::new(uni(rng, -2.0, 2.0), uni(rng, -2.0, 2.0), uni(rng, -1.0, 0.0));
                let t = r.cross(&n);
                SVector::<f64, 6>::from_column_slice(&[n.x, n.y, n.z, t.x, t.y, t.z])
            })
            .collect()
    }

    /// A wrench made from known non-negative forces is reproduced exactly by NNLS (and by the
    /// pseudoinverse, which may however go negative); one outside the cone is not, and NNLS
    /// still returns non-negative forces with the smallest residual (checked against a sampled
    /// non-negative competitor).
    #[test]
    fn nnls_reproduces_cone_wrenches_and_stays_non_negative() {
        let mut rng = Lcg::new(7);
        let mut d = Distributor::default();
        let mut f = Vec::new();
        for m in [3, 6, 12, 40] {
            let cols = random_cols(&mut rng, m);
            let truth: Vec<f64> = (0..m).map(|_| uni(&mut rng, 0.0, 100.0)).collect();
            let w = cols.iter().zip(&truth).fold(SVector::<f64, 6>::zeros(), |w, (c, t)| w + c * *t);
            let rep = d.solve(&cols, &w, Distribution::Nnls, &mut f);
            // The Tikhonov term leaves a residual of about ε/λ_min: 1e-9 of the mean eigenvalue over
            // the smallest, down to 1e-3 of the mean in these random cones (measured up to 2e-7).
            assert!(rep.residual < 1e-6, "m {m}: residual {}", rep.residual);
            assert!(f.iter().all(|&x| x >= 0.0));
            let rep = d.solve(&cols, &w, Distribution::PseudoInverse, &mut f);
            assert!(rep.residual < 1e-9);
            // Outside the cone: a pure pull.
            let pull = -w;
            let rep = d.solve(&cols, &pull, Distribution::Nnls, &mut f);
            assert!(f.iter().all(|&x| x >= 0.0));
            assert!(rep.residual > 0.1);
            let best = rep.residual;
            for _ in 0..200 {
                let g: Vec<f64> = (0..m).map(|_| uni(&mut rng, 0.0, 1.0) * f[0].max(1.0)).collect();
                let r = cols.iter().zip(&g).fold(pull, |r, (c, x)| r - c * *x);
                assert!(r.norm() / pull.norm() >= best - 1e-12);
            }
        }
    }

    #[test]
    fn auto_falls_back_to_nnls_only_when_needed() {
        let mut rng = Lcg::new(3);
        let mut d = Distributor::default();
        let mut f = Vec::new();
        let mut fell_back = 0;
        for _ in 0..50 {
            let cols = random_cols(&mut rng, 8);
            let truth: Vec<f64> = (0..8).map(|_| uni(&mut rng, 0.0, 1.0)).collect();
            let w = cols.iter().zip(&truth).fold(SVector::<f64, 6>::zeros(), |w, (c, t)| w + c * *t);
            let rep = d.solve(&cols, &w, Distribution::Auto, &mut f);
            assert!(f.iter().all(|&x| x >= 0.0) && rep.residual < if rep.nnls { 1e-6 } else { 1e-9 });
            assert_eq!(rep.nnls, rep.negative > 0);
            fell_back += rep.nnls as usize;
        }
        // Random cones make the minimum-norm solution illegal now and then: both paths ran.
        assert!(fell_back > 0 && fell_back < 50, "{fell_back}");
    }

    /// The NNLS forces are the least-norm non-negative ones: the pseudoinverse's whenever that
    /// is legal, never larger than the active set's vertex solution, and continuous as the
    /// wrench moves (the vertex solution jumps between bases).
    #[test]
    fn nnls_is_the_least_norm_solution_and_continuous() {
        let mut rng = Lcg::new(11);
        let mut d = Distributor::default();
        let (mut f, mut p, mut v) = (Vec::new(), Vec::new(), vec![0.0; 40]);
        let (mut legal, mut jumps) = (0, (0.0f64, 0.0f64));
        for case in 0..40 {
            // Half the wrenches from a few of the normals: the pseudoinverse goes negative.
            let cols = random_cols(&mut rng, 40);
            let sparse = if case % 2 == 0 { 0.0 } else { 0.85 };
            let truth: Vec<f64> =
                (0..40).map(|_| if rng.unit() < sparse { 0.0 } else { uni(&mut rng, 0.0, 1.0) }).collect();
            let w = cols.iter().zip(&truth).fold(SVector::<f64, 6>::zeros(), |w, (c, t)| w + c * *t);
            let rep = d.solve(&cols, &w, Distribution::Nnls, &mut f);
            assert!(rep.residual < 1e-6 && f.iter().all(|&x| x >= 0.0), "{}", rep.residual);
            d.nnls(&cols, &w, 0.0, &mut v);
            let norm = |x: &[f64]| x.iter().map(|a| a * a).sum::<f64>().sqrt();
            assert!(norm(&f) <= norm(&v) * (1.0 + 1e-12), "{} > {}", norm(&f), norm(&v));
            if d.solve(&cols, &w, Distribution::PseudoInverse, &mut p).negative == 0 {
                legal += 1;
                let diff = f.iter().zip(&p).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
                assert!(diff < 1e-6 * norm(&p), "{diff}");
            }
            // Move the wrench inside the cone (as a membrane's push stays), in 100 steps that
            // change each generating force by up to 0.05 % of itself: the largest change of the
            // forces in one step, least-norm and vertex solutions.
            let dir: Vec<f64> = truth.iter().map(|t| t * uni(&mut rng, -5e-4, 5e-4)).collect();
            let dir = cols.iter().zip(&dir).fold(SVector::<f64, 6>::zeros(), |w, (c, t)| w + c * *t);
            let (mut last, mut last_v) = (f.clone(), v.clone());
            for k in 1..=100 {
                let wk = w + dir * k as f64;
                d.solve(&cols, &wk, Distribution::Nnls, &mut f);
                d.nnls(&cols, &wk, 0.0, &mut v);
                let step = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
                jumps.0 = jumps.0.max(step(&f, &last) / norm(&f));
                jumps.1 = jumps.1.max(step(&v, &last_v) / norm(&v));
                (last, last_v) = (f.clone(), v.clone());
            }
        }
        println!(
            "legal pseudoinverse {legal} of 40; largest step change: least norm {:.2e}, vertex {:.2e}",
            jumps.0, jumps.1
        );
        assert!(legal > 0 && legal < 40, "{legal}");
        // A step of at most 5e-4 of each generating force moves the least-norm forces by a small
        // multiple of that; the vertex solution moves by a large fraction of the forces when its
        // basis changes.
        assert!(jumps.0 < 0.01 && jumps.1 > 10.0 * jumps.0, "{jumps:?}");
    }
}
