//! The snare-wire document's floating-target experiment (§4.3, Table 5): a planar air-bearing
//! target carrying a probe hits a loose wire; its centre-of-mass velocity, angular velocity,
//! the reaction force and the impulse are recorded.
//!
//! Plane `(x, y)`; the wire's chord runs along `x` from `(0, 0)` to `(l, 0)`; the target moves
//! towards `−y`. The probe tip sits at `r` (body axes) from the centre of mass. While the tip is
//! below the chord (`δ = −y_tip > 0`) and between the ends, the wire pushes it along `+y` with
//! [`LooseWire::force`] at the position `s` of first contact (the wire holds the shaft where it
//! first touched: the identified law belongs to that `s`), and regularised Coulomb friction
//! acts along the chord on the tip's sliding speed. The deflection is taken small against the
//! chord, so the force keeps the chord's normal. RK4 at a fixed step; the state carries the
//! impulse the wire gives so that `∫F dt` is integrated with the motion.

use crate::scenario::check::{Check, err};
use crate::scenario::{Scenario, ScenarioError};
use tumble_contact::laws::friction;
use tumble_contact::snare::LooseWire;
use tumble_dynamics::OdeSystem;
use tumble_math::Vec3;

pub mod app;
mod builder;
pub mod campaign;
mod capture;
mod output;
pub mod sim;
mod summary;

pub use builder::WireExperimentBuilder;
pub(crate) use capture::K_PULL;
pub use capture::{SnareCapture, SnareOutcome};
pub use output::{animation, output_every, timeseries, write_wire_run};
pub use sim::WireSim;
pub use summary::WireSummary;

/// Most steps a wire experiment records (every step is kept: about 1 GB).
pub(crate) const MAX_STEPS: f64 = 1e7;

/// End spacing `l` of the document's wire (Table 3), m.
pub(crate) const WIRE_SPAN: f64 = 0.175;

/// The experiment's parameters (the wire is the document's, Table 3 and 4).
#[derive(Clone, Copy, Debug)]
pub struct WireExperiment {
    /// Target mass, kg.
    pub mass: f64,
    /// Target moment of inertia about the vertical axis, kg·m².
    pub inertia: f64,
    /// Probe tip from the centre of mass, body axes, m.
    pub probe: [f64; 2],
    /// Approach speed along `−y`, m/s.
    pub speed: f64,
    /// Probe tip's `x` at the start (the contact position along the chord), m.
    pub aim: f64,
    /// Linear damping of the wire, N·s/m.
    pub wire_damping: f64,
    /// Friction coefficient between probe and wire.
    pub mu: f64,
    /// Friction regularisation speed, m/s.
    pub v_star: f64,
    /// Step, s.
    pub dt: f64,
    /// Duration, s.
    pub duration: f64,
}

/// One recorded sample.
#[derive(Clone, Copy, Debug)]
pub struct WireSample {
    /// Time, s.
    pub t: f64,
    /// Centre of mass `[x, y]` (m) and heading θ (rad) in the plane.
    pub pose: [f64; 3],
    /// Centre-of-mass velocity, m/s.
    pub velocity: [f64; 2],
    /// Angular velocity, rad/s.
    pub omega: f64,
    /// Wire force on the probe `[along the chord, normal]`, N.
    pub force: [f64; 2],
    /// Impulse given so far, N·s.
    pub impulse: [f64; 2],
    /// Penetration, m.
    pub delta: f64,
    /// Kinetic plus wire energy, J.
    pub energy: f64,
    /// Work of the push so far, J.
    pub work: f64,
}

/// The run.
#[derive(Clone, Debug)]
pub struct WireRun {
    /// Samples at every step.
    pub samples: Vec<WireSample>,
    /// The wire at the contact position (`None`: the probe never touched it).
    pub wire: Option<LooseWire>,
    /// Largest penetration, m.
    pub max_delta: f64,
    /// Why the run stopped early (its samples up to then are kept).
    pub diagnosis: Option<crate::pipeline::Diagnosis>,
}

impl WireExperiment {
    /// The document's Table 5 case: 8.9 kg, 0.16 kg·m², wire `L` = 180 mm, `l` = 175 mm, hit
    /// at `s` = 90 mm at `speed`. The probe geometry is not given; a 0.3 m probe 0.05 m off the
    /// line through the centre of mass is assumed, so the hit also spins the target.
    pub fn table5(speed: f64) -> Self {
        Self {
            mass: 8.9,
            inertia: 0.16,
            probe: [0.05, -0.3],
            speed,
            aim: 0.090,
            wire_damping: 5.0,
            mu: 0.2,
            v_star: 1e-3,
            dt: 1e-5,
            duration: 0.5,
        }
    }

    /// Runs it on the pipeline's [`crate::pipeline::Driver`]: an error for impossible
    /// parameters; a run that blows up keeps its samples and carries its diagnosis.
    pub fn run(&self) -> Result<WireRun, String> {
        let sim = WireSim::new(*self)?;
        let schedule = sim.schedule();
        let (sim, end) = crate::pipeline::Driver::run_whole(sim, schedule, &mut |_| {});
        Ok(sim.finish(end))
    }
}

/// The planar target against the wire (once touched) as an ODE.
struct WireOde {
    exp: WireExperiment,
    wire: Option<LooseWire>,
    /// Approach speed at first contact, m/s.
    v0: f64,
    /// The push `[fx, fy, tz]` (N, N·m) held on the target.
    push: [f64; 3],
}

impl WireOde {
    /// Probe tip position and velocity, and its offset from the centre of mass (world axes).
    fn tip(&self, s: &[f64]) -> ([f64; 2], [f64; 2], [f64; 2]) {
        let [px, py] = self.exp.probe;
        let (c, sn) = (s[2].cos(), s[2].sin());
        let r = [c * px - sn * py, sn * px + c * py];
        ([s[0] + r[0], s[1] + r[1]], [s[3] - s[5] * r[1], s[4] + s[5] * r[0]], r)
    }

    /// The state derivative, the wire's force `[friction, normal]` and the penetration.
    fn eval(&self, s: &[f64]) -> ([f64; 8], [f64; 2], f64) {
        let e = &self.exp;
        let (p, v, r) = self.tip(s);
        let mut f = [0.0; 2];
        let delta = -p[1];
        if let Some(w) = &self.wire
            && delta > 0.0
            && p[0] > 0.0
            && p[0] < WIRE_SPAN
        {
            let n = w.force(delta, -v[1], self.v0);
            let ft = friction(e.mu, n, &Vec3::new(v[0], 0.0, 0.0), e.v_star);
            f = [ft.x, n];
        }
        let torque = r[0] * f[1] - r[1] * f[0] + self.push[2];
        let a = [(f[0] + self.push[0]) / e.mass, (f[1] + self.push[1]) / e.mass];
        ([s[3], s[4], s[5], a[0], a[1], torque / e.inertia, f[0], f[1]], f, delta)
    }
}

impl OdeSystem for WireOde {
    fn dim(&self) -> usize {
        8
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dydt: &mut [f64]) {
        dydt.copy_from_slice(&self.eval(y).0);
    }
}

impl WireExperiment {
    /// Validates `[snare]` and `[simulation]` (`duration`, `dt`).
    pub fn build(sc: &Scenario) -> Result<Self, ScenarioError> {
        Self::check(sc).map_err(|(k, m)| sc.error_at(&k, m))
    }

    fn check(sc: &Scenario) -> Check<Self> {
        let Some(s) = &sc.file.snare else { return err("snare", "a snare-wire run needs a [snare] table") };
        let sim = &sc.file.simulation;
        let Some(dt) = sim.dt else { return err("simulation.dt", "is required: the RK4 step, s") };
        Self::builder()
            .target(s.mass, s.inertia)
            .probe(s.probe)
            .approach(s.speed, s.position)
            .friction(s.mu, s.v_star)
            .wire_damping(s.wire.damping)
            .timing(dt, sim.duration)
            .build()
            .map_err(Into::into)
    }
}
