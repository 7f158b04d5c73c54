//! Which results go into which figure. Everything is driven by benchmark ids, not by a list
//! of known benchmarks, so a bench added later with the same id scheme shows up without
//! touching this file:
//! - `fig5/<suite>/<group>/<op>/<bytes>`: Figure 5 (`fig5.rs`), one panel per suite;
//! - any other id ending in a number (`neff/ristretto255/prove/1024`): time against that
//!   number, one figure per id family (the first path component);
//! - macro benchmark reports: Figures 6–8 (`figs.rs`).

use std::collections::BTreeMap;

use super::criterion::{BenchResult, Throughput, natural_cmp};
use super::figure::{Figure, Kind, Panel, Series};

/// Points of one series, by series name.
type SeriesMap = BTreeMap<String, Vec<(f64, f64)>>;

/// One Figure 5 measurement parsed from a `fig5/<suite>/<group>/<op>/<bytes>` id.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Fig5Point {
    pub suite: String,
    pub group: String,
    pub op: String,
    /// Block (slot) size in bytes of plaintext.
    pub block: u64,
    /// Plaintext bytes processed per second, in KB/s (1 KB = 1000 bytes, as in the paper).
    pub kb_per_s: f64,
}

/// Parses every `fig5/...` result. Throughput is the declared byte count per iteration (a
/// batch verification declares all the batch's bytes); a result without a byte throughput
/// counts one block per iteration.
pub(crate) fn fig5_points(results: &[BenchResult]) -> Vec<Fig5Point> {
    results
        .iter()
        .filter_map(|r| {
            let parts: Vec<&str> = r.id.split('/').collect();
            let [fig, suite, group, op, bytes] = parts.as_slice() else {
                return None;
            };
            let block: u64 = bytes.parse().ok()?;
            if *fig != "fig5" || r.mean_ns <= 0.0 {
                return None;
            }
            let per_iter = match r.throughput {
                Some(Throughput::Bytes(n)) => n,
                _ => block,
            };
            Some(Fig5Point {
                suite: (*suite).to_owned(),
                group: (*group).to_owned(),
                op: (*op).to_owned(),
                block,
                kb_per_s: per_iter as f64 / (r.mean_ns * 1e-9) / 1000.0,
            })
        })
        .collect()
}

/// Most lines one chart gets before a family is split by its second id component.
const MAX_SERIES: usize = 12;

/// Time against the numeric last id component, for every non-`fig5` family that has a series
/// of at least two points (shuffle and vector-DLEQ sizes, MSM sizes, ElGamal slot sizes).
pub(crate) fn scaling_figures(results: &[BenchResult]) -> Vec<Figure> {
    // series id (id without its last component) -> points
    let mut by_series = SeriesMap::new();
    for r in results.iter().filter(|r| !r.id.starts_with("fig5/")) {
        let Some((series, last)) = r.id.rsplit_once('/') else {
            continue;
        };
        let Ok(x) = last.parse::<f64>() else {
            continue;
        };
        if x > 0.0 && r.mean_ns > 0.0 {
            by_series
                .entry(series.to_owned())
                .or_default()
                .push((x, r.mean_ns / 1e6));
        }
    }
    by_series.retain(|_, pts| pts.len() >= 2);
    let family_of = |id: &str, depth: usize| -> String {
        id.split('/').take(depth).collect::<Vec<_>>().join("/")
    };
    let mut families: BTreeMap<String, SeriesMap> = BTreeMap::new();
    for (id, pts) in &by_series {
        families
            .entry(family_of(id, 1))
            .or_default()
            .insert(id.clone(), pts.clone());
    }
    let mut charts = Vec::new();
    for (family, series) in families {
        let groups: Vec<(String, SeriesMap)> = if series.len() > MAX_SERIES {
            let mut split: BTreeMap<String, SeriesMap> = BTreeMap::new();
            for (id, pts) in series {
                split.entry(family_of(&id, 2)).or_default().insert(id, pts);
            }
            split.into_iter().collect()
        } else {
            vec![(family, series)]
        };
        for (name, series) in groups {
            let prefix = format!("{name}/");
            let series = series
                .into_iter()
                .map(|(id, pts)| {
                    let short = id.strip_prefix(&prefix).unwrap_or(&id).to_owned();
                    (short, pts)
                })
                .collect();
            charts.push(Figure {
                stem: format!("scaling-{}", file_safe(&name)),
                title: format!("{name}: time per operation vs size"),
                panels: vec![Panel {
                    title: name.clone(),
                    x_label: "size parameter (n, L or bytes)".to_owned(),
                    y_label: "time (ms, one core)".to_owned(),
                    log_x: true,
                    log_y: true,
                    series: to_series(series),
                }],
                caption: vec![
                    "Criterion mean time per operation against the size in the \
                               benchmark id (shuffle size n, vector length L)."
                        .to_owned(),
                ],
            });
        }
    }
    charts
}

fn to_series(map: SeriesMap) -> Vec<Series> {
    let mut out: Vec<Series> = map
        .into_iter()
        .map(|(name, points)| Series::new(name, points, Kind::Measured))
        .collect();
    out.sort_by(|a, b| natural_cmp(&a.name, &b.name));
    out
}

/// `[a-z0-9-]` only, so stems are safe file names and URLs.
pub(crate) fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::criterion::parse_result;
    use crate::bench::criterion::tests::{benchmark_json, estimates_json};

    fn result(group: &str, function: &str, param: &str, tp: &str, mean_ns: f64) -> BenchResult {
        parse_result(
            &benchmark_json(group, function, param, tp),
            &estimates_json(mean_ns, mean_ns, 1.0),
            None,
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Synthetic results: two suites, generation and batched verification, plus a shuffle.
    pub(crate) fn fixture() -> Vec<BenchResult> {
        vec![
            // 1024 B in 1 ms = 1024 KB/s; 4096 B in 2 ms = 2048 KB/s.
            result("fig5/xor/ristretto255", "cover", "1024", r#"{"Bytes":1024}"#, 1e6),
            result("fig5/xor/ristretto255", "cover", "4096", r#"{"Bytes":4096}"#, 2e6),
            // A batch of 32 blocks of 1024 B in 32 ms = 1024 KB/s.
            result(
                "fig5/hashing-generator/p256",
                "verify-batch",
                "1024",
                r#"{"Bytes":32768}"#,
                32e6,
            ),
            // The other agent's layout: group `fig5/<suite>/<group>/<op>`, id from the parameter.
            parse_result(
                r#"{"group_id":"fig5/pairing/bls12-381/cover","function_id":null,"value_str":"60","throughput":{"Bytes":60},"full_id":"fig5/pairing/bls12-381/cover/60","directory_name":"x","title":"x"}"#,
                &estimates_json(20e6, 20e6, 1.0),
                None,
            )
            .unwrap_or_else(|e| panic!("{e}")),
            result("neff/ristretto255", "prove", "64", "null", 11e6),
            result("neff/ristretto255", "prove", "256", "null", 36e6),
            result("schnorr/p256", "prove", "x", "null", 1e4),
        ]
    }

    #[test]
    fn fig5_ids_parse_into_throughput_points() {
        let pts = fig5_points(&fixture());
        assert_eq!(pts.len(), 4);
        let xor: Vec<_> = pts.iter().filter(|p| p.suite == "xor").collect();
        assert_eq!((xor[0].block, xor[0].kb_per_s), (1024, 1024.0));
        assert_eq!((xor[1].block, xor[1].kb_per_s), (4096, 2048.0));
        let hg = pts.iter().find(|p| p.suite == "hashing-generator");
        assert_eq!(
            hg.map(|p| (p.op.as_str(), p.block, p.kb_per_s)),
            Some(("verify-batch", 1024, 1024.0))
        );
        let pairing = pts.iter().find(|p| p.suite == "pairing");
        assert_eq!(
            pairing.map(|p| (p.group.as_str(), p.block, p.kb_per_s)),
            Some(("bls12-381", 60, 3.0))
        );
    }

    #[test]
    fn scaling_figures_need_two_numeric_points() {
        let figs = scaling_figures(&fixture());
        assert_eq!(figs.len(), 1);
        assert_eq!(figs[0].stem, "scaling-neff");
        let s = &figs[0].panels[0].series[0];
        assert_eq!(s.name, "ristretto255/prove");
        assert_eq!(s.points, [(64.0, 11.0), (256.0, 36.0)]);
    }

    #[test]
    fn file_names() {
        assert_eq!(file_safe("vector-dleq/P256 x"), "vector-dleq-p256-x");
    }
}
