//! The aimed hop: the angular impulse, and its axis, that send a resting spacecraft to a point
//! of the target, from a ballistic estimate in the rotating frame.
//!
//! **Launch.** The hop is a torque of the actuator's largest magnitude `τ` about an axis `a` in
//! the ground's tangent plane (`a = n × d` for a hop towards the tangent direction `d`, fixed in
//! the body at the attitude of launch), for `L/τ` seconds. Its launch is simulated with the
//! lander's own equations and contact model (RK4 at the run's step, the surface queried
//! exactly) until every vertex is clear of the ground by the body's radius while it moves away
//! (at most 100 s), so friction, slip, the contact's compliance and the strikes of a spinning
//! body leaving the ground are in it.
//!
//! **Ballistic estimate.** From there the centre of mass flies as a point in T:
//! `ẍ = g(x) − 2Ω × ẋ − Ω × (Ω × x_c) − Ω̇ × x_c` (the lander's gravity and frame terms, `Ω` held
//! at its value at launch; `g` as the run's steps see it: a polyhedron through its second-order
//! expansion, re-expanded wherever the path leaves the expansion radius, which costs one sweep
//! of the faces per radius of flight instead of four per step), RK4 with 400 steps over twice
//! the flat-ground flight time, until it comes back to its resting height above the surface
//! (`φ(x) = φ(x₀)`, interpolated). Newton's
//! method on the azimuth of `d` and `L`, with finite differences and backtracking, drives the
//! landing point's tangential offset from the aim below 0.1 % of the range (at most
//! 16 iterations). Where no halved step helps (the finite differences straddle a kink of the
//! launch), a shooting correction is tried: the azimuth turned by the angle from the landing
//! to the aim about `n`, the impulse scaled by the square root of the ranges' ratio (the
//! flat-ground range grows as L²), at full, half and a quarter step, then a compass search
//! at the scale of the miss. The start comes from a rigid pivot about the foremost touching
//! vertices `p` (the ground's impulse acts through it): `ω = L / I_p`,
//! `v₀ = ω a × (x − p)`, `I_p = aᵀ J a + m |(x − p) × a|²`, and the flat-ground range
//! `v₀² = g R / sin 2θ`. What the estimate leaves out: the bounces after landing, the
//! attitude's effect on the flight (none for the centre of mass in a uniform field), and the
//! terrain between launch and landing other than where it ends.

use super::hop::{Actuator, ActuatorKind};
use super::system::{LanderSystem, STATE_LEN};
use tumble_dynamics::rotating::frame_acceleration;
use tumble_dynamics::{Integrator, Method};
use tumble_math::nalgebra::{Matrix2, Vector2};
use tumble_math::{UnitQuat, Vec3};

/// Longest launch simulated, s: a hop that has not cleared the ground by then is taken from
/// where it is.
const LAUNCH_TIME: f64 = 100.0;

/// Most Newton iterations (each simulates three launches and flights, more when it
/// backtracks): the comet test's six searches (half-hour flights) ended after 5–13, counted
/// before the compass step was added.
const ITERATIONS: usize = 16;

/// The aimed hop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aimed {
    /// Unit axis of the angular impulse, body axes.
    pub axis: Vec3,
    /// Its magnitude, N·m·s.
    pub impulse: f64,
    /// The estimate's landing point for that impulse (T, m).
    pub landing: Vec3,
    /// Whether the actuator's momentum limit cut the impulse the aim needed: the landing is
    /// then where the limited hop goes, short of the aim.
    pub limited: bool,
}

/// The launch of a spacecraft at state `y`.
struct Launch<'a> {
    sys: &'a LanderSystem,
    x: Vec3,
    v: Vec3,
    q: UnitQuat,
    n: Vec3,
    e: [Vec3; 2],
    omega: Vec3,
    omega_dot: Vec3,
    rest: f64,
}

impl Launch<'_> {
    /// The impulse axis (T) and the launch velocity for azimuth `psi` and impulse `l`.
    fn velocity(&self, psi: f64, l: f64) -> (Vec3, Vec3) {
        let d = self.e[0] * psi.cos() + self.e[1] * psi.sin();
        let a = self.n.cross(&d);
        // The foremost vertices along d: the pivot (their mean, for an edge).
        let pts: Vec<Vec3> = self.sys.vertices.iter().map(|r| self.x + self.q * r).collect();
        let lowest = pts.iter().map(|p| self.sys.surface.distance(p)).fold(f64::INFINITY, f64::min);
        let near: Vec<&Vec3> = pts.iter().filter(|p| self.sys.surface.distance(p) < lowest + 1e-3).collect();
        let front = near.iter().map(|p| p.dot(&d)).fold(f64::NEG_INFINITY, f64::max);
        let edge: Vec<&&Vec3> = near.iter().filter(|p| p.dot(&d) > front - 1e-3).collect();
        let pivot = edge.iter().fold(Vec3::zeros(), |s, p| s + **p) / edge.len() as f64;
        let r = self.x - pivot;
        let j = self.q.to_rotation_matrix() * self.sys.inertia * self.q.to_rotation_matrix().transpose();
        let i_p = a.dot(&(j * a)) + self.sys.mass * r.cross(&a).norm_squared();
        (a, self.v + a.cross(&r) * (l / i_p))
    }

    /// The acceleration at `x` with velocity `v` in T, gravity from `field` (the run's system,
    /// with its expansion where it has one).
    fn accel(&self, field: &LanderSystem, x: &Vec3, v: &Vec3) -> Vec3 {
        let xc = x - self.sys.centre;
        field.gravity_at(x).0 + frame_acceleration(&self.omega, &self.omega_dot, &xc, v)
    }

    /// Where the centre of mass comes back to its resting height, from `x0` with velocity `v0`,
    /// integrating over `t_max` s (up to four times that).
    fn landing(&self, x0: Vec3, v0: Vec3, t_max: f64) -> Vec3 {
        let steps = 400;
        let h = t_max / steps as f64;
        let (mut x, mut v) = (x0, v0);
        let mut risen = false;
        let mut field = self.sys.clone();
        field.refresh_gravity(&x);
        let mut g0 = self.sys.surface.distance(&x) - self.rest;
        for _ in 0..4 * steps {
            let f = |x: &Vec3, v: &Vec3| (*v, self.accel(&field, x, v));
            let (k1x, k1v) = f(&x, &v);
            let (k2x, k2v) = f(&(x + k1x * (h / 2.0)), &(v + k1v * (h / 2.0)));
            let (k3x, k3v) = f(&(x + k2x * (h / 2.0)), &(v + k2v * (h / 2.0)));
            let (k4x, k4v) = f(&(x + k3x * h), &(v + k3v * h));
            let (x1, v1) = (
                x + (k1x + 2.0 * k2x + 2.0 * k3x + k4x) * (h / 6.0),
                v + (k1v + 2.0 * k2v + 2.0 * k3v + k4v) * (h / 6.0),
            );
            let g1 = self.sys.surface.distance(&x1) - self.rest;
            risen |= g1 > 0.0;
            if risen && g1 <= 0.0 {
                let s = if g0 > g1 { g0 / (g0 - g1) } else { 1.0 };
                return x + (x1 - x) * s.clamp(0.0, 1.0);
            }
            (x, v, g0) = (x1, v1, g1);
            field.refresh_gravity(&x);
        }
        x
    }
}

impl Launch<'_> {
    /// The centre of mass's position and velocity when the spacecraft leaves the ground after
    /// a torque `max_torque` about `axis` (T) for `l / max_torque` s from state `y`, stepped at
    /// `dt`.
    fn simulate(&self, y: &[f64], axis: &Vec3, l: f64, actuator: &Actuator, dt: f64) -> (Vec3, Vec3) {
        let max_torque = actuator.max_torque;
        let mut sys = self.sys.clone();
        let mut y: [f64; STATE_LEN] = y.try_into().expect("a lander state");
        let mut integ = Integrator::new(Method::Rk4 { dt }, STATE_LEN);
        let torque = self.q.inverse() * (axis * max_torque);
        let (pulse, last) = pulse_steps(l / max_torque, dt);
        let v3 = |y: &[f64], i: usize| Vec3::new(y[i], y[i + 1], y[i + 2]);
        // Clear of the ground by the body's own radius: no vertex can strike it again before the
        // centre of mass comes back down (a spinning hopper bounces off the ground more than
        // once as it leaves).
        let reach = sys.vertices.iter().map(|r| r.norm()).fold(0.0, f64::max);
        for k in 0..(LAUNCH_TIME / dt) as usize + pulse {
            sys.actuation.torque = match k {
                k if k + 1 < pulse => torque,
                k if k + 1 == pulse => torque * last,
                _ => Vec3::zeros(),
            };
            integ.step_once(&mut sys, k as f64 * dt, &mut y, dt);
            // A wheel keeps the momentum it took, as the run's does.
            if actuator.kind == ActuatorKind::Wheel {
                sys.actuation.momentum -= sys.actuation.torque * dt;
            }
            let x = v3(&y, 0);
            let q = UnitQuat::new_normalize(tumble_math::Quat::new(y[6], y[7], y[8], y[9]));
            if k + 1 >= pulse
                && v3(&y, 3).dot(&self.n) > 0.0
                && sys.vertices.iter().all(|r| sys.surface.distance(&(x + q * r)) > reach)
            {
                break;
            }
        }
        (v3(&y, 0), v3(&y, 3))
    }
}

/// The steps a torque profile of `duration` s spans at step `dt`, and the fraction of the
/// torque its last step applies (so the angular impulse is exact, and smooth in `duration`).
pub fn pulse_steps(duration: f64, dt: f64) -> (usize, f64) {
    let n = (duration / dt).ceil().max(1.0);
    (n as usize, (duration / dt - (n - 1.0)).clamp(0.0, 1.0))
}

/// The aimed hop from state `y` (the [`super::pack`] layout) to `target` (T, m) at `actuator`'s
/// largest torque, the run stepped at `dt` (s). The impulse never exceeds what the actuator's
/// momentum limit admits; where the aim needs more, the search finds the azimuth and impulse
/// whose limited hop lands nearest the aim, and the landing it gives is that hop's.
pub fn aim(sys: &LanderSystem, y: &[f64], target: &Vec3, actuator: &Actuator, dt: f64) -> Aimed {
    let v3 = |i: usize| Vec3::new(y[i], y[i + 1], y[i + 2]);
    let (x, v) = (v3(0), v3(3));
    let q = UnitQuat::new_normalize(tumble_math::Quat::new(y[6], y[7], y[8], y[9]));
    let omega = v3(17);
    let (rest, grad) = sys.surface.eval(&x);
    let n = grad.try_normalize(0.0).unwrap_or_else(Vec3::z);
    let reference = if n.x.abs() < 0.9 { Vec3::x() } else { Vec3::y() };
    let e0 = (reference - n * n.dot(&reference)).normalize();
    let launch = Launch { sys, x, v, q, n, e: [e0, n.cross(&e0)], omega, omega_dot: sys.spin.omega_dot(&omega), rest };
    // Flat-ground start: range R, launch elevation θ, local effective gravity g.
    let to = target - x;
    let tangential = to - n * n.dot(&to);
    let range = tangential.norm().max(1e-6);
    let psi = tangential.dot(&launch.e[1]).atan2(tangential.dot(&launch.e[0]));
    let g = launch.accel(sys, &x, &Vec3::zeros()).norm().max(1e-12);
    let (_, unit) = launch.velocity(psi, 1.0);
    let rise = (unit - v).normalize();
    let sin2 = (2.0 * rise.dot(&n).clamp(0.05, 1.0).asin()).sin().max(0.05);
    let speed = (g * range / sin2).sqrt();
    let t_max = 2.0 * (2.0 * speed / g);
    // The largest impulse the actuator admits about the axis of azimuth ψ: a wheel's rotor
    // starts from the momentum it holds, a torquer's from none (its limit is per hop).
    let rotor = if actuator.kind == ActuatorKind::Wheel { sys.actuation.momentum } else { Vec3::zeros() };
    let admitted = |psi: f64, l: f64| {
        let (axis, _) = launch.velocity(psi, l);
        l * actuator.fraction(&rotor, &(q.inverse() * axis * -l)) * (1.0 - 1e-9)
    };
    let miss = |psi: f64, l: f64| {
        let l = admitted(psi, l);
        let (axis, _) = launch.velocity(psi, l);
        let (x0, v0) = launch.simulate(y, &axis, l, actuator, dt);
        let p = launch.landing(x0, v0, t_max.max(1e-3));
        let off = p - target;
        (Vector2::new(off.dot(&launch.e[0]), off.dot(&launch.e[1])), p)
    };
    // Where Newton's step fails, the shooting correction: turn the azimuth by the angle from
    // the landing to the aim about `n`, and scale the impulse by the square root of the
    // ranges' ratio (range ∝ v² ∝ L²).
    let shoot = |psi: f64, l: f64, landing: &Vec3| {
        let off = landing - x;
        let reached = off - n * n.dot(&off);
        let turn = n.dot(&reached.cross(&tangential)).atan2(reached.dot(&tangential));
        (psi + turn, l * (range / reached.norm().max(1e-6 * range)).sqrt().clamp(0.5, 2.0))
    };
    let (psi, needed, landing) = solve(miss, shoot, psi, speed / (unit - v).norm(), range);
    let l = admitted(psi, needed);
    let (axis_t, _) = launch.velocity(psi, l);
    Aimed { axis: q.inverse() * axis_t, impulse: l, landing, limited: l < needed * (1.0 - 1e-6) }
}

/// Newton's method with finite differences and backtracking on `miss(ψ, L)` (the landing's
/// tangential offset from the aim and the landing), from `(psi, l)`, with `shoot` as the step
/// where no halved Newton step helps; stops below 0.1 % of `range`. The azimuth, impulse and
/// landing reached.
fn solve(
    miss: impl Fn(f64, f64) -> (Vector2<f64>, Vec3),
    shoot: impl Fn(f64, f64, &Vec3) -> (f64, f64),
    mut psi: f64,
    mut l: f64,
    range: f64,
) -> (f64, f64, Vec3) {
    let (mut f, mut landing) = miss(psi, l);
    for _ in 0..ITERATIONS {
        if f.norm() < 1e-3 * range {
            break;
        }
        let (dp, dl) = (1e-4, 1e-4 * l);
        let (fp, _) = miss(psi + dp, l);
        let (fl, _) = miss(psi, l + dl);
        let jac = Matrix2::from_columns(&[(fp - f) / dp, (fl - f) / dl]);
        // Backtracking: the launch has kinks (the pivot changes edge, the spacecraft rocks
        // before it leaves), so a full step may miss by more; halve it until it helps.
        let trials = jac.try_inverse().map(|inv| inv * f).map_or(Vec::new(), |step| {
            let (step_psi, step_l) = (step.x.clamp(-0.3, 0.3), step.y.clamp(-0.5 * l, 0.5 * l));
            (0..6).map(|k| 0.5f64.powi(k)).map(|s| (psi - s * step_psi, l - s * step_l)).collect()
        });
        let (shot_psi, shot_l) = shoot(psi, l, &landing);
        let shots = [1.0, 0.5, 0.25].map(|s| (psi + s * (shot_psi - psi), l + s * (shot_l - l)));
        // Near the aim the launch's kinks make the landing jump by a fraction of a metre under
        // small changes: a compass search at the scale of the miss steps over them.
        let (dpsi, dl) = (f.norm() / range, 0.5 * l * f.norm() / range);
        let compass = [1.0, 0.5, 0.25].into_iter().flat_map(|s| {
            [(s * dpsi, 0.0), (-s * dpsi, 0.0), (0.0, s * dl), (0.0, -s * dl)].map(|(a, b)| (psi + a, l + b))
        });
        let better = trials
            .into_iter()
            .chain(shots)
            .chain(compass)
            .map(|(p, q)| (p, q, miss(p, q)))
            .find(|(_, _, (g, _))| g.norm() < f.norm());
        let Some((p, q, (g, at))) = better else { break };
        (psi, l, f, landing) = (p, q, g, at);
    }
    (psi, l, landing)
}
