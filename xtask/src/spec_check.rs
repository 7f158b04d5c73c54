//! `cargo xtask spec-check`: runs the independent vector checker `spec/check/check.py` (Python 3,
//! standard library only), which re-derives the known-answer vectors from `spec/` alone.
//!
//! Without a `python3` on the `PATH` it says so and succeeds: the checker is a second opinion on
//! the specification, not a build dependency.

use std::path::Path;
use std::process::Command;

/// `cargo xtask spec-check` takes no options.
#[derive(Debug, Default, PartialEq, clap::Args)]
#[command(
    about = "Run the independent Python checker of the test vectors (spec/check/check.py)",
    long_about = "Runs python3 spec/check/check.py, an implementation of the parts of spec/ \
                  that the vectors exercise (blake3, ristretto255, the transcript, the proofs, \
                  the XOR and hashing-generator suites), written from the specification alone; \
                  it fails on any vector it disagrees with. Skipped (with a message) when \
                  python3 is not installed."
)]
pub(crate) struct Args {}

/// The checker's entry point, relative to the workspace root.
const CHECKER: &str = "spec/check/check.py";

/// Runs the checker; returns whether it passed (or was skipped for want of python3).
pub(crate) fn run(root: &Path, _: &Args) -> bool {
    let python = Command::new("python3").arg("--version").output();
    if !python.is_ok_and(|o| o.status.success()) {
        eprintln!("spec-check skipped: no python3");
        return true;
    }
    eprintln!("$ python3 {CHECKER}");
    match Command::new("python3")
        .arg(CHECKER)
        .current_dir(root)
        .status()
    {
        Ok(s) if s.success() => true,
        Ok(s) => {
            eprintln!("`python3 {CHECKER}` failed: {s}");
            false
        }
        Err(e) => {
            eprintln!("could not run python3: {e}");
            false
        }
    }
}
