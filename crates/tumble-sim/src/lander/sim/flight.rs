//! Free flight: how many steps of `dt` the next step may span.

use super::LanderSim;
use crate::lander::hop::HopTrigger;
use crate::lander::system::LanderSystem;
use std::ops::DerefMut;
use tumble_math::Vec3;

/// The most a free-flight step may turn the fastest motion of [`LanderSim::flight_rate`], rad
/// (RK4's energy error per step grows as the fifth power of the turn).
const TURN: f64 = 0.1;

impl<S: DerefMut<Target = LanderSystem>> LanderSim<S> {
    /// Steps of `dt` the next step spans: more than one only in free flight far enough from the
    /// surface, ending on the next output sample or hop at the latest.
    pub(super) fn span(&self) -> u64 {
        let s = &self.settings;
        let torque = self.obs.sys.actuation.torque;
        if s.flight_steps <= 1 || self.snap.normal.active > 0 || self.drive.is_some() || torque != Vec3::zeros() {
            return 1;
        }
        let k = self.k;
        let to_sample = s.output_every - k % s.output_every;
        let to_hop = match s.hops.get(self.next_hop).map(|h| h.trigger) {
            Some(HopTrigger::At(at)) => ((at / s.dt).ceil() as u64).saturating_sub(k).max(1),
            _ => u64::MAX,
        };
        let turn = self.flight_rate() * s.dt;
        let turning = if turn > 0.0 { (TURN / turn).max(1.0) as u64 } else { u64::MAX };
        let n_max = s.flight_steps.min(to_sample).min(to_hop).min(self.steps - k).min(turning);
        let (v, w) = (self.snap.kin.v.norm(), self.snap.kin.w.norm());
        let travel = (v + w * self.reach) * 2.0 * n_max as f64 * s.dt;
        if self.snap.normal.min_distance > travel { n_max } else { 1 }
    }

    /// The fastest rate a free-flight step must follow, rad/s: the body's spin in inertial
    /// space (its rate relative to the target plus the target's), a wheel's nutation and the
    /// local field's orbital rate `√(|a| / r)` (`a` the acceleration in T, `r` the distance from
    /// the centre of mass), whose variation along the path a long step would miss.
    fn flight_rate(&self) -> f64 {
        let y = &self.y;
        let spin = Vec3::new(y[10], y[11], y[12]).norm() + Vec3::new(y[17], y[18], y[19]).norm();
        // A wheel holding momentum `h` adds a nutation of up to `|h| / J_min` rad/s (5 rad/s for
        // a 1.2 kg hopper after a 0.01 N·m·s hop), far faster than the body's own turning.
        let nutation = self.obs.sys.actuation.momentum.norm() / self.inertia_min;
        let r = (Vec3::new(y[0], y[1], y[2]) - self.obs.sys.centre).norm();
        let a = Vec3::new(self.snap.rates[3], self.snap.rates[4], self.snap.rates[5]).norm();
        let orbit = if r > 0.0 { (a / r).sqrt() } else { 0.0 };
        spin.max(nutation).max(orbit)
    }
}
