//! Running the workspace's criterion benches target by target, and reading back what criterion
//! wrote under `target/criterion/`.
//!
//! Criterion stores each benchmark in `<target>/criterion/<directory_name>/new/` as
//! `benchmark.json` (the ids and the declared throughput) and `estimates.json` (the bootstrap
//! estimates in nanoseconds). `new/` always holds the latest run, whatever baseline options
//! were given, so it is the one place to read.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Instant, SystemTime};

use serde_json::Value;

/// A bench target of the workspace: `cargo bench -p <package> --bench <name>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BenchTarget {
    pub package: String,
    pub name: String,
}

/// What `cargo metadata` tells us: the bench targets and where build output goes.
#[derive(Debug)]
pub(crate) struct Metadata {
    pub targets: Vec<BenchTarget>,
    pub target_dir: PathBuf,
}

/// Reads the workspace's bench targets (in workspace member order) and target directory.
pub(crate) fn metadata(root: &Path) -> Result<Metadata, String> {
    let out = Command::new(crate::cargo_bin())
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    parse_metadata(&text)
}

fn parse_metadata(text: &str) -> Result<Metadata, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("cargo metadata output: {e}"))?;
    let target_dir = v["target_directory"]
        .as_str()
        .ok_or("cargo metadata: no target_directory")?;
    let members: Vec<&str> = v["workspace_members"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut targets = Vec::new();
    // `packages` is sorted by name; keep the workspace's member order instead so that the
    // run goes from the groups up to the DC-net like the crate stack.
    for member in &members {
        let Some(pkg) = v["packages"]
            .as_array()
            .and_then(|ps| ps.iter().find(|p| p["id"].as_str() == Some(member)))
        else {
            continue;
        };
        let package = pkg["name"].as_str().unwrap_or_default().to_owned();
        for t in pkg["targets"].as_array().into_iter().flatten() {
            let is_bench = t["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k.as_str() == Some("bench")));
            if let (true, Some(name)) = (is_bench, t["name"].as_str()) {
                targets.push(BenchTarget {
                    package: package.clone(),
                    name: name.to_owned(),
                });
            }
        }
    }
    Ok(Metadata {
        targets,
        target_dir: PathBuf::from(target_dir),
    })
}

/// Formats a duration as `m:ss` for progress lines.
pub(crate) fn clock(secs: u64) -> String {
    format!("{}:{:02}", secs / 60, secs % 60)
}

/// Compiles every bench, then runs each target with `criterion_args` (after `--`), printing
/// which target runs and the elapsed time. `env` is added to each run's environment. Returns
/// the targets that failed.
pub(crate) fn run_targets(
    root: &Path,
    targets: &[BenchTarget],
    criterion_args: &[String],
    env: &[(&str, &str)],
) -> Result<Vec<String>, String> {
    let start = Instant::now();
    // One build up front, so that the per-target runs below show benchmark progress only and
    // a compile error stops everything before any measuring.
    eprintln!("== compiling benches (cargo bench --workspace --no-run)");
    let status = Command::new(crate::cargo_bin())
        .args(["bench", "--workspace", "--no-run"])
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("compiling the benches failed: {status}"));
    }
    let mut failed = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        let t0 = Instant::now();
        eprintln!(
            "== [{}/{}] {}/{} (elapsed {})",
            i + 1,
            targets.len(),
            t.package,
            t.name,
            clock(start.elapsed().as_secs())
        );
        let status = Command::new(crate::cargo_bin())
            .args(["bench", "-q", "-p", &t.package, "--bench", &t.name, "--"])
            .args(criterion_args)
            .envs(env.iter().copied())
            .current_dir(root)
            .status()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        let took = clock(t0.elapsed().as_secs());
        if status.success() {
            eprintln!("== {}/{} done in {took}", t.package, t.name);
        } else {
            eprintln!("== {}/{} FAILED ({status}) after {took}", t.package, t.name);
            failed.push(format!("{}/{}", t.package, t.name));
        }
    }
    eprintln!(
        "== micro benchmarks finished in {}",
        clock(start.elapsed().as_secs())
    );
    Ok(failed)
}

/// The declared throughput of one iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Throughput {
    /// Bytes processed per iteration.
    Bytes(u64),
    /// Elements processed per iteration.
    Elements(u64),
}

/// One benchmark's result. Times are nanoseconds per iteration.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BenchResult {
    /// Criterion's full id: `group/function/parameter`.
    pub id: String,
    pub group: String,
    pub function: Option<String>,
    pub parameter: Option<String>,
    pub mean_ns: f64,
    pub mean_lo_ns: f64,
    pub mean_hi_ns: f64,
    pub median_ns: f64,
    pub std_dev_ns: f64,
    pub throughput: Option<Throughput>,
    /// Relative change of the mean against the compared baseline, in percent, when criterion
    /// compared this run with one.
    pub change_pct: Option<f64>,
}

impl BenchResult {
    /// Units processed per second at the mean time (bytes or elements, as declared).
    pub(crate) fn per_second(&self) -> Option<f64> {
        let n = match self.throughput? {
            Throughput::Bytes(n) | Throughput::Elements(n) => n as f64,
        };
        (self.mean_ns > 0.0).then(|| n / (self.mean_ns * 1e-9))
    }
}

fn point(v: &Value, stat: &str, file: &str) -> Result<f64, String> {
    v[stat]["point_estimate"]
        .as_f64()
        .ok_or_else(|| format!("{file}: no {stat}.point_estimate"))
}

/// Parses one benchmark from the texts of its `benchmark.json` and `estimates.json`, and of
/// `change/estimates.json` when given.
pub(crate) fn parse_result(
    benchmark: &str,
    estimates: &str,
    change: Option<&str>,
) -> Result<BenchResult, String> {
    let b: Value = serde_json::from_str(benchmark).map_err(|e| format!("benchmark.json: {e}"))?;
    let e: Value = serde_json::from_str(estimates).map_err(|e| format!("estimates.json: {e}"))?;
    let text = |k: &str| b[k].as_str().map(str::to_owned);
    let id = text("full_id").ok_or("benchmark.json: no full_id")?;
    let throughput = match b["throughput"].as_object().and_then(|o| o.iter().next()) {
        None => None,
        Some((kind, n)) => {
            let n = n
                .as_u64()
                .ok_or_else(|| format!("{id}: throughput {kind} is not a count"))?;
            match kind.as_str() {
                "Bytes" | "BytesDecimal" => Some(Throughput::Bytes(n)),
                "Elements" => Some(Throughput::Elements(n)),
                other => return Err(format!("{id}: unknown throughput kind {other}")),
            }
        }
    };
    let ci = &e["mean"]["confidence_interval"];
    let change_pct = match change {
        Some(c) => {
            let c: Value =
                serde_json::from_str(c).map_err(|e| format!("change/estimates.json: {e}"))?;
            Some(point(&c, "mean", "change/estimates.json")? * 100.0)
        }
        None => None,
    };
    Ok(BenchResult {
        group: text("group_id").unwrap_or_else(|| id.clone()),
        function: text("function_id"),
        parameter: text("value_str"),
        mean_ns: point(&e, "mean", "estimates.json")?,
        mean_lo_ns: ci["lower_bound"].as_f64().unwrap_or(f64::NAN),
        mean_hi_ns: ci["upper_bound"].as_f64().unwrap_or(f64::NAN),
        median_ns: point(&e, "median", "estimates.json")?,
        std_dev_ns: point(&e, "std_dev", "estimates.json")?,
        throughput,
        change_pct,
        id,
    })
}

/// What [`collect`] found.
#[derive(Debug, Default)]
pub(crate) struct Collected {
    /// The results, sorted by id.
    pub results: Vec<BenchResult>,
    /// Results older than the `since` cutoff, left out.
    pub older: usize,
    /// Unreadable benchmark directories, with the reason.
    pub errors: Vec<String>,
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Reads every `**/new/benchmark.json` under `criterion_dir`. With `since`, results whose
/// estimates were written before it (earlier runs, other filters) are counted but left out,
/// so a filtered run reports only what it measured.
pub(crate) fn collect(criterion_dir: &Path, since: Option<SystemTime>) -> Collected {
    let mut out = Collected::default();
    let mut stack = vec![criterion_dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if !path.is_dir() {
                continue;
            }
            let name = entry.file_name();
            // `report/` holds criterion's HTML; baselines other than `new` are older runs.
            if name == "report" {
                continue;
            }
            if name != "new" {
                stack.push(path);
                continue;
            }
            let estimates = path.join("estimates.json");
            let fresh = |p: &Path| match (since, modified(p)) {
                (None, _) => true,
                (Some(t), Some(m)) => m >= t,
                (Some(_), None) => false,
            };
            if !fresh(&estimates) {
                out.older += 1;
                continue;
            }
            let change_path = dir.join("change").join("estimates.json");
            let change = if change_path.exists() && fresh(&change_path) {
                std::fs::read_to_string(&change_path).ok()
            } else {
                None
            };
            let parsed = std::fs::read_to_string(path.join("benchmark.json"))
                .map_err(|e| e.to_string())
                .and_then(|b| {
                    let e = std::fs::read_to_string(&estimates).map_err(|e| e.to_string())?;
                    parse_result(&b, &e, change.as_deref())
                });
            match parsed {
                Ok(r) => out.results.push(r),
                Err(e) => out.errors.push(format!("{}: {e}", path.display())),
            }
        }
    }
    out.results.sort_by(|a, b| natural_cmp(&a.id, &b.id));
    out
}

/// Orders ids so that numeric path components compare as numbers (`x/26` before `x/1024`).
pub(crate) fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let mut ai = a.split('/');
    let mut bi = b.split('/');
    loop {
        match (ai.next(), bi.next()) {
            (None, None) => return std::cmp::Ordering::Equal,
            (None, Some(_)) => return std::cmp::Ordering::Less,
            (Some(_), None) => return std::cmp::Ordering::Greater,
            (Some(x), Some(y)) => {
                let o = match (x.parse::<u64>(), y.parse::<u64>()) {
                    (Ok(p), Ok(q)) => p.cmp(&q),
                    _ => x.cmp(y),
                };
                if o.is_ne() {
                    return o;
                }
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A `benchmark.json` as criterion 0.5 writes it.
    /// A parsed result of `group/function/param` with mean `mean_ns` (`tp`: the throughput
    /// JSON, or `null`), for the tests of the modules that read results.
    pub(crate) fn result(
        group: &str,
        function: &str,
        param: &str,
        tp: &str,
        mean_ns: f64,
    ) -> BenchResult {
        parse_result(
            &benchmark_json(group, function, param, tp),
            &estimates_json(mean_ns, mean_ns, 1.0),
            None,
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    pub(crate) fn benchmark_json(group: &str, function: &str, param: &str, tp: &str) -> String {
        format!(
            r#"{{"group_id":"{group}","function_id":"{function}","value_str":"{param}","throughput":{tp},"full_id":"{group}/{function}/{param}","directory_name":"x","title":"{group}/{function}/{param}"}}"#
        )
    }

    /// An `estimates.json` with the given mean, median and standard deviation (ns).
    pub(crate) fn estimates_json(mean: f64, median: f64, sd: f64) -> String {
        let stat = |v: f64| {
            format!(
                r#"{{"confidence_interval":{{"confidence_level":0.95,"lower_bound":{},"upper_bound":{}}},"point_estimate":{v},"standard_error":1.0}}"#,
                v * 0.9,
                v * 1.1
            )
        };
        format!(
            r#"{{"mean":{},"median":{},"median_abs_dev":{},"slope":null,"std_dev":{}}}"#,
            stat(mean),
            stat(median),
            stat(sd),
            stat(sd)
        )
    }

    #[test]
    fn parses_ids_estimates_and_throughput() {
        let b = benchmark_json(
            "fig5/hashing-generator/ristretto255",
            "cover",
            "1024",
            r#"{"Bytes":1024}"#,
        );
        let r = parse_result(&b, &estimates_json(2.0e6, 1.9e6, 1.0e5), None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.id, "fig5/hashing-generator/ristretto255/cover/1024");
        assert_eq!(r.parameter.as_deref(), Some("1024"));
        assert_eq!(r.mean_ns, 2.0e6);
        assert_eq!(r.median_ns, 1.9e6);
        assert_eq!(r.std_dev_ns, 1.0e5);
        assert_eq!(r.mean_lo_ns, 1.8e6);
        assert_eq!(r.throughput, Some(Throughput::Bytes(1024)));
        // 1024 bytes in 2 ms.
        assert_eq!(r.per_second(), Some(512_000.0));
        assert_eq!(r.change_pct, None);
    }

    #[test]
    fn parses_no_throughput_elements_and_change() {
        let b = r#"{"group_id":"schnorr/p256","function_id":"prove","value_str":null,"throughput":null,"full_id":"schnorr/p256/prove","directory_name":"schnorr_p256/prove","title":"schnorr/p256/prove"}"#;
        let change = r#"{"mean":{"confidence_interval":{"confidence_level":0.95,"lower_bound":-0.1,"upper_bound":0.0},"point_estimate":-0.05,"standard_error":0.01},"median":{"confidence_interval":{"confidence_level":0.95,"lower_bound":-0.1,"upper_bound":0.0},"point_estimate":-0.04,"standard_error":0.01}}"#;
        let r = parse_result(b, &estimates_json(5.0e4, 5.0e4, 10.0), Some(change))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.function.as_deref(), Some("prove"));
        assert_eq!(r.parameter, None);
        assert_eq!(r.throughput, None);
        assert_eq!(r.per_second(), None);
        assert_eq!(r.change_pct, Some(-5.0));
        let b = benchmark_json("msm", "msm_vartime", "16", r#"{"Elements":16}"#);
        let r = parse_result(&b, &estimates_json(1.0e6, 1.0e6, 1.0), None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.throughput, Some(Throughput::Elements(16)));
    }

    #[test]
    fn rejects_malformed_files() {
        let b = benchmark_json("g", "f", "1", "null");
        assert!(parse_result(&b, "{}", None).is_err());
        assert!(parse_result("not json", &estimates_json(1.0, 1.0, 1.0), None).is_err());
        let b = benchmark_json("g", "f", "1", r#"{"Bytes":-3}"#);
        assert!(parse_result(&b, &estimates_json(1.0, 1.0, 1.0), None).is_err());
    }

    #[test]
    fn collects_only_new_directories_and_fresh_results() {
        let dir = std::env::temp_dir().join(format!("xtask-bench-collect-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let write = |rel: &str, bench: &str, est: &str| {
            let d = dir.join(rel);
            std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(d.join("benchmark.json"), bench).unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(d.join("estimates.json"), est).unwrap_or_else(|e| panic!("{e}"));
        };
        let b26 = benchmark_json("fig5/xor/ristretto255", "cover", "26", r#"{"Bytes":26}"#);
        let b1k = benchmark_json(
            "fig5/xor/ristretto255",
            "cover",
            "1024",
            r#"{"Bytes":1024}"#,
        );
        write(
            "fig5_xor/cover/1024/new",
            &b1k,
            &estimates_json(1e3, 1e3, 1.0),
        );
        write(
            "fig5_xor/cover/26/new",
            &b26,
            &estimates_json(1e2, 1e2, 1.0),
        );
        // A saved baseline is an older run: never read.
        write(
            "fig5_xor/cover/26/base",
            &b26,
            &estimates_json(9e9, 9e9, 1.0),
        );
        write(
            "fig5_xor/cover/26/report",
            &b26,
            &estimates_json(9e9, 9e9, 1.0),
        );
        let all = collect(&dir, None);
        assert!(all.errors.is_empty(), "{:?}", all.errors);
        let ids: Vec<_> = all.results.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "fig5/xor/ristretto255/cover/26",
                "fig5/xor/ristretto255/cover/1024"
            ]
        );
        assert_eq!(all.results[0].mean_ns, 1e2);
        let later = SystemTime::now() + std::time::Duration::from_secs(3600);
        let none = collect(&dir, Some(later));
        assert!(none.results.is_empty());
        assert_eq!(none.older, 2);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn natural_order_compares_numbers_as_numbers() {
        let mut ids = vec!["a/b/1024", "a/b/26", "a/c/1", "a/b/4096"];
        ids.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(ids, ["a/b/26", "a/b/1024", "a/b/4096", "a/c/1"]);
    }

    #[test]
    fn metadata_lists_bench_targets_in_member_order() {
        let text = r#"{"packages":[
            {"id":"b 0.1","name":"beta","targets":[{"kind":["lib"],"name":"beta"},{"kind":["bench"],"name":"speed"}]},
            {"id":"a 0.1","name":"alpha","targets":[{"kind":["bench"],"name":"one"},{"kind":["test"],"name":"t"}]}],
            "workspace_members":["b 0.1","a 0.1"],"target_directory":"/t"}"#;
        let m = parse_metadata(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.target_dir, PathBuf::from("/t"));
        let names: Vec<_> = m
            .targets
            .iter()
            .map(|t| format!("{}/{}", t.package, t.name))
            .collect();
        assert_eq!(names, ["beta/speed", "alpha/one"]);
    }
}
