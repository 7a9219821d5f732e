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

fn rnea(mb: &Multibody, q: &[f64], v: &[f64], a: &[f64]) -> DVector<f64> {
    let (xs, vs) = kin(mb, q, v);
    let n = mb.links.len();
    let (mut acc, mut f): (Vec<SVec>, Vec<SVec>) = (Vec::new(), Vec::new());
    let a0 = join(&Vec3::zeros(), &(-mb.gravity));
    for i in 0..n {
        let ap = mb.links[i].parent.map_or(a0, |p| acc[p]);
        let ai = xs[i] * ap + s_times(mb, i, a) + cross_motion(&vs[i], &s_times(mb, i, v));
        f.push(big_i(mb, i) * ai + cross_force(&vs[i], &(big_i(mb, i) * vs[i])));
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
fn forward(mb: &Multibody, q: &[f64], v: &[f64], tau: &[f64]) -> DVector<f64> {
    let bias = rnea(mb, q, v, &vec![0.0; mb.nv()]);
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

fn models() -> Vec<(String, Multibody)> {
    let mut out = vec![
        ("tree".to_string(), tree(Vec3::new(0.0, 0.0, -9.81))),
        ("chain of 20".to_string(), chain(20)),
        ("serial chain of every joint type".to_string(), serial_chain()),
    ];
    let iiwa =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/robots/kuka_iiwa_bullet3.urdf");
    if iiwa.exists() {
        let m = super::super::urdf::read_urdf(&iiwa, super::super::urdf::Base::Fixed, Vec3::new(0.0, 0.0, -9.81));
        out.push(("iiwa".to_string(), m.expect("the iiwa loads").multibody));
    }
    out
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
            assert!(rel(&tau, &rnea(&mb, &q, &v, a)) < 1e-14, "{name} {seed}: RNEA");
            let h = mb.mass_matrix(&q);
            let want = crba(&mb, &q);
            assert!((&h - &want).norm() < 1e-14 * want.norm(), "{name} {seed}: CRBA");
            // The ABA against H⁻¹(τ − C): the oracle's own solve rounds at ~cond(H) ε.
            let qdd = mb.forward_dynamics(&q, &v, tau.as_slice(), &[]);
            let cond = want.clone().symmetric_eigen().eigenvalues;
            let cond = cond.max() / cond.min();
            let err = rel(&qdd, &forward(&mb, &q, &v, tau.as_slice()));
            assert!(err < 1e-14 * cond.max(1.0), "{name} {seed}: ABA {err:e} (cond {cond:e})");
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
        let calls = |w: &mut Workspace, out: &mut [f64], h: &mut DMatrix<f64>| {
            mb.forward_dynamics_into(&q, &v, &tau, &[], w, out);
            mb.inverse_dynamics_into(&q, &v, &tau, &[], w, out);
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
