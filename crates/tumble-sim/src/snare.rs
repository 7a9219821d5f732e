//! The snare-wire document's floating-target experiment (§4.3, Table 5): a planar air-bearing
//! target carrying a probe hits a loose wire; its centre-of-mass velocity, angular velocity,
//! the reaction force and the impulse are recorded.
//!
//! Plane `(x, y)`; the wire's chord runs along `x` from `(0, 0)` to `(l, 0)`; the target moves
//! towards `−y`. The probe tip sits at `r` (body axes) from the centre of mass. While the tip is
//! below the chord (`δ = −y_tip > 0`) and between the ends, the wire pushes it along `+y` with
//! [`LooseWire::force`] at the position `s` of first contact (the wire holds the shaft where it
//! first touched: the identified law belongs to that `s`), and regularised Coulomb friction
//! acts along the chord on the tip's sliding speed. The deflection is taken small against the
//! chord, so the force keeps the chord's normal. RK4 at a fixed step; the state carries the
//! impulse the wire gives so that `∫F dt` is integrated with the motion.

use crate::model::{Check, err, positive};
use crate::output::RunDir;
use crate::plot::{Series, line_plot};
use crate::scenario::{Scenario, ScenarioError};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use tumble_contact::laws::{ContactLaw, friction};
use tumble_contact::snare::{LooseWire, ThreeWireSnare};
use tumble_dynamics::{Integrator, Method, OdeSystem};
use tumble_math::Vec3;

/// Most steps a wire experiment records (every step is kept: about 1 GB).
const MAX_STEPS: f64 = 1e7;

/// End spacing `l` of the document's wire (Table 3), m.
pub(crate) const WIRE_SPAN: f64 = 0.175;

/// The experiment's parameters (the wire is the document's, Table 3 and 4).
#[derive(Clone, Debug)]
pub struct WireExperiment {
    /// Target mass, kg.
    pub mass: f64,
    /// Target moment of inertia about the vertical axis, kg·m².
    pub inertia: f64,
    /// Probe tip from the centre of mass, body axes, m.
    pub probe: [f64; 2],
    /// Approach speed along `−y`, m/s.
    pub speed: f64,
    /// Probe tip's `x` at the start (the contact position along the chord), m.
    pub aim: f64,
    /// Linear damping of the wire, N·s/m.
    pub wire_damping: f64,
    /// Friction coefficient between probe and wire.
    pub mu: f64,
    /// Friction regularisation speed, m/s.
    pub v_star: f64,
    /// Step, s.
    pub dt: f64,
    /// Duration, s.
    pub duration: f64,
}

/// One recorded sample.
#[derive(Clone, Copy, Debug)]
pub struct WireSample {
    /// Time, s.
    pub t: f64,
    /// Centre of mass `[x, y]` (m) and heading θ (rad) in the plane.
    pub pose: [f64; 3],
    /// Centre-of-mass velocity, m/s.
    pub velocity: [f64; 2],
    /// Angular velocity, rad/s.
    pub omega: f64,
    /// Wire force on the probe `[along the chord, normal]`, N.
    pub force: [f64; 2],
    /// Impulse given so far, N·s.
    pub impulse: [f64; 2],
    /// Penetration, m.
    pub delta: f64,
    /// Kinetic plus wire energy, J.
    pub energy: f64,
}

/// The run.
#[derive(Clone, Debug)]
pub struct WireRun {
    /// Samples at every step.
    pub samples: Vec<WireSample>,
    /// The wire at the contact position (`None`: the probe never touched it).
    pub wire: Option<LooseWire>,
    /// Largest penetration, m.
    pub max_delta: f64,
}

impl WireExperiment {
    /// The document's Table 5 case: 8.9 kg, 0.16 kg·m², wire `L` = 180 mm, `l` = 175 mm, hit
    /// at `s` = 90 mm at `speed`. The probe geometry is not given; a 0.3 m probe 0.05 m off the
    /// line through the centre of mass is assumed, so the hit also spins the target.
    pub fn table5(speed: f64) -> Self {
        Self {
            mass: 8.9,
            inertia: 0.16,
            probe: [0.05, -0.3],
            speed,
            aim: 0.090,
            wire_damping: 5.0,
            mu: 0.2,
            v_star: 1e-3,
            dt: 1e-5,
            duration: 0.5,
        }
    }

    /// Runs it.
    pub fn run(&self) -> Result<WireRun, String> {
        for (k, x) in [
            ("mass", self.mass),
            ("inertia", self.inertia),
            ("speed", self.speed),
            ("dt", self.dt),
            ("duration", self.duration),
        ] {
            if !(x.is_finite() && x > 0.0) {
                return Err(format!("{k} must be positive, got {x}"));
            }
        }
        // State: x, y, θ, vx, vy, ω, Jx, Jy. Start 1 mm above the chord.
        let mut y = [self.aim - self.probe[0], 1e-3 - self.probe[1], 0.0, 0.0, -self.speed, 0.0, 0.0, 0.0];
        let mut ode = WireOde { exp: self, wire: None, v0: 0.0 };
        let steps = (self.duration / self.dt).ceil();
        if steps.is_nan() || steps > MAX_STEPS {
            return Err(format!(
                "{steps} steps of {} s would be recorded (at most {MAX_STEPS:e}): lengthen the step or shorten the run",
                self.dt
            ));
        }
        let steps = steps as usize;
        let mut integ = Integrator::new(Method::Rk4 { dt: self.dt }, 8);
        let mut samples = Vec::with_capacity(steps + 1);
        let mut max_delta = 0.0f64;
        for k in 0..=steps {
            let (p, v, _) = ode.tip(&y);
            if ode.wire.is_none() && p[1] <= 0.0 && p[0] > 0.0 && p[0] < WIRE_SPAN {
                ode.wire = Some(LooseWire::table4(p[0], self.wire_damping)?);
                ode.v0 = -v[1];
            }
            let (_, f, delta) = ode.eval(&y);
            max_delta = max_delta.max(delta);
            samples.push(WireSample {
                t: k as f64 * self.dt,
                pose: [y[0], y[1], y[2]],
                velocity: [y[3], y[4]],
                omega: y[5],
                force: f,
                impulse: [y[6], y[7]],
                delta,
                energy: 0.5 * self.mass * (y[3] * y[3] + y[4] * y[4])
                    + 0.5 * self.inertia * y[5] * y[5]
                    + ode.wire.as_ref().map_or(0.0, |w| w.energy(delta.max(0.0))),
            });
            if k == steps {
                break;
            }
            integ.step_once(&mut ode, k as f64 * self.dt, &mut y, self.dt);
            if y.iter().any(|x| !x.is_finite()) {
                return Err(format!(
                    "the run blew up at t = {:.6} s (step too large for the wire)",
                    (k + 1) as f64 * self.dt
                ));
            }
        }
        let wire = ode.wire;
        Ok(WireRun { samples, wire, max_delta })
    }
}

/// The planar target against the wire (once touched) as an ODE.
struct WireOde<'a> {
    exp: &'a WireExperiment,
    wire: Option<LooseWire>,
    /// Approach speed at first contact, m/s.
    v0: f64,
}

impl WireOde<'_> {
    /// Probe tip position and velocity, and its offset from the centre of mass (world axes).
    fn tip(&self, s: &[f64]) -> ([f64; 2], [f64; 2], [f64; 2]) {
        let [px, py] = self.exp.probe;
        let (c, sn) = (s[2].cos(), s[2].sin());
        let r = [c * px - sn * py, sn * px + c * py];
        ([s[0] + r[0], s[1] + r[1]], [s[3] - s[5] * r[1], s[4] + s[5] * r[0]], r)
    }

    /// The state derivative, the wire's force `[friction, normal]` and the penetration.
    fn eval(&self, s: &[f64]) -> ([f64; 8], [f64; 2], f64) {
        let e = self.exp;
        let (p, v, r) = self.tip(s);
        let mut f = [0.0; 2];
        let delta = -p[1];
        if let Some(w) = &self.wire
            && delta > 0.0
            && p[0] > 0.0
            && p[0] < WIRE_SPAN
        {
            let n = w.force(delta, -v[1], self.v0);
            let ft = friction(e.mu, n, &Vec3::new(v[0], 0.0, 0.0), e.v_star);
            f = [ft.x, n];
        }
        let torque = r[0] * f[1] - r[1] * f[0];
        ([s[3], s[4], s[5], f[0] / e.mass, f[1] / e.mass, torque / e.inertia, f[0], f[1]], f, delta)
    }
}

impl OdeSystem for WireOde<'_> {
    fn dim(&self) -> usize {
        8
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dydt: &mut [f64]) {
        dydt.copy_from_slice(&self.eval(y).0);
    }
}

impl WireExperiment {
    /// Validates `[snare]` and `[simulation]` (`duration`, `dt`).
    pub fn build(sc: &Scenario) -> Result<Self, ScenarioError> {
        Self::check(sc).map_err(|(k, m)| sc.error_at(&k, m))
    }

    fn check(sc: &Scenario) -> Check<Self> {
        let Some(s) = &sc.file.snare else { return err("snare", "a snare-wire run needs a [snare] table") };
        let sim = &sc.file.simulation;
        let Some(dt) = sim.dt else { return err("simulation.dt", "is required: the RK4 step, s") };
        if !(s.position > 0.0 && s.position < WIRE_SPAN) {
            return err(
                "snare.position",
                format!("must lie between the wire's ends (0, {WIRE_SPAN}) m, got {}", s.position),
            );
        }
        if !(s.probe.iter().all(|x| x.is_finite())) {
            return err("snare.probe", "must hold two finite numbers (m)");
        }
        if !(s.mu.is_finite() && s.mu >= 0.0) {
            return err("snare.mu", format!("must be >= 0, got {}", s.mu));
        }
        if !(s.wire.damping.is_finite() && s.wire.damping >= 0.0) {
            return err("snare.wire.damping", format!("must be >= 0 (N·s/m), got {}", s.wire.damping));
        }
        let (dt, duration) = (positive("simulation.dt", dt, "s")?, positive("simulation.duration", sim.duration, "s")?);
        if duration / dt > MAX_STEPS {
            return err(
                "simulation.dt",
                format!("{:.1e} steps would be recorded (at most {MAX_STEPS:e}): lengthen the step", duration / dt),
            );
        }
        Ok(Self {
            mass: positive("snare.mass", s.mass, "kg")?,
            inertia: positive("snare.inertia", s.inertia, "kg·m²")?,
            probe: s.probe,
            speed: positive("snare.speed", s.speed, "m/s")?,
            aim: s.position,
            wire_damping: s.wire.damping,
            mu: s.mu,
            v_star: positive("snare.v_star", s.v_star, "m/s")?,
            dt,
            duration,
        })
    }
}

/// Writes `timeseries.csv` (every `every`-th step), `summary.json` and plots into `dir`.
pub fn write_wire_run(
    dir: &Path,
    name: &str,
    exp: &WireExperiment,
    run: &WireRun,
    every: usize,
) -> Result<Value, String> {
    let out = RunDir::create(dir)?;
    let kept: Vec<&WireSample> = run.samples.iter().step_by(every.max(1)).collect();
    out.csv("timeseries.csv", |w| {
        writeln!(
            w,
            "t_s,vx_m_s,vy_m_s,omega_rad_s,friction_N,normal_N,impulse_x_Ns,impulse_y_Ns,penetration_m,energy_J"
        )?;
        for s in &kept {
            writeln!(
                w,
                "{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e},{:e}",
                s.t,
                s.velocity[0],
                s.velocity[1],
                s.omega,
                s.force[0],
                s.force[1],
                s.impulse[0],
                s.impulse[1],
                s.delta,
                s.energy
            )?;
        }
        Ok(())
    })?;
    let t: Vec<f64> = kept.iter().map(|s| s.t).collect();
    let col = |f: &dyn Fn(&WireSample) -> f64| kept.iter().map(|s| f(s)).collect::<Vec<f64>>();
    let plots: [(&str, &str, &str, Vec<Series>); 4] = [
        (
            "velocity",
            "Centre-of-mass velocity",
            "m/s",
            vec![
                Series { label: "vx".into(), x: &t, y: col(&|s| s.velocity[0]) },
                Series { label: "vy".into(), x: &t, y: col(&|s| s.velocity[1]) },
            ],
        ),
        (
            "angular_velocity",
            "Angular velocity",
            "rad/s",
            vec![Series { label: "ω".into(), x: &t, y: col(&|s| s.omega) }],
        ),
        (
            "force",
            "Wire force on the probe",
            "N",
            vec![
                Series { label: "normal".into(), x: &t, y: col(&|s| s.force[1]) },
                Series { label: "friction".into(), x: &t, y: col(&|s| s.force[0]) },
            ],
        ),
        (
            "impulse",
            "Impulse given by the wire",
            "N·s",
            vec![
                Series { label: "along the chord".into(), x: &t, y: col(&|s| s.impulse[0]) },
                Series { label: "normal".into(), x: &t, y: col(&|s| s.impulse[1]) },
            ],
        ),
    ];
    for (stem, title, unit, series) in &plots {
        line_plot(&out.plot(stem), title, "time (s)", unit, series, false)?;
    }
    let (first, last) = (run.samples[0], *run.samples.last().ok_or("no samples")?);
    let in_contact: Vec<f64> = run.samples.iter().filter(|s| s.force[1] > 0.0).map(|s| s.t).collect();
    let summary = json!({
        "scenario": name,
        "touched_the_wire": run.wire.is_some(),
        "contact_position_m": run.wire.as_ref().map(|w| w.position),
        "slack_limit_Q_m": run.wire.as_ref().map(|w| w.slack),
        "max_penetration_m": run.max_delta,
        "contact_duration_s": in_contact.last().zip(in_contact.first()).map(|(b, a)| b - a + exp.dt),
        "peak_force_N": run.samples.iter().map(|s| s.force[1]).fold(0.0, f64::max),
        "impulse_Ns": last.impulse,
        "momentum_change_Ns": [exp.mass * (last.velocity[0] - first.velocity[0]), exp.mass * (last.velocity[1] - first.velocity[1])],
        "final_velocity_m_s": last.velocity,
        "final_angular_velocity_rad_s": last.omega,
        "energy_initial_J": first.energy,
        "energy_final_J": last.energy,
    });
    out.json("summary.json", &summary)?;
    animation(exp, &kept).write_glb(&dir.join("animation.glb"))?;
    Ok(summary)
}

/// The experiment as an animation in its plane (z up): the target as the square plate of its
/// mass and planar inertia (`I = m s²/6`) with its probe to the tip, the wire (bent at the tip
/// while the tip presses it) and its force on the probe.
pub fn animation(exp: &WireExperiment, samples: &[&WireSample]) -> crate::anim::Animation {
    use crate::anim::{Animation, box_mesh, rod};
    use tumble_math::{Mat3, UnitQuat};
    let side = (6.0 * exp.inertia / exp.mass).sqrt();
    let mut anim = Animation::new();
    let tip = Vec3::new(exp.probe[0], exp.probe[1], 0.0);
    anim.body(
        "target",
        vec![
            box_mesh(
                &Vec3::zeros(),
                &Mat3::identity(),
                &Vec3::new(0.5 * side, 0.5 * side, 0.05 * side),
                [0.3, 0.5, 0.8, 1.0],
            ),
            rod(&Vec3::zeros(), &tip, 0.01, [0.8, 0.8, 0.8, 1.0]),
        ],
    );
    // The wire from its ends to the probe's tip while the tip presses it (its two segments),
    // straight otherwise; the wire's force on the probe at the tip, the largest as long as the
    // target's side.
    anim.strand("wire to the left end", 0.006, [0.9, 0.3, 0.2, 1.0]);
    anim.strand("wire to the right end", 0.006, [0.9, 0.3, 0.2, 1.0]);
    let peak = samples.iter().map(|s| s.force[0].hypot(s.force[1])).fold(0.0, f64::max);
    let per_newton = if peak > 0.0 { side / peak } else { 0.0 };
    anim.arrow("wire force", 0.02 * side, crate::anim::FORCE_COLOR);
    let ends = [Vec3::zeros(), Vec3::new(WIRE_SPAN, 0.0, 0.0)];
    for s in samples {
        let [x, y, th] = s.pose;
        let q = UnitQuat::from_axis_angle(&Vec3::z_axis(), th);
        let p = Vec3::new(x, y, 0.0);
        anim.frame(s.t, &[(p, q)]);
        let at = p + q * tip;
        let pressed = s.force[1] != 0.0;
        let bend = if pressed { at } else { 0.5 * (ends[0] + ends[1]) };
        let force = Vec3::new(s.force[0], s.force[1], 0.0) * per_newton;
        anim.overlays(&[(ends[0], bend - ends[0]), (ends[1], bend - ends[1]), (at, force)]);
    }
    anim
}

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

/// The shaft in the ring plane while the snare closes (state `[c; v]`).
struct Closing<'a>(&'a SnareCapture);

impl Closing<'_> {
    /// The closing angle at time `t`.
    fn angle(&self, t: f64) -> f64 {
        self.0.open_angle + self.0.closing_rate * t
    }
}

impl OdeSystem for Closing<'_> {
    fn dim(&self) -> usize {
        4
    }
    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) {
        let s = self.0;
        let (f, _) = s.snare.force([y[0], y[1]], [y[2], y[3]], self.angle(t), s.closing_rate);
        dydt.copy_from_slice(&[y[2], y[3], f[0] / s.mass, f[1] / s.mass]);
    }
}

/// The captured fixture pulled axially (state `[z; ż]`, z from the face, m) by the wires toward
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
        2
    }
    fn rhs(&mut self, tau: f64, y: &[f64], dydt: &mut [f64]) {
        let (zc, zc_rate) = self.carriage(tau);
        let c_pull = 2.0 * (K_PULL * self.mass).sqrt();
        let f = -K_PULL * (y[0] - zc) - c_pull * (y[1] - zc_rate) + self.face(y[0], y[1]);
        dydt.copy_from_slice(&[y[1], f / self.mass]);
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

    /// Runs the closing and, if captured, the rigidisation.
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
        let r = self.snare.ring_radius;
        if self.offset[0].hypot(self.offset[1]) >= r - self.snare.shaft_radius {
            return Ok(SnareOutcome {
                captured: false,
                rigidised: false,
                closed_at: 0.0,
                rigidised_at: None,
                peak_force: 0.0,
                final_offset: self.offset,
                failure: Some("the shaft is not inside the ring".into()),
            });
        }
        let max_angle = std::f64::consts::PI - 1e-3;
        // Closing: the shaft in the ring plane, RK4, with the ring turning at the closing rate.
        let mut y = [self.offset[0], self.offset[1], self.velocity[0], self.velocity[1]];
        let mut integ = Integrator::new(Method::Rk4 { dt: self.dt }, 4);
        let mut closing = Closing(self);
        let mut peak = 0.0f64;
        let mut k = 0u64;
        let (c, delta, t) = loop {
            let t = k as f64 * self.dt;
            let (c, v, delta) = ([y[0], y[1]], [y[2], y[3]], closing.angle(t));
            let (f, pen) = self.snare.force(c, v, delta, self.closing_rate);
            let wire_sum = self.snare.wire_load(&pen);
            peak = peak.max(f[0].hypot(f[1]).max(wire_sum));
            if wire_sum >= self.stall_force || delta >= max_angle || t >= self.duration {
                break (c, delta, t);
            }
            if c[0].hypot(c[1]) >= r - self.snare.shaft_radius {
                return Ok(SnareOutcome {
                    captured: false,
                    rigidised: false,
                    closed_at: t,
                    rigidised_at: None,
                    peak_force: peak,
                    final_offset: c,
                    failure: Some(format!("the shaft left the ring at t = {t:.3} s before the wires closed")),
                });
            }
            integ.step_once(&mut closing, t, &mut y, self.dt);
            k += 1;
            if y.iter().any(|x| !x.is_finite()) {
                return Err(format!("the snare run blew up at t = {t:.4} s (step too large for the wires)"));
            }
        };
        let v = [y[2], y[3]];
        let (_, pen) = self.snare.force(c, v, delta, 0.0);
        let held = self.snare.holds(c, delta, &pen);
        let mut out = SnareOutcome {
            captured: held.is_ok(),
            rigidised: false,
            closed_at: t,
            rigidised_at: None,
            peak_force: peak,
            final_offset: c,
            failure: held.err(),
        };
        if !out.captured {
            return Ok(out);
        }
        // Rigidisation: the carriage retracts at the set speed; the wires pull the fixture onto
        // the face (stiff stop at z = 0) until the face carries the preload.
        let mut pull = Pull::new(self);
        let mut y = [self.stroke, 0.0];
        let mut integ = Integrator::new(Method::Rk4 { dt: self.dt }, 2);
        let steps = ((self.duration - t) / self.dt).ceil().max(0.0) as u64;
        for k in 1..=steps {
            integ.step_once(&mut pull, (k - 1) as f64 * self.dt, &mut y, self.dt);
            let tau = k as f64 * self.dt;
            if pull.carriage(tau).0 <= pull.target && pull.face(y[0], y[1]) >= 0.99 * self.preload && y[1].abs() < 1e-4
            {
                out.rigidised = true;
                out.rigidised_at = Some(t + tau);
                break;
            }
        }
        if !out.rigidised {
            out.failure = Some(format!("the preload was not reached within {} s", self.duration));
        }
        Ok(out)
    }
}
