//! The real shape models in ../shared/data/shapes load with their documented units and
//! validate; their volumes match the data README. Skipped when the data are not present.

use std::path::Path;
use tumble_geometry::{LengthUnit, TriMesh, mesh::read_obj};

#[test]
fn shared_shape_models_load_and_validate() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/shapes");
    if !dir.exists() {
        eprintln!("skipped: {} not present", dir.display());
        return;
    }
    // (file, unit, faces, volume in the file's units³, unused and exactly duplicated vertices),
    // as the data README gives them.
    let cases = [
        ("67p_sbgat_lowres.obj", LengthUnit::M, 62_908, 0.937971, 0, 0),
        ("itokawa_sbgat_q32.obj", LengthUnit::Km, 12_288, 0.017702, 0, 0),
        // Eros: 693 unused vertices sit on used ones (README), and one more pair of unused
        // vertices coincide, so 694 repeat an earlier position.
        ("eros_sbgat_49k.obj", LengthUnit::Km, 49_152, 2506.39, 772, 694),
        ("phobos_thomas_m1.obj", LengthUnit::Km, 32_040, 5748.75, 0, 0),
        ("steins_cosmographia.obj", LengthUnit::Km, 58_144, 76.3504, 0, 0),
    ];
    for (file, unit, faces, volume, unused, duplicates) in cases {
        let mesh: TriMesh = read_obj(&dir.join(file), unit).expect(file);
        let r = mesh.report();
        assert_eq!(r.faces, faces, "{file}");
        assert!(r.closed && r.oriented && r.outward, "{file}: {r:?}");
        assert_eq!(r.euler_characteristic, 2, "{file}");
        assert!(r.degenerate_faces.is_empty(), "{file}");
        assert_eq!(r.unused_vertices.count, unused, "{file}");
        assert_eq!(r.duplicate_vertices.count, duplicates, "{file}");
        let v = mesh.volume() / unit.to_metres().powi(3);
        // The README gives 6 significant digits.
        assert!((v / volume - 1.0).abs() < 5e-6, "{file}: volume {v} vs {volume}");
    }
}
