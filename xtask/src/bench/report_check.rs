//! `cargo xtask report-check`: opens `target/verdict-bench/index.html` in a real headless
//! browser and checks that it renders — a screenshot that is not one flat colour, no console
//! error, and every `<img>` of the page in the rendered DOM with its file present. Skipped,
//! with a message, when no Chromium is installed.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Options of `cargo xtask report-check`.
#[derive(Debug, Default, PartialEq, clap::Args)]
#[command(about = "Render target/verdict-bench/index.html in headless Chromium and check it")]
pub(crate) struct Args {
    /// The page to check (default: `TARGET/verdict-bench/index.html`)
    #[arg(long, value_name = "FILE")]
    page: Option<PathBuf>,
}

/// Browsers tried in order; `CHROME` overrides them.
const BROWSERS: [&str; 4] = [
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
];

fn browser() -> Option<PathBuf> {
    if let Ok(c) = std::env::var("CHROME") {
        return Some(PathBuf::from(c));
    }
    BROWSERS.iter().map(PathBuf::from).find(|p| p.exists())
}

/// The flags for a quiet, isolated headless run: no sandbox (containers), no GPU, no network
/// of its own (updates, sync, QUIC), a fresh profile.
fn flags(profile: &Path) -> Vec<String> {
    [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .chain([format!("--user-data-dir={}", profile.display())])
    .collect()
}

/// The `src` of every `<img>` in an HTML text.
pub(crate) fn img_sources(html: &str) -> Vec<String> {
    html.split("<img")
        .skip(1)
        .filter_map(|tag| {
            let rest = tag.split_once("src=\"")?.1;
            Some(rest.split('"').next()?.to_owned())
        })
        .collect()
}

/// Console errors in Chromium's `--enable-logging=stderr` output.
pub(crate) fn console_errors(log: &str) -> Vec<String> {
    log.lines()
        .filter(|l| {
            l.contains("Uncaught")
                || l.contains("ERROR:CONSOLE")
                || l.contains("Failed to load resource")
                || l.contains("net::ERR_FILE_NOT_FOUND")
        })
        .map(str::to_owned)
        .collect()
}

/// Runs the task; returns whether it succeeded (a missing browser is a skip, not a failure).
pub(crate) fn run(root: &Path, args: &Args) -> bool {
    match check(root, args) {
        Ok(()) => true,
        Err(e) => {
            eprintln!("report-check: {e}");
            false
        }
    }
}

fn check(root: &Path, args: &Args) -> Result<(), String> {
    let page = match &args.page {
        Some(p) => p.clone(),
        None => super::criterion::metadata(root)?
            .target_dir
            .join("verdict-bench")
            .join("index.html"),
    };
    let html = std::fs::read_to_string(&page).map_err(|e| {
        format!(
            "{}: {e} (run `cargo xtask bench --quick` or `--replot` first)",
            page.display()
        )
    })?;
    let dir = page.parent().unwrap_or(Path::new("."));
    let expected = img_sources(&html);
    for src in &expected {
        if !dir.join(src).exists() {
            return Err(format!("{} references missing {src}", page.display()));
        }
    }
    let Some(chrome) = browser() else {
        println!(
            "report-check skipped: no Chromium found (tried {}; set CHROME=/path/to/chrome, or \
             `apt-get install chromium`)",
            BROWSERS.join(", ")
        );
        return Ok(());
    };
    let page = std::fs::canonicalize(&page).map_err(|e| e.to_string())?;
    let url = format!("file://{}", page.display());
    let scratch = std::env::temp_dir().join(format!("verdict-report-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    let result = browse(&chrome, &scratch, &url, &expected);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn browse(chrome: &Path, scratch: &Path, url: &str, expected: &[String]) -> Result<(), String> {
    let shot = scratch.join("shot.png");
    let out = Command::new(chrome)
        .args(flags(&scratch.join("profile-shot")))
        .args([
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1280,2400",
        ])
        .arg(format!("--screenshot={}", shot.display()))
        .arg(url)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", chrome.display()))?;
    let log = String::from_utf8_lossy(&out.stderr);
    let errors = console_errors(&log);
    if !errors.is_empty() {
        return Err(format!("console errors:\n{}", errors.join("\n")));
    }
    let png =
        std::fs::read(&shot).map_err(|e| format!("no screenshot ({}): {e}\n{log}", out.status))?;
    let colours = super::png::distinct_colours(&png, 64)?;
    if colours < 8 {
        return Err(format!(
            "the screenshot has {colours} colours: the page did not render"
        ));
    }
    let dom = Command::new(chrome)
        .args(flags(&scratch.join("profile-dom")))
        .arg("--dump-dom")
        .arg(url)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", chrome.display()))?;
    let dom = String::from_utf8_lossy(&dom.stdout);
    let rendered = img_sources(&dom);
    if rendered != expected {
        return Err(format!(
            "rendered images {rendered:?} differ from the page's {expected:?}"
        ));
    }
    if !dom.contains("id=\"targets\"") {
        return Err("the rendered page has no targets table".to_owned());
    }
    println!(
        "report-check: {url} renders ({} bytes of screenshot, ≥ {colours} colours), {} images, \
         no console errors ({})",
        png.len(),
        rendered.len(),
        chrome.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_images_and_console_errors() {
        let html = r#"<p><img src="fig5.svg" alt="a"><img alt="b" src="fig7.svg"></p>"#;
        assert_eq!(img_sources(html), ["fig5.svg", "fig7.svg"]);
        assert!(img_sources("<p>none</p>").is_empty());
        let log = "[1:2:INFO:x] fine\n[1:2:ERROR:CONSOLE(3)] \"Uncaught ReferenceError\"\n";
        assert_eq!(console_errors(log).len(), 1);
        assert!(console_errors("[1:2:INFO:x] fine").is_empty());
        let f = flags(Path::new("/tmp/p"));
        assert!(f.contains(&"--headless".to_owned()));
        assert!(f.contains(&"--user-data-dir=/tmp/p".to_owned()));
    }
}
