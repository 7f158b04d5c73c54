//! Rule 4: every crate has a README.md that its `lib.rs` includes as the crate doc.

use std::path::Path;

use super::{Report, crate_dirs, read, rel};

/// Whether `lib.rs` text includes `../README.md` as the crate doc.
fn includes_readme(lib: &str) -> bool {
    lib.lines().any(|l| {
        let compact: String = l.chars().filter(|c| !c.is_whitespace()).collect();
        compact == r#"#![doc=include_str!("../README.md")]"#
    })
}

pub(super) fn crate_readmes(root: &Path, r: &mut Report) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readme_include_is_recognised() {
        assert!(includes_readme(
            "//! x\n#![doc = include_str!( \"../README.md\" )]\n"
        ));
        assert!(!includes_readme("#![doc = include_str!(\"README.md\")]\n"));
    }
}
