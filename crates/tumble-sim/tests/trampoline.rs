//! The membrane document's 2D trampoline as a scenario kind (`membrane_2d`): its energy
//! identity with friction on, its static equilibrium against the closed form, and its inputs
//! refused by key.

use std::path::Path;
use tumble_sim::membrane_2d::sim::TrampolineSim;
use tumble_sim::membrane_2d::{Trampoline, TrampolineRun};
use tumble_sim::pipeline::Driver;
use tumble_sim::scenario::Scenario;

const SCENARIO: &str = "../../scenarios/membrane/trampoline_2d.toml";

fn model(set: &[(&str, &str)]) -> Result<Trampoline, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SCENARIO);
    let o: Vec<(String, String)> = set.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let sc = Scenario::load(&path, &o).map_err(|e| e.to_string())?;
    Trampoline::build(&sc).map_err(|e| e.to_string())
}

fn run(m: Trampoline) -> TrampolineRun {
    let sim = TrampolineSim::new(std::sync::Arc::new(m));
    let schedule = sim.schedule();
    let (sim, end) = Driver::run_whole(sim, schedule, &mut |_| {});
    sim.finish(end)
}

/// The largest budget error of a run, J, with its damping and friction losses.
fn budget(r: &TrampolineRun) -> (f64, f64, f64) {
    let b0 = r.samples[0].budget();
    let last = r.samples.last().expect("samples");
    let err = r.samples.iter().map(|s| (s.budget() - b0).abs()).fold(0.0, f64::max);
    (err, last.damping_loss, last.friction_loss)
}

#[test]
fn the_energy_identity_holds_with_friction_on() {
    // The bundled drop: the plate bounces, slides and spins on the membrane; friction takes a
    // large share of the energy, and T + V_g + ½k(ℓ − ℓ₀)² + D_c + D_f stays constant to the
    // integration error, which falls with the step (the hull's kinks make it first order: a
    // vertex joining the membrane changes the force's slope inside a step).
    let coarse = run(model(&[("simulation.dt", "0.002")]).expect("model"));
    let fine = run(model(&[]).expect("model"));
    assert!(fine.diagnosis.is_none() && coarse.diagnosis.is_none());
    let (e1, damping, friction) = budget(&fine);
    let (e2, _, _) = budget(&coarse);
    let scale = fine.samples[0].budget();
    println!("budget error {e2:.3e} J at 2 ms, {e1:.3e} J at 1 ms; damping {damping:.1} J, friction {friction:.1} J");
    assert!(friction > 0.3 * scale && damping > 0.3 * scale, "friction {friction}, damping {damping} of {scale}");
    assert!(e1 < 1e-5 * scale, "{e1} J of {scale}");
    assert!(e2 > 1.8 * e1, "the error shrinks with the step: {e2} → {e1}");
    // Friction only ever takes energy (its power on the slip is never positive).
    assert!(fine.samples.windows(2).all(|w| w[1].friction_loss >= w[0].friction_loss - 1e-12));
}

#[test]
fn a_plate_at_rest_hangs_where_the_closed_form_says() {
    // Frictionless, centred, level, strongly damped: it settles with its bottom edge (half-width
    // a = 0.6 m) flat at depth d where the two free segments from (±6, 0) to (±a, −d), each
    // of length s = √((6 − a)² + d²), carry the tension T = k(ℓ − ℓ₀), ℓ = 2a + 2s, and hold
    // the weight: 2 T d / s = m g.
    let set = [
        ("trampoline.mu", "0"),
        ("trampoline.c", "400"),
        ("trampoline.body.position", "[0.0, 1.0]"),
        ("trampoline.body.angle", "0"),
        ("trampoline.body.velocity", "[0.0, 0.0]"),
        ("trampoline.body.angular_velocity", "0"),
        ("simulation.duration", "30"),
    ];
    let m = model(&set).expect("model");
    let (k, mg, a) = (m.membrane.k, m.mass * 9.81, 0.6);
    let weight_held = |d: f64| {
        let s = ((6.0 - a) * (6.0 - a) + d * d).sqrt();
        2.0 * k * (2.0 * a + 2.0 * s - 12.0) * d / s - mg
    };
    let (mut lo, mut hi) = (1e-6, 6.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if weight_held(mid) < 0.0 { lo = mid } else { hi = mid }
    }
    let r = run(m);
    let last = r.samples.last().expect("samples").state;
    let bottom = last[1] - 0.3;
    println!("rest depth {:.6} m, closed form {:.6} m", -bottom, lo);
    // Settled (the slowest mode, the bounce, is damped in a few seconds) and level.
    assert!(last[3].hypot(last[4]) < 1e-6 && last[2].abs() < 1e-9, "{last:?}");
    assert!((-bottom - lo).abs() < 1e-6, "depth {} vs {lo}", -bottom);
}

#[test]
fn bad_trampolines_are_refused_by_key() {
    for (key, value, named) in [
        ("trampoline.body.polygon", "[[-0.6, 0.3], [0.6, 0.3], [0.6, -0.3], [-0.6, -0.3]]", "trampoline.body.polygon"),
        ("trampoline.body.polygon", "[[0.0, 0.0], [1.0, 0.0]]", "trampoline.body.polygon"),
        ("trampoline.right", "-7.0", "trampoline.left"),
        ("trampoline.k", "-1.0", "trampoline.k"),
        ("trampoline.mu", "1e300", "trampoline.mu"),
        ("gravity.g", "[0.0, -9.81, 1.0]", "gravity.g"),
        ("trampoline.body.mass", "0", "trampoline.body.mass"),
        ("trampoline.body.position", "[1e300, 0.0]", "trampoline.body"),
    ] {
        let e = model(&[(key, value)]).expect_err(key);
        assert!(e.contains(&format!("`{named}`")), "{key} = {value}: {e}");
    }
}

#[test]
fn a_step_too_coarse_is_named_by_its_replays() {
    // At 40 ms the plate's impact on the 400 N/m² membrane (its bounce mode about 1.8 rad/s, but
    // a touching corner's far faster) is not resolved: the budget grows past 0.01 of the energy.
    // The guard replays the steps since its checkpoint at dt/4 and dt/16, finds the growth gone
    // and names the step, with the one that held over the replayed span: that step gets past
    // the time of the trip (what the replay measured; later impacts may want less).
    let coarse = model(&[("simulation.dt", "0.04"), ("simulation.output_interval", "0.04")]).expect("model");
    let d = run(coarse).diagnosis.expect("the coarse step trips the guard");
    println!("{d}");
    let text = d.to_string();
    assert!(text.contains("the time step: replayed from"), "{text}");
    let advised: f64 = text
        .split("simulation.dt ≤ ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("an advised step");
    let every = format!("{}", advised * 4.0);
    let fine =
        model(&[("simulation.dt", &advised.to_string()), ("simulation.output_interval", &every)]).expect("model");
    let again = run(fine);
    let end = again.diagnosis.as_ref().map_or(f64::INFINITY, |d| d.time);
    assert!(end > d.time, "the advised step {advised} s passes {} s: {:?}", d.time, again.diagnosis);
}
