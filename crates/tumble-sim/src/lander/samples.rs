//! What a lander run records at each sample: the columns of `timeseries.csv` and the row a
//! state and its observation make.

use super::sim::LanderRun;
use super::system::{Snapshot, WORK};
use tumble_math::Vec3;

/// Recorded columns (one row per sample).
pub const COLUMNS: [&str; 39] = [
    "t [s]",
    "x [m]",
    "y [m]",
    "z [m]",
    "vx [m/s]",
    "vy [m/s]",
    "vz [m/s]",
    "speed [m/s]",
    "rate [rad/s]",
    "qw [1]",
    "qx [1]",
    "qy [1]",
    "qz [1]",
    "contacts [1]",
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
    "target_qw [1]",
    "target_qx [1]",
    "target_qy [1]",
    "target_qz [1]",
    "target_wx [rad/s]",
    "target_wy [rad/s]",
    "target_wz [rad/s]",
];

/// Appends the sample at `t` (s) of state `y`, its observation `snap` and the budget's error
/// `err` (J) to `run`.
pub(crate) fn record(run: &mut LanderRun, t: f64, y: &[f64], snap: &Snapshot, err: f64) {
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
        y[13],
        y[14],
        y[15],
        y[16],
        y[17],
        y[18],
        y[19],
    ]);
}
