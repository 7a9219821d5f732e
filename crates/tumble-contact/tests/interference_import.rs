//! Geometry import: the documented example (docs/examples/import, written by its make_guide.py)
//! as OBJ and as glTF, against the geometry it was made from; and import errors.

use std::path::Path;
use tumble_contact::interference::Model;
use tumble_geometry::primitive::{Primitive, PrimitiveKind};
use tumble_math::{Lcg, Vec3};

fn example(file: &str) -> Model {
    Model::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/import").join(file))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Support values of a primitive in 64 fixed directions: two primitives with equal support
/// functions are the same convex set (orientation and vertex order aside).
fn support(p: &Primitive) -> Vec<f64> {
    let mut rng = Lcg::new(5);
    (0..64).map(|_| p.support(&Vec3::new(rng.normal(), rng.normal(), rng.normal()).normalize())).collect()
}

fn expected() -> Vec<(PrimitiveKind, &'static str, Primitive)> {
    let (c, s) = ((std::f64::consts::PI / 6.0).cos(), (std::f64::consts::PI / 6.0).sin());
    let axes = tumble_math::Mat3::new(c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0);
    let corners: Vec<Vec3> = [-1.0, 1.0]
        .iter()
        .flat_map(|&x| [-1.0, 1.0].map(move |y| (x, y)))
        .flat_map(|(x, y)| [-1.0, 1.0].map(move |z| Vec3::new(x * 0.1, y * 0.1, 0.1 + z * 0.1)))
        .collect();
    vec![
        (
            PrimitiveKind::Polyhedron,
            "steel",
            Primitive::Polyhedron(Box::new(tumble_geometry::convex::ConvexPolyhedron::new(&corners).unwrap())),
        ),
        (PrimitiveKind::Sphere, "rubber", Primitive::Sphere { center: Vec3::new(0.3, 0.0, 0.05), radius: 0.05 }),
        (PrimitiveKind::Point, "steel", Primitive::Point(Vec3::new(0.5, 0.0, 0.0))),
        (PrimitiveKind::Point, "steel", Primitive::Point(Vec3::new(-0.25, 0.4330127, 0.0))),
        (PrimitiveKind::Point, "steel", Primitive::Point(Vec3::new(-0.25, -0.4330127, 0.0))),
        (
            PrimitiveKind::Segment,
            "steel",
            Primitive::Segment { a: Vec3::new(-0.4, 0.2, 0.0), b: Vec3::new(0.0, 0.2, 0.0) },
        ),
        (
            PrimitiveKind::Segment,
            "steel",
            Primitive::Segment { a: Vec3::new(0.0, 0.2, 0.0), b: Vec3::new(0.4, 0.25, 0.0) },
        ),
        (
            PrimitiveKind::Ellipsoid,
            "steel",
            Primitive::Ellipsoid {
                center: Vec3::new(0.0, -0.3, 0.05),
                rotation: axes,
                radii: Vec3::new(0.08, 0.04, 0.03),
            },
        ),
        (
            PrimitiveKind::Ray,
            "steel",
            Primitive::Ray { origin: Vec3::new(0.0, 0.0, 0.5), direction: -Vec3::z(), length: 0.2 },
        ),
    ]
}

fn check(m: &Model, tol: f64) {
    let mut want = expected();
    // The plane is unbounded: its point and normal are checked apart.
    let mut planes = 0;
    for p in &m.prims {
        let set = &m.params[p.params as usize].name;
        if let Primitive::Plane { point, normal } = &p.shape {
            assert!((normal - Vec3::z()).norm() < tol && (point.z + 0.01).abs() < tol, "{point} {normal}");
            planes += 1;
            continue;
        }
        let s = support(&p.shape);
        let k = want
            .iter()
            .position(|(kind, wset, w)| {
                *kind == p.shape.kind() && *wset == set && support(w).iter().zip(&s).all(|(a, b)| (a - b).abs() < tol)
            })
            .unwrap_or_else(|| panic!("unexpected primitive {} ({set}): {:?}", p.name, p.shape));
        want.swap_remove(k);
    }
    assert!(want.is_empty() && planes == 1, "missing: {want:?}");
}

#[test]
fn the_obj_example_imports_the_modelled_geometry() {
    // OBJ holds 9 decimals: 1e-8 m.
    check(&example("guide.toml"), 1e-8);
}

#[test]
fn the_gltf_example_imports_the_same_geometry() {
    // glTF stores f32: 1e-7 relative on ~0.5 m coordinates.
    check(&example("guide_gltf.toml"), 1e-6);
}

#[test]
fn import_errors_name_the_file_and_the_object() {
    let dir = std::env::temp_dir().join(format!("tumble_import_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = |obj: &str, import: &str| {
        std::fs::write(dir.join("part.obj"), obj).unwrap();
        let text = format!(
            "[contact.s]\nlaw = {{ k = 1e5 }}\n[object]\ncontact = \"s\"\n[[object.groups]]\nimport = {import}\n"
        );
        std::fs::write(dir.join("m.toml"), text).unwrap();
        Model::load(&dir.join("m.toml")).unwrap_err().to_string()
    };
    let cube = "o Cube\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n";
    let e = model(cube, "{ file = \"part.obj\" }");
    assert!(e.contains("object 'Cube'") && e.contains("part.obj") && e.contains("sphere_"), "{e}");
    let e = model(cube, "{ file = \"missing.obj\" }");
    assert!(e.contains("missing.obj"), "{e}");
    let e = model(&cube.replace("Cube", "hull_cube"), "{ file = \"part.obj\", up = \"x\" }");
    assert!(e.contains("import.up") && e.contains("expected"), "{e}");
    let e = model("o sphere_a\nv 0 0 0\nf 1 2 3\n", "{ file = \"part.obj\" }");
    assert!(e.contains("line 3") && e.contains("out of range"), "{e}");
    let e = model(&cube.replace("Cube", "hull_cube@nosuch"), "{ file = \"part.obj\" }");
    assert!(e.contains("unknown contact set 'nosuch'"), "{e}");
    // A mesh of CAD or scan resolution as one object: refused at the face past the bound, before
    // the engine's setup (quadratic in the faces) would take minutes.
    let many = format!(
        "o polyhedron_scan\n{}{}",
        cube.replace("o Cube\n", "").replace("f 1 2 3\n", ""),
        "f 1 2 3\n".repeat(10_001)
    );
    let e = model(&many, "{ file = \"part.obj\" }");
    assert!(e.contains("line 10006") && e.contains("more than 10000 faces"), "{e}");
    // A glTF accessor claiming more elements than its buffer holds is refused before reading.
    let gltf = r#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[0]}],"nodes":[{"name":"sphere_a","mesh":0}],
        "meshes":[{"primitives":[{"attributes":{"POSITION":0},"mode":0}]}],
        "accessors":[{"bufferView":0,"componentType":5126,"count":1000000000000000,"type":"VEC3"}],
        "bufferViews":[{"buffer":0,"byteLength":12}],
        "buffers":[{"byteLength":12,"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAA"}]}"#;
    std::fs::write(dir.join("big.gltf"), gltf).unwrap();
    let e = model("", "{ file = \"big.gltf\" }");
    assert!(e.contains("accessor 0") && e.contains("past the end"), "{e}");
    // A buffer URI that leaves the model's folder is refused, not read as vertex data; so is
    // a mesh file that is a link (here to a device).
    for uri in ["../../../../etc/passwd", "/etc/passwd", "sub/../../x.bin", "file:///etc/passwd"] {
        std::fs::write(
            dir.join("escape.gltf"),
            gltf.replace("data:application/octet-stream;base64,AAAAAAAAAAAAAAAA", uri),
        )
        .unwrap();
        let e = model("", "{ file = \"escape.gltf\" }");
        assert!(e.contains("must be in the model's folder") && e.contains(uri), "{uri}: {e}");
    }
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.obj")).unwrap();
    let e = model("", "{ file = \"zero.obj\" }");
    assert!(e.contains("zero.obj") && e.contains("symbolic link"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Blender latch (docs/examples/blender_tree, written by make_latch.py as Blender's exporter
/// writes it): the parenting tree with a movable empty becomes two bodies, the pivot's pose
/// from the file turned from Y-up into Z-up, the tip's scale applied, the ignored bolt left out,
/// and both contact sets read from extras.
#[test]
fn a_blender_tree_keeps_its_movable_groups_and_contact_sets() {
    let m = Model::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/blender_tree/latch.gltf"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.name, "latch");
    let names: Vec<&str> = m.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["object", "HookPivot"]);
    // The pivot: at (0.1, 0, 0.05), turned 30° about the up axis (Blender's Z, Tumble's Z).
    let home = &m.bodies[1].home;
    let (c, s) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
    let Rz = tumble_math::Mat3::new(c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0);
    assert!((home.p - Vec3::new(0.1, 0.0, 0.05)).norm() < 1e-15, "{:?}", home.p);
    assert!((home.R - Rz).norm() < 1e-15, "{}", home.R);
    // Primitives by body: the plate on the root, the hook and tip on the pivot (its frame).
    let body_of = |name: &str| {
        let node = m.nodes.iter().position(|n| n.name == name).unwrap() as u32;
        m.bodies.iter().position(|b| under(&m, b.root, node)).unwrap()
    };
    assert_eq!((body_of("Plate"), body_of("hull_hook"), body_of("Tip")), (0, 1, 1));
    let prim = |name: &str| m.prims.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no {name}"));
    let params = |name: &str| &m.params[prim(name).params as usize];
    // f32 vertices in the file: 1e-8 m is their rounding at 0.2 m (6e-9) with margin.
    match &prim("Tip").shape {
        Primitive::Sphere { center, radius } => {
            assert!((center - Vec3::new(0.2, 0.0, 0.0)).norm() < 1e-8, "{center}");
            assert!((radius - 0.02).abs() < 1e-8, "{radius}");
        }
        other => panic!("Tip is {other:?}"),
    }
    let hook = Primitive::Polyhedron(Box::new(
        tumble_geometry::convex::ConvexPolyhedron::new(
            &[0.0, 0.2]
                .iter()
                .flat_map(|&x| [-0.02, 0.02].map(move |y| (x, y)))
                .flat_map(|(x, y)| [-0.02, 0.02].map(move |z| Vec3::new(x, y, z)))
                .collect::<Vec<_>>(),
        )
        .unwrap(),
    ));
    let gap =
        support(&prim("hull_hook").shape).iter().zip(support(&hook)).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(gap < 1e-8, "hook support differs by {gap}");
    assert!(m.prims.iter().all(|p| !p.name.starts_with("Bolt")), "the ignored bolt was read");
    // Sets from extras: the scene's steel for the plate and hook, the tip's own rubber.
    assert_eq!((params("Plate").name.as_str(), params("hull_hook").name.as_str()), ("steel", "steel"));
    let rubber = params("Tip");
    assert_eq!((rubber.name.as_str(), rubber.priority), ("rubber", 1));
    let law = rubber.law.as_ref().unwrap();
    assert_eq!(law.stiffness, tumble_contact::laws::Stiffness::Power { k: 2e5, p: 1.0 });
    assert_eq!(law.damping, tumble_contact::laws::Damping::HuntCrossley { alpha: 0.5 });
    assert_eq!(rubber.friction, tumble_contact::interference::Friction::Coulomb { mu: 0.8, v_star: 1e-3 });
    match &params("Plate").friction {
        tumble_contact::interference::Friction::Bristle(b) => {
            assert_eq!((b.mu, b.stiffness, b.damping), (0.3, 1e4, 50.0))
        }
        other => panic!("{other:?}"),
    }
}

/// Whether `node` is in the tree under `root`.
fn under(m: &Model, root: u32, node: u32) -> bool {
    root == node || m.nodes[root as usize].children.iter().any(|&c| under(m, c, node))
}

/// Each misuse of the Blender tree's extras is refused naming the node.
#[test]
fn a_blender_tree_refuses_misused_extras_by_node_name() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/blender_tree/latch.gltf");
    let base: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    let dir = std::env::temp_dir().join(format!("tumble_tree_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let node = |doc: &serde_json::Value, name: &str| {
        doc["nodes"].as_array().unwrap().iter().position(|n| n["name"] == name).unwrap()
    };
    type Edit = fn(&mut serde_json::Value, usize, usize);
    let cases: [(&str, Edit, &str); 7] = [
        (
            "unknown key",
            |d, p, _| d["nodes"][p]["extras"]["tumble_movable"] = true.into(),
            "node 'HookPivot': unknown extras key `tumble_movable`",
        ),
        (
            "movable not a boolean",
            |d, p, _| d["nodes"][p]["extras"]["movable"] = "yes".into(),
            "node 'HookPivot': extras `movable` must be true or false",
        ),
        (
            "type on an empty",
            |d, p, _| d["nodes"][p]["extras"]["tumble_type"] = "sphere".into(),
            "node 'HookPivot': extras `tumble_type` on a node without a mesh",
        ),
        (
            "set defined twice",
            |d, _, t| {
                d["nodes"][t]["extras"]["tumble_sets"]["steel"] =
                    d["scenes"][0]["extras"]["tumble_sets"]["steel"].clone()
            },
            "node 'Tip': contact set 'steel' is defined twice",
        ),
        (
            "bad set",
            |d, _, t| d["nodes"][t]["extras"]["tumble_sets"]["rubber"]["law"]["kk"] = 1.into(),
            "node 'Tip': tumble_sets.rubber: unknown field `kk`",
        ),
        (
            "mirrored",
            |d, p, _| d["nodes"][p]["scale"] = serde_json::json!([1.0, -1.0, 1.0]),
            "node 'HookPivot': its transform mirrors or flattens space",
        ),
        (
            "unknown set",
            |d, _, t| d["nodes"][t]["extras"]["tumble_contact"] = "glue".into(),
            "node 'Tip' extras tumble_contact: unknown contact set 'glue'",
        ),
    ];
    for (what, edit, expect) in cases {
        let mut doc = base.clone();
        let (p, t) = (node(&doc, "HookPivot"), node(&doc, "Tip"));
        edit(&mut doc, p, t);
        let file = dir.join("latch.gltf");
        std::fs::write(&file, doc.to_string()).unwrap();
        let e = Model::load(&file).err().unwrap_or_else(|| panic!("{what}: loaded")).to_string();
        assert!(e.contains(expect), "{what}: {e}");
    }
    std::fs::remove_dir_all(dir).ok();
}

/// A TOML model imports the same tree (`tree = true`) under one of its groups, with its own
/// contact sets beside the file's.
#[test]
fn a_toml_model_imports_a_blender_tree() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/blender_tree");
    let m = Model::from_toml(
        dir.join("latch_station.toml").to_str().unwrap(),
        r#"
        [contact.frame]
        law = { k = 5e6, c = 500 }
        [object]
        contact = "frame"
        [[object.groups]]
        name = "station"
        primitives = [{ type = "plane", point = [0, 0, -0.5], normal = [0, 0, 1] }]
        [[object.groups]]
        name = "latch"
        position = [1.0, 0.0, 0.0]
        import = { file = "latch.gltf", tree = true }
        "#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = m.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["object", "HookPivot"]);
    assert!((m.bodies[1].home.p - Vec3::new(1.1, 0.0, 0.05)).norm() < 1e-15);
    let sets: Vec<&str> = m.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(sets, ["frame", "rubber", "steel"]);
}

/// The new user's case: the same file imported flat (its meshes as one group's primitives)
/// would lose the movable pivot, so it is refused with the way to keep it.
#[test]
fn a_flat_import_of_a_tree_with_movable_nodes_is_refused() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/blender_tree");
    let e = Model::from_toml(
        dir.join("flat.toml").to_str().unwrap(),
        "[contact.steel]\nlaw = { k = 1e6 }\n[object]\ncontact = \"steel\"\nimport = { file = \"latch.gltf\" }\n",
    )
    .expect_err("a flat import of a movable tree loaded")
    .to_string();
    assert!(e.contains("node 'HookPivot' has extras `movable`") && e.contains("tree = true"), "{e}");
}

/// Found by the contact-model fuzz target: a polyhedron with a coordinate of 1.8e308 (finite)
/// overflowed the hull's exact tests and panicked; such a hull is refused, and a primitive
/// beyond the coordinate bound (1e9 m, as meshes) is refused naming it.
#[test]
fn a_primitive_far_out_is_refused_not_a_panic() {
    let poly = |far: &str| {
        format!(
            "[contact.s]\nlaw = {{ k = 1e6 }}\n[object]\ncontact = \"s\"\n[[object.primitives]]\ntype = \"polyhedron\"\nname = \"box\"\nvertices = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, {far}], [1, 1, 1]]\n"
        )
    };
    let e = Model::from_toml("far.toml", &poly("1.7976931348623157e308")).expect_err("overflowing hull").to_string();
    assert!(e.contains("beyond 1e100"), "{e}");
    let e = Model::from_toml("far.toml", &poly("2e9")).expect_err("beyond the bound").to_string();
    assert!(e.contains("('box')") && e.contains("beyond 1e9 m"), "{e}");
    Model::from_toml("near.toml", &poly("1")).expect("a unit box");
}
