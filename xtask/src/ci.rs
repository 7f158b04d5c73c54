//! `cargo xtask ci`: the checks of `.ci/run`, in the same order, run locally.
//!
//! Keep this list, `.ci/run` and README.md ("Run the tests") in step: CI runs `.ci/run`, not
//! this task, so a step added only here would never gate a merge.

use std::path::Path;

/// `cargo xtask ci` takes no options.
#[derive(Debug, Default, PartialEq, clap::Args)]
#[command(
    about = "Everything CI runs: fmt, tidy, clippy, docs, tests, vector freshness, the \
             independent vector checker, benchmarks compile, a short fuzz run",
    long_about = "Runs what CI (.ci/run) runs, stopping at the first failure: cargo fmt --check, \
                  cargo xtask tidy, cargo clippy (all targets, warnings denied), cargo doc \
                  (warnings denied), cargo test --workspace, cargo xtask test-vectors --check, \
                  the independent vector checker (cargo xtask spec-check; skipped without \
                  python3) and every fuzz target for 10 seconds (cargo xtask fuzz --dev --seconds 10; \
                  needs cargo-fuzz)."
)]
pub(crate) struct Args {}

/// Runs every step; returns whether all passed.
pub(crate) fn run(root: &Path, _: &Args) -> bool {
    use crate::cargo;
    cargo(&["fmt", "--all", "--", "--check"], &[])
        && crate::tidy::run(root, &crate::tidy::Args {})
        && cargo(
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ],
            &[],
        )
        && cargo(
            &["doc", "--workspace", "--no-deps"],
            &[("RUSTDOCFLAGS", "-D warnings")],
        )
        && cargo(&["test", "--workspace"], &[])
        && crate::test_vectors::run(root, &crate::test_vectors::Args { check: true })
        && crate::spec_check::run(root, &crate::spec_check::Args {})
        && crate::fuzz::run(
            root,
            &crate::fuzz::Args {
                seconds: Some(10),
                dev: true,
                ..crate::fuzz::Args::default()
            },
        )
}
