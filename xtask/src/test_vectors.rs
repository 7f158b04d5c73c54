//! `cargo xtask test-vectors [--check]`: write the known-answer vectors to `test-vectors/`, or
//! regenerate them in memory and fail on any difference.

use std::path::Path;

use verdict_bench::vectors::generate_all;

/// Runs the task; returns whether it succeeded.
pub(crate) fn run(root: &Path, check: bool) -> bool {
    let dir = root.join("test-vectors");
    let files = generate_all();
    if check {
        let mut ok = true;
        for f in &files {
            let on_disk = std::fs::read_to_string(dir.join(&f.name)).unwrap_or_default();
            if on_disk != f.render() {
                eprintln!("test-vectors/{}: differs from the generator", f.name);
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
