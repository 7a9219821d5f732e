// ---- The step loop (tumble-sim's `lander::simulate`; hops are fired by the host and their
// torque profiles delivered here, local surface models not built):
// RK4 at dt; in free flight up to `flight_steps` dt at once (ending on an output sample), as
// many as keep every vertex from reaching the surface within twice the step at the current
// speed and rate; 16
// sub-steps when a vertex touches down within the step; after each step the gravity expansion
// refreshed when the run has moved beyond its radius (the Taylor remainder carried as work),
// the energy budget, touchdowns and impact loads, the energy-growth stop, escape and settling.
// One loop iteration is one RK4 step (a sub-step counts as one), so a dispatch may end inside a
// touchdown and the next one continue it.

const TOUCHDOWN_SUBSTEPS: f64 = 16.0lf;
// The per-run record (structure of arrays, REC_LEN per run): steps taken, touchdown sub-step
// (0: none under way), outcome, its time (s), calm since (s; < 0: not calm), touchdowns, in
// contact (0/1), deepest penetration (m), largest |balance error| (J), initial energy (J),
// expansion remainders (J), the energy growth that stopped a run (J), the expansion (centre 3,
// potential, acceleration 3, gradient 9 row-major; `R_EX_ON` 1 when set), a step's events
// waiting for the expansion's refresh (0/1), then the impact loads' fields (below).
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
// Impact loads (tumble-sim's `ImpactLog`, maxima only): the velocity and angular velocity (T
// axes) and dissipation of the last observation, the dissipation before the open contact phase,
// the energy it has lost so far, and the largest closing speed, speed across the normal, normal
// load and energy lost of a closed phase (-1e300 before any).
const R_BEFORE: u32 = 30u;
const R_LOST: u32 = 36u;
const R_PHASE_LOST: u32 = 37u;
const R_OPEN_LOST: u32 = 38u;
const R_MAX_VN: u32 = 39u;
const R_MAX_VT: u32 = 40u;
const R_MAX_F: u32 = 41u;
const R_MAX_E: u32 = 42u;
// An expansion being computed: the next term of the polyhedron's sums plus one (0: none), the
// sums so far (potential, acceleration 3, gradient 9 by columns), the energy before it (J).
const R_SWEEP: u32 = 43u;
const R_SUMS: u32 = 44u;
const R_BEFORE_E: u32 = 57u;
// The actuator (tumble-sim's `sim/drive.rs`): the step's torque and the rotor's momentum (body
// axes), the torque profile being delivered (torque 3, steps left (0: none), the last step's
// fraction, 1 where the host has just started it), the momentum it has delivered, and the
// actuator's work (|ΔL| |ω| per step and each impulse's |ΔT|, J), which grows the energy limit.
const R_TAU: u32 = 58u;
const R_ROTOR: u32 = 61u;
const R_DRIVE: u32 = 64u;
const R_DELIVERED: u32 = 70u;
const R_ACT_WORK: u32 = 73u;
// The last observation's touching vertices and speed (m/s), which the despin's calm reads.
const R_OBS: u32 = 74u;
// The last hop's landing (tumble-sim's `find_landings`): 0 not followed, 1 waiting for the
// lift-off, 2 lifted off at R_LIFT, 3 landed at R_LANDING (the centre of mass, m, T).
const R_LAND: u32 = 76u;
const R_LIFT: u32 = 77u;
const R_LANDING: u32 = 80u;
// The first touchdown: its time (s), the centre of mass (T, m) and the target's attitude Q_NT
// (w, x, y, z), for the Sun's elevation there.
const R_FIRST: u32 = 83u;
const REC_LEN: u32 = 91u;
// How far from its lift-off a hop's landing is, at least, m (tumble-sim's `LANDING_AWAY`).
const LANDING_AWAY: f64 = 1.0lf;
// Outcomes: running, settled, escaped, completed, failed (state not finite), failed (energy grew).
const RUNNING: f64 = 0.0lf;
const SETTLED: f64 = 1.0lf;
const ESCAPED: f64 = 2.0lf;
const COMPLETED: f64 = 3.0lf;
const NOT_FINITE: f64 = 4.0lf;
const ENERGY_GREW: f64 = 5.0lf;
// What `check` says of a running run that waits for its expansion (`lander_sweep`), and of one
// whose hop at a time is due (the host fires it).
const SWEEP: f64 = 6.0lf;
const HOP: f64 = 7.0lf;

fn rec(i: u32, n: u32, f: u32) -> f64 { return record[f * n + i]; }
fn set_rec(i: u32, n: u32, f: u32, v: f64) { record[f * n + i] = v; }

fn rec3(i: u32, n: u32, f: u32) -> vec3<f64> { return vec3<f64>(rec(i, n, f), rec(i, n, f + 1u), rec(i, n, f + 2u)); }
fn set_rec3(i: u32, n: u32, f: u32, v: vec3<f64>) { for (var c = 0u; c < 3u; c++) { set_rec(i, n, f + c, v[c]); } }
// The matrix whose columns are fields f..f + 3, f + 3..f + 6 and f + 6..f + 9.
fn rec_columns(i: u32, n: u32, f: u32) -> mat3x3<f64> { return mat3x3<f64>(rec3(i, n, f), rec3(i, n, f + 3u), rec3(i, n, f + 6u)); }

// The torque profile being delivered (see R_DRIVE) and the actuator's work.
var<private> drive_torque: vec3<f64>;
var<private> drive_steps: f64;
var<private> drive_last: f64;
var<private> delivered: vec3<f64>;
var<private> act_work: f64;

fn load_actuator(i: u32, n: u32) {
    act_tau = rec3(i, n, R_TAU); act_h = rec3(i, n, R_ROTOR);
    drive_torque = rec3(i, n, R_DRIVE); drive_steps = rec(i, n, R_DRIVE + 3u); drive_last = rec(i, n, R_DRIVE + 4u);
    delivered = rec3(i, n, R_DELIVERED); act_work = rec(i, n, R_ACT_WORK);
    // A profile the host has just started takes its first step's torque here.
    if (rec(i, n, R_DRIVE + 5u) == 1.0lf) {
        drive_step();
        set_rec(i, n, R_DRIVE + 5u, 0.0lf);
    }
}

fn save_actuator(i: u32, n: u32) {
    set_rec3(i, n, R_TAU, act_tau); set_rec3(i, n, R_ROTOR, act_h);
    set_rec(i, n, R_DRIVE + 3u, drive_steps); set_rec3(i, n, R_DELIVERED, delivered);
    set_rec(i, n, R_ACT_WORK, act_work);
}

// The momentum the actuator's limit applies to: a wheel's rotor, or what a torquer has
// delivered in this hop (tumble-sim's `rotor`).
fn rotor() -> vec3<f64> {
    if (mp(M_ACT) == 2.0lf) { return -delivered; }
    return act_h;
}

// Sets the torque of the profile's next step, ending it where it is done or the rotor would
// pass its limit (tumble-sim's `next_drive_step`).
fn drive_step() {
    var torque = drive_torque;
    if (drive_steps == 1.0lf) { torque = drive_torque * drive_last; }
    let fits = mp(M_ACT) == 0.0lf || length(rotor() + (-torque * mp(M_DT))) <= mp(M_ACT + 2u) * (1.0lf + 1e-12lf);
    if (drive_steps == 0.0lf || !fits) {
        drive_steps = 0.0lf;
        act_tau = vec3<f64>(0.0lf);
    } else {
        act_tau = torque;
    }
}

// After a step of `h` s to state s (the last observation's touching vertices and speed): the
// profile's next torque (tumble-sim's `drove`), or a wheel's despin (`despin`): once calm on the
// ground half the smaller of the friction and tipping moments, within the actuator's torque.
fn actuate(s: State, h: f64, obs_active: f64, obs_speed: f64) {
    let kind = mp(M_ACT);
    if (drive_steps == 0.0lf && kind != 1.0lf) { return; }
    let dl = act_tau * h;
    act_work += length(dl) * length(l3(s, 10u));
    if (drive_steps > 0.0lf) {
        drive_steps -= 1.0lf;
        delivered += dl;
        if (kind == 1.0lf) { act_h -= dl; }
        drive_step();
        return;
    }
    act_h -= dl;
    let left = length(act_h);
    var limit = 0.0lf;
    if (left > 0.0lf && obs_speed < 10.0lf * mp(M_SETTLE) && obs_active > 0.0lf) {
        limit = min(mp(M_ACT + 3u) * length(gravity(l3(s, 0u)).a) * mp(M_ACT + 4u), mp(M_ACT + 1u));
    }
    if (left > 0.0lf) { act_tau = act_h * (min(limit, left / mp(M_DT)) / left); } else { act_tau = act_h * 0.0lf; }
    if (left <= 1e-12lf * mp(M_ACT + 2u)) {
        act_h = vec3<f64>(0.0lf);
        act_tau = vec3<f64>(0.0lf);
    }
}

fn load_expansion(i: u32, n: u32) {
    ex_on = rec(i, n, R_EX_ON) == 1.0lf;
    ex_c = rec3(i, n, R_EX);
    ex_u = rec(i, n, R_EX + 3u);
    ex_a = rec3(i, n, R_EX + 4u);
    // (Stored row-major.)
    ex_g = transpose(rec_columns(i, n, R_EX + 7u));
}

// Asks for the model's expansion about x (tumble-dynamics' `Expansion::new`): `lander_sweep`
// computes it between dispatches, a polyhedron's sums in as many as lavapipe's loop limit needs.
fn request_expansion(i: u32, n: u32, x: vec3<f64>) {
    set_rec3(i, n, R_EX, x);
    set_rec(i, n, R_EX_ON, 0.0lf);
    set_rec(i, n, R_SWEEP, 1.0lf);
    for (var c = 0u; c < 13u; c++) { set_rec(i, n, R_SUMS + c, 0.0lf); }
}

// Records the expansion about x with the field sample s.
fn install_expansion(i: u32, n: u32, x: vec3<f64>, s: Gravity) {
    for (var c = 0u; c < 3u; c++) {
        set_rec(i, n, R_EX + c, x[c]);
        set_rec(i, n, R_EX + 4u + c, s.a[c]);
        for (var r = 0u; r < 3u; r++) { set_rec(i, n, R_EX + 7u + 3u * r + c, s.grad[c][r]); }
    }
    set_rec(i, n, R_EX + 3u, s.u);
    set_rec(i, n, R_EX_ON, 1.0lf);
    set_rec(i, n, R_SWEEP, 0.0lf);
}

// Advances every requested expansion by up to settings[0] terms of the polyhedron's sums (the
// terms so far in `R_SUMS`), installing it once complete; other models in one go. A run whose
// expansion is complete reports RUNNING, one still sweeping SWEEP, the others what they did.
@compute @workgroup_size(64)
fn lander_sweep(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&y) / STATE;
    let i = gid.x;
    if (i >= n) { return; }
    start(i);
    var value = check[i];
    let at = rec(i, n, R_SWEEP);
    if (at > 0.0lf) {
        let x = rec3(i, n, R_EX);
        value = RUNNING;
        if (mp(M_GRAV) != 3.0lf) {
            install_expansion(i, n, x, field_sample(x));
        } else {
            let first = u32(at) - 1u;
            let end = min(first + u32(settings[0]), polyhedron_terms());
            let r = R_SUMS + 4u;
            var sums = Gravity(rec(i, n, R_SUMS), rec3(i, n, R_SUMS + 1u), rec_columns(i, n, r));
            sums = polyhedron_partial(x, first, end, sums);
            if (end == polyhedron_terms()) {
                install_expansion(i, n, x, polyhedron_scaled(sums));
            } else {
                set_rec(i, n, R_SUMS, sums.u);
                set_rec3(i, n, R_SUMS + 1u, sums.a);
                for (var c = 0u; c < 3u; c++) { set_rec3(i, n, r + 3u * c, sums.grad[c]); }
                set_rec(i, n, R_SWEEP, f64(end) + 1.0lf);
                value = SWEEP;
            }
        }
    }
    check[i] = checked(value);
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
// (tumble-dynamics' `Integrator` with `Method::Rk4`). The three evaluations are one call in a
// loop: the driver inlines every call of `evaluate` (and the surface queries in it), and each
// copy adds to the kernel's compile time, which on lavapipe grows faster than the code.
fn rk4(s: State, k1: State, h: f64) -> State {
    var yt: State;
    var k2: State; var k3: State; var k4: State;
    for (var c = 0u; c < STATE; c++) { yt[c] = s[c] + 0.5lf * h * k1[c]; }
    for (var stage = 2u; stage <= 4u; stage++) {
        let k = evaluate(yt).rates;
        if (stage == 2u) {
            k2 = k;
            for (var c = 0u; c < STATE; c++) { yt[c] = s[c] + 0.5lf * h * k2[c]; }
        } else if (stage == 3u) {
            k3 = k;
            for (var c = 0u; c < STATE; c++) { yt[c] = s[c] + h * k3[c]; }
        } else {
            k4 = k;
        }
    }
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
    load_expansion(i, n);
    let s = load_state(i, n);
    // The expansion about the start first: the host runs `lander_sweep`, then this again.
    if (expansion_stale(l3(s, 0u))) {
        request_expansion(i, n, l3(s, 0u));
        check[i] = checked(SWEEP);
        return;
    }
    let e = evaluate(s);
    set_rec(i, n, R_E0, e.energy);
    set_rec(i, n, R_CONTACT, select(0.0lf, 1.0lf, e.touching > 0u));
    set_rec(i, n, R_OBS, f64(e.touching)); set_rec(i, n, R_OBS + 1u, e.speed);
    set_rec(i, n, R_CALM, -1.0lf);
    for (var f = R_PHASE_LOST; f <= R_MAX_E; f++) { set_rec(i, n, f, -1e300lf); }
    check[i] = checked(RUNNING);
}

// Up to settings[0] steps of every run still running. A step after which the gravity expansion
// is stale ends the dispatch with the energy before its refresh: the host computes the new one
// (`lander_sweep`), and the next dispatch observes the step with it (`R_PENDING`).
// The most a free-flight step turns the fastest motion it follows, rad (tumble-sim's `TURN`).
const TURN: f64 = 0.1lf;

@compute @workgroup_size(64)
fn lander_steps(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&y) / STATE;
    let i = gid.x;
    if (i >= n) { return; }
    start(i);
    load_expansion(i, n);
    load_actuator(i, n);
    var obs_active = rec(i, n, R_OBS); var obs_speed = rec(i, n, R_OBS + 1u);
    var land = rec(i, n, R_LAND); var lift = rec3(i, n, R_LIFT); var landing = rec3(i, n, R_LANDING);
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
    // The last observation's kinematics: the state itself unless the dispatch resumes inside a
    // step (touchdown sub-steps, or an observation waiting for the expansion), so that an
    // impulse the host gave between dispatches counts.
    var before_v = rec3(i, n, R_BEFORE);
    var before_w = rec3(i, n, R_BEFORE + 3u);
    var lost = rec(i, n, R_LOST);
    if (sub == 0.0lf && !pending) {
        before_v = l3(s, 3u); before_w = rotation(unit_quat(s, 6u)) * l3(s, 10u); lost = dissipated(s);
    }
    var phase_lost = rec(i, n, R_PHASE_LOST); var open_lost = rec(i, n, R_OPEN_LOST);
    var max_vn = rec(i, n, R_MAX_VN); var max_vt = rec(i, n, R_MAX_VT);
    var max_f = rec(i, n, R_MAX_F); var max_e = rec(i, n, R_MAX_E);
    var e: Eval;
    // A running run's first iteration only evaluates the rates at its state (the step needs
    // them): the loop's one call of `evaluate` (see `rk4`).
    var fresh = outcome == RUNNING && !pending;
    var sweeping = false;
    let first = select(0u, 1u, fresh);
    let budget = u32(settings[0]) + first;
    for (var it = 0u; it < budget; it++) {
        if (outcome != RUNNING) { break; }
        var within = fresh;
        if (!pending && !fresh) {
            // A hop at a time fires at the first step whose time reaches it, once no torque
            // profile is being delivered: the host fires it.
            if (k >= mp(M_HOP_STEP) && drive_steps == 0.0lf) { outcome = HOP; when = k * dt; break; }
            if (k >= steps) { outcome = COMPLETED; when = k * dt; break; }
            var m = 1.0lf;
            if (sub == 0.0lf) {
                let torqued = drive_steps > 0.0lf || any(act_tau != vec3<f64>(0.0lf));
                if (flight_steps > 1.0lf && e.touching == 0u && !torqued) {
                    let to_sample = output_every - (k - floor(k / output_every) * output_every);
                    // tumble-sim's `flight_rate`: a step turns the body's inertial spin, a wheel's
                    // nutation |h|/J_min and the local field's orbital rate √(|a|/r) by at most
                    // TURN rad.
                    let spin = max(length(l3(s, 10u)) + length(l3(s, 17u)), length(act_h) / mp(M_ACT + 5u));
                    let r = length(l3(s, 0u) - v3(M_CENTRE));
                    var orbit = 0.0lf;
                    if (r > 0.0lf) { orbit = sqrt(length(l3(e.rates, 3u)) / r); }
                    let turn = max(spin, orbit) * dt;
                    var turning = 1e300lf;
                    if (turn > 0.0lf) { turning = floor(max(TURN / turn, 1.0lf)); }
                    let n_max = min(min(min(min(flight_steps, to_sample), steps - k), turning), mp(M_HOP_STEP) - k);
                    // tumble-sim's `graded_span`: as many steps as the travel bound fits in the
                    // gap, not all or one.
                    let per_step = (e.speed + e.rate * reach) * 2.0lf * dt;
                    if (e.min_distance > per_step * n_max) {
                        m = n_max;
                    } else if (e.min_distance > per_step) {
                        let n = floor(e.min_distance / per_step);
                        if (e.min_distance > per_step * n) { m = n; } else { m = max(n - 1.0lf, 1.0lf); }
                    }
                }
                if (m == 1.0lf && e.time_to_contact < dt) { sub = 1.0lf; }
            }
            // A vertex touches down within this step: 16 sub-steps (tumble-sim's reason: the
            // damper switching on inside the step costs RK4 its order).
            var h = m * dt;
            if (sub > 0.0lf) { h = dt / TOUCHDOWN_SUBSTEPS; }
            s = rk4(s, e.rates, h);
            if (sub > 0.0lf) {
                sub += 1.0lf;
                within = sub <= TOUCHDOWN_SUBSTEPS;
                if (!within) { sub = 0.0lf; }
            }
            if (!within) {
                k += m;
                var finite = true;
                for (var c = 0u; c < STATE; c++) { if (!(abs(s[c]) <= 1.7976931348623157e308lf)) { finite = false; } }
                if (!finite) { outcome = NOT_FINITE; when = k * dt; break; }
                actuate(s, m * dt, obs_active, obs_speed);
            }
        }
        // After the step (or a sub-step): the rates; after a whole step also the expansion, the
        // budget and events. One call of `evaluate` (see `rk4`).
        let t = k * dt;
        let x = l3(s, 0u);
        e = evaluate(s);
        if (!within && expansion_stale(x)) {
            set_rec(i, n, R_BEFORE_E, e.energy);
            request_expansion(i, n, x);
            pending = true;
            sweeping = true;
            break;
        }
        fresh = false;
        if (within) { continue; }
        if (pending) { remainder += e.energy - rec(i, n, R_BEFORE_E); }
        pending = false;
        obs_active = f64(e.touching); obs_speed = e.speed;
        let err = e.energy - e0 - (0.0lf + s[20] + s[21] + s[22] + s[23] + remainder);
        max_err = max(max_err, abs(err));
        max_pen = max(max_pen, e.max_pen);
        let touching = e.touching > 0u;
        // Impact loads (tumble-sim's `ImpactLog::step`): at a touchdown the approach speeds of
        // the application point with the last observation's velocities, and each phase's
        // largest load and dissipation.
        let lost_now = dissipated(s);
        if (touching && !in_contact) {
            let vp = before_v + cross(before_w, e.r_p);
            let closing = -dot(vp, e.n_p);
            max_vn = max(max_vn, closing);
            max_vt = max(max_vt, length(vp + e.n_p * closing));
            max_e = max(max_e, open_lost);
            phase_lost = lost;
            open_lost = lost_now - lost;
            max_f = max(max_f, e.load);
        } else if (in_contact && bounces > 0.0lf) {
            // (A start on the ground opens no phase.)
            open_lost = lost_now - phase_lost;
            if (touching) { max_f = max(max_f, e.load); }
        }
        before_v = l3(s, 3u); before_w = rotation(unit_quat(s, 6u)) * l3(s, 10u); lost = lost_now;
        if (touching != in_contact) {
            if (touching) {
                if (bounces == 0.0lf) {
                    set_rec(i, n, R_FIRST, t);
                    set_rec3(i, n, R_FIRST + 1u, x);
                    for (var c = 0u; c < 4u; c++) { set_rec(i, n, R_FIRST + 4u + c, s[13u + c]); }
                }
                bounces += 1.0lf;
            }
            in_contact = touching;
            // The last hop's lift-off, then its first touchdown away from it.
            if (land == 1.0lf && !touching) {
                lift = x; land = 2.0lf;
            } else if (land == 2.0lf && touching && length(x - lift) > LANDING_AWAY) {
                landing = x; land = 3.0lf;
            }
        }
        if (err > tolerance + mp(M_GROWTH) * act_work) { outcome = ENERGY_GREW; when = t; growth = err; break; }
        if (escape >= 0.0lf && length(x - v3(M_CENTRE)) > escape) { outcome = ESCAPED; when = t; break; }
        if (dwell >= 0.0lf) {
            // (A wheel holding momentum keeps the body turning: not calm.)
            if (e.speed < settle_speed && e.rate < settle_rate && all(act_h == vec3<f64>(0.0lf)) && supported(s)) {
                if (calm < 0.0lf) { calm = t; }
                if (t - calm >= dwell && drive_steps == 0.0lf) { outcome = SETTLED; when = t; break; }
            } else {
                calm = -1.0lf;
            }
        }
    }
    for (var c = 0u; c < STATE; c++) { y[c * n + i] = s[c]; }
    set_rec(i, n, R_K, k); set_rec(i, n, R_SUB, sub); set_rec(i, n, R_OUTCOME, outcome);
    set_rec(i, n, R_WHEN, when); set_rec(i, n, R_CALM, calm); set_rec(i, n, R_BOUNCES, bounces);
    set_rec(i, n, R_CONTACT, select(0.0lf, 1.0lf, in_contact)); set_rec(i, n, R_PEN, max_pen);
    set_rec(i, n, R_ERR, max_err); set_rec(i, n, R_REMAINDER, remainder); set_rec(i, n, R_GROWTH, growth);
    set_rec(i, n, R_PENDING, select(0.0lf, 1.0lf, pending));
    save_actuator(i, n);
    set_rec(i, n, R_OBS, obs_active); set_rec(i, n, R_OBS + 1u, obs_speed);
    set_rec(i, n, R_LAND, land); set_rec3(i, n, R_LIFT, lift); set_rec3(i, n, R_LANDING, landing);
    set_rec3(i, n, R_BEFORE, before_v);
    set_rec3(i, n, R_BEFORE + 3u, before_w);
    set_rec(i, n, R_LOST, lost); set_rec(i, n, R_PHASE_LOST, phase_lost); set_rec(i, n, R_OPEN_LOST, open_lost);
    set_rec(i, n, R_MAX_VN, max_vn); set_rec(i, n, R_MAX_VT, max_vt);
    set_rec(i, n, R_MAX_F, max_f); set_rec(i, n, R_MAX_E, max_e);
    check[i] = checked(select(outcome, SWEEP, sweeping));
}
