//! One session of the figure: set-up, warm-up, the measured rounds and the blame episodes,
//! each measured round or episode on its thread count when a run alternates them.

use core::time::Duration;

use verdict_proto::sim::{Adversary, Network, Simulator};
use verdict_proto::{ClientId, Event, Party};

use super::super::MacroError;
use super::super::drive::{self, RoundCost, secs};
use super::super::threads::{count_of, on_threads};
use super::{Hg, SERVERS, Variant, policy};

/// Rounds measured after the warm-up: three at every N, so a round value is a median of three.
/// One round was measured at N = 1024 before, and consecutive rounds of the same session
/// differ by up to ±15 % on this VM (0.209–0.246 s for one binary, 0.243–0.292 s for another,
/// lazy, 2026-12-01): a single round made an A/B comparison read a 12 % "regression" that a
/// median of three did not show. The extra rounds cost about a minute of client proving at
/// N = 1024.
pub(super) fn measured_rounds(_: Variant, _: usize) -> u64 {
    3
}

/// Rounds run before measuring. A hybrid server keeps the last three rounds' submissions for
/// blame, so its memory use grows (fresh, page-faulting allocations) until round 3 and is
/// recycled from round 4 on: the steady state of a long-running server. Pure Verdict rounds
/// keep nothing, one warm-up round suffices.
fn warmup_rounds(v: Variant) -> u64 {
    if v.mode.is_hybrid() { 4 } else { 1 }
}

/// Far beyond any simulated time a session of the figure needs.
const DEADLINE: Duration = Duration::from_secs(3600);

/// Queues one message at every open slot's owner that has nothing queued.
fn feed_owners(sim: &mut Simulator<Hg>, owners: &[usize], len: usize, round: u64) {
    for &i in owners {
        if sim.client(i).is_some_and(|c| c.queued() == 0) {
            let mut m = format!("round {round} from the owner of a slot ").into_bytes();
            m.resize(len, b'.');
            // A full queue or a finished session only means this owner sends nothing more.
            let _ = sim.submit(i, m);
        }
    }
}

/// What one session measured.
#[derive(Clone, Debug, Default)]
pub(super) struct Measured {
    /// The thread count of its rounds and blame episodes.
    pub(super) threads: usize,
    pub(super) setup_server: Duration,
    pub(super) setup_client: Duration,
    pub(super) round: Vec<RoundCost>,
    pub(super) blame_server: Option<Duration>,
    pub(super) blame_simulated: Option<Duration>,
    /// The busiest server's CPU of each blame episode, in order.
    pub(super) blame_episodes: Vec<Duration>,
}

impl Measured {
    /// The median over the measured rounds: a round during which the (virtual) machine
    /// stalled shifts a mean but not the median (of three or more).
    pub(super) fn median_round(&self, f: impl Fn(&RoundCost) -> Duration) -> f64 {
        median(self.round.iter().map(f)).map_or(0.0, secs)
    }
}

/// Runs set-up, the warm-up rounds and `rounds` measured rounds per entry of `counts` of one
/// session, then (if `blame`) [`BLAME_EPISODES`] per entry, each a jammer and the blame it
/// triggers. The measured rounds and episodes take the thread counts of `counts` in turn (one
/// count: no alternation); set-up and the unmeasured rounds run on the whole pool. One
/// [`Measured`] per distinct count, in order of first appearance, set-up in each.
pub(super) fn measure(
    v: Variant,
    n: usize,
    rounds: u64,
    blame: bool,
    seed: u64,
    counts: &[usize],
) -> Result<Vec<Measured>, MacroError> {
    let mut sim = Simulator::<Hg>::new(policy(v), SERVERS, n, Network::default(), seed)
        .map_err(|e| MacroError(format!("configuration: {e}")))?;
    let mut m = Measured::default();
    // One entry per distinct count, in order of first appearance.
    let mut per_count: Vec<Measured> = Vec::new();
    for &t in counts {
        if !per_count.iter().any(|m| m.threads == t) {
            per_count.push(Measured {
                threads: t,
                ..Measured::default()
            });
        }
    }
    let pool = verdict_group::par::threads();
    let is_setup = |e: &Event| matches!(e, Event::SetupComplete { .. });
    drive::step_until_all(&mut sim, DEADLINE, true, SERVERS, "server set-up", is_setup)?;
    m.setup_server = drive::max_delta(&Default::default(), &sim.cpu, true);
    drive::step_until_all(&mut sim, DEADLINE, false, n, "client set-up", is_setup)?;
    m.setup_client = drive::max_delta(&Default::default(), &sim.cpu, false);

    let open = sim.server(0).map(|s| s.open_slots()).unwrap_or_default();
    let by_slot = drive::slot_owners(&sim);
    let owners: Vec<usize> = open
        .iter()
        .filter_map(|o| by_slot.get(&o.slot).copied())
        .collect();
    // Room for the slot header (and, lazy, the pseudonym signature).
    let len = sim
        .client(0)
        .map_or(0, |c| c.max_message_len())
        .min(v.slot_len as usize - 4 - 64);
    // Round 0's submissions were built before any message was queued: queued now, they go
    // out from round 1 on.
    feed_owners(&mut sim, &owners, len, 1);
    let warmup = warmup_rounds(v);
    let measured = rounds * counts.len() as u64;
    for r in 0..warmup + measured {
        if r > 0 {
            feed_owners(&mut sim, &owners, len, r + 1);
        }
        let t = match r.checked_sub(warmup) {
            Some(k) => count_of(counts, k as usize),
            None => pool,
        };
        let cost = on_threads(t, || drive::run_round(&mut sim, r, DEADLINE))??;
        if r >= warmup
            && let Some(m) = per_count.iter_mut().find(|m| m.threads == t)
        {
            m.round.push(cost);
        }
    }
    if blame {
        let mut episodes = Vec::new();
        for k in 0..BLAME_EPISODES * counts.len() {
            // The session's current round: the jammer starts with the next one, so the round
            // in progress (after a verdict, the one it closed) completes without it.
            let current = sim.server(0).map_or(0, |s| s.round());
            if k > 0 {
                // The previous jammer's submissions of the round in progress when it was
                // excluded were already in: their accusations come when that round's output
                // does. Two clean rounds let that blame finish before the next jammer starts,
                // so no episode measures two blames.
                for r in current..current + SETTLE_ROUNDS {
                    feed_owners(&mut sim, &owners, len, r + 1);
                    drive::run_round(&mut sim, r, DEADLINE)?;
                }
            }
            let current = sim.server(0).map_or(0, |s| s.round());
            let t = count_of(counts, k);
            let jammer = n.checked_sub(1 + k).ok_or_else(|| {
                MacroError(format!("{n} clients are too few for {k} blame episodes"))
            })?;
            let episode = on_threads(t, || {
                blame_episode(&mut sim, &owners, len, jammer, current + 1)
            })??;
            episodes.push((t, episode));
        }
        for m in &mut per_count {
            let mine = || episodes.iter().filter(|e| e.0 == m.threads).map(|e| e.1);
            m.blame_server = median(mine().map(|e| e.0));
            m.blame_simulated = median(mine().map(|e| e.1));
            m.blame_episodes = mine().map(|e| e.0).collect();
        }
    }
    for c in &mut per_count {
        c.setup_server = m.setup_server;
        c.setup_client = m.setup_client;
    }
    Ok(per_count)
}

/// Blame episodes per hybrid session, one jammer each: one accusation per session was too few
/// samples to compare thread counts on this VM (four runs of the same code measured the
/// 2-thread speed-up of blame anywhere from ×1.41 to ×2.26, 2026-12-06); the figure takes
/// the median of three.
pub(super) const BLAME_EPISODES: usize = 3;

/// Rounds run between two blame episodes (see [`measure`]).
const SETTLE_ROUNDS: u64 = 2;

/// One blame: client `jammer` corrupts every XOR slot from round `from_round` on; returns the
/// busiest server's CPU and the simulated time from the first accusation reaching a server
/// to every server's verdict naming the jammer.
fn blame_episode(
    sim: &mut Simulator<Hg>,
    owners: &[usize],
    len: usize,
    jammer: usize,
    from_round: u64,
) -> Result<(Duration, Duration), MacroError> {
    let jammer = ClientId(jammer as u32);
    sim.add_adversary(Adversary::JammingClient {
        client: jammer,
        from_round,
    });
    feed_owners(sim, owners, len, from_round + 1);
    let accused = drive::step_until(sim, DEADLINE, |_, p, e| {
        matches!(p, Party::Server(_)) && matches!(e, Event::Accusation(_))
    });
    if !accused {
        return Err(MacroError(format!(
            "the jammer {jammer:?} triggered no accusation"
        )));
    }
    let (before, t0) = (sim.cpu.clone(), sim.now());
    let guilty = Party::Client(jammer);
    drive::step_until_all(
        sim,
        DEADLINE,
        true,
        SERVERS,
        "verdict",
        |e| matches!(e, Event::Verdict { culprit: Some(c), .. } if *c == guilty),
    )?;
    Ok((
        drive::max_delta(&before, &sim.cpu, true),
        sim.now().saturating_sub(t0),
    ))
}

/// The median of a few durations (the mean of the middle two for an even count); `None` for
/// none.
fn median(values: impl Iterator<Item = Duration>) -> Option<Duration> {
    let mut v: Vec<Duration> = values.collect();
    v.sort_unstable();
    match v.len() {
        0 => None,
        n if n % 2 == 1 => Some(v[n / 2]),
        n => Some((v[n / 2 - 1] + v[n / 2]) / 2),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{EAGER, FULL_N, HYBRID, LAZY};
    use super::*;

    fn with_rounds(ms: &[u64]) -> Measured {
        Measured {
            round: ms
                .iter()
                .map(|&t| RoundCost {
                    server_cpu: Duration::from_millis(t),
                    ..RoundCost::default()
                })
                .collect(),
            ..Measured::default()
        }
    }

    #[test]
    fn alternated_rounds_and_episodes_are_measured_on_their_thread_counts() {
        // A small hybrid session alternating 1 and 2 threads: one measured round and three
        // blame episodes per count, each on its own count, set-up copied into both.
        let per_count =
            verdict_group::par::with_threads(2, || measure(HYBRID, 16, 1, true, 7016, &[1, 2]))
                .unwrap()
                .unwrap();
        let shape: Vec<(usize, usize, usize)> = per_count
            .iter()
            .map(|m| (m.threads, m.round.len(), m.blame_episodes.len()))
            .collect();
        assert_eq!(shape, [(1, 1, BLAME_EPISODES), (2, 1, BLAME_EPISODES)]);
        assert!(per_count.iter().all(|m| m.blame_server.is_some()));
        assert_eq!(per_count[0].setup_server, per_count[1].setup_server);
        assert!(per_count[0].setup_server > Duration::ZERO);
    }

    #[test]
    fn a_stalled_round_does_not_move_the_median() {
        let cpu = |r: &RoundCost| r.server_cpu;
        assert_eq!(with_rounds(&[70, 400, 68]).median_round(cpu), 0.070);
        assert_eq!(with_rounds(&[80, 60]).median_round(cpu), 0.070);
        assert_eq!(with_rounds(&[55]).median_round(cpu), 0.055);
        assert_eq!(with_rounds(&[]).median_round(cpu), 0.0);
    }

    #[test]
    fn blame_is_the_median_of_its_episodes() {
        let ms = |v: &[u64]| median(v.iter().map(|&t| Duration::from_millis(t)));
        assert_eq!(BLAME_EPISODES, 3);
        assert_eq!(ms(&[310, 140, 150]), Some(Duration::from_millis(150)));
        assert_eq!(ms(&[100, 200]), Some(Duration::from_millis(150)));
        assert_eq!(ms(&[]), None);
    }

    #[test]
    fn every_variant_is_measured_three_times_at_every_n_after_its_warm_up() {
        for n in FULL_N {
            for v in [EAGER, LAZY, HYBRID] {
                assert_eq!(measured_rounds(v, n), 3, "{} at N = {n}", v.label);
            }
        }
        assert_eq!((warmup_rounds(HYBRID), warmup_rounds(LAZY)), (4, 1));
    }
}
