//! Polyhedron gravity on the device: [`pack_polyhedron`] lays tumble-dynamics' model out for
//! `gravity.wgsl`, [`polyhedron_samples`] evaluates it at many points.

use crate::{Gpu, MATH_WGSL};
use tumble_dynamics::{FieldSample, Polyhedron};
use tumble_math::{Mat3, Vec3};

/// WGSL of `polyhedron_sample` (needs [`MATH_WGSL`] and a `poly` buffer bound by the kernel).
pub const GRAVITY_WGSL: &str = include_str!("gravity.wgsl");

/// The `poly` buffer: counts, `Gρ`, vertices, faces, face dyads, edges, edge dyads.
pub fn pack_polyhedron(p: &Polyhedron) -> Vec<f64> {
    let t = p.parts();
    let mut b = vec![t.vertices.len() as f64, t.faces.len() as f64, t.edges.len() as f64, t.g_rho];
    b.extend(t.vertices.iter().flat_map(|v| [v.x, v.y, v.z]));
    b.extend(t.faces.iter().flatten().map(|&i| i as f64));
    let rows = |m: &Mat3| (0..3).flat_map(move |r| (0..3).map(move |c| m[(r, c)])).collect::<Vec<f64>>();
    b.extend(t.face_dyads.iter().flat_map(rows));
    b.extend(t.edges.iter().flatten().map(|&i| i as f64));
    b.extend(t.edge_dyads.iter().flat_map(rows));
    b
}

const SAMPLE_KERNEL: &str = r#"
@group(0) @binding(0) var<storage, read_write> poly: array<f64>;
@group(0) @binding(1) var<storage, read_write> points: array<f64>;
@group(0) @binding(2) var<storage, read_write> out: array<f64>;

@compute @workgroup_size(64)
fn sample_polyhedron(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&points) / 3u) { return; }
    let s = polyhedron_sample(vec3<f64>(points[3u * i], points[3u * i + 1u], points[3u * i + 2u]));
    out[13u * i] = s.u;
    for (var k = 0u; k < 3u; k++) {
        out[13u * i + 1u + k] = s.a[k];
        for (var c = 0u; c < 3u; c++) { out[13u * i + 4u + 3u * k + c] = s.grad[c][k]; }
    }
}
"#;

/// Potential, acceleration and gradient at each point, evaluated on the device.
pub fn polyhedron_samples(gpu: &Gpu, p: &Polyhedron, points: &[Vec3]) -> Result<Vec<FieldSample>, String> {
    let mut poly = pack_polyhedron(p);
    let mut pts: Vec<f64> = points.iter().flat_map(|v| [v.x, v.y, v.z]).collect();
    let mut out = vec![0.0; 13 * points.len()];
    let src = format!("{MATH_WGSL}\n{GRAVITY_WGSL}\n{SAMPLE_KERNEL}");
    gpu.run_f64(&src, "sample_polyhedron", &mut [&mut poly, &mut pts, &mut out], points.len() as u32)?;
    Ok(out
        .chunks(13)
        .map(|o| FieldSample {
            potential: o[0],
            acceleration: Vec3::new(o[1], o[2], o[3]),
            gradient: Mat3::from_row_slice(&o[4..13]),
        })
        .collect())
}
