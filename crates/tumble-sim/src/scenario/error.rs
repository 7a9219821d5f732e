//! Scenario errors that name the file, the line and column, and the key.

use std::fmt;
use std::path::{Path, PathBuf};

/// A problem with a scenario file, printed on one line as
/// `FILE:LINE:COL: key `a.b.c`: what is wrong (what would be right)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    /// The scenario file.
    pub file: PathBuf,
    /// 1-based line and column, when the problem has a place in the file.
    pub position: Option<(usize, usize)>,
    /// Dotted path of the key (`bodies.target.mass`), when the problem has one.
    pub key: Option<String>,
    /// What is wrong and what would be right.
    pub message: String,
}

impl ScenarioError {
    /// An error about the file as a whole (missing, unreadable).
    pub fn file(file: &Path, message: impl Into<String>) -> Self {
        Self { file: file.to_path_buf(), position: None, key: None, message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some((line, col)) = self.position {
            write!(f, ":{line}:{col}")?;
        }
        write!(f, ": ")?;
        if let Some(key) = &self.key {
            write!(f, "key `{key}`: ")?;
        }
        // Keep it on one line whatever the underlying message holds.
        let msg: String = self.message.split_whitespace().collect::<Vec<_>>().join(" ");
        write!(f, "{msg}")
    }
}

impl std::error::Error for ScenarioError {}

/// 1-based (line, column) of a byte offset in `text`; the column counts characters.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..text.floor_char_boundary(offset)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}
