//! The bounding-volume walk of one pair of bodies: node pairs visited depth first, overlapping
//! leaves' primitives filtered by their bounding spheres, candidate tasks out. Placed volumes
//! come from a [`Placer`]: computed as needed (parallel walkers) or cached in the objects for
//! one evaluation (one thread).

use super::{Object, Task};
use crate::interference::contact::Frame;
use crate::interference::model::Model;
use crate::interference::testers::{self, Dispatch};
use tumble_geometry::bv::Bv;
use tumble_math::Vec3;

/// Frontier size for a parallel traversal.
pub(super) const FRONTIER: usize = 32;

/// What one step of the walk found for a node pair.
// A stack temporary of the walk's loop: boxing the volumes would allocate per visit.
#[allow(clippy::large_enum_variant)]
pub(super) enum Visit {
    /// The volumes do not overlap.
    Apart,
    /// Two overlapping leaves, with their placed volumes.
    Leaves(Bv, Bv),
    /// Descend into A's children (the larger volume, or B is a leaf).
    SplitA,
    /// Descend into B's children.
    SplitB,
}

/// A traversal of one pair of bodies, read-only: its models, poses and the task it fills in.
pub(super) struct Walk<'a> {
    pub(super) ma: &'a Model,
    pub(super) mb: &'a Model,
    pub(super) Xa: Frame,
    pub(super) Xb: Frame,
    pub(super) task: Task,
    pub(super) grow: f64,
    pub(super) margin: f64,
}

/// A walker's buffers, reused between evaluations.
#[derive(Default)]
pub(super) struct WalkBuf {
    stack: Vec<(u32, u32)>,
    /// The primitives of a leaf of B that reach into A's leaf volume: index, W centre, radius.
    near_b: Vec<(u32, Vec3, f64)>,
    pub(super) tasks: Vec<Task>,
}

/// Where the walk gets placed volumes and primitive centres: computed as needed (parallel
/// walkers), or cached per evaluation in the objects (one thread).
pub(super) trait Placer {
    /// Node `node` of A (`side_a`) or B: its volume in W grown by half the margin, with its
    /// bounding sphere.
    fn node(&mut self, side_a: bool, node: u32) -> Option<(Bv, Vec3, f64)>;
    /// Primitive `prim`'s bounding-sphere centre in W.
    fn center(&mut self, side_a: bool, prim: u32) -> Vec3;
}

/// Placement without a cache.
pub(super) struct Fresh<'w, 'a>(pub(super) &'w Walk<'a>);

impl Placer for Fresh<'_, '_> {
    fn node(&mut self, side_a: bool, node: u32) -> Option<(Bv, Vec3, f64)> {
        let w = self.0;
        let (m, X) = if side_a { (w.ma, &w.Xa) } else { (w.mb, &w.Xb) };
        let bv = m.nodes[node as usize].bv?.place(&X.R, &X.p).inflated(w.grow);
        let (c, r) = bv.bounding_sphere();
        Some((bv, c, r))
    }

    fn center(&mut self, side_a: bool, prim: u32) -> Vec3 {
        let w = self.0;
        let (m, X) = if side_a { (w.ma, &w.Xa) } else { (w.mb, &w.Xb) };
        X.point(&m.prims[prim as usize].bound.0)
    }
}

/// Placement cached in the objects, once per evaluation (epoch).
pub(super) struct Cached<'o> {
    pub(super) objects: &'o mut [Object],
    /// (object, body) of each side.
    pub(super) a: (usize, usize),
    pub(super) b: (usize, usize),
    pub(super) epoch: u64,
    pub(super) grow: f64,
}

impl Placer for Cached<'_> {
    fn node(&mut self, side_a: bool, node: u32) -> Option<(Bv, Vec3, f64)> {
        let (o, body) = if side_a { self.a } else { self.b };
        let obj = &mut self.objects[o];
        let slot = &mut obj.placed[node as usize];
        if slot.0 != self.epoch {
            let local = obj.model.nodes[node as usize].bv?;
            let X = &obj.bodies[body].X_WB;
            let bv = local.place(&X.R, &X.p).inflated(self.grow);
            let (c, r) = bv.bounding_sphere();
            *slot = (self.epoch, bv, c, r);
        }
        Some((slot.1, slot.2, slot.3))
    }

    fn center(&mut self, side_a: bool, prim: u32) -> Vec3 {
        let (o, body) = if side_a { self.a } else { self.b };
        let obj = &mut self.objects[o];
        let slot = &mut obj.centers[prim as usize];
        if slot.0 != self.epoch {
            *slot = (self.epoch, obj.bodies[body].X_WB.point(&obj.model.prims[prim as usize].bound.0));
        }
        slot.1
    }
}

impl Walk<'_> {
    pub(super) fn visit(&self, na: u32, nb: u32, place: &mut impl Placer) -> Visit {
        let (Some((va, ca, ra)), Some((vb, cb, rb))) = (place.node(true, na), place.node(false, nb)) else {
            return Visit::Apart;
        };
        // Bounding spheres first: a cheap reject before the separating axes.
        let reach = ra + rb;
        if reach.is_finite() && (ca - cb).norm_squared() > reach * reach || !va.overlaps(&vb) {
            return Visit::Apart;
        }
        let (leaf_a, leaf_b) =
            (self.ma.nodes[na as usize].children.is_empty(), self.mb.nodes[nb as usize].children.is_empty());
        if leaf_a && leaf_b {
            Visit::Leaves(va, vb)
        } else if !leaf_a && (leaf_b || ra >= rb) {
            Visit::SplitA
        } else {
            Visit::SplitB
        }
    }

    /// Depth-first from `start`, children in order; candidate pairs into `buf.tasks`.
    pub(super) fn run(&self, start: (u32, u32), buf: &mut WalkBuf, place: &mut impl Placer) {
        buf.stack.clear();
        buf.stack.push(start);
        while let Some((na, nb)) = buf.stack.pop() {
            match self.visit(na, nb, place) {
                Visit::Apart => {}
                Visit::Leaves(va, vb) => self.leaves(na, nb, &va, &vb, buf, place),
                Visit::SplitA => buf.stack.extend(self.ma.nodes[na as usize].children.iter().rev().map(|&c| (c, nb))),
                Visit::SplitB => buf.stack.extend(self.mb.nodes[nb as usize].children.iter().rev().map(|&c| (na, c))),
            }
        }
    }

    /// The primitive pairs of two overlapping leaves whose bounding spheres come within the
    /// margin. Each primitive's sphere is checked against the other leaf's volume first:
    /// leaves that overlap partly skip most pairs.
    fn leaves(&self, na: u32, nb: u32, va: &Bv, vb: &Bv, buf: &mut WalkBuf, place: &mut impl Placer) {
        let reaches = |bv: &Bv, c: &Vec3, r: f64| !r.is_finite() || bv.reaches(c, r + self.grow);
        buf.near_b.clear();
        for &pb in &self.mb.nodes[nb as usize].prims {
            let r = self.mb.prims[pb as usize].bound.1;
            let c = place.center(false, pb);
            if reaches(va, &c, r) {
                buf.near_b.push((pb, c, r));
            }
        }
        if buf.near_b.is_empty() {
            return;
        }
        for &pa in &self.ma.nodes[na as usize].prims {
            let da = &self.ma.prims[pa as usize];
            let (ca, ra) = (place.center(true, pa), da.bound.1);
            if !reaches(vb, &ca, ra) {
                continue;
            }
            for &(pb, cb, rb) in &buf.near_b {
                let reach = ra + rb + self.margin;
                if reach.is_finite() && (cb - ca).norm_squared() > reach * reach {
                    continue;
                }
                let dispatch = testers::tester(da.shape.kind(), self.mb.prims[pb as usize].shape.kind());
                if !matches!(dispatch, Dispatch::None) {
                    buf.tasks.push(Task { prim_a: pa, prim_b: pb, dispatch, ..self.task });
                }
            }
        }
    }
}
