//! A snare's sequence during a run: open, closing, captured (retracting), rigidised, or missed
//! and failed; its record and samples.

use super::Snare;
use std::f64::consts::PI;
use tumble_contact::interference::Engine;
use tumble_math::{UnitQuat, Vec3};

/// Where a snare's sequence stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Open, waiting for the trigger.
    Open,
    /// The ring closing.
    Closing,
    /// Holding the shaft; the carriage retracting.
    Captured,
    /// The face carries the preload.
    Rigidised,
    /// The closing stopped without holding the shaft.
    Missed,
    /// Lost while retracting.
    Failed,
}

impl Stage {
    /// Its name in outputs: `open`, `closing`, `captured`, `rigidised`, `missed`, `failed`.
    pub fn name(self) -> &'static str {
        ["open", "closing", "captured", "rigidised", "missed", "failed"][self as usize]
    }

    /// Whether the run ends here.
    pub fn is_final(self) -> bool {
        matches!(self, Stage::Rigidised | Stage::Missed | Stage::Failed)
    }
}

/// The snare's record of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct SnareLog {
    /// Where the sequence stands (at the end: its outcome).
    pub outcome: Stage,
    /// Why it missed or failed.
    pub reason: Option<String>,
    /// When the closing started, s.
    pub triggered_at: Option<f64>,
    /// When the closing stopped with the shaft held, s.
    pub captured_at: Option<f64>,
    /// When the face carried the preload, s.
    pub rigidised_at: Option<f64>,
    /// Closing angle where the closing stopped, rad.
    pub closed_angle: Option<f64>,
    /// Largest contact force on one wire, N.
    pub peak_wire: f64,
    /// Largest sum of the three wires' contact forces, N.
    pub peak_wires: f64,
    /// Largest normal force on the face, N.
    pub peak_face: f64,
    /// Largest closing-motor torque, N·m.
    pub peak_torque: f64,
    /// Largest axial tension of an identified wire, N (`None`: wires with a lateral law).
    pub peak_tension: Option<f64>,
}

/// The snare at one sample.
#[derive(Clone, Debug, PartialEq)]
pub struct SnareSample {
    /// Closing angle `Δ`, rad, and its rate, rad/s.
    pub angle: [f64; 2],
    /// Carriage retraction `s`, m, and its rate, m/s.
    pub retraction: [f64; 2],
    /// Closing motor torque (N·m) and carriage force (N); zero while braked.
    pub drives: [f64; 2],
    /// Contact force on each wire, N.
    pub wires: [f64; 3],
    /// Normal force on the face, N.
    pub face: f64,
    /// Each wire's pose (W).
    pub poses: [(Vec3, UnitQuat); 3],
}

/// The snare during a run: its engine objects and pairs, where its drives sit in the state,
/// and its record.
#[derive(Clone, Debug)]
pub(crate) struct SnareRun {
    /// Engine objects of the wires.
    pub wires: [usize; 3],
    /// Engine pairs wire–target.
    pub pairs: [usize; 3],
    /// Offset of `[Δ, Δ̇, s, ṡ]` in the state.
    pub at: usize,
    /// The record so far.
    pub log: SnareLog,
    /// A user's commands of the closing motor and the carriage (fractions of their rated
    /// voltage); `None`: the sequence's.
    pub commands: [Option<f64>; 2],
    /// While open: the trigger point's depth after the last step, once the target has touched
    /// the effector (m).
    touched: Option<f64>,
}

impl SnareRun {
    /// A snare open at the start.
    pub fn new(wires: [usize; 3], pairs: [usize; 3], at: usize) -> Self {
        let log = SnareLog {
            outcome: Stage::Open,
            reason: None,
            triggered_at: None,
            captured_at: None,
            rigidised_at: None,
            closed_angle: None,
            peak_wire: 0.0,
            peak_wires: 0.0,
            peak_face: 0.0,
            peak_torque: 0.0,
            peak_tension: None,
        };
        Self { wires, pairs, at, log, commands: [None; 2], touched: None }
    }

    /// Whether the closing motor and the carriage run (the others are braked).
    fn running(&self) -> [bool; 2] {
        let stage = self.log.outcome;
        [self.commands[0].is_some() || stage == Stage::Closing, self.commands[1].is_some() || stage == Stage::Captured]
    }

    /// Commands drive `k` (0: the closing motor, 1: the carriage) with `u` (−1 to 1), or hands
    /// it back to the sequence (`None`), which brakes it unless its stage runs it.
    pub fn command(&mut self, k: usize, u: Option<f64>, d: &mut [f64]) -> Result<(), String> {
        if let Some(u) = u.filter(|u| !(-1.0..=1.0).contains(u)) {
            return Err(format!("a drive's command is a fraction of its rated voltage, from -1 to 1; got {u}"));
        }
        self.commands[k] = u;
        if !self.running()[k] {
            d[2 * k + 1] = 0.0;
        }
        Ok(())
    }

    /// Closing torque and carriage force at `d`; zero for a braked drive.
    pub fn outputs(&self, sn: &Snare, d: &[f64]) -> (f64, f64) {
        let [ring, carriage] = self.running();
        let u = self.commands.map(|u| u.unwrap_or(1.0));
        (
            if ring { sn.motor.commanded(u[0], d[1]) } else { 0.0 },
            if carriage { sn.carriage.commanded(u[1], d[3]) } else { 0.0 },
        )
    }

    /// `d/dt [Δ, Δ̇, s, ṡ]` into `out` under the wires' generalised forces `q`; the drives'
    /// power, W.
    pub fn derivatives(&self, sn: &Snare, d: &[f64], q: [f64; 2], out: &mut [f64]) -> f64 {
        let (torque, force) = self.outputs(sn, d);
        out.fill(0.0);
        let [ring, carriage] = self.running();
        if ring {
            out[..2].copy_from_slice(&[d[1], (torque + q[0]) / sn.motor.inertia]);
        }
        if carriage {
            out[2..].copy_from_slice(&[d[3], (force + q[1]) / sn.carriage.inertia]);
        }
        torque * d[1] + force * d[3]
    }

    /// Whether any wire touches the target.
    fn touching(&self, engine: &Engine) -> bool {
        engine.contacts().iter().any(|c| self.pairs.contains(&(c.key.0 as usize)))
    }

    /// After an accepted step at `t` (the engine evaluated there, the wires' generalised forces
    /// `q` from that evaluation): the peaks, then the sequence's next move; brakes a drive that
    /// stops (in `d`). Whether the run ends.
    pub fn observe(&mut self, sn: &Snare, engine: &Engine, q: [f64; 2], t: f64, d: &mut [f64]) -> bool {
        let wires = self.wires.map(|w| engine.body(w, 0).force.norm());
        let face = sn.face_load(engine.contacts());
        let torque = self.outputs(sn, d).0;
        let log = &mut self.log;
        log.peak_wire = wires.iter().fold(log.peak_wire, |a, b| a.max(*b));
        log.peak_wires = log.peak_wires.max(wires.iter().sum());
        log.peak_face = log.peak_face.max(face);
        log.peak_torque = log.peak_torque.max(torque);
        if let Some((k, tension)) = sn.peak_tension(engine, &self.wires, &self.pairs, d[0]) {
            log.peak_tension = Some(log.peak_tension.unwrap_or(0.0).max(tension));
            let limit = sn.wire.params[0].wire.map_or(f64::INFINITY, |w| w.yield_load);
            if tension > limit && !log.outcome.is_final() {
                let why = format!(
                    "wire {k}'s tension {tension:.0} N passed its yield load {limit:.0} N: the steel yields, which the wire's law does not follow"
                );
                (log.outcome, log.reason) = (Stage::Failed, Some(why));
                return true;
            }
        }
        match self.log.outcome {
            Stage::Open => {
                let depth = sn.tip_depth(engine);
                if depth >= sn.trigger {
                    self.log.outcome = Stage::Closing;
                    self.log.triggered_at = Some(t);
                } else if self.touching(engine) || face > 0.0 {
                    self.touched = Some(depth);
                } else if let Some(before) = self.touched {
                    self.touched = Some(depth);
                    if depth < before {
                        // Free of the effector after touching it and moving back out: nothing
                        // acts on the target that would turn it round.
                        let why = format!(
                            "the target touched the effector and left before reaching the trigger: its trigger point {:.4} m short of it and receding at {:.3e} m/s",
                            sn.trigger - depth,
                            sn.relative_speed(engine)
                        );
                        (self.log.outcome, self.log.reason) = (Stage::Missed, Some(why));
                    }
                }
            }
            Stage::Closing => {
                let u = self.commands[0].unwrap_or(1.0);
                let stalled = u > 0.0 && d[1] < 0.01 * sn.motor.no_load_speed && -q[0] >= 0.5 * sn.motor.stall * u;
                if (stalled && self.touching(engine)) || d[0] >= PI {
                    d[0] = d[0].min(PI);
                    if self.commands[0].is_none() {
                        d[1] = 0.0;
                    }
                    self.log.closed_angle = Some(d[0]);
                    match sn.holds(engine, &self.pairs) {
                        Ok(()) => (self.log.outcome, self.log.captured_at) = (Stage::Captured, Some(t)),
                        Err(why) => (self.log.outcome, self.log.reason) = (Stage::Missed, Some(why)),
                    }
                }
            }
            Stage::Captured => {
                let u = self.commands[1].unwrap_or(1.0);
                if u > 0.0 && face >= 0.99 * sn.carriage.stall * u && sn.relative_speed(engine) < 1e-3 {
                    (self.log.outcome, self.log.rigidised_at) = (Stage::Rigidised, Some(t));
                } else if !self.touching(engine) {
                    (self.log.outcome, self.log.reason) =
                        (Stage::Failed, Some("the shaft slipped out of the wires".into()));
                } else if d[2] >= sn.stroke {
                    (d[2], d[3]) = (sn.stroke, 0.0);
                    let why = format!(
                        "the carriage reached its end stop ({} m) before the face carried the preload ({} N)",
                        sn.stroke, sn.carriage.stall
                    );
                    (self.log.outcome, self.log.reason) = (Stage::Failed, Some(why));
                }
            }
            _ => {}
        }
        stops(sn, self.commands, d);
        self.log.outcome.is_final()
    }

    /// The snare's sample at `d` (the engine evaluated there).
    pub fn sample(&self, sn: &Snare, engine: &Engine, d: &[f64]) -> SnareSample {
        let (torque, force) = self.outputs(sn, d);
        let pose = |w: usize| {
            let x = &engine.body(w, 0).X_WB;
            (x.p, super::rotation(x.R))
        };
        SnareSample {
            angle: [d[0], d[1]],
            retraction: [d[2], d[3]],
            drives: [torque, force],
            wires: self.wires.map(|w| engine.body(w, 0).force.norm()),
            face: sn.face_load(engine.contacts()),
            poses: self.wires.map(pose),
        }
    }
}

/// The commanded drives' stops: the ring within `0 ≤ Δ ≤ π`, the carriage within
/// `0 ≤ s ≤` its stroke; a stop brakes the rate into it. (The sequence itself closes the ring
/// forward only until `π` and ends the run at the carriage's stroke.)
fn stops(sn: &Snare, commands: [Option<f64>; 2], d: &mut [f64]) {
    for (k, top) in [(0, PI), (2, sn.stroke)].into_iter().filter(|(k, _)| commands[k / 2].is_some()) {
        if d[k] > top {
            (d[k], d[k + 1]) = (top, d[k + 1].min(0.0));
        } else if d[k] < 0.0 {
            (d[k], d[k + 1]) = (0.0, d[k + 1].max(0.0));
        }
    }
}
