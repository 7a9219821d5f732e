//! The target's surface for the lander kernels (`surface.wgsl`): tumble-geometry's plane,
//! sampled grid (a mesh's with its exact near-surface refinement), fBm terrain with a noise or
//! latitude–longitude region mask, and boulder fields, read by downcasting and packed into a
//! run's model record and the shared `grid` buffer (the grid's samples and refinement, then the
//! boulders, then the region grid).

use std::any::Any;
use tumble_geometry::noise::Fbm;
use tumble_geometry::sdf::{BoulderField, GridSdf, HalfSpace, Region, RegionGrid, Sdf, Terrain};

/// Numbers per face of a mesh grid's refinement (`FACE_LEN` of surface.wgsl) and the deepest
/// search tree the kernel's stack holds (`MAX_DEPTH`).
pub(crate) const FACE_LEN: usize = 30;
pub(crate) const MAX_DEPTH: usize = 40;

/// Numbers per boulder and per size class of a boulder field (`BOULDER_LEN`, `LEVEL_LEN` of
/// surface.wgsl).
pub(crate) const BOULDER_LEN: usize = 16;
pub(crate) const LEVEL_LEN: usize = 7;

/// The surface a kernel evaluates: the base (plane or grid), terrain on it and boulders.
pub(crate) struct SurfaceParts<'a> {
    pub(crate) plane: Option<&'a HalfSpace>,
    pub(crate) grid: Option<&'a GridSdf>,
    pub(crate) terrain: Option<&'a Terrain>,
    pub(crate) boulders: Option<&'a BoulderField>,
}

/// The parts of `sdf`, or why the kernels cannot evaluate it.
pub(crate) fn surface_parts(sdf: &dyn Sdf) -> Result<SurfaceParts<'_>, String> {
    let (boulders, sdf) = match (sdf as &dyn Any).downcast_ref::<BoulderField>() {
        Some(b) => (Some(b), b.ground.as_ref()),
        None => (None, sdf),
    };
    // The kernel finds each boulder's closest point with its semi-axes in decreasing order, as
    // `place_boulders` draws them.
    if boulders.is_some_and(|f| {
        f.boulders().iter().any(|b| !(b.semi_axes.x >= b.semi_axes.y && b.semi_axes.y >= b.semi_axes.z))
    }) {
        return Err("a boulder field with semi-axes not in decreasing order is not implemented on the GPU path".into());
    }
    let any = sdf as &dyn Any;
    let (base, terrain) = match any.downcast_ref::<Terrain>() {
        Some(t) => (t.base.as_ref(), Some(t)),
        None => (sdf, None),
    };
    if let Some(t) = terrain {
        region_parts(&t.region)?;
    }
    let base = base as &dyn Any;
    if let Some(p) = base.downcast_ref::<HalfSpace>() {
        return Ok(SurfaceParts { plane: Some(p), grid: None, terrain, boulders });
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
            Ok(SurfaceParts { plane: None, grid: Some(g), terrain, boulders })
        }
        None => Err("the target's surface is not a plane or a sampled grid with fBm terrain and boulders on them, the surfaces the GPU path implements".into()),
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
    let (boulders_at, region_at) = shared_offsets(parts);
    m[110] = boulders_at.map_or(-1.0, |a| a as f64);
    m[111] = region_at.map_or(-1.0, |a| a as f64);
    Ok(())
}

/// Where in the shared `grid` buffer the boulder field and the region grid start.
fn shared_offsets(parts: &SurfaceParts) -> (Option<usize>, Option<usize>) {
    let mut len = parts.grid.map_or(0, grid_len);
    let boulders = parts.boulders.map(|b| {
        let at = len;
        len += boulders_len(b);
        at
    });
    (boulders, region_grid(parts).map(|_| len))
}

fn region_grid<'a>(parts: &SurfaceParts<'a>) -> Option<&'a RegionGrid> {
    match parts.terrain.map(|t| &t.region) {
        Some(Region::Grid(g)) => Some(g),
        _ => None,
    }
}

/// The shared `grid` buffer: the grid's samples and refinement ([`pack_grid`]), the boulder
/// field and the region grid, as surface.wgsl reads them.
pub(crate) fn pack_shared(parts: &SurfaceParts) -> Vec<f64> {
    let mut out = parts.grid.map(pack_grid).unwrap_or_default();
    if let Some(b) = parts.boulders {
        pack_boulders(&mut out, b);
    }
    if let Some(g) = region_grid(parts) {
        let (rows, cols, values) = g.table();
        out.extend(g.centre.iter());
        out.extend(g.axes.transpose().iter());
        out.extend([rows as f64, cols as f64]);
        out.extend(values);
    }
    out
}

fn boulders_len(f: &BoulderField) -> usize {
    let levels: usize = f.levels().map(|l| LEVEL_LEN + 3 * l.keys.len() + l.starts.len() + l.items.len()).sum();
    2 + BOULDER_LEN * f.boulders().len() + levels
}

/// Appends the boulder field (see `boulder_field` in surface.wgsl; offsets absolute in `out`).
fn pack_boulders(out: &mut Vec<f64>, f: &BoulderField) {
    let at = out.len();
    let levels: Vec<_> = f.levels().collect();
    out.extend([levels.len() as f64, f.boulders().len() as f64]);
    for b in f.boulders() {
        out.extend(b.centre.iter().chain(b.axes.iter()).chain(b.semi_axes.iter()));
        out.push(b.blend);
    }
    let mut tables = at + 2 + BOULDER_LEN * f.boulders().len() + LEVEL_LEN * levels.len();
    for l in &levels {
        let (keys, starts) = (tables, tables + 3 * l.keys.len());
        let items = starts + l.starts.len();
        out.extend([l.cell, l.height, l.blend, l.keys.len() as f64, keys as f64, starts as f64, items as f64]);
        tables = items + l.items.len();
    }
    for l in &levels {
        out.extend(l.keys.iter().flat_map(|k| k.map(|c| c as f64)));
        out.extend(l.starts.iter().map(|&s| s as f64));
        out.extend(l.items.iter().map(|&i| i as f64));
    }
    debug_assert_eq!(out.len() - at, boulders_len(f));
}

fn grid_len(g: &GridSdf) -> usize {
    g.values.len()
        + g.refinement.as_ref().map_or(0, |r| {
            let parts = r.distance().parts();
            r.nearest().len() + 2 + FACE_LEN * parts.triangles.len() + 8 * parts.nodes.len() + parts.order.len()
        })
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
        // The kernel reads the grid itself (`region_grid` of surface.wgsl); the noise is unused.
        Region::Grid(_) => Ok(region_parts(&Region::Uniform)?),
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
    // A binary search per size class and a boulder or two near the ground, each some 60
    // bisections.
    let boulders = parts
        .boulders
        .map_or(0, |b| b.levels().map(|l| 20 + (l.keys.len() as f64).log2() as usize).sum::<usize>() + 120);
    6 + terrain + refined + boulders
}
