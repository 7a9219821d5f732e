//! Capture of a free-flying payload by a flexible-joint arm's snare-wire end effector (the
//! snare-wire document, §5: JEMRMS and a 500 kg payload): `[arm]` + `[grapple]`.
//!
//! **Coupling.** The arm is a [`MultibodySystem`](tumble_dynamics::multibody::system::MultibodySystem) (flexible joints with the Table 2 law, motor
//! servos holding the pose); the payload a free rigid body (state `[p; q; v; ω_body]`). Every
//! contact force `f` on the payload at the world point `x` puts `−f` at `x` on the end-effector
//! link (as an external wrench about the link origin, link axes): action and reaction, so a
//! free-floating arm and the payload keep their total momentum.
//!
//! **Effector frame** `E` (on a link, `[grapple] origin` and `rpy_deg`): origin at the centre of
//! the effector's face (its mouth), `x` out of the face towards the payload, the cavity at
//! `x < 0`. The payload's fixture is a plate (three contact points at `plate_radius` around the
//! shaft's base) and a shaft of radius `r` standing on it.
//!
//! - **Face**: each plate point below `x = 0` is pushed out along `+x` by a stiff unilateral
//!   spring–damper (`K_FACE`, `C_FACE`).
//! - **One wire** (`[grapple.wire]`): the document's wire (Tables 3–4) along `z` in the plane
//!   `x = −depth`, at `y = 0`, approached from `−y`. Where the shaft's axis crosses the plane,
//!   at `c`, the penetration is `δ = c_y + r` and the position along the chord
//!   `s = c_z + l/2 ∈ (0, l)`; the wire engages when `δ` first turns positive and then pushes
//!   along `−y` with [`LooseWire::force`] at the `s` of first contact (slack law up to `Q`,
//!   steel stretch beyond), with regularised Coulomb friction on the slip in the other two
//!   directions.
//! - **Three-wire snare** (`[grapple.snare]`): the ring lies in the plane `x = −depth`. The
//!   closing starts when the shaft's tip is `trigger` deep inside the face; the wires close at
//!   the set rate ([`ThreeWireSnare::force`] on the crossing point, in the ring's `(y, z)`
//!   plane) until their total force reaches the stall force or they close fully. The shaft is
//!   captured if it is then enclosed and held by all three wires; the wires otherwise open and
//!   release it. After a capture the carriage retracts at the set speed, pulling the snared
//!   point of the shaft along `−x` (spring `K_PULL`, damping critical for the payload's mass)
//!   and stops where, with the plate on the face, the spring and the face carry the preload
//!   (`x_stop = −s_snared − P/K_PULL − P/(3 K_FACE)`); rigidised once the face carries 99 % of
//!   it and the shaft moves less than 1 mm/s relative to the effector.
//!
//! RK4 at a fixed step; the state also integrates the impulse the payload receives and the work
//! `W` done on arm and payload by the arm's actuators ([`MultibodySystem::actuator_power`](tumble_dynamics::multibody::system::MultibodySystem::actuator_power)) and
//! by every contact force (`Σ f·(v_payload − v_effector)` at its point: face, wire, snare,
//! carriage). With `E` the arm's energy ([`MultibodySystem::energy`](tumble_dynamics::multibody::system::MultibodySystem::energy)) plus the payload's kinetic
//! energy, the work–energy theorem makes `E − W` constant but for the arm's dampers, which only
//! lower it: the guard's energy check (see [`GrappleSim`]).

use crate::arm::ArmModel;
use crate::pipeline::Diagnosis;
use crate::scenario::check::{Check, err, finite3, mass_and_inertia};
use crate::scenario::{Scenario, ScenarioError};
use tumble_contact::snare::{LooseWire, ThreeWireSnare};
use tumble_geometry::MassProperties;
use tumble_math::{Mat3, UnitQuat, Vec3};

/// Stiffness of the effector's face at each of the plate's three points, N/m.
const K_FACE: f64 = 1e6;
/// Damping of the face at each point, N·s/m.
const C_FACE: f64 = 2e4;

/// The payload and its grapple fixture.
#[derive(Clone, Debug)]
pub struct Payload {
    /// Mass, kg.
    pub mass: f64,
    /// Inertia about the centre of mass, body axes, kg·m².
    pub inertia: Mat3,
    /// Its inverse.
    pub inertia_inv: Mat3,
    /// Shaft base (plate centre), body axes, m.
    pub base: Vec3,
    /// Shaft direction, body axes (unit).
    pub axis: Vec3,
    /// Shaft length, m.
    pub shaft_length: f64,
    /// Shaft radius, m.
    pub shaft_radius: f64,
    /// The plate's three contact points, body axes, m.
    pub plate: [Vec3; 3],
}

/// The three-wire snare's operation.
#[derive(Clone, Debug)]
pub struct SnareSettings {
    /// Ring and wires.
    pub snare: ThreeWireSnare,
    /// Depth of the ring's plane inside the face, m.
    pub depth: f64,
    /// Closing angle when open, rad.
    pub open_angle: f64,
    /// Closing rate, rad/s.
    pub closing_rate: f64,
    /// Total wire force that stalls the closing, N.
    pub stall_force: f64,
    /// Tip depth inside the face that starts the closing, m.
    pub trigger: f64,
    /// Carriage retraction speed, m/s.
    pub retract_speed: f64,
    /// Preload of the plate on the face, N.
    pub preload: f64,
}

/// What the end effector holds.
#[derive(Clone, Debug)]
pub enum Effector {
    /// One loose wire (Tables 3–4) in the plane `x = −depth`, with linear damping (N·s/m).
    Wire {
        /// Depth of the wire's plane inside the face, m.
        depth: f64,
        /// Wire damping, N·s/m.
        damping: f64,
    },
    /// A three-wire snare.
    Snare(SnareSettings),
}

/// A validated capture run.
#[derive(Clone)]
pub struct GrappleCapture {
    /// Scenario name.
    pub name: String,
    /// The arm (its system, initial state, step and duration).
    pub arm: ArmModel,
    /// Link carrying the effector.
    pub link: usize,
    /// Effector frame in the link frame: rotation (effector axes into link axes) and origin.
    pub frame: (Mat3, Vec3),
    /// The payload.
    pub payload: Payload,
    /// Payload state at the start: position, quaternion `[w, x, y, z]`, velocity (world),
    /// angular velocity (body axes).
    pub start: [f64; 13],
    /// Wire or snare.
    pub effector: Effector,
    /// Shaft–wire friction coefficient.
    pub mu: f64,
    /// Friction regularisation speed, m/s.
    pub v_star: f64,
    /// RK4 step, s.
    pub dt: f64,
}

/// Where the snare stands (the wire case stays `Open`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// Open, waiting for the shaft.
    Open,
    /// Closing since `since` (s).
    Closing {
        /// Start of the closing, s.
        since: f64,
    },
    /// Captured at closing angle `angle` (rad); retracting since `since`: the snared point
    /// sits `snared` along the shaft from its base; the carriage started at `from` and stops
    /// at `stop` (effector `x`, m).
    Retracting {
        /// Closing angle held, rad.
        angle: f64,
        /// Start of the retraction, s.
        since: f64,
        /// Snared point's distance from the shaft's base, m.
        snared: f64,
        /// Carriage start, m.
        from: f64,
        /// Carriage stop, m.
        stop: f64,
    },
    /// The wires opened after a failed capture.
    Released,
}

/// One recorded sample.
#[derive(Clone, Debug, PartialEq)]
pub struct GrappleSample {
    /// Time, s.
    pub t: f64,
    /// Joint positions, rad.
    pub q: Vec<f64>,
    /// Motor angles, rad.
    pub motors: Vec<f64>,
    /// Wire or snare force on the payload, effector axes, N.
    pub wire_force: [f64; 3],
    /// Face force on the payload along the effector's axis, N.
    pub face_force: f64,
    /// Wire penetration (one wire), m.
    pub penetration: f64,
    /// Payload position, world, m.
    pub position: [f64; 3],
    /// Payload attitude relative to the start: roll, pitch, yaw, rad.
    pub attitude: [f64; 3],
    /// Payload velocity, world, m/s.
    pub velocity: [f64; 3],
    /// Payload angular velocity, body axes, rad/s.
    pub omega: [f64; 3],
    /// Impulse received by the payload, world, N·s.
    pub impulse: [f64; 3],
    /// Energy of arm, payload and wire, J.
    pub energy: f64,
    /// Closing angle of the snare (0 for a wire), rad.
    pub closing_angle: f64,
    /// `E − W − E₀`: the arm's and the payload's energy less the work done on them by the
    /// arm's actuators and the contact forces, from its start, J. Zero in the exact flow but
    /// for the arm's dampers, which lower it; the guard's energy check.
    pub balance: f64,
}

/// A finished run.
pub struct GrappleRun {
    /// Samples every output interval.
    pub samples: Vec<GrappleSample>,
    /// When the closing started, s.
    pub closing_started: Option<f64>,
    /// When the shaft was captured, s.
    pub captured_at: Option<f64>,
    /// When the plate reached the preload, s.
    pub rigidised_at: Option<f64>,
    /// Why the capture failed (the run goes on with the payload released).
    pub failure: Option<String>,
    /// Why the run stopped early (its samples up to then are kept).
    pub diagnosis: Option<Diagnosis>,
    /// The engaged wire (one-wire case).
    pub wire: Option<LooseWire>,
    /// Largest wire penetration, m.
    pub max_penetration: f64,
    /// Where the shaft ended across the wire's line, effector `y`, m: its axis where it crosses
    /// the wire's plane, or its base when it no longer does (negative: the side it came from).
    pub final_side: f64,
    /// Wall time of the integration, s.
    pub wall_s: f64,
}

pub mod app;
mod builder;
pub mod campaign;
mod output;
pub mod sim;
mod summary;

pub use builder::{Fixture, GrappleCaptureBuilder, SnareOperation};
pub use output::{animation, outcome, timeseries, write_grapple_run};
pub use sim::GrappleSim;
use sim::{effector_state, rotation};
pub use summary::GrappleSummary;

impl GrappleCapture {
    /// Where the shaft (base `a`, unit axis `u`, effector frame) crosses the wire's or the
    /// ring's plane `x = −depth`, and how far along the shaft; `None` if it does not, or runs
    /// within 1e-3 rad of parallel to the plane.
    fn crossing(&self, a: &Vec3, u: &Vec3) -> Option<(Vec3, f64)> {
        let plane = match &self.effector {
            Effector::Wire { depth, .. } => -depth,
            Effector::Snare(sn) => -sn.depth,
        };
        let tau = (plane - a.x) / u.x;
        (u.x.abs() > 1e-3 && (0.0..=self.payload.shaft_length).contains(&tau)).then(|| (a + tau * u, tau))
    }

    /// Validates `[arm]`, `[grapple]` and `[simulation]` (RK4); see [`GrappleCapture::builder`]
    /// to build one in code.
    pub fn build(sc: &Scenario) -> Result<Self, ScenarioError> {
        Self::check(sc).map_err(|(k, m)| sc.error_at(&k, m))
    }

    /// The scenario adapter: reads `[arm]` and `[grapple]` into a [`GrappleCaptureBuilder`]
    /// (angles in degrees to attitudes, the 3 or 6 inertia values to a tensor).
    fn check(sc: &Scenario) -> Check<Self> {
        let Some(g) = &sc.file.grapple else { return err("grapple", "a capture by an arm needs a [grapple] table") };
        let arm = ArmModel::check(sc)?;
        let rpy = |key: &str, a: [f64; 3]| -> Check<UnitQuat> {
            let a = finite3(key, a)?.map(f64::to_radians);
            Ok(UnitQuat::from_euler_angles(a.x, a.y, a.z))
        };
        let ps = &g.payload;
        let (mass, inertia) = mass_and_inertia("grapple.payload", ps.mass, &ps.inertia)?;
        let fx = &ps.fixture;
        let fixture = Fixture {
            base: Vec3::from(fx.base),
            axis: Vec3::from(fx.axis),
            shaft_length: fx.shaft_length,
            shaft_radius: fx.shaft_radius,
            plate_radius: fx.plate_radius,
        };
        let mut builder = Self::builder(arm)
            .effector(&g.link, rpy("grapple.rpy_deg", g.rpy_deg)?, Vec3::from(g.origin))
            .payload(MassProperties::new(mass, inertia), fixture)
            .payload_pose(Vec3::from(ps.position), rpy("grapple.payload.rpy_deg", ps.rpy_deg)?)
            .payload_twist(Vec3::from(ps.velocity), Vec3::from(ps.angular_velocity))
            .friction(g.mu, g.v_star);
        builder = match (&g.wire, &g.snare) {
            (Some(w), None) => builder.wire(w.depth, w.damping),
            (None, Some(s)) => builder.snare(SnareOperation {
                depth: s.depth,
                ring_radius: s.ring_radius,
                stiffness: s.stiffness,
                damping: s.damping,
                open_angle: s.open_deg.to_radians(),
                closing_rate: s.closing_rate,
                stall_force: s.stall_force,
                trigger: s.trigger,
                retract_speed: s.retract_speed,
                preload: s.preload,
            }),
            _ => return err("grapple", "give exactly one of [grapple.wire] (one wire) or [grapple.snare]"),
        };
        Ok(builder.build()?)
    }

    /// The coupled state at the start: `[arm; payload; impulse; W]`, `W` the work done on arm
    /// and payload by the arm's actuators and the contact forces.
    pub fn initial_state(&self) -> Vec<f64> {
        let mut y = self.arm.initial_state.clone();
        y.extend_from_slice(&self.start);
        y.extend_from_slice(&[0.0; 4]);
        y
    }

    /// Linear and angular momentum (about the world origin) of the arm's links and the payload
    /// at the coupled state `y`.
    pub fn momentum(&self, y: &[f64]) -> (Vec3, Vec3) {
        let mb = &self.arm.system.model;
        let (nq, nv, na) = (mb.nq(), mb.nv(), self.arm.initial_state.len());
        let (p_arm, l_arm) = mb.momentum(&y[..nq], &y[nq..nq + nv]);
        let s = &y[na..na + 13];
        let (r, v, w) = (Vec3::new(s[0], s[1], s[2]), Vec3::new(s[7], s[8], s[9]), Vec3::new(s[10], s[11], s[12]));
        let rp = rotation(&s[3..7]);
        let m = self.payload.mass;
        (p_arm + m * v, l_arm + r.cross(&(m * v)) + rp * (self.payload.inertia * w))
    }

    /// Runs the capture on the pipeline's [`crate::pipeline::Driver`].
    pub fn run(&self) -> GrappleRun {
        let started = std::time::Instant::now();
        let sim = GrappleSim::new(std::sync::Arc::new(self.clone()));
        let schedule = sim.schedule();
        let (sim, end) = crate::pipeline::Driver::run_whole(sim, schedule, &mut |_| {});
        let mut run = sim.finish(end);
        run.wall_s = started.elapsed().as_secs_f64();
        run
    }

    /// Steps between recorded samples: the output interval in whole steps, at least one.
    fn sample_every(&self) -> u64 {
        ((self.arm.output_interval / self.dt).round() as u64).max(1)
    }
}
