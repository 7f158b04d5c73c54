//! `cargo xtask fuzz`: builds the cargo-fuzz targets of `fuzz/`, seeds their corpora from the
//! test vectors and runs each for a bounded time.
//!
//! The targets build on the stable toolchain without a sanitizer (`-s none`): libFuzzer's
//! coverage guidance still works, and every decoder runs with debug assertions and overflow
//! checks (see `fuzz/Cargo.toml`). A crash, a timeout or a leak makes the task fail; the input
//! that caused it is in `fuzz/artifacts/<target>/`. Every finding, once fixed, is committed to
//! `fuzz/regressions/<target>/`, which every run replays before fuzzing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Every fuzz target, the test-vector files whose byte strings seed it, and the prefixes
/// (selector and parameter bytes the target reads first) each seed is written with.
const TARGETS: &[(&str, &str, &[&[u8]])] = &[
    (
        "group",
        "group-",
        &[&[0], &[1], &[2], &[3], &[4], &[5], &[6], &[7]],
    ),
    (
        "nizk",
        "nizk-",
        &[
            &[0, 0x15],
            &[1, 0],
            &[2, 0],
            &[3, 0],
            &[4, 0],
            &[5, 0],
            &[0x80, 0x15],
            &[0x81, 0],
            &[0x83, 0],
            &[0x84, 0],
            &[0x85, 0],
        ],
    ),
    (
        "dcnet",
        "dcnet-",
        &[
            &[0, 8],
            &[1, 8],
            &[3, 8],
            &[5, 4],
            &[8, 8],
            &[11, 8],
            &[16, 0],
            &[43, 8],
        ],
    ),
    (
        "shuffle",
        "shuffle-",
        &[&[0, 2], &[2, 2], &[3, 2], &[4, 0], &[5, 2], &[6, 3]],
    ),
    // Every byte string of the recorded hybrid session (its 51 signed envelopes among them):
    // as an envelope decoded by kind (14), as a bare envelope (2), a round result (9) and a
    // verdict (13).
    ("proto", "protocol-", &[&[14], &[2], &[9], &[13]]),
    // Scripts, not vectors: run set-up and a round; submit and run; replay, mutate, garble and
    // seal as client 2 between steps; cut and restore a link, restart a client (see
    // fuzz_targets/session.rs for the action codes).
    (
        "session",
        "",
        &[
            &[0, 63, 0, 63, 0, 63, 0, 63],
            &[0, 63, 0, 63, 5, 0, 0, 63, 0, 63, 0, 63],
            &[
                0, 63, 0, 63, 1, 0, 7, 0, 0, 63, 2, 0, 9, 0, 3, 0x40, 1, 0, 63,
            ],
            &[0, 63, 3, 0, 16, 1, 0, 63, 4, 5, 1, 1, 0, 3, 0, 0, 63],
            // Client 0's link drops and comes back; client 1 restarts mid-session.
            &[
                0, 63, 0, 63, 5, 0, 6, 0, 0, 63, 0, 63, 6, 0, 0, 63, 5, 1, 7, 1, 0, 63, 0, 63,
            ],
        ],
    ),
];

/// At most this many seeds per target (the vectors hold many near-identical strings).
const MAX_SEEDS: usize = 400;

/// `cargo xtask fuzz [--target T] [--minutes N | --seconds N] [--build-only]`.
#[derive(Debug, Default, PartialEq, clap::Args)]
#[command(
    about = "Builds the fuzz targets (fuzz/, cargo-fuzz, stable, no sanitizer), seeds their \
             corpora from test-vectors/ and runs each for a bounded time",
    long_about = "Builds every cargo-fuzz target of fuzz/ with `cargo fuzz build -s none`, \
                  writes seed inputs extracted from test-vectors/*.json into fuzz/corpus/<target>/ \
                  and runs each target (or only --target) for --minutes (default 1) or \
                  --seconds. Fails on any crash; the crashing input is kept in \
                  fuzz/artifacts/<target>/. Needs `cargo install cargo-fuzz --locked`."
)]
pub(crate) struct Args {
    /// Only this target.
    #[arg(long, value_name = "T")]
    pub(crate) target: Option<String>,
    /// Minutes per target.
    #[arg(long, value_name = "N", conflicts_with = "seconds")]
    pub(crate) minutes: Option<u64>,
    /// Seconds per target (short CI runs).
    #[arg(long, value_name = "N")]
    pub(crate) seconds: Option<u64>,
    /// Build (and seed) only, run nothing.
    #[arg(long)]
    pub(crate) build_only: bool,
    /// Unoptimized build (cargo-fuzz `--dev`): compiles several times faster, runs several
    /// times slower; for CI's short smoke runs, not for campaigns.
    #[arg(long)]
    pub(crate) dev: bool,
}

impl Args {
    fn seconds_per_target(&self) -> u64 {
        self.seconds
            .unwrap_or_else(|| self.minutes.unwrap_or(1).saturating_mul(60))
    }
}

/// Every byte string (lowercase hex, even length, non-empty) anywhere in a JSON value.
fn hex_strings(v: &Value, out: &mut Vec<Vec<u8>>) {
    match v {
        Value::String(s) => {
            if let Some(bytes) = decode_hex(s) {
                out.push(bytes);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| hex_strings(i, out)),
        Value::Object(map) => map.values().for_each(|i| hex_strings(i, out)),
        _ => {}
    }
}

fn decode_hex(s: &str) -> Option<Vec<u8>> {
    if s.is_empty() || s.len() % 2 != 0 {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    s.as_bytes()
        .chunks_exact(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

/// The seed inputs of one target: each vector byte string under each prefix.
fn seeds(root: &Path, file_prefix: &str, prefixes: &[&[u8]]) -> Vec<Vec<u8>> {
    let mut strings = Vec::new();
    if !file_prefix.is_empty() {
        let dir = root.join("test-vectors");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        for f in files {
            let name = f.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if !name.starts_with(file_prefix) || !name.ends_with(".json") {
                continue;
            }
            if let Some(v) = std::fs::read_to_string(&f)
                .ok()
                .and_then(|s| serde_json::from_str::<Value>(&s).ok())
            {
                hex_strings(&v, &mut strings);
            }
        }
    }
    // Shortest first and deduplicated, so the cap keeps the variety.
    strings.sort_by_key(Vec::len);
    strings.dedup();
    strings.insert(0, Vec::new());
    let mut out = BTreeMap::new();
    'outer: for s in &strings {
        for p in prefixes {
            if out.len() >= MAX_SEEDS {
                break 'outer;
            }
            let seed: Vec<u8> = p.iter().chain(s).copied().collect();
            out.insert(seed, ());
        }
    }
    out.into_keys().collect()
}

/// Writes the seeds of `target` into `fuzz/corpus/<target>/` (named by index; libFuzzer adds
/// its own finds next to them).
fn write_seeds(root: &Path, target: &str, seeds: &[Vec<u8>]) -> std::io::Result<()> {
    let dir = root.join("fuzz/corpus").join(target);
    std::fs::create_dir_all(&dir)?;
    for (i, s) in seeds.iter().enumerate() {
        std::fs::write(dir.join(format!("seed-{i:04}")), s)?;
    }
    Ok(())
}

/// Sizes that recur on the wire (scalars and points of every group, signatures, digests, proof
/// and GT element sizes, small counts); each goes into the dictionary as the `u32` little-endian
/// length prefix the codec reads (`verdict_group::codec::Reader::count`).
const WIRE_LENGTHS: &[u32] = &[
    0, 1, 2, 3, 4, 8, 16, 32, 33, 48, 64, 65, 96, 128, 192, 256, 576, 864, 4096, 65_535, 65_536,
];

/// One libFuzzer dictionary line: `"..."` with every byte outside printable ASCII, and `"` and
/// `\`, written as `\xNN`.
fn dictionary_entry(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for &b in bytes {
        if (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out.push('"');
    out
}

/// Every string of the test vectors that names a suite (`verdict/<construction>/<group>/vN`):
/// suite ids are composed at run time, so no source literal holds them.
fn suite_ids(root: &Path) -> BTreeSet<String> {
    fn walk(v: &Value, out: &mut BTreeSet<String>) {
        match v {
            Value::String(s) if s.starts_with("verdict/") && s.len() < 100 => {
                out.insert(s.clone());
            }
            Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            Value::Object(map) => map.values().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    let files = std::fs::read_dir(root.join("test-vectors"))
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    for f in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "json"))
    {
        if let Some(v) = std::fs::read_to_string(f)
            .ok()
            .and_then(|s| serde_json::from_str::<Value>(&s).ok())
        {
            walk(&v, &mut out);
        }
    }
    out
}

/// The dictionary every target runs with: the protocol crates' labels (wire tags, DSTs, as
/// `cargo xtask tidy` extracts them for the specification check), the suite ids of the test
/// vectors and the length prefixes of [`WIRE_LENGTHS`].
fn dictionary(root: &Path) -> String {
    let mut out = String::from(
        "# generated by `cargo xtask fuzz`: protocol labels, suite ids, wire lengths\n",
    );
    let labels: BTreeSet<String> = crate::tidy::protocol_labels(root).into_iter().collect();
    for label in labels.union(&suite_ids(root)) {
        out.push_str(&dictionary_entry(label.as_bytes()));
        out.push('\n');
    }
    for n in WIRE_LENGTHS {
        out.push_str(&dictionary_entry(&n.to_le_bytes()));
        out.push('\n');
    }
    out
}

fn cargo_fuzz(root: &Path, args: &[&str]) -> Result<String, String> {
    eprintln!("$ cargo fuzz {}", args.join(" "));
    let out = Command::new(crate::cargo_bin())
        .arg("fuzz")
        .args(args)
        .current_dir(root.join("fuzz"))
        .output()
        .map_err(|e| format!("could not run cargo fuzz: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.success() {
        Ok(stderr)
    } else {
        let tail: Vec<&str> = stderr.lines().rev().take(40).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        Err(format!(
            "`cargo fuzz {}` failed ({}); is cargo-fuzz installed \
             (`cargo install cargo-fuzz --locked`)?\n{}",
            args.join(" "),
            out.status,
            tail.join("\n")
        ))
    }
}

/// libFuzzer's closing statistics line (`#N DONE cov: … ft: … corp: …`), if any.
fn done_line(log: &str) -> Option<&str> {
    log.lines().rev().find(|l| l.contains("DONE"))
}

/// Builds, seeds and runs; returns whether every target built and ran without a finding.
pub(crate) fn run(root: &Path, args: &Args) -> bool {
    let targets: Vec<_> = TARGETS
        .iter()
        .filter(|(t, _, _)| args.target.as_deref().is_none_or(|want| want == *t))
        .collect();
    if targets.is_empty() {
        let known: Vec<&str> = TARGETS.iter().map(|(t, _, _)| *t).collect();
        eprintln!(
            "unknown target {:?}; known: {}",
            args.target,
            known.join(", ")
        );
        return false;
    }
    let profile: &[&str] = if args.dev { &["--dev"] } else { &[] };
    let build: Vec<&str> = ["build", "-s", "none"]
        .iter()
        .chain(profile)
        .copied()
        .collect();
    if let Err(e) = cargo_fuzz(root, &build) {
        eprintln!("{e}");
        return false;
    }
    let dict = root.join("fuzz/corpus/verdict.dict");
    if let Err(e) = std::fs::create_dir_all(root.join("fuzz/corpus"))
        .and_then(|()| std::fs::write(&dict, dictionary(root)))
    {
        eprintln!("cannot write the dictionary {}: {e}", dict.display());
        return false;
    }
    let dict_arg = format!("-dict={}", dict.display());
    let mut ok = true;
    for (target, files, prefixes) in targets {
        let s = seeds(root, files, prefixes);
        if let Err(e) = write_seeds(root, target, &s) {
            eprintln!("cannot write the seeds of {target}: {e}");
            return false;
        }
        if args.build_only {
            continue;
        }
        let time = format!("-max_total_time={}", args.seconds_per_target());
        // The corpus (new finds go there), then the committed regression inputs — every
        // finding of a campaign, replayed first on every run, so a regression fails at once.
        let corpus = format!("corpus/{target}");
        let regressions = format!("regressions/{target}");
        let mut dirs = vec![corpus.as_str()];
        if root.join("fuzz").join(&regressions).is_dir() {
            dirs.push(regressions.as_str());
        }
        let run: Vec<&str> = ["run", "-s", "none"]
            .iter()
            .chain(profile)
            .copied()
            .chain([*target])
            .chain(dirs)
            .chain(["--"])
            .collect();
        let result = cargo_fuzz(
            root,
            &[
                &run[..],
                &[
                    &time,
                    &dict_arg,
                    "-max_len=8192",
                    "-rss_limit_mb=2048",
                    "-timeout=10",
                    "-print_final_stats=1",
                ],
            ]
            .concat(),
        );
        match result {
            Ok(log) => println!(
                "fuzz {target}: {} seeds; {}",
                s.len(),
                done_line(&log).unwrap_or("(no statistics)")
            ),
            Err(e) => {
                eprintln!("fuzz {target}: FINDING\n{e}");
                ok = false;
            }
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_extraction() {
        assert_eq!(decode_hex("00ff10"), Some(vec![0, 255, 16]));
        assert_eq!(decode_hex("0"), None);
        assert_eq!(decode_hex("zz"), None);
        assert_eq!(decode_hex(""), None);
        let v: Value = serde_json::json!({"a": ["0102", "nothex", {"b": "ff"}], "n": 3});
        let mut out = Vec::new();
        hex_strings(&v, &mut out);
        out.sort();
        assert_eq!(out, vec![vec![1, 2], vec![255]]);
    }

    #[test]
    fn seeds_are_prefixed_and_bounded() {
        let root = crate::workspace_root();
        let s = seeds(&root, "group-", &[&[0], &[1]]);
        assert!(s.len() > 2 && s.len() <= MAX_SEEDS);
        assert!(s.iter().all(|x| matches!(x.first(), Some(0 | 1))));
        // Without vector files: only the empty seed under each prefix.
        assert_eq!(seeds(&root, "", &[&[7]]), vec![vec![7]]);
    }

    #[test]
    fn dictionary_holds_labels_and_lengths_in_libfuzzer_syntax() {
        assert_eq!(dictionary_entry(b"ab"), r#""ab""#);
        assert_eq!(dictionary_entry(&[0, 0, 1, 0]), r#""\x00\x00\x01\x00""#);
        assert_eq!(dictionary_entry(br#"a"\"#), r#""a\x22\x5c""#);
        let d = dictionary(&crate::workspace_root());
        // A suite id the decoders compare against, and the 32-byte length prefix, little-endian
        // like the codec (0x20 is a printable space).
        assert!(
            d.contains(r#""verdict/hashing-generator/ristretto255/v2""#),
            "{d}"
        );
        assert!(d.contains(r#"" \x00\x00\x00""#));
        // Every entry line is one quoted string (libFuzzer rejects the file otherwise).
        for line in d.lines().filter(|l| !l.starts_with('#')) {
            assert!(line.starts_with('"') && line.ends_with('"'), "{line}");
            assert!(!line[1..line.len() - 1].contains('"'), "{line}");
        }
    }

    #[test]
    fn time_per_target() {
        let a = Args {
            seconds: Some(5),
            ..Args::default()
        };
        assert_eq!(a.seconds_per_target(), 5);
        let b = Args {
            minutes: Some(2),
            ..Args::default()
        };
        assert_eq!(b.seconds_per_target(), 120);
        assert_eq!(Args::default().seconds_per_target(), 60);
    }
}
