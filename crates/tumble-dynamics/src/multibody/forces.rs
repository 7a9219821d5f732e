//! Joint force elements: springs and dampers (linear or piecewise, as the JEMRMS joints of
//! Table 2 in the snare-wire document), joint limits, PD and feed-forward control, and
//! flexible joints (Spong's model, the document's eqs. 1–2).
//!
//! **Piecewise stiffness.** A table of deflection breakpoints `0 = b₀ < b₁ < … ` and stiffness
//! `kᵢ` on `[bᵢ, bᵢ₊₁)` is read as the *tangent* stiffness of a continuous, odd torque–deflection
//! curve: `κ(δ) = sign(δ) Σᵢ kᵢ · |[bᵢ, bᵢ₊₁) ∩ [0, |δ|)|`. (Multiplying the deflection by a
//! piecewise-constant stiffness instead would make the torque jump at every breakpoint: from
//! 0.5 to 19 N·m at 0.04° with Table 2's values.) Its potential is `∫₀^δ κ`. Viscosity tables
//! give the damping coefficient `c(|δ|)` on the same kind of segments: torque `c(|δ|) δ̇`.
//!
//! **Flexible joint** (Spong 1987; document eqs. 1–2): the link coordinate `q` and a motor
//! coordinate `θ` (the document's `q_m`) with inertia `B` are coupled through the transmission,
//! `H q̈ + c(q, q̇) + κ(q − θ) = Jᵀ F_e` (1),
//! `B θ̈ + D(q − θ) θ̇ − κ(q − θ) = τ` (2).
//! Eq. (2) as the document writes it: the viscosity `D` is the *motor's* viscous damping,
//! acting on the motor rate `θ̇`, and Table 2 gives it as a function of the deflection
//! `Δq = q − θ` as it does the stiffness; here `D(Δq) = D₀ + D_n(|Δq|)` with `D₀` a constant
//! motor damping ([`Flexible::damping`]) and `D_n` the table ([`Flexible::viscosity`]).
//! [`ViscosityOn::Deflection`] instead puts the table on the deflection rate
//! (`± D_n (q̇ − θ̇)` in both equations, the usual transmission damping of Spong's model); it
//! is kept for comparison: with Table 2 and the motor free it overdamps the joint below 0.04°
//! (see docs/multibody.md). With a linear `κ = K δ` a link of inertia `J` on a free, undamped
//! motor oscillates at `ω = √(K (1/J + 1/B))`. The motor torque is `τ = τ_c + k_s (θ_ref − θ)`:
//! a constant command plus an optional position servo (`D₀` is then its rate gain).

/// A piecewise function of `|δ|`: value `values[i]` on `[breaks[i], breaks[i+1])`, the last one
/// beyond. `breaks[0] = 0`.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    breaks: Vec<f64>,
    values: Vec<f64>,
}

impl Table {
    /// A table from segment starts (the first 0, increasing) and values; units as the caller
    /// uses them (SI: rad, N·m/rad, N·m·s/rad).
    pub fn new(breaks: Vec<f64>, values: Vec<f64>) -> Result<Self, String> {
        if breaks.is_empty() || breaks.len() != values.len() {
            return Err(format!(
                "a table needs as many breakpoints as values (got {} and {})",
                breaks.len(),
                values.len()
            ));
        }
        if breaks[0] != 0.0
            || breaks.windows(2).any(|w| w[1].partial_cmp(&w[0]) != Some(std::cmp::Ordering::Greater))
            || breaks.iter().chain(&values).any(|x| !x.is_finite())
        {
            return Err(format!("breakpoints must start at 0 and increase, all finite: {breaks:?}"));
        }
        if values.iter().any(|v| *v < 0.0) {
            return Err(format!("values must be >= 0: {values:?}"));
        }
        Ok(Self { breaks, values })
    }

    /// The value on the segment holding `|d|`.
    pub fn at(&self, d: f64) -> f64 {
        let i = self.breaks.partition_point(|b| *b <= d.abs()).saturating_sub(1);
        self.values[i]
    }

    /// `sign(δ) ∫₀^{|δ|} value`, and the potential `∫₀^δ` of that (for stiffness tables).
    fn integral(&self, d: f64) -> (f64, f64) {
        let a = d.abs();
        let (mut torque, mut energy) = (0.0, 0.0);
        for (i, (&b, &k)) in self.breaks.iter().zip(&self.values).enumerate() {
            if a <= b {
                break;
            }
            let end = self.breaks.get(i + 1).copied().unwrap_or(f64::INFINITY).min(a);
            let len = end - b;
            energy += torque * len + 0.5 * k * len * len;
            torque += k * len;
        }
        (torque.copysign(d), energy)
    }
}

/// A spring law `κ(δ)`.
#[derive(Clone, Debug, PartialEq)]
pub enum Spring {
    /// `κ = K δ`, K in N·m/rad (or N/m).
    Linear(f64),
    /// Tangent stiffness by segments of `|δ|`.
    Table(Table),
}

impl Spring {
    /// Torque `κ(δ)` and potential energy.
    pub fn eval(&self, d: f64) -> (f64, f64) {
        match self {
            Spring::Linear(k) => (k * d, 0.5 * k * d * d),
            Spring::Table(t) => t.integral(d),
        }
    }
}

/// A damping law `c(δ) δ̇`.
#[derive(Clone, Debug, PartialEq)]
pub enum Damper {
    /// Constant coefficient, N·m·s/rad (or N·s/m).
    Linear(f64),
    /// Coefficient by segments of `|δ|`.
    Table(Table),
}

impl Damper {
    /// Damping torque for deflection `d` and rate `rate`.
    pub fn eval(&self, d: f64, rate: f64) -> f64 {
        match self {
            Damper::Linear(c) => c * rate,
            Damper::Table(t) => t.at(d) * rate,
        }
    }
}

/// Forces on one joint coordinate (revolute or prismatic), all optional. The joint force is
/// `τ = −κ(q − q₀) − c q̇ + limits + k_p (q_ref − q) + k_d (q̇_ref − q̇) + τ_ff + τ_motor`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JointForce {
    /// Spring about `rest`.
    pub spring: Option<Spring>,
    /// Rest position of the spring, rad or m.
    pub rest: f64,
    /// Damper on the joint rate.
    pub damper: Option<Damper>,
    /// Limits `(lower, upper)` enforced by a stiff one-sided spring–damper `(k, c)`.
    pub limits: Option<(f64, f64, f64, f64)>,
    /// PD gains `(k_p, k_d)` towards `target` and `target_rate`.
    pub pd: Option<(f64, f64)>,
    /// PD target position, rad or m.
    pub target: f64,
    /// PD target rate.
    pub target_rate: f64,
    /// Feed-forward force, N·m or N.
    pub feed_forward: f64,
    /// A DC motor driving the joint.
    pub motor: Option<DcMotor>,
}

/// A DC motor on a joint, its torque–speed line `τ = τ_s (u − q̇/ω₀)`: the stall torque `τ_s`
/// bounds its torque from rest, the no-load speed `ω₀` its speed; the command `u` (−1 to 1) is
/// the fraction of its rated voltage (a lower voltage shifts the line). Its power `τ q̇` is the
/// actuators'.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DcMotor {
    /// Stall torque (N·m) or force (N).
    pub stall: f64,
    /// No-load speed, rad/s or m/s.
    pub no_load_speed: f64,
    /// Command, −1 to 1.
    pub command: f64,
}

impl DcMotor {
    /// Its torque (force) at joint rate `rate`.
    pub fn torque(&self, rate: f64) -> f64 {
        self.stall * (self.command - rate / self.no_load_speed)
    }
}

impl JointForce {
    /// The joint force at `(q, q̇)` and the potential energy of the spring and limits.
    pub fn eval(&self, q: f64, qd: f64) -> (f64, f64) {
        let (mut tau, mut energy) = (self.feed_forward, 0.0);
        if let Some(s) = &self.spring {
            let (t, e) = s.eval(q - self.rest);
            tau -= t;
            energy += e;
        }
        if let Some(d) = &self.damper {
            tau -= d.eval(q - self.rest, qd);
        }
        if let Some((lo, hi, k, c)) = self.limits {
            let over = if q < lo {
                q - lo
            } else if q > hi {
                q - hi
            } else {
                0.0
            };
            if over != 0.0 {
                // Damping only while moving further out, so the stop is never sticky.
                let out = if over * qd > 0.0 { qd } else { 0.0 };
                tau -= k * over + c * out;
                energy += 0.5 * k * over * over;
            }
        }
        if let Some((kp, kd)) = self.pd {
            tau += kp * (self.target - q) + kd * (self.target_rate - qd);
        }
        if let Some(m) = &self.motor {
            tau += m.torque(qd);
        }
        (tau, energy)
    }
}

/// A torsional spring–damper on a spherical (ball) joint, such as a solar array's hinge:
/// potential `V = 2k |u|² = 2k sin²(θ/2) ≈ ½ k θ²` with `u` the vector part of the joint
/// quaternion and `θ` its rotation angle, and torque (link axes) `−2k w u − c ω`. The spring
/// torque is exactly `−∂V` for rotations of the link, so the spring is conservative at any
/// angle, and it is `−k θ â` for small angles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BallSpring {
    /// Link whose (spherical) joint carries the spring.
    pub link: usize,
    /// Stiffness `k`, N·m/rad.
    pub stiffness: f64,
    /// Damping `c`, N·m·s/rad.
    pub damping: f64,
}

impl BallSpring {
    /// Torque on the link (link axes) and potential energy at joint quaternion `q`
    /// (`[w, x, y, z]`) and angular velocity `w` (link axes).
    pub fn eval(&self, q: &[f64], w: &[f64]) -> ([f64; 3], f64) {
        let (s, u) = (q[0], [q[1], q[2], q[3]]);
        let torque = std::array::from_fn(|i| -2.0 * self.stiffness * s * u[i] - self.damping * w[i]);
        (torque, 2.0 * self.stiffness * (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]))
    }
}

/// Which rate a flexible joint's viscosity table multiplies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ViscosityOn {
    /// The motor rate `θ̇`, as the document's eq. (2) writes it.
    #[default]
    Motor,
    /// The deflection rate `q̇ − θ̇`, on link and motor alike (transmission damping).
    Deflection,
}

/// A flexible joint: a motor coordinate behind a joint's link coordinate.
#[derive(Clone, Debug, PartialEq)]
pub struct Flexible {
    /// Velocity index of the joint coordinate in the multibody.
    pub dof: usize,
    /// Motor-side inertia `B`, kg·m² (or kg), > 0.
    pub inertia: f64,
    /// Constant motor damping `D₀` on `θ̇`, N·m·s/rad.
    pub damping: f64,
    /// Transmission stiffness `κ(q − θ)`.
    pub stiffness: Spring,
    /// Viscosity `D_n(|q − θ|)`, on the rate [`Flexible::viscosity_on`] names.
    pub viscosity: Option<Damper>,
    /// The rate the viscosity multiplies.
    pub viscosity_on: ViscosityOn,
    /// Position servo on the motor `(k_s, θ_ref)`: torque `k_s (θ_ref − θ)`, N·m/rad and rad.
    pub servo: Option<(f64, f64)>,
}

impl Flexible {
    /// Transmission torque on the motor (its negative acts on the link) and spring energy: the
    /// spring `κ(q − θ)`, plus the viscosity when it acts on the deflection rate.
    pub fn transmission(&self, q: f64, qd: f64, theta: f64, theta_d: f64) -> (f64, f64) {
        let d = q - theta;
        let (t, e) = self.stiffness.eval(d);
        let v = match (&self.viscosity, self.viscosity_on) {
            (Some(c), ViscosityOn::Deflection) => c.eval(d, qd - theta_d),
            _ => 0.0,
        };
        (t + v, e)
    }

    /// The motor's damping torque `D(q − θ) θ̇` (eq. 2): `D₀`, plus the viscosity when it acts
    /// on the motor rate.
    pub fn motor_damping(&self, q: f64, theta: f64, theta_d: f64) -> f64 {
        let table = match (&self.viscosity, self.viscosity_on) {
            (Some(c), ViscosityOn::Motor) => c.eval(q - theta, theta_d),
            _ => 0.0,
        };
        self.damping * theta_d + table
    }

    /// The servo's torque on the motor at angle `theta` and its potential energy.
    pub fn servo(&self, theta: f64) -> (f64, f64) {
        self.servo.map_or((0.0, 0.0), |(k, r)| (k * (r - theta), 0.5 * k * (r - theta) * (r - theta)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table 2 of the snare-wire document (JEMRMS joints), converted from degrees.
    fn table2() -> (Spring, Damper) {
        let deg = std::f64::consts::PI / 180.0;
        let breaks = vec![0.0, 0.04 * deg, 0.06 * deg];
        let k = Table::new(breaks.clone(), [12.5, 475.0, 475.0].map(|x| x / deg).to_vec()).expect("valid");
        let c = Table::new(breaks, [48.9, 87.3, 17.6].map(|x| x / deg).to_vec()).expect("valid");
        (Spring::Table(k), Damper::Table(c))
    }

    #[test]
    fn table_2_stiffness_reproduces_its_breakpoints() {
        let deg = std::f64::consts::PI / 180.0;
        let (k, c) = table2();
        // Tangent stiffness on each segment, per degree as in the table.
        for (lo, hi, expected) in [(0.0, 0.04, 12.5), (0.04, 0.06, 475.0), (0.06, 0.5, 475.0)] {
            let (a, b) = (lo + 0.25 * (hi - lo), lo + 0.75 * (hi - lo));
            let slope = (k.eval(b * deg).0 - k.eval(a * deg).0) / (b - a);
            assert!((slope - expected).abs() < 1e-9 * expected, "[{lo}, {hi}) deg: {slope} N·m/deg");
        }
        // Continuous torque at the breakpoints: 12.5 × 0.04 = 0.5 N·m at 0.04°, then + 475 × 0.02.
        for (at, torque) in [(0.04, 0.5), (0.06, 0.5 + 9.5)] {
            let (below, above) = (k.eval((at - 1e-9) * deg).0, k.eval((at + 1e-9) * deg).0);
            assert!((below - torque).abs() < 1e-5 && (above - torque).abs() < 1e-5, "{at}°: {below} / {above}");
        }
        // Odd, with the potential its integral.
        assert_eq!(k.eval(-0.05 * deg).0, -k.eval(0.05 * deg).0);
        let d = 0.07 * deg;
        let h = 1e-9;
        assert!(((k.eval(d + h).1 - k.eval(d - h).1) / (2.0 * h) - k.eval(d).0).abs() < 1e-5);
        // Viscosity by segment.
        assert!((c.eval(0.05 * deg, 1.0) * deg - 87.3).abs() < 1e-9);
        assert!((c.eval(-0.01 * deg, 1.0) * deg - 48.9).abs() < 1e-9);
        assert!(Table::new(vec![0.0, 0.0], vec![1.0, 2.0]).is_err());
        assert!(Table::new(vec![0.1], vec![1.0]).is_err());
    }

    #[test]
    fn limits_and_pd_push_the_right_way() {
        let f = JointForce {
            limits: Some((-1.0, 1.0, 100.0, 5.0)),
            pd: Some((10.0, 1.0)),
            target: 0.5,
            ..Default::default()
        };
        assert!(f.eval(1.2, 0.0).0 < -10.0, "beyond the upper limit it pushes back");
        assert_eq!(f.eval(0.5, 0.0).0, 0.0, "at the target, at rest: no force");
        assert!((f.eval(0.0, 0.0).0 - 5.0).abs() < 1e-12);
    }
}
