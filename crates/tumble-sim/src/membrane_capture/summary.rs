//! What an asteroid capture did, typed: the run's `summary.json`, a campaign's row and the
//! headline `tumble run` prints all come from [`MembraneCaptureSummary`].

use super::{MembraneCapture, MembraneCaptureRun, MembraneCaptureSample};
use crate::outputs::{first_last, vec3};
use serde::Serialize;
use std::path::Path;

/// The figures of one capture (SI units, named with them).
#[derive(Clone, Debug, Serialize)]
pub struct MembraneCaptureSummary {
    /// Scenario name.
    pub scenario: String,
    /// `no contact`, `in contact` or `separated` at the end.
    pub outcome: String,
    /// Why the run stopped early, if it did.
    pub diagnosis: Option<String>,
    /// Time of the last sample, s.
    pub final_time_s: f64,
    /// First contact, s.
    pub contact_time_s: Option<f64>,
    /// When the bus's rate came within `catch_up_rate_rad_s` of the asteroid's, s.
    pub catch_up_time_s: Option<f64>,
    /// The catch-up criterion, rad/s.
    pub catch_up_rate_rad_s: f64,
    /// Peak bending moment of each solar-array drive, N·m.
    pub peak_sada_bending_N_m: [f64; 2],
    /// The drives' moment limit, N·m.
    pub sada_moment_limit_N_m: f64,
    /// Whether both peaks stay within the limit.
    pub sada_within_limit: bool,
    /// The membrane's unstretched area, m².
    pub membrane_area0_m2: f64,
    /// Largest area, m².
    pub peak_area_m2: f64,
    /// Largest normal force, N.
    pub peak_normal_force_N: f64,
    /// Largest friction force, N.
    pub peak_friction_force_N: f64,
    /// Largest slip speed, m/s.
    pub peak_slip_m_s: f64,
    /// Most asteroid vertices in contact at once.
    pub peak_contact_vertices: usize,
    /// Deepest point of the membrane, m.
    pub peak_depth_m: f64,
    /// Room left between the deepest membrane point and the bus, m.
    pub bus_clearance_m: f64,
    /// Faces of the asteroid's mesh.
    pub asteroid_faces: usize,
    /// Asteroid angular velocity at the start, rad/s (world).
    pub asteroid_rate_initial_rad_s: [f64; 3],
    /// Asteroid angular velocity at the end, rad/s (world).
    pub asteroid_rate_final_rad_s: [f64; 3],
    /// Bus angular velocity at the end, rad/s (world).
    pub bus_rate_final_rad_s: [f64; 3],
    /// `|ω_asteroid − ω_bus|` at the end, rad/s.
    pub relative_rate_final_rad_s: f64,
    /// Energy budget (energies plus losses less the work put in) at the start, J.
    pub energy_budget_initial_J: f64,
    /// The same at the end, J.
    pub energy_budget_final_J: f64,
    /// Energy taken by the membrane's damping, J.
    pub damping_loss_J: f64,
    /// Energy taken by friction, J.
    pub friction_loss_J: f64,
    /// Energy taken by the drives' damping, J.
    pub sada_loss_J: f64,
    /// Work of the thrust and the guidance, J.
    pub work_J: f64,
    /// Samples with the asteroid past the membrane's rim.
    pub rim_samples: usize,
    /// Samples whose force distribution needed a negative load (clipped).
    pub illegal_pinv_samples: usize,
    /// Wall-clock time, s.
    pub wall_time_s: f64,
    /// Simulated over wall-clock time.
    pub real_time_factor: f64,
}

impl MembraneCaptureSummary {
    /// The summary of `run` of `model`.
    pub fn new(model: &MembraneCapture, run: &MembraneCaptureRun) -> Result<Self, String> {
        let (first, last) = first_last(&run.samples)?;
        let peak = |f: &dyn Fn(&MembraneCaptureSample) -> f64| run.samples.iter().map(f).fold(0.0, f64::max);
        let outcome = match (run.contact_time, last.contact.in_contact) {
            (None, _) => "no contact",
            (Some(_), true) => "in contact",
            (Some(_), false) => "separated",
        };
        let count = |f: &dyn Fn(&MembraneCaptureSample) -> bool| run.samples.iter().filter(|s| f(s)).count();
        Ok(Self {
            scenario: model.name.clone(),
            outcome: outcome.into(),
            diagnosis: run.diagnosis.as_ref().map(|d| d.to_string()),
            final_time_s: last.t,
            contact_time_s: run.contact_time,
            catch_up_time_s: run.catch_up_time(model.catch_up_rate),
            catch_up_rate_rad_s: model.catch_up_rate,
            peak_sada_bending_N_m: [peak(&|s| s.bending(0)), peak(&|s| s.bending(1))],
            sada_moment_limit_N_m: model.moment_limit,
            sada_within_limit: run.peak_bending() <= model.moment_limit,
            membrane_area0_m2: model.membrane.area0(),
            peak_area_m2: peak(&|s| s.contact.area),
            peak_normal_force_N: peak(&|s| s.contact.normal_force.norm()),
            peak_friction_force_N: peak(&|s| s.contact.friction_force.norm()),
            peak_slip_m_s: peak(&|s| s.contact.max_slip),
            peak_contact_vertices: run.samples.iter().map(|s| s.contact.contact_vertices).max().unwrap_or(0),
            peak_depth_m: peak(&|s| s.contact.depth),
            bus_clearance_m: model.offset - model.bus_half_height - peak(&|s| s.contact.depth),
            asteroid_faces: model.mesh.faces.len(),
            asteroid_rate_initial_rad_s: first.asteroid_rate,
            asteroid_rate_final_rad_s: last.asteroid_rate,
            bus_rate_final_rad_s: last.bus_rate,
            relative_rate_final_rad_s: last.relative_rate(),
            energy_budget_initial_J: first.budget(),
            energy_budget_final_J: last.budget(),
            damping_loss_J: last.damping_loss,
            friction_loss_J: last.friction_loss,
            sada_loss_J: last.sada_loss,
            work_J: last.work,
            rim_samples: count(&|s| s.contact.outside_rim > 0),
            illegal_pinv_samples: count(&|s| s.contact.distribution.negative > 0),
            wall_time_s: run.wall_s,
            real_time_factor: last.t / run.wall_s.max(1e-9),
        })
    }

    /// The line `tumble run` prints, with the output folder `out`.
    pub fn headline(&self, out: &Path) -> String {
        let f = |x: Option<f64>| x.map_or("—".to_string(), |x| format!("{x:.1}"));
        format!(
            "{}: {} — contact at {} s, caught up at {} s (|Δω| < {} rad/s); peak SADA bending {} N·m (limit {}), peak membrane force {:.1} N, peak slip {:.3} m/s, relative rate {:.5} rad/s at the end; energy budget {:.1} → {:.1} J; t = {:?} s in {:.3} s wall ({:.0}× real time); outputs in {}",
            self.scenario,
            self.outcome,
            f(self.contact_time_s),
            f(self.catch_up_time_s),
            self.catch_up_rate_rad_s,
            vec3(&self.peak_sada_bending_N_m),
            self.sada_moment_limit_N_m,
            self.peak_normal_force_N,
            self.peak_slip_m_s,
            self.relative_rate_final_rad_s,
            self.energy_budget_initial_J,
            self.energy_budget_final_J,
            self.final_time_s,
            self.wall_time_s,
            self.real_time_factor,
            out.display()
        )
    }
}
