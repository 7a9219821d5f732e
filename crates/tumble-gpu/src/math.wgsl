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

// ln x for finite x > 0 (other x: unspecified). x = m 2^e with m in [1/√2, √2) by exact
// scalings; ln m = 2 atanh s, s = (m − 1)/(m + 1), |s| ≤ 0.1716: 13 terms of
// 2 Σ s^(2k+1)/(2k+1) leave s² ¹³/27 < 1e-21.
fn ln64(x: f64) -> f64 {
    var m = x;
    var e = 0.0lf;
    let big = 18446744073709551616.0lf; // 2^64
    let small = 5.421010862427522e-20lf; // 2^-64
    for (var i = 0; i < 17 && m >= big; i++) { m = m * small; e = e + 64.0lf; }
    for (var i = 0; i < 17 && m < small; i++) { m = m * big; e = e - 64.0lf; }
    for (var i = 0; i < 65 && m >= 2.0lf; i++) { m = m * 0.5lf; e = e + 1.0lf; }
    for (var i = 0; i < 65 && m < 1.0lf; i++) { m = m * 2.0lf; e = e - 1.0lf; }
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
