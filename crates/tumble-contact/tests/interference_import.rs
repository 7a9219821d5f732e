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
