//! The 2D trampoline as a 3D animation: the polygon extruded into a slab across the plane
//! (`z` from `−w/2` to `w/2`, `w` the polygon's radius), moving in the membrane's `x`–`y` plane;
//! the membrane's polyline at each sample extruded to twice that width.

use super::{Trampoline, TrampolineRun, V2};
use crate::anim::{Animation, Mesh};
use tumble_contact::membrane::planar::{PlanarMotion, PlanarWorkspace};
use tumble_math::{UnitQuat, Vec3};

/// The slab of `polygon` of width `w`: its side faces, and its end caps fanned from the first
/// vertex (exact for a convex polygon; a concave one's caps are drawn approximately).
fn slab(polygon: &[V2], w: f64) -> Mesh {
    let n = polygon.len() as u32;
    let verts: Vec<Vec3> =
        polygon.iter().flat_map(|v| [Vec3::new(v.x, v.y, -0.5 * w), Vec3::new(v.x, v.y, 0.5 * w)]).collect();
    let mut faces = Vec::new();
    for i in 0..n {
        let j = (i + 1) % n;
        faces.push([2 * i, 2 * j, 2 * j + 1]);
        faces.push([2 * i, 2 * j + 1, 2 * i + 1]);
    }
    for i in 1..n - 1 {
        faces.push([0, 2 * (i + 1), 2 * i]);
        faces.push([1, 2 * i + 1, 2 * (i + 1) + 1]);
    }
    Mesh::new(&verts, &faces, [0.55, 0.45, 0.35, 1.0])
}

/// The membrane's strip through the points `path`, width `w`.
fn strip(path: &[V2], w: f64) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let v: Vec<Vec3> =
        path.iter().flat_map(|p| [Vec3::new(p.x, p.y, -0.5 * w), Vec3::new(p.x, p.y, 0.5 * w)]).collect();
    let t = (0..path.len().saturating_sub(1) as u32)
        .flat_map(|i| [[2 * i, 2 * i + 2, 2 * i + 3], [2 * i, 2 * i + 3, 2 * i + 1]]);
    (v, t.collect())
}

/// The run as an animation.
pub fn animation(m: &Trampoline, run: &TrampolineRun) -> Animation {
    let radius = m.polygon.iter().map(|v| v.norm()).fold(0.0, f64::max);
    let mut anim = Animation::new();
    anim.body("body", vec![slab(&m.polygon, radius)]);
    let surface = anim.surface("membrane", crate::membrane_drop::MEMBRANE_COLOR);
    let mut ws = PlanarWorkspace::default();
    let mut path = Vec::new();
    for s in &run.samples {
        let x = &s.state;
        let p = Vec3::new(x[0], x[1], 0.0);
        anim.frame(s.t, &[(p, UnitQuat::from_axis_angle(&Vec3::z_axis(), x[2]))]);
        let motion =
            PlanarMotion { vertices: &m.polygon, angle: x[2], p: V2::new(x[0], x[1]), v: V2::zeros(), omega: 0.0 };
        let c = m.membrane.evaluate(&motion, &mut ws);
        path.clear();
        if c.in_contact {
            path.extend(ws.path.iter().map(|&i| ws.points()[i]));
        } else {
            // The suspension points lead the workspace's points whether or not the body touches.
            path.extend_from_slice(&ws.points()[..2]);
        }
        let (v, t) = strip(&path, 2.0 * radius);
        anim.shape(surface, &v, &t);
    }
    anim
}
