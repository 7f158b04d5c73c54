//! `cargo xtask bench`: runs the criterion micro benchmarks target by target and the macro
//! benchmarks of `verdict_bench::macro_bench`, then writes under `target/verdict-bench/`:
//! `results.json`, `results.csv` (one row per criterion benchmark), `macro-<name>.csv`, one
//! SVG per figure, and `summary.md` (machine, our numbers next to the paper's, tables, plot
//! links). `--update-docs` puts that summary into the generated section of
//! `docs/PERFORMANCE.md` and copies the SVGs to `docs/img/`.

mod criterion;
mod plot;
mod summary;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use regex::Regex;
use serde_json::{Value, json};
use verdict_bench::macro_bench::{MacroConfig, MacroEntry, MacroReport, registry};

use self::criterion::{BenchResult, Throughput};
use self::summary::{Machine, SummaryInput};

/// The default `--quick` selection: Figure 5 blocks below 10 KB, the two smallest shuffle
/// sizes, vector DLEQ up to L = 256 and the single proofs. Everything else (64 KB blocks, the
/// 1,024-client key shuffle, group micro benchmarks) needs a full run.
pub(crate) const QUICK_FILTER: &str = r"^(fig5/.*/[0-9]{1,4}|dcnet/.*/[0-9]{1,4}|neff/[^/]+/[^/]+/(64|256)|vector-dleq/.*/(1|16|256)|(schnorr|dleq)/.*)$";

/// Macro benchmarks not run: `(name, reason)`.
type Skipped = Vec<(String, String)>;

/// Options of `cargo xtask bench`.
#[derive(Debug, Default, PartialEq, clap::Args)]
#[command(
    about = "Benchmarks, figures and the paper comparison in target/verdict-bench/",
    long_about = "Runs the criterion micro benchmarks and the macro benchmarks, then writes \
                  results (JSON, CSV), SVG figures and summary.md to target/verdict-bench/ and \
                  prints our numbers next to the paper's."
)]
pub(crate) struct Args {
    /// Short runs of a representative subset
    ///
    /// Criterion runs of 0.5 s warm-up, 2 s measurement and 10 samples over small blocks and
    /// sizes only (bench::QUICK_FILTER), VERDICT_BENCH_QUICK=1 set for the benches, and fewer,
    /// smaller points for the macro benchmarks.
    #[arg(long)]
    quick: bool,
    /// Only benchmarks (criterion ids) and macro benches (names) matching REGEX
    ///
    /// REGEX has criterion's regex syntax; it replaces --quick's subset and also selects what
    /// --no-micro reports.
    #[arg(long, value_name = "REGEX", value_parser = parse_filter)]
    filter: Option<String>,
    /// Save this run as criterion baseline NAME
    #[arg(long, value_name = "NAME", conflicts_with = "baseline")]
    save_baseline: Option<String>,
    /// Compare with criterion baseline NAME (change % in the results)
    #[arg(long, value_name = "NAME")]
    baseline: Option<String>,
    /// Do not run criterion; report every result in target/criterion
    #[arg(long)]
    no_micro: bool,
    /// Do not run the macro benchmarks
    #[arg(long)]
    no_macro: bool,
    /// Regenerate docs/PERFORMANCE.md between its GENERATED markers and copy the SVGs to
    /// docs/img/
    #[arg(long)]
    update_docs: bool,
}

/// `--filter` is checked when parsing, so a typo fails before minutes of benchmarks.
fn parse_filter(s: &str) -> Result<String, regex::Error> {
    Regex::new(s).map(|_| s.to_owned())
}

impl Args {
    /// The options as a command line (`cargo xtask bench --quick ...`), recorded in
    /// `results.json` and `summary.md` so a result says how it was produced.
    fn command_line(&self) -> String {
        let mut s = String::from("cargo xtask bench");
        let flags = [
            (self.quick, "--quick"),
            (self.no_micro, "--no-micro"),
            (self.no_macro, "--no-macro"),
            (self.update_docs, "--update-docs"),
        ];
        for (on, flag) in flags {
            if on {
                s.push(' ');
                s.push_str(flag);
            }
        }
        let values = [
            ("--filter", &self.filter),
            ("--save-baseline", &self.save_baseline),
            ("--baseline", &self.baseline),
        ];
        for (name, value) in values {
            if let Some(v) = value {
                s.push_str(&format!(" {name} {v}"));
            }
        }
        s
    }
}

/// The arguments after `cargo bench ... --`.
fn criterion_args(o: &Args) -> Vec<String> {
    // `--noplot`: criterion's own HTML plots are not used (ours are drawn from its JSON).
    let mut a: Vec<String> = vec!["--noplot".into()];
    if o.quick {
        for s in [
            "--warm-up-time",
            "0.5",
            "--measurement-time",
            "2",
            "--sample-size",
            "10",
        ] {
            a.push(s.into());
        }
    }
    if let Some(b) = &o.save_baseline {
        a.extend(["--save-baseline".into(), b.clone()]);
    }
    if let Some(b) = &o.baseline {
        a.extend(["--baseline".into(), b.clone()]);
    }
    match (&o.filter, o.quick) {
        (Some(f), _) => a.push(f.clone()),
        (None, true) => a.push(QUICK_FILTER.into()),
        (None, false) => {}
    }
    a
}

/// Runs the task; returns whether it succeeded.
pub(crate) fn run(root: &Path, args: &Args) -> bool {
    match run_with(root, args) {
        Ok(ok) => ok,
        Err(e) => {
            eprintln!("bench: {e}");
            false
        }
    }
}

fn run_with(root: &Path, o: &Args) -> Result<bool, String> {
    let started = Instant::now();
    let meta = criterion::metadata(root)?;
    let out = meta.target_dir.join("verdict-bench");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    // Results written from here on belong to this run; the slack covers file systems that
    // store modification times in whole seconds.
    let since = SystemTime::now() - Duration::from_secs(2);
    let mut ok = true;

    if !o.no_micro {
        let quick_env = [("VERDICT_BENCH_QUICK", "1")];
        let env: &[(&str, &str)] = if o.quick { &quick_env } else { &[] };
        let failed = criterion::run_targets(root, &meta.targets, &criterion_args(o), env)?;
        if !failed.is_empty() {
            eprintln!("failed bench targets: {}", failed.join(", "));
            ok = false;
        }
    }
    let collected = criterion::collect(
        &meta.target_dir.join("criterion"),
        (!o.no_micro).then_some(since),
    );
    for e in &collected.errors {
        eprintln!("skipped unreadable result {e}");
    }
    if collected.older > 0 {
        eprintln!(
            "{} older results in target/criterion are not part of this run and were left out \
             (`--no-micro` reports everything there)",
            collected.older
        );
    }
    let mut results = collected.results;
    // Without a run (`--no-micro`) the filter selects what is reported; after a run it keeps
    // exactly what criterion measured.
    if let Some(f) = &o.filter {
        let re = Regex::new(f).map_err(|e| format!("--filter: {e}"))?;
        results.retain(|r| re.is_match(&r.id));
    }

    let (reports, skipped) = if o.no_macro {
        (Vec::new(), Vec::new())
    } else {
        run_macros(o, &mut ok)?
    };

    let command = o.command_line();
    write_results(&out, &command, &results, &reports, &skipped)?;
    let charts = write_charts(&out, &results, &reports)?;
    let machine = Machine::detect();
    let input = |img_prefix| SummaryInput {
        machine: &machine,
        command: &command,
        results: &results,
        reports: &reports,
        skipped: &skipped,
        charts: &charts,
        img_prefix,
    };
    let md = summary::render_markdown(&input(""));
    write(&out.join("summary.md"), &md)?;

    println!(
        "\n{} ({} logical cores), {}\n",
        machine.cpu, machine.cores, machine.rustc
    );
    println!(
        "{}",
        summary::comparison_table(&summary::compare_with_paper(&results))
    );
    for (name, why) in &skipped {
        println!("skipped macro benchmark {name}: {why}");
    }
    if o.update_docs {
        update_docs(
            root,
            &out,
            &summary::render_markdown(&input("img/")),
            &charts,
        )?;
    }
    println!(
        "\n{} criterion results, {} macro reports, {} figures in {} (summary.md, results.csv, results.json); total {}",
        results.len(),
        reports.len(),
        charts.len(),
        out.display(),
        criterion::clock(started.elapsed().as_secs())
    );
    if results.is_empty() && reports.is_empty() {
        eprintln!("nothing was measured: check --filter");
    }
    Ok(ok)
}

/// Runs every registered macro benchmark that `--filter` selects; pending ones are skipped
/// with their reason. Returns the reports and the `(name, reason)` of skipped ones.
fn run_macros(o: &Args, ok: &mut bool) -> Result<(Vec<MacroReport>, Skipped), String> {
    let filter = match &o.filter {
        Some(f) => Some(Regex::new(f).map_err(|e| e.to_string())?),
        None => None,
    };
    let config = MacroConfig {
        quick: o.quick,
        ..MacroConfig::default()
    };
    let mut reports = Vec::new();
    let mut skipped = Vec::new();
    for entry in registry() {
        if filter.as_ref().is_some_and(|f| !f.is_match(entry.name())) {
            continue;
        }
        match entry {
            MacroEntry::Pending {
                name,
                title,
                waiting_for,
            } => {
                eprintln!("== macro {name} skipped ({title}): waiting for {waiting_for}");
                skipped.push((
                    name.to_owned(),
                    format!("{title} — not implemented yet, waiting for {waiting_for}"),
                ));
            }
            MacroEntry::Ready(bench) => {
                let t0 = Instant::now();
                let name = bench.name();
                eprintln!("== macro {name}: {}", bench.title());
                let mut progress = |msg: &str| {
                    eprintln!(
                        "   [{name} {}] {msg}",
                        criterion::clock(t0.elapsed().as_secs())
                    )
                };
                match bench.run(&config, &mut progress) {
                    Ok(r) => {
                        eprintln!(
                            "== macro {name} done in {} ({} rows)",
                            criterion::clock(t0.elapsed().as_secs()),
                            r.rows.len()
                        );
                        reports.push(r);
                    }
                    Err(e) => {
                        eprintln!("== macro {name} FAILED: {e}");
                        skipped.push((name.to_owned(), format!("failed: {e}")));
                        *ok = false;
                    }
                }
            }
        }
    }
    Ok((reports, skipped))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// One CSV field, quoted when it contains a separator or quote (ids like `N=1024,M=8` do).
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

fn opt_num(v: Option<f64>) -> String {
    v.map_or_else(String::new, |x| format!("{x}"))
}

/// `results.csv`: one row per criterion benchmark; times in ns per iteration, `per_second`
/// in the throughput's unit (bytes or elements) at the mean time.
fn results_csv(results: &[BenchResult]) -> String {
    let mut s = String::from(
        "id,group,function,parameter,mean,median,std_dev,mean_ci_low,mean_ci_high,unit,throughput_bytes,throughput_elements,per_second,change_pct\n",
    );
    for r in results {
        let (bytes, elements) = match r.throughput {
            Some(Throughput::Bytes(n)) => (n.to_string(), String::new()),
            Some(Throughput::Elements(n)) => (String::new(), n.to_string()),
            None => (String::new(), String::new()),
        };
        let fields = [
            csv_field(&r.id),
            csv_field(&r.group),
            csv_field(r.function.as_deref().unwrap_or("")),
            csv_field(r.parameter.as_deref().unwrap_or("")),
            format!("{}", r.mean_ns),
            format!("{}", r.median_ns),
            format!("{}", r.std_dev_ns),
            format!("{}", r.mean_lo_ns),
            format!("{}", r.mean_hi_ns),
            "ns".to_owned(),
            bytes,
            elements,
            opt_num(r.per_second()),
            opt_num(r.change_pct),
        ];
        s.push_str(&fields.join(","));
        s.push('\n');
    }
    s
}

fn macro_csv(r: &MacroReport) -> String {
    let mut s = format!(
        "series,{},{}\n",
        csv_field(&r.x_label),
        csv_field(&r.y_label)
    );
    for row in &r.rows {
        s.push_str(&format!("{},{},{}\n", csv_field(&row.series), row.x, row.y));
    }
    s
}

fn result_json(r: &BenchResult) -> Value {
    let throughput = match r.throughput {
        Some(Throughput::Bytes(n)) => json!({ "bytes": n }),
        Some(Throughput::Elements(n)) => json!({ "elements": n }),
        None => Value::Null,
    };
    json!({
        "id": r.id,
        "group": r.group,
        "function": r.function,
        "parameter": r.parameter,
        "unit": "ns",
        "mean": r.mean_ns,
        "mean_ci": [r.mean_lo_ns, r.mean_hi_ns],
        "median": r.median_ns,
        "std_dev": r.std_dev_ns,
        "throughput": throughput,
        "per_second": r.per_second(),
        "change_pct": r.change_pct,
    })
}

fn write_results(
    out: &Path,
    command: &str,
    results: &[BenchResult],
    reports: &[MacroReport],
    skipped: &[(String, String)],
) -> Result<(), String> {
    let doc = json!({
        "generated_by": command,
        "micro": results.iter().map(result_json).collect::<Vec<_>>(),
        "macro": reports.iter().map(|r| json!({
            "name": r.name,
            "title": r.title,
            "x_label": r.x_label,
            "y_label": r.y_label,
            "rows": r.rows.iter().map(|row| json!({"series": row.series, "x": row.x, "y": row.y})).collect::<Vec<_>>(),
            "notes": r.notes,
        })).collect::<Vec<_>>(),
        "skipped_macro": skipped.iter().map(|(n, why)| json!({"name": n, "reason": why})).collect::<Vec<_>>(),
    });
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    write(&out.join("results.json"), &text)?;
    write(&out.join("results.csv"), &results_csv(results))?;
    // Stale per-report CSVs from an earlier run would look like this run's output.
    remove_matching(out, |n| n.starts_with("macro-") && n.ends_with(".csv"))?;
    for r in reports {
        write(
            &out.join(format!("macro-{}.csv", plot::file_safe(&r.name))),
            &macro_csv(r),
        )?;
    }
    Ok(())
}

fn remove_matching(dir: &Path, pred: impl Fn(&str) -> bool) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for e in entries.flatten() {
        let name = e.file_name();
        if pred(&name.to_string_lossy()) {
            std::fs::remove_file(e.path())
                .map_err(|err| format!("{}: {err}", e.path().display()))?;
        }
    }
    Ok(())
}

/// Draws every figure that has data; returns `(stem, title)` of each SVG written.
fn write_charts(
    out: &Path,
    results: &[BenchResult],
    reports: &[MacroReport],
) -> Result<Vec<(String, String)>, String> {
    // Only this run's figures stay, so summary.md and --update-docs never pick up old ones.
    remove_matching(out, |n| n.ends_with(".svg"))?;
    let mut charts = plot::fig5_charts(results);
    charts.extend(reports.iter().map(plot::macro_chart));
    charts.extend(plot::scaling_charts(results));
    let mut written = Vec::new();
    for c in &charts {
        // Tall enough for the legend column (20 px per series).
        let height = (80 + 20 * c.series.len() as u32).max(520);
        match plot::render_svg(c, 1100, height) {
            Ok(svg) => {
                let path = out.join(format!("{}.svg", c.stem));
                write(&path, &svg)?;
                eprintln!(
                    "wrote {} ({} bytes, {} series)",
                    path.display(),
                    svg.len(),
                    c.series.len()
                );
                written.push((c.stem.clone(), c.title.clone()));
            }
            Err(e) => eprintln!("figure {} not drawn: {e}", c.stem),
        }
    }
    Ok(written)
}

/// Regenerates the marked section of `docs/PERFORMANCE.md` and replaces `docs/img/*.svg`
/// (that folder holds only generated figures) with this run's SVGs.
fn update_docs(
    root: &Path,
    out: &Path,
    md: &str,
    charts: &[(String, String)],
) -> Result<(), String> {
    let doc_path = root.join("docs").join("PERFORMANCE.md");
    let doc =
        std::fs::read_to_string(&doc_path).map_err(|e| format!("{}: {e}", doc_path.display()))?;
    write(&doc_path, &summary::replace_generated(&doc, md)?)?;
    let img: PathBuf = root.join("docs").join("img");
    std::fs::create_dir_all(&img).map_err(|e| format!("{}: {e}", img.display()))?;
    remove_matching(&img, |n| n.ends_with(".svg"))?;
    for (stem, _) in charts {
        let name = format!("{stem}.svg");
        std::fs::copy(out.join(&name), img.join(&name))
            .map_err(|e| format!("copying {name} to docs/img: {e}"))?;
    }
    eprintln!(
        "updated {} and {} figures in {}",
        doc_path.display(),
        charts.len(),
        img.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|a| (*a).to_owned()).collect()
    }

    /// `cargo xtask bench <args>`, parsed by the real command line.
    fn parse(args: &[&str]) -> Result<Args, String> {
        let argv: Vec<&str> = ["bench"].iter().chain(args).copied().collect();
        match crate::tests::parse(&argv) {
            Ok(Some(crate::Task::Bench(a))) => Ok(a),
            Ok(other) => Err(format!("parsed as {other:?}")),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn options_parse_and_map_to_criterion_flags() {
        let o = parse(&["--quick", "--filter", "fig5/xor", "--save-baseline", "b1"])
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(o.quick);
        assert_eq!(
            criterion_args(&o),
            args(&[
                "--noplot",
                "--warm-up-time",
                "0.5",
                "--measurement-time",
                "2",
                "--sample-size",
                "10",
                "--save-baseline",
                "b1",
                "fig5/xor"
            ])
        );
        assert_eq!(
            o.command_line(),
            "cargo xtask bench --quick --filter fig5/xor --save-baseline b1"
        );
        let quick = parse(&["--quick"]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            criterion_args(&quick).last().map(String::as_str),
            Some(QUICK_FILTER)
        );
        let full = parse(&["--baseline", "main"]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            criterion_args(&full),
            args(&["--noplot", "--baseline", "main"])
        );
        let all =
            parse(&["--no-micro", "--no-macro", "--update-docs"]).unwrap_or_else(|e| panic!("{e}"));
        assert!(all.no_micro && all.no_macro && all.update_docs && !all.quick);
        assert_eq!(
            all.command_line(),
            "cargo xtask bench --no-micro --no-macro --update-docs"
        );
        assert_eq!(
            parse(&[]).map(|a| a.command_line()),
            Ok("cargo xtask bench".to_owned())
        );
        let exclusive = parse(&["--baseline", "a", "--save-baseline", "b"]);
        assert!(exclusive.is_err(), "{exclusive:?}");
        assert!(parse(&["--filter"]).is_err());
        let bad_regex = parse(&["--filter", "("]).err().unwrap_or_default();
        assert!(bad_regex.contains("--filter"), "{bad_regex}");
        assert!(parse(&["--fast"]).is_err());
    }

    #[test]
    fn quick_filter_keeps_small_sizes_only() {
        let re = Regex::new(QUICK_FILTER).unwrap_or_else(|e| panic!("{e}"));
        for id in [
            "fig5/hashing-generator/ristretto255/cover/26",
            "fig5/hashing-generator/p256/verify-batch/4096",
            "neff/ristretto255/prove/256",
            "vector-dleq/p256/verify/16",
            "schnorr/ristretto255/prove",
        ] {
            assert!(re.is_match(id), "{id}");
        }
        for id in [
            "fig5/hashing-generator/ristretto255/cover/65536",
            "fig5/xor/ristretto255/cover-M16/1048576",
            "neff/ristretto255/prove/1024",
            "key_shuffle/ristretto255/full/N=1024,M=8",
            "ristretto255/wrapper/scalar_mul",
        ] {
            assert!(!re.is_match(id), "{id}");
        }
    }

    #[test]
    fn csv_quotes_ids_with_commas() {
        let r = BenchResult {
            id: "key_shuffle/ristretto255/full/N=1024,M=8".into(),
            group: "key_shuffle/ristretto255".into(),
            function: Some("full".into()),
            parameter: Some("N=1024,M=8".into()),
            mean_ns: 3.5e9,
            mean_lo_ns: 3.4e9,
            mean_hi_ns: 3.6e9,
            median_ns: 3.5e9,
            std_dev_ns: 1e7,
            throughput: Some(Throughput::Bytes(10)),
            change_pct: None,
        };
        let csv = results_csv(&[r]);
        let line = csv.lines().nth(1).unwrap_or_default();
        assert!(line.starts_with("\"key_shuffle/ristretto255/full/N=1024,M=8\",key_shuffle/ristretto255,full,\"N=1024,M=8\",3500000000,"), "{line}");
        assert!(line.contains(",ns,10,,"), "{line}");
        assert_eq!(csv.lines().count(), 2);
    }
}
