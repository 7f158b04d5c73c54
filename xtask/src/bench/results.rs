//! `results.json` and the CSV files: written after every run, and read back by `--replot`
//! so the figures, summary and report page can be regenerated without measuring again.

use std::path::Path;

use serde_json::{Value, json};
use verdict_bench::macro_bench::{MacroReport, MacroRow};

use super::criterion::{BenchResult, Throughput};
use super::summary::Machine;
use super::{plot, remove_matching, write};

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

/// One macro report as JSON (an element of `results.json`'s `"macro"`, and what an isolated
/// run's child prints).
pub(crate) fn macro_json(r: &MacroReport) -> Value {
    json!({
        "name": r.name,
        "title": r.title,
        "x_label": r.x_label,
        "y_label": r.y_label,
        "log_x": r.log_x,
        "log_y": r.log_y,
        "rows": r.rows.iter().map(|row| json!({"series": row.series, "x": row.x, "y": row.y})).collect::<Vec<_>>(),
        "notes": r.notes,
    })
}

/// The inverse of [`macro_json`]; missing fields read as empty (or `NaN`).
pub(crate) fn parse_macro(m: &Value) -> MacroReport {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    MacroReport {
        name: s(&m["name"]),
        title: s(&m["title"]),
        x_label: s(&m["x_label"]),
        y_label: s(&m["y_label"]),
        // Files from before the axes were recorded: Figures 6-8 are all log-log.
        log_x: m["log_x"].as_bool().unwrap_or(true),
        log_y: m["log_y"].as_bool().unwrap_or(true),
        rows: m["rows"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| MacroRow {
                series: s(&r["series"]),
                x: f(&r["x"]),
                y: f(&r["y"]),
            })
            .collect(),
        notes: m["notes"].as_array().into_iter().flatten().map(s).collect(),
    }
}

pub(crate) fn write_results(
    out: &Path,
    command: &str,
    machine: &Machine,
    results: &[BenchResult],
    reports: &[MacroReport],
    skipped: &[(String, String)],
) -> Result<(), String> {
    let doc = json!({
        "generated_by": command,
        "machine": {
            "cpu": machine.cpu,
            "cores": machine.cores,
            "rustc": machine.rustc,
            "date": machine.date,
            "commit": machine.commit,
        },
        "micro": results.iter().map(result_json).collect::<Vec<_>>(),
        "macro": reports.iter().map(macro_json).collect::<Vec<_>>(),
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

/// What `results.json` holds.
pub(crate) struct Loaded {
    pub command: String,
    pub machine: Option<Machine>,
    pub results: Vec<BenchResult>,
    pub reports: Vec<MacroReport>,
    pub skipped: Vec<(String, String)>,
}

/// Parses a `results.json` written by [`write_results`].
pub(crate) fn parse_results_json(text: &str) -> Result<Loaded, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("results.json: {e}"))?;
    let s = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    let machine = v.get("machine").filter(|m| m.is_object()).map(|m| Machine {
        cpu: s(&m["cpu"]),
        cores: m["cores"].as_u64().unwrap_or(0) as usize,
        rustc: s(&m["rustc"]),
        date: s(&m["date"]),
        commit: s(&m["commit"]),
    });
    let mut results = Vec::new();
    for r in v["micro"].as_array().into_iter().flatten() {
        let id = r["id"]
            .as_str()
            .ok_or("results.json: a micro result without id")?;
        let throughput = match (
            r["throughput"]["bytes"].as_u64(),
            r["throughput"]["elements"].as_u64(),
        ) {
            (Some(n), _) => Some(Throughput::Bytes(n)),
            (None, Some(n)) => Some(Throughput::Elements(n)),
            (None, None) => None,
        };
        results.push(BenchResult {
            id: id.to_owned(),
            group: s(&r["group"]),
            function: r["function"].as_str().map(str::to_owned),
            parameter: r["parameter"].as_str().map(str::to_owned),
            mean_ns: f(&r["mean"]),
            mean_lo_ns: f(&r["mean_ci"][0]),
            mean_hi_ns: f(&r["mean_ci"][1]),
            median_ns: f(&r["median"]),
            std_dev_ns: f(&r["std_dev"]),
            throughput,
            change_pct: r["change_pct"].as_f64(),
        });
    }
    let reports = v["macro"]
        .as_array()
        .into_iter()
        .flatten()
        .map(parse_macro)
        .collect();
    let skipped = v["skipped_macro"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|k| (s(&k["name"]), s(&k["reason"])))
        .collect();
    Ok(Loaded {
        command: s(&v["generated_by"]),
        machine,
        results,
        reports,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn results_json_round_trips() {
        let dir = std::env::temp_dir().join(format!("verdict-results-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let r = BenchResult {
            id: "fig5/xor/ristretto255/cover/1024".into(),
            group: "fig5/xor/ristretto255".into(),
            function: Some("cover".into()),
            parameter: Some("1024".into()),
            mean_ns: 1e6,
            mean_lo_ns: 0.9e6,
            mean_hi_ns: 1.1e6,
            median_ns: 1e6,
            std_dev_ns: 1e4,
            throughput: Some(Throughput::Bytes(1024)),
            change_pct: Some(-3.0),
        };
        let report = MacroReport {
            name: "fig7".into(),
            title: "Figure 7".into(),
            x_label: "clients N".into(),
            y_label: "time (s)".into(),
            log_x: true,
            log_y: false,
            rows: vec![MacroRow {
                series: "eager round, server CPU".into(),
                x: 16.0,
                y: 0.15,
            }],
            notes: vec!["M = 8".into()],
        };
        let machine = Machine {
            cpu: "Test CPU".into(),
            cores: 2,
            rustc: "rustc 1.95.0".into(),
            date: "2026-12-01".into(),
            commit: "abc1234".into(),
        };
        write_results(
            &dir,
            "cargo xtask bench --quick",
            &machine,
            std::slice::from_ref(&r),
            std::slice::from_ref(&report),
            &[("x".into(), "why".into())],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let text =
            std::fs::read_to_string(dir.join("results.json")).unwrap_or_else(|e| panic!("{e}"));
        let back = parse_results_json(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.command, "cargo xtask bench --quick");
        assert_eq!(back.machine, Some(machine));
        assert_eq!(back.results, [r]);
        assert_eq!(back.reports, [report]);
        assert_eq!(back.skipped, [("x".to_owned(), "why".to_owned())]);
        assert!(dir.join("macro-fig7.csv").exists());
        let _ = std::fs::remove_dir_all(&dir);
        assert!(parse_results_json("{").is_err());
    }
}
