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
        };
        Self { wires, pairs, at, log }
    }

    /// Closing torque and carriage force at `d`; zero for a braked drive.
    pub fn outputs(&self, sn: &Snare, d: &[f64]) -> (f64, f64) {
        match self.log.outcome {
            Stage::Closing => (sn.motor.output(d[1]), 0.0),
            Stage::Captured => (0.0, sn.carriage.output(d[3])),
            _ => (0.0, 0.0),
        }
    }

    /// `d/dt [Δ, Δ̇, s, ṡ]` into `out` under the wires' generalised forces `q`; the drives'
    /// power, W.
    pub fn derivatives(&self, sn: &Snare, d: &[f64], q: [f64; 2], out: &mut [f64]) -> f64 {
        let (torque, force) = self.outputs(sn, d);
        out.fill(0.0);
        match self.log.outcome {
            Stage::Closing => out[..2].copy_from_slice(&[d[1], (torque + q[0]) / sn.motor.inertia]),
            Stage::Captured => out[2..].copy_from_slice(&[d[3], (force + q[1]) / sn.carriage.inertia]),
            _ => {}
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
        match self.log.outcome {
            Stage::Open if sn.tip_depth(engine) >= sn.trigger => {
                self.log.outcome = Stage::Closing;
                self.log.triggered_at = Some(t);
            }
            Stage::Closing => {
                let stalled = d[1] < 0.01 * sn.motor.no_load_speed && -q[0] >= 0.5 * sn.motor.stall;
                if (stalled && self.touching(engine)) || d[0] >= PI {
                    (d[0], d[1]) = (d[0].min(PI), 0.0);
                    self.log.closed_angle = Some(d[0]);
                    match sn.holds(engine, &self.pairs) {
                        Ok(()) => (self.log.outcome, self.log.captured_at) = (Stage::Captured, Some(t)),
                        Err(why) => (self.log.outcome, self.log.reason) = (Stage::Missed, Some(why)),
                    }
                }
            }
            Stage::Captured => {
                if face >= 0.99 * sn.carriage.stall && sn.relative_speed(engine) < 1e-3 {
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
