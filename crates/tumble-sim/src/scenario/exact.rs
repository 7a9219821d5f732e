//! Fixed-length arrays read with exactly their length: TOML's reader fills `[f64; 3]` from the
//! first three values of a longer array and drops the rest, so `angular_velocity = [0, 0, 1,
//! 5]` would run as `[0, 0, 1]`. Each fixed-length field of the scenario schema is read through
//! these (`#[serde(deserialize_with = "exact::array")]`), so a vector of another length is
//! refused with its key, line and the length it must have.

use serde::de::{Deserialize, Deserializer, Error};

/// `[T; N]` from an array of exactly `N` values.
pub(crate) fn array<'de, D, T, const N: usize>(d: D) -> Result<[T; N], D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let v: Vec<T> = Vec::deserialize(d)?;
    let n = v.len();
    v.try_into().map_err(|_| D::Error::invalid_length(n, &format!("exactly {N} values").as_str()))
}

/// An optional `[T; N]` (the field must also be `#[serde(default)]`).
pub(crate) fn option<'de, D, T, const N: usize>(d: D) -> Result<Option<[T; N]>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    array(d).map(Some)
}

/// A list of `[T; N]`, each of exactly `N` values.
pub(crate) fn vec<'de, D, T, const N: usize>(d: D) -> Result<Vec<[T; N]>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let rows: Vec<Vec<T>> = Vec::deserialize(d)?;
    (rows.into_iter().enumerate())
        .map(|(i, r)| {
            let n = r.len();
            r.try_into()
                .map_err(|_| D::Error::invalid_length(n, &format!("exactly {N} values in element {i}").as_str()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::Scenario;
    use std::path::Path;

    fn load(file: &str, key: &str, value: &str) -> Result<Scenario, String> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(file);
        Scenario::load(&path, &[(key.into(), value.into())]).map_err(|e| e.to_string())
    }

    #[test]
    fn vectors_of_another_length_are_refused_by_key() {
        for (file, key, value, n) in [
            ("basics/dzhanibekov.toml", "bodies.0.angular_velocity", "[0, 0, 1, 5]", 3),
            ("basics/dzhanibekov.toml", "bodies.0.orientation", "[1, 0, 0, 0, 0, 0]", 4),
            ("basics/dzhanibekov.toml", "bodies.0.position", "[1, 2, 3, 4, 5]", 3),
            ("basics/dzhanibekov.toml", "bodies.0.position", "[1, 2]", 3),
            ("lander/cube_phobos.toml", "lander.angular_velocity", "[0, 0, 1, 5]", 3),
        ] {
            let e = load(file, key, value).err().unwrap_or_else(|| panic!("{key} = {value} accepted"));
            assert!(e.contains(key) && e.contains(&format!("expected exactly {n} values")), "{e}");
        }
        assert!(load("basics/dzhanibekov.toml", "bodies.0.position", "[1, 2, 3]").is_ok());
    }

    #[test]
    fn override_keys_are_bounded_and_quoted_keys_addressed() {
        let deep = vec!["a"; 10_000].join(".");
        let Err(e) = load("basics/dzhanibekov.toml", &deep, "1") else { panic!("a 10,000-part key") };
        assert!(e.contains("at most 32 dotted parts"), "{}", &e[e.len().saturating_sub(200)..]);
        // A dispersion's quoted key, with dots in it.
        let sc = load("lander/cube_phobos.toml", "dispersions.\"lander.contact.mu\".max", "0.7").expect("quoted key");
        assert!(sc.text.contains("max = 0.7"), "{}", sc.text);
        let Err(e) = load("lander/cube_phobos.toml", "dispersions.\"lander.contact.mu", "0.7") else {
            panic!("unclosed")
        };
        assert!(e.contains("quoted"), "{e}");
    }

    #[test]
    fn a_key_past_the_readers_depth_is_named_by_line() {
        let text = format!("name = \"x\"\n\n[{}]\nx = 1\n", vec!["a"; 200].join("."));
        let Err(e) = Scenario::from_text(Path::new("deep.toml"), text, &[]) else { panic!("too deep") };
        let e = e.to_string();
        assert!(e.starts_with("deep.toml:3:1:") && e.contains("200 dotted parts"), "{e}");
        // The same through the editor that applies overrides.
        let text = format!("name = \"x\"\n\n[{}]\nx = 1\n", vec!["a"; 200].join("."));
        let set = [("name".to_string(), "\"y\"".to_string())];
        let Err(e) = Scenario::from_text(Path::new("deep.toml"), text, &set) else { panic!("too deep") };
        let e = e.to_string();
        assert!(e.starts_with("deep.toml:3:1:") && e.contains("200 dotted parts"), "{e}");
    }
}
