//! Project automation: `cargo xtask <task>` (see `cargo xtask help`).

use std::process::{Command, ExitCode};

const HELP: &str = "\
cargo xtask <task>

tasks:
  ci      run everything CI runs: fmt, clippy, tests, docs
  help    print this message
";

fn main() -> ExitCode {
    let task = std::env::args().nth(1);
    match task.as_deref() {
        Some("ci") => ci(),
        Some("help") | None => {
            print!("{HELP}");
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("unknown task `{other}`\n\n{HELP}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `cargo <args>` with optional extra environment, reporting failure by name.
fn cargo(args: &[&str], env: &[(&str, &str)]) -> bool {
    eprintln!("$ cargo {}", args.join(" "));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(cargo)
        .args(args)
        .envs(env.iter().copied())
        .status();
    match status {
        Ok(s) if s.success() => true,
        Ok(s) => {
            eprintln!("`cargo {}` failed: {s}", args.join(" "));
            false
        }
        Err(e) => {
            eprintln!("could not run cargo: {e}");
            false
        }
    }
}

fn ci() -> ExitCode {
    let ok = cargo(&["fmt", "--all", "--", "--check"], &[])
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
        && cargo(&["test", "--workspace"], &[])
        && cargo(
            &["doc", "--workspace", "--no-deps"],
            &[("RUSTDOCFLAGS", "-D warnings")],
        );
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
