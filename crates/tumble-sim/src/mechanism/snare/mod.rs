//! The LEE's three-wire snare on the interference engine (`[mechanism.snare]`).
//!
//! **Geometry.** The ring frame `S` sits on the carrier body (its z axis out of the mouth); its
//! three wires are segments of the interference engine, each of length `2R`, on the chords of
//! the in-plane model ([`tumble_contact::snare::ThreeWireSnare::lines`]): wire `k` (`aₖ = 2πk/3`)
//! at closing angle `Δ` has its midpoint at `mₖ = R cos(Δ/2) nₖ − s ẑ` and runs along
//! `tₖ = ẑ × nₖ`, with `nₖ = (cos φₖ, sin φₖ, 0)`, `φₖ = aₖ + Δ/2`, `s` the carriage's retraction.
//! The segments reach past the ring's anchors (the chord is `2R sin(Δ/2)` long), outside the
//! ring where a shaft inside it cannot be. Each wire meets the target's primitives with the law
//! and friction of the carrier model's contact set `contact`.
//!
//! **Drives.** Two generalised coordinates `Δ`, `s` relative to the carrier, each with a DC motor
//! line at its output, `τ = τ_s (1 − Δ̇/ω₀)` and `F = F_s (1 − ṡ/v₀)`, and a reflected inertia:
//!
//! ```text
//! J Δ̈ = τ + Q_Δ,   m_c s̈ = F + Q_s,
//! Q_Δ = Σₖ fₖ·∂mₖ/∂Δ + ½ ẑ·τₖ,   ∂mₖ/∂Δ = (R/2)(−sin(Δ/2) nₖ + cos(Δ/2) tₖ),   Q_s = −Σₖ ẑ·fₖ
//! ```
//!
//! (`fₖ`, `τₖ` the contact force and moment on wire `k` about its midpoint, ring axes): the
//! virtual work of the wires' contacts, whose velocities the engine is given as exactly these
//! derivatives times the rates plus the carrier's motion. The wires are massless, so their whole
//! contact wrench passes to the carrier; the motors act between the carrier and their
//! coordinates (internal: no term on the carrier). The rotors' coupling to the carrier's own
//! acceleration is neglected (their inertia is reflected to their coordinate only). A drive
//! not running is braked (its rate held at zero).
//!
//! **Commands.** A user's controller may command either drive between steps (inputs
//! `snare.ring`, `snare.carriage`): a command `u ∈ [−1, 1]`, the fraction of the motor's rated
//! voltage, shifts its line to `τ = τ_s (u − Δ̇/ω₀)` (`F = F_s (u − ṡ/v₀)`) and runs the drive in
//! every stage, unbraked; no value hands it back to the sequence, which brakes it unless its
//! stage runs it. The sequence still judges: the ring stalls when `−Q_Δ ≥ τ_s u / 2`, the face
//! carries the preload at `0.99 F_s u`; the ring stays within `0 ≤ Δ ≤ π` and the carriage
//! within `0 ≤ s ≤` its stroke (a stop brakes the rate into it).
//!
//! **Sequence.** Open (both braked at `Δ₀`, `s = 0`) until the target's `tip` is `trigger` deep
//! behind the ring's plane; closing until the ring stalls on the shaft (`Δ̇ < ω₀/100` with a wire
//! touching it) or closes fully (`Δ = π`), then braked: captured if every wire touches the
//! target and their pushes on it, in the ring plane, surround it (the origin strictly inside
//! the triangle of the three force directions); then the carriage retracts, the wires slide
//! along the shaft onto its knob and pull the fixture onto the carrier's face until the face
//! carries 99 % of the carriage's stall force (the preload) with the target moving less than
//! 1 mm/s relative to the carrier: rigidised. Failures (missed, the shaft slipping out of the
//! wires, the carriage at its end stop) end the run with the reason.

use super::MechBody;
use crate::pipeline::BuildError;
use crate::scenario::check::positive;
use std::f64::consts::PI;
use std::sync::Arc;
use tumble_contact::interference::Model as ContactModel;
use tumble_contact::interference::{ActiveContact, Engine};
use tumble_geometry::primitive::Primitive;
use tumble_math::{Mat3, Pose, UnitQuat, Vec3};

/// A DC motor drive at its output: `τ(ω) = stall (1 − ω/no_load_speed)`, rotor inertia
/// reflected to the output.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DcDrive {
    /// Stall torque (N·m) or force (N).
    pub stall: f64,
    /// No-load speed, rad/s or m/s.
    pub no_load_speed: f64,
    /// Reflected inertia, kg·m² or kg.
    pub inertia: f64,
}

impl DcDrive {
    /// Torque (force) at output speed `speed` at full command.
    pub fn output(&self, speed: f64) -> f64 {
        self.commanded(1.0, speed)
    }

    /// Torque (force) at output speed `speed` under command `u` (the fraction of the rated
    /// voltage, −1 to 1): `stall (u − ω/no_load_speed)`, the DC motor's line shifted by its
    /// voltage.
    pub fn commanded(&self, u: f64, speed: f64) -> f64 {
        self.stall * (u - speed / self.no_load_speed)
    }
}

/// A snare as given to [`super::MechanismBuilder::snare`] (bodies by name; the keys of
/// `[mechanism.snare]`).
#[derive(Clone, Debug)]
pub struct SnareInput {
    /// The body carrying the snare.
    pub carrier: String,
    /// The free body captured.
    pub target: String,
    /// The carrier model's contact set used by the wires.
    pub contact: String,
    /// Ring frame in the carrier's frame (z out of the mouth).
    pub ring: (UnitQuat, Vec3),
    /// Ring radius, m.
    pub ring_radius: f64,
    /// Closing angle of the open snare, rad.
    pub open_angle: f64,
    /// The target's point whose depth triggers the closing (target frame), m.
    pub tip: Vec3,
    /// Trigger depth behind the ring's plane, m.
    pub trigger: f64,
    /// Closing motor.
    pub motor: DcDrive,
    /// Carriage drive (its stall force is the preload).
    pub carriage: DcDrive,
    /// Carriage travel, m.
    pub stroke: f64,
}

/// A validated snare.
#[derive(Clone, Debug)]
pub struct Snare {
    /// Carrier body index.
    pub carrier: usize,
    /// Target body index.
    pub target: usize,
    /// Ring frame in the carrier frame: rotation `R_CS` and origin, m.
    pub ring: (Mat3, Vec3),
    /// Ring radius `R`, m.
    pub ring_radius: f64,
    /// `Δ₀`, rad.
    pub open_angle: f64,
    /// Trigger point (target frame), m.
    pub tip: Vec3,
    /// Trigger depth, m.
    pub trigger: f64,
    /// One wire: a segment of length `2R` along its frame's y axis.
    pub wire: Arc<ContactModel>,
    /// Closing motor.
    pub motor: DcDrive,
    /// Carriage drive.
    pub carriage: DcDrive,
    /// Carriage travel, m.
    pub stroke: f64,
    /// Index of the carrier–target pair in [`super::Mechanism::pairs`] (the face).
    pub face: usize,
}

/// State components of the drives: `[Δ, Δ̇, s, ṡ]`.
pub const DRIVE_STATE_LEN: usize = 4;

/// A wire's pose in the ring frame and its midpoint's rate per unit `Δ̇`.
struct WireGeometry {
    midpoint: Vec3,
    rotation: Mat3,
    d_midpoint: Vec3,
}

impl Snare {
    /// Wire `k` at closing angle `delta` and retraction `s` (ring frame).
    fn wire_at(&self, k: usize, delta: f64, s: f64) -> WireGeometry {
        let phi = 0.5 * delta + 2.0 * PI * k as f64 / 3.0;
        let (sp, cp) = phi.sin_cos();
        let (n, t) = (Vec3::new(cp, sp, 0.0), Vec3::new(-sp, cp, 0.0));
        let (sh, ch) = (0.5 * delta).sin_cos();
        WireGeometry {
            midpoint: n * (self.ring_radius * ch) - Vec3::z() * s,
            rotation: Mat3::from_columns(&[n, t, Vec3::z()]),
            d_midpoint: (t * ch - n * sh) * (0.5 * self.ring_radius),
        }
    }

    /// The ring frame in W from the carrier's engine state: `(R_WS, origin at s = 0)`.
    pub fn ring_in_world(&self, engine: &Engine) -> (Mat3, Vec3) {
        let c = engine.body(self.carrier, 0);
        (c.X_WB.R * self.ring.0, c.X_WB.p + c.X_WB.R * self.ring.1)
    }

    /// Places the wires (engine objects `wires`) for drive state `d = [Δ, Δ̇, s, ṡ]` on the
    /// carrier as the engine now has it.
    pub fn place(&self, engine: &mut Engine, wires: &[usize; 3], d: &[f64]) {
        let c = engine.body(self.carrier, 0);
        let (p_C, v_C, w_C) = (c.X_WB.p, c.v, c.w);
        let (R_WS, o) = self.ring_in_world(engine);
        for (k, &obj) in wires.iter().enumerate() {
            let g = self.wire_at(k, d[0], d[2]);
            let p = o + R_WS * g.midpoint;
            let v = v_C + w_C.cross(&(p - p_C)) + R_WS * (g.d_midpoint * d[1] - Vec3::z() * d[3]);
            let w = w_C + R_WS * Vec3::z() * (0.5 * d[1]);
            let q = rotation(R_WS * g.rotation);
            // Finite by the blow-up check after each step; refusals cannot occur.
            let _ = engine.set_body(obj, 0, &Pose::new(p, q), v, w);
            // An identified wire spans the chord between its anchors (a closed ring: none).
            let _ = engine.set_wire_span(obj, Some(self.span(d[0])).filter(|l| *l > 0.0));
        }
    }

    /// The chord between a wire's anchors at closing angle `delta`, `2R sin(Δ/2)`, m.
    pub fn span(&self, delta: f64) -> f64 {
        2.0 * self.ring_radius * (0.5 * delta).sin()
    }

    /// With identified wires (a contact set with `wire`): the largest tension of a wire
    /// against the target at closing angle `delta` and its wire's index (engine objects
    /// `wires`, pairs `pairs`), N. `None` for wires with a lateral law.
    pub fn peak_tension(
        &self,
        engine: &Engine,
        wires: &[usize; 3],
        pairs: &[usize; 3],
        delta: f64,
    ) -> Option<(usize, f64)> {
        let law = self.wire.params[0].wire?;
        let span = self.span(delta);
        let mut peak = (0, 0.0);
        for (k, (&w, &p)) in wires.iter().zip(pairs).enumerate() {
            let b = engine.body(w, 0);
            for c in engine.contacts().iter().filter(|c| c.key.0 as usize == p && !c.volumetric) {
                let s = 0.5 * span + (c.point - b.X_WB.p).dot(&b.X_WB.R.column(1));
                let tension = law.wire(span, s).tension(c.measure);
                if tension > peak.1 {
                    peak = (k, tension);
                }
            }
        }
        Some(peak)
    }

    /// The wires' loads after an evaluation: the generalised forces `(Q_Δ, Q_s)` and the wrench
    /// passed to the carrier (force, moment about its origin; W).
    pub fn loads(&self, engine: &Engine, wires: &[usize; 3], d: &[f64]) -> ([f64; 2], Vec3, Vec3) {
        let p_C = engine.body(self.carrier, 0).X_WB.p;
        let (R_WS, _) = self.ring_in_world(engine);
        let (mut q, mut f_C, mut t_C) = ([0.0; 2], Vec3::zeros(), Vec3::zeros());
        for (k, &obj) in wires.iter().enumerate() {
            let b = engine.body(obj, 0);
            let (f, t) = (R_WS.transpose() * b.force, R_WS.transpose() * b.torque);
            q[0] += f.dot(&self.wire_at(k, d[0], d[2]).d_midpoint) + 0.5 * t.z;
            q[1] -= f.z;
            f_C += b.force;
            t_C += b.torque + (b.X_WB.p - p_C).cross(&b.force);
        }
        (q, f_C, t_C)
    }

    /// Depth of the target's tip behind the ring's plane (at `s = 0`), m.
    pub fn tip_depth(&self, engine: &Engine) -> f64 {
        let t = engine.body(self.target, 0);
        let (R_WS, o) = self.ring_in_world(engine);
        -(R_WS.transpose() * (t.X_WB.p + t.X_WB.R * self.tip - o)).z
    }

    /// Whether the wires hold the target (engine pairs `pairs`, wire `k` as A, target as B):
    /// every wire touching it and their pushes in the ring plane surrounding it; otherwise why
    /// not.
    pub fn holds(&self, engine: &Engine, pairs: &[usize; 3]) -> Result<(), String> {
        let (R_WS, _) = self.ring_in_world(engine);
        let mut push = [Vec3::zeros(); 3];
        let mut touching = 0;
        for (k, &p) in pairs.iter().enumerate() {
            let mut any = false;
            for c in engine.contacts().iter().filter(|c| c.key.0 as usize == p) {
                push[k] += R_WS.transpose() * (c.normal * c.normal_force + c.friction);
                any = true;
            }
            touching += usize::from(any);
        }
        if touching < 3 {
            return Err(format!("only {touching} of 3 wires touch the shaft when the snare stopped"));
        }
        let cross = |a: &Vec3, b: &Vec3| a.x * b.y - a.y * b.x;
        let s = [cross(&push[0], &push[1]), cross(&push[1], &push[2]), cross(&push[2], &push[0])];
        if s.iter().all(|x| *x > 0.0) || s.iter().all(|x| *x < 0.0) {
            Ok(())
        } else {
            Err("the wires stopped without enclosing the shaft (their pushes on it do not surround it)".into())
        }
    }

    /// Normal force the face carries: the carrier–target contacts' sum, N.
    pub fn face_load(&self, contacts: &[ActiveContact]) -> f64 {
        contacts.iter().filter(|c| c.key.0 as usize == self.face).map(|c| c.normal_force).sum()
    }

    /// The target's speed relative to the carrier (at the target's origin), m/s.
    pub fn relative_speed(&self, engine: &Engine) -> f64 {
        let (c, t) = (engine.body(self.carrier, 0), engine.body(self.target, 0));
        (t.v - c.v - c.w.cross(&(t.X_WB.p - c.X_WB.p))).norm()
    }

    /// The drives' kinetic energy at `d`, J.
    pub fn kinetic_energy(&self, d: &[f64]) -> f64 {
        0.5 * (self.motor.inertia * d[1] * d[1] + self.carriage.inertia * d[3] * d[3])
    }
}

/// The unit quaternion of a rotation matrix (a product of rotations: closed form, where
/// [`tumble_math::quat_from_matrix`] iterates).
pub(crate) fn rotation(m: Mat3) -> UnitQuat {
    UnitQuat::from_rotation_matrix(&tumble_math::nalgebra::Rotation3::from_matrix_unchecked(m))
}

/// Checks `input` against the bodies and pairs and makes the wire's model.
pub(crate) fn check(input: &SnareInput, bodies: &[MechBody], pairs: &[(usize, usize)]) -> Result<Snare, BuildError> {
    let key = |k: &str| format!("mechanism.snare.{k}");
    let find = |k: &str, name: &str| super::builder::index(bodies, &key(k), name);
    let (carrier, target) = (find("carrier", &input.carrier)?, find("target", &input.target)?);
    if bodies[target].body.is_none() || carrier == target {
        return Err(BuildError::new(key("target"), "the target must be a free body other than the carrier"));
    }
    let face = pairs.iter().position(|&(a, b)| (a, b) == (carrier, target) || (b, a) == (carrier, target));
    let Some(face) = face else {
        return Err(BuildError::new(
            "mechanism.pairs",
            format!(
                "pair the snare's carrier '{}' with its target '{}': their contacts are the face that carries the preload",
                input.carrier, input.target
            ),
        ));
    };
    check_sizes(input)?;
    let model = &bodies[carrier].model;
    let Some(set) = model.params.iter().find(|p| p.name == input.contact) else {
        let known: Vec<&str> = model.params.iter().map(|p| p.name.as_str()).collect();
        let msg = format!("the carrier's model has no contact set '{}' (sets: {})", input.contact, known.join(", "));
        return Err(BuildError::new(key("contact"), msg));
    };
    if set.law.is_none() && set.wire.is_none() {
        return Err(BuildError::new(
            key("contact"),
            format!("contact set '{}' has neither a depth `law` nor a `wire`", set.name),
        ));
    }
    let r = input.ring_radius;
    let wire = Primitive::Segment { a: Vec3::new(0.0, -r, 0.0), b: Vec3::new(0.0, r, 0.0) };
    let wire = ContactModel::single("snare wire", set.clone(), "wire", wire)
        .map_err(|e| BuildError::new(key("ring_radius"), e.to_string()))?;
    Ok(Snare {
        carrier,
        target,
        ring: (input.ring.0.to_rotation_matrix().into_inner(), input.ring.1),
        ring_radius: r,
        open_angle: input.open_angle,
        tip: input.tip,
        trigger: input.trigger,
        wire: Arc::new(wire),
        motor: input.motor,
        carriage: input.carriage,
        stroke: input.stroke,
        face,
    })
}

/// Sizes, angles and drives finite and in range.
fn check_sizes(input: &SnareInput) -> Result<(), BuildError> {
    let key = |k: &str| format!("mechanism.snare.{k}");
    positive(&key("ring_radius"), input.ring_radius, "m")?;
    positive(&key("stroke"), input.stroke, "m")?;
    if !(0.0..PI).contains(&input.open_angle) {
        let deg = input.open_angle.to_degrees();
        return Err(BuildError::new(key("open_angle_deg"), format!("{deg}: must lie in [0, 180) degrees")));
    }
    if !(input.trigger.is_finite() && input.tip.iter().all(|x| x.is_finite())) {
        return Err(BuildError::new(key("trigger"), "the trigger depth and tip must be finite (m)"));
    }
    if !(input.ring.1.iter().all(|x| x.is_finite()) && input.ring.0.coords.iter().all(|x| x.is_finite())) {
        return Err(BuildError::new(key("position"), "the ring's pose must be finite"));
    }
    for (k, d, units) in
        [("motor", &input.motor, ["N·m", "rad/s", "kg·m²"]), ("carriage", &input.carriage, ["N", "m/s", "kg"])]
    {
        positive(&key(&format!("{k}.stall")), d.stall, units[0])?;
        positive(&key(&format!("{k}.no_load_speed")), d.no_load_speed, units[1])?;
        positive(&key(&format!("{k}.inertia")), d.inertia, units[2])?;
    }
    Ok(())
}

mod sequence;
#[cfg(test)]
mod tests;

pub(crate) use sequence::SnareRun;
pub use sequence::{SnareLog, SnareSample, Stage};
