//! Tests of the multibody algorithms, force elements and URDF import; the impact and capture
//! maps in `maps`.

use super::spatial::{cross_force, cross_motion, join};
use super::*;
use crate::integrator::{Integrator, Method, OdeSystem};
use tumble_math::UnitQuat;
use tumble_math::nalgebra::DVector;

fn link(name: &str, parent: Option<usize>, joint: Joint, at: Vec3, mass: f64, com: Vec3, d: [f64; 3]) -> Link {
    let tilt = UnitQuat::from_scaled_axis(at * 0.7).to_rotation_matrix().into_inner();
    Link {
        name: name.into(),
        parent,
        joint,
        parent_to_joint: (tilt, at),
        mass,
        com,
        inertia: Mat3::from_diagonal(&Vec3::from(d)),
    }
}

/// A floating base carrying a branched arm with every joint type.
fn tree(gravity: Vec3) -> Multibody {
    let links = vec![
        link("base", None, Joint::Free, Vec3::zeros(), 20.0, Vec3::new(0.05, 0.0, 0.1), [2.0, 2.5, 3.0]),
        link(
            "l1",
            Some(0),
            Joint::Revolute(Vec3::z()),
            Vec3::new(0.3, 0.0, 0.5),
            3.0,
            Vec3::new(0.0, 0.0, 0.2),
            [0.05, 0.06, 0.02],
        ),
        link(
            "l2",
            Some(1),
            Joint::Revolute(Vec3::new(0.0, 1.0, 0.0)),
            Vec3::new(0.0, 0.0, 0.4),
            2.0,
            Vec3::new(0.2, 0.0, 0.0),
            [0.01, 0.04, 0.04],
        ),
        link(
            "l3",
            Some(2),
            Joint::Prismatic(Vec3::x()),
            Vec3::new(0.4, 0.0, 0.0),
            1.0,
            Vec3::new(0.1, 0.0, 0.0),
            [0.005, 0.01, 0.01],
        ),
        link(
            "l4",
            Some(3),
            Joint::Spherical,
            Vec3::new(0.2, 0.0, 0.0),
            0.5,
            Vec3::new(0.05, 0.02, 0.0),
            [0.002, 0.003, 0.004],
        ),
        link(
            "l5",
            Some(0),
            Joint::Revolute(Vec3::x()),
            Vec3::new(-0.3, 0.2, 0.1),
            1.5,
            Vec3::new(0.0, 0.3, 0.0),
            [0.02, 0.005, 0.02],
        ),
        link(
            "tool",
            Some(5),
            Joint::Fixed,
            Vec3::new(0.0, 0.6, 0.0),
            0.3,
            Vec3::new(0.0, 0.05, 0.0),
            [0.001, 0.001, 0.001],
        ),
    ];
    Multibody::new(links, gravity).expect("valid")
}

fn state(mb: &Multibody, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = tumble_math::Lcg::new(seed);
    let mut u = || rng.symmetric();
    let mut q: Vec<f64> = (0..mb.nq()).map(|_| u()).collect();
    for (k, l) in mb.links.iter().enumerate() {
        l.joint.normalize(&mut q[mb.q_at[k]..mb.q_at[k + 1]]);
    }
    let v = (0..mb.nv()).map(|_| u()).collect();
    (q, v)
}

#[test]
fn inverse_dynamics_inverts_forward_dynamics_and_the_mass_matrix_agrees() {
    let mb = tree(Vec3::new(0.0, 0.0, -9.81));
    let f_ext: Vec<SVec> =
        (0..mb.links.len()).map(|i| SVec::new(0.1 * i as f64, -0.2, 0.3, 1.0, -0.5 * i as f64, 2.0)).collect();
    for seed in 1..6 {
        let (q, v) = state(&mb, seed);
        let tau: Vec<f64> = (0..mb.nv()).map(|i| (i as f64 * 0.7).sin() * 3.0).collect();
        let a = mb.forward_dynamics(&q, &v, &tau, &f_ext);
        let back = mb.inverse_dynamics(&q, &v, a.as_slice(), &f_ext);
        let err = (back - DVector::from_column_slice(&tau)).norm();
        // Two recursions in double precision over 7 links with O(1–20) entries: rounding is
        // ~1e-13; 1e-10 leaves room without hiding a wrong term (those show at O(1)).
        assert!(err < 1e-10 * (1.0 + tau.iter().map(|t| t.abs()).sum::<f64>()), "seed {seed}: {err}");
        // M a + bias = τ with the CRBA mass matrix and the RNEA bias.
        let m = mb.mass_matrix(&q);
        assert!((&m - m.transpose()).norm() < 1e-12 * m.norm());
        assert!(m.clone().cholesky().is_some(), "positive definite");
        let bias = mb.inverse_dynamics(&q, &v, &vec![0.0; mb.nv()], &f_ext);
        let lhs = &m * &a + bias;
        assert!((lhs - DVector::from_column_slice(&tau)).norm() < 1e-10 * (1.0 + m.norm()));
    }
}

#[test]
fn the_mass_matrix_is_the_hessian_of_the_kinetic_energy() {
    // T = ½ vᵀ M v is quadratic in v: central second differences are exact up to rounding.
    let mb = tree(Vec3::zeros());
    let (q, _) = state(&mb, 9);
    let m = mb.mass_matrix(&q);
    let n = mb.nv();
    let h = 1e-3;
    for i in 0..n {
        for j in 0..n {
            let t = |a: f64, b: f64| {
                let mut v = vec![0.0; n];
                v[i] += a;
                v[j] += b;
                mb.kinetic_energy(&q, &v)
            };
            let fd = (t(h, h) - t(h, -h) - t(-h, h) + t(-h, -h)) / (4.0 * h * h);
            // Exact for a quadratic but for rounding: ε T / h² ≈ 1e-16 · 10 J / 1e-6 = 1e-9.
            assert!((fd - m[(i, j)]).abs() < 1e-8 * (1.0 + m[(i, j)].abs()), "M[{i},{j}] = {} vs {fd}", m[(i, j)]);
        }
    }
}

/// The tree as an ODE: `[q; v]` with joint forces from `tau(t)`.
struct Sim<'a> {
    mb: &'a Multibody,
    tau: fn(f64, usize) -> f64,
}

impl OdeSystem for Sim<'_> {
    fn dim(&self) -> usize {
        self.mb.nq() + self.mb.nv()
    }
    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) {
        let (nq, mb) = (self.mb.nq(), self.mb);
        let (q, v) = y.split_at(nq);
        mb.q_dot(q, v, &mut dydt[..nq]);
        let tau: Vec<f64> = (0..mb.nv()).map(|i| (self.tau)(t, i)).collect();
        dydt[nq..].copy_from_slice(mb.forward_dynamics(q, v, &tau, &[]).as_slice());
    }
    fn project(&self, y: &mut [f64]) {
        self.mb.normalize(&mut y[..self.mb.nq()]);
    }
}

fn run(mb: &Multibody, tau: fn(f64, usize) -> f64, y: &mut [f64], dt: f64, steps: usize, mut each: impl FnMut(&[f64])) {
    let mut sys = Sim { mb, tau };
    let mut integ = Integrator::new(Method::Rk4 { dt }, sys.dim());
    for k in 0..steps {
        integ.step_once(&mut sys, k as f64 * dt, y, dt);
        each(y);
    }
}

#[test]
fn a_double_pendulum_conserves_energy() {
    let links = vec![
        Link {
            name: "a".into(),
            parent: None,
            joint: Joint::Revolute(Vec3::y()),
            parent_to_joint: (Mat3::identity(), Vec3::zeros()),
            mass: 1.0,
            com: Vec3::new(0.0, 0.0, -0.5),
            inertia: Mat3::from_diagonal(&Vec3::new(0.02, 0.02, 0.001)),
        },
        Link {
            name: "b".into(),
            parent: Some(0),
            joint: Joint::Revolute(Vec3::y()),
            parent_to_joint: (Mat3::identity(), Vec3::new(0.0, 0.0, -1.0)),
            mass: 0.7,
            com: Vec3::new(0.0, 0.0, -0.4),
            inertia: Mat3::from_diagonal(&Vec3::new(0.01, 0.01, 0.001)),
        },
    ];
    let mb = Multibody::new(links, Vec3::new(0.0, 0.0, -9.81)).expect("valid");
    let mut y = vec![1.2, -0.4, 0.0, 2.0];
    let e = |y: &[f64]| mb.kinetic_energy(&y[..2], &y[2..]) + mb.potential_energy(&y[..2]);
    let e0 = e(&y);
    let mut drift = 0.0f64;
    run(&mb, |_, _| 0.0, &mut y, 1e-3, 10_000, |y| drift = drift.max((e(y) - e0).abs()));
    // Chaotic motion over 10 s at 1 ms RK4 steps: the drift is truncation error, ~(ω h)⁴.
    assert!(drift < 1e-8 * e0.abs().max(1.0), "energy drift {drift} J of {e0} J");
}

#[test]
fn a_free_floating_arm_conserves_momentum_under_internal_torques() {
    let mb = tree(Vec3::zeros());
    let (q, v) = state(&mb, 4);
    let mut y: Vec<f64> = q.iter().chain(&v).copied().collect();
    let nq = mb.nq();
    let (l0, a0) = mb.momentum(&y[..nq], &y[nq..]);
    let scale = l0.norm() + a0.norm();
    let mut worst = 0.0f64;
    // Joint torques on every actuated joint (base free: zero force on its 6 coordinates), sized
    // so the light distal links stay below a few rad/s (stronger ones spin them up until RK4's
    // truncation, not the model, sets the drift).
    run(
        &mb,
        |t, i| if i < 6 { 0.0 } else { 0.01 * (3.0 * t + i as f64).sin() },
        &mut y,
        1e-3,
        3000,
        |y| {
            let (l, a) = mb.momentum(&y[..nq], &y[nq..]);
            worst = worst.max((l - l0).norm() + (a - a0).norm());
        },
    );
    // Internal forces leave the total momentum unchanged; what remains is rounding.
    assert!(worst < 1e-10 * scale, "momentum drift {worst} of {scale}");
    // The base moves so that the centre of mass drifts at p/m in a straight line (3 s).
    let (m, c0) = mb.center_of_mass(&q);
    let (_, c1) = mb.center_of_mass(&y[..nq]);
    assert!(
        (c1 - (c0 + l0 / m * 3.0)).norm() < 1e-9,
        "centre of mass off its line by {}",
        (c1 - (c0 + l0 / m * 3.0)).norm()
    );
}

#[test]
fn the_jacobian_maps_joint_rates_to_the_link_velocity() {
    let mb = tree(Vec3::zeros());
    let (q, v) = state(&mb, 21);
    for link in [2, 4, 6] {
        let jac = mb.jacobian(&q, link);
        let twist = &jac * DVector::from_column_slice(&v);
        let k = mb.kinematics(&q, &v);
        let (w, vo) = parts(&k.v[link]);
        let r = k.pose[link].0;
        assert!((Vec3::new(twist[0], twist[1], twist[2]) - r * vo).norm() < 1e-12, "linear, link {link}");
        assert!((Vec3::new(twist[3], twist[4], twist[5]) - r * w).norm() < 1e-12, "angular, link {link}");
        // A point off the origin moves with v + ω × r.
        let p = Vec3::new(0.1, -0.2, 0.3);
        let tp = mb.point_jacobian(&q, link, &p) * DVector::from_column_slice(&v);
        let expected = r * (vo + w.cross(&p));
        assert!((Vec3::new(tp[0], tp[1], tp[2]) - expected).norm() < 1e-12, "point, link {link}");
    }
}

#[test]
fn urdf_arms_load_and_bad_ones_are_refused() {
    use urdf::{Base, read_urdf, urdf_from_str};
    let iiwa =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/robots/kuka_iiwa_bullet3.urdf");
    if iiwa.exists() {
        let m = read_urdf(&iiwa, Base::Fixed, Vec3::new(0.0, 0.0, -9.81)).expect("iiwa loads");
        assert_eq!((m.multibody.nq(), m.multibody.nv()), (7, 7));
        let q = [0.1, -0.4, 0.3, 1.2, -0.5, 0.7, 0.2];
        assert!(m.multibody.mass_matrix(&q).cholesky().is_some());
        assert!(m.limits.iter().flatten().count() == 7);
    }
    let link = |n: &str, mass: f64| {
        format!(
            r#"<link name="{n}"><inertial><mass value="{mass}"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>"#
        )
    };
    let joint = |n: &str, t: &str, p: &str, c: &str| {
        format!(
            r#"<joint name="{n}" type="{t}"><parent link="{p}"/><child link="{c}"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>"#
        )
    };
    let robot = |body: String| format!(r#"<robot name="r">{body}</robot>"#);
    let ok = robot(format!("{}{}{}", link("a", 1.0), link("b", 1.0), joint("j", "revolute", "a", "b")));
    assert!(urdf_from_str(&ok, "ok.urdf", Base::Fixed, Vec3::zeros()).is_ok());
    for (text, expected) in [
        (
            robot(format!(
                "{}{}{}{}",
                link("a", 1.0),
                link("b", 1.0),
                joint("j1", "revolute", "a", "b"),
                joint("j2", "revolute", "b", "a")
            )),
            "loop",
        ),
        (robot(format!("{}{}", link("a", 1.0), joint("j", "revolute", "a", "ghost"))), "`ghost` is not defined"),
        (
            robot(format!("{}{}{}", link("a", 1.0), link("b", 1.0), joint("j", "screw", "a", "b"))),
            "not a readable URDF",
        ),
        (robot(format!("{}{}{}", link("a", 1.0), link("b", 1.0), joint("j", "planar", "a", "b"))), "planar"),
        (robot(format!("{}{}{}", link("a", 1.0), link("b", 0.0), joint("j", "revolute", "a", "b"))), "massless"),
        (
            robot(format!(
                r#"{}<link name="b"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>{}"#,
                link("a", 1.0),
                joint("j", "revolute", "a", "b")
            )),
            "inertial",
        ),
        ("<robot".to_string(), "not a readable URDF"),
        (
            robot(format!("{}{}{}", link("a", 1.0), link("b", 1.0), joint("j", "revolute", "a", "b")))
                .replace("<axis xyz=\"0 0 1\"/>", "<axis xyz=\"0 NaN 1\"/>"),
            "finite number",
        ),
        (
            robot(format!("{}{}{}", link("a", 1.0), link("b", 1e308), joint("j", "revolute", "a", "b"))),
            "more than 1e20 kg",
        ),
        // A centre of mass at 1e200 m: finite, but its inertia products overflow.
        (
            robot(format!("{}{}{}", link("a", 1.0), link("b", 1.0), joint("j", "revolute", "a", "b"))).replacen(
                "<mass value=\"1\"/>",
                "<origin xyz=\"1e200 0 0\"/><mass value=\"1\"/>",
                1,
            ),
            "must lie within 1e9 m",
        ),
        // 50,000 nested elements: refused before the parser's recursion could overflow the stack.
        (robot(format!("{}{}", "<a>".repeat(50_000), "</a>".repeat(50_000))), "nested more than 64 deep"),
    ] {
        let err = urdf_from_str(&text, "bad.urdf", Base::Fixed, Vec3::zeros()).expect_err(expected).to_string();
        assert!(err.contains(expected) && err.starts_with("bad.urdf: "), "{expected}: {err}");
    }
}

#[test]
fn a_realistic_urdf_nesting_passes_the_depth_bound() {
    // Comments, declarations and self-closing tags do not count; 64 levels pass, 65 do not.
    let nest = |n: usize| {
        format!(
            "<?xml version=\"1.0\"?><!-- <a><a> --><robot>{}<x/>{}</robot>",
            "<a>".repeat(n - 1),
            "</a>".repeat(n - 1)
        )
    };
    let err = |n: usize| {
        urdf::urdf_from_str(&nest(n), "n.urdf", urdf::Base::Fixed, Vec3::zeros()).err().map(|e| e.to_string())
    };
    assert!(!err(64).unwrap_or_default().contains("nested"), "{:?}", err(64));
    assert!(err(65).unwrap_or_default().contains("nested more than 64 deep"), "{:?}", err(65));
}

#[test]
fn the_generalized_jacobian_predicts_the_tool_velocity_of_a_free_floating_arm() {
    let mb = tree(Vec3::zeros());
    let (q, mut v) = state(&mb, 8);
    // Start with zero momentum: the base velocity that balances the joint rates.
    let m = mb.mass_matrix(&q);
    let n = mb.nv() - 6;
    let qm = DVector::from_column_slice(&v[6..]);
    let vb = -m.view((0, 0), (6, 6)).into_owned().cholesky().expect("spd").solve(&(m.view((0, 6), (6, n)) * &qm));
    v[..6].copy_from_slice(vb.as_slice());
    let nq = mb.nq();
    let mut y: Vec<f64> = q.iter().chain(&v).copied().collect();
    let tool = mb.links.len() - 1;
    let mut checked = 0;
    let mut worst = 0.0f64;
    run(
        &mb,
        |t, i| if i < 6 { 0.0 } else { 0.01 * (2.0 * t + i as f64).cos() },
        &mut y,
        1e-3,
        2000,
        |y| {
            let (q, v) = y.split_at(nq);
            let actual = mb.jacobian(q, tool) * DVector::from_column_slice(v);
            let predicted = mb.generalized_jacobian(q, tool).expect("free base") * DVector::from_column_slice(&v[6..]);
            worst = worst.max((actual - &predicted).norm() / predicted.norm().max(1e-12));
            checked += 1;
        },
    );
    // Momentum stays zero to rounding (previous test), so the prediction holds to rounding.
    assert!(checked == 2000 && worst < 1e-9, "worst relative error {worst}");
}

#[test]
fn a_flexible_joint_oscillates_at_the_two_inertia_frequency() {
    use forces::{Flexible, Spring};
    use system::MultibodySystem;
    // One link of inertia J about its joint axis, no gravity, a motor B behind a spring K.
    let (j, b, k) = (2.0, 0.5, 300.0);
    let link = Link {
        name: "arm".into(),
        parent: None,
        joint: Joint::Revolute(Vec3::z()),
        parent_to_joint: (Mat3::identity(), Vec3::zeros()),
        mass: 1.0,
        com: Vec3::zeros(),
        inertia: Mat3::from_diagonal(&Vec3::new(1.0, 1.0, j)),
    };
    let mut sys = MultibodySystem::new(Multibody::new(vec![link], Vec3::zeros()).expect("valid"));
    sys.flexible.push(Flexible {
        dof: 0,
        inertia: b,
        damping: 0.0,
        stiffness: Spring::Linear(k),
        viscosity: None,
        viscosity_on: Default::default(),
        servo: None,
    });
    let mut y = vec![0.01, 0.0, 0.0, 0.0];
    let dt = 1e-4;
    let mut integ = Integrator::new(Method::Rk4 { dt }, sys.dim());
    let e0 = sys.energy(&y);
    let (mut crossings, mut last, mut drift) = (Vec::new(), y[0] - y[2], 0.0f64);
    for n in 0..20_000 {
        integ.step_once(&mut sys, n as f64 * dt, &mut y, dt);
        let d = y[0] - y[2];
        if last > 0.0 && d <= 0.0 {
            // Linear interpolation of the downward zero crossing of the deflection.
            crossings.push((n as f64 + last / (last - d)) * dt);
        }
        last = d;
        drift = drift.max((sys.energy(&y) - e0).abs());
    }
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let omega = (k * (1.0 / j + 1.0 / b)).sqrt();
    // RK4 at ω·dt = 0.003 has a phase error ~(ω dt)⁴/120; the crossing interpolation ~(ω dt)².
    assert!(
        (std::f64::consts::TAU / period / omega - 1.0).abs() < 1e-6,
        "ω = {} vs {omega}",
        std::f64::consts::TAU / period
    );
    assert!(drift < 1e-10 * e0, "energy drift {drift} of {e0}");
    // The total angular momentum J q̇ + B θ̇ stays zero.
    assert!((j * y[1] + b * y[3]).abs() < 1e-12);
}

#[test]
fn joint_wrenches_carry_the_static_load() {
    // A 2 kg link on a revolute joint about y, its centre of mass 0.5 m out along x, held at rest
    // under gravity: the joint carries m g upward and the moment c × (m g ẑ) = (0, −0.5 m g, 0).
    let link = Link {
        name: "l".into(),
        parent: None,
        joint: Joint::Revolute(Vec3::y()),
        parent_to_joint: (Mat3::identity(), Vec3::zeros()),
        mass: 2.0,
        com: Vec3::new(0.5, 0.0, 0.0),
        inertia: Mat3::identity() * 0.01,
    };
    let mb = Multibody::new(vec![link], Vec3::new(0.0, 0.0, -9.81)).expect("valid");
    let w = mb.joint_wrenches(&[0.0], &[0.0], &[0.0], &[]);
    let (m, f) = parts(&w[0]);
    assert!((f - Vec3::new(0.0, 0.0, 2.0 * 9.81)).norm() < 1e-12, "{f}");
    assert!((m - Vec3::new(0.0, -0.5 * 2.0 * 9.81, 0.0)).norm() < 1e-12, "{m}");
    // Its joint torque (the y component) is what inverse dynamics returns.
    assert!((mb.inverse_dynamics(&[0.0], &[0.0], &[0.0], &[])[0] - m.y).abs() < 1e-12);
}

#[test]
fn a_ball_joint_spring_is_conservative_and_rings_at_sqrt_k_over_i() {
    use forces::BallSpring;
    use system::MultibodySystem;
    // A panel (inertia 4 kg·m² about each axis through the hinge) on a ball joint, no gravity.
    let panel = Link {
        name: "array".into(),
        parent: None,
        joint: Joint::Spherical,
        parent_to_joint: (Mat3::identity(), Vec3::zeros()),
        mass: 10.0,
        com: Vec3::zeros(),
        inertia: Mat3::identity() * 4.0,
    };
    let k = 25.0;
    let mut sys = MultibodySystem::new(Multibody::new(vec![panel], Vec3::zeros()).expect("valid"));
    sys.ball_springs.push(BallSpring { link: 0, stiffness: k, damping: 0.0 });
    // Large swing (about 69° about a skew axis) with a spin: energy must hold at any angle.
    let q0 = UnitQuat::from_scaled_axis(Vec3::new(0.8, 0.6, 0.5));
    let mut y = vec![q0.w, q0.i, q0.j, q0.k, 0.1, -0.3, 0.2];
    let dt = 1e-3;
    let mut integ = Integrator::new(Method::Rk4 { dt }, sys.dim());
    let e0 = sys.energy(&y);
    let mut drift = 0.0f64;
    for n in 0..10_000 {
        integ.step_once(&mut sys, n as f64 * dt, &mut y, dt);
        drift = drift.max((sys.energy(&y) - e0).abs());
    }
    assert!(drift < 1e-9 * e0, "energy drift {drift} of {e0}");
    // Small angles about x: θ(t) = θ₀ cos(√(k/I) t).
    let th0 = 1e-4;
    let mut y = vec![(th0 / 2.0f64).cos(), (th0 / 2.0f64).sin(), 0.0, 0.0, 0.0, 0.0, 0.0];
    let omega = (k / 4.0f64).sqrt();
    let steps = (std::f64::consts::PI / omega / dt).round() as usize;
    let mut integ = Integrator::new(Method::Rk4 { dt }, sys.dim());
    for n in 0..steps {
        integ.step_once(&mut sys, n as f64 * dt, &mut y, dt);
    }
    // Half a period later: θ ≈ −θ₀ (the step count rounds π/ω to 1 ms: cos error ~ (ω·0.5 ms)²).
    let theta = 2.0 * y[1].atan2(y[0]);
    assert!((theta + th0).abs() < 1e-6 * th0 + (omega * 5e-4).powi(2) * th0, "θ = {theta}");
}

#[test]
fn an_undamped_chain_conserves_energy() {
    // Six links on alternating y and x hinges, 0.4 m apart, swinging under gravity from a bent
    // start for 5 s (RK4, 0.5 ms).
    let links: Vec<Link> = (0..6usize)
        .map(|i| Link {
            name: format!("c{i}"),
            parent: i.checked_sub(1),
            joint: Joint::Revolute(if i % 2 == 0 { Vec3::y() } else { Vec3::x() }),
            parent_to_joint: (Mat3::identity(), if i == 0 { Vec3::zeros() } else { Vec3::new(0.0, 0.0, -0.4) }),
            mass: 1.0 - 0.1 * i as f64,
            com: Vec3::new(0.0, 0.0, -0.2),
            inertia: Mat3::from_diagonal(&Vec3::new(0.014, 0.014, 0.001)),
        })
        .collect();
    let mb = Multibody::new(links, Vec3::new(0.0, 0.0, -9.81)).expect("valid");
    let mut y = vec![0.9, -0.5, 0.4, 0.7, -0.3, 0.6, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let e = |y: &[f64]| mb.kinetic_energy(&y[..6], &y[6..]) + mb.potential_energy(&y[..6]);
    let e0 = e(&y);
    let mut drift = 0.0f64;
    run(&mb, |_, _| 0.0, &mut y, 5e-4, 10_000, |y| drift = drift.max((e(y) - e0).abs()));
    // Measured: 7.6e-10 J of |E| = 22.4 J (RK4 truncation at these rates).
    assert!(drift < 1e-8 * e0.abs(), "energy drift {drift} J of {e0} J");
}

mod four_bar;
mod maps;
mod oracle;
