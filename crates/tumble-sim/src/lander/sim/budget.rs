//! The lander's energy budget as the guard checks it: its limit, which scales with the energies
//! the run has had and never falls below the rounding of its own terms, the energy error per
//! hour of free flight, and the diagnosis of a trip, found by replaying the steps before it.

use super::LanderSim;
use crate::lander::system::{LanderSystem, STATE_LEN, Snapshot, WORK};
use crate::pipeline::{ABSURD, MAX_SPEED, body_speed};
use crate::pipeline::{Diagnosis, Simulation};
use std::ops::DerefMut;
use tumble_dynamics::{Integrator, Method, OdeSystem};
use tumble_math::Vec3;

/// Steps between the checkpoints a replay starts from: a trip is replayed over the last 256 to
/// 512 steps.
const CHECKPOINT_EVERY: u64 = 256;

/// The rounding floor of the budget, in units of `ε M` (`M` the size of its terms) after `k`
/// steps: `max(64 √k, k)`. The budget adds a handful of terms each step (energies, four work
/// integrals, refresh remainders), each rounded to half an ulp and some multiplied by a
/// stiffness; early on the errors add as a random walk, over long runs rounding biased one
/// way (`x + v h` on a long fall) can add linearly. Measured: a cube resting on a plane at
/// dt = 5 ms gains 4.1e-18 J in 11 steps on M = 3e-4 J (18 ε √k M); a cube falling 500 m in
/// uniform gravity, where RK4 is exact and only rounding is left, gains 3.2e-12 J in 5e5 steps
/// on M = 2 J (10 ε √k M, 0.014 ε k M).
fn rounding(k: u64) -> f64 {
    let k = k.max(1) as f64;
    f64::EPSILON * (64.0 * k.sqrt()).max(k)
}

/// Replays of a trip, at `dt`, `dt/4`, … `dt/256`.
const REFINE: usize = 5;

/// A state a replay can start from.
#[derive(Clone, Copy, Debug)]
pub(super) struct Checkpoint {
    y: [f64; STATE_LEN],
    k: u64,
    err: f64,
    /// Whether a step spanning several `dt` (free flight) was taken since.
    spanned: bool,
}

/// What the budget keeps besides the balance itself.
#[derive(Clone, Debug)]
pub(super) struct Budget {
    /// The largest kinetic plus elastic energy the run has had, J, up to the last step the
    /// guard passed.
    peak: f64,
    /// The largest magnitude of the budget's terms, J (what rounding is relative to), likewise.
    magnitude: f64,
    /// The step's figures, folded in once the guard passed it.
    pending: (f64, f64),
    /// Free-flight time, s, and the balance error its steps added, J.
    pub flight: (f64, f64),
    /// The older and the newer checkpoint.
    ckpt: [Checkpoint; 2],
    /// The deepest vertex penetration at the start, m.
    start_depth: f64,
}

impl Budget {
    pub fn new(y: &[f64; STATE_LEN], snap: &Snapshot) -> Self {
        let c = Checkpoint { y: *y, k: 0, err: 0.0, spanned: false };
        let (peak, magnitude) =
            (snap.kinetic_linear + snap.kinetic_angular + snap.normal.elastic_energy, magnitude(y, snap, 0.0));
        Self {
            peak,
            magnitude,
            pending: (peak, magnitude),
            flight: (0.0, 0.0),
            ckpt: [c, c],
            start_depth: snap.normal.max_penetration,
        }
    }
}

/// The size of the budget's terms: kinetic, potential, elastic energy and the work integrals.
fn magnitude(y: &[f64; STATE_LEN], s: &Snapshot, other_work: f64) -> f64 {
    let work: f64 = y[WORK..WORK + 4].iter().map(|w| w.abs()).sum();
    s.kinetic_linear + s.kinetic_angular + s.potential.abs() + s.normal.elastic_energy + work + other_work.abs()
}

/// The equations as a replay integrates them: the system as the last step left it (gravity
/// expansion, actuator torque), the surface queried exactly (the local surface models are
/// valid only near where the last step left each vertex: replayed from a checkpoint metres
/// back through them, an Eros drop's budget moved by 3e3 J), nothing cached.
struct Replay<'a>(&'a LanderSystem);

impl OdeSystem for Replay<'_> {
    fn dim(&self) -> usize {
        STATE_LEN
    }
    fn rhs(&mut self, _t: f64, y: &[f64], dydt: &mut [f64]) {
        dydt.copy_from_slice(&self.0.snapshot(y).rates);
    }
}

impl<S: DerefMut<Target = LanderSystem>> LanderSim<S> {
    /// After an accepted step (`h` s long, from `err_before`, in free flight or not): the peak
    /// energy, the rounding magnitude, the flight error and the checkpoints.
    pub(super) fn account(&mut self, h: f64, err_before: f64, flight: bool) {
        let s = &self.snap;
        let b = &mut self.budget;
        (b.peak, b.magnitude) = (b.peak.max(b.pending.0), b.magnitude.max(b.pending.1));
        b.pending = (
            s.kinetic_linear + s.kinetic_angular + s.normal.elastic_energy,
            magnitude(&self.y, s, self.hop_work + self.remainder),
        );
        if flight {
            b.flight.0 += h;
            b.flight.1 += self.err - err_before;
        }
        b.ckpt[1].spanned |= h > self.settings.dt * 1.5;
        if self.k / CHECKPOINT_EVERY > b.ckpt[1].k / CHECKPOINT_EVERY {
            b.ckpt = [b.ckpt[1], Checkpoint { y: self.y, k: self.k, err: self.err, spanned: false }];
        }
    }

    /// The growth the guard allows, J: `simulation.max_energy_growth` of the larger of the
    /// initial energy scale and the largest kinetic plus elastic energy the run has had, of the
    /// actuator's work, and never less than the rounding of the budget's terms.
    pub(super) fn limit(&self) -> f64 {
        let (s, b) = (&self.settings, &self.budget);
        let rounding = rounding(self.k) * b.magnitude;
        s.energy_tolerance.max(s.energy_growth * b.peak) + s.energy_growth * self.actuator_work + rounding
    }

    /// The balance's growth (energy less work) over `n` steps of `dt` from `from`, each taken as
    /// `sub` RK4 steps, a step in which a vertex touches down as 16 sub-steps as the run takes
    /// it.
    fn replay(&self, from: &Checkpoint, n: u64, sub: u32) -> f64 {
        let sys = &*self.obs.sys;
        let h = self.settings.dt / sub as f64;
        let mut ode = Replay(sys);
        let mut integ = Integrator::new(Method::Rk4 { dt: h }, STATE_LEN);
        let mut y = from.y;
        let mut t = from.k as f64 * self.settings.dt;
        for _ in 0..n * sub as u64 {
            if !(y.iter().all(|x| x.abs() <= ABSURD) && body_speed(&y) <= MAX_SPEED) {
                return f64::NAN;
            }
            if sys.snapshot(&y).normal.time_to_contact < h {
                let hs = h / super::TOUCHDOWN_SUBSTEPS as f64;
                for _ in 0..super::TOUCHDOWN_SUBSTEPS {
                    integ.step_once(&mut ode, t, &mut y, hs);
                    t += hs;
                }
            } else {
                integ.step_once(&mut ode, t, &mut y, h);
                t += h;
            }
        }
        let budget = |y: &[f64; STATE_LEN]| sys.snapshot(y).energy() - y[WORK..WORK + 4].iter().sum::<f64>();
        budget(&y) - budget(&from.y)
    }

    /// [`Self::replay`], NaN where the state stops being sound on the way (not finite, past
    /// [`ABSURD`], faster than light) or the budget's growth passes `limit` (J).
    fn replay_sound(&self, from: &Checkpoint, n: u64, sub: u32, limit: f64) -> f64 {
        let g = self.replay(from, n, sub);
        if g.is_finite() && g.abs() <= limit { g } else { f64::NAN }
    }

    /// The diagnosis of a state that stopped being sound (`what` the guard saw), measured as
    /// an energy trip is: the steps since the older checkpoint replayed at `dt/4`, `dt/16`, …
    /// `dt/256`. A replay that stays sound names the step that did; one that blows up at every
    /// step names the model or the input, with the acceleration at the last sound state.
    pub(super) fn blow_up(&self, what: String) -> Diagnosis {
        let (t, dt) = (self.time(), self.settings.dt);
        let from = self.budget.ckpt[0];
        let n = self.k - from.k;
        let window = format!("{n} step{} from {:.4} s", if n == 1 { "" } else { "s" }, from.k as f64 * dt);
        let limit = self.limit();
        for j in 1..REFINE {
            let sub = 1u32 << (2 * j);
            let g = self.replay_sound(&from, n, sub, limit);
            if g.is_finite() {
                let h = dt / sub as f64;
                let cause = format!(
                    "the time step, measured: the same {window} replayed at dt/{sub} = {h:.3e} s stay sound (the budget moves by {g:.3e} J, limit {limit:.3e} J); lower simulation.dt to {h:.3e} s or less"
                );
                return Diagnosis::new(t, what, cause);
            }
        }
        let (y, t_sound) = self.recorded;
        let s = self.obs.sys.snapshot(&y);
        let a = Vec3::new(s.rates[3], s.rates[4], s.rates[5]).norm();
        let contact = s.normal.force.norm() / self.obs.sys.mass;
        let h = dt / (1u32 << (2 * (REFINE - 1))) as f64;
        let cause = format!(
            "not the time step: the same {window} replayed down to dt/{} = {h:.3e} s blow up too, so the model or the input drives it: at the last sound state ({t_sound:.4} s) the acceleration is {a:.3e} m/s², {contact:.3e} m/s² of it from contact and the rest from gravity and the frame",
            1u32 << (2 * (REFINE - 1))
        );
        Diagnosis::new(t, what, cause)
    }

    /// The diagnosis of an energy trip (`growth` past `limit`, J): the steps since the older
    /// checkpoint replayed at `dt`, `dt/4`, `dt/16`, … until two replays in a row stay finite.
    /// An error that shrinks with the step is the step's; one that does not is the model's or
    /// the input's.
    pub(super) fn energy_trip(&self, growth: f64, limit: f64) -> Diagnosis {
        let (t, dt) = (self.time(), self.settings.dt);
        if !growth.is_finite() {
            return self.blow_up("the energy budget stopped being finite".into());
        }
        let from = self.budget.ckpt[0];
        let n = self.k - from.k;
        let here = self.err - from.err;
        let mut b: Vec<f64> = Vec::with_capacity(REFINE);
        for j in 0..REFINE {
            b.push(self.replay(&from, n, 1 << (2 * j)));
            if j > 0 && b[j].is_finite() && b[j - 1].is_finite() {
                break;
            }
        }
        let replays: Vec<String> =
            b.iter().enumerate().map(|(j, g)| format!("{g:.3e} J at dt/{}", 1 << (2 * j))).collect();
        let what = format!(
            "the energy budget grew by {growth:.4e} J (limit {limit:.4e} J); its last {n} steps ({:.4} s to {t:.4} s) added {here:.3e} J, and replayed with steps of dt = {dt} s they add {}",
            from.k as f64 * dt,
            replays.join(", ")
        );
        Diagnosis::new(t, what, self.trip_cause(&from, here, &b))
    }

    /// The cause the replays `b` (at `dt/4^j`) of the window from `from` point to (`here`: what
    /// the window added in the run, J).
    fn trip_cause(&self, from: &Checkpoint, here: f64, b: &[f64]) -> String {
        let dt = self.settings.dt;
        let j = b.len() - 1;
        if !(b[j].is_finite() && j > 0 && b[j - 1].is_finite()) {
            return format!(
                "the time step: the replay blows up at every step down to dt/{} = {:.3e} s, so the step is far above the stable one (see the warnings); lower simulation.dt",
                1 << (2 * j),
                dt / (1 << (2 * j)) as f64
            );
        }
        let (coarse, fine) = (b[j - 1].abs(), b[j].abs());
        if j == 1 && from.spanned && here.abs() > 4.0 * coarse.max(fine) {
            format!(
                "the free-flight steps: spanning up to simulation.flight_steps = {} steps of dt they added {here:.3e} J where steps of dt add {coarse:.3e} J; lower simulation.flight_steps",
                self.settings.flight_steps
            )
        } else if fine * 4.0 < coarse {
            let h = dt / (1 << (2 * j)) as f64;
            format!(
                "the time step: the error shrinks from {coarse:.3e} J to {fine:.3e} J from dt/{} to dt/{}; lower simulation.dt to {h:.3e} s or less",
                1 << (2 * (j - 1)),
                1 << (2 * j)
            )
        } else {
            let start = self.budget.start_depth;
            let overlap = if start > 0.0 {
                format!(" (the spacecraft started {start:.3e} m inside the surface)")
            } else {
                String::new()
            };
            format!(
                "not the time step: a smaller step does not shrink the error, so the model or the input adds the energy{overlap}: a start inside the surface, a hop or input, or contact parameters outside their model's range"
            )
        }
    }
}
