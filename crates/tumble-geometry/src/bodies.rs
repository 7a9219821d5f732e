//! Procedural small bodies, so that bundled scenarios need no external shape data: smooth unions
//! of ellipsoids with fBm terrain (sandy and rocky regions), and their closed meshes for gravity
//! and visualisation. All sizes scale with the body's overall length `L` (m).

use crate::TriMesh;
use crate::noise::Fbm;
use crate::sdf::{Ellipsoid, GridError, GridSdf, Placed, Region, Sdf, SmoothUnion, Sphere, Terrain, mesh_from_grid};
use tumble_math::{Pose, UnitQuat, Vec3};

/// The procedural shapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    /// A two-lobed, 67P-like comet: a large and a small ellipsoid joined by a smooth neck.
    BilobedComet,
    /// A pear-shaped asteroid: an ellipsoid with a smaller sphere blended onto one end.
    PearAsteroid,
}

impl std::str::FromStr for BodyKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "comet" | "bilobed_comet" => Ok(BodyKind::BilobedComet),
            "pear" | "pear_asteroid" => Ok(BodyKind::PearAsteroid),
            _ => Err(format!("unknown procedural body `{s}`: use `comet` or `pear`")),
        }
    }
}

fn at(sdf: impl Sdf + 'static, x: f64) -> Box<dyn Sdf> {
    Box::new(Placed { sdf, X_WB: Pose::new(Vec3::new(x, 0.0, 0.0), UnitQuat::identity()) })
}

/// The signed distance field of a procedural body of overall length `length` (m) with terrain
/// from `seed` (`terrain = false`: the smooth shape alone).
pub fn body_sdf(kind: BodyKind, length: f64, seed: u64, terrain: bool) -> Terrain {
    let l = length;
    let base = match kind {
        BodyKind::BilobedComet => SmoothUnion {
            parts: vec![
                at(Ellipsoid { semi_axes: Vec3::new(0.30, 0.27, 0.24) * l }, -0.19 * l),
                at(Ellipsoid { semi_axes: Vec3::new(0.21, 0.18, 0.17) * l }, 0.29 * l),
            ],
            k: 0.06 * l,
        },
        BodyKind::PearAsteroid => SmoothUnion {
            parts: vec![
                at(Ellipsoid { semi_axes: Vec3::new(0.33, 0.27, 0.25) * l }, -0.17 * l),
                at(Sphere { center: Vec3::zeros(), radius: 0.18 * l }, 0.32 * l),
            ],
            k: 0.12 * l,
        },
    };
    let a = if terrain { 1.0 } else { 0.0 };
    let fbm = |s: u64, amplitude: f64, features: f64| Fbm {
        seed: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(s),
        octaves: 5,
        lacunarity: 2.0,
        gain: 0.5,
        amplitude: a * amplitude * l,
        frequency: 1.0 / (features * l),
    };
    Terrain {
        base: Box::new(base),
        // Sandy: gentle undulations of 0.2 % of L over features of L/8; rocky: 0.8 % of L over
        // L/16. The gradient of the heights stays below about 0.3, so the field remains a good
        // distance estimate for contact.
        sandy: fbm(1, 0.002, 0.125),
        rocky: fbm(2, 0.008, 0.0625),
        // The region mask only needs its large scales: two octaves.
        region: Region::Noise {
            field: Fbm { amplitude: 1.0, octaves: 2, ..fbm(3, 1.0, 0.5) },
            threshold: 0.0,
            width: 0.2,
        },
        origin: Vec3::zeros(),
    }
}

/// Half extents of the box that holds every procedural body with its terrain, in units of its
/// length: the lobes span ±0.50 L along x and ±0.35 L across, terrain adds ≤ 1.1 %.
const HALF_EXTENT: [f64; 3] = [0.52, 0.37, 0.37];

/// The body's field sampled on a grid with `cells` cells along its length, over the box that
/// holds it plus `padding` (m) on every side.
pub fn body_grid(
    kind: BodyKind,
    length: f64,
    seed: u64,
    terrain: bool,
    cells: usize,
    padding: f64,
) -> Result<GridSdf, GridError> {
    if !(length.is_finite() && length > 0.0 && padding.is_finite() && padding >= 0.0) {
        return Err(GridError::Layout(format!(
            "a body needs a positive length and padding >= 0 (m), got {length} and {padding}"
        )));
    }
    let sdf = body_sdf(kind, length, seed, terrain);
    let half = Vec3::from(HALF_EXTENT) * length + Vec3::repeat(padding);
    GridSdf::covering(-half, half, length / cells.max(2) as f64, |p| sdf.distance(p))
}

/// A closed, outward mesh of the body, sampled with `cells` cells along its length.
pub fn body_mesh(kind: BodyKind, length: f64, seed: u64, terrain: bool, cells: usize) -> Result<TriMesh, GridError> {
    // One cell of margin keeps the surface inside the sampled box.
    Ok(mesh_from_grid(&body_grid(kind, length, seed, terrain, cells, length / cells.max(2) as f64)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn procedural_bodies_are_closed_single_bodies() {
        for kind in [BodyKind::BilobedComet, BodyKind::PearAsteroid] {
            let m = body_mesh(kind, 4000.0, 7, true, 48).expect("layout");
            let r = m.report();
            assert!(r.closed && r.outward && r.euler_characteristic == 2, "{kind:?}: {r:?}");
            let (lo, hi) = m.bounds().expect("vertices");
            // Overall length L, give or take the terrain (≤ 1 % of L).
            assert!((hi.x - lo.x - 4000.0).abs() < 60.0, "{kind:?} length {}", hi.x - lo.x);
        }
    }

    #[test]
    fn comet_neck_is_inside_and_its_waist_outside() {
        let c = body_sdf(BodyKind::BilobedComet, 1000.0, 1, false);
        // The neck joins the lobes near x = 0.12 L; the waist above it is concave.
        let neck = Vec3::new(120.0, 0.0, 0.0);
        assert!(c.distance(&neck) < -20.0, "neck inside: {}", c.distance(&neck));
        let above_neck = Vec3::new(120.0, 0.0, 190.0);
        assert!(c.distance(&above_neck) > 0.0, "waist outside: {}", c.distance(&above_neck));
        // Terrain moves the surface by at most its bound.
        let t = body_sdf(BodyKind::BilobedComet, 1000.0, 1, true);
        let bound = t.height_bound();
        for p in [neck, above_neck, Vec3::new(-490.0, 0.0, 0.0)] {
            assert!((t.distance(&p) - c.distance(&p)).abs() <= bound);
        }
    }

    #[test]
    fn names_parse() {
        assert_eq!("comet".parse::<BodyKind>(), Ok(BodyKind::BilobedComet));
        assert!("rock".parse::<BodyKind>().is_err());
    }
}
