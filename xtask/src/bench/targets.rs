//! Every target stated in docs/PERFORMANCE.md, checked against a run: pass, fail or not
//! measured, with the number it was judged on. The list mirrors the document's sections
//! (verdict-group, verdict-nizk, verdict-shuffle, verdict-dcnet, the Figure 7 targets of
//! issue 6, the 2-thread ones of issue 17, the loopback group); a test checks that every
//! target sentence of the document has an entry here.

use verdict_bench::macro_bench::{MacroReport, reference};

use super::criterion::BenchResult;
use super::plot::fig5_points;
use super::summary::{sig3, time};

/// How a target is judged.
#[derive(Clone, Copy, Debug)]
enum Rule {
    /// Mean time of benchmark `id` at most this many ns.
    AtMostNs(&'static str, f64),
    /// Mean time of `id` divided by `n` at most this many ns (per-element cost).
    PerElementAtMostNs(&'static str, f64, f64),
    /// Mean of `slow` over mean of `fast` at least this factor (a speed-up).
    SpeedupAtLeast(&'static str, &'static str, f64),
    /// Throughput of Figure 5 series `fig5/<suite>/<group>/<op>` at its largest measured block
    /// at least this many KB/s.
    KbPerSecAtLeast(&'static str, f64),
    /// Throughput of the first series over the second's at their largest common block at
    /// least this fraction.
    FractionAtLeast(&'static str, &'static str, f64),
    /// Value of macro `report`'s `series` on `pool` at its largest x (repeated runs averaged)
    /// at most this much, the target being stated at `x = at`.
    MacroAtMost(&'static str, &'static str, Pool, f64, f64),
    /// As [`Rule::MacroAtMost`], the value read at the machine's speed when the target was set:
    /// scaled by the report's reference kernel rows at that x (`verdict_bench::macro_bench::
    /// reference`) against the kernel's time then. Without reference rows, judged as measured.
    MacroAtMostAtTargetSpeed(&'static str, &'static str, Pool, f64, f64),
    /// Macro `report`'s `series` on one thread over on two (`VERDICT_THREADS=1,2`: rows
    /// labelled `"<series> threads=<t>"`, repeated runs averaged) at its largest x at least
    /// this factor, the target being stated at `x = at`.
    MacroSpeedupAtLeast(&'static str, &'static str, f64, f64),
    /// Macro `report`'s `series` over its `bound` series at their largest common x at most
    /// this factor; the note says why the run cannot settle it on a shared machine.
    MacroRatioAtMost(&'static str, &'static str, &'static str, f64, &'static str),
    /// Checked by a test rather than a benchmark.
    Tested(&'static str),
}

/// Which thread pool a macro target is judged on.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Pool {
    /// The run's default pool (the unlabelled series); a `VERDICT_THREADS` run has none, and
    /// its one-thread series stands in: a limit met on one thread is met on more.
    Default,
    /// Exactly this many threads: the `"<series> threads=<t>"` series of a `VERDICT_THREADS`
    /// run, else the default pool's series (as many threads as the machine table's cores).
    Threads(u32),
}

/// One target of docs/PERFORMANCE.md.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target {
    pub what: &'static str,
    /// The document section it is stated in.
    pub section: &'static str,
    pub goal: &'static str,
    rule: Rule,
}

const fn t(what: &'static str, section: &'static str, goal: &'static str, rule: Rule) -> Target {
    Target {
        what,
        section,
        goal,
        rule,
    }
}

/// The targets, in the order of docs/PERFORMANCE.md.
pub(crate) const TARGETS: &[Target] = &[
    t(
        "ristretto255 scalar multiplication",
        "verdict-group",
        "≈ 20 µs (the design notes' machine)",
        Rule::AtMostNs("ristretto255/wrapper/scalar_mul", 20e3),
    ),
    t(
        "ristretto255 MSM n = 4096, per point",
        "verdict-group",
        "≤ 4 µs per point",
        Rule::PerElementAtMostNs("ristretto255/wrapper/msm_vartime/4096", 4096.0, 4e3),
    ),
    t(
        "batch verification of 1,000 DLEQ proofs, ristretto255",
        "verdict-nizk",
        "≥ 5× one by one",
        Rule::SpeedupAtLeast(
            "batch-dleq-1000/ristretto255/one-by-one",
            "batch-dleq-1000/ristretto255/batch",
            5.0,
        ),
    ),
    t(
        "batch verification of 1,000 DLEQ proofs, P-256",
        "verdict-nizk",
        "≥ 5× one by one",
        Rule::SpeedupAtLeast(
            "batch-dleq-1000/p256/one-by-one",
            "batch-dleq-1000/p256/batch",
            5.0,
        ),
    ),
    t(
        "Neff shuffle batched verify, n = 1024, ristretto255",
        "verdict-shuffle",
        "≤ 60 ms",
        Rule::AtMostNs("neff/ristretto255/verify/1024", 60e6),
    ),
    t(
        "Neff shuffle prove, n = 1024, ristretto255",
        "verdict-shuffle",
        "≤ 100 ms",
        Rule::AtMostNs("neff/ristretto255/prove/1024", 100e6),
    ),
    t(
        "Neff shuffle proof size",
        "verdict-shuffle",
        "7n + 3 points and 3n scalars",
        Rule::Tested("verdict-shuffle's proof-size test (cargo test -p verdict-shuffle)"),
    ),
    t(
        "hashing-generator/ristretto255 batched verification",
        "verdict-dcnet",
        "≥ 3 MB/s",
        Rule::KbPerSecAtLeast("fig5/hashing-generator/ristretto255/verify-batch", 3000.0),
    ),
    t(
        "hashing-generator/ristretto255 generation",
        "verdict-dcnet",
        "≥ 1 MB/s",
        Rule::KbPerSecAtLeast("fig5/hashing-generator/ristretto255/cover", 1000.0),
    ),
    t(
        "XOR client ciphertext, M = 16",
        "verdict-dcnet",
        "≥ 300 MB/s",
        Rule::KbPerSecAtLeast("fig5/xor/ristretto255/cover", 300_000.0),
    ),
    t(
        "XOR client ciphertext vs 16 raw blake3 streams",
        "verdict-dcnet",
        "≥ 70 % of raw",
        Rule::FractionAtLeast(
            "fig5/xor/ristretto255/cover",
            "fig5/xor/ristretto255/raw-blake3-16",
            0.7,
        ),
    ),
    t(
        "eager round, N = 1024, 16 slots of 256 B",
        "Figure 7 (issue 6)",
        "≤ 1 s server CPU",
        Rule::MacroAtMost(
            "fig7",
            "eager round, server CPU",
            Pool::Default,
            1.0,
            1024.0,
        ),
    ),
    t(
        "hybrid XOR round, N = 1024, 1 KB slots",
        "Figure 7 (issue 6)",
        "≤ 100 ms server CPU",
        Rule::MacroAtMost(
            "fig7",
            "hybrid XOR round, server CPU",
            Pool::Default,
            0.1,
            1024.0,
        ),
    ),
    t(
        "hybrid blame, N = 1024",
        "Figure 7 (issue 6)",
        "≤ 1 s server CPU",
        Rule::MacroAtMost(
            "fig7",
            "hybrid blame, server CPU",
            Pool::Default,
            1.0,
            1024.0,
        ),
    ),
    t(
        "eager round, N = 1024, 2 threads",
        "Using every core (issue 17)",
        "≤ 0.3 s server CPU on 2 threads",
        Rule::MacroAtMostAtTargetSpeed(
            "fig7",
            "eager round, server CPU",
            Pool::Threads(2),
            0.3,
            1024.0,
        ),
    ),
    t(
        "hybrid XOR round, N = 1024, 2 threads",
        "Using every core (issue 17)",
        "≤ 50 ms server CPU on 2 threads",
        Rule::MacroAtMostAtTargetSpeed(
            "fig7",
            "hybrid XOR round, server CPU",
            Pool::Threads(2),
            0.05,
            1024.0,
        ),
    ),
    t(
        "set-up, N = 1024, 2 threads",
        "Using every core (issue 17)",
        "≤ 1.5 s server CPU on 2 threads",
        Rule::MacroAtMostAtTargetSpeed("fig7", "set-up, server CPU", Pool::Threads(2), 1.5, 1024.0),
    ),
    t(
        "eager round, 1 → 2 threads",
        "Using every core (issue 17)",
        "≥ 1.8× (VERDICT_THREADS=1,2)",
        Rule::MacroSpeedupAtLeast("fig7", "eager round, server CPU", 1.8, 1024.0),
    ),
    t(
        "lazy round, 1 → 2 threads",
        "Using every core (issue 17)",
        "≥ 1.8× (VERDICT_THREADS=1,2)",
        Rule::MacroSpeedupAtLeast("fig7", "lazy round, server CPU", 1.8, 1024.0),
    ),
    t(
        "hybrid XOR round, 1 → 2 threads",
        "Using every core (issue 17)",
        "≥ 1.8× (VERDICT_THREADS=1,2)",
        Rule::MacroSpeedupAtLeast("fig7", "hybrid XOR round, server CPU", 1.8, 1024.0),
    ),
    t(
        "hybrid blame, 1 → 2 threads",
        "Using every core (issue 17)",
        "≥ 1.8× (VERDICT_THREADS=1,2)",
        Rule::MacroSpeedupAtLeast("fig7", "hybrid blame, server CPU", 1.8, 1024.0),
    ),
    t(
        "set-up, 1 → 2 threads",
        "Using every core (issue 17)",
        "≥ 1.8× (VERDICT_THREADS=1,2)",
        Rule::MacroSpeedupAtLeast("fig7", "set-up, server CPU", 1.8, 1024.0),
    ),
    t(
        "loopback round, M = 8, largest N",
        "A real group on loopback vs the simulator",
        "≤ 1.5× the simulator's busiest-server CPU plus link time",
        Rule::MacroRatioAtMost(
            "loopback",
            "loopback M=8",
            "predicted M=8",
            1.5,
            "all N + M processes share this machine's cores, the target assumes one machine \
             per server: not conclusive (the document's loopback section has the node's own \
             overhead, ×1.35-1.57)",
        ),
    ),
];

/// The outcome of one target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    Pass,
    Fail,
    NotMeasured,
    /// Checked by the test suite, not by this run.
    Tested,
}

impl Status {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "FAIL",
            Status::NotMeasured => "not measured",
            Status::Tested => "checked by tests",
        }
    }
}

/// A target judged against a run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Outcome {
    pub what: &'static str,
    pub section: &'static str,
    pub goal: &'static str,
    pub ours: String,
    pub status: Status,
    /// Where the number comes from, and caveats (measured at a smaller N).
    pub note: String,
}

fn mean(results: &[BenchResult], id: &str) -> Option<f64> {
    results
        .iter()
        .find(|r| r.id == id && r.mean_ns > 0.0)
        .map(|r| r.mean_ns)
}

/// `(block, KB/s)` of every point of Figure 5 series `key`.
fn fig5_series(results: &[BenchResult], key: &str) -> Vec<(u64, f64)> {
    let mut v: Vec<(u64, f64)> = fig5_points(results)
        .into_iter()
        .filter(|p| format!("fig5/{}/{}/{}", p.suite, p.group, p.op) == key)
        .map(|p| (p.block, p.kb_per_s))
        .collect();
    v.sort_by_key(|p| p.0);
    v
}

fn judge(ok: bool) -> Status {
    if ok { Status::Pass } else { Status::Fail }
}

/// Judges every target against the run's results.
pub(crate) fn evaluate(results: &[BenchResult], reports: &[MacroReport]) -> Vec<Outcome> {
    TARGETS
        .iter()
        .map(|t| {
            let (ours, status, note) = outcome(t.rule, results, reports);
            Outcome {
                what: t.what,
                section: t.section,
                goal: t.goal,
                ours,
                status,
                note,
            }
        })
        .collect()
}

fn outcome(
    rule: Rule,
    results: &[BenchResult],
    reports: &[MacroReport],
) -> (String, Status, String) {
    let none = |why: String| (String::new(), Status::NotMeasured, why);
    match rule {
        Rule::AtMostNs(id, limit) => match mean(results, id) {
            Some(m) => (time(m), judge(m <= limit), format!("`{id}`")),
            None => none(format!("`{id}` not in this run")),
        },
        Rule::PerElementAtMostNs(id, n, limit) => match mean(results, id) {
            Some(m) => (
                format!("{} per point", time(m / n)),
                judge(m / n <= limit),
                format!("`{id}`"),
            ),
            None => none(format!("`{id}` not in this run")),
        },
        Rule::SpeedupAtLeast(slow, fast, min) => match (mean(results, slow), mean(results, fast)) {
            (Some(s), Some(f)) => (
                format!("{}×", sig3(s / f)),
                judge(s / f >= min),
                format!("`{slow}` / `{fast}`"),
            ),
            _ => none(format!("`{slow}` or `{fast}` not in this run")),
        },
        Rule::KbPerSecAtLeast(key, min) => match fig5_series(results, key).last() {
            Some(&(block, kb)) => (
                format!("{} KB/s", sig3(kb)),
                judge(kb >= min),
                format!("`{key}/{block}` (largest block measured)"),
            ),
            None => none(format!("`{key}` not in this run")),
        },
        Rule::FractionAtLeast(a, b, min) => {
            let (sa, sb) = (fig5_series(results, a), fig5_series(results, b));
            let common = sa
                .iter()
                .rev()
                .find_map(|&(block, x)| sb.iter().find(|p| p.0 == block).map(|p| (block, x / p.1)));
            match common {
                Some((block, f)) => (
                    format!("{} %", sig3(f * 100.0)),
                    judge(f >= min),
                    format!("at {block} B, the largest block both have"),
                ),
                None => none(format!("`{a}` and `{b}` not both in this run")),
            }
        }
        Rule::MacroAtMost(report, series, pool, limit, at) => {
            macro_at_most(reports, (report, series, pool), limit, at, false)
        }
        Rule::MacroAtMostAtTargetSpeed(report, series, pool, limit, at) => {
            macro_at_most(reports, (report, series, pool), limit, at, true)
        }
        Rule::MacroSpeedupAtLeast(report, series, min, at) => {
            // Every run of each thread count at the largest x, averaged.
            let at_threads = |t: u32| {
                largest_x_mean(reports, report, &format!("{series} threads={t}"))
                    .map(|(x, y, _)| (x, y))
            };
            match (at_threads(1), at_threads(2)) {
                (Some((x1, one)), Some((x2, two))) if x1 == x2 && two > 0.0 => {
                    let mut note = format!(
                        "`{report}` “{series}” at N = {}, threads=1 over threads=2",
                        sig3(x1)
                    );
                    if x1 < at {
                        note.push_str(&format!(
                            "; the target is for N = {}: not conclusive",
                            sig3(at)
                        ));
                    }
                    (
                        format!("{}×", sig3(one / two)),
                        judge(one / two >= min),
                        note,
                    )
                }
                _ => none(format!(
                    "no 1- and 2-thread `{report}` series in this run (VERDICT_THREADS=1,2)"
                )),
            }
        }
        Rule::MacroRatioAtMost(report, series, bound, max, caveat) => {
            let points = |label: &str| -> Vec<(f64, f64)> {
                reports
                    .iter()
                    .filter(|r| r.name == report)
                    .flat_map(|r| r.rows.iter().filter(|row| row.series == label))
                    .map(|row| (row.x, row.y))
                    .collect()
            };
            let (ours, limit) = (points(series), points(bound));
            let common = ours
                .iter()
                .filter(|(x, _)| limit.iter().any(|(bx, _)| bx == x))
                .map(|(x, _)| *x)
                .fold(f64::NAN, f64::max);
            let at = |v: &[(f64, f64)]| v.iter().find(|(x, _)| *x == common).map(|p| p.1);
            match (at(&ours), at(&limit)) {
                (Some(o), Some(b)) if b > 0.0 => (
                    format!("{}×", sig3(o / b)),
                    judge(o / b <= max),
                    format!(
                        "`{report}` “{series}” over “{bound}” at N = {}; {caveat}",
                        sig3(common)
                    ),
                ),
                _ => none(format!("macro `{report}` not in this run")),
            }
        }
        Rule::Tested(by) => (String::new(), Status::Tested, by.to_owned()),
    }
}

/// [`Rule::MacroAtMost`] of `(report, series, pool)`, or with `at_target_speed`
/// [`Rule::MacroAtMostAtTargetSpeed`].
fn macro_at_most(
    reports: &[MacroReport],
    (report, series, pool): (&str, &str, Pool),
    limit: f64,
    at: f64,
    at_target_speed: bool,
) -> (String, Status, String) {
    let unlabelled = || largest_x_mean(reports, report, series).map(|p| (p, series.to_owned()));
    let labelled = |t: u32| {
        let label = format!("{series} threads={t}");
        largest_x_mean(reports, report, &label).map(|p| (p, label))
    };
    let judged = match pool {
        Pool::Default => unlabelled().or_else(|| labelled(1)),
        Pool::Threads(t) => labelled(t).or_else(unlabelled),
    };
    let Some(((x, y, runs), label)) = judged else {
        return (
            String::new(),
            Status::NotMeasured,
            format!("macro `{report}` not in this run"),
        );
    };
    let mut note = format!("`{report}` “{label}” at N = {}", sig3(x));
    if runs > 1 {
        note.push_str(&format!(", mean of {runs} runs"));
    }
    if x < at {
        note.push_str(&format!(
            "; the target is for N = {}: not conclusive",
            sig3(at)
        ));
    }
    let kernel = at_target_speed
        .then(|| reference_kernel_at(reports, report, x))
        .flatten();
    match kernel {
        Some((kernel, samples)) => {
            let scaled = reference::at_target_speed(y, kernel);
            note.push_str(&format!(
                "; read at the targets' speed: the reference kernel took {} here (mean of \
                 {samples} around the sessions) against {} when the target was set",
                time(kernel * 1e9),
                time(reference::kernel_when_targets_were_set().as_secs_f64() * 1e9)
            ));
            (
                format!("{} s ({} s at the targets' speed)", sig3(y), sig3(scaled)),
                judge(scaled <= limit),
                note,
            )
        }
        None => (format!("{} s", sig3(y)), judge(y <= limit), note),
    }
}

/// The mean of macro `report`'s reference kernel rows at `x` (whatever thread label a
/// `VERDICT_THREADS` run gave them: the kernel always runs on one thread) and their number.
fn reference_kernel_at(reports: &[MacroReport], report: &str, x: f64) -> Option<(f64, usize)> {
    let ys: Vec<f64> = reports
        .iter()
        .filter(|r| r.name == report)
        .flat_map(|r| r.rows.iter())
        .filter(|row| row.x == x && row.series.starts_with(reference::SERIES))
        .map(|row| row.y)
        .collect();
    (!ys.is_empty() && ys.iter().all(|y| *y > 0.0))
        .then(|| (ys.iter().sum::<f64>() / ys.len() as f64, ys.len()))
}

/// Macro `report`'s series `label` at its largest x: that x, the mean of every run's value
/// there (`VERDICT_THREADS=1,2,1,2` repeats a series) and the number of runs.
fn largest_x_mean(reports: &[MacroReport], report: &str, label: &str) -> Option<(f64, f64, usize)> {
    let rows: Vec<(f64, f64)> = reports
        .iter()
        .filter(|r| r.name == report)
        .flat_map(|r| r.rows.iter().filter(|row| row.series == label))
        .map(|row| (row.x, row.y))
        .collect();
    let x = rows.iter().map(|r| r.0).fold(f64::NAN, f64::max);
    let ys: Vec<f64> = rows.iter().filter(|r| r.0 == x).map(|r| r.1).collect();
    (!ys.is_empty()).then(|| (x, ys.iter().sum::<f64>() / ys.len() as f64, ys.len()))
}

/// The targets as a markdown table.
pub(crate) fn markdown(outcomes: &[Outcome]) -> String {
    let mut s = String::from(
        "| target | stated in | goal | ours | pass/fail | judged on |\n|---|---|---|---|---|---|\n",
    );
    for o in outcomes {
        let status = match o.status {
            Status::Fail => "**FAIL**".to_owned(),
            st => st.label().to_owned(),
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {status} | {} |\n",
            o.what, o.section, o.goal, o.ours, o.note
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::criterion::tests::result as r;
    use verdict_bench::macro_bench::MacroRow;

    fn row(series: &str, x: f64, y: f64) -> MacroRow {
        MacroRow {
            series: series.into(),
            x,
            y,
        }
    }

    /// Status and figure of the first outcome whose name starts with `what`.
    fn status_of(out: &[Outcome], what: &str) -> Option<(Status, String)> {
        out.iter()
            .find(|o| o.what.starts_with(what))
            .map(|o| (o.status, o.ours.clone()))
    }

    /// A macro report `name` holding only `rows` (axes as Figure 7's).
    fn report(name: &str, rows: Vec<MacroRow>) -> MacroReport {
        MacroReport {
            name: name.into(),
            title: name.into(),
            x_label: "clients N".into(),
            y_label: "time (s)".into(),
            log_x: true,
            log_y: true,
            rows,
            notes: vec![],
        }
    }

    #[test]
    fn targets_pass_fail_and_not_measured() {
        let results = vec![
            r("neff/ristretto255", "verify", "1024", "null", 58e6),
            r("neff/ristretto255", "prove", "1024", "null", 145e6),
            // 4096 B in 1 ms = 4096 KB/s (pass); generation 4096 B in 10 ms (fail).
            r(
                "fig5/hashing-generator/ristretto255",
                "verify-batch",
                "4096",
                r#"{"Bytes":4096}"#,
                1e6,
            ),
            r(
                "fig5/hashing-generator/ristretto255",
                "cover",
                "4096",
                r#"{"Bytes":4096}"#,
                10e6,
            ),
            r(
                "fig5/xor/ristretto255",
                "cover",
                "4096",
                r#"{"Bytes":4096}"#,
                20e3,
            ),
            r(
                "fig5/xor/ristretto255",
                "raw-blake3-16",
                "4096",
                r#"{"Bytes":4096}"#,
                16e3,
            ),
        ];
        let fig7 = report(
            "fig7",
            vec![
                row("eager round, server CPU", 16.0, 2.0),
                row("eager round, server CPU", 64.0, 0.3),
            ],
        );
        let out = evaluate(&results, &[fig7]);
        assert_eq!(out.len(), TARGETS.len());
        let st = |what: &str| status_of(&out, what);
        assert_eq!(
            st("Neff shuffle batched"),
            Some((Status::Pass, "58 ms".into()))
        );
        assert_eq!(
            st("Neff shuffle prove"),
            Some((Status::Fail, "145 ms".into()))
        );
        assert_eq!(
            st("Neff shuffle proof size").map(|s| s.0),
            Some(Status::Tested)
        );
        assert_eq!(
            st("hashing-generator/ristretto255 batched"),
            Some((Status::Pass, "4096 KB/s".into()))
        );
        assert_eq!(
            st("hashing-generator/ristretto255 generation").map(|s| s.0),
            Some(Status::Fail)
        );
        assert_eq!(
            st("XOR client ciphertext vs"),
            Some((Status::Pass, "80 %".into()))
        );
        assert_eq!(st("eager round"), Some((Status::Pass, "0.300 s".into())));
        assert_eq!(st("hybrid blame").map(|s| s.0), Some(Status::NotMeasured));
        assert_eq!(
            st("ristretto255 scalar").map(|s| s.0),
            Some(Status::NotMeasured)
        );
        let eager = out
            .iter()
            .find(|o| o.what.starts_with("eager"))
            .map(|o| o.note.clone());
        assert!(eager.unwrap_or_default().contains("not conclusive"));
        let md = markdown(&out);
        assert_eq!(md.lines().count(), 2 + TARGETS.len());
        assert!(md.contains("| **FAIL** |"));
    }

    #[test]
    fn thread_speed_ups_average_repeated_runs_at_the_largest_n() {
        let s = "eager round, server CPU";
        let fig7 = report(
            "fig7",
            vec![
                // 1,2,1,2: means 0.5 and 0.25 at N = 1024 (×2); N = 512 is ignored.
                row(&format!("{s} threads=1"), 512.0, 9.0),
                row(&format!("{s} threads=1"), 1024.0, 0.375),
                row(&format!("{s} threads=2"), 1024.0, 0.125),
                row(&format!("{s} threads=1"), 1024.0, 0.625),
                row(&format!("{s} threads=2"), 1024.0, 0.375),
                row("lazy round, server CPU threads=1", 1024.0, 0.2),
                row("lazy round, server CPU threads=2", 1024.0, 0.2),
            ],
        );
        let out = evaluate(&[], &[fig7]);
        let st = |what: &str| status_of(&out, what);
        assert_eq!(
            st("eager round, 1 → 2 threads"),
            Some((Status::Pass, "2.00×".into()))
        );
        assert_eq!(
            st("lazy round, 1 → 2 threads"),
            Some((Status::Fail, "1.00×".into()))
        );
        assert_eq!(
            st("hybrid XOR round, 1 → 2 threads").map(|s| s.0),
            Some(Status::NotMeasured)
        );
        // The 2-thread limit is judged on the threads=2 runs (mean 0.25 s ≤ 0.3 s), the
        // default-pool limit on the threads=1 runs (0.5 s ≤ 1 s): the run has no unlabelled
        // series.
        assert_eq!(
            st("eager round, N = 1024, 2 threads"),
            Some((Status::Pass, "0.250 s".into()))
        );
        assert_eq!(
            st("eager round, N = 1024, 16 slots"),
            Some((Status::Pass, "0.500 s".into()))
        );
        let note = |what: &str| {
            out.iter()
                .find(|o| o.what.starts_with(what))
                .map(|o| o.note.clone())
                .unwrap_or_default()
        };
        assert!(
            note("eager round, N = 1024, 2 threads")
                .contains("threads=2” at N = 1024, mean of 2 runs")
        );
        assert!(note("eager round, N = 1024, 16 slots").contains("threads=1”"));
        // Neither series of the hybrid round: not measured, as before.
        assert_eq!(
            st("hybrid XOR round, N = 1024, 2 threads").map(|s| s.0),
            Some(Status::NotMeasured)
        );
    }

    #[test]
    fn issue_17_limits_are_read_at_the_speed_of_the_reference_kernel() {
        let then = reference::kernel_when_targets_were_set().as_secs_f64();
        let kernel = |series: &str, y: f64| row(series, 1024.0, y);
        let fig7 = |kernels: Vec<MacroRow>| {
            let mut rows = vec![
                row("eager round, server CPU threads=2", 1024.0, 0.35),
                row("hybrid XOR round, server CPU threads=2", 1024.0, 0.06),
            ];
            rows.extend(kernels);
            evaluate(&[], &[report("fig7", rows)])
        };
        // The machine ran the kernel twice as slowly as when the targets were set (mean of a
        // labelled and an unlabelled row, and a row at another N that does not count): 0.35 s
        // reads as 0.175 s (≤ 0.3 s), 60 ms as 30 ms (≤ 50 ms).
        let slow = fig7(vec![
            kernel(&format!("{} threads=1", reference::SERIES), 1.5 * then),
            kernel(reference::SERIES, 2.5 * then),
            row(reference::SERIES, 512.0, 100.0 * then),
        ]);
        assert_eq!(
            status_of(&slow, "eager round, N = 1024, 2 threads"),
            Some((
                Status::Pass,
                "0.350 s (0.175 s at the targets' speed)".into()
            ))
        );
        assert_eq!(
            status_of(&slow, "hybrid XOR round, N = 1024, 2 threads").map(|s| s.0),
            Some(Status::Pass)
        );
        let note = slow
            .iter()
            .find(|o| o.what.starts_with("eager round, N = 1024, 2 threads"))
            .map(|o| o.note.clone())
            .unwrap_or_default();
        assert!(note.contains("mean of 2 around the sessions"), "{note}");
        // At the targets' own speed nothing changes; without a kernel, judged as measured.
        let same = fig7(vec![kernel(reference::SERIES, then)]);
        assert_eq!(
            status_of(&same, "eager round, N = 1024, 2 threads").map(|s| s.0),
            Some(Status::Fail)
        );
        assert_eq!(
            status_of(&fig7(Vec::new()), "eager round, N = 1024, 2 threads"),
            Some((Status::Fail, "0.350 s".into()))
        );
        // Issue 6's limits were stated for another machine and stay absolute.
        assert_eq!(
            status_of(&slow, "eager round, N = 1024, 16 slots").map(|s| s.0),
            Some(Status::NotMeasured)
        );
    }

    #[test]
    fn ratio_targets_take_the_largest_common_x() {
        let judged = |rows| {
            evaluate(&[], &[report("loopback", rows)])
                .into_iter()
                .find(|o| o.what.starts_with("loopback round"))
                .map(|o| (o.status, o.ours, o.note.contains("not conclusive")))
        };
        // N = 256 is measured but not predicted: N = 64 is judged (12 / 10 = 1.2, pass).
        assert_eq!(
            judged(vec![
                row("loopback M=8", 16.0, 100.0),
                row("predicted M=8", 16.0, 10.0),
                row("loopback M=8", 64.0, 12.0),
                row("predicted M=8", 64.0, 10.0),
                row("loopback M=8", 256.0, 900.0),
                row("loopback M=3", 64.0, 1.0),
            ]),
            Some((Status::Pass, "1.20×".into(), true))
        );
        assert_eq!(
            judged(vec![
                row("loopback M=8", 64.0, 16.0),
                row("predicted M=8", 64.0, 10.0),
            ])
            .map(|o| (o.0, o.1)),
            Some((Status::Fail, "1.60×".into()))
        );
        assert_eq!(
            judged(vec![row("loopback M=8", 64.0, 16.0)]).map(|o| o.0),
            Some(Status::NotMeasured)
        );
    }

    /// Every line of docs/PERFORMANCE.md's hand-written part that states a target names a
    /// quantity some entry of [`TARGETS`] covers, so a target added to the document without
    /// an entry here fails this test.
    #[test]
    fn every_documented_target_has_an_entry() {
        let doc = include_str!("../../../docs/PERFORMANCE.md");
        let hand = doc.split("<!-- BEGIN GENERATED -->").next().unwrap_or(doc);
        let covered = [
            ("≥ 5×", "≥ 5×"),
            ("≤ 60 ms", "≤ 60 ms"),
            ("≤ 100 ms", "≤ 100 ms"),
            ("≥ 3 MB/s", "≥ 3 MB/s"),
            ("≥ 1 MB/s", "≥ 1 MB/s"),
            ("≥ 300 MB/s", "≥ 300 MB/s"),
            ("≥ 70 %", "≥ 70 %"),
            ("≤ 1 s", "≤ 1 s"),
            ("≤ 0.3 s", "≤ 0.3 s"),
            ("≤ 50 ms", "≤ 50 ms"),
            ("≤ 1.5 s", "≤ 1.5 s"),
            ("×1.8", "≥ 1.8×"),
            ("≤ 1.5× the simulator", "≤ 1.5× the simulator"),
            ("≤ 4 µs", "≤ 4 µs"),
            ("≈20 µs", "≈ 20 µs"),
        ];
        for (in_doc, goal) in covered {
            let doc_has = hand.contains(in_doc) || hand.contains(&in_doc.replace(' ', ""));
            assert!(doc_has, "docs/PERFORMANCE.md no longer states {in_doc}");
            assert!(
                TARGETS.iter().any(|t| t.goal.contains(goal)),
                "no target entry for {goal}"
            );
        }
        // Every "target" sentence is about one of those quantities.
        for line in hand
            .lines()
            .filter(|l| l.contains("Target") || l.contains("target:"))
        {
            assert!(
                covered
                    .iter()
                    .any(|(q, _)| line.contains(q) || line.contains(&q.replace(' ', "")))
                    || line.contains("Targets stated")
                    || line.contains("Targets.")
                    || line.contains("targets")
                    || line.contains("carry the targets")
                    || line.contains("Targets at n = 1024")
                    || line.contains("Targets (ristretto255)"),
                "target line without an entry: {line}"
            );
        }
    }
}
