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

use crate::patch::{CHUNK, Chunk, Patch};
use tumble_geometry::sdf::Sdf;
use tumble_math::{Mat3, Vec3};

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
    /// Inverse of the inertia about the centre of mass in W axes, 1/(kg·m²).
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

/// The surface as the vertex contact queries it: the vertices of a body together, then its
/// application point. Any [`Sdf`] is one; a caller may answer from models of its own (the lander's
/// local surface models).
pub trait ContactField {
    /// `out[i] = (φ, ∇φ)` at `points[i]`, the position of vertex `index[i]` (W).
    fn vertices(&self, index: &[usize], points: &[Vec3], out: &mut [(f64, Vec3)]);
    /// `(φ, ∇φ)` at the application point `p` (W).
    fn application(&self, p: &Vec3) -> (f64, Vec3);
}

impl<T: Sdf + ?Sized> ContactField for T {
    #[inline]
    fn vertices(&self, _index: &[usize], points: &[Vec3], out: &mut [(f64, Vec3)]) {
        self.eval_many(points, out)
    }
    #[inline]
    fn application(&self, p: &Vec3) -> (f64, Vec3) {
        self.eval(p)
    }
}

/// Normal forces of the vertices `r_B` (body axes) on the field `sdf`; the touching vertices
/// into `patch`, for [`tangential_phase`].
pub fn normal_phase(
    sdf: &dyn Sdf,
    params: &VertexContactParams,
    kin: &BodyKinematics,
    r_B: &[Vec3],
    patch: &mut Patch,
) -> NormalContact {
    normal_phase_with(sdf, params, kin, r_B, patch)
}

/// [`normal_phase`] with the field answered by `field` (callers may answer from local models).
pub fn normal_phase_with<F: ContactField + ?Sized>(
    field: &F,
    params: &VertexContactParams,
    kin: &BodyKinematics,
    r_B: &[Vec3],
    patch: &mut Patch,
) -> NormalContact {
    normal_phase_in::<F, true>(field, params, kin, r_B, Gaps::None, patch)
}

/// [`normal_phase_with`], also writing each vertex's `φ` into `gaps` (one per vertex; a shorter
/// slice records the first vertices only) for [`normal_forces_with`] to skip the vertices that
/// cannot have reached the surface since.
pub fn normal_phase_recording<F: ContactField + ?Sized>(
    field: &F,
    params: &VertexContactParams,
    kin: &BodyKinematics,
    r_B: &[Vec3],
    gaps: &mut [f64],
    patch: &mut Patch,
) -> NormalContact {
    normal_phase_in::<F, true>(field, params, kin, r_B, Gaps::Record(gaps), patch)
}

/// The largest slope `|∇φ|` a field may have for [`normal_forces_with`] to skip vertices by its
/// values: 1 for exact distances, at most 1.3 for the bundled terrain and √3 for trilinear
/// grids (the lander's local surface models' far slots rest on the same bound).
pub const SLOPE: f64 = 2.0;

/// [`normal_phase_with`] for the forces alone, as an integrator's inner stages need them: the
/// vertices outside the surface are not looked at further, so `min_distance` and
/// `time_to_contact` stay `∞`, `max_penetration` and `elastic_energy` 0 (the forces, torque,
/// load, damper power, application point and normal are the same). With `skip = Some((gaps,
/// moved2))`, `gaps` recorded by [`normal_phase_recording`] at a state from which no vertex has
/// moved more than `√moved2` (m), a vertex with `gaps[j] > SLOPE √moved2` is not queried: it was
/// that far outside a field of slope below [`SLOPE`] and is outside still, where it adds no
/// force. The result is the same as querying it.
pub fn normal_forces_with<F: ContactField + ?Sized>(
    field: &F,
    params: &VertexContactParams,
    kin: &BodyKinematics,
    r_B: &[Vec3],
    skip: Option<(&[f64], f64)>,
    patch: &mut Patch,
) -> NormalContact {
    let gaps = match skip {
        Some((gaps, moved2)) if gaps.len() == r_B.len() => Gaps::Skip(gaps, SLOPE * SLOPE * moved2),
        _ => Gaps::None,
    };
    normal_phase_in::<F, false>(field, params, kin, r_B, gaps, patch)
}

/// What a normal phase does with the vertices' recorded clearances.
enum Gaps<'a> {
    None,
    Record(&'a mut [f64]),
    /// Skips the vertices recorded farther out than the bound (its square given, m²).
    Skip(&'a [f64], f64),
}

#[inline(always)]
fn normal_phase_in<F: ContactField + ?Sized, const OBSERVE: bool>(
    field: &F,
    params: &VertexContactParams,
    kin: &BodyKinematics,
    r_B: &[Vec3],
    mut gaps: Gaps,
    patch: &mut Patch,
) -> NormalContact {
    let mut next = 0;
    let (recorded, bound2): (&[f64], f64) = match &gaps {
        Gaps::Skip(gaps, bound2) => (gaps, *bound2),
        _ => (&[], f64::INFINITY),
    };
    patch.clear();
    let mut out = NormalContact { min_distance: f64::INFINITY, time_to_contact: f64::INFINITY, ..Default::default() };
    let (mut sum_d, mut sum_dr) = (0.0, Vec3::zeros());
    while next < r_B.len() {
        // The next vertices to query, up to a chunk of them, in the patch's own arrays (not
        // cleared for each call: every entry is written before it is read).
        let Chunk { arms, points, index, at } = &mut patch.chunk;
        let mut m = 0;
        while m < CHUNK && next < r_B.len() {
            let j = next;
            next += 1;
            if recorded.get(j).is_some_and(|&g| g > 0.0 && g * g > bound2) {
                continue;
            }
            arms[m] = kin.R_WB * r_B[j];
            points[m] = kin.x + arms[m];
            index[m] = j;
            m += 1;
        }
        field.vertices(&index[..m], &points[..m], &mut at[..m]);
        if let Gaps::Record(gaps) = &mut gaps {
            for (&j, &(phi, _)) in index[..m].iter().zip(&at[..m]) {
                if let Some(g) = gaps.get_mut(j) {
                    *g = phi;
                }
            }
        }
        let mut touching = 0;
        for i in 0..m {
            let (r, (phi, grad)) = (arms[i], at[i]);
            if OBSERVE {
                out.min_distance = out.min_distance.min(phi);
            }
            if phi >= 0.0 {
                if OBSERVE {
                    let closing = -(kin.v + kin.w.cross(&r)).dot(&grad);
                    if closing > 0.0 {
                        out.time_to_contact = out.time_to_contact.min(phi / closing);
                    }
                }
                continue;
            }
            let (delta, vel) = (-phi, kin.v + kin.w.cross(&r));
            // Spring along the field's own gradient: exactly −∇(½ k φ²), also where the
            // field is not a unit-gradient distance (terrain, interpolated grids); its
            // magnitude k δ |∇φ| adds to the damper's along the same normal.
            let norm = length(&grad);
            let (spring_dir, slope) = if norm == 0.0 { (Vec3::z(), 1.0) } else { (grad, norm) };
            // `x / 1` is `x` to the bit: a unit gradient skips the divisions (see `length`).
            let per_slope = |x: f64| if slope == 1.0 { x } else { quotient(x, slope) };
            let closing = per_slope(-vel.dot(&spring_dir)).max(0.0);
            let (spring, damper) = (params.stiffness * delta, params.damping * closing);
            // `k δ ∇φ + c v N` with `N = ∇φ / |∇φ|`.
            let f_vec = spring_dir * (spring + per_slope(damper));
            out.force += f_vec;
            out.torque += r.cross(&f_vec);
            out.load += spring * slope + damper;
            out.damper_power -= damper * closing;
            if OBSERVE {
                out.max_penetration = out.max_penetration.max(delta);
                out.elastic_energy += 0.5 * spring * delta;
            }
            sum_d += delta;
            sum_dr += r * delta;
            // Kept in the chunk's own arms (`touching ≤ i`: only arms already read are
            // overwritten), added to the patch after the loop: a push here could call the
            // allocator, and a call in the loop sends every accumulator through memory.
            arms[touching] = r;
            touching += 1;
        }
        patch.keep(touching);
        out.active += touching;
    }
    if out.active > 0 {
        out.r_p = sum_dr * (1.0 / sum_d);
        let (_, g) = field.application(&(kin.x + out.r_p));
        out.n_p = match length(&g) {
            0.0 => out.force.normalize(),
            1.0 => g,
            norm => g * (1.0 / norm),
        };
    }
    out
}

/// `|v|`, to the bit `v.norm()`; without the square root where `|v|²` is 1 or the next double
/// above it, `1 + 2⁻⁵²` (the only two whose correctly rounded root is 1: an exact distance's
/// gradient, a unit normal as `normalize` leaves it about two times in three), and the normal
/// phase's divisions by a unit slope are skipped in turn (`x / 1 = x`, `x · (1 / 1) = x`): they
/// are on the path every stage waits on.
#[inline(always)]
fn length(v: &Vec3) -> f64 {
    let n2 = v.norm_squared();
    if unit_square(n2) { 1.0 } else { root(n2) }
}

/// Whether `√n2` rounds to 1: `n2` is 1 or `1 + 2⁻⁵²`.
#[inline(always)]
fn unit_square(n2: f64) -> bool {
    n2 == 1.0 || n2 == 1.0 + f64::EPSILON
}

/// `√x` on the path taken for a slope other than 1: marked cold so that the compiler keeps the
/// branch, where it would otherwise take the root ahead of the test and select (and the select
/// waits for the root). The same for [`quotient`].
#[cold]
#[inline(always)]
fn root(x: f64) -> f64 {
    x.sqrt()
}

/// `x / slope`, cold for the reason [`root`] is.
#[cold]
#[inline(always)]
fn quotient(x: f64, slope: f64) -> f64 {
    x / slope
}

/// Friction and rolling resistance, given the normal phase (`normal`, and the touching vertices
/// it left in `patch`) and the accelerations the body would have without them: `a0` of the
/// centre of mass and `alpha0` (both W axes, relative to W), with `torque0 = J alpha0` (N·m, W
/// axes: the torque that would give `alpha0`, which the rolling stick torque cancels).
pub fn tangential_phase(
    params: &VertexContactParams,
    kin: &BodyKinematics,
    body: &Mobility,
    (normal, patch): (&NormalContact, &Patch),
    a0: &Vec3,
    (alpha0, torque0): (&Vec3, &Vec3),
) -> TangentialContact {
    tumble_math::wide::dispatch(Tangential { params, kin, body, normal, patch, a0, alpha0, torque0 })
}

/// The arguments of [`tangential_phase`], a kernel [`tumble_math::wide::dispatch`] builds twice.
struct Tangential<'a> {
    params: &'a VertexContactParams,
    kin: &'a BodyKinematics,
    body: &'a Mobility,
    normal: &'a NormalContact,
    patch: &'a Patch,
    a0: &'a Vec3,
    alpha0: &'a Vec3,
    torque0: &'a Vec3,
}

impl tumble_math::wide::Kernel for Tangential<'_> {
    type Output = TangentialContact;
    #[inline(always)]
    fn run(self) -> TangentialContact {
        tangential(self)
    }
}

#[inline(always)]
fn tangential(Tangential { params, kin, body, normal, patch, a0, alpha0, torque0 }: Tangential) -> TangentialContact {
    let mut out = TangentialContact::default();
    if normal.active == 0 {
        return out;
    }
    let (n, r) = (normal.n_p, normal.r_p);
    let tangent = |a: Vec3| a - n * n.dot(&a);
    let v_p = kin.v + kin.w.cross(&r);
    out.v_t = tangent(v_p);
    let speed = out.v_t.norm();
    let f_n = normal.load;

    // Friction: stick force from the point mobility, then the blend. In the tangent basis the
    // mobility `I/m − [r×] J⁻¹ [r×]` is `δᵢⱼ/m + cᵢᵀ J⁻¹ cⱼ` with `cᵢ = r × tᵢ`.
    let (t1, t2) = tangent_basis(&n);
    let (c1, c2) = (r.cross(&t1), r.cross(&t2));
    let (j1, j2) = (body.inertia_inv * c1, body.inertia_inv * c2);
    let inv_m = 1.0 / body.mass;
    let (a11, a12, a22) = (inv_m + c1.dot(&j1), c1.dot(&j2), inv_m + c2.dot(&j2));
    let b = a0 + alpha0.cross(&r) + kin.w.cross(&kin.w.cross(&r));
    let (b1, b2) = (-t1.dot(&b), -t2.dot(&b));
    let det = a11 * a22 - a12 * a12;
    let mut stick = (t1 * (a22 * b1 - a12 * b2) + t2 * (a11 * b2 - a12 * b1)) * (1.0 / det);
    let cap = params.mu_static * f_n;
    clamp(&mut stick, cap);
    let slip_dir = if speed > 0.0 { out.v_t * (1.0 / speed) } else { Vec3::zeros() };
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
    out.friction = slip_dir * (-e * params.mu * f_n) + stick * (1.0 - e);
    out.friction_power = out.friction.dot(&v_p);
    if params.rolling > 0.0 {
        rolling(params, kin, body, (normal, patch), torque0, &mut out);
    }
    out
}

/// Scales `v` back to length `cap` if it is longer.
fn clamp(v: &mut Vec3, cap: f64) {
    let len2 = v.norm_squared();
    if len2 > cap * cap {
        *v *= cap / len2.sqrt();
    }
}

/// Rolling resistance: the stick torque against every other torque, friction's included; the
/// blend; the pair's power and moment; the centre of pressure kept on the patch.
#[inline(always)]
fn rolling(
    params: &VertexContactParams,
    kin: &BodyKinematics,
    body: &Mobility,
    (normal, patch): (&NormalContact, &Patch),
    torque0: &Vec3,
    out: &mut TangentialContact,
) {
    let (n, r, f_n) = (normal.n_p, normal.r_p, normal.load);
    let tangent = |a: Vec3| a - n * n.dot(&a);
    let spin = kin.w.norm();
    let w_dir = if spin > 0.0 { kin.w * (1.0 / spin) } else { Vec3::zeros() };
    // `−J (α₀ + J⁻¹ (r_p × F_F))`.
    let cap = params.rolling * f_n;
    let mut l_stick = -(torque0 + r.cross(&out.friction));
    clamp(&mut l_stick, cap);
    l_stick -= w_dir * l_stick.dot(&w_dir).max(0.0);
    // The same bound for the rolling drag 2 C_RR F_N/ω* as for friction's, with the trace of J⁻¹
    // standing for its largest eigenvalue (an upper bound: widening errs on the safe side).
    let w_star = params.w_star.max(WIDENING * params.rolling * f_n * body.inertia_inv.trace() * params.stable_dt);
    let e = eta(spin / w_star);
    let mut torque = w_dir * (-e * cap) + l_stick * (1.0 - e);
    // The pair (L, F_RR(L)) has power L·u with u = ω − m J⁻¹ (r_p × P v): drop the part of L
    // that would feed energy in.
    let u = kin.w - body.inertia_inv * r.cross(&tangent(kin.v)) * body.mass;
    let u2 = u.norm_squared();
    let along = torque.dot(&u);
    if u2 > 0.0 && along > 0.0 {
        torque -= u * (along / u2);
    }
    // C_RR F_N bounds the moment of the pair about the contact point (the normal load's lever
    // arm), `M_c = L − r_p × F_RR`, not the torque `L` alone: the compensating force adds
    // `m r_p × P (r_p × J⁻¹ L)`, (1 + m r⊥²/J) times `L` (3× for a rolling cylinder, 5.5× for a
    // cube on a corner). Scaling by a positive factor keeps the power's sign, and the force
    // and moment, linear in `L`, scale with it.
    let mut force = tangent((body.inertia_inv * torque).cross(&r)) * -body.mass;
    let mut moment = torque - r.cross(&force);
    let m2 = moment.norm_squared();
    if m2 > cap * cap {
        let k = cap / m2.sqrt();
        torque *= k;
        force *= k;
        moment *= k;
    }
    // The tangential part of that moment is the normal load acting at `r_p + e`,
    // `e = N_p × M_c / F_N`: its centre of pressure must stay on the contact patch. On one
    // vertex, or across the line of two, it cannot move: nothing holds a balanced body there.
    let shift = n.cross(&moment) * (1.0 / f_n);
    if shift.norm_squared() > 0.0 {
        let k = patch.reach(&r, &n, &shift);
        torque *= k;
        force *= k;
    }
    out.rolling_torque = torque;
    out.rolling_force = force;
    out.rolling_power = torque.dot(&kin.w) + force.dot(&kin.v);
}

/// An orthonormal basis `t₁, t₂` of the plane normal to the unit vector `n`, with
/// `t₁ × t₂ = n`: branch-free, one division and no square root (Duff et al., "Building an
/// orthonormal basis, revisited", JCGT 6(1), 2017).
#[inline]
fn tangent_basis(n: &Vec3) -> (Vec3, Vec3) {
    let sign = 1.0f64.copysign(n.z);
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    (Vec3::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x), Vec3::new(b, sign + n.y * n.y * a, -n.y))
}

#[cfg(test)]
mod tests;
