//! `cargo xtask bench`: runs the criterion micro benchmarks target by target and the macro
//! benchmarks of `verdict_bench::macro_bench`, then writes under `target/verdict-bench/`:
//! `results.json`, `results.csv` (one row per criterion benchmark), `macro-<name>.csv`, one
//! SVG per figure, and `summary.md` (machine, our numbers next to the paper's, tables, plot
//! links). `--update-docs` puts that summary into the generated section of
//! `docs/PERFORMANCE.md` and copies the SVGs to `docs/img/`.

mod baseline;
mod criterion;
mod fig5;
mod figs;
mod figure;
mod html;
pub(crate) mod isolated;
mod plot;
mod png;
mod render;
pub(crate) mod report_check;
mod results;
mod summary;
mod targets;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use regex::Regex;
use verdict_bench::macro_bench::{MacroConfig, MacroEntry, MacroReport, registry};

use self::criterion::BenchResult;
use self::figure::Figure;
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
    /// Macro benchmarks at their largest point only (Figure 7 at N = 1024, where the targets
    /// are stated): a check of the targets that fits in a quiet stretch of the machine
    #[arg(long, conflicts_with_all = ["quick", "update_docs"])]
    largest: bool,
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
    /// Measure nothing: redraw the figures, summary.md and index.html from the
    /// results.json of the last run
    #[arg(long, conflicts_with_all = ["quick", "no_micro", "no_macro", "save_baseline"])]
    replot: bool,
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
            (self.largest, "--largest"),
            (self.no_micro, "--no-micro"),
            (self.no_macro, "--no-macro"),
            (self.update_docs, "--update-docs"),
            (self.replot, "--replot"),
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

/// Set on the release build that a dev build of xtask hands a benchmark run to, so that a
/// release build with debug assertions turned on cannot hand it on again.
const HANDED_OVER: &str = "VERDICT_XTASK_BENCH_RELEASE";

/// Runs the task; returns whether it succeeded.
pub(crate) fn run(root: &Path, args: &Args) -> bool {
    if runs_macros_unoptimized(args) {
        return hand_over_to_release();
    }
    match run_with(root, args) {
        Ok(ok) => ok,
        Err(e) => {
            eprintln!("bench: {e}");
            false
        }
    }
}

/// Whether this process would time the macro benchmarks in a dev build.
///
/// The macro benchmarks run inside this process, so they measure the profile xtask was built
/// with, and `cargo xtask` builds the dev profile: our crates at opt-level 1 with debug
/// assertions and overflow checks, right for tidy and the vectors, wrong for timing a protocol.
/// (The criterion benchmarks are separate `cargo bench` processes and always optimized.)
fn runs_macros_unoptimized(o: &Args) -> bool {
    cfg!(debug_assertions) && !o.no_macro && !o.replot && std::env::var_os(HANDED_OVER).is_none()
}

/// Runs this same command line (`bench` and its options) in a release build of xtask, which
/// cargo builds first if needed, and returns whether it succeeded. clap has already parsed
/// every argument as UTF-8, so they pass on unchanged.
fn hand_over_to_release() -> bool {
    eprintln!("bench: the macro benchmarks run in this process, which is a dev build");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut cargo_args = vec!["run", "--release", "--quiet", "--package", "xtask", "--"];
    cargo_args.extend(args.iter().map(String::as_str));
    crate::cargo(&cargo_args, &[(HANDED_OVER, "1")])
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

    let (command, machine, mut results, reports, skipped) = if o.replot {
        let path = out.join("results.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("--replot needs {} from a run: {e}", path.display()))?;
        let l = results::parse_results_json(&text)?;
        eprintln!("replotting {} ({})", path.display(), l.command);
        let machine = l.machine.unwrap_or_else(Machine::detect);
        (l.command, machine, l.results, l.reports, l.skipped)
    } else {
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
                "{} older results in target/criterion are not part of this run and were left \
                 out (`--no-micro` reports everything there)",
                collected.older
            );
        }
        let (reports, skipped) = if o.no_macro {
            (Vec::new(), Vec::new())
        } else {
            run_macros(o, &mut ok)?
        };
        (
            o.command_line(),
            Machine::detect(),
            collected.results,
            reports,
            skipped,
        )
    };
    // Without a run (`--no-micro`, `--replot`) the filter selects what is reported; after a
    // run it keeps exactly what criterion measured.
    if let Some(f) = &o.filter {
        let re = Regex::new(f).map_err(|e| format!("--filter: {e}"))?;
        results.retain(|r| re.is_match(&r.id));
    }
    // Against a baseline: criterion's saved estimates of the same benchmarks.
    let comparisons = match &o.baseline {
        Some(name) => baseline::compare(&meta.target_dir.join("criterion"), name, &results),
        None => Vec::new(),
    };

    if !o.replot {
        results::write_results(&out, &command, &machine, &results, &reports, &skipped)?;
    }
    let charts = write_charts(&out, &machine, &results, &reports)?;
    let input = |img_prefix| SummaryInput {
        machine: &machine,
        command: &command,
        results: &results,
        reports: &reports,
        skipped: &skipped,
        charts: &charts,
        img_prefix,
        baseline: o.baseline.as_deref().map(|n| (n, comparisons.as_slice())),
    };
    let md = summary::render_markdown(&input(""));
    write(&out.join("summary.md"), &md)?;
    write(&out.join("index.html"), &html::render(&input("")))?;

    println!(
        "\n{} ({} logical cores), {}, commit {}\n",
        machine.cpu, machine.cores, machine.rustc, machine.commit
    );
    println!(
        "{}",
        summary::comparison_table(&summary::compare_with_paper(&results))
    );
    if let Some(name) = &o.baseline {
        println!("{}", baseline::markdown(name, &comparisons));
    }
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
        "\n{} criterion results, {} macro reports, {} figures in {} (index.html, summary.md, results.csv, results.json); total {}",
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
        largest_only: o.largest,
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
                match isolated::run(bench.as_ref(), &config, &mut progress) {
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

pub(crate) fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

pub(crate) fn remove_matching(dir: &Path, pred: impl Fn(&str) -> bool) -> Result<(), String> {
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

/// Every figure that has data: Figure 5, Figures 6-8 and any other macro report, the
/// scaling figures.
fn figures(results: &[BenchResult], reports: &[MacroReport]) -> Vec<Figure> {
    let mut figs: Vec<Figure> = fig5::fig5_figure(&plot::fig5_points(results))
        .into_iter()
        .collect();
    figs.extend(reports.iter().map(figs::macro_figure));
    figs.extend(plot::scaling_figures(results));
    figs
}

/// Draws every figure as SVG and PNG; returns `(stem, title)` of each one written.
fn write_charts(
    out: &Path,
    machine: &Machine,
    results: &[BenchResult],
    reports: &[MacroReport],
) -> Result<Vec<(String, String)>, String> {
    // Only this run's figures stay, so summary.md and --update-docs never pick up old ones.
    remove_matching(out, |n| n.ends_with(".svg") || n.ends_with(".png"))?;
    let footer = machine.footer();
    let fonts = png::options();
    if !png::has_fonts(&fonts) {
        eprintln!("no system fonts found: the PNG figures will have no text (the SVGs do)");
    }
    let mut written = Vec::new();
    for f in figures(results, reports) {
        let svg = match render::render_svg(&f, &footer) {
            Ok(svg) => svg,
            Err(e) => {
                eprintln!("figure {} not drawn: {e}", f.stem);
                continue;
            }
        };
        write(&out.join(format!("{}.svg", f.stem)), &svg)?;
        // Twice the pixel size: sharp on high-density screens and in print.
        match png::svg_to_png(&svg, &fonts, 2.0) {
            Ok(bytes) => {
                let path = out.join(format!("{}.png", f.stem));
                std::fs::write(&path, bytes)
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
            Err(e) => eprintln!("figure {}: no PNG: {e}", f.stem),
        }
        eprintln!(
            "wrote {}.svg and .png ({} panels)",
            out.join(&f.stem).display(),
            f.panels.len()
        );
        written.push((f.stem.clone(), f.title.clone()));
    }
    Ok(written)
}

/// Regenerates the marked section of `docs/PERFORMANCE.md` and replaces `docs/img/*.svg` and
/// `*.png` (that folder holds only generated figures) with this run's figures.
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
    remove_matching(&img, |n| n.ends_with(".svg") || n.ends_with(".png"))?;
    for (stem, _) in charts {
        for ext in ["svg", "png"] {
            let name = format!("{stem}.{ext}");
            if out.join(&name).exists() {
                std::fs::copy(out.join(&name), img.join(&name))
                    .map_err(|e| format!("copying {name} to docs/img: {e}"))?;
            }
        }
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

    /// Only a run that times macro benchmarks moves to a release build: the criterion-only run
    /// and the replot stay in the process that was asked.
    #[test]
    fn only_macro_runs_of_a_dev_build_move_to_release() {
        let moves =
            |a: &[&str]| runs_macros_unoptimized(&parse(a).unwrap_or_else(|e| panic!("{e}")));
        assert_eq!(moves(&[]), cfg!(debug_assertions));
        assert_eq!(
            moves(&["--no-micro", "--filter", "fig7"]),
            cfg!(debug_assertions)
        );
        assert!(!moves(&["--no-macro"]));
        assert!(!moves(&["--replot"]));
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
        // --largest is a check of the targets, never the documented figures.
        assert_eq!(
            parse(&["--no-micro", "--largest"]).map(|a| (a.largest, a.command_line())),
            Ok((true, "cargo xtask bench --largest --no-micro".to_owned()))
        );
        assert!(parse(&["--largest", "--update-docs"]).is_err());
        assert!(parse(&["--largest", "--quick"]).is_err());
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
}
