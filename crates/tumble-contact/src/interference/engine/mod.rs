//! The evaluation pipeline: bodies' poses and twists in → bounding-volume traversal of paired
//! Objects → primitive pairs tested in parallel → forces summed in a fixed order → a wrench on
//! each body.
//!
//! Determinism: the candidate list is built by one sequential traversal, the testers write
//! each into its own slot, and the sum runs over the slots in list order, so the result is the
//! same bit for bit for any number of threads. The lists, slots and per-contact states are
//! reused between calls: once they have grown to the largest contact set seen, an evaluation
//! does not allocate.

use super::bristle::Friction;
use super::contact::{Contacts, Frame};
use super::model::{ContactParams, Model};
use super::testers::{self, Dispatch, Scratch};
use rayon::prelude::*;
use std::cell::RefCell;
use std::sync::Arc;
use tumble_geometry::bv::Bv;
use tumble_geometry::primitive::{Primitive, PrimitiveKind};
use tumble_math::{Pose, Vec3};
use walk::{Cached, FRONTIER, Fresh, Visit, Walk, WalkBuf};

mod walk;
mod wire;

/// Why an engine call was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EngineError {
    /// No such object.
    #[error("no object {0} (the engine has {1})")]
    NoObject(usize, usize),
    /// No such body in an object.
    #[error("object '{0}' has no body {1} (it has {2})")]
    NoBody(String, usize, usize),
    /// A negative or non-finite candidate margin.
    #[error("candidate margin {0} m: it must be finite and ≥ 0")]
    Margin(f64),
    /// Two contact sets of equal priority meet.
    #[error(
        "objects '{a}' and '{b}': contact sets '{set_a}' and '{set_b}' have the same priority {priority}; give one a higher `priority` so that it is clear which acts"
    )]
    Ambiguous {
        /// First object.
        a: String,
        /// Second object.
        b: String,
        /// Its set.
        set_a: String,
        /// The other set.
        set_b: String,
        /// The shared priority.
        priority: i32,
    },
    /// A contact set lacks the law a pair needs.
    #[error("objects '{a}' and '{b}': {pair} contacts use contact set '{set}', which has no `{law}`")]
    MissingLaw {
        /// First object.
        a: String,
        /// Second object.
        b: String,
        /// The primitive pair, e.g. `polyhedron–polyhedron`.
        pair: String,
        /// The set.
        set: String,
        /// `law` or `volume_law`.
        law: &'static str,
    },
    /// An object paired with itself.
    #[error("object '{0}' cannot be paired with itself: pair two instances of its model instead")]
    SelfPair(String),
    /// A non-finite pose or twist.
    #[error("object '{0}' body {1}: non-finite pose or twist")]
    NonFinite(String, usize),
    /// A wire span that is not a positive length.
    #[error("object '{0}': a wire span must be positive and finite (m), got {1}")]
    WireSpan(String, f64),
}

/// State and output of one body (the Object root or a movable group).
#[derive(Clone, Copy, Debug)]
pub struct BodyState {
    /// Pose in the common frame W.
    pub X_WB: Frame,
    /// Velocity of the body origin, W, m/s.
    pub v: Vec3,
    /// Angular velocity, W, rad/s.
    pub w: Vec3,
    /// Contact force on the body, W, N.
    pub force: Vec3,
    /// Contact moment about the body origin, W, N·m.
    pub torque: Vec3,
}

/// An instance of a model with its own state.
#[derive(Clone, Debug)]
pub struct Object {
    /// Instance name.
    pub name: String,
    /// The model.
    pub model: Arc<Model>,
    /// One per model body.
    pub bodies: Vec<BodyState>,
    placed: Vec<(u64, Bv, Vec3, f64)>,
    /// Per primitive: the epoch and its bounding-sphere centre in W then.
    centers: Vec<(u64, Vec3)>,
    /// The span of its wires' anchors (m), when not their segments' length.
    wire_span: Option<f64>,
}

#[derive(Clone, Debug)]
struct Pair {
    a: usize,
    b: usize,
    /// Per (set of A, set of B): which acts (`(true, i)`: A's set `i`).
    choice: Vec<(bool, u32)>,
    n_b: usize,
}

#[derive(Clone, Copy, Debug)]
struct Task {
    pair: u32,
    frame: u32,
    body_a: u32,
    body_b: u32,
    prim_a: u32,
    prim_b: u32,
    dispatch: Dispatch,
}

/// Key of a contact's persistent state: (pair, primitive of A, primitive of B, sub-contact).
pub type ContactKey = (u32, u32, u32, u8);

/// A contact found by the last evaluation, in the common frame.
#[derive(Clone, Copy, Debug)]
pub struct ActiveContact {
    /// Its key.
    pub key: ContactKey,
    /// Bodies (in objects `pair.a`, `pair.b`).
    pub bodies: (u32, u32),
    /// Application point, W.
    pub point: Vec3,
    /// Normal from A into B, W.
    pub normal: Vec3,
    /// Depth (m) or volume (m³).
    pub measure: f64,
    /// Whether the measure is a volume.
    pub volumetric: bool,
    /// Normal force magnitude, N.
    pub normal_force: f64,
    /// Friction force on B, W, N.
    pub friction: Vec3,
    /// Bristle deflection used (W, m) and its rate.
    pub z: Vec3,
    zdot: Vec3,
    /// Approach rate at first contact.
    pub v0: f64,
    friction_model: Friction,
    /// A wire's side (its push direction in the wire's frame), kept while the contact lasts.
    wire_side: Option<Vec3>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Below this many candidate pairs, testers run on the calling thread.
const PARALLEL_MIN: usize = 64;

/// Default candidate margin of [`Engine::new`], m.
pub const DEFAULT_MARGIN: f64 = 1e-3;

/// The interference contact engine.
#[derive(Default)]
pub struct Engine {
    objects: Vec<Object>,
    pairs: Vec<Pair>,
    epoch: u64,
    /// Candidate margin, m: the traversal keeps primitive pairs closer than this, and the list
    /// stands until some body has moved by the margin relative to another (0: every step).
    margin: f64,
    /// Whether `tasks` came from a traversal of the current objects and pairs.
    listed: bool,
    /// Traversals so far.
    traversals: u64,
    /// Pose of B in A for each (pair, body of A, body of B), now and at the traversal.
    frames: Vec<Frame>,
    frames_listed: Vec<Frame>,
    /// For each such body pair: the reach of B's geometry from its origin, m.
    reach_b: Vec<f64>,
    /// The one-thread walker's buffers; the parallel walkers' and their frontier.
    walker: WalkBuf,
    walkers: Vec<WalkBuf>,
    frontier: Vec<(u32, u32)>,
    next: Vec<(u32, u32)>,
    tasks: Vec<Task>,
    results: Vec<Contacts>,
    current: Vec<ActiveContact>,
    previous: Vec<ActiveContact>,
}

impl Engine {
    /// An empty engine with the [`DEFAULT_MARGIN`] (`Engine::default()` has none).
    pub fn new() -> Self {
        Self { margin: DEFAULT_MARGIN, ..Self::default() }
    }

    /// Sets the candidate margin, m (≥ 0). The bounding-volume traversal keeps the primitive
    /// pairs whose bounding volumes, grown by half the margin each, overlap; that list is reused
    /// while every body has moved, relative to each body it is paired with, by less than the
    /// margin (bounded by `|Δp| + ‖ΔR‖_F ρ` for a body of reach `ρ`), since until then no pair
    /// outside it can touch. Larger margins mean fewer traversals and more candidate tests;
    /// contacts and forces do not depend on it (the testers are exact), only the order of the
    /// force sum does.
    pub fn set_margin(&mut self, margin: f64) -> Result<(), EngineError> {
        if !(margin.is_finite() && margin >= 0.0) {
            return Err(EngineError::Margin(margin));
        }
        self.margin = margin;
        self.listed = false;
        Ok(())
    }

    /// Adds an instance of `model`, its bodies at their modelled poses (Object at the origin)
    /// and at rest; returns its index.
    pub fn add_object(&mut self, model: Arc<Model>, name: &str) -> usize {
        let bodies = model
            .bodies
            .iter()
            .map(|b| BodyState {
                X_WB: b.home,
                v: Vec3::zeros(),
                w: Vec3::zeros(),
                force: Vec3::zeros(),
                torque: Vec3::zeros(),
            })
            .collect();
        let placed = vec![(u64::MAX, Bv::Everything, Vec3::zeros(), f64::INFINITY); model.nodes.len()];
        let centers = vec![(u64::MAX, Vec3::zeros()); model.prims.len()];
        self.objects.push(Object { name: name.into(), model, bodies, placed, centers, wire_span: None });
        self.listed = false;
        self.objects.len() - 1
    }

    /// The objects.
    pub fn objects(&self) -> &[Object] {
        &self.objects
    }

    /// Pairs two objects so that they are tested against each other (objects not paired are
    /// never tested). Checks here, not during a run, that every pair of primitive kinds that can
    /// meet has an unambiguous contact set with the law it needs.
    pub fn pair(&mut self, a: usize, b: usize) -> Result<usize, EngineError> {
        let n = self.objects.len();
        for i in [a, b] {
            if i >= n {
                return Err(EngineError::NoObject(i, n));
            }
        }
        if a == b {
            return Err(EngineError::SelfPair(self.objects[a].name.clone()));
        }
        let (ma, mb) = (&self.objects[a].model, &self.objects[b].model);
        let (oa, ob) = (self.objects[a].name.clone(), self.objects[b].name.clone());
        let mut choice = Vec::with_capacity(ma.params.len() * mb.params.len());
        for (ia, pa) in ma.params.iter().enumerate() {
            for (jb, pb) in mb.params.iter().enumerate() {
                choice.push(if pa.priority > pb.priority || (pa.priority == pb.priority && pa == pb) {
                    (true, ia as u32)
                } else if pb.priority > pa.priority {
                    (false, jb as u32)
                } else {
                    (true, u32::MAX) // ambiguous: refused below if such primitives can meet
                });
            }
        }
        // Check the combinations that occur: distinct (kind, set) of each side, crossed.
        let distinct = |m: &Model| {
            let mut v: Vec<(PrimitiveKind, u32)> = m.prims.iter().map(|p| (p.shape.kind(), p.params)).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let (da, db) = (distinct(ma), distinct(mb));
        for &(ka, sa) in &da {
            for &(kb, sb) in &db {
                let key = (ka, sa, kb, sb);
                if matches!(testers::tester(key.0, key.2), Dispatch::None) {
                    continue;
                }
                let (from_a, i) = choice[key.1 as usize * mb.params.len() + key.3 as usize];
                if i == u32::MAX {
                    let (sa, sb) = (&ma.params[key.1 as usize], &mb.params[key.3 as usize]);
                    return Err(EngineError::Ambiguous {
                        a: oa,
                        b: ob,
                        set_a: sa.name.clone(),
                        set_b: sb.name.clone(),
                        priority: sa.priority,
                    });
                }
                let set: &ContactParams = if from_a { &ma.params[i as usize] } else { &mb.params[i as usize] };
                let volumetric = testers::is_volumetric(key.0, key.2);
                let wire = set.wire.is_some() && [key.0, key.2][usize::from(!from_a)] == PrimitiveKind::Segment;
                let missing = if volumetric { set.volume_law.is_none() } else { set.law.is_none() && !wire };
                if missing {
                    return Err(EngineError::MissingLaw {
                        a: oa,
                        b: ob,
                        pair: format!("{}–{}", key.0.name(), key.2.name()),
                        set: set.name.clone(),
                        law: if volumetric { "volume_law" } else { "law" },
                    });
                }
            }
        }
        self.pairs.push(Pair { a, b, choice, n_b: mb.params.len() });
        self.listed = false;
        Ok(self.pairs.len() - 1)
    }

    /// Sets the span of the anchors of `object`'s wire segments (contact sets with `wire`),
    /// centred on each segment's midpoint; `None`: each segment's length. A snare whose wires'
    /// anchors move (the LEE's closing ring) sets it before each evaluation.
    pub fn set_wire_span(&mut self, object: usize, span: Option<f64>) -> Result<(), EngineError> {
        let count = self.objects.len();
        let o = self.objects.get_mut(object).ok_or(EngineError::NoObject(object, count))?;
        if let Some(l) = span.filter(|l| !(l.is_finite() && *l > 0.0)) {
            return Err(EngineError::WireSpan(o.name.clone(), l));
        }
        o.wire_span = span;
        Ok(())
    }

    /// Sets a body's pose and twist in the common frame (`v`: velocity of its origin, `w`:
    /// angular velocity, both in W).
    pub fn set_body(&mut self, object: usize, body: usize, X_WB: &Pose, v: Vec3, w: Vec3) -> Result<(), EngineError> {
        let n = self.objects.len();
        let o = self.objects.get_mut(object).ok_or(EngineError::NoObject(object, n))?;
        let nb = o.bodies.len();
        let b = o.bodies.get_mut(body).ok_or_else(|| EngineError::NoBody(o.name.clone(), body, nb))?;
        let finite = X_WB.p.iter().chain(X_WB.q.coords.iter()).chain(v.iter()).chain(w.iter()).all(|x| x.is_finite());
        if !finite {
            return Err(EngineError::NonFinite(o.name.clone(), body));
        }
        b.X_WB = Frame::from_pose(X_WB);
        b.v = v;
        b.w = w;
        Ok(())
    }

    /// Number of candidate primitive pairs the last evaluation tested (after the bounding-volume
    /// traversal and the primitives' bounding spheres).
    pub fn candidate_count(&self) -> usize {
        self.tasks.len()
    }

    /// A body's state and its last evaluated wrench. Panics on an index out of range (the
    /// indices are those [`Engine::add_object`] returned and the model's body indices).
    pub fn body(&self, object: usize, body: usize) -> &BodyState {
        &self.objects[object].bodies[body]
    }

    /// The wrench on a body at its origin, in its own frame: `(force_B, moment_B)`. Panics on an
    /// index out of range, as [`Engine::body`].
    pub fn wrench_in_body(&self, object: usize, body: usize) -> (Vec3, Vec3) {
        let b = &self.objects[object].bodies[body];
        (b.X_WB.inv_vector(&b.force), b.X_WB.inv_vector(&b.torque))
    }

    /// Bounding-volume traversals so far (evaluations that reused the candidate list did none).
    pub fn traversal_count(&self) -> u64 {
        self.traversals
    }

    /// The contacts of the last evaluation, in key order within each pair.
    pub fn contacts(&self) -> &[ActiveContact] {
        &self.current
    }

    /// Computes the contact wrenches for the current states. Bristle deflections are those of
    /// the last [`Engine::commit`]; call it after each dynamics step.
    pub fn evaluate(&mut self) {
        self.epoch += 1;
        if !self.relative_frames() {
            self.candidates();
        }
        // Slots are only ever added (each tester clears its slot): no per-step fill.
        if self.results.len() < self.tasks.len() {
            self.results.resize(self.tasks.len(), Contacts::default());
        }
        let (objects, frames) = (&self.objects, &self.frames);
        let run = |t: &Task, out: &mut Contacts| {
            let (oa, ob) = (&objects[self.pairs[t.pair as usize].a], &objects[self.pairs[t.pair as usize].b]);
            let (pa, pb) = (&oa.model.prims[t.prim_a as usize].shape, &ob.model.prims[t.prim_b as usize].shape);
            SCRATCH.with(|s| testers::run(t.dispatch, pa, pb, &frames[t.frame as usize], out, &mut s.borrow_mut()));
        };
        if self.tasks.len() < PARALLEL_MIN {
            for (t, out) in self.tasks.iter().zip(self.results.iter_mut()) {
                run(t, out);
            }
        } else {
            self.tasks.par_iter().zip(self.results.par_iter_mut()).with_min_len(16).for_each(|(t, out)| run(t, out));
        }
        self.forces();
    }

    /// Advances every contact's bristle deflection by `dt` (s) with the rates of the last
    /// evaluation and keeps the contact states for the next step.
    pub fn commit(&mut self, dt: f64) {
        for c in &mut self.current {
            if let Friction::Bristle(b) = c.friction_model {
                c.z = b.advance(&c.z, &c.zdot, dt, c.normal_force);
            }
        }
        self.previous.clear();
        self.previous.extend_from_slice(&self.current);
        self.previous.sort_unstable_by_key(|c| c.key);
    }

    /// Poses of B in A for every (pair, body of A, body of B), in traversal order; whether the
    /// candidate list still holds (no body moved by the margin relative to another since it was
    /// made).
    fn relative_frames(&mut self) -> bool {
        self.frames.clear();
        for pair in &self.pairs {
            let (oa, ob) = (&self.objects[pair.a], &self.objects[pair.b]);
            for A in &oa.bodies {
                for B in &ob.bodies {
                    self.frames.push(A.X_WB.inverse().compose(&B.X_WB));
                }
            }
        }
        self.listed
            && self.frames.iter().zip(&self.frames_listed).zip(&self.reach_b).all(|((now, then), reach)| {
                let turn = (now.R - then.R).norm();
                let moved = (now.p - then.p).norm() + if turn == 0.0 { 0.0 } else { turn * reach };
                moved < self.margin
            })
    }

    /// Bounding-volume traversal of every pair → the candidate primitive pairs (those within the
    /// margin), with the relative poses it was made at. On one thread a depth-first walk that
    /// places each node once per evaluation; on more, the walk's first levels are expanded
    /// into a frontier of disjoint subtrees, walked in parallel (placing nodes as they come)
    /// and concatenated in frontier order — the depth-first order, so the candidate list is the
    /// same for any thread count.
    fn candidates(&mut self) {
        self.tasks.clear();
        self.frames_listed.clone_from(&self.frames);
        self.reach_b.clear();
        self.listed = true;
        self.traversals += 1;
        let epoch = self.epoch;
        let grow = 0.5 * self.margin;
        let parallel = rayon::current_num_threads() > 1;
        let mut frame = 0;
        for (pi, pair) in self.pairs.iter().enumerate() {
            let (ma, mb) = (self.objects[pair.a].model.clone(), self.objects[pair.b].model.clone());
            for (ba, bda) in ma.bodies.iter().enumerate() {
                for (bb, bdb) in mb.bodies.iter().enumerate() {
                    let reach = mb.nodes[bdb.root as usize].bv.map_or(f64::INFINITY, |bv| {
                        let (c, r) = bv.bounding_sphere();
                        c.norm() + r
                    });
                    self.reach_b.push(reach);
                    let walk = Walk {
                        ma: &ma,
                        mb: &mb,
                        Xa: self.objects[pair.a].bodies[ba].X_WB,
                        Xb: self.objects[pair.b].bodies[bb].X_WB,
                        task: Task {
                            pair: pi as u32,
                            frame,
                            body_a: ba as u32,
                            body_b: bb as u32,
                            prim_a: 0,
                            prim_b: 0,
                            dispatch: Dispatch::None,
                        },
                        grow,
                        margin: self.margin,
                    };
                    frame += 1;
                    let root = (bda.root, bdb.root);
                    if !parallel {
                        let mut place =
                            Cached { objects: &mut self.objects, a: (pair.a, ba), b: (pair.b, bb), epoch, grow };
                        self.walker.tasks.clear();
                        walk.run(root, &mut self.walker, &mut place);
                        self.tasks.extend_from_slice(&self.walker.tasks);
                        continue;
                    }
                    // The frontier: breadth-first until there is work for every thread.
                    let (frontier, next) = (&mut self.frontier, &mut self.next);
                    frontier.clear();
                    frontier.push(root);
                    while frontier.len() < FRONTIER {
                        next.clear();
                        let mut split = false;
                        for &(na, nb) in frontier.iter() {
                            match walk.visit(na, nb, &mut Fresh(&walk)) {
                                Visit::Apart => {}
                                Visit::Leaves(..) => next.push((na, nb)),
                                Visit::SplitA => {
                                    split = true;
                                    next.extend(ma.nodes[na as usize].children.iter().map(|&c| (c, nb)));
                                }
                                Visit::SplitB => {
                                    split = true;
                                    next.extend(mb.nodes[nb as usize].children.iter().map(|&c| (na, c)));
                                }
                            }
                        }
                        std::mem::swap(frontier, next);
                        if !split {
                            break;
                        }
                    }
                    if self.walkers.len() < frontier.len() {
                        self.walkers.resize_with(frontier.len(), WalkBuf::default);
                    }
                    frontier.par_iter().zip(self.walkers.par_iter_mut()).for_each(|(&start, buf)| {
                        buf.tasks.clear();
                        walk.run(start, buf, &mut Fresh(&walk));
                    });
                    for buf in &self.walkers[..frontier.len()] {
                        self.tasks.extend_from_slice(&buf.tasks);
                    }
                }
            }
        }
    }

    /// Forces of every contact, summed in task order.
    fn forces(&mut self) {
        for o in &mut self.objects {
            for b in &mut o.bodies {
                b.force = Vec3::zeros();
                b.torque = Vec3::zeros();
            }
        }
        self.current.clear();
        for (t, res) in self.tasks.iter().zip(&self.results) {
            if res.is_empty() {
                continue;
            }
            let pair = &self.pairs[t.pair as usize];
            let (ma, mb) = (self.objects[pair.a].model.clone(), self.objects[pair.b].model.clone());
            let (da, db) = (&ma.prims[t.prim_a as usize], &mb.prims[t.prim_b as usize]);
            let (from_a, i) = pair.choice[da.params as usize * pair.n_b + db.params as usize];
            let set = if from_a { &ma.params[i as usize] } else { &mb.params[i as usize] };
            let (A, B) =
                (self.objects[pair.a].bodies[t.body_a as usize], self.objects[pair.b].bodies[t.body_b as usize]);
            // Material-point velocities at the world origin.
            let (va0, vb0) = (A.v - A.w.cross(&A.X_WB.p), B.v - B.w.cross(&B.X_WB.p));
            // A wire set's own segment is a snare wire (`wire.rs`).
            let (own, own_X, own_object) = if from_a { (da, A.X_WB, pair.a) } else { (db, B.X_WB, pair.b) };
            let wire = match (&set.wire, &own.shape) {
                (Some(law), Primitive::Segment { a, b }) => Some(wire::Wire {
                    law,
                    ends: (own_X.point(a), own_X.point(b)),
                    span: self.objects[own_object].wire_span,
                    frame: own_X,
                    target: if from_a { (&db.shape, B.X_WB) } else { (&da.shape, A.X_WB) },
                    is_a: from_a,
                }),
                _ => None,
            };
            for c in res.as_slice() {
                // `pair` checked that the set has the law this measure needs.
                let law = if c.volumetric { set.volume_law.as_ref() } else { set.law.as_ref() };
                let wire = wire.as_ref().filter(|_| !c.volumetric);
                if law.is_none() && wire.is_none() {
                    continue;
                }
                let mut c = c.transformed(&A.X_WB);
                let key = (t.pair, t.prim_a, t.prim_b, c.sub);
                let prev = self.previous.binary_search_by_key(&key, |p| p.key).ok().map(|k| &self.previous[k]);
                // A wire's contact on its line, on the side it keeps, and where along it.
                let mut on_wire = None;
                if let Some(w) = wire {
                    let Some((wc, side, s, span)) = w.contact(&c, prev.and_then(|p| p.wire_side)) else { continue };
                    (c, on_wire) = (wc, Some((side, s, span)));
                }
                let rate = (va0 - vb0).dot(&c.rate_s) + (A.w - B.w).dot(&c.rate_m);
                let v0 = prev.map_or(rate.max(0.0), |p| p.v0);
                let f_n = match (wire.zip(on_wire), law) {
                    (Some((w, (_, s, span))), _) => w.force(span, s, c.measure, rate, v0),
                    (None, Some(law)) => law.force(c.measure, rate, v0),
                    (None, None) => continue,
                };
                let slip = (vb0 + B.w.cross(&c.point)) - (va0 + A.w.cross(&c.point));
                let v_t = slip - c.normal * c.normal.dot(&slip);
                let (friction, z, zdot) = match set.friction {
                    Friction::None => (Vec3::zeros(), Vec3::zeros(), Vec3::zeros()),
                    Friction::Coulomb { mu, v_star } => {
                        (crate::laws::friction(mu, f_n, &v_t, v_star), Vec3::zeros(), Vec3::zeros())
                    }
                    Friction::Bristle(b) => b.force(&prev.map_or(Vec3::zeros(), |p| p.z), &v_t, f_n, &c.normal),
                };
                let f = c.normal * f_n + friction;
                let a_state = &mut self.objects[pair.a].bodies[t.body_a as usize];
                a_state.force -= f;
                a_state.torque -= (c.point - A.X_WB.p).cross(&f);
                let b_state = &mut self.objects[pair.b].bodies[t.body_b as usize];
                b_state.force += f;
                b_state.torque += (c.point - B.X_WB.p).cross(&f);
                self.current.push(ActiveContact {
                    key,
                    bodies: (t.body_a, t.body_b),
                    point: c.point,
                    normal: c.normal,
                    measure: c.measure,
                    volumetric: c.volumetric,
                    normal_force: f_n,
                    friction,
                    z,
                    zdot,
                    v0,
                    friction_model: set.friction,
                    wire_side: on_wire.map(|w| w.0),
                });
            }
        }
    }
}
