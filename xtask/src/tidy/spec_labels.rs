//! Rule 7: every label and domain string of the protocol crates is in the specification.
//!
//! An implementation written from `spec/` can only interoperate if every byte string that
//! enters a transcript, a key derivation or a hash is written down there. The rule extracts
//! from the non-test sources of [`SPEC_CRATES`]:
//!
//! - every non-empty byte-string literal `b"..."` (in these crates they are all transcript
//!   labels, context field labels, statement names, purposes, DSTs or wire tags);
//! - every `&str` constant whose name says it is a label (`…CONTEXT`, `…DOMAIN`, `…DST`,
//!   `…LABEL`, `…PURPOSE`, `…PROTOCOL`), e.g. blake3 key-derivation contexts;
//! - every string literal passed to a key-derivation or hashing call ([`KDF_CALLS`]).
//!
//! and fails naming each one that `spec/*.md` does not contain as a double-quoted string
//! (`"ctx/round"`), the way the specification writes labels. Test code (`#[cfg(test)]` items,
//! `tests.rs`, `tests_*.rs`, `testing.rs`, `testing/`, the simulator `sim/`) is skipped: its
//! labels are not part of the protocol.

use std::collections::BTreeMap;
use std::path::Path;

use regex::Regex;

use super::lexer::blank_comments_and_strings;
use super::{Report, entries, files_below, is_md, read, rel};

/// The crates whose bytes the specification describes.
pub(super) const SPEC_CRATES: &[&str] = &[
    "verdict-group",
    "verdict-nizk",
    "verdict-shuffle",
    "verdict-dcnet",
    "verdict-proto",
];

/// Calls whose string-literal arguments are key-derivation contexts or hash DSTs.
const KDF_CALLS: &[&str] = &[
    "new_derive_key",
    "derive_key",
    "hash_to_group",
    "hash_to_scalar",
    "uniform_bytes",
    "xof",
];

/// Source paths (relative to a crate's `src/`) that hold only test or simulation code.
fn is_test_path(rel_to_src: &str) -> bool {
    rel_to_src.split('/').any(|c| {
        matches!(c, "tests.rs" | "testing.rs" | "testing" | "tests" | "sim")
            || (c.starts_with("tests_") && c.ends_with(".rs"))
    })
}

/// Where `blank` (code with comments and literals blanked) has `#[cfg(test)]` items: from the
/// attribute to the close of the item's first brace (or its `;`). Char indices.
fn test_regions(blank: &[char]) -> Vec<(usize, usize)> {
    let attr: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + attr.len() <= blank.len() {
        if blank[i..].starts_with(&attr) {
            let start = i;
            let mut j = i + attr.len();
            while j < blank.len() && blank[j] != '{' && blank[j] != ';' {
                j += 1;
            }
            if j < blank.len() && blank[j] == '{' {
                let mut depth = 0usize;
                while j < blank.len() {
                    match blank[j] {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
            }
            out.push((start, j.min(blank.len())));
            i = j + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// The string literal whose opening quote is at `cs[at]`: its (unescaped) text and the index
/// past its closing quote.
fn literal_at(cs: &[char], at: usize) -> (String, usize) {
    let mut s = String::new();
    let mut i = at + 1;
    while i < cs.len() && cs[i] != '"' {
        if cs[i] == '\\' && i + 1 < cs.len() {
            i += 1;
            match cs[i] {
                'n' => s.push('\n'),
                't' => s.push('\t'),
                '0' => s.push('\0'),
                'x' if i + 2 < cs.len() => {
                    let hex: String = cs[i + 1..i + 3].iter().collect();
                    s.push(u8::from_str_radix(&hex, 16).map_or('?', char::from));
                    i += 2;
                }
                c => s.push(c),
            }
        } else {
            s.push(cs[i]);
        }
        i += 1;
    }
    (s, i + 1)
}

fn ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The label and domain strings of one source file, each with the line it is on.
pub(super) fn labels(code: &str) -> Vec<(usize, String)> {
    let cs: Vec<char> = code.chars().collect();
    let blank: Vec<char> = blank_comments_and_strings(code).chars().collect();
    let regions = test_regions(&blank);
    let in_test = |i: usize| regions.iter().any(|&(a, b)| a <= i && i <= b);
    let line_of = |i: usize| cs[..i].iter().filter(|&&c| c == '\n').count() + 1;
    let is_code = |i: usize| blank.get(i) == cs.get(i);
    let mut out = Vec::new();

    // Byte-string literals in code: the lexer keeps the `b` and blanks from the quote on.
    for i in 0..cs.len().saturating_sub(1) {
        let starts = cs[i] == 'b'
            && cs[i + 1] == '"'
            && is_code(i)
            && !is_code(i + 1)
            && (i == 0 || !ident_char(cs[i - 1]));
        if starts && !in_test(i) {
            let (text, _) = literal_at(&cs, i + 1);
            if !text.is_empty() {
                out.push((line_of(i), text));
            }
        }
    }

    // `&str` label constants.
    let blank_s: String = blank.iter().collect();
    let Ok(konst) = Regex::new(
        r"const\s+([A-Z0-9_]*(?:CONTEXT|DOMAIN|DST|LABEL|PURPOSE|PROTOCOL)[A-Z0-9_]*)\s*:\s*&(?:'static\s+)?str\s*=",
    ) else {
        return out; // unreachable: the pattern is a valid constant
    };
    for m in konst.find_iter(&blank_s) {
        // The literal itself is blanked: find its quote in the source.
        let mut at = blank_s[..m.end()].chars().count();
        while cs.get(at).is_some_and(|c| c.is_whitespace()) {
            at += 1;
        }
        if cs.get(at) == Some(&'"') && !in_test(at) {
            out.push((line_of(at), literal_at(&cs, at).0));
        }
    }

    // String literals passed to key-derivation and hashing calls.
    let pattern = format!(r"\b(?:{})\s*(?:::<[^>]*>)?\s*\(", KDF_CALLS.join("|"));
    let Ok(call) = Regex::new(&pattern) else {
        return out; // unreachable: the pattern is built from fixed names
    };
    for m in call.find_iter(&blank_s) {
        let open = blank_s[..m.end()].chars().count() - 1;
        let mut depth = 0usize;
        let mut j = open;
        while j < blank.len() {
            match blank[j] {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            if cs[j] == '"' && !is_code(j) {
                // Skip the whole literal; byte strings were collected above.
                let (text, end) = literal_at(&cs, j);
                let byte_string = j > 0 && cs[j - 1] == 'b';
                if !text.is_empty() && !byte_string && !in_test(j) {
                    out.push((line_of(j), text));
                }
                j = end;
                continue;
            }
            j += 1;
        }
    }
    out
}

/// Whether the specification text writes `label` as a double-quoted string.
fn documented(spec: &str, label: &str) -> bool {
    spec.contains(&format!("\"{label}\""))
}

/// The text of every `spec/*.md`.
fn spec_text(root: &Path, r: &mut Report) -> Option<String> {
    let dir = root.join("spec");
    if !dir.is_dir() {
        r.error("spec/: missing (the specification every label must appear in)");
        return None;
    }
    let mut text = String::new();
    for p in entries(root, &dir, r).into_iter().filter(|p| is_md(p)) {
        text.push_str(&read(root, &p, r)?);
        text.push('\n');
    }
    Some(text)
}

/// Every label of `SPEC_CRATES` missing from `spec`, with the first place it occurs.
pub(super) fn missing_labels(root: &Path, spec: &str, r: &mut Report) -> BTreeMap<String, String> {
    let mut missing = BTreeMap::new();
    for (label, at) in all_labels(root, r) {
        if !documented(spec, &label) {
            missing.insert(label, at);
        }
    }
    missing
}

/// Every label of the protocol crates (sorted), for the fuzzers' dictionary: suite ids and wire
/// tags among them are bytes a decoder compares against.
pub(crate) fn protocol_labels(root: &Path) -> Vec<String> {
    all_labels(root, &mut Report::default())
        .into_keys()
        .collect()
}

/// Every label of `SPEC_CRATES`, with the first place it occurs.
fn all_labels(root: &Path, r: &mut Report) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    for krate in SPEC_CRATES {
        let src = root.join("crates").join(krate).join("src");
        for f in files_below(root, &src, r) {
            let Ok(inner) = f.strip_prefix(&src) else {
                continue;
            };
            let inner = inner.to_string_lossy().replace('\\', "/");
            if f.extension().is_none_or(|e| e != "rs") || is_test_path(&inner) {
                continue;
            }
            let Some(code) = read(root, &f, r) else {
                continue;
            };
            for (line, label) in labels(&code) {
                found
                    .entry(label)
                    .or_insert_with(|| format!("{}:{line}", rel(root, &f)));
            }
        }
    }
    found
}

pub(super) fn spec_labels(root: &Path, r: &mut Report) {
    let Some(spec) = spec_text(root, r) else {
        return;
    };
    for (label, at) in missing_labels(root, &spec, r) {
        r.error(format!(
            "{at}: the label {label:?} is not in spec/*.md (write it there as \"{label}\" \
             where its bytes are specified)"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FAKE: &str = r#"
//! Docs mention b"not-a-label" in a comment.
const PURPOSE: &[u8] = b"fake/purpose";
const TAG: &[u8; 4] = b"tag1";
const SESSION_CONTEXT: &str = "fake session id v1";
const MESSAGE: &str = "an error text, not a label";
fn f(t: &mut Transcript) {
    t.append_message(b"fake/statement", b"schnorr");
    let k = blake3::derive_key("fake pair v1", &m);
    let p = G::hash_to_group(b"fake/dst", &x).expect("not a label");
    let s = "plain string";
}
#[cfg(test)]
mod tests {
    fn g(t: &mut Transcript) { t.append_message(b"test-only", b""); }
}
"#;

    #[test]
    fn finds_every_label_and_nothing_else() {
        let found: Vec<String> = labels(FAKE).into_iter().map(|(_, l)| l).collect();
        assert_eq!(
            found,
            [
                "fake/purpose",
                "tag1",
                "fake/statement",
                "schnorr",
                "fake/dst",
                "fake session id v1",
                "fake pair v1"
            ],
            "{found:?}"
        );
        let lines: Vec<usize> = labels(FAKE).into_iter().map(|(l, _)| l).collect();
        assert_eq!(lines, [3, 4, 8, 8, 10, 5, 9]);
    }

    #[test]
    fn a_missing_label_fails_and_a_present_one_passes() {
        let dir = std::env::temp_dir().join(format!("verdict-tidy-spec-{}", std::process::id()));
        let src = dir.join("crates/verdict-nizk/src");
        std::fs::create_dir_all(&src).expect("temp dir");
        std::fs::create_dir_all(dir.join("spec")).expect("temp dir");
        std::fs::write(src.join("lib.rs"), FAKE).expect("write");
        let all = r#"`"fake/purpose"` `"tag1"` `"fake/statement"` `"schnorr"` `"fake/dst"`
`"fake session id v1"` `"fake pair v1"`"#;
        std::fs::write(dir.join("spec/README.md"), all).expect("write");
        let mut r = Report::default();
        spec_labels(&dir, &mut r);
        assert!(r.errors.is_empty(), "{:?}", r.errors);

        // Drop one label from the spec: exactly that one is reported, with its place.
        std::fs::write(dir.join("spec/README.md"), all.replace("\"tag1\"", "tag1")).expect("w");
        let mut r = Report::default();
        spec_labels(&dir, &mut r);
        assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
        assert!(
            r.errors[0].starts_with("crates/verdict-nizk/src/lib.rs:4:")
                && r.errors[0].contains("\"tag1\""),
            "{:?}",
            r.errors
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
