//! The target's surface for the lander kernels (`surface.wgsl`): tumble-geometry's plane,
//! sampled grid (a mesh's with its exact near-surface refinement) and fBm terrain read by
//! downcasting and packed into a run's model record and the shared `grid` buffer.

use std::any::Any;
use tumble_geometry::noise::Fbm;
use tumble_geometry::sdf::{BoulderField, GridSdf, HalfSpace, Region, Sdf, Terrain};

/// Numbers per face of a mesh grid's refinement (`FACE_LEN` of surface.wgsl) and the deepest
/// search tree the kernel's stack holds (`MAX_DEPTH`).
pub(crate) const FACE_LEN: usize = 30;
pub(crate) const MAX_DEPTH: usize = 40;

/// The surface a kernel evaluates: the base (plane or grid) and terrain on it.
pub(crate) struct SurfaceParts<'a> {
    pub(crate) plane: Option<&'a HalfSpace>,
    pub(crate) grid: Option<&'a GridSdf>,
    pub(crate) terrain: Option<&'a Terrain>,
}

/// The parts of `sdf`, or why the kernels cannot evaluate it.
pub(crate) fn surface_parts(sdf: &dyn Sdf) -> Result<SurfaceParts<'_>, String> {
    let any = sdf as &dyn Any;
    if any.is::<BoulderField>() {
        return Err("boulder fields (`target.terrain.boulders`) are not implemented on the GPU path".into());
    }
    let (base, terrain) = match any.downcast_ref::<Terrain>() {
        Some(t) => (t.base.as_ref(), Some(t)),
        None => (sdf, None),
    };
    if let Some(t) = terrain {
        region_parts(&t.region)?;
    }
    let base = base as &dyn Any;
    if let Some(p) = base.downcast_ref::<HalfSpace>() {
        return Ok(SurfaceParts { plane: Some(p), grid: None, terrain });
    }
    match base.downcast_ref::<GridSdf>() {
        Some(g) => {
            if let Some(r) = &g.refinement
                && r.distance().depth() > MAX_DEPTH
            {
                return Err(format!(
                    "the target mesh's search tree is deeper than the {MAX_DEPTH} levels the GPU kernel's stack holds"
                ));
            }
            Ok(SurfaceParts { plane: None, grid: Some(g), terrain })
        }
        None => Err("the target's surface is not a plane, a sampled grid or fBm terrain on them, the surfaces the GPU path implements".into()),
    }
}

/// Writes the surface's fields of a run's model (`M_SURF`, `M_TERRAIN`, `M_TERRAIN_ORIGIN` of
/// lander.wgsl).
pub(crate) fn pack_surface(m: &mut [f64], parts: &SurfaceParts) -> Result<(), String> {
    if let Some(h) = parts.plane {
        m[37..40].copy_from_slice(h.point.as_slice());
        m[40..43].copy_from_slice(h.normal.as_slice());
    }
    if let Some(grid) = parts.grid {
        m[36] = if grid.refinement.is_some() { 2.0 } else { 1.0 };
        m[37..40].copy_from_slice(grid.origin.as_slice());
        m[40] = grid.spacing;
        for a in 0..3 {
            m[41 + a] = grid.dims[a] as f64;
        }
    }
    if let Some(t) = parts.terrain {
        m[45] = 1.0;
        m[28..31].copy_from_slice(t.origin.as_slice());
        let (region, threshold, width) = region_parts(&t.region)?;
        for (k, f) in [t.sandy, t.rocky, region].iter().enumerate() {
            fbm_parts(m, 46 + 7 * k, f);
        }
        m[67] = threshold;
        m[68] = width;
    }
    Ok(())
}

fn fbm_parts(m: &mut [f64], at: usize, f: &Fbm) {
    // The seed as two exact 32-bit halves.
    m[at] = (f.seed & 0xFFFF_FFFF) as f64;
    m[at + 1] = (f.seed >> 32) as f64;
    m[at + 2..at + 7].copy_from_slice(&[f.octaves as f64, f.lacunarity, f.gain, f.amplitude, f.frequency]);
}

/// The region field, threshold and width the kernel blends with: a noise region as it is; one
/// terrain type everywhere as a zero field below its threshold (weight 0).
fn region_parts(region: &Region) -> Result<(Fbm, f64, f64), String> {
    match region {
        Region::Noise { field, threshold, width } => Ok((*field, *threshold, *width)),
        Region::Uniform => {
            Ok((Fbm { seed: 0, octaves: 1, lacunarity: 2.0, gain: 0.5, amplitude: 0.0, frequency: 1.0 }, 1.0, 1.0))
        }
        Region::Grid(_) => Err("the GPU path implements noise region masks, not latitude–longitude grids".into()),
    }
}

/// The shared `grid` buffer: the samples, then a mesh grid's refinement as `refined` of
/// surface.wgsl reads it (each node's closest face, the face and node counts, the faces with
/// their pseudonormals, the tree's nodes, the faces in leaf order).
pub(crate) fn pack_grid(g: &GridSdf) -> Vec<f64> {
    let mut out = g.values.clone();
    let Some(r) = &g.refinement else { return out };
    let parts = r.distance().parts();
    out.reserve(out.len() + 2 + FACE_LEN * parts.triangles.len() + 8 * parts.nodes.len() + parts.order.len());
    out.extend(r.nearest().iter().map(|&f| f as f64));
    out.extend([parts.triangles.len() as f64, parts.nodes.len() as f64]);
    for f in 0..parts.triangles.len() {
        let vectors = parts.triangles[f].iter().chain([&parts.face_normals[f]]);
        let vectors = vectors.chain(&parts.edge_normals[f]).chain(&parts.vertex_normals[f]);
        out.extend(vectors.flat_map(|v| [v.x, v.y, v.z]));
    }
    for n in parts.nodes {
        out.extend([n.lo.x, n.lo.y, n.lo.z, n.hi.x, n.hi.y, n.hi.z, n.first as f64, n.count as f64]);
    }
    out.extend(parts.order.iter().map(|&f| f as f64));
    out
}

/// Loop iterations of one surface query, an estimate: the terrain's octaves (9 a noise), and a
/// refined query's eight seed faces and about three iterations per level of the tree.
pub(crate) fn query_loops(sdf: &dyn Sdf) -> usize {
    let octaves = |f: &Fbm| f.octaves as usize * 9;
    let Ok(parts) = surface_parts(sdf) else { return 6 };
    let terrain = parts
        .terrain
        .map_or(0, |t| octaves(&t.sandy) + octaves(&t.rocky) + region_parts(&t.region).map_or(0, |r| octaves(&r.0)));
    let refined = parts.grid.and_then(|g| g.refinement.as_ref()).map_or(0, |r| 8 + 3 * r.distance().depth());
    6 + terrain + refined
}
