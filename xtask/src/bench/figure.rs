//! What a figure is, independent of how it is drawn: a grid of panels (small multiples) that
//! share one legend, plus a caption. Series keep the same colour and marker in every panel
//! of a figure because the style is looked up by the series' name, so a reader learns the
//! encoding once per figure.

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Our measurement: a solid line with a filled marker at every point.
    Measured,
    /// A reference shape or level (the paper's throughput, `y = L`): a dashed line, no
    /// markers.
    Reference,
    /// Numbers reported by the paper or measured on the 2013 prototype: hollow markers only.
    Reported,
}

/// Marker shapes, so that series stay distinguishable in grey scale too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    Circle,
    Triangle,
    Square,
    Diamond,
}

/// One series of a panel.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Series {
    /// The legend text; also the key of the series' style within its figure.
    pub name: String,
    /// `(x, y)` points, drawn in increasing `x`.
    pub points: Vec<(f64, f64)>,
    pub kind: Kind,
}

impl Series {
    pub(crate) fn new(name: impl Into<String>, points: Vec<(f64, f64)>, kind: Kind) -> Series {
        let mut points = points;
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        Series {
            name: name.into(),
            points,
            kind,
        }
    }
}

/// One chart of a figure.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Panel {
    pub title: String,
    /// Axis label with its unit.
    pub x_label: String,
    /// Axis label with its unit.
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    pub series: Vec<Series>,
}

/// A figure file: `<stem>.svg` and `<stem>.png`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Figure {
    pub stem: String,
    pub title: String,
    pub panels: Vec<Panel>,
    /// Lines under the legend: what is (not) shown, where the reference numbers come from.
    /// The renderer adds the machine-and-commit line.
    pub caption: Vec<String>,
}

impl Figure {
    /// Every series name in the order of first appearance (the legend's order).
    pub(crate) fn legend(&self) -> Vec<(&str, Kind)> {
        let mut out: Vec<(&str, Kind)> = Vec::new();
        for s in self.panels.iter().flat_map(|p| &p.series) {
            if !out.iter().any(|(n, _)| *n == s.name) {
                out.push((&s.name, s.kind));
            }
        }
        out
    }

    /// The style of series `name`: its position among the figure's series of the same kind
    /// picks the colour and marker, so measured series never share a colour.
    pub(crate) fn style(&self, name: &str) -> (Rgb, Marker) {
        let legend = self.legend();
        let kind = legend.iter().find(|(n, _)| *n == name).map(|(_, k)| *k);
        let i = legend
            .iter()
            .filter(|(_, k)| Some(*k) == kind)
            .position(|(n, _)| *n == name)
            .unwrap_or(0);
        match kind {
            Some(Kind::Measured) | None => (MEASURED[i % MEASURED.len()], MARKERS[i % 4]),
            // References and reported numbers are black and grey: they are context, not data
            // of this run, and must not compete with the measured colours.
            Some(Kind::Reference) => (REFERENCE[i % REFERENCE.len()], Marker::Circle),
            Some(Kind::Reported) => (REPORTED[i % REPORTED.len()], MARKERS[(i + 3) % 4]),
        }
    }
}

/// An sRGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rgb(pub u8, pub u8, pub u8);

/// The Okabe–Ito palette (distinguishable with the common colour-vision deficiencies) without
/// its black, which marks references, and its yellow, which is unreadable as a thin line on
/// white.
pub(crate) const MEASURED: [Rgb; 6] = [
    Rgb(0, 114, 178),   // blue
    Rgb(213, 94, 0),    // vermillion
    Rgb(0, 158, 115),   // bluish green
    Rgb(230, 159, 0),   // orange
    Rgb(86, 180, 233),  // sky blue
    Rgb(204, 121, 167), // reddish purple
];

const REFERENCE: [Rgb; 3] = [Rgb(0, 0, 0), Rgb(110, 110, 110), Rgb(160, 160, 160)];
const REPORTED: [Rgb; 3] = [Rgb(0, 0, 0), Rgb(90, 90, 90), Rgb(140, 140, 140)];
const MARKERS: [Marker; 4] = [
    Marker::Circle,
    Marker::Triangle,
    Marker::Square,
    Marker::Diamond,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_are_per_name_and_distinct_within_a_kind() {
        let panel = |names: &[(&str, Kind)]| Panel {
            title: "p".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            log_x: false,
            log_y: false,
            series: names
                .iter()
                .map(|(n, k)| Series::new(*n, vec![(2.0, 1.0), (1.0, 1.0)], *k))
                .collect(),
        };
        let f = Figure {
            stem: "f".into(),
            title: "t".into(),
            panels: vec![
                panel(&[("a", Kind::Measured), ("paper", Kind::Reference)]),
                panel(&[("b", Kind::Measured), ("a", Kind::Measured)]),
            ],
            caption: vec![],
        };
        assert_eq!(
            f.legend(),
            [
                ("a", Kind::Measured),
                ("paper", Kind::Reference),
                ("b", Kind::Measured)
            ]
        );
        assert_eq!(f.style("a"), (MEASURED[0], Marker::Circle));
        assert_eq!(f.style("b"), (MEASURED[1], Marker::Triangle));
        assert_eq!(f.style("paper").0, Rgb(0, 0, 0));
        // Points are sorted by x.
        assert_eq!(f.panels[0].series[0].points, [(1.0, 1.0), (2.0, 1.0)]);
    }
}
