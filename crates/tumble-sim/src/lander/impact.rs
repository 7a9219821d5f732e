//! Impact loads: one record per touchdown (a contact phase, from the step in which a first vertex
//! touches to the step after which none does), measured at every step whatever the output
//! interval, and the samples a run adds during impacts so that no contact phase falls between
//! two of them.
//!
//! - **Impact speeds** are those of the application point (the penetration-weighted centre of
//!   the touching vertices, `r_p`) with the velocities of the last step before contact:
//!   `v_pt = v⁻ + ω⁻ × r_p`, split along the contact normal `N_p` (closing speed
//!   `−v_pt·N_p`) and across it. So they are the approach speeds, untouched by the contact's
//!   first impulse.
//! - **Peak normal force** and **peak penetration**: the largest normal load `Σ|F_j|` and the
//!   deepest vertex over the phase's steps.
//! - **Energy lost**: the work of the damper, friction and rolling resistance over the phase (the
//!   energy budget's dissipation integrals at its end less those before it began).

use super::system::{Snapshot, WORK};
use tumble_contact::vertex_sdf::BodyKinematics;
use tumble_math::Vec3;

/// One touchdown's loads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Impact {
    /// Touchdown: the end of the step in which the first vertex touched, s.
    pub time: f64,
    /// Lift-off: the end of the first step after which no vertex touches, s (NaN while the
    /// lander is still in contact when the run ends).
    pub liftoff: f64,
    /// Phase length, s (to the end of the run if it never lifted off).
    pub duration: f64,
    /// Application point at touchdown, target frame (shape-file coordinates), m.
    pub site: Vec3,
    /// Closing speed of the application point along the normal before contact, m/s.
    pub normal_speed: f64,
    /// Its speed across the normal before contact, m/s.
    pub tangential_speed: f64,
    /// Angular rate before contact, rad/s.
    pub rate: f64,
    /// Largest normal load over the phase, N.
    pub peak_force: f64,
    /// Deepest vertex penetration over the phase, m.
    pub peak_penetration: f64,
    /// Energy dissipated over the phase (damper, friction, rolling resistance), J.
    pub energy_lost: f64,
    /// Speed of the centre of mass at lift-off (NaN without one), m/s.
    pub liftoff_speed: f64,
}

/// The largest of each load over a run's impacts (NaN for a run without one).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpactMaxima {
    /// Largest closing speed, m/s.
    pub normal_speed: f64,
    /// Largest speed across the normal, m/s.
    pub tangential_speed: f64,
    /// Largest peak normal force, N.
    pub force: f64,
    /// Largest energy lost in one impact, J.
    pub energy_lost: f64,
}

impl ImpactMaxima {
    /// Of `impacts`.
    pub fn of(impacts: &[Impact]) -> Self {
        let max = |f: fn(&Impact) -> f64| impacts.iter().map(f).reduce(f64::max).unwrap_or(f64::NAN);
        Self {
            normal_speed: max(|i| i.normal_speed),
            tangential_speed: max(|i| i.tangential_speed),
            force: max(|i| i.peak_force),
            energy_lost: max(|i| i.energy_lost),
        }
    }
}

/// How long after a vertex touches down the impact samples go on, s: one period `2π√(m/k)` of
/// a vertex spring of stiffness `k` (N/m) carrying the whole mass `m` (kg), longer than any
/// single vertex's compression and restitution (its effective mass is at most `m`).
pub fn window(mass: f64, stiffness: f64) -> f64 {
    std::f64::consts::TAU * (mass / stiffness).sqrt()
}

/// The dissipation integrals' sum in a state (J, positive).
pub(crate) fn dissipated(y: &[f64]) -> f64 {
    -(y[WORK] + y[WORK + 1] + y[WORK + 2])
}

/// Follows contact phases step by step.
#[derive(Clone, Debug)]
pub(crate) struct ImpactLog {
    /// Dissipation at the start of the open phase, J.
    lost_before: f64,
    /// Touching vertices after the last step.
    touching: usize,
    /// Samples are added until this time (after the last vertex touchdown), s.
    window_end: f64,
    /// [`window`], s.
    window: f64,
}

impl ImpactLog {
    /// From a start with `touching` vertices in contact (a start on the ground is no impact),
    /// for a lander of `mass` (kg) on vertex springs of `stiffness` (N/m).
    pub(crate) fn new(touching: usize, mass: f64, stiffness: f64) -> Self {
        Self { lost_before: 0.0, touching, window_end: f64::NEG_INFINITY, window: window(mass, stiffness) }
    }

    /// After a step ending at `t`, from the state `y`, its observation `snap` and the
    /// kinematics `before` and dissipation `lost_before` of the step's start: opens, grows or
    /// closes the last of `impacts`. Returns whether a vertex touched down in this step.
    pub(crate) fn step(
        &mut self,
        impacts: &mut Vec<Impact>,
        t: f64,
        y: &[f64],
        snap: &Snapshot,
        before: &BodyKinematics,
        lost_before: f64,
    ) -> bool {
        let n = &snap.normal;
        let (was, now) = (self.touching, n.active);
        self.touching = now;
        if now > 0 && was == 0 {
            let v = before.v + before.w.cross(&n.r_p);
            let closing = -v.dot(&n.n_p);
            self.lost_before = lost_before;
            impacts.push(Impact {
                time: t,
                liftoff: f64::NAN,
                duration: 0.0,
                site: snap.kin.x + n.r_p,
                normal_speed: closing,
                tangential_speed: (v + n.n_p * closing).norm(),
                rate: before.w.norm(),
                peak_force: n.load,
                peak_penetration: n.max_penetration,
                energy_lost: dissipated(y) - lost_before,
                liftoff_speed: f64::NAN,
            });
        } else if let Some(open) = impacts.last_mut().filter(|_| was > 0) {
            open.duration = t - open.time;
            open.energy_lost = dissipated(y) - self.lost_before;
            if now > 0 {
                open.peak_force = open.peak_force.max(n.load);
                open.peak_penetration = open.peak_penetration.max(n.max_penetration);
            } else {
                open.liftoff = t;
                open.liftoff_speed = snap.kin.v.norm();
            }
        }
        now > was
    }

    /// Whether a step ending at `t` falls in an impact's sampling window, which opens for
    /// [`window`] each time a vertex touches down (`touched`).
    pub(crate) fn in_window(&mut self, t: f64, touched: bool) -> bool {
        if touched {
            self.window_end = t + self.window;
        }
        t <= self.window_end
    }
}
