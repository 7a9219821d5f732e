//! A berthing (`[mechanism.berthing]`): latches on a carrier (the active half) capture a target
//! (the passive half) once enough Ready-to-Latch Indicators are tripped, then pull it in.
//!
//! **Ready-to-Latch Indicators.** The carrier model's primitives named `rtli…` (a rotating
//! paddle, a translating plunger: any shape) are sensors: one trips while the target presses
//! it at least `rtli_trip` deep (its plunger's travel to the switch). Their contact with the
//! target is a contact like any other (a soft set: the sensor's spring).
//!
//! **Sequence.** Approach (latches open and braked) until `rtli_required` indicators are
//! tripped; then every latch's motor drives. A latch is *latched* once it stalls under load
//! (its crank slower than 1 % of the motor's no-load speed with the hook's load resisting
//! with at least half the stall torque, for [`STALL_DWELL`]) or reaches its closed stop with its hook on the target;
//! it is then braked. A latch at its stop that never met the target failed: its fitting was
//! out of reach. All latched: captured. Captured and the target at rest relative to the
//! carrier (below 1 mm/s): berthed, the end. Not captured by the end of the run: missed, with
//! the indicators' count.

use super::Latch;
use crate::pipeline::BuildError;
use std::sync::Arc;
use tumble_contact::interference::{ActiveContact, Engine, Model as ContactModel};
use tumble_math::Vec3;

/// A hook's loads after an evaluation: the generalised force on its crank (N·m) and the wrench
/// passed to the carrier (force, moment about the carrier's origin; W).
pub type HookLoads = (f64, Vec3, Vec3);

/// How long a latch's motor must stay stalled under load before the latch counts as latched,
/// s: longer than a hook's impact on its fitting, shorter than the pull-in.
pub const STALL_DWELL: f64 = 0.5;

/// State components of one latch: `[θ₂, θ̇₂]`.
pub const LATCH_STATE_LEN: usize = 2;

/// A berthing as given to the builder.
#[derive(Clone, Debug)]
pub struct BerthingInput {
    /// The body carrying the latches and indicators (the active half).
    pub carrier: String,
    /// The free body captured (the passive half).
    pub target: String,
    /// The latches.
    pub latches: Vec<super::LatchInput>,
    /// Depth at which an indicator trips, m.
    pub rtli_trip: f64,
    /// Indicators tripped before the latches drive.
    pub rtli_required: usize,
    /// The berthing axis in the carrier frame (from the carrier towards the arriving target).
    pub axis: Vec3,
}

/// A validated berthing.
#[derive(Clone, Debug)]
pub struct Berthing {
    /// Carrier and target body indices.
    pub carrier: usize,
    /// Target body index.
    pub target: usize,
    /// The latches.
    pub latches: Vec<Latch>,
    /// Indicators: the carrier model's primitive index and name.
    pub rtlis: Vec<(u32, String)>,
    /// Trip depth, m.
    pub rtli_trip: f64,
    /// Indicators needed.
    pub rtli_required: usize,
    /// Unit berthing axis, carrier frame.
    pub axis: Vec3,
    /// The carrier–target pair's index and whether the carrier is its first body.
    pub face: (usize, bool),
    /// The carrier model's top-level groups (features: guides, standoffs, …) and, per
    /// primitive, its group.
    pub groups: (Vec<String>, Vec<usize>),
}

/// Where a berthing stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BerthStage {
    /// Approaching; latches open.
    Approach,
    /// Latches driving.
    Capturing,
    /// Every latch latched.
    Captured,
    /// Captured and at rest against the carrier.
    Berthed,
    /// A latch closed on nothing.
    Failed,
}

impl BerthStage {
    /// Its name in outputs.
    pub fn name(self) -> &'static str {
        ["approach", "capturing", "captured", "berthed", "failed"][self as usize]
    }
}

/// The record of a berthing.
#[derive(Clone, Debug, PartialEq)]
pub struct BerthingLog {
    /// Where it stands (at the end: the outcome; `approach` at the end is a miss).
    pub outcome: BerthStage,
    /// Why it failed or missed.
    pub reason: Option<String>,
    /// Events: time and what happened.
    pub events: Vec<(f64, String)>,
    /// When the latches started driving, s.
    pub drive_at: Option<f64>,
    /// When each latch latched, s.
    pub latched_at: Vec<Option<f64>>,
    /// When every latch had latched, s.
    pub captured_at: Option<f64>,
    /// When the target came to rest captured, s.
    pub berthed_at: Option<f64>,
    /// Largest motor torque of each latch, N·m.
    pub peak_torque: Vec<f64>,
    /// Largest hook load of each latch, N.
    pub peak_hook: Vec<f64>,
    /// Largest normal load on each carrier feature group, N.
    pub peak_group: Vec<f64>,
    /// Most indicators tripped at once.
    pub rtli_peak: usize,
}

/// The berthing at one sample.
#[derive(Clone, Debug, PartialEq)]
pub struct BerthingSample {
    /// Stage.
    pub stage: BerthStage,
    /// Per latch: crank angle (rad), hook angle (rad), motor torque (N·m), hook load (N) and
    /// its pull along the berthing axis (toward the carrier, N).
    pub latches: Vec<[f64; 5]>,
    /// Per indicator: tripped.
    pub rtlis: Vec<bool>,
    /// Normal load on each carrier feature group, N.
    pub groups: Vec<f64>,
    /// The target's offset from the carrier along the axis and across it, m.
    pub offset: [f64; 2],
    /// Each hook's pose (W).
    pub hooks: Vec<(Vec3, tumble_math::UnitQuat)>,
}

/// A berthing during a run.
#[derive(Clone, Debug)]
pub(crate) struct BerthingRun {
    /// Engine objects of the hooks.
    pub hooks: Vec<usize>,
    /// Engine pairs hook–target.
    pub pairs: Vec<usize>,
    /// Offset of the latches' `[θ₂, θ̇₂]…` in the state.
    pub at: usize,
    /// Which latches drive.
    driving: Vec<bool>,
    /// Since when each driving latch has been stalled, s.
    stalled_since: Vec<Option<f64>>,
    /// A user's command of each latch's motor (the fraction of its rated voltage); `None`: the
    /// sequence's.
    pub commands: Vec<Option<f64>>,
    /// The record so far.
    pub log: BerthingLog,
    /// The feature groups' loads of the last step (scratch).
    loads: Vec<f64>,
}

impl Berthing {
    /// Whether indicator `k` is tripped in the engine's contacts.
    fn is_tripped(&self, k: usize, contacts: &[ActiveContact]) -> bool {
        let (face, carrier_a) = self.face;
        contacts.iter().any(|c| {
            let mine = if carrier_a { c.key.1 } else { c.key.2 };
            c.key.0 as usize == face && mine == self.rtlis[k].0 && !c.volumetric && c.measure >= self.rtli_trip
        })
    }

    /// Indicators tripped in the engine's contacts.
    pub fn tripped(&self, contacts: &[ActiveContact]) -> Vec<bool> {
        (0..self.rtlis.len()).map(|k| self.is_tripped(k, contacts)).collect()
    }

    /// Normal load on each carrier feature group, N.
    pub fn group_loads(&self, contacts: &[ActiveContact]) -> Vec<f64> {
        let mut out = vec![0.0; self.groups.0.len()];
        self.add_group_loads(contacts, &mut out);
        out
    }

    /// Adds each carrier feature group's normal load (N) to `out`, without allocating.
    fn add_group_loads(&self, contacts: &[ActiveContact], out: &mut [f64]) {
        let (face, carrier_a) = self.face;
        for c in contacts.iter().filter(|c| c.key.0 as usize == face) {
            let prim = if carrier_a { c.key.1 } else { c.key.2 } as usize;
            out[self.groups.1[prim]] += c.normal_force;
        }
    }

    /// The target's offset from the carrier: along the axis and across it, m.
    pub fn offset(&self, engine: &Engine) -> [f64; 2] {
        let (c, t) = (engine.body(self.carrier, 0), engine.body(self.target, 0));
        let r = c.X_WB.R.transpose() * (t.X_WB.p - c.X_WB.p);
        let along = r.dot(&self.axis);
        [along, (r - self.axis * along).norm()]
    }

    /// The target's speed relative to the carrier (at the target's origin), m/s.
    fn relative_speed(&self, engine: &Engine) -> f64 {
        let (c, t) = (engine.body(self.carrier, 0), engine.body(self.target, 0));
        (t.v - c.v - c.w.cross(&(t.X_WB.p - c.X_WB.p))).norm()
    }
}

impl BerthingRun {
    /// A berthing with its latches open at the start.
    pub fn new(b: &Berthing, hooks: Vec<usize>, pairs: Vec<usize>, at: usize) -> Self {
        let n = b.latches.len();
        let log = BerthingLog {
            outcome: BerthStage::Approach,
            reason: None,
            events: Vec::new(),
            drive_at: None,
            latched_at: vec![None; n],
            captured_at: None,
            berthed_at: None,
            peak_torque: vec![0.0; n],
            peak_hook: vec![0.0; n],
            peak_group: vec![0.0; b.groups.0.len()],
            rtli_peak: 0,
        };
        let loads = vec![0.0; b.groups.0.len()];
        Self {
            hooks,
            pairs,
            at,
            driving: vec![false; n],
            stalled_since: vec![None; n],
            commands: vec![None; n],
            log,
            loads,
        }
    }

    /// Whether latch `i`'s motor runs: commanded, or driving in the sequence.
    fn runs(&self, i: usize) -> bool {
        self.commands[i].is_some() || self.driving[i]
    }

    /// The motor torque of latch `i` at rate `rate` (zero braked).
    fn torque(&self, b: &Berthing, i: usize, rate: f64) -> f64 {
        let u = self.commands[i].unwrap_or(1.0);
        if self.runs(i) { b.latches[i].motor.commanded(u, rate) } else { 0.0 }
    }

    /// Commands latch `i`'s motor with `u` (−1 to 1: the fraction of its rated voltage), which
    /// then runs unbraked between its open and closed stops; `None` hands it back to the
    /// sequence, which brakes it unless it is driving. In `d`, the latches' states.
    pub fn command(&mut self, i: usize, u: Option<f64>, d: &mut [f64]) -> Result<(), String> {
        if i >= self.commands.len() {
            return Err(format!("no latch {i}"));
        }
        if let Some(u) = u.filter(|u| !(-1.0..=1.0).contains(u)) {
            return Err(format!("a latch's command is a fraction of its motor's rated voltage, from -1 to 1; got {u}"));
        }
        self.commands[i] = u;
        if !self.runs(i) {
            d[2 * i + 1] = 0.0;
        }
        Ok(())
    }

    /// `d/dt [θ₂, θ̇₂]…` into `out` under the hooks' generalised forces `q`; the motors' power.
    pub fn derivatives(&self, b: &Berthing, d: &[f64], q: &[HookLoads], out: &mut [f64]) -> f64 {
        out.fill(0.0);
        let mut power = 0.0;
        for (i, l) in b.latches.iter().enumerate().filter(|(i, _)| self.runs(*i)) {
            let (theta, rate) = (2 * i, 2 * i + 1);
            let tau = self.torque(b, i, d[rate]);
            out[theta] = d[rate];
            out[rate] = (tau + q[i].0) / l.motor.inertia;
            power += tau * d[rate];
        }
        power
    }

    /// The latches' kinetic energy, J.
    pub fn kinetic_energy(b: &Berthing, d: &[f64]) -> f64 {
        b.latches.iter().enumerate().map(|(i, l)| 0.5 * l.motor.inertia * d[2 * i + 1] * d[2 * i + 1]).sum()
    }

    /// Whether hook `i` touches the target.
    fn touching(&self, engine: &Engine, i: usize) -> bool {
        engine.contacts().iter().any(|c| c.key.0 as usize == self.pairs[i])
    }

    /// After an accepted step at `t` (the engine evaluated there, the hooks' generalised forces
    /// `q`): the peaks, then the sequence; brakes a latch that stops (in `d`). Whether the run
    /// ends.
    pub fn observe(&mut self, b: &Berthing, engine: &Engine, q: &[HookLoads], t: f64, d: &mut [f64]) -> bool {
        let tripped = (0..b.rtlis.len()).filter(|&k| b.is_tripped(k, engine.contacts())).count();
        self.log.rtli_peak = self.log.rtli_peak.max(tripped);
        self.loads.fill(0.0);
        b.add_group_loads(engine.contacts(), &mut self.loads);
        for (p, g) in self.log.peak_group.iter_mut().zip(&self.loads) {
            *p = p.max(*g);
        }
        for i in 0..b.latches.len() {
            let tau = self.torque(b, i, d[2 * i + 1]);
            self.log.peak_torque[i] = self.log.peak_torque[i].max(tau.abs());
            self.log.peak_hook[i] = self.log.peak_hook[i].max(engine.body(self.hooks[i], 0).force.norm());
        }
        self.stops(b, d);
        match self.log.outcome {
            BerthStage::Approach if tripped >= b.rtli_required => {
                self.log.outcome = BerthStage::Capturing;
                self.log.drive_at = Some(t);
                self.log.events.push((
                    t,
                    format!("{tripped} of {} ready-to-latch indicators tripped: latches drive", b.rtlis.len()),
                ));
                self.driving.iter_mut().for_each(|x| *x = true);
            }
            BerthStage::Capturing => self.capturing(b, engine, q, t, d),
            BerthStage::Captured if b.relative_speed(engine) < 1e-3 => {
                self.log.outcome = BerthStage::Berthed;
                self.log.berthed_at = Some(t);
                self.log.events.push((t, "berthed: captured and at rest against the carrier".into()));
            }
            _ => {}
        }
        matches!(self.log.outcome, BerthStage::Berthed | BerthStage::Failed)
    }

    /// A commanded latch's stops: between its open and closed crank angles (a stop brakes the
    /// rate into it).
    fn stops(&self, b: &Berthing, d: &mut [f64]) {
        for (i, l) in b.latches.iter().enumerate().filter(|(i, _)| self.commands[*i].is_some()) {
            let (theta, rate) = (2 * i, 2 * i + 1);
            if d[theta] > l.range[1] {
                (d[theta], d[rate]) = (l.range[1], d[rate].min(0.0));
            } else if d[theta] < l.range[0] {
                (d[theta], d[rate]) = (l.range[0], d[rate].max(0.0));
            }
        }
    }

    /// The driving latches' stops and stalls.
    fn capturing(&mut self, b: &Berthing, engine: &Engine, q: &[HookLoads], t: f64, d: &mut [f64]) {
        for (i, l) in b.latches.iter().enumerate() {
            if !self.driving[i] {
                continue;
            }
            let (theta, rate) = (2 * i, 2 * i + 1);
            let u = self.commands[i].unwrap_or(1.0);
            let stalled = u > 0.0 && d[rate] < 0.01 * l.motor.no_load_speed && -q[i].0 >= 0.5 * l.motor.stall * u;
            // A stall that lasts: a hook's impact on its fitting stops it for a moment only.
            let since = if stalled { *self.stalled_since[i].get_or_insert(t) } else { f64::INFINITY };
            if !stalled {
                self.stalled_since[i] = None;
            }
            let at_stop = d[theta] >= l.range[1];
            if at_stop {
                d[theta] = l.range[1];
            }
            if !(t - since >= STALL_DWELL || at_stop) {
                continue;
            }
            self.driving[i] = false;
            if self.commands[i].is_none() {
                d[rate] = 0.0;
            }
            if self.touching(engine, i) {
                self.log.latched_at[i] = Some(t);
                self.log.events.push((t, format!("latch {} latched at crank {:.1}°", l.name, d[theta].to_degrees())));
            } else {
                let why = format!(
                    "latch {} reached its closed stop without meeting the target: its fitting was out of reach",
                    l.name
                );
                self.log.events.push((t, why.clone()));
                (self.log.outcome, self.log.reason) = (BerthStage::Failed, Some(why));
                return;
            }
        }
        if self.log.latched_at.iter().all(Option::is_some) {
            self.log.outcome = BerthStage::Captured;
            self.log.captured_at = Some(t);
            self.log.events.push((t, "captured: every latch latched".into()));
        }
    }

    /// The record at the run's end: a berthing still approaching missed.
    pub fn finish(mut self, b: &Berthing) -> BerthingLog {
        if self.log.outcome == BerthStage::Approach {
            self.log.reason = Some(format!(
                "not captured: at most {} of {} ready-to-latch indicators tripped ({} needed)",
                self.log.rtli_peak,
                b.rtlis.len(),
                b.rtli_required
            ));
        }
        self.log
    }

    /// The berthing's sample at `d` (the engine evaluated there, the hooks' `q`).
    pub fn sample(&self, b: &Berthing, engine: &Engine, d: &[f64]) -> BerthingSample {
        let latches = b
            .latches
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let rocker = l.at(d[2 * i]).map_or(f64::NAN, |p| p.rocker);
                let f = engine.body(self.hooks[i], 0).force;
                // The hook's force is the target's reaction: its pull on the target is −f.
                let axis_W = engine.body(b.carrier, 0).X_WB.R * b.axis;
                [d[2 * i], rocker, self.torque(b, i, d[2 * i + 1]), f.norm(), f.dot(&axis_W)]
            })
            .collect();
        let hooks = self
            .hooks
            .iter()
            .map(|&h| {
                let x = &engine.body(h, 0).X_WB;
                (x.p, super::super::snare::rotation(x.R))
            })
            .collect();
        BerthingSample {
            stage: self.log.outcome,
            latches,
            rtlis: b.tripped(engine.contacts()),
            groups: b.group_loads(engine.contacts()),
            offset: b.offset(engine),
            hooks,
        }
    }
}

/// Checks a berthing against the bodies and pairs: the carrier, a free target paired with it,
/// the indicators in the carrier's model, each latch.
pub(crate) fn check(
    input: &BerthingInput,
    bodies: &[super::super::MechBody],
    pairs: &[(usize, usize)],
) -> Result<Berthing, BuildError> {
    let key = |k: &str| format!("mechanism.berthing.{k}");
    let carrier = super::body_index(bodies, &key("carrier"), &input.carrier)?;
    let target = super::body_index(bodies, &key("target"), &input.target)?;
    if bodies[target].body.is_none() || carrier == target {
        return Err(BuildError::new(key("target"), "the target must be a free body other than the carrier"));
    }
    let face = pairs.iter().position(|&(a, b)| (a, b) == (carrier, target) || (b, a) == (carrier, target));
    let Some(face) = face else {
        let msg = format!("pair the carrier '{}' with its target '{}'", input.carrier, input.target);
        return Err(BuildError::new("mechanism.pairs", msg));
    };
    let model: &Arc<ContactModel> = &bodies[carrier].model;
    let rtlis: Vec<(u32, String)> = model
        .prims
        .iter()
        .enumerate()
        .filter(|(_, p)| p.name.to_lowercase().starts_with("rtli"))
        .map(|(i, p)| (i as u32, p.name.clone()))
        .collect();
    if input.rtli_required == 0 || input.rtli_required > rtlis.len() {
        let msg = format!(
            "{} indicators required but the carrier's model has {} (primitives named `rtli…`)",
            input.rtli_required,
            rtlis.len()
        );
        return Err(BuildError::new(key("rtli_required"), msg));
    }
    crate::scenario::check::positive(&key("rtli_trip"), input.rtli_trip, "m")?;
    let axis = input.axis.try_normalize(1e-12).ok_or_else(|| BuildError::new(key("axis"), "must be non-zero"))?;
    if input.latches.is_empty() {
        return Err(BuildError::new(key("latches"), "a berthing needs at least one latch"));
    }
    let latches = input.latches.iter().enumerate().map(|(k, l)| super::check(k, l)).collect::<Result<Vec<_>, _>>()?;
    Ok(Berthing {
        carrier,
        target,
        latches,
        rtlis,
        rtli_trip: input.rtli_trip,
        rtli_required: input.rtli_required,
        axis,
        face: (face, pairs[face].0 == carrier),
        groups: top_groups(model),
    })
}

/// The top-level groups of a model's root body and each primitive's group (primitives directly
/// under the root: a group of the root's own name).
fn top_groups(model: &ContactModel) -> (Vec<String>, Vec<usize>) {
    let root = &model.nodes[model.bodies[0].root as usize];
    let mut names = Vec::new();
    let mut of = vec![0; model.prims.len()];
    if !root.prims.is_empty() {
        names.push(root.name.clone());
        root.prims.iter().for_each(|&p| of[p as usize] = 0);
    }
    for &c in &root.children {
        names.push(model.nodes[c as usize].name.clone());
        let g = names.len() - 1;
        let mut stack = vec![c];
        while let Some(n) = stack.pop() {
            let node = &model.nodes[n as usize];
            node.prims.iter().for_each(|&p| of[p as usize] = g);
            stack.extend(&node.children);
        }
    }
    (names, of)
}
