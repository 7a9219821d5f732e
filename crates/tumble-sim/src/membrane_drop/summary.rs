//! What a membrane drop did, typed: the run's `summary.json`, a campaign's row and the headline
//! `tumble run` prints all come from [`DropSummary`].

use super::{MembraneDrop, MembraneRun, MembraneSample};
use crate::outputs::first_last;
use serde::Serialize;
use std::path::Path;

/// The figures of one drop (SI units, named with them).
#[derive(Clone, Debug, Serialize)]
pub struct DropSummary {
    /// Scenario name.
    pub scenario: String,
    /// `no contact`, `on the membrane (contact n)`, `bounced off` or `bounced off n times`.
    pub outcome: String,
    /// Why the run stopped early, if it did.
    pub diagnosis: Option<String>,
    /// Time of the last sample, s.
    pub final_time_s: f64,
    /// Contact episodes `[first, last]` sample time, s.
    pub contacts_s: Vec<[f64; 2]>,
    /// The membrane's unstretched area, m².
    pub membrane_area0_m2: f64,
    /// Largest area, m².
    pub peak_area_m2: f64,
    /// Deepest point below the suspension plane, m.
    pub peak_depth_m: f64,
    /// Largest normal force on the body, N.
    pub peak_normal_force_N: f64,
    /// Largest friction force, N.
    pub peak_friction_force_N: f64,
    /// Largest slip speed, m/s.
    pub peak_slip_m_s: f64,
    /// Faces of the body's mesh.
    pub body_faces: usize,
    /// Body velocity at the start, m/s.
    pub velocity_initial_m_s: [f64; 3],
    /// Body velocity at the end, m/s.
    pub velocity_final_m_s: [f64; 3],
    /// Body angular velocity at the end, rad/s.
    pub angular_velocity_final_rad_s: [f64; 3],
    /// `T + V_g + ½k(A − A₀)² + D_c + D_f` at the start, J.
    pub energy_budget_initial_J: f64,
    /// The same at the end, J.
    pub energy_budget_final_J: f64,
    /// Energy taken by the membrane's damping, J.
    pub damping_loss_J: f64,
    /// Energy taken by friction, J.
    pub friction_loss_J: f64,
    /// Samples whose force distribution needed a negative load (clipped).
    pub illegal_pinv_samples: usize,
    /// Wall-clock time, s.
    pub wall_time_s: f64,
    /// Simulated over wall-clock time.
    pub real_time_factor: f64,
}

impl DropSummary {
    /// The summary of `run` of `model`.
    pub fn new(model: &MembraneDrop, run: &MembraneRun) -> Result<Self, String> {
        let (first, last) = first_last(&run.samples)?;
        let outcome = match (run.contacts.len(), last.contact.in_contact) {
            (0, _) => "no contact".to_string(),
            (n, true) => format!("on the membrane (contact {n})"),
            (1, false) => "bounced off".to_string(),
            (n, false) => format!("bounced off {n} times"),
        };
        let peak = |f: &dyn Fn(&MembraneSample) -> f64| run.samples.iter().map(f).fold(0.0, f64::max);
        Ok(Self {
            scenario: model.name.clone(),
            outcome,
            diagnosis: run.diagnosis.as_ref().map(|d| d.to_string()),
            final_time_s: last.t,
            contacts_s: run.contacts.clone(),
            membrane_area0_m2: model.membrane.area0(),
            peak_area_m2: peak(&|s| s.contact.area),
            peak_depth_m: peak(&|s| s.contact.depth),
            peak_normal_force_N: peak(&|s| s.contact.normal_force.norm()),
            peak_friction_force_N: peak(&|s| s.contact.friction_force.norm()),
            peak_slip_m_s: peak(&|s| s.contact.max_slip),
            body_faces: model.mesh.faces.len(),
            velocity_initial_m_s: first.velocity,
            velocity_final_m_s: last.velocity,
            angular_velocity_final_rad_s: last.omega,
            energy_budget_initial_J: first.budget(),
            energy_budget_final_J: last.budget(),
            damping_loss_J: last.damping_loss,
            friction_loss_J: last.friction_loss,
            illegal_pinv_samples: run.samples.iter().filter(|s| s.contact.distribution.negative > 0).count(),
            wall_time_s: run.wall_s,
            real_time_factor: last.t / run.wall_s.max(1e-9),
        })
    }

    /// The line `tumble run` prints, with the output folder `out`.
    pub fn headline(&self, out: &Path) -> String {
        let contacts: Vec<String> = self.contacts_s.iter().map(|c| format!("{:.2}–{:.2}", c[0], c[1])).collect();
        format!(
            "{}: {} — contacts {} s, peak normal force {:.1} N, depth {:.3} m, area {:.2} m² (A₀ {:.2}), velocity {} → {} m/s; energy budget {:.4} → {:.4} J (damping {:.3} J, friction {:.3} J); t = {:?} s in {:.3} s wall ({:.0}× real time); outputs in {}",
            self.scenario,
            self.outcome,
            contacts.join(", "),
            self.peak_normal_force_N,
            self.peak_depth_m,
            self.peak_area_m2,
            self.membrane_area0_m2,
            crate::outputs::vec3(&self.velocity_initial_m_s),
            crate::outputs::vec3(&self.velocity_final_m_s),
            self.energy_budget_initial_J,
            self.energy_budget_final_J,
            self.damping_loss_J,
            self.friction_loss_J,
            self.final_time_s,
            self.wall_time_s,
            self.real_time_factor,
            out.display()
        )
    }
}
