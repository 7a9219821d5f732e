// The lander's right-hand side (tumble-sim's `LanderSystem::snapshot`, the same operations in the
// same order where the result depends on it): kinematics → normal forces of the vertices on the
// surface → accelerations without friction → friction with the stick force and rolling
// resistance → rates of the 24 states, for one run per invocation.
//
// Buffers (f64): `model` (the layout below, shared by the batch), `verts` (contact vertices,
// body axes, 3 per vertex), `grid` (samples of a grid surface, x fastest), `y` and `rates`
// (structure of arrays: component c of run i at c·n + i).

const M_MASS: u32 = 0u;
const M_INERTIA: u32 = 1u;      // 9, row-major
const M_INERTIA_INV: u32 = 10u; // 9, row-major
const M_K: u32 = 19u;
const M_C: u32 = 20u;
const M_MU: u32 = 21u;
const M_MU_S: u32 = 22u;
const M_ROLL: u32 = 23u;
const M_VSTAR: u32 = 24u;
const M_WSTAR: u32 = 25u;
const M_STABLE_DT: u32 = 26u;
const M_SPIN: u32 = 27u;        // 0 uniform, 1 torque-free with moments at 28..31
const M_GRAV: u32 = 31u;        // 0 none, 1 uniform (g at 32..35), 2 point mass (centre 32..35, μ 35)
const M_SURF: u32 = 36u;        // 0 plane (point 37..40, normal 40..43), 1 grid (origin 37..40, spacing 40, dims 41..44)
const M_NVERT: u32 = 44u;
const M_TERRAIN: u32 = 45u;     // 0 none, 1 fBm terrain on the surface: sandy, rocky, region (7 each from 46), threshold 67, width 68
const MODEL_LEN: u32 = 69u;
const STATE: u32 = 24u;

@group(0) @binding(0) var<storage, read_write> model: array<f64>;
@group(0) @binding(1) var<storage, read_write> verts: array<f64>;
@group(0) @binding(2) var<storage, read_write> grid: array<f64>;
@group(0) @binding(3) var<storage, read_write> y: array<f64>;
@group(0) @binding(4) var<storage, read_write> rates: array<f64>;

fn m3(at: u32) -> mat3x3<f64> {
    // Row-major in the buffer; WGSL matrices are built from columns.
    return transpose(mat3x3<f64>(
        vec3<f64>(model[at], model[at + 1u], model[at + 2u]),
        vec3<f64>(model[at + 3u], model[at + 4u], model[at + 5u]),
        vec3<f64>(model[at + 6u], model[at + 7u], model[at + 8u])));
}

fn v3(at: u32) -> vec3<f64> {
    return vec3<f64>(model[at], model[at + 1u], model[at + 2u]);
}

// Rotation matrix of the unit quaternion (w, x, y, z).
fn rotation(q: vec4<f64>) -> mat3x3<f64> {
    let w = q.x; let x = q.y; let yy = q.z; let z = q.w;
    return transpose(mat3x3<f64>(
        vec3<f64>(1.0lf - 2.0lf * (yy * yy + z * z), 2.0lf * (x * yy - w * z), 2.0lf * (x * z + w * yy)),
        vec3<f64>(2.0lf * (x * yy + w * z), 1.0lf - 2.0lf * (x * x + z * z), 2.0lf * (yy * z - w * x)),
        vec3<f64>(2.0lf * (x * z - w * yy), 2.0lf * (yy * z + w * x), 1.0lf - 2.0lf * (x * x + yy * yy))));
}

// q̇ = ½ q ⊗ (0, ω), (w, x, y, z).
fn quat_derivative(q: vec4<f64>, w: vec3<f64>) -> vec4<f64> {
    let qv = q.yzw;
    return 0.5lf * vec4<f64>(-dot(qv, w), q.x * w + cross(qv, w));
}

// Unit vector, or `fallback` for a zero vector (nalgebra's `try_normalize(0.0)`).
fn unit_or(v: vec3<f64>, fallback: vec3<f64>) -> vec3<f64> {
    let n = length(v);
    if (n > 0.0lf) { return v / n; }
    return fallback;
}

struct Field { d: f64, g: vec3<f64> }

fn grid_at(i: u32, j: u32, k: u32) -> f64 {
    let nx = u32(model[M_SURF + 5u]);
    let ny = u32(model[M_SURF + 6u]);
    return grid[(k * ny + j) * nx + i];
}

// Gradient noise and fBm, as tumble-geometry's `noise` (SplitMix64 lattice hash on u64, the 12
// cube-edge gradients, quintic fade, analytic gradient).
const GRADIENTS = array<vec3<f64>, 12>(
    vec3<f64>(1.0lf, 1.0lf, 0.0lf), vec3<f64>(-1.0lf, 1.0lf, 0.0lf), vec3<f64>(1.0lf, -1.0lf, 0.0lf),
    vec3<f64>(-1.0lf, -1.0lf, 0.0lf), vec3<f64>(1.0lf, 0.0lf, 1.0lf), vec3<f64>(-1.0lf, 0.0lf, 1.0lf),
    vec3<f64>(1.0lf, 0.0lf, -1.0lf), vec3<f64>(-1.0lf, 0.0lf, -1.0lf), vec3<f64>(0.0lf, 1.0lf, 1.0lf),
    vec3<f64>(0.0lf, -1.0lf, 1.0lf), vec3<f64>(0.0lf, 1.0lf, -1.0lf), vec3<f64>(0.0lf, -1.0lf, -1.0lf));

fn splitmix(h0: u64) -> u64 {
    var h = h0;
    h = (h ^ (h >> 30u)) * 0xBF58476D1CE4E5B9lu;
    h = (h ^ (h >> 27u)) * 0x94D049BB133111EBlu;
    return h ^ (h >> 31u);
}

fn floor_i64(x: f64) -> i64 {
    let i = i64(x);
    if (f64(i) > x) { return i - 1li; }
    return i;
}

// (value, derivative) of the quintic fade.
fn fade(t: f64) -> vec2<f64> {
    return vec2<f64>(t * t * t * (t * (t * 6.0lf - 15.0lf) + 10.0lf), 30.0lf * t * t * (t * (t - 2.0lf) + 1.0lf));
}

struct Noise { v: f64, g: vec3<f64> }

fn gradient_noise(p: vec3<f64>, seed: u64) -> Noise {
    let i0 = floor_i64(p.x); let j0 = floor_i64(p.y); let k0 = floor_i64(p.z);
    let t = p - vec3<f64>(f64(i0), f64(j0), f64(k0));
    let fx = fade(t.x); let fy = fade(t.y); let fz = fade(t.z);
    let hx = array<u64, 2>(u64(i0) * 0x9E3779B97F4A7C15lu, u64(i0 + 1li) * 0x9E3779B97F4A7C15lu);
    let hy = array<u64, 2>(u64(j0) * 0xC2B2AE3D27D4EB4Flu, u64(j0 + 1li) * 0xC2B2AE3D27D4EB4Flu);
    let hz = array<u64, 2>(u64(k0) * 0x165667B19E3779F9lu, u64(k0 + 1li) * 0x165667B19E3779F9lu);
    var v = 0.0lf;
    var g = vec3<f64>(0.0lf);
    for (var c = 0u; c < 8u; c++) {
        let a = c & 1u; let b = (c >> 1u) & 1u; let e = (c >> 2u) & 1u;
        let h = splitmix(seed ^ hx[a] ^ hy[b] ^ hz[e]);
        let gr = GRADIENTS[u32(((h >> 32u) * 12lu) >> 32u)];
        let d = t - vec3<f64>(f64(a), f64(b), f64(e));
        let dt = dot(gr, d);
        var wx = 1.0lf - fx.x; var dwx = -fx.y;
        if (a == 1u) { wx = fx.x; dwx = fx.y; }
        var wy = 1.0lf - fy.x; var dwy = -fy.y;
        if (b == 1u) { wy = fy.x; dwy = fy.y; }
        var wz = 1.0lf - fz.x; var dwz = -fz.y;
        if (e == 1u) { wz = fz.x; dwz = fz.y; }
        let w = wx * wy * wz;
        v += w * dt;
        g += w * gr + dt * vec3<f64>(dwx * wy * wz, wx * dwy * wz, wx * wy * dwz);
    }
    return Noise(v, g);
}

// fBm with the parameters at `at`: seed (low and high 32 bits), octaves, lacunarity, gain,
// amplitude, frequency.
fn fbm(p: vec3<f64>, at: u32) -> Noise {
    let seed = u64(u32(model[at])) | (u64(u32(model[at + 1u])) << 32u);
    let octaves = u32(model[at + 2u]);
    let lacunarity = model[at + 3u];
    let gain = model[at + 4u];
    var amp = model[at + 5u];
    var freq = model[at + 6u];
    var v = 0.0lf;
    var g = vec3<f64>(0.0lf);
    for (var o = 0u; o < octaves; o++) {
        let n = gradient_noise(p * freq, seed + u64(o) * 0x632BE59BD9B4E019lu);
        v += amp * n.v;
        g += amp * freq * n.g;
        amp *= gain;
        freq *= lacunarity;
    }
    return Noise(v, g);
}

// The surface's signed distance and gradient at p (T frame): the base surface, then the terrain's
// heights (tumble-geometry's `Terrain`: sandy and rocky fBm blended by a smoothstep of the
// region fBm).
fn field(p: vec3<f64>) -> Field {
    let base = base_field(p);
    if (model[M_TERRAIN] == 0.0lf) { return base; }
    // Rocky weight w = smoothstep of the region field, and its gradient.
    let r = fbm(p, M_TERRAIN + 15u);
    let width = model[M_TERRAIN + 23u];
    let x = (r.v - model[M_TERRAIN + 22u]) / width + 0.5lf;
    var w = 0.0lf;
    var dw = vec3<f64>(0.0lf);
    if (x >= 1.0lf) {
        w = 1.0lf;
    } else if (x > 0.0lf) {
        w = x * x * (3.0lf - 2.0lf * x);
        dw = 6.0lf * x * (1.0lf - x) / width * r.g;
    }
    // Inside a region only its own heights count.
    if (w == 0.0lf) {
        let s = fbm(p, M_TERRAIN + 1u);
        return Field(base.d - s.v, base.g - s.g);
    }
    if (w == 1.0lf) {
        let k = fbm(p, M_TERRAIN + 8u);
        return Field(base.d - k.v, base.g - k.g);
    }
    let s = fbm(p, M_TERRAIN + 1u);
    let k = fbm(p, M_TERRAIN + 8u);
    let h = (1.0lf - w) * s.v + w * k.v;
    return Field(base.d - h, base.g - (1.0lf - w) * s.g - w * k.g - (k.v - s.v) * dw);
}

// The surface without terrain.
fn base_field(p: vec3<f64>) -> Field {
    if (model[M_SURF] == 0.0lf) {
        let n = v3(M_SURF + 4u);
        return Field(dot(p - v3(M_SURF + 1u), n), n);
    }
    // Trilinear on the grid, clamped to its box; outside, the distance to the box is added and
    // the clamped components' gradient replaced (as tumble-geometry's GridSdf).
    let origin = v3(M_SURF + 1u);
    let h = model[M_SURF + 4u];
    let dims = vec3<f64>(model[M_SURF + 5u], model[M_SURF + 6u], model[M_SURF + 7u]);
    let hi = origin + (dims - vec3<f64>(1.0lf)) * h;
    let q = min(max(p, origin), hi);
    let l = (q - origin) / h;
    var idx = vec3<u32>(0u);
    var t = vec3<f64>(0.0lf);
    for (var a = 0; a < 3; a++) {
        let i = min(u32(max(floor(l[a]), 0.0lf)), u32(dims[a]) - 2u);
        idx[a] = i;
        t[a] = l[a] - f64(i);
    }
    let i = idx.x; let j = idx.y; let k = idx.z;
    let c000 = grid_at(i, j, k); let c100 = grid_at(i + 1u, j, k);
    let c010 = grid_at(i, j + 1u, k); let c110 = grid_at(i + 1u, j + 1u, k);
    let c001 = grid_at(i, j, k + 1u); let c101 = grid_at(i + 1u, j, k + 1u);
    let c011 = grid_at(i, j + 1u, k + 1u); let c111 = grid_at(i + 1u, j + 1u, k + 1u);
    let c00 = c000 + (c100 - c000) * t.x; let c10 = c010 + (c110 - c010) * t.x;
    let c01 = c001 + (c101 - c001) * t.x; let c11 = c011 + (c111 - c011) * t.x;
    let c0 = c00 + (c10 - c00) * t.y; let c1 = c01 + (c11 - c01) * t.y;
    let v = c0 + (c1 - c0) * t.z;
    let e0 = (c100 - c000) + ((c110 - c010) - (c100 - c000)) * t.y;
    let e1 = (c101 - c001) + ((c111 - c011) - (c101 - c001)) * t.y;
    let dx = e0 + (e1 - e0) * t.z;
    let dy = (c10 - c00) + ((c11 - c01) - (c10 - c00)) * t.z;
    let dz = c1 - c0;
    var g = vec3<f64>(dx, dy, dz) / h;
    let off = p - q;
    let d = length(off);
    if (d == 0.0lf) { return Field(v, g); }
    for (var a = 0; a < 3; a++) {
        if (off[a] != 0.0lf) { g[a] = 0.0lf; }
    }
    return Field(v + d, g + off / d);
}

fn gravity(x: vec3<f64>) -> vec3<f64> {
    let kind = model[M_GRAV];
    if (kind == 1.0lf) { return v3(M_GRAV + 1u); }
    if (kind == 2.0lf) {
        let r = x - v3(M_GRAV + 1u);
        let r2 = dot(r, r);
        return -model[M_GRAV + 4u] * r / (r2 * sqrt(r2));
    }
    return vec3<f64>(0.0lf);
}

fn omega_dot(o: vec3<f64>) -> vec3<f64> {
    if (model[M_SPIN] == 0.0lf) { return vec3<f64>(0.0lf); }
    let a = model[M_SPIN + 1u]; let b = model[M_SPIN + 2u]; let c = model[M_SPIN + 3u];
    return vec3<f64>((b - c) * o.y * o.z / a, (c - a) * o.z * o.x / b, (a - b) * o.x * o.y / c);
}

fn eta(s: f64) -> f64 {
    if (s >= 1.0lf) { return 1.0lf; }
    let u = max(s, 0.0lf);
    return u * (2.0lf - u);
}

fn skew(r: vec3<f64>) -> mat3x3<f64> {
    // Columns of [r×].
    return mat3x3<f64>(vec3<f64>(0.0lf, r.z, -r.y), vec3<f64>(-r.z, 0.0lf, r.x), vec3<f64>(r.y, -r.x, 0.0lf));
}

fn state(c: u32, i: u32, n: u32) -> f64 { return y[c * n + i]; }
fn s3(c: u32, i: u32, n: u32) -> vec3<f64> { return vec3<f64>(state(c, i, n), state(c + 1u, i, n), state(c + 2u, i, n)); }
fn s4(c: u32, i: u32, n: u32) -> vec4<f64> {
    return vec4<f64>(state(c, i, n), state(c + 1u, i, n), state(c + 2u, i, n), state(c + 3u, i, n));
}
fn put(c: u32, i: u32, n: u32, v: f64) { rates[c * n + i] = v; }
fn put3(c: u32, i: u32, n: u32, v: vec3<f64>) { put(c, i, n, v.x); put(c + 1u, i, n, v.y); put(c + 2u, i, n, v.z); }
fn put4(c: u32, i: u32, n: u32, v: vec4<f64>) { put(c, i, n, v.x); put(c + 1u, i, n, v.y); put(c + 2u, i, n, v.z); put(c + 3u, i, n, v.w); }

// `ω̇` (S axes): I⁻¹ (L − ω* × I ω*) + ω* × Ω_S − Ω̇_S, ω* = ω + Ω_S.
fn angular_acceleration(inertia: mat3x3<f64>, inv: mat3x3<f64>, w: vec3<f64>, os: vec3<f64>, ods: vec3<f64>, torque: vec3<f64>) -> vec3<f64> {
    let ws = w + os;
    return inv * (torque - cross(ws, inertia * ws)) + cross(ws, os) - ods;
}

@compute @workgroup_size(64)
fn lander_rates(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&y) / STATE;
    let i = gid.x;
    if (i >= n) { return; }
    let mass = model[M_MASS];
    let inertia = m3(M_INERTIA);
    let inertia_inv = m3(M_INERTIA_INV);
    let x = s3(0u, i, n); let v = s3(3u, i, n); let q = s4(6u, i, n); let w = s3(10u, i, n);
    let big_q = s4(13u, i, n); let omega = s3(17u, i, n);
    let r_ts = rotation(q);
    let omega_s = transpose(r_ts) * omega;
    let od = omega_dot(omega);
    let od_s = transpose(r_ts) * od;
    let w_w = r_ts * w; // ω in T axes

    // Normal phase.
    let k = model[M_K]; let c = model[M_C];
    var touching = 0u;
    var force = vec3<f64>(0.0lf); var torque = vec3<f64>(0.0lf);
    var load = 0.0lf; var damper_power = 0.0lf;
    var sum_d = 0.0lf; var sum_dr = vec3<f64>(0.0lf);
    let nv = u32(model[M_NVERT]);
    for (var j = 0u; j < nv; j++) {
        let r = r_ts * vec3<f64>(verts[3u * j], verts[3u * j + 1u], verts[3u * j + 2u]);
        let f = field(x + r);
        if (f.d >= 0.0lf) { continue; }
        let delta = -f.d;
        let nrm = unit_or(f.g, vec3<f64>(0.0lf, 0.0lf, 1.0lf));
        let v_n = dot(v + cross(w_w, r), nrm);
        let damper = c * max(-v_n, 0.0lf);
        var along = nrm;
        if (length(f.g) > 0.0lf) { along = f.g; }
        let f_vec = k * delta * along + damper * nrm;
        touching += 1u;
        force += f_vec;
        torque += cross(r, f_vec);
        load += length(f_vec);
        damper_power -= damper * max(-v_n, 0.0lf);
        sum_d += delta;
        sum_dr += delta * r;
    }
    var r_p = vec3<f64>(0.0lf); var n_p = vec3<f64>(0.0lf);
    if (touching > 0u) {
        r_p = sum_dr / sum_d;
        n_p = unit_or(field(x + r_p).g, normalize(force));
    }

    // Accelerations without friction.
    let a_free = gravity(x) - cross(omega, cross(omega, x)) - 2.0lf * cross(omega, v) - cross(od, x);
    let inertia_w = r_ts * inertia * transpose(r_ts);
    let inv_w = r_ts * inertia_inv * transpose(r_ts);
    let a0 = a_free + force / mass;
    let alpha0 = r_ts * angular_acceleration(inertia, inertia_inv, w, omega_s, od_s, transpose(r_ts) * torque);

    // Tangential phase.
    var friction = vec3<f64>(0.0lf); var friction_power = 0.0lf;
    var rolling_torque = vec3<f64>(0.0lf); var rolling_force = vec3<f64>(0.0lf); var rolling_power = 0.0lf;
    if (touching > 0u) {
        let nn = n_p;
        let proj = mat3x3<f64>(vec3<f64>(1.0lf, 0.0lf, 0.0lf), vec3<f64>(0.0lf, 1.0lf, 0.0lf), vec3<f64>(0.0lf, 0.0lf, 1.0lf))
            - mat3x3<f64>(nn * nn.x, nn * nn.y, nn * nn.z);
        let v_p = v + cross(w_w, r_p);
        let v_t = proj * v_p;
        let speed = length(v_t);
        let rx = skew(r_p);
        let ident = mat3x3<f64>(vec3<f64>(1.0lf, 0.0lf, 0.0lf), vec3<f64>(0.0lf, 1.0lf, 0.0lf), vec3<f64>(0.0lf, 0.0lf, 1.0lf));
        let mob = ident * (1.0lf / mass) - rx * inv_w * rx;
        let b = a0 + cross(alpha0, r_p) + cross(w_w, cross(w_w, r_p));
        var a_axis = vec3<f64>(1.0lf, 0.0lf, 0.0lf);
        if (abs(nn.x) >= 0.6lf) { a_axis = vec3<f64>(0.0lf, 1.0lf, 0.0lf); }
        let t1 = normalize(cross(nn, a_axis));
        let t2 = cross(nn, t1);
        let a11 = dot(t1, mob * t1); let a12 = dot(t1, mob * t2); let a22 = dot(t2, mob * t2);
        let b1 = -dot(t1, b); let b2 = -dot(t2, b);
        let det = a11 * a22 - a12 * a12;
        var stick = (t1 * (a22 * b1 - a12 * b2) + t2 * (a11 * b2 - a12 * b1)) / det;
        let cap = model[M_MU_S] * load;
        if (length(stick) > cap) { stick = stick * (cap / length(stick)); }
        var slip_dir = vec3<f64>(0.0lf);
        if (speed > 0.0lf) { slip_dir = v_t / speed; }
        stick -= slip_dir * max(dot(stick, slip_dir), 0.0lf);
        var v_star = model[M_VSTAR];
        let dt = model[M_STABLE_DT];
        if (dt > 0.0lf) {
            let d = a11 - a22;
            let lambda = 0.5lf * (a11 + a22) + sqrt(0.25lf * (d * d) + a12 * a12);
            v_star = max(v_star, model[M_MU] * load * lambda * dt);
        }
        let e = eta(speed / v_star);
        friction = e * (-model[M_MU] * load * slip_dir) + (1.0lf - e) * stick;
        friction_power = dot(friction, v_p);

        let roll = model[M_ROLL];
        if (roll > 0.0lf) {
            let spin = length(w_w);
            var w_dir = vec3<f64>(0.0lf);
            if (spin > 0.0lf) { w_dir = w_w / spin; }
            let alpha = alpha0 + inv_w * cross(r_p, friction);
            let cap_r = roll * load;
            var l_stick = -(inertia_w * alpha);
            if (length(l_stick) > cap_r) { l_stick = l_stick * (cap_r / length(l_stick)); }
            l_stick -= w_dir * max(dot(l_stick, w_dir), 0.0lf);
            let tr = inv_w[0][0] + inv_w[1][1] + inv_w[2][2];
            let w_star = max(model[M_WSTAR], roll * load * tr * dt);
            let er = eta(spin / w_star);
            var tq = er * (-cap_r * w_dir) + (1.0lf - er) * l_stick;
            let u = w_w - mass * (inv_w * cross(r_p, proj * v));
            if (length(u) > 0.0lf) {
                let u_dir = u / length(u);
                tq -= u_dir * max(dot(tq, u_dir), 0.0lf);
            }
            rolling_torque = tq;
            rolling_force = -mass * (proj * cross(inv_w * tq, r_p));
            rolling_power = dot(rolling_torque, w_w) + dot(rolling_force, v);
        }
    }

    let f_total = force + friction + rolling_force;
    let t_total = torque + cross(r_p, friction) + rolling_torque;
    put3(0u, i, n, v);
    put3(3u, i, n, a_free + f_total / mass);
    put4(6u, i, n, quat_derivative(q, w));
    let alpha_s = angular_acceleration(inertia, inertia_inv, w, omega_s, od_s, transpose(r_ts) * t_total);
    put3(10u, i, n, transpose(r_ts) * (r_ts * alpha_s));
    put4(13u, i, n, quat_derivative(big_q, omega));
    put3(17u, i, n, od);
    put(20u, i, n, damper_power);
    put(21u, i, n, friction_power);
    put(22u, i, n, rolling_power);
    let v_in = v + cross(omega, x);
    put(23u, i, n, -mass * dot(v_in, cross(od, x)) - dot(w + omega_s, inertia * od_s));
}
