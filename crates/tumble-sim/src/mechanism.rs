//! Rigid bodies in contact through the interference engine (`[mechanism]`): guides, pegs,
//! rails and rollers, docking probes, grapple fixtures. Each body's frame (origin at its centre
//! of mass) is its contact model's Object frame; the engine ([`tumble_contact::interference`])
//! turns the paired models' interference into a wrench on each body, which joins gravity and
//! the spring-dampers in the Newton–Euler equations (13 states per free body, RK4). After each
//! accepted step the engine is evaluated at the new state and committed, so the bristle
//! friction state advances once per step.
//!
//! **Arm.** With an `[arm]` in the scenario, a body may ride on one of its links (`link`): its
//! pose and twist follow the link's, and its contact wrench is applied to the link (link axes,
//! about the link origin) in the multibody equations, solved in the same RK4 state
//! `[arm; free bodies]`.
//!
//! Spring-damper (a compliant wrist, a drive): `F = K (a(t) − p) + C (ȧ − v)` with the anchor
//! `a(t) = a₀ + ȧ t` and diagonal `K`, `C` in world axes; `τ = k_θ θ − c_θ ω`, `θ` the rotation
//! vector from the body's attitude to its attitude at the start. The energy reported is
//! `T + V_g + V_springs`; contact damping and friction remove energy, so it only falls when no
//! drive works on the system.

use crate::arm::ArmModel;
use crate::model::{Check, err, finite3};
use crate::output::{RunDir, first_last};
use crate::plot::{Series, line_plot};
use crate::scenario::mechanism::MechanismSpec;
use crate::scenario::{GravitySpec, Scenario};
use crate::{ScenarioError, arm::mass_and_inertia, membrane::rk4_timing};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use tumble_contact::interference::{Engine, Model as ContactModel};
use tumble_dynamics::multibody::Kinematics;
use tumble_dynamics::multibody::spatial::{SVec, parts};
use tumble_dynamics::multibody::system::MultibodySystem;
use tumble_dynamics::{BODY_STATE_LEN, BodyState, Integrator, Method, OdeSystem, RigidBody, normalize_quaternion};
use tumble_geometry::MassProperties;
use tumble_math::{Mat3, Pose, UnitQuat, Vec3, quat_from_wxyz};

/// A body of the mechanism.
#[derive(Clone, Debug)]
pub struct MechBody {
    /// Name.
    pub name: String,
    /// Its contact model.
    pub model: Arc<ContactModel>,
    /// Mass properties (`None`: fixed or carried by an arm link).
    pub body: Option<RigidBody>,
    /// The arm link carrying it and its pose in the link frame (rotation, position).
    pub link: Option<(usize, Mat3, Vec3)>,
    /// State at the start.
    pub start: BodyState,
}

/// A spring-damper from a body to a moving anchor.
#[derive(Clone, Debug)]
pub struct Spring {
    /// Index of the body.
    pub body: usize,
    /// Anchor at t = 0, m.
    pub anchor: Vec3,
    /// Anchor velocity, m/s.
    pub anchor_velocity: Vec3,
    /// Stiffness per world axis, N/m.
    pub k: Vec3,
    /// Damping per world axis, N·s/m.
    pub c: Vec3,
    /// Torsional stiffness, N·m/rad, and damping, N·m·s/rad.
    pub torsion: (f64, f64),
    /// Attitude the torsion pulls towards.
    pub attitude: UnitQuat,
}

impl MechBody {
    /// Whether it moves: free, or carried by an arm link.
    pub fn moves(&self) -> bool {
        self.body.is_some() || self.link.is_some()
    }
}

impl Spring {
    /// Force (W) and torque (W, about the centre of mass) on the body, and the stored energy.
    fn wrench(&self, t: f64, s: &BodyState) -> (Vec3, Vec3, f64) {
        let stretch = self.anchor + self.anchor_velocity * t - s.p_WB;
        let f = self.k.component_mul(&stretch) + self.c.component_mul(&(self.anchor_velocity - s.v_WB));
        let theta = (self.attitude * s.q_WB.inverse()).scaled_axis();
        let w_W = s.q_WB * s.w_WB_B;
        let tau = theta * self.torsion.0 - w_W * self.torsion.1;
        let energy = 0.5 * self.k.dot(&stretch.component_mul(&stretch)) + 0.5 * self.torsion.0 * theta.norm_squared();
        (f, tau, energy)
    }
}

/// A validated mechanism scenario.
#[derive(Clone, Debug)]
pub struct Mechanism {
    /// Scenario name.
    pub name: String,
    /// Bodies, in file order.
    pub bodies: Vec<MechBody>,
    /// Pairs of body indices.
    pub pairs: Vec<(usize, usize)>,
    /// Spring-dampers.
    pub springs: Vec<Spring>,
    /// Uniform gravity, m/s².
    pub gravity: Vec3,
    /// Candidate margin of the engine, m.
    pub margin: f64,
    /// The arm, when bodies ride on its links: its system and state at the start.
    pub arm: Option<(MultibodySystem, Vec<f64>)>,
    /// RK4 step, s.
    pub dt: f64,
    /// Simulated span, s.
    pub duration: f64,
    /// Time between samples, s.
    pub output_interval: f64,
}

/// One recorded instant.
#[derive(Clone, Debug, PartialEq)]
pub struct MechSample {
    /// Time, s.
    pub t: f64,
    /// Per body: position (m), velocity (m/s), angular velocity (body axes, rad/s), contact
    /// force (W, N) and contact torque about the centre of mass (W, N·m).
    pub bodies: Vec<[Vec3; 5]>,
    /// Per body: attitude.
    pub attitudes: Vec<UnitQuat>,
    /// Active contacts.
    pub contacts: usize,
    /// `T + V_g + V_springs` of the free bodies, J.
    pub energy: f64,
}

/// A finished run.
#[derive(Clone, Debug, Default)]
pub struct MechRun {
    /// Samples at the output interval.
    pub samples: Vec<MechSample>,
    /// Why the run stopped early, if it did.
    pub diagnosis: Option<String>,
    /// Wall-clock time, s.
    pub wall_s: f64,
}

/// The ODE: free bodies' states in file order.
struct Ode<'a> {
    m: &'a Mechanism,
    engine: Engine,
    /// Offset of each body's state (`None`: fixed or carried).
    offset: Vec<Option<usize>>,
    /// The arm's system (external wrenches set each evaluation) and its state length.
    arm: Option<MultibodySystem>,
    na: usize,
}

impl Ode<'_> {
    /// The arm's kinematics at `y`.
    fn kinematics(&self, y: &[f64]) -> Option<Kinematics> {
        let mb = &self.arm.as_ref()?.model;
        let (nq, nv) = (mb.nq(), mb.nv());
        Some(mb.kinematics(&y[..nq], &y[nq..nq + nv]))
    }

    /// Pose and twist (origin velocity and angular velocity, W) of a body carried by a link.
    fn carried(k: &Kinematics, (l, R_LB, p_LB): &(usize, Mat3, Vec3)) -> (Pose, Vec3, Vec3) {
        let (R, p) = k.pose[*l];
        let (w_L, v_L) = parts(&k.v[*l]);
        let w = R * w_L;
        let r = R * p_LB;
        let q = UnitQuat::from_matrix(&(R * R_LB));
        (Pose::new(p + r, q), R * v_L + w.cross(&r), w)
    }

    /// Sets the bodies' poses and twists from `y` and evaluates the contacts; the arm's
    /// kinematics, if any.
    fn evaluate(&mut self, y: &[f64]) -> Option<Kinematics> {
        let k = self.kinematics(y);
        if let Some(k) = &k {
            for (i, b) in self.m.bodies.iter().enumerate() {
                if let Some(link) = &b.link {
                    let (X, v, w) = Self::carried(k, link);
                    let _ = self.engine.set_body(i, 0, &X, v, w);
                }
            }
        }
        for (i, off) in self.offset.iter().enumerate() {
            if let Some(o) = off {
                let s = BodyState::read(&y[*o..]);
                let w_W = s.q_WB * s.w_WB_B;
                // Finite by the blow-up check after each step; refusals cannot occur.
                let _ = self.engine.set_body(i, 0, &Pose::new(s.p_WB, s.q_WB), s.v_WB, w_W);
            }
        }
        self.engine.evaluate();
        k
    }
}

impl OdeSystem for Ode<'_> {
    fn dim(&self) -> usize {
        self.na + self.offset.iter().flatten().count() * BODY_STATE_LEN
    }

    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) {
        let k = self.evaluate(y);
        if let (Some(sys), Some(k)) = (&mut self.arm, &k) {
            // Each carried body's contact wrench on its link: link axes, about the link origin.
            sys.external.iter_mut().for_each(|e| *e = SVec::zeros());
            for (i, b) in self.m.bodies.iter().enumerate() {
                let Some((l, _, _)) = b.link else { continue };
                let (R, p) = k.pose[l];
                let c = self.engine.body(i, 0);
                let n = c.torque + (c.X_WB.p - p).cross(&c.force);
                let (n, f) = (R.transpose() * n, R.transpose() * c.force);
                sys.external[l] += SVec::new(n.x, n.y, n.z, f.x, f.y, f.z);
            }
            sys.derivatives(k, &y[..self.na], &mut dydt[..self.na]);
        }
        for (i, off) in self.offset.iter().enumerate() {
            let (Some(o), Some(body)) = (off, &self.m.bodies[i].body) else { continue };
            let s = BodyState::read(&y[*o..]);
            let c = self.engine.body(i, 0);
            let (mut f, mut tau) = (c.force, c.torque);
            for sp in self.m.springs.iter().filter(|sp| sp.body == i) {
                let (fs, ts, _) = sp.wrench(t, &s);
                f += fs;
                tau += ts;
            }
            body.derivatives(
                &y[*o..*o + BODY_STATE_LEN],
                &self.m.gravity,
                &f,
                &(s.q_WB.inverse() * tau),
                &mut dydt[*o..*o + BODY_STATE_LEN],
            );
        }
    }

    fn project(&self, y: &mut [f64]) {
        if let Some(sys) = &self.arm {
            sys.project(&mut y[..self.na]);
        }
        for o in self.offset.iter().flatten() {
            normalize_quaternion(&mut y[*o..*o + BODY_STATE_LEN]);
        }
    }
}

impl Mechanism {
    /// Validates `[mechanism]`, `[gravity]` and `[simulation]` (RK4), and loads the models.
    pub fn build(sc: &Scenario) -> Result<Self, ScenarioError> {
        Self::check(sc).map_err(|(k, m)| sc.error_at(&k, m))
    }

    fn check(sc: &Scenario) -> Check<Self> {
        let Some(spec) = &sc.file.mechanism else { return err("mechanism", "missing") };
        let (dt, duration, output_interval) = rk4_timing(sc, "mechanism")?;
        let gravity = match &sc.file.gravity {
            GravitySpec::None => Vec3::zeros(),
            GravitySpec::Uniform { g } => finite3("gravity.g", *g)?,
            _ => return err("gravity.type", "mechanism runs take `none` or `uniform` gravity"),
        };
        let arm = match &sc.file.arm {
            None => None,
            Some(_) => {
                let arm = ArmModel::check(sc)?;
                if !matches!(arm.method, Method::Rk4 { .. }) {
                    return err("simulation.integrator", "mechanism runs use `rk4`");
                }
                Some(arm)
            }
        };
        let bodies = Self::bodies(sc, spec, arm.as_ref())?;
        let arm = arm.map(|a| (a.system, a.initial_state));
        let index = |key: &str, name: &str| {
            bodies.iter().position(|b| b.name == name).ok_or_else(|| {
                let known: Vec<&str> = bodies.iter().map(|b| b.name.as_str()).collect();
                (key.to_string(), format!("no body named '{name}' (bodies: {})", known.join(", ")))
            })
        };
        let mut pairs = Vec::new();
        for (k, [a, b]) in spec.pairs.iter().enumerate() {
            let key = format!("mechanism.pairs.{k}");
            let (i, j) = (index(&key, a)?, index(&key, b)?);
            if i == j || !(bodies[i].moves() || bodies[j].moves()) {
                return err(&key, format!("'{a}' and '{b}': a pair needs two bodies, one of them free"));
            }
            pairs.push((i, j));
        }
        if pairs.is_empty() {
            return err("mechanism.pairs", "no pairs: nothing would touch");
        }
        let mut springs = Vec::new();
        for (k, s) in spec.springs.iter().enumerate() {
            let key = format!("mechanism.springs.{k}");
            let body = index(&format!("{key}.body"), &s.body)?;
            if bodies[body].body.is_none() {
                return err(format!("{key}.body"), format!("'{}' is fixed: a spring needs a free body", s.body));
            }
            let nonneg = |what: &str, v: &[f64]| {
                if v.iter().all(|x| x.is_finite() && *x >= 0.0) {
                    Ok(())
                } else {
                    err(format!("{key}.{what}"), format!("{v:?}: must be finite and ≥ 0"))
                }
            };
            nonneg("stiffness", &s.stiffness)?;
            nonneg("damping", &s.damping)?;
            nonneg("torsion", &[s.torsion, s.torsion_damping])?;
            let start = &bodies[body].start;
            springs.push(Spring {
                body,
                anchor: s.anchor.map_or(Ok(start.p_WB), |a| finite3(&format!("{key}.anchor"), a))?,
                anchor_velocity: finite3(&format!("{key}.anchor_velocity"), s.anchor_velocity)?,
                k: Vec3::from(s.stiffness),
                c: Vec3::from(s.damping),
                torsion: (s.torsion, s.torsion_damping),
                attitude: start.q_WB,
            });
        }
        let margin = spec.margin.unwrap_or(tumble_contact::interference::engine::DEFAULT_MARGIN);
        if !(margin.is_finite() && margin >= 0.0) {
            return err("mechanism.margin", format!("{margin}: must be finite and ≥ 0 (m)"));
        }
        let m = Self {
            name: sc.file.name.clone(),
            bodies,
            pairs,
            springs,
            gravity,
            margin,
            arm,
            dt,
            duration,
            output_interval,
        };
        // Pairing checks (ambiguous or missing laws) now, not in the run.
        m.engine().map_err(|e| ("mechanism.pairs".to_string(), e))?;
        Ok(m)
    }

    fn bodies(sc: &Scenario, spec: &MechanismSpec, arm: Option<&ArmModel>) -> Check<Vec<MechBody>> {
        let mut out: Vec<MechBody> = Vec::new();
        for (k, b) in spec.bodies.iter().enumerate() {
            let key = format!("mechanism.bodies.{k}");
            if out.iter().any(|o| o.name == b.name) {
                return err(format!("{key}.name"), format!("'{}' is used twice", b.name));
            }
            let model =
                ContactModel::load(&sc.resolve(&b.model)).map_err(|e| (format!("{key}.model"), e.to_string()))?;
            if model.bodies.len() != 1 {
                return err(
                    format!("{key}.model"),
                    format!(
                        "the model has {} bodies (movable groups): a mechanism body takes a model with none",
                        model.bodies.len()
                    ),
                );
            }
            let q = quat_from_wxyz(b.orientation).map_err(|e| (format!("{key}.orientation"), e.to_string()))?;
            let start = BodyState {
                p_WB: finite3(&format!("{key}.position"), b.position)?,
                v_WB: finite3(&format!("{key}.velocity"), b.velocity)?,
                q_WB: q,
                w_WB_B: finite3(&format!("{key}.angular_velocity"), b.angular_velocity)?,
            };
            let link = match &b.link {
                None => None,
                Some(name) => {
                    let Some(arm) = arm else {
                        return err(format!("{key}.link"), "a body on a link needs an [arm] in the scenario");
                    };
                    let l = arm
                        .system
                        .model
                        .links
                        .iter()
                        .zip(&arm.joint_names)
                        .position(|(l, j)| &l.name == name || j.as_deref() == Some(name.as_str()))
                        .ok_or_else(|| {
                            (format!("{key}.link"), format!("no link or joint named `{name}` in the arm"))
                        })?;
                    if b.fixed
                        || b.mass.is_some()
                        || b.inertia.is_some()
                        || start.v_WB != Vec3::zeros()
                        || start.w_WB_B != Vec3::zeros()
                    {
                        return err(
                            &key,
                            "a body on an arm link moves with it: it takes no `fixed`, mass, inertia or velocity",
                        );
                    }
                    Some((l, q.to_rotation_matrix().into_inner(), start.p_WB))
                }
            };
            let body = if link.is_some() {
                None
            } else if b.fixed {
                if b.mass.is_some()
                    || b.inertia.is_some()
                    || start.v_WB != Vec3::zeros()
                    || start.w_WB_B != Vec3::zeros()
                {
                    return err(&key, "a fixed body takes no mass, inertia or velocity");
                }
                None
            } else {
                let (Some(mass), Some(inertia)) = (b.mass, &b.inertia) else {
                    return err(&key, "a free body needs `mass` (kg) and `inertia` (kg·m²)");
                };
                let (mass, inertia) = mass_and_inertia(&key, mass, inertia)?;
                Some(RigidBody::new(b.name.clone(), &MassProperties::new(mass, inertia)))
            };
            out.push(MechBody { name: b.name.clone(), model: Arc::new(model), body, link, start });
        }
        if !out.iter().any(MechBody::moves) {
            return err("mechanism.bodies", "every body is fixed: nothing would move");
        }
        Ok(out)
    }

    /// An engine with the bodies at their start and the pairs made.
    fn engine(&self) -> Result<Engine, String> {
        let mut e = Engine::new();
        e.set_margin(self.margin).map_err(|x| x.to_string())?;
        for b in &self.bodies {
            let i = e.add_object(b.model.clone(), &b.name);
            let s = &b.start;
            e.set_body(i, 0, &Pose::new(s.p_WB, s.q_WB), s.v_WB, s.q_WB * s.w_WB_B).map_err(|x| x.to_string())?;
        }
        for &(a, b) in &self.pairs {
            e.pair(a, b).map_err(|x| x.to_string())?;
        }
        Ok(e)
    }

    fn sample(&self, ode: &mut Ode, t: f64, y: &[f64]) -> MechSample {
        let k = ode.evaluate(y);
        let mut energy = 0.0;
        let mut attitudes = Vec::with_capacity(self.bodies.len());
        let bodies = (0..self.bodies.len())
            .map(|i| {
                let b = &self.bodies[i];
                let s = match (ode.offset[i], &b.link, &k) {
                    (Some(o), _, _) => BodyState::read(&y[o..]),
                    (None, Some(link), Some(k)) => {
                        let (X, v, w) = Ode::carried(k, link);
                        BodyState { p_WB: X.p, v_WB: v, q_WB: X.q, w_WB_B: X.q.inverse() * w }
                    }
                    _ => b.start,
                };
                if let Some(body) = &b.body {
                    energy += s.kinetic_energy(body) - body.mass * self.gravity.dot(&s.p_WB);
                    energy += self.springs.iter().filter(|sp| sp.body == i).map(|sp| sp.wrench(t, &s).2).sum::<f64>();
                }
                let c = ode.engine.body(i, 0);
                attitudes.push(s.q_WB);
                [s.p_WB, s.v_WB, s.w_WB_B, c.force, c.torque]
            })
            .collect();
        MechSample { t, bodies, attitudes, contacts: ode.engine.contacts().len(), energy }
    }

    /// Runs the mechanism.
    pub fn run(&self) -> MechRun {
        let started = std::time::Instant::now();
        let mut run = MechRun::default();
        let engine = match self.engine() {
            Ok(e) => e,
            Err(e) => {
                run.diagnosis = Some(e);
                return run;
            }
        };
        let mut offset = Vec::new();
        let na = self.arm.as_ref().map_or(0, |(_, y0)| y0.len());
        let mut n = na;
        for b in &self.bodies {
            offset.push(b.body.as_ref().map(|_| {
                n += BODY_STATE_LEN;
                n - BODY_STATE_LEN
            }));
        }
        let arm = self.arm.as_ref().map(|(sys, _)| {
            let mut sys = sys.clone();
            sys.external = vec![SVec::zeros(); sys.model.links.len()];
            sys
        });
        let mut ode = Ode { m: self, engine, offset, arm, na };
        let mut y = vec![0.0; n];
        if let Some((_, y0)) = &self.arm {
            y[..na].copy_from_slice(y0);
        }
        for (b, o) in self.bodies.iter().zip(&ode.offset) {
            if let Some(o) = o {
                b.start.write(&mut y[*o..]);
            }
        }
        let mut integ = Integrator::new(Method::Rk4 { dt: self.dt }, y.len());
        let every = ((self.output_interval / self.dt).round() as u64).max(1);
        let steps = (self.duration / self.dt).round() as u64;
        run.samples.reserve((steps / every + 1) as usize);
        for k in 0..=steps {
            let t = k as f64 * self.dt;
            if k % every == 0 || k == steps {
                let s = self.sample(&mut ode, t, &y);
                run.samples.push(s);
            }
            if k == steps {
                break;
            }
            integ.step_once(&mut ode, t, &mut y, self.dt);
            run.diagnosis = crate::run::non_finite(&y, t + self.dt, self.dt, " or the contact stiffness");
            if run.diagnosis.is_some() {
                break;
            }
            // The accepted step: contacts at its end advance the friction state.
            ode.evaluate(&y);
            ode.engine.commit(self.dt);
        }
        run.wall_s = started.elapsed().as_secs_f64();
        run
    }
}

/// Writes `timeseries.csv`, `summary.json` and plots (positions, contact forces, energy) into
/// `dir`.
pub fn write_mechanism_run(dir: &Path, m: &Mechanism, run: &MechRun) -> Result<Value, String> {
    let out = RunDir::create(dir)?;
    let (first, last) = first_last(&run.samples)?;
    // Bodies that move: free ones and those carried by the arm.
    let free: Vec<usize> = (0..m.bodies.len()).filter(|&i| m.bodies[i].moves()).collect();
    out.csv("timeseries.csv", |w| {
        let mut head = vec!["t_s".to_string()];
        for &i in &free {
            let n = &m.bodies[i].name;
            for q in ["x_m", "y_m", "z_m", "vx_m_s", "vy_m_s", "vz_m_s", "wx_rad_s", "wy_rad_s", "wz_rad_s"]
                .into_iter()
                .chain([
                    "contact_fx_N",
                    "contact_fy_N",
                    "contact_fz_N",
                    "contact_tx_N_m",
                    "contact_ty_N_m",
                    "contact_tz_N_m",
                ])
                .chain(["qw", "qx", "qy", "qz"])
            {
                head.push(format!("{n}_{q}"));
            }
        }
        head.extend(["contacts".into(), "energy_J".into()]);
        writeln!(w, "{}", head.join(","))?;
        for s in &run.samples {
            let mut row = vec![s.t];
            for &i in &free {
                row.extend(s.bodies[i].iter().flat_map(|v| v.iter().copied()));
                row.extend(tumble_math::quat_to_wxyz(&s.attitudes[i]));
            }
            row.extend([s.contacts as f64, s.energy]);
            writeln!(w, "{}", row.iter().map(|x| format!("{x:e}")).collect::<Vec<_>>().join(","))?;
        }
        Ok(())
    })?;
    let t: Vec<f64> = run.samples.iter().map(|s| s.t).collect();
    let col =
        |i: usize, f: &dyn Fn(&[Vec3; 5]) -> f64| run.samples.iter().map(|s| f(&s.bodies[i])).collect::<Vec<f64>>();
    let mut position = Vec::new();
    let mut force = Vec::new();
    for &i in &free {
        let n = &m.bodies[i].name;
        for (k, axis) in ["x", "y", "z"].iter().enumerate() {
            position.push(Series { label: format!("{n} {axis}"), x: &t, y: col(i, &|b| b[0][k]) });
        }
        force.push(Series { label: format!("{n} |F|"), x: &t, y: col(i, &|b| b[3].norm()) });
    }
    line_plot(&out.plot("position"), "Centre of mass positions", "time [s]", "m", &position, false)?;
    line_plot(&out.plot("contact_force"), "Contact force on each free body", "time [s]", "N", &force, false)?;
    let energy =
        vec![Series { label: "T + V_g + V_springs".into(), x: &t, y: run.samples.iter().map(|s| s.energy).collect() }];
    line_plot(&out.plot("energy"), "Mechanical energy", "time [s]", "J", &energy, false)?;
    let bodies: serde_json::Map<String, Value> = free
        .iter()
        .map(|&i| {
            // Contact-force arrows at the moving bodies' centres of mass, the largest force as long as
            // the largest body's radius.
            let peak = run.samples.iter().map(|s| s.bodies[i][3].norm()).fold(0.0, f64::max);
            let b = &last.bodies[i];
            (
                m.bodies[i].name.clone(),
                json!({
                    "position_final_m": [b[0].x, b[0].y, b[0].z],
                    "velocity_final_m_s": [b[1].x, b[1].y, b[1].z],
                    "angular_velocity_final_rad_s": [b[2].x, b[2].y, b[2].z],
                    "contact_force_final_N": [b[3].x, b[3].y, b[3].z],
                    "contact_torque_final_N_m": [b[4].x, b[4].y, b[4].z],
                    "peak_contact_force_N": peak,
                }),
            )
        })
        .collect();
    let summary = json!({
        "scenario": m.name,
        "diagnosis": run.diagnosis,
        "final_time_s": last.t,
        "bodies": bodies,
        "contacts_final": last.contacts,
        "contacts_peak": run.samples.iter().map(|s| s.contacts).max().unwrap_or(0),
        "energy_initial_J": first.energy,
        "energy_final_J": last.energy,
        "primitives": m.bodies.iter().map(|b| b.model.primitive_count()).sum::<usize>(),
        "wall_time_s": run.wall_s,
        "real_time_factor": last.t / run.wall_s.max(1e-9),
    });
    out.json("summary.json", &summary)?;
    animation(m, run).write_glb(&dir.join("animation.glb"))?;
    Ok(summary)
}

/// The run as an animation: every body's primitives, moving bodies animated.
pub fn animation(m: &Mechanism, run: &MechRun) -> crate::anim::Animation {
    use crate::anim::{Animation, primitive_mesh};
    const PALETTE: [[f32; 4]; 5] = [
        [0.85, 0.45, 0.1, 1.0],
        [0.2, 0.45, 0.8, 1.0],
        [0.3, 0.7, 0.35, 1.0],
        [0.75, 0.2, 0.5, 1.0],
        [0.6, 0.6, 0.6, 1.0],
    ];
    let mut anim = Animation::new();
    // The scene's size: the largest body's bounding radius.
    let size = m
        .bodies
        .iter()
        .filter_map(|b| b.model.nodes[b.model.bodies[0].root as usize].bv)
        .map(|bv| bv.bounding_sphere().1)
        .filter(|r| r.is_finite())
        .fold(0.0, f64::max)
        .max(1e-3);
    let moving: Vec<usize> = (0..m.bodies.len()).filter(|&i| m.bodies[i].moves()).collect();
    for (i, b) in m.bodies.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let meshes = b.model.prims.iter().map(|p| primitive_mesh(&p.shape, size, color)).collect();
        if moving.contains(&i) {
            anim.body(&b.name, meshes);
        } else {
            anim.scenery(&b.name, meshes, &b.start.p_WB, &b.start.q_WB);
        }
    }
    // Contact-force arrows at the moving bodies' centres of mass, the largest force as long as
    // the largest body's radius.
    let peak = run.samples.iter().flat_map(|s| moving.iter().map(|&i| s.bodies[i][3].norm())).fold(0.0, f64::max);
    let per_newton = if peak > 0.0 { size / peak } else { 0.0 };
    for &i in &moving {
        anim.arrow(&format!("{} contact force", m.bodies[i].name), 0.03 * size, crate::anim::FORCE_COLOR);
    }
    for s in &run.samples {
        let poses: Vec<(Vec3, UnitQuat)> = moving.iter().map(|&i| (s.bodies[i][0], s.attitudes[i])).collect();
        anim.frame(s.t, &poses);
        let arrows: Vec<(Vec3, Vec3)> = moving.iter().map(|&i| (s.bodies[i][0], s.bodies[i][3] * per_newton)).collect();
        anim.overlays(&arrows);
    }
    anim
}
