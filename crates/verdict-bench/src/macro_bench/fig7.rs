//! Figure 7 analog: set-up, round and blame time against the number of clients, M = 8 servers,
//! measured by running whole sessions in `verdict-proto`'s simulator.
//!
//! Per N, three sessions over the hashing-generator suite on ristretto255 with 16 open message
//! slots: pure Verdict with eager verification (256-byte slots), pure Verdict with lazy
//! verification (256-byte slots) and the hybrid (1 KB XOR slots). Every open slot's owner
//! sends a message every round, so owner ciphertexts, proofs and (lazy) pseudonym signatures
//! are all exercised. Measured:
//!
//! - **set-up**, from the eager session: CPU of the busiest server until every server has
//!   finished set-up (client keys, shuffles, decryption, suite set-up), and CPU of the one
//!   client that verified the transcript (clients of the simulator share that verification),
//!   which also includes building its round-0 submission;
//! - **round**: CPU of the busiest server and of the busiest client per round (a client's is
//!   building its submission for every open slot and checking the certified output), the median
//!   over the measured rounds (after warm-up: round 0 for pure Verdict, rounds 0–3 for the
//!   hybrid, whose servers keep three rounds of submissions for blame; three measured rounds at
//!   every N), and the
//!   estimated wall-clock per round (simulated 10 ms links plus the slowest server's and slowest
//!   client's CPU, see [`super::drive`]);
//! - **blame** (hybrid): a jamming client starts corrupting every XOR slot; CPU of the busiest
//!   server from the first accusation reaching the servers to every server's verdict, the
//!   median of three such episodes (a new jammer each, after the previous one's verdict).
//!
//! With `VERDICT_ROUND_THREADS=1,2` each session alternates thread counts round by round and
//! episode by episode (three measured rounds and three episodes per listed count; see
//! [`super::threads`]), its rows labelled `threads=<t>`, set-up at the pool's count only.

use core::time::Duration;

use verdict_dcnet::HashingGenerator;
use verdict_group::Ristretto255;
use verdict_proto::{Mode, Policy, Verification, WindowPolicy};

use super::drive::{RoundCost, secs};
use super::{MacroBench, MacroConfig, MacroError, MacroReport, MacroRow};
use super::{reference, threads};

type Hg = HashingGenerator<Ristretto255>;

mod notes;
mod session;

use notes::target_notes;
use session::{BLAME_EPISODES, Measured, measure, measured_rounds};

/// Servers in every session (the paper's Figure 7).
pub const SERVERS: usize = 8;
/// Client counts of a full run.
pub const FULL_N: [usize; 7] = [16, 32, 64, 128, 256, 512, 1024];
/// Client counts of `--quick`.
pub const QUICK_N: [usize; 3] = [16, 32, 64];
/// Message slots open in every round.
pub const OPEN_SLOTS: u32 = 16;

/// A session variant of the figure.
#[derive(Clone, Copy, Debug)]
struct Variant {
    label: &'static str,
    mode: Mode,
    slot_len: u32,
}

const EAGER: Variant = Variant {
    label: "eager",
    mode: Mode::Verifiable(Verification::Eager),
    slot_len: 256,
};
const LAZY: Variant = Variant {
    label: "lazy",
    mode: Mode::Verifiable(Verification::Lazy),
    slot_len: 256,
};
const HYBRID: Variant = Variant {
    label: "hybrid XOR",
    mode: Mode::Hybrid(Verification::Eager),
    slot_len: 1024,
};

fn policy(v: Variant) -> Policy {
    session_policy(v.mode, v.slot_len)
}

/// The policy of every session of the figure (and of `examples/workers.rs`): all clients
/// awaited, 16 slots of `slot_len` bytes open and never closed or reopened (so every round
/// carries the same load).
pub fn session_policy(mode: Mode, slot_len: u32) -> Policy {
    let v = Variant {
        label: "",
        mode,
        slot_len,
    };
    Policy {
        mode: v.mode,
        window: WindowPolicy::all(),
        setup_window: WindowPolicy::all(),
        default_len: v.slot_len,
        max_len: v.slot_len,
        idle_rounds: u32::MAX,
        reopen_per_round: 0,
        initially_open: OPEN_SLOTS,
        rebuttal_timeout: Duration::from_secs(1),
        // Simulated time: CPU does not advance the clock, so this never fires spuriously.
        server_timeout: Duration::from_secs(30),
    }
}

/// The Figure 7 macro benchmark (`fig7`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Fig7;

impl MacroBench for Fig7 {
    fn name(&self) -> &'static str {
        "fig7"
    }

    fn title(&self) -> &'static str {
        "Figure 7: set-up, round and blame time vs number of clients (M = 8 servers)"
    }

    fn scales_with_threads(&self) -> bool {
        true
    }

    fn run(
        &self,
        config: &MacroConfig,
        progress: &mut dyn FnMut(&str),
    ) -> Result<MacroReport, MacroError> {
        match threads::round_thread_counts()? {
            None => run_counts(config, None, progress),
            Some(counts) => {
                let pool = threads::alternation_pool(&counts)?;
                let config = *config;
                threads::run_in_pool(
                    pool,
                    move |report| run_counts(&config, Some(&counts), report),
                    progress,
                )
            }
        }
    }
}

/// The figure, its sessions alternating `alternate`'s thread counts round by round (`None`: no
/// alternation, rows unlabelled; see [`measure`]).
fn run_counts(
    config: &MacroConfig,
    alternate: Option<&[usize]>,
    progress: &mut dyn FnMut(&str),
) -> Result<MacroReport, MacroError> {
    let pool = verdict_group::par::threads();
    let counts = alternate.map_or_else(|| vec![pool], <[usize]>::to_vec);
    let label = |series: &str, t: usize| match alternate {
        Some(_) => format!("{series} threads={t}"),
        None => series.to_owned(),
    };
    let ns: &[usize] = if config.quick {
        &QUICK_N
    } else if config.largest_only {
        &FULL_N[FULL_N.len() - 1..]
    } else {
        &FULL_N
    };
    let mut rows = Vec::new();
    let mut notes = vec![
        format!(
            "M = {SERVERS} servers, hashing-generator/ristretto255, {OPEN_SLOTS} open slots \
             (256 B pure Verdict, 1 KB hybrid XOR), every open slot's owner sends every \
             round; one process, one core at a time; simulated links 10 ms"
        ),
        "CPU series: busiest server (set-up, round, blame), busiest client (round: building \
         its submission, checking the output) or the one client that verified the set-up \
         transcript (includes its round-0 submission); round values are the median \
         over the measured rounds after warm-up (pure Verdict: round 0; hybrid: rounds 0-3, \
         until a server's three rounds kept for blame are recycled); blame is the median \
         of three episodes, one jammer each"
            .to_owned(),
        "wall-clock series are estimates: simulated network time + slowest server CPU + \
         slowest client CPU per round (each participant on its own core)"
            .to_owned(),
    ];
    if let Some(counts) = alternate {
        notes.push(format!(
            "{}={}: every session's measured rounds and blame episodes take these thread \
             counts in turn (3 rounds and {BLAME_EPISODES} episodes per listed count), \
             set-up and warm-up on the pool's {pool}",
            threads::ROUND_THREADS_VAR,
            counts
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(","),
        ));
    }
    if config.quick {
        notes.push(format!(
            "--quick: N in {QUICK_N:?} only (full run: {FULL_N:?})"
        ));
    } else if config.largest_only {
        notes.push(format!("--largest: N = {ns:?} only (full run: {FULL_N:?})"));
    }
    let mut push = |series: &str, n: usize, y: f64| {
        rows.push(MacroRow {
            series: series.to_owned(),
            x: n as f64,
            y,
        });
    };
    let mut at_max: Vec<(Variant, Measured)> = Vec::new();
    let variants = selected_variants(std::env::var(MODES_VAR).ok().as_deref())?;
    if variants.len() < 3 {
        let labels: Vec<&str> = variants.iter().map(|v| v.label).collect();
        notes.push(format!("{MODES_VAR}: {labels:?} only"));
    }
    for (k, &n) in ns.iter().enumerate() {
        for &v in &variants {
            let rounds = measured_rounds(v, n);
            let started = std::time::Instant::now();
            let hybrid = v.mode.is_hybrid();
            // The machine's speed around the session (see `reference`).
            let kernel_before = reference::measure();
            let measured = measure(v, n, rounds, hybrid, 7000 + n as u64, &counts)?;
            let kernel_after = reference::measure();
            for kernel in [kernel_before, kernel_after] {
                push(reference::SERIES, n, secs(kernel));
            }
            progress(&format!(
                "N = {n} {}: reference kernel {:.1} ms before, {:.1} ms after",
                v.label,
                secs(kernel_before) * 1e3,
                secs(kernel_after) * 1e3
            ));
            for m in measured {
                let t = m.threads;
                progress(&format!(
                    "N = {n} {}{}: set-up {:.2} s server / {:.2} s client, round {:.3} s \
                     server CPU (median of {:.3?} s){} ({:.0} s real)",
                    v.label,
                    alternate.map_or_else(String::new, |_| format!(" threads={t}")),
                    secs(m.setup_server),
                    secs(m.setup_client),
                    m.median_round(|r| r.server_cpu),
                    m.round
                        .iter()
                        .map(|r| secs(r.server_cpu))
                        .collect::<Vec<_>>(),
                    m.blame_server
                        .map(|b| format!(
                            ", blame {:.3} s server CPU (median of {:.3?} s)",
                            secs(b),
                            m.blame_episodes
                                .iter()
                                .map(|&e| secs(e))
                                .collect::<Vec<_>>()
                        ))
                        .unwrap_or_default(),
                    started.elapsed().as_secs_f64()
                ));
                if v.label == EAGER.label && t == pool {
                    push(&label("set-up, server CPU", t), n, secs(m.setup_server));
                    push(&label("set-up, client CPU", t), n, secs(m.setup_client));
                }
                let series = |what: &str| label(&format!("{} round, {what}", v.label), t);
                push(&series("server CPU"), n, m.median_round(|r| r.server_cpu));
                push(&series("client CPU"), n, m.median_round(|r| r.client_cpu));
                push(
                    &series("est. wall-clock"),
                    n,
                    m.median_round(RoundCost::estimated_wall),
                );
                if let Some(b) = m.blame_server {
                    push(&label("hybrid blame, server CPU", t), n, secs(b));
                }
                if k + 1 == ns.len() {
                    // Bandwidth next to CPU (the cost model in docs/PERFORMANCE.md):
                    // protocol bytes of the busiest server in the last measured round.
                    if let Some(r) = m.round.last().filter(|_| t == pool) {
                        notes.push(format!(
                            "N = {n} {}: busiest server's protocol traffic per round \
                             {:.2} MB in, {:.2} MB out",
                            v.label,
                            r.server_bytes.0 as f64 / 1e6,
                            r.server_bytes.1 as f64 / 1e6
                        ));
                    }
                    at_max.push((v, m));
                }
            }
        }
    }
    notes.extend(target_notes(
        ns.last().copied().unwrap_or(0),
        &at_max,
        alternate.is_some(),
    ));
    Ok(MacroReport {
        name: Fig7.name().to_owned(),
        title: Fig7.title().to_owned(),
        x_label: "clients N".to_owned(),
        y_label: "time (s)".to_owned(),
        log_x: true,
        log_y: true,
        rows,
        notes,
    })
}

/// The environment variable that selects the modes measured (`eager`, `lazy`, `hybrid`,
/// comma-separated; unset: all three), to rerun one series after a change to it.
pub const MODES_VAR: &str = "VERDICT_FIG7_MODES";

/// The variants `modes` (the value of [`MODES_VAR`]) names, in figure order.
fn selected_variants(modes: Option<&str>) -> Result<Vec<Variant>, MacroError> {
    let all = [EAGER, LAZY, HYBRID];
    let Some(modes) = modes.map(str::trim).filter(|m| !m.is_empty()) else {
        return Ok(all.to_vec());
    };
    let mut wanted = Vec::new();
    for m in modes.split(',').map(str::trim) {
        let Some(v) = all.iter().find(|v| v.label.split(' ').next() == Some(m)) else {
            return Err(MacroError(format!(
                "{MODES_VAR}: `{m}` is not a mode (expected eager, lazy or hybrid)"
            )));
        };
        wanted.push(v.label);
    }
    Ok(all
        .into_iter()
        .filter(|v| wanted.contains(&v.label))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_select_variants_in_figure_order_and_typos_are_errors() {
        let labels = |m| {
            selected_variants(m)
                .map(|v| v.iter().map(|v| v.label).collect::<Vec<_>>())
                .map_err(|e| e.0)
        };
        assert_eq!(labels(None).unwrap(), ["eager", "lazy", "hybrid XOR"]);
        assert_eq!(labels(Some(" ")).unwrap(), ["eager", "lazy", "hybrid XOR"]);
        assert_eq!(labels(Some("hybrid")).unwrap(), ["hybrid XOR"]);
        assert_eq!(
            labels(Some("hybrid, eager")).unwrap(),
            ["eager", "hybrid XOR"]
        );
        assert!(
            labels(Some("xor"))
                .unwrap_err()
                .contains("`xor` is not a mode")
        );
    }
}
