//! An application of its own, registered beside the bundled ones: a planar pendulum with its
//! own `[pendulum]` section, run, observed by name and steered through the same interface as
//! every bundled application (`crate::registry`, docs in ARCHITECTURE.md).

use serde::Deserialize;
use std::path::{Path, PathBuf};
use tumble_dynamics::{Integrator, Method, OdeSystem};
use tumble_sim::Table;
use tumble_sim::app::{Application, Input, Quantity, Report, Run, Stepped, Stepping, run_to_end};
use tumble_sim::pipeline::{Diagnosis, EnergyCheck, GuardFailure, Schedule, Simulation, StepReport, Stop};
use tumble_sim::registry::Registry;
use tumble_sim::scenario::{Scenario, ScenarioError, Sections};

/// `[pendulum]`: its length (m), starting angle from the downward vertical (rad) and the
/// gravity along it (m/s²).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PendulumSpec {
    length: f64,
    angle: f64,
    #[serde(default = "earth")]
    g: f64,
}

fn earth() -> f64 {
    9.80665
}

/// θ̈ = −(g/L) sin θ + τ/(m L²) with unit mass: state [θ, ω].
struct Equations {
    g_over_l: f64,
    torque: f64,
}

impl OdeSystem for Equations {
    fn dim(&self) -> usize {
        2
    }
    fn rhs(&mut self, _t: f64, y: &[f64], d: &mut [f64]) {
        d[0] = y[1];
        d[1] = -self.g_over_l * y[0].sin() + self.torque;
    }
}

struct PendulumSim {
    eq: Equations,
    integ: Integrator,
    t: f64,
    y: [f64; 2],
    energy0: f64,
    table: Table,
}

impl PendulumSim {
    /// Energy per unit mass and length², J/(kg·m²).
    fn energy(&self) -> f64 {
        0.5 * self.y[1] * self.y[1] + self.eq.g_over_l * (1.0 - self.y[0].cos())
    }
}

impl Simulation for PendulumSim {
    fn time(&self) -> f64 {
        self.t
    }
    fn advance(&mut self, until: f64) -> Result<(), Diagnosis> {
        let stepped = self.integ.step_toward(&mut self.eq, &mut self.t, &mut self.y, until);
        stepped.map(|_| ()).map_err(|e| Diagnosis::new(self.t, e.to_string(), "a smaller step"))
    }
    fn state(&self) -> &[f64] {
        &self.y
    }
    fn observe(&mut self) -> StepReport {
        StepReport::default()
    }
    fn energy(&self) -> Option<EnergyCheck> {
        // Unforced, the energy stays within RK4's error; a torque's work is not tracked, so the
        // check is off while one acts.
        (self.eq.torque == 0.0).then(|| EnergyCheck { growth: self.energy() - self.energy0, limit: 1e-6 })
    }
    fn record(&mut self) {
        self.table.push(&[self.t, self.y[0], self.y[1]]);
    }
    fn diagnose(&self, failure: &GuardFailure) -> Diagnosis {
        Diagnosis::new(self.t, format!("{failure:?}"), "a smaller step")
    }
}

impl Stepping for PendulumSim {
    fn quantities(&self) -> Vec<Quantity> {
        vec![Quantity::scalar("angle", "rad", self.y[0]), Quantity::scalar("rate", "rad/s", self.y[1])]
    }
    fn inputs(&self) -> Vec<Input> {
        vec![Input::new("torque", "N·m", 1, "a torque per unit m·L², held from the next step on")]
    }
    fn set_input(&mut self, _name: &str, values: &[f64]) -> Result<(), String> {
        self.eq.torque = values[0];
        Ok(())
    }
    fn table(&self) -> Table {
        self.table.clone()
    }
    fn report(self, end: Result<Stop, Diagnosis>, _wall: f64, _dir: Option<&Path>) -> Result<Report, String> {
        let summary = serde_json::json!({ "angle": self.y[0], "energy": self.energy() });
        Ok(Report::new(&end, summary, self.table, vec![format!("pendulum: t = {} s", self.t)]))
    }
}

struct Pendulum;

impl Application for Pendulum {
    fn kind(&self) -> &'static str {
        "pendulum"
    }
    fn sections(&self) -> Sections {
        Sections { required: &["pendulum"], optional: &[] }
    }
    fn start(&self, sc: &Scenario) -> Result<Box<dyn Run>, ScenarioError> {
        let spec: PendulumSpec = sc.section("pendulum")?;
        if !(spec.length > 0.0 && spec.g > 0.0) {
            return Err(sc.error_at("pendulum.length", "a positive length and gravity"));
        }
        let dt = sc.file.simulation.dt.ok_or_else(|| sc.error_at("simulation.dt", "the step, s"))?;
        let g_over_l = spec.g / spec.length;
        let mut sim = PendulumSim {
            eq: Equations { g_over_l, torque: 0.0 },
            integ: Integrator::new(Method::Rk4 { dt }, 2),
            t: 0.0,
            y: [spec.angle, 0.0],
            energy0: 0.0,
            table: Table::new(vec!["t [s]".into(), "angle [rad]".into(), "rate [rad/s]".into()]),
        };
        sim.energy0 = sim.energy();
        let duration = sc.file.simulation.duration;
        Ok(Stepped::start(sim, Schedule { duration, output_interval: dt }))
    }
}

static PENDULUM: Pendulum = Pendulum;

const FILE: &str = r#"
name = "pendulum"
kind = "pendulum"

[simulation]
duration = 4.0
dt = 1e-3

[pendulum]
length = 1.0
angle = 0.05
"#;

fn scenario(text: &str) -> Result<Scenario, ScenarioError> {
    Scenario::from_text(&PathBuf::from("pendulum.toml"), text.to_string(), &[])
}

#[test]
fn an_application_of_its_own_runs_through_the_registry() {
    let registry = Registry::bundled().with(&PENDULUM).expect("a new kind");
    let sc = scenario(FILE).expect("parses");
    let mut run = registry.start(&sc).expect("starts");
    assert_eq!(run.state()[0], Quantity::scalar("angle", "rad", 0.05));
    run_to_end(run.as_mut(), &mut |_| {});
    assert_eq!(run.ended(), Some(Ok(Stop::Completed)));
    // The period of a 1 m pendulum at 0.05 rad: 2π√(L/g)(1 + θ₀²/16 + 11θ₀⁴/3072) = 2.0067 s
    // (the series' next term is 4e-12 of it). One period after the start the angle is back at
    // its maximum: the rate's last downward zero crossing, interpolated between samples 1 ms
    // apart (at the turning point ω̈ = 0, so linearly to far below RK4's error).
    let l_over_g = 1.0 / 9.80665f64;
    let period =
        2.0 * std::f64::consts::PI * l_over_g.sqrt() * (1.0 + 0.05f64.powi(2) / 16.0 + 11.0 * 0.05f64.powi(4) / 3072.0);
    let table = run.table();
    let (t, rate) = (table.column("t [s]").expect("t"), table.column("rate [rad/s]").expect("rate"));
    let crossing = (1..t.len()).rev().find(|&i| rate[i - 1] > 0.0 && rate[i] <= 0.0).expect("a crossing");
    let at =
        t[crossing - 1] + (t[crossing] - t[crossing - 1]) * rate[crossing - 1] / (rate[crossing - 1] - rate[crossing]);
    // RK4 at ω·h = 3e-3 errs by ~1e-10 of the period (measured 1.4e-10 s): 1e-8 s is a 70×
    // margin, and an error of 1e-5 in g/L would move the period by 1e-5 s.
    assert!((at - period).abs() < 1e-8, "maximum at {at} s, period {period} s");
    let report = run.report(None).expect("report");
    assert_eq!(report.status, "completed");

    // The bundled registry does not know the kind, and says which it knows.
    let unknown = Registry::bundled().start(&sc).err().expect("refused").to_string();
    assert!(unknown.contains("unknown kind `pendulum`: one of rigid_bodies, lander"), "{unknown}");
    // The application's own section is checked like any other, by key and line.
    let bad = scenario(&FILE.replace("angle = 0.05", "angel = 0.05")).expect("parses");
    let e = registry.start(&bad).err().expect("refused").to_string();
    assert!(e.contains("pendulum.toml:11") && e.contains("unknown field `angel`"), "{e}");
    // A section it does not read is refused by the registry before the application sees it.
    let extra = scenario(&format!("{FILE}\n[bodies.a]\nmass = 1.0\n")).expect("parses");
    let e = registry.start(&extra).err().expect("refused").to_string();
    assert!(e.contains("`pendulum` contradicts the file's sections") && e.contains("does not read [bodies]"), "{e}");
}

#[test]
fn an_application_of_its_own_is_steered_by_its_inputs() {
    let registry = Registry::bundled().with(&PENDULUM).expect("a new kind");
    let sc = scenario(&FILE.replace("angle = 0.05", "angle = 0.0")).expect("parses");
    let mut run = registry.start(&sc).expect("starts");
    assert_eq!(run.set_input("torque", &[1.0, 2.0]).expect_err("refused"), "torque: 2 values given; it takes 1 (N·m)");
    // A constant unit torque from rest: ω = t − (g/L)∫θ, so for a short time (θ small) the
    // rate after 0.1 s is 0.1 rad/s less the gravity term g/L·t³/6 = 1.6e-3 rad/s.
    run.set_input("torque", &[1.0]).expect("a torque");
    while run.time() < 0.1 - 1e-12 {
        run.step().expect("steps");
    }
    let rate = run.state()[1].values[0];
    let expected = 0.1 - 9.80665 * 0.1f64.powi(3) / 6.0;
    // The next term of the series, (g/L)²·t⁵/120, is 8e-6 rad/s.
    assert!((rate - expected).abs() < 1e-5, "rate {rate}, expected {expected}");
}
