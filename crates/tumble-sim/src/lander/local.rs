//! Local quadratic models of the target surface around each contact vertex and the
//! application point: an optional acceleration for expensive fields (fBm terrain evaluated
//! on the fly), off by default.
//!
//! About a centre `c` the field is modelled as `φ̃(p) = φ(c) + ∇φ(c)·d + ½ dᵀ H d`, `d = p − c`,
//! with `H` the central difference of the exact gradient at `c ± s eₖ` (`s` a tenth of the
//! radius), symmetrised. The model of vertex `j` is rebuilt between steps once the vertex is
//! more than the radius `R` from its centre, so every query within a step meets one smooth,
//! conservative field (the spring stays `−∇(½ k φ̃²)`); the jump of elastic energy at a rebuild
//! is booked in the energy budget like the gravity expansion's. Its error is the Taylor
//! remainder `|∇³φ| R³ / 6` (for the bundled comet's 6-octave terrain an estimated
//! `|∇³φ| ≈ 0.5 m⁻²` from the finest octave: about 7e-10 m at `R` = 2 mm); on a trilinear grid, whose gradient jumps across cell faces, it
//! smooths the kink over `s`. The application point, which is not a material point, uses its
//! own model while it stays within 4 R of the centre and the exact field beyond. Points more
//! than 4 R outside the surface (a spacecraft in flight, the far side of a lander), and more
//! than 8 `u dt` at their speed `u`, answer a lower bound of the distance, enough to know they
//! cannot touch, and are checked again once they have moved a quarter of their distance: one
//! evaluation per quarter gap where a quadratic model costs seven per `R`, so a far point is
//! never dearer than a near one, and within a step of `dt` (a quarter gap plus `u dt`, an
//! eighth) the bound stays above a quarter of the gap: no touchdown inside the step is missed.

use super::system::{LanderSystem, STATE_LEN};
use tumble_contact::vertex_sdf::{ContactField, SLOPE};
use tumble_geometry::sdf::Sdf;
use tumble_math::{Mat3, Quat, UnitQuat, Vec3};

/// A quadratic model of the field about `center`.
#[derive(Clone, Copy, Debug)]
pub struct LocalModel {
    center: Vec3,
    phi: f64,
    grad: Vec3,
    hess: Mat3,
}

impl LocalModel {
    /// The model about `center`, where the field is `(phi, grad)`.
    fn new(sdf: &dyn Sdf, center: Vec3, (phi, grad): (f64, Vec3), step: f64) -> Self {
        let mut hess = Mat3::zeros();
        for k in 0..3 {
            let e = Vec3::ith(k, step);
            hess.set_column(k, &((sdf.eval(&(center + e)).1 - sdf.eval(&(center - e)).1) / (2.0 * step)));
        }
        Self { center, phi, grad, hess: 0.5 * (hess + hess.transpose()) }
    }

    fn eval(&self, p: &Vec3) -> (f64, Vec3) {
        let d = p - self.center;
        let hd = self.hess * d;
        (self.phi + self.grad.dot(&d) + 0.5 * d.dot(&hd), self.grad + hd)
    }
}

/// What a query slot holds.
#[derive(Clone, Copy, Debug)]
enum Slot {
    /// Not built yet (or no application point).
    Empty,
    /// Outside, far from the surface, at `center` (`φ = gap`): queries answer the lower bound
    /// `gap − 2 |p − center|` (the field's slope stays below 2: 1 for exact distances, ≤ 1.3
    /// with the bundled terrain, ≤ √3 for trilinear grids) with no gradient, which is all the
    /// contact needs of a point that cannot touch; rebuilt once the point has moved `gap / 4`.
    Far { center: Vec3, gap: f64 },
    /// Near the surface: the quadratic model.
    Near(LocalModel),
}

/// Points farther than this many radii from the surface (and [`FAR_STEPS`] steps of their
/// speed) answer the far slot's lower bound.
const NEAR: f64 = 4.0;

/// A far point's gap spans at least this many steps of `dt` at its speed.
const FAR_STEPS: f64 = 8.0;

/// A surface answered through the local models where they are built (the contact's view of it
/// within a step).
pub struct LocalField<'a> {
    local: &'a LocalSurface,
    sdf: &'a dyn Sdf,
}

impl ContactField for LocalField<'_> {
    #[inline]
    fn vertices(&self, index: &[usize], points: &[Vec3], out: &mut [(f64, Vec3)]) {
        if self.local.models.is_empty() {
            return self.sdf.eval_many(points, out);
        }
        for ((&j, p), o) in index.iter().zip(points).zip(out) {
            *o = self.local.field(self.sdf, j, p);
        }
    }

    #[inline]
    fn application(&self, p: &Vec3) -> (f64, Vec3) {
        self.local.field(self.sdf, self.local.models.len().saturating_sub(1), p)
    }
}

/// The models of one run: one per vertex, then one for the application point.
#[derive(Clone, Debug)]
pub struct LocalSurface {
    radius: f64,
    /// The run's step, s.
    dt: f64,
    /// The farthest vertex from the centre of mass, m.
    reach: f64,
    models: Vec<Slot>,
    /// The last state at which every vertex's slot was checked and found current.
    checked: Option<Checked>,
}

/// A state at which no vertex's slot was due for a rebuild, and how far the body may move
/// from it before one can be.
///
/// A vertex `v` (body axes) is at `p = x + R v`, `R` the rotation of the state's quaternion
/// `q` (normalised before it rotates), so between this state and another,
/// `|p − p₀| ≤ |x − x₀| + ‖R − R₀‖ |v|`. Two quaternions `q`, `q₀` at an angle `θ` (the
/// lines through them; the relative rotation is `2θ`) give `‖R − R₀‖ = 2 sin θ`, and
/// `|q₀| sin θ` is `q₀`'s distance from the line through `q`, at most `|q − q₀|`: so
/// `‖R − R₀‖ ≤ 2 |q − q₀| / |q₀|`, whatever the quaternions' lengths. While that bound of the
/// vertices' motion, with an allowance for the rounding of the points and their distances,
/// stays below the least margin any vertex had here (its slot's radius less its distance from
/// the slot's centre), no slot can be due: [`LocalSurface::stale`] then skips the vertices,
/// and otherwise checks them as before, so its answer is the same to the bit.
#[derive(Clone, Copy, Debug)]
struct Checked {
    x: Vec3,
    q: [f64; 4],
    /// `2 reach / |q₀|`: a vertex's motion, m, per unit of `|q − q₀|`.
    turn: f64,
    /// The least margin of the vertices' slots, m.
    margin: f64,
    /// The scale of the lengths the margins were computed from (the position's largest
    /// component, the reach, the largest slot's bound), m: the rounding allowance's.
    scale: f64,
}

/// The rounding allowance of [`Checked`], relative to the scale of the lengths involved (the
/// position, the reach, the slots' bounds: a far slot's quarter gap can exceed the position):
/// the points are within a few roundings (`≈ 1e-15` relative) of exact, and their distances
/// and margins within a few more; a thousand times that.
const ROUNDING: f64 = 1e-12;

impl LocalSurface {
    /// Models of radius `radius` (m) for the contact `vertices` (body axes, from the centre of
    /// mass) of a run stepped at `dt` (s); a radius of 0 turns them off.
    pub fn new(radius: f64, vertices: &[Vec3], dt: f64) -> Self {
        let reach = vertices.iter().map(|v| v.norm()).fold(0.0, f64::max);
        let models = vec![Slot::Empty; if radius > 0.0 { vertices.len() + 1 } else { 0 }];
        Self { radius, dt, reach, models, checked: None }
    }

    /// The farthest vertex from the centre of mass, m.
    pub fn reach(&self) -> f64 {
        self.reach
    }

    /// The surface `sdf` as the contact sees it through these models.
    pub fn over<'a>(&'a self, sdf: &'a dyn Sdf) -> LocalField<'a> {
        LocalField { local: self, sdf }
    }

    /// The field at `p` for query `j` (vertex index, or the vertex count for the application
    /// point).
    #[inline]
    pub fn field(&self, sdf: &dyn Sdf, j: usize, p: &Vec3) -> (f64, Vec3) {
        let limit = if j + 1 == self.models.len() { 4.0 * self.radius } else { f64::INFINITY };
        match self.models.get(j) {
            Some(Slot::Near(m)) if within(&(p - m.center), limit) => m.eval(p),
            Some(Slot::Far { center, gap }) => (gap - SLOPE * (p - center).norm(), Vec3::zeros()),
            _ => sdf.eval(p),
        }
    }

    /// The query points of state `y`: each vertex, then the application point `r_p` (from the
    /// centre of mass, T axes) when there is contact.
    fn points(sys: &LanderSystem, y: &[f64; STATE_LEN], r_p: Option<Vec3>) -> impl Iterator<Item = Option<Vec3>> {
        let x = Vec3::new(y[0], y[1], y[2]);
        let r = UnitQuat::new_normalize(Quat::new(y[6], y[7], y[8], y[9]));
        sys.vertices.iter().map(move |v| Some(x + r * v)).chain(std::iter::once(r_p.map(|r| x + r)))
    }

    /// Whether any model would be rebuilt at state `y`. The application point is checked every
    /// time; the vertices only once the body may have moved one of them out of its slot since
    /// they were last found current (`|Δx| + 2 r_max |Δq| / |q₀|` with a rounding allowance
    /// reaching their least margin then), so the answer is the one checking every slot gives.
    pub fn stale(&mut self, sys: &LanderSystem, y: &[f64; STATE_LEN], r_p: Option<Vec3>) -> bool {
        let Some(app) = self.models.last() else { return false };
        let x = Vec3::new(y[0], y[1], y[2]);
        if Self::moved_from(self.radius, r_p.map(|r| x + r), app) {
            return true;
        }
        let q = [y[6], y[7], y[8], y[9]];
        if let Some(c) = &self.checked {
            let dq = q.iter().zip(&c.q).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt();
            let motion = (x - c.x).norm() + c.turn * dq;
            if motion + ROUNDING * (x.abs().max() + c.scale) < c.margin {
                return false;
            }
        }
        let Some((margin, bound)) = self.vertex_margin(sys, y) else {
            self.checked = None;
            return true;
        };
        let turn = 2.0 * self.reach / q.iter().map(|c| c * c).sum::<f64>().sqrt();
        let scale = x.abs().max() + self.reach + bound;
        self.checked = Some(Checked { x, q, turn, margin, scale });
        false
    }

    /// The least margin of the vertices' slots at state `y` and the largest slot's bound (its
    /// radius, or a quarter of a far slot's gap), m; `None` when a slot is due.
    fn vertex_margin(&self, sys: &LanderSystem, y: &[f64; STATE_LEN]) -> Option<(f64, f64)> {
        let (mut least, mut largest) = (f64::INFINITY, self.radius);
        for (p, m) in Self::points(sys, y, None).zip(&self.models).take(sys.vertices.len()) {
            if self.moved(p, m) {
                return None;
            }
            let (bound, from) = match (p, m) {
                (Some(p), Slot::Near(m)) => (self.radius, (p - m.center).norm()),
                (Some(p), Slot::Far { center, gap }) => (0.25 * gap, (p - center).norm()),
                _ => (f64::NAN, f64::NAN),
            };
            // A NaN margin (a NaN gap, which is never due) leaves the least as it was.
            least = least.min(bound - from);
            largest = largest.max(bound.abs());
        }
        Some((least, largest))
    }

    /// Rebuilds the models whose point has left their radius.
    pub fn refresh(&mut self, sys: &LanderSystem, y: &[f64; STATE_LEN], r_p: Option<Vec3>) {
        if self.radius == 0.0 {
            return;
        }
        self.checked = None;
        let (step, radius) = (0.1 * self.radius, self.radius);
        // A bound of every material point's speed: |v| + |ω| |r|.
        let speed = Vec3::new(y[3], y[4], y[5]).norm() + Vec3::new(y[10], y[11], y[12]).norm() * self.reach;
        let far = (NEAR * radius).max(FAR_STEPS * speed * self.dt);
        for (p, m) in Self::points(sys, y, r_p).zip(self.models.iter_mut()) {
            if !Self::moved_from(radius, p, m) {
                continue;
            }
            *m = match p {
                None => Slot::Empty,
                Some(p) => {
                    let at = sys.surface.eval(&p);
                    if at.0 > far {
                        Slot::Far { center: p, gap: at.0 }
                    } else {
                        Slot::Near(LocalModel::new(sys.surface.as_ref(), p, at, step))
                    }
                }
            };
        }
    }

    fn moved(&self, p: Option<Vec3>, m: &Slot) -> bool {
        Self::moved_from(self.radius, p, m)
    }

    /// Whether the slot must be rebuilt for point `p`.
    fn moved_from(radius: f64, p: Option<Vec3>, m: &Slot) -> bool {
        match (p, m) {
            (Some(p), Slot::Near(m)) => beyond(&(p - m.center), radius),
            (Some(p), Slot::Far { center, gap }) => beyond(&(p - center), 0.25 * gap),
            (Some(_), Slot::Empty) => true,
            (None, Slot::Empty) => false,
            (None, _) => true,
        }
    }
}

/// Below this square of a distance (`r² (1 − 2⁻⁵⁰)`, rounded) the distance is below `r` to the bit:
/// `|d|² < r² (1 − 2⁻⁵¹)` puts `√|d|²` an ulp of `r` or more below it, and a correctly
/// rounded root does not reach `r`. `None` where `r²` would lose precision (`r` below 1e-150,
/// or not a number) and the root decides.
#[inline(always)]
fn clearly_within(r: f64) -> Option<f64> {
    (r >= 1e-150).then_some(r * r * (1.0 - 4.0 * f64::EPSILON))
}

/// `d.norm() <= r`, to the bit, the square root taken only within a rounding of the boundary.
#[inline(always)]
fn within(d: &Vec3, r: f64) -> bool {
    let d2 = d.norm_squared();
    clearly_within(r).is_some_and(|b| d2 < b) || d2.sqrt() <= r
}

/// `d.norm() > r`, to the bit, as [`within`].
#[inline(always)]
fn beyond(d: &Vec3, r: f64) -> bool {
    let d2 = d.norm_squared();
    !clearly_within(r).is_some_and(|b| d2 < b) && d2.sqrt() > r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lander::system::pack;
    use std::sync::Arc;
    use tumble_geometry::sdf::HalfSpace;

    #[test]
    fn the_distance_tests_give_the_bits_of_the_root() {
        // Points within a few roundings of the sphere |d| = r (where only the root decides)
        // and anywhere inside twice its radius, radii from a micrometre to a kilometre, and the
        // edges: zero, infinite and NaN radii and points, radii whose square is subnormal.
        let mut g = tumble_math::Lcg::new(3);
        let mut cases = Vec::new();
        for k in 0..200_000 {
            let r = 10f64.powf(g.uniform(-6.0, 3.0));
            let dir = Vec3::new(g.symmetric(), g.symmetric(), g.symmetric()).normalize();
            let scale = if k % 2 == 0 { 1.0 + 1e-15 * g.symmetric() * (k % 7) as f64 } else { 2.0 * g.unit() };
            cases.push((dir * (r * scale), r));
        }
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        for r in [0.0, inf, nan, 1e-160, 3e-155, -1.0] {
            for d in [
                Vec3::zeros(),
                Vec3::new(1e-160, 0.0, 0.0),
                Vec3::new(1.0, 2.0, 3.0),
                Vec3::repeat(inf),
                Vec3::repeat(nan),
            ] {
                cases.push((d, r));
            }
        }
        let mut near = 0;
        for (d, r) in cases {
            assert_eq!(within(&d, r), d.norm() <= r, "{d:?} within {r}");
            assert_eq!(beyond(&d, r), d.norm() > r, "{d:?} beyond {r}");
            near += usize::from(d.norm() == r || (d.norm() - r).abs() <= 4.0 * f64::EPSILON * r);
        }
        assert!(near > 1000, "the boundary is exercised ({near} points within four roundings of it)");
    }

    /// A 1 kg box lander of `size` (m) over `surface`.
    fn lander(size: Vec3, surface: Arc<dyn Sdf>) -> LanderSystem {
        let contact = crate::lander::builder::tests::contact();
        LanderSystem::builder().mass(1.0).box_shape(size).contact(contact).surface(surface).build().expect("valid")
    }

    /// Whether any slot is due, every point checked (what `stale` answered before it skipped
    /// the vertices).
    fn due(local: &LocalSurface, sys: &LanderSystem, y: &[f64; STATE_LEN], r_p: Option<Vec3>) -> bool {
        LocalSurface::points(sys, y, r_p).zip(&local.models).any(|(p, m)| local.moved(p, m))
    }

    #[test]
    fn the_vertices_are_skipped_only_where_none_can_be_due() {
        // A 0.5 m cube (and, one episode in five, a 2 × 0.3 × 0.1 m plank, whose corners reach
        // farther) near a 20 m sphere (near and far slots, curved ground), walked in steps
        // of a micrometre to a centimetre and of 1e-6 to 1e-2 rad, translating, turning or both,
        // with quaternions off their length by up to 1e-9, of unit length or of one from 0.5 to
        // 1.5, and the application point on and off (every hundred steps): at every step
        // `stale` answers what checking every slot answers, and it skipped the
        // vertices at most steps. (It fails with the turn's bound halved, or not divided by
        // the quaternion's length: a turn then moves the corners further than the bound allows.)
        let sphere = Arc::new(tumble_geometry::sdf::Sphere { center: Vec3::new(0.0, 0.0, -20.0), radius: 20.0 });
        let cube = lander(Vec3::repeat(0.5), sphere.clone());
        let plank = lander(Vec3::new(2.0, 0.3, 0.1), sphere);
        let mut g = tumble_math::Lcg::new(11);
        let (mut steps, mut skipped, mut rebuilt) = (0, 0, 0);
        for episode in 0..24 {
            let sys = if episode % 5 == 4 { &plank } else { &cube };
            let radius = [2e-3, 1e-2, 5e-4][episode % 3];
            let mut local = LocalSurface::new(radius, &sys.vertices, 1e-3);
            let lift = sys.vertices.iter().map(|v| -v.z).fold(0.0, f64::max);
            let mut x = Vec3::new(g.symmetric(), g.symmetric(), lift + 0.02 * g.unit());
            let mut q = UnitQuat::from_euler_angles(0.1 * g.symmetric(), 0.1 * g.symmetric(), g.symmetric());
            let y = pack(x, Vec3::zeros(), q, Vec3::zeros(), UnitQuat::identity(), Vec3::zeros());
            local.refresh(sys, &y, None);
            let (dx, turn) = (10f64.powf(g.uniform(-6.0, -2.0)), 10f64.powf(g.uniform(-6.0, -2.0)));
            let dir = Vec3::new(g.symmetric(), g.symmetric(), g.symmetric()).normalize();
            let axis = Vec3::new(g.symmetric(), g.symmetric(), g.symmetric()).normalize();
            let length = if episode % 2 == 0 { 1.0 } else { g.uniform(0.5, 1.5) };
            let r_a = Vec3::new(0.2 * g.symmetric(), 0.2 * g.symmetric(), -0.25);
            for k in 0..500 {
                if episode % 4 != 1 {
                    x += dir * dx;
                }
                if episode % 4 != 2 {
                    q = UnitQuat::from_scaled_axis(axis * turn) * q;
                }
                let mut y = pack(x, Vec3::zeros(), q, Vec3::zeros(), UnitQuat::identity(), Vec3::zeros());
                let stretch = length * (1.0 + 1e-9 * g.symmetric());
                y[6..10].iter_mut().for_each(|c| *c *= stretch);
                let r_p = (k / 100 % 2 == 1).then_some(r_a);
                let before = local.checked.map(|c| c.x);
                let exact = due(&local, sys, &y, r_p);
                assert_eq!(local.stale(sys, &y, r_p), exact, "episode {episode}, step {k}");
                steps += 1;
                skipped += usize::from(!exact && before.is_some() && local.checked.map(|c| c.x) == before);
                if exact {
                    rebuilt += 1;
                    local.refresh(sys, &y, r_p);
                }
            }
        }
        assert!(rebuilt > 100, "slots were rebuilt ({rebuilt} of {steps} steps)");
        assert!(skipped > steps / 2, "the vertices were skipped at {skipped} of {steps} steps");
    }

    #[test]
    fn a_point_that_can_reach_the_surface_within_a_few_steps_keeps_its_model() {
        // A 10 cm box whose corners sit 1 cm above the plane z = 0 (5 R at R = 2 mm), stepped at
        // 2 ms. Drifting at 1 cm/s the corners are far: a lower bound, no gradient. Falling at
        // 5 m/s (a centimetre a step) they could touch within the next step, where a point with
        // no gradient has no time to contact and the step would not be cut into touchdown
        // sub-steps: they keep quadratic models, whose gradient is the plane's normal. So do
        // corners swept at 4.3 m/s by a 50 rad/s spin; at 5 m/s with 0.2 ms steps (8 mm in
        // eight steps) they are far again.
        let sys = lander(Vec3::repeat(0.1), Arc::new(HalfSpace { point: Vec3::zeros(), normal: Vec3::z() }));
        let id = UnitQuat::identity();
        let cases =
            [(0.01, 0.0, 2e-3, true), (5.0, 0.0, 2e-3, false), (0.0, 50.0, 2e-3, false), (5.0, 0.0, 2e-4, true)];
        for (speed, spin, dt, far) in cases {
            let (v, w) = (Vec3::new(0.0, 0.0, -speed), Vec3::new(spin, 0.0, 0.0));
            let y = pack(Vec3::new(0.0, 0.0, 0.06), v, id, w, id, Vec3::zeros());
            let mut local = LocalSurface::new(2e-3, &sys.vertices, dt);
            local.refresh(&sys, &y, None);
            let j = sys.vertices.iter().position(|v| v.z < 0.0).expect("a lower corner");
            let (phi, grad) = local.field(sys.surface.as_ref(), j, &(sys.vertices[j] + Vec3::new(0.0, 0.0, 0.06)));
            if far {
                assert_eq!(grad, Vec3::zeros(), "{speed} m/s, {spin} rad/s, {dt} s");
                assert!(phi > 0.0 && phi <= 0.01);
            } else {
                assert!((grad - Vec3::z()).norm() < 1e-12, "{speed} m/s, {spin} rad/s, {dt} s: {grad:?}");
                assert!((phi - 0.01).abs() < 1e-12);
            }
        }
    }
}
