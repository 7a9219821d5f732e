//! Dispersions: distributions on scenario keys, drawn from a per-run random stream.
//!
//! Each run's stream is xoshiro256** seeded through SplitMix64 from `(campaign seed, run
//! index)` alone, so a run draws the same values whether it runs alone, in any campaign, or on
//! any number of threads. Normal deviates come from the Box–Muller transform; a truncated
//! normal redraws until the value falls in `[min, max]`.

use crate::scenario::{DispersionSpec, Scenario, ScenarioError};

/// A validated distribution.
#[derive(Clone, Debug, PartialEq)]
pub enum Distribution {
    /// Normal with mean and standard deviation, optionally truncated to `[min, max]`.
    Normal {
        /// Mean.
        mean: f64,
        /// Standard deviation (≥ 0).
        sd: f64,
        /// Lower bound.
        min: f64,
        /// Upper bound.
        max: f64,
    },
    /// Uniform on `[low, high]`.
    Uniform {
        /// Lower bound.
        low: f64,
        /// Upper bound.
        high: f64,
    },
    /// One of these TOML values, each equally likely.
    Choice(Vec<String>),
}

/// A dispersed key.
#[derive(Clone, Debug, PartialEq)]
pub struct Dispersion {
    /// Dotted key path in the scenario.
    pub key: String,
    /// Its distribution.
    pub dist: Distribution,
}

/// A run's random stream (xoshiro256**).
pub struct Stream([u64; 4]);

impl Stream {
    /// The stream of run `index` in the campaign of `seed`.
    pub fn new(seed: u64, index: u64) -> Self {
        let mut sm = seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut next = || {
            sm = sm.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = sm;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        Stream([next(), next(), next(), next()])
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.0;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform on [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform(); // (0, 1]
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

/// Most redraws of a truncated normal; the bounds are refused up front when they keep less
/// than about 1e-4 of the mass, so this is never reached in practice.
const MAX_REDRAWS: usize = 1_000_000;

impl Distribution {
    /// The distribution as JSON (`{"normal": [mean, sd], "min": …, "max": …}` and so on).
    pub fn to_json(&self) -> serde_json::Value {
        let bound = |x: f64| if x.is_finite() { serde_json::json!(x) } else { serde_json::Value::Null };
        match self {
            Distribution::Normal { mean, sd, min, max } => {
                serde_json::json!({ "normal": [mean, sd], "min": bound(*min), "max": bound(*max) })
            }
            Distribution::Uniform { low, high } => serde_json::json!({ "uniform": [low, high] }),
            Distribution::Choice(v) => serde_json::json!({ "choice": v }),
        }
    }

    /// Draws one value as TOML text.
    pub fn draw(&self, s: &mut Stream) -> String {
        match self {
            Distribution::Normal { mean, sd, min, max } => {
                for _ in 0..MAX_REDRAWS {
                    let x = mean + sd * s.normal();
                    if (*min..=*max).contains(&x) {
                        return fmt(x);
                    }
                }
                fmt(mean.clamp(*min, *max))
            }
            Distribution::Uniform { low, high } => fmt(low + (high - low) * s.uniform()),
            Distribution::Choice(v) => v[((s.uniform() * v.len() as f64) as usize).min(v.len() - 1)].clone(),
        }
    }
}

/// Shortest text that reads back as the same f64, always with a decimal point or exponent so
/// TOML reads a float.
fn fmt(x: f64) -> String {
    let t = format!("{x:?}");
    if t.contains(['.', 'e', 'E', 'n', 'i']) { t } else { format!("{t}.0") }
}

/// Checks the scenario's `[dispersions]`: each key must name an existing value of a type the
/// distribution can produce, and each distribution must be possible.
pub fn parse(sc: &Scenario) -> Result<Vec<Dispersion>, ScenarioError> {
    let doc: toml::Value = toml::from_str(&sc.text).map_err(|e| ScenarioError::file(&sc.path, e.to_string()))?;
    let mut out = Vec::new();
    for (key, spec) in &sc.file.dispersions {
        let bad = |m: String| ScenarioError {
            file: sc.path.clone(),
            position: sc.text.find(&format!("\"{key}\"")).map(|o| crate::scenario::line_col(&sc.text, o)),
            key: Some(format!("dispersions.\"{key}\"")),
            message: m,
        };
        if key.starts_with("dispersions") || key == "name" {
            return Err(bad("this key cannot be dispersed".into()));
        }
        let Some(current) = lookup(&doc, key) else {
            return Err(bad(
                "no such key in the scenario; disperse a value the file sets (dotted path, array elements by index)"
                    .into(),
            ));
        };
        let dist = distribution(spec).map_err(&bad)?;
        let numeric = matches!(dist, Distribution::Normal { .. } | Distribution::Uniform { .. });
        match current {
            Current::Float if numeric => {}
            Current::Integer if numeric => {
                return Err(bad("the key holds an integer; disperse it with `choice = [...]`".into()));
            }
            Current::Other(t) if numeric => {
                return Err(bad(format!("the key holds {t}; `normal` and `uniform` draw numbers (use `choice`)")));
            }
            _ => {}
        }
        out.push(Dispersion { key: key.clone(), dist });
    }
    Ok(out)
}

fn distribution(d: &DispersionSpec) -> Result<Distribution, String> {
    let kinds = [d.normal.is_some(), d.uniform.is_some(), d.choice.is_some()].iter().filter(|k| **k).count();
    if kinds != 1 {
        return Err("give exactly one of `normal = [mean, sd]`, `uniform = [low, high]`, `choice = [...]`".into());
    }
    if (d.min.is_some() || d.max.is_some()) && d.normal.is_none() {
        return Err("`min`/`max` truncate a `normal`; `uniform` has its own bounds".into());
    }
    if let Some([mean, sd]) = d.normal {
        let (min, max) = (d.min.unwrap_or(f64::NEG_INFINITY), d.max.unwrap_or(f64::INFINITY));
        if !(mean.is_finite() && sd.is_finite() && sd >= 0.0) {
            return Err(format!("normal needs a finite mean and a standard deviation >= 0, got [{mean}, {sd}]"));
        }
        if min.is_nan() || max.is_nan() || min >= max {
            return Err(format!("the truncation needs min < max, got [{min}, {max}]"));
        }
        // Probability of [min, max] ≥ ~1e-4: within 3.7 sd of the mean at its nearest.
        let gap = if mean < min {
            min - mean
        } else if mean > max {
            mean - max
        } else {
            0.0
        };
        if gap > 3.7 * sd {
            return Err(format!(
                "[{min}, {max}] lies {:.1} standard deviations from the mean: almost no draw falls in it",
                gap / sd.max(f64::MIN_POSITIVE)
            ));
        }
        return Ok(Distribution::Normal { mean, sd, min, max });
    }
    if let Some([low, high]) = d.uniform {
        if !(low.is_finite() && high.is_finite() && low <= high) {
            return Err(format!("uniform needs finite low <= high, got [{low}, {high}]"));
        }
        return Ok(Distribution::Uniform { low, high });
    }
    match &d.choice {
        Some(choice) if !choice.is_empty() => Ok(Distribution::Choice(choice.iter().map(|v| v.to_string()).collect())),
        _ => Err("choice needs at least one value".into()),
    }
}

enum Current {
    Float,
    Integer,
    Other(&'static str),
}

/// The kind of the value at a dotted path, if the document has one.
fn lookup(doc: &toml::Value, key: &str) -> Option<Current> {
    use toml::Value;
    let mut node = doc;
    for part in key.split('.') {
        node = match node {
            Value::Table(t) => t.get(part)?,
            Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(match node {
        Value::Float(_) => Current::Float,
        Value::Integer(_) => Current::Integer,
        Value::String(_) => Current::Other("a string"),
        Value::Boolean(_) => Current::Other("a boolean"),
        Value::Array(_) => Current::Other("an array"),
        Value::Table(_) => Current::Other("a table"),
        Value::Datetime(_) => Current::Other("a date"),
    })
}

/// The dispersed values of run `index`, in key order, as `(key, TOML text)` overrides.
pub fn draw_run(dispersions: &[Dispersion], seed: u64, index: u64) -> Vec<(String, String)> {
    let mut s = Stream::new(seed, index);
    dispersions.iter().map(|d| (d.key.clone(), d.dist.draw(&mut s))).collect()
}
