//! Motion relative to a rotating small body (Van wal, Reid & Scheeres, "Small-body lander
//! simulations using the GPU", eq. 2), generalised to a torque-free tumbling target.
//!
//! Frame T is fixed to the target; it rotates with angular velocity `Ω` (T axes) relative to
//! inertial space about the target's centre of mass `c` (T coordinates; the document puts T's
//! origin there, so `c = 0` in its equations). Below `x` is measured from `c`: a caller whose
//! positions are in other coordinates fixed to the target (a shape file's) passes `x − c`. A spacecraft S has position `x` and velocity `v = ẋ`
//! relative to T (T axes), attitude `q_TS` and angular velocity `ω` relative to T (S axes). With
//! `ω* = ω + Ω_S` its inertial angular velocity (`Ω_S = R_TSᵀ Ω`):
//!
//! ```text
//! v̇ = g(x) − Ω × (Ω × x) − 2 Ω × v − Ω̇ × x + F/m
//! ω̇ = I⁻¹ (L − ω* × I ω*) + ω* × Ω_S − R_TSᵀ Ω̇
//! Ω̇ = J⁻¹ (−Ω × J Ω)          (0 for the document's uniform rotation)
//! ```
//!
//! with `J` the target's inertia tensor about `c` in T axes (any axes: Euler's equations in a
//! frame fixed to the body hold with the full tensor; T need not be principal).
//!
//! The document's `−ω* × ω` equals `ω* × Ω_S` since `ω = ω* − Ω_S`; the `Ω̇` terms (Euler
//! acceleration and the change of `Ω` seen from S) vanish for uniform rotation.
//!
//! **Energy.** With `U` the gravitational potential per unit mass,
//! `E = ½ m |v|² + ½ ωᵀ I ω + m (U − ½ |Ω × x|²) − ½ Ω_Sᵀ I Ω_S` is the inertial energy minus
//! `Ω · H` (the Jacobi integral of the rigid spacecraft) and is constant under uniform rotation
//! without contact. Differentiating along the equations above gives
//! `Ė = P_loads + P_frame` with `P_loads = F·v + L·ω` and
//! `P_frame = −m (v + Ω × x)·(Ω̇ × x) − ω*ᵀ I R_TSᵀ Ω̇`, zero under uniform rotation.

use tumble_math::{Mat3, Vec3};

/// How the target turns in inertial space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TargetSpin {
    /// Constant angular velocity about a principal axis (the document's case). Ω is given by the
    /// initial state and stays constant.
    Uniform,
    /// Torque-free rotation of a target with this inertia tensor (about its centre of mass, T
    /// axes; only ratios matter), kg·m².
    TorqueFree {
        /// The tensor `J`.
        inertia: Mat3,
        /// Its inverse.
        inertia_inv: Mat3,
    },
}

impl TargetSpin {
    /// A torque-free target whose principal axes are T's, with principal moments `[A, B, C]`.
    pub fn principal(moments: [f64; 3]) -> Self {
        let m = Vec3::from(moments);
        TargetSpin::TorqueFree {
            inertia: Mat3::from_diagonal(&m),
            inertia_inv: Mat3::from_diagonal(&m.map(|x| 1.0 / x)),
        }
    }

    /// `Ω̇` (T axes) at angular velocity `omega`: `J⁻¹ (−Ω × J Ω)`.
    pub fn omega_dot(&self, omega: &Vec3) -> Vec3 {
        match self {
            TargetSpin::Uniform => Vec3::zeros(),
            TargetSpin::TorqueFree { inertia, inertia_inv } => inertia_inv * (-omega.cross(&(inertia * omega))),
        }
    }
}

/// Frame terms of the translational equation: `−Ω × (Ω × x) − 2 Ω × v − Ω̇ × x`.
#[inline]
pub fn frame_acceleration(omega: &Vec3, omega_dot: &Vec3, x: &Vec3, v: &Vec3) -> Vec3 {
    -omega.cross(&omega.cross(x)) - 2.0 * omega.cross(v) - omega_dot.cross(x)
}

/// `ω̇` (S axes) under the torque `L` (S axes) for inertia `I`, with `Ω_S` and `Ω̇_S = R_TSᵀ Ω̇`.
pub fn angular_acceleration(
    inertia: &Mat3,
    inertia_inv: &Mat3,
    w: &Vec3,
    omega_S: &Vec3,
    omega_dot_S: &Vec3,
    torque: &Vec3,
) -> Vec3 {
    let ws = w + omega_S;
    inertia_inv * (torque - ws.cross(&(inertia * ws))) + ws.cross(omega_S) - omega_dot_S
}

/// `P_frame`: power of the frame's non-uniform rotation on the energy `E` (zero when `Ω̇ = 0`),
/// from the inertial velocity `v_in = v + Ω × x` and angular velocity `ω*` (S axes).
#[inline]
pub fn frame_power(
    mass: f64,
    inertia: &Mat3,
    x: &Vec3,
    v_in: &Vec3,
    omega_dot: &Vec3,
    w_star: &Vec3,
    omega_dot_S: &Vec3,
) -> f64 {
    -mass * v_in.dot(&omega_dot.cross(x)) - w_star.dot(&(inertia * omega_dot_S))
}
