//! Rule 5: verdict-proto's `#[doc(hidden)] pub fn` simulator hooks are compiled only with
//! the `adversary` feature, and the feature is declared.

use std::path::{Path, PathBuf};

use super::lexer::blank_comments_and_strings;
use super::{ADVERSARY_FEATURE, PROTO_SRC, Report, files_below, read, rel};

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

pub(super) fn adversary_gate(root: &Path, r: &mut Report) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
