//! Figure 5 as small multiples: one panel per suite, generation and verification throughput
//! against block size, our ristretto255 and P-256 side by side, with the paper's generation
//! rate (dashed) and the 2013 prototype's measured values (hollow markers).

use std::collections::BTreeMap;

use super::figure::{Figure, Kind, Panel, Series};
use super::plot::Fig5Point;

/// The paper's Figure 5 generation throughputs in KB/s (one core of a 3.2 GHz Xeon W3565).
pub(crate) const PAPER_FIG5: [(&str, f64); 3] = [
    ("hashing-generator", 20.0),
    ("pairing", 3.0),
    ("xor", 600.0),
];

/// The 2013 prototype re-measured at 128 P-256 elements: `(suite, generation, verification)`
/// in KB/s.
pub(crate) const PROTOTYPE: [(&str, f64, f64); 2] =
    [("hashing-generator", 37.0, 33.0), ("elgamal", 18.0, 18.0)];

/// Block size of the prototype's numbers: 128 elements of 30 bytes.
const PROTOTYPE_BLOCK: f64 = 3840.0;

/// The operations drawn, with their legend wording; the rest stay in summary.md's table.
const OPS: [(&str, &str); 4] = [
    ("cover", "generation"),
    ("verify", "verification, one"),
    ("verify-batch", "verification, batch"),
    ("raw-blake3-16", "raw blake3 ×16 (bound)"),
];

/// Points per series name, in name order.
type SeriesByName = BTreeMap<String, Vec<(f64, f64)>>;

fn group_label(group: &str) -> &str {
    match group {
        "p256" => "P-256",
        "bls12-381" => "BLS12-381",
        other => other,
    }
}

fn panel_title(suite: &str) -> String {
    match suite {
        "hashing-generator" => "hashing-generator".to_owned(),
        "elgamal" => "ElGamal".to_owned(),
        "xor" => "XOR (M = 16 servers)".to_owned(),
        s if s.starts_with("pairing") => format!("pairing ({s})"),
        s => s.to_owned(),
    }
}

/// Figure 5, or `None` when no `fig5/...` result was measured.
pub(crate) fn fig5_figure(points: &[Fig5Point]) -> Option<Figure> {
    // suite -> series name -> points
    let mut suites: BTreeMap<&str, SeriesByName> = BTreeMap::new();
    for p in points {
        let Some((_, label)) = OPS.iter().find(|(op, _)| *op == p.op) else {
            continue;
        };
        suites
            .entry(&p.suite)
            .or_default()
            .entry(format!("{} {label}", group_label(&p.group)))
            .or_default()
            .push((p.block as f64, p.kb_per_s));
    }
    if suites.is_empty() {
        return None;
    }
    let order = |s: &str| match s {
        "hashing-generator" => 0,
        "elgamal" => 1,
        "xor" => 2,
        _ => 3,
    };
    let mut keys: Vec<&str> = suites.keys().copied().collect();
    keys.sort_by_key(|s| (order(s), s.to_string()));
    let panels = keys
        .into_iter()
        .map(|suite| {
            let measured = &suites[suite];
            let xs = measured.values().flatten().map(|p| p.0);
            let lo = xs.clone().fold(f64::INFINITY, f64::min);
            let hi = xs.fold(0.0, f64::max);
            let mut series: Vec<Series> = measured
                .iter()
                .map(|(name, pts)| Series::new(name.clone(), pts.clone(), Kind::Measured))
                .collect();
            if let Some((_, kbps)) = PAPER_FIG5.iter().find(|(s, _)| suite.starts_with(s)) {
                series.push(Series::new(
                    "paper Fig. 5, generation",
                    vec![(lo, *kbps), (hi, *kbps)],
                    Kind::Reference,
                ));
            }
            if let Some((_, generation, verification)) =
                PROTOTYPE.iter().find(|(s, ..)| *s == suite)
            {
                series.push(Series::new(
                    "2013 prototype, P-256 generation",
                    vec![(PROTOTYPE_BLOCK, *generation)],
                    Kind::Reported,
                ));
                series.push(Series::new(
                    "2013 prototype, P-256 verification",
                    vec![(PROTOTYPE_BLOCK, *verification)],
                    Kind::Reported,
                ));
            }
            Panel {
                title: panel_title(suite),
                x_label: "block size (bytes of plaintext)".to_owned(),
                y_label: "throughput (KB/s, one core)".to_owned(),
                log_x: true,
                log_y: true,
                series,
            }
        })
        .collect();
    Some(Figure {
        stem: "fig5".to_owned(),
        title: "Figure 5: client ciphertext generation and verification throughput per suite"
            .to_owned(),
        panels,
        caption: vec![
            "Throughput = plaintext bytes per second on one core (1 KB = 1000 B). Generation = \
             a cover ciphertext; verification of one client ciphertext and of a batch (one \
             MSM). Dashed: the paper's Fig. 5 generation rate (one core of a 3.2 GHz Xeon \
             W3565, 2010). Hollow markers: the 2013 prototype re-measured on that machine \
             class at 128 P-256 elements (3.84 KB). Owner and server throughputs are in the \
             tables of summary.md."
                .to_owned(),
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(suite: &str, group: &str, op: &str, block: u64, kb: f64) -> Fig5Point {
        Fig5Point {
            suite: suite.into(),
            group: group.into(),
            op: op.into(),
            block,
            kb_per_s: kb,
        }
    }

    #[test]
    fn one_panel_per_suite_with_paper_and_prototype() {
        let pts = [
            p("xor", "ristretto255", "cover", 1024, 1e5),
            p("hashing-generator", "p256", "cover", 1024, 150.0),
            p("hashing-generator", "p256", "cover", 4096, 210.0),
            p(
                "hashing-generator",
                "ristretto255",
                "verify-batch",
                4096,
                4500.0,
            ),
            p("hashing-generator", "ristretto255", "server", 4096, 400.0),
        ];
        let f = fig5_figure(&pts).unwrap_or_else(|| panic!("no figure"));
        assert_eq!(f.stem, "fig5");
        let titles: Vec<_> = f.panels.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles, ["hashing-generator", "XOR (M = 16 servers)"]);
        let hg: Vec<_> = f.panels[0].series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            hg,
            [
                "P-256 generation",
                "ristretto255 verification, batch",
                "paper Fig. 5, generation",
                "2013 prototype, P-256 generation",
                "2013 prototype, P-256 verification"
            ]
        );
        assert_eq!(
            f.panels[0].series[2].points,
            [(1024.0, 20.0), (4096.0, 20.0)]
        );
        assert_eq!(f.panels[0].series[3].points, [(3840.0, 37.0)]);
        // XOR: the paper's 600 KB/s, no prototype.
        assert_eq!(f.panels[1].series.len(), 2);
        assert!(fig5_figure(&[]).is_none());
    }
}
