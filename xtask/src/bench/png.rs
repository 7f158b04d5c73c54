//! PNG copies of the figures, rasterised from the SVG with resvg so that both files show
//! exactly the same picture; and the check that a PNG is not a blank page.

use resvg::{tiny_skia, usvg};

/// Fonts for the SVG text: the system's, with `sans-serif` mapped to the first sans family
/// found (plotters writes `font-family="sans-serif"`; fontdb's default mapping is Arial,
/// which a Linux machine rarely has).
pub(crate) fn options() -> usvg::Options<'static> {
    let mut opt = usvg::Options::default();
    let db = opt.fontdb_mut();
    db.load_system_fonts();
    let families: Vec<String> = db
        .faces()
        .flat_map(|f| f.families.iter().map(|(n, _)| n.clone()))
        .collect();
    let preferred = ["DejaVu Sans", "Liberation Sans", "Arial", "Noto Sans"];
    let pick = preferred
        .iter()
        .find(|p| families.iter().any(|f| f == *p))
        .map(|p| (*p).to_owned())
        .or_else(|| families.iter().find(|f| f.contains("Sans")).cloned());
    if let Some(family) = pick {
        db.set_sans_serif_family(family);
    }
    opt
}

/// Whether `opt` has any font: without one the PNG would have no text at all.
pub(crate) fn has_fonts(opt: &usvg::Options<'_>) -> bool {
    !opt.fontdb.is_empty()
}

/// Rasterises an SVG document at `scale` (1.0 = its pixel size).
pub(crate) fn svg_to_png(
    svg: &str,
    opt: &usvg::Options<'_>,
    scale: f32,
) -> Result<Vec<u8>, String> {
    let tree = usvg::Tree::from_str(svg, opt).map_err(|e| format!("parsing the SVG: {e}"))?;
    let size = tree.size();
    let (w, h) = (
        (size.width() * scale).ceil() as u32,
        (size.height() * scale).ceil() as u32,
    );
    let mut pixmap = tiny_skia::Pixmap::new(w, h).ok_or("empty or too large image")?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().map_err(|e| e.to_string())
}

/// How many distinct colours a PNG has (up to `limit`, to stay cheap): 1 means blank.
pub(crate) fn distinct_colours(png: &[u8], limit: usize) -> Result<usize, String> {
    let pixmap = tiny_skia::Pixmap::decode_png(png).map_err(|e| e.to_string())?;
    let mut seen: Vec<[u8; 4]> = Vec::new();
    for p in pixmap.pixels() {
        let c = [p.red(), p.green(), p.blue(), p.alpha()];
        if !seen.contains(&c) {
            seen.push(c);
            if seen.len() >= limit {
                break;
            }
        }
    }
    Ok(seen.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rasterises_and_detects_blank_images() {
        let opt = usvg::Options::default();
        let drawn = r#"<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="white"/><rect x="2" y="2" width="5" height="5" fill="rgb(0,114,178)"/></svg>"#;
        let png = svg_to_png(drawn, &opt, 2.0).unwrap_or_else(|e| panic!("{e}"));
        assert!(png.starts_with(b"\x89PNG"));
        assert!(distinct_colours(&png, 16).unwrap_or(0) >= 2);
        let blank = r#"<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"></svg>"#;
        let png = svg_to_png(blank, &opt, 1.0).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(distinct_colours(&png, 16), Ok(1));
        assert!(svg_to_png("not svg", &opt, 1.0).is_err());
        assert!(distinct_colours(b"not a png", 16).is_err());
    }
}
