//! Capture of a free-flying payload by a flexible-joint arm's snare-wire end effector (the
//! snare-wire document, §5: JEMRMS and a 500 kg payload): `[arm]` + `[grapple]`.
//!
//! **Coupling.** The arm is a [`MultibodySystem`] (flexible joints with the Table 2 law, motor
//! servos holding the pose); the payload a free rigid body (state `[p; q; v; ω_body]`). Every
//! contact force `f` on the payload at the world point `x` puts `−f` at `x` on the end-effector
//! link (as an external wrench about the link origin, link axes): action and reaction, so a
//! free-floating arm and the payload keep their total momentum.
//!
//! **Effector frame** `E` (on a link, `[grapple] origin` and `rpy_deg`): origin at the centre of
//! the effector's face (its mouth), `x` out of the face towards the payload, the cavity at
//! `x < 0`. The payload's fixture is a plate (three contact points at `plate_radius` around the
//! shaft's base) and a shaft of radius `r` standing on it.
//!
//! - **Face**: each plate point below `x = 0` is pushed out along `+x` by a stiff unilateral
//!   spring–damper (`K_FACE`, `C_FACE`).
//! - **One wire** (`[grapple.wire]`): the document's wire (Tables 3–4) along `z` in the plane
//!   `x = −depth`, at `y = 0`, approached from `−y`. Where the shaft's axis crosses the plane,
//!   at `c`, the penetration is `δ = c_y + r` and the position along the chord
//!   `s = c_z + l/2 ∈ (0, l)`; the wire engages when `δ` first turns positive and then pushes
//!   along `−y` with [`LooseWire::force`] at the `s` of first contact (slack law up to `Q`,
//!   steel stretch beyond), with regularised Coulomb friction on the slip in the other two
//!   directions.
//! - **Three-wire snare** (`[grapple.snare]`): the ring lies in the plane `x = −depth`. The
//!   closing starts when the shaft's tip is `trigger` deep inside the face; the wires close at
//!   the set rate ([`ThreeWireSnare::force`] on the crossing point, in the ring's `(y, z)`
//!   plane) until their total force reaches the stall force or they close fully. The shaft is
//!   captured if it is then enclosed and held by all three wires; the wires otherwise open and
//!   release it. After a capture the carriage retracts at the set speed, pulling the snared
//!   point of the shaft along `−x` (spring `K_PULL`, damping critical for the payload's mass)
//!   and stops where, with the plate on the face, the spring and the face carry the preload
//!   (`x_stop = −s_snared − P/K_PULL − P/(3 K_FACE)`); rigidised once the face carries 99 % of
//!   it and the shaft moves less than 1 mm/s relative to the effector.
//!
//! RK4 at a fixed step; the state also integrates the impulse the payload receives.

use crate::arm::{ArmModel, mass_and_inertia};
use crate::model::{Check, err, finite3, positive};
use crate::output::{RunDir, first_last};
use crate::plot::{Series, line_plot};
use crate::scenario::{Scenario, ScenarioError};
use crate::snare::{K_PULL, WIRE_SPAN};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use tumble_contact::laws::{ContactLaw, friction};
use tumble_contact::snare::{LooseWire, ThreeWireSnare};
use tumble_dynamics::multibody::Kinematics;
use tumble_dynamics::multibody::spatial::SVec;
use tumble_dynamics::multibody::system::MultibodySystem;
use tumble_dynamics::{Integrator, Method, OdeSystem};
use tumble_math::nalgebra::{Quaternion, UnitQuaternion};
use tumble_math::{Mat3, UnitQuat, Vec3};

/// Stiffness of the effector's face at each of the plate's three points, N/m.
const K_FACE: f64 = 1e6;
/// Damping of the face at each point, N·s/m.
const C_FACE: f64 = 2e4;
/// Most samples a run records.
const MAX_SAMPLES: f64 = 1e6;

/// The payload and its grapple fixture.
#[derive(Clone, Debug)]
pub struct Payload {
    /// Mass, kg.
    pub mass: f64,
    /// Inertia about the centre of mass, body axes, kg·m².
    pub inertia: Mat3,
    /// Its inverse.
    pub inertia_inv: Mat3,
    /// Shaft base (plate centre), body axes, m.
    pub base: Vec3,
    /// Shaft direction, body axes (unit).
    pub axis: Vec3,
    /// Shaft length, m.
    pub shaft_length: f64,
    /// Shaft radius, m.
    pub shaft_radius: f64,
    /// The plate's three contact points, body axes, m.
    pub plate: [Vec3; 3],
}

/// The three-wire snare's operation.
#[derive(Clone, Debug)]
pub struct SnareSettings {
    /// Ring and wires.
    pub snare: ThreeWireSnare,
    /// Depth of the ring's plane inside the face, m.
    pub depth: f64,
    /// Closing angle when open, rad.
    pub open_angle: f64,
    /// Closing rate, rad/s.
    pub closing_rate: f64,
    /// Total wire force that stalls the closing, N.
    pub stall_force: f64,
    /// Tip depth inside the face that starts the closing, m.
    pub trigger: f64,
    /// Carriage retraction speed, m/s.
    pub retract_speed: f64,
    /// Preload of the plate on the face, N.
    pub preload: f64,
}

/// What the end effector holds.
#[derive(Clone, Debug)]
pub enum Effector {
    /// One loose wire (Tables 3–4) in the plane `x = −depth`, with linear damping (N·s/m).
    Wire {
        /// Depth of the wire's plane inside the face, m.
        depth: f64,
        /// Wire damping, N·s/m.
        damping: f64,
    },
    /// A three-wire snare.
    Snare(SnareSettings),
}

/// A validated capture run.
pub struct GrappleCapture {
    /// Scenario name.
    pub name: String,
    /// The arm (its system, initial state, step and duration).
    pub arm: ArmModel,
    /// Link carrying the effector.
    pub link: usize,
    /// Effector frame in the link frame: rotation (effector axes into link axes) and origin.
    pub frame: (Mat3, Vec3),
    /// The payload.
    pub payload: Payload,
    /// Payload state at the start: position, quaternion `[w, x, y, z]`, velocity (world),
    /// angular velocity (body axes).
    pub start: [f64; 13],
    /// Wire or snare.
    pub effector: Effector,
    /// Shaft–wire friction coefficient.
    pub mu: f64,
    /// Friction regularisation speed, m/s.
    pub v_star: f64,
    /// RK4 step, s.
    pub dt: f64,
}

/// Where the snare stands (the wire case stays `Open`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// Open, waiting for the shaft.
    Open,
    /// Closing since `since` (s).
    Closing {
        /// Start of the closing, s.
        since: f64,
    },
    /// Captured at closing angle `angle` (rad); retracting since `since`: the snared point
    /// sits `snared` along the shaft from its base; the carriage started at `from` and stops
    /// at `stop` (effector `x`, m).
    Retracting {
        /// Closing angle held, rad.
        angle: f64,
        /// Start of the retraction, s.
        since: f64,
        /// Snared point's distance from the shaft's base, m.
        snared: f64,
        /// Carriage start, m.
        from: f64,
        /// Carriage stop, m.
        stop: f64,
    },
    /// The wires opened after a failed capture.
    Released,
}

/// One recorded sample.
#[derive(Clone, Debug)]
pub struct GrappleSample {
    /// Time, s.
    pub t: f64,
    /// Joint positions, rad.
    pub q: Vec<f64>,
    /// Motor angles, rad.
    pub motors: Vec<f64>,
    /// Wire or snare force on the payload, effector axes, N.
    pub wire_force: [f64; 3],
    /// Face force on the payload along the effector's axis, N.
    pub face_force: f64,
    /// Wire penetration (one wire), m.
    pub penetration: f64,
    /// Payload position, world, m.
    pub position: [f64; 3],
    /// Payload attitude relative to the start: roll, pitch, yaw, rad.
    pub attitude: [f64; 3],
    /// Payload velocity, world, m/s.
    pub velocity: [f64; 3],
    /// Payload angular velocity, body axes, rad/s.
    pub omega: [f64; 3],
    /// Impulse received by the payload, world, N·s.
    pub impulse: [f64; 3],
    /// Energy of arm, payload and wire, J.
    pub energy: f64,
    /// Closing angle of the snare (0 for a wire), rad.
    pub closing_angle: f64,
}

/// A finished run.
pub struct GrappleRun {
    /// Samples every output interval.
    pub samples: Vec<GrappleSample>,
    /// When the closing started, s.
    pub closing_started: Option<f64>,
    /// When the shaft was captured, s.
    pub captured_at: Option<f64>,
    /// When the plate reached the preload, s.
    pub rigidised_at: Option<f64>,
    /// Why the capture failed (the run goes on with the payload released).
    pub failure: Option<String>,
    /// Why the run stopped early (its samples up to then are kept).
    pub diagnosis: Option<String>,
    /// The engaged wire (one-wire case).
    pub wire: Option<LooseWire>,
    /// Largest wire penetration, m.
    pub max_penetration: f64,
    /// Wall time of the integration, s.
    pub wall_s: f64,
}

/// Loads on the payload (force, torque about its centre, world) and the effector link
/// (force, moment about the link origin, world).
#[derive(Default)]
struct Loads {
    payload: (Vec3, Vec3),
    link: (Vec3, Vec3),
}

impl Loads {
    /// Force `f` on the payload at `x`, its reaction on the link.
    fn add(&mut self, f: Vec3, x: Vec3, payload_com: Vec3, link_origin: Vec3) {
        self.payload.0 += f;
        self.payload.1 += (x - payload_com).cross(&f);
        self.link.0 -= f;
        self.link.1 -= (x - link_origin).cross(&f);
    }
}

/// What the contact evaluation reports besides the loads.
#[derive(Default)]
struct Contact {
    wire_force: Vec3,
    face_force: f64,
    penetration: f64,
    /// Wire crossing point (effector frame) and its parameter along the shaft.
    crossing: Option<(Vec3, f64)>,
    /// Sum of the snare's wire forces, N.
    wire_sum: f64,
    /// Penetration of each snare wire, m.
    pen: [f64; 3],
    /// Velocity of the shaft's crossing point relative to the effector, effector axes.
    crossing_velocity: Vec3,
    /// Shaft tip's `x`, effector frame, m.
    tip: f64,
}

/// The coupled arm–payload ODE.
struct Coupled<'a> {
    cap: &'a GrappleCapture,
    sys: MultibodySystem,
    na: usize,
    phase: Phase,
    wire: Option<LooseWire>,
    v0: f64,
}

fn rotation(q: &[f64]) -> Mat3 {
    UnitQuaternion::new_unchecked(Quaternion::new(q[0], q[1], q[2], q[3])).to_rotation_matrix().into_inner()
}

impl Coupled<'_> {
    /// Contact loads at time `t` and state `y`, and the link's rotation.
    fn contact(&self, t: f64, y: &[f64]) -> (Loads, Contact, Mat3) {
        let mb = &self.sys.model;
        let (nq, nv) = (mb.nq(), mb.nv());
        self.contact_with(t, y, &mb.kinematics(&y[..nq], &y[nq..nq + nv]))
    }

    /// [`Coupled::contact`] with the arm's kinematics `k` at hand.
    fn contact_with(&self, t: f64, y: &[f64], k: &Kinematics) -> (Loads, Contact, Mat3) {
        let cap = self.cap;
        let pl = &cap.payload;
        let ((re, oe), (rl, lo), (we, ve)) = effector_state(k, cap.link, &cap.frame);
        let s = &y[self.na..self.na + 13];
        let (pp, rp, vp) = (Vec3::new(s[0], s[1], s[2]), rotation(&s[3..7]), Vec3::new(s[7], s[8], s[9]));
        let wp = rp * Vec3::new(s[10], s[11], s[12]);
        // Relative velocity (payload point − effector point) at world x, effector axes.
        let rel = |x: Vec3| re.transpose() * ((vp + wp.cross(&(x - pp))) - (ve + we.cross(&(x - lo))));
        let to_e = |x: Vec3| re.transpose() * (x - oe);
        let mut loads = Loads::default();
        let mut c = Contact::default();
        // Face.
        for p in &pl.plate {
            let x = pp + rp * p;
            let depth = -to_e(x).x;
            if depth > 0.0 {
                let f = (K_FACE * depth - C_FACE * rel(x).x).max(0.0);
                c.face_force += f;
                loads.add(re * Vec3::new(f, 0.0, 0.0), x, pp, lo);
            }
        }
        // Shaft crossing the wire or ring plane.
        let (a, u) = (to_e(pp + rp * pl.base), re.transpose() * (rp * pl.axis));
        c.crossing = cap.crossing(&a, &u);
        if let Some((ce, _)) = c.crossing {
            c.crossing_velocity = rel(oe + re * ce);
        }
        c.tip = a.x + pl.shaft_length * u.x;
        let r = pl.shaft_radius;
        match (&cap.effector, self.phase) {
            (Effector::Wire { .. }, _) => {
                if let (Some(w), Some((ce, _))) = (&self.wire, c.crossing) {
                    let delta = ce.y + r;
                    let along = ce.z + 0.5 * WIRE_SPAN;
                    c.penetration = delta;
                    if delta > 0.0 && along > 0.0 && along < WIRE_SPAN {
                        let x = oe + re * ce;
                        let v = rel(x);
                        let n = w.force(delta, v.y, self.v0);
                        let ft = friction(cap.mu, n, &Vec3::new(v.x, 0.0, v.z), cap.v_star);
                        let f = Vec3::new(ft.x, -n, ft.z);
                        c.wire_force = f;
                        loads.add(re * f, x, pp, lo);
                    }
                }
            }
            (Effector::Snare(sn), Phase::Closing { since }) => {
                if let Some((ce, _)) = c.crossing {
                    let x = oe + re * ce;
                    let v = rel(x);
                    let angle = sn.open_angle + sn.closing_rate * (t - since);
                    let (f, pen) = sn.snare.force([ce.y, ce.z], [v.y, v.z], angle, sn.closing_rate);
                    c.wire_sum = sn.snare.wire_load(&pen);
                    c.pen = pen;
                    c.wire_force = Vec3::new(0.0, f[0], f[1]);
                    loads.add(re * c.wire_force, x, pp, lo);
                }
            }
            (Effector::Snare(sn), Phase::Retracting { angle, since, snared, from, stop }) => {
                let x = pp + rp * (pl.base + snared * pl.axis);
                let (ce, v) = (to_e(x), rel(x));
                let (f, pen) = sn.snare.force([ce.y, ce.z], [v.y, v.z], angle, 0.0);
                c.pen = pen;
                let moving = from - sn.retract_speed * (t - since) > stop;
                let (xc, vc) =
                    if moving { (from - sn.retract_speed * (t - since), -sn.retract_speed) } else { (stop, 0.0) };
                let c_pull = 2.0 * (K_PULL * pl.mass).sqrt();
                let axial = -K_PULL * (ce.x - xc) - c_pull * (v.x - vc);
                c.wire_force = Vec3::new(axial, f[0], f[1]);
                loads.add(re * c.wire_force, x, pp, lo);
            }
            _ => {}
        }
        (loads, c, rl)
    }
}

/// Effector pose (rotation, origin), link pose (rotation, origin), and the effector's angular
/// velocity and link-origin velocity (world) from the arm's kinematics.
fn effector_state(k: &Kinematics, link: usize, frame: &(Mat3, Vec3)) -> ((Mat3, Vec3), (Mat3, Vec3), (Vec3, Vec3)) {
    let (r, p) = k.pose[link];
    let sv = k.v[link];
    let (w, vo) = (r * Vec3::new(sv[0], sv[1], sv[2]), r * Vec3::new(sv[3], sv[4], sv[5]));
    let (rf, pf) = frame;
    ((r * rf, p + r * pf), (r, p), (w, vo))
}

impl OdeSystem for Coupled<'_> {
    fn dim(&self) -> usize {
        self.na + 16
    }

    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) {
        let k = {
            let mb = &self.sys.model;
            let (nq, nv) = (mb.nq(), mb.nv());
            mb.kinematics(&y[..nq], &y[nq..nq + nv])
        };
        let (loads, _, r) = self.contact_with(t, y, &k);
        let link = self.cap.link;
        let (n, f) = (r.transpose() * loads.link.1, r.transpose() * loads.link.0);
        self.sys.external[link] = SVec::new(n.x, n.y, n.z, f.x, f.y, f.z);
        let na = self.na;
        self.sys.derivatives(&k, &y[..na], &mut dydt[..na]);
        let pl = &self.cap.payload;
        let s = &y[na..na + 13];
        let (q, w) = ([s[3], s[4], s[5], s[6]], Vec3::new(s[10], s[11], s[12]));
        let rp = rotation(&q);
        let torque = rp.transpose() * loads.payload.1;
        let wd = pl.inertia_inv * (torque - w.cross(&(pl.inertia * w)));
        let d = &mut dydt[na..];
        d[..3].copy_from_slice(&s[7..10]);
        // q̇ = ½ q ⊗ (0, ω).
        d[3] = -0.5 * (q[1] * w.x + q[2] * w.y + q[3] * w.z);
        d[4] = 0.5 * (q[0] * w.x + q[2] * w.z - q[3] * w.y);
        d[5] = 0.5 * (q[0] * w.y + q[3] * w.x - q[1] * w.z);
        d[6] = 0.5 * (q[0] * w.z + q[1] * w.y - q[2] * w.x);
        let a = loads.payload.0 / pl.mass;
        d[7..10].copy_from_slice(a.as_slice());
        d[10..13].copy_from_slice(wd.as_slice());
        d[13..16].copy_from_slice(loads.payload.0.as_slice());
    }

    fn project(&self, y: &mut [f64]) {
        self.sys.project(&mut y[..self.na]);
        let q = &mut y[self.na + 3..self.na + 7];
        let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
        q.iter_mut().for_each(|x| *x /= n);
    }
}

impl GrappleCapture {
    /// Where the shaft (base `a`, unit axis `u`, effector frame) crosses the wire's or the
    /// ring's plane `x = −depth`, and how far along the shaft; `None` if it does not, or runs
    /// within 1e-3 rad of parallel to the plane.
    fn crossing(&self, a: &Vec3, u: &Vec3) -> Option<(Vec3, f64)> {
        let plane = match &self.effector {
            Effector::Wire { depth, .. } => -depth,
            Effector::Snare(sn) => -sn.depth,
        };
        let tau = (plane - a.x) / u.x;
        (u.x.abs() > 1e-3 && (0.0..=self.payload.shaft_length).contains(&tau)).then(|| (a + tau * u, tau))
    }

    /// Validates `[arm]`, `[grapple]` and `[simulation]` (RK4).
    pub fn build(sc: &Scenario) -> Result<Self, ScenarioError> {
        Self::check(sc).map_err(|(k, m)| sc.error_at(&k, m))
    }

    fn check(sc: &Scenario) -> Check<Self> {
        let Some(g) = &sc.file.grapple else { return err("grapple", "a capture by an arm needs a [grapple] table") };
        let arm = ArmModel::check(sc)?;
        let Method::Rk4 { dt } = arm.method else {
            return err("simulation.integrator", "grapple runs use `rk4` (fixed step through the contacts)");
        };
        let mb = &arm.system.model;
        let link = mb
            .links
            .iter()
            .zip(&arm.joint_names)
            .position(|(l, j)| l.name == g.link || j.as_deref() == Some(g.link.as_str()))
            .ok_or_else(|| ("grapple.link".to_string(), format!("no link or joint named `{}` in the arm", g.link)))?;
        let rpy = |key: &str, a: [f64; 3]| -> Check<Mat3> {
            let a = finite3(key, a)?.map(f64::to_radians);
            Ok(UnitQuat::from_euler_angles(a.x, a.y, a.z).to_rotation_matrix().into_inner())
        };
        let frame = (rpy("grapple.rpy_deg", g.rpy_deg)?, finite3("grapple.origin", g.origin)?);

        let ps = &g.payload;
        let (mass, inertia) = mass_and_inertia("grapple.payload", ps.mass, &ps.inertia)?;
        let fx = &ps.fixture;
        let axis = finite3("grapple.payload.fixture.axis", fx.axis)?
            .try_normalize(1e-12)
            .ok_or(("grapple.payload.fixture.axis".to_string(), "must be a non-zero vector".to_string()))?;
        let base = finite3("grapple.payload.fixture.base", fx.base)?;
        let shaft_length = positive("grapple.payload.fixture.shaft_length", fx.shaft_length, "m")?;
        let shaft_radius = positive("grapple.payload.fixture.shaft_radius", fx.shaft_radius, "m")?;
        let rho = positive("grapple.payload.fixture.plate_radius", fx.plate_radius, "m")?;
        let e1 = axis.cross(&if axis.x.abs() < 0.9 { Vec3::x() } else { Vec3::y() }).normalize();
        let e2 = axis.cross(&e1);
        let plate = std::array::from_fn(|i| {
            let a = std::f64::consts::TAU * i as f64 / 3.0;
            base + rho * (a.cos() * e1 + a.sin() * e2)
        });
        let inertia_inv =
            inertia.try_inverse().ok_or(("grapple.payload.inertia".to_string(), "is singular".to_string()))?;
        let payload = Payload { mass, inertia, inertia_inv, base, axis, shaft_length, shaft_radius, plate };

        let effector = match (&g.wire, &g.snare) {
            (Some(w), None) => {
                if !(w.damping.is_finite() && w.damping >= 0.0) {
                    return err("grapple.wire.damping", format!("must be >= 0 (N·s/m), got {}", w.damping));
                }
                Effector::Wire { depth: positive("grapple.wire.depth", w.depth, "m")?, damping: w.damping }
            }
            (None, Some(s)) => {
                let key = |k: &str| format!("grapple.snare.{k}");
                let law = ContactLaw::spring_dashpot(s.stiffness, s.damping);
                let snare =
                    ThreeWireSnare::new(s.ring_radius, shaft_radius, law).map_err(|e| (key("ring_radius"), e))?;
                if !(s.open_deg > 0.0 && s.open_deg < 180.0) {
                    return err(key("open_deg"), format!("must lie in (0, 180) deg, got {}", s.open_deg));
                }
                let depth = positive(&key("depth"), s.depth, "m")?;
                let trigger = positive(&key("trigger"), s.trigger, "m")?;
                if trigger <= depth {
                    return err(
                        key("trigger"),
                        format!("must exceed depth ({depth} m): the tip has to pass the ring's plane, got {trigger}"),
                    );
                }
                Effector::Snare(SnareSettings {
                    snare,
                    depth,
                    open_angle: s.open_deg.to_radians(),
                    closing_rate: positive(&key("closing_rate"), s.closing_rate, "rad/s")?,
                    stall_force: positive(&key("stall_force"), s.stall_force, "N")?,
                    trigger,
                    retract_speed: positive(&key("retract_speed"), s.retract_speed, "m/s")?,
                    preload: positive(&key("preload"), s.preload, "N")?,
                })
            }
            _ => return err("grapple", "give exactly one of [grapple.wire] (one wire) or [grapple.snare]"),
        };
        if !(g.mu.is_finite() && g.mu >= 0.0) {
            return err("grapple.mu", format!("must be >= 0, got {}", g.mu));
        }
        let v_star = positive("grapple.v_star", g.v_star, "m/s")?;

        // The payload's start from the effector frame at the arm's initial state.
        let (nq, nv) = (mb.nq(), mb.nv());
        let y0 = &arm.initial_state;
        let ((re, oe), _, _) = effector_state(&mb.kinematics(&y0[..nq], &y0[nq..nq + nv]), link, &frame);
        let rp = re * rpy("grapple.payload.rpy_deg", ps.rpy_deg)?;
        let p = oe + re * finite3("grapple.payload.position", ps.position)?;
        let q = UnitQuat::from_matrix(&rp);
        let v = re * finite3("grapple.payload.velocity", ps.velocity)?;
        let w = rp.transpose() * (re * finite3("grapple.payload.angular_velocity", ps.angular_velocity)?);
        let start = [p.x, p.y, p.z, q.w, q.i, q.j, q.k, v.x, v.y, v.z, w.x, w.y, w.z];
        let cap = Self { name: arm.name.clone(), arm, link, frame, payload, start, effector, mu: g.mu, v_star, dt };
        if cap.arm.duration / (cap.sample_every() as f64 * dt) > MAX_SAMPLES {
            return err("simulation.output_interval", "would record more than 1e6 samples: raise it");
        }
        // Where the fixture starts.
        let ode = cap.ode();
        let y = cap.initial_state();
        let (_, c, _) = ode.contact(0.0, &y);
        if c.face_force > 0.0 {
            return err("grapple.payload.position", "the fixture's plate starts inside the effector's face (x < 0)");
        }
        match &cap.effector {
            Effector::Wire { .. } => {
                if let Some((ce, _)) = c.crossing
                    && ce.y + shaft_radius > 0.0
                {
                    return err(
                        "grapple.payload.position",
                        format!(
                            "the shaft starts on or beyond the wire (y + r = {:.4} m > 0): start it on the −y side",
                            ce.y + shaft_radius
                        ),
                    );
                }
            }
            Effector::Snare(s) => {
                if c.tip <= -s.trigger {
                    return err("grapple.payload.position", "the shaft's tip starts past the trigger depth");
                }
            }
        }
        Ok(cap)
    }

    fn ode(&self) -> Coupled<'_> {
        let mut sys = self.arm.system.clone();
        sys.external = vec![SVec::zeros(); sys.model.links.len()];
        Coupled { cap: self, na: self.arm.initial_state.len(), sys, phase: Phase::Open, wire: None, v0: 0.0 }
    }

    /// The coupled state at the start: `[arm; payload; impulse]`.
    pub fn initial_state(&self) -> Vec<f64> {
        let mut y = self.arm.initial_state.clone();
        y.extend_from_slice(&self.start);
        y.extend_from_slice(&[0.0; 3]);
        y
    }

    /// Linear and angular momentum (about the world origin) of the arm's links and the payload
    /// at the coupled state `y`.
    pub fn momentum(&self, y: &[f64]) -> (Vec3, Vec3) {
        let mb = &self.arm.system.model;
        let (nq, nv, na) = (mb.nq(), mb.nv(), self.arm.initial_state.len());
        let (p_arm, l_arm) = mb.momentum(&y[..nq], &y[nq..nq + nv]);
        let s = &y[na..na + 13];
        let (r, v, w) = (Vec3::new(s[0], s[1], s[2]), Vec3::new(s[7], s[8], s[9]), Vec3::new(s[10], s[11], s[12]));
        let rp = rotation(&s[3..7]);
        let m = self.payload.mass;
        (p_arm + m * v, l_arm + r.cross(&(m * v)) + rp * (self.payload.inertia * w))
    }

    /// Runs the capture; `on_step` sees every step's time and state.
    pub fn run_with(&self, on_step: &mut dyn FnMut(f64, &[f64])) -> GrappleRun {
        let started = std::time::Instant::now();
        let mut ode = self.ode();
        let mut y = self.initial_state();
        let na = ode.na;
        let mb = &self.arm.system.model;
        let (nq, nv, nf) = (mb.nq(), mb.nv(), self.arm.system.flexible.len());
        let r0 = rotation(&self.start[3..7]);
        let every = self.sample_every();
        let steps = (self.arm.duration / self.dt).round() as u64;
        let mut integ = Integrator::new(Method::Rk4 { dt: self.dt }, y.len());
        let mut run = GrappleRun {
            samples: Vec::with_capacity((steps / every + 1) as usize),
            closing_started: None,
            captured_at: None,
            rigidised_at: None,
            failure: None,
            diagnosis: None,
            wire: None,
            max_penetration: 0.0,
            wall_s: 0.0,
        };
        for k in 0..=steps {
            let t = k as f64 * self.dt;
            let (_, mut c, _) = ode.contact(t, &y);
            let before = (ode.phase, ode.wire.is_some());
            self.advance_phase(&mut ode, &mut run, t, &c);
            if (ode.phase, ode.wire.is_some()) != before {
                c = ode.contact(t, &y).1;
            }
            if ode.wire.is_some() {
                run.max_penetration = run.max_penetration.max(c.penetration);
            }
            if k % every == 0 || k == steps {
                let s = &y[na..na + 13];
                let rel = r0.transpose() * rotation(&s[3..7]);
                let (roll, pitch, yaw) = UnitQuat::from_matrix(&rel).euler_angles();
                let (vp, w) = (Vec3::new(s[7], s[8], s[9]), Vec3::new(s[10], s[11], s[12]));
                let wire_energy = match &ode.wire {
                    Some(wire) if c.penetration > 0.0 => wire.energy(c.penetration),
                    _ => 0.0,
                };
                let closing_angle = match (&self.effector, ode.phase) {
                    (Effector::Snare(sn), Phase::Closing { since }) => sn.open_angle + sn.closing_rate * (t - since),
                    (Effector::Snare(_), Phase::Retracting { angle, .. }) => angle,
                    (Effector::Snare(sn), _) => sn.open_angle,
                    _ => 0.0,
                };
                run.samples.push(GrappleSample {
                    t,
                    q: y[..nq].to_vec(),
                    motors: y[nq + nv..nq + nv + nf].to_vec(),
                    wire_force: c.wire_force.into(),
                    face_force: c.face_force,
                    penetration: c.penetration,
                    position: [s[0], s[1], s[2]],
                    attitude: [roll, pitch, yaw],
                    velocity: vp.into(),
                    omega: w.into(),
                    impulse: [y[na + 13], y[na + 14], y[na + 15]],
                    energy: ode.sys.energy(&y[..na])
                        + 0.5 * self.payload.mass * vp.norm_squared()
                        + 0.5 * w.dot(&(self.payload.inertia * w))
                        + wire_energy,
                    closing_angle,
                });
            }
            if k == steps {
                break;
            }
            integ.step_once(&mut ode, t, &mut y, self.dt);
            on_step(t + self.dt, &y);
            run.diagnosis = crate::run::non_finite(&y, t + self.dt, self.dt, "");
            if run.diagnosis.is_some() {
                break;
            }
        }
        run.wire = ode.wire;
        run.wall_s = started.elapsed().as_secs_f64();
        run
    }

    /// Steps between recorded samples: the output interval in whole steps, at least one.
    fn sample_every(&self) -> u64 {
        ((self.arm.output_interval / self.dt).round() as u64).max(1)
    }

    /// Runs the capture.
    pub fn run(&self) -> GrappleRun {
        self.run_with(&mut |_, _| {})
    }

    /// Engages the wire, starts, stops or releases the snare, and marks the rigidisation, at a
    /// step boundary.
    fn advance_phase(&self, ode: &mut Coupled<'_>, run: &mut GrappleRun, t: f64, c: &Contact) {
        let r = self.payload.shaft_radius;
        match &self.effector {
            Effector::Wire { damping, .. } => {
                if ode.wire.is_none()
                    && let Some((ce, _)) = c.crossing
                {
                    let along = ce.z + 0.5 * WIRE_SPAN;
                    if ce.y + r > 0.0 && along > 0.0 && along < WIRE_SPAN {
                        match LooseWire::table4(along, *damping) {
                            Ok(w) => {
                                ode.wire = Some(w);
                                ode.v0 = c.crossing_velocity.y;
                            }
                            Err(e) => run.diagnosis = Some(e),
                        }
                    }
                }
            }
            Effector::Snare(sn) => match ode.phase {
                Phase::Open if c.tip <= -sn.trigger => {
                    run.closing_started = Some(t);
                    let inside = c.crossing.map(|(ce, _)| ce.y.hypot(ce.z));
                    match inside {
                        Some(off) if off < sn.snare.ring_radius - r => ode.phase = Phase::Closing { since: t },
                        _ => {
                            ode.phase = Phase::Released;
                            run.failure = Some(format!(
                                "the shaft is not inside the ring when the closing starts at t = {t:.3} s ({})",
                                inside.map_or("it does not cross the ring's plane".into(), |o| format!(
                                    "{:.1} mm off the axis; the ring admits {:.1} mm",
                                    1e3 * o,
                                    1e3 * (sn.snare.ring_radius - r)
                                ))
                            ));
                        }
                    }
                }
                Phase::Closing { since } => {
                    let angle = sn.open_angle + sn.closing_rate * (t - since);
                    let ring = sn.snare.ring_radius - r;
                    let Some((ce, tau)) = c.crossing else {
                        ode.phase = Phase::Released;
                        run.failure = Some(format!("the shaft left the ring's plane at t = {t:.3} s"));
                        return;
                    };
                    if ce.y.hypot(ce.z) >= ring {
                        ode.phase = Phase::Released;
                        run.failure = Some(format!("the shaft left the ring at t = {t:.3} s before the wires closed"));
                    } else if c.wire_sum >= sn.stall_force || angle >= std::f64::consts::PI - 1e-3 {
                        match sn.snare.holds([ce.y, ce.z], angle, &c.pen) {
                            Ok(()) => {
                                ode.phase = Phase::Retracting {
                                    angle,
                                    since: t,
                                    snared: tau,
                                    from: ce.x,
                                    stop: -tau - sn.preload / K_PULL - sn.preload / (3.0 * K_FACE),
                                };
                                run.captured_at = Some(t);
                            }
                            Err(why) => {
                                ode.phase = Phase::Released;
                                run.failure = Some(format!("{why} (t = {t:.3} s)"));
                            }
                        }
                    }
                }
                Phase::Retracting { since, from, stop, .. } if run.rigidised_at.is_none() => {
                    let parked = from - sn.retract_speed * (t - since) <= stop;
                    if parked && c.face_force >= 0.99 * sn.preload && c.crossing_velocity.norm() < 1e-3 {
                        run.rigidised_at = Some(t);
                    }
                }
                _ => {}
            },
        }
    }
}

/// Writes `timeseries.csv`, `summary.json` and plots (joint angles, reaction force, payload
/// attitude and velocity, snare closing) into `dir`.
pub fn write_grapple_run(dir: &Path, cap: &GrappleCapture, run: &GrappleRun) -> Result<Value, String> {
    let out = RunDir::create(dir)?;
    let (first, last) = first_last(&run.samples)?;
    let nq = first.q.len();
    let nf = first.motors.len();
    out.csv("timeseries.csv", |w| {
        let mut head = vec!["t_s".to_string()];
        head.extend((0..nq).map(|i| format!("q{i}_rad")));
        head.extend((0..nf).map(|i| format!("motor{i}_rad")));
        head.extend(
            [
                "wire_fx_N",
                "wire_fy_N",
                "wire_fz_N",
                "face_N",
                "penetration_m",
                "x_m",
                "y_m",
                "z_m",
                "roll_rad",
                "pitch_rad",
                "yaw_rad",
                "vx_m_s",
                "vy_m_s",
                "vz_m_s",
                "wx_rad_s",
                "wy_rad_s",
                "wz_rad_s",
                "impulse_x_Ns",
                "impulse_y_Ns",
                "impulse_z_Ns",
                "energy_J",
                "closing_angle_rad",
            ]
            .map(String::from),
        );
        writeln!(w, "{}", head.join(","))?;
        for s in &run.samples {
            let mut row = vec![s.t];
            row.extend(&s.q);
            row.extend(&s.motors);
            row.extend(s.wire_force);
            row.extend([s.face_force, s.penetration]);
            row.extend(s.position.iter().chain(&s.attitude).chain(&s.velocity).chain(&s.omega).chain(&s.impulse));
            row.extend([s.energy, s.closing_angle]);
            writeln!(w, "{}", row.iter().map(|x| format!("{x:e}")).collect::<Vec<_>>().join(","))?;
        }
        Ok(())
    })?;

    let t: Vec<f64> = run.samples.iter().map(|s| s.t).collect();
    let col = |f: &dyn Fn(&GrappleSample) -> f64| run.samples.iter().map(f).collect::<Vec<f64>>();
    let mb = &cap.arm.system.model;
    let joints: Vec<Series> = (0..mb.links.len())
        .filter(|&l| mb.links[l].joint.nv() == 1)
        .map(|l| {
            let i = mb.q_index(mb.v_index(l));
            Series {
                label: cap.arm.joint_names.get(l).cloned().flatten().unwrap_or_else(|| mb.links[l].name.clone()),
                x: &t,
                y: col(&|s| (s.q[i] - first.q[i]).to_degrees()),
            }
        })
        .collect();
    let deg = |i: usize| move |s: &GrappleSample| s.attitude[i].to_degrees();
    let plots: Vec<(&str, &str, &str, Vec<Series>)> = vec![
        ("joint_angles", "Joint angles (change from the start)", "deg", joints),
        (
            "reaction_force",
            "Reaction force on the payload (effector axes)",
            "N",
            vec![
                Series { label: "x (axial)".into(), x: &t, y: col(&|s| s.wire_force[0]) },
                Series { label: "y".into(), x: &t, y: col(&|s| s.wire_force[1]) },
                Series { label: "z".into(), x: &t, y: col(&|s| s.wire_force[2]) },
                Series { label: "face".into(), x: &t, y: col(&|s| s.face_force) },
            ],
        ),
        (
            "payload_attitude",
            "Payload attitude (from the start)",
            "deg",
            vec![
                Series { label: "roll".into(), x: &t, y: col(&deg(0)) },
                Series { label: "pitch".into(), x: &t, y: col(&deg(1)) },
                Series { label: "yaw".into(), x: &t, y: col(&deg(2)) },
            ],
        ),
        (
            "payload_velocity",
            "Payload velocity (world)",
            "m/s",
            vec![
                Series { label: "vx".into(), x: &t, y: col(&|s| s.velocity[0]) },
                Series { label: "vy".into(), x: &t, y: col(&|s| s.velocity[1]) },
                Series { label: "vz".into(), x: &t, y: col(&|s| s.velocity[2]) },
            ],
        ),
    ];
    for (stem, title, unit, series) in &plots {
        line_plot(&out.plot(stem), title, "time [s]", unit, series, false)?;
    }
    let captured = run.captured_at.is_some();
    let outcome = match (&cap.effector, captured, run.rigidised_at) {
        (_, _, Some(_)) => "rigidised",
        (_, true, None) => "captured",
        (Effector::Snare(_), false, _) => "not captured",
        (Effector::Wire { .. }, _, _) => match (&run.wire, last.penetration > 0.0) {
            (None, _) => "no contact",
            (Some(_), false) => "bounced off",
            (Some(_), true) => "held against the wire",
        },
    };
    let summary = json!({
        "scenario": cap.name,
        "outcome": outcome,
        "capture_failure": run.failure,
        "diagnosis": run.diagnosis,
        "final_time_s": last.t,
        "closing_started_s": run.closing_started,
        "captured_s": run.captured_at,
        "rigidised_s": run.rigidised_at,
        "wire_contact_position_m": run.wire.as_ref().map(|w| w.position),
        "slack_limit_Q_m": run.wire.as_ref().map(|w| w.slack),
        "max_penetration_m": run.max_penetration,
        "peak_wire_force_N": run.samples.iter().map(|s| s.wire_force.iter().map(|x| x * x).sum::<f64>().sqrt()).fold(0.0, f64::max),
        "peak_face_force_N": run.samples.iter().map(|s| s.face_force).fold(0.0, f64::max),
        "impulse_Ns": last.impulse,
        "payload_velocity_initial_m_s": first.velocity,
        "payload_velocity_final_m_s": last.velocity,
        "payload_angular_velocity_final_rad_s": last.omega,
        "payload_attitude_final_deg": last.attitude.map(f64::to_degrees),
        "largest_joint_excursion_deg": run.samples.iter().flat_map(|s| s.q.iter().zip(&first.q).map(|(a, b)| (a - b).abs().to_degrees())).fold(0.0, f64::max),
        "energy_initial_J": first.energy,
        "energy_final_J": last.energy,
        "wall_time_s": run.wall_s,
        "real_time_factor": last.t / run.wall_s.max(1e-9),
    });
    out.json("summary.json", &summary)?;
    animation(cap, run).write_glb(&dir.join("animation.glb"))?;
    Ok(summary)
}

/// The capture as an animation: the arm's links (inertia-equivalent boxes; the effector's link
/// with its ring or the wire's span), and the payload (its inertia box, shaft and plate points),
/// all animated; the wires as they close or bend, and their force on the payload.
pub fn animation(cap: &GrappleCapture, run: &GrappleRun) -> crate::anim::Animation {
    use crate::anim::{Animation, ellipsoid_mesh, inertia_box, inertia_box_at, rod};
    let mb = &cap.arm.system.model;
    let mut anim = Animation::new();
    let (re, oe) = cap.frame;
    let (depth, radius) = match &cap.effector {
        Effector::Snare(sn) => (sn.depth, sn.snare.ring_radius),
        Effector::Wire { depth, .. } => (*depth, 0.5 * WIRE_SPAN),
    };
    for (k, l) in mb.links.iter().enumerate() {
        let mut meshes = Vec::new();
        if l.mass > 0.0 {
            meshes.push(inertia_box_at(l.mass, &l.inertia, &l.com, [0.8, 0.75, 0.3, 1.0]));
        }
        if k == cap.link {
            // The effector: its ring (or the wire's span) in the plane x = −depth of frame E.
            let at = |a: f64| oe + re * Vec3::new(-depth, radius * a.cos(), radius * a.sin());
            for i in 0..24 {
                let (a0, a1) = (i as f64 / 24.0 * std::f64::consts::TAU, (i + 1) as f64 / 24.0 * std::f64::consts::TAU);
                meshes.push(rod(&at(a0), &at(a1), 0.01 * radius, [0.3, 0.3, 0.35, 1.0]));
            }
        }
        anim.body(&l.name, meshes);
    }
    let pl = &cap.payload;
    let mut payload = vec![
        inertia_box(pl.mass, &pl.inertia, [0.3, 0.5, 0.8, 1.0]),
        rod(&pl.base, &(pl.base + pl.axis * pl.shaft_length), pl.shaft_radius, [0.7, 0.7, 0.75, 1.0]),
    ];
    payload.extend(pl.plate.iter().map(|p| ellipsoid_mesh(p, &(Mat3::identity() * 0.02), [0.9, 0.3, 0.2, 1.0])));
    anim.body("payload", payload);
    // The wires (effector frame, plane x = −depth): the snare's three chords from the fixed
    // anchors at 2πi/3 to the turning ones at 2πi/3 + Δ; the loose wire's two segments from its
    // ends to the shaft's surface while the shaft presses it, straight otherwise. Then the wires'
    // force on the payload at the crossing, the largest as long as the ring's radius.
    let wires = match &cap.effector {
        Effector::Snare(_) => 3,
        Effector::Wire { .. } => 2,
    };
    for i in 0..wires {
        anim.strand(&format!("wire {}", i + 1), 0.1 * pl.shaft_radius, [0.9, 0.3, 0.2, 1.0]);
    }
    let peak = run.samples.iter().map(|s| Vec3::from(s.wire_force).norm()).fold(0.0, f64::max);
    let per_newton = if peak > 0.0 { radius / peak } else { 0.0 };
    anim.arrow("wire force", 0.2 * pl.shaft_radius, crate::anim::FORCE_COLOR);
    let q0 = UnitQuat::from_matrix(&rotation(&cap.start[3..7]));
    let nv = mb.nv();
    let on_ring = |a: f64| Vec3::new(-depth, radius * a.cos(), radius * a.sin());
    for s in &run.samples {
        let k = mb.kinematics(&s.q, &vec![0.0; nv]);
        let mut poses: Vec<(Vec3, UnitQuat)> = k.pose.iter().map(|(R, p)| (*p, UnitQuat::from_matrix(R))).collect();
        let [roll, pitch, yaw] = s.attitude;
        let (pp, qp) = (Vec3::from(s.position), q0 * UnitQuat::from_euler_angles(roll, pitch, yaw));
        poses.push((pp, qp));
        anim.frame(s.t, &poses);
        let (rl, ol) = k.pose[cap.link];
        let (rw, ow) = (rl * re, ol + rl * oe);
        let world = |x: Vec3| ow + rw * x;
        let crossing = cap.crossing(&(rw.transpose() * (pp + qp * pl.base - ow)), &(rw.transpose() * (qp * pl.axis)));
        let mut overlays: Vec<(Vec3, Vec3)> = match &cap.effector {
            Effector::Snare(_) => (0..3)
                .map(|i| {
                    let a = i as f64 * std::f64::consts::TAU / 3.0;
                    let from = world(on_ring(a));
                    (from, world(on_ring(a + s.closing_angle)) - from)
                })
                .collect(),
            Effector::Wire { .. } => {
                let ends = [Vec3::new(-depth, 0.0, -radius), Vec3::new(-depth, 0.0, radius)];
                let bend = match crossing {
                    Some((ce, _)) if s.penetration > 0.0 && ce.z.abs() < radius => {
                        Vec3::new(-depth, ce.y + pl.shaft_radius, ce.z)
                    }
                    _ => Vec3::new(-depth, 0.0, 0.0),
                };
                ends.iter().map(|e| (world(*e), rw * (bend - e))).collect()
            }
        };
        let at = crossing.map_or(pp, |(ce, _)| world(ce));
        overlays.push((at, rw * Vec3::from(s.wire_force) * per_newton));
        anim.overlays(&overlays);
    }
    anim
}
