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

#[test]
fn a_membrane_drop_animates_the_body_over_the_membrane() {
    let sc = scenario("capture/drop_test.toml");
    let m = tumble_sim::membrane::MembraneDrop::build(&sc).unwrap();
    let run = m.run();
    let bytes = tumble_sim::membrane::animation(&m, &run).glb().unwrap();
    let g = gltf::Gltf::from_slice(&bytes).expect("a valid glTF");
    let names: Vec<_> = g.nodes().filter_map(|n| n.name().map(str::to_string)).collect();
    assert!(names.contains(&"body".to_string()) && names.contains(&"membrane".to_string()), "{names:?}");
    let a = g.animations().next().expect("an animation");
    assert!(a.channels().all(|c| c.target().node().name() == Some("body")));
    assert!(a.channels().all(|c| c.sampler().input().count() == run.samples.len()));
    // The body's mesh keeps every triangle of the shape.
    let body = g.meshes().find(|m| m.name() == Some("body")).unwrap();
    let idx = body.primitives().next().unwrap().indices().unwrap();
    assert_eq!(idx.count(), 3 * m.mesh.faces.len());
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
    let a = g.animations().next().unwrap();
    assert!(a.channels().all(|c| c.target().node().name() == Some("lander")));
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

#[test]
fn a_grapple_run_animates_the_arm_and_the_payload() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/snare/jemrms_snare.toml");
    let sc = Scenario::load(&path, &[("simulation.duration".into(), "0.5".into())]).expect("scenario");
    let cap = tumble_sim::grapple::GrappleCapture::build(&sc).unwrap();
    let run = cap.run();
    let bytes = tumble_sim::grapple::animation(&cap, &run).glb().unwrap();
    let g = gltf::Gltf::from_slice(&bytes).expect("a valid glTF");
    let links = cap.arm.system.model.links.len();
    assert_eq!(g.nodes().count(), links + 2);
    let a = g.animations().next().unwrap();
    assert_eq!(a.channels().count(), 2 * (links + 1));
    assert!(a.channels().all(|c| c.sampler().input().count() == run.samples.len()));
    assert!(g.nodes().any(|n| n.name() == Some("payload")));
}

#[test]
fn an_asteroid_capture_animates_the_asteroid_and_the_spacecraft() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/capture/asteroid_capture.toml");
    let sc = Scenario::load(&path, &[("simulation.duration".into(), "20".into())]).expect("scenario");
    let m = tumble_sim::asteroid_capture::AsteroidCapture::build(&sc).unwrap();
    let run = m.run();
    let bytes = tumble_sim::asteroid_capture::animation(&m, &run).glb().unwrap();
    let g = gltf::Gltf::from_slice(&bytes).expect("a valid glTF");
    let links = m.spacecraft.model.links.len();
    // Root, asteroid, links; every one of them animated.
    assert_eq!(g.nodes().count(), links + 2);
    let a = g.animations().next().unwrap();
    assert_eq!(a.channels().count(), 2 * (links + 1));
    assert!(a.channels().all(|c| c.sampler().input().count() == run.samples.len()));
}

#[test]
fn the_floating_target_experiment_animates_the_target_over_the_wire() {
    let exp = tumble_sim::snare::WireExperiment::table5(0.05);
    let run = exp.run().unwrap();
    let kept: Vec<_> = run.samples.iter().step_by(10).collect();
    let bytes = tumble_sim::snare::animation(&exp, &kept).glb().unwrap();
    let g = gltf::Gltf::from_slice(&bytes).expect("a valid glTF");
    assert_eq!(g.nodes().count(), 3);
    let a = g.animations().next().unwrap();
    assert!(a.channels().all(|c| c.target().node().name() == Some("target")));
    assert!(a.channels().all(|c| c.sampler().input().count() == kept.len()));
}
