//! Arm campaigns: a run's row holds the final joint coordinates and rates, the energy at the
//! start and the end, and each recorded joint's peak reaction moment.

use super::{ArmModel, ArmSim, write_arm_run};
use crate::campaign::{CampaignKind, Finished};
use crate::scenario::Scenario;
use std::path::Path;

/// Arm runs (`kind = "arm"`). Status: `completed` or `failed`.
pub struct ArmRuns {
    /// Columns of a sample row of the nominal arm.
    sample: Vec<String>,
}

impl ArmRuns {
    /// The runs of `sc`, whose arm names the columns.
    pub fn new(sc: &Scenario) -> Result<Self, String> {
        let mut model = ArmModel::build(sc).map_err(|e| e.to_string())?;
        Ok(Self { sample: ArmSim::new(&mut model).columns().to_vec() })
    }

    /// The sample columns a row reports at the end: time, coordinates and rates.
    fn finals(&self) -> impl Iterator<Item = (usize, &String)> {
        let kept = |c: &str| c == "t [s]" || c.ends_with("[rad|m]") || c.ends_with("[rad/s|m/s]");
        self.sample.iter().enumerate().filter(move |(_, c)| kept(c))
    }

    /// Joints whose reaction moment `(name, column of mx)` the samples record.
    fn reactions(&self) -> impl Iterator<Item = (&str, usize)> {
        self.sample.iter().enumerate().filter_map(|(i, c)| c.strip_suffix(".mx [N·m]").map(|n| (n, i)))
    }
}

impl CampaignKind for ArmRuns {
    fn statuses(&self) -> &'static [&'static str] {
        &["completed"]
    }

    fn columns(&self) -> Vec<String> {
        let mut c: Vec<String> = self.finals().map(|(_, c)| c.replace(" [", "_final [")).collect();
        c.extend(["energy_initial [J]".to_string(), "energy_final [J]".to_string()]);
        c.extend(self.reactions().map(|(n, _)| format!("{n}.peak_moment [N m]")));
        c
    }

    fn check(&self, sc: &Scenario) -> Result<(), String> {
        ArmModel::build(sc).map(|_| ()).map_err(|e| e.to_string())
    }

    fn run(&self, sc: &Scenario, dir: Option<&Path>) -> Result<Finished, String> {
        let mut model = ArmModel::build(sc).map_err(|e| e.to_string())?;
        let run = model.simulate();
        if let Some(dir) = dir {
            write_arm_run(dir, &model, &run)?;
        }
        if run.columns != self.sample {
            return Err("the run's arm differs from the nominal one (another set of joints)".into());
        }
        let (first, last) = crate::outputs::first_last(&run.rows)?;
        let energy = self.sample.len() - 1;
        let mut results: Vec<f64> = self.finals().map(|(i, _)| last[i]).collect();
        results.extend([first[energy], last[energy]]);
        for (_, i) in self.reactions() {
            let peak = run.rows.iter().map(|r| (r[i].powi(2) + r[i + 1].powi(2) + r[i + 2].powi(2)).sqrt());
            results.push(peak.fold(0.0, f64::max));
        }
        Ok(Finished::new("completed", results, run.failure.as_ref().map(|d| d.to_string())))
    }
}
