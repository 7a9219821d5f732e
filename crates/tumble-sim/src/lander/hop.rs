//! Hops: when they fire, what they command, and the internal actuator that delivers them.
//!
//! A hop is an angular impulse the spacecraft gives itself by turning an internal rotor: the
//! document's hopper spins an internal wheel. Three commands: an instantaneous impulse (the
//! limit of a short pulse, the document's), a constant torque for a duration (a torque
//! profile), or an aim at a point of T, which [`super::aim`] turns into a torque profile from a
//! ballistic estimate. The actuator ([`Actuator`]) bounds the torque's magnitude and the
//! momentum its rotor may hold; a profile that would exceed the momentum stops where the rotor
//! saturates. A reaction wheel keeps the momentum it took (the body then carries a gyrostat's
//! coupling `−ω_abs × h`); a torquer stores none, and hops without an actuator act as an
//! unlimited torquer. The torque's power is booked in the energy budget as work (with the
//! frame's: `energy.frame_and_hop_work_J`).

use super::sim::ContactEvent;
use crate::scenario::check::{Check, err, finite3, positive};
use crate::scenario::lander::{ActuatorType, LanderSpec};
use tumble_math::Vec3;

/// When a hop fires.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HopTrigger {
    /// At this time, s.
    At(f64),
    /// The first time the spacecraft is found settled after the previous hop.
    Settled,
}

/// What a hop commands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum HopCommand {
    /// An instantaneous angular impulse on the body, body axes, N·m·s.
    Impulse(Vec3),
    /// A constant torque on the body (body axes, N·m) for `duration` s.
    Torque {
        /// Torque, body axes, N·m.
        torque: Vec3,
        /// How long, s.
        duration: f64,
    },
    /// Hop towards this point of T (the shape's coordinates, m): a torque profile at the
    /// actuator's largest torque from the ballistic estimate of [`super::aim`].
    Aim(Vec3),
}

/// A hop: when, and what.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hop {
    /// When.
    pub trigger: HopTrigger,
    /// What.
    pub command: HopCommand,
}

/// How the actuator keeps momentum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ActuatorKind {
    /// A reaction wheel: the rotor keeps the momentum it took.
    #[default]
    Wheel,
    /// A torquer: no stored momentum acts on the body; the momentum limit bounds each hop's
    /// angular impulse.
    Torquer,
}

/// The internal actuator's limits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Actuator {
    /// Wheel or torquer.
    pub kind: ActuatorKind,
    /// Largest torque magnitude, N·m.
    pub max_torque: f64,
    /// Largest momentum magnitude the rotor may hold (a torquer: per hop), N·m·s.
    pub max_momentum: f64,
}

/// A hop as delivered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HopRecord {
    /// When it fired, s.
    pub time: f64,
    /// Angular impulse delivered to the body, body axes, N·m·s.
    pub impulse: Vec3,
    /// The point aimed at, if any (T, m).
    pub aim: Option<Vec3>,
    /// Where the aim's ballistic estimate lands for the hop it chose (T, m): far from `aim`
    /// when the actuator cannot reach it.
    pub predicted: Option<Vec3>,
    /// Where it landed (centre of mass, T, m; see [`find_landings`]), once the run is done.
    pub landing: Option<Vec3>,
    /// Whether the rotor saturated (the profile was cut short or the impulse scaled down).
    pub saturated: bool,
    /// The centre of mass when it fired (T, m).
    pub start: Vec3,
    /// Whether it fired from rest (calm for the settling dwell).
    pub from_rest: bool,
    /// Where the spacecraft came to rest after it (T, m): where the next hop fired once
    /// settled, or where the run settled; none where it did not.
    pub rest: Option<Vec3>,
}

/// How far from its lift-off a hop's landing is, at least, m: a spinning hopper strikes the
/// ground again as it leaves, and those strikes belong to the launch.
pub const LANDING_AWAY: f64 = 1.0;

/// Fills each hop's landing from a run's `contacts`: the centre of mass at the first touchdown
/// after the hop's lift-off (the first contact end after it fired) more than [`LANDING_AWAY`]
/// from the lift-off, before the next hop; none where it never left or never came down.
pub fn find_landings(hops: &mut [HopRecord], contacts: &[ContactEvent]) {
    for i in 0..hops.len() {
        if let Some(next) = hops.get(i + 1).filter(|h| h.from_rest) {
            hops[i].rest = Some(next.start);
        }
        let until = hops.get(i + 1).map_or(f64::INFINITY, |h| h.time);
        let mut after = contacts.iter().filter(|c| c.time > hops[i].time && c.time < until);
        hops[i].landing = after.find(|c| !c.start).and_then(|lift| {
            let away = |c: &&ContactEvent| c.start && (c.position - lift.position).norm() > LANDING_AWAY;
            after.find(away).map(|c| c.position)
        });
    }
}

/// A torque profile being delivered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Drive {
    /// Torque on the body, body axes, N·m.
    pub torque: Vec3,
    /// Steps left.
    pub steps: u64,
    /// Fraction of the torque the last step applies.
    pub last: f64,
}

impl Actuator {
    /// The torque `torque` limited to the largest magnitude.
    pub fn limit_torque(&self, torque: Vec3) -> Vec3 {
        let n = torque.norm();
        if n > self.max_torque { torque * (self.max_torque / n) } else { torque }
    }

    /// Whether a rotor at `h` may take `delta` more (its magnitude stays within the limit).
    pub fn admits(&self, h: &Vec3, delta: &Vec3) -> bool {
        (h + delta).norm() <= self.max_momentum * (1.0 + 1e-12)
    }

    /// The largest fraction `s ∈ [0, 1]` of `delta` a rotor at `h` may take: the root of
    /// `|h + s δ| = H` (or 1 when all of it fits).
    pub fn fraction(&self, h: &Vec3, delta: &Vec3) -> f64 {
        if self.admits(h, delta) {
            return 1.0;
        }
        let (a, b, c) = (delta.norm_squared(), h.dot(delta), h.norm_squared() - self.max_momentum.powi(2));
        if a == 0.0 || c > 0.0 {
            return 0.0;
        }
        ((-b + (b * b - a * c).max(0.0).sqrt()) / a).clamp(0.0, 1.0)
    }
}

/// The hops and actuator of `[lander]` (`settle`: whether settling is detected, which a hop
/// without a time needs).
pub(crate) fn hops_of(l: &LanderSpec, settle: bool) -> Check<(Vec<Hop>, Option<Actuator>)> {
    let actuator = match &l.actuator {
        None => None,
        Some(a) => Some(Actuator {
            kind: match a.kind {
                ActuatorType::Wheel => ActuatorKind::Wheel,
                ActuatorType::Torquer => ActuatorKind::Torquer,
            },
            max_torque: positive("lander.actuator.max_torque", a.max_torque, "N·m")?,
            max_momentum: positive("lander.actuator.max_momentum", a.max_momentum, "N·m·s")?,
        }),
    };
    let mut hops = Vec::new();
    for (i, h) in l.hops.iter().enumerate() {
        let key = format!("lander.hops.{i}");
        let trigger = match h.time {
            Some(at) if at.is_finite() && at >= 0.0 => HopTrigger::At(at),
            Some(at) => return err(format!("{key}.time"), format!("must be a finite time >= 0 (s), got {at}")),
            None if settle => HopTrigger::Settled,
            None => return err(format!("{key}.time"), "a hop without `time` fires when settled: add [lander.settle]"),
        };
        let command = match (h.impulse, h.torque, h.aim) {
            (Some(j), None, None) => HopCommand::Impulse(finite3(&format!("{key}.impulse"), j)?),
            (None, Some(t), None) => {
                let Some(duration) = h.duration else {
                    return err(format!("{key}.duration"), "is needed with `torque` (s)");
                };
                HopCommand::Torque {
                    torque: finite3(&format!("{key}.torque"), t)?,
                    duration: positive(&format!("{key}.duration"), duration, "s")?,
                }
            }
            (None, None, Some(p)) => {
                if actuator.is_none() {
                    return err(
                        format!("{key}.aim"),
                        "needs [lander.actuator] (its largest torque shapes the aimed hop)",
                    );
                }
                HopCommand::Aim(finite3(&format!("{key}.aim"), p)?)
            }
            _ => return err(key, "give exactly one of `impulse`, `torque` (with `duration`) or `aim`"),
        };
        if h.duration.is_some() && h.torque.is_none() {
            return err(format!("{key}.duration"), "goes with `torque` only");
        }
        hops.push(Hop { trigger, command });
    }
    Ok((hops, actuator))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_scale_torque_and_cut_momentum_where_the_rotor_saturates() {
        let a = Actuator { kind: ActuatorKind::Wheel, max_torque: 0.1, max_momentum: 1.0 };
        // Scaled to the limit along its own direction (to rounding: 0.3 · 0.1/0.5).
        let t = a.limit_torque(Vec3::new(0.0, 0.3, 0.4));
        assert!((t - Vec3::new(0.0, 0.06, 0.08)).norm() < 1e-15, "{t}");
        assert_eq!(a.limit_torque(Vec3::new(0.05, 0.0, 0.0)), Vec3::new(0.05, 0.0, 0.0));
        let h = Vec3::new(0.6, 0.0, 0.0);
        let s = a.fraction(&h, &Vec3::new(0.0, 1.0, 0.0));
        assert!(((h + Vec3::new(0.0, s, 0.0)).norm() - 1.0).abs() < 1e-12, "{s}");
        assert_eq!(a.fraction(&h, &Vec3::new(0.1, 0.0, 0.0)), 1.0);
    }
}
