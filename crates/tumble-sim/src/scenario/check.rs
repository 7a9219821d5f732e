//! The checks every application's scenario adapter shares: a check's result type keyed by the
//! scenario key path, positive and finite numbers, vectors, meshes read relative to the file,
//! mass and inertia.

use super::{IntegratorKind, Scenario};
use tumble_contact::MAX_FRICTION;
use tumble_geometry::mesh::read_mesh;
use tumble_geometry::{LengthUnit, MassProperties, TriMesh};
use tumble_math::{Mat3, Vec3};

/// Most samples a fixed-step run records.
pub(crate) const MAX_SAMPLES: f64 = 1e6;

/// A check's result: the value, or the key path and what is wrong.
pub(crate) type Check<T> = Result<T, (String, String)>;

/// A failed check at `key`.
pub(crate) fn err<T>(key: impl Into<String>, msg: impl Into<String>) -> Check<T> {
    Err((key.into(), msg.into()))
}

/// `x` when positive and finite (`unit` names what it is in the message).
pub(crate) fn positive(key: &str, x: f64, unit: &str) -> Check<f64> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        err(key, format!("must be a positive, finite number ({unit}), got {x}"))
    }
}

/// `mu` when a friction coefficient: finite, from 0 to [`MAX_FRICTION`].
pub(crate) fn friction(key: &str, mu: f64) -> Check<f64> {
    if mu.is_finite() && (0.0..=MAX_FRICTION).contains(&mu) {
        Ok(mu)
    } else {
        err(
            key,
            format!(
                "must be a friction coefficient from 0 to {MAX_FRICTION} (dry contacts lie below about 2), got {mu:?}"
            ),
        )
    }
}

/// Three finite numbers as a vector.
pub(crate) fn finite3(key: &str, v: [f64; 3]) -> Check<Vec3> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(Vec3::from(v))
    } else {
        err(key, format!("must hold three finite numbers, got {v:?}"))
    }
}

/// Farthest a body may start from the origin, m (7 AU: any spacecraft's neighbourhood, in any
/// frame Tumble integrates; farther, its energies pass the guard's bound).
pub const MAX_POSITION: f64 = 1e12;

/// Fastest a body may start turning, rad/s (a reaction wheel turns at 1e3; a centimetre body
/// at 1e7 moves its surface at 1e5 m/s; faster, its energies pass the guard's bound).
pub const MAX_RATE: f64 = 1e7;

/// Three finite numbers whose magnitude is at most `limit` (`unit`; `what` says what lies
/// beyond).
fn bounded3(key: &str, v: [f64; 3], limit: f64, unit: &str, what: &str) -> Check<Vec3> {
    let v = finite3(key, v)?;
    let size = v.norm();
    if size <= limit { Ok(v) } else { err(key, format!("{size:e} {unit} is {what} (at most {limit:e} {unit})")) }
}

/// A starting position (m): finite, within [`MAX_POSITION`].
pub(crate) fn position3(key: &str, v: [f64; 3]) -> Check<Vec3> {
    bounded3(key, v, MAX_POSITION, "m", "too far")
}

/// A velocity (m/s): finite, no faster than light (Newtonian mechanics, and the guard's
/// [`crate::pipeline::MAX_SPEED`]).
pub(crate) fn velocity3(key: &str, v: [f64; 3]) -> Check<Vec3> {
    bounded3(key, v, crate::pipeline::MAX_SPEED, "m/s", "faster than light")
}

/// An angular velocity (rad/s): finite, within [`MAX_RATE`].
pub(crate) fn rate3(key: &str, v: [f64; 3]) -> Check<Vec3> {
    bounded3(key, v, MAX_RATE, "rad/s", "too fast a turn")
}

/// A body's starting position, velocity and angular velocity at `key.position`, … (a builder's
/// error).
pub(crate) fn motion(key: &str, p: &Vec3, v: &Vec3, w: &Vec3) -> Result<(), crate::pipeline::BuildError> {
    position3(&format!("{key}.position"), (*p).into())?;
    velocity3(&format!("{key}.velocity"), (*v).into())?;
    rate3(&format!("{key}.angular_velocity"), (*w).into())?;
    Ok(())
}

/// Mass properties that are physically possible, or the refusal at `key.mass` or
/// `key.inertia` (a builder's error).
pub(crate) fn mass_properties(key: &str, mp: &MassProperties) -> Result<(), crate::pipeline::BuildError> {
    mp.validate().map_err(|e| {
        let field = if matches!(e, tumble_geometry::MassError::Mass(_)) { "mass" } else { "inertia" };
        crate::pipeline::BuildError::new(format!("{key}.{field}"), e.to_string())
    })
}

/// `v` when its three components are finite, or the refusal at `key` (a builder's error).
pub(crate) fn finite_vec(key: &str, v: &Vec3) -> Result<Vec3, crate::pipeline::BuildError> {
    finite3(key, (*v).into()).map_err(Into::into)
}

/// Reads the mesh at `path` (relative to the scenario file) in `unit`, errors keyed at
/// `table.path` / `table.unit`.
pub(crate) fn read_mesh_key(sc: &Scenario, table: &str, path: &str, unit: &str) -> Check<TriMesh> {
    let unit: LengthUnit = unit.parse().map_err(|e: String| (format!("{table}.unit"), e))?;
    read_mesh(&sc.resolve(path), unit).map_err(|e| (format!("{table}.path"), e.to_string()))
}

/// Mass and inertia (3 principal or 6 `[xx, yy, zz, xy, xz, yz]` values, kg·m²) of the table
/// at `key`, checked (positive mass, positive definite, triangle inequalities).
pub(crate) fn mass_and_inertia(key: &str, mass: f64, inertia: &[f64]) -> Check<(f64, Mat3)> {
    let inertia = match *inertia {
        [a, b, c] => Mat3::from_diagonal(&Vec3::new(a, b, c)),
        [xx, yy, zz, xy, xz, yz] => Mat3::new(xx, xy, xz, xy, yy, yz, xz, yz, zz),
        _ => return err(format!("{key}.inertia"), format!("needs 3 or 6 values (kg·m²), got {}", inertia.len())),
    };
    let mass = positive(&format!("{key}.mass"), mass, "kg")?;
    MassProperties::new(mass, inertia).validate().map_err(|e| (format!("{key}.inertia"), e.to_string()))?;
    Ok((mass, inertia))
}

/// `[simulation]` of a fixed-step run (`what` names it): RK4 step, duration and output
/// interval, checked by [`fixed_timing`].
pub(crate) fn rk4_timing(sc: &Scenario, what: &str) -> Check<(f64, f64, f64)> {
    let sim = &sc.file.simulation;
    if sim.integrator != IntegratorKind::Rk4 {
        return err("simulation.integrator", format!("{what} runs use `rk4` (the document's method, fixed step)"));
    }
    fixed_timing(sim.dt.unwrap_or(f64::NAN), sim.duration, sim.output_interval)
}

/// A fixed step, the duration and the output interval (default: the step; a whole multiple of
/// the step, at most [`MAX_SAMPLES`] samples), s.
pub(crate) fn fixed_timing(dt: f64, duration: f64, output_interval: Option<f64>) -> Check<(f64, f64, f64)> {
    let dt = positive("simulation.dt", dt, "s")?;
    let duration = positive("simulation.duration", duration, "s")?;
    let output_interval = output_interval.unwrap_or(dt);
    let every = (output_interval / dt).round();
    if !(every >= 1.0 && (every * dt - output_interval).abs() <= 1e-9 * output_interval) {
        return err("simulation.output_interval", format!("must be a whole multiple of dt = {dt} s"));
    }
    if duration / output_interval > MAX_SAMPLES {
        return err("simulation.output_interval", "would record more than 1e6 samples: raise it");
    }
    Ok((dt, duration, output_interval))
}

#[cfg(test)]
mod tests {
    use crate::Scenario;
    use std::path::Path;

    #[test]
    fn a_friction_coefficient_past_any_material_is_refused_in_every_application() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        for (file, key) in [
            ("lander/cube_phobos.toml", "lander.contact.mu"),
            ("membrane/drop_test.toml", "membrane.mu"),
            ("membrane/trampoline_2d.toml", "trampoline.mu"),
        ] {
            for mu in ["1e300", "10.5", "-0.1"] {
                let sc = Scenario::load(&root.join(file), &[(key.into(), mu.into())]).expect("reads");
                let e = crate::registry::check(&sc).err().map(|e| e.to_string()).unwrap_or_default();
                assert!(e.contains(key) && e.contains("friction coefficient from 0 to 10"), "{file} {mu}: {e}");
            }
        }
    }
}
