//! The lander's step loop: fixed-step RK4 with events after every step — contact start and end
//! (bounces), hops, settling (`|v| < v_f` and `|ω| < ω_f` held for a dwell time), escape,
//! deepest penetration — and the energy budget, with a diagnosis instead of garbage when the
//! state stops being finite or the energy grows.

use super::hop::{Actuator, Drive, Hop, HopRecord, HopTrigger};
use super::impact::{Impact, ImpactLog, dissipated};
use super::local::LocalSurface;
pub use super::samples::COLUMNS;
use super::samples::record;
use super::system::{LanderSystem, Observing, STATE_LEN, Snapshot, WORK};
use crate::pipeline::{
    BuildError, Diagnosis, Driver, EnergyCheck, Events, GuardFailure, Schedule, Simulation, StepReport, Stop,
};
use std::ops::DerefMut;
use tumble_dynamics::{Integrator, Method};
use tumble_math::Vec3;

mod budget;
mod drive;
mod flight;

/// Sub-steps of a step in which a vertex touches down.
const TOUCHDOWN_SUBSTEPS: usize = 16;

/// Settling thresholds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settle {
    /// `v_f`, m/s.
    pub speed: f64,
    /// `ω_f`, rad/s.
    pub rate: f64,
    /// Time both must hold, s.
    pub dwell: f64,
}

/// Run settings.
#[derive(Clone, Debug)]
pub struct LanderSettings {
    /// Step, s.
    pub dt: f64,
    /// Longest simulated time, s.
    pub duration: f64,
    /// Steps between recorded samples.
    pub output_every: u64,
    /// Settling detection (`None`: run the whole duration).
    pub settle: Option<Settle>,
    /// Distance from the target's centre of mass beyond which the spacecraft has escaped, m.
    pub escape_distance: Option<f64>,
    /// Hops in order.
    pub hops: Vec<Hop>,
    /// The actuator that delivers hops (`None`: unlimited, instantaneous impulses only).
    pub actuator: Option<Actuator>,
    /// Growth of the budget's total energy allowed from the start, J (`max_energy_growth` of
    /// the release's energy scale); the guard allows more as the run gains kinetic and elastic
    /// energy and as its steps accumulate rounding (see `sim/budget.rs`).
    pub energy_tolerance: f64,
    /// Further growth allowed per joule of work the hops' actuator has done (a fraction: the
    /// scenario's `simulation.max_energy_growth`, as `energy_tolerance` is of the initial
    /// energy scale).
    pub energy_growth: f64,
    /// In free flight, steps of up to this many `dt` (1: always `dt`). A step spans as many
    /// `dt` as keep every vertex from reaching the surface within twice its length at the
    /// current speed and rate, so contact is always integrated at `dt`; the choice depends on
    /// the state alone, so runs stay reproducible.
    pub flight_steps: u64,
    /// Radius of the local surface models around each vertex, m (0: query the surface
    /// exactly; see [`super::local`]).
    pub surface_expansion: f64,
    /// During an impact, a sample every this many steps besides the output schedule (0: none);
    /// touchdown and lift-off steps are always sampled then (see [`super::impact`]).
    pub impact_every: u64,
}

impl LanderSettings {
    /// Refuses settings a step loop cannot run on, naming the scenario key.
    pub fn check(&self) -> Result<(), BuildError> {
        for (key, x) in [("simulation.dt", self.dt), ("simulation.duration", self.duration)] {
            if !(x.is_finite() && x > 0.0) {
                return Err(BuildError::new(key, format!("must be positive, got {x}")));
            }
        }
        if self.output_every == 0 {
            return Err(BuildError::new("simulation.output_interval", "must be at least one step"));
        }
        if self.flight_steps == 0 {
            return Err(BuildError::new("simulation.flight_steps", "must be at least 1"));
        }
        if self.energy_tolerance.is_nan() {
            return Err(BuildError::new("simulation.max_energy_growth", "must be a number"));
        }
        Ok(())
    }

    /// Every step of `dt` (s) for `duration` (s), a sample each step, and no events: no
    /// settling, escape, hops or energy stop, the surface queried exactly.
    pub fn plain(dt: f64, duration: f64) -> Self {
        Self {
            dt,
            duration,
            output_every: 1,
            settle: None,
            escape_distance: None,
            hops: vec![],
            actuator: None,
            energy_tolerance: f64::INFINITY,
            energy_growth: 0.0,
            flight_steps: 1,
            surface_expansion: 0.0,
            impact_every: 0,
        }
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum LanderOutcome {
    /// Settled at this time (after the last hop), s.
    Settled(f64),
    /// Escaped at this time, s.
    Escaped(f64),
    /// Reached the duration.
    Completed,
    /// Stopped with a diagnosis.
    Failed(Diagnosis),
}

impl LanderOutcome {
    /// `settled`, `escaped`, `completed` or `failed`, as summaries and campaigns name it.
    pub fn name(&self) -> &'static str {
        match self {
            LanderOutcome::Settled(_) => "settled",
            LanderOutcome::Escaped(_) => "escaped",
            LanderOutcome::Completed => "completed",
            LanderOutcome::Failed(_) => "failed",
        }
    }
}

/// A contact start or end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactEvent {
    /// Time, s.
    pub time: f64,
    /// True at a start (touchdown), false at an end (lift-off).
    pub start: bool,
    /// Centre of mass, T frame, m.
    pub position: Vec3,
    /// Speed relative to T, m/s.
    pub speed: f64,
    /// Angular rate relative to T, rad/s.
    pub rate: f64,
    /// The target's attitude `Q_NT` then, `[w, x, y, z]`.
    pub q_nt: [f64; 4],
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct LanderRun {
    /// Samples, `COLUMNS` wide.
    pub rows: Vec<[f64; COLUMNS.len()]>,
    /// Contact starts and ends.
    pub contacts: Vec<ContactEvent>,
    /// Each touchdown's loads, in order.
    pub impacts: Vec<Impact>,
    /// Hops fired, as delivered.
    pub hops: Vec<HopRecord>,
    /// Ending.
    pub outcome: LanderOutcome,
    /// Final time, s (a failed run: that of its last recorded sample).
    pub final_time: f64,
    /// Final state (a failed run: its last recorded one, which passed the guard).
    pub final_state: [f64; STATE_LEN],
    /// Deepest penetration over the run, m.
    pub max_penetration: f64,
    /// Largest |energy balance error| over the run, J.
    pub max_balance_error: f64,
    /// Work done by the frame's non-uniform rotation and by hops, J.
    pub external_work: f64,
    /// Time spent in free flight, s.
    pub flight_time: f64,
    /// The energy balance error the free-flight steps added, J.
    pub flight_error: f64,
}

impl LanderRun {
    /// Touchdowns.
    pub fn bounces(&self) -> usize {
        self.contacts.iter().filter(|c| c.start).count()
    }
}

/// What a run that was not measured (a GPU campaign's) says of its cause: the step `dt` (s)
/// or the model, and how to measure it.
fn unmeasured(dt: f64) -> String {
    format!(
        "not measured on this path: the time step (simulation.dt = {dt} s) or the model or input; run it alone on the CPU (`tumble mc <scenario> --run <index>`), whose guard replays the failing steps and names the cause"
    )
}

/// The diagnosis of a run whose state stopped being finite at `t` (s) with step `dt` (s), where
/// nothing measured the cause (a GPU run; the CPU's guard measures it).
pub fn not_finite(t: f64, dt: f64) -> Diagnosis {
    Diagnosis::new(t, "the state stopped being finite", unmeasured(dt))
}

/// The diagnosis of a run stopped at `t` (s) because its energy grew by `err` (J) beyond
/// `tolerance` (J), with step `dt` (s), where nothing measured the cause (a GPU run).
pub fn energy_grew(err: f64, tolerance: f64, t: f64, dt: f64) -> Diagnosis {
    Diagnosis::new(
        t,
        if err.is_finite() {
            format!("energy grew by {err:.3e} J (tolerance {tolerance:.3e} J)")
        } else {
            "the energy budget stopped being finite".to_string()
        },
        unmeasured(dt),
    )
}

/// Runs from `y0` at t = 0 on the pipeline's [`Driver`], calling `progress(t)` after each
/// output sample.
pub fn simulate(
    sys: &mut LanderSystem,
    y0: [f64; STATE_LEN],
    s: &LanderSettings,
    progress: &mut dyn FnMut(f64),
) -> LanderRun {
    let sim = match LanderSim::new(sys, y0, s) {
        Ok(sim) => sim,
        Err(e) => return refused(y0, &e),
    };
    let schedule = sim.schedule();
    let (sim, end) = Driver::run_whole(sim, schedule, progress);
    sim.finish(end)
}

/// The run of settings or a start that [`LanderSim::new`] refuses: failed at t = 0, no sample.
fn refused(y0: [f64; STATE_LEN], e: &BuildError) -> LanderRun {
    LanderRun {
        rows: vec![],
        contacts: vec![],
        impacts: vec![],
        hops: vec![],
        outcome: LanderOutcome::Failed(Diagnosis::new(0.0, format!("the run cannot start: {e}"), "fix the input")),
        final_time: 0.0,
        final_state: y0,
        max_penetration: 0.0,
        max_balance_error: 0.0,
        external_work: 0.0,
        flight_time: 0.0,
        flight_error: 0.0,
    }
}

/// A lander run as the pipeline steps it: the system (through the observation cache that lets
/// a step's first RK4 stage reuse the last observation), the integrator, the state, the energy
/// budget, the event state and the recording.
///
/// Built by [`LanderSim::new`], stepped by a [`Driver`]; between steps a user's loop may read
/// [`LanderSim::snapshot`] (contact forces, energies) and apply [`LanderSim::hop`].
pub struct LanderSim<S = Box<LanderSystem>> {
    obs: Observing<S>,
    settings: LanderSettings,
    integ: Integrator,
    y: [f64; STATE_LEN],
    k: u64,
    steps: u64,
    /// The last recorded state and its time (what a failed run ends on).
    recorded: ([f64; STATE_LEN], f64),
    /// Length of the last step, s.
    h_last: f64,
    snap: Snapshot,
    e0: f64,
    hop_work: f64,
    remainder: f64,
    err: f64,
    in_contact: bool,
    impact_log: ImpactLog,
    /// Energy dissipated by the last observation, J.
    lost: f64,
    calm_since: Option<f64>,
    /// Scratch of the support test (the touching vertices).
    touching: Vec<Vec3>,
    next_hop: usize,
    /// The torque profile being delivered, if any.
    drive: Option<Drive>,
    /// Angular impulse delivered by the current hop, body axes (a torquer's per-hop limit).
    delivered: Vec3,
    /// A bound of the work hops and the actuator have done, J (`Σ |τ| |ω| h` and `|ΔE|` of
    /// impulses): what the energy check's limit grows with.
    actuator_work: f64,
    reach: f64,
    /// The smallest principal moment of inertia, kg·m².
    inertia_min: f64,
    /// The budget's limit, flight error and checkpoints.
    budget: budget::Budget,
    run: LanderRun,
}

impl<S: DerefMut<Target = LanderSystem>> LanderSim<S> {
    /// The run of `sys` (the system itself, a `Box` of it, or a `&mut` borrow) from `y0` at
    /// t = 0 with settings `s`.
    ///
    /// Settings a step loop cannot run on (a step or duration not positive, no steps between
    /// samples or in a flight step, a NaN tolerance) and a non-finite start are refused with the
    /// scenario key they come from.
    pub fn new(sys: S, y0: [f64; STATE_LEN], s: &LanderSettings) -> Result<Self, BuildError> {
        s.check()?;
        if y0.iter().any(|x| !x.is_finite()) {
            return Err(BuildError::new("lander", "the initial state must be finite"));
        }
        let local = LocalSurface::new(s.surface_expansion, &sys.vertices, s.dt);
        let mut obs = Observing::new(sys, local);
        obs.sys.refresh_gravity(&Vec3::new(y0[0], y0[1], y0[2]));
        obs.local.refresh(&obs.sys, &y0, None);
        let snap = obs.observe(&y0);
        let reach = obs.sys.vertices.iter().map(|v| v.norm()).fold(0.0, f64::max);
        Ok(Self {
            integ: Integrator::new(Method::Rk4 { dt: s.dt }, STATE_LEN),
            settings: s.clone(),
            y: y0,
            k: 0,
            steps: (s.duration / s.dt).round().max(1.0) as u64,
            recorded: (y0, 0.0),
            h_last: s.dt,
            e0: snap.energy(),
            in_contact: snap.normal.active > 0,
            impact_log: ImpactLog::new(snap.normal.active, obs.sys.mass, obs.sys.contact.stiffness),
            lost: dissipated(&y0),
            snap,
            hop_work: 0.0,
            remainder: 0.0,
            err: 0.0,
            calm_since: None,
            touching: Vec::with_capacity(obs.sys.vertices.len()),
            next_hop: 0,
            drive: None,
            delivered: Vec3::zeros(),
            actuator_work: 0.0,
            reach,
            inertia_min: obs.sys.inertia.symmetric_eigenvalues().min(),
            budget: budget::Budget::new(&y0, &snap),
            run: LanderRun {
                rows: Vec::new(),
                contacts: Vec::new(),
                impacts: Vec::new(),
                hops: Vec::new(),
                outcome: LanderOutcome::Completed,
                final_time: 0.0,
                final_state: y0,
                max_penetration: 0.0,
                max_balance_error: 0.0,
                external_work: 0.0,
                flight_time: 0.0,
                flight_error: 0.0,
            },
            obs,
        })
    }

    /// Samples every `output_every` steps up to the whole number of steps nearest `duration`.
    pub fn schedule(&self) -> Schedule {
        let s = &self.settings;
        Schedule { duration: self.steps as f64 * s.dt, output_interval: s.output_every as f64 * s.dt }
    }

    /// Everything known about the current state: kinematics, contact forces, energies.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snap
    }

    /// The current state ([`super::pack`] layout).
    pub fn y(&self) -> &[f64; STATE_LEN] {
        &self.y
    }

    /// The run so far (samples, contact events, hops).
    pub fn run(&self) -> &LanderRun {
        &self.run
    }

    /// The run's record with how it ended.
    pub fn finish(mut self, end: Result<Stop, Diagnosis>) -> LanderRun {
        let t = self.time();
        let (y, t) = if end.is_ok() { (self.y, t) } else { self.recorded };
        if end.is_ok() {
            self.run.max_balance_error = self.run.max_balance_error.max(self.err.abs());
            self.run.max_penetration = self.run.max_penetration.max(self.snap.normal.max_penetration);
        }
        self.run.outcome = match end {
            Ok(Stop::Settled) => LanderOutcome::Settled(t),
            Ok(Stop::Escaped) => LanderOutcome::Escaped(t),
            Ok(_) => LanderOutcome::Completed,
            Err(d) => LanderOutcome::Failed(d),
        };
        (self.run.flight_time, self.run.flight_error) = self.budget.flight;
        self.run.final_time = t;
        self.run.final_state = y;
        self.run.external_work = y[WORK + 3] + self.hop_work;
        crate::lander::hop::find_landings(&mut self.run.hops, &self.run.contacts);
        if let (Some(last), LanderOutcome::Settled(_)) = (self.run.hops.last_mut(), &self.run.outcome) {
            last.rest = Some(Vec3::new(y[0], y[1], y[2]));
        }
        self.run
    }

    /// The energy budget's error: energy now less the energy at the start and the work done.
    fn balance(&self) -> f64 {
        let work: f64 = self.y[WORK..WORK + 4].iter().sum::<f64>() + (self.hop_work + self.remainder);
        self.snap.energy() - self.e0 - work
    }

    /// Refreshes the gravity expansion and local surface models where stale, and observes.
    fn look_again(&mut self) {
        // A rebuilt gravity expansion or surface model moves the potential and elastic energy by
        // its Taylor remainder: the budget carries the difference as work, so that the balance
        // measures integration alone.
        let y = &self.y;
        let x = Vec3::new(y[0], y[1], y[2]);
        let r_p = (self.snap.normal.active > 0).then_some(self.snap.normal.r_p);
        if self.obs.sys.gravity_stale(&x) || self.obs.local.stale(&self.obs.sys, y, r_p) {
            let before = self.obs.look(y).energy();
            self.obs.sys.refresh_gravity(&x);
            self.obs.local.refresh(&self.obs.sys, y, r_p);
            self.snap = self.obs.observe(y);
            self.remainder += self.snap.energy() - before;
        } else {
            self.snap = self.obs.observe(y);
        }
    }

    /// Contact starts and ends; the events they are.
    fn contact_events(&mut self, t: f64) -> Events {
        let touching = self.snap.normal.active > 0;
        if touching == self.in_contact {
            return Events::NONE;
        }
        let kin = &self.snap.kin;
        self.run.contacts.push(ContactEvent {
            time: t,
            start: touching,
            position: kin.x,
            speed: kin.v.norm(),
            rate: kin.w.norm(),
            q_nt: [self.y[13], self.y[14], self.y[15], self.y[16]],
        });
        self.in_contact = touching;
        if touching { Events::CONTACT_START } else { Events::CONTACT_END }
    }

    /// Follows the impact of a step ending at `t` (`before`: the kinematics it started from);
    /// whether the step is to be sampled for it: touchdowns and lift-offs, and every
    /// `impact_every` steps within [`super::impact::window`] of a vertex touching down.
    fn impact_samples(&mut self, t: f64, before: &tumble_contact::vertex_sdf::BodyKinematics, events: Events) -> bool {
        let s = &self.settings;
        let touched = self.impact_log.step(&mut self.run.impacts, t, &self.y, &self.snap, before, self.lost);
        self.lost = dissipated(&self.y);
        let window = self.impact_log.in_window(t, touched);
        s.impact_every > 0
            && (events.contains(Events::CONTACT_START)
                || events.contains(Events::CONTACT_END)
                || (window && self.k.is_multiple_of(s.impact_every)))
    }

    /// Whether the spacecraft has been calm for the dwell time (and so settles, or hops).
    fn calm_for_dwell(&mut self, t: f64) -> bool {
        let Some(st) = self.settings.settle else { return false };
        if self.snap.kin.v.norm() < st.speed
            && self.snap.kin.w.norm() < st.rate
            && self.obs.sys.actuation.momentum == Vec3::zeros()
            && self.obs.supported(&self.y, &mut self.touching)
        {
            t - *self.calm_since.get_or_insert(t) >= st.dwell
        } else {
            self.calm_since = None;
            false
        }
    }
}

impl<S: DerefMut<Target = LanderSystem>> Simulation for LanderSim<S> {
    fn time(&self) -> f64 {
        self.k as f64 * self.settings.dt
    }

    fn advance(&mut self, _until: f64) -> Result<(), Diagnosis> {
        let dt = self.settings.dt;
        let t = self.time();
        let n = self.span();
        self.h_last = n as f64 * dt;
        if n == 1 && self.snap.normal.time_to_contact < dt {
            // A vertex touches down within this step: the damper force switches on inside it,
            // which costs RK4 its order (an energy error ~ c v_N² dt). Sub-steps shrink that
            // error by their number.
            let h = dt / TOUCHDOWN_SUBSTEPS as f64;
            for i in 0..TOUCHDOWN_SUBSTEPS {
                self.integ.step_once(&mut self.obs, t + i as f64 * h, &mut self.y, h);
            }
        } else {
            self.integ.step_once(&mut self.obs, t, &mut self.y, n as f64 * dt);
        }
        self.k += n;
        Ok(())
    }

    fn state(&self) -> &[f64] {
        &self.y
    }

    fn max_speed(&self) -> f64 {
        crate::pipeline::body_speed(&self.y)
    }

    fn observe(&mut self) -> StepReport {
        let t = self.time();
        let before = self.snap.kin;
        // The maxima take the previous step's figures, which passed the guard: a step the guard
        // refuses leaves no trace in the outputs.
        self.run.max_balance_error = self.run.max_balance_error.max(self.err.abs());
        self.run.max_penetration = self.run.max_penetration.max(self.snap.normal.max_penetration);
        let (err_before, flight) = (self.err, self.snap.normal.active == 0 && self.drive.is_none());
        if self.drive.is_some() {
            self.drove(self.h_last);
        } else {
            self.despin(self.h_last);
        }
        self.look_again();
        let mut events = Events::NONE;
        if let Some(hop) = self.settings.hops.get(self.next_hop).copied().filter(|_| self.drive.is_none()) {
            let fire = match hop.trigger {
                HopTrigger::At(at) => t >= at,
                HopTrigger::Settled => {
                    self.calm_since.is_some_and(|c| self.settings.settle.is_some_and(|st| t - c >= st.dwell))
                }
            };
            if fire {
                self.next_hop += 1;
                self.command(hop.command);
                events.insert(Events::HOP);
            }
        }
        self.err = self.balance();
        self.account(self.h_last, err_before, flight && self.snap.normal.active == 0);
        events.insert(self.contact_events(t));
        let mut report = StepReport::with(events);
        report.record = self.impact_samples(t, &before, events);
        let centre = self.obs.sys.centre;
        let escaped = self.settings.escape_distance.is_some_and(|d| (self.snap.kin.x - centre).norm() > d);
        if escaped {
            report.stop = Some(Stop::Escaped);
        } else if self.calm_for_dwell(t) && self.next_hop >= self.settings.hops.len() && self.drive.is_none() {
            report.stop = Some(Stop::Settled);
        } else if self.k >= self.steps {
            report.stop = Some(Stop::Completed);
        }
        report
    }

    /// The budget's error (energy now less energy at the start less the work of contact, frame
    /// rotation, hops and model refreshes) may not exceed the limit `sim/budget.rs` sets.
    fn energy(&self) -> Option<EnergyCheck> {
        Some(EnergyCheck { growth: self.err, limit: self.limit() })
    }

    fn record(&mut self) {
        let t = self.time();
        record(&mut self.run, t, &self.y, &self.snap, self.err);
        self.recorded = (self.y, t);
    }

    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis {
        let t = self.time();
        // RK4 turns a spinning body accurately only while the rate times the step is well
        // below 1 rad (its quaternion error per step grows as (ωh)⁵); past ~2.8 rad it is unstable.
        let y = &self.recorded.0;
        let rate = Vec3::new(y[10], y[11], y[12]).norm();
        let spin = (rate * self.h_last > 1.0).then(|| {
            format!(
                "the spin of {rate:.4} rad/s turns the spacecraft by {:.3} rad in one step of {} s (free flight spans up to simulation.flight_steps = {} steps of dt); lower simulation.dt or simulation.flight_steps so that rate × step stays below 0.5 rad",
                rate * self.h_last,
                self.h_last,
                self.settings.flight_steps
            )
        });
        let blown = |what: String| match &spin {
            Some(cause) => Diagnosis::new(t, what, cause.clone()),
            None => self.blow_up(what),
        };
        match failure {
            GuardFailure::NonFinite { .. } => blown("the state stopped being finite".into()),
            GuardFailure::Absurd { .. } | GuardFailure::FasterThanLight { .. } => blown(failure.what()),
            GuardFailure::EnergyGrew { growth, limit } => self.energy_trip(*growth, *limit),
        }
    }
}
