//! Motor-driven four-bar latches on a carrier body (`[mechanism.berthing]`'s latches): the
//! Common Berthing Mechanism's capture latches, and any latch of that kind.
//!
//! **Linkage.** Crank `a` (driven at its pivot `O₂` by a DC motor), coupler `b`, rocker `c` (its
//! pivot `O₄`), ground `d = |O₄ − O₂|`, in the plane normal to `axis` through the pivots. With
//! `e₁ = (O₄ − O₂)/d`, `e₂ = axis × e₁`, the crank angle `θ₂` and rocker angle `θ₄` are measured
//! from `e₁` about `axis`, and Freudenstein's relation gives the rocker's angle (the open
//! branch):
//!
//! ```text
//! K₁ = d/a, K₂ = d/c, K₃ = (a² − b² + c² + d²)/(2ac)
//! A = cos θ₂ − K₁ − K₂ cos θ₂ + K₃,  B = −2 sin θ₂,  C = K₁ − (K₂ + 1) cos θ₂ + K₃
//! θ₄ = 2 atan2(−B − √(B² − 4AC), 2A),   θ₃ = angle of (O₄ + c r̂(θ₄)) − (O₂ + a r̂(θ₂))
//! g = dθ₄/dθ₂ = a sin(θ₃ − θ₂) / (c sin(θ₃ − θ₄))
//! ```
//!
//! **Hook.** The rocker carries the hook, a contact model in the rocker's frame (origin `O₄`,
//! x along the rocker towards the coupler's pin, z along `axis`): a bell crank whose arm and
//! claw are the model's primitives. It is an engine object placed from `θ₂` on the carrier,
//! paired with the target.
//!
//! **Dynamics.** One coordinate per latch: `J θ̈₂ = τ + Q`, with the motor's line
//! `τ = τ_s (u − θ̇₂/ω₀)` (at the crank, gear included) and the hook's contact moment about
//! the rocker's axis mapped through the linkage, `Q = g · axis·M_O₄`: the virtual work of the
//! hook's contacts. `J` lumps the motor's reflected inertia (a geared rotor dominates) and the
//! links' (assumed); the links are otherwise massless, so the hook's whole contact wrench
//! passes to the carrier. A latch not driven is braked (its rate held at zero).

use super::MechBody;
use crate::pipeline::BuildError;
use crate::scenario::check::positive;
use std::f64::consts::PI;
use std::sync::Arc;
use tumble_contact::interference::{Engine, Model as ContactModel};
use tumble_math::{Mat3, Pose, Vec3};

pub mod berthing;
pub mod output;

pub use super::snare::DcDrive;

/// A latch as given to the builder (bodies by name, carrier-frame geometry).
#[derive(Clone, Debug)]
pub struct LatchInput {
    /// Name (for outputs).
    pub name: String,
    /// The hook's contact model, in the rocker's frame.
    pub hook: Arc<ContactModel>,
    /// The crank's pivot `O₂`, carrier frame, m.
    pub crank_pivot: Vec3,
    /// The rocker's (hook's) pivot `O₄`, carrier frame, m.
    pub pivot: Vec3,
    /// The linkage plane's normal, carrier frame (positive crank rotation about it).
    pub axis: Vec3,
    /// Crank, coupler and rocker lengths `a`, `b`, `c`, m.
    pub lengths: [f64; 3],
    /// The crank's angle open (at the start) and closed (its stop), rad.
    pub range: [f64; 2],
    /// The motor at the crank (its inertia the latch's lumped `J`).
    pub motor: DcDrive,
}

/// A validated latch.
#[derive(Clone, Debug)]
pub struct Latch {
    /// Name.
    pub name: String,
    /// The hook model.
    pub hook: Arc<ContactModel>,
    /// `O₄`, carrier frame, m.
    pub pivot: Vec3,
    /// `e₁`, `e₂`, `axis` (columns), carrier frame.
    pub frame: Mat3,
    /// `a`, `b`, `c`, `d`, m.
    pub lengths: [f64; 4],
    /// Open and closed crank angles, rad.
    pub range: [f64; 2],
    /// The motor.
    pub motor: DcDrive,
}

/// The linkage at one crank angle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose4 {
    /// Rocker (hook) angle `θ₄`, rad.
    pub rocker: f64,
    /// Coupler angle `θ₃`, rad.
    pub coupler: f64,
    /// `g = dθ₄/dθ₂`.
    pub ratio: f64,
}

impl Latch {
    /// The linkage at crank angle `theta2`; `None` where it cannot close (no real `θ₄`).
    pub fn at(&self, theta2: f64) -> Option<Pose4> {
        let [a, b, c, d] = self.lengths;
        let (k1, k2, k3) = (d / a, d / c, (a * a - b * b + c * c + d * d) / (2.0 * a * c));
        let (s, co) = theta2.sin_cos();
        let (aa, bb, cc) = (co - k1 - k2 * co + k3, -2.0 * s, k1 - (k2 + 1.0) * co + k3);
        let disc = bb * bb - 4.0 * aa * cc;
        if disc.is_nan() || disc < 0.0 {
            return None;
        }
        // Twice an angle in (−π, π], brought back into it.
        let rocker = 2.0 * (-bb - disc.sqrt()).atan2(2.0 * aa);
        let rocker = if rocker > PI {
            rocker - 2.0 * PI
        } else if rocker <= -PI {
            rocker + 2.0 * PI
        } else {
            rocker
        };
        let pin_b = (a * co, a * s);
        let pin_c = (d + c * rocker.cos(), c * rocker.sin());
        let coupler = (pin_c.1 - pin_b.1).atan2(pin_c.0 - pin_b.0);
        let ratio = a * (coupler - theta2).sin() / (c * (coupler - rocker).sin());
        Some(Pose4 { rocker, coupler, ratio })
    }

    /// The hook's rotation in the carrier frame at rocker angle `rocker`: x along the rocker,
    /// z along the axis.
    pub fn hook_rotation(&self, rocker: f64) -> Mat3 {
        let (e1, e2, n) = (self.frame.column(0), self.frame.column(1), self.frame.column(2));
        let r = e1 * rocker.cos() + e2 * rocker.sin();
        Mat3::from_columns(&[r, n.cross(&r), n.into_owned()])
    }

    /// Places the hook (engine object `obj`) for crank angle and rate `d = [θ₂, θ̇₂]` on the
    /// carrier `carrier` as the engine has it.
    pub fn place(&self, engine: &mut Engine, carrier: usize, obj: usize, d: &[f64]) {
        let Some(p4) = self.at(d[0]) else { return };
        let c = engine.body(carrier, 0);
        let R_WC = c.X_WB.R;
        let o = c.X_WB.p + R_WC * self.pivot;
        let v = c.v + c.w.cross(&(o - c.X_WB.p));
        let w = c.w + R_WC * self.frame.column(2) * (p4.ratio * d[1]);
        let q = super::snare::rotation(R_WC * self.hook_rotation(p4.rocker));
        // Finite by the blow-up check after each step; refusals cannot occur.
        let _ = engine.set_body(obj, 0, &Pose::new(o, q), v, w);
    }

    /// After an evaluation: the generalised force `Q` on the crank and the hook's wrench passed
    /// to the carrier (force, moment about the carrier's origin; W).
    pub fn loads(&self, engine: &Engine, carrier: usize, obj: usize, d: &[f64]) -> (f64, Vec3, Vec3) {
        let Some(p4) = self.at(d[0]) else { return (0.0, Vec3::zeros(), Vec3::zeros()) };
        let (c, h) = (engine.body(carrier, 0), engine.body(obj, 0));
        let axis_W = c.X_WB.R * self.frame.column(2);
        let q = p4.ratio * axis_W.dot(&h.torque);
        (q, h.force, h.torque + (h.X_WB.p - c.X_WB.p).cross(&h.force))
    }
}

/// Checks a latch's input: the body, the geometry (a closing linkage over its whole range, away
/// from the rocker's dead point), the motor.
pub(crate) fn check(k: usize, input: &LatchInput) -> Result<Latch, BuildError> {
    let key = |s: &str| format!("mechanism.berthing.latches.{k}.{s}");
    let [a, b, c] = input.lengths;
    for (name, x) in [("crank", a), ("coupler", b), ("rocker", c)] {
        positive(&key(name), x, "m")?;
    }
    positive(&key("motor.stall"), input.motor.stall, "N·m")?;
    positive(&key("motor.no_load_speed"), input.motor.no_load_speed, "rad/s")?;
    positive(&key("motor.inertia"), input.motor.inertia, "kg·m²")?;
    let ground = input.pivot - input.crank_pivot;
    let d = ground.norm();
    let n = input.axis.try_normalize(1e-12).ok_or_else(|| BuildError::new(key("axis"), "must be a non-zero vector"))?;
    if !(d > 0.0 && d.is_finite()) || ground.dot(&n).abs() > 1e-9 * d {
        return Err(BuildError::new(
            key("pivot"),
            "the two pivots must be apart and in the plane normal to `axis` (their offset perpendicular to it)",
        ));
    }
    let e1 = ground / d;
    let frame = Mat3::from_columns(&[e1, n.cross(&e1), n]);
    let latch = Latch {
        name: input.name.clone(),
        hook: input.hook.clone(),
        pivot: input.pivot,
        frame,
        lengths: [a, b, c, d],
        range: input.range,
        motor: input.motor,
    };
    let [open, closed] = input.range;
    if !(open.is_finite() && closed.is_finite() && closed > open) {
        return Err(BuildError::new(key("closed_deg"), "the closed crank angle must exceed the open one"));
    }
    // Over the whole range the linkage closes and the rocker is not at its dead point
    // (|sin(θ₃ − θ₄)| ≥ 0.05: the crank can drive it).
    for i in 0..=400 {
        let t = open + (closed - open) * i as f64 / 400.0;
        let ok = latch.at(t).is_some_and(|p| (p.coupler - p.rocker).sin().abs() >= 0.05);
        if !ok {
            let msg = format!(
                "the linkage (crank {a} m, coupler {b} m, rocker {c} m, ground {d:.4} m) cannot close, or locks, at crank angle {:.1}° within the range: check the lengths and the range",
                t.to_degrees()
            );
            return Err(BuildError::new(key("crank"), msg));
        }
    }
    Ok(latch)
}

/// The index of the body named `name` among `bodies`, or the key's error.
pub(crate) fn body_index(bodies: &[MechBody], key: &str, name: &str) -> Result<usize, BuildError> {
    super::builder::index(bodies, key, name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bundled CBM latch's linkage (crank 0.05, coupler 0.12, rocker 0.07, ground 0.12 m).
    fn latch() -> Latch {
        let hook = Arc::new(
            ContactModel::from_toml(
                "hook",
                "[contact.h]\nlaw = { k = 1e6 }\n[object]\ncontact = \"h\"\nprimitives = [{ type = \"point\", point = [0.1, 0, 0] }]\n",
            )
            .expect("model"),
        );
        let input = LatchInput {
            name: "l".into(),
            hook,
            crank_pivot: Vec3::new(0.58, 0.0, 0.0),
            pivot: Vec3::new(0.70, 0.0, 0.0),
            axis: Vec3::y(),
            lengths: [0.05, 0.12, 0.07],
            range: [30f64.to_radians(), 205f64.to_radians()],
            motor: DcDrive { stall: 20.0, no_load_speed: 0.3, inertia: 0.5 },
        };
        check(0, &input).expect("a latch")
    }

    #[test]
    fn the_linkage_closes_and_its_ratio_is_the_rockers_rate() {
        let l = latch();
        let [a, b, c, d] = l.lengths;
        for i in 0..=50 {
            let t2 = l.range[0] + (l.range[1] - l.range[0]) * i as f64 / 50.0;
            let p = l.at(t2).expect("closes");
            // The coupler joins the crank's pin to the rocker's: |C − B| = b (Freudenstein's
            // relation is this loop's closure).
            let (pb, pc) = ((a * t2.cos(), a * t2.sin()), (d + c * p.rocker.cos(), c * p.rocker.sin()));
            let gap = ((pc.0 - pb.0).hypot(pc.1 - pb.1) - b).abs();
            assert!(gap < 1e-12, "θ₂ = {t2}: coupler off by {gap} m");
            // g = dθ₄/dθ₂ by central differences (h = 1e-6: error ~1e-12 of its size).
            let h = 1e-6;
            let fd = (l.at(t2 + h).expect("closes").rocker - l.at(t2 - h).expect("closes").rocker) / (2.0 * h);
            assert!((fd - p.ratio).abs() < 1e-7, "θ₂ = {t2}: g = {} vs {fd}", p.ratio);
        }
        // The rocker swings 92° over the crank's range, slowing into the toggle at the stop.
        let (open, closed) = (l.at(l.range[0]).expect("open"), l.at(l.range[1]).expect("closed"));
        assert!(((closed.rocker - open.rocker).to_degrees() - 91.0).abs() < 2.0, "{open:?} {closed:?}");
        assert!(closed.ratio.abs() < 0.1 && l.at(2.0).expect("mid").ratio > 0.6, "{closed:?}");
    }

    #[test]
    fn the_cranks_load_is_the_hooks_virtual_work() {
        // A force F at a hook point r (W) and a moment M: Q = g axis·(M + r × F) equals the
        // work of the pair per unit crank rotation, F·∂p/∂θ₂ + M·∂ω/∂θ̇₂, by differences.
        let l = latch();
        let mut e = Engine::new();
        let carrier = e.add_object(l.hook.clone(), "carrier");
        let hook = e.add_object(l.hook.clone(), "hook");
        let t2 = 1.7;
        l.place(&mut e, carrier, hook, &[t2, 0.0]);
        let r = Vec3::new(0.03, -0.01, 0.05);
        let point = |t: f64| l.pivot + l.hook_rotation(l.at(t).expect("closes").rocker) * r;
        let (f, m) = (Vec3::new(3.0, -1.0, 7.0), Vec3::new(0.2, 0.5, -0.3));
        let torque_about_pivot = m + (point(t2) - l.pivot).cross(&f);
        let q = l.at(t2).expect("closes").ratio * l.frame.column(2).dot(&torque_about_pivot);
        let h = 1e-6;
        let dp = (point(t2 + h) - point(t2 - h)) / (2.0 * h);
        let dw = l.frame.column(2) * l.at(t2).expect("closes").ratio;
        let work = f.dot(&dp) + m.dot(&dw);
        assert!((q - work).abs() < 1e-8 * work.abs().max(1.0), "Q = {q}, work {work}");
        // The hook sits at the pivot, turned to the rocker's angle.
        assert!((e.body(hook, 0).X_WB.p - l.pivot).norm() < 1e-15);
    }

    #[test]
    fn a_linkage_that_cannot_close_is_refused() {
        let l = latch();
        let input = LatchInput {
            name: "bad".into(),
            hook: l.hook.clone(),
            crank_pivot: Vec3::new(0.58, 0.0, 0.0),
            pivot: Vec3::new(0.70, 0.0, 0.0),
            axis: Vec3::y(),
            lengths: [0.05, 0.02, 0.02],
            range: l.range,
            motor: l.motor,
        };
        let e = check(3, &input).expect_err("too short a coupler").to_string();
        assert!(e.contains("mechanism.berthing.latches.3.crank") && e.contains("cannot close"), "{e}");
        let tilted = LatchInput { axis: Vec3::x(), lengths: [0.05, 0.12, 0.07], ..input };
        assert!(check(0, &tilted).is_err());
    }
}
