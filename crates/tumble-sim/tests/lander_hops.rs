//! Actuated hops (docs/lander.md, "Hops and the actuator"): torque profiles within the
//! actuator's limits with their work in the energy budget, and aimed hops that land nearer
//! their aim than unaimed ones on a plane.

mod common;
use common::tmp;
use std::path::Path;
use tumble_math::Vec3;
use tumble_sim::Scenario;
use tumble_sim::lander::{LanderModel, LanderOutcome, LanderRun, simulate};

/// A 10 kg, 0.3 m cube resting face down on a plane under Phobos's gravity; `{yaw}` (its
/// attitude about the vertical, `[w, x, y, z]`), `{actuator}` and `{hops}` filled in.
const RESTING: &str = r#"
name = "hops"
kind = "lander"
seed = 1
[simulation]
duration = 2000.0
dt = 0.002
output_interval = 1.0
flight_steps = 50
[gravity]
type = "uniform"
g = [0.0, 0.0, -5.7e-3]
[target]
shape = { type = "plane" }
[lander]
mass = 10.0
shape = { type = "box", size = [0.3, 0.3, 0.3] }
vertices = { type = "box", size = [0.3, 0.3, 0.3] }
position = [0.0, 0.0, 0.14999286]
orientation = {yaw}
{actuator}
[lander.contact]
stiffness = 2000.0
damping = 20.0
mu = 0.5
mu_static = 0.6
rolling = 0.01
v_star = 0.01
w_star = 0.01
[lander.settle]
speed = 1e-4
rate = 1e-3
dwell = 10.0
{hops}
"#;

fn run(dir: &Path, yaw: f64, actuator: &str, hops: &str) -> (LanderModel, LanderRun) {
    let (s, c) = (0.5 * yaw).sin_cos();
    let text = RESTING
        .replace("{yaw}", &format!("[{c:?}, 0.0, 0.0, {s:?}]"))
        .replace("{actuator}", actuator)
        .replace("{hops}", hops);
    let file = dir.join("case.toml");
    std::fs::write(&file, text).expect("write");
    let sc = Scenario::load(&file, &[]).expect("scenario");
    let mut m = LanderModel::build(&sc).expect("model");
    let r = simulate(&mut m.system, m.initial_state, &m.settings, &mut |_| {});
    (m, r)
}

const WHEEL: &str = "[lander.actuator]\ntype = \"wheel\"\nmax_torque = 0.2\nmax_momentum = 0.15";

#[test]
fn a_torque_profile_stops_where_the_wheel_saturates_and_its_work_is_booked() {
    let dir = tmp("hops_profile");
    // 0.5 N·m asked, 0.2 allowed; 1 s asked, the wheel's 0.15 N·m·s reached after 0.75 s.
    let hops = "[[lander.hops]]\ntime = 1.0\ntorque = [0.5, 0.0, 0.0]\nduration = 1.0";
    let (_, r) = run(&dir, 0.3, WHEEL, hops);
    let h = &r.hops[0];
    assert!(h.saturated, "{h:?}");
    // Cut before the step that would pass the limit: within one step's 0.2 · 0.002 N·m·s.
    assert!((h.impulse.x - 0.15).abs() <= 4e-4 + 1e-12 && h.impulse.yz().norm() == 0.0, "{:?}", h.impulse);
    // The hop's work (½ L²/I_p ≈ 0.15²/(2 · 0.6) = 0.019 J, more while the wheel turns the
    // cube) is booked: the budget closes to the integrator's error.
    assert!(r.external_work > 5e-3, "work {} J", r.external_work);
    assert!(r.max_balance_error < 1e-3 * r.external_work, "balance {:e} J", r.max_balance_error);
    assert!(matches!(r.outcome, LanderOutcome::Settled(_)), "{:?}", r.outcome);

    // An impulse past the limit is scaled down to it.
    let (_, r) = run(&dir, 0.3, WHEEL, "[[lander.hops]]\ntime = 1.0\nimpulse = [0.0, 0.3, 0.0]");
    assert!(r.hops[0].saturated && (r.hops[0].impulse.y - 0.15).abs() < 1e-12, "{:?}", r.hops[0]);
}

/// The first touchdown after the hop more than 1 m from where it left (a spinning hopper
/// strikes the ground again as it leaves; those strikes are part of the launch).
fn landing(r: &LanderRun) -> Vec3 {
    let t0 = r.hops[0].time;
    let lift = r.contacts.iter().find(|c| c.time > t0 && !c.start).expect("lifts off");
    let away = |c: &&tumble_sim::lander::ContactEvent| (c.position - lift.position).norm() > 1.0;
    r.contacts.iter().filter(|c| c.time > lift.time && c.start).find(away).expect("lands").position
}

fn median(mut x: Vec<f64>) -> f64 {
    x.sort_by(f64::total_cmp);
    0.5 * (x[(x.len() - 1) / 2] + x[x.len() / 2])
}

#[test]
fn aimed_hops_land_nearer_the_aim_than_unaimed_ones_on_a_plane() {
    let dir = tmp("hops_aim_plane");
    let aim = Vec3::new(12.0, -9.0, 0.0);
    let actuator = "[lander.actuator]\nmax_torque = 10.0\nmax_momentum = 5.0";
    let (mut aimed, mut unaimed) = (Vec::new(), Vec::new());
    for k in 0..6 {
        // Attitudes about the vertical spread over a turn.
        let yaw = 1.047 * k as f64 + 0.2;
        let hop = format!("[[lander.hops]]\ntime = 1.0\naim = [{:?}, {:?}, 0.0]", aim.x, aim.y);
        let (_, r) = run(&dir, yaw, actuator, &hop);
        aimed.push((landing(&r).xy() - aim.xy()).norm());
        // The same angular impulse about a fixed body axis: where the hopper's attitude sends it.
        let l = r.hops[0].impulse.norm();
        let blind = format!("[[lander.hops]]\ntime = 1.0\ntorque = [10.0, 0.0, 0.0]\nduration = {:?}", l / 10.0);
        let (_, r) = run(&dir, yaw, actuator, &blind);
        unaimed.push((landing(&r).xy() - aim.xy()).norm());
    }
    let (ma, mu) = (median(aimed.clone()), median(unaimed.clone()));
    eprintln!("plane, 15 m hops: miss aimed {aimed:.2?} (median {ma:.2}), unaimed {unaimed:.2?} (median {mu:.2}) m");
    assert!(ma < 0.25 * mu, "aimed {ma} m against unaimed {mu} m");
}

#[test]
fn hop_keys_are_checked_by_name() {
    let dir = tmp("hops_errors");
    let cases = [
        ("", "[[lander.hops]]\ntime = 1.0\naim = [1.0, 0.0, 0.0]", "lander.hops.0.aim"),
        (WHEEL, "[[lander.hops]]\ntime = 1.0\ntorque = [1.0, 0.0, 0.0]", "lander.hops.0.duration"),
        (WHEEL, "[[lander.hops]]\ntime = 1.0\nimpulse = [1.0, 0.0, 0.0]\naim = [1.0, 0.0, 0.0]", "lander.hops.0"),
        (WHEEL, "[[lander.hops]]\ntime = -1.0\nimpulse = [1.0, 0.0, 0.0]", "lander.hops.0.time"),
        (WHEEL, "[[lander.hops]]\ntime = 1.0\nimpulse = [1.0, 0.0, 0.0]\nduration = 2.0", "lander.hops.0.duration"),
        ("[lander.actuator]\nmax_torque = 0.0\nmax_momentum = 1.0", "", "lander.actuator.max_torque"),
        ("[lander.actuator]\nmax_torque = 1.0\nmax_momentum = -1.0", "", "lander.actuator.max_momentum"),
    ];
    for (actuator, hops, key) in cases {
        let text =
            RESTING.replace("{yaw}", "[1.0, 0.0, 0.0, 0.0]").replace("{actuator}", actuator).replace("{hops}", hops);
        let file = dir.join("case.toml");
        std::fs::write(&file, text).expect("write");
        let e = Scenario::load(&file, &[]).and_then(|sc| LanderModel::build(&sc).map(|_| ()));
        let e = e.err().map(|e| e.to_string()).unwrap_or_else(|| panic!("accepted: {hops} {actuator}"));
        assert!(e.contains(key), "{key}: {e}");
    }
}
