//! The lander's system as the step loop drives it: the observation of each step's state, whose
//! rates the next step's first RK4 stage reuses and whose vertex clearances its later stages
//! skip by.

use super::{Gaps, LanderSystem, STATE_LEN, Snapshot};
use crate::lander::local::{LocalField, LocalSurface};
use std::ops::DerefMut;
use tumble_contact::Patch;
use tumble_dynamics::OdeSystem;
use tumble_math::wide::Kernel;
use tumble_math::{Mat3, Vec3};

/// The system as the step loop drives it: RK4's first stage of a step evaluates the state the
/// loop has just observed, so the rates of that observation are reused (bit-identical, one
/// evaluation of the pipeline fewer per step).
///
/// The observation also records each vertex's `φ`: the later stages of the step skip the
/// vertices that were farther out than they can have moved since (see
/// [`tumble_contact::vertex_sdf::normal_forces_with`]): on a resting cube, the four upper
/// corners.
pub(crate) struct Observing<S> {
    pub sys: S,
    /// Local surface models (see [`LocalSurface`]).
    pub local: LocalSurface,
    y: [f64; STATE_LEN],
    rates: [f64; STATE_LEN],
    /// Whether the next evaluation may be of `y` (the first since the observation; later ones
    /// are the step's inner stages and are not compared).
    fresh: bool,
    /// `φ` of each vertex at `y` (none before the first observation), its position `x` and
    /// attitude, and the farthest vertex from the centre of mass (m).
    recorded: Recorded,
    /// The touching vertices of the last look, for its tangential phase.
    patch: Patch,
}

/// What an observation recorded of the vertices' clearance.
#[derive(Clone, Debug, Default)]
pub(super) struct Recorded {
    pub(super) gaps: Vec<f64>,
    x: Vec3,
    turn: Mat3,
    reach: f64,
}

impl Recorded {
    /// The square of a bound on how far any vertex at `x` and attitude `turn` may be from where
    /// it was recorded, m²: `(|Δx| + ‖ΔR‖_F r_max)² ≤ 2 (|Δx|² + ‖ΔR‖_F² r_max²)` (the
    /// Frobenius norm bounds the spectral one).
    #[inline]
    pub(super) fn moved2(&self, x: &Vec3, turn: &Mat3) -> f64 {
        2.0 * ((x - self.x).norm_squared() + (turn - self.turn).norm_squared() * self.reach * self.reach)
    }
}

impl<S: DerefMut<Target = LanderSystem>> Observing<S> {
    pub fn new(sys: S, local: LocalSurface) -> Self {
        let recorded = Recorded { gaps: Vec::new(), reach: local.reach(), ..Default::default() };
        let patch = Patch::new();
        Self { sys, local, y: [0.0; STATE_LEN], rates: [0.0; STATE_LEN], fresh: false, recorded, patch }
    }

    /// Snapshot of `y` without remembering it.
    pub fn look(&self, y: &[f64]) -> Snapshot {
        self.sys.snapshot_with(y, &self.local.over(self.sys.surface.as_ref()))
    }

    /// [`LanderSystem::supported`] on the surface as the steps see it.
    pub fn supported(&self, y: &[f64], touching: &mut Vec<Vec3>) -> bool {
        self.sys.supported(y, &self.local.over(self.sys.surface.as_ref()), touching)
    }

    /// Snapshot of `y`, remembered for the next step's first stage and its vertices' `φ` for
    /// the later stages.
    pub fn observe(&mut self, y: &[f64; STATE_LEN]) -> Snapshot {
        let field = self.local.over(self.sys.surface.as_ref());
        let recorded = &mut self.recorded;
        recorded.gaps.resize(self.sys.vertices.len(), f64::NEG_INFINITY);
        let (gaps, patch) = (&mut recorded.gaps, &mut self.patch);
        let s = tumble_math::wide::dispatch(Observation { sys: &self.sys, y, field: &field, gaps, patch });
        (recorded.x, recorded.turn) = (s.kin.x, s.kin.R_WB);
        (self.y, self.rates) = (*y, s.rates);
        self.fresh = true;
        s
    }
}

/// An inner stage's rates, a kernel [`tumble_math::wide::dispatch`] builds twice.
struct Stage<'a, S> {
    obs: &'a mut Observing<S>,
    y: &'a [f64],
    dydt: &'a mut [f64],
}

impl<S: DerefMut<Target = LanderSystem>> Kernel for Stage<'_, S> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let Observing { sys, local, recorded, patch, .. } = self.obs;
        let field = local.over(sys.surface.as_ref());
        let skip = (!recorded.gaps.is_empty()).then_some(&*recorded);
        sys.pipeline::<_, false>(self.y, &field, self.dydt, Gaps::Skip(skip), patch);
    }
}

/// An observation's snapshot, recording the vertices' `φ`: a kernel
/// [`tumble_math::wide::dispatch`] builds twice.
struct Observation<'a> {
    sys: &'a LanderSystem,
    y: &'a [f64],
    field: &'a LocalField<'a>,
    gaps: &'a mut [f64],
    patch: &'a mut Patch,
}

impl Kernel for Observation<'_> {
    type Output = Snapshot;
    #[inline(always)]
    fn run(self) -> Snapshot {
        self.sys.snapshot_in(self.y, self.field, Gaps::Record(self.gaps), self.patch)
    }
}

impl<S: DerefMut<Target = LanderSystem>> OdeSystem for Observing<S> {
    fn dim(&self) -> usize {
        STATE_LEN
    }

    fn rhs(&mut self, _t: f64, y: &[f64], dydt: &mut [f64]) {
        if std::mem::take(&mut self.fresh) && y == self.y.as_slice() {
            dydt.copy_from_slice(&self.rates);
        } else {
            tumble_math::wide::dispatch(Stage { obs: self, y, dydt });
        }
    }

    fn project(&self, y: &mut [f64]) {
        self.sys.project(y)
    }
}
