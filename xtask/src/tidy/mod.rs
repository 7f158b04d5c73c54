//! `cargo xtask tidy`: the repository's rules, checked from the files themselves (in the style
//! of rust-analyzer's tidy test). The same checks run as the `#[test]` `tidy::tests::tidy`, so
//! `cargo test --workspace` enforces them; `cargo xtask tidy` also prints the warnings.
//!
//! Every finding names the offending file (and line, where there is one):
//!
//! 1. **Design documents are indexed.** README.md's "Design documents" section links every
//!    `crates/*/docs/notes-*.md` and every `docs/*.md`, and every file it links exists.
//! 2. **Source files stay short.** No file under `crates/*/src` is over [`MAX_LINES`](long_files::MAX_LINES) lines
//!    unless one of its first [`MARKER_LINES`](long_files::MARKER_LINES) lines is a comment with `long:` and the reason,
//!    e.g. `//! long: one generated table per curve; splitting it would only scatter it.`
//! 3. **Every wire kind is handled.** Each variant of `pub enum Kind` in
//!    `crates/verdict-proto/src/wire/` appears as `Kind::<Variant>` (outside comments) in
//!    `crates/verdict-proto/src/server/` or `crates/verdict-proto/src/client/`.
//! 4. **A crate's doc is its README.** Every crate under `crates/` has a README.md, and its
//!    `src/lib.rs` has `#![doc = include_str!("../README.md")]`, so docs.rs and the repository
//!    show the same text.
//! 5. **Adversary hooks are gated.** No `#[doc(hidden)] pub fn` in `crates/verdict-proto/src`
//!    outside code under `#[cfg(feature = "adversary")]` (on the function, an enclosing block
//!    or module, or the file's `mod` declaration): simulator misbehaviour switches must not be
//!    part of a production build.
//! 6. **No import cycles.** Within a crate, the modules' uses of each other (other than of
//!    their own ancestors) form no cycle (see [`cycles`]).
//! 7. **Every label is specified.** Every label and domain string of the protocol crates
//!    (byte-string literals, `&str` label constants, key-derivation and hash DST literals in
//!    their non-test sources) appears double-quoted in `spec/*.md` (see [`spec_labels`]).
//!
//! The checks read source text, not a syntax tree: braces, comments and string literals are
//! told apart by a small lexer ([`lexer::blank_comments_and_strings`]), which is enough for rules
//! about where text appears, and keeps xtask free of a Rust parser.

mod adversary;
mod cycles;
mod docs;
mod lexer;
mod long_files;
mod readmes;
mod spec_labels;
pub(crate) use spec_labels::protocol_labels;
mod wire_kinds;

use std::path::{Path, PathBuf};

/// `cargo xtask tidy` takes no options.
#[derive(Debug, Default, PartialEq, clap::Args)]
#[command(
    about = "Check the repository's rules (design-document index, file length, wire kinds \
             handled, crate READMEs, adversary hooks gated, no import cycles, every label in spec/); also run by `cargo test`",
    long_about = "Checks the repository's rules and names the offending file of each \
                  finding: README.md's design-document list is complete; no file under \
                  crates/*/src is over 600 lines without a `long:` comment saying why; every \
                  verdict-proto wire Kind is handled by the server or the client; every crate's \
                  lib.rs includes its README.md as the crate doc; #[doc(hidden)] pub fns of \
                  verdict-proto are behind the `adversary` feature; no import cycles between a \
                  crate's modules; every label and domain string of the protocol crates \
                  appears in spec/*.md. The rules are documented in xtask/src/tidy/; `cargo test --workspace` runs the \
                  same checks."
)]
pub(crate) struct Args {}

/// The cargo feature that gates verdict-proto's adversary hooks.
const ADVERSARY_FEATURE: &str = "adversary";

const PROTO_SRC: &str = "crates/verdict-proto/src";

/// What the checks found. Each message starts with the offending path.
#[derive(Debug, Default)]
pub(crate) struct Report {
    pub(crate) errors: Vec<String>,
    pub(crate) warnings: Vec<String>,
    pub(crate) notes: Vec<String>,
}

impl Report {
    fn error(&mut self, msg: impl Into<String>) {
        self.errors.push(msg.into());
    }

    /// Prints warnings and notes, then errors, to stderr.
    fn print(&self) {
        for w in &self.warnings {
            eprintln!("warning: {w}");
        }
        for n in &self.notes {
            eprintln!("note: {n}");
        }
        for e in &self.errors {
            eprintln!("error: {e}");
        }
    }
}

/// Runs the task; returns whether every rule holds (warnings do not fail it).
pub(crate) fn run(root: &Path, _: &Args) -> bool {
    let report = check(root);
    report.print();
    eprintln!(
        "tidy: {} errors, {} warnings",
        report.errors.len(),
        report.warnings.len()
    );
    report.errors.is_empty()
}

/// Every check, over the workspace at `root`.
pub(crate) fn check(root: &Path) -> Report {
    let mut r = Report::default();
    docs::design_documents(root, &mut r);
    long_files::long_files(root, &mut r);
    wire_kinds::wire_kinds(root, &mut r);
    readmes::crate_readmes(root, &mut r);
    adversary::adversary_gate(root, &mut r);
    cycles::import_cycles(root, &mut r);
    spec_labels::spec_labels(root, &mut r);
    r
}

// ---------------------------------------------------------------------------------------------
// Files

/// `path` relative to `root`, with `/` separators (the form used in messages).
fn rel(root: &Path, path: &Path) -> String {
    let p = path.strip_prefix(root).unwrap_or(path);
    p.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Reads a file, recording an error naming it if it cannot be read.
fn read(root: &Path, path: &Path, r: &mut Report) -> Option<String> {
    match std::fs::read_to_string(path) {
        Ok(s) => Some(s),
        Err(e) => {
            r.error(format!("{}: cannot read it: {e}", rel(root, path)));
            None
        }
    }
}

/// The entries of `dir`, sorted; an unreadable directory is an error naming it.
fn entries(root: &Path, dir: &Path, r: &mut Report) -> Vec<PathBuf> {
    match std::fs::read_dir(dir) {
        Ok(it) => {
            let mut v: Vec<PathBuf> = it.flatten().map(|e| e.path()).collect();
            v.sort();
            v
        }
        Err(e) => {
            r.error(format!("{}: cannot list it: {e}", rel(root, dir)));
            Vec::new()
        }
    }
}

/// Every file below `dir` (recursively), sorted. A missing `dir` has none.
fn files_below(root: &Path, dir: &Path, r: &mut Report) -> Vec<PathBuf> {
    if !dir.is_dir() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for p in entries(root, dir, r) {
        if p.is_dir() {
            out.extend(files_below(root, &p, r));
        } else {
            out.push(p);
        }
    }
    out
}

/// The crates: directories under `crates/` with a Cargo.toml.
fn crate_dirs(root: &Path, r: &mut Report) -> Vec<PathBuf> {
    entries(root, &root.join("crates"), r)
        .into_iter()
        .filter(|d| d.join("Cargo.toml").is_file())
        .collect()
}

fn is_md(p: &Path) -> bool {
    p.is_file() && p.extension().is_some_and(|e| e == "md")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The repository's rules (see the module documentation for each):
    ///
    /// 1. README.md's "Design documents" section lists every `crates/*/docs/notes-*.md` and
    ///    every `docs/*.md`.
    /// 2. No file under `crates/*/src` is over 600 lines unless its first 10 lines contain a
    ///    comment with the word `long:` explaining why, for example
    ///    `//! long: the whole table of constants for one curve; splitting it helps nobody.`
    /// 3. Every `Kind` variant of verdict-proto's `wire/` is matched in `server/` or
    ///    `client/`.
    /// 4. Every crate under `crates/` has a README.md that its `lib.rs` includes as the crate
    ///    doc.
    /// 5. No `#[doc(hidden)] pub fn` in verdict-proto outside `#[cfg(feature = "adversary")]`
    ///    code.
    /// 6. No import cycles between the modules of a crate.
    /// 7. Every label and domain string of the protocol crates is in `spec/*.md`.
    #[test]
    fn tidy() {
        let report = check(&crate::workspace_root());
        report.print();
        assert!(
            report.errors.is_empty(),
            "tidy found {} problems (`cargo xtask tidy` reports them too):\n{}",
            report.errors.len(),
            report.errors.join("\n")
        );
    }
}
