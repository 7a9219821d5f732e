//! The dynamics algorithms against the textbook's 6×6 matrices (Featherstone 2008, Tables 5.1,
//! 6.2, 7.1, with [`plucker`] transforms and [`inertia`] matrices, as the engine computed them
//! before it applied transforms and inertias by blocks): forward and inverse dynamics and the
//! mass matrix agree to 1e-14 relative on the branched tree of every joint type, the same
//! joints as one serial chain, a 20-link chain and the KUKA iiwa; the `_into` calls allocate nothing once their working memory has
//! served the model.

use super::super::spatial::{inertia, plucker};
use super::*;

/// The 6×6 transforms of every link and its spatial velocities.
fn kin(mb: &Multibody, q: &[f64], v: &[f64]) -> (Vec<SMat>, Vec<SVec>) {
    let (mut xs, mut vs): (Vec<SMat>, Vec<SVec>) = (Vec::new(), Vec::new());
    for (k, l) in mb.links.iter().enumerate() {
        let (rj, pj) = l.joint.pose(&q[mb.q_at[k]..mb.q_at[k + 1]]);
        let (rt, pt) = l.parent_to_joint;
        let x = plucker(&(rt * rj).transpose(), &(pt + rt * pj));
        let vp = l.parent.map_or(SVec::zeros(), |p| vs[p]);
        vs.push(x * vp + s_times(mb, k, v));
        xs.push(x);
    }
    (xs, vs)
}

fn s_times(mb: &Multibody, k: usize, v: &[f64]) -> SVec {
    let s = &mb.s[k];
    let mut out = SVec::zeros();
    for c in 0..s.ncols() {
        out += s.column(c) * v[mb.v_at[k] + c];
    }
    out
}

fn big_i(mb: &Multibody, k: usize) -> SMat {
    let l = &mb.links[k];
    inertia(l.mass, &l.com, &l.inertia)
}

fn rnea(mb: &Multibody, q: &[f64], v: &[f64], a: &[f64], f_ext: &[SVec]) -> DVector<f64> {
    let (xs, vs) = kin(mb, q, v);
    let n = mb.links.len();
    let (mut acc, mut f): (Vec<SVec>, Vec<SVec>) = (Vec::new(), Vec::new());
    let a0 = join(&Vec3::zeros(), &(-mb.gravity));
    for i in 0..n {
        let ap = mb.links[i].parent.map_or(a0, |p| acc[p]);
        let ai = xs[i] * ap + s_times(mb, i, a) + cross_motion(&vs[i], &s_times(mb, i, v));
        let fe = f_ext.get(i).copied().unwrap_or_else(SVec::zeros);
        f.push(big_i(mb, i) * ai + cross_force(&vs[i], &(big_i(mb, i) * vs[i])) - fe);
        acc.push(ai);
    }
    for i in (0..n).rev() {
        if let Some(p) = mb.links[i].parent {
            let fp = xs[i].transpose() * f[i];
            f[p] += fp;
        }
    }
    let mut tau = DVector::zeros(mb.nv());
    for i in 0..n {
        for c in 0..mb.s[i].ncols() {
            tau[mb.v_at[i] + c] = mb.s[i].column(c).dot(&f[i]);
        }
    }
    tau
}

fn crba(mb: &Multibody, q: &[f64]) -> DMatrix<f64> {
    let (xs, _) = kin(mb, q, &vec![0.0; mb.nv()]);
    let n = mb.links.len();
    let mut ic: Vec<SMat> = (0..n).map(|k| big_i(mb, k)).collect();
    for i in (0..n).rev() {
        if let Some(p) = mb.links[i].parent {
            let add = xs[i].transpose() * ic[i] * xs[i];
            ic[p] += add;
        }
    }
    let mut h = DMatrix::zeros(mb.nv(), mb.nv());
    for i in 0..n {
        let mut f = ic[i] * &mb.s[i];
        let hii = mb.s[i].transpose() * &f;
        h.view_mut((mb.v_at[i], mb.v_at[i]), hii.shape()).copy_from(&hii);
        let mut j = i;
        while let Some(p) = mb.links[j].parent {
            f = xs[j].transpose() * f;
            j = p;
            let hij = f.transpose() * &mb.s[j];
            h.view_mut((mb.v_at[i], mb.v_at[j]), hij.shape()).copy_from(&hij);
            h.view_mut((mb.v_at[j], mb.v_at[i]), (hij.ncols(), hij.nrows())).copy_from(&hij.transpose());
        }
    }
    h
}

/// The forward dynamics of the oracle: `H⁻¹ (τ − C)`, `C` the inverse dynamics at a = 0.
fn forward(mb: &Multibody, q: &[f64], v: &[f64], tau: &[f64], f_ext: &[SVec]) -> DVector<f64> {
    let bias = rnea(mb, q, v, &vec![0.0; mb.nv()], f_ext);
    crba(mb, q).cholesky().expect("positive definite").solve(&(DVector::from_column_slice(tau) - bias))
}

/// A chain of `n` revolute links on alternating axes, tilted joint frames.
fn chain(n: usize) -> Multibody {
    let axes = [Vec3::z(), Vec3::y(), Vec3::x()];
    let links = (0..n)
        .map(|k| {
            let at = Vec3::new(0.05, 0.02 * (k % 3) as f64, 0.3);
            let tilt = tumble_math::UnitQuat::from_scaled_axis(at * 0.7).to_rotation_matrix().into_inner();
            Link {
                name: format!("l{k}"),
                parent: k.checked_sub(1),
                joint: Joint::Revolute(axes[k % 3]),
                parent_to_joint: (tilt, at),
                mass: 2.0 - 0.05 * k as f64,
                com: Vec3::new(0.01, -0.02, 0.15),
                inertia: Mat3::from_diagonal(&Vec3::new(0.03, 0.04, 0.02)),
            }
        })
        .collect();
    Multibody::new(links, Vec3::new(0.0, 0.0, -9.81)).expect("valid")
}

/// The tree's floating base and its first arm (revolute, revolute, prismatic, spherical) as one
/// serial chain, with a fixed tool and a revolute wrist after it: a chain whose mass matrix is
/// written whole without being cleared, across multi-degree-of-freedom and fixed joints.
fn serial_chain() -> Multibody {
    let mut links: Vec<Link> = tree(Vec3::new(0.0, 0.0, -9.81)).links.into_iter().take(5).collect();
    let tool = Link { name: "tool".into(), parent: Some(4), joint: Joint::Fixed, ..links[2].clone() };
    let wrist = Link { name: "wrist".into(), parent: Some(5), joint: Joint::Revolute(Vec3::y()), ..links[1].clone() };
    links.extend([tool, wrist]);
    let mb = Multibody::new(links, Vec3::new(0.0, 0.0, -9.81)).expect("valid");
    assert!(mb.serial && !tree(Vec3::zeros()).serial);
    mb
}

/// An arm as URDF files of grippers have it (a Franka Panda, a Kinova Jaco): a root bolted to
/// the world, three revolute joints, then fixed links — a flange, a palm carrying two prismatic
/// fingers, a massless tool point, and a fixed finger with a fixed tip — so that folding the
/// fixed joints re-attaches moving links and chains fixed links.
fn gripper() -> Multibody {
    let g = Vec3::new(0.0, 0.0, -9.81);
    let f = Joint::Fixed;
    let (d, e) = ([0.02, 0.03, 0.025], [0.001, 0.002, 0.0015]);
    let links = vec![
        link("mount", None, f, Vec3::new(0.1, 0.0, 0.2), 4.0, Vec3::new(0.0, 0.01, 0.05), d),
        link("j1", Some(0), Joint::Revolute(Vec3::z()), Vec3::new(0.0, 0.0, 0.3), 3.0, Vec3::new(0.0, 0.0, 0.1), d),
        link("j2", Some(1), Joint::Revolute(Vec3::y()), Vec3::new(0.0, 0.1, 0.4), 2.5, Vec3::new(0.1, 0.0, 0.0), d),
        link("j3", Some(2), Joint::Revolute(Vec3::x()), Vec3::new(0.3, 0.0, 0.0), 1.5, Vec3::new(0.05, 0.0, 0.0), d),
        link("flange", Some(3), f, Vec3::new(0.1, 0.02, 0.0), 0.3, Vec3::new(0.01, 0.0, 0.0), e),
        link("palm", Some(4), f, Vec3::new(0.05, 0.0, 0.03), 0.7, Vec3::new(0.02, 0.01, 0.0), e),
        link("tcp", Some(5), f, Vec3::new(0.1, 0.0, 0.0), 0.0, Vec3::zeros(), [0.0; 3]),
        link("left", Some(5), Joint::Prismatic(Vec3::y()), Vec3::new(0.06, 0.02, 0.0), 0.05, Vec3::zeros(), e),
        link("right", Some(5), Joint::Prismatic(Vec3::y()), Vec3::new(0.06, -0.02, 0.0), 0.05, Vec3::zeros(), e),
        link("finger", Some(3), f, Vec3::new(0.2, 0.05, 0.0), 0.1, Vec3::new(0.02, 0.0, 0.0), e),
        link("tip", Some(9), f, Vec3::new(0.04, 0.0, 0.01), 0.05, Vec3::new(0.01, 0.0, 0.0), e),
        link(
            "wrist",
            Some(10),
            Joint::Revolute(Vec3::z()),
            Vec3::new(0.02, 0.0, 0.0),
            0.2,
            Vec3::new(0.0, 0.0, 0.03),
            e,
        ),
    ];
    Multibody::new(links, g).expect("valid")
}

fn models() -> Vec<(String, Multibody)> {
    let mut out = vec![
        ("tree".to_string(), tree(Vec3::new(0.0, 0.0, -9.81))),
        ("chain of 20".to_string(), chain(20)),
        ("serial chain of every joint type".to_string(), serial_chain()),
        ("gripper".to_string(), gripper()),
    ];
    let iiwa =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/robots/kuka_iiwa_bullet3.urdf");
    if iiwa.exists() {
        let m = super::super::urdf::read_urdf(&iiwa, super::super::urdf::Base::Fixed, Vec3::new(0.0, 0.0, -9.81));
        out.push(("iiwa".to_string(), m.expect("the iiwa loads").multibody));
    }
    out
}

/// Wrenches of a few N and N·m on every link.
fn wrenches(mb: &Multibody, seed: u64) -> Vec<SVec> {
    let mut rng = tumble_math::Lcg::new(seed + 1000);
    (0..mb.links.len()).map(|_| SVec::from_fn(|_, _| 3.0 * rng.symmetric())).collect()
}

#[test]
fn fixed_joints_below_a_parent_are_folded_for_the_dynamics() {
    // The gripper's six fixed links below a parent fold into j3 (flange, palm, tool point,
    // finger, tip): mount, three revolutes, two fingers and the wrist remain; the tree and the
    // chain of every joint type fold their tools. Folding is what the oracle test above checks
    // the dynamics through.
    let folded = |mb: &Multibody| mb.merged.as_ref().map(|m| m.model.links.len());
    assert_eq!(folded(&gripper()), Some(7));
    assert_eq!(folded(&tree(Vec3::zeros())), Some(6));
    assert_eq!(folded(&serial_chain()), Some(6));
    assert_eq!(folded(&chain(5)), None);
    let m = gripper();
    let merged = &m.merged.as_ref().expect("folded").model;
    let parents: Vec<Option<usize>> = merged.links.iter().map(|l| l.parent).collect();
    assert_eq!(parents, [None, Some(0), Some(1), Some(2), Some(3), Some(3), Some(3)]);
    let mass = |mb: &Multibody| mb.links.iter().map(|l| l.mass).sum::<f64>();
    assert!((mass(merged) - mass(&m)).abs() < 1e-14 * mass(&m));
}

#[test]
fn a_gravity_set_after_building_is_the_one_the_dynamics_use() {
    // `Multibody::gravity` is public: a user may point it elsewhere after building (a tilted
    // pad, a body that turns). The folded model keeps the gravity it was built with, so the
    // dynamics must fall back to the full model then, and give the textbook's answer under
    // the new gravity; with the folded model's stale gravity the inverse dynamics would differ
    // by the arm's whole weight change.
    let mut mb = gripper();
    mb.gravity = Vec3::new(1.5, -2.0, -3.7);
    let (q, v) = state(&mb, 4);
    let (a, _) = state(&mb, 104);
    let a = &a[..mb.nv()];
    let rel = |x: &DVector<f64>, y: &DVector<f64>| (x - y).norm() / y.norm();
    let tau = mb.inverse_dynamics(&q, &v, a, &[]);
    assert!(rel(&tau, &rnea(&mb, &q, &v, a, &[])) < 1e-14);
    let qdd = mb.forward_dynamics(&q, &v, tau.as_slice(), &[]);
    // The ABA rounds at cond(H) ε, as in the oracle test below: 1e-10 leaves cond(H) up to 1e6.
    assert!(rel(&qdd, &DVector::from_column_slice(a)) < 1e-10, "forward dynamics inverts the inverse");
}

#[test]
fn the_algorithms_equal_the_textbook_matrices() {
    // 1e-14 of the result's size: block products reorder a handful of roundings per link.
    for (name, mb) in models() {
        for seed in 0..8 {
            let (q, v) = state(&mb, seed);
            let (a, _) = state(&mb, seed + 100);
            let a = &a[..mb.nv()];
            let rel = |x: &DVector<f64>, y: &DVector<f64>| (x - y).norm() / y.norm().max(1e-300);
            let tau = mb.inverse_dynamics(&q, &v, a, &[]);
            assert!(rel(&tau, &rnea(&mb, &q, &v, a, &[])) < 1e-14, "{name} {seed}: RNEA");
            // External wrenches on every link (on the folded ones carried to their carrier).
            let f_ext = wrenches(&mb, seed);
            let tau_ext = mb.inverse_dynamics(&q, &v, a, &f_ext);
            assert!(rel(&tau_ext, &rnea(&mb, &q, &v, a, &f_ext)) < 1e-14, "{name} {seed}: RNEA, wrenches");
            let h = mb.mass_matrix(&q);
            let want = crba(&mb, &q);
            assert!((&h - &want).norm() < 1e-14 * want.norm(), "{name} {seed}: CRBA");
            // The ABA against H⁻¹(τ − C): the oracle's own solve rounds at ~cond(H) ε.
            let qdd = mb.forward_dynamics(&q, &v, tau.as_slice(), &[]);
            let cond = want.clone().symmetric_eigen().eigenvalues;
            let cond = cond.max() / cond.min();
            let err = rel(&qdd, &forward(&mb, &q, &v, tau.as_slice(), &[]));
            assert!(err < 1e-14 * cond.max(1.0), "{name} {seed}: ABA {err:e} (cond {cond:e})");
            let qdd = mb.forward_dynamics(&q, &v, tau.as_slice(), &f_ext);
            let err = rel(&qdd, &forward(&mb, &q, &v, tau.as_slice(), &f_ext));
            assert!(err < 1e-14 * cond.max(1.0), "{name} {seed}: ABA, wrenches {err:e} (cond {cond:e})");
            // From the full model's kinematics (the ODE system's route).
            let with = mb.forward_dynamics_with(&mb.kinematics(&q, &v), &v, tau.as_slice(), &f_ext);
            assert!(rel(&with, &qdd) < 1e-14 * cond.max(1.0), "{name} {seed}: ABA from kinematics");
        }
    }
}

#[test]
fn the_calls_with_a_workspace_allocate_nothing() {
    assert!(allocation_counter::measure(|| drop(std::hint::black_box(vec![0u8; 64]))).count_total >= 1);
    for (name, mb) in models() {
        let (q, v) = state(&mb, 3);
        let n = mb.nv();
        let (mut w, mut out, mut h) = (Workspace::default(), vec![0.0; n], DMatrix::zeros(n, n));
        let tau: Vec<f64> = (0..n).map(|k| 0.1 * k as f64).collect();
        let f_ext = wrenches(&mb, 3);
        let calls = |w: &mut Workspace, out: &mut [f64], h: &mut DMatrix<f64>| {
            mb.forward_dynamics_into(&q, &v, &tau, &[], w, out);
            mb.forward_dynamics_into(&q, &v, &tau, &f_ext, w, out);
            mb.inverse_dynamics_into(&q, &v, &tau, &f_ext, w, out);
            mb.mass_matrix_into(&q, w, h);
        };
        calls(&mut w, &mut out, &mut h);
        let info = allocation_counter::measure(|| calls(&mut w, &mut out, &mut h));
        assert_eq!(info.count_total, 0, "{name}: {} allocations", info.count_total);
        // The same results as the allocating calls, into a matrix left dirty (a serial chain's
        // is not cleared first: every entry must be written).
        h.fill(f64::NAN);
        mb.mass_matrix_into(&q, &mut w, &mut h);
        assert_eq!(h, mb.mass_matrix(&q), "{name}");
        mb.forward_dynamics_into(&q, &v, &tau, &[], &mut w, &mut out);
        assert_eq!(out.as_slice(), mb.forward_dynamics(&q, &v, &tau, &[]).as_slice(), "{name}");
    }
}

#[test]
fn the_mass_matrix_keeps_its_digits_far_from_the_origin() {
    // A free-floating base 1 km to 7,000 km out (an orbit frame's coordinates): the mass matrix
    // does not depend on where the base is, and the link-axes oracle stays as exact there.
    // Taken about the world origin the world-axes form lost 1.8e-4 of H at 1e6 m and 6.8e-3 at
    // 7e6 m; about the tree's root it keeps 1e-14.
    let mb = tree(Vec3::new(0.0, 0.0, -9.81));
    for off in [0.0, 1e3, 1e6, 7e6] {
        let (mut q, _) = state(&mb, 1);
        q[0] += off;
        q[2] -= 0.5 * off;
        let want = crba(&mb, &q);
        let err = (mb.mass_matrix(&q) - &want).norm() / want.norm();
        assert!(err < 1e-14, "base {off:e} m out: {err:e}");
    }
}
