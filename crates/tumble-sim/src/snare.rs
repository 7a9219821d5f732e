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
use crate::plot::{Series, line_plot};
use crate::scenario::{Scenario, ScenarioError};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use tumble_contact::laws::friction;
use tumble_contact::snare::LooseWire;
use tumble_math::Vec3;

/// End spacing `l` of the document's wire (Table 3), m.
const WIRE_SPAN: f64 = 0.175;

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
        for (k, x) in [("mass", self.mass), ("inertia", self.inertia), ("speed", self.speed), ("dt", self.dt)] {
            if !(x.is_finite() && x > 0.0) {
                return Err(format!("{k} must be positive, got {x}"));
            }
        }
        let [px, py] = self.probe;
        // State: x, y, θ, vx, vy, ω, Jx, Jy. Start 1 mm above the chord.
        let mut y = [self.aim - px, 1e-3 - py, 0.0, 0.0, -self.speed, 0.0, 0.0, 0.0];
        let mut wire: Option<LooseWire> = None;
        let mut v0 = 0.0;
        let tip = |s: &[f64; 8]| {
            let (c, sn) = (s[2].cos(), s[2].sin());
            let r = [c * px - sn * py, sn * px + c * py];
            ([s[0] + r[0], s[1] + r[1]], [s[3] - s[5] * r[1], s[4] + s[5] * r[0]], r)
        };
        let eval = |s: &[f64; 8], wire: &Option<LooseWire>, v0: f64| -> ([f64; 8], [f64; 2], f64) {
            let (p, v, r) = tip(s);
            let mut f = [0.0; 2];
            let delta = -p[1];
            if let Some(w) = wire
                && delta > 0.0
                && p[0] > 0.0
                && p[0] < WIRE_SPAN
            {
                let n = w.force(delta, -v[1], v0);
                let ft = friction(self.mu, n, &Vec3::new(v[0], 0.0, 0.0), self.v_star);
                f = [ft.x, n];
            }
            let torque = r[0] * f[1] - r[1] * f[0];
            ([s[3], s[4], s[5], f[0] / self.mass, f[1] / self.mass, torque / self.inertia, f[0], f[1]], f, delta)
        };
        let steps = (self.duration / self.dt).ceil() as usize;
        let mut samples = Vec::with_capacity(steps + 1);
        let mut max_delta = 0.0f64;
        let energy = |s: &[f64; 8], wire: &Option<LooseWire>, delta: f64| {
            0.5 * self.mass * (s[3] * s[3] + s[4] * s[4])
                + 0.5 * self.inertia * s[5] * s[5]
                + wire.as_ref().map_or(0.0, |w| w.energy(delta.max(0.0)))
        };
        for k in 0..=steps {
            let (p, v, _) = tip(&y);
            if wire.is_none() && p[1] <= 0.0 && p[0] > 0.0 && p[0] < WIRE_SPAN {
                wire = Some(LooseWire::table4(p[0], self.wire_damping)?);
                v0 = -v[1];
            }
            let (_, f, delta) = eval(&y, &wire, v0);
            max_delta = max_delta.max(delta);
            samples.push(WireSample {
                t: k as f64 * self.dt,
                velocity: [y[3], y[4]],
                omega: y[5],
                force: f,
                impulse: [y[6], y[7]],
                delta,
                energy: energy(&y, &wire, delta),
            });
            if k == steps {
                break;
            }
            let h = self.dt;
            let add = |a: &[f64; 8], k: &[f64; 8], c: f64| std::array::from_fn::<f64, 8, _>(|i| a[i] + c * k[i]);
            let k1 = eval(&y, &wire, v0).0;
            let k2 = eval(&add(&y, &k1, 0.5 * h), &wire, v0).0;
            let k3 = eval(&add(&y, &k2, 0.5 * h), &wire, v0).0;
            let k4 = eval(&add(&y, &k3, h), &wire, v0).0;
            for i in 0..8 {
                y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
            if y.iter().any(|x| !x.is_finite()) {
                return Err(format!(
                    "the run blew up at t = {:.6} s (step too large for the wire)",
                    (k + 1) as f64 * h
                ));
            }
        }
        Ok(WireRun { samples, wire, max_delta })
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
        Ok(Self {
            mass: positive("snare.mass", s.mass, "kg")?,
            inertia: positive("snare.inertia", s.inertia, "kg·m²")?,
            probe: s.probe,
            speed: positive("snare.speed", s.speed, "m/s")?,
            aim: s.position,
            wire_damping: s.wire.damping,
            mu: s.mu,
            v_star: positive("snare.v_star", s.v_star, "m/s")?,
            dt: positive("simulation.dt", dt, "s")?,
            duration: positive("simulation.duration", sim.duration, "s")?,
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
    let ctx = |what: &str, e: std::io::Error| format!("{}: cannot write {what}: {e}", dir.display());
    std::fs::create_dir_all(dir.join("plots")).map_err(|e| ctx("the output folder", e))?;
    let kept: Vec<&WireSample> = run.samples.iter().step_by(every.max(1)).collect();
    let mut w = std::io::BufWriter::new(
        std::fs::File::create(dir.join("timeseries.csv")).map_err(|e| ctx("timeseries.csv", e))?,
    );
    let mut body = || -> std::io::Result<()> {
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
        w.flush()
    };
    body().map_err(|e| ctx("timeseries.csv", e))?;
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
        line_plot(&dir.join("plots").join(stem), title, "time (s)", unit, series, false)?;
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
    let text = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("summary.json"), text).map_err(|e| ctx("summary.json", e))?;
    Ok(summary)
}
