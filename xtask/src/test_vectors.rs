//! `cargo xtask test-vectors [--check]`: write the known-answer vectors to `test-vectors/`, or
//! regenerate them in memory and fail on any difference.

use std::path::Path;

use verdict_vectors::generate_all;

/// Options of `cargo xtask test-vectors`.
#[derive(Debug, Default, PartialEq, clap::Args)]
#[command(
    about = "Write the known-answer vectors to test-vectors/, or check that the files match \
             the generator",
    long_about = "Writes the known-answer vectors of crates/verdict-vectors (format: that \
                  crate's README) to test-vectors/. `cargo test --workspace` re-verifies every \
                  vector through the public APIs."
)]
pub(crate) struct Args {
    /// Write nothing; fail if a file in test-vectors/ differs from the generator
    ///
    /// The vectors are regenerated in memory and compared byte for byte with the files (what CI
    /// runs).
    #[arg(long)]
    pub(crate) check: bool,
}

/// Runs the task; returns whether it succeeded.
pub(crate) fn run(root: &Path, args: &Args) -> bool {
    let dir = root.join("test-vectors");
    let files = generate_all();
    if args.check {
        let mut ok = true;
        for f in &files {
            match std::fs::read_to_string(dir.join(&f.name)) {
                Ok(on_disk) if on_disk == f.render() => {}
                Ok(_) => {
                    eprintln!("test-vectors/{}: differs from the generator", f.name);
                    ok = false;
                }
                Err(e) => {
                    eprintln!("test-vectors/{}: cannot read it: {e}", f.name);
                    ok = false;
                }
            }
        }
        // A vector file the generator no longer writes is stale too (a renamed or removed
        // family would otherwise linger, unchecked, next to the real ones).
        for name in json_files(&dir) {
            if !files.iter().any(|f| f.name == name) {
                eprintln!("test-vectors/{name}: not written by the generator (stale?)");
                ok = false;
            }
        }
        if ok {
            eprintln!("{} vector files are up to date", files.len());
        } else {
            eprintln!("run `cargo xtask test-vectors` to regenerate");
        }
        return ok;
    }
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("cannot create {}: {e}", dir.display());
        return false;
    }
    for f in &files {
        let path = dir.join(&f.name);
        if let Err(e) = std::fs::write(&path, f.render()) {
            eprintln!("cannot write {}: {e}", path.display());
            return false;
        }
        eprintln!("wrote {}", path.display());
    }
    true
}

/// The `*.json` file names in `dir` (the README and anything else are not vectors).
fn json_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.ends_with(".json"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}
