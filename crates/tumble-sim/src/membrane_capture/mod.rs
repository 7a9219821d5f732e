//! Asteroid capture through a membrane carried by a spacecraft (`[membrane]` + `[spacecraft]`):
//! the membrane document's capture simulation (Fig. 7). The asteroid is a free rigid body of
//! any closed mesh; the spacecraft is a multibody — a cylindrical bus on a free joint and two
//! solar arrays (solid cylinders on massless booms) on ball joints with spring–dampers, the
//! SADAs. The membrane hangs from the bus: its frame `M` sits `membrane_offset` ahead of the
//! bus centre of mass on the bus axis `+z`, with the bus's axes. The asteroid receives the
//! membrane's wrench and the bus exactly the opposite one ([`MembraneContact::reaction_about`]).
//!
//! Until first contact a guidance law flies the approach: along the asteroid's angular momentum
//! `Ĥ` at the set speed, spinning about `Ĥ` at `Ω = ω·Ĥ = 2T/|H|` (constant for the torque-free
//! asteroid) and following the asteroid's geometric centre sideways — the document's corkscrew.
//! From the first contact on the spacecraft thrusts along its axis with constant force and no
//! attitude control.
//!
//! One `OdeSystem` holds the asteroid (13 states), the spacecraft's `[q; v]` (15 + 12) and four
//! bookkeeping states: `∫c Ȧ² dt`, `−∫P_f dt`, the SADA dampers' `∫c_s |ω_j|² dt` and the work of
//! guidance and thrust `∫P dt`, so that the budget
//! `T_A + T_S + V_SADA + ½k(A − A₀)² + D_c + D_f + D_s − W` is checkable at every step.
//!
//! Here: the model and the scenario adapter; `builder.rs` validates and derives it
//! ([`MembraneCaptureBuilder`]); [`sim`] steps it on the pipeline; `output.rs` writes a run's
//! files.

use crate::ScenarioError;
use crate::membrane_drop::{MembraneParts, membrane_parts};
use crate::pipeline::Diagnosis;
use crate::scenario::check::rk4_timing;
use crate::scenario::check::{Check, err};
use crate::scenario::{GravitySpec, Scenario};
use tumble_contact::membrane::{BodyHull, Membrane, MembraneContact};
use tumble_dynamics::multibody::system::MultibodySystem;
use tumble_dynamics::{BODY_STATE_LEN, BodyState, RigidBody};
use tumble_geometry::TriMesh;
use tumble_math::{Mat3, UnitQuat, Vec3};

/// Offset of the spacecraft's `[q; v]` in the state.
const SC: usize = BODY_STATE_LEN;
/// Spacecraft coordinates: bus `[p, q]` (7) and two array quaternions (4 + 4); rates 6 + 3 + 3.
const NQ: usize = 15;
const NV: usize = 12;
/// Bookkeeping states after the spacecraft.
const DAMPING_LOSS: usize = SC + NQ + NV;
const FRICTION_LOSS: usize = DAMPING_LOSS + 1;
const SADA_LOSS: usize = DAMPING_LOSS + 2;
const WORK: usize = DAMPING_LOSS + 3;
const DIM: usize = DAMPING_LOSS + 4;
/// Largest change of the energy budget, as a fraction of the energy in play, before a run is
/// stopped as unresolved (the budget is not checked once the asteroid has crossed the rim,
/// where the membrane model's area jumps).
const ENERGY_TOLERANCE: f64 = 0.01;

/// The approach guidance: a reference pose and twist for the bus, tracked by a critically
/// damped proportional–derivative law with feed-forward of the reference acceleration.
#[derive(Clone, Debug)]
pub struct Guidance {
    /// Approach axis `Ĥ` (world), the asteroid's angular momentum direction at the start.
    pub axis: Vec3,
    /// Spin rate about the axis, rad/s (0 without the corkscrew).
    pub rate: f64,
    /// Closing speed, m/s.
    pub speed: f64,
    /// Follow the asteroid's geometric centre sideways.
    pub corkscrew: bool,
    /// Geometric centre of the asteroid (centre of its bounding box), asteroid body frame, m.
    pub centre: Vec3,
    /// Bus attitude at the start.
    pub attitude0: UnitQuat,
    /// Bus centre of mass at the start, m.
    pub position0: Vec3,
    /// Bandwidth `ω_n`, rad/s.
    pub bandwidth: f64,
    /// Spacecraft mass, kg, and inertia about the bus centre of mass (bus axes, arrays
    /// undeflected), kg·m².
    pub mass: f64,
    /// See `mass`.
    pub inertia: Mat3,
}

/// A validated capture.
#[derive(Clone, Debug)]
pub struct MembraneCapture {
    /// Scenario name.
    pub name: String,
    /// The membrane (frame `M` carried by the bus).
    pub membrane: Membrane,
    /// The asteroid's shape, body frame (origin at its centre of mass).
    pub mesh: TriMesh,
    /// Radius of the sphere about the centre of mass holding the shape, m.
    pub radius: f64,
    /// The shape's convex hull.
    pub hull: Option<BodyHull>,
    /// The asteroid's mass properties.
    pub asteroid: RigidBody,
    /// The asteroid's initial state.
    pub asteroid_start: BodyState,
    /// The spacecraft: bus (link 0, free) and arrays (links 1, 2, ball joints with springs).
    pub spacecraft: MultibodySystem,
    /// The spacecraft's initial `[q; v]`.
    pub spacecraft_start: Vec<f64>,
    /// Suspension plane ahead of the bus centre of mass, m.
    pub offset: f64,
    /// Half the bus height: its front face is this far ahead of its centre of mass, m.
    pub bus_half_height: f64,
    /// Thrust after contact, N.
    pub thrust: f64,
    /// SADA bending moment limit, N·m.
    pub moment_limit: f64,
    /// Relative rate that counts as caught up, rad/s.
    pub catch_up_rate: f64,
    /// The approach.
    pub guidance: Guidance,
    /// RK4 step, s.
    pub dt: f64,
    /// Simulated span, s.
    pub duration: f64,
    /// Time between samples, s.
    pub output_interval: f64,
}

/// One recorded instant.
#[derive(Clone, Debug, PartialEq)]
pub struct MembraneCaptureSample {
    /// Time, s.
    pub t: f64,
    /// Thrusting (after first contact) rather than guided.
    pub thrusting: bool,
    /// The membrane's action on the asteroid (in `M`, i.e. bus axes).
    pub contact: MembraneContact,
    /// Asteroid centre of mass in `M`, m (x, y: off-centre; z: height above the plane).
    pub asteroid_in_membrane: [f64; 3],
    /// Velocity of the asteroid's centre of mass relative to `M`, in `M`, m/s.
    pub relative_velocity: [f64; 3],
    /// Asteroid angular velocity, world axes, rad/s.
    pub asteroid_rate: [f64; 3],
    /// Bus angular velocity, world axes, rad/s.
    pub bus_rate: [f64; 3],
    /// Spring–damper torque of each SADA on its array, array axes (boom along `y`), N·m.
    pub sada_torque: [[f64; 3]; 2],
    /// Asteroid kinetic energy, J.
    pub asteroid_kinetic: f64,
    /// Spacecraft kinetic energy plus SADA spring energy, J.
    pub spacecraft_energy: f64,
    /// `∫c Ȧ² dt`, J.
    pub damping_loss: f64,
    /// `−∫P_f dt`, J.
    pub friction_loss: f64,
    /// `∫c_s |ω_j|² dt` of both SADAs, J.
    pub sada_loss: f64,
    /// Work of guidance and thrust, J.
    pub work: f64,
    /// Linear momentum of asteroid and spacecraft, world axes, kg·m/s.
    pub momentum: [f64; 3],
    /// Their angular momentum about the world origin, kg·m²/s.
    pub angular_momentum: [f64; 3],
    /// The asteroid's pose (centre of mass, attitude), world.
    pub asteroid_pose: (Vec3, UnitQuat),
    /// Every spacecraft link's pose (link origin, attitude), world.
    pub link_poses: Vec<(Vec3, UnitQuat)>,
}

impl MembraneCaptureSample {
    /// `T_A + T_S + V_SADA + ½k(A − A₀)² + D_c + D_f + D_s − W`: constant for the exact flow.
    pub fn budget(&self) -> f64 {
        self.asteroid_kinetic
            + self.spacecraft_energy
            + self.contact.energy
            + self.damping_loss
            + self.friction_loss
            + self.sada_loss
            - self.work
    }

    /// `|ω_asteroid − ω_bus|`, rad/s.
    pub fn relative_rate(&self) -> f64 {
        (Vec3::from(self.asteroid_rate) - Vec3::from(self.bus_rate)).norm()
    }

    /// SADA bending moment (the torque across the boom axis) of array `i`, N·m.
    pub fn bending(&self, i: usize) -> f64 {
        let t = self.sada_torque[i];
        t[0].hypot(t[2])
    }
}

/// A finished capture.
#[derive(Clone, Debug, Default)]
pub struct MembraneCaptureRun {
    /// Samples at the output interval.
    pub samples: Vec<MembraneCaptureSample>,
    /// Time of first contact, s.
    pub contact_time: Option<f64>,
    /// Why the run stopped early, if it did.
    pub diagnosis: Option<Diagnosis>,
    /// Wall-clock time, s.
    pub wall_s: f64,
}

impl MembraneCaptureRun {
    /// Largest SADA bending moment over both arrays, N·m.
    pub fn peak_bending(&self) -> f64 {
        self.samples.iter().map(|s| s.bending(0).max(s.bending(1))).fold(0.0, f64::max)
    }

    /// The first sample time after contact from which the relative rate stays below `tol`.
    pub fn catch_up_time(&self, tol: f64) -> Option<f64> {
        let tc = self.contact_time?;
        let last_above = self.samples.iter().rposition(|s| s.relative_rate() > tol);
        let from = match last_above {
            Some(i) => self.samples.get(i + 1)?,
            None => self.samples.first()?,
        };
        Some(from.t.max(tc))
    }
}

pub mod app;
mod builder;
pub mod campaign;
mod output;
pub mod sim;
mod summary;

pub use builder::MembraneCaptureBuilder;
pub use output::{animation, timeseries, write_capture_run};
pub use sim::MembraneCaptureSim;
pub use summary::MembraneCaptureSummary;

impl MembraneCapture {
    /// Validates `[membrane]`, `[spacecraft]`, `[gravity]` (none) and `[simulation]` (RK4).
    pub fn build(sc: &Scenario) -> Result<Self, ScenarioError> {
        Self::check(sc).map_err(|(k, m)| sc.error_at(&k, m))
    }

    /// The scenario adapter: reads `[membrane]`, `[spacecraft]`, `[gravity]` (none) and
    /// `[simulation]` (RK4) into an [`MembraneCaptureBuilder`].
    fn check(sc: &Scenario) -> Check<Self> {
        let Some(s) = &sc.file.spacecraft else { return err("spacecraft", "a capture needs a [spacecraft] table") };
        let (dt, duration, output_interval) = rk4_timing(sc, "capture")?;
        if !matches!(sc.file.gravity, GravitySpec::None) {
            return err("gravity.type", "a capture runs in free space: `none` (the asteroid's own pull is neglected)");
        }
        let MembraneParts { membrane, mesh, mass, inertia, start } = membrane_parts(sc)?;
        let mut b = MembraneCapture::builder(&sc.file.name)
            .membrane(membrane)
            .asteroid(mesh, mass)
            .asteroid_pose(start.p_WB, start.q_WB)
            .asteroid_twist(start.v_WB, start.w_WB_B)
            .bus(s.mass, s.radius, s.height)
            .membrane_offset(s.membrane_offset)
            .thrust(s.thrust)
            .catch_up_rate(s.catch_up_rate)
            .arrays(s.arrays.clone())
            .approach(s.approach.clone())
            .timing(dt, duration, output_interval);
        if let Some(i) = inertia {
            b = b.asteroid_inertia(i);
        }
        Ok(b.build()?)
    }

    /// The state at the start: asteroid, spacecraft, then the four bookkeeping states (zero).
    pub fn initial_state(&self) -> Vec<f64> {
        let mut y = vec![0.0; DIM];
        self.asteroid_start.write(&mut y);
        y[SC..SC + NQ + NV].copy_from_slice(&self.spacecraft_start);
        y
    }

    /// Runs the capture.
    pub fn run(&self) -> MembraneCaptureRun {
        self.run_with(&mut |_| {})
    }

    /// Runs the capture on the pipeline's [`crate::pipeline::Driver`], calling `progress(t)` at
    /// every sample.
    pub fn run_with(&self, progress: &mut dyn FnMut(f64)) -> MembraneCaptureRun {
        let started = std::time::Instant::now();
        let sim = MembraneCaptureSim::new(self);
        let schedule = sim.schedule();
        let (sim, end) = crate::pipeline::Driver::run_whole(sim, schedule, progress);
        let mut run = sim.finish(end);
        run.wall_s = started.elapsed().as_secs_f64();
        run
    }
}
