//! The 64-bit `ln64`, `ln1p64`, `atan64` and `atan2_64` of `math.wgsl`, run on the device,
//! against the Rust library's (skipped with a message where there is no device, see `common`).

use tumble_gpu::MATH_WGSL;

mod common;
use common::gpu;

/// Deterministic values (xorshift), no dependency needed.
fn uniform(n: usize) -> Vec<f64> {
    let mut s = 0x2545_F491_4F6C_DD1D_u64;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

const KERNEL: &str = r#"
@group(0) @binding(0) var<storage, read_write> a: array<f64>;
@group(0) @binding(1) var<storage, read_write> b: array<f64>;
@group(0) @binding(2) var<storage, read_write> out: array<f64>;

@compute @workgroup_size(64)
fn ln(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&a)) { out[id.x] = ln64(a[id.x]); }
}

@compute @workgroup_size(64)
fn ln1p(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&a)) { out[id.x] = ln1p64(a[id.x]); }
}

@compute @workgroup_size(64)
fn atan2(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < arrayLength(&a)) { out[id.x] = atan2_64(a[id.x], b[id.x]); }
}
"#;

/// Largest error in units of the result's last place (ulp = ε |r|, at least `floor`).
fn worst_ulps(got: &[f64], want: &[f64], floor: f64) -> (f64, usize) {
    got.iter()
        .zip(want)
        .enumerate()
        .map(|(i, (g, w))| ((g - w).abs() / (f64::EPSILON * w.abs()).max(floor), i))
        .fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a })
}

#[test]
fn ln64_ln1p64_and_atan2_64_match_the_library_to_a_few_ulps() {
    let Some(gpu) = gpu() else { return };
    let src = format!("{MATH_WGSL}\n{KERNEL}");
    // ln over 600 decades, log-uniform, and close to 1 where ln x → 0.
    let u = uniform(20_000);
    let mut x: Vec<f64> = u[..10_000].iter().map(|v| 10f64.powf(-300.0 + 600.0 * v)).collect();
    x.extend(u[10_000..].iter().map(|v| 1.0 + (v - 0.5) * 1e-3));
    let n = x.len();
    let (mut b, mut out) = (vec![0.0; n], vec![0.0; n]);
    gpu.run_f64(&src, "ln", &mut [&mut x, &mut b, &mut out], n as u32).expect("kernel runs");
    let want: Vec<f64> = x.iter().map(|v| v.ln()).collect();
    let (ulps, i) = worst_ulps(&out, &want, f64::MIN_POSITIVE);
    // Series remainder < 1e-21; the reductions are exact; the sum of ~15 rounded terms and
    // e ln 2 with ln 2 rounded: a few ulps. Bound 4.
    assert!(ulps <= 4.0, "ln({}) = {} vs {}: {ulps} ulps", x[i], out[i], want[i]);

    // ln1p from −0.9 to 1e6, and tiny arguments (1e-300 to 1e-1) of either sign.
    let u = uniform(20_000);
    let mut x: Vec<f64> = u[..10_000].iter().map(|v| -0.9 + 0.9 * 10f64.powf(6.0 * v)).collect();
    x.extend(
        u[10_000..]
            .iter()
            .enumerate()
            .map(|(k, v)| if k % 2 == 0 { 1.0 } else { -1.0 } * 10f64.powf(-300.0 + 299.0 * v)),
    );
    let n = x.len();
    let (mut b, mut out) = (vec![0.0; n], vec![0.0; n]);
    gpu.run_f64(&src, "ln1p", &mut [&mut x, &mut b, &mut out], n as u32).expect("kernel runs");
    let want: Vec<f64> = x.iter().map(|v| v.ln_1p()).collect();
    let (ulps, i) = worst_ulps(&out, &want, f64::MIN_POSITIVE);
    // As ln64: an exact quotient s up to one rounding, a short sum. Bound 4.
    assert!(ulps <= 4.0, "ln1p({}) = {} vs {}: {ulps} ulps", x[i], out[i], want[i]);

    // atan2 over every quadrant and ratio, magnitudes from 1e-200 to 1e200.
    let mag = |v: f64| 10f64.powf(-200.0 + 400.0 * v);
    let u = uniform(40_000);
    let sign = |v: f64| if ((v * 1e6) as u64).is_multiple_of(2) { 1.0 } else { -1.0 };
    let mut y: Vec<f64> = (0..10_000).map(|k| sign(u[k]) * mag(u[k])).collect();
    let mut xs: Vec<f64> = (0..10_000).map(|k| sign(u[10_000 + k]) * mag(u[20_000 + k])).collect();
    // Ratios of order one, and the axes.
    y.extend((0..10_000).map(|k| 2.0 * u[30_000 + k] - 1.0));
    xs.extend((0..10_000).map(|k| 2.0 * u[(k * 7) % 30_000] - 1.0));
    y.extend([0.0, 1.0, -1.0, 0.0, 3.0, -3.0]);
    xs.extend([1.0, 0.0, 0.0, -1.0, 3.0, -3.0]);
    let n = y.len();
    let mut out = vec![0.0; n];
    gpu.run_f64(&src, "atan2", &mut [&mut y, &mut xs, &mut out], n as u32).expect("kernel runs");
    let want: Vec<f64> = y.iter().zip(&xs).map(|(a, b)| a.atan2(*b)).collect();
    // Results near 0 (y/x ~ 1e-300) are compared to 1e-300 absolute.
    let (ulps, i) = worst_ulps(&out, &want, 1e-300 / f64::EPSILON);
    // Reductions add π/6, π/2 or π (rounded constants) to a series accurate to ~1 ulp: 4.
    assert!(ulps <= 4.0, "atan2({}, {}) = {} vs {}: {ulps} ulps", y[i], xs[i], out[i], want[i]);
}

#[test]
fn a_kernel_that_does_not_compile_is_an_error() {
    let Some(gpu) = gpu() else { return };
    let e = gpu.run_f64("fn broken( {", "main", &mut [], 1).expect_err("does not parse");
    assert!(e.contains("kernel `main`"), "{e}");
}
