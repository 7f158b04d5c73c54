//! Rule 6: no import cycles between the modules of a crate.
//!
//! A module *uses* another when its code names a path into it (`crate::a::b::X`,
//! `super::b::X`, or a `use` tree such as `crate::{a::X, b::{c::Y}}`). Uses of a module's own
//! ancestors (`super::X` from a child, the usual way a submodule reaches its parent's types)
//! and of the crate root are not counted: a parent declares its children and children name
//! their parent's items, so counting those would make every module tree a cycle. What is
//! left is the dependency graph between sibling concerns, and it must be acyclic: two
//! modules that need each other are one concern split in the wrong place (as `policy.rs` and
//! `slot.rs` of verdict-proto were). `#[cfg(test)] mod tests { .. }` blocks are ignored: tests
//! may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::lexer::blank_comments_and_strings;
use super::{Report, crate_dirs, files_below, read, rel};

/// A module path inside its crate (`[]` is the crate root).
type ModPath = Vec<String>;

/// The module that file `file` (below `src`) defines.
fn module_of(src: &Path, file: &Path) -> Option<ModPath> {
    let relative = file.strip_prefix(src).ok()?;
    let mut parts: ModPath = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    if !(stem == "mod" || (parts.is_empty() && (stem == "lib" || stem == "main"))) {
        parts.push(stem.to_owned());
    }
    Some(parts)
}

/// `code` (already blanked) without its `#[cfg(test)]`-gated `mod tests { .. }` blocks.
fn without_test_modules(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        let after_attr = &rest[at + "#[cfg(test)]".len()..];
        let trimmed = after_attr.trim_start();
        let is_mod = trimmed.starts_with("mod ") && {
            let header = trimmed.split('{').next().unwrap_or_default();
            !header.contains(';')
        };
        if !is_mod {
            out.push_str(&rest[..at + 1]);
            rest = &rest[at + 1..];
            continue;
        }
        out.push_str(&rest[..at]);
        let Some(open) = after_attr.find('{') else {
            break;
        };
        let mut depth = 0usize;
        let mut end = after_attr.len();
        for (i, ch) in after_attr[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        // Keep the line breaks so later line numbers still match.
        out.extend(after_attr[..end].chars().filter(|c| *c == '\n'));
        rest = &after_attr[end..];
    }
    out.push_str(rest);
    out
}

/// A path-parsing cursor over blanked source text.
struct Paths<'a> {
    s: &'a [u8],
    i: usize,
}

impl Paths<'_> {
    fn skip_ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.s[self.i..].starts_with(token.as_bytes()) {
            self.i += token.len();
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Option<String> {
        self.skip_ws();
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_')
        {
            self.i += 1;
        }
        (self.i > start).then(|| String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    /// Reads the rest of a path after `crate` / `super` (a `::`-separated tail, possibly
    /// ending in a `use` group), appending every full path it names to `out`.
    fn tail(&mut self, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut path = prefix.to_vec();
        while self.eat("::") {
            if self.eat("{") {
                loop {
                    self.skip_ws();
                    if self.eat("}") || self.i >= self.s.len() {
                        return;
                    }
                    match self.ident() {
                        Some(first) => {
                            let mut inner = path.clone();
                            inner.push(first);
                            self.tail(&inner, out);
                        }
                        None => self.i += 1, // `*`, `self`, `,` and the like
                    }
                    self.eat(",");
                }
            }
            match self.ident() {
                Some(seg) => path.push(seg),
                None => break, // `::*` or `::<T>`
            }
        }
        out.push(path);
    }
}

/// Every path starting with `crate::` or `super::` in blanked `code`, with its line (1-based),
/// as written: `["crate", "a", "B"]`, `["super", "super", "x"]`.
fn paths_in(code: &str) -> Vec<(usize, Vec<String>)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0
            || !(bytes[i - 1].is_ascii_alphanumeric()
                || bytes[i - 1] == b'_'
                || bytes[i - 1] == b':');
        let word = ["crate", "super"].into_iter().find(|w| {
            boundary
                && code[i..].starts_with(w)
                && code[i + w.len()..].trim_start().starts_with("::")
        });
        let Some(word) = word else {
            i += 1;
            continue;
        };
        let line = code[..i].matches('\n').count() + 1;
        let mut p = Paths {
            s: bytes,
            i: i + word.len(),
        };
        let mut found = Vec::new();
        p.tail(&[word.to_owned()], &mut found);
        out.extend(found.into_iter().map(|f| (line, f)));
        i = p.i.max(i + 1);
    }
    out
}

/// The module a path written in module `from` points into: the longest prefix of the resolved
/// path that is a module. (`super` is the parent *module*, whether `from` is `a/b.rs` or
/// `a/b/mod.rs`.)
fn target(path: &[String], from: &ModPath, modules: &BTreeSet<ModPath>) -> Option<ModPath> {
    let mut segs = path.iter().peekable();
    let mut full: ModPath = if segs.peek().is_some_and(|s| *s == "crate") {
        segs.next();
        Vec::new()
    } else {
        let mut base = from.clone();
        while segs.peek().is_some_and(|s| *s == "super") {
            segs.next();
            base.pop()?;
        }
        base
    };
    full.extend(segs.cloned());
    (0..=full.len())
        .rev()
        .map(|k| full[..k].to_vec())
        .find(|m| modules.contains(m))
}

/// Strongly connected components with more than one module (Tarjan's algorithm; its
/// recursion is as deep as the longest dependency chain, a few dozen modules at most).
fn cycles(edges: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct T<'a> {
        edges: &'a BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'a ModPath, usize>,
        low: BTreeMap<&'a ModPath, usize>,
        stack: Vec<&'a ModPath>,
        on: BTreeSet<&'a ModPath>,
        out: Vec<Vec<ModPath>>,
    }
    fn lower<'a>(low: &mut BTreeMap<&'a ModPath, usize>, v: &'a ModPath, to: usize) {
        if let Some(x) = low.get_mut(v) {
            *x = (*x).min(to);
        }
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a ModPath) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        let edges = t.edges;
        for w in edges.get(v).into_iter().flatten() {
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                lower(&mut t.low, v, lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                lower(&mut t.low, v, iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v) {
            visit(&mut t, v);
        }
    }
    t.out
}

fn show(m: &ModPath) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

pub(super) fn import_cycles(root: &Path, r: &mut Report) {
    for c in crate_dirs(root, r) {
        let src = c.join("src");
        let files: Vec<_> = files_below(root, &src, r)
            .into_iter()
            .filter(|f| f.extension().is_some_and(|e| e == "rs"))
            .filter_map(|f| module_of(&src, &f).map(|m| (m, f)))
            .collect();
        let modules: BTreeSet<ModPath> = files.iter().map(|(m, _)| m.clone()).collect();
        let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
        // One witness per edge: where it is written.
        let mut witness: BTreeMap<(ModPath, ModPath), String> = BTreeMap::new();
        for (m, f) in &files {
            let Some(text) = read(root, f, r) else {
                continue;
            };
            let code = without_test_modules(&blank_comments_and_strings(&text));
            edges.entry(m.clone()).or_default();
            for (line, path) in paths_in(&code) {
                let Some(t) = target(&path, m, &modules) else {
                    continue;
                };
                if t.is_empty() || m.starts_with(&t) {
                    continue; // the crate root or an ancestor of `m`: not a sibling dependency
                }
                edges.entry(m.clone()).or_default().insert(t.clone());
                witness
                    .entry((m.clone(), t))
                    .or_insert_with(|| format!("{}:{line}", rel(root, f)));
            }
        }
        for comp in cycles(&edges) {
            let inside: BTreeSet<&ModPath> = comp.iter().collect();
            let uses: Vec<String> = comp
                .iter()
                .flat_map(|a| {
                    edges[a].iter().filter(|b| inside.contains(b)).map(|b| {
                        let at = witness
                            .get(&(a.clone(), b.clone()))
                            .cloned()
                            .unwrap_or_default();
                        format!("{} → {} ({at})", show(a), show(b))
                    })
                })
                .collect();
            r.error(format!(
                "{}: import cycle between modules {}: {}; move what both need into one of \
                 them or a third module",
                rel(root, &c),
                comp.iter().map(show).collect::<Vec<_>>().join(", "),
                uses.join("; ")
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mp(s: &str) -> ModPath {
        if s.is_empty() {
            Vec::new()
        } else {
            s.split("::").map(String::from).collect()
        }
    }

    #[test]
    fn paths_and_use_trees() {
        let code =
            "use crate::{a::X, b::{c::Y, d}};\nfn f() { super::e::g(); let x = my_crate::h; }\n";
        let got: Vec<(usize, String)> = paths_in(code)
            .into_iter()
            .map(|(l, p)| (l, p.join("::")))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, "crate::a::X".into()),
                (1, "crate::b::c::Y".into()),
                (1, "crate::b::d".into()),
                (2, "super::e::g".into()),
            ]
        );
    }

    #[test]
    fn test_modules_are_ignored_but_keep_lines() {
        let code =
            "use crate::a;\n#[cfg(test)]\nmod tests {\n use crate::b; { }\n}\nuse crate::c;\n";
        let kept = without_test_modules(code);
        assert_eq!(kept.lines().count(), code.lines().count());
        let names: Vec<String> = paths_in(&kept)
            .into_iter()
            .map(|(_, p)| p.join("::"))
            .collect();
        assert_eq!(names, ["crate::a", "crate::c"]);
        // A gated declaration of a test module in another file is not a block.
        assert!(
            without_test_modules("#[cfg(test)]\nmod tests;\nuse crate::x;\n").contains("crate::x")
        );
    }

    #[test]
    fn targets_resolve_to_the_longest_module_prefix() {
        let modules: BTreeSet<ModPath> = ["", "server", "server::round", "slot"]
            .into_iter()
            .map(mp)
            .collect();
        let from = mp("server::round");
        let t = |p: &str| target(&mp(p), &from, &modules);
        assert_eq!(t("crate::slot::SlotKind"), Some(mp("slot")));
        assert_eq!(t("super::Server"), Some(mp("server")));
        assert_eq!(t("super::super::slot::x"), Some(mp("slot")));
        assert_eq!(t("crate::Nothing"), Some(mp("")));
        assert_eq!(t("super::super::super::x"), None);
    }

    #[test]
    fn cycles_are_found_and_trees_are_not() {
        fn add(edges: &mut BTreeMap<ModPath, BTreeSet<ModPath>>, a: &str, b: &str) {
            edges.entry(mp(a)).or_default().insert(mp(b));
            edges.entry(mp(b)).or_default();
        }
        let mut edges = BTreeMap::new();
        for (a, b) in [
            ("policy", "error"),
            ("config", "policy"),
            ("slot", "schedule"),
            ("schedule", "policy"),
        ] {
            add(&mut edges, a, b);
        }
        assert!(cycles(&edges).is_empty());
        add(&mut edges, "policy", "slot");
        assert_eq!(
            cycles(&edges),
            vec![vec![mp("policy"), mp("schedule"), mp("slot")]]
        );
    }

    #[test]
    fn module_of_files() {
        let src = Path::new("/r/src");
        assert_eq!(module_of(src, Path::new("/r/src/lib.rs")), Some(mp("")));
        assert_eq!(
            module_of(src, Path::new("/r/src/server/mod.rs")),
            Some(mp("server"))
        );
        assert_eq!(
            module_of(src, Path::new("/r/src/server/round/reveal.rs")),
            Some(mp("server::round::reveal"))
        );
    }
}
