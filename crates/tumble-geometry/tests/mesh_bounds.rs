//! A mesh whose coordinates (after its unit) would overflow gravity and contact is refused.

use tumble_geometry::LengthUnit;
use tumble_geometry::mesh::read_mesh;

#[test]
fn a_unit_that_throws_vertices_past_the_bound_is_refused() {
    let dir = std::env::temp_dir().join(format!("tumble_mesh_bounds_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let f = dir.join("tet.obj");
    std::fs::write(&f, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n").expect("write");
    let e = read_mesh(&f, "1e100".parse::<LengthUnit>().expect("a unit")).expect_err("1e100 m").to_string();
    assert!(e.contains("tet.obj") && e.contains("beyond 1e9 m") && e.contains("check the unit"), "{e}");
    // The same mesh in kilometres is read.
    assert_eq!(read_mesh(&f, LengthUnit::Km).expect("km").vertices.len(), 4);
    let _ = std::fs::remove_dir_all(&dir);
}
