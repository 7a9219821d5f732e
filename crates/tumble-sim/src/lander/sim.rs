//! The lander's step loop: fixed-step RK4 with events after every step — contact start and end
//! (bounces), hops, settling (`|v| < v_f` and `|ω| < ω_f` held for a dwell time), escape,
//! deepest penetration — and the energy budget, with a diagnosis instead of garbage when the
//! state stops being finite or the energy grows.

use super::local::LocalSurface;
use super::system::{LanderSystem, Observing, STATE_LEN, Snapshot, WORK};
use tumble_dynamics::{Integrator, Method};
use tumble_math::Vec3;

/// Sub-steps of a step in which a vertex touches down.
const TOUCHDOWN_SUBSTEPS: usize = 16;

/// When a hop fires.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HopTrigger {
    /// At this time, s.
    At(f64),
    /// The first time the spacecraft is found settled after the previous hop.
    Settled,
}

/// An internal-wheel hop: an angular impulse on the spacecraft body (S axes), N·m·s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hop {
    /// When.
    pub trigger: HopTrigger,
    /// Angular impulse, body axes, N·m·s.
    pub impulse: Vec3,
}

/// Settling thresholds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settle {
    /// `v_f`, m/s.
    pub speed: f64,
    /// `ω_f`, rad/s.
    pub rate: f64,
    /// Time both must hold, s.
    pub dwell: f64,
}

/// Run settings.
#[derive(Clone, Debug)]
pub struct LanderSettings {
    /// Step, s.
    pub dt: f64,
    /// Longest simulated time, s.
    pub duration: f64,
    /// Steps between recorded samples.
    pub output_every: u64,
    /// Settling detection (`None`: run the whole duration).
    pub settle: Option<Settle>,
    /// Distance from the target's centre beyond which the spacecraft has escaped, m.
    pub escape_distance: Option<f64>,
    /// Hops in order.
    pub hops: Vec<Hop>,
    /// Largest growth of the budget's total energy before the run stops, J.
    pub energy_tolerance: f64,
    /// In free flight, steps of up to this many `dt` (1: always `dt`). A long step is taken
    /// only when no vertex can reach the surface within twice its length at the current
    /// speed and rate, so contact is always integrated at `dt`; the choice depends on the
    /// state alone, so runs stay reproducible.
    pub flight_steps: u64,
    /// Radius of the local surface models around each vertex, m (0: query the surface
    /// exactly; see [`super::local`]).
    pub surface_expansion: f64,
}

impl LanderSettings {
    /// Every step of `dt` (s) for `duration` (s), a sample each step, and no events: no
    /// settling, escape, hops or energy stop, the surface queried exactly.
    pub fn plain(dt: f64, duration: f64) -> Self {
        Self {
            dt,
            duration,
            output_every: 1,
            settle: None,
            escape_distance: None,
            hops: vec![],
            energy_tolerance: f64::INFINITY,
            flight_steps: 1,
            surface_expansion: 0.0,
        }
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum LanderOutcome {
    /// Settled at this time (after the last hop), s.
    Settled(f64),
    /// Escaped at this time, s.
    Escaped(f64),
    /// Reached the duration.
    Completed,
    /// Stopped with a diagnosis.
    Failed(String),
}

/// A contact start or end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactEvent {
    /// Time, s.
    pub time: f64,
    /// True at a start (touchdown), false at an end (lift-off).
    pub start: bool,
    /// Centre of mass, T frame, m.
    pub position: Vec3,
    /// Speed relative to T, m/s.
    pub speed: f64,
    /// Angular rate relative to T, rad/s.
    pub rate: f64,
}

/// Recorded columns (one row per sample).
pub const COLUMNS: [&str; 32] = [
    "t [s]",
    "x [m]",
    "y [m]",
    "z [m]",
    "vx [m/s]",
    "vy [m/s]",
    "vz [m/s]",
    "speed [m/s]",
    "rate [rad/s]",
    "qw [-]",
    "qx [-]",
    "qy [-]",
    "qz [-]",
    "contacts [-]",
    "penetration [m]",
    "tangential_speed [m/s]",
    "kinetic_linear [J]",
    "kinetic_angular [J]",
    "potential [J]",
    "elastic [J]",
    "dissipated_damper [J]",
    "dissipated_friction [J]",
    "dissipated_rolling [J]",
    "balance_error [J]",
    "normal_load [N]",
    "friction [N]",
    "fx_contact [N]",
    "fy_contact [N]",
    "fz_contact [N]",
    "rx_contact [m]",
    "ry_contact [m]",
    "rz_contact [m]",
];

/// What a run produced.
#[derive(Clone, Debug)]
pub struct LanderRun {
    /// Samples, `COLUMNS` wide.
    pub rows: Vec<[f64; COLUMNS.len()]>,
    /// Contact starts and ends.
    pub contacts: Vec<ContactEvent>,
    /// Hops fired: time and impulse.
    pub hops: Vec<(f64, Vec3)>,
    /// Ending.
    pub outcome: LanderOutcome,
    /// Final time, s.
    pub final_time: f64,
    /// Final state.
    pub final_state: [f64; STATE_LEN],
    /// Deepest penetration over the run, m.
    pub max_penetration: f64,
    /// Largest |energy balance error| over the run, J.
    pub max_balance_error: f64,
    /// Work done by the frame's non-uniform rotation and by hops, J.
    pub external_work: f64,
}

impl LanderRun {
    /// Touchdowns.
    pub fn bounces(&self) -> usize {
        self.contacts.iter().filter(|c| c.start).count()
    }
}

/// The diagnosis of a run whose state stopped being finite at `t` (s) with step `dt` (s).
pub fn not_finite(t: f64, dt: f64) -> String {
    format!(
        "the state stopped being finite at t = {t:.6} s: the time step {dt} s is likely too large for the contact stiffness"
    )
}

/// The diagnosis of a run stopped at `t` (s) because its energy grew by `err` (J) beyond
/// `tolerance` (J), with step `dt` (s).
pub fn energy_grew(err: f64, tolerance: f64, t: f64, dt: f64) -> String {
    format!(
        "energy grew by {err:.3e} J (tolerance {tolerance:.3e} J) at t = {t:.6} s: the time step {dt} s is too large for the contact stiffness or the regularisation tolerances"
    )
}

/// Runs from `y0` at t = 0.
pub fn simulate(
    sys: &mut LanderSystem,
    y0: [f64; STATE_LEN],
    s: &LanderSettings,
    progress: &mut dyn FnMut(f64),
) -> LanderRun {
    let mut y = y0;
    let local = LocalSurface::new(s.surface_expansion, sys.vertices.len());
    let mut obs = Observing::new(sys, local);
    let mut integ = Integrator::new(Method::Rk4 { dt: s.dt }, STATE_LEN);
    obs.sys.refresh_gravity(&Vec3::new(y[0], y[1], y[2]));
    obs.local.refresh(obs.sys, &y, None);
    let snap = obs.observe(&y);
    let e0 = snap.energy();
    let (mut hop_work, mut remainder) = (0.0, 0.0);
    let mut run = LanderRun {
        rows: Vec::new(),
        contacts: Vec::new(),
        hops: Vec::new(),
        outcome: LanderOutcome::Completed,
        final_time: 0.0,
        final_state: y,
        max_penetration: 0.0,
        max_balance_error: 0.0,
        external_work: 0.0,
    };
    let budget = |snap: &Snapshot, y: &[f64], jumps: f64| {
        let work: f64 = y[WORK..WORK + 4].iter().sum::<f64>() + jumps;
        snap.energy() - e0 - work
    };
    record(&mut run, 0.0, &y, &snap, 0.0);
    let mut in_contact = snap.normal.active > 0;
    let mut calm_since: Option<f64> = None;
    let mut next_hop = 0;
    let steps = (s.duration / s.dt).round().max(1.0) as u64;
    let reach = obs.sys.vertices.iter().map(|v| v.norm()).fold(0.0, f64::max);
    let mut t = 0.0;
    let mut k = 0u64;
    let mut snap = snap;
    while k < steps {
        // Free flight: a longer step that ends on the next output sample or hop at the latest.
        let mut n = 1;
        if s.flight_steps > 1 && snap.normal.active == 0 {
            let to_sample = s.output_every - k % s.output_every;
            let to_hop = match s.hops.get(next_hop).map(|h| h.trigger) {
                Some(HopTrigger::At(at)) => ((at / s.dt).ceil() as u64).saturating_sub(k).max(1),
                _ => u64::MAX,
            };
            let n_max = s.flight_steps.min(to_sample).min(to_hop).min(steps - k);
            let travel = (snap.kin.v.norm() + snap.kin.w.norm() * reach) * 2.0 * n_max as f64 * s.dt;
            if snap.normal.min_distance > travel {
                n = n_max;
            }
        }
        if n == 1 && snap.normal.time_to_contact < s.dt {
            // A vertex touches down within this step: the damper force switches on inside it,
            // which costs RK4 its order (an energy error ~ c v_N² dt). Sub-steps shrink that
            // error by their number.
            for i in 0..TOUCHDOWN_SUBSTEPS {
                let h = s.dt / TOUCHDOWN_SUBSTEPS as f64;
                integ.step_once(&mut obs, t + i as f64 * h, &mut y, h);
            }
        } else {
            integ.step_once(&mut obs, t, &mut y, n as f64 * s.dt);
        }
        k += n;
        t = k as f64 * s.dt;
        if y.iter().any(|c| !c.is_finite()) {
            run.outcome = LanderOutcome::Failed(not_finite(t, s.dt));
            break;
        }
        // A rebuilt gravity expansion or surface model moves the potential and elastic energy by
        // its Taylor remainder: the budget carries the difference as work, so that the balance
        // measures integration alone.
        let x = Vec3::new(y[0], y[1], y[2]);
        let r_p = (snap.normal.active > 0).then_some(snap.normal.r_p);
        if obs.sys.gravity_stale(&x) || obs.local.stale(obs.sys, &y, r_p) {
            let before = obs.look(&y).energy();
            obs.sys.refresh_gravity(&x);
            obs.local.refresh(obs.sys, &y, r_p);
            snap = obs.observe(&y);
            remainder += snap.energy() - before;
        } else {
            snap = obs.observe(&y);
        }
        // Hops.
        if let Some(hop) = s.hops.get(next_hop) {
            let fire = match hop.trigger {
                HopTrigger::At(at) => t >= at,
                HopTrigger::Settled => calm_since.is_some_and(|c| s.settle.is_some_and(|st| t - c >= st.dwell)),
            };
            if fire {
                let w = Vec3::new(y[10], y[11], y[12]);
                let w_new = w + obs.sys.inertia_inv * hop.impulse;
                hop_work += 0.5 * w_new.dot(&(obs.sys.inertia * w_new)) - 0.5 * w.dot(&(obs.sys.inertia * w));
                y[10..13].copy_from_slice(w_new.as_slice());
                run.hops.push((t, hop.impulse));
                next_hop += 1;
                calm_since = None;
                snap = obs.observe(&y);
            }
        }
        let err = budget(&snap, &y, hop_work + remainder);
        run.max_balance_error = run.max_balance_error.max(err.abs());
        run.max_penetration = run.max_penetration.max(snap.normal.max_penetration);
        let touching = snap.normal.active > 0;
        if touching != in_contact {
            run.contacts.push(ContactEvent {
                time: t,
                start: touching,
                position: snap.kin.x,
                speed: snap.kin.v.norm(),
                rate: snap.kin.w.norm(),
            });
            in_contact = touching;
        }
        if k.is_multiple_of(s.output_every) {
            record(&mut run, t, &y, &snap, err);
            progress(t);
        }
        if err > s.energy_tolerance {
            run.outcome = LanderOutcome::Failed(energy_grew(err, s.energy_tolerance, t, s.dt));
            break;
        }
        if let Some(d) = s.escape_distance
            && snap.kin.x.norm() > d
        {
            run.outcome = LanderOutcome::Escaped(t);
            break;
        }
        if let Some(st) = s.settle {
            if snap.kin.v.norm() < st.speed && snap.kin.w.norm() < st.rate {
                let since = *calm_since.get_or_insert(t);
                if t - since >= st.dwell && next_hop >= s.hops.len() {
                    run.outcome = LanderOutcome::Settled(t);
                    break;
                }
            } else {
                calm_since = None;
            }
        }
    }
    if run.rows.last().is_some_and(|r| r[0] < t)
        && matches!(run.outcome, LanderOutcome::Settled(_) | LanderOutcome::Escaped(_) | LanderOutcome::Completed)
    {
        let snap = obs.observe(&y);
        record(&mut run, t, &y, &snap, budget(&snap, &y, hop_work + remainder));
    }
    run.final_time = t;
    run.final_state = y;
    run.external_work = y[WORK + 3] + hop_work;
    run
}

fn record(run: &mut LanderRun, t: f64, y: &[f64], snap: &Snapshot, err: f64) {
    let (x, v) = (snap.kin.x, snap.kin.v);
    // The contact's total force (normal, friction, rolling resistance; target axes) and its
    // application point from the centre of mass.
    let (n, tg) = (&snap.normal, &snap.tangential);
    let f = n.force + tg.friction + tg.rolling_force;
    let r = if n.active > 0 { n.r_p } else { Vec3::zeros() };
    run.rows.push([
        t,
        x.x,
        x.y,
        x.z,
        v.x,
        v.y,
        v.z,
        v.norm(),
        snap.kin.w.norm(),
        y[6],
        y[7],
        y[8],
        y[9],
        snap.normal.active as f64,
        snap.normal.max_penetration,
        if snap.normal.active > 0 { snap.tangential.v_t.norm() } else { f64::NAN },
        snap.kinetic_linear,
        snap.kinetic_angular,
        snap.potential,
        snap.normal.elastic_energy,
        -y[WORK],
        -y[WORK + 1],
        -y[WORK + 2],
        err,
        snap.normal.load,
        snap.tangential.friction.norm(),
        f.x,
        f.y,
        f.z,
        r.x,
        r.y,
        r.z,
    ]);
}
