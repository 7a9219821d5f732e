//! The one step loop: [`Simulation`] is what an application implements, [`Driver`] runs it.

use super::Diagnosis;
use super::guard::{EnergyCheck, GuardFailure, check_energy, check_speed, check_state};

/// Events a step can report (a small bit set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Events(u32);

impl Events {
    /// No event.
    pub const NONE: Events = Events(0);
    /// A contact started (touchdown, first wire or membrane contact).
    pub const CONTACT_START: Events = Events(1);
    /// A contact ended (lift-off).
    pub const CONTACT_END: Events = Events(1 << 1);
    /// A hop (an impulse the run applies to itself) fired.
    pub const HOP: Events = Events(1 << 2);

    /// The contact event of going from touching `was` to touching `now`: a start, an end or none.
    pub fn contact_change(was: bool, now: bool) -> Events {
        match (was, now) {
            (false, true) => Events::CONTACT_START,
            (true, false) => Events::CONTACT_END,
            _ => Events::NONE,
        }
    }

    /// Whether every event of `other` is in `self`.
    pub fn contains(self, other: Events) -> bool {
        self.0 & other.0 == other.0
    }

    /// Adds the events of `other`.
    pub fn insert(&mut self, other: Events) {
        self.0 |= other.0;
    }

    /// Whether no event is set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// Why a run ended without failing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Reached the end of its schedule.
    Completed,
    /// Came to rest (the application's settling rule).
    Settled,
    /// Left the target's neighbourhood.
    Escaped,
    /// Reached an attracting centre's surface.
    Impact,
    /// The capture the run simulates happened.
    Captured,
}

impl Stop {
    /// Its name as statuses and Python give it (`completed`, `settled`, …).
    pub fn name(self) -> &'static str {
        match self {
            Stop::Completed => "completed",
            Stop::Settled => "settled",
            Stop::Escaped => "escaped",
            Stop::Impact => "impact",
            Stop::Captured => "captured",
        }
    }
}

/// What one accepted step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Events of this step.
    pub events: Events,
    /// Set when the run ends after this step.
    pub stop: Option<Stop>,
    /// Whether this step ended on an output time and was recorded.
    pub sampled: bool,
    /// Set by the application to record this step although it is not on an output time (a
    /// contact transient the schedule would step over); it does not move the schedule.
    pub record: bool,
}

impl StepReport {
    /// A step with these events that does not end the run.
    pub fn with(events: Events) -> Self {
        Self { events, ..Self::default() }
    }
}

/// An application as the driver steps it: its model, its state and its scratch, advanced one
/// accepted step at a time. Implementations keep their own recording (typed samples); the driver
/// decides when a sample is taken.
pub trait Simulation {
    /// Simulated time, s.
    fn time(&self) -> f64;
    /// Integrates one accepted step, ending at `until` (s) at the latest. An error is a failure
    /// the integration itself detected (a step size collapsing).
    fn advance(&mut self, until: f64) -> Result<(), Diagnosis>;
    /// The state the guard checks (every component finite and below [`super::ABSURD`]).
    fn state(&self) -> &[f64];
    /// After the state passed the guard: events of the step just taken, and whether the run
    /// stops. May change the state (an impulse).
    fn observe(&mut self) -> StepReport;
    /// The fastest free body's speed, m/s, which the guard checks against
    /// [`super::MAX_SPEED`]; 0 (the default) where the application has no free body or its
    /// state holds no body velocity (joint rates, a planar shaft).
    fn max_speed(&self) -> f64 {
        0.0
    }
    /// The energy budget the guard checks after [`Simulation::observe`]; `None` where the
    /// application has no energy to check (its docs say why).
    fn energy(&self) -> Option<EnergyCheck>;
    /// Records a sample of the current state.
    fn record(&mut self);
    /// The diagnosis of a guard failure at the current time: which body, what, the likely cause.
    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis;
}

/// When samples are taken: at `output_interval`, 2·`output_interval`, … and at `duration`,
/// where the run ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// End time, s.
    pub duration: f64,
    /// Time between samples, s.
    pub output_interval: f64,
}

impl Schedule {
    /// Number of samples after the initial one (the last at `duration`).
    pub fn samples(&self) -> u64 {
        (self.duration / self.output_interval - 1e-9).ceil().max(1.0) as u64
    }

    /// Time of sample `j` (1-based), s.
    pub fn sample_time(&self, j: u64) -> f64 {
        if j >= self.samples() { self.duration } else { j as f64 * self.output_interval }
    }

    /// Slack within which a time counts as an output time, s.
    fn slack(&self) -> f64 {
        1e-9 * self.output_interval
    }
}

/// Runs any [`Simulation`]: the one step loop, the guard and the output schedule.
pub struct Driver<S> {
    sim: S,
    schedule: Schedule,
    /// Samples after the initial one, and the next one's index and time.
    samples: u64,
    next: u64,
    until: f64,
    recorded_at: f64,
    started: bool,
    ended: Option<Result<Stop, Diagnosis>>,
}

impl<S: Simulation> Driver<S> {
    /// A driver of `sim` sampled on `schedule`. An output interval that is not a positive
    /// number samples the end only (it would otherwise ask for endless samples).
    pub fn new(sim: S, mut schedule: Schedule) -> Self {
        if !(schedule.output_interval > 0.0 && schedule.output_interval.is_finite()) {
            schedule.output_interval = schedule.duration;
        }
        Self {
            samples: schedule.samples(),
            until: schedule.sample_time(1),
            sim,
            schedule,
            next: 1,
            recorded_at: f64::NEG_INFINITY,
            started: false,
            ended: None,
        }
    }

    /// The simulation.
    pub fn sim(&self) -> &S {
        &self.sim
    }

    /// The simulation, to change it between steps (a user's guidance).
    pub fn sim_mut(&mut self) -> &mut S {
        &mut self.sim
    }

    /// The simulation back, with what it recorded.
    pub fn into_inner(self) -> S {
        self.sim
    }

    /// How the run ended, once it has.
    pub fn ended(&self) -> Option<&Result<Stop, Diagnosis>> {
        self.ended.as_ref()
    }

    /// Takes one accepted step: advance, guard the state, observe, guard the energy, record on
    /// an output time, where the application asks ([`StepReport::record`]) and at the end. After the run has ended, returns how it ended again.
    pub fn step(&mut self) -> Result<StepReport, Diagnosis> {
        if let Some(end) = &self.ended {
            return end.clone().map(|stop| StepReport { stop: Some(stop), ..StepReport::default() });
        }
        if !self.started {
            self.started = true;
            let duration = self.schedule.duration;
            if !(duration.is_finite() && duration > 0.0) {
                let d =
                    Diagnosis::new(0.0, format!("the run's duration is {duration} s"), "a positive, finite duration");
                self.ended = Some(Err(d.clone()));
                return Err(d);
            }
            self.guarded(false)?;
            self.sim.record();
            self.recorded_at = self.sim.time();
        }
        let (until, before) = (self.until, self.sim.time());
        let advanced = self.sim.advance(until).and_then(|_| {
            // A step that does not move time on (a NaN or zero schedule, a zero step) would
            // loop for ever.
            let t = self.sim.time();
            if t > before {
                Ok(())
            } else {
                Err(Diagnosis::new(
                    t,
                    format!("the step did not advance time (from {before} s toward {until} s)"),
                    "a positive step and duration",
                ))
            }
        });
        if let Err(d) = advanced {
            self.ended = Some(Err(d.clone()));
            return Err(d);
        }
        let mut report = self.guarded(true)?;
        let t = self.sim.time();
        let slack = self.schedule.slack();
        if t >= until - slack {
            self.sim.record();
            self.recorded_at = t;
            report.sampled = true;
            while self.next <= self.samples && self.schedule.sample_time(self.next) <= t + slack {
                self.next += 1;
            }
            self.until = self.schedule.sample_time(self.next);
            if self.next > self.samples && report.stop.is_none() {
                report.stop = Some(Stop::Completed);
            }
        }
        if report.record && self.recorded_at < t {
            self.sim.record();
            self.recorded_at = t;
        }
        if let Some(stop) = report.stop {
            if self.recorded_at < t {
                self.sim.record();
                self.recorded_at = t;
            }
            self.ended = Some(Ok(stop));
        }
        Ok(report)
    }

    /// Runs to the end, calling `progress(t)` after each output sample.
    pub fn run(&mut self, progress: &mut dyn FnMut(f64)) -> Result<Stop, Diagnosis> {
        loop {
            let report = self.step()?;
            if report.sampled {
                progress(self.sim.time());
            }
            if let Some(stop) = report.stop {
                return Ok(stop);
            }
        }
    }

    /// Drives `sim` on `schedule` to its end, calling `progress(t)` after each output sample:
    /// the simulation back, and how it ended (every application's whole run in one line).
    pub fn run_whole(sim: S, schedule: Schedule, progress: &mut dyn FnMut(f64)) -> (S, Result<Stop, Diagnosis>) {
        let mut driver = Driver::new(sim, schedule);
        let end = driver.run(progress);
        (driver.into_inner(), end)
    }

    /// The guard: the state, then (after a step) the observation, then the energy. A failure
    /// ends the run with its diagnosis.
    fn guarded(&mut self, observe: bool) -> Result<StepReport, Diagnosis> {
        match self.guard(observe) {
            Ok(report) => Ok(report),
            Err(f) => Err(self.fail(&f)),
        }
    }

    #[inline]
    fn guard(&mut self, observe: bool) -> Result<StepReport, GuardFailure> {
        check_state(self.sim.state())?;
        check_speed(self.sim.max_speed())?;
        let report = if observe { self.sim.observe() } else { StepReport::default() };
        check_energy(self.sim.energy())?;
        Ok(report)
    }

    #[cold]
    fn fail(&mut self, failure: &GuardFailure) -> Diagnosis {
        let d = self.sim.diagnose(failure);
        self.ended = Some(Err(d.clone()));
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ẋ = λx` stepped exactly (`x ← x e^{λh}`) at `h`; its energy is `x²` with limit `limit`.
    struct Growth {
        t: f64,
        x: [f64; 1],
        h: f64,
        lambda: f64,
        limit: f64,
        samples: Vec<(f64, f64)>,
        /// Steps ending in this time window ask to be recorded.
        window: (f64, f64),
    }

    impl Simulation for Growth {
        fn time(&self) -> f64 {
            self.t
        }
        fn advance(&mut self, until: f64) -> Result<(), Diagnosis> {
            let h = self.h.min(until - self.t);
            self.x[0] *= (self.lambda * h).exp();
            self.t += h;
            Ok(())
        }
        fn state(&self) -> &[f64] {
            &self.x
        }
        fn observe(&mut self) -> StepReport {
            StepReport { record: (self.window.0..=self.window.1).contains(&self.t), ..StepReport::default() }
        }
        fn energy(&self) -> Option<EnergyCheck> {
            Some(EnergyCheck { growth: self.x[0] * self.x[0] - 1.0, limit: self.limit })
        }
        fn record(&mut self) {
            self.samples.push((self.t, self.x[0]));
        }
        fn diagnose(&self, f: &GuardFailure) -> Diagnosis {
            Diagnosis::new(self.t, f.what(), "growth")
        }
    }

    fn growth(lambda: f64, limit: f64) -> Growth {
        Growth { t: 0.0, x: [1.0], h: 0.3, lambda, limit, samples: vec![], window: (f64::NAN, f64::NAN) }
    }

    #[test]
    fn samples_land_on_output_times_and_the_end() {
        let mut d = Driver::new(growth(-1.0, 1.0), Schedule { duration: 2.5, output_interval: 1.0 });
        assert_eq!(d.run(&mut |_| {}), Ok(Stop::Completed));
        let t: Vec<f64> = d.sim().samples.iter().map(|s| s.0).collect();
        // Steps of 0.3 s shortened to land on 1, 2 and 2.5 s.
        assert_eq!(t.len(), 4);
        for (got, want) in t.iter().zip([0.0, 1.0, 2.0, 2.5]) {
            assert!((got - want).abs() < 1e-12, "{t:?}");
        }
        // Stepping an ended run reports its end again and records nothing more.
        assert_eq!(d.step().map(|r| r.stop), Ok(Some(Stop::Completed)));
        assert_eq!(d.sim().samples.len(), 4);
    }

    #[test]
    fn steps_the_application_asks_for_are_recorded_too_without_moving_the_schedule() {
        let sim = Growth { window: (0.5, 1.2), ..growth(-1.0, 1.0) };
        let mut d = Driver::new(sim, Schedule { duration: 2.5, output_interval: 1.0 });
        assert_eq!(d.run(&mut |_| {}), Ok(Stop::Completed));
        let t: Vec<f64> = d.sim().samples.iter().map(|s| s.0).collect();
        // Steps end at 0.3, 0.6, 0.9, 1.0 (the output time), 1.3, …: 0.6 and 0.9 are asked
        // for, 1.0 is recorded once, and the output times stay where they were.
        let want = [0.0, 0.6, 0.9, 1.0, 2.0, 2.5];
        assert_eq!(t.len(), want.len(), "{t:?}");
        for (got, want) in t.iter().zip(want) {
            assert!((got - want).abs() < 1e-12, "{t:?}");
        }
    }

    #[test]
    fn a_schedule_or_step_that_cannot_advance_ends_with_a_diagnosis_instead_of_looping() {
        let mut d = Driver::new(growth(-1.0, 1.0), Schedule { duration: f64::NAN, output_interval: 0.0 });
        let e = d.run(&mut |_| {}).expect_err("refused");
        assert!(e.what.contains("duration is NaN"), "{e}");
        // A zero output interval samples the end only; a zero step is refused.
        let mut d = Driver::new(growth(-1.0, 1.0), Schedule { duration: 1.0, output_interval: 0.0 });
        assert_eq!(d.run(&mut |_| {}), Ok(Stop::Completed));
        assert_eq!(d.sim().samples.len(), 2);
        let mut d =
            Driver::new(Growth { h: 0.0, ..growth(-1.0, 1.0) }, Schedule { duration: 1.0, output_interval: 0.5 });
        let e = d.run(&mut |_| {}).expect_err("refused");
        assert!(e.what.contains("did not advance"), "{e}");
    }

    #[test]
    fn nothing_past_the_guard_is_recorded() {
        // x = e^{t}: x² − 1 passes 3 (the limit) after t = ln 2 = 0.69 s; the steps end at 0.3,
        // 0.5 (an output time) and 0.8 s, where the guard trips.
        let mut d = Driver::new(growth(1.0, 3.0), Schedule { duration: 5.0, output_interval: 0.5 });
        let e = d.run(&mut |_| {}).expect_err("the energy guard trips");
        assert!((e.time - 0.8).abs() < 1e-12 && e.what.contains("energy grew"), "{e}");
        assert!(d.sim().samples.iter().all(|s| s.1 * s.1 - 1.0 <= 3.0));
        assert_eq!(d.sim().samples.len(), 2); // t = 0 and 0.5 s
        // A state beyond ABSURD trips the state guard before any energy check.
        let mut d = Driver::new(growth(100.0, f64::INFINITY), Schedule { duration: 5.0, output_interval: 0.5 });
        let e = d.run(&mut |_| {}).expect_err("the state guard trips");
        assert!(e.what.contains("absurd"), "{e}");
        assert!(d.sim().samples.iter().all(|s| s.1.abs() <= super::super::ABSURD));
    }
}
