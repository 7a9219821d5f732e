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
        graded_span(self.snap.normal.min_distance, (v + w * self.reach) * 2.0 * s.dt, n_max)
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

/// The most steps of `dt`, at most `n_max`, that keep the travel bound (`per_step` m per step of
/// `dt`: twice the speed of the farthest vertex) within the gap `min_distance` to the surface;
/// at least one. As many as fit, not all or one: a hopper skimming the ground between bounces
/// would otherwise take every step at `dt`.
pub(crate) fn graded_span(min_distance: f64, per_step: f64, n_max: u64) -> u64 {
    if min_distance > per_step * n_max as f64 {
        return n_max;
    }
    // Not clear of one step's travel (or not a number): one step.
    if min_distance.partial_cmp(&per_step) != Some(std::cmp::Ordering::Greater) {
        return 1;
    }
    // `min_distance / per_step` lies in (1, n_max]: its floor, less one where rounding put it
    // on a whole number the bound does not strictly clear.
    let n = (min_distance / per_step).floor() as u64;
    if min_distance > per_step * n as f64 { n } else { (n - 1).max(1) }
}

#[cfg(test)]
mod tests {
    use super::graded_span;

    #[test]
    fn a_span_is_the_most_steps_the_gap_clears() {
        // All, one, and the steps in between as the gap allows (strictly: a gap of exactly
        // seven steps' travel takes six).
        assert_eq!(graded_span(1.0, 0.001, 100), 100);
        assert_eq!(graded_span(0.001, 0.001, 100), 1);
        assert_eq!(graded_span(-0.5, 0.001, 100), 1);
        assert_eq!(graded_span(0.007, 0.001, 100), 6);
        assert_eq!(graded_span(0.0071, 0.001, 100), 7);
        assert_eq!(graded_span(0.1, 0.0, 100), 100);
        assert_eq!(graded_span(0.1, f64::NAN, 100), 1);
        assert_eq!(graded_span(f64::NAN, 0.001, 100), 1);
        // Over a sweep of gaps and speeds: the span clears its bound, and one step more would
        // not (or it is already the most allowed).
        let mut lcg = tumble_math::Lcg::new(5);
        for _ in 0..10_000 {
            let (gap, per_step, n_max) =
                (lcg.uniform(0.0, 0.1), lcg.uniform(0.0, 1e-3), lcg.uniform(1.0, 200.0) as u64);
            let n = graded_span(gap, per_step, n_max);
            assert!((1..=n_max).contains(&n));
            assert!(n == 1 || gap > per_step * n as f64, "{gap} {per_step} {n_max}: {n}");
            assert!(n == n_max || gap <= per_step * (n + 1) as f64, "{gap} {per_step} {n_max}: {n}");
        }
    }
}
