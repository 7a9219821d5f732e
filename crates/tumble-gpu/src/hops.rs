//! Hops on the device, delivered by the host between dispatches: an impulse hop (`ω += I⁻¹ ΔL`,
//! as `tumble_sim::lander::LanderSim::hop`) once settled, or at a time.
//!
//! The kernel does not know hops. A run whose next hop waits for settling runs with its
//! settling rule and ends `SETTLED`; one whose next hop is at a time runs with settling off
//! (on the CPU a run with a hop to come does not end settled either) and with its step count
//! cut to the hop's step — the first whose time reaches the hop's, as the CPU fires it — so it
//! ends `COMPLETED` there. Between dispatches the host gives such a run its impulse, adds the
//! hop's work `ΔT` to the budget's reference energy, grows the energy limit by
//! `energy_growth · |ΔT|` (the CPU's rule), resets the calm clock and the outcome, restores or
//! re-cuts the step count and the settling rule for the hop after, and the kernel runs it on.

use crate::lander::{
    COMPLETED, GpuRun, M_DWELL, M_STEPS, M_TOLERANCE, MODEL, MODEL_LEN, R_CALM, R_E0, R_K, R_OUTCOME, R_WHEN, REC_LEN,
    RECORD, SETTLED, Y,
};
use tumble_math::Vec3;
use tumble_sim::lander::hop::{HopCommand, HopTrigger};
use tumble_sim::lander::{LanderSettings, STATE_LEN};

/// The runs' hops as the host delivers them.
pub(crate) struct Hops {
    /// Each run's next hop.
    next: Vec<usize>,
    /// When each run's hops fired, s.
    pub times: Vec<Vec<f64>>,
    /// Each run's `Σ |ΔT|` of its hops (the energy limit grows by `energy_growth` of it), J.
    pub work: Vec<f64>,
    /// The runs' models as uploaded, then as rewritten (none kept when no run hops).
    model: Vec<f64>,
    /// Each run's own step count and dwell, restored when no hop at a time waits.
    steps: Vec<(f64, f64)>,
}

/// The step at which a hop at `at` fires: the first whose time `k dt` reaches it (at least the
/// first step; `⌈at/dt⌉`, or one more where its product rounds below `at`).
fn hop_step(s: &LanderSettings, at: f64) -> f64 {
    let k = (at / s.dt).ceil().max(1.0);
    if k * s.dt < at { k + 1.0 } else { k }
}

impl Hops {
    /// The runs' hops, their models (`model`, as packed) set for each run's first hop.
    pub fn new(runs: &[GpuRun], model: &mut [f64]) -> Self {
        let n = runs.len();
        let steps = (0..n).map(|i| (model[i * MODEL_LEN + M_STEPS], model[i * MODEL_LEN + M_DWELL])).collect();
        let mut hops = Self { next: vec![0; n], times: vec![vec![]; n], work: vec![0.0; n], model: vec![], steps };
        if runs.iter().any(|r| !r.settings.hops.is_empty()) {
            hops.model = model.to_vec();
            (0..n).for_each(|i| hops.arm(i, runs[i].settings));
            model.copy_from_slice(&hops.model);
        }
        hops
    }

    /// Sets run `i`'s step count and dwell for its next hop.
    fn arm(&mut self, i: usize, s: &LanderSettings) {
        let (steps, dwell) = self.steps[i];
        let m = &mut self.model[i * MODEL_LEN..(i + 1) * MODEL_LEN];
        (m[M_STEPS], m[M_DWELL]) = match s.hops.get(self.next[i]).map(|h| h.trigger) {
            Some(HopTrigger::At(at)) => (hop_step(s, at).min(steps), -1.0),
            _ => (steps, dwell),
        };
    }

    /// Runs whose dispatch ended where their next hop fires: settled with a hop once settled
    /// next, or completed at the step of a hop at a time within the run.
    pub fn due(&self, runs: &[GpuRun], check: &[f64]) -> Vec<usize> {
        let fires = |i: usize| {
            let s = runs[i].settings;
            match s.hops.get(self.next[i]).map(|h| h.trigger) {
                Some(HopTrigger::Settled) => check[i] == SETTLED,
                Some(HopTrigger::At(at)) => check[i] == COMPLETED && hop_step(s, at) <= self.steps[i].0,
                None => false,
            }
        };
        (0..runs.len()).filter(|&i| fires(i)).collect()
    }

    /// Fires the next hop of each run in `due` (see the module docs).
    pub fn deliver(&mut self, k: &crate::Kernels<'_>, runs: &[GpuRun], due: &[usize]) -> Result<(), String> {
        let n = runs.len();
        let (mut y, mut record) = (vec![0.0; STATE_LEN * n], vec![0.0; REC_LEN * n]);
        k.read_into(Y, &mut y)?;
        k.read_into(RECORD, &mut record)?;
        for &i in due {
            let (sys, s) = (runs[i].system, runs[i].settings);
            let HopCommand::Impulse(impulse) = s.hops[self.next[i]].command else {
                return Err(format!("run {i}: only impulse hops run on the device"));
            };
            self.next[i] += 1;
            self.arm(i, s);
            let (w_new, work) = sys.spun(Vec3::new(y[10 * n + i], y[11 * n + i], y[12 * n + i]), impulse);
            (0..3).for_each(|c| y[(10 + c) * n + i] = w_new[c]);
            self.work[i] += work.abs();
            self.model[i * MODEL_LEN + M_TOLERANCE] = s.energy_tolerance + s.energy_growth * self.work[i];
            self.times[i].push(record[R_K * n + i] * s.dt);
            record[R_E0 * n + i] += work;
            record[R_OUTCOME * n + i] = 0.0;
            record[R_WHEN * n + i] = 0.0;
            record[R_CALM * n + i] = -1.0;
        }
        k.write(Y, &y);
        k.write(RECORD, &record);
        k.write(MODEL, &self.model);
        Ok(())
    }
}
