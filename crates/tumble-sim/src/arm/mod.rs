//! Articulated runs (`[arm]`): a multibody from a URDF or inline links, with joint force
//! elements and flexible joints, integrated by RK4 or DOPRI5; joint angles, rates, joint
//! reaction forces and moments and the energy recorded and plotted.

use crate::outputs::RunDir;
use crate::pipeline::Diagnosis;
use crate::plot::{Series, line_plot};
use crate::scenario::arm::{ArmJointSpec, ArmSpec, BaseSpec, FlexibleSpec};
use crate::scenario::check::{Check, err, finite3, mass_and_inertia, positive};
use crate::scenario::{GravitySpec, IntegratorKind, Scenario, ScenarioError};
use std::path::Path;
use tumble_dynamics::Method;
use tumble_dynamics::multibody::forces::{
    BallSpring, Damper, DcMotor, Flexible, JointForce, Spring, Table, ViscosityOn,
};
use tumble_dynamics::multibody::loops::{LoopClosure, Loops};
use tumble_dynamics::multibody::system::MultibodySystem;
use tumble_dynamics::multibody::urdf::{Base, read_urdf};
use tumble_dynamics::multibody::{Joint, Link, Multibody};
use tumble_math::{UnitQuat, Vec3};

pub mod app;
mod builder;
pub mod campaign;
pub mod sim;
mod summary;

pub use builder::ArmBuilder;
pub use sim::ArmSim;
pub use summary::ArmSummary;

/// Sets the feed-forward joint forces `τ_ff` of `sys` (one per velocity coordinate, N·m or N),
/// which its actuators' power (and so the work the energy checks count) includes; a slice of
/// another length is refused.
pub fn set_feed_forward(sys: &mut MultibodySystem, tau: &[f64]) -> Result<(), String> {
    let forces = &mut sys.joint_forces;
    if tau.len() != forces.len() {
        return Err(format!("{} joint forces given; the arm has {} velocity coordinates", tau.len(), forces.len()));
    }
    for (f, &t) in forces.iter_mut().zip(tau) {
        f.get_or_insert_with(Default::default).feed_forward = t;
    }
    Ok(())
}

/// A validated articulated run.
#[derive(Clone, Debug)]
pub struct ArmModel {
    /// Scenario name.
    pub name: String,
    /// The system.
    pub system: MultibodySystem,
    /// Initial state `[q; v; θ; θ̇]`.
    pub initial_state: Vec<f64>,
    /// Integration method.
    pub method: Method,
    /// Duration, s.
    pub duration: f64,
    /// Output interval, s.
    pub output_interval: f64,
    /// Name of the joint carrying each link (`None` for a root).
    pub joint_names: Vec<Option<String>>,
    /// Largest growth of `E − W` allowed, fraction of the energy scale
    /// (`simulation.max_energy_growth`; see [`ArmSim`]).
    pub max_energy_growth: f64,
}

/// A finished run: one row per sample.
pub struct ArmRun {
    /// Column names with units.
    pub columns: Vec<String>,
    /// Samples.
    pub rows: Vec<Vec<f64>>,
    /// A diagnosis if the run stopped early.
    pub failure: Option<Diagnosis>,
}

impl ArmRun {
    /// The samples as `timeseries.csv` has them.
    pub fn timeseries(&self) -> crate::Table {
        let mut table = crate::Table::new(self.columns.clone());
        self.rows.iter().for_each(|r| table.push(r));
        table
    }

    /// The samples of the column named `name` (its name without the unit: `t`, `q0`,
    /// `shoulder.fx`, `energy`), with the column's unit; `None` if there is no such column.
    pub fn column(&self, name: &str) -> Option<(Vec<f64>, &str)> {
        let (i, unit) = self.columns.iter().enumerate().find_map(|(i, c)| {
            let (n, u) = c.split_once(" [").map_or((c.as_str(), ""), |(n, u)| (n, u.trim_end_matches(']')));
            (n == name).then_some((i, u))
        })?;
        Some((self.rows.iter().map(|r| r[i]).collect(), unit))
    }
}

impl ArmModel {
    /// Index of the link named `name`, or of the link its joint of that name carries.
    pub fn link_index(&self, name: &str) -> Option<usize> {
        self.system
            .model
            .links
            .iter()
            .zip(&self.joint_names)
            .position(|(l, j)| l.name == name || j.as_deref() == Some(name))
    }

    /// Validates `[arm]` and builds the run.
    pub fn build(sc: &Scenario) -> Result<Self, ScenarioError> {
        Self::check(sc).map_err(|(k, m)| sc.error_at(&k, m))
    }

    pub(crate) fn check(sc: &Scenario) -> Check<Self> {
        let f = &sc.file;
        let Some(arm) = &f.arm else { return err("arm", "an articulated scenario needs an [arm] table") };
        let gravity = match f.gravity {
            GravitySpec::None => Vec3::zeros(),
            GravitySpec::Uniform { g } => finite3("gravity.g", g)?,
            _ => return err("gravity.type", "arm runs take `none` or `uniform` gravity"),
        };
        let (mb, joint_names) = match (&arm.urdf, arm.links.is_empty()) {
            (Some(path), true) => {
                let base = if arm.base == BaseSpec::Free { Base::Free } else { Base::Fixed };
                let m =
                    read_urdf(&sc.resolve(path), base, gravity).map_err(|e| ("arm.urdf".to_string(), e.to_string()))?;
                (m.multibody, m.joint_names)
            }
            (None, false) => inline(arm, gravity)?,
            _ => return err("arm", "give either `urdf` or `[[arm.links]]`, not both and not neither"),
        };
        let q = match &arm.q {
            Some(q) if q.len() == mb.nq() => q.clone(),
            Some(q) => {
                return err(
                    "arm.q",
                    format!("needs {} values (the model's position coordinates), got {}", mb.nq(), q.len()),
                );
            }
            None => mb.neutral(),
        };
        let v = match &arm.v {
            Some(v) if v.len() == mb.nv() => v.clone(),
            Some(v) => {
                return err(
                    "arm.v",
                    format!("needs {} values (the model's velocity coordinates), got {}", mb.nv(), v.len()),
                );
            }
            None => vec![0.0; mb.nv()],
        };
        if q.iter().chain(&v).any(|x| !x.is_finite()) {
            return err("arm.q", "positions and rates must be finite");
        }
        let mut system = MultibodySystem::new(mb);
        system.loops = loops(arm, &system.model, &joint_names, f.simulation.dt)?;
        let mut motor_state = (Vec::new(), Vec::new());
        for (i, js) in arm.joints.iter().enumerate() {
            let key = format!("arm.joints.{i}");
            let link = joint_names.iter().position(|n| n.as_deref() == Some(js.name.as_str())).ok_or((
                format!("{key}.name"),
                format!("no joint named `{}`; joints: {:?}", js.name, joint_names.iter().flatten().collect::<Vec<_>>()),
            ))?;
            if system.model.links[link].joint == Joint::Spherical {
                // A ball joint takes a torsional spring–damper only.
                if js.pd.is_some()
                    || js.limits.is_some()
                    || js.flexible.is_some()
                    || js.feed_forward != 0.0
                    || js.rest != 0.0
                {
                    return err(format!("{key}.name"), "a ball joint takes only `stiffness` and `damping`");
                }
                let nonneg = |k: &str, x: Option<f64>| match x {
                    Some(x) if !(x.is_finite() && x >= 0.0) => {
                        err(format!("{key}.{k}"), format!("must be >= 0, got {x}"))
                    }
                    x => Ok(x.unwrap_or(0.0)),
                };
                let (stiffness, damping) = (nonneg("stiffness", js.stiffness)?, nonneg("damping", js.damping)?);
                system.ball_springs.push(BallSpring { link, stiffness, damping });
                continue;
            }
            if system.model.links[link].joint.nv() != 1 {
                return err(format!("{key}.name"), "force elements go on revolute, prismatic or ball joints");
            }
            let dof = system.model.v_index(link);
            let (force, flex) = joint_elements(&key, js, dof, q[system.model.q_index(dof)])?;
            system.joint_forces[dof] = force;
            if let Some((fl, torque, start)) = flex {
                motor_state.0.push(start);
                motor_state.1.push(v[dof]);
                system.flexible.push(fl);
                system.motor_torques.push(torque);
            }
        }
        let mut initial_state = q;
        initial_state.extend(v);
        initial_state.extend(motor_state.0);
        initial_state.extend(motor_state.1);
        let sim = &f.simulation;
        let builder = Self::builder(&f.name, system)
            .state(initial_state)
            .duration(sim.duration)
            .max_energy_growth(sim.max_energy_growth)
            .joint_names(joint_names);
        let builder = match sim.integrator {
            IntegratorKind::Rk4 => {
                let Some(dt) = sim.dt else { return err("simulation.dt", "is required by rk4: the step, s") };
                builder.rk4(dt)
            }
            IntegratorKind::Dopri5 => builder.dopri5(sim.rtol, sim.atol, sim.max_step),
            IntegratorKind::SymplecticEuler => return err("simulation.integrator", "arm runs use `rk4` or `dopri5`"),
        };
        let builder = match sim.output_interval {
            Some(oi) => builder.output_interval(oi),
            None => builder,
        };
        let builder = match sim.max_steps {
            Some(n) => builder.max_steps(n),
            None => builder,
        };
        builder.build().map_err(Into::into)
    }

    /// Runs the model on the pipeline's [`crate::pipeline::Driver`], recording a sample every
    /// output interval.
    pub fn simulate(&mut self) -> ArmRun {
        let sim = ArmSim::new(self);
        let schedule = sim.schedule();
        let (sim, end) = crate::pipeline::Driver::run_whole(sim, schedule, &mut |_| {});
        sim.finish(end)
    }
}

/// The loop closures of `[[arm.loops]]`, links by link or joint name.
fn loops(arm: &ArmSpec, mb: &Multibody, joint_names: &[Option<String>], dt: Option<f64>) -> Check<Loops> {
    let find = |key: String, name: &str| {
        mb.links.iter().zip(joint_names).position(|(l, j)| l.name == name || j.as_deref() == Some(name)).ok_or_else(
            || {
                let known: Vec<&str> = mb.links.iter().map(|l| l.name.as_str()).collect();
                (key, format!("no link or joint named `{name}`; links: {}", known.join(", ")))
            },
        )
    };
    let mut closures = Vec::new();
    for (i, l) in arm.loops.iter().enumerate() {
        let key = |k: &str| format!("arm.loops.{i}.{k}");
        let a = find(key("a"), &l.a)?;
        let b = l.b.as_deref().map(|b| find(key("b"), b)).transpose()?;
        if Some(a) == b {
            return err(key("b"), "a loop joins two different links (or a link and the world: leave `b` out)");
        }
        let point_a = finite3(&key("point_a"), l.point_a)?;
        let point_b = finite3(&key("point_b"), l.point_b)?;
        closures.push(LoopClosure { a, point_a, b, point_b });
    }
    let rate = arm.loop_rate.unwrap_or(DEFAULT_LOOP_RATE);
    if !closures.is_empty() || arm.loop_rate.is_some() {
        positive("arm.loop_rate", rate, "1/s")?;
    }
    // The stabilisation is a critically damped mode at `ω`: RK4 resolves it while ω·dt ≤ 0.5.
    if let Some(dt) = dt.filter(|dt| rate * dt > 0.5 && !closures.is_empty()) {
        let most = 0.5 / dt;
        return err(
            "arm.loop_rate",
            format!(
                "{rate}/s is too fast for the step dt = {dt} s (ω·dt must stay ≤ 0.5): give at most {most}/s, or a shorter dt"
            ),
        );
    }
    Ok(Loops::new(closures, rate))
}

/// Baumgarte's rate of a scenario's loops unless it gives one, 1/s: a drift decays as
/// `(1 + ωt) e^{−ωt}`, to 1e-5 of itself in 0.3 s, while `ω·dt` stays far below RK4's limit at
/// the steps an arm takes (1e-3 s: 0.05).
pub const DEFAULT_LOOP_RATE: f64 = 50.0;

/// Force elements and an optional flexible transmission (with its motor torque and the motor's
/// initial angle) of one joint.
type Elements = (Option<JointForce>, Option<(Flexible, f64, f64)>);

/// The elements of the joint at velocity index `dof`, whose link starts at `angle` (the motor
/// starts there too unless `motor_angle` says otherwise; a servo holds the motor's start).
fn joint_elements(key: &str, js: &ArmJointSpec, dof: usize, angle: f64) -> Check<Elements> {
    let nonneg = |k: &str, x: f64| {
        if x.is_finite() && x >= 0.0 {
            Ok(x)
        } else {
            err(format!("{key}.{k}"), format!("must be a finite number >= 0, got {x}"))
        }
    };
    let mut f = JointForce { rest: js.rest, target: js.target, feed_forward: js.feed_forward, ..Default::default() };
    if let Some(k) = js.stiffness {
        f.spring = Some(Spring::Linear(nonneg("stiffness", k)?));
    }
    if let Some(c) = js.damping {
        f.damper = Some(Damper::Linear(nonneg("damping", c)?));
    }
    if let Some([kp, kd]) = js.pd {
        f.pd = Some((nonneg("pd", kp)?, nonneg("pd", kd)?));
    }
    if let Some([lo, hi, k, c]) = js.limits {
        if lo.partial_cmp(&hi) != Some(std::cmp::Ordering::Less) {
            return err(format!("{key}.limits"), format!("needs lower < upper, got [{lo}, {hi}]"));
        }
        f.limits = Some((lo, hi, nonneg("limits", k)?, nonneg("limits", c)?));
    }
    if let Some(m) = &js.motor {
        let at = |k: &str| format!("{key}.motor.{k}");
        positive(&at("stall"), m.stall, "N·m (N)")?;
        positive(&at("no_load_speed"), m.no_load_speed, "rad/s (m/s)")?;
        if !(-1.0..=1.0).contains(&m.command) {
            return err(at("command"), format!("is a fraction of the rated voltage, from -1 to 1; got {}", m.command));
        }
        f.motor = Some(DcMotor { stall: m.stall, no_load_speed: m.no_load_speed, command: m.command });
    }
    let flex = match &js.flexible {
        None => None,
        Some(fs) => Some(flexible(key, fs, dof, angle)?),
    };
    let any = f.spring.is_some()
        || f.damper.is_some()
        || f.pd.is_some()
        || f.limits.is_some()
        || f.feed_forward != 0.0
        || f.motor.is_some();
    Ok((any.then_some(f), flex))
}

/// The flexible transmission of the joint at velocity index `dof` (link at `angle`), with its
/// constant motor torque and the motor's initial angle.
fn flexible(key: &str, fs: &FlexibleSpec, dof: usize, angle: f64) -> Check<(Flexible, f64, f64)> {
    let nonneg = |k: &str, x: f64| {
        if x.is_finite() && x >= 0.0 {
            Ok(x)
        } else {
            err(format!("{key}.flexible.{k}"), format!("must be a finite number >= 0, got {x}"))
        }
    };
    let deg = std::f64::consts::PI / 180.0;
    let mut viscosity_on = ViscosityOn::Motor;
    let (stiffness, viscosity) = match (&fs.stiffness, &fs.table) {
        (Some(k), None) => (Spring::Linear(nonneg("stiffness", *k)?), None),
        (None, Some(t)) => {
            let to_rad = |v: &[f64]| v.iter().map(|x| x / deg).collect::<Vec<f64>>();
            let breaks: Vec<f64> = t.breaks_deg.iter().map(|b| b * deg).collect();
            let bad = |e: String| (format!("{key}.flexible.table"), e);
            let k = Table::new(breaks.clone(), to_rad(&t.stiffness_per_deg)).map_err(bad)?;
            viscosity_on = match t.viscosity_on.as_deref() {
                None | Some("motor") => ViscosityOn::Motor,
                Some("deflection") => ViscosityOn::Deflection,
                Some(other) => {
                    return err(
                        format!("{key}.flexible.table.viscosity_on"),
                        format!("`{other}` is not a rate: give \"motor\" (eq. 2) or \"deflection\""),
                    );
                }
            };
            let c = if t.viscosity_per_deg.is_empty() {
                None
            } else {
                Some(Damper::Table(Table::new(breaks, to_rad(&t.viscosity_per_deg)).map_err(bad)?))
            };
            (Spring::Table(k), c)
        }
        _ => return err(format!("{key}.flexible"), "give exactly one of `stiffness` or `table`"),
    };
    let inertia = positive(&format!("{key}.flexible.motor_inertia"), fs.motor_inertia, "kg·m²")?;
    let damping = nonneg("motor_damping", fs.motor_damping)?;
    let start = fs.motor_angle.unwrap_or(angle);
    if !start.is_finite() {
        return err(format!("{key}.flexible.motor_angle"), "must be finite (rad)");
    }
    let servo = match fs.motor_servo {
        Some(k) => Some((nonneg("motor_servo", k)?, start)),
        None => None,
    };
    Ok((Flexible { dof, inertia, damping, stiffness, viscosity, viscosity_on, servo }, fs.motor_torque, start))
}

/// Links declared inline, in order.
fn inline(arm: &ArmSpec, gravity: Vec3) -> Check<(Multibody, Vec<Option<String>>)> {
    let mut links = Vec::new();
    let mut names = Vec::new();
    for (i, l) in arm.links.iter().enumerate() {
        let key = format!("arm.links.{i}");
        let parent = match &l.parent {
            None => None,
            Some(p) => Some(
                arm.links[..i]
                    .iter()
                    .position(|x| &x.name == p)
                    .ok_or((format!("{key}.parent"), format!("`{p}` is not a link declared before `{}`", l.name)))?,
            ),
        };
        let axis = finite3(&format!("{key}.axis"), l.axis)?;
        let unit = || axis.try_normalize(1e-12).ok_or((format!("{key}.axis"), "must be a non-zero vector".to_string()));
        let joint = match (parent.is_none(), l.joint.as_str()) {
            (true, _) if arm.base == BaseSpec::Free => Joint::Free,
            (_, "revolute") => Joint::Revolute(unit()?),
            (_, "prismatic") => Joint::Prismatic(unit()?),
            (_, "spherical") => Joint::Spherical,
            (_, "fixed") => Joint::Fixed,
            (_, other) => {
                return err(
                    format!("{key}.joint"),
                    format!("unknown joint `{other}`: use revolute, prismatic, spherical or fixed"),
                );
            }
        };
        let (mass, inertia) = mass_and_inertia(&key, l.mass, &l.inertia)?;
        let rpy = finite3(&format!("{key}.rpy"), l.rpy)?;
        let rot = UnitQuat::from_euler_angles(rpy.x, rpy.y, rpy.z).to_rotation_matrix().into_inner();
        links.push(Link {
            name: l.name.clone(),
            parent,
            joint,
            parent_to_joint: (rot, finite3(&format!("{key}.origin"), l.origin)?),
            mass,
            com: finite3(&format!("{key}.com"), l.com)?,
            inertia,
        });
        names.push(Some(l.name.clone()));
    }
    let mb = Multibody::new(links, gravity).map_err(|e| ("arm.links".to_string(), e.to_string()))?;
    Ok((mb, names))
}

/// Writes `timeseries.csv`, `summary.json` and plots (joint angles, rates, reaction moments,
/// flexible joints' motor angles and deflections, energy) into `dir`.
pub fn write_arm_run(dir: &Path, model: &ArmModel, run: &ArmRun) -> Result<ArmSummary, String> {
    let out = RunDir::create(dir)?;
    out.csv("timeseries.csv", |w| run.timeseries().write_csv(w))?;
    let summary = ArmSummary::new(model, run)?;
    out.json("summary.json", &serde_json::to_value(&summary).map_err(|e| e.to_string())?)?;
    let t: Vec<f64> = run.rows.iter().map(|r| r[0]).collect();
    // The columns whose name (the part before the unit) `pick` labels, at most `cap` of them.
    let picked = |pick: &dyn Fn(&str) -> Option<String>, cap: usize| -> Vec<Series> {
        run.columns
            .iter()
            .enumerate()
            .filter_map(|(i, c)| pick(c.split(' ').next().unwrap_or(c)).map(|label| (i, label)))
            .take(cap)
            .map(|(i, label)| Series { label, x: &t, y: run.rows.iter().map(|r| r[i]).collect() })
            .collect()
    };
    let series = |prefix: &str, cap: usize| picked(&|n| n.starts_with(prefix).then(|| n.to_string()), cap);
    let plots = out.plots();
    let mb = &model.system.model;
    line_plot(
        &plots.join("joint_positions"),
        "Joint positions",
        "time [s]",
        "q [rad or m]",
        &series("q", mb.nq().min(6)),
        false,
    )?;
    line_plot(
        &plots.join("joint_rates"),
        "Joint rates",
        "time [s]",
        "v [rad/s or m/s]",
        &series("v", mb.nv().min(6)),
        false,
    )?;
    // Reaction moment magnitude per joint.
    let moments: Vec<Series> = run
        .columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.contains(".mx "))
        .take(6)
        .map(|(i, c)| Series {
            label: c.split('.').next().unwrap_or(c).to_string(),
            x: &t,
            y: run.rows.iter().map(|r| (r[i] * r[i] + r[i + 1] * r[i + 1] + r[i + 2] * r[i + 2]).sqrt()).collect(),
        })
        .collect();
    line_plot(
        &plots.join("joint_reaction_moments"),
        "Joint reaction moments",
        "time [s]",
        "|moment| [N·m]",
        &moments,
        false,
    )?;
    // Flexible joints: each motor's angle and each transmission's deflection.
    let named = |suffix: &str| picked(&|n| n.strip_suffix(suffix).map(str::to_string), 6);
    if !model.system.flexible.is_empty() {
        let (motors, deflections) = (named(".motor"), named(".deflection"));
        line_plot(&plots.join("motor_angles"), "Motor angles θ", "time [s]", "θ [rad]", &motors, false)?;
        let title = "Joint deflections q − θ";
        line_plot(&plots.join("joint_deflections"), title, "time [s]", "q − θ [deg]", &deflections, false)?;
    }
    // The energy's change from the start: a conservative tree's drift reads directly, and a
    // damped or driven one's loss or gain.
    let mut energy = series("energy", 1);
    for s in &mut energy {
        let e0 = s.y.first().copied().unwrap_or(0.0);
        s.y.iter_mut().for_each(|e| *e -= e0);
        s.label = "E − E₀".into();
    }
    line_plot(&plots.join("energy"), "Energy change from the start", "time [s]", "E − E₀ [J]", &energy, false)?;
    animation(model, run).write_glb(&dir.join("animation.glb"))?;
    Ok(summary)
}

/// The run as an animation: each link as the inertia-equivalent box about its centre of mass,
/// posed by the tree's kinematics at each sample.
pub fn animation(model: &ArmModel, run: &ArmRun) -> crate::anim::Animation {
    let mb = &model.system.model;
    let (nq, nv) = (mb.nq(), mb.nv());
    let frames =
        run.rows.iter().filter(|r| r.len() >= 1 + nq + nv).map(|r| (r[0], &r[1..1 + nq], &r[1 + nq..1 + nq + nv]));
    tree_animation(mb, frames)
}

/// A tree's animation from `(t, q, v)` frames: each link as the inertia-equivalent box about its
/// centre of mass, posed by the tree's kinematics.
pub(crate) fn tree_animation<'a>(
    mb: &Multibody,
    frames: impl Iterator<Item = (f64, &'a [f64], &'a [f64])>,
) -> crate::anim::Animation {
    let mut anim = crate::anim::Animation::new();
    for (k, l) in mb.links.iter().enumerate() {
        let shade = 0.3 + 0.6 * (k as f32 / mb.links.len().max(1) as f32);
        let meshes = if l.mass > 0.0 {
            vec![crate::anim::inertia_box_at(l.mass, &l.inertia, &l.com, [0.8, 0.8 * shade, 0.3, 1.0])]
        } else {
            Vec::new()
        };
        anim.body(&l.name, meshes);
    }
    for (t, q, v) in frames {
        let k = mb.kinematics(q, v);
        let poses: Vec<(Vec3, UnitQuat)> = k.pose.iter().map(|(R, p)| (*p, tumble_math::quat_from_matrix(R))).collect();
        anim.frame(t, &poses);
    }
    anim
}
