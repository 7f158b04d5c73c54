//! `cargo xtask mutants`: mutation testing of the verifiers and checks with `cargo-mutants`.
//!
//! Each crate is mutated on its own and only its own tests run against each mutant (the
//! cargo-mutants default): a check must be pinned down by the crate that owns it, not by a test
//! three crates up. The files mutated per crate are the ones holding checks (issue 19, item 6);
//! `--all-files` widens that to the whole crate. Results land in
//! `target/mutants/<crate>/mutants.out/` and a caught/missed/unviable/timeout summary is printed
//! (and recorded by hand in `docs/SECURITY.md`).

use std::path::Path;
use std::process::Command;

/// The crates and, for each, the source files whose functions are checks.
const SCOPES: &[(&str, &[&str])] = &[
    (
        "verdict-nizk",
        &[
            "src/relation.rs",
            "src/statements.rs",
            "src/or.rs",
            "src/batch.rs",
            "src/sig.rs",
            "src/transcript.rs",
        ],
    ),
    (
        "verdict-shuffle",
        &[
            "src/simple.rs",
            "src/shuffle/verify.rs",
            "src/shuffle/statement.rs",
            "src/keyshuffle/*.rs",
        ],
    ),
    (
        "verdict-dcnet",
        &[
            "src/aggregate.rs",
            "src/verifiable.rs",
            "src/server_dleq.rs",
            "src/shared.rs",
            "src/hashing_generator/aggregate.rs",
            "src/hashing_generator/proofs.rs",
            "src/hashing_generator/suite_impl.rs",
            "src/elgamal/slot.rs",
            "src/elgamal/suite_impl.rs",
            "src/xor/mod.rs",
            "src/xor/pad_bit.rs",
            "src/pairing/slot.rs",
            "src/pairing/suite_impl.rs",
            "src/pairing/gt_table.rs",
        ],
    ),
    (
        "verdict-group",
        &[
            "src/codec/mod.rs",
            "src/ristretto255.rs",
            "src/p256/point.rs",
            "src/p256/scalar.rs",
            "src/bls12_381/curve.rs",
            "src/bls12_381/gt.rs",
            "src/bls12_381/scalar.rs",
        ],
    ),
    ("verdict-proto", &["src/blame.rs", "src/server/blame/*.rs"]),
];

/// `cargo xtask mutants [--crate C] [--timeout S] [--jobs J] [--all-files] [--list]`.
#[derive(Debug, Default, PartialEq, clap::Args)]
#[command(
    about = "Mutation testing of the verifiers and checks (cargo-mutants; slow: run it niced, \
             in the background)",
    long_about = "Runs cargo-mutants over the check-holding files of verdict-nizk, \
                  verdict-shuffle, verdict-dcnet, verdict-group and verdict-proto (or one crate \
                  with --crate), each against its own crate's tests, niced, and prints the \
                  caught/missed/unviable/timeout counts. Install the tool with \
                  `cargo install cargo-mutants --locked`. Results: target/mutants/<crate>/."
)]
pub(crate) struct Args {
    /// Only this crate (e.g. `verdict-nizk`; the `verdict-` prefix may be left out).
    #[arg(long = "crate", value_name = "C")]
    pub(crate) krate: Option<String>,
    /// Per-mutant test timeout in seconds.
    #[arg(long, default_value_t = 180)]
    pub(crate) timeout: u64,
    /// Parallel build/test jobs (each is a full copy of the tree: keep it low).
    #[arg(long, default_value_t = 1)]
    pub(crate) jobs: u32,
    /// Mutate every file of the crate, not only the check-holding ones.
    #[arg(long)]
    pub(crate) all_files: bool,
    /// Only list the mutants that would be tested.
    #[arg(long)]
    pub(crate) list: bool,
}

/// The scopes selected by `--crate` (all without it); `None` if it names no known crate.
fn selected(krate: Option<&str>) -> Option<Vec<(&'static str, &'static [&'static str])>> {
    match krate {
        None => Some(SCOPES.to_vec()),
        Some(name) => {
            let full = if name.starts_with("verdict-") {
                name.to_owned()
            } else {
                format!("verdict-{name}")
            };
            let found: Vec<_> = SCOPES.iter().filter(|(c, _)| *c == full).copied().collect();
            (!found.is_empty()).then_some(found)
        }
    }
}

/// The cargo-mutants arguments for one crate.
fn mutants_args(root: &Path, krate: &str, files: &[&str], args: &Args) -> Vec<String> {
    let mut out: Vec<String> = vec![
        "mutants".into(),
        "--package".into(),
        krate.into(),
        "--timeout".into(),
        args.timeout.to_string(),
        "--jobs".into(),
        args.jobs.to_string(),
        // The copy of the tree each mutant is built in skips ignored files: fuzz/'s corpora
        // and build output (large, and rewritten by a running fuzzer).
        "--gitignore=true".into(),
        "--output".into(),
        root.join("target/mutants")
            .join(krate)
            .to_string_lossy()
            .into_owned(),
    ];
    if !args.all_files {
        for f in files {
            out.push("--file".into());
            out.push(format!("crates/{krate}/{f}"));
        }
    }
    if args.list {
        out.push("--list".into());
    }
    out
}

/// Counts the mutants listed in one of cargo-mutants' outcome files (one per line).
fn count(dir: &Path, file: &str) -> usize {
    std::fs::read_to_string(dir.join(file))
        .map(|s| s.lines().filter(|l| !l.trim().is_empty()).count())
        .unwrap_or(0)
}

/// Runs the selected crates; returns whether every run completed (missed mutants do not fail
/// the task: they are findings to triage, recorded in `docs/SECURITY.md`).
pub(crate) fn run(root: &Path, args: &Args) -> bool {
    let Some(scopes) = selected(args.krate.as_deref()) else {
        eprintln!(
            "unknown crate {:?}; known: {}",
            args.krate,
            SCOPES
                .iter()
                .map(|(c, _)| *c)
                .collect::<Vec<_>>()
                .join(", ")
        );
        return false;
    };
    let mut ok = true;
    for (krate, files) in scopes {
        let cargo_args = mutants_args(root, krate, files, args);
        // cargo-mutants creates `mutants.out/` but not the directory it goes in.
        let out_parent = root.join("target/mutants").join(krate);
        if let Err(e) = std::fs::create_dir_all(&out_parent) {
            eprintln!("cannot create {}: {e}", out_parent.display());
            ok = false;
            continue;
        }
        eprintln!("$ nice cargo {}", cargo_args.join(" "));
        let status = Command::new("nice")
            .arg(crate::cargo_bin())
            .args(&cargo_args)
            .current_dir(root)
            .status();
        // cargo-mutants exits 2 when mutants were missed and 3 on timeouts: both are results.
        match status {
            Ok(s) if matches!(s.code(), Some(0 | 2 | 3)) => {}
            Ok(s) => {
                eprintln!(
                    "cargo mutants on {krate} failed ({s}); is it installed? `cargo install cargo-mutants --locked`"
                );
                ok = false;
                continue;
            }
            Err(e) => {
                eprintln!("could not run nice/cargo: {e}");
                ok = false;
                continue;
            }
        }
        if !args.list {
            let out = root.join("target/mutants").join(krate).join("mutants.out");
            println!(
                "{krate}: caught {}, missed {}, unviable {}, timeouts {}",
                count(&out, "caught.txt"),
                count(&out, "missed.txt"),
                count(&out, "unviable.txt"),
                count(&out, "timeout.txt"),
            );
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crate_selection() {
        assert_eq!(selected(None).map(|s| s.len()), Some(SCOPES.len()));
        assert_eq!(selected(Some("nizk")).map(|s| s[0].0), Some("verdict-nizk"));
        assert_eq!(
            selected(Some("verdict-shuffle")).map(|s| s[0].0),
            Some("verdict-shuffle")
        );
        assert!(selected(Some("node")).is_none());
    }

    #[test]
    fn arguments_restrict_files_unless_asked() {
        let args = Args {
            timeout: 60,
            jobs: 1,
            ..Args::default()
        };
        let a = mutants_args(Path::new("/r"), "verdict-nizk", &["src/or.rs"], &args);
        assert!(
            a.windows(2)
                .any(|w| w == ["--file", "crates/verdict-nizk/src/or.rs"])
        );
        assert!(a.windows(2).any(|w| w == ["--package", "verdict-nizk"]));
        let all = Args {
            all_files: true,
            ..args
        };
        let b = mutants_args(Path::new("/r"), "verdict-nizk", &["src/or.rs"], &all);
        assert!(!b.iter().any(|x| x == "--file"));
    }
}
