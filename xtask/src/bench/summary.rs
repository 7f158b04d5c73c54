//! The human-readable side: the machine, our numbers next to the paper's, per-figure tables,
//! `summary.md`, and the generated section of `docs/PERFORMANCE.md`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::process::Command;

use regex::Regex;
use verdict_bench::macro_bench::MacroReport;

use super::criterion::{BenchResult, Throughput, natural_cmp};
use super::plot::{Fig5Point, fig5_points};

/// Where and with what the numbers were measured.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub rustc: String,
    /// UTC date of the run, `YYYY-MM-DD`.
    pub date: String,
    /// `git rev-parse --short HEAD` of the measured tree, `-dirty` if it had changes.
    pub commit: String,
}

impl Machine {
    /// Reads `/proc/cpuinfo` (Linux) and `rustc -V`; anything unavailable reads "unknown".
    pub(crate) fn detect() -> Machine {
        let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let (cpu, listed) = parse_cpuinfo(&info);
        let cores = if listed > 0 {
            listed
        } else {
            std::thread::available_parallelism().map_or(0, usize::from)
        };
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
        let rustc = Command::new(rustc)
            .arg("-V")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_else(|| "unknown".to_owned());
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Machine {
            cpu: cpu.unwrap_or_else(|| "unknown".to_owned()),
            cores,
            rustc,
            date: civil_date(secs),
            commit: git_commit(),
        }
    }

    /// The line every figure's caption ends with.
    pub(crate) fn footer(&self) -> String {
        format!(
            "Measured {} on {} ({} logical cores: criterion on one, simulated sessions on all unless \
             labelled threads=), {}, commit {}.",
            self.date, self.cpu, self.cores, self.rustc, self.commit
        )
    }
}

/// The short commit of the working tree, with `-dirty` when it has uncommitted changes.
fn git_commit() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    match git(&["rev-parse", "--short", "HEAD"]) {
        Some(c) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty { format!("{c}-dirty") } else { c }
        }
        None => "unknown".to_owned(),
    }
}

/// The first `model name` and the number of `processor` entries of a `/proc/cpuinfo` text.
pub(crate) fn parse_cpuinfo(text: &str) -> (Option<String>, usize) {
    let mut model = None;
    let mut count = 0;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        match key.trim() {
            "processor" => count += 1,
            "model name" if model.is_none() => model = Some(value.trim().to_owned()),
            _ => {}
        }
    }
    (model, count)
}

/// `YYYY-MM-DD` of a Unix time (days-from-civil inverted; avoids a date crate for one line).
pub(crate) fn civil_date(unix_secs: u64) -> String {
    let z = (unix_secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// How a paper number is compared.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Measure {
    /// Throughput of a `fig5/...` id (KB/s) at the block size nearest to this many bytes.
    KbPerSecNear(u64),
    /// Mean time of a benchmark (ms); lower is better.
    Millis,
}

/// A number from the paper (or the 2013 prototype, or an issue's target) and the benchmark ids
/// it is compared with.
struct PaperRef {
    what: &'static str,
    source: &'static str,
    paper: f64,
    measure: Measure,
    /// Regex over benchmark ids (for `KbPerSecNear`, over `fig5/<suite>/<group>/<op>`).
    ids: &'static str,
}

/// Block size the paper's Figure 5 numbers are read at (its largest block, and the
/// prototype's 128 P-256 elements ≈ 3.7 KB).
const PAPER_BLOCK: u64 = 4096;

const PAPER: &[PaperRef] = &[
    PaperRef {
        what: "hashing-generator generation",
        source: "Fig. 5, Xeon W3565 3.2 GHz, 1 core",
        paper: 20.0,
        measure: Measure::KbPerSecNear(PAPER_BLOCK),
        ids: r"^fig5/hashing-generator/[^/]+/cover$",
    },
    PaperRef {
        what: "pairing generation",
        source: "Fig. 5",
        paper: 3.0,
        measure: Measure::KbPerSecNear(PAPER_BLOCK),
        ids: r"^fig5/pairing[^/]*/[^/]+/cover$",
    },
    PaperRef {
        what: "XOR generation",
        source: "Fig. 5",
        paper: 600.0,
        measure: Measure::KbPerSecNear(PAPER_BLOCK),
        ids: r"^fig5/xor/[^/]+/cover[^/]*$",
    },
    PaperRef {
        what: "hashing-generator P-256 cover",
        source: "2013 prototype, 128 elements",
        paper: 37.0,
        measure: Measure::KbPerSecNear(PAPER_BLOCK),
        ids: r"^fig5/hashing-generator/p256/cover$",
    },
    PaperRef {
        what: "hashing-generator P-256 owner",
        source: "2013 prototype, 128 elements",
        paper: 24.0,
        measure: Measure::KbPerSecNear(PAPER_BLOCK),
        ids: r"^fig5/hashing-generator/p256/owner$",
    },
    PaperRef {
        what: "hashing-generator P-256 verify",
        source: "2013 prototype, 128 elements",
        paper: 33.0,
        measure: Measure::KbPerSecNear(PAPER_BLOCK),
        ids: r"^fig5/hashing-generator/p256/verify(-one)?$",
    },
    PaperRef {
        what: "ElGamal P-256 cover",
        source: "2013 prototype, 128 elements",
        paper: 18.0,
        measure: Measure::KbPerSecNear(PAPER_BLOCK),
        ids: r"^fig5/elgamal/p256/cover$",
    },
    PaperRef {
        what: "ElGamal P-256 owner",
        source: "2013 prototype, 128 elements",
        paper: 12.0,
        measure: Measure::KbPerSecNear(PAPER_BLOCK),
        ids: r"^fig5/elgamal/p256/owner$",
    },
    PaperRef {
        what: "ElGamal P-256 verify",
        source: "2013 prototype, 128 elements",
        paper: 18.0,
        measure: Measure::KbPerSecNear(PAPER_BLOCK),
        ids: r"^fig5/elgamal/p256/verify(-one)?$",
    },
    PaperRef {
        what: "Neff shuffle prove, n = 1024",
        source: "issue target (prototype on BLS12-381: ≈190 ms at n = 1000)",
        paper: 100.0,
        measure: Measure::Millis,
        ids: r"^neff/ristretto255/prove/1024$",
    },
    PaperRef {
        what: "Neff shuffle batched verify, n = 1024",
        source: "issue target (prototype on BLS12-381: ≈190 ms at n = 1000)",
        paper: 60.0,
        measure: Measure::Millis,
        ids: r"^neff/ristretto255/verify/1024$",
    },
];

/// One line of the comparison table.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Comparison {
    pub what: String,
    pub source: String,
    pub paper: String,
    /// `None`: not measured in this run.
    pub ours: Option<String>,
    /// Which benchmark (id, block size) the number is from.
    pub ours_id: String,
    /// Ours relative to the paper, > 1 meaning better.
    pub factor: Option<f64>,
}

/// Our numbers next to every [`PAPER`] reference; references nothing in `results` matches
/// appear once, marked as not measured.
pub(crate) fn compare_with_paper(results: &[BenchResult]) -> Vec<Comparison> {
    let fig5 = fig5_points(results);
    let mut out = Vec::new();
    for r in PAPER {
        let Ok(re) = Regex::new(r.ids) else {
            continue;
        };
        let before = out.len();
        match r.measure {
            Measure::KbPerSecNear(block) => {
                // series (suite/group/op) -> point nearest `block` on a log scale
                let mut best: BTreeMap<String, &Fig5Point> = BTreeMap::new();
                for p in &fig5 {
                    let key = format!("fig5/{}/{}/{}", p.suite, p.group, p.op);
                    if !re.is_match(&key) {
                        continue;
                    }
                    let dist = |q: &Fig5Point| (q.block as f64 / block as f64).ln().abs();
                    let e = best.entry(key).or_insert(p);
                    if dist(p) < dist(e) {
                        *e = p;
                    }
                }
                for (key, p) in best {
                    out.push(Comparison {
                        what: r.what.to_owned(),
                        source: r.source.to_owned(),
                        paper: format!("{} KB/s", r.paper),
                        ours: Some(format!("{} KB/s", sig3(p.kb_per_s))),
                        ours_id: format!("{key}/{}", p.block),
                        factor: Some(p.kb_per_s / r.paper),
                    });
                }
            }
            Measure::Millis => {
                for b in results.iter().filter(|b| re.is_match(&b.id)) {
                    let ms = b.mean_ns / 1e6;
                    out.push(Comparison {
                        what: r.what.to_owned(),
                        source: r.source.to_owned(),
                        paper: format!("≤ {} ms", r.paper),
                        ours: Some(format!("{} ms", sig3(ms))),
                        ours_id: b.id.clone(),
                        factor: (ms > 0.0).then(|| r.paper / ms),
                    });
                }
            }
        }
        if out.len() == before {
            out.push(Comparison {
                what: r.what.to_owned(),
                source: r.source.to_owned(),
                paper: match r.measure {
                    Measure::KbPerSecNear(_) => format!("{} KB/s", r.paper),
                    Measure::Millis => format!("≤ {} ms", r.paper),
                },
                ours: None,
                ours_id: String::new(),
                factor: None,
            });
        }
    }
    out
}

/// Three significant digits, no exponent: 1234.5 -> "1235", 12.345 -> "12.3", 0.01234 -> "0.0123".
pub(crate) fn sig3(v: f64) -> String {
    if !v.is_finite() {
        return "—".to_owned();
    }
    let a = v.abs();
    // Sizes and counts are whole numbers: no "16.0".
    let decimals = if a >= 100.0 || a == 0.0 || (a >= 10.0 && v.fract() == 0.0) {
        0
    } else {
        (2 - a.log10().floor() as i32).max(0) as usize
    };
    format!("{v:.decimals$}")
}

/// Everything the summary shows.
pub(crate) struct SummaryInput<'a> {
    pub machine: &'a Machine,
    /// The command line that produced the numbers.
    pub command: &'a str,
    pub results: &'a [BenchResult],
    pub reports: &'a [MacroReport],
    /// Macro benchmarks skipped, with the reason.
    pub skipped: &'a [(String, String)],
    /// Chart stems written, each with its title.
    pub charts: &'a [(String, String)],
    /// Prefix of the SVG links (`""` next to the SVGs, `"img/"` from docs/).
    pub img_prefix: &'a str,
    /// `--baseline NAME`: the name and this run against it.
    pub baseline: Option<(&'a str, &'a [super::baseline::Comparison])>,
}

/// The comparison table as markdown (also printed to the terminal).
pub(crate) fn comparison_table(rows: &[Comparison]) -> String {
    let mut s = String::from(
        "| measurement | reference | paper | ours | ours / paper | benchmark |\n|---|---|---|---|---|---|\n",
    );
    for c in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            c.what,
            c.source,
            c.paper,
            c.ours.as_deref().unwrap_or("not measured in this run"),
            c.factor
                .map_or_else(String::new, |f| format!("{}×", sig3(f))),
            if c.ours_id.is_empty() {
                String::new()
            } else {
                format!("`{}`", c.ours_id)
            },
        );
    }
    s
}

/// Figure 5 as a table: one row per suite/group/op, one column per block size (KB/s).
fn fig5_table(points: &[Fig5Point]) -> String {
    let blocks: BTreeSet<u64> = points.iter().map(|p| p.block).collect();
    let mut rows: BTreeMap<String, BTreeMap<u64, f64>> = BTreeMap::new();
    for p in points {
        rows.entry(format!("{}/{} | {}", p.suite, p.group, p.op))
            .or_default()
            .insert(p.block, p.kb_per_s);
    }
    let mut s = String::from("| suite/group | op |");
    for b in &blocks {
        let _ = write!(s, " {b} B |");
    }
    s.push_str("\n|---|---|");
    s.push_str(&"---|".repeat(blocks.len()));
    s.push('\n');
    let mut keys: Vec<_> = rows.keys().cloned().collect();
    keys.sort_by(|a, b| natural_cmp(a, b));
    for k in keys {
        let _ = write!(s, "| {k} |");
        for b in &blocks {
            let cell = rows[&k].get(b).map_or_else(String::new, |v| sig3(*v));
            let _ = write!(s, " {cell} |");
        }
        s.push('\n');
    }
    s
}

/// A macro report as a table: one row per series, one column per x.
fn macro_table(r: &MacroReport) -> String {
    let xs: Vec<f64> = {
        let mut xs: Vec<f64> = r.rows.iter().map(|row| row.x).collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        xs
    };
    let mut series: Vec<&str> = Vec::new();
    for row in &r.rows {
        if !series.contains(&row.series.as_str()) {
            series.push(&row.series);
        }
    }
    let mut s = format!("{} → {}\n\n| series |", r.x_label, r.y_label);
    for x in &xs {
        let _ = write!(s, " {} |", sig3(*x));
    }
    s.push_str("\n|---|");
    s.push_str(&"---|".repeat(xs.len()));
    s.push('\n');
    for name in series {
        let _ = write!(s, "| {name} |");
        for x in &xs {
            let cell = r
                .rows
                .iter()
                .find(|row| row.series == name && row.x == *x)
                .map_or_else(String::new, |row| sig3(row.y));
            let _ = write!(s, " {cell} |");
        }
        s.push('\n');
    }
    if !r.notes.is_empty() {
        s.push('\n');
    }
    for n in &r.notes {
        let _ = writeln!(s, "- {n}");
    }
    s
}

/// A time in ns with a readable unit.
pub(crate) fn time(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{} s", sig3(ns / 1e9))
    } else if ns >= 1e6 {
        format!("{} ms", sig3(ns / 1e6))
    } else if ns >= 1e3 {
        format!("{} µs", sig3(ns / 1e3))
    } else {
        format!("{} ns", sig3(ns))
    }
}

/// Every criterion result: id, mean with its 95% interval, throughput at the mean.
fn all_results_table(results: &[BenchResult]) -> String {
    let mut s =
        String::from("| benchmark | mean | 95% interval | throughput |\n|---|---|---|---|\n");
    for r in results {
        let tp = match (r.throughput, r.per_second()) {
            (Some(Throughput::Bytes(_)), Some(v)) => format!("{} KB/s", sig3(v / 1000.0)),
            (Some(Throughput::Elements(_)), Some(v)) => format!("{} elem/s", sig3(v)),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "| `{}` | {} | {} – {} | {tp} |",
            r.id,
            time(r.mean_ns),
            time(r.mean_lo_ns),
            time(r.mean_hi_ns)
        );
    }
    s
}

/// The whole summary as markdown: paste-able into `docs/PERFORMANCE.md`.
pub(crate) fn render_markdown(input: &SummaryInput<'_>) -> String {
    let m = input.machine;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## Generated by `{}` ({})\n\n| | |\n|---|---|\n| CPU | {} ({} logical cores: criterion benchmarks use one, the simulated sessions a pool of one thread per core, or the pool of their `threads=` label) |\n| toolchain | {} |\n| commit | {} |\n| benchmarks | {} criterion results, {} macro reports |\n",
        input.command,
        m.date,
        m.cpu,
        m.cores,
        m.rustc,
        m.commit,
        input.results.len(),
        input.reports.len()
    );
    if let Some((name, rows)) = input.baseline {
        s.push_str(&super::baseline::markdown(name, rows));
        s.push('\n');
    }
    s.push_str("### Targets (docs/PERFORMANCE.md)\n\n");
    s.push_str(&super::targets::markdown(&super::targets::evaluate(
        input.results,
        input.reports,
    )));
    s.push_str("\n### Against the paper\n\n");
    s.push_str(&comparison_table(&compare_with_paper(input.results)));
    s.push_str(
        "\nThe paper's Figure 5 ran on one core of a 3.2 GHz Xeon W3565 (2010); the prototype \
         rows are the 2013 code re-measured on that machine class. Figure 5 rows use the block \
         size nearest 4 KB.\n\n",
    );
    if !input.charts.is_empty() {
        s.push_str("### Figures\n\n");
        for (stem, title) in input.charts {
            let _ = writeln!(s, "![{title}]({}{stem}.svg)\n", input.img_prefix);
        }
    }
    let fig5 = fig5_points(input.results);
    if !fig5.is_empty() {
        s.push_str("### Figure 5 analog: throughput (KB/s of plaintext, one core)\n\n");
        s.push_str(&fig5_table(&fig5));
        s.push('\n');
    }
    for r in input.reports {
        let _ = writeln!(s, "### {}\n\n{}", r.title, macro_table(r));
    }
    if !input.skipped.is_empty() {
        s.push_str("### Not measured\n\n");
        for (name, why) in input.skipped {
            let _ = writeln!(s, "- `{name}`: {why}");
        }
        s.push('\n');
    }
    if !input.results.is_empty() {
        // Collapsed: a full run has a few hundred rows.
        s.push_str("<details><summary>All criterion results</summary>\n\n");
        s.push_str(&all_results_table(input.results));
        s.push_str("\n</details>\n\n");
    }
    s.push_str(
        "Every criterion result with median and standard deviation is also in \
         `target/verdict-bench/results.csv` and `results.json`.\n",
    );
    s
}

/// Start and end markers of the generated section of `docs/PERFORMANCE.md`.
pub(crate) const BEGIN: &str = "<!-- BEGIN GENERATED -->";
/// See [`BEGIN`].
pub(crate) const END: &str = "<!-- END GENERATED -->";

/// Replaces the text between [`BEGIN`] and [`END`] in `doc` by `generated`, keeping the
/// markers; appends a marked section if `doc` has none. Fails on a marker without its pair
/// rather than guess which text is generated.
pub(crate) fn replace_generated(doc: &str, generated: &str) -> Result<String, String> {
    let section = format!("{BEGIN}\n{}\n{END}", generated.trim_end());
    match (doc.find(BEGIN), doc.find(END)) {
        (Some(b), Some(e)) if b < e => {
            Ok(format!("{}{section}{}", &doc[..b], &doc[e + END.len()..]))
        }
        (None, None) => Ok(format!("{}\n\n{section}\n", doc.trim_end())),
        _ => Err(format!("unbalanced {BEGIN} / {END} markers")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::criterion::tests::result;

    #[test]
    fn compares_at_the_block_nearest_4k() {
        let results = vec![
            // 1024 B in 10 ms = 102.4 KB/s; 4096 B in 100 ms = 40.96 KB/s (the one used).
            result(
                "fig5/hashing-generator/p256",
                "cover",
                "1024",
                r#"{"Bytes":1024}"#,
                10e6,
            ),
            result(
                "fig5/hashing-generator/p256",
                "cover",
                "4096",
                r#"{"Bytes":4096}"#,
                100e6,
            ),
            result("neff/ristretto255", "prove", "1024", "null", 145e6),
        ];
        let rows = compare_with_paper(&results);
        let hg: Vec<_> = rows
            .iter()
            .filter(|c| c.what == "hashing-generator generation")
            .collect();
        assert_eq!(hg.len(), 1);
        assert_eq!(hg[0].ours.as_deref(), Some("41.0 KB/s"));
        assert_eq!(hg[0].ours_id, "fig5/hashing-generator/p256/cover/4096");
        assert!((hg[0].factor.unwrap_or(0.0) - 40.96 / 20.0).abs() < 1e-9);
        let proto = rows
            .iter()
            .find(|c| c.what == "hashing-generator P-256 cover")
            .and_then(|c| c.factor);
        assert!((proto.unwrap_or(0.0) - 40.96 / 37.0).abs() < 1e-9);
        let prove = rows
            .iter()
            .find(|c| c.what.starts_with("Neff shuffle prove"));
        assert_eq!(
            prove.and_then(|c| c.ours.clone()).as_deref(),
            Some("145 ms")
        );
        // Nothing ran for the pairing suite: listed, not invented.
        let pairing = rows.iter().find(|c| c.what == "pairing generation");
        assert_eq!(pairing.map(|c| c.ours.is_none()), Some(true));
        let table = comparison_table(&rows);
        assert!(table.contains("not measured in this run"));
        assert!(table.contains("| 2.05× |"), "{table}");
    }

    #[test]
    fn cpuinfo_and_dates() {
        let info = "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) CPU W3565 @ 3.20GHz\n\nprocessor\t: 1\nmodel name\t: Intel(R) Xeon(R) CPU W3565 @ 3.20GHz\n";
        assert_eq!(
            parse_cpuinfo(info),
            (Some("Intel(R) Xeon(R) CPU W3565 @ 3.20GHz".to_owned()), 2)
        );
        assert_eq!(parse_cpuinfo(""), (None, 0));
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(951_782_400), "2000-02-29");
        assert_eq!(civil_date(1_700_000_000), "2023-11-14");
    }

    #[test]
    fn number_formatting() {
        assert_eq!(sig3(1234.5), "1234");
        assert_eq!(sig3(12.345), "12.3");
        assert_eq!(sig3(0.012345), "0.0123");
        assert_eq!(sig3(16.0), "16");
        assert_eq!(time(1.5e3), "1.50 µs");
        assert_eq!(time(145e6), "145 ms");
    }

    #[test]
    fn generated_section_is_replaced_or_appended() {
        let doc = format!("# P\n\nhand\n\n{BEGIN}\nold\n{END}\n\ntail\n");
        let new = replace_generated(&doc, "new table\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            new,
            format!("# P\n\nhand\n\n{BEGIN}\nnew table\n{END}\n\ntail\n")
        );
        // Idempotent.
        assert_eq!(
            replace_generated(&new, "new table").as_deref(),
            Ok(new.as_str())
        );
        let appended = replace_generated("# P\n", "x").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(appended, format!("# P\n\n{BEGIN}\nx\n{END}\n"));
        assert!(replace_generated(&format!("{END}\n{BEGIN}"), "x").is_err());
        assert!(replace_generated(BEGIN, "x").is_err());
    }

    #[test]
    fn markdown_has_machine_tables_links_and_skips() {
        let machine = Machine {
            cpu: "Test CPU".into(),
            cores: 2,
            rustc: "rustc 1.95.0".into(),
            date: "2026-01-01".into(),
            commit: "abc1234".into(),
        };
        let results = vec![result(
            "fig5/xor/ristretto255",
            "cover",
            "1024",
            r#"{"Bytes":1024}"#,
            1e6,
        )];
        let md = render_markdown(&SummaryInput {
            machine: &machine,
            command: "cargo xtask bench --quick",
            results: &results,
            reports: &[],
            skipped: &[("fig7".into(), "waiting for verdict-proto".into())],
            charts: &[("fig5".into(), "Figure 5".into())],
            img_prefix: "img/",
            baseline: None,
        });
        assert!(md.contains("### Targets"));
        assert!(md.contains("Test CPU (2 logical cores"));
        assert!(md.contains("![Figure 5](img/fig5.svg)"));
        assert!(md.contains("| commit | abc1234 |"));
        assert!(md.contains("| xor/ristretto255 | cover | 1024 |"), "{md}");
        assert!(md.contains("`fig7`: waiting for verdict-proto"));
        assert!(
            md.contains(
                "| `fig5/xor/ristretto255/cover/1024` | 1.00 ms | 900 µs – 1.10 ms | 1024 KB/s |"
            ),
            "{md}"
        );
    }
}
