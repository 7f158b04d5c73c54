//! The `xtask` binary as a user (and CI) runs it.
//!
//! Besides testing the command line end to end, this test makes `cargo test --workspace` build
//! the `xtask` binary in the same build as every other test (cargo builds a package's binaries
//! for its integration tests), with the workspace's unified features: CI then runs
//! `target/debug/xtask` instead of `cargo xtask`, whose separate feature resolution would
//! rebuild most of the dependency tree a second time.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

fn xtask(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .output()
        .expect("the xtask binary runs")
}

#[test]
fn help_lists_every_task() {
    let out = xtask(&["--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for task in [
        "bench",
        "demo",
        "ci",
        "fuzz",
        "mutants",
        "report-check",
        "spec-check",
        "test-vectors",
        "tidy",
    ] {
        assert!(help.contains(task), "{task} missing from:\n{help}");
    }
}

#[test]
fn an_unknown_task_or_option_is_a_usage_error() {
    let out = xtask(&["no-such-task"]);
    assert_eq!(out.status.code(), Some(2), "clap's usage-error status");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-task"));
    let out = xtask(&["fuzz", "--minutes", "1", "--seconds", "1"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "--minutes and --seconds conflict"
    );
}
