#![doc = include_str!("../README.md")]

pub mod macro_bench;

/// The workspace README's library example, compiled and run as a doctest (this crate is not
/// published, so including a file from outside its directory is harmless).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct WorkspaceReadme;
