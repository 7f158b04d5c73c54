//! Rule 1: README.md's "Design documents" section links every design document, and
//! every link in it exists.

use std::collections::BTreeSet;
use std::path::Path;

use regex::Regex;

use super::{Report, crate_dirs, entries, is_md, read, rel};

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

pub(super) fn design_documents(root: &Path, r: &mut Report) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
