//! The three-wire snare closing around a grapple shaft and rigidising it, in the ring plane.

use crate::pipeline::{Diagnosis, Driver, EnergyCheck, GuardFailure, Schedule, Simulation, StepReport, Stop};
use tumble_contact::laws::ContactLaw;
use tumble_contact::snare::ThreeWireSnare;
use tumble_dynamics::{Integrator, Method, OdeSystem};

/// A three-wire snare closing around a grapple shaft, then rigidising it: the shaft (carrying
/// the payload's mass, free in the ring plane) is snared while the ring turns at a constant
/// closing rate until the wires stall on it (their total force reaches the motor's stall force)
/// or close completely; if the shaft is then enclosed and touched by all three wires it is
/// captured, and the carriage retracts, pulling the fixture axially through the wires (a stiff
/// spring–damper to the carriage) onto the end effector's face until the face carries the
/// preload.
#[derive(Clone, Debug)]
pub struct SnareCapture {
    /// The snare.
    pub snare: ThreeWireSnare,
    /// Payload mass carried by the shaft, kg.
    pub mass: f64,
    /// Shaft centre at the start, ring plane, m.
    pub offset: [f64; 2],
    /// Shaft velocity at the start, ring plane, m/s.
    pub velocity: [f64; 2],
    /// Closing angle at the start (open snare), rad.
    pub open_angle: f64,
    /// Closing rate, rad/s.
    pub closing_rate: f64,
    /// Total wire force at which the closing motor stalls, N.
    pub stall_force: f64,
    /// Fixture's axial distance from the face at capture, m.
    pub stroke: f64,
    /// Carriage retraction speed, m/s.
    pub retract_speed: f64,
    /// Axial preload to reach against the face, N.
    pub preload: f64,
    /// Step, s.
    pub dt: f64,
    /// Longest time allowed, s.
    pub duration: f64,
}

/// The shaft in the ring plane while the snare closes (state `[c; v; W]`, `W` the wires' work on
/// the shaft, J).
struct Closing<'a>(&'a SnareCapture);

impl Closing<'_> {
    /// The closing angle at time `t`.
    fn angle(&self, t: f64) -> f64 {
        self.0.open_angle + self.0.closing_rate * t
    }
}

impl OdeSystem for Closing<'_> {
    fn dim(&self) -> usize {
        5
    }
    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) {
        let s = self.0;
        let (f, _) = s.snare.force([y[0], y[1]], [y[2], y[3]], self.angle(t), s.closing_rate);
        dydt.copy_from_slice(&[y[2], y[3], f[0] / s.mass, f[1] / s.mass, f[0] * y[2] + f[1] * y[3]]);
    }
}

/// The captured fixture pulled axially (state `[z; ż; W]`, z from the face, m; `W` the work of
/// the pull and the face on it, J) by the wires toward
/// the retracting carriage (`k_a`, critically damped for the payload) onto the face (a stiff,
/// critically damped stop).
struct Pull {
    mass: f64,
    stroke: f64,
    speed: f64,
    /// Where the carriage stops: the preload stretched into the wires, m.
    target: f64,
}

/// Axial stiffness of the captured fixture's hold through the wires, N/m.
pub(crate) const K_PULL: f64 = 1e5;
/// Stiffness of the end effector's face, N/m.
const K_FACE: f64 = 1e7;

impl Pull {
    fn new(s: &SnareCapture) -> Self {
        Self { mass: s.mass, stroke: s.stroke, speed: s.retract_speed, target: -s.preload / K_PULL }
    }

    /// Carriage position and speed `τ` after the capture.
    fn carriage(&self, tau: f64) -> (f64, f64) {
        let z = self.stroke - self.speed * tau;
        if z > self.target { (z, -self.speed) } else { (self.target, 0.0) }
    }

    /// The face's push on the fixture, N.
    fn face(&self, z: f64, zd: f64) -> f64 {
        if z < 0.0 { (-K_FACE * z - 2.0 * (K_FACE * self.mass).sqrt() * zd).max(0.0) } else { 0.0 }
    }
}

impl OdeSystem for Pull {
    fn dim(&self) -> usize {
        3
    }
    fn rhs(&mut self, tau: f64, y: &[f64], dydt: &mut [f64]) {
        let (zc, zc_rate) = self.carriage(tau);
        let c_pull = 2.0 * (K_PULL * self.mass).sqrt();
        let f = -K_PULL * (y[0] - zc) - c_pull * (y[1] - zc_rate) + self.face(y[0], y[1]);
        dydt.copy_from_slice(&[y[1], f / self.mass, f * y[1]]);
    }
}

/// What the snare did.
#[derive(Clone, Debug)]
pub struct SnareOutcome {
    /// Captured: enclosed and touched by all three wires when the closing stopped.
    pub captured: bool,
    /// Rigidised: held against the face with the preload.
    pub rigidised: bool,
    /// When the closing stopped, s.
    pub closed_at: f64,
    /// When the preload was reached, s.
    pub rigidised_at: Option<f64>,
    /// Largest total wire force, N.
    pub peak_force: f64,
    /// Shaft centre when the closing stopped, m.
    pub final_offset: [f64; 2],
    /// Why the capture failed.
    pub failure: Option<String>,
}

impl SnareCapture {
    /// An LEE-sized snare (ring 0.1 m, shaft 12.5 mm, wires 2e4 N/m with 200 N·s/m) closing in
    /// about 2 s around a shaft offset by `offset`.
    pub fn lee_like(mass: f64, offset: [f64; 2]) -> Result<Self, String> {
        Ok(Self {
            snare: ThreeWireSnare::new(0.1, 0.0125, ContactLaw::spring_dashpot(2e4, 200.0))?,
            mass,
            offset,
            velocity: [0.0; 2],
            open_angle: 30f64.to_radians(),
            closing_rate: 1.2,
            stall_force: 300.0,
            stroke: 0.05,
            retract_speed: 0.02,
            preload: 500.0,
            dt: 1e-4,
            duration: 20.0,
        })
    }

    /// Runs the closing and, if captured, the rigidisation, on the pipeline's
    /// [`crate::pipeline::Driver`]: an error for impossible parameters or a blow-up.
    pub fn run(&self) -> Result<SnareOutcome, String> {
        for (k, x) in [
            ("mass", self.mass),
            ("closing rate", self.closing_rate),
            ("stall force", self.stall_force),
            ("dt", self.dt),
        ] {
            if !(x.is_finite() && x > 0.0) {
                return Err(format!("{k} must be positive, got {x}"));
            }
        }
        let sim = SnareCaptureSim::new(self);
        if sim.phase == Phase::Done {
            return Ok(sim.out);
        }
        // The run ends itself (the closing stops by `duration`, the pull within the rest of
        // it); the schedule only bounds it, with room for the pull's last partial step.
        let bound = 2.0 * self.duration + self.dt;
        let schedule = Schedule { duration: bound, output_interval: bound };
        let (mut sim, end) = Driver::run_whole(sim, schedule, &mut |_| {});
        end.map_err(|d| d.to_string())?;
        if sim.phase == Phase::Pulling && !sim.out.rigidised {
            sim.out.failure = Some(format!("the preload was not reached within {} s", self.duration));
        }
        Ok(sim.out)
    }
}

/// Where a snare capture stands.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// The ring turns; the shaft moves in the ring plane (state `[c; v]`).
    Closing,
    /// Captured: the carriage retracts and pulls the fixture onto the face (state `[z; ż]`).
    Pulling,
    /// The outcome is known.
    Done,
}

/// A snare capture as the pipeline steps it: the closing, then (if captured) the pull, each
/// with RK4 at `dt`. Its energy check: each phase's state carries the work `W` of every force on
/// the shaft (the wires, closing motor and dampers included; then the pull and the face), so
/// `½ m |v|² − W − E₀` (`E₀` the phase's start) is zero in the exact flow; it may not grow past
/// 1 % of the largest of `½ m |v|²`, `|W|` so far and the stall force's work over one shaft
/// radius (the energy scale of the wires' grip: the heavy shaft itself barely moves, measured
/// 4e-11 J at first touch, which alone would make a step's truncation at the wires' first touch
/// look like growth).
struct SnareCaptureSim<'a> {
    cap: &'a SnareCapture,
    phase: Phase,
    integ: Integrator,
    /// Closing state `[c; v; W]`, then pull state `[z; ż; W]` in its first three components.
    y: [f64; 5],
    /// The phase's `E₀` and the largest energy scale so far, J.
    energy0: (f64, f64),
    k: u64,
    /// Pull steps taken and allowed.
    pulled: (u64, u64),
    out: SnareOutcome,
}

impl<'a> SnareCaptureSim<'a> {
    fn new(cap: &'a SnareCapture) -> Self {
        let mut sim = Self {
            cap,
            phase: Phase::Closing,
            integ: Integrator::new(Method::Rk4 { dt: cap.dt }, 5),
            y: [cap.offset[0], cap.offset[1], cap.velocity[0], cap.velocity[1], 0.0],
            energy0: (0.0, 0.0),
            k: 0,
            pulled: (0, 0),
            out: SnareOutcome {
                captured: false,
                rigidised: false,
                closed_at: 0.0,
                rigidised_at: None,
                peak_force: 0.0,
                final_offset: cap.offset,
                failure: None,
            },
        };
        if cap.offset[0].hypot(cap.offset[1]) >= cap.snare.ring_radius - cap.snare.shaft_radius {
            sim.out.failure = Some("the shaft is not inside the ring".into());
            sim.phase = Phase::Done;
        } else {
            let (energy, _) = sim.energy_now();
            sim.energy0 = (energy, energy.max(cap.stall_force * cap.snare.shaft_radius));
            sim.look();
        }
        sim
    }

    /// The closing's checks at the current state: the wires' stall, full closure or the end of
    /// the time, then whether they hold the shaft; the shaft leaving the ring.
    fn look(&mut self) {
        let cap = self.cap;
        let t = self.k as f64 * cap.dt;
        let (c, v, delta) = ([self.y[0], self.y[1]], [self.y[2], self.y[3]], Closing(cap).angle(t));
        let (f, pen) = cap.snare.force(c, v, delta, cap.closing_rate);
        let wire_sum = cap.snare.wire_load(&pen);
        self.out.peak_force = self.out.peak_force.max(f[0].hypot(f[1]).max(wire_sum));
        let max_angle = std::f64::consts::PI - 1e-3;
        if wire_sum >= cap.stall_force || delta >= max_angle || t >= cap.duration {
            let (_, pen) = cap.snare.force(c, v, delta, 0.0);
            let held = cap.snare.holds(c, delta, &pen);
            self.out.captured = held.is_ok();
            self.out.closed_at = t;
            self.out.final_offset = c;
            self.out.failure = held.err();
            if self.out.captured {
                self.phase = Phase::Pulling;
                self.y = [cap.stroke, 0.0, 0.0, 0.0, 0.0];
                self.energy0.0 = 0.0;
                self.integ = Integrator::new(Method::Rk4 { dt: cap.dt }, 3);
                self.pulled = (0, ((cap.duration - t) / cap.dt).ceil().max(0.0) as u64);
            } else {
                self.phase = Phase::Done;
            }
        } else if c[0].hypot(c[1]) >= cap.snare.ring_radius - cap.snare.shaft_radius {
            self.out.closed_at = t;
            self.out.final_offset = c;
            self.out.failure = Some(format!("the shaft left the ring at t = {t:.3} s before the wires closed"));
            self.phase = Phase::Done;
        }
    }
}

impl SnareCaptureSim<'_> {
    /// The shaft's kinetic energy and the work done on it in the current phase, J.
    fn energy_now(&self) -> (f64, f64) {
        let (m, y) = (self.cap.mass, &self.y);
        match self.phase {
            Phase::Pulling => (0.5 * m * y[1] * y[1], y[2]),
            _ => (0.5 * m * (y[2] * y[2] + y[3] * y[3]), y[4]),
        }
    }
}

impl Simulation for SnareCaptureSim<'_> {
    fn time(&self) -> f64 {
        let dt = self.cap.dt;
        match self.phase {
            Phase::Pulling => self.out.closed_at + self.pulled.0 as f64 * dt,
            _ => self.k as f64 * dt,
        }
    }

    fn advance(&mut self, _until: f64) -> Result<(), Diagnosis> {
        let dt = self.cap.dt;
        match self.phase {
            Phase::Pulling => {
                let mut pull = Pull::new(self.cap);
                self.integ.step_once(&mut pull, self.pulled.0 as f64 * dt, &mut self.y[..3], dt);
                self.pulled.0 += 1;
            }
            _ => {
                let t = self.k as f64 * dt;
                self.integ.step_once(&mut Closing(self.cap), t, &mut self.y, dt);
                self.k += 1;
            }
        }
        Ok(())
    }

    fn state(&self) -> &[f64] {
        &self.y
    }

    fn observe(&mut self) -> StepReport {
        let (energy, work) = self.energy_now();
        self.energy0.1 = self.energy0.1.max(energy).max(work.abs());
        match self.phase {
            Phase::Closing => self.look(),
            Phase::Pulling => {
                let pull = Pull::new(self.cap);
                let (tau, y) = (self.pulled.0 as f64 * self.cap.dt, &self.y);
                if pull.carriage(tau).0 <= pull.target
                    && pull.face(y[0], y[1]) >= 0.99 * self.cap.preload
                    && y[1].abs() < 1e-4
                {
                    self.out.rigidised = true;
                    self.out.rigidised_at = Some(self.out.closed_at + tau);
                    return StepReport { stop: Some(Stop::Captured), ..StepReport::default() };
                }
                if self.pulled.0 >= self.pulled.1 {
                    return StepReport { stop: Some(Stop::Completed), ..StepReport::default() };
                }
            }
            Phase::Done => {}
        }
        let stop = (self.phase == Phase::Done).then_some(Stop::Completed);
        StepReport { stop, ..StepReport::default() }
    }

    fn energy(&self) -> Option<EnergyCheck> {
        let (energy, work) = self.energy_now();
        let scale = self.energy0.1.max(energy).max(work.abs());
        Some(EnergyCheck { growth: energy - work - self.energy0.0, limit: 0.01 * (scale + 1e-12) })
    }

    fn record(&mut self) {}

    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis {
        let otherwise =
            "the wires' law or the payload's start (inside a wire's reach, or faster than the wires can hold)";
        Diagnosis::new(self.time(), format!("the snare run blew up: {}", failure.what()), otherwise)
            .step_unmeasured(self.cap.dt)
    }
}
