//! The blow-up guard, checked by the [`super::Driver`] after every accepted step of every
//! application: the state must be finite and of a sane magnitude, and the energy may not grow
//! past the application's limit.

/// Largest magnitude (SI) a state component may reach before the run is declared blown up.
///
/// State components are positions (m), velocities (m/s), rates (rad/s), unit quaternions, joint
/// coordinates and accumulated work (J). The largest physical values Tumble meets are far below
/// it: a 1e15 kg asteroid at 1 km/s carries 5e20 J, a heliocentric position is ~1e12 m. A run
/// diverging past it is caught long before overflow turns its values into infinities and NaN
/// (a spinning hopper driven past its stable step reached 8e180 J of damper work and exited as
/// "escaped" before this guard).
pub const ABSURD: f64 = 1e30;

/// The speed of light, m/s: no body in Tumble's Newtonian mechanics may move faster. A state
/// within [`ABSURD`] can still hold 1e18 m/s (a uniform gravity of 1e19 m/s² for 0.1 s), and
/// its energies then reach 1e38 J.
pub const MAX_SPEED: f64 = 299_792_458.0;

/// The speed (m/s) of a rigid body's 13-component state (`p`, `v`, `q`, `ω`: `v` at 3..6, as
/// `tumble_dynamics::BodyState` lays it out).
pub fn body_speed(body: &[f64]) -> f64 {
    (body[3] * body[3] + body[4] * body[4] + body[5] * body[5]).sqrt()
}

/// What the guard found.
#[derive(Clone, Debug, PartialEq)]
pub enum GuardFailure {
    /// A state component is NaN or infinite.
    NonFinite {
        /// Its index in the state.
        index: usize,
    },
    /// A state component's magnitude passed [`ABSURD`].
    Absurd {
        /// Its index in the state.
        index: usize,
        /// Its value.
        value: f64,
    },
    /// A body moved faster than [`MAX_SPEED`].
    FasterThanLight {
        /// Its speed, m/s.
        speed: f64,
    },
    /// The energy grew past the limit (or stopped being finite).
    EnergyGrew {
        /// Growth since the start, J (NaN where the energy stopped being finite).
        growth: f64,
        /// The limit, J.
        limit: f64,
    },
}

impl GuardFailure {
    /// What was observed, in words.
    pub fn what(&self) -> String {
        match self {
            GuardFailure::NonFinite { index } => {
                format!("the state became non-finite (NaN or infinite; component {index})")
            }
            GuardFailure::Absurd { index, value } => {
                format!("the state reached an absurd magnitude ({value:.3e} in component {index}, limit {ABSURD:e})")
            }
            GuardFailure::FasterThanLight { speed } => {
                format!("a body reached {speed:.3e} m/s, faster than light ({MAX_SPEED:e} m/s)")
            }
            GuardFailure::EnergyGrew { growth, limit } if growth.is_finite() => {
                format!("the energy grew by {growth:.4e} J (limit {limit:.4e} J)")
            }
            GuardFailure::EnergyGrew { .. } => "the energy stopped being finite".to_string(),
        }
    }
}

/// An application's energy check: how much the energy (less the work of the loads it accounts
/// for) grew since the start, and how much growth it allows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnergyCheck {
    /// Growth since the start, J.
    pub growth: f64,
    /// Largest growth allowed, J.
    pub limit: f64,
}

/// Checks every component of `y` for finiteness and magnitude.
#[inline]
pub fn check_state(y: &[f64]) -> Result<(), GuardFailure> {
    // One comparison per component on the hot path: `|x| ≤ ABSURD` is false for NaN and ±∞ too.
    if y.iter().all(|x| x.abs() <= ABSURD) {
        return Ok(());
    }
    for (index, &value) in y.iter().enumerate() {
        if !value.is_finite() {
            return Err(GuardFailure::NonFinite { index });
        }
        if value.abs() > ABSURD {
            return Err(GuardFailure::Absurd { index, value });
        }
    }
    Ok(())
}

/// Checks the fastest body's speed against [`MAX_SPEED`].
#[inline]
pub fn check_speed(speed: f64) -> Result<(), GuardFailure> {
    if speed <= MAX_SPEED { Ok(()) } else { Err(GuardFailure::FasterThanLight { speed }) }
}

/// Checks an energy budget; a NaN growth fails (it is not within any limit).
#[inline]
pub fn check_energy(e: Option<EnergyCheck>) -> Result<(), GuardFailure> {
    match e {
        Some(EnergyCheck { growth, limit }) if growth.is_nan() || growth > limit => {
            Err(GuardFailure::EnergyGrew { growth, limit })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guard_catches_nan_infinity_absurd_values_and_energy_growth() {
        assert_eq!(check_state(&[0.0, 1e29, -3.0]), Ok(()));
        assert_eq!(check_state(&[0.0, f64::NAN]), Err(GuardFailure::NonFinite { index: 1 }));
        assert_eq!(check_state(&[f64::NEG_INFINITY]), Err(GuardFailure::NonFinite { index: 0 }));
        assert_eq!(check_state(&[1.0, -2e30]), Err(GuardFailure::Absurd { index: 1, value: -2e30 }));
        assert_eq!(check_speed(MAX_SPEED), Ok(()));
        assert_eq!(check_speed(3e8), Err(GuardFailure::FasterThanLight { speed: 3e8 }));
        assert_eq!(body_speed(&[9.0, 9.0, 9.0, 3.0, 0.0, 4.0, 1.0, 0.0, 0.0, 0.0, 9.0, 9.0, 9.0]), 5.0);
        assert_eq!(check_energy(None), Ok(()));
        assert_eq!(check_energy(Some(EnergyCheck { growth: 1.0, limit: 1.0 })), Ok(()));
        assert!(check_energy(Some(EnergyCheck { growth: 1.5, limit: 1.0 })).is_err());
        // NaN growth fails even against an infinite limit: a NaN energy is never within bounds.
        assert!(check_energy(Some(EnergyCheck { growth: f64::NAN, limit: f64::INFINITY })).is_err());
    }
}
