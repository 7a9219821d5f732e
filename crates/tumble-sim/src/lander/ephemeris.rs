//! The target's rotation and the Sun from SPICE kernels (`[target.spice]`), the Sun's forces
//! on the spacecraft (`[lander.sun]`) and the illumination of its landing sites. Equations and
//! orders of magnitude in `docs/lander.md` ("The Sun"); the kernel reader is
//! `tumble_dynamics::spice`, its checks against NAIF's toolkit in `tumble-py/tests/test_interop.py`.
//!
//! Frame N is J2000 (ICRF axes) when the kernels give the target's rotation: `Q_NT` is the
//! transpose of the PCK's J2000 → body-fixed matrix at the epoch and `Ω` its angular velocity in
//! body axes, so the shape model must be in the PCK's body-fixed frame (as NAIF's and PDS's
//! shape models of a body are).

use super::model::LanderModel;
use super::sim::LanderRun;
use super::system::STATE_LEN;
use crate::scenario::Scenario;
use crate::scenario::check::{Check, err, positive};
use crate::scenario::lander::{SunForcesSpec, TargetSpec};
use tumble_dynamics::spice::{Epoch, Kernels};
use tumble_math::{Mat3, UnitQuat, Vec3};

/// NAIF id of the Sun.
const SUN: i32 = 10;
/// The Sun's gravitational parameter, m³/s² (DE440's, TDB-compatible), when no kernel gives
/// `BODY10_GM`.
pub const GM_SUN: f64 = 1.327_124_400_419_394e20;
/// Solar radiation pressure on an absorbing surface facing the Sun at 1 au, N/m² (solar
/// irradiance 1361 W/m² over the speed of light).
pub const SOLAR_PRESSURE_1AU: f64 = 1361.0 / 299_792_458.0;
/// The astronomical unit, m.
pub const AU: f64 = 149_597_870_700.0;

/// What the kernels say at the epoch.
#[derive(Clone, Debug, PartialEq)]
pub struct Ephemeris {
    /// The epoch as the scenario gave it.
    pub epoch: String,
    /// The target's name (`target.spice.name`, or its NAIF id).
    pub name: String,
    /// Its ET, TDB seconds past J2000.
    pub et: f64,
    /// `Q_NT`, N = J2000, `[w, x, y, z]`.
    pub q_nt: [f64; 4],
    /// The target's angular velocity in its own axes, rad/s.
    pub omega: Vec3,
    /// The Sun relative to the target's centre, J2000, at the epoch (unless `sun = false`).
    pub sun: Option<SunState>,
    /// The Sun's gravitational parameter, m³/s².
    pub gm_sun: f64,
}

/// The Sun's position (m) and velocity (m/s) relative to the target, J2000, at the epoch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SunState {
    /// Position, m.
    pub position: Vec3,
    /// Velocity, m/s.
    pub velocity: Vec3,
}

impl SunState {
    /// Position `t` seconds after the epoch, propagated linearly: over a day at 1 au the
    /// neglected curvature `½ (GM/r²) t²` is 2e-4 of the distance, a 0.01° direction error.
    pub fn at(&self, t: f64) -> Vec3 {
        self.position + self.velocity * t
    }
}

/// Reads `[target.spice]`, if present.
pub(crate) fn read(sc: &Scenario, t: &TargetSpec) -> Check<Option<Ephemeris>> {
    let Some(s) = &t.spice else { return Ok(None) };
    if s.kernels.is_empty() {
        return err(
            "target.spice.kernels",
            "lists no kernel: give the LSK, PCK and SPK files (paths relative to the scenario)",
        );
    }
    let paths: Vec<_> = s.kernels.iter().map(|k| sc.resolve(k)).collect();
    let k = Kernels::load(&paths).map_err(|e| ("target.spice.kernels".to_string(), e.to_string()))?;
    let epoch = Epoch::parse(&s.epoch).map_err(|e| ("target.spice.epoch".to_string(), e))?;
    let et = k.et(&epoch).map_err(|e| ("target.spice.epoch".to_string(), e.to_string()))?;
    let rot = k.rotation(s.body, et).map_err(|e| ("target.spice.body".to_string(), e.to_string()))?;
    let q = tumble_math::quat_from_matrix(&rot.r.transpose());
    let q_nt = [q.w, q.i, q.j, q.k];
    let sun = if s.sun {
        let (p, v) = k.state(SUN, s.body, et).map_err(|e| ("target.spice.sun".to_string(), e.to_string()))?;
        Some(SunState { position: p, velocity: v })
    } else {
        None
    };
    let gm_sun = match k.pool().numbers("BODY10_GM").ok().flatten().as_deref() {
        Some([gm]) if gm.is_finite() && *gm > 0.0 => gm * 1e9,
        _ => GM_SUN,
    };
    let name = s.name.clone().unwrap_or_else(|| s.body.to_string());
    if name.is_empty() || name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || " _-".contains(c)) {
        return err(
            "target.spice.name",
            "must be 1 to 64 letters, digits, spaces, '_' or '-' (it names the body in CCSDS messages)",
        );
    }
    Ok(Some(Ephemeris { epoch: s.epoch.clone(), name, et, q_nt, omega: rot.omega, sun, gm_sun }))
}

/// `t` with the kernels' spin state in place of `angular_velocity` and `orientation`, refusing a
/// scenario that also states them.
pub(crate) fn spun(t: &TargetSpec, e: &Ephemeris) -> Check<TargetSpec> {
    let given = [
        ("target.angular_velocity", t.angular_velocity.is_some()),
        ("target.spin_rate", t.spin_rate.is_some()),
        ("target.orientation", t.orientation != [1.0, 0.0, 0.0, 0.0]),
    ];
    if let Some((key, _)) = given.iter().find(|g| g.1) {
        return err(*key, "is given by [target.spice] (the PCK's rotation at the epoch): remove one of them");
    }
    let mut t = t.clone();
    t.angular_velocity = Some(e.omega.into());
    t.orientation = e.q_nt;
    Ok(t)
}

/// The Sun's forces on the spacecraft as the equations use them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SunForces {
    /// Unit vector from the target to the Sun, N axes (held at the epoch's: it turns by about
    /// 1e-7 rad/s at 1.5 au).
    pub direction: Vec3,
    /// Radiation pressure acceleration, m/s², directed away from the Sun:
    /// `P₁ (au/r)² C_r A / m`.
    pub radiation: f64,
    /// `GM_sun / r³`, 1/s² (0 without the tide): the tide is `GM/r³ (3 (ŝ·ρ) ŝ − ρ)` at `ρ` from
    /// the target's centre of mass.
    pub tide: f64,
}

impl SunForces {
    /// The acceleration at `rho` from the target's centre of mass (T axes) when `R_NT` is
    /// `r_nt`.
    pub fn acceleration(&self, r_nt: &Mat3, rho: &Vec3) -> Vec3 {
        let s = r_nt.transpose() * self.direction;
        -s * self.radiation + (s * (3.0 * s.dot(rho)) - rho) * self.tide
    }
}

/// `[lander.sun]` against the ephemeris: the forces, or none.
pub(crate) fn sun_forces(spec: Option<&SunForcesSpec>, e: Option<&Ephemeris>, mass: f64) -> Check<Option<SunForces>> {
    let Some(f) = spec else { return Ok(None) };
    let Some(sun) = e.and_then(|e| e.sun.map(|s| (s, e.gm_sun))) else {
        return err("lander.sun", "needs the Sun's position: add [target.spice] with an SPK of the Sun and the target");
    };
    let area = if f.area == 0.0 { 0.0 } else { positive("lander.sun.area", f.area, "m²")? };
    if !(f.reflectivity.is_finite() && (0.0..=2.0).contains(&f.reflectivity)) {
        return err(
            "lander.sun.reflectivity",
            format!("must lie in [0, 2] (1 absorbing, 2 a mirror), got {}", f.reflectivity),
        );
    }
    let ((state, gm), r) = (sun, sun.0.position.norm());
    Ok(Some(SunForces {
        direction: state.position / r,
        radiation: SOLAR_PRESSURE_1AU * (AU / r).powi(2) * f.reflectivity * area / mass,
        tide: if f.tide { gm / r.powi(3) } else { 0.0 },
    }))
}

/// The Sun's elevation above the local horizon (degrees, negative below it) at a point of T
/// with outward surface normal `normal` (T axes), `t` seconds after the epoch, when `R_NT` is
/// given by `q_nt` (`[w, x, y, z]`).
pub fn sun_elevation(sun: &SunState, t: f64, q_nt: &[f64; 4], normal: &Vec3) -> f64 {
    let q = UnitQuat::new_normalize(tumble_math::Quat::new(q_nt[0], q_nt[1], q_nt[2], q_nt[3]));
    let s = (q.inverse() * sun.at(t)).normalize();
    let n = normal.try_normalize(0.0).unwrap_or_else(Vec3::z);
    n.dot(&s).clamp(-1.0, 1.0).asin().to_degrees()
}

/// The Sun's elevation (degrees) at the first touchdown and at the run's end, each where the
/// spacecraft is on the surface, above the local horizon (the plane normal to the surface's
/// gradient under its centre of mass); NaN without the Sun or a touchdown.
pub fn illumination(model: &LanderModel, run: &LanderRun) -> [f64; 2] {
    let first = run.contacts.iter().find(|c| c.start).map(|c| (c.time, c.position, c.q_nt));
    illumination_at(model, first, run.final_time, &run.final_state)
}

/// [`illumination`] from the first touchdown's time, centre of mass and `Q_NT` (none without
/// one) and the run's final time and state: what a backend that keeps no contact events
/// records of a run.
pub fn illumination_at(
    model: &LanderModel,
    first: Option<(f64, Vec3, [f64; 4])>,
    final_time: f64,
    y: &[f64; STATE_LEN],
) -> [f64; 2] {
    let Some(sun) = model.ephemeris.as_ref().and_then(|e| e.sun) else { return [f64::NAN; 2] };
    let at = |t: f64, x: &Vec3, q_nt: &[f64; 4]| sun_elevation(&sun, t, q_nt, &model.system.surface.eval(x).1);
    let first = first.map_or(f64::NAN, |(t, x, q)| at(t, &x, &q));
    let end = if model.system.on_surface(y) {
        at(final_time, &Vec3::new(y[0], y[1], y[2]), &[y[13], y[14], y[15], y[16]])
    } else {
        f64::NAN
    };
    [first, end]
}
