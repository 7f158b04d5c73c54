//! Rule 2: no file under `crates/*/src` is over [`MAX_LINES`] lines without a `long:`
//! comment saying why. (There is no allowlist: the last files over the limit were split in
//! issue 14; a new long file is split, or says why it is one.)

use std::path::Path;

use super::{Report, crate_dirs, files_below, rel};

/// The longest a file under `crates/*/src` may be without a `long:` comment.
pub(crate) const MAX_LINES: usize = 600;

/// How many of a long file's first lines are searched for its `long:` comment.
pub(crate) const MARKER_LINES: usize = 10;

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

pub(super) fn long_files(root: &Path, r: &mut Report) {
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
            r.error(format!(
                "{name}: {lines} lines (more than {MAX_LINES}): split it, or say why it is one \
                 file in a comment with `long:` in its first {MARKER_LINES} lines"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
