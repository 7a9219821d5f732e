//! The one list of applications. `tumble run`, `tumble check`, `tumble mc`, the Python
//! package and campaigns find an application here by its scenario's `kind`;
//! adding one is its folder (its model, its [`crate::app::Application`]) and one line in
//! [`APPLICATIONS`].

use crate::app::{Application, Run};
use crate::campaign::{Campaign, CampaignOptions};
use crate::scenario::{Kind, Scenario, ScenarioError};

/// Every application, in the order the docs list them.
pub static APPLICATIONS: &[&dyn Application] = &[
    &crate::rigid_app::RigidBodies,
    &crate::lander::app::Lander,
    &crate::membrane::app::MembraneDropApp,
    &crate::membrane_capture::app::AsteroidCaptureApp,
    &crate::arm::app::Arm,
    &crate::grapple::app::Grapple,
    &crate::snare::app::SnareWire,
    &crate::mechanism::app::MechanismApp,
    &crate::capture_map::app::CaptureMap,
];

/// The application of scenario kind `kind`.
pub fn application(kind: Kind) -> &'static dyn Application {
    match APPLICATIONS.iter().find(|a| a.kind() == kind) {
        Some(a) => *a,
        None => unreachable!("every scenario kind has its application in APPLICATIONS (tested)"),
    }
}

/// Builds the model of `sc` and starts its run.
pub fn start(sc: &Scenario) -> Result<Box<dyn Run>, ScenarioError> {
    application(sc.kind).start(sc)
}

/// Builds (without running) the model of `sc`; its warnings.
pub fn check(sc: &Scenario) -> Result<Vec<String>, ScenarioError> {
    application(sc.kind).check(sc)
}

/// The campaign of `scenario` with `options`, its runs those of the scenario's application.
pub fn campaign(scenario: Scenario, options: CampaignOptions) -> Result<Campaign, String> {
    let app = application(scenario.kind);
    Campaign::new(scenario, options, |sc, dispersions| app.campaign(sc, dispersions))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_one_application() {
        for kind in Kind::ALL {
            assert_eq!(APPLICATIONS.iter().filter(|a| a.kind() == kind).count(), 1, "{kind:?}");
        }
        assert_eq!(APPLICATIONS.len(), Kind::ALL.len());
    }
}
