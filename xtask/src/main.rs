//! Project automation: `cargo xtask <task>` (see `cargo xtask help`). One module per task.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

mod bench;
mod demo;
mod test_vectors;

const HELP: &str = "\
cargo xtask <task>

tasks:
  bench [--quick] [--filter REGEX] [--save-baseline NAME | --baseline NAME] [...]
                          benchmarks, figures and the paper comparison in target/verdict-bench/
                          (`cargo xtask bench --help` lists every option)
  demo                    a narrated hybrid session (3 servers, 10 clients, one jammer) in the
                          simulator: messages, accusation, verdict, exclusion
  ci                      everything CI runs: fmt, clippy, tests, docs, vector freshness,
                          benchmarks compile
  test-vectors [--check]  write the known-answer vectors to test-vectors/, or check that
                          the files match the generator
  help                    print this message
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    let ok = match args.first().map(String::as_str) {
        Some("bench") => bench::run(&root, &args[1..]),
        Some("ci") => ci(),
        Some("demo") => demo::run(&args[1..]),
        Some("test-vectors") => {
            let check = args.iter().skip(1).any(|a| a == "--check");
            if let Some(bad) = args.iter().skip(1).find(|a| *a != "--check") {
                eprintln!("unknown option `{bad}`\n\n{HELP}");
                false
            } else {
                test_vectors::run(&root, check)
            }
        }
        Some("help") | None => {
            print!("{HELP}");
            true
        }
        Some(other) => {
            eprintln!("unknown task `{other}`\n\n{HELP}");
            false
        }
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The workspace root: xtask lives one directory below it.
fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// Runs `cargo <args>` with optional extra environment, reporting failure by name.
fn cargo(args: &[&str], env: &[(&str, &str)]) -> bool {
    eprintln!("$ cargo {}", args.join(" "));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let status = Command::new(cargo)
        .args(args)
        .envs(env.iter().copied())
        .current_dir(workspace_root())
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

fn ci() -> bool {
    cargo(&["fmt", "--all", "--", "--check"], &[])
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
        && test_vectors::run(&workspace_root(), true)
        && cargo(&["bench", "--workspace", "--no-run"], &[])
}
