//! `tumble arm`: robot arms from URDF.

use crate::Failure;
use clap::Subcommand;
use serde_json::json;
use std::path::{Path, PathBuf};
use tumble_dynamics::multibody::urdf::{Base, read_urdf};
use tumble_dynamics::multibody::{Joint, Multibody, Workspace};
use tumble_math::Vec3;
use tumble_math::nalgebra::{DMatrix, DVector};

#[derive(Subcommand)]
pub enum ArmCommand {
    /// Time forward dynamics (ABA), inverse dynamics (RNEA) and the mass matrix (CRBA) of a
    /// fixed-base URDF arm on one core: microseconds per call at random states.
    #[command(after_help = "Example:\n  tumble arm bench ../shared/data/robots/kuka_iiwa_bullet3.urdf --calls 100000")]
    Bench {
        /// URDF file.
        file: PathBuf,
        /// Calls per algorithm.
        #[arg(long, default_value_t = 100_000)]
        calls: usize,
    },
    /// Joint list, mass matrix M(q), bias forces C(q, q̇)q̇ + g(q) and the end-effector
    /// Jacobian of a fixed-base URDF arm, in SI (rad, m, N, N·m).
    #[command(
        after_help = "The end effector is the origin of the last link (for a serial arm, its tip); the Jacobian\n\
rows are its linear then angular velocity in world axes (Pinocchio's LOCAL_WORLD_ALIGNED).\n\n\
Examples:
  tumble arm inspect ../shared/data/robots/kuka_iiwa_bullet3.urdf --q 0,0.5,0,-1,0,0.7,0
  tumble arm inspect arm.urdf --q 0.1,0.2,0.3 --qd 1,0,0 --gravity 0,0,0 --json"
    )]
    Inspect {
        /// URDF file.
        file: PathBuf,
        /// Joint positions (rad or m), comma-separated, one per degree of freedom.
        #[arg(long, allow_hyphen_values = true)]
        q: String,
        /// Joint rates (rad/s or m/s) [default: zeros].
        #[arg(long, allow_hyphen_values = true)]
        qd: Option<String>,
        /// Gravity in the base frame, m/s².
        #[arg(long, default_value = "0,0,-9.81", allow_hyphen_values = true)]
        gravity: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

fn numbers(flag: &str, text: &str) -> Result<Vec<f64>, String> {
    text.split(',')
        .map(|t| {
            let t = t.trim();
            t.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("{flag}: `{t}` is not a finite number"))
        })
        .collect()
}

pub fn run(cmd: ArmCommand) -> Result<(), Failure> {
    Ok(match cmd {
        ArmCommand::Inspect { file, q, qd, gravity, json } => inspect(&file, &q, qd.as_deref(), &gravity, json),
        ArmCommand::Bench { file, calls } => bench(&file, calls.max(1)),
    }?)
}

fn joint_kind(j: &Joint) -> (&'static str, Option<Vec3>) {
    match j {
        Joint::Revolute(a) => ("revolute", Some(*a)),
        Joint::Prismatic(a) => ("prismatic", Some(*a)),
        Joint::Spherical => ("spherical", None),
        Joint::Free => ("free", None),
        Joint::Fixed => ("fixed", None),
    }
}

fn rows(m: &DMatrix<f64>) -> Vec<Vec<f64>> {
    (0..m.nrows()).map(|i| m.row(i).iter().copied().collect()).collect()
}

fn inspect(file: &Path, q: &str, qd: Option<&str>, gravity: &str, json_out: bool) -> Result<(), String> {
    let g = numbers("--gravity", gravity)?;
    if g.len() != 3 {
        return Err(format!("--gravity needs 3 values gx,gy,gz (m/s²), got {}", g.len()));
    }
    let model = read_urdf(file, Base::Fixed, Vec3::new(g[0], g[1], g[2])).map_err(|e| e.to_string())?;
    let mb: &Multibody = &model.multibody;
    if mb.nq() != mb.nv() {
        return Err(format!(
            "{}: ball or floating joints need quaternion coordinates; `arm inspect` takes revolute and prismatic arms",
            file.display()
        ));
    }
    let q = numbers("--q", q)?;
    if q.len() != mb.nq() {
        return Err(format!("--q: {} has {} degrees of freedom, got {} values", file.display(), mb.nq(), q.len()));
    }
    let qd = match qd {
        Some(t) => numbers("--qd", t)?,
        None => vec![0.0; mb.nv()],
    };
    if qd.len() != mb.nv() {
        return Err(format!("--qd: {} has {} degrees of freedom, got {} values", file.display(), mb.nv(), qd.len()));
    }
    let m = mb.mass_matrix(&q);
    let bias: DVector<f64> = mb.inverse_dynamics(&q, &qd, &vec![0.0; mb.nv()], &[]);
    let tip = mb.links.len() - 1;
    let jac = mb.jacobian(&q, tip);
    let joints: Vec<_> = mb
        .links
        .iter()
        .enumerate()
        .filter(|(_, l)| l.joint.nv() > 0)
        .map(|(i, l)| {
            let (kind, axis) = joint_kind(&l.joint);
            json!({
                "name": model.joint_names[i],
                "type": kind,
                "child_link": l.name,
                "axis": axis.map(|a| a.as_slice().to_vec()),
                "limits": model.limits[i].map(|(lo, hi)| [lo, hi]),
            })
        })
        .collect();
    if json_out {
        let out = json!({
            "robot": model.name,
            "q": q,
            "qd": qd,
            "gravity_m_per_s2": g,
            "joints": joints,
            "mass_matrix": rows(&m),
            "bias": bias.as_slice(),
            "end_effector_link": mb.links[tip].name,
            "jacobian": rows(&jac),
        });
        say!("{}", serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?);
        return Ok(());
    }
    say!("robot `{}`: {} degrees of freedom, {} links", model.name, mb.nv(), mb.links.len());
    for j in &joints {
        say!(
            "  {:<24} {:<9} axis {:<24} limits {}",
            j["name"].as_str().unwrap_or("-"),
            j["type"].as_str().unwrap_or("-"),
            j["axis"].to_string(),
            j["limits"]
        );
    }
    let show = |title: &str, m: &DMatrix<f64>| {
        say!("{title}");
        for r in rows(m) {
            say!("  {}", r.iter().map(|x| format!("{x:>13.6e}")).collect::<Vec<_>>().join(" "));
        }
    };
    show("mass matrix M(q) [kg·m², kg·m, kg]:", &m);
    show("bias C(q, qd) qd + g(q) [N·m, N]:", &DMatrix::from_row_slice(1, bias.len(), bias.as_slice()));
    show(&format!("Jacobian of `{}` origin, world axes (rows: vx vy vz wx wy wz):", mb.links[tip].name), &jac);
    Ok(())
}

fn bench(file: &Path, calls: usize) -> Result<(), String> {
    use std::time::Instant;
    let model = read_urdf(file, Base::Fixed, Vec3::new(0.0, 0.0, -9.81)).map_err(|e| e.to_string())?;
    let mb = &model.multibody;
    let n = mb.nv();
    if mb.nq() != n {
        return Err(format!("{}: `arm bench` takes revolute and prismatic arms", file.display()));
    }
    // 64 states from a fixed LCG, cycled.
    let mut rng = tumble_math::Lcg::new(7u64);
    let mut u = || rng.symmetric();
    let states: Vec<[Vec<f64>; 3]> = (0..64)
        .map(|_| [(0..n).map(|_| u()).collect(), (0..n).map(|_| u()).collect(), (0..n).map(|_| u()).collect()])
        .collect();
    let time = |f: &dyn Fn(&[Vec<f64>; 3]) -> f64| {
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let start = Instant::now();
            let mut acc = 0.0;
            for k in 0..calls {
                acc += f(&states[k % states.len()]);
            }
            std::hint::black_box(acc);
            best = best.min(start.elapsed().as_secs_f64());
        }
        best * 1e6 / calls as f64
    };
    // One working memory and output per algorithm, as Pinocchio's `Data`: the calls allocate
    // nothing.
    let ws = std::cell::RefCell::new((Workspace::default(), vec![0.0; n], DMatrix::zeros(n, n)));
    let aba = time(&|x| {
        let (w, out, _) = &mut *ws.borrow_mut();
        mb.forward_dynamics_into(&x[0], &x[1], &x[2], &[], w, out);
        out[0]
    });
    let rnea = time(&|x| {
        let (w, out, _) = &mut *ws.borrow_mut();
        mb.inverse_dynamics_into(&x[0], &x[1], &x[2], &[], w, out);
        out[0]
    });
    let crba = time(&|x| {
        let (w, _, h) = &mut *ws.borrow_mut();
        mb.mass_matrix_into(&x[0], w, h);
        h[(0, 0)]
    });
    // Forward dynamics the other way: the bias by RNEA at zero acceleration, the mass matrix,
    // and nalgebra's Cholesky on a copy of it (the one allocation per call), solved in place.
    let zero = vec![0.0; n];
    let bias = std::cell::RefCell::new((vec![0.0; n], DVector::zeros(n)));
    let route = time(&|x| {
        let (w, _, h) = &mut *ws.borrow_mut();
        let (c, rhs) = &mut *bias.borrow_mut();
        mb.inverse_dynamics_into(&x[0], &x[1], &zero, &[], w, c);
        mb.mass_matrix_into(&x[0], w, h);
        for (i, r) in rhs.iter_mut().enumerate() {
            *r = x[2][i] - c[i];
        }
        h.clone().cholesky().map_or(f64::NAN, |f| {
            f.solve_mut(rhs);
            rhs[0]
        })
    });
    say!("{}: {n} degrees of freedom, best of 5 × {calls} calls, one core", model.name);
    say!("  forward dynamics (ABA)   {aba:8.3} µs/call");
    say!("  inverse dynamics (RNEA)  {rnea:8.3} µs/call");
    say!("  mass matrix (CRBA)       {crba:8.3} µs/call");
    say!("  forward dynamics (RNEA bias, CRBA, Cholesky) {route:8.3} µs/call");
    Ok(())
}
