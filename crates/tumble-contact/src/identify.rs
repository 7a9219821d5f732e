//! Identification of contact laws from measured force–displacement (and velocity) data by least
//! squares, as the snare-wire document identifies its wire (Table 4).
//!
//! Models (`F` in N, `δ` in m, `δ̇` in m/s):
//! - `quadratic`: `F = A δ² + B δ + C` — linear least squares;
//! - `power`: `F = k δ^p`, plus `c sign(δ̇)|δ̇|^q` when velocities are given (eq. 3, `G = 1`);
//! - `hunt-crossley`: `F = k δ^p + c δ^p δ̇` (eq. 3 with `G = δ^p`, `q = 1`; needs velocities).
//!
//! Nonlinear models start from a log–log fit of the positive points and are refined by
//! Levenberg–Marquardt on the force residuals. Standard errors are `√diag(σ² (JᵀJ)⁻¹)` with
//! `σ² = RSS/(n − m)` (`m` coefficients, `J` the residuals' Jacobian at the solution): the
//! usual asymptotic errors for independent, equal-variance noise. `R² = 1 − RSS/TSS`.

use tumble_math::nalgebra::{DMatrix, DVector};

/// Which law to fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FitModel {
    /// `A δ² + B δ + C`.
    Quadratic,
    /// `k δ^p [+ c sign(δ̇)|δ̇|^q]`.
    Power,
    /// `k δ^p + c δ^p δ̇`.
    HuntCrossley,
}

/// One measurement.
#[derive(Clone, Copy, Debug)]
pub struct Point {
    /// Penetration, m.
    pub delta: f64,
    /// Force, N.
    pub force: f64,
    /// Penetration rate, m/s.
    pub velocity: Option<f64>,
}

/// A fitted law.
#[derive(Clone, Debug)]
pub struct Fit {
    /// The model.
    pub model: FitModel,
    /// Coefficient names (`A`, `B`, `C` / `k`, `p`, `c`, `q`).
    pub names: Vec<&'static str>,
    /// Values.
    pub values: Vec<f64>,
    /// Standard errors.
    pub std_errors: Vec<f64>,
    /// Coefficient of determination.
    pub r2: f64,
    /// Residual sum of squares, N².
    pub rss: f64,
    /// Points used.
    pub n: usize,
}

impl Fit {
    /// The fitted force at `(δ, δ̇)`.
    pub fn predict(&self, delta: f64, velocity: f64) -> f64 {
        eval(self.model, &self.values, delta, velocity).0
    }
}

/// The model's value and its gradient with respect to the coefficients.
fn eval(model: FitModel, th: &[f64], d: f64, v: f64) -> (f64, Vec<f64>) {
    match model {
        FitModel::Quadratic => (th[0] * d * d + th[1] * d + th[2], vec![d * d, d, 1.0]),
        FitModel::Power => {
            let dp = d.powf(th[1]);
            let ln_d = if d > 0.0 { d.ln() } else { 0.0 };
            let mut f = th[0] * dp;
            let mut g = vec![dp, th[0] * dp * ln_d];
            if th.len() == 4 {
                let vq = v.abs().powf(th[3]);
                let ln_v = if v != 0.0 { v.abs().ln() } else { 0.0 };
                f += th[2] * v.signum() * vq;
                g.extend([v.signum() * vq, th[2] * v.signum() * vq * ln_v]);
            }
            (f, g)
        }
        FitModel::HuntCrossley => {
            let dp = d.powf(th[1]);
            let ln_d = if d > 0.0 { d.ln() } else { 0.0 };
            ((th[0] + th[2] * v) * dp, vec![dp, (th[0] + th[2] * v) * dp * ln_d, dp * v])
        }
    }
}

/// Fits `model` to `points`.
pub fn fit(model: FitModel, points: &[Point]) -> Result<Fit, String> {
    let with_v = points.first().is_some_and(|p| p.velocity.is_some());
    let names: Vec<&'static str> = match (model, with_v) {
        (FitModel::Quadratic, _) => vec!["A", "B", "C"],
        (FitModel::Power, false) => vec!["k", "p"],
        (FitModel::Power, true) => vec!["k", "p", "c", "q"],
        (FitModel::HuntCrossley, true) => vec!["k", "p", "c"],
        (FitModel::HuntCrossley, false) => {
            return Err("the hunt-crossley model needs a `velocity` column (m/s)".into());
        }
    };
    let m = names.len();
    if points.len() <= m {
        return Err(format!(
            "{} points cannot determine {m} coefficients with an error estimate: give at least {}",
            points.len(),
            m + 1
        ));
    }
    for (i, p) in points.iter().enumerate() {
        if !(p.delta.is_finite() && p.force.is_finite() && p.velocity.is_none_or(f64::is_finite)) {
            return Err(format!(
                "point {} is not finite: δ = {}, F = {}, v = {:?}",
                i + 1,
                p.delta,
                p.force,
                p.velocity
            ));
        }
        if model != FitModel::Quadratic && p.delta < 0.0 {
            return Err(format!("point {}: a power law needs penetrations >= 0, got {} m", i + 1, p.delta));
        }
    }
    let scales = Scales::of(points);
    let scaled: Vec<Point> = points.iter().map(|p| scales.apply(p)).collect();
    let fitted = fit_scaled(model, m, &scaled)?;
    let theta = scales.unscale(model, &fitted);
    let (_, rss, jac) = residuals(model, points, &theta);
    // A coefficient that overflows, or underflows to (nearly) zero from a value that was not.
    let lost = theta.iter().zip(&fitted).any(|(t, s)| !t.is_finite() || (*s != 0.0 && t.abs() < f64::MIN_POSITIVE));
    if lost || !(rss.is_finite() && jac.iter().all(|j| j.is_finite())) {
        return Err(format!(
            "the coefficients in these units (penetrations up to {:e} m, forces up to {:e} N) are beyond double precision: express the data in units nearer its values",
            scales.d, scales.f
        ));
    }
    let mean = points.iter().map(|p| p.force).sum::<f64>() / points.len() as f64;
    let tss: f64 = points.iter().map(|p| (p.force - mean).powi(2)).sum();
    let sigma2 = rss / (points.len() - m) as f64;
    // (JᵀJ)⁻¹ from the SVD of J with unit columns: JᵀJ itself squares a condition number that
    // reaches 1e8 when k ~ 1e7 and p ~ 1 share a fit.
    let scale: Vec<f64> = (0..m).map(|j| 1.0 / jac.column(j).norm().max(f64::MIN_POSITIVE)).collect();
    let scaled = DMatrix::from_fn(jac.nrows(), m, |i, j| jac[(i, j)] * scale[j]);
    let svd = scaled.try_svd(false, true, f64::EPSILON, MAX_SVD_ITERATIONS).ok_or(NO_SVD)?;
    let vt = svd.v_t.ok_or(NO_SVD)?;
    if svd.singular_values.iter().any(|s| *s <= 1e-12 * svd.singular_values.max()) {
        return Err("the data cannot tell the coefficients apart (the fit's Jacobian is singular)".into());
    }
    let std_errors = (0..m)
        .map(|i| {
            let var: f64 = (0..m).map(|k| (vt[(k, i)] / svd.singular_values[k]).powi(2)).sum();
            (sigma2 * var).sqrt() * scale[i]
        })
        .collect();
    Ok(Fit {
        model,
        names,
        values: theta,
        std_errors,
        r2: if tss > 0.0 { 1.0 - rss / tss } else { 1.0 },
        rss,
        n: points.len(),
    })
}

/// Iterations the singular value decompositions may take (a 3-column design converges in
/// tens; the bound turns a matrix it cannot decompose into an error instead of a hang).
const MAX_SVD_ITERATIONS: usize = 10_000;

const NO_SVD: &str = "the fit's least-squares problem did not converge (singular value decomposition)";

/// The data's scales: the largest |δ| (m), |F| (N) and |δ̇| (m/s), 1 where all are zero. The
/// fit runs on the data divided by them, so that its products stay far from overflow and its
/// matrices well scaled whatever the units.
struct Scales {
    d: f64,
    f: f64,
    v: f64,
}

impl Scales {
    fn of(points: &[Point]) -> Self {
        let max = |x: &dyn Fn(&Point) -> f64| {
            let m = points.iter().map(|p| x(p).abs()).fold(0.0, f64::max);
            if m > 0.0 { m } else { 1.0 }
        };
        Self { d: max(&|p| p.delta), f: max(&|p| p.force), v: max(&|p| p.velocity.unwrap_or(0.0)) }
    }

    fn apply(&self, p: &Point) -> Point {
        Point { delta: p.delta / self.d, force: p.force / self.f, velocity: p.velocity.map(|v| v / self.v) }
    }

    /// Coefficients of the scaled data in the data's units.
    fn unscale(&self, model: FitModel, th: &[f64]) -> Vec<f64> {
        let (d, f, v) = (self.d, self.f, self.v);
        match model {
            FitModel::Quadratic => vec![th[0] * f / (d * d), th[1] * f / d, th[2] * f],
            FitModel::Power => {
                let mut out = vec![th[0] * f / d.powf(th[1]), th[1]];
                if th.len() == 4 {
                    out.extend([th[2] * f / v.powf(th[3]), th[3]]);
                }
                out
            }
            FitModel::HuntCrossley => vec![th[0] * f / d.powf(th[1]), th[1], th[2] * f / (v * d.powf(th[1]))],
        }
    }
}

/// The coefficients fitted to `points` (scaled to magnitudes of at most 1).
fn fit_scaled(model: FitModel, m: usize, points: &[Point]) -> Result<Vec<f64>, String> {
    let v = |p: &Point| p.velocity.unwrap_or(0.0);
    Ok(match model {
        FitModel::Quadratic => {
            let x = DMatrix::from_fn(points.len(), 3, |i, j| eval(model, &[0.0; 3], points[i].delta, 0.0).1[j]);
            let y = DVector::from_iterator(points.len(), points.iter().map(|p| p.force));
            let svd = x.try_svd(true, true, f64::EPSILON, MAX_SVD_ITERATIONS).ok_or(NO_SVD)?;
            svd.solve(&y, 1e-14).map_err(|e| e.to_string())?.as_slice().to_vec()
        }
        _ => {
            // Start: log F = log k + p log δ over the positive points.
            let pos: Vec<(f64, f64)> = points
                .iter()
                .filter(|p| p.delta > 0.0 && p.force > 0.0)
                .map(|p| (p.delta.ln(), p.force.ln()))
                .collect();
            if pos.len() < 2 {
                return Err("a power law needs at least two points with positive penetration and force".into());
            }
            let n = pos.len() as f64;
            let (sx, sy) = pos.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
            let (mx, my) = (sx / n, sy / n);
            let sxx: f64 = pos.iter().map(|p| (p.0 - mx).powi(2)).sum();
            let sxy: f64 = pos.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
            let p0 = if sxx > 0.0 { (sxy / sxx).clamp(0.1, 10.0) } else { 1.0 };
            let k0 = (my - p0 * mx).exp();
            let mut th = vec![k0, p0];
            if m > 2 {
                // Damping coefficient from the residual, rate exponent 1.
                let basis = |p: &Point| if model == FitModel::HuntCrossley { p.delta.powf(p0) * v(p) } else { v(p) };
                let num: f64 = points.iter().map(|p| basis(p) * (p.force - k0 * p.delta.powf(p0))).sum();
                let den: f64 = points.iter().map(|p| basis(p).powi(2)).sum();
                th.push(if den > 0.0 { num / den } else { 0.0 });
                if m == 4 {
                    th.push(1.0);
                }
            }
            levenberg_marquardt(model, points, th)?
        }
    })
}

/// The residuals `F − model`, their sum of squares and the Jacobian of the model values
/// (n × m).
fn residuals(model: FitModel, points: &[Point], th: &[f64]) -> (DVector<f64>, f64, DMatrix<f64>) {
    let mut jac = DMatrix::zeros(points.len(), th.len());
    let mut r = DVector::zeros(points.len());
    for (i, p) in points.iter().enumerate() {
        let (f, g) = eval(model, th, p.delta, p.velocity.unwrap_or(0.0));
        r[i] = p.force - f;
        for (j, gj) in g.iter().enumerate() {
            jac[(i, j)] = *gj;
        }
    }
    let rss = r.norm_squared();
    (r, rss, jac)
}

fn levenberg_marquardt(model: FitModel, points: &[Point], mut th: Vec<f64>) -> Result<Vec<f64>, String> {
    let m = th.len();
    let mut lambda = 1e-3;
    let (mut r, mut rss, mut jac) = residuals(model, points, &th);
    for _ in 0..500 {
        let jtj = jac.transpose() * &jac;
        let jtr = jac.transpose() * &r;
        let mut improved = false;
        for _ in 0..40 {
            let mut a = jtj.clone();
            for i in 0..m {
                a[(i, i)] += lambda * jtj[(i, i)].max(1e-300);
            }
            let Some(step) = a.lu().solve(&jtr) else {
                lambda *= 10.0;
                continue;
            };
            let trial: Vec<f64> = th.iter().zip(step.iter()).map(|(t, s)| t + s).collect();
            let (trial_r, trial_rss, trial_jac) = residuals(model, points, &trial);
            if trial_rss.is_finite() && trial_rss <= rss {
                let done = (rss - trial_rss) <= 1e-15 * rss.max(1e-300)
                    || step.norm() <= 1e-13 * DVector::from_column_slice(&th).norm();
                (th, r, rss, jac) = (trial, trial_r, trial_rss, trial_jac);
                lambda = (lambda / 10.0).max(1e-15);
                improved = true;
                if done {
                    return Ok(th);
                }
                break;
            }
            lambda *= 10.0;
        }
        if !improved {
            return Ok(th);
        }
    }
    Ok(th)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic standard normals.
    fn noise(seed: u64) -> impl FnMut() -> f64 {
        let mut rng = tumble_math::Lcg::new(seed);
        move || rng.normal()
    }

    #[test]
    fn fits_recover_known_coefficients_within_their_standard_errors() {
        // Table 4's s = 90 mm wire with 0.3 N of noise over 0–20 mm.
        let mut n = noise(7);
        let pts: Vec<Point> = (0..200)
            .map(|i| {
                let d = 0.02 * i as f64 / 199.0;
                Point { delta: d, force: 890183.0 * d * d - 1297.6 * d + 0.3457 + 0.3 * n(), velocity: None }
            })
            .collect();
        let f = fit(FitModel::Quadratic, &pts).expect("fit");
        for (v, (se, truth)) in f.values.iter().zip(f.std_errors.iter().zip([890183.0, -1297.6, 0.3457])) {
            // Within 4 standard errors (a 1-in-15,000 miss for Gaussian errors).
            assert!((v - truth).abs() < 4.0 * se, "{v} ± {se} vs {truth}");
        }
        assert!(f.r2 > 0.999 && f.n == 200);
        // Hertz-like power law, noise 1 % of the largest force (6.3 N).
        let pts: Vec<Point> = (1..=100)
            .map(|i| {
                let d = 1e-3 * i as f64 / 100.0;
                let f = 2e8 * d.powf(1.5);
                Point { delta: d, force: f + 0.063 * n(), velocity: None }
            })
            .collect();
        let f = fit(FitModel::Power, &pts).expect("fit");
        assert!((f.values[1] - 1.5).abs() < 4.0 * f.std_errors[1], "p = {} ± {}", f.values[1], f.std_errors[1]);
        assert!((f.values[0] / 2e8 - 1.0).abs() < 4.0 * f.std_errors[0] / 2e8);
        // Hunt–Crossley from force, penetration and rate.
        let pts: Vec<Point> = (0..300)
            .map(|i| {
                let t = i as f64 / 299.0 * std::f64::consts::PI;
                let (d, v) = (2e-3 * t.sin(), 0.3 * t.cos());
                let f = 5e7 * d.powf(1.4) + 2e8 * d.powf(1.4) * v;
                Point { delta: d, force: f + 0.5 * n(), velocity: Some(v) }
            })
            .collect();
        let f = fit(FitModel::HuntCrossley, &pts).expect("fit");
        for (v, (se, truth)) in f.values.iter().zip(f.std_errors.iter().zip([5e7, 1.4, 2e8])) {
            assert!((v - truth).abs() < 4.0 * se, "{v} ± {se} vs {truth}");
        }
        // Power law with a velocity term.
        let pts: Vec<Point> = (0..300)
            .map(|i| {
                let t = i as f64 / 299.0 * std::f64::consts::PI;
                let (d, v) = (2e-3 * t.sin(), 0.3 * t.cos());
                let f = 1e5 * d.powf(1.2) + 40.0 * v.signum() * v.abs().powf(0.8);
                Point { delta: d, force: f + 0.05 * n(), velocity: Some(v) }
            })
            .collect();
        let f = fit(FitModel::Power, &pts).expect("fit");
        for (v, (se, truth)) in f.values.iter().zip(f.std_errors.iter().zip([1e5, 1.2, 40.0, 0.8])) {
            assert!((v - truth).abs() < 4.0 * se, "{v} ± {se} vs {truth}");
        }
    }

    #[test]
    fn the_standard_errors_are_the_scatter_of_repeated_fits() {
        // 400 noisy copies of a Hunt–Crossley data set: the spread of the fitted coefficients
        // equals the reported standard error (the sample standard deviation of 400 draws is
        // within ±7 % of the truth at 2σ; 15 % allowed).
        let mut n = noise(11);
        let mut fits = vec![];
        for _ in 0..400 {
            let pts: Vec<Point> = (0..60)
                .map(|i| {
                    let t = (i as f64 + 0.5) / 60.0 * std::f64::consts::PI;
                    let (d, v) = (2e-3 * t.sin(), 0.3 * t.cos());
                    Point { delta: d, force: (5e7 + 2e8 * v) * d.powf(1.4) + 0.5 * n(), velocity: Some(v) }
                })
                .collect();
            fits.push(fit(FitModel::HuntCrossley, &pts).expect("fit"));
        }
        for j in 0..3 {
            let mean = fits.iter().map(|f| f.values[j]).sum::<f64>() / 400.0;
            let sd = (fits.iter().map(|f| (f.values[j] - mean).powi(2)).sum::<f64>() / 399.0).sqrt();
            let reported = fits.iter().map(|f| f.std_errors[j]).sum::<f64>() / 400.0;
            assert!((sd / reported - 1.0).abs() < 0.15, "{}: scatter {sd} vs reported {reported}", fits[0].names[j]);
        }
    }

    #[test]
    fn the_fit_is_the_same_in_any_units_and_refuses_coefficients_beyond_double_precision() {
        // Hunt–Crossley data in m, N, m/s, then in units 1e-30 m, 1e20 N and 1e-30 m/s: the
        // coefficients transform exactly (k' = k·s_F/s_δ^p, c' = c·s_F/(s_v s_δ^p)) to the
        // fit's convergence tolerance (1e-9 relative, well above the 1e-15 stopping rule).
        let mut n = noise(5);
        let pts: Vec<Point> = (0..80)
            .map(|i| {
                let t = (i as f64 + 0.5) / 80.0 * std::f64::consts::PI;
                let (d, v) = (2e-3 * t.sin(), 0.3 * t.cos());
                Point { delta: d, force: (5e7 + 2e8 * v) * d.powf(1.4) + 0.5 * n(), velocity: Some(v) }
            })
            .collect();
        let (sd, sf, sv) = (1e30, 1e-20, 1e30);
        let far: Vec<Point> = pts
            .iter()
            .map(|p| Point { delta: p.delta * sd, force: p.force * sf, velocity: p.velocity.map(|v| v * sv) })
            .collect();
        let (a, b) = (fit(FitModel::HuntCrossley, &pts).expect("fit"), fit(FitModel::HuntCrossley, &far).expect("fit"));
        let p = a.values[1];
        let want = [a.values[0] * sf / sd.powf(p), p, a.values[2] * sf / (sv * sd.powf(p))];
        for (got, want) in b.values.iter().zip(want) {
            assert!((got / want - 1.0).abs() < 1e-9, "{:?} vs {want:?}", b.values);
        }
        assert!((a.r2 - b.r2).abs() < 1e-12);
        // Penetrations of 1e157 m: δ² overflows. Refused (this once hung in the SVD).
        let huge: Vec<Point> =
            (1..30).map(|i| Point { delta: i as f64 * 1e155, force: 1e-3 * i as f64, velocity: None }).collect();
        let err = fit(FitModel::Quadratic, &huge).expect_err("beyond double precision");
        assert!(err.contains("beyond double precision"), "{err}");
    }

    #[test]
    fn bad_data_is_refused() {
        let p = |d: f64, f: f64| Point { delta: d, force: f, velocity: None };
        let few = vec![p(0.0, 0.0), p(1e-3, 1.0), p(2e-3, 3.0)];
        assert!(fit(FitModel::Quadratic, &few).expect_err("3 points, 3 coefficients").contains("at least 4"));
        let nan = vec![p(0.0, 0.0), p(1e-3, f64::NAN), p(2e-3, 3.0), p(3e-3, 5.0)];
        assert!(fit(FitModel::Quadratic, &nan).expect_err("nan").contains("point 2"));
        let neg = vec![p(0.0, 0.0), p(-1e-3, 1.0), p(2e-3, 3.0), p(3e-3, 5.0)];
        assert!(fit(FitModel::Power, &neg).expect_err("negative").contains(">= 0"));
        assert!(fit(FitModel::HuntCrossley, &few).expect_err("no velocity").contains("velocity"));
    }
}
