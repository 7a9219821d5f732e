//! A lander on a plane, built in code and stepped in your own loop.
//!
//! A 10 kg box of 0.4 m falls 5 cm onto a plane under 0.05 m/s² of gravity. The loop reads the
//! contact force after every step and applies its own rule: once the box has been calm (speed
//! below 1 mm/s and rate below 1 mrad/s) for one second, its internal wheel fires an angular
//! impulse about y, a hop; when it is calm again after the hop, the loop ends. Touchdowns (any
//! vertex meeting the plane, rocking included) are counted from the step's events; those faster
//! than 2 cm/s are printed.
//!
//! ```text
//! cargo run -p tumble-sim --example lander_hop
//! ```

use std::sync::Arc;
use tumble_contact::VertexContactParams;
use tumble_dynamics::Uniform;
use tumble_geometry::sdf::HalfSpace;
use tumble_math::{UnitQuat, Vec3};
use tumble_sim::lander::{LanderSettings, LanderSim, LanderSystem, pack};
use tumble_sim::pipeline::{Driver, Events, Simulation, Stop};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut system = LanderSystem::builder()
        .mass(10.0)
        .box_shape(Vec3::new(0.4, 0.4, 0.4))
        .contact(VertexContactParams {
            stiffness: 1e4, // N/m per vertex
            damping: 50.0,  // N·s/m per vertex, compression only
            mu: 0.5,
            mu_static: 0.5,
            rolling: 0.0,
            v_star: 1e-3, // m/s
            w_star: 1e-3, // rad/s
            stable_dt: 0.0,
        })
        .surface(Arc::new(HalfSpace { point: Vec3::zeros(), normal: Vec3::z() }))
        .gravity(Arc::new(Uniform { g: Vec3::new(0.0, 0.0, -0.05) }))
        .build()?;
    // Every step of 1 ms for at most 120 s, a sample every 10 ms; no built-in events: the rules
    // are ours.
    let settings = LanderSettings { output_every: 10, ..LanderSettings::plain(1e-3, 120.0) };
    let start = pack(
        Vec3::new(0.0, 0.0, 0.25), // centre of mass, m: the bottom face 5 cm up
        Vec3::zeros(),             // velocity, m/s
        UnitQuat::identity(),      // attitude
        Vec3::new(0.0, 0.02, 0.0), // body rate, rad/s
        UnitQuat::identity(),      // target attitude
        Vec3::zeros(),             // target rate, rad/s
    );
    let sim = LanderSim::new(&mut system, start, &settings)?;
    let schedule = sim.schedule();
    let mut driver = Driver::new(sim, schedule);

    let (mut calm_since, mut hopped_at, mut touchdowns, mut peak) = (None::<f64>, None::<f64>, 0, 0.0_f64);
    let stop = loop {
        let report = driver.step()?;
        let t = driver.sim().time();
        let snap = driver.sim().snapshot();
        // The contact's total force on the box (normal, friction, rolling resistance), N.
        let force = snap.normal.force + snap.tangential.friction + snap.tangential.rolling_force;
        peak = peak.max(force.norm());
        if report.events.contains(Events::CONTACT_START) {
            touchdowns += 1;
            if snap.kin.v.norm() > 0.02 {
                println!("t = {t:7.3} s: touchdown {touchdowns} at {:.4} m/s", snap.kin.v.norm());
            }
        }
        if snap.kin.v.norm() < 1e-3 && snap.kin.w.norm() < 1e-3 {
            calm_since.get_or_insert(t);
        } else {
            calm_since = None;
        }
        if calm_since.is_some_and(|c| t - c >= 1.0) {
            if hopped_at.is_some() {
                println!("t = {t:7.3} s: calm again, contact force {:.4} N (weight 0.5 N)", force.norm());
                break Stop::Settled;
            }
            println!("t = {t:7.3} s: calm for 1 s, contact force {:.4} N: hop", force.norm());
            driver.sim_mut().hop(Vec3::new(0.0, 0.6, 0.0));
            hopped_at = Some(t);
            calm_since = None;
        }
        if let Some(stop) = report.stop {
            break stop;
        }
    };
    let run = driver.into_inner().finish(Ok(stop));
    println!(
        "{:?} at t = {:.3} s: {} touchdowns, peak contact force {peak:.2} N, {} samples, energy balance error {:.2e} J",
        run.outcome,
        run.final_time,
        run.bounces(),
        run.rows.len(),
        run.max_balance_error
    );
    match (stop, hopped_at) {
        (Stop::Settled, Some(_)) => Ok(()),
        _ => Err(format!("expected a hop and a second rest within {} s", settings.duration).into()),
    }
}
