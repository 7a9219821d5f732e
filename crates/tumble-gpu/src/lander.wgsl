// The lander (tumble-sim's `LanderSystem` and `lander::simulate`) for one run per invocation.
// The right-hand side follows `LanderSystem::snapshot` (the same operations in the same order
// where the result depends on it): kinematics → normal forces of the vertices on the surface →
// accelerations without friction → friction with the stick force and rolling resistance →
// rates of the 24 states, with the energy terms of the budget.
//
// Buffers (f64): `model` (MODEL_LEN per run, or one shared by all runs), `verts` (contact
// vertices, body axes, 3 per vertex, from the run's offset), `grid` (samples of a grid surface,
// x fastest, shared), `poly` (a gravity polyhedron, gravity.wgsl, shared), `y` (structure of
// arrays: component c of run i at c·n + i), `record` (the step loop's per-run record, structure
// of arrays), `check` (per run: the outcome, or -1 where the driver cut a loop short),
// `settings` (loop iterations per dispatch, the check loop's count, 1), `out` (rates).

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
const M_SPIN: u32 = 27u;        // 0 uniform, 1 torque-free with the target's inertia at M_SPIN_J (28..31 unused)
const M_GRAV: u32 = 31u;        // 0 none, 1 uniform (g at 32..35), 2 point mass (centre 32..35, μ 35), 3 polyhedron (`poly`)
const M_SURF: u32 = 36u;        // 0 plane (point 37..40, normal 40..43), 1 grid (origin 37..40, spacing 40, dims 41..44)
const M_NVERT: u32 = 44u;
const M_TERRAIN: u32 = 45u;     // 0 none, 1 fBm terrain on the surface: sandy, rocky, region (7 each from 46), threshold 67, width 68
const M_VOFF: u32 = 69u;        // first vertex in `verts`
// Step loop: dt (s), steps, output_every, flight_steps, reach (m), settle speed (m/s), rate
// (rad/s), dwell (s; < 0: no settling), escape distance (m; < 0: none), energy tolerance (J),
// gravity expansion radius (m; 0: none).
const M_DT: u32 = 70u;
const M_STEPS: u32 = 71u;
const M_OUTPUT: u32 = 72u;
const M_FLIGHT: u32 = 73u;
const M_REACH: u32 = 74u;
const M_SETTLE: u32 = 75u;
const M_ESCAPE: u32 = 78u;
const M_TOLERANCE: u32 = 79u;
const M_EXPANSION: u32 = 80u;
// The target's centre of mass (m, T), its inertia tensor and inverse (row-major; torque-free).
const M_CENTRE: u32 = 81u;
const M_SPIN_J: u32 = 84u;
const M_SPIN_J_INV: u32 = 93u;
const MODEL_LEN: u32 = 102u;
const STATE: u32 = 24u;

@group(0) @binding(0) var<storage, read_write> model: array<f64>;
@group(0) @binding(1) var<storage, read_write> verts: array<f64>;
@group(0) @binding(2) var<storage, read_write> grid: array<f64>;
@group(0) @binding(3) var<storage, read_write> poly: array<f64>;
@group(0) @binding(4) var<storage, read_write> y: array<f64>;
@group(0) @binding(5) var<storage, read_write> record: array<f64>;
@group(0) @binding(6) var<storage, read_write> check: array<f64>;
@group(0) @binding(7) var<storage, read_write> settings: array<f64>;
@group(0) @binding(8) var<storage, read_write> out: array<f64>;

// The touching vertices of the last normal phase (from the centre of mass, T axes): the
// contact patch rolling resistance's centre of pressure stays on (tumble-contact's `patch`).
const MAX_PATCH: u32 = 32u;
var<private> contact_patch: array<vec3<f64>, 32>;
var<private> patch_len: u32;

// How far along `e`, as a fraction of it, the centre of pressure can move from `r_p` on the
// patch (tumble-contact's `patch::reach`, which caps it at 1 and stops early: an early return
// from these loops makes lavapipe's LLVM compile the step kernel for minutes instead of
// seconds): the farthest crossing of the ray with a segment between two touching vertices, or
// a vertex on the ray.
fn reach(r_p: vec3<f64>, n: vec3<f64>, e: vec3<f64>) -> f64 {
    let ee = dot(e, e);
    var far = 0.0lf;
    for (var i = 0u; i < patch_len; i++) {
        let d0 = contact_patch[i] - r_p;
        let di = d0 - n * dot(n, d0);
        if (abs(dot(cross(e, di), n)) <= 1e-12lf * length(e) * length(di) && dot(di, e) > 0.0lf) {
            far = max(far, dot(di, e) / ee);
        }
        for (var j = i + 1u; j < patch_len; j++) {
            let d1 = contact_patch[j] - r_p;
            let w = (d1 - n * dot(n, d1)) - di;
            let den = dot(cross(e, w), n);
            if (den == 0.0lf) { continue; }
            let t = dot(cross(di, w), n) / den;
            let u = dot(cross(di, e), n) / den;
            if (u >= 0.0lf && u <= 1.0lf && t > far) { far = t; }
        }
    }
    return far;
}

// This invocation's model and gravity expansion (set by `start`).
var<private> base: u32;
var<private> ex_on: bool;
var<private> ex_c: vec3<f64>;
var<private> ex_u: f64;
var<private> ex_a: vec3<f64>;
var<private> ex_g: mat3x3<f64>;

fn mp(at: u32) -> f64 { return model[base + at]; }

fn m3(at: u32) -> mat3x3<f64> {
    // Row-major in the buffer; WGSL matrices are built from columns.
    return transpose(mat3x3<f64>(
        vec3<f64>(mp(at), mp(at + 1u), mp(at + 2u)),
        vec3<f64>(mp(at + 3u), mp(at + 4u), mp(at + 5u)),
        vec3<f64>(mp(at + 6u), mp(at + 7u), mp(at + 8u))));
}

fn v3(at: u32) -> vec3<f64> {
    return vec3<f64>(mp(at), mp(at + 1u), mp(at + 2u));
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
    let nx = u32(mp(M_SURF + 5u));
    let ny = u32(mp(M_SURF + 6u));
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
    let seed = u64(u32(mp(at))) | (u64(u32(mp(at + 1u))) << 32u);
    let octaves = u32(mp(at + 2u));
    let lacunarity = mp(at + 3u);
    let gain = mp(at + 4u);
    var amp = mp(at + 5u);
    var freq = mp(at + 6u);
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
    if (mp(M_TERRAIN) == 0.0lf) { return base; }
    // Rocky weight w = smoothstep of the region field, and its gradient.
    let r = fbm(p, M_TERRAIN + 15u);
    let width = mp(M_TERRAIN + 23u);
    let x = (r.v - mp(M_TERRAIN + 22u)) / width + 0.5lf;
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
    if (mp(M_SURF) == 0.0lf) {
        let n = v3(M_SURF + 4u);
        return Field(dot(p - v3(M_SURF + 1u), n), n);
    }
    // Trilinear on the grid, clamped to its box; outside, the distance to the box is added and
    // the clamped components' gradient replaced (as tumble-geometry's GridSdf).
    let origin = v3(M_SURF + 1u);
    let h = mp(M_SURF + 4u);
    let dims = vec3<f64>(mp(M_SURF + 5u), mp(M_SURF + 6u), mp(M_SURF + 7u));
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

// Acceleration (m/s²) and potential per unit mass (J/kg) at x: the run's second-order
// expansion where it has one (tumble-dynamics' `Expansion::eval`), else the model.
struct Grav { a: vec3<f64>, u: f64 }

fn gravity(x: vec3<f64>) -> Grav {
    if (ex_on) {
        let d = x - ex_c;
        let gd = ex_g * d;
        return Grav(ex_a + gd, ex_u - dot(ex_a, d) - 0.5lf * dot(d, gd));
    }
    let kind = mp(M_GRAV);
    if (kind == 1.0lf) {
        let g = v3(M_GRAV + 1u);
        return Grav(g, -dot(g, x));
    }
    if (kind == 2.0lf) {
        let r = x - v3(M_GRAV + 1u);
        let r2 = dot(r, r);
        let mu = mp(M_GRAV + 4u);
        return Grav(-mu * r / (r2 * sqrt(r2)), -mu / length(r));
    }
    if (kind == 3.0lf) {
        let s = polyhedron_sample(x);
        return Grav(s.a, s.u);
    }
    return Grav(vec3<f64>(0.0lf), 0.0lf);
}

// Ω̇ = J⁻¹ (−Ω × J Ω) (tumble-dynamics' `TargetSpin::omega_dot`).
fn omega_dot(o: vec3<f64>) -> vec3<f64> {
    if (mp(M_SPIN) == 0.0lf) { return vec3<f64>(0.0lf); }
    return m3(M_SPIN_J_INV) * (-cross(o, m3(M_SPIN_J) * o));
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

alias State = array<f64, 24>;

fn l3(s: State, c: u32) -> vec3<f64> { return vec3<f64>(s[c], s[c + 1u], s[c + 2u]); }
fn l4(s: State, c: u32) -> vec4<f64> { return vec4<f64>(s[c], s[c + 1u], s[c + 2u], s[c + 3u]); }

// What the step loop needs besides the rates: vertices in contact, the smallest signed distance
// of any vertex, the shortest time for a vertex outside to reach the surface, speed and rate,
// the budget's energy (kinetic, potential in the rotating frame, elastic) and the deepest
// penetration.
struct Eval { rates: State, touching: u32, min_distance: f64, time_to_contact: f64, speed: f64, rate: f64, energy: f64, max_pen: f64 }

// `ω̇` (S axes): I⁻¹ (L − ω* × I ω*) + ω* × Ω_S − Ω̇_S, ω* = ω + Ω_S.
fn angular_acceleration(inertia: mat3x3<f64>, inv: mat3x3<f64>, w: vec3<f64>, os: vec3<f64>, ods: vec3<f64>, torque: vec3<f64>) -> vec3<f64> {
    let ws = w + os;
    return inv * (torque - cross(ws, inertia * ws)) + cross(ws, os) - ods;
}

// The rates at state `s` (tumble-sim's `LanderSystem::snapshot`).
fn evaluate(s: State) -> Eval {
    var out: Eval;
    let mass = mp(M_MASS);
    let inertia = m3(M_INERTIA);
    let inertia_inv = m3(M_INERTIA_INV);
    let x = l3(s, 0u); let v = l3(s, 3u); let q = l4(s, 6u); let w = l3(s, 10u);
    let big_q = l4(s, 13u); let omega = l3(s, 17u);
    let r_ts = rotation(q);
    let omega_s = transpose(r_ts) * omega;
    let od = omega_dot(omega);
    let od_s = transpose(r_ts) * od;
    let w_w = r_ts * w; // ω in T axes

    // Normal phase.
    let k = mp(M_K); let c = mp(M_C);
    var touching = 0u;
    patch_len = 0u;
    var force = vec3<f64>(0.0lf); var torque = vec3<f64>(0.0lf);
    var load = 0.0lf; var damper_power = 0.0lf;
    var sum_d = 0.0lf; var sum_dr = vec3<f64>(0.0lf);
    var elastic = 0.0lf;
    out.max_pen = 0.0lf;
    out.min_distance = 1e300lf; // "none": larger than any distance or time here
    out.time_to_contact = out.min_distance;
    let nv = u32(mp(M_NVERT));
    let v0 = 3u * u32(mp(M_VOFF));
    for (var j = 0u; j < nv; j++) {
        let at = v0 + 3u * j;
        let r = r_ts * vec3<f64>(verts[at], verts[at + 1u], verts[at + 2u]);
        let f = field(x + r);
        out.min_distance = min(out.min_distance, f.d);
        if (f.d >= 0.0lf) {
            let closing = -dot(v + cross(w_w, r), f.g);
            if (closing > 0.0lf) { out.time_to_contact = min(out.time_to_contact, f.d / closing); }
            continue;
        }
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
        out.max_pen = max(out.max_pen, delta);
        elastic += 0.5lf * k * delta * delta;
        damper_power -= damper * max(-v_n, 0.0lf);
        sum_d += delta;
        sum_dr += delta * r;
        if (patch_len < MAX_PATCH) { contact_patch[patch_len] = r; patch_len += 1u; }
    }
    var r_p = vec3<f64>(0.0lf); var n_p = vec3<f64>(0.0lf);
    if (touching > 0u) {
        r_p = sum_dr / sum_d;
        n_p = unit_or(field(x + r_p).g, normalize(force));
    }

    // Accelerations without friction.
    let grav = gravity(x);
    // The frame terms about the target's centre of mass.
    let xc = x - v3(M_CENTRE);
    let a_free = grav.a + (-cross(omega, cross(omega, xc)) - 2.0lf * cross(omega, v) - cross(od, xc));
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
        let cap = mp(M_MU_S) * load;
        if (length(stick) > cap) { stick = stick * (cap / length(stick)); }
        var slip_dir = vec3<f64>(0.0lf);
        if (speed > 0.0lf) { slip_dir = v_t / speed; }
        stick -= slip_dir * max(dot(stick, slip_dir), 0.0lf);
        var v_star = mp(M_VSTAR);
        let dt = mp(M_STABLE_DT);
        if (dt > 0.0lf) {
            let d = a11 - a22;
            let lambda = 0.5lf * (a11 + a22) + sqrt(0.25lf * (d * d) + a12 * a12);
            v_star = max(v_star, mp(M_MU) * load * lambda * dt);
        }
        let e = eta(speed / v_star);
        friction = e * (-mp(M_MU) * load * slip_dir) + (1.0lf - e) * stick;
        friction_power = dot(friction, v_p);

        let roll = mp(M_ROLL);
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
            let w_star = max(mp(M_WSTAR), roll * load * tr * dt);
            let er = eta(spin / w_star);
            var tq = er * (-cap_r * w_dir) + (1.0lf - er) * l_stick;
            let u = w_w - mass * (inv_w * cross(r_p, proj * v));
            if (length(u) > 0.0lf) {
                let u_dir = u / length(u);
                tq -= u_dir * max(dot(tq, u_dir), 0.0lf);
            }
            // C_RR F_N bounds the pair's moment about the contact point, whose centre of
            // pressure stays on the patch (tumble-contact's `tangential_phase`).
            var moment = tq - cross(r_p, -mass * (proj * cross(inv_w * tq, r_p)));
            if (length(moment) > cap_r) {
                let kr = cap_r / length(moment);
                tq = tq * kr;
                moment = moment * kr;
            }
            let shift = cross(nn, moment) / load;
            if (length(shift) > 0.0lf) {
                let rr = reach(r_p, nn, shift);
                if (rr < 1.0lf) { tq = tq * rr; }
            }
            rolling_torque = tq;
            rolling_force = -mass * (proj * cross(inv_w * tq, r_p));
            rolling_power = dot(rolling_torque, w_w) + dot(rolling_force, v);
        }
    }

    let f_total = force + friction + rolling_force;
    let t_total = torque + cross(r_p, friction) + rolling_torque;
    let alpha_s = angular_acceleration(inertia, inertia_inv, w, omega_s, od_s, transpose(r_ts) * t_total);
    let a = a_free + f_total / mass;
    let qd = quat_derivative(q, w);
    let wd = transpose(r_ts) * (r_ts * alpha_s);
    let bqd = quat_derivative(big_q, omega);
    let v_in = v + cross(omega, xc);
    out.rates = State(v.x, v.y, v.z, a.x, a.y, a.z, qd.x, qd.y, qd.z, qd.w, wd.x, wd.y, wd.z,
        bqd.x, bqd.y, bqd.z, bqd.w, od.x, od.y, od.z, damper_power, friction_power, rolling_power,
        -mass * dot(v_in, cross(od, xc)) - dot(w + omega_s, inertia * od_s));
    out.touching = touching;
    let ox = cross(omega, xc);
    let potential = mass * (grav.u - 0.5lf * dot(ox, ox)) - 0.5lf * dot(omega_s, inertia * omega_s);
    out.energy = 0.5lf * mass * dot(v, v) + 0.5lf * dot(w, inertia * w) + potential + elastic;
    out.speed = length(v);
    out.rate = length(w_w);
    return out;
}

fn vertex(j: u32) -> vec3<f64> {
    let at = 3u * u32(mp(M_VOFF)) + 3u * j;
    return vec3<f64>(verts[at], verts[at + 1u], verts[at + 2u]);
}

// Whether the spacecraft rests statically: three or more vertices touch and the line of the
// effective gravity through the centre of mass passes strictly inside their polygon (tumble-sim's
// `LanderSystem::supported`: every touching vertex has another less than half a turn ahead of it
// about that line). O(n²) field queries, made only while the spacecraft is calm.
fn supported(s: State) -> bool {
    let x = l3(s, 0u); let r_ts = rotation(l4(s, 6u)); let omega = l3(s, 17u);
    let nv = u32(mp(M_NVERT));
    var count = 0u; var normal = vec3<f64>(0.0lf);
    for (var j = 0u; j < nv; j++) {
        let f = field(x + r_ts * vertex(j));
        if (f.d < 0.0lf) { count += 1u; normal += f.g; }
    }
    if (count < 3u) { return false; }
    var down = gravity(x).a - cross(omega, cross(omega, x - v3(M_CENTRE)));
    if (!(length(down) > 0.0lf)) { down = -normal; }
    for (var a = 0u; a < nv; a++) {
        let ra = r_ts * vertex(a);
        if (field(x + ra).d >= 0.0lf) { continue; }
        var ahead = false;
        for (var b = 0u; b < nv; b++) {
            let rb = r_ts * vertex(b);
            if (field(x + rb).d < 0.0lf && dot(cross(ra, rb), down) > 0.0lf) { ahead = true; break; }
        }
        if (!ahead) { return false; }
    }
    return true;
}

fn load_state(i: u32, n: u32) -> State {
    var s: State;
    for (var c = 0u; c < STATE; c++) { s[c] = y[c * n + i]; }
    return s;
}

// Selects run i's model (runs share model 0 when the buffer holds one).
fn start(i: u32) {
    if (arrayLength(&model) > MODEL_LEN) { base = i * MODEL_LEN; } else { base = 0u; }
    ex_on = false;
}

// The check that the driver ran every loop to its end: Mesa's lavapipe stops every loop of an
// invocation group after 65,535 iterations in all, silently. A loop of a count read from
// memory that falls short says it did; the host then repeats the dispatch with fewer steps.
fn checked(value: f64) -> f64 {
    let n = u32(settings[1]);
    var c = 0u;
    for (var j = 0u; j < n; j++) { c += u32(settings[2]); }
    if (c == n) { return value; }
    return -1.0lf;
}

// The rates of every run's state (into `out`).
@compute @workgroup_size(64)
fn lander_rates(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&y) / STATE;
    let i = gid.x;
    if (i >= n) { return; }
    start(i);
    let e = evaluate(load_state(i, n));
    for (var c = 0u; c < STATE; c++) { out[c * n + i] = e.rates[c]; }
    check[i] = checked(0.0lf);
}

// ---- The step loop (tumble-sim's `lander::simulate` without hops and local surface models):
// RK4 at dt; in free flight up to `flight_steps` dt at once (ending on an output sample) when
// no vertex can reach the surface within twice the step at the current speed and rate; 16
// sub-steps when a vertex touches down within the step; after each step the gravity expansion
// refreshed when the run has moved beyond its radius (the Taylor remainder carried as work),
// the energy budget, touchdowns, the energy-growth stop, escape and settling. One loop
// iteration is one RK4 step (a sub-step counts as one), so a dispatch may end inside a
// touchdown and the next one continue it.

const TOUCHDOWN_SUBSTEPS: f64 = 16.0lf;
// The per-run record (structure of arrays, REC_LEN per run): steps taken, touchdown sub-step
// (0: none under way), outcome, its time (s), calm since (s; < 0: not calm), touchdowns, in
// contact (0/1), deepest penetration (m), largest |balance error| (J), initial energy (J),
// expansion remainders (J), the energy growth that stopped a run (J), the expansion (centre 3,
// potential, acceleration 3, gradient 9 row-major; `R_EX_ON` 1 when set), a step's events
// waiting for the expansion's refresh (0/1).
const R_K: u32 = 0u;
const R_SUB: u32 = 1u;
const R_OUTCOME: u32 = 2u;
const R_WHEN: u32 = 3u;
const R_CALM: u32 = 4u;
const R_BOUNCES: u32 = 5u;
const R_CONTACT: u32 = 6u;
const R_PEN: u32 = 7u;
const R_ERR: u32 = 8u;
const R_E0: u32 = 9u;
const R_REMAINDER: u32 = 10u;
const R_GROWTH: u32 = 11u;
const R_EX: u32 = 12u;
const R_EX_ON: u32 = 28u;
const R_PENDING: u32 = 29u;
const REC_LEN: u32 = 30u;
// Outcomes: running, settled, escaped, completed, failed (state not finite), failed (energy grew).
const RUNNING: f64 = 0.0lf;
const SETTLED: f64 = 1.0lf;
const ESCAPED: f64 = 2.0lf;
const COMPLETED: f64 = 3.0lf;
const NOT_FINITE: f64 = 4.0lf;
const ENERGY_GREW: f64 = 5.0lf;

fn rec(i: u32, n: u32, f: u32) -> f64 { return record[f * n + i]; }
fn set_rec(i: u32, n: u32, f: u32, v: f64) { record[f * n + i] = v; }

fn load_expansion(i: u32, n: u32) {
    ex_on = rec(i, n, R_EX_ON) == 1.0lf;
    ex_c = vec3<f64>(rec(i, n, R_EX), rec(i, n, R_EX + 1u), rec(i, n, R_EX + 2u));
    ex_u = rec(i, n, R_EX + 3u);
    ex_a = vec3<f64>(rec(i, n, R_EX + 4u), rec(i, n, R_EX + 5u), rec(i, n, R_EX + 6u));
    let g = R_EX + 7u;
    ex_g = transpose(mat3x3<f64>(
        vec3<f64>(rec(i, n, g), rec(i, n, g + 1u), rec(i, n, g + 2u)),
        vec3<f64>(rec(i, n, g + 3u), rec(i, n, g + 4u), rec(i, n, g + 5u)),
        vec3<f64>(rec(i, n, g + 6u), rec(i, n, g + 7u), rec(i, n, g + 8u))));
}

// Expands the polyhedron about x (tumble-dynamics' `Expansion::new`) and records it.
fn expand(i: u32, n: u32, x: vec3<f64>) {
    let s = polyhedron_sample(x);
    ex_on = true; ex_c = x; ex_u = s.u; ex_a = s.a; ex_g = s.grad;
    for (var c = 0u; c < 3u; c++) {
        set_rec(i, n, R_EX + c, x[c]);
        set_rec(i, n, R_EX + 4u + c, s.a[c]);
        for (var r = 0u; r < 3u; r++) { set_rec(i, n, R_EX + 7u + 3u * r + c, s.grad[c][r]); }
    }
    set_rec(i, n, R_EX + 3u, s.u);
    set_rec(i, n, R_EX_ON, 1.0lf);
}

fn expansion_stale(x: vec3<f64>) -> bool {
    let radius = mp(M_EXPANSION);
    return radius > 0.0lf && (!ex_on || length(x - ex_c) > radius);
}

fn project(s: State) -> State {
    var o = s;
    for (var b = 6u; b <= 13u; b += 7u) {
        let nq = sqrt(o[b] * o[b] + o[b + 1u] * o[b + 1u] + o[b + 2u] * o[b + 2u] + o[b + 3u] * o[b + 3u]);
        for (var c = b; c < b + 4u; c++) { o[c] = o[c] / nq; }
    }
    return o;
}

// One RK4 step of length h from s, whose rates are k1; then the quaternions normalised
// (tumble-dynamics' `Integrator` with `Method::Rk4`).
fn rk4(s: State, k1: State, h: f64) -> State {
    var yt: State;
    for (var c = 0u; c < STATE; c++) { yt[c] = s[c] + 0.5lf * h * k1[c]; }
    let k2 = evaluate(yt).rates;
    for (var c = 0u; c < STATE; c++) { yt[c] = s[c] + 0.5lf * h * k2[c]; }
    let k3 = evaluate(yt).rates;
    for (var c = 0u; c < STATE; c++) { yt[c] = s[c] + h * k3[c]; }
    let k4 = evaluate(yt).rates;
    var o = s;
    for (var c = 0u; c < STATE; c++) { o[c] += h / 6.0lf * (k1[c] + 2.0lf * (k2[c] + k3[c]) + k4[c]); }
    return project(o);
}

// Before the first step: the expansion about the start, the initial energy, contact or not.
@compute @workgroup_size(64)
fn lander_init(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&y) / STATE;
    let i = gid.x;
    if (i >= n) { return; }
    start(i);
    let s = load_state(i, n);
    if (expansion_stale(l3(s, 0u))) { expand(i, n, l3(s, 0u)); }
    let e = evaluate(s);
    set_rec(i, n, R_E0, e.energy);
    set_rec(i, n, R_CONTACT, select(0.0lf, 1.0lf, e.touching > 0u));
    set_rec(i, n, R_CALM, -1.0lf);
    check[i] = checked(RUNNING);
}

// Up to settings[0] steps of every run still running. A refresh of the gravity expansion (a
// sweep over the polyhedron) ends the dispatch, and one due after a dispatch's first step waits
// for the next (`R_PENDING`): a dispatch holds at most one sweep.
@compute @workgroup_size(64)
fn lander_steps(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&y) / STATE;
    let i = gid.x;
    if (i >= n) { return; }
    start(i);
    load_expansion(i, n);
    let dt = mp(M_DT); let steps = mp(M_STEPS); let output_every = mp(M_OUTPUT);
    let flight_steps = mp(M_FLIGHT); let reach = mp(M_REACH);
    let settle_speed = mp(M_SETTLE); let settle_rate = mp(M_SETTLE + 1u); let dwell = mp(M_SETTLE + 2u);
    let escape = mp(M_ESCAPE); let tolerance = mp(M_TOLERANCE);
    var k = rec(i, n, R_K); var sub = rec(i, n, R_SUB);
    var outcome = rec(i, n, R_OUTCOME); var when = rec(i, n, R_WHEN); var calm = rec(i, n, R_CALM);
    var bounces = rec(i, n, R_BOUNCES); var in_contact = rec(i, n, R_CONTACT) == 1.0lf;
    var max_pen = rec(i, n, R_PEN); var max_err = rec(i, n, R_ERR);
    let e0 = rec(i, n, R_E0); var remainder = rec(i, n, R_REMAINDER); var growth = rec(i, n, R_GROWTH);
    var pending = rec(i, n, R_PENDING) == 1.0lf;
    var s = load_state(i, n);
    var e: Eval;
    if (outcome == RUNNING && !pending) { e = evaluate(s); }
    let budget = u32(settings[0]);
    for (var it = 0u; it < budget; it++) {
        if (outcome != RUNNING) { break; }
        if (!pending) {
            if (k >= steps) { outcome = COMPLETED; when = k * dt; break; }
            var m = 1.0lf;
            if (sub == 0.0lf) {
                if (flight_steps > 1.0lf && e.touching == 0u) {
                    let to_sample = output_every - (k - floor(k / output_every) * output_every);
                    let n_max = min(min(flight_steps, to_sample), steps - k);
                    let travel = (e.speed + e.rate * reach) * 2.0lf * n_max * dt;
                    if (e.min_distance > travel) { m = n_max; }
                }
                if (m == 1.0lf && e.time_to_contact < dt) { sub = 1.0lf; }
            }
            if (sub > 0.0lf) {
                // A vertex touches down within this step: 16 sub-steps (tumble-sim's reason:
                // the damper switching on inside the step costs RK4 its order).
                s = rk4(s, e.rates, dt / TOUCHDOWN_SUBSTEPS);
                sub += 1.0lf;
                if (sub <= TOUCHDOWN_SUBSTEPS) {
                    e = evaluate(s);
                    continue;
                }
                sub = 0.0lf;
            } else {
                s = rk4(s, e.rates, m * dt);
            }
            k += m;
            var finite = true;
            for (var c = 0u; c < STATE; c++) { if (!(abs(s[c]) <= 1.7976931348623157e308lf)) { finite = false; } }
            if (!finite) { outcome = NOT_FINITE; when = k * dt; break; }
            if (it > 0u && expansion_stale(l3(s, 0u))) { pending = true; break; }
        }
        // After the step: the expansion, the budget, events.
        let t = k * dt;
        let x = l3(s, 0u);
        let refresh = expansion_stale(x);
        if (refresh) {
            let before = evaluate(s).energy;
            expand(i, n, x);
            e = evaluate(s);
            remainder += e.energy - before;
        } else {
            e = evaluate(s);
        }
        pending = false;
        let err = e.energy - e0 - (0.0lf + s[20] + s[21] + s[22] + s[23] + remainder);
        max_err = max(max_err, abs(err));
        max_pen = max(max_pen, e.max_pen);
        let touching = e.touching > 0u;
        if (touching != in_contact) {
            if (touching) { bounces += 1.0lf; }
            in_contact = touching;
        }
        if (err > tolerance) { outcome = ENERGY_GREW; when = t; growth = err; break; }
        if (escape >= 0.0lf && length(x - v3(M_CENTRE)) > escape) { outcome = ESCAPED; when = t; break; }
        if (dwell >= 0.0lf) {
            if (e.speed < settle_speed && e.rate < settle_rate && supported(s)) {
                if (calm < 0.0lf) { calm = t; }
                if (t - calm >= dwell) { outcome = SETTLED; when = t; break; }
            } else {
                calm = -1.0lf;
            }
        }
        if (refresh) { break; }
    }
    for (var c = 0u; c < STATE; c++) { y[c * n + i] = s[c]; }
    set_rec(i, n, R_K, k); set_rec(i, n, R_SUB, sub); set_rec(i, n, R_OUTCOME, outcome);
    set_rec(i, n, R_WHEN, when); set_rec(i, n, R_CALM, calm); set_rec(i, n, R_BOUNCES, bounces);
    set_rec(i, n, R_CONTACT, select(0.0lf, 1.0lf, in_contact)); set_rec(i, n, R_PEN, max_pen);
    set_rec(i, n, R_ERR, max_err); set_rec(i, n, R_REMAINDER, remainder); set_rec(i, n, R_GROWTH, growth);
    set_rec(i, n, R_PENDING, select(0.0lf, 1.0lf, pending));
    check[i] = checked(outcome);
}
