//! The capture study's design as the online check's file ([`tumble_control::capture_check`]).

use super::CaptureStudy;
use super::detumble::{Design, Funnel};
use tumble_control::capture_check::{DesignFile, FORMAT, FRAMES, MapRows, VERSION, rows};

/// Most knots of `S(t)`, `ρ(t)` and the nominal a design file keeps.
const KNOTS: usize = 241;

impl CaptureStudy {
    /// The design file of `design` and its `funnel` (from [`CaptureStudy::controller`] or a
    /// study's report).
    pub fn design_file(&self, design: &Design, funnel: &Funnel) -> DesignFile {
        // At most KNOTS knots: every step of a 120 s design at 0.05 s would make 16 MB.
        let stride = design.x_nom.len().saturating_sub(1).div_ceil(KNOTS - 1).max(1);
        let knots = |len: usize| (0..len).step_by(stride);
        DesignFile {
            format: FORMAT.into(),
            version: VERSION,
            scenario: self.name.clone(),
            seed: self.seed,
            frames: FRAMES.into(),
            chaser_velocities: self.chaser.nv(),
            joint_angles: self.joint_angles().to_vec(),
            nominal_chaser_velocity: self.v_c.as_slice().to_vec(),
            nominal_target_velocity: self.v_t.as_slice().to_vec(),
            dt: design.spec.dt,
            stride,
            x_nom: knots(design.x_nom.len()).map(|k| design.x_nom[k].as_slice().to_vec()).collect(),
            u_nom: knots(design.u_nom.len()).map(|k| design.u_nom[k].as_slice().to_vec()).collect(),
            s: knots(design.s.len()).map(|k| rows(&design.s[k])).collect(),
            rho0: funnel.rho0,
            rho: knots(funnel.rho.len()).map(|k| funnel.rho[k]).collect(),
            funnel_bounded: funnel.bounded,
            joint_angle_spread: self.roa.joint_angle_spread,
            joint_names: self.joint_names.clone(),
            target_mass: Some(self.target.mass),
            map: MapRows {
                name: format!("{:?}", self.verdict_map).to_lowercase(),
                chaser: rows(&self.prediction.chaser),
                target: rows(&self.prediction.target),
                impulse: rows(&self.prediction.impulse),
            },
        }
    }
}
