//! The post-capture plant, its linearisation, the TVLQR detumble and closed-loop rollouts.
//!
//! State `x = [θ (n); v (6 + n)]`: the arm's joint coordinates and the velocity coordinates of
//! the combined chaser + target (base twist `[ω; v]` in base axes, then joint rates). Without
//! gravity the dynamics in base axes do not depend on the base's position or attitude, so these
//! `2n + 6` numbers are a complete state for detumbling. Inputs `u` (6 + n): the base wrench
//! `[moment; force]` (base axes, about the base origin: reaction wheels and thrusters) and the
//! joint torques, each saturated at its limit. The controller samples the state every step and
//! holds its command over the step (a digital controller at the step rate).

use super::held::roll;
use tumble_control::lqr::{Lqr, lqr};
use tumble_control::tvlqr::tvlqr;
use tumble_dynamics::multibody::capture::RigidTarget;
use tumble_dynamics::multibody::{Joint, Kinematics, Link, Multibody, Workspace};
use tumble_math::Vec3;
use tumble_math::nalgebra::{DMatrix, DVector};

/// The chaser with the target welded to its tool: one more link on a fixed joint at the grasp
/// point, axes parallel to the tool's.
pub fn weld_target(chaser: &Multibody, tool: usize, grasp: &Vec3, target: &RigidTarget) -> Result<Multibody, String> {
    let mut links = chaser.links.clone();
    links.push(Link {
        name: "target".into(),
        parent: Some(tool),
        joint: Joint::Fixed,
        parent_to_joint: (tumble_math::Mat3::identity(), *grasp),
        mass: target.mass,
        com: -target.grapple,
        inertia: target.inertia,
    });
    Multibody::new(links, Vec3::zeros()).map_err(|e| e.to_string())
}

/// Working memory of [`Plant::rate_in`]: the configuration, the kinematics and the
/// articulated-body algorithm's arrays, sized on first use.
#[derive(Clone, Debug, Default)]
pub struct PlantScratch {
    q: Vec<f64>,
    kin: Kinematics,
    ws: Workspace,
}

/// A free-floating tree whose non-root joints all have one degree of freedom.
#[derive(Clone, Debug)]
pub struct Plant {
    /// The model (first link: the free base).
    pub model: Multibody,
    /// Input limits (nv): base moment (N·m) and force (N) per axis, then joint torques.
    pub u_max: Vec<f64>,
}

impl Plant {
    /// Checks the model's structure and the limits.
    pub fn new(model: Multibody, u_max: Vec<f64>) -> Result<Self, String> {
        if model.links.first().map(|l| (l.joint, l.parent)) != Some((Joint::Free, None)) {
            return Err("the plant's first link must be a free-floating base".into());
        }
        if model.links.iter().skip(1).any(|l| l.parent.is_none() || l.joint.nv() > 1) {
            return Err("the detumble plant takes one tree whose joints are revolute, prismatic or fixed".into());
        }
        if u_max.len() != model.nv() || u_max.iter().any(|u| !(u.is_finite() && *u > 0.0)) {
            return Err(format!("need {} positive input limits", model.nv()));
        }
        Ok(Self { model, u_max })
    }

    /// Arm joints.
    pub fn joints(&self) -> usize {
        self.model.nv() - 6
    }

    /// State dimension `2n + 6`.
    pub fn nx(&self) -> usize {
        2 * self.joints() + 6
    }

    /// `ẋ` at `x` under the inputs `u` (not saturated here).
    pub fn rate(&self, x: &[f64], u: &[f64], out: &mut [f64]) {
        self.rate_in(x, u, &mut PlantScratch::default(), out);
    }

    /// [`Plant::rate`] with the working memory `s`: no allocation once `s` has served this
    /// plant.
    pub fn rate_in(&self, x: &[f64], u: &[f64], s: &mut PlantScratch, out: &mut [f64]) {
        let n = self.joints();
        self.kinematics_in(x, s);
        let v = &x[n..];
        out[..n].copy_from_slice(&v[6..]);
        out[n..].fill(0.0);
        self.model.forward_dynamics_in(&s.kin, v, u, &[], &mut s.ws, &mut out[n..]);
    }

    /// The kinetic energy `½ vᵀM(θ)v` at `x`, J (the base's pose does not enter it).
    pub fn kinetic_energy_in(&self, x: &[f64], s: &mut PlantScratch) -> f64 {
        self.kinematics_in(x, s);
        self.model.kinetic_energy_with(&s.kin)
    }

    /// The kinematics at `x` (the base at the origin, unrotated) into `s`.
    fn kinematics_in(&self, x: &[f64], s: &mut PlantScratch) {
        let n = self.joints();
        s.q.clear();
        s.q.extend_from_slice(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
        s.q.extend_from_slice(&x[..n]);
        self.model.kinematics_into(&s.q, &x[n..], &mut s.kin);
    }

    /// Saturates `u` at the limits.
    pub fn saturate(&self, u: &mut [f64]) {
        u.iter_mut().zip(&self.u_max).for_each(|(u, m)| *u = u.clamp(-m, *m));
    }

    /// `(A, B) = (∂ẋ/∂x, ∂ẋ/∂u)` at `(x, u)` by central differences with steps
    /// `1e-6 (1 + |xᵢ|)`: truncation `O(h²)` ≈ 1e-12 relative, rounding `ε/h` ≈ 1e-10.
    pub fn linearize(&self, x: &[f64], u: &[f64]) -> (DMatrix<f64>, DMatrix<f64>) {
        let (nx, nu) = (self.nx(), u.len());
        let (mut a, mut b) = (DMatrix::zeros(nx, nx), DMatrix::zeros(nx, nu));
        let (mut fp, mut fm) = (vec![0.0; nx], vec![0.0; nx]);
        let mut xp = x.to_vec();
        for j in 0..nx {
            let h = 1e-6 * (1.0 + x[j].abs());
            xp[j] = x[j] + h;
            self.rate(&xp, u, &mut fp);
            xp[j] = x[j] - h;
            self.rate(&xp, u, &mut fm);
            xp[j] = x[j];
            for i in 0..nx {
                a[(i, j)] = (fp[i] - fm[i]) / (2.0 * h);
            }
        }
        let mut up = u.to_vec();
        for j in 0..nu {
            let h = 1e-6 * (1.0 + u[j].abs());
            up[j] = u[j] + h;
            self.rate(x, &up, &mut fp);
            up[j] = u[j] - h;
            self.rate(x, &up, &mut fm);
            up[j] = u[j];
            for i in 0..nx {
                b[(i, j)] = (fp[i] - fm[i]) / (2.0 * h);
            }
        }
        (a, b)
    }
}

/// Weights and what counts as a detumble.
#[derive(Clone, Debug)]
pub struct DetumbleSpec {
    /// Diagonal of `Q` (nx).
    pub q: Vec<f64>,
    /// Diagonal of `R` (nu).
    pub r: Vec<f64>,
    /// Horizon, s.
    pub horizon: f64,
    /// Control (and integration) step, s.
    pub dt: f64,
    /// Largest joint excursion from the capture configuration, rad (or m).
    pub joint_range: f64,
    /// Detumbled: every angular and joint rate at most this at the horizon, rad/s.
    pub goal_rate: f64,
    /// Detumbled: base speed at most this at the horizon, m/s.
    pub goal_speed: f64,
}

/// The TVLQR detumble designed along the nominal post-capture trajectory.
#[derive(Clone, Debug)]
pub struct Design {
    /// The spec.
    pub spec: DetumbleSpec,
    /// Joint coordinates at capture (the configuration held).
    pub theta_capture: Vec<f64>,
    /// Nominal states at each step (steps + 1).
    pub x_nom: Vec<DVector<f64>>,
    /// Nominal inputs at each step.
    pub u_nom: Vec<DVector<f64>>,
    /// Riccati solution at each step time (steps + 1).
    pub s: Vec<DMatrix<f64>>,
    /// TVLQR gain at each step time.
    pub k: Vec<DMatrix<f64>>,
    /// The infinite-horizon LQR at rest (gain used for the nominal; `S` is the final cost).
    pub k_rest: DMatrix<f64>,
    /// The decay rate of the rest LQR's slowest closed-loop mode, `min(−Re λ)`, 1/s: how fast
    /// the last of a tumble dies out.
    pub slowest_decay: f64,
}

impl Design {
    /// Steps over the horizon.
    pub fn steps(&self) -> usize {
        self.u_nom.len()
    }

    /// `V(t_k, x) = (x − x_nom)ᵀ S (x − x_nom)` at step `k`.
    pub fn cost_to_go(&self, k: usize, x: &DVector<f64>) -> f64 {
        let n = x.len();
        self.cost_to_go_in(k, x, &mut DVector::zeros(n), &mut DVector::zeros(n))
    }

    /// [`Design::cost_to_go`] with the scratch vectors `d` and `sd` (the state's length): no
    /// allocation. `S` is symmetric, so `dᵀSd = d·(Sd)`.
    pub fn cost_to_go_in(&self, k: usize, x: &DVector<f64>, d: &mut DVector<f64>, sd: &mut DVector<f64>) -> f64 {
        tumble_control::capture_check::quadratic_in(&self.s[k], &self.x_nom[k], x, d, sd)
    }
}

/// The capture configuration at rest (joint angles `theta`, every rate zero) and the LQR there,
/// checked against the step: a controller sampled every dt and RK4 at dt both need the closed
/// loop slow against the step (|λ| dt ≤ 0.5 keeps the held command within a few per cent of
/// continuous feedback). The study checks it when it is built, so `tumble check` refuses what
/// the design would.
pub fn rest_lqr(plant: &Plant, theta: &[f64], spec: &DetumbleSpec) -> Result<(DVector<f64>, Lqr), String> {
    let (nx, nu) = (plant.nx(), plant.model.nv());
    let q = DMatrix::from_diagonal(&DVector::from_column_slice(&spec.q));
    let r = DMatrix::from_diagonal(&DVector::from_column_slice(&spec.r));
    let mut rest = DVector::zeros(nx);
    rest.rows_mut(0, theta.len()).copy_from_slice(theta);
    let (a0, b0) = plant.linearize(rest.as_slice(), &vec![0.0; nu]);
    let at_rest = lqr(&a0, &b0, &q, &r, None).map_err(|e| format!("LQR at rest: {e}"))?;
    let fastest = at_rest.closed_loop.iter().map(|l| l.norm()).fold(0.0, f64::max);
    if fastest * spec.dt > 0.5 {
        return Err(format!(
            "the detumble's fastest closed-loop mode ({fastest:.3} rad/s) is too fast for the step of {} s: \
             take dt ≤ {:.3e} s, or larger angle/rate/speed scales or smaller limits (gentler weights)",
            spec.dt,
            0.5 / fastest
        ));
    }
    Ok((rest, at_rest))
}

/// Designs the detumble: LQR at rest in the capture configuration (the final cost and the
/// nominal's feedback), the nominal rollout from `x0` under that LQR with saturation, the
/// linearisation along it and the TVLQR.
pub fn design(plant: &Plant, x0: &DVector<f64>, spec: &DetumbleSpec) -> Result<Design, String> {
    let (nx, nu, n) = (plant.nx(), plant.model.nv(), plant.joints());
    if spec.q.len() != nx || spec.r.len() != nu || x0.len() != nx {
        return Err(format!("dimensions: Q {} (need {nx}), R {} (need {nu})", spec.q.len(), spec.r.len()));
    }
    let steps = (spec.horizon / spec.dt).round() as usize;
    if steps == 0 || !(steps as f64 * spec.dt - spec.horizon).abs().le(&(1e-9 * spec.horizon)) {
        return Err(format!("the horizon {} s must be a whole number of steps of {} s", spec.horizon, spec.dt));
    }
    let q = DMatrix::from_diagonal(&DVector::from_column_slice(&spec.q));
    let r = DMatrix::from_diagonal(&DVector::from_column_slice(&spec.r));
    let (rest, at_rest) = rest_lqr(plant, &x0.as_slice()[..n], spec)?;
    // Nominal: the rest LQR, saturated, held over each step.
    let (mut x_nom, mut u_nom) = (vec![x0.clone()], Vec::with_capacity(steps));
    let mut dx = DVector::zeros(x0.len());
    let law = &mut |_: usize, x: &DVector<f64>, u: &mut DVector<f64>| {
        dx.copy_from(x);
        dx -= &rest;
        u.gemv(-1.0, &at_rest.k, &dx, 0.0);
    };
    roll(plant, spec.dt, steps, x0, law, &mut |_, x, u| {
        if let Some(u) = u {
            u_nom.push(u.clone());
            x_nom.push(x.clone());
        }
        false
    })
    .map_err(|_| "the nominal detumble diverged".to_string())?;
    // Linearisation along the nominal at every step, linear in between.
    let lin: Vec<(DMatrix<f64>, DMatrix<f64>)> =
        (0..=steps).map(|k| plant.linearize(x_nom[k].as_slice(), u_nom[k.min(steps - 1)].as_slice())).collect();
    let dt = spec.dt;
    let at = |t: f64| {
        let s = (t / dt).clamp(0.0, steps as f64);
        let k = (s.floor() as usize).min(steps - 1);
        let w = s - k as f64;
        let (a0, b0) = &lin[k];
        let (a1, b1) = &lin[k + 1];
        (a0 * (1.0 - w) + a1 * w, b0 * (1.0 - w) + b1 * w)
    };
    let tv = tvlqr(&at, &q, &r, &at_rest.s, (0.0, spec.horizon), steps)?;
    let theta_capture = x0.as_slice()[..n].to_vec();
    let slowest_decay = at_rest.closed_loop.iter().map(|l| -l.re).fold(f64::INFINITY, f64::min);
    Ok(Design { spec: spec.clone(), theta_capture, x_nom, u_nom, s: tv.s, k: tv.k, k_rest: at_rest.k, slowest_decay })
}

/// A closed-loop detumble from one post-capture state.
#[derive(Clone, Debug)]
pub struct Rollout {
    /// `V(t_k, x_k)` at every step reached.
    pub cost_to_go: Vec<f64>,
    /// Whether the target was detumbled within the joint range.
    pub success: bool,
    /// Why not.
    pub failure: Option<String>,
    /// Largest joint excursion from the capture configuration.
    pub max_excursion: f64,
    /// Largest angular or joint rate at the horizon, rad/s (infinite when stopped early).
    pub final_rate: f64,
    /// The state at the horizon against the goal: the larger of `rate / goal_rate` and
    /// `speed / goal_speed` (at most 1 when detumbled; infinite when stopped early).
    pub goal_ratio: f64,
}

/// Simulates the TVLQR detumble from `x0`: `u = sat(u_nom − K (x − x_nom))`.
pub fn rollout(plant: &Plant, d: &Design, x0: &DVector<f64>) -> Rollout {
    let n = plant.joints();
    let mut cost_to_go = Vec::with_capacity(d.steps() + 1);
    let mut max_excursion = 0.0f64;
    let mut left = None;
    let excursion = |x: &DVector<f64>| (0..n).map(|i| (x[i] - d.theta_capture[i]).abs()).fold(0.0, f64::max);
    // Scratch of the law (`x − x_nom`, `K (x − x_nom)`) and of the cost-to-go: no allocation
    // in a step.
    let (mut dx, mut kdx) = (DVector::zeros(x0.len()), DVector::zeros(d.u_nom[0].len()));
    let (mut cd, mut csd) = (DVector::zeros(x0.len()), DVector::zeros(x0.len()));
    let law = &mut |k: usize, x: &DVector<f64>, u: &mut DVector<f64>| {
        dx.copy_from(x);
        dx -= &d.x_nom[k];
        kdx.gemv(1.0, &d.k[k], &dx, 0.0);
        u.copy_from(&d.u_nom[k]);
        *u -= &kdx;
    };
    let end = roll(plant, d.spec.dt, d.steps(), x0, law, &mut |k, x, _| {
        cost_to_go.push(d.cost_to_go_in(k, x, &mut cd, &mut csd));
        max_excursion = max_excursion.max(excursion(x));
        let out = max_excursion > d.spec.joint_range;
        if out {
            left = Some(format!(
                "a joint left its range ({max_excursion:.3} > {} rad) at {:.2} s",
                d.spec.joint_range,
                k as f64 * d.spec.dt
            ));
        }
        out
    });
    let x = match (end, left) {
        (Err(e), _) => {
            let failure = Some(format!("diverged at {:.2} s", e.time));
            let inf = f64::INFINITY;
            return Rollout { cost_to_go, success: false, failure, max_excursion, final_rate: inf, goal_ratio: inf };
        }
        (Ok(_), Some(failure)) => {
            return Rollout {
                cost_to_go,
                success: false,
                failure: Some(failure),
                max_excursion,
                final_rate: f64::INFINITY,
                goal_ratio: f64::INFINITY,
            };
        }
        (Ok(x), None) => x,
    };
    let (rate, speed) = rates(&x, n);
    let failure = d.spec.shortfall(&x, n);
    let goal_ratio = (rate / d.spec.goal_rate).max(speed / d.spec.goal_speed);
    Rollout { cost_to_go, success: failure.is_none(), failure, max_excursion, final_rate: rate, goal_ratio }
}

/// The largest base or joint rate (rad/s) and the base's speed (m/s) of the plant state
/// `x = [θ; ω; v; θ̇]` with `n` joints.
pub fn rates(x: &DVector<f64>, n: usize) -> (f64, f64) {
    let v = x.rows(n, n + 6);
    (v.rows(0, 3).amax().max(v.rows(6, n).amax()), v.rows(3, 3).norm())
}

impl DetumbleSpec {
    /// Why the state `x` (with `n` joints) at the horizon is not detumbled, if it is not: a
    /// rate above `goal_rate`, then a base speed above `goal_speed`.
    pub fn shortfall(&self, x: &DVector<f64>, n: usize) -> Option<String> {
        let (rate, speed) = rates(x, n);
        if rate > self.goal_rate {
            Some(format!("still turning at {rate:.2e} rad/s after {} s", self.horizon))
        } else if speed > self.goal_speed {
            Some(format!("still drifting at {speed:.2e} m/s after {} s", self.horizon))
        } else {
            None
        }
    }
}

/// The funnel estimated from sampled rollouts (Reist & Tedrake 2010, simulation-based).
///
/// The inlet `ρ₀` is chosen from the samples sorted by their initial `V`: the largest level
/// below which at most a fraction `false_safe` of the samples failed. The level is cut just
/// above a sample that succeeded, at the `V₀` of the next sample (a failure, when one follows;
/// otherwise `ρ₀` is the largest sampled `V₀`, a lower bound). With `false_safe = 0` this is the
/// smallest `V₀` of any failure (the bisection on `ρ₀` over the sample set, done exactly); with
/// `false_safe > 0` one failure among many successes no longer closes the funnel: it needs
/// `1/false_safe` samples below it to be admitted. `ρ(t)` is the largest `V(t)` of the
/// successful samples below the inlet — the level set that contains all of them at every time.
#[derive(Clone, Debug)]
pub struct Funnel {
    /// Inlet level.
    pub rho0: f64,
    /// Level at every step.
    pub rho: Vec<f64>,
    /// Whether a failure bounded `ρ₀` (otherwise it is the largest sampled `V₀`, a lower bound).
    pub bounded: bool,
    /// The largest fraction of sampled failures admitted below the inlet.
    pub false_safe: f64,
    /// Samples below the inlet.
    pub inside: usize,
    /// Failed samples below the inlet.
    pub failures_inside: usize,
}

/// Estimates the funnel from rollouts, admitting at most a fraction `false_safe` of failures
/// below its inlet ([`Funnel`]).
pub fn funnel(rollouts: &[&Rollout], false_safe: f64) -> Result<Funnel, String> {
    let v0 = |r: &Rollout| r.cost_to_go[0];
    let mut order = rollouts.to_vec();
    order.sort_by(|a, b| v0(a).total_cmp(&v0(b)));
    // The longest prefix that ends in a success, is not followed by a tie, and holds at most
    // `false_safe` of failures.
    let (mut inside, mut failures, mut failures_inside) = (0, 0, 0);
    for (i, r) in order.iter().enumerate() {
        failures += usize::from(!r.success);
        let cut = order.get(i + 1).is_none_or(|next| v0(next) > v0(r));
        if r.success && cut && failures as f64 <= false_safe * (i + 1) as f64 {
            (inside, failures_inside) = (i + 1, failures);
        }
    }
    if inside == 0 {
        let first = order.first().map_or(f64::NAN, |r| v0(r));
        return Err(format!(
            "the funnel is empty: no level of V0 has at most {:.0} % of the sampled captures below it failing \
             (the smallest sampled V0, {first:.4e}, failed)",
            100.0 * false_safe
        ));
    }
    let below = &order[..inside];
    let (rho0, bounded) = match order.get(inside) {
        Some(next) => (v0(next), true),
        None => (v0(below[inside - 1]), false),
    };
    let steps = below.iter().filter(|r| r.success).map(|r| r.cost_to_go.len()).max().unwrap_or(1);
    let rho = (0..steps)
        .map(|k| {
            below.iter().filter(|r| r.success).map(|r| r.cost_to_go.get(k).copied().unwrap_or(0.0)).fold(0.0, f64::max)
        })
        .collect();
    Ok(Funnel { rho0, rho, bounded, false_safe, inside, failures_inside })
}
