//! Articulated scenarios: the bundled double pendulum keeps its energy, the flexible JEMRMS
//! joint rings with an amplitude-dependent frequency as an independent integration of the
//! document's equations does, the actuators' work balances the energy check, bad `[arm]` input
//! is refused with its key.

use std::path::Path;
use tumble_sim::Scenario;
use tumble_sim::arm::ArmModel;

fn scenario(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/arms").join(name)
}

#[test]
fn the_bundled_arm_scenarios_run() {
    let sc = Scenario::load(&scenario("double_pendulum.toml"), &[]).expect("scenario");
    let mut m = ArmModel::build(&sc).expect("valid");
    let run = m.simulate();
    assert!(run.failure.is_none());
    let e = run.columns.iter().position(|c| c.starts_with("energy")).expect("energy column");
    let (e0, e1) = (run.rows[0][e], run.rows.last().expect("rows")[e]);
    // RK4 at 1 ms over 10 s of chaotic swinging: truncation ~(ω h)⁴ per unit time.
    assert!((e1 - e0).abs() < 1e-7 * e0.abs(), "energy {e0} → {e1}");
    assert_eq!(run.rows.len(), 1001);

    // The free-flying bus with its array on a damped ball joint: momentum is conserved (internal
    // forces only) while the hinge damping takes energy out.
    let sc = Scenario::load(&scenario("solar_array_hinge.toml"), &[]).expect("scenario");
    let mut m = ArmModel::build(&sc).expect("valid");
    assert_eq!(m.system.ball_springs.len(), 1);
    let run = m.simulate();
    assert!(run.failure.is_none());
    let (nq, nv) = (m.system.model.nq(), m.system.model.nv());
    let h = |r: &[f64]| m.system.model.momentum(&r[1..1 + nq], &r[1 + nq..1 + nq + nv]);
    let (first, last) = (h(&run.rows[0]), h(run.rows.last().expect("rows")));
    let scale = first.0.norm() + first.1.norm();
    assert!((last.0 - first.0).norm() + (last.1 - first.1).norm() < 1e-10 * scale, "{first:?} → {last:?}");
    let e = run.columns.iter().position(|c| c.starts_with("energy")).expect("energy column");
    assert!(run.rows.last().expect("rows")[e] < 0.9 * run.rows[0][e], "the hinge damper dissipates");
}

/// Zero crossings of the `boom.deflection` column, the half-periods between them and the
/// largest |deflection| in each, of the JEMRMS joint scenario with `set` overrides.
fn ringing(set: &[(&str, &str)]) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let set: Vec<(String, String)> = set.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let sc = Scenario::load(&scenario("jemrms_flexible_joint.toml"), &set).expect("scenario");
    let mut m = ArmModel::build(&sc).expect("valid");
    let run = m.simulate();
    assert!(run.failure.is_none());
    let (t, d) = (run.column("t").expect("t").0, run.column("boom.deflection").expect("deflection column").0);
    let (energies, _) = run.column("energy").expect("energy column");
    // Damped everywhere: the energy only falls.
    assert!(energies.windows(2).all(|w| w[1] <= w[0] + 1e-12 * energies[0]), "energy rose");
    let crossings: Vec<f64> = (1..d.len())
        .filter(|&i| d[i - 1] * d[i] < 0.0)
        .map(|i| t[i - 1] + (t[i] - t[i - 1]) * d[i - 1] / (d[i - 1] - d[i]))
        .collect();
    let half: Vec<f64> = crossings.windows(2).map(|w| w[1] - w[0]).collect();
    let peaks = crossings
        .windows(2)
        .map(|w| t.iter().zip(&d).filter(|(s, _)| (w[0]..=w[1]).contains(*s)).map(|(_, x)| x.abs()).fold(0.0, f64::max))
        .collect();
    (crossings, half, peaks)
}

/// The first JEMRMS joint (eqs. 1–2, Table 2, the viscosity on the motor rate) released 0.5°
/// ahead of its motor rings, and its half-period grows as the amplitude falls into Table 2's
/// soft band: the character of the document's on-orbit step response (its Figs. 5–6). The
/// half-periods and peaks match `reference/jemrms_joint.json`, written by
/// `reference/gen_jemrms_joint.py` (the same equations in plain Python, RK4 at the same step).
/// The same measures on a linear joint (475 N·m/deg throughout) and on the table's viscosity put
/// on the deflection rate show what the checks reject: a constant period, and no ringing.
#[test]
fn the_jemrms_joint_rings_with_an_amplitude_dependent_frequency() {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/jemrms_joint.json"));
    let reference: serde_json::Value = serde_json::from_str(&text.expect("reference")).expect("json");
    let list = |k: &str| -> Vec<f64> { reference[k].as_array().expect(k).iter().filter_map(|x| x.as_f64()).collect() };
    let (crossings, half, peaks) = ringing(&[]);
    let (ref_half, ref_peaks) = (list("half_periods_s"), list("peak_deflection_deg"));
    assert_eq!(half.len(), ref_half.len(), "half-periods {half:?}");
    // Crossings interpolated linearly between 5 ms samples (the reference: 0.5 ms steps); the
    // curvature at a crossing is small, measured differences below 1e-3 s. Peaks are sampled
    // every 5 ms: at 0.5° and ω ≈ 5 rad/s the sampled peak is low by up to ½ (ω · 2.5 ms)² of it.
    for (k, (a, b)) in half.iter().zip(&ref_half).enumerate() {
        assert!((a - b).abs() < 2e-3, "half-period {k}: {a} s against the reference's {b} s");
    }
    for (k, (a, b)) in peaks.iter().zip(&ref_peaks).enumerate() {
        assert!((a - b).abs() < 2e-4 + 1e-3 * b, "peak {k}: {a}° against the reference's {b}°");
    }
    // It rings (an overdamped joint crosses at most once) ...
    assert!(crossings.len() >= 10, "{} zero crossings", crossings.len());
    // ... and slows as the amplitude falls: 0.65 s at 0.44°, 1.3 s at 0.07°.
    let (first, last) = (half[0], half[half.len() - 1]);
    assert!(last > 1.5 * first && peaks[0] > 5.0 * peaks[peaks.len() - 1], "{half:?} at {peaks:?}");

    // A linear joint rings at one frequency: its last half-period is within 5 % of its first
    // (measured 0.7 %; single half-periods scatter by up to 3 % as the tabulated viscosity
    // switches with the amplitude and the servo's slow mode adds to the deflection).
    let linear = ringing(&[("arm.joints.0.flexible.table.stiffness_per_deg", "[475.0, 475.0, 475.0]")]).1;
    let ratio = linear[linear.len() - 1] / linear[0];
    assert!(linear.len() >= 10 && (ratio - 1.0).abs() < 0.05, "linear joint: {linear:?}");
    // The table's viscosity on the deflection rate overdamps the soft band (damping ratio 1.6
    // there): the ringing stops once the amplitude falls below 0.06° (measured 5 crossings),
    // and the ringing check above rejects it.
    let (crossings, ..) = ringing(&[("arm.joints.0.flexible.table.viscosity_on", "\"deflection\"")]);
    assert!(crossings.len() < 10, "deflection-rate viscosity: {} crossings", crossings.len());
}

#[test]
fn bad_arm_input_is_refused_with_its_key() {
    let path = scenario("double_pendulum.toml");
    for (set, key) in [
        (("arm.q", "[0.1]"), "arm.q"),
        (("arm.links.1.parent", "\"nobody\""), "arm.links.1.parent"),
        (("arm.links.0.mass", "-1.0"), "arm.links.0.mass"),
        (("arm.links.0.inertia", "[1.0, 0.1, 0.1]"), "arm.links.0.inertia"),
        (("arm.links.0.joint", "\"screw\""), "arm.links.0.joint"),
    ] {
        let sc = Scenario::load(&path, &[(set.0.to_string(), set.1.to_string())]).expect("parses");
        let e = ArmModel::build(&sc).err().unwrap_or_else(|| panic!("{set:?} accepted")).to_string();
        assert!(e.contains(&format!("key `{key}`")) && e.contains("double_pendulum.toml"), "{set:?}: {e}");
    }
    // A free base with a zero quaternion.
    let hinge = scenario("solar_array_hinge.toml");
    let zero = "[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]";
    let sc = Scenario::load(&hinge, &[("arm.q".to_string(), zero.to_string())]).expect("parses");
    let e = ArmModel::build(&sc).expect_err("zero quaternion refused").to_string();
    assert!(e.contains("key `arm.q`") && e.contains("must not be zero"), "{e}");
    let text = std::fs::read_to_string(&path).expect("text") + "\n[[arm.joints]]\nname = \"elbow\"\nstiffness = 1.0\n";
    let sc = Scenario::from_text(&path, text, &[]).expect("parses");
    assert!(ArmModel::build(&sc).expect_err("unknown joint").to_string().contains("no joint named `elbow`"));
}

/// The arm's energy check balances the actuators' work: the double pendulum with a PD servo
/// (no damping) on the upper joint and a feed-forward torque on the lower one gains and loses
/// energy through them, and `E − W` stays at its start to RK4's accuracy (1 ms steps, 10 s:
/// seen 5e-8 J of the ~6 J in play; 6e-6 J leaves a hundredfold room), while `|W|` (4.4 J) is of the order of the
/// energy itself.
#[test]
fn the_actuators_work_balances_the_arms_energy() {
    use tumble_sim::arm::ArmSim;
    use tumble_sim::pipeline::{Driver, Simulation};
    let text = std::fs::read_to_string(scenario("double_pendulum.toml")).expect("scenario")
        + "[[arm.joints]]\nname = \"upper\"\npd = [20.0, 0.0]\ntarget = 0.5\n"
        + "[[arm.joints]]\nname = \"lower\"\nfeed_forward = 0.3\n";
    let sc = Scenario::from_text(&scenario("double_pendulum.toml"), text, &[]).expect("scenario");
    let mut model = ArmModel::build(&sc).expect("arm");
    let sim = ArmSim::new(&mut model);
    let schedule = sim.schedule();
    let mut driver = Driver::new(sim, schedule);
    driver.run(&mut |_| {}).expect("completes");
    let sim = driver.sim();
    let work = *sim.state().last().expect("state");
    let check = sim.energy().expect("an energy check");
    assert!(work.abs() > 0.5, "the actuators did work: {work} J");
    println!("W = {work} J, E − W − E₀ = {} J", check.growth);
    assert!(check.growth.abs() < 1e-6 * 6.0, "E − W moved by {} J", check.growth);
}

/// The double pendulum built in code (links from `tumble_dynamics`, the run from
/// `ArmModel::builder`) runs bit-identically to `double_pendulum.toml`, and the builder refuses
/// what the file would, naming the file's key.
#[test]
fn the_arm_built_in_code_is_the_scenario() {
    use tumble_dynamics::multibody::system::MultibodySystem;
    use tumble_dynamics::multibody::{Joint, Link, Multibody};
    use tumble_math::{Mat3, Vec3};
    let link = |name: &str, parent: Option<usize>, origin: Vec3| Link {
        name: name.into(),
        parent,
        joint: Joint::Revolute(Vec3::y()),
        parent_to_joint: (Mat3::identity(), origin),
        mass: 1.0,
        com: Vec3::new(0.0, 0.0, -0.5),
        inertia: Mat3::from_diagonal(&Vec3::new(0.0833, 0.0833, 0.001)),
    };
    let links = vec![link("upper", None, Vec3::zeros()), link("lower", Some(0), Vec3::new(0.0, 0.0, -1.0))];
    let system = MultibodySystem::new(Multibody::new(links, Vec3::new(0.0, 0.0, -9.81)).expect("tree"));
    let build = |s: MultibodySystem| ArmModel::builder("double_pendulum", s).duration(10.0).output_interval(0.01);
    let mut in_code = build(system.clone()).state(vec![1.2, 0.3, 0.0, 0.0]).rk4(0.001).build().expect("valid");
    let sc = Scenario::load(&scenario("double_pendulum.toml"), &[]).expect("scenario");
    let mut from_file = ArmModel::build(&sc).expect("arm");
    let (a, b) = (in_code.simulate(), from_file.simulate());
    assert_eq!(a.rows.len(), b.rows.len());
    let bits = |r: &[f64]| r.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(a.rows.last().expect("rows")), bits(b.rows.last().expect("rows")));
    for (bad, key) in [
        (build(system.clone()).state(vec![1.2, 0.3]).rk4(0.001), "arm.q"),
        (build(system.clone()).rk4(-1.0), "simulation.dt"),
        (build(system.clone()), "simulation.dt"),
        (build(system.clone()).rk4(0.001).output_interval(1e-6), "simulation.output_interval"),
    ] {
        assert_eq!(bad.build().expect_err("refused").key, key);
    }
}

/// Joint forces set between DOPRI5 steps act from the next step's first stage: one link on a
/// revolute joint, no gravity, at rest, a torque τ from the end of the first step on turns it
/// as `θ = τ (t − t₁)² / 2I` (I = 0.0833 + 1 kg · (0.5 m)² about the joint), a polynomial
/// DOPRI5 integrates exactly when every stage sees the torque (bound 1e-12: rounding). A stale
/// first stage from before the input (DOPRI5 reuses its last stage) misses it by 2.2e-9. The
/// same run under a budget of 2 steps (the four output intervals take at least four) stops,
/// naming `simulation.max_steps`.
#[test]
fn joint_forces_between_adaptive_steps_follow_the_closed_form() {
    let text = r#"
kind = "arm"
name = "one_link"
[simulation]
duration = 2.0
integrator = "dopri5"
rtol = 1e-10
atol = 1e-12
output_interval = 0.5
[gravity]
type = "none"
[arm]
base = "fixed"
q = [0.0]
[[arm.links]]
name = "link"
joint = "revolute"
axis = [0.0, 1.0, 0.0]
mass = 1.0
com = [0.0, 0.0, -0.5]
inertia = [0.0833, 0.0833, 0.001]
"#;
    let load = |set: &[(String, String)]| Scenario::from_text(Path::new("one_link.toml"), text.into(), set).unwrap();
    let mut run = tumble_sim::registry::start(&load(&[])).expect("starts");
    run.step().expect("a first step");
    let (t1, tau, inertia) = (run.time(), 0.02, 0.0833 + 0.25);
    run.set_input("joint_forces", &[tau]).expect("a torque");
    tumble_sim::app::run_to_end(run.as_mut(), &mut |_| {});
    assert!(matches!(run.ended(), Some(Ok(_))), "{:?}", run.ended());
    let q = run.state().into_iter().find(|q| q.name == "q").expect("q").values[0];
    let want = tau * (2.0 - t1).powi(2) / (2.0 * inertia);
    assert!((q - want).abs() <= 1e-12 * want, "θ = {q} rad, closed form {want} rad");

    let budget = [("simulation.max_steps".to_string(), "2".to_string())];
    let mut run = tumble_sim::registry::start(&load(&budget)).expect("starts");
    run.set_input("joint_forces", &[tau]).expect("a torque");
    tumble_sim::app::run_to_end(run.as_mut(), &mut |_| {});
    let e = run.ended().expect("ended").expect_err("the budget stops it").to_string();
    assert!(e.contains("simulation.max_steps"), "{e}");
}

/// The bundled four-bar (`four_bar.toml`): a closed chain driven by a DC motor on its crank.
/// Its rocker follows Freudenstein's relation of the crank's angle at every sample, the loop
/// stays closed (the summary's drift), `E − W` holds with the motor's work, and the joints'
/// reactions include the cut: the free pins carry no moment about their axes.
#[test]
fn the_four_bar_follows_freudenstein_and_balances_the_motors_work() {
    use tumble_sim::arm::ArmSim;
    use tumble_sim::pipeline::{Driver, Simulation};
    let (a, b, c, d) = (0.10, 0.35, 0.30, 0.40);
    let freudenstein = |t2: f64| {
        let (k1, k2, k3) = (d / a, d / c, (a * a - b * b + c * c + d * d) / (2.0 * a * c));
        let (s, co) = t2.sin_cos();
        let (aa, bb, cc) = (co - k1 - k2 * co + k3, -2.0 * s, k1 - (k2 + 1.0) * co + k3);
        2.0 * ((-bb - (bb * bb - 4.0 * aa * cc).sqrt()) / (2.0 * aa)).atan()
    };
    let sc = Scenario::load(&scenario("four_bar.toml"), &[]).expect("scenario");
    let mut model = ArmModel::build(&sc).expect("arm");
    // Assembly kept the driven crank at its 0.5 rad and closed the loop.
    assert_eq!(model.initial_state[0], 0.5);
    let sim = ArmSim::new(&mut model);
    let schedule = sim.schedule();
    let mut driver = Driver::new(sim, schedule);
    driver.run(&mut |_| {}).expect("completes");
    let sim = driver.sim();
    let work = *sim.state().last().expect("state");
    let check = sim.energy().expect("an energy check");
    let run = sim.run();
    let col = |name: &str| run.columns.iter().position(|c| c.starts_with(name)).expect(name);
    let (q0, q2, gap, rocker_mz, coupler_mz) =
        (col("q0 "), col("q2 "), col("loop_gap"), col("rocker.mz"), col("coupler.mz"));
    let wrap = |x: f64| (x + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
    let worst = run.rows.iter().map(|r| wrap(r[q2] - freudenstein(r[q0])).abs()).fold(0.0, f64::max);
    let drift = run.rows.iter().map(|r| r[gap]).fold(0.0, f64::max);
    let pins = run.rows.iter().map(|r| r[rocker_mz].abs().max(r[coupler_mz].abs())).fold(0.0, f64::max);
    let turned = run.rows.last().expect("rows")[q0] - 0.5;
    println!(
        "turned {turned} rad, Freudenstein {worst:e} rad, gap {drift:e} m, pins {pins:e} N·m, W {work} J, E − W {:e}",
        check.growth
    );
    assert!(turned > 20.0, "the motor turned the crank {turned} rad");
    // As the dynamics' own test (tests/four_bar.rs): gap 4e-10 m, angle 1.3e-9 rad measured.
    assert!(worst < 1e-7 && drift < 1e-8, "rocker off by {worst} rad, loop gap {drift} m");
    // The free pins' moment about their axes: rounding of the cut force's moments (~1 N·m).
    assert!(pins < 1e-9, "a free pin carries {pins} N·m");
    // The motor both drives and brakes the linkage (gravity swings the crank past its
    // no-load speed): |W| ~ 0.8 J, and E − W holds to RK4's error.
    assert!(work.abs() > 0.1, "W = {work} J");
    assert!(check.growth.abs() < 1e-6, "E − W moved by {} J", check.growth);
}

/// Loops that cannot be built are refused with their key.
#[test]
fn bad_loops_are_refused_with_their_key() {
    let path = scenario("four_bar.toml");
    for (set, key, says) in [
        (("arm.loops.0.b", "\"nobody\""), "arm.loops.0.b", "no link or joint named `nobody`"),
        (("arm.loops.0.b", "\"coupler\""), "arm.loops.0.b", "two different links"),
        (("arm.loops.0.point_b", "[3.0, 0.0, 0.0]"), "arm.loops", "do not close"),
        (("arm.loop_rate", "-1.0"), "arm.loop_rate", "positive"),
        (("arm.loop_rate", "2000.0"), "arm.loop_rate", "dt"),
        (("arm.joints.0.motor.command", "2.0"), "arm.joints.0.motor.command", "from -1 to 1"),
    ] {
        let sc = Scenario::load(&path, &[(set.0.to_string(), set.1.to_string())]).expect("parses");
        let e = ArmModel::build(&sc).err().unwrap_or_else(|| panic!("{set:?} accepted")).to_string();
        assert!(e.contains(&format!("key `{key}`")) && e.contains(says), "{set:?}: {e}");
    }
}

/// The builder refuses, with the file's keys, loops that code can write and a file cannot
/// reach: a link index out of the tree, a cut on one link, a rate that is not positive.
#[test]
fn the_builder_refuses_bad_loops() {
    let sc = Scenario::load(&scenario("four_bar.toml"), &[]).expect("scenario");
    let m = ArmModel::build(&sc).expect("arm");
    let build = |edit: &dyn Fn(&mut tumble_dynamics::multibody::system::MultibodySystem)| {
        let mut system = m.system.clone();
        edit(&mut system);
        ArmModel::builder("bad", system).state(m.initial_state.clone()).rk4(1e-3).duration(1.0).build()
    };
    let e = build(&|s| s.loops.closures[0].a = 99).expect_err("no link 99").to_string();
    assert!(e.contains("arm.loops.0"), "{e}");
    let e = build(&|s| s.loops.closures[0].b = Some(s.loops.closures[0].a)).expect_err("one link").to_string();
    assert!(e.contains("arm.loops.0"), "{e}");
    let e = build(&|s| s.loops.rate = f64::NAN).expect_err("no rate").to_string();
    assert!(e.contains("arm.loop_rate"), "{e}");
    build(&|_| {}).expect("the bundled linkage");
}
