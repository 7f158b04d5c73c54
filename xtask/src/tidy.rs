//! `cargo xtask tidy`: the repository's rules, checked from the files themselves (in the style
//! of rust-analyzer's tidy test). The same checks run as the `#[test]` `tidy::tests::tidy`, so
//! `cargo test --workspace` enforces them; `cargo xtask tidy` also prints the warnings.
//!
//! Every finding names the offending file (and line, where there is one):
//!
//! 1. **Design documents are indexed.** README.md's "Design documents" section links every
//!    `crates/*/docs/notes-*.md` and every `docs/*.md`, and every file it links exists.
//! 2. **Source files stay short.** No file under `crates/*/src` is over [`MAX_LINES`] lines
//!    unless one of its first [`MARKER_LINES`] lines is a comment with `long:` and the reason,
//!    e.g. `//! long: one generated table per curve; splitting it would only scatter it.`
//!    Files being split are listed in [`LONG_FILES_ALLOWLIST`]; an entry that is no longer
//!    needed is an error, so that list only shrinks.
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
//!
//! The checks read source text, not a syntax tree: braces, comments and string literals are
//! told apart by a small lexer ([`blank_comments_and_strings`]), which is enough for rules
//! about where text appears, and keeps xtask free of a Rust parser.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use regex::Regex;

/// `cargo xtask tidy` takes no options.
#[derive(Debug, Default, PartialEq, clap::Args)]
#[command(
    about = "Check the repository's rules (design-document index, file length, wire kinds \
             handled, crate READMEs, adversary hooks gated); also run by `cargo test`",
    long_about = "Checks the repository's rules and names the offending file of each \
                  finding: README.md's design-document list is complete; no file under \
                  crates/*/src is over 600 lines without a `long:` comment saying why; every \
                  verdict-proto wire Kind is handled by the server or the client; every crate's \
                  lib.rs includes its README.md as the crate doc; #[doc(hidden)] pub fns of \
                  verdict-proto are behind the `adversary` feature (a warning for now). The \
                  rules are documented in xtask/src/tidy.rs; `cargo test --workspace` runs the \
                  same checks."
)]
pub(crate) struct Args {}

/// The longest a file under `crates/*/src` may be without a `long:` comment.
pub(crate) const MAX_LINES: usize = 600;

/// How many of a long file's first lines are searched for its `long:` comment.
pub(crate) const MARKER_LINES: usize = 10;

/// Files over [`MAX_LINES`] lines that are exempt from rule 2 for now: being split in issue 14.
/// Paths are relative to the workspace root. Remove an entry when its file is split (tidy fails
/// while an entry is no longer needed); never add one for a new file: split it, or give it a
/// `long:` comment.
pub(crate) const LONG_FILES_ALLOWLIST: &[&str] = &[];

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
    design_documents(root, &mut r);
    long_files(root, &mut r);
    wire_kinds(root, &mut r);
    crate_readmes(root, &mut r);
    adversary_gate(root, &mut r);
    r
}

// ---------------------------------------------------------------------------------------------
// Files

/// `path` relative to `root`, with `/` separators (the form used in messages and the allowlist).
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

// ---------------------------------------------------------------------------------------------
// Rule 1: design documents

const DESIGN_HEADING: &str = "## Design documents";

/// The text of the Markdown section under `heading`, up to the next heading of its level or
/// above.
fn section<'a>(md: &'a str, heading: &str) -> Option<&'a str> {
    let start = md
        .match_indices(heading)
        .find(|(i, _)| *i == 0 || md[..*i].ends_with('\n'))
        .map(|(i, h)| i + h.len())?;
    let rest = &md[start..];
    let end = rest
        .match_indices("\n#")
        .find(|(i, _)| {
            let line = &rest[i + 1..];
            line.starts_with("# ") || line.starts_with("## ")
        })
        .map_or(rest.len(), |(i, _)| i);
    Some(&rest[..end])
}

/// The relative link targets `[..](target)` of some Markdown (fragments dropped, URLs skipped).
fn link_targets(md: &str) -> Vec<String> {
    // A fixed pattern; the regex crate is already what xtask uses for bench filters.
    let Ok(re) = Regex::new(r"\]\(([^)\s]+)\)") else {
        return Vec::new(); // unreachable: the pattern is a valid constant
    };
    re.captures_iter(md)
        .filter_map(|c| c.get(1))
        .map(|m| m.as_str().split('#').next().unwrap_or_default().to_owned())
        .filter(|t| !t.is_empty() && !t.contains("://"))
        .collect()
}

fn design_documents(root: &Path, r: &mut Report) {
    let readme = root.join("README.md");
    let Some(text) = read(root, &readme, r) else {
        return;
    };
    let Some(list) = section(&text, DESIGN_HEADING) else {
        r.error(format!("README.md: no \"{DESIGN_HEADING}\" section"));
        return;
    };
    let targets: BTreeSet<String> = link_targets(list).into_iter().collect();
    let mut documents = Vec::new();
    for c in crate_dirs(root, r) {
        let docs = c.join("docs");
        if docs.is_dir() {
            documents.extend(entries(root, &docs, r).into_iter().filter(|p| {
                is_md(p)
                    && p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("notes-"))
            }));
        }
    }
    documents.extend(
        entries(root, &root.join("docs"), r)
            .into_iter()
            .filter(|p| is_md(p)),
    );
    for d in documents {
        let d = rel(root, &d);
        if !targets.contains(&d) {
            r.error(format!(
                "{d}: not listed in README.md's \"Design documents\" section \
                 (add `- [`{d}`]({d}) — what it covers.`)"
            ));
        }
    }
    for t in &targets {
        if !root.join(t).exists() {
            r.error(format!(
                "README.md: the \"Design documents\" section links {t}, which does not exist"
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rule 2: long files

/// Whether one of the first [`MARKER_LINES`] lines is a comment with `long:` and a reason.
fn has_long_marker(text: &str) -> bool {
    text.lines().take(MARKER_LINES).any(|line| {
        let t = line.trim_start();
        let comment = t.starts_with("//") || t.starts_with("/*") || t.starts_with('*');
        comment
            && t.split_once("long:")
                .is_some_and(|(_, why)| !why.trim().trim_end_matches("*/").trim().is_empty())
    })
}

fn long_files(root: &Path, r: &mut Report) {
    let mut exempt_seen = BTreeSet::new();
    for c in crate_dirs(root, r) {
        for f in files_below(root, &c.join("src"), r) {
            // Non-text files (none today) have no lines to count.
            let Ok(text) = std::fs::read_to_string(&f) else {
                continue;
            };
            let name = rel(root, &f);
            let lines = text.lines().count();
            if lines <= MAX_LINES || has_long_marker(&text) {
                continue;
            }
            if LONG_FILES_ALLOWLIST.contains(&name.as_str()) {
                exempt_seen.insert(name);
                continue;
            }
            r.error(format!(
                "{name}: {lines} lines (more than {MAX_LINES}): split it, or say why it is one \
                 file in a comment with `long:` in its first {MARKER_LINES} lines"
            ));
        }
    }
    for entry in LONG_FILES_ALLOWLIST {
        if !exempt_seen.contains(*entry) {
            r.error(format!(
                "{entry}: listed in LONG_FILES_ALLOWLIST (xtask/src/tidy.rs) but no longer a \
                 long file without a `long:` comment (split, renamed or gone): remove the entry"
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rule 3: wire kinds

/// The variants of `pub enum Kind` in some Rust source, if it declares one.
fn kind_variants(code: &str) -> Option<Vec<String>> {
    let blank = blank_comments_and_strings(code);
    let start = blank.find("pub enum Kind")?;
    let body_start = start + blank[start..].find('{')? + 1;
    let body_len = blank[body_start..].find('}')?;
    let body = &blank[body_start..body_start + body_len];
    let variants = body
        .split(',')
        .map(|chunk| {
            // Attributes (`#[...]`) may precede a variant.
            let mut c = chunk.trim();
            while let Some(rest) = c.strip_prefix("#[") {
                c = rest.split_once(']').map_or("", |(_, after)| after).trim();
            }
            c.chars()
                .take_while(|ch| ch.is_alphanumeric() || *ch == '_')
                .collect::<String>()
        })
        .filter(|v| !v.is_empty())
        .collect();
    Some(variants)
}

/// Every `Kind::<Name>` outside comments and strings.
fn kind_uses(code: &str) -> BTreeSet<String> {
    let Ok(re) = Regex::new(r"\bKind::([A-Za-z_][A-Za-z0-9_]*)") else {
        return BTreeSet::new(); // unreachable: the pattern is a valid constant
    };
    let blank = blank_comments_and_strings(code);
    re.captures_iter(&blank)
        .filter_map(|c| c.get(1))
        .map(|m| m.as_str().to_owned())
        .collect()
}

fn wire_kinds(root: &Path, r: &mut Report) {
    let src = root.join(PROTO_SRC);
    let wire_files = files_below(root, &src.join("wire"), r);
    let mut found = None;
    for f in wire_files.iter().filter(|f| f.is_file()) {
        if let Some(v) = read(root, f, r).and_then(|text| kind_variants(&text)) {
            found = Some((rel(root, f), v));
            break;
        }
    }
    let Some((wire, variants)) = found else {
        r.error(format!(
            "{PROTO_SRC}/wire/: no `pub enum Kind` found (if it moved, update tidy's \
             wire-kind check in xtask/src/tidy.rs)"
        ));
        return;
    };
    let mut handlers = files_below(root, &src.join("server"), r);
    handlers.extend(files_below(root, &src.join("client"), r));
    let mut used = BTreeSet::new();
    for f in handlers.iter().filter(|f| f.is_file()) {
        if let Some(text) = read(root, f, r) {
            used.extend(kind_uses(&text));
        }
    }
    for v in variants {
        if !used.contains(&v) {
            r.error(format!(
                "{wire}: Kind::{v} is not matched anywhere in {PROTO_SRC}/server/ or \
                 {PROTO_SRC}/client/: a message kind nobody handles"
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rule 4: crate READMEs

/// Whether `lib.rs` text includes `../README.md` as the crate doc.
fn includes_readme(lib: &str) -> bool {
    lib.lines().any(|l| {
        let compact: String = l.chars().filter(|c| !c.is_whitespace()).collect();
        compact == r#"#![doc=include_str!("../README.md")]"#
    })
}

fn crate_readmes(root: &Path, r: &mut Report) {
    for c in crate_dirs(root, r) {
        let name = rel(root, &c);
        if !c.join("README.md").is_file() {
            r.error(format!("{name}/README.md: missing (every crate has one)"));
        }
        let lib = c.join("src").join("lib.rs");
        if !lib.is_file() {
            r.error(format!(
                "{name}/src/lib.rs: missing (a crate under crates/ is a library documented by \
                 its README)"
            ));
            continue;
        }
        if read(root, &lib, r).is_some_and(|text| !includes_readme(&text)) {
            r.error(format!(
                "{name}/src/lib.rs: does not include its README as the crate doc (add \
                 `#![doc = include_str!(\"../README.md\")]`)"
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rule 5: adversary hooks

/// Whether an attribute line is `#[cfg(...)]` / `#![cfg(...)]` requiring the adversary feature.
fn is_adversary_cfg(line: &str) -> bool {
    let compact: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    (compact.starts_with("#[cfg(") || compact.starts_with("#![cfg("))
        && compact.contains(&format!("feature=\"{ADVERSARY_FEATURE}\""))
        && !compact.contains("not(")
}

/// Whether a file gates itself with an inner `#![cfg(feature = "adversary")]`.
fn file_is_gated(code: &str) -> bool {
    code.lines()
        .any(|l| l.trim_start().starts_with("#![") && is_adversary_cfg(l))
}

/// Whether `code` declares `mod <name>;` under the adversary gate.
fn mod_decl_is_gated(code: &str, name: &str) -> bool {
    let lines: Vec<&str> = code.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        let decl = ["mod ", "pub mod ", "pub(crate) mod ", "pub(super) mod "]
            .iter()
            .any(|p| {
                t.strip_prefix(p)
                    .is_some_and(|rest| rest == format!("{name};"))
            });
        if decl {
            // The attributes and doc comments directly above the declaration.
            return lines[..i]
                .iter()
                .rev()
                .map(|l| l.trim())
                .take_while(|l| l.starts_with("#[") || l.starts_with("//"))
                .any(is_adversary_cfg);
        }
    }
    false
}

/// `(line, fn name)` of each `#[doc(hidden)] pub fn` of `code` not under the adversary gate
/// (on the item itself or an enclosing block). `file_gated`: the whole file is gated.
fn ungated_hidden_fns(code: &str, file_gated: bool) -> Vec<(usize, String)> {
    let blank = blank_comments_and_strings(code);
    // One entry per open brace: whether the item that opened it is gated.
    let mut open: Vec<bool> = Vec::new();
    // A gate attribute seen whose item has not started its block (or ended with `;`) yet.
    let mut gate_pending = false;
    let mut hidden_pending = false;
    let mut out = Vec::new();
    for (n, (raw, code_line)) in code.lines().zip(blank.lines()).enumerate() {
        let t = raw.trim();
        if t.starts_with("#[") || t.starts_with("#![") {
            gate_pending |= is_adversary_cfg(t);
            let compact: String = t.chars().filter(|c| !c.is_whitespace()).collect();
            hidden_pending |= compact == "#[doc(hidden)]";
            continue;
        }
        let c = code_line.trim();
        if c.is_empty() {
            continue; // comments and blank lines keep pending attributes
        }
        if hidden_pending {
            hidden_pending = false;
            let after_pub = c.strip_prefix("pub ").map(str::trim_start);
            let name = after_pub.and_then(|rest| {
                let rest = ["const ", "async ", "unsafe "]
                    .iter()
                    .fold(rest, |acc, q| acc.strip_prefix(q).unwrap_or(acc));
                rest.strip_prefix("fn ")
            });
            if let Some(name) = name {
                let gated = file_gated || gate_pending || open.iter().any(|g| *g);
                if !gated {
                    let ident = name
                        .chars()
                        .take_while(|ch| ch.is_alphanumeric() || *ch == '_')
                        .collect();
                    out.push((n + 1, ident));
                }
            }
        }
        for ch in c.chars() {
            match ch {
                '{' => {
                    open.push(gate_pending);
                    gate_pending = false;
                }
                '}' => {
                    open.pop();
                    gate_pending = false;
                }
                _ => {}
            }
        }
        if c.ends_with(';') {
            gate_pending = false;
        }
    }
    out
}

/// Whether a Cargo.toml declares `feature` in its `[features]` table.
fn declares_feature(manifest: &str, feature: &str) -> bool {
    let mut in_features = false;
    for line in manifest.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_features = t == "[features]";
        } else if in_features
            && t.strip_prefix(feature)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            return true;
        }
    }
    false
}

/// The file declaring the module of `file` (below `src`) and that module's name; `None` for
/// the crate root.
fn parent_module(src: &Path, file: &Path) -> Option<(PathBuf, String)> {
    let dir = file.parent()?;
    let stem = file.file_stem()?.to_string_lossy().into_owned();
    let (decl_dir, name) = if stem == "mod" {
        (
            dir.parent()?,
            dir.file_name()?.to_string_lossy().into_owned(),
        )
    } else if stem == "lib" && dir == src {
        return None;
    } else {
        (dir, stem)
    };
    let parent = if decl_dir == src {
        src.join("lib.rs")
    } else {
        let as_file = decl_dir.with_extension("rs");
        if as_file.is_file() {
            as_file
        } else {
            decl_dir.join("mod.rs")
        }
    };
    Some((parent, name))
}

/// Whether `file` (or a module it is inside) is compiled only with the adversary feature.
fn module_is_gated(src: &Path, file: &Path) -> bool {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    if file_is_gated(&text) {
        return true;
    }
    match parent_module(src, file) {
        Some((parent, name)) => {
            let ptext = std::fs::read_to_string(&parent).unwrap_or_default();
            mod_decl_is_gated(&ptext, &name) || module_is_gated(src, &parent)
        }
        None => false,
    }
}

fn adversary_gate(root: &Path, r: &mut Report) {
    let src = root.join(PROTO_SRC);
    let mut findings = Vec::new();
    for f in files_below(root, &src, r) {
        if f.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let Some(text) = read(root, &f, r) else {
            continue;
        };
        if module_is_gated(&src, &f) {
            continue;
        }
        for (line, name) in ungated_hidden_fns(&text, false) {
            findings.push(format!(
                "{}:{line}: `#[doc(hidden)] pub fn {name}` is not behind \
                 #[cfg(feature = \"{ADVERSARY_FEATURE}\")]",
                rel(root, &f)
            ));
        }
    }
    let manifest = root.join("crates/verdict-proto/Cargo.toml");
    if read(root, &manifest, r).is_some_and(|m| !declares_feature(&m, ADVERSARY_FEATURE)) {
        r.error(format!(
            "crates/verdict-proto/Cargo.toml: no `{ADVERSARY_FEATURE}` feature to gate the \
             simulator's misbehaviour switches with"
        ));
    }
    r.errors.extend(findings);
}

// ---------------------------------------------------------------------------------------------
// Lexing

/// `code` with every comment and string, byte-string and char literal replaced by spaces
/// (line breaks kept, so line numbers still match). Lifetimes are kept.
pub(crate) fn blank_comments_and_strings(code: &str) -> String {
    let cs: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        let next = cs.get(i + 1).copied();
        let prev = if i > 0 { Some(cs[i - 1]) } else { None };
        if c == '/' && next == Some('/') {
            while i < cs.len() && cs[i] != '\n' {
                blank(&mut out, cs[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            // Block comments nest in Rust.
            let mut depth = 0usize;
            while i < cs.len() {
                if cs[i] == '/' && cs.get(i + 1) == Some(&'*') {
                    depth += 1;
                    blank(&mut out, cs[i]);
                    blank(&mut out, '*');
                    i += 2;
                } else if cs[i] == '*' && cs.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    blank(&mut out, '*');
                    blank(&mut out, '/');
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, cs[i]);
                    i += 1;
                }
            }
        } else if c == 'r'
            && !prev.is_some_and(|p| ident(p) && p != 'b')
            && matches!(next, Some('"') | Some('#'))
            && raw_string_hashes(&cs, i + 1).is_some()
        {
            // r"..." / r#"..."# (and br"..."; the `b` was copied already, harmlessly).
            let hashes = raw_string_hashes(&cs, i + 1).unwrap_or(0);
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            let mut j = i + 2 + hashes; // past r, the hashes and the opening quote
            while j < cs.len() && !cs[j..].starts_with(&close) {
                j += 1;
            }
            let end = (j + close.len()).min(cs.len());
            for &ch in &cs[i..end] {
                blank(&mut out, ch);
            }
            i = end;
        } else if c == '"' {
            blank(&mut out, c);
            i += 1;
            while i < cs.len() && cs[i] != '"' {
                if cs[i] == '\\' {
                    blank(&mut out, cs[i]);
                    i += 1;
                }
                if i < cs.len() {
                    blank(&mut out, cs[i]);
                    i += 1;
                }
            }
            if i < cs.len() {
                blank(&mut out, cs[i]);
                i += 1;
            }
        } else if c == '\'' && (next == Some('\\') || cs.get(i + 2) == Some(&'\'')) {
            // A char literal ('x', '\n', '\u{7f}'); `'a` without a closing quote is a lifetime.
            blank(&mut out, c);
            i += 1;
            if cs.get(i) == Some(&'\\') {
                // The escaped character may itself be a quote: it never closes the literal.
                blank(&mut out, '\\');
                i += 1;
                if let Some(&escaped) = cs.get(i) {
                    blank(&mut out, escaped);
                    i += 1;
                }
            }
            while i < cs.len() && cs[i] != '\'' && cs[i] != '\n' {
                blank(&mut out, cs[i]);
                i += 1;
            }
            if i < cs.len() && cs[i] == '\'' {
                blank(&mut out, '\'');
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// If `cs[at..]` is the `#`s and opening quote of a raw string, the number of `#`s.
fn raw_string_hashes(cs: &[char], at: usize) -> Option<usize> {
    let hashes = cs[at.min(cs.len())..]
        .iter()
        .take_while(|c| **c == '#')
        .count();
    (cs.get(at + hashes) == Some(&'"')).then_some(hashes)
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
    ///    (files being split in issue 14 are in [`LONG_FILES_ALLOWLIST`] meanwhile).
    /// 3. Every `Kind` variant of verdict-proto's `wire/` is matched in `server/` or
    ///    `client/`.
    /// 4. Every crate under `crates/` has a README.md that its `lib.rs` includes as the crate
    ///    doc.
    /// 5. No `#[doc(hidden)] pub fn` in verdict-proto outside `#[cfg(feature = "adversary")]`
    ///    code.
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

    #[test]
    fn lexer_blanks_comments_and_literals_only() {
        let code = "let a = \"{ // }\"; // { comment\n/* { /* nested } */ } */ let b = '{';\n\
                    let c: &'static str = r#\"}\"#; fn f<'a>(x: &'a u8) { '\\'' }";
        let blank = blank_comments_and_strings(code);
        assert_eq!(blank.lines().count(), code.lines().count());
        assert_eq!(blank.matches('{').count(), 1, "{blank}");
        assert_eq!(blank.matches('}').count(), 1, "{blank}");
        assert!(
            blank.contains("&'static str") && blank.contains("<'a>"),
            "{blank}"
        );
        assert!(
            !blank.contains("comment") && !blank.contains("nested"),
            "{blank}"
        );
    }

    #[test]
    fn readme_sections_and_links() {
        let md = "# t\n## Design documents\n\n- [`a`](docs/A.md) x\n- [b](crates/b/docs/notes-b.md#s)\n- [w](https://x.invalid/y.md)\n## Next\n- [c](docs/C.md)\n";
        let s = section(md, DESIGN_HEADING).unwrap_or_default();
        assert_eq!(
            link_targets(s),
            ["docs/A.md", "crates/b/docs/notes-b.md"].map(String::from)
        );
        assert!(section("# only\n", DESIGN_HEADING).is_none());
    }

    #[test]
    fn long_marker_needs_a_comment_with_a_reason() {
        assert!(has_long_marker(
            "//! Module.\n//! long: one table per curve.\n"
        ));
        assert!(has_long_marker("/* long: generated */\n"));
        assert!(!has_long_marker("//! long:\n"));
        assert!(!has_long_marker("let long: u8 = 1;\n"));
        let late = format!("{}// long: too late\n", "\n".repeat(MARKER_LINES));
        assert!(!has_long_marker(&late));
    }

    #[test]
    fn kind_variants_and_uses() {
        let wire = "/// Kinds.\n#[repr(u8)]\npub enum Kind {\n    /// One.\n    One = 1,\n    \
                    // Two { is a comment }\n    #[doc(hidden)]\n    Two = 2,\n}\nimpl Kind {}\n";
        assert_eq!(kind_variants(wire), Some(vec!["One".into(), "Two".into()]));
        assert_eq!(kind_variants("enum Other {}"), None);
        let uses = kind_uses("match k { Kind::One => {} } // Kind::Two\nwire::Kind::Three");
        assert_eq!(uses, ["One", "Three"].map(String::from).into());
    }

    #[test]
    fn readme_include_is_recognised() {
        assert!(includes_readme(
            "//! x\n#![doc = include_str!( \"../README.md\" )]\n"
        ));
        assert!(!includes_readme("#![doc = include_str!(\"README.md\")]\n"));
    }

    #[test]
    fn hidden_fns_are_gated_by_item_block_or_file() {
        let code = r#"
impl A {
    #[doc(hidden)]
    pub fn open(&mut self) {}

    #[cfg(feature = "adversary")]
    #[doc(hidden)]
    pub fn item(&mut self) {}

    #[doc(hidden)]
    pub(crate) fn crate_only(&self) {}
}

#[cfg(feature = "adversary")]
impl<S> A<S>
where
    S: Clone,
{
    /// Doc.
    #[doc(hidden)]
    pub fn in_block(&mut self) { let s = "}"; }
}

#[cfg(feature = "adversary")]
use x::y;

impl B {
    #[doc(hidden)]
    pub const fn after_use() {}
}
"#;
        let found = ungated_hidden_fns(code, false);
        assert_eq!(found, vec![(4, "open".into()), (29, "after_use".into())]);
        assert!(ungated_hidden_fns(code, true).is_empty());
        assert!(file_is_gated(
            "//! x\n#![cfg(feature = \"adversary\")]\nfn a() {}"
        ));
        assert!(!file_is_gated(
            "#![cfg(not(feature = \"adversary\"))]\nfn a() {}"
        ));
        let parent =
            "mod a;\n/// Hooks.\n#[cfg(any(test, feature = \"adversary\"))]\nmod adversary;\n";
        assert!(mod_decl_is_gated(parent, "adversary"));
        assert!(!mod_decl_is_gated(parent, "a"));
    }

    #[test]
    fn features_and_parent_modules() {
        let manifest = "[package]\nadversary = 1\n[features]\ndefault = []\nadversary = []\n";
        assert!(declares_feature(manifest, "adversary"));
        assert!(!declares_feature(
            "[features]\nadversary-x = []\n",
            "adversary"
        ));
        let src = Path::new("/r/src");
        assert_eq!(
            parent_module(src, Path::new("/r/src/server/mod.rs")),
            Some((src.join("lib.rs"), "server".into()))
        );
        assert_eq!(
            parent_module(src, Path::new("/r/src/wire.rs")),
            Some((src.join("lib.rs"), "wire".into()))
        );
        assert_eq!(
            parent_module(src, Path::new("/r/src/server/round/mod.rs")),
            Some((src.join("server/mod.rs"), "round".into()))
        );
        assert_eq!(parent_module(src, Path::new("/r/src/lib.rs")), None);
    }
}
