//! A small lexer: enough to tell code from comments and literals, so the rules can ask where
//! text appears without a Rust parser.

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
}
