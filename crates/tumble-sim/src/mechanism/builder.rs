//! [`MechanismBuilder`]: bodies in contact through the interference engine, built in code from
//! contact models (loaded with [`ContactModel::load`] or made with `tumble_contact`), validated
//! as a scenario file is (errors name the file's keys: the `k`-th body added is
//! `mechanism.bodies.k`); the scenario adapter ends in it.

use super::{MechBody, Mechanism, SnareInput, Spring};
use crate::arm::ArmModel;
use crate::pipeline::BuildError;
use crate::scenario::check::{finite_vec, fixed_timing, mass_properties, positive};
use std::sync::Arc;
use tumble_contact::interference::Model as ContactModel;
use tumble_dynamics::{BodyState, Method, RigidBody};
use tumble_geometry::MassProperties;
use tumble_math::{UnitQuat, Vec3};

/// How a mechanism body moves.
#[derive(Clone, Debug)]
pub enum Mount {
    /// Free, with its mass properties about its centre of mass (the body frame's origin; kg,
    /// kg·m²).
    Free(MassProperties),
    /// Fixed in the world.
    Fixed,
    /// Carried by the arm's link (or the link of the joint) of this name; its pose is in the
    /// link frame.
    Link(String),
}

/// A spring-damper from a free body to a moving anchor (see the module docs for its law).
#[derive(Clone, Debug, PartialEq)]
pub struct SpringDamper {
    /// Name of the body.
    pub body: String,
    /// Anchor at t = 0 (default: the body's centre of mass at the start), m.
    pub anchor: Option<Vec3>,
    /// Anchor velocity, m/s.
    pub anchor_velocity: Vec3,
    /// Stiffness per world axis, N/m.
    pub stiffness: Vec3,
    /// Damping per world axis, N·s/m.
    pub damping: Vec3,
    /// Torsional stiffness towards the attitude at the start, N·m/rad.
    pub torsion: f64,
    /// Torsional damping, N·m·s/rad.
    pub torsion_damping: f64,
}

impl SpringDamper {
    /// A translational spring-damper holding `body` at its start (fixed anchor, no torsion).
    pub fn new(body: &str, stiffness: Vec3, damping: Vec3) -> Self {
        Self {
            body: body.into(),
            anchor: None,
            anchor_velocity: Vec3::zeros(),
            stiffness,
            damping,
            torsion: 0.0,
            torsion_damping: 0.0,
        }
    }
}

/// A body as given to the builder.
#[derive(Clone, Debug)]
struct BodyInput {
    name: String,
    model: Arc<ContactModel>,
    mount: Mount,
    start: BodyState,
}

/// Builds a [`Mechanism`]: bodies with their contact models, the pairs that may touch,
/// spring-dampers, uniform gravity, an optional arm carrying bodies, and the RK4 timing.
#[derive(Clone, Debug)]
pub struct MechanismBuilder {
    name: String,
    bodies: Vec<BodyInput>,
    pairs: Vec<(String, String)>,
    springs: Vec<SpringDamper>,
    gravity: Vec3,
    margin: f64,
    arm: Option<ArmModel>,
    dt: f64,
    duration: f64,
    output_interval: Option<f64>,
    max_energy_growth: f64,
    snare: Option<SnareInput>,
    berthing: Option<super::BerthingInput>,
}

impl Mechanism {
    /// A builder for the mechanism named `name`, with a scenario file's defaults: no gravity,
    /// the engine's default candidate margin, a sample every step, an energy growth limit of
    /// 1 % of the scale.
    pub fn builder(name: &str) -> MechanismBuilder {
        MechanismBuilder {
            name: name.into(),
            bodies: Vec::new(),
            pairs: Vec::new(),
            springs: Vec::new(),
            gravity: Vec3::zeros(),
            margin: tumble_contact::interference::engine::DEFAULT_MARGIN,
            arm: None,
            dt: f64::NAN,
            duration: f64::NAN,
            output_interval: None,
            max_energy_growth: 0.01,
            snare: None,
            berthing: None,
        }
    }
}

impl MechanismBuilder {
    /// A body named `name` with its contact model (one movable group: its Object frame is the
    /// body frame), how it moves and its state at t = 0 (pose only for a fixed or carried body;
    /// a carried body's pose is in its link's frame).
    pub fn body(mut self, name: &str, model: impl Into<Arc<ContactModel>>, mount: Mount, start: BodyState) -> Self {
        self.bodies.push(BodyInput { name: name.into(), model: model.into(), mount, start });
        self
    }

    /// A body fixed at `position` (m) with `attitude`.
    pub fn fixed_body(
        self,
        name: &str,
        model: impl Into<Arc<ContactModel>>,
        position: Vec3,
        attitude: UnitQuat,
    ) -> Self {
        self.body(name, model, Mount::Fixed, at_rest(position, attitude))
    }

    /// The pair of bodies `a`, `b` whose models may touch (one of them must move).
    pub fn pair(mut self, a: &str, b: &str) -> Self {
        self.pairs.push((a.into(), b.into()));
        self
    }

    /// A spring-damper on a free body.
    pub fn spring(mut self, spring: SpringDamper) -> Self {
        self.springs.push(spring);
        self
    }

    /// Uniform gravity, m/s².
    pub fn gravity(mut self, g: Vec3) -> Self {
        self.gravity = g;
        self
    }

    /// Candidate margin of the engine, m.
    pub fn margin(mut self, margin: f64) -> Self {
        self.margin = margin;
        self
    }

    /// The arm whose links carry [`Mount::Link`] bodies (integrated with RK4 at the
    /// mechanism's step, in one state with the free bodies).
    pub fn arm(mut self, arm: ArmModel) -> Self {
        self.arm = Some(arm);
        self
    }

    /// RK4 step, duration and output interval (a whole multiple of the step), s.
    pub fn timing(mut self, dt: f64, duration: f64, output_interval: f64) -> Self {
        (self.dt, self.duration, self.output_interval) = (dt, duration, Some(output_interval));
        self
    }

    /// Largest growth of `E − W` allowed, fraction of the energy scale (see
    /// [`super::MechanismSim`]).
    pub fn max_energy_growth(mut self, fraction: f64) -> Self {
        self.max_energy_growth = fraction;
        self
    }

    /// Latches and ready-to-latch indicators on one body capturing another (see
    /// [`super::latch`]).
    pub fn berthing(mut self, berthing: super::BerthingInput) -> Self {
        self.berthing = Some(berthing);
        self
    }

    /// A three-wire snare on one of the bodies (see [`super::snare`]).
    pub fn snare(mut self, snare: SnareInput) -> Self {
        self.snare = Some(snare);
        self
    }

    /// The mechanism, or the first input that cannot make one.
    pub fn build(self) -> Result<Mechanism, BuildError> {
        let (dt, duration, output_interval) = fixed_timing(self.dt, self.duration, self.output_interval)?;
        finite_vec("gravity.g", &self.gravity)?;
        if let Some(arm) = &self.arm
            && !matches!(arm.method, Method::Rk4 { .. })
        {
            return Err(BuildError::new("simulation.integrator", "mechanism runs use `rk4`"));
        }
        let bodies = self
            .bodies
            .iter()
            .enumerate()
            .map(|(k, b)| body(k, b, &self.bodies[..k], self.arm.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        if !bodies.iter().any(MechBody::moves) {
            return Err(BuildError::new("mechanism.bodies", "every body is fixed: nothing would move"));
        }
        let pairs = pairs(&self.pairs, &bodies)?;
        let springs = self.springs.iter().enumerate().map(|(k, s)| spring(k, s, &bodies)).collect::<Result<_, _>>()?;
        if !(self.margin.is_finite() && self.margin >= 0.0) {
            return Err(BuildError::new("mechanism.margin", format!("{}: must be finite and ≥ 0 (m)", self.margin)));
        }
        let max_energy_growth =
            positive("simulation.max_energy_growth", self.max_energy_growth, "fraction of the energy scale")?;
        let snare = self.snare.as_ref().map(|s| super::snare::check(s, &bodies, &pairs)).transpose()?;
        let berthing = self.berthing.as_ref().map(|b| super::latch::berthing::check(b, &bodies, &pairs)).transpose()?;
        let m = Mechanism {
            name: self.name,
            bodies,
            pairs,
            springs,
            gravity: self.gravity,
            margin: self.margin,
            arm: self.arm.map(|a| (a.system, a.initial_state)),
            dt,
            duration,
            output_interval,
            max_energy_growth,
            snare,
            berthing,
        };
        // Pairing checks (ambiguous or missing laws) now, not in the run.
        m.engine().map_err(|e| BuildError::new("mechanism.pairs", e))?;
        Ok(m)
    }
}

/// A state at rest at a pose.
fn at_rest(position: Vec3, attitude: UnitQuat) -> BodyState {
    BodyState { p_WB: position, v_WB: Vec3::zeros(), q_WB: attitude, w_WB_B: Vec3::zeros() }
}

/// The `k`-th body checked against those before it and the arm.
fn body(k: usize, b: &BodyInput, before: &[BodyInput], arm: Option<&ArmModel>) -> Result<MechBody, BuildError> {
    let key = format!("mechanism.bodies.{k}");
    if before.iter().any(|o| o.name == b.name) {
        return Err(BuildError::new(format!("{key}.name"), format!("'{}' is used twice", b.name)));
    }
    if b.model.bodies.len() != 1 {
        let msg = format!(
            "the model has {} bodies (movable groups): a mechanism body takes a model with none",
            b.model.bodies.len()
        );
        return Err(BuildError::new(format!("{key}.model"), msg));
    }
    let s = &b.start;
    for (name, v) in [("position", &s.p_WB), ("velocity", &s.v_WB), ("angular_velocity", &s.w_WB_B)] {
        finite_vec(&format!("{key}.{name}"), v)?;
    }
    crate::scenario::check::motion(&key, &s.p_WB, &s.v_WB, &s.w_WB_B)?;
    if !s.q_WB.coords.iter().all(|x| x.is_finite()) {
        return Err(BuildError::new(format!("{key}.orientation"), "must be a finite unit quaternion"));
    }
    let moving = s.v_WB != Vec3::zeros() || s.w_WB_B != Vec3::zeros();
    let (body, link) = match &b.mount {
        Mount::Free(mass) => {
            mass_properties(&key, mass)?;
            (Some(RigidBody::new(b.name.clone(), mass)), None)
        }
        Mount::Fixed if moving => return Err(BuildError::new(&key, "a fixed body takes no velocity")),
        Mount::Fixed => (None, None),
        Mount::Link(_) if moving => {
            return Err(BuildError::new(&key, "a body on an arm link moves with it: it takes no velocity"));
        }
        Mount::Link(name) => {
            let Some(arm) = arm else {
                return Err(BuildError::new(format!("{key}.link"), "a body on a link needs an [arm] in the scenario"));
            };
            let l = arm.link_index(name).ok_or_else(|| {
                BuildError::new(format!("{key}.link"), format!("no link or joint named `{name}` in the arm"))
            })?;
            (None, Some((l, s.q_WB.to_rotation_matrix().into_inner(), s.p_WB)))
        }
    };
    Ok(MechBody { name: b.name.clone(), model: b.model.clone(), body, link, start: b.start })
}

/// Index of the body named `name`, or an error at `key` listing the bodies.
pub(super) fn index(bodies: &[MechBody], key: &str, name: &str) -> Result<usize, BuildError> {
    bodies.iter().position(|b| b.name == name).ok_or_else(|| {
        let known: Vec<&str> = bodies.iter().map(|b| b.name.as_str()).collect();
        BuildError::new(key, format!("no body named '{name}' (bodies: {})", known.join(", ")))
    })
}

/// The pairs by body index: two different bodies, one of them moving; at least one pair.
fn pairs(named: &[(String, String)], bodies: &[MechBody]) -> Result<Vec<(usize, usize)>, BuildError> {
    let mut pairs = Vec::with_capacity(named.len());
    for (k, (a, b)) in named.iter().enumerate() {
        let key = format!("mechanism.pairs.{k}");
        let (i, j) = (index(bodies, &key, a)?, index(bodies, &key, b)?);
        if i == j || !(bodies[i].moves() || bodies[j].moves()) {
            return Err(BuildError::new(key, format!("'{a}' and '{b}': a pair needs two bodies, one of them free")));
        }
        pairs.push((i, j));
    }
    if pairs.is_empty() {
        return Err(BuildError::new("mechanism.pairs", "no pairs: nothing would touch"));
    }
    Ok(pairs)
}

/// The `k`-th spring-damper on its free body, gains finite and ≥ 0.
fn spring(k: usize, s: &SpringDamper, bodies: &[MechBody]) -> Result<Spring, BuildError> {
    let key = format!("mechanism.springs.{k}");
    let body = index(bodies, &format!("{key}.body"), &s.body)?;
    if bodies[body].body.is_none() {
        return Err(BuildError::new(
            format!("{key}.body"),
            format!("'{}' is fixed: a spring needs a free body", s.body),
        ));
    }
    let nonneg = |what: &str, v: &[f64]| {
        if v.iter().all(|x| x.is_finite() && *x >= 0.0) {
            Ok(())
        } else {
            Err(BuildError::new(format!("{key}.{what}"), format!("{v:?}: must be finite and ≥ 0")))
        }
    };
    nonneg("stiffness", s.stiffness.as_slice())?;
    nonneg("damping", s.damping.as_slice())?;
    nonneg("torsion", &[s.torsion, s.torsion_damping])?;
    let start = &bodies[body].start;
    Ok(Spring {
        body,
        anchor: finite_vec(&format!("{key}.anchor"), &s.anchor.unwrap_or(start.p_WB))?,
        anchor_velocity: finite_vec(&format!("{key}.anchor_velocity"), &s.anchor_velocity)?,
        k: s.stiffness,
        c: s.damping,
        torsion: (s.torsion, s.torsion_damping),
        attitude: start.q_WB,
    })
}
