//! `[target.terrain]`: fBm heights of one or two terrain types, the mask between them and a
//! boulder field, put on any target's surface (procedural body, mesh, saved SDF, plane). The
//! models are `tumble_geometry::sdf::{Terrain, Region, BoulderField}`; docs/lander.md, "Terrain
//! and boulders", gives their equations.

use super::frame::SiteFrame;
use crate::scenario::check::{Check, err, finite3, positive};
use crate::scenario::lander::{BoulderGround, BouldersSpec, FbmSpec, MaskSpec, TerrainSpec};
use tumble_geometry::TriMesh;
use tumble_geometry::noise::Fbm;
use tumble_geometry::sdf::{BoulderField, BoulderSpec, Region, RegionGrid, Sdf, Terrain, place_boulders};
use tumble_math::Vec3;

/// Most octaves one fBm may sum (a 4 km body to 0.1 m takes 16 at lacunarity 2).
pub const MAX_OCTAVES: u32 = 24;

/// Terrain heights: sandy, rocky, their region and the point they are measured from.
pub(super) type Heights = (Fbm, Fbm, Region, Vec3);

/// Where boulders may be placed: on a mesh near the ground, or on a plane.
pub(super) enum Placement<'a> {
    /// A mesh of the surface (the shape's, or marched from a saved field).
    Mesh(&'a TriMesh),
    /// A plane through `point` with unit `normal`.
    Plane { point: Vec3, normal: Vec3 },
}

/// The seed of part `part` of the terrain of `seed`.
fn part_seed(seed: u64, part: u64) -> u64 {
    seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(part)
}

fn fbm(key: &str, f: &FbmSpec, seed: u64) -> Check<Fbm> {
    if !(f.amplitude.is_finite() && f.amplitude >= 0.0) {
        return err(format!("{key}.amplitude"), format!("must be a finite height >= 0 (m), got {}", f.amplitude));
    }
    let wavelength = positive(&format!("{key}.wavelength"), f.wavelength, "m")?;
    octaves(&format!("{key}.octaves"), f.octaves)?;
    if !(f.lacunarity.is_finite() && f.lacunarity > 1.0 && f.lacunarity <= 16.0) {
        return err(
            format!("{key}.lacunarity"),
            format!("must be in (1, 16] (each octave's wavelength divided by it), got {}", f.lacunarity),
        );
    }
    if !(f.gain.is_finite() && f.gain > 0.0 && f.gain <= 1.0) {
        return err(
            format!("{key}.gain"),
            format!("must be in (0, 1] (each octave's amplitude times it), got {}", f.gain),
        );
    }
    Ok(Fbm {
        seed,
        octaves: f.octaves,
        lacunarity: f.lacunarity,
        gain: f.gain,
        amplitude: f.amplitude,
        frequency: 1.0 / wavelength,
    })
}

fn octaves(key: &str, n: u32) -> Check<u32> {
    if (1..=MAX_OCTAVES).contains(&n) { Ok(n) } else { err(key, format!("must be 1 to {MAX_OCTAVES}, got {n}")) }
}

/// The heights `[target.terrain]` states (measured from `origin`), or `builtin` when it states
/// none.
fn heights(
    t: &TerrainSpec,
    builtin: Option<Heights>,
    origin: Vec3,
    sites: Option<SiteFrame>,
) -> Check<Option<Heights>> {
    let k = "target.terrain";
    let (sandy, rocky) = match (&t.sandy, &t.rocky) {
        (None, None) => {
            if t.mask.is_some() {
                return err(format!("{k}.mask"), "blends `sandy` and `rocky` heights: give both tables");
            }
            return Ok(builtin);
        }
        (None, Some(_)) => return err(format!("{k}.sandy"), "is needed with `rocky` (the ground where the mask is 0)"),
        (Some(s), r) => (fbm(&format!("{k}.sandy"), s, part_seed(t.seed, 1))?, r),
    };
    let Some(rocky) = rocky else {
        if t.mask.is_some() {
            return err(
                format!("{k}.mask"),
                "blends two terrain types: add `[target.terrain.rocky]` or remove the mask",
            );
        }
        return Ok(Some((sandy, sandy, Region::Uniform, origin)));
    };
    let rocky = fbm(&format!("{k}.rocky"), rocky, part_seed(t.seed, 2))?;
    let region = match &t.mask {
        None => return err(format!("{k}.mask"), "is needed with two terrain types: `type = \"noise\"` or `\"grid\"`"),
        Some(MaskSpec::Noise { wavelength, octaves: n, threshold, width }) => {
            let wavelength = positive(&format!("{k}.mask.wavelength"), *wavelength, "m")?;
            octaves(&format!("{k}.mask.octaves"), *n)?;
            if !threshold.is_finite() {
                return err(format!("{k}.mask.threshold"), format!("must be finite, got {threshold}"));
            }
            let width = positive(&format!("{k}.mask.width"), *width, "region values")?;
            let field = Fbm {
                seed: part_seed(t.seed, 3),
                octaves: *n,
                lacunarity: 2.0,
                gain: 0.5,
                amplitude: 1.0,
                frequency: 1.0 / wavelength,
            };
            Region::Noise { field, threshold: *threshold, width }
        }
        Some(MaskSpec::Grid { values }) => {
            let Some(sites) = sites else {
                return err(
                    format!("{k}.mask"),
                    "a latitude–longitude grid needs a body (a plane has no latitudes): use `type = \"noise\"`",
                );
            };
            Region::Grid(
                RegionGrid::new(sites.centre, sites.axes, values).map_err(|e| (format!("{k}.mask.values"), e))?,
            )
        }
    };
    Ok(Some((sandy, rocky, region, origin)))
}

fn boulder_spec(b: &BouldersSpec, seed: u64, plane: bool) -> Check<BoulderSpec> {
    let k = "target.terrain.boulders";
    let alpha = positive(&format!("{k}.alpha"), b.alpha, "the size–frequency exponent")?;
    let d_min = positive(&format!("{k}.d_min"), b.d_min, "m")?;
    let d_max = positive(&format!("{k}.d_max"), b.d_max, "m")?;
    if d_max <= d_min {
        return err(format!("{k}.d_max"), format!("must exceed d_min = {d_min} m, got {d_max}"));
    }
    let density = positive(&format!("{k}.density"), b.density, "boulders per m²")?;
    let [ba, ca] = b.axis_ratios;
    if !(ba > 0.0 && ba <= 1.0 && ca > 0.0 && ca <= ba) {
        return err(
            format!("{k}.axis_ratios"),
            format!("must be [b/a, c/a] with 0 < c/a <= b/a <= 1, got {:?}", b.axis_ratios),
        );
    }
    if !(0.0..1.0).contains(&b.burial) {
        return err(format!("{k}.burial"), format!("must be a fraction of the height in [0, 1), got {}", b.burial));
    }
    let within = match (b.center, b.radius) {
        (Some(c), Some(r)) => Some((finite3(&format!("{k}.center"), c)?, positive(&format!("{k}.radius"), r, "m")?)),
        (None, None) if plane => {
            return err(
                format!("{k}.center"),
                "and `radius` are needed on a plane (an infinite ground): the disc to strew (m)",
            );
        }
        (None, None) => None,
        (Some(_), None) => return err(format!("{k}.radius"), "is needed with `center` (m)"),
        (None, Some(_)) => return err(format!("{k}.center"), "is needed with `radius` (m, shape coordinates)"),
    };
    Ok(BoulderSpec {
        seed: part_seed(seed, 4),
        alpha,
        diameters: [d_min, d_max],
        density,
        axis_ratios: b.axis_ratios,
        burial: b.burial,
        within,
    })
}

/// A square of the plane that holds the disc `(centre, radius)`.
fn plane_patch(point: &Vec3, normal: &Vec3, centre: &Vec3, radius: f64) -> TriMesh {
    let c = centre - normal * normal.dot(&(centre - point));
    let reference = if normal.x.abs() < 0.9 { Vec3::x() } else { Vec3::y() };
    let u = (reference - normal * normal.dot(&reference)).normalize() * radius;
    let v = normal.cross(&u);
    TriMesh { vertices: vec![c - u - v, c + u - v, c + u + v, c - u + v], faces: vec![[0, 1, 2], [0, 2, 3]] }
}

/// The target's surface with the terrain of `spec` on `base`: stated heights (or the built-in
/// ones of a procedural body), then boulders. Stated heights are measured from `origin` (the
/// centre of mass); `sites` gives the latitudes of a grid mask.
pub(super) fn with_terrain(
    spec: Option<&TerrainSpec>,
    base: Box<dyn Sdf>,
    builtin: Option<Heights>,
    placement: Placement,
    (origin, sites): (Vec3, Option<SiteFrame>),
) -> Check<Box<dyn Sdf>> {
    let heights = match spec {
        Some(t) => heights(t, builtin, origin, sites)?,
        None => builtin,
    };
    let ground: Box<dyn Sdf> = match heights {
        Some((sandy, rocky, region, origin)) => Box::new(Terrain { base, sandy, rocky, region, origin }),
        None => base,
    };
    let Some((t, b)) = spec.and_then(|t| t.boulders.as_ref().map(|b| (t, b))) else { return Ok(ground) };
    let bs = boulder_spec(b, t.seed, matches!(placement, Placement::Plane { .. }))?;
    let terrain = (ground.as_ref() as &dyn std::any::Any).downcast_ref::<Terrain>();
    if b.on == BoulderGround::Rocky && !terrain.is_some_and(|t| !matches!(t.region, Region::Uniform)) {
        return err("target.terrain.boulders.on", "`rocky` needs two terrain types and a mask: use `everywhere`");
    }
    let weight = |p: &Vec3| match (b.on, terrain) {
        (BoulderGround::Rocky, Some(t)) => t.rocky_weight(p).0,
        _ => 1.0,
    };
    let patch;
    let mesh = match placement {
        Placement::Mesh(m) => m,
        Placement::Plane { point, normal } => {
            let (c, r) = bs.within.unwrap_or_default();
            patch = plane_patch(&point, &normal, &c, r);
            &patch
        }
    };
    let boulders = place_boulders(ground.as_ref(), mesh, &bs, &weight)
        .map_err(|e| ("target.terrain.boulders.density".to_string(), e))?;
    Ok(Box::new(BoulderField::new(ground, boulders)))
}
