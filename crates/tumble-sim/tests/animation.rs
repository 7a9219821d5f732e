//! `animation.glb`: read back by an independent glTF loader (the `gltf` crate, which validates
//! the document's structure and indices): one animated node per moving body, its samplers as
//! long as the run's samples, meshes with positions and normals.

use std::path::PathBuf;
use tumble_sim::mechanism::{Mechanism, animation};
use tumble_sim::scenario::Scenario;

fn scenario(name: &str) -> Scenario {
    Scenario::load(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name), &[])
        .expect("scenario")
}

#[test]
fn a_mechanism_run_animates_each_moving_body() {
    let m = Mechanism::build(&scenario("contact/drawer.toml")).unwrap();
    let run = m.run();
    let bytes = animation(&m, &run).glb().unwrap();
    let g = gltf::Gltf::from_slice(&bytes).expect("a valid glTF");
    let bin = g.blob.as_deref().expect("a BIN chunk");
    // The root (Z-up → Y-up), the two bodies and the pallet's contact-force arrow; the pallet
    // moves, the rails do not, the arrow moves, turns and scales.
    assert_eq!(g.nodes().count(), 4);
    let anims: Vec<_> = g.animations().collect();
    assert_eq!(anims.len(), 1);
    let all: Vec<_> = anims[0].channels().collect();
    assert_eq!(all.len(), 5);
    let arrow = all.iter().filter(|c| c.target().node().name() == Some("pallet contact force")).count();
    assert_eq!(arrow, 3);
    let channels: Vec<_> = all.into_iter().filter(|c| c.target().node().name() == Some("pallet")).collect();
    assert_eq!(channels.len(), 2);
    for c in &channels {
        let s = c.sampler();
        assert_eq!(s.input().count(), run.samples.len());
        assert_eq!(s.output().count(), run.samples.len());
    }
    // The pallet's last translation sample is where the run left it (f32).
    let tr = channels.iter().find(|c| c.target().property() == gltf::animation::Property::Translation).unwrap();
    let out = tr.sampler().output();
    let view = out.view().unwrap();
    let at = view.offset() + out.offset() + (out.count() - 1) * 12;
    let x = f32::from_le_bytes(bin[at..at + 4].try_into().unwrap()) as f64;
    let last = run.samples.last().unwrap().bodies[0][0].x;
    assert!((x - last).abs() < 1e-6, "{x} vs {last}");
    // Every mesh primitive has positions and normals.
    for mesh in g.meshes() {
        for p in mesh.primitives() {
            assert!(p.get(&gltf::Semantic::Positions).is_some() && p.get(&gltf::Semantic::Normals).is_some());
        }
    }
}

/// The surface `name`'s shapes: for each, the lowest vertex height (f32, from the accessor's
/// bounds) and its scale sampler's key times and values.
fn surface_shapes(g: &gltf::Gltf, name: &str) -> Vec<(f64, Vec<f32>, Vec<f32>)> {
    let bin = g.blob.as_deref().unwrap();
    let floats = |a: &gltf::Accessor, n: usize| -> Vec<f32> {
        let at = a.view().unwrap().offset() + a.offset();
        (0..a.count() * n).map(|k| f32::from_le_bytes(bin[at + 4 * k..at + 4 * k + 4].try_into().unwrap())).collect()
    };
    let anim = g.animations().next().unwrap();
    let surface = g.nodes().find(|n| n.name() == Some(name)).expect("the surface node");
    surface
        .children()
        .map(|c| {
            let pos = c.mesh().unwrap().primitives().next().unwrap().get(&gltf::Semantic::Positions).unwrap();
            let zmin = pos.min().unwrap()[2].as_f64().unwrap();
            let ch = anim.channels().find(|ch| ch.target().node().index() == c.index()).expect("a scale channel");
            assert_eq!(ch.target().property(), gltf::animation::Property::Scale);
            assert_eq!(ch.sampler().interpolation(), gltf::animation::Interpolation::Step);
            let scales: Vec<f32> = floats(&ch.sampler().output(), 3).iter().step_by(3).copied().collect();
            (zmin, floats(&ch.sampler().input(), 1), scales)
        })
        .collect()
}

/// Exactly one of the shapes is shown at each sample time `t` (the last key at or before `t`
/// holds under step interpolation).
fn one_shape_at_a_time(shapes: &[(f64, Vec<f32>, Vec<f32>)], times: impl Iterator<Item = f64>) {
    for t in times {
        let shown = shapes
            .iter()
            .filter(|(_, keys, scales)| {
                let k = keys.iter().rposition(|&k| k <= t as f32).expect("a key at the start");
                scales[k] == 1.0
            })
            .count();
        assert_eq!(shown, 1, "{shown} shapes at t = {t}");
    }
}

#[test]
fn a_membrane_drop_animates_the_body_and_the_deflecting_membrane() {
    let sc = scenario("membrane/drop_test.toml");
    let m = tumble_sim::membrane_drop::MembraneDrop::build(&sc).unwrap();
    let run = m.run();
    let bytes = tumble_sim::membrane_drop::animation(&m, &run).glb().unwrap();
    let g = gltf::Gltf::from_slice(&bytes).expect("a valid glTF");
    let names: Vec<_> = g.nodes().filter_map(|n| n.name().map(str::to_string)).collect();
    assert!(names.contains(&"body".to_string()) && names.contains(&"membrane force".to_string()), "{names:?}");
    let a = g.animations().next().expect("an animation");
    let body: Vec<_> = a.channels().filter(|c| c.target().node().name() == Some("body")).collect();
    assert_eq!(body.len(), 2);
    assert!(body.iter().all(|c| c.sampler().input().count() == run.samples.len()));
    // The body's mesh keeps every triangle of the shape.
    let mesh = g.meshes().find(|m| m.name() == Some("body")).unwrap();
    let idx = mesh.primitives().next().unwrap().indices().unwrap();
    assert_eq!(idx.count(), 3 * m.mesh.faces.len());
    // The membrane: flat before contact, then deflected; its lowest point over the run is the
    // run's deepest penetration (the hull's lowest corner is the deepest body vertex; f32).
    let shapes = surface_shapes(&g, "membrane");
    assert!(shapes.len() > 10, "{} shapes", shapes.len());
    assert_eq!(shapes[0].0, 0.0);
    let deepest = run.samples.iter().map(|s| s.contact.depth).fold(0.0, f64::max);
    let lowest = shapes.iter().map(|s| -s.0).fold(0.0, f64::max);
    assert!(deepest > 0.01 && (lowest - deepest).abs() < 1e-6 * deepest.max(1.0), "{lowest} vs {deepest}");
    one_shape_at_a_time(&shapes, run.samples.iter().map(|s| s.t));
}

#[test]
fn a_rigid_run_animates_each_body_as_its_inertia_box() {
    let sc = scenario("basics/dzhanibekov.toml");
    let mut model = tumble_sim::Model::build(&sc).unwrap();
    let res = tumble_sim::simulate(&mut model, &mut |_| {});
    let bytes = tumble_sim::rigid_animation(&model, &res).glb().unwrap();
    let g = gltf::Gltf::from_slice(&bytes).expect("a valid glTF");
    let bin = g.blob.as_deref().unwrap();
    let a = g.animations().next().unwrap();
    assert_eq!(a.channels().count(), 2 * model.system.bodies.len());
    // The box has the body's inertia: its vertices' second moments along the principal axes
    // (8 corners of a uniform box: I_xx = m (b² + c²) / 3 with half-extents a, b, c).
    let body = &model.system.bodies[0];
    let mesh = g.meshes().next().unwrap();
    let pos = mesh.primitives().next().unwrap().get(&gltf::Semantic::Positions).unwrap();
    let at = pos.view().unwrap().offset() + pos.offset();
    let corners: Vec<tumble_math::Vec3> = (0..pos.count())
        .map(|k| {
            let f = |j: usize| {
                f32::from_le_bytes(bin[at + 12 * k + 4 * j..at + 12 * k + 4 * j + 4].try_into().unwrap()) as f64
            };
            tumble_math::Vec3::new(f(0), f(1), f(2))
        })
        .collect();
    let second: tumble_math::Mat3 = corners.iter().map(|c| c * c.transpose()).sum::<tumble_math::Mat3>() / 8.0;
    // Uniform box: ∫x x^T dm = m diag(a², b², c²)/3 = m · (corner second moment) / 3.
    let inertia = (tumble_math::Mat3::identity() * second.trace() - second) * (body.mass / 3.0);
    assert!((inertia - body.inertia).norm() < 1e-5 * body.inertia.norm(), "{inertia} vs {}", body.inertia);
}

#[test]
fn a_lander_run_animates_the_lander_over_its_target() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/lander/hopper_comet.toml");
    let sc = Scenario::load(&path, &[("simulation.duration".into(), "60".into())]).expect("scenario");
    let mut model = tumble_sim::lander::LanderModel::build(&sc).unwrap();
    let run = tumble_sim::lander::simulate(&mut model.system, model.initial_state, &model.settings, &mut |_| {});
    let bytes = tumble_sim::lander::animation(&model, &run).glb().unwrap();
    let g = gltf::Gltf::from_slice(&bytes).expect("a valid glTF");
    // The lander moves; the contact-force arrow moves, turns and scales.
    let a = g.animations().next().unwrap();
    assert_eq!(a.channels().filter(|c| c.target().node().name() == Some("lander")).count(), 2);
    assert_eq!(a.channels().filter(|c| c.target().node().name() == Some("contact force")).count(), 3);
    assert!(a.channels().all(|c| c.sampler().input().count() == run.rows.len()));
    // The comet drawn from its mesh, within the face budget.
    let target = g.meshes().find(|m| m.name() == Some("target")).expect("the target");
    let faces = target.primitives().next().unwrap().indices().unwrap().count() / 3;
    assert!(faces > 1000 && faces <= 60_000, "{faces}");
}

#[test]
fn an_arm_run_animates_every_link() {
    let sc = scenario("arms/double_pendulum.toml");
    let mut model = tumble_sim::arm::ArmModel::build(&sc).unwrap();
    let run = model.simulate();
    let bytes = tumble_sim::arm::animation(&model, &run).glb().unwrap();
    let g = gltf::Gltf::from_slice(&bytes).expect("a valid glTF");
    let links = model.system.model.links.len();
    assert_eq!(g.nodes().count(), links + 1);
    let a = g.animations().next().unwrap();
    assert_eq!(a.channels().count(), 2 * links);
    assert!(a.channels().all(|c| c.sampler().input().count() == run.rows.len()));
}

/// The capture study's nominal detumble: every link of the chaser and the welded target, a frame
/// every 0.2 s over the 120 s horizon (601 of the design's 2401 steps).
#[test]
fn a_capture_study_animates_its_nominal_detumble() {
    use tumble_sim::capture_map::CaptureStudy;
    let study = CaptureStudy::build(&scenario("capture_map/tumbling_500kg.toml")).unwrap();
    let c = study.controller(2).unwrap();
    let rep = tumble_sim::capture_map::CaptureReport {
        maps: vec![],
        design: c.design,
        nominal: c.nominal,
        funnel: c.funnel,
        estimation: c.estimation,
        verification: vec![],
        online: None,
    };
    let bytes = tumble_sim::capture_map::animation(&study, &rep).glb().unwrap();
    let g = gltf::Gltf::from_slice(&bytes).expect("a valid glTF");
    let links = study.plant.model.links.len();
    assert_eq!(g.nodes().count(), links + 1);
    let a = g.animations().next().unwrap();
    assert!(a.channels().all(|c| c.sampler().input().count() == 601));
}

#[test]
fn a_grapple_run_animates_the_arm_the_payload_and_the_closing_wires() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/snare/jemrms_snare.toml");
    let sc = Scenario::load(&path, &[("simulation.duration".into(), "3".into())]).expect("scenario");
    let cap = tumble_sim::grapple::GrappleCapture::build(&sc).unwrap();
    let run = cap.run();
    let bytes = tumble_sim::grapple::animation(&cap, &run).glb().unwrap();
    let g = gltf::Gltf::from_slice(&bytes).expect("a valid glTF");
    let links = cap.arm.system.model.links.len();
    // Root, links, payload, three wires, the force arrow.
    assert_eq!(g.nodes().count(), links + 6);
    let a = g.animations().next().unwrap();
    assert_eq!(a.channels().count(), 2 * (links + 1) + 3 * 4);
    assert!(a.channels().all(|c| c.sampler().input().count() == run.samples.len()));
    assert!(g.nodes().any(|n| n.name() == Some("payload")));
    // Each wire is a chord of the ring spanning the closing angle Δ: length 2R sin(Δ/2) (f32).
    let tumble_sim::grapple::Effector::Snare(sn) = &cap.effector else { panic!("a snare") };
    let bin = g.blob.as_deref().unwrap();
    let scale = a
        .channels()
        .find(|c| {
            c.target().node().name() == Some("wire 2") && c.target().property() == gltf::animation::Property::Scale
        })
        .unwrap();
    let out = scale.sampler().output();
    let base = out.view().unwrap().offset() + out.offset();
    let (first, last) = (run.samples[0].closing_angle, run.samples.last().unwrap().closing_angle);
    assert!(last > first, "the snare closes within the run: {first} → {last}");
    for (k, s) in run.samples.iter().enumerate() {
        let at = base + 12 * k + 8;
        let len = f32::from_le_bytes(bin[at..at + 4].try_into().unwrap()) as f64;
        let want = 2.0 * sn.snare.ring_radius * (0.5 * s.closing_angle).sin();
        assert!((len - want).abs() < 1e-6, "t = {}: {len} vs {want}", s.t);
    }
}

#[test]
fn an_asteroid_capture_animates_the_asteroid_and_the_spacecraft() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/membrane/asteroid_capture.toml");
    let sc = Scenario::load(&path, &[("simulation.duration".into(), "20".into())]).expect("scenario");
    let m = tumble_sim::membrane_capture::MembraneCapture::build(&sc).unwrap();
    let run = m.run();
    let bytes = tumble_sim::membrane_capture::animation(&m, &run).glb().unwrap();
    let g = gltf::Gltf::from_slice(&bytes).expect("a valid glTF");
    let links = m.spacecraft.model.links.len();
    // Root, asteroid, links, the force arrow, the membrane and its shapes.
    let shapes = surface_shapes(&g, "membrane");
    assert_eq!(g.nodes().count(), links + 4 + shapes.len());
    // The asteroid and every link move (translation, rotation), the arrow also scales.
    let a = g.animations().next().unwrap();
    let moving: Vec<_> =
        a.channels().filter(|c| c.sampler().interpolation() == gltf::animation::Interpolation::Linear).collect();
    assert_eq!(moving.len(), 2 * (links + 1) + 3);
    assert!(moving.iter().all(|c| c.sampler().input().count() == run.samples.len()));
    // The membrane meets the asteroid within these 20 s and deflects.
    assert!(shapes.len() > 2 && run.samples.iter().any(|s| s.contact.in_contact), "{} shapes", shapes.len());
    one_shape_at_a_time(&shapes, run.samples.iter().map(|s| s.t));
}

#[test]
fn the_floating_target_experiment_animates_the_target_and_the_bending_wire() {
    let exp = tumble_sim::snare::WireExperiment::table5(0.05);
    let run = exp.run().unwrap();
    let kept: Vec<_> = run.samples.iter().step_by(10).collect();
    let bytes = tumble_sim::snare::animation(&exp, &kept).glb().unwrap();
    let g = gltf::Gltf::from_slice(&bytes).expect("a valid glTF");
    // Root, target, the wire's two segments, the force arrow.
    assert_eq!(g.nodes().count(), 5);
    let a = g.animations().next().unwrap();
    assert_eq!(a.channels().filter(|c| c.target().node().name() == Some("target")).count(), 2);
    assert!(a.channels().all(|c| c.sampler().input().count() == kept.len()));
    // At the deepest sample the two segments run from the wire's ends to the probe's tip: their
    // lengths (the z scales) are the distances from the tip, computed here from the pose (f32).
    let bin = g.blob.as_deref().unwrap();
    let k = (0..kept.len()).max_by(|&i, &j| kept[i].delta.total_cmp(&kept[j].delta)).unwrap();
    assert!(kept[k].delta > 1e-3, "{}", kept[k].delta);
    let [x, y, th] = kept[k].pose;
    let tip =
        [x + th.cos() * exp.probe[0] - th.sin() * exp.probe[1], y + th.sin() * exp.probe[0] + th.cos() * exp.probe[1]];
    for (name, end) in [("wire to the left end", 0.0), ("wire to the right end", 0.175)] {
        let c = a
            .channels()
            .find(|c| {
                c.target().node().name() == Some(name) && c.target().property() == gltf::animation::Property::Scale
            })
            .unwrap();
        let out = c.sampler().output();
        let at = out.view().unwrap().offset() + out.offset() + 12 * k + 8;
        let len = f32::from_le_bytes(bin[at..at + 4].try_into().unwrap()) as f64;
        let want = (tip[0] - end).hypot(tip[1]);
        assert!((len - want).abs() < 1e-6, "{name}: {len} vs {want}");
    }
}
