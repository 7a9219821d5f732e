//! Hops on the device, fired by the host between dispatches as `tumble_sim::lander::LanderSim`
//! fires them (`sim/drive.rs`); the kernel delivers what follows.
//!
//! A run whose next hop waits for settling runs with its settling rule and ends `SETTLED`; one
//! whose next hop is at a time runs with settling off (on the CPU a run with a hop to come does
//! not end settled either) and ends `HOP` at the hop's step — the first whose time reaches the
//! hop's, once no torque profile is being delivered, as the CPU fires it. Between dispatches
//! the host fires it:
//!
//! - an impulse: scaled to what the actuator's momentum admits, taken from a wheel's rotor,
//!   `ω += I⁻¹ ΔL`, its work `ΔT` added to the budget's reference energy and `|ΔT|` to the
//!   actuator's work (the energy limit grows by `energy_growth` of it);
//! - a torque profile: the torque within the actuator's largest, its steps
//!   (`aim::pulse_steps`); the kernel sets each step's torque, stops where the rotor would
//!   saturate, and a wheel's despin follows it as on the CPU;
//! - an aimed hop: `tumble_sim::lander::aim::aim` on the host, from the run's state, its
//!   rotor's momentum and gravity expansion, as a torque profile at the actuator's largest
//!   torque; the aims of the runs due together are computed on every core (each from its own
//!   run: the same whatever the threads).
//!
//! It then resets the calm clock and the outcome, sets the step and settling rule of the hop
//! after, starts following the hop's landing (for `hop_miss`), and the kernel runs on.

use crate::lander::{GpuRun, NO_HOP};
use crate::lander::{
    HOP, M_DWELL, M_HOP_STEP, MODEL, MODEL_LEN, R_ACT_WORK, R_CALM, R_DELIVERED, R_DRIVE, R_E0, R_EX, R_EX_ON, R_K,
    R_LAND, R_LANDING, R_OUTCOME, R_ROTOR, R_WHEN, RECORD, SETTLED, Y,
};
use rayon::prelude::*;
use tumble_math::Vec3;
use tumble_sim::lander::aim::{Aimed, aim, pulse_steps};
use tumble_sim::lander::hop::{Actuator, ActuatorKind, HopCommand, HopTrigger};
use tumble_sim::lander::{LanderSettings, STATE_LEN};

/// The runs' hops as the host fires them.
pub(crate) struct Hops {
    /// Each run's next hop.
    next: Vec<usize>,
    /// When each run's hops fired, s.
    pub times: Vec<Vec<f64>>,
    /// Each run's hops' aims and landings (T, m), as far as known.
    pub aims: Vec<Vec<(Option<Vec3>, Option<Vec3>)>>,
    /// The runs' models as uploaded, then as rewritten (none kept when no run hops).
    model: Vec<f64>,
    /// Each run's own settling dwell, restored when no hop at a time waits.
    dwell: Vec<f64>,
}

/// The step at which a hop at `at` fires: the first whose time `k dt` reaches it (at least the
/// first step; `⌈at/dt⌉`, or one more where its product rounds below `at`).
fn hop_step(s: &LanderSettings, at: f64) -> f64 {
    let k = (at / s.dt).ceil().max(1.0);
    if k * s.dt < at { k + 1.0 } else { k }
}

/// One run's buffers as [`Hops::fire`] changes them: its state and record (full batches, run
/// `i` of `n`).
struct RunView<'a> {
    y: &'a mut [f64],
    record: &'a mut [f64],
    i: usize,
    n: usize,
}

/// Fields `f..f + 3` of run `i` of `n` in a structure-of-arrays buffer (the state or the
/// record).
fn field3(buf: &[f64], f: usize, (i, n): (usize, usize)) -> Vec3 {
    Vec3::new(buf[f * n + i], buf[(f + 1) * n + i], buf[(f + 2) * n + i])
}

impl RunView<'_> {
    fn rec(&self, f: usize) -> f64 {
        self.record[f * self.n + self.i]
    }
    fn set(&mut self, f: usize, v: f64) {
        self.record[f * self.n + self.i] = v;
    }
    fn rec3(&self, f: usize) -> Vec3 {
        field3(self.record, f, (self.i, self.n))
    }
    fn set3(&mut self, f: usize, v: &Vec3) {
        (0..3).for_each(|c| self.set(f + c, v[c]));
    }
}

impl Hops {
    /// The runs' hops, their models (`model`, as packed) set for each run's first hop.
    pub fn new(runs: &[GpuRun], model: &mut [f64]) -> Self {
        let n = runs.len();
        let dwell = (0..n).map(|i| model[i * MODEL_LEN + M_DWELL]).collect();
        let mut hops = Self { next: vec![0; n], times: vec![vec![]; n], aims: vec![vec![]; n], model: vec![], dwell };
        if runs.iter().any(|r| !r.settings.hops.is_empty()) {
            hops.model = model.to_vec();
            (0..n).for_each(|i| hops.arm(i, runs[i].settings));
            model.copy_from_slice(&hops.model);
        }
        hops
    }

    /// Sets run `i`'s hop step and dwell for its next hop.
    fn arm(&mut self, i: usize, s: &LanderSettings) {
        let m = &mut self.model[i * MODEL_LEN..(i + 1) * MODEL_LEN];
        (m[M_HOP_STEP], m[M_DWELL]) = match s.hops.get(self.next[i]).map(|h| h.trigger) {
            Some(HopTrigger::At(at)) => (hop_step(s, at), -1.0),
            _ => (NO_HOP, self.dwell[i]),
        };
    }

    /// Runs whose dispatch ended where their next hop fires: settled with a hop once settled
    /// next, or at the step of a hop at a time.
    pub fn due(&self, runs: &[GpuRun], check: &[f64]) -> Vec<usize> {
        let fires = |i: usize| match runs[i].settings.hops.get(self.next[i]).map(|h| h.trigger) {
            Some(HopTrigger::Settled) => check[i] == SETTLED,
            Some(HopTrigger::At(_)) => check[i] == HOP,
            None => false,
        };
        (0..runs.len()).filter(|&i| fires(i)).collect()
    }

    /// Fires the next hop of each run in `due` (see the module docs).
    pub fn deliver(&mut self, k: &crate::Kernels<'_>, runs: &[GpuRun], due: &[usize]) -> Result<(), String> {
        let n = runs.len();
        let (mut y, mut record) = (vec![0.0; STATE_LEN * n], vec![0.0; crate::lander::REC_LEN * n]);
        k.read_into(Y, &mut y)?;
        k.read_into(RECORD, &mut record)?;
        // The aims first, on every core (each from its own run's state: the same whatever the
        // threads), then every hop in order.
        let aims: Vec<Option<Aimed>> = due
            .par_iter()
            .map(|&i| match runs[i].settings.hops[self.next[i]].command {
                HopCommand::Aim(target) => Some(aim_from(runs[i], &target, &y, &record, (i, n))),
                _ => None,
            })
            .collect();
        for (&i, aimed) in due.iter().zip(aims) {
            let mut run = RunView { y: &mut y, record: &mut record, i, n };
            self.fire(runs[i], &mut run, aimed);
        }
        k.write(Y, &y);
        k.write(RECORD, &record);
        k.write(MODEL, &self.model);
        Ok(())
    }

    /// Fires run `run.i`'s next hop (`aimed`: an aimed hop's aim, from [`aim_from`]).
    fn fire(&mut self, r: GpuRun, run: &mut RunView, aimed: Option<Aimed>) {
        let (sys, s, i) = (r.system, r.settings, run.i);
        let hop = s.hops[self.next[i]];
        self.next[i] += 1;
        self.arm(i, s);
        self.close_landing(i, run.rec(R_LAND), run.rec3(R_LANDING));
        self.times[i].push(run.rec(R_K) * s.dt);
        for (f, v) in [(R_OUTCOME, 0.0), (R_WHEN, 0.0), (R_CALM, -1.0), (R_LAND, 1.0)] {
            run.set(f, v);
        }
        run.set3(R_DELIVERED, &Vec3::zeros());
        let wheel = s.actuator.is_some_and(|a| a.kind == ActuatorKind::Wheel);
        let mut aimed_at = None;
        match hop.command {
            HopCommand::Impulse(j) => {
                let mut rotor = run.rec3(R_ROTOR);
                // A torquer's limit applies to what it delivered in this hop: nothing yet.
                let held = if wheel { rotor } else { Vec3::zeros() };
                let j = j * s.actuator.map_or(1.0, |a| a.fraction(&held, &-j));
                if wheel {
                    rotor -= j;
                    run.set3(R_ROTOR, &rotor);
                }
                let w = field3(run.y, 10, (i, run.n));
                let (w_new, work) = sys.spun(w, j);
                (0..3).for_each(|c| run.y[(10 + c) * run.n + i] = w_new[c]);
                run.set(R_E0, run.rec(R_E0) + work);
                run.set(R_ACT_WORK, run.rec(R_ACT_WORK) + work.abs());
            }
            HopCommand::Torque { torque, duration } => start_drive(run, s, torque, duration),
            HopCommand::Aim(target) => {
                let aimed = aimed.unwrap_or_else(|| aim_from(r, &target, run.y, run.record, (i, run.n)));
                let a = actuator(s);
                start_drive(run, s, aimed.axis * a.max_torque, aimed.impulse / a.max_torque);
                aimed_at = Some(target);
            }
        }
        self.aims[i].push((aimed_at, None));
    }

    /// Records run `i`'s last hop's landing where the kernel found one (`land` 3, at `at`).
    fn close_landing(&mut self, i: usize, land: f64, at: Vec3) {
        if let Some(last) = self.aims[i].last_mut()
            && land == 3.0
        {
            last.1 = Some(at);
        }
    }

    /// The distance of run `i`'s last aimed hop's landing from its aim (tumble-sim's
    /// `hop_miss`), its last hop's landing state `land` and place `at` as the run ended.
    pub fn miss(&mut self, i: usize, land: f64, at: Vec3) -> f64 {
        self.close_landing(i, land, at);
        self.aims[i].iter().rev().find_map(|&(aim, landing)| Some((landing? - aim?).norm())).unwrap_or(f64::NAN)
    }
}

/// The actuator an aimed hop is shaped by: the run's, or (as on the CPU, where a program set
/// none) an unlimited torquer of 1 N·m.
fn actuator(s: &LanderSettings) -> Actuator {
    s.actuator.unwrap_or(Actuator { kind: ActuatorKind::Torquer, max_torque: 1.0, max_momentum: f64::INFINITY })
}

/// The aim at `target` of run `i` of `n` (tumble-sim's `aim::aim`) from its state `y` and
/// record on the device: its rotor's momentum and its gravity expansion.
fn aim_from(r: GpuRun, target: &Vec3, y: &[f64], record: &[f64], (i, n): (usize, usize)) -> Aimed {
    let mut now = r.system.clone();
    now.actuation.momentum = field3(record, R_ROTOR, (i, n));
    now.expansion = None;
    if record[R_EX_ON * n + i] == 1.0 {
        now.refresh_gravity(&field3(record, R_EX, (i, n)));
    }
    let state: [f64; STATE_LEN] = std::array::from_fn(|c| y[c * n + i]);
    aim(&now, &state, target, &actuator(r.settings), r.settings.dt)
}

/// Starts a torque profile of `torque` (within the actuator's largest, body axes, N·m) for
/// `duration` s (tumble-sim's `drive`): the kernel sets its first step's torque.
fn start_drive(run: &mut RunView, s: &LanderSettings, torque: Vec3, duration: f64) {
    let torque = s.actuator.map_or(torque, |a| a.limit_torque(torque));
    let (steps, last) = pulse_steps(duration, s.dt);
    run.set3(R_DRIVE, &torque);
    run.set(R_DRIVE + 3, steps as f64);
    run.set(R_DRIVE + 4, last);
    run.set(R_DRIVE + 5, 1.0);
}
