//! `index.html`: one static page to read a bench run — machine, toolchain and commit, the
//! targets with pass/fail, the paper comparison, the baseline comparison when there is one,
//! every figure, and links to the raw files. Inline CSS only: no script, no network.

use std::fmt::Write as _;

use super::baseline::Verdict;
use super::summary::{SummaryInput, compare_with_paper, sig3};
use super::targets::{Status, evaluate};

/// `&`, `<`, `>` and `"` escaped for text and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// Markdown code spans (`x`) as `<code>`, everything else escaped.
fn inline(s: &str) -> String {
    let mut out = String::new();
    for (i, part) in s.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", esc(part));
        } else {
            out.push_str(&esc(part));
        }
    }
    out
}

const STYLE: &str = "body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;\
color:#222;line-height:1.4}table{border-collapse:collapse;margin:1em 0;font-size:14px}\
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}\
th{background:#f0f0f0}td.pass{background:#d9f0e3}td.fail{background:#fbd9cc;font-weight:bold}\
td.none{color:#777}figure{margin:2em 0}figure img{max-width:100%;border:1px solid #ddd}\
figcaption{font-size:14px;color:#444}code{font-size:13px}";

fn status_cell(status: Status) -> String {
    let class = match status {
        Status::Pass => "pass",
        Status::Fail => "fail",
        Status::NotMeasured | Status::Tested => "none",
    };
    format!("<td class=\"{class}\">{}</td>", status.label())
}

/// The whole page.
pub(crate) fn render(input: &SummaryInput<'_>) -> String {
    let m = input.machine;
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>verdict bench run {}</title><style>{STYLE}</style></head><body>\n\
         <h1>verdict benchmarks against the paper</h1>\n",
        esc(&m.date)
    );
    let _ = write!(
        s,
        "<table id=\"machine\"><tr><th>command</th><td><code>{}</code></td></tr>\
         <tr><th>date</th><td>{}</td></tr><tr><th>CPU</th><td>{} ({} logical cores: criterion \
         benchmarks use one, the simulated sessions a pool of one thread per core, or the pool \
         of their <code>threads=</code> label)</td></tr><tr><th>toolchain</th><td>{}</td></tr>\
         <tr><th>commit</th><td><code>{}</code></td></tr><tr><th>results</th><td>{} criterion \
         results, {} macro reports; raw: <a href=\"results.csv\">results.csv</a>, \
         <a href=\"results.json\">results.json</a>, <a href=\"summary.md\">summary.md</a>",
        esc(input.command),
        esc(&m.date),
        esc(&m.cpu),
        m.cores,
        esc(&m.rustc),
        esc(&m.commit),
        input.results.len(),
        input.reports.len()
    );
    for r in input.reports {
        let name = super::plot::file_safe(&r.name);
        let _ = write!(s, ", <a href=\"macro-{name}.csv\">macro-{name}.csv</a>");
    }
    s.push_str("</td></tr></table>\n");

    if let Some((name, rows)) = input.baseline {
        let count = |v| rows.iter().filter(|c| c.verdict == v).count();
        let _ = write!(
            s,
            "<h2 id=\"baseline\">Against baseline <code>{}</code></h2>\n<p>{} regressed, {} \
             improved, {} within noise (a change counts when its 95% interval lies outside \
             ±{} %).</p>\n<table><tr><th>benchmark</th><th>baseline mean [95% CI]</th>\
             <th>this run [95% CI]</th><th>new / base</th><th>change [95% CI]</th>\
             <th>verdict</th></tr>\n",
            esc(name),
            count(Verdict::Regressed),
            count(Verdict::Improved),
            count(Verdict::Unchanged),
            super::baseline::NOISE * 100.0
        );
        let mut sorted: Vec<_> = rows.iter().collect();
        sorted.sort_by_key(|c| c.verdict != Verdict::Regressed);
        for c in sorted {
            let t = super::summary::time;
            let class = match c.verdict {
                Verdict::Regressed => "fail",
                Verdict::Improved => "pass",
                Verdict::Unchanged => "none",
            };
            let _ = writeln!(
                s,
                "<tr><td><code>{}</code></td><td>{} [{} – {}]</td><td>{} [{} – {}]</td>\
                 <td>{}×</td><td>{:+.1} % [{:+.1} – {:+.1}]</td><td class=\"{class}\">{}</td></tr>",
                esc(&c.id),
                t(c.base.point),
                t(c.base.lo),
                t(c.base.hi),
                t(c.new.point),
                t(c.new.lo),
                t(c.new.hi),
                sig3(c.new.point / c.base.point),
                c.change.point * 100.0,
                c.change.lo * 100.0,
                c.change.hi * 100.0,
                c.verdict.label()
            );
        }
        s.push_str("</table>\n");
    }

    s.push_str(
        "<h2 id=\"targets\">Targets (docs/PERFORMANCE.md)</h2>\n<table><tr><th>target</th>\
         <th>stated in</th><th>goal</th><th>ours</th><th>pass/fail</th><th>judged on</th></tr>\n",
    );
    for o in evaluate(input.results, input.reports) {
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td></tr>",
            esc(o.what),
            esc(o.section),
            esc(o.goal),
            esc(&o.ours),
            status_cell(o.status),
            inline(&o.note)
        );
    }
    s.push_str("</table>\n");

    s.push_str(
        "<h2 id=\"paper\">Against the paper and the 2013 prototype</h2>\n<table><tr>\
         <th>measurement</th><th>reference</th><th>paper / prototype</th><th>ours</th>\
         <th>ours / paper</th><th>benchmark</th></tr>\n",
    );
    for c in compare_with_paper(input.results) {
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
            esc(&c.what),
            esc(&c.source),
            esc(&c.paper),
            esc(c.ours.as_deref().unwrap_or("not measured in this run")),
            c.factor
                .map_or_else(String::new, |f| format!("{}×", sig3(f))),
            esc(&c.ours_id)
        );
    }
    s.push_str(
        "</table>\n<p>The paper's Figure 5 ran on one core of a 3.2 GHz Xeon W3565 (2010); \
         the prototype rows are the 2013 code re-measured on that machine class. Figure 5 rows \
         use the block size nearest 4 KB.</p>\n",
    );

    s.push_str("<h2 id=\"figures\">Figures</h2>\n");
    if input.charts.is_empty() {
        s.push_str("<p>No figure has data in this run.</p>\n");
    }
    for (stem, title) in input.charts {
        let stem = esc(stem);
        let _ = writeln!(
            s,
            "<figure id=\"{stem}\"><img src=\"{}{stem}.svg\" alt=\"{}\">\
             <figcaption>{} (<a href=\"{stem}.svg\">SVG</a>, <a href=\"{stem}.png\">PNG</a>)\
             </figcaption></figure>",
            esc(input.img_prefix),
            esc(title),
            esc(title)
        );
    }
    if !input.skipped.is_empty() {
        s.push_str("<h2>Not measured</h2>\n<ul>\n");
        for (name, why) in input.skipped {
            let _ = writeln!(s, "<li><code>{}</code>: {}</li>", esc(name), esc(why));
        }
        s.push_str("</ul>\n");
    }
    s.push_str("</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::baseline::tests::{fixture_dir, new_result};
    use crate::bench::summary::Machine;
    use crate::bench::targets::TARGETS;

    fn machine() -> Machine {
        Machine {
            cpu: "Test <CPU>".into(),
            cores: 2,
            rustc: "rustc 1.95.0".into(),
            date: "2026-12-01".into(),
            commit: "abc1234".into(),
        }
    }

    #[test]
    fn page_has_every_figure_every_target_and_the_raw_links() {
        let charts = [
            ("fig5".to_owned(), "Figure 5".to_owned()),
            ("fig7".to_owned(), "Figure 7".to_owned()),
        ];
        let m = machine();
        let page = render(&SummaryInput {
            machine: &m,
            command: "cargo xtask bench --quick",
            results: &[],
            reports: &[],
            skipped: &[],
            charts: &charts,
            img_prefix: "",
            baseline: None,
        });
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.trim_end().ends_with("</html>"));
        for (stem, _) in &charts {
            assert!(page.contains(&format!("<img src=\"{stem}.svg\"")), "{stem}");
        }
        assert_eq!(page.matches("<img ").count(), charts.len());
        for t in TARGETS {
            assert!(
                page.contains(&format!("<tr><td>{}</td>", esc(t.what))),
                "{}",
                t.what
            );
        }
        // One row per target plus the header, in the targets table.
        let targets = page.split("id=\"targets\"").nth(1).unwrap_or_default();
        let table = targets.split("</table>").next().unwrap_or_default();
        assert_eq!(table.matches("<tr>").count(), TARGETS.len() + 1);
        assert!(table.contains("<th>pass/fail</th>"));
        for link in ["results.csv", "results.json", "summary.md"] {
            assert!(page.contains(&format!("href=\"{link}\"")), "{link}");
        }
        assert!(page.contains("Test &lt;CPU&gt;"));
        assert!(page.contains("<code>abc1234</code>"));
        assert!(!page.contains("<script"));
        assert!(!page.contains("http://") && !page.contains("https://"));
        assert!(!page.contains("id=\"baseline\""));
    }

    #[test]
    fn baseline_regressions_are_flagged() {
        let dir = fixture_dir("html");
        let results = [new_result()];
        let rows = crate::bench::baseline::compare(&dir, "main", &results);
        let m = machine();
        let page = render(&SummaryInput {
            machine: &m,
            command: "cargo xtask bench --baseline main",
            results: &results,
            reports: &[],
            skipped: &[],
            charts: &[],
            img_prefix: "",
            baseline: Some(("main", &rows)),
        });
        assert!(page.contains("Against baseline <code>main</code>"));
        assert!(page.contains("1 regressed, 0 improved"));
        assert!(page.contains("<td class=\"fail\">REGRESSED</td>"), "{page}");
        assert!(page.contains("+25.0 % [+20.0 – +30.0]"));
        // The shuffle target is judged on the same result: 150 ms > 100 ms.
        assert!(page.contains("<td class=\"fail\">FAIL</td>"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
