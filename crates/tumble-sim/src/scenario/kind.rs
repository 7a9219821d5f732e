//! What a scenario simulates: its `kind`, the name of the application that runs it, checked
//! against the top-level sections the file has. The applications and the sections each reads
//! are the registry's ([`crate::registry`]); this module checks a file against that list
//! without knowing any application.

use super::{Scenario, ScenarioError};

/// The top-level sections an application reads: those a file of its kind must have, and those
/// it may have besides (`[simulation]`, `[gravity]`, `[dispersions]` and the keys of
/// [`COMMON`] belong to every kind and are not listed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sections {
    /// Sections a file of the kind must have.
    pub required: &'static [&'static str],
    /// Sections it may have besides.
    pub optional: &'static [&'static str],
}

impl Sections {
    /// Whether a file with the model sections `found` fits.
    fn fit(&self, found: &[&str]) -> bool {
        self.required.iter().all(|s| found.contains(s))
            && found.iter().all(|s| self.required.contains(s) || self.optional.contains(s))
    }
}

/// The top-level keys every kind shares.
pub const COMMON: [&str; 7] = ["name", "kind", "description", "seed", "simulation", "gravity", "dispersions"];

/// The model sections of a scenario: its top-level keys less [`COMMON`].
fn sections_of(sc: &Scenario) -> Vec<&str> {
    sc.table.keys().map(String::as_str).filter(|k| !COMMON.contains(k)).collect()
}

fn listed(sections: &[&str]) -> String {
    if sections.is_empty() {
        return "no model section".into();
    }
    sections.iter().map(|s| format!("[{s}]")).collect::<Vec<_>>().join(", ")
}

/// The index in `kinds` (each a kind's name and the sections its application reads) of the
/// kind `sc` names, checked against the sections it has. The error names the sections found
/// and what would be right: the kind that fits them, a section name that is a likely typo.
pub fn check_kind(sc: &Scenario, kinds: &[(&str, Sections)]) -> Result<usize, ScenarioError> {
    let found = sections_of(sc);
    let fitting = kinds.iter().find(|(_, s)| s.fit(&found)).map(|(name, _)| *name);
    if sc.kind().is_empty() {
        let hint = match fitting {
            Some(k) => format!("add `kind = \"{k}\"`"),
            None => format!("add one of {}", names(kinds)),
        };
        return Err(sc.error_at("kind", format!("missing: the file has {}; {hint} at the top", listed(&found))));
    }
    let Some(index) = kinds.iter().position(|(name, _)| *name == sc.kind()) else {
        let msg = format!("unknown kind `{}`: one of {}", sc.kind(), names(kinds));
        return Err(sc.error_at("kind", msg));
    };
    let sections = kinds[index].1;
    if sections.fit(&found) {
        return Ok(index);
    }
    let missing: Vec<&str> = sections.required.iter().copied().filter(|s| !found.contains(s)).collect();
    let extra: Vec<&str> =
        found.iter().copied().filter(|s| !sections.required.contains(s) && !sections.optional.contains(s)).collect();
    let mut why = vec![];
    if !missing.is_empty() {
        why.push(format!("it needs {}", listed(&missing)));
    }
    if !extra.is_empty() {
        why.push(format!("it does not read {}", listed(&extra)));
    }
    let known = kinds.iter().flat_map(|(_, s)| s.required.iter().chain(s.optional)).copied().chain(COMMON);
    let known: Vec<&str> = known.collect();
    let typo = extra.iter().filter(|e| !known.contains(e)).find_map(|e| {
        known.iter().find(|k| near(e, k)).map(|k| format!("; `{e}` is not a section: did you mean `{k}`?"))
    });
    let other = fitting.map(|k| format!("; the sections fit `kind = \"{k}\"`"));
    let msg = format!(
        "`{}` contradicts the file's sections ({}): {}{}",
        sc.kind(),
        listed(&found),
        why.join(" and "),
        typo.or(other).unwrap_or_default()
    );
    // A section the kind does not read is placed at that section; a missing one at `kind`.
    Err(sc.error_at(extra.first().copied().unwrap_or("kind"), msg))
}

fn names(kinds: &[(&str, Sections)]) -> String {
    kinds.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

/// Whether `a` is `b` mistyped: one character added, dropped, changed, or two swapped.
fn near(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a == b || a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let start = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let end = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (a.len().saturating_sub(start + end), b.len().saturating_sub(start + end));
    let swapped = a.len() == b.len() && ra == 2 && a[start] == b[start + 1] && a[start + 1] == b[start];
    ra.max(rb) <= 1 || swapped
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const KINDS: [(&str, Sections); 2] = [
        ("rigid_bodies", Sections { required: &["bodies"], optional: &[] }),
        ("lander", Sections { required: &["lander", "target"], optional: &[] }),
    ];

    fn kind(text: &str) -> Result<&'static str, String> {
        let sc = Scenario::from_text(Path::new("k.toml"), text.into(), &[]).map_err(|e| e.to_string())?;
        check_kind(&sc, &KINDS).map(|i| KINDS[i].0).map_err(|e| e.to_string())
    }

    const BODY: &str = "[simulation]\nduration = 1.0\n[bodies.a]\nmass = 1.0\ninertia = [1.0, 1.0, 1.0]\n";

    #[test]
    fn a_file_says_what_it_is_and_its_sections_must_agree() {
        assert_eq!(kind(&format!("name = \"a\"\nkind = \"rigid_bodies\"\n{BODY}")), Ok("rigid_bodies"));
        let missing = kind(&format!("name = \"a\"\n{BODY}")).unwrap_err();
        assert!(missing.contains("key `kind`: missing") && missing.contains("[bodies]"), "{missing}");
        assert!(missing.contains("kind = \"rigid_bodies\""), "{missing}");
        let wrong = kind(&format!("name = \"a\"\nkind = \"lander\"\n{BODY}")).unwrap_err();
        assert!(wrong.contains("needs [lander], [target]") && wrong.contains("does not read [bodies]"), "{wrong}");
        assert!(wrong.contains("fit `kind = \"rigid_bodies\"`"), "{wrong}");
        let unknown = kind(&format!("name = \"a\"\nkind = \"rover\"\n{BODY}")).unwrap_err();
        assert!(unknown.contains("unknown kind `rover`: one of rigid_bodies, lander"), "{unknown}");
    }

    #[test]
    fn a_mistyped_section_is_named_with_the_one_meant() {
        let typo =
            kind(&format!("name = \"a\"\nkind = \"rigid_bodies\"\n{BODY}[gravty]\ntype = \"none\"\n")).unwrap_err();
        assert!(typo.contains("key `gravty`") && typo.contains("did you mean `gravity`?"), "{typo}");
        assert!(typo.contains("k.toml:8:"), "{typo}");
        for (a, b, is) in [
            ("gravty", "gravity", true),
            ("bodeis", "bodies", true),
            ("landr", "lander", true),
            ("arm", "mechanism", false),
            ("a", "b", true),
            ("ab", "cd", false),
        ] {
            assert_eq!(near(a, b), is, "{a} {b}");
        }
    }
}
