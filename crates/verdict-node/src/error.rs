//! The node's error type: everything that can stop a command, with what it was doing.

use std::path::PathBuf;

/// Why a node command failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NodeError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A key or group file does not parse.
    #[error("{path}: {reason}")]
    BadFile {
        /// The file.
        path: PathBuf,
        /// What is wrong (names the field).
        reason: String,
    },
    /// The protocol refused the configuration.
    #[error("configuration: {0}")]
    Config(#[from] verdict_proto::ConfigError),
    /// A network operation failed.
    #[error("network: {0}")]
    Net(String),
    /// The durable history failed.
    #[error("history: {0}")]
    History(String),
    /// A command-line argument is inconsistent with the files.
    #[error("{0}")]
    Usage(String),
}

impl NodeError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io { path, source }
    }

    /// A parse error in `path`.
    pub fn bad_file(path: impl Into<PathBuf>, reason: impl std::fmt::Display) -> Self {
        Self::BadFile {
            path: path.into(),
            reason: reason.to_string(),
        }
    }
}
