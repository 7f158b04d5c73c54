//! `--baseline NAME`: this run against criterion's saved baseline, benchmark by benchmark,
//! with both 95% confidence intervals, flagging changes beyond the noise.
//!
//! Criterion keeps a saved baseline in `<bench dir>/<NAME>/estimates.json` and, when it
//! compared against one, the relative change in `<bench dir>/change/estimates.json` (mean
//! change with its own bootstrap interval). A change counts only when that interval lies
//! wholly outside criterion's default noise band of ±1 %; without a change file, when the two
//! runs' mean intervals do not overlap and the change exceeds the band.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::criterion::BenchResult;
use super::summary::{sig3, time};

/// Criterion's default `noise_threshold`: relative changes within ±1 % are noise.
pub(crate) const NOISE: f64 = 0.01;

/// A point estimate with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Estimate {
    pub point: f64,
    pub lo: f64,
    pub hi: f64,
}

/// What the comparison says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Slower beyond the noise.
    Regressed,
    /// Faster beyond the noise.
    Improved,
    /// Within the noise.
    Unchanged,
}

impl Verdict {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Verdict::Regressed => "REGRESSED",
            Verdict::Improved => "improved",
            Verdict::Unchanged => "within noise",
        }
    }
}

/// One benchmark against the baseline (times in ns).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Comparison {
    pub id: String,
    pub base: Estimate,
    pub new: Estimate,
    /// Relative change of the mean (0.05 = 5 % slower), criterion's when it wrote one.
    pub change: Estimate,
    pub verdict: Verdict,
}

/// The rule described in the module documentation.
pub(crate) fn judge(base: Estimate, new: Estimate, change: Option<Estimate>) -> Verdict {
    let slower = match change {
        Some(c) if c.lo > NOISE => Some(true),
        Some(c) if c.hi < -NOISE => Some(false),
        Some(_) => None,
        None => {
            let rel = new.point / base.point - 1.0;
            let apart = new.lo > base.hi || new.hi < base.lo;
            (apart && rel.abs() > NOISE).then_some(rel > 0.0)
        }
    };
    match slower {
        Some(true) => Verdict::Regressed,
        Some(false) => Verdict::Improved,
        None => Verdict::Unchanged,
    }
}

fn mean_of(text: &str) -> Option<Estimate> {
    let v: Value = serde_json::from_str(text).ok()?;
    let m = &v["mean"];
    Some(Estimate {
        point: m["point_estimate"].as_f64()?,
        lo: m["confidence_interval"]["lower_bound"].as_f64()?,
        hi: m["confidence_interval"]["upper_bound"].as_f64()?,
    })
}

/// Every benchmark directory under `criterion_dir` by its full id (read from
/// `new/benchmark.json`).
fn bench_dirs(criterion_dir: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![criterion_dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if !path.is_dir() || e.file_name() == "report" {
                continue;
            }
            if e.file_name() == "new" {
                let id = std::fs::read_to_string(path.join("benchmark.json"))
                    .ok()
                    .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                    .and_then(|v| v["full_id"].as_str().map(str::to_owned));
                if let Some(id) = id {
                    out.insert(id, dir.clone());
                }
            } else {
                stack.push(path);
            }
        }
    }
    out
}

/// The comparison of every result that has baseline `name` saved.
pub(crate) fn compare(
    criterion_dir: &Path,
    name: &str,
    results: &[BenchResult],
) -> Vec<Comparison> {
    let dirs = bench_dirs(criterion_dir);
    let mut out = Vec::new();
    for r in results {
        let Some(dir) = dirs.get(&r.id) else {
            continue;
        };
        let read = |p: PathBuf| std::fs::read_to_string(p).ok();
        let Some(base) = read(dir.join(name).join("estimates.json")).and_then(|t| mean_of(&t))
        else {
            continue;
        };
        let new = Estimate {
            point: r.mean_ns,
            lo: r.mean_lo_ns,
            hi: r.mean_hi_ns,
        };
        let criterion_change =
            read(dir.join("change").join("estimates.json")).and_then(|t| mean_of(&t));
        let change = criterion_change.unwrap_or(Estimate {
            point: new.point / base.point - 1.0,
            lo: new.lo / base.hi - 1.0,
            hi: new.hi / base.lo - 1.0,
        });
        out.push(Comparison {
            id: r.id.clone(),
            verdict: judge(base, new, criterion_change),
            base,
            new,
            change,
        });
    }
    out
}

fn pct(v: f64) -> String {
    format!("{}{} %", if v > 0.0 { "+" } else { "" }, sig3(v * 100.0))
}

/// The comparison as markdown: regressions first, then improvements, then the rest.
pub(crate) fn markdown(name: &str, rows: &[Comparison]) -> String {
    let count = |v| rows.iter().filter(|c| c.verdict == v).count();
    let mut s = format!(
        "### Against baseline `{name}`\n\n{} regressed, {} improved, {} within noise (±{} % \
         band; a change counts when its 95% interval is outside it).\n\n",
        count(Verdict::Regressed),
        count(Verdict::Improved),
        count(Verdict::Unchanged),
        NOISE * 100.0
    );
    if rows.is_empty() {
        s.push_str("No benchmark of this run has that baseline saved.\n");
        return s;
    }
    s.push_str(
        "| benchmark | baseline mean [95% CI] | this run [95% CI] | new / base | change [95% CI] | verdict |\n|---|---|---|---|---|---|\n",
    );
    let mut sorted: Vec<&Comparison> = rows.iter().collect();
    sorted.sort_by_key(|c| match c.verdict {
        Verdict::Regressed => 0,
        Verdict::Improved => 1,
        Verdict::Unchanged => 2,
    });
    for c in sorted {
        let est = |e: &Estimate| format!("{} [{} – {}]", time(e.point), time(e.lo), time(e.hi));
        let verdict = match c.verdict {
            Verdict::Regressed => "**REGRESSED**".to_owned(),
            v => v.label().to_owned(),
        };
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {}× | {} [{} – {}] | {verdict} |",
            c.id,
            est(&c.base),
            est(&c.new),
            sig3(c.new.point / c.base.point),
            pct(c.change.point),
            pct(c.change.lo),
            pct(c.change.hi),
        );
    }
    s
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn est(point: f64, lo: f64, hi: f64) -> Estimate {
        Estimate { point, lo, hi }
    }

    #[test]
    fn changes_count_only_beyond_the_noise() {
        let base = est(100.0, 95.0, 105.0);
        // Criterion's change interval decides when present.
        assert_eq!(
            judge(base, est(120.0, 115.0, 125.0), Some(est(0.2, 0.12, 0.28))),
            Verdict::Regressed
        );
        assert_eq!(
            judge(base, est(80.0, 78.0, 82.0), Some(est(-0.2, -0.25, -0.15))),
            Verdict::Improved
        );
        assert_eq!(
            judge(base, est(103.0, 90.0, 115.0), Some(est(0.03, -0.05, 0.1))),
            Verdict::Unchanged
        );
        // Straddling the noise band is not a change.
        assert_eq!(
            judge(
                base,
                est(101.0, 100.5, 101.5),
                Some(est(0.01, 0.005, 0.015))
            ),
            Verdict::Unchanged
        );
        // Without it: the two intervals must not overlap.
        assert_eq!(
            judge(base, est(120.0, 110.0, 130.0), None),
            Verdict::Regressed
        );
        assert_eq!(
            judge(base, est(104.0, 100.0, 108.0), None),
            Verdict::Unchanged
        );
        assert_eq!(judge(base, est(50.0, 45.0, 55.0), None), Verdict::Improved);
    }

    /// A criterion directory with one benchmark, its baseline `main` and a change file.
    pub(crate) fn fixture_dir(tag: &str) -> PathBuf {
        let root =
            std::env::temp_dir().join(format!("verdict-baseline-{tag}-{}", std::process::id()));
        let b = root.join("neff_ristretto255").join("prove").join("1024");
        let estimates = |m: f64, lo: f64, hi: f64| {
            format!(
                r#"{{"mean":{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":{lo},"upper_bound":{hi}}},"point_estimate":{m},"standard_error":1.0}}}}"#
            )
        };
        for (sub, text) in [
            ("new", estimates(150e6, 145e6, 155e6)),
            ("main", estimates(120e6, 118e6, 122e6)),
            ("change", estimates(0.25, 0.2, 0.3)),
        ] {
            std::fs::create_dir_all(b.join(sub)).unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(b.join(sub).join("estimates.json"), text)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(
            b.join("new").join("benchmark.json"),
            r#"{"full_id":"neff/ristretto255/prove/1024"}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        root
    }

    pub(crate) fn new_result() -> BenchResult {
        BenchResult {
            id: "neff/ristretto255/prove/1024".into(),
            group: "neff/ristretto255".into(),
            function: Some("prove".into()),
            parameter: Some("1024".into()),
            mean_ns: 150e6,
            mean_lo_ns: 145e6,
            mean_hi_ns: 155e6,
            median_ns: 150e6,
            std_dev_ns: 1e6,
            throughput: None,
            change_pct: Some(25.0),
        }
    }

    #[test]
    fn reads_the_saved_baseline_and_flags_the_regression() {
        let dir = fixture_dir("md");
        let rows = compare(&dir, "main", &[new_result()]);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].base, est(120e6, 118e6, 122e6));
        assert_eq!(rows[0].change, est(0.25, 0.2, 0.3));
        assert_eq!(rows[0].verdict, Verdict::Regressed);
        assert!(compare(&dir, "other", &[new_result()]).is_empty());
        let md = markdown("main", &rows);
        assert!(md.contains("1 regressed, 0 improved"), "{md}");
        assert!(
            md.contains("| `neff/ristretto255/prove/1024` | 120 ms [118 ms – 122 ms] | 150 ms [145 ms – 155 ms] | 1.25× | +25 % [+20 % – +30 %] | **REGRESSED** |"),
            "{md}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
