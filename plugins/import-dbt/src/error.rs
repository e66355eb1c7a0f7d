//! What stops an import before any model is converted: one line that
//! names the file, and the exit code `LIFECYCLE.md` gives it.

use std::fmt;
use std::path::Path;

use strata_plugin::exit;

/// A failure of the whole import (a model that cannot be converted is not
/// one: it is a needs-review entry of the report).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub message: String,
    /// The exit code: [`exit::ENVIRONMENT`] for a file or directory that
    /// cannot be read or written, [`exit::MODULE_ERRORS`] for a project
    /// file that is malformed, [`exit::USAGE`] for arguments that ask for
    /// something refused.
    pub code: i32,
}

impl Failure {
    /// A file or directory that cannot be read or written (exit 4).
    pub fn environment(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: exit::ENVIRONMENT,
        }
    }

    /// A project file with errors (exit 1).
    pub fn project(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: exit::MODULE_ERRORS,
        }
    }

    /// Arguments that ask for something refused (exit 2).
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            code: exit::USAGE,
        }
    }

    /// `path` could not be read.
    pub fn unreadable(path: &Path, e: &std::io::Error) -> Failure {
        Failure::environment(format!("cannot read {}: {}", path.display(), io_reason(e)))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// An I/O error as a short reason, without the `(os error N)` tail.
pub fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}
