//! Project automation: `cargo xtask <task>` (see `cargo xtask --help`).
//!
//! The whole command line is declared once, with clap's derive API: [`Cli`] lists the tasks and
//! each task's module declares its own options (`Args`) with their help text, so `--help`, the
//! parser and the error messages cannot drift apart. One module per task.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::{CommandFactory, Parser, Subcommand};

mod bench;
mod ci;
mod demo;
mod fuzz;
mod mutants;
mod spec_check;
mod test_vectors;
mod tidy;

/// Project automation for verdict.
#[derive(Debug, Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    disable_version_flag = true,
    after_help = "`cargo xtask <task> --help` describes a task and every option it takes."
)]
pub(crate) struct Cli {
    /// The task to run; without one, this help is printed.
    #[command(subcommand)]
    task: Option<Task>,
}

/// Every task of `cargo xtask`. Each task's module declares its help text and options on its
/// `Args` (so no doc comment here: clap would let it override the module's).
#[derive(Debug, PartialEq, Subcommand)]
pub(crate) enum Task {
    Bench(bench::Args),
    Demo(demo::Args),
    Ci(ci::Args),
    Fuzz(fuzz::Args),
    Mutants(mutants::Args),
    ReportCheck(bench::report_check::Args),
    SpecCheck(spec_check::Args),
    TestVectors(test_vectors::Args),
    Tidy(tidy::Args),
    #[command(hide = true, name = "bench-macro-child")]
    BenchMacroChild(bench::isolated::ChildArgs),
}

fn main() -> ExitCode {
    // Parse errors and `--help` exit here, through clap (status 2 for a usage error).
    let cli = Cli::parse();
    let root = workspace_root();
    let ok = match cli.task {
        Some(Task::Bench(args)) => bench::run(&root, &args),
        Some(Task::Demo(args)) => demo::run(&args),
        Some(Task::Ci(args)) => ci::run(&root, &args),
        Some(Task::Fuzz(args)) => fuzz::run(&root, &args),
        Some(Task::Mutants(args)) => mutants::run(&root, &args),
        Some(Task::ReportCheck(args)) => bench::report_check::run(&root, &args),
        Some(Task::SpecCheck(args)) => spec_check::run(&root, &args),
        Some(Task::TestVectors(args)) => test_vectors::run(&root, &args),
        Some(Task::Tidy(args)) => tidy::run(&root, &args),
        Some(Task::BenchMacroChild(args)) => bench::isolated::child(&args),
        // No task: the help, and success, as `cargo xtask` always did.
        None => match Cli::command().print_help() {
            Ok(()) => true,
            Err(e) => {
                eprintln!("cannot print the help: {e}");
                false
            }
        },
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The workspace root: xtask lives one directory below it.
pub(crate) fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// The cargo that runs xtask (so the same toolchain runs every nested cargo command).
pub(crate) fn cargo_bin() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// Runs `cargo <args>` with optional extra environment, reporting failure by name.
pub(crate) fn cargo(args: &[&str], env: &[(&str, &str)]) -> bool {
    eprintln!("$ cargo {}", args.join(" "));
    let status = Command::new(cargo_bin())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `cargo xtask <args>` as the binary would.
    pub(crate) fn parse(args: &[&str]) -> Result<Option<Task>, clap::Error> {
        let argv = std::iter::once("cargo xtask").chain(args.iter().copied());
        Cli::try_parse_from(argv).map(|cli| cli.task)
    }

    #[test]
    fn command_line_is_well_formed() {
        // clap's own consistency checks (conflicts name real arguments, no duplicate flags...).
        Cli::command().debug_assert();
    }

    #[test]
    fn tasks_and_their_options() {
        assert_eq!(parse(&[]).ok(), Some(None));
        assert_eq!(
            parse(&["test-vectors", "--check"]).ok(),
            Some(Some(Task::TestVectors(test_vectors::Args { check: true })))
        );
        assert_eq!(
            parse(&["test-vectors"]).ok(),
            Some(Some(Task::TestVectors(test_vectors::Args { check: false })))
        );
        assert!(matches!(parse(&["demo"]), Ok(Some(Task::Demo(_)))));
        assert!(matches!(parse(&["ci"]), Ok(Some(Task::Ci(_)))));
        assert!(matches!(parse(&["tidy"]), Ok(Some(Task::Tidy(_)))));
        assert!(matches!(
            parse(&["report-check"]),
            Ok(Some(Task::ReportCheck(_)))
        ));
        assert!(matches!(
            parse(&["spec-check"]),
            Ok(Some(Task::SpecCheck(_)))
        ));
        assert_eq!(
            parse(&["fuzz", "--target", "nizk", "--minutes", "3"]).ok(),
            Some(Some(Task::Fuzz(fuzz::Args {
                target: Some("nizk".into()),
                minutes: Some(3),
                ..fuzz::Args::default()
            })))
        );
        assert_eq!(
            parse(&["mutants", "--crate", "shuffle"]).ok(),
            Some(Some(Task::Mutants(mutants::Args {
                krate: Some("shuffle".into()),
                timeout: 180,
                jobs: 1,
                ..mutants::Args::default()
            })))
        );
        for bad in [
            &["frobnicate"][..],
            &["demo", "--fast"],
            &["ci", "extra"],
            &["test-vectors", "--bogus"],
            &["tidy", "--fix"],
            &["fuzz", "--minutes", "1", "--seconds", "2"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?} accepted");
        }
        // `help` and `--help` are answered by clap itself (as a "display help" error).
        for help in [
            &["help"][..],
            &["--help"],
            &["help", "bench"],
            &["bench", "-h"],
        ] {
            let kind = parse(help).err().map(|e| e.kind());
            assert_eq!(kind, Some(clap::error::ErrorKind::DisplayHelp), "{help:?}");
        }
    }
}
