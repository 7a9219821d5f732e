//! Compliant vertex-on-SDF contact with regularised Coulomb friction and rolling resistance
//! (Van wal, Reid & Scheeres, "Small-body lander simulations using the GPU", §4).
//!
//! A rigid body (the spacecraft) carries contact vertices `r_j` (body-fixed, from its centre of
//! mass); a surface is a signed distance field `φ` (negative inside, [`Sdf`]) fixed in frame W.
//! All vectors here are in W axes and velocities are relative to W. The document writes
//! `d_j = d(p_j)` positive inside; here the penetration is `δ_j = max(0, −φ(p_j))`.
//!
//! **Normal force** at each penetrating vertex, with `N_j = ∇φ(p_j)/|∇φ(p_j)|`:
//! `F_j = k δ_j ∇φ(p_j) + c max(0, −v_N,j) N_j`, `v_N,j = (v + ω × r_j)·N_j`. For an exact
//! distance `|∇φ| = 1` and this is the document's `(k δ_j + c max(0, −v_N,j)) N_j`; writing the
//! spring along `∇φ` keeps it exactly conservative, `−∇(½ k φ²)`, also on fields whose gradient
//! is not unit (terrain-perturbed SDFs, interpolated grids), so the elastic energy `½ k δ_j²`
//! balances for any field with an exact gradient. The damper acts only while the vertex moves
//! into the surface, so the force is never cohesive, and dissipates `c v_N,j²`. Total normal
//! load `F_N = Σ_j |F_j|`, N.
//!
//! **Application point** (eq. 4): `r_p = Σ δ_j r_j / Σ δ_j`, normal `N_p = ∇φ(x + r_p)`
//! normalised, velocity `v_p = v + ω × r_p`, tangential velocity `v_T = (I − N_p N_pᵀ) v_p`.
//!
//! **Friction.** Slip: `F_slip = −μ F_N v̂_T`. Stick: the tangential force that makes the
//! tangential acceleration of the application point vanish. With `r_p` and `N_p` held fixed over
//! the instant, a force `F` at `r_p` changes the point's acceleration by `M F` with the point
//! mobility `M = I₃/m − [r_p×] J⁻¹ [r_p×]` (`J` the inertia in W axes; `−[r×]J⁻¹[r×]` is positive
//! semi-definite, so `M` is positive definite): `a_p = b + M F`, where `b` is the acceleration
//! of the point under every other load (gravity, frame terms, normal forces). Writing
//! `F = T f` with `T = [t₁ t₂]` an orthonormal basis of the tangent plane, `Tᵀ a_p = 0` gives the
//! 2×2 symmetric positive-definite system `(Tᵀ M T) f = −Tᵀ b`. If `|F_stick| > μ_s F_N` it is
//! scaled back to the cone. Regularised (the document's blend):
//! `F_F = η(|v_T|/v*) F_slip + (1 − η) F_stick`, with `η(s) = s (2 − s)` for `s < 1` and 1 beyond:
//! `η(0) = 0`, `η(1) = 1`, `η'(1) = 0`, and linear near zero so that the slip part acts as a
//! viscous term `μ F_N/v*·v_T` that damps any error of the stick force. (The document shows η
//! only as a figure; this is the C¹ ramp with those properties.) Friction never does positive
//! work: a stick force pointing along `v_T` (possible while `v_T ≠ 0`, since it is computed from
//! accelerations) loses that component, so `F_F·v_p ≤ 0` always.
//!
//! **Accuracy at the step.** Below its tolerance the blend acts on the application point as a
//! viscous drag `2μF_N/v*`, i.e. at the rate `2μF_N λ/v*` with `λ` the largest eigenvalue of
//! `Tᵀ M T`; at the loads of an impact this can exceed what an explicit step `dt` can follow.
//! With [`VertexContactParams::stable_dt`] set, the tolerance used is `max(v*, W μ F_N λ dt)`
//! ([`WIDENING`] `W = 4`), which keeps rate·dt ≤ 2/W = 0.5; likewise `max(ω*, W C_RR F_N tr(J⁻¹)
//! dt)` for rolling (the trace bounds the largest eigenvalue). The bound is RK4's accuracy on
//! the drag, not its stability (rate·dt ≤ 2.785): one RK4 step of `ẋ = −λx` with its power
//! integrated alongside misses the energy balance by 1.8 times the energy `½x²` at λh = 2,
//! 3.6e-2 at 1 and 1.1e-3 at 0.5 (tumble-dynamics' integrator tests). At the bound of 2 used
//! before, a 1.2 kg hopper striking Eros at 0.7 m/s while spinning at 6 rad/s (23 N on two
//! vertices, 5 ms steps) gained 1.3e-3 J from friction alone and was stopped by the energy
//! guard. The slip it allows is the same kind of bound: a drag of time constant `v*/(2μF_N λ)`
//! stops a slip of `v*` in half the time Coulomb friction `μF_N` would. Where the user's
//! tolerances are tighter than that they are used unchanged.
//!
//! **Rolling resistance.** Roll: `L_roll = −C_RR F_N ω̂` (`C_RR` is a length, m). Stick: the
//! torque that makes `ω̇ = 0` given all other torques (friction included): `L_stick = −J α_other`,
//! capped at `C_RR F_N`, with its component along `ω` dropped when positive, as for friction.
//! Blend `L_RR = η(|ω|/ω*) L_roll + (1 − η) L_stick`. So that rolling resistance leaves `v_T`
//! alone (the document, after Van wal et al. 2017), a force at the centre of mass cancels the
//! tangential acceleration the torque gives the application point:
//! `F_RR = −m (I − N_p N_pᵀ) ((J⁻¹ L_RR) × r_p)`. That force has a moment about the contact
//! point, so the pair's moment there is `M_c = L_RR − r_p × F_RR`, up to `(1 + m r⊥²/J)` times
//! `|L_RR|`; `C_RR` is the lever arm of the normal load about the contact point, so the cap
//! `C_RR F_N` applies to `|M_c|` (the document caps `|L_RR|`; see docs/lander.md, "Rolling
//! resistance", for why and what changes). The pair does work at the rate
//! `L_RR·ω + F_RR·v = L_RR·u` with `u = ω − m J⁻¹ (r_p × (I − N_p N_pᵀ) v)` (which is parallel to
//! `ω` when rolling without slip or spinning in place); the component of `L_RR` along `u`, when
//! positive, is dropped, so rolling resistance never feeds energy in either.

use crate::patch;
use tumble_geometry::sdf::Sdf;
use tumble_math::{Mat3, Vec3, skew};

/// Parameters of the vertex contact model (SI).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VertexContactParams {
    /// Spring stiffness per vertex, N/m.
    pub stiffness: f64,
    /// Damping per vertex (compression only), N·s/m.
    pub damping: f64,
    /// Coulomb coefficient while slipping.
    pub mu: f64,
    /// Coulomb coefficient bounding the stick force.
    pub mu_static: f64,
    /// Rolling-resistance lever arm `C_RR`, m.
    pub rolling: f64,
    /// Friction regularisation tolerance `v*`, m/s.
    pub v_star: f64,
    /// Rolling-resistance regularisation tolerance `ω*`, rad/s.
    pub w_star: f64,
    /// Step of the explicit integrator driving the model, s (0: none). When set, `v*` and `ω*`
    /// widen where the regularisation would otherwise be too stiff for that step (see the
    /// module docs).
    pub stable_dt: f64,
}

/// The body's kinematics relative to the surface frame W (all in W axes).
#[derive(Clone, Copy, Debug)]
pub struct BodyKinematics {
    /// Centre of mass, m.
    pub x: Vec3,
    /// Rotation of body axes into W.
    pub R_WB: Mat3,
    /// Velocity of the centre of mass relative to W, m/s.
    pub v: Vec3,
    /// Angular velocity relative to W, rad/s.
    pub w: Vec3,
}

/// Mass and inverse inertia (W axes) of the body.
#[derive(Clone, Copy, Debug)]
pub struct Mobility {
    /// Mass, kg.
    pub mass: f64,
    /// Inertia about the centre of mass in W axes, kg·m².
    pub inertia: Mat3,
    /// Its inverse.
    pub inertia_inv: Mat3,
}

/// Result of the normal phase.
#[derive(Clone, Copy, Debug, Default)]
pub struct NormalContact {
    /// Penetrating vertices.
    pub active: usize,
    /// Sum of normal forces, N (W axes).
    pub force: Vec3,
    /// Sum of their torques about the centre of mass, N·m (W axes).
    pub torque: Vec3,
    /// Total normal load `F_N`, N.
    pub load: f64,
    /// Application point `r_p` from the centre of mass, m (W axes).
    pub r_p: Vec3,
    /// Unit surface normal at the application point.
    pub n_p: Vec3,
    /// Deepest penetration, m.
    pub max_penetration: f64,
    /// Smallest signed distance of any vertex, m (`∞` without vertices).
    pub min_distance: f64,
    /// Shortest time for a vertex outside to reach the surface at its current normal speed,
    /// s (`∞` when none approaches).
    pub time_to_contact: f64,
    /// Elastic energy `Σ ½ k δ²`, J.
    pub elastic_energy: f64,
    /// Power of the dampers (≤ 0), W.
    pub damper_power: f64,
}

/// Result of the tangential phase.
#[derive(Clone, Copy, Debug, Default)]
pub struct TangentialContact {
    /// Friction force at the application point, N (W axes).
    pub friction: Vec3,
    /// Rolling-resistance torque, N·m (W axes).
    pub rolling_torque: Vec3,
    /// Rolling-resistance force at the centre of mass, N (W axes).
    pub rolling_force: Vec3,
    /// Tangential velocity of the application point, m/s.
    pub v_t: Vec3,
    /// Power of friction (≤ 0), W.
    pub friction_power: f64,
    /// Power of rolling resistance (torque and force), W.
    pub rolling_power: f64,
}

/// How far `v*` and `ω*` widen with [`VertexContactParams::stable_dt`] set: the drag's rate
/// times the step stays at or below `2 / WIDENING` (module docs, "Accuracy at the step").
pub const WIDENING: f64 = 4.0;

/// The regularisation `η(s) = s (2 − s)` on `[0, 1)`, 1 beyond.
pub fn eta(s: f64) -> f64 {
    if s >= 1.0 { 1.0 } else { s.max(0.0) * (2.0 - s.max(0.0)) }
}

/// Normal forces of the vertices `r_B` (body axes) on the field `sdf`.
pub fn normal_phase(sdf: &dyn Sdf, params: &VertexContactParams, kin: &BodyKinematics, r_B: &[Vec3]) -> NormalContact {
    normal_phase_with(&|_, p| sdf.eval(p), params, kin, r_B)
}

/// [`normal_phase`] with the field given per query: `field(j, p)` for vertex `j` at `p`, and
/// `field(r_B.len(), p)` for the application point (callers may answer from local models).
pub fn normal_phase_with(
    field: &dyn Fn(usize, &Vec3) -> (f64, Vec3),
    params: &VertexContactParams,
    kin: &BodyKinematics,
    r_B: &[Vec3],
) -> NormalContact {
    let mut out = NormalContact { min_distance: f64::INFINITY, time_to_contact: f64::INFINITY, ..Default::default() };
    let (mut sum_d, mut sum_dr) = (0.0, Vec3::zeros());
    patch::record(|patch| {
        for (j, rb) in r_B.iter().enumerate() {
            let r = kin.R_WB * rb;
            let (phi, grad) = field(j, &(kin.x + r));
            out.min_distance = out.min_distance.min(phi);
            if phi >= 0.0 {
                let closing = -(kin.v + kin.w.cross(&r)).dot(&grad);
                if closing > 0.0 {
                    out.time_to_contact = out.time_to_contact.min(phi / closing);
                }
                continue;
            }
            let delta = -phi;
            let n = grad.try_normalize(0.0).unwrap_or_else(Vec3::z);
            let v_n = (kin.v + kin.w.cross(&r)).dot(&n);
            let damper = params.damping * (-v_n).max(0.0);
            // Spring along the field's own gradient: exactly −∇(½ k φ²), also where the field is
            // not a unit-gradient distance (terrain, interpolated grids).
            let f_vec = params.stiffness * delta * if grad.norm() > 0.0 { grad } else { n } + damper * n;
            let f = f_vec.norm();
            out.active += 1;
            out.force += f_vec;
            out.torque += r.cross(&f_vec);
            out.load += f;
            out.max_penetration = out.max_penetration.max(delta);
            out.elastic_energy += 0.5 * params.stiffness * delta * delta;
            out.damper_power -= damper * (-v_n).max(0.0);
            sum_d += delta;
            sum_dr += delta * r;
            patch.push(r);
        }
    });
    if out.active > 0 {
        out.r_p = sum_dr / sum_d;
        let (_, g) = field(r_B.len(), &(kin.x + out.r_p));
        out.n_p = g.try_normalize(0.0).unwrap_or_else(|| out.force.normalize());
    }
    out
}

/// Friction and rolling resistance, given the normal phase and the accelerations the body
/// would have without them: `a0` of the centre of mass and `alpha0` (both W axes, relative to
/// W).
pub fn tangential_phase(
    params: &VertexContactParams,
    kin: &BodyKinematics,
    body: &Mobility,
    normal: &NormalContact,
    a0: &Vec3,
    alpha0: &Vec3,
) -> TangentialContact {
    let mut out = TangentialContact::default();
    if normal.active == 0 {
        return out;
    }
    let (n, r) = (normal.n_p, normal.r_p);
    let proj = Mat3::identity() - n * n.transpose();
    let v_p = kin.v + kin.w.cross(&r);
    out.v_t = proj * v_p;
    let speed = out.v_t.norm();
    let f_n = normal.load;

    // Friction: stick force from the point mobility, then the blend.
    let rx = skew(&r);
    let mob = Mat3::identity() / body.mass - rx * body.inertia_inv * rx;
    let b = a0 + alpha0.cross(&r) + kin.w.cross(&kin.w.cross(&r));
    let (t1, t2) = tangent_basis(&n);
    let (a11, a12, a22) = (t1.dot(&(mob * t1)), t1.dot(&(mob * t2)), t2.dot(&(mob * t2)));
    let (b1, b2) = (-t1.dot(&b), -t2.dot(&b));
    let det = a11 * a22 - a12 * a12;
    let mut stick = (t1 * (a22 * b1 - a12 * b2) + t2 * (a11 * b2 - a12 * b1)) / det;
    let cap = params.mu_static * f_n;
    if stick.norm() > cap {
        stick *= cap / stick.norm();
    }
    let slip_dir = if speed > 0.0 { out.v_t / speed } else { Vec3::zeros() };
    stick -= slip_dir * stick.dot(&slip_dir).max(0.0);
    // Near zero the blend is a viscous drag of gain 2μF_N/v*, which moves the point at the
    // rate 2μF_N λ/v* (λ the largest tangential mobility); keep rate·dt ≤ 2/WIDENING, where
    // RK4 follows the drag's energy (module docs).
    let v_star = if params.stable_dt > 0.0 {
        let lambda = 0.5 * (a11 + a22) + (0.25 * (a11 - a22).powi(2) + a12 * a12).sqrt();
        params.v_star.max(WIDENING * params.mu * f_n * lambda * params.stable_dt)
    } else {
        params.v_star
    };
    let e = eta(speed / v_star);
    out.friction = e * (-params.mu * f_n * slip_dir) + (1.0 - e) * stick;
    out.friction_power = out.friction.dot(&v_p);

    // Rolling resistance: stick torque against every other torque, friction's included.
    if params.rolling > 0.0 {
        let spin = kin.w.norm();
        let w_dir = if spin > 0.0 { kin.w / spin } else { Vec3::zeros() };
        let alpha = alpha0 + body.inertia_inv * r.cross(&out.friction);
        let cap = params.rolling * f_n;
        let mut l_stick = -(body.inertia * alpha);
        if l_stick.norm() > cap {
            l_stick *= cap / l_stick.norm();
        }
        l_stick -= w_dir * l_stick.dot(&w_dir).max(0.0);
        // The same bound for the rolling drag 2 C_RR F_N/ω*, with the trace of J⁻¹ standing
        // for its largest eigenvalue (an upper bound: widening errs on the safe side).
        let w_star = params.w_star.max(WIDENING * params.rolling * f_n * body.inertia_inv.trace() * params.stable_dt);
        let e = eta(spin / w_star);
        let mut torque = e * (-cap * w_dir) + (1.0 - e) * l_stick;
        // The pair (L, F_RR(L)) has power L·u with u = ω − m J⁻¹ (r_p × P v): drop the part of
        // L that would feed energy in.
        let u = kin.w - body.mass * (body.inertia_inv * r.cross(&(proj * kin.v)));
        if let Some(u_dir) = u.try_normalize(0.0) {
            torque -= u_dir * torque.dot(&u_dir).max(0.0);
        }
        // C_RR F_N bounds the moment of the pair about the contact point (the normal load's
        // lever arm), `M_c = L − r_p × F_RR`, not the torque `L` alone: the compensating force
        // adds `m r_p × P (r_p × J⁻¹ L)`, (1 + m r⊥²/J) times `L` (3× for a rolling cylinder,
        // 5.5× for a cube on a corner). Scaling by a positive factor keeps the power's sign.
        let force = |l: &Vec3| -body.mass * (proj * (body.inertia_inv * l).cross(&r));
        let mut moment = torque - r.cross(&force(&torque));
        if moment.norm() > cap {
            let k = cap / moment.norm();
            torque *= k;
            moment *= k;
        }
        // The tangential part of that moment is the normal load acting at `r_p + e`,
        // `e = N_p × M_c / F_N`: its centre of pressure must stay on the contact patch. On one
        // vertex, or across the line of two, it cannot move: nothing holds a balanced body there.
        let shift = n.cross(&moment) / f_n;
        if shift.norm() > 0.0 {
            torque *= patch::reach(&r, &n, &shift);
        }
        out.rolling_torque = torque;
        out.rolling_force = force(&torque);
        out.rolling_power = out.rolling_torque.dot(&kin.w) + out.rolling_force.dot(&kin.v);
    }
    out
}

/// An orthonormal basis of the plane normal to the unit vector `n`.
fn tangent_basis(n: &Vec3) -> (Vec3, Vec3) {
    let a = if n.x.abs() < 0.6 { Vec3::x() } else { Vec3::y() };
    let t1 = n.cross(&a).normalize();
    (t1, n.cross(&t1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tumble_geometry::sdf::HalfSpace;

    fn params() -> VertexContactParams {
        VertexContactParams {
            stiffness: 1e4,
            damping: 50.0,
            mu: 0.5,
            mu_static: 0.6,
            rolling: 0.01,
            v_star: 1e-3,
            w_star: 1e-3,
            stable_dt: 0.0,
        }
    }

    fn cube_body() -> Mobility {
        let i = Mat3::identity() * (2.0 * 0.04 / 6.0);
        Mobility { mass: 2.0, inertia: i, inertia_inv: i.try_inverse().expect("pd") }
    }

    #[test]
    fn eta_ramps_smoothly_from_stick_to_slip() {
        assert_eq!(eta(0.0), 0.0);
        assert_eq!(eta(1.0), 1.0);
        assert_eq!(eta(3.0), 1.0);
        assert!((eta(1e-6) / 1e-6 - 2.0).abs() < 1e-5, "linear near zero");
        assert!((eta(1.0 - 1e-6) - 1.0).abs() < 1e-11, "C¹ at s = 1");
    }

    #[test]
    fn stick_force_cancels_the_tangential_acceleration_and_stays_in_the_cone() {
        // A tilted body resting on a plane with two corners in, pushed sideways.
        let plane = HalfSpace { point: Vec3::zeros(), normal: Vec3::z() };
        let r_B = [Vec3::new(0.1, 0.1, -0.1), Vec3::new(-0.1, 0.1, -0.1), Vec3::new(0.1, -0.1, 0.1)];
        let kin = BodyKinematics {
            x: Vec3::new(0.0, 0.0, 0.0999),
            R_WB: Mat3::identity(),
            v: Vec3::zeros(),
            w: Vec3::zeros(),
        };
        let body = cube_body();
        let p = params();
        let normal = normal_phase(&plane, &p, &kin, &r_B);
        assert_eq!(normal.active, 2);
        // Small push: the stick force holds the point still.
        let a0 = Vec3::new(0.3, -0.2, 0.0) + normal.force / body.mass;
        let alpha0 = body.inertia_inv * normal.torque;
        let t = tangential_phase(&p, &kin, &body, &normal, &a0, &alpha0);
        let a_p = a0
            + t.friction / body.mass
            + (alpha0 + body.inertia_inv * normal.r_p.cross(&t.friction)).cross(&normal.r_p);
        let n = normal.n_p;
        assert!((a_p - n * n.dot(&a_p)).norm() < 1e-12, "tangential acceleration {a_p}");
        assert!(t.friction.dot(&n).abs() < 1e-12);
        // A large push: capped at μ_s F_N.
        let a0 = Vec3::new(300.0, 0.0, 0.0) + normal.force / body.mass;
        let t = tangential_phase(&p, &kin, &body, &normal, &a0, &alpha0);
        assert!((t.friction.norm() - p.mu_static * normal.load).abs() < 1e-9);
    }

    #[test]
    fn friction_and_rolling_never_do_positive_work() {
        let plane = HalfSpace { point: Vec3::zeros(), normal: Vec3::z() };
        let r_B: Vec<Vec3> = (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { 0.1 } else { -0.1 },
                    if i & 2 == 0 { 0.1 } else { -0.1 },
                    if i & 4 == 0 { 0.1 } else { -0.1 },
                )
            })
            .collect();
        let body = cube_body();
        let p = params();
        let mut rng = tumble_math::Lcg::new(5u64);
        let mut u = || rng.symmetric();
        for _ in 0..2000 {
            let kin = BodyKinematics {
                x: Vec3::new(0.0, 0.0, 0.1 + 0.002 * u()),
                R_WB: tumble_math::UnitQuat::from_scaled_axis(Vec3::new(u(), u(), u()) * 0.05)
                    .to_rotation_matrix()
                    .into_inner(),
                v: Vec3::new(u(), u(), u()) * 2e-3,
                w: Vec3::new(u(), u(), u()) * 2e-3,
            };
            let normal = normal_phase(&plane, &p, &kin, &r_B);
            if normal.active == 0 {
                continue;
            }
            let a0 = Vec3::new(u(), u(), u()) * 10.0;
            let alpha0 = Vec3::new(u(), u(), u()) * 100.0;
            let t = tangential_phase(&p, &kin, &body, &normal, &a0, &alpha0);
            assert!(t.friction_power <= 1e-15, "friction power {}", t.friction_power);
            assert!(t.rolling_power <= 1e-15, "rolling power {}", t.rolling_power);
            assert!(t.friction.norm() <= p.mu_static.max(p.mu) * normal.load * (1.0 + 1e-12), "Coulomb cone");
            assert!(t.rolling_torque.norm() <= p.rolling * normal.load * (1.0 + 1e-12));
            // The pair's moment about the contact point is bounded by the normal load's lever
            // arm.
            let moment = t.rolling_torque - normal.r_p.cross(&t.rolling_force);
            assert!(moment.norm() <= p.rolling * normal.load * (1.0 + 1e-12), "moment {}", moment.norm());
            assert!(normal.damper_power <= 0.0);
        }
    }
}
