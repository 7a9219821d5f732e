//! The lander on the GPU: tumble-sim's [`LanderSystem`] and [`LanderSettings`] packed into the
//! buffers of the kernels (`lander.wgsl`, `surface.wgsl`, `steps.wgsl`), the right-hand side
//! over a batch of states ([`rates`]) and whole runs, one per invocation ([`simulate`]).
//!
//! What the device runs is the CPU model, read from the same structures: a plane, a sampled
//! grid (a mesh's with its exact near-surface refinement) or fBm terrain on either; uniform,
//! point-mass or polyhedron gravity (expanded to second order and refreshed exactly as on the
//! CPU); uniform or torque-free target spin; the vertex contact with regularised friction, the
//! stick force and rolling resistance; RK4 with free-flight steps and touchdown sub-steps;
//! settling, escape, the energy budget and its growth stop, the largest impact loads; hops at a
//! time or once settled, fired by the host between dispatches (`hops.rs`: impulses, torque
//! profiles, aimed hops) and delivered by the kernel with the internal actuator's limits, the
//! wheel's coupling and despin; boulder fields and latitude–longitude region masks; the Sun's
//! forces. Local surface models are not built (the kernel queries the surface exactly, which
//! they approximate). [`unsupported`] names what a run needs that the device lacks (a program's
//! own surface or gravity model, say), and such runs are refused, never simulated differently.

use crate::gravity::{GRAVITY_WGSL, pack_polyhedron};
use crate::hops::Hops;
use crate::surface::{pack_shared, pack_surface, query_loops, surface_parts};
use crate::{Gpu, MATH_WGSL};
use std::any::Any;
use std::sync::Arc;
use tumble_dynamics::rotating::TargetSpin;
use tumble_dynamics::{NoGravity, PointMass, Polyhedron, Uniform};
use tumble_sim::lander::hop::ActuatorKind;
use tumble_sim::lander::{
    ImpactMaxima, LanderOutcome, LanderSettings, LanderSystem, STATE_LEN, energy_grew, not_finite,
};

/// WGSL of the lander kernels (after [`MATH_WGSL`] and [`GRAVITY_WGSL`]).
pub const LANDER_WGSL: &str = include_str!("lander.wgsl");
/// WGSL of the target's surface the lander kernels query (after [`LANDER_WGSL`]).
pub const SURFACE_WGSL: &str = include_str!("surface.wgsl");
/// WGSL of the lander's step loop (after [`SURFACE_WGSL`]).
pub const STEPS_WGSL: &str = include_str!("steps.wgsl");

/// Length of a run's model in the `model` buffer (`MODEL_LEN` of lander.wgsl).
pub(crate) const MODEL_LEN: usize = 117;
/// Most touching vertices the kernel keeps for rolling resistance's contact patch
/// (`MAX_PATCH` of lander.wgsl).
const MAX_PATCH: usize = 32;
/// Length of a run's record (`REC_LEN` of steps.wgsl) and the fields the host reads.
pub(crate) const REC_LEN: usize = 91;
pub(crate) const R_K: usize = 0;
pub(crate) const R_OUTCOME: usize = 2;
pub(crate) const R_WHEN: usize = 3;
pub(crate) const R_CALM: usize = 4;
const R_BOUNCES: usize = 5;
const R_PEN: usize = 7;
const R_ERR: usize = 8;
pub(crate) const R_E0: usize = 9;
const R_GROWTH: usize = 11;
pub(crate) const R_EX: usize = 12;
pub(crate) const R_EX_ON: usize = 28;
const R_OPEN_LOST: usize = 38;
const R_MAX_VN: usize = 39;
const R_MAX_VT: usize = 40;
const R_MAX_F: usize = 41;
const R_MAX_E: usize = 42;
pub(crate) const R_ROTOR: usize = 61;
pub(crate) const R_DRIVE: usize = 64;
pub(crate) const R_DELIVERED: usize = 70;
pub(crate) const R_ACT_WORK: usize = 73;
pub(crate) const R_LAND: usize = 76;
pub(crate) const R_LANDING: usize = 80;
const R_FIRST: usize = 83;
/// Outcome code of a settled run (`SETTLED` of steps.wgsl).
pub(crate) const SETTLED: f64 = 1.0;
/// What `check` says of a run waiting for its gravity expansion and of one whose hop at a time
/// is due (`SWEEP`, `HOP` of steps.wgsl).
const SWEEP: f64 = 6.0;
pub(crate) const HOP: f64 = 7.0;
/// Index in a run's model of the settling dwell (`M_SETTLE + 2` of lander.wgsl).
pub(crate) const M_DWELL: usize = 77;
/// The step of the next hop at a time (`M_HOP_STEP` of lander.wgsl), [`NO_HOP`] where none is.
pub(crate) const M_HOP_STEP: usize = 108;
pub(crate) const NO_HOP: f64 = 1e300;
/// Buffers, in binding order.
pub(crate) const MODEL: usize = 0;
pub(crate) const Y: usize = 4;
pub(crate) const RECORD: usize = 5;
const CHECK: usize = 6;
const SETTINGS: usize = 7;
const OUT: usize = 8;
const Y_SAVED: usize = 9;
const RECORD_SAVED: usize = 10;
/// Loop iterations a lavapipe invocation group may run in all (LP_MAX_TGSI_LOOP_ITERATIONS),
/// less a margin for the loops outside the step loop.
const LOOP_LIMIT: usize = 65_535 - 5_000;
/// Most steps of a run per dispatch.
const MAX_STEPS: usize = 4096;

fn source() -> String {
    format!("{MATH_WGSL}\n{GRAVITY_WGSL}\n{LANDER_WGSL}\n{SURFACE_WGSL}\n{STEPS_WGSL}")
}

/// Why the GPU path cannot run this model, or `None` when it can (it runs every setting of
/// `LanderSettings`: hops, the actuator, settling, escape, the energy budget).
pub fn unsupported(sys: &LanderSystem) -> Option<String> {
    if sys.actuation != Default::default() {
        return Some(
            "a run that starts with the actuator's torque or rotor momentum set (a program's `LanderSystem::actuation`) is not implemented on the GPU path: its scenario's hops start from rest".into(),
        );
    }
    if sys.contact.rolling > 0.0 && sys.vertices.len() > MAX_PATCH {
        return Some(format!(
            "rolling resistance on more than {MAX_PATCH} vertices (this spacecraft has {}) is not implemented on the GPU path: the kernel keeps the contact patch in a fixed array",
            sys.vertices.len()
        ));
    }
    if let Err(e) = surface_parts(sys.surface.as_ref()) {
        return Some(e);
    }
    let g = sys.gravity.as_ref() as &dyn Any;
    if !(g.is::<NoGravity>() || g.is::<Uniform>() || g.is::<PointMass>() || g.is::<Polyhedron>()) {
        return Some(
            "the gravity model is not one the GPU path implements (none, uniform, point mass, polyhedron)".into(),
        );
    }
    None
}

/// A run's `model` record: spacecraft, contact, target, step-loop settings; its vertices start
/// at `vertex_offset` in `verts`.
fn pack_model(sys: &LanderSystem, s: &LanderSettings, vertex_offset: usize) -> Result<[f64; MODEL_LEN], String> {
    if let Some(why) = unsupported(sys) {
        return Err(why);
    }
    let mut m = [0.0; MODEL_LEN];
    m[0] = sys.mass;
    for r in 0..3 {
        for c in 0..3 {
            m[1 + 3 * r + c] = sys.inertia[(r, c)];
            m[10 + 3 * r + c] = sys.inertia_inv[(r, c)];
        }
    }
    let p = &sys.contact;
    m[19..27].copy_from_slice(&[p.stiffness, p.damping, p.mu, p.mu_static, p.rolling, p.v_star, p.w_star, p.stable_dt]);
    if let TargetSpin::TorqueFree { inertia, inertia_inv } = sys.spin {
        m[27] = 1.0;
        for r in 0..3 {
            for c in 0..3 {
                m[84 + 3 * r + c] = inertia[(r, c)];
                m[93 + 3 * r + c] = inertia_inv[(r, c)];
            }
        }
    }
    m[81..84].copy_from_slice(sys.centre.as_slice());
    let g = sys.gravity.as_ref() as &dyn Any;
    if let Some(u) = g.downcast_ref::<Uniform>() {
        m[31] = 1.0;
        m[32..35].copy_from_slice(u.g.as_slice());
    } else if let Some(pm) = g.downcast_ref::<PointMass>() {
        m[31] = 2.0;
        m[32..35].copy_from_slice(pm.center.as_slice());
        m[35] = pm.mu;
    } else if g.is::<Polyhedron>() {
        m[31] = 3.0;
    }
    pack_surface(&mut m, &surface_parts(sys.surface.as_ref())?)?;
    m[44] = sys.vertices.len() as f64;
    m[69] = vertex_offset as f64;
    m[70] = s.dt;
    m[71] = (s.duration / s.dt).round().max(1.0);
    m[72] = s.output_every.max(1) as f64;
    m[73] = s.flight_steps.max(1) as f64;
    m[74] = sys.vertices.iter().map(|v| v.norm()).fold(0.0, f64::max);
    // Without settling the despin's calm (speed below ten times the settling speed) always holds.
    let [speed, rate, dwell] = s.settle.map_or([NO_HOP, 0.0, -1.0], |st| [st.speed, st.rate, st.dwell]);
    m[75..78].copy_from_slice(&[speed, rate, dwell]);
    m[78] = s.escape_distance.unwrap_or(-1.0);
    m[79] = s.energy_tolerance;
    m[80] = sys.expansion_radius;
    if let Some(a) = s.actuator {
        m[102] = if a.kind == ActuatorKind::Wheel { 1.0 } else { 2.0 };
        m[103] = a.max_torque;
        m[104] = a.max_momentum;
    }
    m[105] = 0.5 * sys.contact.mu.min(1.0) * sys.mass;
    m[106] = sys.vertices.iter().map(|v| v.norm()).fold(f64::INFINITY, f64::min);
    m[107] = sys.inertia.symmetric_eigenvalues().min();
    m[M_HOP_STEP] = NO_HOP;
    m[109] = s.energy_growth;
    if let Some(sun) = sys.sun {
        m[112..115].copy_from_slice(sun.direction.as_slice());
        m[115] = sun.radiation;
        m[116] = sun.tide;
    }
    Ok(m)
}

/// The buffers every run of a batch shares: the grid's samples (and a mesh grid's refinement,
/// laid out as `refined` of surface.wgsl reads it) and the polyhedron.
fn shared_buffers(sys: &LanderSystem) -> Result<(Vec<f64>, Vec<f64>), String> {
    let grid = pack_shared(&surface_parts(sys.surface.as_ref())?);
    let poly = (sys.gravity.as_ref() as &dyn Any).downcast_ref::<Polyhedron>().map(pack_polyhedron).unwrap_or_default();
    Ok((grid, poly))
}

/// Whether the model has data every run of a batch must share: a grid surface or a gravity
/// polyhedron.
pub(crate) fn has_shared_data(sys: &LanderSystem) -> bool {
    surface_parts(sys.surface.as_ref()).is_ok_and(|p| p.grid.is_some() || p.boulders.is_some())
        || (sys.gravity.as_ref() as &dyn Any).is::<Polyhedron>()
}

/// Loop iterations of one step of `sys` in the kernel, an estimate from its loops' counts (what
/// the driver counts depends on its compiler; the check in the kernel corrects the estimate,
/// see [`LOOP_LIMIT`]).
fn step_loops(sys: &LanderSystem) -> usize {
    let field = query_loops(sys.surface.as_ref());
    // Without an expansion every evaluation sweeps the polyhedron.
    let sweep = match (sys.gravity.as_ref() as &dyn Any).downcast_ref::<Polyhedron>() {
        Some(p) if sys.expansion_radius == 0.0 => p.parts().faces.len() + p.parts().edges.len(),
        _ => 0,
    };
    let per_eval = (sys.vertices.len() + 1) * (field + 1) + sweep;
    5 * per_eval + 6 * STATE_LEN + 10
}

/// Computes the gravity expansions the runs wait for (`check` SWEEP), `terms` of a
/// polyhedron's sums per dispatch: halved (and the dispatch repeated) when the driver cuts a
/// loop short, so that any polyhedron fits lavapipe's loop limit.
fn expansions(k: &crate::Kernels<'_>, check: &mut Vec<f64>, terms: &mut usize) -> Result<(), String> {
    let n = check.len() as u32;
    while check.contains(&SWEEP) {
        let before = check.clone();
        k.write(SETTINGS, &[*terms as f64, 2.0, 1.0]);
        k.copy_and_dispatch(&[(RECORD, RECORD_SAVED)], "lander_sweep", n)?;
        k.read_into(CHECK, check)?;
        if check.contains(&-1.0) {
            if *terms == 1 {
                return Err(LOOP_CUT.into());
            }
            *terms /= 2;
            k.copy(&[(RECORD_SAVED, RECORD)])?;
            k.write(CHECK, &before);
            *check = before;
        }
    }
    Ok(())
}

/// The rates of every state of `states`, evaluated on the device (polyhedron gravity without
/// an expansion).
pub fn rates(gpu: &Gpu, sys: &LanderSystem, states: &[[f64; STATE_LEN]]) -> Result<Vec<[f64; STATE_LEN]>, String> {
    let n = states.len();
    let model = pack_model(sys, &LanderSettings::plain(1.0, 1.0), 0)?;
    let verts: Vec<f64> = sys.vertices.iter().flat_map(|v| [v.x, v.y, v.z]).collect();
    let (grid, poly) = shared_buffers(sys)?;
    let y = soa(states);
    let out = vec![0.0; STATE_LEN * n];
    let k = gpu.kernels(
        &source(),
        &["lander_rates"],
        &[&model, &verts, &grid, &poly, &y, &[0.0], &vec![0.0; n], &[0.0, 2.0, 1.0], &out],
    )?;
    k.dispatch("lander_rates", n as u32)?;
    let mut check = vec![0.0; n];
    k.read_into(CHECK, &mut check)?;
    if check.contains(&-1.0) {
        return Err(LOOP_CUT.into());
    }
    let mut out = out;
    k.read_into(OUT, &mut out)?;
    Ok((0..n).map(|i| std::array::from_fn(|c| out[c * n + i])).collect())
}

const LOOP_CUT: &str = "the Vulkan driver cut a kernel loop short (Mesa's lavapipe stops loops after 65,535 iterations per invocation group) even for a single step of this model: use the CPU backend (`--backend cpu`)";

fn soa(states: &[[f64; STATE_LEN]]) -> Vec<f64> {
    let n = states.len();
    let mut y = vec![0.0; STATE_LEN * n];
    for (i, s) in states.iter().enumerate() {
        for c in 0..STATE_LEN {
            y[c * n + i] = s[c];
        }
    }
    y
}

/// One run of a batch: model, settings, initial state.
#[derive(Clone, Copy)]
pub struct GpuRun<'a> {
    /// The model (as tumble-sim builds it).
    pub system: &'a LanderSystem,
    /// Its settings.
    pub settings: &'a LanderSettings,
    /// Initial state.
    pub start: [f64; STATE_LEN],
}

/// How a run ended on the device: what `tumble mc` records of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuRunEnd {
    /// Outcome, with the CPU path's diagnoses.
    pub outcome: LanderOutcome,
    /// Final time, s.
    pub final_time: f64,
    /// Final state.
    pub final_state: [f64; STATE_LEN],
    /// Touchdowns.
    pub bounces: usize,
    /// Deepest penetration over the run, m.
    pub max_penetration: f64,
    /// Largest |energy balance error| over the run, J.
    pub max_balance_error: f64,
    /// The largest impact loads (NaN without a touchdown).
    pub impacts: ImpactMaxima,
    /// When each hop fired, s.
    pub hops: Vec<f64>,
    /// The last aimed hop's landing's distance from its aim, m (NaN without one; tumble-sim's
    /// `campaign::hop_miss`).
    pub hop_miss: f64,
    /// The first touchdown: its time (s), the centre of mass (T, m) and the target's attitude
    /// `Q_NT` (`[w, x, y, z]`); none without one.
    pub first_touchdown: Option<(f64, tumble_math::Vec3, [f64; 4])>,
}

/// The most runs one batch on `gpu` can hold: its largest buffer (the models) and the
/// workgroups one dispatch may count bound it.
pub fn max_batch(gpu: &Gpu) -> usize {
    let by_buffer = gpu.max_buffer() / (8 * MODEL_LEN as u64);
    by_buffer.min(gpu.max_invocations()) as usize
}

/// Runs every run to its end on the device, one run per invocation; `progress(finished)` after
/// each dispatch. The runs share one target surface and gravity model (the same `Arc`s); a
/// batch larger than [`max_batch`] is refused (split it).
pub fn simulate(gpu: &Gpu, runs: &[GpuRun], progress: &mut dyn FnMut(usize)) -> Result<Vec<GpuRunEnd>, String> {
    let n = runs.len();
    let Some(first) = runs.first() else { return Ok(vec![]) };
    if n > max_batch(gpu) {
        return Err(format!(
            "a batch of {n} runs exceeds the device's buffers ({} runs at most): split it",
            max_batch(gpu)
        ));
    }
    let (mut model, verts, loops) = pack_batch(runs)?;
    let mut hops = Hops::new(runs, &mut model);
    let (grid, poly) = shared_buffers(first.system)?;
    fits(gpu, &grid, &poly)?;
    let starts: Vec<[f64; STATE_LEN]> = runs.iter().map(|r| r.start).collect();
    let y = soa(&starts);
    let record = vec![0.0; REC_LEN * n];
    let mut check = vec![0.0; n];
    let k = gpu.kernels(
        &source(),
        &["lander_init", "lander_steps", "lander_sweep"],
        &[&model, &verts, &grid, &poly, &y, &record, &check, &[0.0, 2.0, 1.0], &[], &y, &record],
    )?;
    drop((y, record));
    let mut sweep = LOOP_LIMIT;
    k.dispatch("lander_init", n as u32)?;
    k.read_into(CHECK, &mut check)?;
    if check.contains(&SWEEP) {
        expansions(&k, &mut check, &mut sweep)?;
        k.dispatch("lander_init", n as u32)?;
        k.read_into(CHECK, &mut check)?;
    }
    if check.contains(&-1.0) {
        return Err(format!(
            "one sweep of the gravity polyhedron ({} faces, {} edges) in every evaluation (a model without an expansion radius) needs more loop iterations than the Vulkan driver runs in an invocation group (Mesa's lavapipe stops at 65,535): give it an expansion radius, use a coarser gravity mesh, a GPU driver, or the CPU backend (`--backend cpu`)",
            poly[1], poly[2]
        ));
    }
    step_all(&k, runs, &mut hops, &mut check, (loops, sweep), progress)?;
    let mut y = vec![0.0; STATE_LEN * n];
    let mut record = vec![0.0; REC_LEN * n];
    k.read_into(Y, &mut y)?;
    k.read_into(RECORD, &mut record)?;
    Ok(run_ends(runs, &y, &record, hops))
}

/// The batch's models (with their hops' settings), the contact vertices (runs with the same
/// vertices share them) and the most loop iterations a step of any run takes.
fn pack_batch(runs: &[GpuRun]) -> Result<(Vec<f64>, Vec<f64>, usize), String> {
    let first = &runs[0];
    let mut model = Vec::with_capacity(runs.len() * MODEL_LEN);
    let mut verts: Vec<f64> = Vec::new();
    let mut last_vertices: Option<&[tumble_math::Vec3]> = None;
    let mut offset = 0;
    let mut loops = 0;
    for (i, r) in runs.iter().enumerate() {
        let shares = Arc::ptr_eq(&r.system.surface, &first.system.surface)
            && Arc::ptr_eq(&r.system.gravity, &first.system.gravity);
        if has_shared_data(r.system) && !shares {
            return Err(format!(
                "run {i} has its own target grid or gravity polyhedron: the runs of a GPU batch share one target (disperse no `target.*` or `gravity.*` key with a grid or polyhedron target)"
            ));
        }
        if last_vertices != Some(r.system.vertices.as_slice()) {
            offset = verts.len() / 3;
            verts.extend(r.system.vertices.iter().flat_map(|v| [v.x, v.y, v.z]));
            last_vertices = Some(&r.system.vertices);
        }
        model.extend_from_slice(&pack_model(r.system, r.settings, offset).map_err(|e| format!("run {i}: {e}"))?);
        loops = loops.max(step_loops(r.system));
    }
    Ok((model, verts, loops))
}

/// Refuses shared buffers beyond the device's largest, naming what to coarsen.
fn fits(gpu: &Gpu, grid: &[f64], poly: &[f64]) -> Result<(), String> {
    let fixes = [
        ("grid (and its mesh)", grid, "a coarser grid (`target.shape.resolution`)"),
        (
            "gravity polyhedron",
            poly,
            "a coarser gravity mesh (`gravity.mesh`, or `gravity.cells` of a procedural target)",
        ),
    ];
    for (what, b, fix) in fixes {
        if 8 * b.len() as u64 > gpu.max_buffer() {
            return Err(format!(
                "the target's {what} takes {} MiB, more than the device's largest storage buffer ({} MiB): use {fix} or the CPU backend (`--backend cpu`)",
                (8 * b.len()) >> 20,
                gpu.max_buffer() >> 20
            ));
        }
    }
    Ok(())
}

/// Dispatches `lander_steps` until every run has finished, with the expansions and hops the
/// runs wait for between dispatches. `(loops, sweep)`: a step's estimated loop iterations and
/// the terms of a polyhedron sweep per dispatch.
fn step_all(
    k: &crate::Kernels<'_>,
    runs: &[GpuRun],
    hops: &mut Hops,
    check: &mut Vec<f64>,
    (loops, mut sweep): (usize, usize),
    progress: &mut dyn FnMut(usize),
) -> Result<(), String> {
    let n = runs.len();
    // Steps per dispatch: first what lavapipe's loop limit allows by an estimate from the loops'
    // counts (only an estimate: the plane of the tests has its first budget, 129, cut), then
    // adapted: doubled after a dispatch that ran every loop to its end, halved (and the
    // dispatch repeated) after one that did not, never above a budget that was cut. A driver
    // without the limit ends at MAX_STEPS, which keeps a dispatch short.
    let mut budget = (LOOP_LIMIT / loops.max(1)).clamp(1, MAX_STEPS);
    let mut ceiling = MAX_STEPS + 1;
    loop {
        // The states and records saved first, in case the dispatch must be repeated.
        k.write(SETTINGS, &[budget as f64, 2.0, 1.0]);
        k.copy_and_dispatch(&[(Y, Y_SAVED), (RECORD, RECORD_SAVED)], "lander_steps", n as u32)?;
        k.read_into(CHECK, check)?;
        if check.contains(&-1.0) {
            if budget == 1 {
                return Err(LOOP_CUT.into());
            }
            ceiling = budget;
            budget /= 2;
            k.copy(&[(Y_SAVED, Y), (RECORD_SAVED, RECORD)])?;
            continue;
        }
        if 2 * budget < ceiling {
            budget = (2 * budget).min(MAX_STEPS);
        }
        if check.contains(&SWEEP) {
            expansions(k, check, &mut sweep)?;
        }
        let due = hops.due(runs, check);
        if !due.is_empty() {
            hops.deliver(k, runs, &due)?;
        }
        let finished = check.iter().filter(|&&c| c != 0.0).count() - due.len();
        progress(finished);
        if finished == n {
            return Ok(());
        }
    }
}

/// How each run ended, from the final states `y` and records.
fn run_ends(runs: &[GpuRun], y: &[f64], record: &[f64], mut hops: Hops) -> Vec<GpuRunEnd> {
    let n = runs.len();
    let times = std::mem::take(&mut hops.times);
    let mut times = times.into_iter();
    runs.iter()
        .enumerate()
        .map(|(i, r)| {
            let f = |field: usize| record[field * n + i];
            let landing = tumble_math::Vec3::new(f(R_LANDING), f(R_LANDING + 1), f(R_LANDING + 2));
            let (dt, when) = (r.settings.dt, f(R_WHEN));
            let outcome = match f(R_OUTCOME) as u32 {
                1 => LanderOutcome::Settled(when),
                2 => LanderOutcome::Escaped(when),
                3 => LanderOutcome::Completed,
                4 => LanderOutcome::Failed(not_finite(when, dt)),
                _ => {
                    let limit = r.settings.energy_tolerance + r.settings.energy_growth * f(R_ACT_WORK);
                    LanderOutcome::Failed(energy_grew(f(R_GROWTH), limit, when, dt))
                }
            };
            GpuRunEnd {
                outcome,
                final_time: f(R_K) * dt,
                final_state: std::array::from_fn(|c| y[c * n + i]),
                bounces: f(R_BOUNCES) as usize,
                max_penetration: f(R_PEN),
                max_balance_error: f(R_ERR),
                impacts: match f(R_BOUNCES) {
                    0.0 => ImpactMaxima::of(&[]),
                    _ => ImpactMaxima {
                        normal_speed: f(R_MAX_VN),
                        tangential_speed: f(R_MAX_VT),
                        force: f(R_MAX_F),
                        energy_lost: f(R_MAX_E).max(f(R_OPEN_LOST)),
                    },
                },
                hops: times.next().unwrap_or_default(),
                hop_miss: hops.miss(i, f(R_LAND), landing),
                first_touchdown: (f(R_BOUNCES) > 0.0).then(|| {
                    let x = tumble_math::Vec3::new(f(R_FIRST + 1), f(R_FIRST + 2), f(R_FIRST + 3));
                    (f(R_FIRST), x, std::array::from_fn(|c| f(R_FIRST + 4 + c)))
                }),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host's copy of the kernels' layout: record lengths, the record fields it reads, the
    /// bindings it names.
    #[test]
    fn the_host_and_the_kernels_agree_on_the_layout() {
        let consts = [
            ("MODEL_LEN", MODEL_LEN),
            ("MAX_PATCH", MAX_PATCH),
            ("REC_LEN", REC_LEN),
            ("R_K", R_K),
            ("R_OUTCOME", R_OUTCOME),
            ("R_WHEN", R_WHEN),
            ("R_BOUNCES", R_BOUNCES),
            ("R_PEN", R_PEN),
            ("R_OPEN_LOST", R_OPEN_LOST),
            ("R_MAX_VN", R_MAX_VN),
            ("R_MAX_VT", R_MAX_VT),
            ("R_MAX_F", R_MAX_F),
            ("R_MAX_E", R_MAX_E),
            ("R_ERR", R_ERR),
            ("R_GROWTH", R_GROWTH),
            ("R_CALM", R_CALM),
            ("R_E0", R_E0),
            ("M_HOP_STEP", M_HOP_STEP),
            ("R_EX", R_EX),
            ("R_EX_ON", R_EX_ON),
            ("R_ROTOR", R_ROTOR),
            ("R_DRIVE", R_DRIVE),
            ("R_DELIVERED", R_DELIVERED),
            ("R_ACT_WORK", R_ACT_WORK),
            ("R_LAND", R_LAND),
            ("R_LANDING", R_LANDING),
            ("R_FIRST", R_FIRST),
            ("FACE_LEN", crate::surface::FACE_LEN),
            ("MAX_DEPTH", crate::surface::MAX_DEPTH),
        ];
        for (name, v) in consts {
            let decl = format!("const {name}: u32 = {v}u;");
            assert!(source().contains(&decl), "the kernels lack `{decl}`");
        }
        assert!(source().contains(&format!("const SETTLED: f64 = {SETTLED:?}lf;")));
        assert!(source().contains(&format!("const SWEEP: f64 = {SWEEP:?}lf;")));
        assert!(source().contains(&format!("const HOP: f64 = {HOP:?}lf;")));
        let widening = tumble_contact::vertex_sdf::WIDENING;
        assert!(source().contains(&format!("const WIDENING: f64 = {widening:?}lf;")), "the friction's widening");
        assert!(source().contains("const M_SETTLE: u32 = 75u;") && M_DWELL == 75 + 2);
        for (name, b) in
            [("model", MODEL), ("y", Y), ("record", RECORD), ("check", CHECK), ("settings", SETTINGS), ("out", OUT)]
        {
            let decl = format!("@binding({b}) var<storage, read_write> {name}:");
            assert!(source().contains(&decl), "the kernels lack `{decl}`");
        }
    }
}
