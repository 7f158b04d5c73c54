//! The figures: which results go into which chart, and drawing a chart as SVG with plotters.
//!
//! Everything is driven by benchmark ids, not by a list of known benchmarks, so a bench added
//! later with the same id scheme shows up in the plots without touching this file:
//! - `fig5/<suite>/<group>/<op>/<bytes>`: Figure 5, plaintext throughput against block size,
//!   one chart per kind of operation (generation, verification, server);
//! - any other id ending in a number (`neff/ristretto255/prove/1024`): time against that
//!   number, one chart per id family (the first path component);
//! - macro benchmark reports: one chart each, as the report describes.

use std::collections::BTreeMap;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use verdict_bench::macro_bench::MacroReport;

use super::criterion::{BenchResult, Throughput, natural_cmp};

/// Points of one series, by series name.
type SeriesMap = BTreeMap<String, Vec<(f64, f64)>>;

/// One line of a chart.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Series {
    pub name: String,
    /// `(x, y)` points, drawn in increasing `x`.
    pub points: Vec<(f64, f64)>,
    /// A reference value (the paper's), drawn dashed without markers.
    pub reference: bool,
}

/// A line chart and the file stem it is written to (`<stem>.svg`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Chart {
    pub stem: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    pub series: Vec<Series>,
}

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

/// Which Figure 5 chart an operation belongs to. Baselines (e.g. raw keystream) stay with
/// generation, which they are the reference for; the XOR `reveal` ends in the check of the
/// owner's frame, so it is charted with verification.
pub(crate) fn fig5_kind(op: &str) -> &'static str {
    if op.contains("verify") || op.contains("decode") || op == "reveal" {
        "verification"
    } else if op.contains("server") {
        "server"
    } else {
        "generation"
    }
}

/// The Figure 5 charts: one per kind of operation that has data.
pub(crate) fn fig5_charts(results: &[BenchResult]) -> Vec<Chart> {
    let mut kinds: BTreeMap<&str, SeriesMap> = BTreeMap::new();
    for p in fig5_points(results) {
        kinds
            .entry(fig5_kind(&p.op))
            .or_default()
            .entry(format!("{}/{} {}", p.suite, p.group, p.op))
            .or_default()
            .push((p.block as f64, p.kb_per_s));
    }
    kinds
        .into_iter()
        .map(|(kind, series)| {
            let mut series = to_series(series);
            if kind == "generation" {
                series.extend(paper_lines(&series));
            }
            Chart {
                stem: format!("fig5-{kind}"),
                title: format!("Figure 5 analog: {kind} throughput vs block size"),
                x_label: "block size (bytes of plaintext)".to_owned(),
                y_label: "throughput (KB/s, one core)".to_owned(),
                log_x: true,
                log_y: true,
                series,
            }
        })
        .collect()
}

/// The paper's Figure 5 generation throughputs (one core of a 3.2 GHz Xeon W3565).
pub(crate) const PAPER_FIG5: [(&str, f64); 3] = [
    ("hashing-generator", 20.0),
    ("pairing", 3.0),
    ("xor", 600.0),
];

/// A horizontal reference line at the paper's throughput for every suite plotted, spanning
/// the suite's block sizes.
fn paper_lines(series: &[Series]) -> Vec<Series> {
    let mut out = Vec::new();
    for (suite, kbps) in PAPER_FIG5 {
        let xs = series
            .iter()
            .filter(|s| s.name.starts_with(suite))
            .flat_map(|s| s.points.iter().map(|p| p.0));
        let lo = xs.clone().reduce(f64::min);
        let hi = xs.reduce(f64::max);
        if let (Some(lo), Some(hi)) = (lo, hi) {
            out.push(Series {
                name: format!("paper Fig. 5: {suite} ({kbps} KB/s)"),
                points: vec![(lo, kbps), (hi, kbps)],
                reference: true,
            });
        }
    }
    out
}

/// Most lines one chart gets before a family is split by its second id component.
const MAX_SERIES: usize = 12;

/// Time against the numeric last id component, for every non-`fig5` family that has a series
/// of at least two points (shuffle and vector-DLEQ sizes, MSM sizes, ElGamal slot sizes).
pub(crate) fn scaling_charts(results: &[BenchResult]) -> Vec<Chart> {
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
            charts.push(Chart {
                stem: format!("scaling-{}", file_safe(&name)),
                title: format!("{name}: time per operation vs size"),
                x_label: "size parameter (n, L or bytes)".to_owned(),
                y_label: "time (ms)".to_owned(),
                log_x: true,
                log_y: true,
                series: to_series(series),
            });
        }
    }
    charts
}

/// The chart of a macro benchmark report.
pub(crate) fn macro_chart(report: &MacroReport) -> Chart {
    let mut series = SeriesMap::new();
    for r in &report.rows {
        series.entry(r.series.clone()).or_default().push((r.x, r.y));
    }
    Chart {
        stem: file_safe(&report.name),
        title: report.title.clone(),
        x_label: report.x_label.clone(),
        y_label: report.y_label.clone(),
        log_x: report.log_x,
        log_y: report.log_y,
        series: to_series(series),
    }
}

fn to_series(map: SeriesMap) -> Vec<Series> {
    let mut out: Vec<Series> = map
        .into_iter()
        .map(|(name, mut points)| {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series {
                name,
                points,
                reference: false,
            }
        })
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

/// Compact axis labels: 1500 -> "1.5k", 65536 -> "65.5k", 0.002 -> "0.002".
fn si(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let s = if x.abs() >= 100.0 || x.fract() == 0.0 {
        format!("{x:.0}")
    } else if x.abs() >= 1.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.3}")
    };
    format!("{s}{suffix}")
}

/// The axis range of `values`: padded, and positive on a log axis (`None` if no value
/// can be drawn).
fn axis(values: impl Iterator<Item = f64>, log: bool) -> Option<(f64, f64)> {
    let vals: Vec<f64> = values
        .filter(|v| v.is_finite() && (!log || *v > 0.0))
        .collect();
    let lo = vals.iter().copied().reduce(f64::min)?;
    let hi = vals.iter().copied().reduce(f64::max)?;
    Some(if log {
        (lo / 1.6, hi * 1.6)
    } else {
        let pad = if hi > lo {
            (hi - lo) * 0.05
        } else {
            hi.abs().max(1.0) * 0.1
        };
        (lo - pad, hi + pad)
    })
}

/// Draws `chart` as an SVG document of `width` x `height` pixels.
pub(crate) fn render_svg(chart: &Chart, width: u32, height: u32) -> Result<String, String> {
    let all = || chart.series.iter().flat_map(|s| s.points.iter());
    let (x0, x1) = axis(all().map(|p| p.0), chart.log_x).ok_or("no drawable x values")?;
    let (y0, y1) = axis(all().map(|p| p.1), chart.log_y).ok_or("no drawable y values")?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        // The legend gets its own column to the right of the plot: inside the plot it would
        // hide data, and with a dozen series there is no empty corner.
        let longest = chart
            .series
            .iter()
            .map(|s| s.name.chars().count())
            .max()
            .unwrap_or(0);
        let legend_w = (36 + 7 * longest as u32).min(width * 2 / 5);
        let (plot_area, legend_area) = root.split_horizontally(width - legend_w);
        // The coordinate types differ between linear and log axes, hence four calls.
        match (chart.log_x, chart.log_y) {
            (true, true) => draw(
                &plot_area,
                chart,
                (x0..x1).log_scale(),
                (y0..y1).log_scale(),
            ),
            (true, false) => draw(&plot_area, chart, (x0..x1).log_scale(), y0..y1),
            (false, true) => draw(&plot_area, chart, x0..x1, (y0..y1).log_scale()),
            (false, false) => draw(&plot_area, chart, x0..x1, y0..y1),
        }?;
        draw_legend(&legend_area, chart)?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

fn draw<X, Y>(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    chart: &Chart,
    x: X,
    y: Y,
) -> Result<(), String>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let err = |e: DrawingAreaErrorKind<_>| e.to_string();
    let mut ctx = ChartBuilder::on(root)
        .caption(&chart.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(65)
        .build_cartesian_2d(x, y)
        .map_err(err)?;
    let fmt = |v: &f64| si(*v);
    ctx.configure_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .x_label_formatter(&fmt)
        .y_label_formatter(&fmt)
        .draw()
        .map_err(err)?;
    let drawable = |&(px, py): &(f64, f64)| {
        px.is_finite() && py.is_finite() && (!chart.log_x || px > 0.0) && (!chart.log_y || py > 0.0)
    };
    for (i, s) in chart.series.iter().enumerate() {
        let color = color(i);
        let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(drawable).collect();
        if s.reference {
            ctx.draw_series(DashedLineSeries::new(pts, 8, 5, color.stroke_width(2)))
                .map_err(err)?;
            continue;
        }
        ctx.draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(err)?;
        ctx.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled())))
            .map_err(err)?;
    }
    Ok(())
}

/// Series colour `i`, the same in the plot and the legend.
fn color(i: usize) -> RGBAColor {
    Palette99::pick(i).to_rgba()
}

/// One legend line per series: a colour sample and the name, top to bottom.
fn draw_legend(area: &DrawingArea<SVGBackend<'_>, Shift>, chart: &Chart) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<_>| e.to_string();
    let style = ("sans-serif", 13).into_font().color(&BLACK);
    for (i, s) in chart.series.iter().enumerate() {
        let y = 50 + 20 * i as i32;
        area.draw(&PathElement::new(
            vec![(4, y), (26, y)],
            color(i).stroke_width(3),
        ))
        .map_err(err)?;
        area.draw(&Text::new(s.name.as_str(), (32, y - 7), style.clone()))
            .map_err(err)?;
    }
    Ok(())
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
    fn fixture() -> Vec<BenchResult> {
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
    fn fig5_charts_split_generation_and_verification() {
        let charts = fig5_charts(&fixture());
        let stems: Vec<_> = charts.iter().map(|c| c.stem.as_str()).collect();
        assert_eq!(stems, ["fig5-generation", "fig5-verification"]);
        let names: Vec<_> = charts[0].series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "pairing/bls12-381 cover",
                "xor/ristretto255 cover",
                "paper Fig. 5: pairing (3 KB/s)",
                "paper Fig. 5: xor (600 KB/s)"
            ]
        );
        assert_eq!(
            charts[0].series[3].points,
            [(1024.0, 600.0), (4096.0, 600.0)]
        );
        assert!(charts[1].series.iter().all(|s| !s.reference));
        assert_eq!(
            charts[0].series[1].points,
            [(1024.0, 1024.0), (4096.0, 2048.0)]
        );
    }

    #[test]
    fn scaling_charts_need_two_numeric_points() {
        let charts = scaling_charts(&fixture());
        assert_eq!(charts.len(), 1);
        assert_eq!(charts[0].stem, "scaling-neff");
        assert_eq!(charts[0].series[0].name, "ristretto255/prove");
        assert_eq!(charts[0].series[0].points, [(64.0, 11.0), (256.0, 36.0)]);
    }

    #[test]
    fn svg_is_well_formed_and_names_every_series() {
        for chart in fig5_charts(&fixture())
            .iter()
            .chain(&scaling_charts(&fixture()))
        {
            let svg = render_svg(chart, 800, 500).unwrap_or_else(|e| panic!("{e}"));
            assert!(
                svg.starts_with("<svg") || svg.starts_with("<?xml"),
                "{}",
                &svg[..40]
            );
            assert!(svg.trim_end().ends_with("</svg>"));
            assert!(svg.contains(&chart.title), "title {}", chart.title);
            for s in &chart.series {
                assert!(svg.contains(&s.name), "series {}", s.name);
            }
            // One polyline per series plus the legend sample; markers are circles.
            assert!(svg.matches("<polyline").count() >= chart.series.len());
            assert!(svg.contains("<circle"));
        }
    }

    #[test]
    fn linear_axes_render_too() {
        let chart = Chart {
            stem: "t".into(),
            title: "linear".into(),
            x_label: "N".into(),
            y_label: "s".into(),
            log_x: false,
            log_y: false,
            series: vec![Series {
                name: "round".into(),
                points: vec![(0.0, 0.0), (8.0, 1.5)],
                reference: false,
            }],
        };
        let svg = render_svg(&chart, 400, 300).unwrap_or_else(|e| panic!("{e}"));
        assert!(svg.contains("round"));
        let empty = Chart {
            series: vec![],
            ..chart
        };
        assert!(render_svg(&empty, 400, 300).is_err());
    }

    #[test]
    fn labels_and_file_names() {
        assert_eq!(si(1500.0), "1.5k");
        assert_eq!(si(65536.0), "65.5k");
        assert_eq!(si(26.0), "26");
        assert_eq!(si(2.0e6), "2M");
        assert_eq!(si(0.002), "0.002");
        assert_eq!(file_safe("vector-dleq/P256 x"), "vector-dleq-p256-x");
    }
}
