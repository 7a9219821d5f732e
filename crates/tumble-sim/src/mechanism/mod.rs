//! Rigid bodies in contact through the interference engine (`[mechanism]`): guides, pegs,
//! rails and rollers, docking probes, grapple fixtures. Each body's frame (origin at its centre
//! of mass) is its contact model's Object frame; the engine ([`tumble_contact::interference`])
//! turns the paired models' interference into a wrench on each body, which joins gravity and
//! the spring-dampers in the Newton–Euler equations (13 states per free body, RK4). After each
//! accepted step the engine is evaluated at the new state and committed, so the bristle
//! friction state advances once per step.
//!
//! **Arm.** With an `[arm]` in the scenario, a body may ride on one of its links (`link`): its
//! pose and twist follow the link's, and its contact wrench is applied to the link (link axes,
//! about the link origin) in the multibody equations, solved in the same RK4 state
//! `[arm; free bodies]`.
//!
//! Spring-damper (a compliant wrist, a drive): `F = K (a(t) − p) + C (ȧ − v)` with the anchor
//! `a(t) = a₀ + ȧ t` and diagonal `K`, `C` in world axes; `τ = k_θ θ − c_θ ω`, `θ` the rotation
//! vector from the body's attitude to its attitude at the start. The energy reported is
//! `T + V_g + V_springs`; contact damping and friction remove energy, so it only falls when no
//! drive works on the system.
//!
//! Here: the model and its scenario adapter; [`MechanismBuilder`] validates it; [`sim`] steps it
//! on the pipeline; `output.rs` writes a run's files.

use crate::ScenarioError;
use crate::arm::ArmModel;
use crate::pipeline::Diagnosis;
use crate::scenario::check::mass_and_inertia;
use crate::scenario::check::rk4_timing;
use crate::scenario::check::{Check, err, finite3};
use crate::scenario::mechanism::{BerthingSpec, DriveSpec, MechanismBodySpec, SnareSpec};
use crate::scenario::{GravitySpec, Scenario};
use std::sync::Arc;
use tumble_contact::interference::Model as ContactModel;
use tumble_dynamics::multibody::system::MultibodySystem;
use tumble_dynamics::{BodyState, RigidBody};
use tumble_geometry::MassProperties;
use tumble_math::{Mat3, UnitQuat, Vec3, quat_from_wxyz};

/// A body of the mechanism.
#[derive(Clone, Debug)]
pub struct MechBody {
    /// Name.
    pub name: String,
    /// Its contact model.
    pub model: Arc<ContactModel>,
    /// Mass properties (`None`: fixed or carried by an arm link).
    pub body: Option<RigidBody>,
    /// The arm link carrying it and its pose in the link frame (rotation, position).
    pub link: Option<(usize, Mat3, Vec3)>,
    /// State at the start.
    pub start: BodyState,
}

/// A spring-damper from a body to a moving anchor.
#[derive(Clone, Debug)]
pub struct Spring {
    /// Index of the body.
    pub body: usize,
    /// Anchor at t = 0, m.
    pub anchor: Vec3,
    /// Anchor velocity, m/s.
    pub anchor_velocity: Vec3,
    /// Stiffness per world axis, N/m.
    pub k: Vec3,
    /// Damping per world axis, N·s/m.
    pub c: Vec3,
    /// Torsional stiffness, N·m/rad, and damping, N·m·s/rad.
    pub torsion: (f64, f64),
    /// Attitude the torsion pulls towards.
    pub attitude: UnitQuat,
}

impl MechBody {
    /// Whether it moves: free, or carried by an arm link.
    pub fn moves(&self) -> bool {
        self.body.is_some() || self.link.is_some()
    }
}

impl Spring {
    /// Force (W) and torque (W, about the centre of mass) on the body, and the stored energy.
    fn wrench(&self, t: f64, s: &BodyState) -> (Vec3, Vec3, f64) {
        let stretch = self.anchor + self.anchor_velocity * t - s.p_WB;
        let f = self.k.component_mul(&stretch) + self.c.component_mul(&(self.anchor_velocity - s.v_WB));
        let theta = (self.attitude * s.q_WB.inverse()).scaled_axis();
        let w_W = s.q_WB * s.w_WB_B;
        let tau = theta * self.torsion.0 - w_W * self.torsion.1;
        let energy = 0.5 * self.k.dot(&stretch.component_mul(&stretch)) + 0.5 * self.torsion.0 * theta.norm_squared();
        (f, tau, energy)
    }
}

/// A validated mechanism scenario.
#[derive(Clone, Debug)]
pub struct Mechanism {
    /// Scenario name.
    pub name: String,
    /// Bodies, in file order.
    pub bodies: Vec<MechBody>,
    /// Pairs of body indices.
    pub pairs: Vec<(usize, usize)>,
    /// Spring-dampers.
    pub springs: Vec<Spring>,
    /// Uniform gravity, m/s².
    pub gravity: Vec3,
    /// Candidate margin of the engine, m.
    pub margin: f64,
    /// The arm, when bodies ride on its links: its system and state at the start.
    pub arm: Option<(MultibodySystem, Vec<f64>)>,
    /// RK4 step, s.
    pub dt: f64,
    /// Simulated span, s.
    pub duration: f64,
    /// Time between samples, s.
    pub output_interval: f64,
    /// Largest growth of `E − W` allowed, as a fraction of the energy scale
    /// (`simulation.max_energy_growth`; see [`MechanismSim`]).
    pub max_energy_growth: f64,
    /// A three-wire snare on one of the bodies.
    pub snare: Option<Snare>,
    /// A berthing: latches and ready-to-latch indicators on one body capturing another.
    pub berthing: Option<Berthing>,
}

/// One recorded instant.
#[derive(Clone, Debug, PartialEq)]
pub struct MechSample {
    /// Time, s.
    pub t: f64,
    /// Per body: position (m), velocity (m/s), angular velocity (body axes, rad/s), contact
    /// force (W, N) and contact torque about the centre of mass (W, N·m).
    pub bodies: Vec<[Vec3; 5]>,
    /// Per body: attitude.
    pub attitudes: Vec<UnitQuat>,
    /// Per body: the contact force split into its normal and friction parts, summed over the
    /// body's contacts (W, N).
    pub split: Vec<[Vec3; 2]>,
    /// Active contacts.
    pub contacts: usize,
    /// `T + V_g + V_springs` of the free bodies, J.
    pub energy: f64,
    /// The snare's drives, wires and face.
    pub snare: Option<SnareSample>,
    /// The berthing's latches, indicators and loads.
    pub berthing: Option<BerthingSample>,
}

/// A finished run.
#[derive(Clone, Debug, Default)]
pub struct MechRun {
    /// Samples at the output interval.
    pub samples: Vec<MechSample>,
    /// Why the run stopped early, if it did.
    pub diagnosis: Option<Diagnosis>,
    /// Wall-clock time, s.
    pub wall_s: f64,
    /// What the snare did.
    pub snare: Option<SnareLog>,
    /// What the berthing did.
    pub berthing: Option<BerthingLog>,
}

pub mod app;
mod builder;
pub mod campaign;
pub mod latch;
mod ode;
mod output;
pub mod sim;
pub mod snare;
mod summary;

pub use builder::{MechanismBuilder, Mount, SpringDamper};
pub use latch::berthing::{BerthStage, Berthing, BerthingInput, BerthingLog, BerthingSample};
pub use latch::{Latch, LatchInput};
pub use output::{animation, timeseries, write_mechanism_run};
pub use sim::MechanismSim;
pub use snare::{DcDrive, Snare, SnareInput, SnareLog, SnareSample, Stage};
pub use summary::{BodyEnd, MechanismSummary, SnareSummary};

impl Mechanism {
    /// Validates `[mechanism]`, `[gravity]` and `[simulation]` (RK4), and loads the models.
    pub fn build(sc: &Scenario) -> Result<Self, ScenarioError> {
        Self::check(sc).map_err(|(k, m)| sc.error_at(&k, m))
    }

    /// The scenario adapter: reads the file's tables into a [`MechanismBuilder`] (loading the
    /// contact models, refusing what a file can say that the builder's types cannot).
    fn check(sc: &Scenario) -> Check<Self> {
        let Some(spec) = &sc.file.mechanism else { return err("mechanism", "missing") };
        let (dt, duration, output_interval) = rk4_timing(sc, "mechanism")?;
        let gravity = match &sc.file.gravity {
            GravitySpec::None => Vec3::zeros(),
            GravitySpec::Uniform { g } => finite3("gravity.g", *g)?,
            _ => return err("gravity.type", "mechanism runs take `none` or `uniform` gravity"),
        };
        let mut builder = Self::builder(&sc.file.name)
            .gravity(gravity)
            .timing(dt, duration, output_interval)
            .max_energy_growth(sc.file.simulation.max_energy_growth);
        if sc.file.arm.is_some() {
            builder = builder.arm(ArmModel::check(sc)?);
        }
        for (k, b) in spec.bodies.iter().enumerate() {
            let (model, mount, start) = Self::body_input(sc, &format!("mechanism.bodies.{k}"), b)?;
            builder = builder.body(&b.name, model, mount, start);
        }
        for [a, b] in &spec.pairs {
            builder = builder.pair(a, b);
        }
        for s in &spec.springs {
            builder = builder.spring(SpringDamper {
                body: s.body.clone(),
                anchor: s.anchor.map(Vec3::from),
                anchor_velocity: Vec3::from(s.anchor_velocity),
                stiffness: Vec3::from(s.stiffness),
                damping: Vec3::from(s.damping),
                torsion: s.torsion,
                torsion_damping: s.torsion_damping,
            });
        }
        if let Some(margin) = spec.margin {
            builder = builder.margin(margin);
        }
        if let Some(sn) = &spec.snare {
            builder = builder.snare(Self::snare_input(sn)?);
        }
        if let Some(b) = &spec.berthing {
            builder = builder.berthing(Self::berthing_input(sc, b)?);
        }
        Ok(builder.build()?)
    }

    /// `[mechanism.snare]` in the builder's types.
    fn snare_input(sn: &SnareSpec) -> Check<SnareInput> {
        let drive = |d: &DriveSpec| DcDrive { stall: d.stall, no_load_speed: d.no_load_speed, inertia: d.inertia };
        let q =
            quat_from_wxyz(sn.orientation).map_err(|e| ("mechanism.snare.orientation".to_string(), e.to_string()))?;
        Ok(SnareInput {
            carrier: sn.carrier.clone(),
            target: sn.target.clone(),
            contact: sn.contact.clone(),
            ring: (q, finite3("mechanism.snare.position", sn.position)?),
            ring_radius: sn.ring_radius,
            open_angle: sn.open_angle_deg.to_radians(),
            tip: finite3("mechanism.snare.tip", sn.tip)?,
            trigger: sn.trigger,
            motor: drive(&sn.motor),
            carriage: drive(&sn.carriage),
            stroke: sn.stroke,
        })
    }

    /// `[mechanism.berthing]` in the builder's types (the hooks' models loaded).
    fn berthing_input(sc: &Scenario, b: &BerthingSpec) -> Check<BerthingInput> {
        let mut latches = Vec::new();
        for (k, l) in b.latches.iter().enumerate() {
            let key = |s: &str| format!("mechanism.berthing.latches.{k}.{s}");
            let hook = ContactModel::load(&sc.resolve(&l.hook)).map_err(|e| (key("hook"), e.to_string()))?;
            if hook.bodies.len() != 1 {
                return err(key("hook"), "a hook's model has no movable groups: it is one body");
            }
            latches.push(LatchInput {
                name: l.name.clone(),
                hook: Arc::new(hook),
                crank_pivot: finite3(&key("crank_pivot"), l.crank_pivot)?,
                pivot: finite3(&key("pivot"), l.pivot)?,
                axis: finite3(&key("axis"), l.axis)?,
                lengths: [l.crank, l.coupler, l.rocker],
                range: [l.open_deg.to_radians(), l.closed_deg.to_radians()],
                motor: DcDrive { stall: l.motor.stall, no_load_speed: l.motor.no_load_speed, inertia: l.motor.inertia },
            });
        }
        Ok(BerthingInput {
            carrier: b.carrier.clone(),
            target: b.target.clone(),
            latches,
            rtli_trip: b.rtli_trip,
            rtli_required: b.rtli_required,
            axis: finite3("mechanism.berthing.axis", b.axis)?,
        })
    }

    /// One `[[mechanism.bodies]]` table at `key`: its loaded model, mount and start.
    fn body_input(sc: &Scenario, key: &str, b: &MechanismBodySpec) -> Check<(ContactModel, Mount, BodyState)> {
        let model = ContactModel::load(&sc.resolve(&b.model)).map_err(|e| (format!("{key}.model"), e.to_string()))?;
        let q = quat_from_wxyz(b.orientation).map_err(|e| (format!("{key}.orientation"), e.to_string()))?;
        let start = BodyState {
            p_WB: finite3(&format!("{key}.position"), b.position)?,
            v_WB: finite3(&format!("{key}.velocity"), b.velocity)?,
            q_WB: q,
            w_WB_B: finite3(&format!("{key}.angular_velocity"), b.angular_velocity)?,
        };
        let at_rest = start.v_WB == Vec3::zeros() && start.w_WB_B == Vec3::zeros();
        let massless = b.mass.is_none() && b.inertia.is_none();
        let mount = match (&b.link, b.fixed) {
            (Some(link), _) if !b.fixed && massless && at_rest => Mount::Link(link.clone()),
            (Some(_), _) => {
                return err(key, "a body on an arm link moves with it: it takes no `fixed`, mass, inertia or velocity");
            }
            (None, true) if massless && at_rest => Mount::Fixed,
            (None, true) => return err(key, "a fixed body takes no mass, inertia or velocity"),
            (None, false) => {
                let (Some(mass), Some(inertia)) = (b.mass, &b.inertia) else {
                    return err(key, "a free body needs `mass` (kg) and `inertia` (kg·m²)");
                };
                let (mass, inertia) = mass_and_inertia(key, mass, inertia)?;
                Mount::Free(MassProperties::new(mass, inertia))
            }
        };
        Ok((model, mount, start))
    }

    /// Runs the mechanism on the pipeline's [`crate::pipeline::Driver`].
    pub fn run(&self) -> MechRun {
        let started = std::time::Instant::now();
        let mut run = match MechanismSim::new(self) {
            Ok(sim) => {
                let schedule = sim.schedule();
                let (sim, end) = crate::pipeline::Driver::run_whole(sim, schedule, &mut |_| {});
                sim.finish(end)
            }
            Err(d) => MechRun { diagnosis: Some(d), ..MechRun::default() },
        };
        run.wall_s = started.elapsed().as_secs_f64();
        run
    }
}
