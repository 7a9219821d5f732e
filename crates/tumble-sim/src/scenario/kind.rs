//! What a scenario simulates: its `kind`, the one place that maps a kind to the sections it
//! reads (and so to the application that runs it).

use super::ScenarioFile;
use serde::Deserialize;

/// The application a scenario runs, named by its top-level `kind` key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Rigid bodies under gravity and loads (`[bodies]`).
    RigidBodies,
    /// A lander or hopper on a small body (`[lander]`, `[target]`).
    Lander,
    /// A body dropped onto a fixed membrane (`[membrane]`).
    MembraneDrop,
    /// A spacecraft capturing an asteroid in the membrane it carries (`[membrane]`,
    /// `[spacecraft]`).
    MembraneCapture,
    /// An articulated arm (`[arm]`).
    Arm,
    /// An arm's wire or snare effector capturing a free payload (`[arm]`, `[grapple]`).
    Grapple,
    /// The planar snare-wire experiment (`[snare]`).
    Snare,
    /// Rigid bodies in contact through the interference engine (`[mechanism]`, optionally on an
    /// `[arm]`).
    Mechanism,
    /// Impulsive capture maps, detumbling and the region-of-attraction check (`[capture]`,
    /// `[arm]`).
    CaptureMap,
}

impl Kind {
    /// Every kind, in the order the docs list them.
    pub const ALL: [Kind; 9] = [
        Kind::RigidBodies,
        Kind::Lander,
        Kind::MembraneDrop,
        Kind::MembraneCapture,
        Kind::Arm,
        Kind::Grapple,
        Kind::Snare,
        Kind::Mechanism,
        Kind::CaptureMap,
    ];

    /// The name a file gives it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::RigidBodies => "rigid_bodies",
            Kind::Lander => "lander",
            Kind::MembraneDrop => "membrane_drop",
            Kind::MembraneCapture => "membrane_capture",
            Kind::Arm => "arm",
            Kind::Grapple => "grapple",
            Kind::Snare => "snare",
            Kind::Mechanism => "mechanism",
            Kind::CaptureMap => "capture_map",
        }
    }

    /// Sections a file of this kind must have, and those it may have besides.
    fn sections(self) -> (&'static [&'static str], &'static [&'static str]) {
        match self {
            Kind::RigidBodies => (&["bodies"], &[]),
            Kind::Lander => (&["lander", "target"], &[]),
            Kind::MembraneDrop => (&["membrane"], &[]),
            Kind::MembraneCapture => (&["membrane", "spacecraft"], &[]),
            Kind::Arm => (&["arm"], &[]),
            Kind::Grapple => (&["arm", "grapple"], &[]),
            Kind::Snare => (&["snare"], &[]),
            Kind::Mechanism => (&["mechanism"], &["arm"]),
            Kind::CaptureMap => (&["capture", "arm"], &[]),
        }
    }
}

/// The model sections `file` has (`[simulation]`, `[gravity]` and `[dispersions]` belong to
/// every kind and are not listed).
fn sections_of(file: &ScenarioFile) -> Vec<&'static str> {
    let present = [
        ("bodies", !file.bodies.is_empty()),
        ("lander", file.lander.is_some()),
        ("target", file.target.is_some()),
        ("membrane", file.membrane.is_some()),
        ("spacecraft", file.spacecraft.is_some()),
        ("arm", file.arm.is_some()),
        ("grapple", file.grapple.is_some()),
        ("snare", file.snare.is_some()),
        ("mechanism", file.mechanism.is_some()),
        ("capture", file.capture.is_some()),
    ];
    present.iter().filter(|(_, p)| *p).map(|(s, _)| *s).collect()
}

fn listed(sections: &[&str]) -> String {
    if sections.is_empty() {
        return "no model section".into();
    }
    sections.iter().map(|s| format!("[{s}]")).collect::<Vec<_>>().join(", ")
}

/// The kind of `file`: its `kind` key, checked against the sections it has. The error names
/// the sections found and what would be right.
pub fn kind_of(file: &ScenarioFile) -> Result<Kind, String> {
    let found = sections_of(file);
    let fits = |k: Kind| {
        let (required, optional) = k.sections();
        required.iter().all(|s| found.contains(s)) && found.iter().all(|s| required.contains(s) || optional.contains(s))
    };
    let Some(kind) = file.kind else {
        let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        let hint = match Kind::ALL.into_iter().find(|&k| fits(k)) {
            Some(k) => format!("add `kind = \"{}\"`", k.name()),
            None => format!("add one of {}", names.join(", ")),
        };
        return Err(format!("missing: the file has {}; {hint} at the top", listed(&found)));
    };
    if fits(kind) {
        return Ok(kind);
    }
    let (required, optional) = kind.sections();
    let missing: Vec<&str> = required.iter().copied().filter(|s| !found.contains(s)).collect();
    let extra: Vec<&str> = found.iter().copied().filter(|s| !required.contains(s) && !optional.contains(s)).collect();
    let mut why = vec![];
    if !missing.is_empty() {
        why.push(format!("it needs {}", listed(&missing)));
    }
    if !extra.is_empty() {
        why.push(format!("it does not read {}", listed(&extra)));
    }
    let other =
        Kind::ALL.into_iter().find(|&k| fits(k)).map(|k| format!("; the sections fit `kind = \"{}\"`", k.name()));
    Err(format!(
        "`{}` contradicts the file's sections ({}): {}{}",
        kind.name(),
        listed(&found),
        why.join(" and "),
        other.unwrap_or_default()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;
    use std::path::Path;

    fn kind(text: &str) -> Result<Kind, String> {
        let sc = Scenario::from_text(Path::new("k.toml"), text.into(), &[]).map_err(|e| e.to_string())?;
        Ok(sc.kind)
    }

    const BODY: &str = "[simulation]\nduration = 1.0\n[bodies.a]\nmass = 1.0\ninertia = [1.0, 1.0, 1.0]\n";

    #[test]
    fn a_file_says_what_it_is_and_its_sections_must_agree() {
        assert_eq!(kind(&format!("name = \"a\"\nkind = \"rigid_bodies\"\n{BODY}")), Ok(Kind::RigidBodies));
        let missing = kind(&format!("name = \"a\"\n{BODY}")).unwrap_err();
        assert!(missing.contains("key `kind`: missing") && missing.contains("[bodies]"), "{missing}");
        assert!(missing.contains("kind = \"rigid_bodies\""), "{missing}");
        let wrong = kind(&format!("name = \"a\"\nkind = \"lander\"\n{BODY}")).unwrap_err();
        assert!(wrong.contains("needs [lander], [target]") && wrong.contains("does not read [bodies]"), "{wrong}");
        assert!(wrong.contains("fit `kind = \"rigid_bodies\"`"), "{wrong}");
        let unknown = kind(&format!("name = \"a\"\nkind = \"rover\"\n{BODY}")).unwrap_err();
        assert!(unknown.contains("kind") && unknown.contains("capture_map"), "{unknown}");
    }
}
