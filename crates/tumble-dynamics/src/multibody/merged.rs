//! Fixed joints folded into their parents for the dynamics.
//!
//! A link on a fixed joint under a parent (a tool flange, a sensor, a gripper's palm, a finger
//! welded in place) moves with that parent: for forward dynamics, inverse dynamics and the mass
//! matrix it is part of the parent's rigid body. [`Merged`] is the model with every such link's
//! inertia carried into the nearest link that carries it on a moving joint (or a root), and the
//! children it had re-attached there with their placements composed — what Pinocchio's URDF
//! parser builds (its fixed joints become frames). The dynamics then pass over the links that
//! move only: a UR5's eleven links (its `world` link counted) are seven, a Kinova Jaco's
//! thirteen are seven.
//!
//! Nothing the user sees changes: the model keeps all its links (their poses, velocities,
//! Jacobians and joint wrenches are the full model's), the coordinates and rates are the same
//! (a fixed joint has none), external wrenches on a folded link are carried to the link that
//! carries it (`f_b = X_{b→k}ᵀ f_k`), and the full model's kinematics give the folded model's
//! (the same link velocities; a re-attached link's transform composed with its old parent's
//! fixed placement). Results agree with the textbook algorithms on the full model to round-off
//! (`tests/oracle.rs`).

use super::spatial::{RigidInertia, SVec, Transform};
use super::{Joint, Kinematics, Link, Multibody, Workspace};
use tumble_math::Vec3;

/// The model folded, and how its links map onto the full model's.
#[derive(Clone, Debug)]
pub(super) struct Merged {
    /// The folded model: no fixed joint below a parent.
    pub model: Multibody,
    /// For each link of the full model: the folded link that carries it, and the transform
    /// from that link's frame to its own (`None`: the link itself, kept).
    carry: Vec<(usize, Option<Transform>)>,
    /// For each folded link: its index in the full model.
    kept: Vec<usize>,
}

/// `X₁ X₂` (`x2` applied first): `X(E₁E₂, r₂ + E₂ᵀ r₁)`.
fn compose(x1: &Transform, x2: &Transform) -> Transform {
    Transform { rot: x1.rot * x2.rot, pos: x2.pos + x2.rot.tr_mul(&x1.pos) }
}

impl Merged {
    /// The full model folded; `None` when no fixed joint sits below a parent (nothing to fold)
    /// or the folded model cannot be built (a sum of masses past the model's limits).
    pub fn new(full: &Multibody) -> Option<Self> {
        if !full.links.iter().any(|l| l.joint == Joint::Fixed && l.parent.is_some()) {
            return None;
        }
        let mut links: Vec<Link> = Vec::new();
        let mut inertias: Vec<RigidInertia> = Vec::new();
        let mut carry: Vec<(usize, Option<Transform>)> = Vec::with_capacity(full.links.len());
        let mut kept = Vec::new();
        let mut folded: Vec<bool> = Vec::new();
        for (k, l) in full.links.iter().enumerate() {
            match (l.joint == Joint::Fixed, l.parent) {
                (true, Some(p)) => {
                    // A fixed joint's transform is its placement (no coordinates read).
                    let placed = full.joint_transform(k, &[]);
                    let (b, above) = carry[p];
                    let x = above.map_or(placed, |above| compose(&placed, &above));
                    inertias[b] += full.ri[k].back(&x);
                    folded[b] = true;
                    carry.push((b, Some(x)));
                }
                (_, parent) => {
                    let mut link = l.clone();
                    if let Some(p) = parent {
                        let (b, above) = carry[p];
                        link.parent = Some(b);
                        if let Some(x) = above {
                            // The joint frame in the carrying link's: `R_bJ = E_bpᵀ R_pJ`,
                            // `p_bJ = r_bp + E_bpᵀ p_pJ`.
                            let (rt, pt) = l.parent_to_joint;
                            link.parent_to_joint = (x.rot.tr_mul(&rt), x.pos + x.rot.tr_mul(&pt));
                        }
                    }
                    carry.push((links.len(), None));
                    kept.push(k);
                    inertias.push(full.ri[k]);
                    folded.push(false);
                    links.push(link);
                }
            }
        }
        // A link nothing was folded into keeps its own mass properties, to the bit.
        for ((link, ri), _) in links.iter_mut().zip(&inertias).zip(&folded).filter(|(_, f)| **f) {
            // Back from the ten parameters: `c = h / m`, `I_c = Ī + m [c×]²`.
            let c = if ri.mass > 0.0 { ri.h / ri.mass } else { Vec3::zeros() };
            let cx = tumble_math::skew(&c);
            let ic = ri.ibar + ri.mass * cx * cx;
            (link.mass, link.com, link.inertia) = (ri.mass, c, 0.5 * (ic + ic.transpose()));
        }
        let model = Multibody::new(links, full.gravity).ok()?;
        Some(Self { model, carry, kept })
    }

    /// `call` on the folded model with the full model's external wrenches `f_ext` carried onto
    /// its links (in the workspace's buffer for them, lent to `call` and put back).
    pub fn with_wrenches<R>(
        &self,
        f_ext: &[SVec],
        w: &mut Workspace,
        call: impl FnOnce(&Multibody, &[SVec], &mut Workspace) -> R,
    ) -> R {
        let mut f = std::mem::take(&mut w.merged.1);
        self.wrenches(f_ext, &mut f);
        let out = call(&self.model, &f, w);
        w.merged.1 = f;
        out
    }

    /// The external wrenches `f_ext` of the full model's links (link coordinates, about the link
    /// origin; a shorter slice leaves the rest without) on the folded model's links, into `out`.
    fn wrenches(&self, f_ext: &[SVec], out: &mut Vec<SVec>) {
        out.clear();
        if f_ext.is_empty() {
            return;
        }
        out.resize(self.kept.len(), SVec::zeros());
        for (f, (b, x)) in f_ext.iter().zip(&self.carry) {
            out[*b] += x.as_ref().map_or(*f, |x| x.force_back(f));
        }
    }

    /// The folded model's kinematics (transforms from the parent and link velocities) from the
    /// full model's `k`, into `out` (its world poses left empty).
    pub fn kinematics(&self, full: &Multibody, k: &Kinematics, out: &mut Kinematics) {
        out.x_up.clear();
        out.v.clear();
        out.pose.clear();
        for &i in &self.kept {
            let x = &k.x_up[i];
            let above = full.links[i].parent.and_then(|p| self.carry[p].1);
            out.x_up.push(above.map_or(*x, |above| compose(x, &above)));
            out.v.push(k.v[i]);
        }
    }
}
