//! The co-simulation unit without the C boundary: a mechanism scenario's contact engine, its
//! variables by value reference, and the step.
//!
//! Semantics: the importer owns the dynamics. Between communication points it sets each free
//! body's pose and twist (the inputs, in the common frame W); the outputs (every body's contact
//! wrench, each pair's contact count and normal force) are the engine's evaluation at the
//! current inputs and friction state, made when an output is read after an input changed
//! (direct feedthrough). `do_step(t, h)` evaluates at the inputs (the state at `t`), counts the
//! pairs that came into or out of contact since the previous step (the events), and commits the
//! bristle friction state over `h`, as the mechanism's own run does once per accepted step.

use std::sync::Arc;
use tumble_contact::interference::Engine;
use tumble_math::{Pose, UnitQuat, Vec3, quat_from_wxyz, quat_to_wxyz};
use tumble_sim::Scenario;
use tumble_sim::mechanism::Mechanism;

/// A free body's inputs, in order: position of its origin (m), orientation `[w, x, y, z]`,
/// velocity of its origin (m/s), angular velocity (rad/s), all in W.
pub const BODY_INPUTS: [(&str, &str); 13] = [
    ("x", "m"),
    ("y", "m"),
    ("z", "m"),
    ("qw", "1"),
    ("qx", "1"),
    ("qy", "1"),
    ("qz", "1"),
    ("vx", "m/s"),
    ("vy", "m/s"),
    ("vz", "m/s"),
    ("wx", "rad/s"),
    ("wy", "rad/s"),
    ("wz", "rad/s"),
];

/// Every body's outputs: the contact force (N) and its moment about the body's origin (N·m), W.
pub const BODY_OUTPUTS: [(&str, &str); 6] =
    [("fx", "N"), ("fy", "N"), ("fz", "N"), ("tx", "N.m"), ("ty", "N.m"), ("tz", "N.m")];

/// Where a variable's value lives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Slot {
    /// The independent variable.
    Time,
    /// Input `k` of [`BODY_INPUTS`] of body `b`.
    Input(usize, usize),
    /// Output `k` of [`BODY_OUTPUTS`] of body `b`.
    Output(usize, usize),
    /// Contacts of pair `p` (Int32).
    PairContacts(usize),
    /// Sum of the normal forces of pair `p`, N.
    PairNormalForce(usize),
    /// Contacts of every pair (Int32).
    Contacts,
    /// Pairs that came into contact at a step so far (Int32).
    ContactStarts,
    /// Pairs that left contact at a step so far (Int32).
    ContactEnds,
}

/// The FMI type of a variable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Type {
    /// `Float64`.
    Float64,
    /// `Int32`.
    Int32,
}

/// One variable of the unit; its value reference is its index in [`Unit::variables`].
#[derive(Clone, Debug)]
pub struct Var {
    /// Its name (`chaser.x`, `chaser|drogue.contacts`).
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// `independent`, `input` or `output`.
    pub causality: &'static str,
    /// Its unit (`""`: none).
    pub unit: &'static str,
    /// Its start value (inputs).
    pub start: Option<f64>,
    /// What it is.
    pub description: String,
    /// Where it lives.
    pub slot: Slot,
}

/// A mechanism's contact engine as a co-simulation unit.
pub struct Unit {
    mechanism: Arc<Mechanism>,
    vars: Vec<Var>,
    engine: Engine,
    /// Per body: its inputs (free bodies; fixed ones keep their start) and outputs.
    inputs: Vec<[f64; 13]>,
    outputs: Vec<[f64; 6]>,
    /// Per pair: contacts and normal force of the last evaluation; in contact at the last step.
    pairs: Vec<(i32, f64)>,
    touching: Vec<bool>,
    contacts: i32,
    events: (i32, i32),
    time: f64,
    dirty: bool,
}

/// A body's start as inputs: pose and twist in W.
fn start_inputs(m: &Mechanism, b: usize) -> [f64; 13] {
    let s = &m.bodies[b].start;
    let (q, w) = (quat_to_wxyz(&s.q_WB), s.q_WB * s.w_WB_B);
    let mut y = [0.0; 13];
    y[..3].copy_from_slice(s.p_WB.as_slice());
    y[3..7].copy_from_slice(&q);
    y[7..10].copy_from_slice(s.v_WB.as_slice());
    y[10..].copy_from_slice(w.as_slice());
    y
}

impl Unit {
    /// The unit of a mechanism scenario. Refused: another kind, an arm, a snare (their bodies
    /// move by the engine's own dynamics, which the importer replaces).
    pub fn new(sc: &Scenario) -> Result<Self, String> {
        if sc.kind() != "mechanism" {
            return Err(format!("kind = \"{}\": the FMU takes a mechanism scenario (kind = \"mechanism\")", sc.kind()));
        }
        let m = Mechanism::build(sc).map_err(|e| e.to_string())?;
        if m.arm.is_some() || m.snare.is_some() {
            return Err(format!(
                "{}: [arm] or [mechanism.snare]: the FMU's bodies are moved by the importer, so it takes free and fixed bodies only",
                sc.path.display()
            ));
        }
        Self::of(Arc::new(m))
    }

    /// The unit of a built mechanism (free and fixed bodies).
    pub fn of(mechanism: Arc<Mechanism>) -> Result<Self, String> {
        let engine = mechanism.engine()?;
        let m = &mechanism;
        let nb = m.bodies.len();
        let vars = variables(m);
        let inputs = (0..nb).map(|b| start_inputs(m, b)).collect();
        let np = m.pairs.len();
        Ok(Self {
            vars,
            engine,
            inputs,
            outputs: vec![[0.0; 6]; nb],
            pairs: vec![(0, 0.0); np],
            touching: vec![false; np],
            contacts: 0,
            events: (0, 0),
            time: 0.0,
            dirty: true,
            mechanism,
        })
    }

    /// Back to the state after [`Unit::new`].
    pub fn reset(&mut self) -> Result<(), String> {
        *self = Self::of(self.mechanism.clone())?;
        Ok(())
    }

    /// The mechanism's name.
    pub fn name(&self) -> &str {
        &self.mechanism.name
    }

    /// The mechanism's step and duration (the default experiment).
    pub fn timing(&self) -> (f64, f64) {
        (self.mechanism.dt, self.mechanism.duration)
    }

    /// The variables; a variable's value reference is its index.
    pub fn variables(&self) -> &[Var] {
        &self.vars
    }

    /// The current communication point, s.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Starts the run at `t0`.
    pub fn start_at(&mut self, t0: f64) -> Result<(), String> {
        if !t0.is_finite() {
            return Err(format!("start time {t0}: must be finite"));
        }
        self.time = t0;
        Ok(())
    }

    fn var(&self, vr: u32, ty: Type) -> Result<&Var, String> {
        match self.vars.get(vr as usize) {
            Some(v) if v.ty == ty => Ok(v),
            Some(v) => Err(format!("value reference {vr} ({}) is {:?}, not {ty:?}", v.name, v.ty)),
            None => Err(format!("value reference {vr}: the unit has {} variables", self.vars.len())),
        }
    }

    /// Sets input `vr` (a free body's pose or twist component); refuses outputs and
    /// non-finite values.
    pub fn set_f64(&mut self, vr: u32, value: f64) -> Result<(), String> {
        let v = self.var(vr, Type::Float64)?;
        let Slot::Input(b, k) = v.slot else { return Err(format!("{} is not an input", v.name)) };
        if !value.is_finite() {
            return Err(format!("{} = {value}: an input must be finite", v.name));
        }
        self.inputs[b][k] = value;
        self.dirty = true;
        Ok(())
    }

    /// A Float64 variable's value (outputs evaluated at the current inputs).
    pub fn get_f64(&mut self, vr: u32) -> Result<f64, String> {
        let slot = self.var(vr, Type::Float64)?.slot;
        if matches!(slot, Slot::Output(..) | Slot::PairNormalForce(_)) {
            self.refresh()?;
        }
        Ok(match slot {
            Slot::Time => self.time,
            Slot::Input(b, k) => self.inputs[b][k],
            Slot::Output(b, k) => self.outputs[b][k],
            Slot::PairNormalForce(p) => self.pairs[p].1,
            _ => unreachable!("Float64 slots only"),
        })
    }

    /// An Int32 variable's value.
    pub fn get_i32(&mut self, vr: u32) -> Result<i32, String> {
        let slot = self.var(vr, Type::Int32)?.slot;
        if matches!(slot, Slot::PairContacts(_) | Slot::Contacts) {
            self.refresh()?;
        }
        Ok(match slot {
            Slot::PairContacts(p) => self.pairs[p].0,
            Slot::Contacts => self.contacts,
            Slot::ContactStarts => self.events.0,
            Slot::ContactEnds => self.events.1,
            _ => unreachable!("Int32 slots only"),
        })
    }

    /// One communication step from `t` over `h`: evaluates at the inputs, counts the pairs that
    /// came into or left contact, commits the friction state over `h`.
    pub fn do_step(&mut self, t: f64, h: f64) -> Result<(), String> {
        if !(h.is_finite() && h > 0.0) {
            return Err(format!("communication step {h}: must be positive and finite"));
        }
        // Importers accumulate t = t0 + Σh or compute n·h: the two differ by rounding, a few
        // ulp of t per step, far below 1e-9 of t or of the step.
        let tolerance = 1e-9 * t.abs().max(h);
        if !t.is_finite() || (t - self.time).abs() > tolerance {
            return Err(format!("doStep at t = {t} s: the unit is at t = {} s", self.time));
        }
        self.refresh()?;
        for (p, touching) in self.touching.iter_mut().enumerate() {
            let now = self.pairs[p].0 > 0;
            match (*touching, now) {
                (false, true) => self.events.0 += 1,
                (true, false) => self.events.1 += 1,
                _ => {}
            }
            *touching = now;
        }
        self.engine.commit(h);
        self.time = t + h;
        self.dirty = true;
        Ok(())
    }

    /// The engine's evaluation at the current inputs, once per change.
    fn refresh(&mut self) -> Result<(), String> {
        if !self.dirty {
            return Ok(());
        }
        for (b, body) in self.mechanism.bodies.iter().enumerate() {
            if body.body.is_none() {
                continue;
            }
            let y = &self.inputs[b];
            let q: UnitQuat = quat_from_wxyz([y[3], y[4], y[5], y[6]])
                .map_err(|e| format!("{}.q: {e} (keep the quaternion normalised)", body.name))?;
            let pose = Pose::new(Vec3::new(y[0], y[1], y[2]), q);
            self.engine
                .set_body(b, 0, &pose, Vec3::new(y[7], y[8], y[9]), Vec3::new(y[10], y[11], y[12]))
                .map_err(|e| e.to_string())?;
        }
        self.engine.evaluate();
        for (b, out) in self.outputs.iter_mut().enumerate() {
            let s = self.engine.body(b, 0);
            out[..3].copy_from_slice(s.force.as_slice());
            out[3..].copy_from_slice(s.torque.as_slice());
        }
        self.pairs.iter_mut().for_each(|p| *p = (0, 0.0));
        for c in self.engine.contacts() {
            if let Some(p) = self.pairs.get_mut(c.key.0 as usize) {
                p.0 += 1;
                p.1 += c.normal_force;
            }
        }
        self.contacts = self.engine.contacts().len() as i32;
        let finite = self.outputs.iter().flatten().chain(self.pairs.iter().map(|p| &p.1)).all(|x| x.is_finite());
        if !finite {
            return Err(format!("t = {} s: the contact engine returned a non-finite wrench", self.time));
        }
        self.dirty = false;
        Ok(())
    }
}

/// The variables of mechanism `m`, in value-reference order: time; per free body its 13
/// inputs; per body its 6 outputs; per pair its contacts and normal force; the totals.
fn variables(m: &Mechanism) -> Vec<Var> {
    let var = |name: String, ty, causality, unit, start, description: String, slot| Var {
        name,
        ty,
        causality,
        unit,
        start,
        description,
        slot,
    };
    let mut v = vec![var("time".into(), Type::Float64, "independent", "s", None, "simulation time".into(), Slot::Time)];
    for (b, body) in m.bodies.iter().enumerate().filter(|(_, body)| body.body.is_some()) {
        let start = start_inputs(m, b);
        for (k, (n, unit)) in BODY_INPUTS.iter().enumerate() {
            let what = format!("{}: {}", body.name, input_meaning(k));
            v.push(var(
                format!("{}.{n}", body.name),
                Type::Float64,
                "input",
                unit,
                Some(start[k]),
                what,
                Slot::Input(b, k),
            ));
        }
    }
    for (b, body) in m.bodies.iter().enumerate() {
        for (k, (n, unit)) in BODY_OUTPUTS.iter().enumerate() {
            let what = if k < 3 { "contact force, W" } else { "contact moment about its origin, W" };
            let what = format!("{}: {what}", body.name);
            v.push(var(format!("{}.{n}", body.name), Type::Float64, "output", unit, None, what, Slot::Output(b, k)));
        }
    }
    for (p, &(a, b)) in m.pairs.iter().enumerate() {
        let pair = format!("{}|{}", m.bodies[a].name, m.bodies[b].name);
        let what = format!("contacts between {} and {}", m.bodies[a].name, m.bodies[b].name);
        v.push(var(format!("{pair}.contacts"), Type::Int32, "output", "", None, what, Slot::PairContacts(p)));
        let what = format!("sum of the normal forces between {} and {}", m.bodies[a].name, m.bodies[b].name);
        v.push(var(format!("{pair}.normal_force"), Type::Float64, "output", "N", None, what, Slot::PairNormalForce(p)));
    }
    v.push(var("contacts".into(), Type::Int32, "output", "", None, "contacts of every pair".into(), Slot::Contacts));
    let what = "pairs that came into contact at a step so far".into();
    v.push(var("contact_starts".into(), Type::Int32, "output", "", None, what, Slot::ContactStarts));
    let what = "pairs that left contact at a step so far".into();
    v.push(var("contact_ends".into(), Type::Int32, "output", "", None, what, Slot::ContactEnds));
    v
}

fn input_meaning(k: usize) -> &'static str {
    match k {
        0..3 => "position of its origin, W",
        3..7 => "orientation, unit quaternion [w, x, y, z] rotating body axes into W",
        7..10 => "velocity of its origin, W",
        _ => "angular velocity, W",
    }
}
