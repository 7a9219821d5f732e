//! Scenario metrics computed from a finished run: invariant drifts, torque-free periods
//! (Euler–Poinsot) and osculating orbits, each only where the physics makes it meaningful.

use super::model::{GravityKind, Model};
use super::record::Recording;
use serde_json::{Map, Value, json};
use tumble_dynamics::PointMass;
use tumble_dynamics::analytic::torque_free_period;
use tumble_geometry::MassProperties;
use tumble_math::Vec3;

/// The metrics of a run as a JSON object.
pub fn compute(model: &Model, rec: &Recording) -> Value {
    let point_mass = match model.gravity {
        GravityKind::PointMass { mu, center, .. } => Some(PointMass { mu, center }),
        _ => None,
    };
    let mut m = Map::new();
    let col = |n: &str| rec.column(n).unwrap_or_default();
    let (kin, pot) = (col("kinetic_energy"), col("potential_energy"));
    let bal = col("energy_balance");
    if let (Some(&e0), Some(&t0), Some(&v0)) = (bal.first(), kin.first(), pot.first()) {
        let scale = (t0 + v0.abs()).max(f64::MIN_POSITIVE);
        let drift = bal.iter().map(|e| (e - e0).abs()).fold(0.0, f64::max) / scale;
        m.insert("energy_drift_rel".into(), json!(drift));
    }
    let no_loads = model.system.bodies.iter().all(|b| b.loads.is_empty());
    let central_at_origin = point_mass.is_none_or(|pm| pm.center == Vec3::zeros());
    let uniform = matches!(model.gravity, GravityKind::Uniform);
    if no_loads && central_at_origin && !uniform {
        let h = col("H_norm");
        let (hx, hy, hz) = (col("Hx"), col("Hy"), col("Hz"));
        if let Some(&h0) = h.first().filter(|&&h0| h0 > 0.0) {
            let d =
                (0..h.len()).map(|i| Vec3::new(hx[i] - hx[0], hy[i] - hy[0], hz[i] - hz[0]).norm()).fold(0.0, f64::max);
            m.insert("angular_momentum_drift_rel".into(), json!(d / h0));
        }
    }
    let mut bodies = Map::new();
    for (i, b) in model.system.bodies.iter().enumerate() {
        let mut bm = Map::new();
        let (moments, axes) = MassProperties::new(b.mass, b.inertia).principal();
        // Uniform gravity exerts no torque about the centre of mass.
        let torque_free = no_loads && point_mass.is_none();
        if torque_free {
            let w0 = model.system.body_state(&model.initial_state, i).w_WB_B;
            if let Some(p) = torque_free_period(moments, &(axes.transpose() * w0)) {
                bm.insert("torque_free_period_analytic_s".into(), json!(p));
            }
            // Sign changes of the rate about the intermediate principal axis: the flips of the
            // Dzhanibekov effect (two per period near that axis).
            let (wx, wy, wz) =
                (col(&format!("{}.wx", b.name)), col(&format!("{}.wy", b.name)), col(&format!("{}.wz", b.name)));
            let t = col("t");
            let w2: Vec<f64> = (0..wx.len()).map(|k| axes.column(1).dot(&Vec3::new(wx[k], wy[k], wz[k]))).collect();
            let ups: Vec<f64> = (1..w2.len())
                .filter(|&k| w2[k - 1] < 0.0 && w2[k] >= 0.0)
                .map(|k| t[k - 1] + (t[k] - t[k - 1]) * (-w2[k - 1]) / (w2[k] - w2[k - 1]))
                .collect();
            let flips = (1..w2.len()).filter(|&k| (w2[k - 1] < 0.0) != (w2[k] < 0.0)).count();
            bm.insert("intermediate_axis_flips".into(), json!(flips));
            if ups.len() >= 2 {
                bm.insert(
                    "torque_free_period_measured_s".into(),
                    json!((ups[ups.len() - 1] - ups[0]) / (ups.len() - 1) as f64),
                );
            }
        }
        if let Some(pm) = point_mass {
            let elements = |k: usize| {
                let g = |c: &str| col(&format!("{}.{c}", b.name)).get(k).copied().unwrap_or(f64::NAN);
                orbit(pm, Vec3::new(g("x"), g("y"), g("z")), Vec3::new(g("vx"), g("vy"), g("vz")))
            };
            let last = rec.len().saturating_sub(1);
            bm.insert("orbit_initial".into(), elements(0));
            bm.insert("orbit_final".into(), elements(last));
        }
        if !bm.is_empty() {
            bodies.insert(b.name.clone(), Value::Object(bm));
        }
    }
    if !bodies.is_empty() {
        m.insert("bodies".into(), Value::Object(bodies));
    }
    Value::Object(m)
}

/// Osculating two-body elements (semi-major axis, eccentricity, period) of a position and
/// velocity about a point mass.
fn orbit(pm: PointMass, p: Vec3, v: Vec3) -> Value {
    let r = p - pm.center;
    let energy = 0.5 * v.norm_squared() - pm.mu / r.norm();
    let h = r.cross(&v);
    let e_vec = v.cross(&h) / pm.mu - r / r.norm();
    let a = -pm.mu / (2.0 * energy);
    let period = if a > 0.0 { Some(2.0 * std::f64::consts::PI * (a.powi(3) / pm.mu).sqrt()) } else { None };
    json!({ "semi_major_axis_m": a, "eccentricity": e_vec.norm(), "period_s": period, "specific_energy_J_per_kg": energy })
}
