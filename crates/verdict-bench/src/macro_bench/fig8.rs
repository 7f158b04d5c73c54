//! Figure 8 analog: latency of a synthetic microblogging workload against the number of active
//! users, replayed through `verdict-proto`'s simulator.
//!
//! Each active user is a client of a session with M = 8 servers. A [`Workload`] trace (Poisson
//! arrivals, Zipf per-user activity, 140–280-byte posts) is replayed round by round: after
//! round `r` completes, every post whose arrival time has passed is queued at its author's
//! client, which sends it in its slot of a later round (queued behind the author's earlier
//! posts, and after its slot has been reopened if it was idle and closed). A post's latency
//! runs from its arrival to the output of the round that delivered it reaching the clients.
//!
//! **Time.** The simulator's clock advances only with link latency (10 ms per hop); CPU spent
//! in the state machines takes no simulated time. The replay therefore keeps its own round
//! clock: each round lasts its simulated network time plus the measured CPU of the slowest
//! server and the slowest client ([`super::drive::RoundCost::estimated_wall`]), and arrivals are
//! placed on that clock. Latencies thus include queueing across rounds, network and
//! computation, assuming one core per participant.

use core::time::Duration;

use verdict_dcnet::HashingGenerator;
use verdict_group::Ristretto255;
use verdict_proto::sim::{Network, Simulator};
use verdict_proto::{Event, Mode, Party, Policy, ServerId, Verification, WindowPolicy};

use super::baselines;
use super::drive::{self, secs};
use super::workload::{self, MAX_POST, Workload};
use super::{MacroBench, MacroConfig, MacroError, MacroReport, MacroRow};

type Hg = HashingGenerator<Ristretto255>;

/// Servers in every session.
pub const SERVERS: usize = 8;
/// Active users of a full run, as in the paper's Figure 8.
pub const FULL_USERS: [usize; 5] = [40, 100, 264, 564, 1032];
/// Active users for which a full run also replays pure Verdict (its rounds cost every client a
/// proof per open slot, which makes larger replays take too long in one process).
pub const FULL_EAGER_USERS: [usize; 2] = [40, 100];
/// Active users of `--quick` (both modes).
pub const QUICK_USERS: [usize; 2] = [16, 40];
/// Mean posts per user per second (one every 20 s: a busy service, so that small groups
/// produce posts to measure within a short trace).
pub const RATE_PER_USER: f64 = 0.05;
/// Length of every trace of a full run (on the round clock).
pub const TRACE: Duration = Duration::from_secs(20);
/// Length of every trace of `--quick`.
pub const QUICK_TRACE: Duration = Duration::from_secs(5);
/// Zipf exponent of per-user activity: heavy-tailed, but mild enough that the most active of
/// 1,032 users (6% of all posts) does not post faster than its one slot per round can carry.
pub const EXPONENT: f64 = 0.8;
/// Rounds after the trace ends during which queued posts may still be delivered.
const DRAIN_ROUNDS: u64 = 40;

/// A mode of the figure.
#[derive(Clone, Copy, Debug)]
struct Variant {
    label: &'static str,
    mode: Mode,
}

const HYBRID: Variant = Variant {
    label: "hybrid",
    mode: Mode::Hybrid(Verification::Eager),
};
const EAGER: Variant = Variant {
    label: "Verdict eager",
    mode: Mode::Verifiable(Verification::Eager),
};

/// Slots hold one post (with the slot header and, in verifiable slots, the owner's pseudonym
/// signature); idle slots close after two empty rounds and a rotating pointer reopens a
/// sixteenth of them per round, so an idle user can post again within 16 rounds while the
/// rounds carry few open slots.
fn policy(mode: Mode, users: usize) -> Policy {
    let signature = if mode.is_hybrid() {
        0
    } else {
        verdict_nizk::Signature::<Ristretto255>::ENCODED_LEN
    };
    let len = (MAX_POST + 4 + signature) as u32;
    Policy {
        mode,
        window: WindowPolicy::all(),
        setup_window: WindowPolicy::all(),
        default_len: len,
        max_len: len,
        idle_rounds: 2,
        reopen_per_round: users.div_ceil(16) as u32,
        initially_open: 16,
        rebuttal_timeout: Duration::from_secs(1),
        server_timeout: Duration::from_secs(30),
    }
}

/// Far beyond any simulated time a replay needs.
const DEADLINE: Duration = Duration::from_secs(24 * 3600);

/// The latencies of one replay.
#[derive(Clone, Debug, Default)]
struct Replay {
    latencies: Vec<f64>,
    undelivered: usize,
    rounds: u64,
    mean_round: f64,
}

/// A post's bytes: its index (8 bytes, big-endian, to recognize it on delivery) padded to
/// its length.
fn post_bytes(index: usize, len: usize) -> Vec<u8> {
    let mut m = (index as u64).to_be_bytes().to_vec();
    m.resize(len.max(8), b'#');
    m
}

fn post_index(message: &[u8]) -> Option<usize> {
    let id: [u8; 8] = message.get(..8)?.try_into().ok()?;
    usize::try_from(u64::from_be_bytes(id)).ok()
}

/// The trace replayed at `users` active users (the same for Verdict and the baselines).
fn trace_of(users: usize, seed: u64, trace_len: Duration) -> Vec<workload::Post> {
    Workload {
        users,
        rate: RATE_PER_USER * users as f64,
        exponent: EXPONENT,
        duration: trace_len,
    }
    .generate(seed)
}

/// The seed of the trace at `users` active users.
fn trace_seed(users: usize) -> u64 {
    8000 + users as u64
}

/// Figure 8's baselines at `users` active users (see [`super::baselines`]): rows, notes.
fn baseline_rows(
    users: usize,
    trace_len: Duration,
    verify: Duration,
    progress: &mut dyn FnMut(&str),
) -> Result<(Vec<MacroRow>, Vec<String>), MacroError> {
    let link = Network::default().latency;
    let trace = trace_of(users, trace_seed(users), trace_len);
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let push = |series: &str, latencies: &[f64], rows: &mut Vec<MacroRow>| {
        for (stat, y) in [
            ("mean", workload::mean(latencies)),
            ("median", workload::quantile(latencies, 0.5)),
        ] {
            rows.push(MacroRow {
                series: format!("{series} {stat}"),
                x: users as f64,
                y,
            });
        }
    };
    let plain = baselines::no_anonymity(&trace, verify, link);
    push("no anonymity", &plain, &mut rows);
    for (label, elements) in [
        ("mix cascade", baselines::ELEMENTS_PER_POST),
        ("mix cascade (1 element)", 1),
    ] {
        let cost = baselines::CascadeCost::measure(users * elements, SERVERS, trace_seed(users))?;
        let round = cost.round(SERVERS, link);
        let budget = (trace_len.as_secs_f64() / round.as_secs_f64()).ceil() as u64 + DRAIN_ROUNDS;
        let (delivered, round_end) = baselines::replay_rounds(&trace, users, round, budget);
        let arrivals: Vec<Duration> = trace.iter().map(|p| p.at).collect();
        let (latencies, undelivered) =
            workload::latencies(&arrivals, &delivered, &round_end, Duration::ZERO);
        let mean = workload::mean(&latencies);
        progress(&format!(
            "{users} users {label}: {} pairs, round {:.2} s (prove {:.0} ms, verify {:.0} ms, \
             decrypt {:.0} ms, verify decryption {:.0} ms), mean latency {mean:.2} s",
            cost.pairs,
            secs(round),
            cost.prove.as_secs_f64() * 1e3,
            cost.verify.as_secs_f64() * 1e3,
            cost.decrypt.as_secs_f64() * 1e3,
            cost.verify_decrypt.as_secs_f64() * 1e3,
        ));
        notes.push(format!(
            "{label} at {users} users: {} posts, mean {mean:.2} s, median {:.2} s; round \
             {:.2} s over {} ElGamal pairs (per server: prove {:.0} ms, verify {:.0} ms, \
             decrypt {:.0} ms, verify decryption {:.0} ms){}",
            latencies.len(),
            workload::quantile(&latencies, 0.5),
            secs(round),
            cost.pairs,
            cost.prove.as_secs_f64() * 1e3,
            cost.verify.as_secs_f64() * 1e3,
            cost.decrypt.as_secs_f64() * 1e3,
            cost.verify_decrypt.as_secs_f64() * 1e3,
            if undelivered > 0 {
                format!("; {undelivered} posts still queued after {DRAIN_ROUNDS} drain rounds")
            } else {
                String::new()
            }
        ));
        push(label, &latencies, &mut rows);
    }
    notes.push(format!(
        "no anonymity at {users} users: mean {:.3} s, median {:.3} s",
        workload::mean(&plain),
        workload::quantile(&plain, 0.5)
    ));
    Ok((rows, notes))
}

fn replay(
    v: Variant,
    users: usize,
    seed: u64,
    trace_len: Duration,
    progress: &mut dyn FnMut(&str),
) -> Result<Replay, MacroError> {
    let network = Network::default();
    let trace = trace_of(users, seed, trace_len);
    let mut sim = Simulator::<Hg>::new(policy(v.mode, users), SERVERS, users, network, seed)
        .map_err(|e| MacroError(format!("configuration: {e}")))?;
    let is_setup = |e: &Event| matches!(e, Event::SetupComplete { .. });
    drive::step_until_all(&mut sim, DEADLINE, false, users, "set-up", is_setup)?;

    // The trace starts when round 0 starts; round r ends at round_end[r] on the round clock.
    let mut round_end: Vec<Duration> = Vec::new();
    let mut clock = Duration::ZERO;
    let mut delivered: Vec<Option<u64>> = vec![None; trace.len()];
    let (mut next_post, mut pending) = (0usize, 0usize);
    let mut round = 0u64;
    let mut drained_since: Option<u64> = None;
    loop {
        let cost = drive::run_round(&mut sim, round, DEADLINE)?;
        clock += cost.estimated_wall();
        round_end.push(clock);
        // `run_round` leaves exactly this round's events in the log.
        for (_, p, e) in &sim.events {
            if let (Party::Server(ServerId(0)), Event::Delivered { round, message, .. }) = (p, e)
                && let Some(slot) = post_index(message).and_then(|i| delivered.get_mut(i))
                && slot.is_none()
            {
                *slot = Some(*round);
                pending -= 1;
            }
        }
        while let Some(post) = trace.get(next_post).filter(|p| p.at <= clock) {
            sim.submit(post.user, post_bytes(next_post, post.len))
                .map_err(|e| MacroError(format!("submitting post {next_post}: {e}")))?;
            next_post += 1;
            pending += 1;
        }
        round += 1;
        if round % 50 == 0 {
            progress(&format!(
                "{users} users {}: round {round}, round clock {:.1} s, {next_post} of {} posts \
                 arrived, {pending} queued",
                v.label,
                secs(clock),
                trace.len()
            ));
        }
        if next_post == trace.len() {
            let since = *drained_since.get_or_insert(round);
            if pending == 0 || round - since >= DRAIN_ROUNDS {
                break;
            }
        }
    }
    let arrivals: Vec<Duration> = trace.iter().map(|p| p.at).collect();
    let (latencies, undelivered) =
        workload::latencies(&arrivals, &delivered, &round_end, network.latency);
    Ok(Replay {
        latencies,
        undelivered,
        rounds: round,
        mean_round: secs(clock) / round.max(1) as f64,
    })
}

/// The Figure 8 macro benchmark (`fig8`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Fig8;

impl MacroBench for Fig8 {
    fn name(&self) -> &'static str {
        "fig8"
    }

    fn title(&self) -> &'static str {
        "Figure 8: microblogging workload latency vs number of active users"
    }

    fn run(
        &self,
        config: &MacroConfig,
        progress: &mut dyn FnMut(&str),
    ) -> Result<MacroReport, MacroError> {
        let (hybrid_users, eager_users, trace_len): (&[usize], &[usize], _) = if config.quick {
            (&QUICK_USERS, &QUICK_USERS, QUICK_TRACE)
        } else {
            (&FULL_USERS, &FULL_EAGER_USERS, TRACE)
        };
        let mut rows = Vec::new();
        let mut notes = vec![
            format!(
                "M = {SERVERS} servers, hashing-generator/ristretto255; trace: Poisson arrivals at \
                 {RATE_PER_USER} posts/s per user, Zipf(s = {EXPONENT}) activity over users, \
                 {}-{MAX_POST} B posts, {} s trace; slots of {} B, idle \
                 after 2 empty rounds, 1/16 of the slots reopened per round",
                workload::MIN_POST,
                trace_len.as_secs(),
                MAX_POST + 4
            ),
            "latency = arrival to the delivering round's output at the clients, on a round \
             clock of simulated network time (10 ms links) + CPU of the slowest server + CPU \
             of the slowest client per round (one core per participant; queueing across rounds \
             included)"
                .to_owned(),
        ];
        if config.quick {
            notes.push(format!(
                "--quick: {QUICK_USERS:?} users only, {} s traces (full run: hybrid at \
                 {FULL_USERS:?}, pure Verdict at {FULL_EAGER_USERS:?}, {} s traces)",
                QUICK_TRACE.as_secs(),
                TRACE.as_secs()
            ));
        } else {
            notes.push(format!(
                "pure Verdict replayed at {FULL_EAGER_USERS:?} users only: beyond that one \
                 replay takes too long in one process"
            ));
        }
        for (v, list) in [(HYBRID, hybrid_users), (EAGER, eager_users)] {
            for &users in list {
                let started = std::time::Instant::now();
                let r = replay(v, users, trace_seed(users), trace_len, progress)?;
                let mean = workload::mean(&r.latencies);
                let median = workload::quantile(&r.latencies, 0.5);
                let p90 = workload::quantile(&r.latencies, 0.9);
                progress(&format!(
                    "{users} users {}: {} posts, latency mean {mean:.2} s, median {median:.2} s, \
                     p90 {p90:.2} s; {} rounds of {:.2} s ({:.0} s real)",
                    v.label,
                    r.latencies.len(),
                    r.rounds,
                    r.mean_round,
                    started.elapsed().as_secs_f64()
                ));
                if r.undelivered > 0 {
                    notes.push(format!(
                        "{} at {users} users: {} posts still queued after {DRAIN_ROUNDS} \
                         drain rounds (left out of the statistics)",
                        v.label, r.undelivered
                    ));
                }
                notes.push(format!(
                    "{} at {users} users: {} posts, mean {mean:.2} s, median {median:.2} s, \
                     p90 {p90:.2} s, mean round {:.2} s",
                    v.label,
                    r.latencies.len(),
                    r.mean_round
                ));
                for (stat, y) in [("mean", mean), ("median", median)] {
                    rows.push(MacroRow {
                        series: format!("{} {stat}", v.label),
                        x: users as f64,
                        y,
                    });
                }
            }
        }
        let verify = baselines::signature_verify_time(101, 1)?;
        notes.push(format!(
            "baselines on the same traces: no anonymity (one link to a server that checks each \
             post's signature, {:.0} µs each, in turn, one link back) and a verifiable mix \
             cascade of the same {SERVERS} servers (every user sends one {}-element message per \
             round; each server verifies the previous step, then shuffles and proves with Neff's \
             proof; verifiable joint decryption; rounds not pipelined). `mix cascade` shuffles \
             all {} columns of the round's messages (an upper bound on a width-{} shuffle), `mix \
             cascade (1 element)` one pair per user (a lower bound)",
            verify.as_secs_f64() * 1e6,
            baselines::ELEMENTS_PER_POST,
            baselines::ELEMENTS_PER_POST,
            baselines::ELEMENTS_PER_POST,
        ));
        for &users in hybrid_users {
            let (r, n) = baseline_rows(users, trace_len, verify, progress)?;
            rows.extend(r);
            notes.extend(n);
        }
        Ok(MacroReport {
            name: self.name().to_owned(),
            title: self.title().to_owned(),
            x_label: "active users".to_owned(),
            y_label: "post latency (s)".to_owned(),
            log_x: true,
            log_y: true,
            rows,
            notes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posts_carry_their_index() {
        let m = post_bytes(123_456, 140);
        assert_eq!(m.len(), 140);
        assert_eq!(post_index(&m), Some(123_456));
        assert_eq!(post_index(b"short"), None);
    }
}
