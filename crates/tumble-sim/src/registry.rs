//! The one list of applications. `tumble run`, `tumble check`, `tumble mc`, the Python
//! package, the fuzz harness and campaigns find an application here by its scenario's `kind`;
//! adding one is its folder (its model, its [`crate::app::Application`]) and one line in
//! [`APPLICATIONS`]. A program that embeds Tumble adds its own with [`Registry::with`]
//! (test `an_application_of_its_own_runs_through_the_registry`).

use crate::app::{Application, Run};
use crate::campaign::{Campaign, CampaignOptions};
use crate::scenario::{Scenario, ScenarioError, Sections, check_kind};
use std::path::Path;
use std::sync::OnceLock;

/// Every bundled application, in the order the docs list them.
pub static APPLICATIONS: &[&dyn Application] = &[
    &crate::rigid_bodies::app::RigidBodies,
    &crate::lander::app::Lander,
    &crate::membrane_drop::app::MembraneDropApp,
    &crate::membrane_capture::app::MembraneCaptureApp,
    &crate::membrane_2d::app::TrampolineApp,
    &crate::arm::app::Arm,
    &crate::grapple::app::Grapple,
    &crate::snare::app::SnareWire,
    &crate::mechanism::app::MechanismApp,
    &crate::capture_map::app::CaptureMap,
];

/// A list of applications, each answering to its own kind.
#[derive(Clone)]
pub struct Registry {
    apps: Vec<&'static dyn Application>,
}

impl Registry {
    /// The bundled applications ([`APPLICATIONS`]).
    pub fn bundled() -> &'static Registry {
        static BUNDLED: OnceLock<Registry> = OnceLock::new();
        BUNDLED.get_or_init(|| Registry { apps: APPLICATIONS.to_vec() })
    }

    /// This list and `app`; refused when its kind is taken or is not a plain name (lowercase
    /// letters, digits and `_`, as a file's `kind` gives it).
    pub fn with(&self, app: &'static dyn Application) -> Result<Registry, String> {
        let kind = app.kind();
        let plain = !kind.is_empty() && kind.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !plain {
            return Err(format!("kind {kind:?} is not a plain name: lowercase letters, digits and `_`"));
        }
        if self.apps.iter().any(|a| a.kind() == kind) {
            return Err(format!("kind `{kind}` already has an application"));
        }
        let mut apps = self.apps.clone();
        apps.push(app);
        Ok(Registry { apps })
    }

    /// Every application, in order.
    pub fn applications(&self) -> &[&'static dyn Application] {
        &self.apps
    }

    /// The application of `sc`'s kind, its sections checked against those the file has.
    pub fn application(&self, sc: &Scenario) -> Result<&'static dyn Application, ScenarioError> {
        let kinds: Vec<(&str, Sections)> = self.apps.iter().map(|a| (a.kind(), a.sections())).collect();
        check_kind(sc, &kinds).map(|i| self.apps[i])
    }

    /// Reads the scenario at `path` with `overrides` and checks its kind.
    pub fn load(&self, path: &Path, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
        let sc = Scenario::load(path, overrides)?;
        self.application(&sc)?;
        Ok(sc)
    }

    /// Builds the model of `sc` and starts its run; a failure the application could not
    /// measure the cause of is measured by rerunning at smaller steps ([`crate::app::rerun`]).
    pub fn start(&self, sc: &Scenario) -> Result<Box<dyn Run>, ScenarioError> {
        let app = self.application(sc)?;
        let mut run = app.start(sc)?;
        run.measure_failures_with(crate::app::rerun::of(sc, app));
        Ok(run)
    }

    /// Builds (without running) the model of `sc`; its warnings.
    pub fn check(&self, sc: &Scenario) -> Result<Vec<String>, ScenarioError> {
        self.application(sc)?.check(sc)
    }

    /// The campaign of `scenario` with `options`, its runs those of the scenario's application.
    pub fn campaign(&self, scenario: Scenario, options: CampaignOptions) -> Result<Campaign, String> {
        let app = self.application(&scenario).map_err(|e| e.to_string())?;
        Campaign::new(scenario, options, |sc, dispersions| app.campaign(sc, dispersions))
    }
}

/// [`Registry::load`] of the bundled applications.
pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    Registry::bundled().load(path, overrides)
}

/// The bundled application of `sc`'s kind ([`Registry::application`]).
pub fn application(sc: &Scenario) -> Result<&'static dyn Application, ScenarioError> {
    Registry::bundled().application(sc)
}

/// [`Registry::start`] of the bundled applications.
pub fn start(sc: &Scenario) -> Result<Box<dyn Run>, ScenarioError> {
    Registry::bundled().start(sc)
}

/// [`Registry::check`] of the bundled applications.
pub fn check(sc: &Scenario) -> Result<Vec<String>, ScenarioError> {
    Registry::bundled().check(sc)
}

/// [`Registry::campaign`] of the bundled applications.
pub fn campaign(scenario: Scenario, options: CampaignOptions) -> Result<Campaign, String> {
    Registry::bundled().campaign(scenario, options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_kind_is_named_once_and_plainly() {
        let mut empty = Registry { apps: vec![] };
        for app in APPLICATIONS {
            empty = empty.with(*app).unwrap_or_else(|e| panic!("{e}"));
        }
        assert_eq!(empty.applications().len(), 10);
        let again = Registry::bundled().with(APPLICATIONS[0]).err().expect("a kind taken twice is refused");
        assert!(again.contains("`rigid_bodies` already has an application"), "{again}");
    }

    /// The parts every application uses import none of them, so that an application is its
    /// folder and its line in [`APPLICATIONS`].
    #[test]
    fn shared_modules_import_no_application() {
        const APPS: [&str; 10] = [
            "arm",
            "capture_map",
            "grapple",
            "lander",
            "mechanism",
            "membrane_drop",
            "membrane_capture",
            "membrane_2d",
            "snare",
            "rigid_bodies",
        ];
        const SHARED: [&str; 7] = ["pipeline", "campaign", "scenario", "app", "outputs.rs", "table.rs", "plot.rs"];
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        let mut stack: Vec<_> = SHARED.iter().map(|s| src.join(s)).collect();
        while let Some(p) = stack.pop() {
            match std::fs::read_dir(&p) {
                Ok(dir) => stack.extend(dir.map(|e| e.expect("entry").path())),
                Err(_) => files.push(p),
            }
        }
        assert!(files.len() > 20, "{} files", files.len());
        for file in files {
            let text = std::fs::read_to_string(&file).expect("source");
            for app in APPS {
                let bad = [format!("crate::{app}::"), format!("crate::{app};"), format!("crate::{{{app}")];
                assert!(!bad.iter().any(|b| text.contains(b.as_str())), "{} imports `{app}`", file.display());
            }
            // The rigid bodies' items the crate's root re-exports.
            for item in ["crate::Model", "crate::RigidSim", "crate::RunResult", "crate::Outcome", "crate::simulate"] {
                assert!(!text.contains(item), "{} imports `{item}`", file.display());
            }
        }
    }
}
