//! Rule 3: every verdict-proto wire `Kind` is matched by the server or the client.

use std::collections::BTreeSet;
use std::path::Path;

use regex::Regex;

use super::lexer::blank_comments_and_strings;
use super::{PROTO_SRC, Report, files_below, read, rel};

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

pub(super) fn wire_kinds(root: &Path, r: &mut Report) {
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
             wire-kind check in xtask/src/tidy/wire_kinds.rs)"
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_variants_and_uses() {
        let wire = "/// Kinds.\n#[repr(u8)]\npub enum Kind {\n    /// One.\n    One = 1,\n    \
                    // Two { is a comment }\n    #[doc(hidden)]\n    Two = 2,\n}\nimpl Kind {}\n";
        assert_eq!(kind_variants(wire), Some(vec!["One".into(), "Two".into()]));
        assert_eq!(kind_variants("enum Other {}"), None);
        let uses = kind_uses("match k { Kind::One => {} } // Kind::Two\nwire::Kind::Three");
        assert_eq!(uses, ["One", "Three"].map(String::from).into());
    }
}
