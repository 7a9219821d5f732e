//! Benchmarks of the interference engine (figures in BENCHMARKS.md):
//!
//! 1. contact-tester throughput per pair type against parry3d-f64 on the same queries;
//! 2. full evaluations of two paired objects of 10,000+ primitives each, one body moving every
//!    step, on 1 and 2 threads, traversing every step (margin 0) and reusing the candidate list
//!    within the default 1 mm margin, with the heap allocations per steady-state step counted
//!    (`allocation-counter`, on the thread that drives the evaluation).
//!
//! `cargo run --release -p tumble-contact --example interference_bench [testers|evaluation]`

use parry3d_f64::math::{Pose as PPose, Rotation as PRot, Vector as PVec};
use parry3d_f64::query::{PointQuery, Ray, RayCast};
use parry3d_f64::shape::{Ball, ConvexPolyhedron as PPoly, Segment, Shape, Triangle};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;
use tumble_contact::interference::testers::{Scratch, run, tester};
use tumble_contact::interference::{Contacts, Engine, Frame, Model};
use tumble_geometry::convex::ConvexPolyhedron;
use tumble_geometry::primitive::Primitive;
use tumble_math::{Lcg, Pose, UnitQuat, Vec3};

fn pv(v: &Vec3) -> PVec {
    PVec::new(v.x, v.y, v.z)
}

fn best_of(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// A named pair: Tumble's primitives and parry's shapes for the same geometry.
type Case = (&'static str, Primitive, Primitive, Box<dyn Shape>, Box<dyn Shape>);

fn testers() {
    let n = 20_000;
    let mut rng = Lcg::new(1);
    let frames: Vec<Frame> = (0..n)
        .map(|_| {
            let q = UnitQuat::from_euler_angles(rng.uniform(-3.0, 3.0), rng.uniform(-1.5, 1.5), rng.uniform(-3.0, 3.0));
            Frame {
                R: *q.to_rotation_matrix().matrix(),
                p: Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()) * 0.5,
            }
        })
        .collect();
    let poses: Vec<PPose> = frames
        .iter()
        .map(|f| {
            let q = UnitQuat::from_matrix(&f.R);
            PPose::from_parts(pv(&f.p), PRot::from_xyzw(q.i, q.j, q.k, q.w))
        })
        .collect();
    let boxp = ConvexPolyhedron::cuboid(Vec3::new(0.3, 0.2, 0.1));
    let pbox = PPoly::from_convex_hull(&boxp.vertices.iter().map(pv).collect::<Vec<_>>()).unwrap();
    let t = [Vec3::new(-0.5, -0.4, 0.0), Vec3::new(0.6, -0.3, 0.0), Vec3::new(0.0, 0.5, 0.0)];
    let ptri = Triangle::new(pv(&t[0]), pv(&t[1]), pv(&t[2]));
    let seg = (Vec3::new(-0.2, 0.0, 0.0), Vec3::new(0.2, 0.05, 0.0));
    let cases: Vec<Case> = vec![
        (
            "sphere–sphere",
            Primitive::Sphere { center: Vec3::zeros(), radius: 0.3 },
            Primitive::Sphere { center: Vec3::zeros(), radius: 0.3 },
            Box::new(Ball::new(0.3)),
            Box::new(Ball::new(0.3)),
        ),
        (
            "sphere–polyhedron",
            Primitive::Sphere { center: Vec3::zeros(), radius: 0.2 },
            Primitive::Polyhedron(Box::new(boxp.clone())),
            Box::new(Ball::new(0.2)),
            Box::new(pbox.clone()),
        ),
        (
            "sphere–triangle",
            Primitive::Sphere { center: Vec3::zeros(), radius: 0.2 },
            Primitive::Triangle(t),
            Box::new(Ball::new(0.2)),
            Box::new(ptri),
        ),
        (
            "segment–polyhedron",
            Primitive::Segment { a: seg.0, b: seg.1 },
            Primitive::Polyhedron(Box::new(boxp.clone())),
            Box::new(Segment::new(pv(&seg.0), pv(&seg.1))),
            Box::new(pbox.clone()),
        ),
        (
            "segment–sphere",
            Primitive::Segment { a: seg.0, b: seg.1 },
            Primitive::Sphere { center: Vec3::zeros(), radius: 0.2 },
            Box::new(Segment::new(pv(&seg.0), pv(&seg.1))),
            Box::new(Ball::new(0.2)),
        ),
        (
            "triangle–polyhedron",
            Primitive::Triangle(t),
            Primitive::Polyhedron(Box::new(boxp.clone())),
            Box::new(ptri),
            Box::new(pbox.clone()),
        ),
        (
            "polyhedron–polyhedron",
            Primitive::Polyhedron(Box::new(boxp.clone())),
            Primitive::Polyhedron(Box::new(boxp.clone())),
            Box::new(pbox.clone()),
            Box::new(pbox.clone()),
        ),
    ];
    println!("| pair | Tumble ns/query | parry3d-f64 ns/query (`contact`) | contacts found (Tumble / parry) |");
    println!("|---|---|---|---|");
    let mut scratch = Scratch::default();
    let mut out = Contacts::default();
    for (name, a, b, ga, gb) in &cases {
        let d = tester(a.kind(), b.kind());
        let mut found = 0;
        let ours = best_of(5, || {
            found = 0;
            for f in &frames {
                run(d, a, b, f, &mut out, &mut scratch);
                found += !out.is_empty() as usize;
                black_box(&out);
            }
        });
        let mut pfound = 0;
        let theirs = best_of(5, || {
            pfound = 0;
            for p in &poses {
                let c = parry3d_f64::query::contact(&PPose::IDENTITY, ga.as_ref(), p, gb.as_ref(), 0.0).unwrap();
                pfound += c.is_some_and(|c| c.dist < 0.0) as usize;
                black_box(c);
            }
        });
        println!("| {name} | {:.0} | {:.0} | {found} / {pfound} |", ours / n as f64 * 1e9, theirs / n as f64 * 1e9);
    }
    // Point–polyhedron against parry's point projection; ray–polyhedron against its ray cast.
    let pts: Vec<Vec3> = frames.iter().map(|f| f.p * 0.5).collect();
    let pb = Primitive::Polyhedron(Box::new(boxp.clone()));
    let d = tester(tumble_geometry::primitive::PrimitiveKind::Point, pb.kind());
    let ours = best_of(5, || {
        for x in &pts {
            run(d, &Primitive::Point(*x), &pb, &Frame::identity(), &mut out, &mut scratch);
            black_box(&out);
        }
    });
    let theirs = best_of(5, || {
        for x in &pts {
            black_box(pbox.project_local_point(pv(x), false));
        }
    });
    println!(
        "| point–polyhedron | {:.0} | {:.0} (`project_local_point`) | |",
        ours / n as f64 * 1e9,
        theirs / n as f64 * 1e9
    );
    let rays: Vec<(Vec3, Vec3)> = frames.iter().map(|f| (f.R.column(0) * 1.0, -f.R.column(0).into_owned())).collect();
    let ours = best_of(5, || {
        for (o, dir) in &rays {
            let ray = Primitive::Ray { origin: *o, direction: *dir, length: 1.0 };
            run(tester(ray.kind(), pb.kind()), &ray, &pb, &Frame::identity(), &mut out, &mut scratch);
            black_box(&out);
        }
    });
    let theirs = best_of(5, || {
        for (o, dir) in &rays {
            black_box(pbox.cast_local_ray(&Ray::new(pv(o), pv(dir)), 1.0, true));
        }
    });
    println!("| ray–polyhedron | {:.0} | {:.0} (`cast_local_ray`) | |", ours / n as f64 * 1e9, theirs / n as f64 * 1e9);
    // Ellipsoid pairs: parry has no ellipsoid.
    let ell = Primitive::Ellipsoid {
        center: Vec3::zeros(),
        rotation: *UnitQuat::from_euler_angles(0.3, 0.2, 0.1).to_rotation_matrix().matrix(),
        radii: Vec3::new(0.3, 0.2, 0.15),
    };
    let others = [
        ("point", Primitive::Point(Vec3::new(0.1, 0.0, 0.05))),
        ("plane", Primitive::Plane { point: Vec3::zeros(), normal: Vec3::z() }),
        ("segment", Primitive::Segment { a: seg.0, b: seg.1 }),
        ("ray", Primitive::Ray { origin: Vec3::new(0.0, 0.0, 0.6), direction: -Vec3::z(), length: 0.6 }),
        ("sphere", Primitive::Sphere { center: Vec3::zeros(), radius: 0.2 }),
        ("triangle", Primitive::Triangle(t)),
        ("ellipsoid", ell.clone()),
        ("polyhedron", Primitive::Polyhedron(Box::new(boxp.clone()))),
    ];
    for (name, o) in &others {
        let d = tester(o.kind(), ell.kind());
        let mut found = 0;
        let ours = best_of(5, || {
            found = 0;
            for f in &frames {
                run(d, o, &ell, f, &mut out, &mut scratch);
                found += !out.is_empty() as usize;
                black_box(&out);
            }
        });
        println!("| {name}–ellipsoid | {:.0} | — | {found} / — |", ours / n as f64 * 1e9);
    }
}

/// A plate of `side²` primitives (`side` a power of two) in a quadtree of groups with 4×4
/// leaves, as a modeller would arrange it.
fn plate(side: usize, kind: &str, bv: &str) -> String {
    let mut s = String::from(
        "[contact.s]\nlaw = { k = 1e6, c = 100 }\nvolume_law = { k = 1e9, c = 1e4 }\nfriction = { model = \"bristle\", mu = 0.3, mu_static = 0.35, stiffness = 1e5, damping = 10 }\n[object]\ncontact = \"s\"\n",
    );
    quad(&mut s, "object", 0, 0, side, kind, bv);
    s
}

fn quad(s: &mut String, prefix: &str, i0: usize, j0: usize, size: usize, kind: &str, bv: &str) {
    let h = 0.01;
    if size == 4 {
        for i in i0..i0 + 4 {
            for j in j0..j0 + 4 {
                let (x, y) = (i as f64 * 2.0 * h, j as f64 * 2.0 * h);
                *s += &match kind {
                    "sphere" => {
                        format!("[[{prefix}.primitives]]\ntype = \"sphere\"\ncenter = [{x}, {y}, 0]\nradius = {h}\n")
                    }
                    _ => format!(
                        "[[{prefix}.primitives]]\ntype = \"polyhedron\"\nvertices = [[{a},{c},-{h}],[{b},{c},-{h}],[{b},{d},-{h}],[{a},{d},-{h}],[{x},{y},{h}]]\n",
                        a = x - h,
                        b = x + h,
                        c = y - h,
                        d = y + h
                    ),
                };
            }
        }
        return;
    }
    let half = size / 2;
    let child = format!("{prefix}.groups");
    for (di, dj) in [(0, 0), (0, half), (half, 0), (half, half)] {
        *s += &format!("[[{child}]]\nbv = \"{bv}\"\n");
        quad(s, &child, i0 + di, j0 + dj, half, kind, bv);
    }
}

fn full_evaluation() {
    let side = 128; // 16,384 primitives per object
    let a = Arc::new(Model::from_toml("plate_a", &plate(side, "polyhedron", "aabb")).unwrap());
    let b = Arc::new(Model::from_toml("plate_b", &plate(side, "sphere", "obb")).unwrap());
    println!("\nobjects: {} polyhedra (AABB tree) vs {} spheres (OBB tree)", a.primitive_count(), b.primitive_count());
    println!(
        "| threads | margin (mm) | contacts | traversals | mean µs per step (evaluate + commit) | best µs | real-time factor at 1 kHz (mean) | allocations per step |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for margin in [0.0, 1e-3] {
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                let mut e = Engine::new();
                e.set_margin(margin).unwrap();
                let (oa, ob) = (e.add_object(a.clone(), "a"), e.add_object(b.clone(), "b"));
                e.pair(oa, ob).unwrap();
                // The sphere plate tilted over the pyramid plate, a band of it in contact, sliding
                // at 2 mm/s and sinking at 0.2 mm/s: its pose advances every step.
                let q = UnitQuat::from_euler_angles(0.02, 0.0, 0.05);
                let (v, dt) = (Vec3::new(0.002, 0.0, -0.0002), 1e-3);
                let mut p = Vec3::new(0.005, 0.004, 0.0185);
                let mut step = |e: &mut Engine| {
                    p += v * dt;
                    e.set_body(ob, 0, &Pose::new(p, q), v, Vec3::zeros()).unwrap();
                    e.evaluate();
                    e.commit(dt);
                };
                for _ in 0..5 {
                    step(&mut e);
                }
                let (steps, before) = (1000, e.traversal_count());
                let (mut best, mut total) = (f64::INFINITY, 0.0);
                // Counted on the thread that drives the evaluation (with one thread: all the work).
                let info = allocation_counter::measure(|| {
                    for _ in 0..steps {
                        let t = Instant::now();
                        step(&mut e);
                        let dt = t.elapsed().as_secs_f64();
                        best = best.min(dt);
                        total += dt;
                    }
                });
                let (mean, allocs) = (total / steps as f64, info.count_total as f64 / steps as f64);
                println!(
                    "| {threads} | {} | {} | {} | {:.0} | {:.0} | {:.1}× | {allocs:.2} |",
                    margin * 1e3,
                    e.contacts().len(),
                    e.traversal_count() - before,
                    mean * 1e6,
                    best * 1e6,
                    1e-3 / mean
                );
            });
        }
    }
}

fn main() {
    let only = std::env::args().nth(1);
    if only.as_deref() != Some("evaluation") {
        testers();
    }
    if only.as_deref() != Some("testers") {
        full_evaluation();
    }
}
