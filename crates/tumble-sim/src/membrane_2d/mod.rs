//! The membrane document's 2D trampoline (`kind = "membrane_2d"`, `[trampoline]`): a rigid
//! polygon falling under uniform gravity onto a membrane suspended between two points on the
//! `x` axis, its shape the convex hull of those points and of the body's vertices below the
//! line joining them ([`tumble_contact::membrane::planar`]), with the document's friction.
//!
//! The state: `[x, y, θ, v_x, v_y, ω]` (centre of mass in the membrane frame, m; angle, rad;
//! their rates), then the energy the length damping has removed, `D_c = ∫c ℓ̇² dt`, and the
//! energy friction has removed, `D_f = −∫P_f dt`. The equations: `m v̇ = f_N + f_f + m g`,
//! `J ω̇ = τ_N + τ_f`. The budget `T + V_g + ½k(ℓ − ℓ₀)² + D_c + D_f` with
//! `T = ½m|v|² + ½Jω²`, `V_g = −m g·p` is constant for the exact flow, friction on or off.
//!
//! Here: the model and its scenario adapter; [`sim`] steps it on the pipeline; `app.rs` makes
//! it an application and writes its outputs.

use crate::ScenarioError;
use crate::pipeline::Diagnosis;
use crate::scenario::check::{Check, err, positive, rk4_timing};
use crate::scenario::{GravitySpec, Scenario};
use tumble_contact::membrane::planar::{PlanarContact, PlanarMembrane};
use tumble_math::nalgebra::Vector2;

mod anim;
pub mod app;
pub mod campaign;
pub mod sim;
pub use anim::animation;

/// A planar vector, m or m/s.
pub type V2 = Vector2<f64>;

/// A polygon body and a 2D membrane, validated.
#[derive(Clone, Debug)]
pub struct Trampoline {
    /// Scenario name.
    pub name: String,
    /// The membrane.
    pub membrane: PlanarMembrane,
    /// The body's vertices about its centre of mass, body frame, m.
    pub polygon: Vec<V2>,
    /// Mass, kg.
    pub mass: f64,
    /// Moment of inertia about the centre of mass, kg·m².
    pub inertia: f64,
    /// Uniform gravity in the plane, m/s².
    pub gravity: V2,
    /// `[x, y, θ, v_x, v_y, ω]` at the start.
    pub start: [f64; 6],
    /// RK4 step, s.
    pub dt: f64,
    /// Simulated span, s.
    pub duration: f64,
    /// Time between samples, s.
    pub output_interval: f64,
    /// Largest growth of the energy budget, a fraction of the energy scale.
    pub max_energy_growth: f64,
}

/// One recorded instant.
#[derive(Clone, Copy, Debug)]
pub struct TrampolineSample {
    /// Time, s.
    pub t: f64,
    /// `[x, y, θ, v_x, v_y, ω]`.
    pub state: [f64; 6],
    /// The membrane's action.
    pub contact: PlanarContact,
    /// Kinetic energy, J.
    pub kinetic: f64,
    /// Gravity potential `−m g·p`, J.
    pub gravity_potential: f64,
    /// `D_c`, J.
    pub damping_loss: f64,
    /// `D_f`, J.
    pub friction_loss: f64,
}

impl TrampolineSample {
    /// `T + V_g + ½k(ℓ − ℓ₀)² + D_c + D_f`: constant for the exact flow.
    pub fn budget(&self) -> f64 {
        self.kinetic + self.gravity_potential + self.contact.energy + self.damping_loss + self.friction_loss
    }
}

/// A finished run.
#[derive(Clone, Debug, Default)]
pub struct TrampolineRun {
    /// Samples at the output interval.
    pub samples: Vec<TrampolineSample>,
    /// Why it stopped early, if it did.
    pub diagnosis: Option<Diagnosis>,
}

/// The polygon's area (positive counter-clockwise), centroid and polar second moment about the
/// centroid per unit density (a uniform lamina).
pub fn polygon_properties(p: &[V2]) -> (f64, V2, f64) {
    let (mut area, mut c, mut j) = (0.0, V2::zeros(), 0.0);
    for (a, b) in p.iter().zip(p.iter().cycle().skip(1)) {
        let cross = a.x * b.y - b.x * a.y;
        area += 0.5 * cross;
        c += (a + b) * (cross / 6.0);
        j += cross * (a.norm_squared() + a.dot(b) + b.norm_squared()) / 12.0;
    }
    let c = c / area;
    (area, c, j - area * c.norm_squared())
}

impl Trampoline {
    /// Validates `[trampoline]`, `[gravity]` and `[simulation]` (RK4).
    pub fn build(sc: &Scenario) -> Result<Self, ScenarioError> {
        Self::check(sc).map_err(|(k, m)| sc.error_at(&k, m))
    }

    fn check(sc: &Scenario) -> Check<Self> {
        let (dt, duration, output_interval) = rk4_timing(sc, "membrane_2d")?;
        let gravity = match &sc.file.gravity {
            GravitySpec::None => V2::zeros(),
            GravitySpec::Uniform { g } if g.iter().all(|x| x.is_finite()) && g[2] == 0.0 => V2::new(g[0], g[1]),
            GravitySpec::Uniform { .. } => return err("gravity.g", "must be finite and in the plane: [g_x, g_y, 0]"),
            _ => return err("gravity.type", "membrane_2d runs take `none` or `uniform` gravity"),
        };
        let Some(t) = &sc.file.trampoline else {
            return err("trampoline", "a membrane_2d run needs a [trampoline] table");
        };
        let friction = crate::membrane_drop::membrane_friction("trampoline", t.mu, t.v_star, &t.distribution)?;
        let k = positive("trampoline.k", t.k, "N/m²")?;
        if !(t.c.is_finite() && t.c >= 0.0) {
            return err("trampoline.c", format!("must be zero or positive (N·s/m²), got {}", t.c));
        }
        let membrane =
            PlanarMembrane::new(t.left, t.right, k, t.c, friction).map_err(|e| ("trampoline.left".to_string(), e))?;
        let b = &t.body;
        let (polygon, inertia_lamina) = polygon(&b.polygon)?;
        let mass = positive("trampoline.body.mass", b.mass, "kg")?;
        let inertia = match b.inertia {
            Some(j) => positive("trampoline.body.inertia", j, "kg·m²")?,
            None => mass * inertia_lamina,
        };
        let start = [b.position[0], b.position[1], b.angle, b.velocity[0], b.velocity[1], b.angular_velocity];
        if start.iter().any(|x| !x.is_finite() || x.abs() > 1e9) {
            return err("trampoline.body", "position, angle, velocity and angular_velocity must be finite (SI)");
        }
        let max_energy_growth = sc.file.simulation.max_energy_growth;
        Ok(Self {
            name: sc.file.name.clone(),
            membrane,
            polygon,
            mass,
            inertia,
            gravity,
            start,
            dt,
            duration,
            output_interval,
            max_energy_growth,
        })
    }

    /// Runs the drop on the pipeline's [`crate::pipeline::Driver`].
    pub fn run(&self) -> TrampolineRun {
        let sim = sim::TrampolineSim::new(std::sync::Arc::new(self.clone()));
        let schedule = sim.schedule();
        let (sim, end) = crate::pipeline::Driver::run_whole(sim, schedule, &mut |_| {});
        sim.finish(end)
    }

    /// The sample of state `y` (the six body components, then `D_c`, `D_f`) at `t`.
    pub fn sample(&self, t: f64, y: &[f64], contact: PlanarContact) -> TrampolineSample {
        let (p, v) = (V2::new(y[0], y[1]), V2::new(y[3], y[4]));
        TrampolineSample {
            t,
            state: [y[0], y[1], y[2], y[3], y[4], y[5]],
            contact,
            kinetic: 0.5 * self.mass * v.norm_squared() + 0.5 * self.inertia * y[5] * y[5],
            gravity_potential: -self.mass * self.gravity.dot(&p),
            damping_loss: y[6],
            friction_loss: y[7],
        }
    }
}

/// The polygon of `trampoline.body.polygon` moved to its centroid, and its lamina's second
/// moment per unit mass: at least three distinct vertices, counter-clockwise, non-degenerate.
fn polygon(v: &[[f64; 2]]) -> Check<(Vec<V2>, f64)> {
    let key = "trampoline.body.polygon";
    if !(3..=10_000).contains(&v.len()) || v.iter().flatten().any(|x| !x.is_finite()) {
        return err(key, format!("needs 3 to 10,000 finite [x, y] vertices (m), got {}", v.len()));
    }
    let p: Vec<V2> = v.iter().map(|a| V2::new(a[0], a[1])).collect();
    let (area, c, j) = polygon_properties(&p);
    let size = p.iter().map(|a| a.norm()).fold(0.0, f64::max);
    if area.is_nan() || area <= 1e-12 * size * size {
        return err(
            key,
            format!(
                "encloses no area counter-clockwise (signed area {area:e} m²): list the vertices counter-clockwise"
            ),
        );
    }
    Ok((p.iter().map(|a| a - c).collect(), j / area))
}
