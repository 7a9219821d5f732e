// 64-bit natural logarithm and arctangents for compute kernels. Vulkan's extended instruction set
// (GLSL.std.450) defines log, atan and the other transcendentals for 16- and 32-bit floats only:
// given f64 they return garbage on some drivers (lavapipe: relative errors ~1e2) without a
// validation error. These use only +, ×, ÷ and comparisons, exact in the reductions, and
// truncated Taylor series whose remainder is below 1e-17 relative on the reduced interval.

const LN2_64: f64 = 0.6931471805599453lf;
const PI_64: f64 = 3.141592653589793lf;
const HALF_PI_64: f64 = 1.5707963267948966lf;
const SIXTH_PI_64: f64 = 0.5235987755982989lf;
const SQRT3_64: f64 = 1.7320508075688772lf;
const TAN_PI_12_64: f64 = 0.2679491924311227lf;
const SQRT2_64: f64 = 1.4142135623730951lf;

// x = m 2^e during the reduction of ln64.
struct Scaled { m: f64, e: f64 }

// m ≥ 2^b: m 2^-b, e + b (exact).
fn halve(v: Scaled, p: f64, q: f64, b: f64) -> Scaled {
    if (v.m >= p) { return Scaled(v.m * q, v.e + b); }
    return v;
}

// m < 2^(1−b): m 2^b, e − b (exact).
fn double(v: Scaled, below: f64, p: f64, b: f64) -> Scaled {
    if (v.m < below) { return Scaled(v.m * p, v.e - b); }
    return v;
}

// ln x for finite x > 0 (other x: unspecified). x = m 2^e with m in [1, 2) by exact scalings
// by 2^±512, 2^±256, …, 2^±1 (a binary search of the exponent: no loop, and no frexp, which
// crashes lavapipe's compiler on f64), then m in [1/√2, √2) by at most one halving;
// ln m = 2 atanh s, s = (m − 1)/(m + 1), |s| ≤ 0.1716: 13 terms of 2 Σ s^(2k+1)/(2k+1) leave
// s² ¹³/27 < 1e-21. No loop depends on x: a driver that counts loop iterations (see
// lander.wgsl's `checked`) sees the series only, which compilers unroll.
fn ln64(x: f64) -> f64 {
    var v = Scaled(x, 0.0lf);
    // Subnormals first made normal (then at most 1022 doublings remain).
    if (v.m < 2.2250738585072014e-308lf) { v = Scaled(v.m * 18446744073709551616.0lf, -64.0lf); }
    v = halve(v, 1.3407807929942597e+154lf, 7.458340731200207e-155lf, 512.0lf);
    v = halve(v, 1.157920892373162e+77lf, 8.636168555094445e-78lf, 256.0lf);
    v = halve(v, 3.402823669209385e+38lf, 2.938735877055719e-39lf, 128.0lf);
    v = halve(v, 1.8446744073709552e+19lf, 5.421010862427522e-20lf, 64.0lf);
    v = halve(v, 4294967296.0lf, 2.3283064365386963e-10lf, 32.0lf);
    v = halve(v, 65536.0lf, 1.52587890625e-05lf, 16.0lf);
    v = halve(v, 256.0lf, 0.00390625lf, 8.0lf);
    v = halve(v, 16.0lf, 0.0625lf, 4.0lf);
    v = halve(v, 4.0lf, 0.25lf, 2.0lf);
    v = halve(v, 2.0lf, 0.5lf, 1.0lf);
    v = double(v, 1.4916681462400413e-154lf, 1.3407807929942597e+154lf, 512.0lf);
    v = double(v, 1.727233711018889e-77lf, 1.157920892373162e+77lf, 256.0lf);
    v = double(v, 5.877471754111438e-39lf, 3.402823669209385e+38lf, 128.0lf);
    v = double(v, 1.0842021724855044e-19lf, 1.8446744073709552e+19lf, 64.0lf);
    v = double(v, 4.656612873077393e-10lf, 4294967296.0lf, 32.0lf);
    v = double(v, 3.0517578125e-05lf, 65536.0lf, 16.0lf);
    v = double(v, 0.0078125lf, 256.0lf, 8.0lf);
    v = double(v, 0.125lf, 16.0lf, 4.0lf);
    v = double(v, 0.5lf, 4.0lf, 2.0lf);
    v = double(v, 1.0lf, 2.0lf, 1.0lf);
    var m = v.m;
    var e = v.e;
    if (m > SQRT2_64) { m = m * 0.5lf; e = e + 1.0lf; }
    let s = (m - 1.0lf) / (m + 1.0lf);
    let z = s * s;
    var p = 1.0lf / 25.0lf;
    for (var k = 11; k >= 0; k--) { p = p * z + 1.0lf / f64(2 * k + 1); }
    return e * LN2_64 + 2.0lf * s * p;
}

// ln(1 + x) for finite x > −1, accurate for small x: with s = x/(2 + x) (no cancellation),
// ln(1 + x) = 2 atanh s; for −0.5 < x < 1, |s| ≤ 1/3 and 19 terms leave (1/9)¹⁹/39 < 1e-19;
// beyond, 1 + x loses nothing that matters and ln64 takes it.
fn ln1p64(x: f64) -> f64 {
    if (x <= -0.5lf || x >= 1.0lf) { return ln64(1.0lf + x); }
    let s = x / (2.0lf + x);
    let z = s * s;
    var p = 1.0lf / 37.0lf;
    for (var k = 17; k >= 0; k--) { p = p * z + 1.0lf / f64(2 * k + 1); }
    return 2.0lf * s * p;
}

// atan t for |t| ≤ tan(π/12) = 0.268: 17 terms of Σ (−1)^k t^(2k+1)/(2k+1) leave
// 0.0718¹⁷/35 < 1e-21.
fn atan_small64(t: f64) -> f64 {
    let z = t * t;
    var p = 1.0lf / 33.0lf;
    for (var k = 15; k >= 0; k--) {
        let term = 1.0lf / f64(2 * k + 1);
        if ((k & 1) == 1) { p = p * z - term; } else { p = p * z + term; }
    }
    return t * p;
}

// atan t for finite t: odd; |t| > 1 through π/2 − atan(1/|t|); |t| in (tan π/12, 1] through
// π/6 + atan((√3 t − 1)/(t + √3)).
fn atan64(t: f64) -> f64 {
    var a = abs(t);
    var r = 0.0lf;
    let inverted = a > 1.0lf;
    if (inverted) { a = 1.0lf / a; }
    if (a > TAN_PI_12_64) {
        r = SIXTH_PI_64 + atan_small64((SQRT3_64 * a - 1.0lf) / (a + SQRT3_64));
    } else {
        r = atan_small64(a);
    }
    if (inverted) { r = HALF_PI_64 - r; }
    return select(r, -r, t < 0.0lf);
}

// atan2(y, x) in (−π, π], as the C library's for finite arguments (atan2(0, 0) = 0).
fn atan2_64(y: f64, x: f64) -> f64 {
    if (x == 0.0lf) {
        if (y == 0.0lf) { return 0.0lf; }
        return select(HALF_PI_64, -HALF_PI_64, y < 0.0lf);
    }
    // |y| ≤ |x|: atan(y/x); otherwise ±π/2 − atan(x/y) (no overflow of the quotient).
    var r = 0.0lf;
    if (abs(y) <= abs(x)) {
        r = atan64(y / x);
        if (x < 0.0lf) { r = r + select(PI_64, -PI_64, y < 0.0lf); }
    } else {
        r = select(HALF_PI_64, -HALF_PI_64, y < 0.0lf) - atan64(x / y);
    }
    return r;
}
