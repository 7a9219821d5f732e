//! Recorded channels: time, every body's state, and the system's energy and momenta.

use tumble_dynamics::{Invariants, RigidBodySystem};

/// A table of samples with named, unit-carrying columns.
pub struct Recording {
    /// Column names (`t`, `tbar.wx`, `energy_balance`, …).
    pub names: Vec<String>,
    /// Column units (SI).
    pub units: Vec<&'static str>,
    /// Samples, row-major, `names.len()` values each.
    pub data: Vec<f64>,
}

const BODY_CHANNELS: [(&str, &str); 13] = [
    ("x", "m"),
    ("y", "m"),
    ("z", "m"),
    ("vx", "m/s"),
    ("vy", "m/s"),
    ("vz", "m/s"),
    ("qw", "1"),
    ("qx", "1"),
    ("qy", "1"),
    ("qz", "1"),
    ("wx", "rad/s"),
    ("wy", "rad/s"),
    ("wz", "rad/s"),
];

const SYSTEM_CHANNELS: [(&str, &str); 11] = [
    ("kinetic_energy", "J"),
    ("potential_energy", "J"),
    ("work_applied", "J"),
    ("energy_balance", "J"),
    ("Hx", "kg·m²/s"),
    ("Hy", "kg·m²/s"),
    ("Hz", "kg·m²/s"),
    ("H_norm", "kg·m²/s"),
    ("px", "kg·m/s"),
    ("py", "kg·m/s"),
    ("pz", "kg·m/s"),
];

impl Recording {
    /// An empty recording with the channels of `sys`.
    pub fn new(sys: &RigidBodySystem) -> Self {
        let mut names = vec!["t".to_string()];
        let mut units = vec!["s"];
        for b in &sys.bodies {
            for (c, u) in BODY_CHANNELS {
                names.push(format!("{}.{c}", b.name));
                units.push(u);
            }
        }
        for (c, u) in SYSTEM_CHANNELS {
            names.push(c.to_string());
            units.push(u);
        }
        Self { names, units, data: Vec::new() }
    }

    /// Appends the sample of state `y` at time `t`, whose invariants `inv` the caller has
    /// already computed (`sys.invariants(y)`).
    pub fn push(&mut self, t: f64, sys: &RigidBodySystem, y: &[f64], inv: &Invariants) {
        self.data.push(t);
        for i in 0..sys.bodies.len() {
            let s = sys.body_state(y, i);
            self.data.extend_from_slice(s.p_WB.as_slice());
            self.data.extend_from_slice(s.v_WB.as_slice());
            self.data.extend_from_slice(&tumble_math::quat_to_wxyz(&s.q_WB));
            self.data.extend_from_slice(s.w_WB_B.as_slice());
        }
        let h = inv.angular_momentum;
        let p = inv.linear_momentum;
        self.data.extend_from_slice(&[
            inv.kinetic,
            inv.potential,
            inv.work,
            inv.energy() - inv.work,
            h.x,
            h.y,
            h.z,
            h.norm(),
            p.x,
            p.y,
            p.z,
        ]);
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.data.len() / self.names.len()
    }

    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The values of column `name`, if it exists.
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let c = self.names.iter().position(|n| n == name)?;
        Some(self.data.iter().skip(c).step_by(self.names.len()).copied().collect())
    }

    /// The samples as a [`crate::Table`] whose columns are `name [unit]`, as in the CSV header.
    pub fn table(&self) -> crate::Table {
        let columns = self.names.iter().zip(&self.units).map(|(n, u)| format!("{n} [{u}]")).collect();
        let mut table = crate::Table::new(columns);
        self.data.chunks_exact(self.names.len().max(1)).for_each(|r| table.push(r));
        table
    }
}
