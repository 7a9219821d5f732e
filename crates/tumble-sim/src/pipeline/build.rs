//! What a builder returns when its input cannot make a model.

/// A builder's refusal: the key path of the offending input (the same path a scenario file
/// uses, e.g. `lander.contact.stiffness`), what is wrong and what would be right.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildError {
    /// Key path.
    pub key: String,
    /// What is wrong (and what would be right).
    pub message: String,
}

impl BuildError {
    /// A refusal of `key`.
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self { key: key.into(), message: message.into() }
    }
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "key `{}`: {}", self.key, self.message)
    }
}

impl std::error::Error for BuildError {}

/// A scenario check's refusal `(key, message)` as a builder's.
impl From<(String, String)> for BuildError {
    fn from((key, message): (String, String)) -> Self {
        Self { key, message }
    }
}

/// A builder's refusal as a scenario check's `(key, message)`, for the adapters that end in a
/// builder.
impl From<BuildError> for (String, String) {
    fn from(e: BuildError) -> Self {
        (e.key, e.message)
    }
}
