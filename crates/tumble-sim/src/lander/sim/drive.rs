//! Hops as the step loop delivers them: instantaneous impulses, torque profiles held over steps
//! within the actuator's limits, and aimed hops (see [`crate::lander::hop`]).

use super::LanderSim;
use crate::lander::hop::{Actuator, ActuatorKind, Drive, HopCommand, HopRecord};
use crate::lander::system::LanderSystem;
use std::ops::DerefMut;
use tumble_math::Vec3;

impl<S: DerefMut<Target = LanderSystem>> LanderSim<S> {
    /// Fires a hop now: an angular impulse on the spacecraft (body axes, N·m·s) from its
    /// internal rotor, scaled down to what the actuator's momentum limit admits. The energy it
    /// adds is carried by the budget as work.
    pub fn hop(&mut self, impulse: Vec3) {
        self.fire(None);
        let mut impulse = impulse;
        if let Some(a) = self.settings.actuator {
            let s = a.fraction(&self.rotor(), &-impulse);
            self.record_saturation(s < 1.0);
            impulse *= s;
            if a.kind == ActuatorKind::Wheel {
                self.obs.sys.actuation.momentum -= impulse;
            }
        }
        let y = &mut self.y;
        let (w_new, work) = self.obs.sys.spun(Vec3::new(y[10], y[11], y[12]), impulse);
        self.hop_work += work;
        self.actuator_work += work.abs();
        y[10..13].copy_from_slice(w_new.as_slice());
        if let Some(last) = self.run.hops.last_mut() {
            last.impulse = impulse;
        }
        self.snap = self.obs.observe(&self.y);
        self.err = self.balance();
    }

    /// Fires a hop now as a torque profile, as a `[[lander.hops]]` torque hop does: `torque`
    /// (N·m, body axes) from the internal actuator for `duration` s, limited by the actuator's
    /// torque and momentum; it replaces a profile still being delivered. Its work enters the
    /// budget.
    pub fn torque_hop(&mut self, torque: Vec3, duration: f64) -> Result<(), String> {
        if !(duration.is_finite() && duration > 0.0) {
            return Err(format!("torque: the duration (its fourth value) must be positive, s; got {duration}"));
        }
        self.command(HopCommand::Torque { torque, duration });
        Ok(())
    }

    /// Starts a hop's record (and the calm period over).
    pub(super) fn fire(&mut self, aim: Option<Vec3>) {
        let time = self.k as f64 * self.settings.dt;
        let from_rest = self.calm_since.is_some_and(|c| self.settings.settle.is_some_and(|st| time - c >= st.dwell));
        self.run.hops.push(HopRecord {
            time,
            impulse: Vec3::zeros(),
            aim,
            predicted: None,
            landing: None,
            saturated: false,
            start: Vec3::new(self.y[0], self.y[1], self.y[2]),
            from_rest,
            rest: None,
        });
        self.delivered = Vec3::zeros();
        self.calm_since = None;
    }

    fn record_saturation(&mut self, saturated: bool) {
        if let Some(last) = self.run.hops.last_mut() {
            last.saturated |= saturated;
        }
    }

    /// The momentum the actuator's limit applies to: a wheel's rotor, or what a torquer has
    /// delivered in this hop (as the reaction it took).
    fn rotor(&self) -> Vec3 {
        match self.settings.actuator.map(|a| a.kind) {
            Some(ActuatorKind::Torquer) => -self.delivered,
            _ => self.obs.sys.actuation.momentum,
        }
    }

    /// Starts a torque profile now (the torque limited to the actuator's).
    fn drive(&mut self, torque: Vec3, duration: f64, aim: Option<Vec3>) {
        self.fire(aim);
        let torque = self.settings.actuator.map_or(torque, |a| a.limit_torque(torque));
        let (steps, last) = crate::lander::aim::pulse_steps(duration, self.settings.dt);
        self.drive = Some(Drive { torque, steps: steps as u64, last });
        self.next_drive_step();
    }

    /// After a step of the profile: the rotor's momentum, then the next step's torque (zero
    /// once the profile ends or the rotor would pass its limit).
    pub(super) fn drove(&mut self, h: f64) {
        let Some(d) = self.drive.as_mut() else { return };
        let dl = self.obs.sys.actuation.torque * h;
        self.actuator_work += dl.norm() * Vec3::new(self.y[10], self.y[11], self.y[12]).norm();
        d.steps -= 1;
        self.delivered += dl;
        if self.settings.actuator.is_some_and(|a| a.kind == ActuatorKind::Wheel) {
            self.obs.sys.actuation.momentum -= dl;
        }
        if let Some(last) = self.run.hops.last_mut() {
            last.impulse = self.delivered;
        }
        self.next_drive_step();
    }

    /// Sets the actuator's torque for the next step, ending the drive where it is done or the
    /// rotor would saturate.
    fn next_drive_step(&mut self) {
        let Some(d) = self.drive else { return };
        let torque = if d.steps == 1 { d.torque * d.last } else { d.torque };
        let fits = self.settings.actuator.is_none_or(|a| a.admits(&self.rotor(), &(-torque * self.settings.dt)));
        if d.steps == 0 || !fits {
            self.record_saturation(!fits && d.steps > 0);
            self.drive = None;
            self.obs.sys.actuation.torque = Vec3::zeros();
        } else {
            self.obs.sys.actuation.torque = torque;
        }
    }

    /// Fires `hop`'s command.
    pub(super) fn command(&mut self, command: HopCommand) {
        match command {
            HopCommand::Impulse(j) => return self.hop(j),
            HopCommand::Torque { torque, duration } => self.drive(torque, duration, None),
            HopCommand::Aim(target) => {
                // A scenario's aimed hop needs an actuator; a program that set none gets what
                // hops without one are, an unlimited torquer (here of 1 N·m).
                let a = self.settings.actuator.unwrap_or(Actuator {
                    kind: ActuatorKind::Torquer,
                    max_torque: 1.0,
                    max_momentum: f64::INFINITY,
                });
                let aimed = crate::lander::aim::aim(&self.obs.sys, &self.y, &target, &a, self.settings.dt);
                self.drive(aimed.axis * a.max_torque, aimed.impulse / a.max_torque, Some(target));
                if let Some(last) = self.run.hops.last_mut() {
                    last.predicted = Some(aimed.landing);
                    last.saturated |= aimed.limited;
                }
            }
        }
        self.snap = self.obs.observe(&self.y);
        self.err = self.balance();
    }

    /// After a hop a wheel's motor brings its rotor back to rest on the ground, so that the
    /// spacecraft can settle (a rotor holding momentum `h` couples the body to the target's
    /// spin through `−Ω × h` and keeps it turning). Called after each step while no profile is
    /// being delivered: the rotor takes the last step's torque, then the next step's is set.
    /// In flight it is zero: the rotor's momentum would pass to the body, which would land
    /// spinning (the 67P hop's 0.76 rad/s flight spin becomes 3.6 rad/s). Once calm on the
    /// ground it is half the smaller of the friction and tipping moments `μ m |g| r` the ground
    /// can hold (`r` the nearest vertex's distance from the centre of mass, `μ ≤ 1`), within the
    /// actuator's.
    pub(super) fn despin(&mut self, h_step: f64) {
        let Some(a) = self.settings.actuator.filter(|a| a.kind == ActuatorKind::Wheel) else { return };
        let torque = self.obs.sys.actuation.torque;
        self.obs.sys.actuation.momentum -= torque * h_step;
        self.actuator_work += (torque * h_step).norm() * Vec3::new(self.y[10], self.y[11], self.y[12]).norm();
        let h = self.obs.sys.actuation.momentum;
        let left = h.norm();
        // Calm: in contact, the centre of mass within ten times the settling speed; the torque
        // stops whenever it moves faster. The ground does not hold it exactly: below `v_star`
        // the regularised friction lets a torqued body creep (at up to 0.02 rad/s on one or two
        // vertices of the 67P hopper), and a limit at the threshold itself kept the motor's duty
        // cycle, and its despin, 30× slower. The rate is not asked: the rotor's momentum `h`
        // balances a body on a vertex or an edge, which then precesses about the normal at
        // about `m|g|l/|h|` with its centre of mass nearly still (0.026 rad/s on Šteins, 0.01
        // on the cube of `tests/lander_hops.rs`), and only the despin ends that.
        let calm = self.settings.settle.is_none_or(|st| self.snap.kin.v.norm() < 10.0 * st.speed);
        let limit = if left > 0.0 && calm && self.snap.normal.active > 0 {
            let sys = &self.obs.sys;
            let g = sys.gravity_at(&Vec3::new(self.y[0], self.y[1], self.y[2])).0.norm();
            let r = sys.vertices.iter().map(|v| v.norm()).fold(f64::INFINITY, f64::min);
            (0.5 * sys.contact.mu.min(1.0) * sys.mass * g * r).min(a.max_torque)
        } else {
            0.0
        };
        self.obs.sys.actuation.torque =
            if left > 0.0 { h * (limit.min(left / self.settings.dt) / left) } else { h * 0.0 };
        if left <= 1e-12 * a.max_momentum {
            self.obs.sys.actuation.momentum = Vec3::zeros();
            self.obs.sys.actuation.torque = Vec3::zeros();
        }
    }
}
