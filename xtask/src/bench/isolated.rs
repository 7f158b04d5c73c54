//! A scaling run's thread counts each in a fresh process.
//!
//! `VERDICT_THREADS=1,2` runs a benchmark that scales with threads once per count. Run one
//! after another in one process, the second series inherits the first's heap: at N = 1024 the
//! process had grown to 3–5 GB, and the same code measured 15–40 % faster in a fresh process
//! (docs/PERFORMANCE.md, "The generated section of 2026-12-06"). The speed-up rows then said as
//! much about the order as about the threads. So `cargo xtask bench` starts itself once per
//! count, as the hidden task `bench-macro-child NAME` with `VERDICT_THREADS=<count>`, reads
//! the child's report (JSON on its stdout, progress on its stderr) and merges the series in
//! the listed order.

use std::process::{Command, Stdio};

use verdict_bench::macro_bench::threads::{THREADS_VAR, thread_counts};
use verdict_bench::macro_bench::{MacroBench, MacroConfig, MacroEntry, MacroReport, registry};

use super::results::{macro_json, parse_macro};

/// The hidden task's name on the command line.
const CHILD_TASK: &str = "bench-macro-child";

/// Runs one macro benchmark in this process and prints its report as JSON on stdout
/// (internal: `cargo xtask bench` starts it once per thread count of a scaling run).
#[derive(Debug, PartialEq, clap::Args)]
pub(crate) struct ChildArgs {
    /// The macro benchmark's name
    name: String,
    /// The --quick points
    #[arg(long)]
    quick: bool,
    /// Only the largest point
    #[arg(long)]
    largest: bool,
}

/// The hidden task: runs `args.name` here, progress on stderr, the report on stdout.
pub(crate) fn child(args: &ChildArgs) -> bool {
    let config = MacroConfig {
        quick: args.quick,
        largest_only: args.largest,
    };
    let Some(bench) = registry().into_iter().find_map(|e| match e {
        MacroEntry::Ready(b) if b.name() == args.name => Some(b),
        _ => None,
    }) else {
        eprintln!("no runnable macro benchmark named {}", args.name);
        return false;
    };
    let mut progress = |m: &str| eprintln!("{m}");
    match bench.run(&config, &mut progress) {
        Ok(report) => {
            println!("{}", macro_json(&report));
            true
        }
        Err(e) => {
            eprintln!("{}: {e}", args.name);
            false
        }
    }
}

/// Whether a benchmark runs once per thread count in child processes: it scales with threads
/// and `VERDICT_THREADS` lists more than one count. (A child's own list has one count.)
fn isolates(scales: bool, counts: Option<&[usize]>) -> bool {
    scales && counts.is_some_and(|c| c.len() > 1)
}

/// Runs `bench`: once per thread count in a fresh process each when [`isolates`] says so,
/// otherwise here.
pub(crate) fn run(
    bench: &dyn MacroBench,
    config: &MacroConfig,
    progress: &mut dyn FnMut(&str),
) -> Result<MacroReport, String> {
    let counts = thread_counts().map_err(|e| e.to_string())?;
    let Some(counts) = counts.filter(|c| isolates(bench.scales_with_threads(), Some(c))) else {
        return bench.run(config, progress).map_err(|e| e.to_string());
    };
    let mut reports = Vec::with_capacity(counts.len());
    for t in counts {
        progress(&format!(
            "{} with {t} thread(s), in a fresh process",
            bench.name()
        ));
        reports.push(run_child(bench.name(), config, t)?);
    }
    merge(reports).ok_or_else(|| format!("{THREADS_VAR} lists no thread count"))
}

/// One child run of `name` with `VERDICT_THREADS=<threads>`.
fn run_child(name: &str, config: &MacroConfig, threads: usize) -> Result<MacroReport, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find xtask's binary: {e}"))?;
    let mut cmd = Command::new(exe);
    cmd.args(child_args(name, config))
        .env(THREADS_VAR, threads.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let out = cmd
        .output()
        .map_err(|e| format!("cannot start {CHILD_TASK} {name}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{CHILD_TASK} {name} with {threads} thread(s) failed: {}",
            out.status
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let json = text
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .ok_or_else(|| format!("{CHILD_TASK} {name} printed no report"))?;
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("{CHILD_TASK} {name}: {e}"))?;
    Ok(parse_macro(&value))
}

/// The child's command line after the binary.
fn child_args(name: &str, config: &MacroConfig) -> Vec<String> {
    let mut args = vec![CHILD_TASK.to_owned(), name.to_owned()];
    if config.quick {
        args.push("--quick".to_owned());
    }
    if config.largest_only {
        args.push("--largest".to_owned());
    }
    args
}

/// The children's reports as one: the first's metadata and notes, every child's rows in
/// order (each child already labelled its series `threads=<t>`).
fn merge(reports: Vec<MacroReport>) -> Option<MacroReport> {
    let mut reports = reports.into_iter();
    let mut merged = reports.next()?;
    for r in reports {
        merged.rows.extend(r.rows);
    }
    merged
        .notes
        .push("each thread count ran in a fresh process, in the listed order".to_owned());
    Some(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_bench::macro_bench::MacroRow;

    fn report(series: &str, y: f64) -> MacroReport {
        MacroReport {
            name: "fig7".into(),
            title: "Figure 7".into(),
            x_label: "clients".into(),
            y_label: "s".into(),
            log_x: true,
            log_y: true,
            rows: vec![MacroRow {
                series: series.into(),
                x: 1024.0,
                y,
            }],
            notes: vec!["N = 1024".into()],
        }
    }

    #[test]
    fn only_a_scaling_benchmark_with_several_counts_is_isolated() {
        assert!(isolates(true, Some(&[1, 2])));
        assert!(isolates(true, Some(&[1, 2, 1, 2])));
        // A child's own run (one count), an unset variable, a benchmark that does not scale.
        assert!(!isolates(true, Some(&[2])));
        assert!(!isolates(true, None));
        assert!(!isolates(false, Some(&[1, 2])));
    }

    #[test]
    fn children_run_the_hidden_task_with_the_run_options() {
        let quick = MacroConfig {
            quick: true,
            largest_only: false,
        };
        assert_eq!(
            child_args("fig7", &quick),
            ["bench-macro-child", "fig7", "--quick"]
        );
        let largest = MacroConfig {
            quick: false,
            largest_only: true,
        };
        assert_eq!(
            child_args("fig7", &largest),
            ["bench-macro-child", "fig7", "--largest"]
        );
    }

    #[test]
    fn the_child_report_survives_its_json() {
        let r = report("hybrid threads=2", 0.0456);
        let back = parse_macro(&serde_json::from_str(&macro_json(&r).to_string()).unwrap());
        assert_eq!(back.rows, r.rows);
        assert_eq!((back.name, back.notes), (r.name, r.notes));
    }

    #[test]
    fn merged_series_keep_the_listed_order() {
        let merged = merge(vec![
            report("hybrid threads=1", 0.0734),
            report("hybrid threads=2", 0.0456),
            report("hybrid threads=1", 0.0730),
        ])
        .unwrap();
        let series: Vec<&str> = merged.rows.iter().map(|r| r.series.as_str()).collect();
        assert_eq!(
            series,
            ["hybrid threads=1", "hybrid threads=2", "hybrid threads=1"]
        );
        assert!(merged.notes.iter().any(|n| n.contains("fresh process")));
        assert!(merge(Vec::new()).is_none());
    }
}
