//! The interference engine as a whole: statics of a tripod, action and reaction, invariance
//! under a rigid motion of the scene, the bristle friction's stick, slip and no-drift, thread-
//! count independence, and model-file errors.

use std::sync::Arc;
use tumble_contact::interference::{Engine, Model};
use tumble_math::{Lcg, Pose, UnitQuat, Vec3};

const G: f64 = 9.81;

fn model(text: &str) -> Arc<Model> {
    Arc::new(Model::from_toml("test.toml", text).unwrap_or_else(|e| panic!("{e}")))
}

fn ground() -> Arc<Model> {
    model(
        r#"
        [contact.floor]
        law = { k = 1e7, c = 2e4 }
        volume_law = { k = 1e10, c = 1e7 }
        friction = { model = "bristle", mu = 0.5, mu_static = 0.6, stiffness = 1e6, damping = 2e3 }
        priority = 1
        [object]
        contact = "floor"
        [[object.primitives]]
        type = "plane"
        point = [0, 0, 0]
        normal = [0, 0, 1]
        "#,
    )
}

/// A rigid body integrated by semi-implicit Euler (body-frame angular momentum equation).
struct Rigid {
    p: Vec3,
    q: UnitQuat,
    v: Vec3,
    w: Vec3,
    m: f64,
    inertia: Vec3,
}

impl Rigid {
    fn step(&mut self, f: Vec3, t: Vec3, dt: f64) {
        self.v += (f / self.m - Vec3::new(0.0, 0.0, G)) * dt;
        let w_b = self.q.inverse() * self.w;
        let t_b = self.q.inverse() * t;
        let iw = self.inertia.component_mul(&w_b);
        let dw = (t_b - w_b.cross(&iw)).component_div(&self.inertia);
        self.w = self.q * (w_b + dw * dt);
        self.p += self.v * dt;
        self.q = UnitQuat::from_scaled_axis(self.w * dt) * self.q;
    }
    fn pose(&self) -> Pose {
        Pose::new(self.p, self.q)
    }
}

#[test]
fn a_tripod_at_rest_carries_its_weight_split_as_statics_predicts() {
    let feet = [Vec3::new(0.5, 0.0, -0.3), Vec3::new(-0.3, 0.4, -0.3), Vec3::new(-0.2, -0.5, -0.3)];
    let mut text = String::from("[contact.pad]\nlaw = { k = 1e7, c = 2e4 }\n[object]\ncontact = \"pad\"\n");
    for (k, f) in feet.iter().enumerate() {
        text += &format!(
            "[[object.groups]]\nname = \"foot{k}\"\n[[object.groups.primitives]]\ntype = \"point\"\npoint = [{}, {}, {}]\n",
            f.x, f.y, f.z
        );
    }
    let mut e = Engine::new();
    let tripod = e.add_object(model(&text), "tripod");
    let floor = e.add_object(ground(), "floor");
    e.pair(tripod, floor).unwrap();
    // Centre of mass at the body origin, 0.3 m above the feet; offset from the feet's centroid
    // so that the three loads differ.
    let mut body = Rigid {
        p: Vec3::new(0.0, 0.0, 0.3005),
        q: UnitQuat::identity(),
        v: Vec3::zeros(),
        w: Vec3::zeros(),
        m: 12.0,
        inertia: Vec3::new(0.4, 0.5, 0.6),
    };
    let dt = 5e-5;
    for _ in 0..60_000 {
        e.set_body(tripod, 0, &body.pose(), body.v, body.w).unwrap();
        e.evaluate();
        e.commit(dt);
        let b = *e.body(tripod, 0);
        body.step(b.force, b.torque, dt);
    }
    let weight = body.m * G;
    let b = e.body(tripod, 0);
    // At rest the contact force is the weight (residual motion after 3 s of damped settling is
    // below 1e-9 m/s; the force balance holds to the settling residue).
    assert!((b.force.z - weight).abs() < 1e-6 * weight, "{} vs {weight}", b.force.z);
    assert!(b.force.xy().norm() < 1e-6 * weight && b.torque.norm() < 1e-6 * weight);
    // Statics: Σ F_i = W, Σ F_i x_i = W x_c, Σ F_i y_i = W y_c with the feet and the centre of
    // mass where the (slightly tilted) body puts them.
    let x = |k: usize| body.q * feet[k] + body.p;
    let a = tumble_math::Mat3::from_fn(|r, c| match r {
        0 => 1.0,
        1 => x(c).x,
        _ => x(c).y,
    });
    let f = a.lu().solve(&Vec3::new(weight, weight * body.p.x, weight * body.p.y)).unwrap();
    let got: Vec<f64> = e.contacts().iter().map(|c| c.normal_force).collect();
    assert_eq!(got.len(), 3);
    for k in 0..3 {
        assert!((got[k] - f[k]).abs() < 1e-5 * weight, "foot {k}: {} N vs statics {} N", got[k], f[k]);
        // Friction inside the static cone.
        assert!(e.contacts()[k].friction.norm() <= 0.6 * got[k] + 1e-12);
    }
    assert!(f.iter().all(|x| *x > 0.2 * weight / 3.0) && (f[0] - f[1]).abs() > 1.0, "loads should differ: {f}");
}

/// Two objects holding every primitive kind, overlapping at random poses.
fn zoo() -> Arc<Model> {
    model(
        r#"
        [contact.steel]
        law = { k = 1e6, c = 300 }
        volume_law = { k = 1e9, c = 1e5 }
        friction = { model = "coulomb", mu = 0.3, v_star = 0.01 }
        [object]
        contact = "steel"
        bv = "sphere"
        [[object.groups]]
        bv = "obb"
        [[object.groups.primitives]]
        type = "polyhedron"
        vertices = [[-0.2,-0.1,-0.1],[0.2,-0.1,-0.1],[0.2,0.1,-0.1],[-0.2,0.1,-0.1],[-0.2,-0.1,0.1],[0.2,-0.1,0.1],[0.2,0.1,0.1],[-0.2,0.1,0.1]]
        [[object.groups.primitives]]
        type = "sphere"
        center = [0.3, 0, 0]
        radius = 0.12
        [[object.groups]]
        bv = "aabb"
        movable = true
        position = [0, 0.3, 0]
        [[object.groups.primitives]]
        type = "point"
        point = [0, 0.1, 0]
        [[object.groups.primitives]]
        type = "segment"
        a = [-0.2, 0, 0.05]
        b = [0.2, 0, -0.05]
        [[object.groups.primitives]]
        type = "ray"
        origin = [0, 0, 0.3]
        direction = [0, 0, -1]
        length = 0.4
        [[object.groups.primitives]]
        type = "triangle"
        corners = [[-0.2, -0.2, 0], [0.2, -0.2, 0], [0, 0.2, 0.02]]
        [[object.groups.primitives]]
        type = "ellipsoid"
        center = [0.1, -0.1, 0.1]
        radii = [0.12, 0.07, 0.05]
        orientation = [0.5, 0.5, 0.5, 0.5]
        "#,
    )
}

fn random_scene(e: &mut Engine, rng: &mut Lcg) {
    for o in 0..2 {
        for b in 0..2 {
            let p = Vec3::new(
                rng.uniform(-0.15, 0.15),
                rng.uniform(-0.15, 0.15) + 0.3 * b as f64,
                rng.uniform(-0.15, 0.15),
            );
            let q = UnitQuat::from_euler_angles(rng.uniform(-3.0, 3.0), rng.uniform(-1.5, 1.5), rng.uniform(-3.0, 3.0));
            let v = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()) * 0.2;
            let w = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric());
            e.set_body(o, b, &Pose::new(p + Vec3::x() * 0.05 * o as f64, q), v, w).unwrap();
        }
    }
}

#[test]
fn action_equals_reaction_and_moments_balance_for_every_pair() {
    let mut e = Engine::new();
    let (a, b) = (e.add_object(zoo(), "a"), e.add_object(zoo(), "b"));
    e.pair(a, b).unwrap();
    let mut rng = Lcg::new(3);
    let mut kinds = std::collections::BTreeSet::new();
    for _ in 0..500 {
        random_scene(&mut e, &mut rng);
        e.evaluate();
        let (mut f, mut m, mut scale) = (Vec3::zeros(), Vec3::zeros(), 0.0f64);
        for o in 0..2 {
            for k in 0..2 {
                let s = e.body(o, k);
                f += s.force;
                m += s.torque + s.X_WB.p.cross(&s.force);
                scale = scale.max(s.force.norm());
            }
        }
        // Each contact adds +F and −F at one point: the sums cancel to round-off.
        assert!(f.norm() <= 1e-12 * scale.max(1.0) && m.norm() <= 1e-12 * scale.max(1.0), "{f} {m}");
        for c in e.contacts() {
            let (pa, pb) =
                (&e.objects()[0].model.prims[c.key.1 as usize], &e.objects()[1].model.prims[c.key.2 as usize]);
            kinds.insert((pa.shape.kind(), pb.shape.kind()));
            assert!(c.friction.norm() <= 0.3 * c.normal_force * (1.0 + 1e-12));
        }
    }
    assert!(kinds.len() >= 16, "pairs exercised: {kinds:?}");
}

#[test]
fn forces_are_invariant_under_a_rigid_motion_of_the_scene() {
    let mut e = Engine::new();
    let (a, b) = (e.add_object(zoo(), "a"), e.add_object(zoo(), "b"));
    e.pair(a, b).unwrap();
    let mut rng = Lcg::new(4);
    for _ in 0..200 {
        random_scene(&mut e, &mut rng);
        e.evaluate();
        let before: Vec<_> = (0..4).map(|i| *e.body(i / 2, i % 2)).collect();
        let g = Pose::new(Vec3::new(5.0, -3.0, 2.0), UnitQuat::from_euler_angles(0.7, -0.4, 2.0));
        for (i, s) in before.iter().enumerate() {
            let q = UnitQuat::from_matrix(&s.X_WB.R);
            let moved = g * Pose::new(s.X_WB.p, q);
            e.set_body(i / 2, i % 2, &moved, g.q * s.v, g.q * s.w).unwrap();
        }
        e.evaluate();
        for (i, s) in before.iter().enumerate() {
            let after = e.body(i / 2, i % 2);
            let scale = s.force.norm().max(1e-3);
            assert!(
                (after.force - g.q * s.force).norm() < 1e-9 * scale,
                "body {i}: {} vs {}",
                after.force,
                g.q * s.force
            );
            assert!((after.torque - g.q * s.torque).norm() < 1e-9 * scale);
        }
    }
}

/// A point puck (mass `m`) on the floor with bristle friction, pushed by `push(t)` along x.
fn puck(push: impl Fn(f64) -> f64, seconds: f64) -> (Vec<(f64, f64, f64)>, f64) {
    let mut e = Engine::new();
    let text = r#"
        [contact.pad]
        law = { k = 1e6, c = 2e3 }
        [object]
        contact = "pad"
        [[object.primitives]]
        type = "point"
        point = [0, 0, 0]
    "#;
    let p = e.add_object(model(text), "puck");
    let f = e.add_object(ground(), "floor");
    e.pair(p, f).unwrap();
    let m = 2.0;
    let (mut x, mut v) = (Vec3::new(0.0, 0.0, -m * G / 1e7), Vec3::zeros());
    let dt = 2e-5;
    let mut trace = Vec::new();
    let steps = (seconds / dt) as usize;
    for i in 0..steps {
        let t = i as f64 * dt;
        e.set_body(p, 0, &Pose::new(x, UnitQuat::identity()), v, Vec3::zeros()).unwrap();
        e.evaluate();
        e.commit(dt);
        let force = e.body(p, 0).force + Vec3::new(push(t), 0.0, -m * G);
        v += force / m * dt;
        x += v * dt;
        trace.push((t, x.x, v.x));
    }
    (trace, m * G)
}

#[test]
fn bristles_stick_below_the_static_limit_slide_above_it_and_do_not_drift() {
    let (mu_s, mu_k, k) = (0.6, 0.5, 1e6);
    // Hold: a load below μ_s N is carried by a bristle deflection F/((μ_s/μ_k) k), at rest.
    let n = 2.0 * G;
    let load = 0.8 * mu_s * n;
    let (trace, _) = puck(|_| load, 0.5);
    let &(_, x_end, v_end) = trace.last().unwrap();
    let expected = load / (mu_s / mu_k * k);
    assert!((x_end - expected).abs() < 1e-3 * expected, "deflection {x_end} vs {expected}");
    assert!(v_end.abs() < 1e-9, "still moving at {v_end} m/s");
    // Slide: above μ_s N the puck breaks away and accelerates at (F − μ_k N)/m.
    let load = 1.2 * mu_s * n;
    let (trace, _) = puck(|_| load, 0.4);
    let (t1, _, v1) = trace[trace.len() / 2];
    let (t2, _, v2) = *trace.last().unwrap();
    let accel = (v2 - v1) / (t2 - t1);
    let want = (load - mu_k * n) / 2.0;
    // The bristle's damping adds c·ż ≈ 0 while saturated; the residue is the normal-force ripple.
    assert!((accel - want).abs() < 1e-3 * want, "acceleration {accel} vs {want}");
    // No drift: 50 cycles of a ±0.8 μ_s N load leave the puck where it started (within one
    // bristle deflection); regularised Coulomb would creep at v* F/(μ N) per half cycle.
    let amp = 0.8 * mu_s * n;
    let (trace, _) = puck(|t| amp * (std::f64::consts::TAU * 5.0 * t).sin(), 10.0);
    let z_max = amp / (mu_s / mu_k * k);
    let late: Vec<f64> = trace.iter().filter(|s| s.0 > 9.0).map(|s| s.1).collect();
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    assert!(mean.abs() < 0.1 * z_max, "mean position over the last cycles {mean} m (deflection amplitude {z_max} m)");
    assert!(late.iter().all(|x| x.abs() <= 1.05 * z_max), "excursion beyond the bristle deflection");
}

/// Two grids' worth of primitives (400: spheres and pyramids in 20 groups of mixed volume
/// types): enough candidates to take the parallel path.
fn grid() -> Arc<Model> {
    let mut text = String::from(
        "[contact.s]\nlaw = { k = 1e6, c = 100 }\nvolume_law = { k = 1e9 }\nfriction = { model = \"coulomb\", mu = 0.4, v_star = 0.01 }\n[object]\ncontact = \"s\"\n",
    );
    for i in 0..20 {
        text += &format!("[[object.groups]]\nbv = \"{}\"\n", ["aabb", "obb", "sphere"][i % 3]);
        for j in 0..20 {
            let (x, y) = (i as f64 * 0.1, j as f64 * 0.1);
            if (i + j) % 2 == 0 {
                text += &format!(
                    "[[object.groups.primitives]]\ntype = \"sphere\"\ncenter = [{x}, {y}, 0]\nradius = 0.06\n"
                );
            } else {
                text += &format!(
                    "[[object.groups.primitives]]\ntype = \"polyhedron\"\nvertices = [[{x0},{y0},-0.05],[{x1},{y0},-0.05],[{x1},{y1},-0.05],[{x0},{y1},-0.05],[{x},{y},0.06]]\n",
                    x0 = x - 0.05,
                    x1 = x + 0.05,
                    y0 = y - 0.05,
                    y1 = y + 0.05
                );
            }
        }
    }
    model(&text)
}

/// The grid paired with a shifted, tilted, moving copy of itself.
fn grid_scene(m: &Arc<Model>) -> Engine {
    let mut e = Engine::new();
    let (a, b) = (e.add_object(m.clone(), "a"), e.add_object(m.clone(), "b"));
    e.pair(a, b).unwrap();
    let q = UnitQuat::from_euler_angles(0.01, 0.02, 0.3);
    e.set_body(b, 0, &Pose::new(Vec3::new(0.03, 0.02, 0.09), q), Vec3::new(0.1, 0.0, -0.2), Vec3::new(0.0, 0.3, 0.1))
        .unwrap();
    e
}

#[test]
fn results_are_bit_identical_for_one_and_two_threads() {
    let m = grid();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut e = Engine::new();
            let (a, b) = (e.add_object(m.clone(), "a"), e.add_object(m.clone(), "b"));
            e.pair(a, b).unwrap();
            let q = UnitQuat::from_euler_angles(0.01, 0.02, 0.3);
            e.set_body(
                b,
                0,
                &Pose::new(Vec3::new(0.03, 0.02, 0.09), q),
                Vec3::new(0.1, 0.0, -0.2),
                Vec3::new(0.0, 0.3, 0.1),
            )
            .unwrap();
            e.evaluate();
            let s = e.body(a, 0);
            (s.force, s.torque, e.contacts().len())
        })
    };
    let (one, two) = (run(1), run(2));
    assert!(one.2 > 100, "only {} contacts", one.2);
    assert_eq!(
        one.0.as_slice().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        two.0.as_slice().iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
    assert_eq!(
        one.1.as_slice().iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        two.1.as_slice().iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn bad_model_files_get_errors_naming_the_element() {
    let head = "[contact.s]\nlaw = { k = 1e6 }\n[object]\ncontact = \"s\"\n";
    let cases = [
        ("[[object.primitives]]\ntype = \"cone\"\n", "object.primitives[0]", "unknown primitive type 'cone'"),
        (
            "bv = \"kdop\"\n[[object.primitives]]\ntype = \"point\"\npoint = [0,0,0]\n",
            "object ('object').bv",
            "unknown bounding volume 'kdop'",
        ),
        (
            "[[object.groups]]\n[[object.groups.primitives]]\ntype = \"point\"\npoint = [0,0,0]\n[[object.primitives]]\ntype = \"point\"\npoint = [0,0,0]\n",
            "object ('object')",
            "either groups or primitives",
        ),
        (
            "[[object.primitives]]\ntype = \"sphere\"\ncenter = [0,0,0]\nradius = 0.0\n",
            "object.primitives[0]",
            "sphere radius must be > 0",
        ),
        (
            "[[object.primitives]]\ntype = \"polyhedron\"\nvertices = [[0,0,0],[1,0,0],[0,1,0],[0,0,1],[0.1,0.1,0.1]]\n",
            "object.primitives[0]",
            "not convex: vertex 4",
        ),
        ("[[object.primitives]]\ntype = \"point\"\npoint = [0, nan, 0]\n", "object.primitives[0]", "non-finite"),
        (
            "[[object.primitives]]\ntype = \"point\"\npoint = [0,0,0]\nradius = 1.0\n",
            "object.primitives[0]",
            "`radius` does not apply to a point",
        ),
        (
            "[[object.primitives]]\ntype = \"point\"\npoint = [0,0,0]\ncontact = \"rubber\"\n",
            "object.primitives[0].contact",
            "unknown contact set 'rubber'",
        ),
    ];
    for (body, location, message) in cases {
        let err = Model::from_toml("bad.toml", &format!("{head}{body}")).expect_err(body);
        assert!(err.location.starts_with(location), "{err}: location should be {location}");
        assert!(err.message.contains(message), "{err}: should say {message}");
        assert!(err.to_string().starts_with("bad.toml: "));
    }
    // Two sets of equal priority meeting is refused when pairing, not during a run.
    let other = model(
        "[contact.t]\nlaw = { k = 2e6 }\n[object]\ncontact = \"t\"\n[[object.primitives]]\ntype = \"plane\"\npoint = [0,0,0]\nnormal = [0,0,1]\n",
    );
    let mut e = Engine::new();
    let a = e.add_object(model(&format!("{head}[[object.primitives]]\ntype = \"point\"\npoint = [0,0,0]\n")), "a");
    let b = e.add_object(other, "b");
    assert!(e.pair(a, b).unwrap_err().to_string().contains("same priority"));
}

#[test]
fn a_steady_state_evaluation_does_not_allocate() {
    // On one pool thread, which then does all the work (the counter counts its own thread),
    // through the parallel path (more candidates than the engine runs inline).
    let m = grid();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    pool.install(|| {
        let mut e = grid_scene(&m);
        // Grow the buffers to this scene's contact set, then evaluate it again and again.
        for _ in 0..3 {
            e.evaluate();
            e.commit(1e-3);
        }
        assert!(e.candidate_count() > 64 && !e.contacts().is_empty(), "{} candidates", e.candidate_count());
        // The counter sees allocations (so the assertion below can fail).
        assert!(allocation_counter::measure(|| drop(std::hint::black_box(vec![0u8; 64]))).count_total >= 1);
        let info = allocation_counter::measure(|| {
            for _ in 0..100 {
                e.evaluate();
                e.commit(1e-3);
            }
        });
        assert_eq!(info.count_total, 0, "{} allocations in 100 evaluations", info.count_total);
    });
}

#[test]
fn a_reused_candidate_list_finds_every_contact_of_a_fresh_traversal() {
    // The zoo objects drifting and turning slowly into each other: an engine that traverses
    // every step (margin 0) and one that reuses its list within a 10 mm margin must see the
    // same contacts with the same measures; forces differ only by the order of the sum.
    let (mut fresh, mut reuse) = (Engine::default(), Engine::new());
    reuse.set_margin(0.01).unwrap();
    assert!(reuse.set_margin(-1.0).is_err() && reuse.set_margin(f64::NAN).is_err());
    for e in [&mut fresh, &mut reuse] {
        let (a, b) = (e.add_object(zoo(), "a"), e.add_object(zoo(), "b"));
        e.pair(a, b).unwrap();
    }
    let mut rng = Lcg::new(9);
    let mut poses: Vec<(Vec3, UnitQuat)> = (0..4)
        .map(|i| {
            (Vec3::new(0.05 * (i / 2) as f64 + 0.4 * (i / 2) as f64, 0.3 * (i % 2) as f64, 0.0), UnitQuat::identity())
        })
        .collect();
    let (v, w) = (Vec3::new(-0.3, 0.0, 0.02), Vec3::new(0.0, 0.4, 0.3));
    let dt = 1e-3;
    let mut seen = 0;
    for _ in 0..1500 {
        for (i, (p, q)) in poses.iter_mut().enumerate() {
            if i >= 2 {
                *p += v * dt + Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()) * 1e-5;
                *q = UnitQuat::from_scaled_axis(w * dt) * *q;
            }
            for e in [&mut fresh, &mut reuse] {
                e.set_body(i / 2, i % 2, &Pose::new(*p, *q), if i >= 2 { v } else { Vec3::zeros() }, Vec3::zeros())
                    .unwrap();
            }
        }
        fresh.evaluate();
        reuse.evaluate();
        let key = |c: &tumble_contact::interference::ActiveContact| (c.key, c.measure.to_bits());
        let mut a: Vec<_> = fresh.contacts().iter().map(key).collect();
        let mut b: Vec<_> = reuse.contacts().iter().map(key).collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        seen += a.len();
        for o in 0..2 {
            for k in 0..2 {
                let (f, g) = (fresh.body(o, k), reuse.body(o, k));
                let scale = f.force.norm().max(1.0);
                assert!((f.force - g.force).norm() < 1e-12 * scale && (f.torque - g.torque).norm() < 1e-12 * scale);
            }
        }
        fresh.commit(dt);
        reuse.commit(dt);
    }
    // The scene did collide, and the list was reused most steps: B moves ~0.3 mm per step and
    // turns 0.5 mrad (× its ~0.5 m reach), so a 10 mm margin holds for tens of steps.
    assert!(seen > 1000, "{seen}");
    assert_eq!(fresh.traversal_count(), 1500);
    assert!(reuse.traversal_count() < 150, "{}", reuse.traversal_count());
}

/// A segment of a `wire` set is the snare document's identified wire: a sphere pushed into it
/// at a quarter of its span feels the loose wire's force at that position (Table 4's slack law,
/// then the steel's stretch past `Q`), with the anchors' span told to the engine or taken from
/// the segment; a set without `wire` keeps its law.
#[test]
fn a_wire_segment_pushes_with_the_identified_wire_law() {
    let wire = model(
        r#"
        [contact.wire]
        wire = {}
        [object]
        contact = "wire"
        primitives = [{ type = "segment", a = [-0.2, 0, 0], b = [0.2, 0, 0] }]
        "#,
    );
    let ball = model(
        r#"
        [contact.steel]
        law = { k = 1e9 }
        priority = -1
        [object]
        contact = "steel"
        primitives = [{ type = "sphere", center = [0, 0, 0], radius = 0.1 }]
        "#,
    );
    let law = tumble_contact::snare::WireLaw::default();
    for (span, told) in [(0.4, false), (0.3, true)] {
        let mut e = Engine::new();
        let (w, b) = (e.add_object(wire.clone(), "wire"), e.add_object(ball.clone(), "ball"));
        e.pair(w, b).unwrap();
        if told {
            e.set_wire_span(w, Some(span)).unwrap();
        }
        // The ball's centre at x = −span/4 from the middle: s = span/4 from the first anchor
        // (a 0.1 m ball: deeper than the wire's limit Q, 42 mm here, without passing it).
        let q = law.wire(span, 0.25 * span).slack;
        for depth in [0.2 * q, 0.9 * q, 1.0005 * q] {
            let p = Vec3::new(-0.25 * span, 0.1 - depth, 0.0);
            e.set_body(b, 0, &Pose::new(p, UnitQuat::identity()), Vec3::zeros(), Vec3::zeros()).unwrap();
            e.evaluate();
            let expect = law.wire(span, 0.25 * span).force(depth, 0.0, 0.0);
            let f = e.body(b, 0).force;
            // The contact point lies on the segment at the ball's x: the position is exact to
            // rounding, and the force with it.
            assert!((f.y - expect).abs() < 1e-9 * expect, "span {span}, δ = {depth}: {} vs {expect}", f.y);
            assert!(f.x.abs() < 1e-9 * expect && f.z.abs() < 1e-9 * expect, "{f}");
        }
        // Just past Q the steel stretches: the force is far stiffer than the slack law's.
        let (at_q, past) =
            (law.wire(span, 0.25 * span).force(q, 0.0, 0.0), law.wire(span, 0.25 * span).force(1.001 * q, 0.0, 0.0));
        assert!(past > at_q + 1.0, "{at_q} → {past}");
    }
    let mut e = Engine::new();
    let w = e.add_object(wire.clone(), "wire");
    assert!(e.set_wire_span(w, Some(-1.0)).is_err() && e.set_wire_span(7, Some(1.0)).is_err());
}
