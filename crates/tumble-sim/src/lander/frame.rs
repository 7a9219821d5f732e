//! The target's frame as the lander sees it: the centre of mass it turns about, the spin axis
//! (the pole of latitudes and longitudes), and the checks that a uniform rotation is one a
//! free body can have.
//!
//! Positions and velocities stay in the coordinates the shape was given in (a mesh or SDF
//! file's own, a procedural body's); only the frame terms of the equations of motion, the
//! centrifugal potential, escape distances and landing sites are taken about the centre of mass.

use super::model::Target;
use crate::scenario::check::{Check, err, position3, rate3};
use crate::scenario::lander::{SpinKind, TargetSpec};
use tumble_dynamics::rotating::TargetSpin;
use tumble_geometry::MassProperties;
use tumble_math::{Mat3, Vec3};

/// Largest angle between a uniform spin and the target's axis of major inertia, degrees.
///
/// A rigid body turns uniformly only about a principal axis; the document spins its bodies about
/// the major one. At 1° the centrifugal acceleration's direction is off by at most 1° of the
/// ideal model's, below the uncertainty of any small body's spin-axis solution.
pub const MAX_SPIN_AXIS_OFFSET_DEG: f64 = 1.0;

/// Latitudes and longitudes on the target: about its centre of mass, pole along the spin axis,
/// longitude 0 in the half-plane of T's `x` axis (of `y` when the pole lies along `x`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SiteFrame {
    /// The centre of mass in T, m.
    pub centre: Vec3,
    /// Rows: the direction of longitude 0 on the equator, of longitude 90° east, and the
    /// pole, in T axes.
    pub axes: Mat3,
}

impl SiteFrame {
    /// The frame about `centre` with `pole` (any non-zero vector; T's `z` if zero).
    pub fn new(centre: Vec3, pole: &Vec3) -> Self {
        let pole = pole.try_normalize(0.0).unwrap_or_else(Vec3::z);
        let reference = if pole.x.abs() < 0.9 { Vec3::x() } else { Vec3::y() };
        let east0 = (reference - pole * pole.dot(&reference)).normalize();
        let east90 = pole.cross(&east0);
        Self { centre, axes: Mat3::from_rows(&[east0.transpose(), east90.transpose(), pole.transpose()]) }
    }

    /// Latitude and longitude (degrees) of a point of T: `asin(z/|r|)`, `atan2(y, x)` of
    /// `r = axes (x − centre)`; `(0, 0)` at the centre.
    pub fn lat_lon(&self, x: &Vec3) -> (f64, f64) {
        let r = self.axes * (x - self.centre);
        let n = r.norm();
        if n == 0.0 {
            return (0.0, 0.0);
        }
        ((r.z / n).clamp(-1.0, 1.0).asin().to_degrees(), r.y.atan2(r.x).to_degrees())
    }

    /// The unit direction (T axes) of latitude `lat` and longitude `lon`, radians.
    pub fn direction(&self, lat: f64, lon: f64) -> Vec3 {
        self.axes.transpose() * Vec3::new(lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin())
    }
}

/// The unit axis of major inertia of `mp` nearest `hint` (sign chosen so that it points to the
/// side of `hint`; to `+z` when `hint` is perpendicular or zero).
pub fn major_axis(mp: &MassProperties, hint: &Vec3) -> Vec3 {
    // Principal moments come in increasing order.
    let a: Vec3 = mp.principal().1.column(2).into();
    let side = if hint.dot(&a) != 0.0 { hint.dot(&a) } else { a.z };
    if side < 0.0 { -a } else { a }
}

/// The angle (degrees) between `omega` and the nearest axis of major inertia of `mp`: with
/// principal moments `A ≤ B ≤ C`, the part of Ω outside the eigenspace of `C` (when `B = C` to
/// 1e-9, every axis in their plane is major).
pub fn spin_axis_offset_deg(mp: &MassProperties, omega: &Vec3) -> f64 {
    let (moments, axes) = mp.principal();
    let c = moments[2];
    let along: f64 = (0..3)
        .filter(|k| moments[*k] >= c * (1.0 - 1e-9))
        .map(|k| axes.column(k).dot(omega).powi(2))
        .sum::<f64>()
        .sqrt();
    let across = (omega.norm_squared() - along * along).max(0.0).sqrt();
    across.atan2(along).to_degrees()
}

/// How a scenario's target turns: the rotation law, the initial `Ω` (T axes, rad/s) and the
/// frame of its landing sites (centre of mass and pole).
pub(crate) struct TargetFrame {
    pub spin: TargetSpin,
    pub omega: Vec3,
    pub sites: SiteFrame,
}

/// Reads `target.spin`, `angular_velocity` or `spin_rate`, `moments` and `centre_of_mass`
/// against the target's shape, refusing a uniform spin no free body could have.
pub(crate) fn target_frame(t: &TargetSpec, target: &Target) -> Check<TargetFrame> {
    let spun;
    let t = match &target.ephemeris {
        Some(e) => {
            spun = super::ephemeris::spun(t, e)?;
            &spun
        }
        None => t,
    };
    let explicit = t.centre_of_mass.map(|c| position3("target.centre_of_mass", c)).transpose()?;
    // The shape's mass distribution, unless the scenario states another centre of mass.
    let shape = if explicit.is_some() { None } else { target.mass };
    let centre = explicit.or(shape.map(|m| m.com)).unwrap_or_else(Vec3::zeros);
    let omega = match (t.angular_velocity, t.spin_rate) {
        (Some(_), Some(_)) => return err("target.spin_rate", "give `spin_rate` or `angular_velocity`, not both"),
        (w, None) => rate3("target.angular_velocity", w.unwrap_or([0.0; 3]))?,
        (None, Some(rate)) => {
            let rate = rate3("target.spin_rate", [rate, 0.0, 0.0])?.x;
            let Some(mp) = shape else {
                return err(
                    "target.spin_rate",
                    "needs the shape's inertia (a body, mesh or closed SDF without `centre_of_mass`): give `angular_velocity` instead",
                );
            };
            rate * major_axis(&mp, &Vec3::z())
        }
    };
    if shape.is_none() && explicit.is_none() && target.size.is_some() && omega != Vec3::zeros() {
        return err(
            "target.centre_of_mass",
            "is needed: the target's surface does not close inside its grid, so its centre of mass (the point it turns about) cannot be computed (m, the shape's coordinates)",
        );
    }
    let (spin, pole) = match t.spin {
        SpinKind::Uniform => {
            if let Some(mp) = shape
                && omega != Vec3::zeros()
            {
                let off = spin_axis_offset_deg(&mp, &omega);
                if off > MAX_SPIN_AXIS_OFFSET_DEG {
                    let a = major_axis(&mp, &omega);
                    return err(
                        "target.angular_velocity",
                        format!(
                            "is {off:.2}° off the target's axis of major inertia [{:.4}, {:.4}, {:.4}] (the shape at uniform density, about its centre of mass [{:.4e}, {:.4e}, {:.4e}] m); a free body turns uniformly only about a principal axis (within {MAX_SPIN_AXIS_OFFSET_DEG}° here): spin about that axis (`spin_rate = {:e}`), set `spin = \"torque_free\"` for a tumbling target, or state the mass distribution with `centre_of_mass`",
                            a.x,
                            a.y,
                            a.z,
                            mp.com.x,
                            mp.com.y,
                            mp.com.z,
                            omega.norm()
                        ),
                    );
                }
            }
            let pole =
                if omega != Vec3::zeros() { omega } else { shape.map_or(Vec3::z(), |m| major_axis(&m, &Vec3::z())) };
            (TargetSpin::Uniform, pole)
        }
        SpinKind::TorqueFree => {
            let mp = match (t.moments, shape) {
                (Some(m), _) => {
                    let mp = MassProperties::new(1.0, Mat3::from_diagonal(&Vec3::from(m)));
                    if m.iter().any(|x| !(x.is_finite() && *x > 0.0)) || mp.validate().is_err() {
                        return err(
                            "target.moments",
                            format!("must be positive and satisfy the triangle inequality, got {m:?}"),
                        );
                    }
                    mp
                }
                (None, Some(mp)) => mp,
                (None, None) => {
                    return err(
                        "target.moments",
                        "is required by spin = \"torque_free\" here (a plane, or a stated `centre_of_mass`): principal moments [A, B, C] along T's axes",
                    );
                }
            };
            let inertia_inv = mp.inertia.try_inverse().unwrap_or_else(Mat3::identity);
            (TargetSpin::TorqueFree { inertia: mp.inertia, inertia_inv }, major_axis(&mp, &Vec3::z()))
        }
    };
    Ok(TargetFrame { spin, omega, sites: SiteFrame::new(centre, &pole) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_near(a: f64, b: f64, eps: f64) {
        assert!((a - b).abs() <= eps, "{a} vs {b}");
    }

    #[test]
    fn sites_are_measured_about_the_centre_and_the_pole() {
        let f = SiteFrame::new(Vec3::new(10.0, 0.0, 0.0), &Vec3::new(0.0, 0.0, 2.0));
        let (lat, lon) = f.lat_lon(&Vec3::new(10.0, 5.0, 5.0));
        assert_near(lat, 45.0, 1e-12);
        assert_near(lon, 90.0, 1e-12);
        // A pole along x: longitude 0 lies along y.
        let f = SiteFrame::new(Vec3::zeros(), &Vec3::x());
        assert_near(f.lat_lon(&Vec3::new(3.0, 0.0, 0.0)).0, 90.0, 1e-12);
        assert_near(f.lat_lon(&Vec3::new(0.0, 1.0, 0.0)).1, 0.0, 1e-12);
        // `direction` is `lat_lon`'s inverse.
        let f = SiteFrame::new(Vec3::new(1.0, 2.0, 3.0), &Vec3::new(0.3, -0.2, 0.9));
        let (lat, lon) = f.lat_lon(&(f.centre + 7.0 * f.direction(0.4, -2.0)));
        assert_near(lat.to_radians(), 0.4, 1e-12);
        assert_near(lon.to_radians(), -2.0, 1e-12);
    }

    #[test]
    fn the_spin_axis_offset_is_the_angle_to_the_major_axis() {
        // Principal axes rotated 30° about x: the major axis (moment 3) leaves z by 30°.
        let r = tumble_math::UnitQuat::from_axis_angle(&Vec3::x_axis(), 30f64.to_radians()).to_rotation_matrix();
        let mp = MassProperties::new(1.0, r * Mat3::from_diagonal(&Vec3::new(1.0, 2.0, 3.0)) * r.transpose());
        assert_near(spin_axis_offset_deg(&mp, &Vec3::z()), 30.0, 1e-9);
        assert_near(spin_axis_offset_deg(&mp, &(r * Vec3::z() * -4.0)), 0.0, 1e-6);
        let a = major_axis(&mp, &Vec3::z());
        assert_near((a - r * Vec3::z()).norm(), 0.0, 1e-12);
        // Two equal largest moments: any axis in their plane is major.
        let mp = MassProperties::new(1.0, Mat3::from_diagonal(&Vec3::new(1.0, 3.0, 3.0)));
        assert_near(spin_axis_offset_deg(&mp, &Vec3::new(0.0, 1.0, 1.0)), 0.0, 1e-9);
        assert_near(spin_axis_offset_deg(&mp, &Vec3::x()), 90.0, 1e-9);
    }
}
