// The lander (tumble-sim's `LanderSystem` and `lander::simulate`) for one run per invocation.
// The right-hand side follows `LanderSystem::snapshot` (the same operations in the same order
// where the result depends on it): kinematics → normal forces of the vertices on the surface →
// accelerations without friction → friction with the stick force and rolling resistance →
// rates of the 24 states, with the energy terms of the budget. The surface is surface.wgsl's,
// the step loop steps.wgsl's.
//
// Buffers (f64): `model` (MODEL_LEN per run, or one shared by all runs), `verts` (contact
// vertices, body axes, 3 per vertex, from the run's offset), `grid` (samples of a grid surface,
// x fastest, shared), `poly` (a gravity polyhedron, gravity.wgsl, shared), `y` (structure of
// arrays: component c of run i at c·n + i), `record` (the step loop's per-run record, structure
// of arrays), `check` (per run: the outcome, or -1 where the driver cut a loop short),
// `settings` (loop iterations per dispatch, the check loop's count, 1), `out` (rates).

// tumble-contact's `vertex_sdf::WIDENING`: v* and ω* widen so that the friction and rolling
// drags' rate times the step stays at or below 2 / WIDENING.
const WIDENING: f64 = 4.0lf;
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
const M_SPIN: u32 = 27u;        // 0 uniform, 1 torque-free with the target's inertia at M_SPIN_J
const M_TERRAIN_ORIGIN: u32 = 28u; // the point terrain heights and a noise mask are measured from (m, T; 31 unused)
const M_GRAV: u32 = 31u;        // 0 none, 1 uniform (g at 32..35), 2 point mass (centre 32..35, μ 35), 3 polyhedron (`poly`)
const M_SURF: u32 = 36u;        // 0 plane (point 37..40, normal 40..43), 1 grid (origin 37..40, spacing 40, dims 41..44), 2 a mesh's grid (as 1, refined)
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
// The internal actuator (tumble-sim's `hop::Actuator`): kind (0 none, 1 wheel, 2 torquer), its
// largest torque (N·m) and momentum (N·m·s), the despin's `½ min(μ, 1) m` (kg) and `r_min` (the
// nearest vertex's distance from the centre of mass, m), the smallest principal moment of
// inertia (kg·m²).
const M_ACT: u32 = 102u;
// The step at which the next hop at a time fires (1e300: none), the energy limit's growth per
// joule of actuator work, and where in `grid` the boulder field and a latitude–longitude
// region grid start (< 0: none).
const M_HOP_STEP: u32 = 108u;
const M_GROWTH: u32 = 109u;
const M_BOULDERS: u32 = 110u;
const M_REGION_GRID: u32 = 111u;
// The Sun's forces (tumble-sim's `SunForces`): the unit vector to the Sun (N axes, held at the
// epoch's), the radiation pressure's acceleration (m/s²) and GM/r³ of its tide (1/s²; 0: none).
const M_SUN: u32 = 112u;
const MODEL_LEN: u32 = 117u;
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

// This invocation's model and gravity expansion (set by `start`), and its actuator's torque
// and rotor momentum (body axes; zero unless the step loop loads them).
var<private> base: u32;
var<private> act_tau: vec3<f64>;
var<private> act_h: vec3<f64>;
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

// Acceleration (m/s²) and potential per unit mass (J/kg) at x: the run's second-order
// expansion where it has one (tumble-dynamics' `Expansion::eval`), else the model.
struct Grav { a: vec3<f64>, u: f64 }

fn gravity(x: vec3<f64>) -> Grav {
    if (ex_on) {
        let d = x - ex_c;
        let gd = ex_g * d;
        return Grav(ex_a + gd, ex_u - dot(ex_a, d) - 0.5lf * dot(d, gd));
    }
    let s = field_sample(x);
    return Grav(s.a, s.u);
}

// The model's potential, acceleration and gradient at x (tumble-dynamics' `Gravity::field`).
fn field_sample(x: vec3<f64>) -> Gravity {
    let kind = mp(M_GRAV);
    let zero = mat3x3<f64>(vec3<f64>(0.0lf), vec3<f64>(0.0lf), vec3<f64>(0.0lf));
    if (kind == 1.0lf) {
        let g = v3(M_GRAV + 1u);
        return Gravity(-dot(g, x), g, zero);
    }
    if (kind == 2.0lf) {
        // ∇a = μ (3 r rᵀ − |r|² I) / |r|⁵.
        let r = x - v3(M_GRAV + 1u);
        let r2 = dot(r, r);
        let mu = mp(M_GRAV + 4u);
        let rr = mat3x3<f64>(r * r.x, r * r.y, r * r.z);
        let eye = mat3x3<f64>(vec3<f64>(r2, 0.0lf, 0.0lf), vec3<f64>(0.0lf, r2, 0.0lf), vec3<f64>(0.0lf, 0.0lf, r2));
        let grad = mu * (3.0lf * rr - eye) * (1.0lf / (r2 * r2 * sqrt(r2)));
        return Gravity(-mu / length(r), -mu * r / (r2 * sqrt(r2)), grad);
    }
    if (kind == 3.0lf) { return polyhedron_sample(x); }
    return Gravity(0.0lf, vec3<f64>(0.0lf), zero);
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
// The attitude held at s[c..c + 4], normalised (tumble-sim's `quat`: RK4's stages leave the
// quaternion off the unit sphere, and a rotation built from it would scale the body).
fn unit_quat(s: State, c: u32) -> vec4<f64> { return normalize(l4(s, c)); }

// What the step loop needs besides the rates: vertices in contact, the smallest signed distance
// of any vertex, the shortest time for a vertex outside to reach the surface, speed and rate,
// the budget's energy (kinetic, potential in the rotating frame, elastic) and the deepest
// penetration.
// The rates and what the step loop observes: touching vertices, the nearest distance and the
// time to contact of the others, speed and rate, energy, the deepest vertex, the normal load
// Σ|F_j| (N) and the application point r_p (T axes from the centre of mass) with its normal.
struct Eval {
    rates: State, touching: u32, min_distance: f64, time_to_contact: f64, speed: f64, rate: f64,
    energy: f64, max_pen: f64, load: f64, r_p: vec3<f64>, n_p: vec3<f64>,
}

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
    let x = l3(s, 0u); let v = l3(s, 3u); let q = unit_quat(s, 6u); let w = l3(s, 10u);
    let big_q = unit_quat(s, 13u); let omega = l3(s, 17u);
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
    // The vertices, then (j = nv) the centre of pressure of the touching ones: one surface
    // query in one loop (see `rk4` in steps.wgsl).
    var r_p = vec3<f64>(0.0lf); var n_p = vec3<f64>(0.0lf);
    for (var j = 0u; j <= nv; j++) {
        let at = v0 + 3u * j;
        var r = r_p;
        if (j < nv) {
            r = r_ts * vec3<f64>(verts[at], verts[at + 1u], verts[at + 2u]);
        } else if (touching > 0u) {
            r_p = sum_dr / sum_d;
            r = r_p;
        } else {
            break;
        }
        let f = field(x + r);
        if (j == nv) {
            n_p = unit_or(f.g, normalize(force));
            break;
        }
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

    // Accelerations without friction.
    let grav = gravity(x);
    // The frame terms about the target's centre of mass.
    let xc = x - v3(M_CENTRE);
    // The Sun's radiation pressure and tide (zero without `[lander.sun]`).
    let sun = transpose(rotation(big_q)) * v3(M_SUN);
    let a_sun = -sun * mp(M_SUN + 3u) + (sun * (3.0lf * dot(sun, xc)) - xc) * mp(M_SUN + 4u);
    let a_free = grav.a + a_sun + (-cross(omega, cross(omega, xc)) - 2.0lf * cross(omega, v) - cross(od, xc));
    let inertia_w = r_ts * inertia * transpose(r_ts);
    let inv_w = r_ts * inertia_inv * transpose(r_ts);
    // The actuator's torque and its rotor's gyroscopic coupling, in T axes.
    let internal_s = act_tau - cross(w + omega_s, act_h);
    let internal = r_ts * internal_s;
    let a0 = a_free + force / mass;
    let alpha0 = r_ts * angular_acceleration(inertia, inertia_inv, w, omega_s, od_s, transpose(r_ts) * (torque + internal));

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
            v_star = max(v_star, WIDENING * mp(M_MU) * load * lambda * dt);
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
            let w_star = max(mp(M_WSTAR), WIDENING * roll * load * tr * dt);
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
    let t_total = torque + cross(r_p, friction) + rolling_torque + internal;
    let alpha_s = angular_acceleration(inertia, inertia_inv, w, omega_s, od_s, transpose(r_ts) * t_total);
    let a = a_free + f_total / mass;
    let qd = quat_derivative(q, w);
    let wd = transpose(r_ts) * (r_ts * alpha_s);
    let bqd = quat_derivative(big_q, omega);
    let v_in = v + cross(omega, xc);
    out.rates = State(v.x, v.y, v.z, a.x, a.y, a.z, qd.x, qd.y, qd.z, qd.w, wd.x, wd.y, wd.z,
        bqd.x, bqd.y, bqd.z, bqd.w, od.x, od.y, od.z, damper_power, friction_power, rolling_power,
        -mass * dot(v_in, cross(od, xc)) - dot(w + omega_s, inertia * od_s) + dot(w, internal_s) + mass * dot(a_sun, v));
    out.touching = touching;
    let ox = cross(omega, xc);
    let potential = mass * (grav.u - 0.5lf * dot(ox, ox)) - 0.5lf * dot(omega_s, inertia * omega_s);
    out.energy = 0.5lf * mass * dot(v, v) + 0.5lf * dot(w, inertia * w) + potential + elastic;
    out.load = load;
    out.r_p = r_p;
    out.n_p = n_p;
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
// about that line). O(n²) field queries, made only while the spacecraft is calm, from one call
// in one loop (see `rk4` in steps.wgsl): first each vertex, counting those that touch; then for
// each vertex a that touches, the others b until one touches ahead of it (slot 0 of a's row
// queries a).
fn supported(s: State) -> bool {
    let x = l3(s, 0u); let r_ts = rotation(unit_quat(s, 6u)); let omega = l3(s, 17u);
    let nv = u32(mp(M_NVERT));
    if (nv < 3u) { return false; }
    var count = 0u; var normal = vec3<f64>(0.0lf); var down = vec3<f64>(0.0lf);
    var pairs = false; var j = 0u; var a = 0u; var b = 0u;
    var ra = vec3<f64>(0.0lf); var ahead = false; var result = true;
    loop {
        var v = j;
        if (pairs) { v = select(b - 1u, a, b == 0u); }
        let rv = r_ts * vertex(v);
        let f = field(x + rv);
        let touches = f.d < 0.0lf;
        if (!pairs) {
            if (touches) { count += 1u; normal += f.g; }
            j += 1u;
            if (j == nv) {
                if (count < 3u) { result = false; break; }
                down = gravity(x).a - cross(omega, cross(omega, x - v3(M_CENTRE)));
                if (!(length(down) > 0.0lf)) { down = -normal; }
                pairs = true;
            }
            continue;
        }
        if (b == 0u) {
            if (touches) {
                ra = rv; ahead = false; b = 1u;
            } else {
                a += 1u;
                if (a == nv) { break; }
            }
            continue;
        }
        if (touches && dot(cross(ra, rv), down) > 0.0lf) { ahead = true; }
        b += 1u;
        if (ahead || b > nv) {
            if (!ahead) { result = false; break; }
            a += 1u; b = 0u;
            if (a == nv) { break; }
        }
    }
    return result;
}

// The energy the damper, friction and rolling resistance have dissipated (J, positive).
fn dissipated(s: State) -> f64 { return -(s[20] + s[21] + s[22]); }

fn load_state(i: u32, n: u32) -> State {
    var s: State;
    for (var c = 0u; c < STATE; c++) { s[c] = y[c * n + i]; }
    return s;
}

// Selects run i's model (runs share model 0 when the buffer holds one).
fn start(i: u32) {
    if (arrayLength(&model) > MODEL_LEN) { base = i * MODEL_LEN; } else { base = 0u; }
    ex_on = false;
    act_tau = vec3<f64>(0.0lf);
    act_h = vec3<f64>(0.0lf);
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
