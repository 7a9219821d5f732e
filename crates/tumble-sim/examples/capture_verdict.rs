//! The capture document's online check for one capture, from code: the chaser and the 500 kg
//! tumbling target of the bundled capture-map scenario, the detumble controller and its funnel
//! built once, then the verdict `V₀(predicted) < ρ₀` on pre-capture states chosen here — the
//! nominal one, and the same target tumbling four times faster — each proved right or wrong by
//! detumbling it. The nominal capture must be judged safe and detumble; the fast one must be
//! judged unsafe (the verdict is conservative — the funnel's inlet is the largest ellipsoid free
//! of sampled failures — and this capture still detumbles, as 448 of the 1000 checks judged
//! unsafe in docs/capture.md do).
//!
//! ```text
//! cargo run -p tumble-sim --example capture_verdict
//! ```

use tumble_math::nalgebra::DVector;
use tumble_sim::Scenario;
use tumble_sim::capture_map::CaptureStudy;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/capture_map/tumbling_500kg.toml");
    // 100 sampled captures estimate the funnel (the scenario takes 300).
    let sc = Scenario::load(path.as_ref(), &[("capture.roa.samples".into(), "100".into())])?;
    let study = CaptureStudy::build(&sc)?;
    let controller = study.controller(2)?;
    println!(
        "funnel inlet rho0 = {:.4e} from {} sampled captures",
        controller.funnel.rho0,
        controller.estimation.len()
    );

    // Pre-capture states: the chaser's velocities as the scenario has them; the target's
    // `[v_G; ω]` (m/s, rad/s, world axes) at its nominal tumble and four times faster.
    let v_c = study.v_c.clone();
    let nominal = study.v_t.clone();
    let mut fast = nominal.clone();
    fast.rows_mut(3, 3).scale_mut(4.0);
    let mut verdicts = Vec::new();
    for (name, v_t) in [("nominal tumble", &nominal), ("tumble x4", &fast)] {
        // No impulse measured here: the verdict is predicted from the true one.
        let v = study.verdict(&controller, &v_c, v_t, None::<&DVector<f64>>)?;
        println!(
            "{name}: |ω| = {:.4} rad/s, V0 = {:.4e}, margin V0/rho0 = {:.3e}: predicted {}; the detumble {} (final rate {:.2e} rad/s)",
            v_t.rows(3, 3).norm(),
            v.v0_predicted,
            v.v0_predicted / v.rho0,
            if v.safe { "safe" } else { "unsafe" },
            if v.rollout.success { "succeeds" } else { "fails" },
            v.rollout.final_rate
        );
        verdicts.push(v);
    }
    if !(verdicts[0].safe && verdicts[0].rollout.success) {
        return Err("the nominal capture should be judged safe and detumble".into());
    }
    if verdicts[1].safe {
        return Err("a tumble four times faster should be judged unsafe".into());
    }
    Ok(())
}
