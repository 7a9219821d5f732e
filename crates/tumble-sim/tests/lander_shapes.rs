//! The bundled 67P hopper's settings on every shipped shape model (docs/lander.md, "The hopper
//! on every shape"): terrain, reaction wheel, contact, settling and the aimed hop unchanged; the
//! target's shape, density and spin swapped; released 50 m above two sites of each body, with
//! its aim on the surface 40 m from the release site. Each run must end settled after its hop,
//! the hop landing where its estimate said (a saturated hop's estimate is where the limited hop
//! goes), its energy budget within the guard's limit.
//!
//! Ten runs of up to 100,000 simulated seconds, about 5 min on two cores in a release build,
//! so the matrix is left out of `cargo test` and run by name:
//! `cargo test --release -p tumble-sim --test lander_shapes -- --ignored --nocapture` (it
//! prints docs/lander.md's table; `LANDER_SHAPES=eros` runs one shape). Skipped without
//! `../shared/data`. docs/lander.md ("The hopper on every shape") has each run's figures.

use std::path::Path;
use tumble_geometry::sdf::radial_extent;
use tumble_math::Vec3;
use tumble_sim::Scenario;
use tumble_sim::lander::{LanderModel, LanderOutcome, LanderRun, simulate};

/// Shape file, unit, bulk density (kg/m³) and spin rate (rad/s): Phobos 1876 kg/m³ and 7.65 h
/// (synchronous), 67P as bundled, Itokawa 1900 kg/m³ and 12.13 h, Eros 2670 kg/m³ and 5.27 h,
/// Šteins 6.05 h with an assumed 1800 kg/m³ (its mass is not measured).
const SHAPES: [(&str, &str, f64, f64); 5] = [
    ("phobos_thomas_m1.obj", "km", 1876.0, 2.2804e-4),
    ("67p_sbgat_lowres.obj", "2712", 533.0, 1.4075e-4),
    ("itokawa_sbgat_q32.obj", "km", 1900.0, 1.4386e-4),
    ("eros_sbgat_49k.obj", "km", 2670.0, 3.3118e-4),
    ("steins_cosmographia.obj", "km", 1800.0, 2.8853e-4),
];

/// Longest run, s: released 50 m up, a hopper on 67P falls for 800 s, then may bounce down its
/// slopes for hours before it first rests (the (20°, 30°) run: 17,000 s at 0.1 m/s, 0.02 J of
/// height turned into bounces), and the hop's flight and bounces take as long again.
const DURATION: f64 = 100_000.0;

/// Sites, latitude and longitude in the shape's coordinates about its centre of mass, deg.
const SITES: [(f64, f64); 2] = [(20.0, 30.0), (-40.0, 150.0)];

fn data() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/shapes")
}

/// The hopper scenario on `shape`, released at `position`, aiming at `aim`, written to `file`.
fn scenario(file: &Path, shape: (&str, &str, f64, f64), position: Vec3, aim: Vec3) -> LanderModel {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("scenarios/lander/hopper_67p.toml")).expect("the bundled hopper");
    let v = |p: Vec3| format!("[{:?}, {:?}, {:?}]", p.x, p.y, p.z);
    let mut out = Vec::new();
    for line in text.lines() {
        let line = match line {
            l if l.starts_with("duration =") => format!("duration = {DURATION:?}"),
            l if l.starts_with("density =") => format!("density = {:?}", shape.2),
            l if l.starts_with("spin_rate =") => format!("spin_rate = {:?}", shape.3),
            l if l.starts_with("position =") => format!("position = {}", v(position)),
            l if l.starts_with("aim =") => format!("aim = {}", v(aim)),
            l if l.starts_with("shape = { type = \"mesh\"") => format!(
                "shape = {{ type = \"mesh\", path = {:?}, unit = \"{}\", resolution = 128 }}",
                data().join(shape.0).display().to_string(),
                shape.1
            ),
            l => l.to_string(),
        };
        out.push(line);
    }
    std::fs::write(file, out.join("\n")).expect("write");
    LanderModel::build(&Scenario::load(file, &[]).expect("scenario")).expect("model")
}

/// The surface point along `u` from `centre`.
fn surface(m: &LanderModel, centre: &Vec3, u: &Vec3) -> Vec3 {
    centre + u * radial_extent(m.system.surface.as_ref(), centre, u, 1e5, 1e-6).expect("a surface")
}

fn run_site(dir: &Path, shape: (&str, &str, f64, f64), (lat, lon): (f64, f64)) -> (String, LanderRun) {
    let file = dir.join(format!("{}_{lat}_{lon}.toml", shape.0));
    let probe = scenario(&file, shape, Vec3::new(1e5, 0.0, 0.0), Vec3::zeros());
    let centre = probe.system.centre;
    let (la, lo) = (lat.to_radians(), lon.to_radians());
    let u = Vec3::new(la.cos() * lo.cos(), la.cos() * lo.sin(), la.sin());
    let site = surface(&probe, &centre, &u);
    let east = Vec3::z().cross(&u).normalize();
    let turn = 40.0 / (site - centre).norm();
    let aim = surface(&probe, &centre, &(u * turn.cos() + east * turn.sin()));
    let mut m = scenario(&file, shape, site + u * 50.0, aim);
    let r = simulate(&mut m.system, m.initial_state, &m.settings, &mut |_| {});
    (format!("{} at ({lat}°, {lon}°)", shape.0), r)
}

#[test]
#[ignore = "ten hopper runs of up to 100,000 s: run by name (see the module's docs)"]
fn the_bundled_hopper_settles_on_every_shipped_shape() {
    if !data().join(SHAPES[0].0).exists() {
        eprintln!("skipped: ../shared/data is not beside the checkout");
        return;
    }
    let dir = std::env::temp_dir().join("tumble_lander_shapes");
    std::fs::create_dir_all(&dir).expect("dir");
    // `LANDER_SHAPES=eros` runs the cases whose shape file starts with that name only.
    let only = std::env::var("LANDER_SHAPES").unwrap_or_default();
    let cases: Vec<_> = SHAPES
        .iter()
        .filter(|s| s.0.starts_with(only.as_str()))
        .flat_map(|s| SITES.iter().map(move |p| (*s, *p)))
        .collect();
    let results: Vec<(String, LanderRun)> = std::thread::scope(|s| {
        let dir = &dir;
        let mut out = Vec::new();
        for pair in cases.chunks(2) {
            let runs: Vec<_> = pair.iter().map(|&(shape, site)| s.spawn(move || run_site(dir, shape, site))).collect();
            out.extend(runs.into_iter().map(|h| h.join().expect("a run")));
        }
        out
    });
    let mut failures = Vec::new();
    for (name, r) in &results {
        let Some(hop) = r.hops.first() else {
            eprintln!(
                "| {name} | {} {:.0} s | no hop | | | | | {:.1e} J | |",
                r.outcome.name(),
                r.final_time,
                r.max_balance_error
            );
            if let LanderOutcome::Failed(d) = &r.outcome {
                eprintln!("  {}: {}", d.what, d.likely_cause);
            }
            failures.push(format!("{name}: {} at {:.0} s without a hop", r.outcome.name(), r.final_time));
            continue;
        };
        // The hop's flight as predicted (from where it fired) and its miss of the prediction.
        let range = hop.predicted.map(|p| (p - hop.start).norm());
        let miss = hop.predicted.zip(hop.landing).map(|(p, l)| (l - p).norm());
        let from_aim = hop.aim.zip(hop.landing).map(|(a, l)| (l - a).norm());
        let metres = |x: Option<f64>, digits: usize| x.map_or("—".to_string(), |x| format!("{x:.digits$} m"));
        eprintln!(
            "| {name} | {} {:.0} s | {:.0} s | {} | {} | {} | {} | {:.1e} J | {:.1e} J/h |",
            r.outcome.name(),
            r.final_time,
            hop.time,
            if hop.saturated { "saturated" } else { "within limits" },
            metres(range, 1),
            metres(miss, 2),
            metres(from_aim, 1),
            r.max_balance_error,
            r.flight_error / r.flight_time.max(1e-9) * 3600.0
        );
        if let LanderOutcome::Failed(d) = &r.outcome {
            eprintln!("  {}: {}", d.what, d.likely_cause);
        }
        // Settled after a hop that landed where its estimate said: within a fifth of the
        // predicted flight or 2 m (the estimate leaves out the terrain between launch and
        // landing, and the flight of a spinning body's first strikes).
        let landed_as_predicted = range.zip(miss).is_some_and(|(d, m)| m <= (0.2 * d).max(2.0));
        if !(matches!(r.outcome, LanderOutcome::Settled(_)) && landed_as_predicted) {
            failures.push(name.clone());
        }
    }
    assert!(failures.is_empty(), "not settled after a hop landing where predicted: {failures:?}");
}
