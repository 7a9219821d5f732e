//! Why a run failed, in one type for every application.

/// Why a run failed, for a person to act on.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnosis {
    /// Simulated time of the failure, s.
    pub time: f64,
    /// The body concerned, when one is.
    pub body: Option<String>,
    /// What was observed.
    pub what: String,
    /// The likely cause and what to change.
    pub likely_cause: String,
}

impl Diagnosis {
    /// A diagnosis at `time` (s) concerning no particular body.
    pub fn new(time: f64, what: impl Into<String>, likely_cause: impl Into<String>) -> Self {
        Self { time, body: None, what: what.into(), likely_cause: likely_cause.into() }
    }
}

impl std::fmt::Display for Diagnosis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at t = {:.6} s", self.time)?;
        if let Some(b) = &self.body {
            write!(f, ", body `{b}`")?;
        }
        write!(f, ": {}. Likely cause: {}", self.what, self.likely_cause)
    }
}

impl std::error::Error for Diagnosis {}
