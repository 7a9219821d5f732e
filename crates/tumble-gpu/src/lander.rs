//! The lander model on the GPU: its description ([`GpuLander`]), packed into the buffers of
//! `lander.wgsl`, and the right-hand side over a batch of states ([`rates`]).

use crate::Gpu;
pub use tumble_geometry::noise::Fbm;

/// WGSL of the lander kernels (prepend [`crate::MATH_WGSL`] when a kernel needs it).
pub const LANDER_WGSL: &str = include_str!("lander.wgsl");

/// Length of a run's state (as tumble-sim's lander: x, v, q_TS, ω, Q_NT, Ω, four work
/// accumulators).
pub const STATE_LEN: usize = 24;

/// How the target turns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Spin {
    /// Constant Ω.
    Uniform,
    /// Torque-free with principal moments `[A, B, C]` (T axes principal).
    TorqueFree([f64; 3]),
}

/// The target's gravity in T.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Field {
    /// None.
    None,
    /// Uniform `g`, m/s².
    Uniform([f64; 3]),
    /// Point mass `μ` (m³/s²) at a centre (m).
    PointMass { center: [f64; 3], mu: f64 },
}

/// The target's surface in T.
#[derive(Clone, Debug, PartialEq)]
pub enum Surface {
    /// A half-space: a point of the plane and the outward unit normal.
    Plane { point: [f64; 3], normal: [f64; 3] },
    /// A sampled grid (trilinear, clamped to its box as tumble-geometry's `GridSdf` without
    /// refinement): origin (m), spacing (m), samples per axis, values x fastest (m).
    Grid { origin: [f64; 3], spacing: f64, dims: [usize; 3], values: Vec<f64> },
}

/// fBm terrain on the surface (tumble-geometry's `Terrain` without its base): sandy and rocky
/// heights blended by a smoothstep of the region field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Terrain {
    /// Heights of the smooth ground.
    pub sandy: Fbm,
    /// Heights of the rough ground.
    pub rocky: Fbm,
    /// Region field.
    pub region: Fbm,
    /// Region value at the middle of the transition.
    pub threshold: f64,
    /// Width of the transition in region values.
    pub width: f64,
}

/// A lander model the GPU kernels run: spacecraft, contact, target.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuLander {
    /// Mass, kg.
    pub mass: f64,
    /// Inertia about the centre of mass, body axes, row-major, kg·m².
    pub inertia: [[f64; 3]; 3],
    /// Its inverse.
    pub inertia_inv: [[f64; 3]; 3],
    /// Contact vertices from the centre of mass, body axes, m.
    pub vertices: Vec<[f64; 3]>,
    /// Stiffness (N/m), damping (N·s/m), μ, μ_s, C_RR (m), v* (m/s), ω* (rad/s), stable dt (s).
    pub contact: [f64; 8],
    /// The target's rotation law.
    pub spin: Spin,
    /// Its gravity.
    pub gravity: Field,
    /// Its surface.
    pub surface: Surface,
    /// Terrain on the surface.
    pub terrain: Option<Terrain>,
}

impl GpuLander {
    /// The `model`, `verts` and `grid` buffers of `lander.wgsl`.
    pub fn pack(&self) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let mut m = vec![0.0; 69];
        m[0] = self.mass;
        for r in 0..3 {
            for c in 0..3 {
                m[1 + 3 * r + c] = self.inertia[r][c];
                m[10 + 3 * r + c] = self.inertia_inv[r][c];
            }
        }
        m[19..27].copy_from_slice(&self.contact);
        if let Spin::TorqueFree(moments) = self.spin {
            m[27] = 1.0;
            m[28..31].copy_from_slice(&moments);
        }
        match self.gravity {
            Field::None => {}
            Field::Uniform(g) => {
                m[31] = 1.0;
                m[32..35].copy_from_slice(&g);
            }
            Field::PointMass { center, mu } => {
                m[31] = 2.0;
                m[32..35].copy_from_slice(&center);
                m[35] = mu;
            }
        }
        // A grid buffer is never empty (a binding needs at least one element).
        let grid = match &self.surface {
            Surface::Plane { point, normal } => {
                m[37..40].copy_from_slice(point);
                m[40..43].copy_from_slice(normal);
                vec![0.0]
            }
            Surface::Grid { origin, spacing, dims, values } => {
                m[36] = 1.0;
                m[37..40].copy_from_slice(origin);
                m[40] = *spacing;
                for a in 0..3 {
                    m[41 + a] = dims[a] as f64;
                }
                values.clone()
            }
        };
        m[44] = self.vertices.len() as f64;
        if let Some(t) = &self.terrain {
            m[45] = 1.0;
            for (k, f) in [t.sandy, t.rocky, t.region].iter().enumerate() {
                let at = 46 + 7 * k;
                // The seed as two exact 32-bit halves.
                m[at] = (f.seed & 0xFFFF_FFFF) as f64;
                m[at + 1] = (f.seed >> 32) as f64;
                m[at + 2..at + 7].copy_from_slice(&[f.octaves as f64, f.lacunarity, f.gain, f.amplitude, f.frequency]);
            }
            m[67] = t.threshold;
            m[68] = t.width;
        }
        let mut verts: Vec<f64> = self.vertices.iter().flatten().copied().collect();
        if verts.is_empty() {
            verts.push(0.0);
        }
        (m, verts, grid)
    }
}

/// The rates of every state of `states` (one `[f64; STATE_LEN]` per run), evaluated on the
/// device.
pub fn rates(gpu: &Gpu, model: &GpuLander, states: &[[f64; STATE_LEN]]) -> Result<Vec<[f64; STATE_LEN]>, String> {
    let n = states.len();
    let (mut m, mut verts, mut grid) = model.pack();
    let mut y = vec![0.0; STATE_LEN * n];
    for (i, s) in states.iter().enumerate() {
        for c in 0..STATE_LEN {
            y[c * n + i] = s[c];
        }
    }
    let mut out = vec![0.0; STATE_LEN * n];
    gpu.run_f64(LANDER_WGSL, "lander_rates", &mut [&mut m, &mut verts, &mut grid, &mut y, &mut out], n as u32)?;
    Ok((0..n).map(|i| std::array::from_fn(|c| out[c * n + i])).collect())
}
