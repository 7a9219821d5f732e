//! Mechanism campaigns: a run's row holds each moving body's final position and velocity and
//! its peak contact force, the contact count at the end and at its peak, and the energy.

use super::{Mechanism, write_mechanism_run};
use crate::campaign::{CampaignKind, Finished};
use crate::scenario::Scenario;
use std::any::Any;
use std::path::Path;

/// Rigid bodies in contact through the interference engine (`kind = "mechanism"`). Status:
/// `in_contact` (contacts at the end), `free` or `failed`.
pub struct MechanismRuns {
    /// Names of the bodies that move (free or carried by the arm), in body order.
    moving: Vec<String>,
}

impl MechanismRuns {
    /// The runs of `sc`, whose moving bodies name the columns.
    pub fn new(sc: &Scenario) -> Result<Self, String> {
        let m = Mechanism::build(sc).map_err(|e| e.to_string())?;
        Ok(Self { moving: m.bodies.iter().filter(|b| b.moves()).map(|b| b.name.clone()).collect() })
    }
}

impl CampaignKind for MechanismRuns {
    fn columns(&self) -> Vec<String> {
        let per_body = ["x [m]", "y [m]", "z [m]", "vx [m/s]", "vy [m/s]", "vz [m/s]", "peak_contact_force [N]"];
        let mut c: Vec<String> =
            ["final_time [s]", "contacts_final", "contacts_peak", "energy_initial [J]", "energy_final [J]"]
                .map(String::from)
                .into();
        for b in &self.moving {
            c.extend(per_body.iter().map(|n| format!("{b}.{n}")));
        }
        c
    }

    fn check(&self, sc: &Scenario) -> Result<(), String> {
        Mechanism::build(sc).map(|_| ()).map_err(|e| e.to_string())
    }

    fn run(&self, sc: &Scenario, dir: Option<&Path>) -> Result<Finished, String> {
        let m = Mechanism::build(sc).map_err(|e| e.to_string())?;
        let run = m.run();
        if let Some(dir) = dir {
            write_mechanism_run(dir, &m, &run)?;
        }
        let (first, last) = crate::output::first_last(&run.samples)?;
        let peak_contacts = run.samples.iter().map(|s| s.contacts).max().unwrap_or(0);
        let mut results = vec![last.t, last.contacts as f64, peak_contacts as f64, first.energy, last.energy];
        for i in (0..m.bodies.len()).filter(|&i| m.bodies[i].moves()) {
            let b = &last.bodies[i];
            results.extend(b[0].iter().chain(b[1].iter()));
            results.push(run.samples.iter().map(|s| s.bodies[i][3].norm()).fold(0.0, f64::max));
        }
        let status = if last.contacts > 0 { "in_contact" } else { "free" };
        Ok(Finished::new(status, results, run.diagnosis.as_ref().map(|d| d.to_string())))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
