//! Scenario schema of snare-wire runs: `[snare]`. Documented key by key in `docs/scenario.md`.

use serde::Deserialize;

/// `[snare]`: the floating-target experiment (a planar target's probe hits a loose wire).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnareSpec {
    /// Target mass, kg.
    pub mass: f64,
    /// Target moment of inertia about the vertical axis, kg·m².
    pub inertia: f64,
    /// Probe tip from the centre of mass, body axes, m.
    #[serde(deserialize_with = "super::exact::array")]
    pub probe: [f64; 2],
    /// Approach speed, m/s.
    pub speed: f64,
    /// Contact position `s` along the wire's chord, m.
    pub position: f64,
    /// The wire.
    #[serde(default)]
    pub wire: WireSpec,
    /// Friction coefficient between probe and wire.
    #[serde(default = "default_mu")]
    pub mu: f64,
    /// Friction regularisation speed, m/s.
    #[serde(default = "default_v_star")]
    pub v_star: f64,
}

/// `snare.wire`: the document's wire (Table 3: SUS-304, 1.5 mm, `L` = 180 mm, `l` = 175 mm,
/// Table 4's law), with its damping.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WireSpec {
    /// Linear damping, N·s/m.
    pub damping: f64,
}

impl Default for WireSpec {
    fn default() -> Self {
        Self { damping: 5.0 }
    }
}

pub(super) fn default_mu() -> f64 {
    0.2
}
pub(super) fn default_v_star() -> f64 {
    1e-3
}
