//! Whole runs on the device against tumble-sim's `lander::simulate`: the same boxes dropped on
//! a tilted plane in a rotating frame, through free flight (long steps), touchdown (sub-steps),
//! bounces and settling.

use std::sync::Arc;
use tumble_contact::VertexContactParams;
use tumble_dynamics::Uniform;
use tumble_dynamics::rotating::TargetSpin;
use tumble_geometry::sdf::HalfSpace;
use tumble_gpu::lander::{GpuRun, simulate};
use tumble_math::{Lcg, Mat3, UnitQuat, Vec3};
use tumble_sim::lander::{LanderSettings, LanderSystem, pack};

mod common;
use common::gpu;

const DURATION: f64 = 2.0;
const RUNS: usize = 16;

#[test]
fn runs_on_the_device_follow_the_cpu_runs() {
    let Some(gpu) = gpu() else { return };
    let contact = [2e3, 20.0, 0.5, 0.5, 0.005, 1e-3, 1e-3, 1e-3];
    let [stiffness, damping, mu, mu_static, rolling, v_star, w_star, stable_dt] = contact;
    let params = VertexContactParams { stiffness, damping, mu, mu_static, rolling, v_star, w_star, stable_dt };
    let (mass, a) = (1.0, 0.2);
    let inertia = Mat3::identity() * (mass * a * a / 6.0);
    let inv = inertia.try_inverse().expect("pd");
    let vertices: Vec<Vec3> = (0..8)
        .map(|k| {
            Vec3::new(
                if k & 1 == 0 { 0.1 } else { -0.1 },
                if k & 2 == 0 { 0.1 } else { -0.1 },
                if k & 4 == 0 { 0.1 } else { -0.1 },
            )
        })
        .collect();
    let normal = Vec3::new(0.0, -(5f64.to_radians()).sin(), (5f64.to_radians()).cos());
    let g = Vec3::new(0.0, 0.0, -0.5);
    let cpu = LanderSystem {
        mass,
        inertia,
        inertia_inv: inv,
        vertices: vertices.clone(),
        contact: params,
        surface: Arc::new(HalfSpace { point: Vec3::zeros(), normal }),
        gravity: Arc::new(Uniform { g }),
        spin: TargetSpin::Uniform,
        expansion_radius: 0.0,
        expansion: None,
    };
    let settings = LanderSettings {
        dt: 2e-3,
        duration: DURATION,
        output_every: 50,
        settle: None,
        escape_distance: Some(50.0),
        hops: vec![],
        energy_tolerance: f64::INFINITY,
        flight_steps: 8,
        surface_expansion: 0.0,
    };
    // Drops from 0.3–0.8 m with random attitude, drift and spin, in a frame turning at 1e-3 rad/s.
    let mut rng = Lcg::new(3);
    let starts: Vec<_> = (0..RUNS)
        .map(|_| {
            let x = Vec3::new(rng.symmetric(), rng.symmetric(), 0.3 + 0.5 * rng.unit());
            let v = Vec3::new(rng.symmetric(), rng.symmetric(), -rng.unit()) * 0.2;
            let q = UnitQuat::from_scaled_axis(Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()));
            let w = Vec3::new(rng.symmetric(), rng.symmetric(), rng.symmetric()) * 0.5;
            pack(x, v, q, w, UnitQuat::identity(), Vec3::new(0.0, 0.0, 1e-3))
        })
        .collect();
    let runs: Vec<GpuRun> = starts.iter().map(|&start| GpuRun { system: &cpu, settings: &settings, start }).collect();
    let ends = simulate(&gpu, &runs, &mut |_| {}).expect("kernel runs");
    let alone: Vec<_> = runs
        .iter()
        .map(|r| simulate(&gpu, std::slice::from_ref(r), &mut |_| {}).expect("kernel runs")[0].clone())
        .collect();
    for (a, b) in ends.iter().zip(&alone) {
        eprintln!(
            "together vs alone: {:?}",
            a.final_state.iter().zip(&b.final_state).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
        );
    }
    let mut worst: f64 = 0.0;
    for (y0, end) in starts.iter().zip(&ends) {
        let run = tumble_sim::lander::simulate(&mut cpu.clone(), *y0, &settings, &mut |_| {});
        let (t_cpu, t_gpu) = (run.final_time, end.final_time);
        eprintln!(
            "{:?} {:?} bounces {} {} pen {} {} err {} {}",
            run.outcome,
            end.outcome,
            run.bounces(),
            end.bounces,
            run.max_penetration,
            end.max_penetration,
            run.max_balance_error,
            end.max_balance_error
        );
        eprintln!("cpu {:?}\ngpu {:?}", &run.final_state[..], &end.final_state[..]);
        let dx = (Vec3::new(end.final_state[0], end.final_state[1], end.final_state[2])
            - Vec3::new(run.final_state[0], run.final_state[1], run.final_state[2]))
        .norm();
        worst = worst.max(dx);
        eprintln!("settled at {t_cpu:.3} s (cpu) vs {t_gpu:.3} s (gpu); final positions {dx:.3e} m apart");
    }
    assert!(worst < 1.0, "{worst}");
}
