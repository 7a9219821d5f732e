//! The saved capture design and the online pre-capture check (the capture document's eq. 30).
//!
//! A capture study (`tumble_sim::capture_map`) designs the detumble (TVLQR along the nominal
//! post-capture trajectory) and estimates its funnel `ρ(t)`; [`DesignFile`] is all of it that a
//! check needs, in a versioned JSON file (`design.json` in the study's output folder): the
//! cost-to-go matrices `S(t)`, the funnel `ρ(t)`, the nominal states and inputs, and the map
//! from a measured impulse to the post-capture state as three matrices,
//! `v_c⁺ = P_c v_c⁻ + P_t v_t⁻ + P_i I_c`. [`CaptureCheck`] loads it once and
//! answers, for pre-capture velocities and the impulse measured at the grasp, the predicted
//! post-capture state `x₀ = [θ; v_c⁺]`, `V₀ = (x₀ − x_nom,0)ᵀ S₀ (x₀ − x_nom,0)` and the verdict
//! `V₀ < ρ₀`: three matrix–vector products and a quadratic form. It computes what the study computes, in the same order, from the same numbers (JSON
//! keeps every `f64` exactly), so a saved design's verdict is the study's, bit for bit.
//!
//! Units and frames: SI (rad, m, s, kg, N). Chaser velocities are its velocity coordinates:
//! the free base's `[ω; v]` (world axes, `v` of the base origin) then the joint rates. Target
//! velocities are `[v_G; ω]`, world axes. The impulse is what the target gives the chaser at the
//! grasp point, `[N·s; N·m·s about the grasp point]`, world axes (the wrist sensor's reading
//! turned into world axes and integrated over the contact). The state is `[θ; v_c]` with `θ` the
//! joint angles at capture.

use serde::{Deserialize, Serialize};
use std::path::Path;
use tumble_math::nalgebra::{DMatrix, DVector};

/// The `format` of a design file.
pub const FORMAT: &str = "tumble-capture-design";
/// The design file version this build writes; it also reads version 1 (a design that covers its
/// exact pose and does not record its target).
pub const VERSION: u32 = 2;
/// What a design file says about its units and frames.
pub const FRAMES: &str = "SI units. chaser velocities: free base [omega; v] (world axes, v of the base origin) then \
joint rates; target velocities: [v_G; omega] (world axes); impulse: on the chaser at the grasp point \
[N s; N m s about the grasp point] (world axes); state x = [joint angles; chaser velocities].";

/// A matrix as rows.
pub type Rows = Vec<Vec<f64>>;

/// The map from the measured impulse, as rows of its three matrices.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapRows {
    /// Which map: `eq23` or `chaser`.
    pub name: String,
    /// `P_c` (nv × nv).
    pub chaser: Rows,
    /// `P_t` (nv × 6).
    pub target: Rows,
    /// `P_i` (nv × 6).
    pub impulse: Rows,
}

/// A saved capture design: what the online check needs, with its units and frames.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DesignFile {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`].
    pub version: u32,
    /// Scenario the study ran.
    pub scenario: String,
    /// The study's seed.
    pub seed: u64,
    /// Units and frames, in words.
    pub frames: String,
    /// Chaser velocity coordinates (nv).
    pub chaser_velocities: usize,
    /// Joint angles at capture, rad (the state's first part).
    pub joint_angles: Vec<f64>,
    /// The study's nominal pre-capture chaser velocities.
    pub nominal_chaser_velocity: Vec<f64>,
    /// The study's nominal pre-capture target velocities `[v_G; ω]`.
    pub nominal_target_velocity: Vec<f64>,
    /// Detumble step, s.
    pub dt: f64,
    /// Design steps between the knots below: `S`, `ρ` and the nominal are kept at
    /// `t_j = j · stride · dt` (the first, `t₀ = 0`, is what a verdict uses; the rest serve to
    /// monitor a detumble against `V(t) < ρ(t)`).
    pub stride: usize,
    /// Nominal post-capture states `x_nom(t_j)`.
    pub x_nom: Rows,
    /// Nominal inputs `u_nom(t_j)` (base torque and force, joint torques; N·m, N).
    pub u_nom: Rows,
    /// Cost-to-go matrices `S(t_j)`, each as rows.
    pub s: Vec<Rows>,
    /// The funnel's inlet `ρ₀`: the verdict is `V₀ < ρ₀`. It is the smallest `V₀` of a sampled
    /// capture that failed (`funnel_bounded`), or else the largest `V₀` sampled.
    pub rho0: f64,
    /// Funnel `ρ(t_j)`: the largest cost-to-go of the sampled successes below `ρ₀` at `t_j`.
    pub rho: Vec<f64>,
    /// Whether a sampled failure bounds `ρ₀` (otherwise it is a lower bound).
    pub funnel_bounded: bool,
    /// The map from the measured impulse.
    pub map: MapRows,
    /// The poses the design covers: `joint_angles ± joint_angle_spread` per joint, rad (its
    /// funnel was sampled over that range). Absent in version 1: the exact pose.
    #[serde(default)]
    pub joint_angle_spread: f64,
    /// The joints' names, in the order of `joint_angles` (absent in version 1).
    #[serde(default)]
    pub joint_names: Vec<String>,
    /// The target the design was made for: mass, kg (absent in version 1).
    #[serde(default)]
    pub target_mass: Option<f64>,
}

/// What a verdict is asked about beyond the velocities and the impulse, when the caller knows it:
/// the joint angles at capture and the target's mass. A verdict outside what the design covers
/// is refused, naming the joint or the mass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Asked<'a> {
    /// Joint angles at capture, rad.
    pub joint_angles: Option<&'a [f64]>,
    /// The target's mass, kg.
    pub target_mass: Option<f64>,
}

/// Joint angles further than this from the covered range are refused: the rounding of angles
/// written in decimal, rad.
const ANGLE_ROUNDING: f64 = 1e-9;

/// Whether the design whose pose is `design` (covering `± spread`, joints `names`) covers the
/// joint angles `asked`; the error names the first joint outside.
pub fn covers_pose(design: &[f64], spread: f64, names: &[String], asked: &[f64]) -> Result<(), String> {
    if asked.len() != design.len() {
        return Err(format!("the design has {} joint angles, {} were given", design.len(), asked.len()));
    }
    for (i, (a, d)) in asked.iter().zip(design).enumerate() {
        if !a.is_finite() || (a - d).abs() > spread + ANGLE_ROUNDING {
            let name = names.get(i).map_or_else(|| format!("joint {i}"), |n| format!("joint `{n}`"));
            return Err(format!(
                "{name} is at {a} rad, {:.3e} rad from the design's capture pose ({d} rad); the design covers ±{spread} rad \
                 (capture.roa.joint_angle_spread): design for this pose or widen the spread",
                (a - d).abs()
            ));
        }
    }
    Ok(())
}

/// The rows of `m`.
pub fn rows(m: &DMatrix<f64>) -> Rows {
    m.row_iter().map(|r| r.iter().copied().collect()).collect()
}

/// Largest magnitude of any number in a design file, of any input to a verdict and of a
/// verdict's `V₀`, margin and predicted state (the guard's bound on every output: products of
/// larger numbers overflow, and no capture has such values).
pub const MAX_VALUE: f64 = 1e30;

/// Largest design file read, bytes (16 MiB: the bundled study's is 1.6 MB). Reading takes
/// memory in proportion (at most about 30 times, for a file of many one-number rows).
pub const MAX_DESIGN_BYTES: u64 = 16 << 20;

/// The first value of `xs` that is not finite or beyond [`MAX_VALUE`], with its index.
fn out_of_range<'a>(xs: impl IntoIterator<Item = &'a f64>) -> Option<(usize, f64)> {
    xs.into_iter().copied().enumerate().find(|(_, x)| !(x.is_finite() && x.abs() <= MAX_VALUE))
}

fn matrix(r: &Rows, shape: (usize, usize), key: &str) -> Result<DMatrix<f64>, String> {
    if r.len() != shape.0 || r.iter().any(|row| row.len() != shape.1) {
        return Err(format!("`{key}` must be {} × {}", shape.0, shape.1));
    }
    if let Some((_, x)) = out_of_range(r.iter().flatten()) {
        return Err(format!("`{key}` holds {x:e}: every entry must be finite and within ±{MAX_VALUE:e}"));
    }
    Ok(DMatrix::from_fn(shape.0, shape.1, |i, j| r[i][j]))
}

/// The verdict of an online check.
#[derive(Clone, Debug, PartialEq)]
pub struct OnlineVerdict {
    /// The predicted post-capture state `[θ; v_c⁺]`.
    pub state: DVector<f64>,
    /// `V₀` of the predicted state.
    pub v0: f64,
    /// The funnel inlet `ρ₀`.
    pub rho0: f64,
    /// `V₀ / ρ₀`: below 1 is inside the funnel.
    pub margin: f64,
    /// `V₀ < ρ₀`: the detumble is predicted to succeed.
    pub safe: bool,
}

/// A loaded design, ready to answer verdicts.
#[derive(Clone, Debug)]
pub struct CaptureCheck {
    /// The file as read.
    pub file: DesignFile,
    s0: DMatrix<f64>,
    x_nom0: DVector<f64>,
    /// `[P_c, P_t, P_i]`.
    map: [DMatrix<f64>; 3],
    rho0: f64,
}

impl CaptureCheck {
    /// Reads and validates the design file at `path`; errors name the file and the key.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = tumble_math::input::read_to_string_max(path, MAX_DESIGN_BYTES)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        Self::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// A check from a design file's text.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let file: DesignFile = serde_json::from_str(text).map_err(|e| format!("not a capture design file: {e}"))?;
        Self::new(file)
    }

    /// A check from a design file, validated.
    pub fn new(file: DesignFile) -> Result<Self, String> {
        if file.format != FORMAT {
            return Err(format!("`format` is `{}`, expected `{FORMAT}`", file.format));
        }
        if !(1..=VERSION).contains(&file.version) {
            return Err(format!("`version` is {}; this build reads versions 1 to {VERSION}", file.version));
        }
        if !(file.joint_angle_spread.is_finite() && file.joint_angle_spread >= 0.0) {
            return Err(format!("`joint_angle_spread` must be a finite angle >= 0, got {}", file.joint_angle_spread));
        }
        if file.target_mass.is_some_and(|m| !(m.is_finite() && m > 0.0)) {
            return Err(format!("`target_mass` must be a positive finite mass, got {:?}", file.target_mass));
        }
        let nv = file.chaser_velocities;
        let nx = file.joint_angles.len() + nv;
        if nv < 6 || file.joint_angles.len() + 6 != nv {
            return Err(format!("`chaser_velocities` ({nv}) must be 6 more than the joint angles"));
        }
        let (s0, x0) = match (file.s.first(), file.x_nom.first()) {
            (Some(s), Some(x)) if x.len() == nx => (matrix(s, (nx, nx), "s.0")?, DVector::from_column_slice(x)),
            _ => return Err(format!("`s` and `x_nom` need a first entry, the state's length {nx}")),
        };
        let rho0 = file.rho0;
        if !(1.0 / MAX_VALUE..=MAX_VALUE).contains(&rho0) {
            return Err(format!(
                "`rho0` must be a funnel level from {:e} to {MAX_VALUE:e}, got {rho0:e}",
                1.0 / MAX_VALUE
            ));
        }
        if let Some((i, x)) = out_of_range(x0.iter()) {
            return Err(format!("`x_nom.0` holds {x:e} at {i}: every entry must be finite and within ±{MAX_VALUE:e}"));
        }
        if let Some((i, x)) = out_of_range(&file.joint_angles) {
            return Err(format!("`joint_angles` holds {x:e} at {i}: give angles in rad"));
        }
        let map = [
            matrix(&file.map.chaser, (nv, nv), "map.chaser")?,
            matrix(&file.map.target, (nv, 6), "map.target")?,
            matrix(&file.map.impulse, (nv, 6), "map.impulse")?,
        ];
        Ok(Self { s0, x_nom0: x0, map, rho0, file })
    }

    /// Chaser velocity coordinates the check takes.
    pub fn chaser_velocities(&self) -> usize {
        self.file.chaser_velocities
    }

    /// The verdict for pre-capture chaser velocities `v_c` (nv), target velocities `v_t`
    /// (`[v_G; ω]`) and the impulse measured at the grasp (six numbers); see the module's units.
    pub fn verdict(&self, v_c: &[f64], v_t: &[f64], impulse: &[f64]) -> Result<OnlineVerdict, String> {
        self.verdict_asked(Asked::default(), v_c, v_t, impulse)
    }

    /// [`CaptureCheck::verdict`] at the joint angles and for the target mass of `asked`, each
    /// refused by name when the design does not cover it; the state holds the asked angles.
    pub fn verdict_asked(
        &self,
        asked: Asked<'_>,
        v_c: &[f64],
        v_t: &[f64],
        impulse: &[f64],
    ) -> Result<OnlineVerdict, String> {
        let f = &self.file;
        if let Some(theta) = asked.joint_angles {
            covers_pose(&f.joint_angles, f.joint_angle_spread, &f.joint_names, theta)?;
        }
        if let Some(m) = asked.target_mass {
            match f.target_mass {
                Some(design) if (m - design).abs() <= 1e-9 * design => {}
                Some(design) => {
                    return Err(format!(
                        "the target's mass {m} kg is not the design's ({design} kg): design a capture for this target"
                    ));
                }
                None => return Err("the design does not record its target's mass (version 1): design it again".into()),
            }
        }
        let nv = self.chaser_velocities();
        if v_c.len() != nv || v_t.len() != 6 || impulse.len() != 6 {
            return Err(format!(
                "a verdict needs {nv} chaser velocities, 6 target velocities and 6 impulse components; got {}, {} and {}",
                v_c.len(),
                v_t.len(),
                impulse.len()
            ));
        }
        for (what, xs) in [("chaser velocity", v_c), ("target velocity", v_t), ("impulse", impulse)] {
            if let Some((i, x)) = out_of_range(xs) {
                return Err(format!(
                    "{what} component {i} is {x:e}: every velocity and impulse component must be finite and within ±{MAX_VALUE:e}"
                ));
            }
        }
        let (v_c, v_t, i) =
            (DVector::from_column_slice(v_c), DVector::from_column_slice(v_t), DVector::from_column_slice(impulse));
        let post = post_capture(self.map.each_ref(), &v_c, &v_t, &i);
        let n = self.file.joint_angles.len();
        let theta = asked.joint_angles.unwrap_or(&self.file.joint_angles);
        let state = DVector::from_iterator(n + nv, theta.iter().chain(post.iter()).copied());
        let v0 = cost_to_go(&self.s0, &self.x_nom0, &state);
        let margin = v0 / self.rho0;
        if out_of_range([v0, margin].iter().chain(state.iter())).is_some() {
            return Err(format!(
                "the predicted capture is far outside this design (V0 = {v0:e}, margin {margin:e}, beyond ±{MAX_VALUE:e}): the velocities or the impulse are not of a capture it was made for"
            ));
        }
        Ok(OnlineVerdict { margin, safe: v0 < self.rho0, v0, rho0: self.rho0, state })
    }
}

/// The post-capture chaser velocities `v_c⁺ = P_c v_c⁻ + P_t v_t⁻ + P_i I_c` from a map given
/// as its matrices `[P_c, P_t, P_i]`: how the study and the check both predict.
pub fn post_capture(
    [p_c, p_t, p_i]: [&DMatrix<f64>; 3],
    v_c: &DVector<f64>,
    v_t: &DVector<f64>,
    impulse: &DVector<f64>,
) -> DVector<f64> {
    let mut post = DVector::zeros(p_c.nrows());
    post.gemv(1.0, p_c, v_c, 0.0);
    post.gemv(1.0, p_t, v_t, 1.0);
    post.gemv(1.0, p_i, impulse, 1.0);
    post
}

fn cost_to_go(s: &DMatrix<f64>, x_nom: &DVector<f64>, x: &DVector<f64>) -> f64 {
    let n = x.len();
    quadratic_in(s, x_nom, x, &mut DVector::zeros(n), &mut DVector::zeros(n))
}

/// `(x − x_nom)ᵀ S (x − x_nom)` with scratch `d` and `sd`, as `d·(S d)` (`S` symmetric): the
/// cost-to-go of a TVLQR design, evaluated the same way by the study and by the check.
pub fn quadratic_in(
    s: &DMatrix<f64>,
    x_nom: &DVector<f64>,
    x: &DVector<f64>,
    d: &mut DVector<f64>,
    sd: &mut DVector<f64>,
) -> f64 {
    d.copy_from(x);
    *d -= x_nom;
    sd.gemv(1.0, s, d, 0.0);
    d.dot(sd)
}

/// Writes `file` as JSON at `path` (compact: a design is mostly matrices).
pub fn write_design(path: &Path, file: &DesignFile) -> Result<(), String> {
    let text = serde_json::to_string(file).map_err(|e| e.to_string())?;
    tumble_math::output::write(path, text).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}
