//! A lander scenario's target rotation and Sun from SPICE kernels (`[target.spice]`,
//! `[lander.sun]`; docs/lander.md, "The Sun"): the kernels of `scenarios/lander/kernels` (the
//! Sun's position relative to Eros, leap seconds) with a text PCK written here whose pole points
//! where the test needs it, so that each check has an analytic answer. The reading of the
//! kernels themselves is checked against NAIF's toolkit in tumble-py/tests/test_interop.py.

mod common;
use common::tmp;
use std::path::{Path, PathBuf};
use tumble_dynamics::spice::{Epoch, Kernels};
use tumble_math::{UnitQuat, Vec3};
use tumble_sim::Scenario;
use tumble_sim::lander::ephemeris::{AU, SOLAR_PRESSURE_1AU};
use tumble_sim::lander::{LanderModel, LanderRun, simulate};

const EPOCH: &str = "2026-03-20T12:00:00 UTC";

fn kernels() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/lander/kernels").canonicalize().expect("kernels")
}

/// The Sun's position relative to Eros at the epoch, J2000, m, as the kernels give it.
fn sun() -> Vec3 {
    let k = Kernels::load(&[kernels().join("naif.tls"), kernels().join("eros_sun.bsp")]).expect("kernels");
    let et = k.et(&Epoch::parse(EPOCH).expect("epoch")).expect("et");
    k.state(10, 2_000_433, et).expect("state").0
}

/// A text PCK for Eros with its pole along `pole` (J2000), prime meridian `w0` degrees turning
/// at `rate` degrees per day.
fn pck(dir: &Path, pole: &Vec3, w0: f64, rate: f64) -> PathBuf {
    let p = pole.normalize();
    let (ra, dec) = (p.y.atan2(p.x).to_degrees(), p.z.asin().to_degrees());
    let text = format!(
        "\\begindata\nBODY2000433_POLE_RA = ( {ra:?} 0 0 )\nBODY2000433_POLE_DEC = ( {dec:?} 0 0 )\nBODY2000433_PM = ( {w0:?} {rate:?} 0 )\n\\begintext\n"
    );
    let path = dir.join("test.tpc");
    std::fs::write(&path, text).expect("pck");
    path
}

/// A 100 kg, 1 m box lander `height` m above the plane z = 0 of T, no gravity unless `g`,
/// with the kernels, the PCK at `pck` and `[lander.sun]` lines `sun`.
fn run(dir: &Path, pck: &Path, height: f64, g: f64, sun: &str, duration: f64) -> (LanderModel, LanderRun) {
    let k = kernels();
    let gravity =
        if g > 0.0 { format!("type = \"uniform\"\ng = [0.0, 0.0, {:?}]", -g) } else { "type = \"none\"".into() };
    let text = format!(
        r#"name = "sun"
kind = "lander"
[simulation]
duration = {duration:?}
dt = 0.01
output_interval = 1.0
[gravity]
{gravity}
[target]
shape = {{ type = "plane" }}
[target.spice]
kernels = ["{}", "{}", "{}"]
epoch = "{EPOCH}"
body = 2000433
[lander]
mass = 100.0
shape = {{ type = "box", size = [1.0, 1.0, 1.0] }}
vertices = {{ type = "box", size = [1.0, 1.0, 1.0] }}
position = [0.0, 0.0, {height:?}]
[lander.sun]
{sun}
[lander.contact]
stiffness = 5000.0
damping = 400.0
mu = 0.5
[lander.settle]
speed = 1e-3
rate = 1e-3
dwell = 5.0
"#,
        k.join("naif.tls").display(),
        pck.display(),
        k.join("eros_sun.bsp").display(),
    );
    let file = dir.join("sun.toml");
    std::fs::write(&file, text).expect("scenario");
    let sc = Scenario::load(&file, &[]).expect("scenario");
    let mut model = LanderModel::build(&sc).expect("model");
    let r = simulate(&mut model.system, model.initial_state, &model.settings, &mut |_| {});
    (model, r)
}

#[test]
fn the_target_takes_the_pck_attitude_and_spin() {
    let dir = tmp("spice_attitude");
    let pole = Vec3::new(0.3, -0.4, 0.8);
    let rate = 1639.38864745;
    let (model, _) = run(&dir, &pck(&dir, &pole, 20.0, rate), 10.0, 0.0, "tide = false", 0.01);
    let y = &model.initial_state;
    let q_nt = UnitQuat::new_normalize(tumble_math::Quat::new(y[13], y[14], y[15], y[16]));
    // T's z axis is the pole in N (J2000), and Ω is the PCK's spin about it (no pole motion).
    assert!((q_nt * Vec3::z() - pole.normalize()).norm() < 1e-14);
    let omega = Vec3::new(y[17], y[18], y[19]);
    assert!((omega - Vec3::z() * rate.to_radians() / 86_400.0).norm() < 1e-19, "{omega}");
    // The prime meridian: T's x axis is W = 20° + rate·d east of the node of the target's
    // equator on J2000's, d the days from J2000 to the epoch. W is 1.6e7 degrees there, so it
    // carries one unit in its last place, 6.5e-11 rad.
    let k = Kernels::load(&[kernels().join("naif.tls")]).expect("lsk");
    let d = k.et(&Epoch::parse(EPOCH).expect("epoch")).expect("et") / 86_400.0;
    let w = (20.0 + rate * d).to_radians();
    let node = Vec3::z().cross(&pole).normalize();
    let x = q_nt * Vec3::x();
    assert!((x.dot(&node) - w.cos()).abs() < 1e-9 && (x.dot(&pole.normalize().cross(&node)) - w.sin()).abs() < 1e-9);
}

#[test]
fn the_sun_stands_where_the_kernels_put_it() {
    let dir = tmp("spice_elevation");
    let s = sun().normalize();
    // The pole 30° from the Sun (in the plane of the Sun and J2000's z): a horizontal plane
    // sees it 60° high, at any turn of the target about that pole.
    let across = s.cross(&Vec3::z()).normalize();
    let pole = UnitQuat::from_axis_angle(&tumble_math::nalgebra::Unit::new_normalize(across), 30f64.to_radians()) * s;
    let (model, r) = run(&dir, &pck(&dir, &pole, 0.0, 400.0), 0.6, 2e-3, "tide = false", 200.0);
    assert_eq!(r.outcome.name(), "settled", "{:?}", r.outcome);
    let [touchdown, end] = tumble_sim::lander::ephemeris::illumination(&model, &r);
    // The Sun's direction moves by its relative velocity over the distance (≈ 2e-7 rad/s) in
    // the ≈ 30 s to rest: within 1e-3°.
    assert!((touchdown - 60.0).abs() < 1e-3 && (end - 60.0).abs() < 1e-3, "{touchdown} {end}");
}

#[test]
fn radiation_pressure_and_tide_follow_their_laws() {
    let dir = tmp("spice_forces");
    let s = sun();
    let (r, t) = (s.norm(), 1000.0);
    // The pole at the Sun: T's z axis along ŝ, and the target does not turn.
    let pck = pck(&dir, &s, 0.0, 0.0);
    let (_, a) = run(&dir, &pck, 1e4, 0.0, "area = 2.0\nreflectivity = 1.5", t);
    // Constant push away from the Sun: z = z₀ − ½ a t², a = P₁ (au/r)² C_r A / m.
    let accel = SOLAR_PRESSURE_1AU * (AU / r).powi(2) * 1.5 * 2.0 / 100.0;
    let z = a.final_state[2];
    assert!((1e4 - z - 0.5 * accel * t * t).abs() < 1e-9, "{} vs {}", 1e4 - z, 0.5 * accel * t * t);
    assert!(a.max_balance_error < 1e-9, "{}", a.max_balance_error);
    // The tide along the Sun line: z̈ = 2 GM/r³ z, z = z₀ cosh(√(2GM/r³) t).
    let (_, b) = run(&dir, &pck, 1e4, 0.0, "tide = true", t);
    let k = (2.0 * tumble_sim::lander::ephemeris::GM_SUN / r.powi(3)).sqrt();
    let z = b.final_state[2];
    assert!((z - 1e4 * (k * t).cosh()).abs() < 1e-10, "{} vs {}", z - 1e4, 1e4 * ((k * t).cosh() - 1.0));
    assert!(z - 1e4 > 1e-7);
}

#[test]
fn misuse_is_refused_by_key() {
    let dir = tmp("spice_misuse");
    let k = kernels();
    let base = |spice: &str, extra: &str| {
        format!(
            "name = \"x\"\nkind = \"lander\"\n[simulation]\nduration = 1.0\ndt = 0.01\n[target]\nshape = {{ type = \"plane\" }}\n{extra}\n{spice}\n[lander]\nmass = 1.0\nshape = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nvertices = {{ type = \"box\", size = [1.0, 1.0, 1.0] }}\nposition = [0.0, 0.0, 5.0]\n[lander.contact]\nstiffness = 1.0\ndamping = 0.0\nmu = 0.5\n"
        )
    };
    let spice = |kernels: &[&str], epoch: &str| {
        let list: Vec<String> = kernels.iter().map(|f| format!("\"{}\"", k.join(f).display())).collect();
        format!("[target.spice]\nkernels = [{}]\nepoch = \"{epoch}\"\nbody = 2000433\n", list.join(", "))
    };
    let pck = pck(&dir, &Vec3::z(), 0.0, 1.0);
    let pck = pck.to_str().expect("utf-8");
    let cases = [
        (
            base(&spice(&["naif.tls", pck, "eros_sun.bsp"], EPOCH), "angular_velocity = [0.0, 0.0, 1e-4]"),
            "target.angular_velocity",
            "is given by [target.spice]",
        ),
        (base(&spice(&[pck, "eros_sun.bsp"], EPOCH), ""), "target.spice.epoch", "leapseconds"),
        (
            base(&spice(&["naif.tls", pck, "eros_sun.bsp"], "2040-01-01T00:00:00"), ""),
            "target.spice.sun",
            "no ephemeris links body 10",
        ),
        (base(&spice(&["naif.tls", "eros_sun.bsp"], EPOCH), ""), "target.spice.body", "BODY2000433_POLE_RA"),
        (base(&spice(&["naif.tls", "missing.bsp"], EPOCH), ""), "target.spice.kernels", "missing.bsp"),
        (base(&spice(&["naif.tls", pck, "eros_sun.bsp"], "noon"), ""), "target.spice.epoch", "not an epoch"),
        (base("[lander.sun]\ntide = true", ""), "lander.sun", "needs the Sun's position"),
    ];
    for (n, (text, key, what)) in cases.iter().enumerate() {
        // `[lander.sun]` must follow `[lander]`: the last case moves it there.
        let text = if text.contains("[lander.sun]\ntide") {
            text.replace("[lander.sun]\ntide = true", "") + "[lander.sun]\ntide = true\n"
        } else {
            text.clone()
        };
        let file = dir.join(format!("bad{n}.toml"));
        std::fs::write(&file, &text).expect("scenario");
        let e = Scenario::load(&file, &[]).and_then(|sc| LanderModel::build(&sc).map(|_| ()));
        let e = e.expect_err("refused").to_string();
        assert!(e.contains(&format!("key `{key}`")) && e.contains(what), "case {n}: {e}");
    }
}
