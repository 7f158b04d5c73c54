//! Drawing a [`Figure`] as SVG with plotters: a title, a grid of panels, one legend strip
//! under the grid (outside every plot, so it can never hide data) and the caption lines.

use plotters::coord::Shift;
use plotters::coord::combinators::BindKeyPoints;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

use super::figure::{Figure, Kind, Marker, Panel, Rgb};

/// Pixel sizes of the layout.
const PANEL_W: u32 = 560;
const PANEL_H: u32 = 400;
const TITLE_H: u32 = 44;
const LEGEND_ROW_H: u32 = 24;
const CAPTION_ROW_H: u32 = 19;
/// Rough width of one character of the 14 px sans-serif legend text; over-estimating only
/// leaves more space between legend entries.
const CHAR_W: u32 = 8;

/// Columns of the panel grid: two for two or four panels, three for three.
fn columns(panels: usize) -> u32 {
    match panels {
        0 | 1 => 1,
        3 => 3,
        5 | 6 => 3,
        _ => 2,
    }
}

/// The legend laid out in rows of `width` pixels: `(row, x, name, kind)` per entry.
fn legend_layout(figure: &Figure, width: u32) -> Vec<(u32, u32, String, Kind)> {
    let mut out = Vec::new();
    let (mut row, mut x) = (0, 16);
    for (name, kind) in figure.legend() {
        let w = 44 + CHAR_W * name.chars().count() as u32;
        if x + w > width && x > 16 {
            row += 1;
            x = 16;
        }
        out.push((row, x, name.to_owned(), kind));
        x += w;
    }
    out
}

/// Splits caption text into lines of at most `chars` characters, at spaces.
fn wrap(text: &str, chars: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > chars {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

fn rgb(c: Rgb) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

/// Compact tick labels: 1500 -> "1.5k", 65536 -> "65.5k", 0.002 -> "0.002".
pub(crate) fn si(v: f64) -> String {
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
    } else if x.abs() >= 0.01 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    };
    format!("{s}{suffix}")
}

/// Tick values for a log axis over `[lo, hi]`: the decades if there are at least three,
/// else 1-2-5 steps, else 1-2-3-5-7 steps (so a range inside one decade is labelled too).
pub(crate) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo && lo.is_finite() && hi.is_finite()) {
        return Vec::new();
    }
    let steps = |mantissas: &[f64]| -> Vec<f64> {
        let first = lo.log10().floor() as i32;
        let last = hi.log10().ceil() as i32;
        (first..=last)
            .flat_map(|e| mantissas.iter().map(move |m| m * 10f64.powi(e)))
            .filter(|v| *v >= lo * (1.0 - 1e-9) && *v <= hi * (1.0 + 1e-9))
            .collect()
    };
    for mantissas in [&[1.0][..], &[1.0, 2.0, 5.0], &[1.0, 2.0, 3.0, 5.0, 7.0]] {
        let t = steps(mantissas);
        if t.len() >= 3 {
            return t;
        }
    }
    steps(&[1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
}

/// The axis range of `values`, fitted to the data: a small margin (a factor on a log axis,
/// a fraction of the span on a linear one), positive on a log axis; `None` if nothing can be
/// drawn.
pub(crate) fn axis(values: impl Iterator<Item = f64>, log: bool) -> Option<(f64, f64)> {
    let vals: Vec<f64> = values
        .filter(|v| v.is_finite() && (!log || *v > 0.0))
        .collect();
    let lo = vals.iter().copied().reduce(f64::min)?;
    let hi = vals.iter().copied().reduce(f64::max)?;
    Some(if log {
        if hi / lo < 1.5 {
            (lo / 1.5, hi * 1.5)
        } else {
            (lo / 1.25, hi * 1.25)
        }
    } else {
        let pad = if hi > lo {
            (hi - lo) * 0.06
        } else {
            hi.abs().max(1.0) * 0.1
        };
        let lo = if lo >= 0.0 {
            (lo - pad).max(0.0)
        } else {
            lo - pad
        };
        (lo, hi + pad)
    })
}

/// Draws `figure`; `footer` is the machine-and-commit line appended to its caption.
pub(crate) fn render_svg(figure: &Figure, footer: &str) -> Result<String, String> {
    let cols = columns(figure.panels.len());
    let rows = (figure.panels.len() as u32).div_ceil(cols).max(1);
    let width = PANEL_W * cols;
    let legend = legend_layout(figure, width);
    let legend_h = legend.last().map_or(0, |e| e.0 + 1) * LEGEND_ROW_H + 12;
    let chars = (width / 7) as usize;
    let mut caption: Vec<String> = figure.caption.iter().flat_map(|c| wrap(c, chars)).collect();
    caption.extend(wrap(footer, chars));
    let caption_h = caption.len() as u32 * CAPTION_ROW_H + 10;
    let height = TITLE_H + rows * PANEL_H + legend_h + caption_h;
    let err = |e: DrawingAreaErrorKind<_>| e.to_string();

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (title, rest) = root.split_vertically(TITLE_H);
        let (grid, rest) = rest.split_vertically(rows * PANEL_H);
        let (legend_area, caption_area) = rest.split_vertically(legend_h);
        title
            .draw(&Text::new(
                figure.title.as_str(),
                (16, 12),
                ("sans-serif", 21).into_font().color(&BLACK),
            ))
            .map_err(err)?;
        let cells = grid.split_evenly((rows as usize, cols as usize));
        for (panel, cell) in figure.panels.iter().zip(&cells) {
            draw_panel(cell, figure, panel)?;
        }
        draw_legend(&legend_area, figure, &legend)?;
        let style = ("sans-serif", 13).into_font().color(&RGBColor(40, 40, 40));
        for (i, line) in caption.iter().enumerate() {
            let y = 4 + (i as u32 * CAPTION_ROW_H) as i32;
            caption_area
                .draw(&Text::new(line.as_str(), (16, y), style.clone()))
                .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

fn draw_panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    figure: &Figure,
    panel: &Panel,
) -> Result<(), String> {
    let all = || panel.series.iter().flat_map(|s| s.points.iter());
    let (Some((x0, x1)), Some((y0, y1))) = (
        axis(all().map(|p| p.0), panel.log_x),
        axis(all().map(|p| p.1), panel.log_y),
    ) else {
        let style = ("sans-serif", 15).into_font().color(&BLACK);
        let text = format!("{}: no data in this run", panel.title);
        return area
            .draw(&Text::new(text.as_str(), (70, 60), style))
            .map_err(|e| e.to_string());
    };
    // The coordinate types differ between linear and log axes, hence four calls.
    match (panel.log_x, panel.log_y) {
        // Log axes get explicit 1-2-5 ticks: plotters' own log key points label every
        // minor step (crowded) or, inside one decade, nothing at all.
        (true, true) => draw_in(
            area,
            figure,
            panel,
            (x0..x1).log_scale().with_key_points(log_ticks(x0, x1)),
            (y0..y1).log_scale().with_key_points(log_ticks(y0, y1)),
        ),
        (true, false) => draw_in(
            area,
            figure,
            panel,
            (x0..x1).log_scale().with_key_points(log_ticks(x0, x1)),
            y0..y1,
        ),
        (false, true) => draw_in(
            area,
            figure,
            panel,
            x0..x1,
            (y0..y1).log_scale().with_key_points(log_ticks(y0, y1)),
        ),
        (false, false) => draw_in(area, figure, panel, x0..x1, y0..y1),
    }
}

fn draw_in<X, Y>(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    figure: &Figure,
    panel: &Panel,
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
    let mut ctx = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 17))
        .margin(10)
        .margin_right(22)
        .x_label_area_size(50)
        .y_label_area_size(72)
        .build_cartesian_2d(x, y)
        .map_err(err)?;
    let fmt = |v: &f64| si(*v);
    ctx.configure_mesh()
        .x_desc(panel.x_label.as_str())
        .y_desc(panel.y_label.as_str())
        .x_label_formatter(&fmt)
        .y_label_formatter(&fmt)
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .bold_line_style(RGBColor(225, 225, 225))
        .light_line_style(WHITE)
        .draw()
        .map_err(err)?;
    let drawable = |&(px, py): &(f64, f64)| {
        px.is_finite() && py.is_finite() && (!panel.log_x || px > 0.0) && (!panel.log_y || py > 0.0)
    };
    for s in &panel.series {
        let (c, marker) = figure.style(&s.name);
        let color = rgb(c);
        let pts: Vec<(f64, f64)> = s.points.iter().copied().filter(drawable).collect();
        match s.kind {
            Kind::Reference => {
                ctx.draw_series(DashedLineSeries::new(pts, 9, 6, color.stroke_width(2)))
                    .map_err(err)?;
            }
            Kind::Measured => {
                ctx.draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                    .map_err(err)?;
                draw_markers(&mut ctx, &pts, marker, color.filled(), 4)?;
            }
            Kind::Reported => {
                draw_markers(&mut ctx, &pts, marker, color.stroke_width(2), 7)?;
            }
        }
    }
    Ok(())
}

fn draw_markers<DB, CT>(
    ctx: &mut ChartContext<'_, DB, CT>,
    pts: &[(f64, f64)],
    marker: Marker,
    style: ShapeStyle,
    size: i32,
) -> Result<(), String>
where
    DB: DrawingBackend,
    CT: CoordTranslate<From = (f64, f64)>,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let at = |p: &(f64, f64)| EmptyElement::at(*p);
    let s = size;
    match marker {
        Marker::Circle => ctx
            .draw_series(pts.iter().map(|p| at(p) + Circle::new((0, 0), s, style)))
            .map(|_| ()),
        Marker::Triangle => ctx
            .draw_series(
                pts.iter()
                    .map(|p| at(p) + TriangleMarker::new((0, 0), s + 1, style)),
            )
            .map(|_| ()),
        Marker::Square => ctx
            .draw_series(
                pts.iter()
                    .map(|p| at(p) + Rectangle::new([(-s + 1, -s + 1), (s - 1, s - 1)], style)),
            )
            .map(|_| ()),
        Marker::Diamond => ctx
            .draw_series(pts.iter().map(|p| {
                at(p)
                    + PathElement::new(
                        vec![
                            (0, -s - 1),
                            (s + 1, 0),
                            (0, s + 1),
                            (-s - 1, 0),
                            (0, -s - 1),
                        ],
                        style,
                    )
            }))
            .map(|_| ()),
    }
    .map_err(err)
}

fn draw_legend(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    figure: &Figure,
    layout: &[(u32, u32, String, Kind)],
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<_>| e.to_string();
    let style = ("sans-serif", 14).into_font().color(&BLACK);
    for (row, x, name, kind) in layout {
        let (c, marker) = figure.style(name);
        let color = rgb(c);
        let (x, y) = (
            *x as i32,
            (6 + row * LEGEND_ROW_H + LEGEND_ROW_H / 2) as i32,
        );
        match kind {
            Kind::Measured => {
                area.draw(&PathElement::new(
                    vec![(x, y), (x + 30, y)],
                    color.stroke_width(2),
                ))
                .map_err(err)?;
                legend_marker(area, (x + 15, y), marker, color.filled(), 4)?;
            }
            Kind::Reference => {
                for k in 0..3 {
                    let x0 = x + k * 11;
                    area.draw(&PathElement::new(
                        vec![(x0, y), (x0 + 7, y)],
                        color.stroke_width(2),
                    ))
                    .map_err(err)?;
                }
            }
            Kind::Reported => legend_marker(area, (x + 15, y), marker, color.stroke_width(2), 6)?,
        }
        area.draw(&Text::new(name.as_str(), (x + 36, y - 8), style.clone()))
            .map_err(err)?;
    }
    Ok(())
}

fn legend_marker(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    (x, y): (i32, i32),
    marker: Marker,
    style: ShapeStyle,
    s: i32,
) -> Result<(), String> {
    let r = match marker {
        Marker::Circle => area.draw(&Circle::new((x, y), s, style)),
        Marker::Triangle => area.draw(&TriangleMarker::new((x, y), s + 1, style)),
        Marker::Square => area.draw(&Rectangle::new(
            [(x - s + 1, y - s + 1), (x + s - 1, y + s - 1)],
            style,
        )),
        Marker::Diamond => area.draw(&PathElement::new(
            vec![
                (x, y - s - 1),
                (x + s + 1, y),
                (x, y + s + 1),
                (x - s - 1, y),
                (x, y - s - 1),
            ],
            style,
        )),
    };
    r.map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::figure::Series;

    #[test]
    fn log_ticks_label_wide_and_narrow_ranges() {
        assert_eq!(
            log_ticks(0.5, 20_000.0),
            [1.0, 10.0, 100.0, 1000.0, 10_000.0]
        );
        assert_eq!(log_ticks(12.0, 80.0), [20.0, 30.0, 50.0, 70.0]);
        assert_eq!(log_ticks(0.04, 0.6), [0.05, 0.1, 0.2, 0.5]);
        assert!(log_ticks(0.0, 1.0).is_empty());
    }

    fn figure(panels: usize) -> Figure {
        let panel = |i: usize| Panel {
            title: format!("panel {i}"),
            x_label: "block (bytes)".into(),
            y_label: "throughput (KB/s)".into(),
            log_x: i % 2 == 0,
            log_y: i % 2 == 0,
            series: vec![
                Series::new(
                    "ristretto255 cover",
                    vec![(26.0, 75.0), (4096.0, 468.0)],
                    Kind::Measured,
                ),
                Series::new("paper", vec![(26.0, 20.0), (4096.0, 20.0)], Kind::Reference),
                Series::new("prototype", vec![(3700.0, 37.0)], Kind::Reported),
            ],
        };
        Figure {
            stem: "f".into(),
            title: "Figure X".into(),
            panels: (0..panels).map(panel).collect(),
            caption: vec!["a caption line".into()],
        }
    }

    #[test]
    fn svg_has_every_panel_series_and_caption() {
        let f = figure(4);
        let svg =
            render_svg(&f, "machine: test CPU; commit abc1234").unwrap_or_else(|e| panic!("{e}"));
        assert!(svg.trim_end().ends_with("</svg>"));
        for needle in [
            "Figure X",
            "panel 0",
            "panel 3",
            "ristretto255 cover",
            "paper",
            "prototype",
            "a caption line",
            "commit abc1234",
            "throughput (KB/s)",
        ] {
            assert!(svg.contains(needle), "{needle}");
        }
        // Two columns of 560 px for four panels.
        assert!(svg.contains("width=\"1120\""), "{}", &svg[..200]);
    }

    #[test]
    fn empty_panels_say_so_instead_of_failing() {
        let mut f = figure(1);
        f.panels[0].series.clear();
        let svg = render_svg(&f, "").unwrap_or_else(|e| panic!("{e}"));
        assert!(svg.contains("no data in this run"));
    }

    #[test]
    fn legend_wraps_and_captions_wrap() {
        let f = figure(1);
        let rows = legend_layout(&f, 200);
        assert_eq!(rows.len(), 3);
        assert!(rows.iter().all(|(_, x, ..)| *x + 10 < 200 || *x == 16));
        assert!(rows.last().is_some_and(|r| r.0 >= 1));
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
    }

    #[test]
    fn axes_fit_the_data() {
        assert_eq!(axis([10.0, 1000.0].into_iter(), true), Some((8.0, 1250.0)));
        assert_eq!(axis([0.0, 10.0].into_iter(), false), Some((0.0, 10.6)));
        assert_eq!(axis([-1.0, 0.0].into_iter(), true), None);
        assert_eq!(si(1500.0), "1.5k");
        assert_eq!(si(65536.0), "65.5k");
        assert_eq!(si(0.05), "0.05");
        assert_eq!(si(0.002), "0.002");
    }
}
