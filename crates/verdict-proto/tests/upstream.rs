//! Moving a client to another upstream server: a censoring upstream (one that silently drops a
//! client's submissions, which nobody can prove) stops censoring the moment the client moves;
//! the servers agree on who serves whom without saying so (the accepted set tells them), the
//! old upstream stops waiting for the client, and a restarted client keeps its new upstream.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use core::time::Duration;

use verdict_dcnet::{ClientId, HashingGenerator, Party, ServerId};
use verdict_group::Ristretto255;
use verdict_proto::sim::{Adversary, Simulator};
use verdict_proto::{Event, Mode, SwitchError, Verification};

use common::{nobody_blamed, policy, quiet_net, rounds_completed};

type Hg = HashingGenerator<Ristretto255>;

const M: usize = 3;
const N: usize = 6;
/// The censored client (its roster upstream is server 0).
const VICTIM: usize = 0;

fn victim() -> Party {
    Party::Client(ClientId(VICTIM as u32))
}

/// A session whose server 0 drops every submission of client `VICTIM`; clients move after
/// `after` rounds left out in a row (`None`: never).
fn censored(mode: Mode, seed: u64, after: Option<u32>) -> Simulator<Hg> {
    let mut sim = Simulator::<Hg>::new_paused(policy(mode), M, N, quiet_net(), seed).unwrap();
    sim.add_adversary(Adversary::CensoringServer {
        server: ServerId(0),
        client: ClientId(VICTIM as u32),
    });
    sim.switch_after_left_out(after);
    sim.start();
    sim
}

fn left_out_rounds(sim: &Simulator<Hg>) -> Vec<u64> {
    sim.events_of(victim())
        .filter_map(|e| match e {
            Event::LeftOut { round } => Some(*round),
            _ => None,
        })
        .collect()
}

/// The simulated time each round after `from` took, as client 1 saw them certified.
fn round_times(sim: &Simulator<Hg>, from: u64) -> Vec<Duration> {
    let at: Vec<(u64, Duration)> = sim
        .events
        .iter()
        .filter(|(_, who, _)| *who == Party::Client(ClientId(1)))
        .filter_map(|(t, _, e)| match e {
            Event::RoundComplete { round, .. } if *round >= from => Some((*round, *t)),
            _ => None,
        })
        .collect();
    at.windows(2).map(|w| w[1].1 - w[0].1).collect()
}

#[test]
fn a_censored_client_moves_and_its_message_gets_through() {
    for mode in [
        Mode::Verifiable(Verification::Eager),
        Mode::Hybrid(Verification::Lazy),
    ] {
        let mut sim = censored(mode, 7, Some(2));
        sim.run_rounds(1, Duration::from_secs(60));
        sim.submit(VICTIM, b"from the censored one".to_vec())
            .unwrap();
        sim.run_rounds(12, Duration::from_secs(120));
        // Left out twice, then moved to the next server. The move may cost the round it
        // happens in (the resent submission can reach server 1 after its own clients' have
        // closed its window, but it makes the client one of its own); from then on it is in.
        let left = left_out_rounds(&sim);
        assert!(left == [0, 1] || left == [0, 1, 2], "{mode:?}: {left:?}");
        assert_eq!(sim.client(VICTIM).unwrap().upstream(), ServerId(1));
        for who in (0..M)
            .map(|j| Party::Server(ServerId(j as u32)))
            .chain((0..N).map(|i| Party::Client(ClientId(i as u32))))
        {
            assert!(
                sim.delivered(who)
                    .contains(&b"from the censored one".to_vec()),
                "{who} never saw it ({mode:?})"
            );
        }
        // Censoring leaves no evidence: nobody is named, the victim least of all.
        nobody_blamed(&sim);
        // The old upstream stopped waiting for the client it lost: once the move is settled,
        // no round waits out the 2 s window (each takes a few network hops).
        let times = round_times(&sim, 4);
        assert!(times.len() >= 5, "{times:?}");
        assert!(
            times.iter().all(|t| *t < Duration::from_secs(1)),
            "{mode:?}: {times:?}"
        );
    }
}

#[test]
fn without_moving_the_censored_client_never_gets_through() {
    // The attack the move defeats: a client that stays with a censoring upstream is left out
    // of every round, and its message never comes out.
    let mut sim = censored(Mode::Verifiable(Verification::Eager), 7, None);
    sim.run_rounds(1, Duration::from_secs(60));
    sim.submit(VICTIM, b"from the censored one".to_vec())
        .unwrap();
    sim.run_rounds(10, Duration::from_secs(120));
    assert!(
        left_out_rounds(&sim).len() >= 9,
        "{:?}",
        left_out_rounds(&sim)
    );
    assert_eq!(sim.client(VICTIM).unwrap().upstream(), ServerId(0));
    assert!(
        !sim.delivered(Party::Client(ClientId(1)))
            .contains(&b"from the censored one".to_vec())
    );
}

#[test]
fn a_client_moved_by_hand_is_served_by_its_new_upstream() {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Hybrid(Verification::Eager)),
        M,
        N,
        quiet_net(),
        11,
    )
    .unwrap();
    sim.run_rounds(2, Duration::from_secs(60));
    sim.switch_upstream(VICTIM, ServerId(2)).unwrap();
    sim.run_rounds(4, Duration::from_secs(60));
    sim.submit(VICTIM, b"after the move".to_vec()).unwrap();
    sim.run_rounds(12, Duration::from_secs(120));
    assert_eq!(sim.client(VICTIM).unwrap().upstream(), ServerId(2));
    // Its old upstream still had its submission of the round it moved in: never left out.
    assert!(
        left_out_rounds(&sim).is_empty(),
        "{:?}",
        left_out_rounds(&sim)
    );
    assert!(
        sim.delivered(Party::Client(ClientId(3)))
            .contains(&b"after the move".to_vec())
    );
    // It saw every round, in order: its outputs now come from server 2.
    let seen = rounds_completed(&sim, VICTIM);
    let expected: Vec<u64> = (0..seen.len() as u64).collect();
    assert_eq!(seen, expected);
    nobody_blamed(&sim);
    // The move settled within a round: afterwards no window waits for anybody.
    let times = round_times(&sim, 4);
    assert!(
        times.iter().all(|t| *t < Duration::from_secs(1)),
        "{times:?}"
    );
}

#[test]
fn moving_is_refused_during_set_up_and_to_an_unknown_server() {
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Verifiable(Verification::Eager)),
        M,
        N,
        quiet_net(),
        3,
    )
    .unwrap();
    sim.start();
    assert_eq!(
        sim.switch_upstream(VICTIM, ServerId(1)),
        Err(SwitchError::NotInRounds)
    );
    sim.run_rounds(1, Duration::from_secs(60));
    assert_eq!(
        sim.switch_upstream(VICTIM, ServerId(M as u32)),
        Err(SwitchError::UnknownServer {
            server: ServerId(M as u32)
        })
    );
    assert_eq!(sim.client(VICTIM).unwrap().upstream(), ServerId(0));
}

#[test]
fn a_restarted_client_keeps_the_upstream_it_moved_to() {
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Verifiable(Verification::Lazy)),
        M,
        N,
        quiet_net(),
        5,
    )
    .unwrap();
    sim.add_adversary(Adversary::CensoringServer {
        server: ServerId(0),
        client: ClientId(VICTIM as u32),
    });
    sim.switch_after_left_out(Some(2));
    sim.make_restartable(VICTIM).unwrap();
    sim.start();
    // Until the move, and not a step further: the restart must find the move on disk (not
    // only a later checkpoint that happens to carry it).
    while sim.client(VICTIM).unwrap().upstream() != ServerId(1) {
        assert!(sim.step(), "never moved");
    }
    let checkpoint = sim.client(VICTIM).unwrap().checkpoint().unwrap();
    let decoded = verdict_proto::Checkpoint::from_bytes(&checkpoint.to_bytes()).unwrap();
    assert_eq!(decoded, checkpoint);
    sim.restart(VICTIM).unwrap();
    // Back with the server it moved to, not the censoring one the roster gives it.
    assert_eq!(sim.client(VICTIM).unwrap().upstream(), ServerId(1));
    let left_before = left_out_rounds(&sim).len();
    sim.run_rounds(6, Duration::from_secs(60));
    sim.submit(VICTIM, b"after the restart".to_vec()).unwrap();
    sim.run_rounds(14, Duration::from_secs(120));
    // At most the round it moved (and restarted) in is lost; never again after that.
    let left = left_out_rounds(&sim);
    assert!(left.len() <= left_before + 1, "{left:?}");
    assert!(
        sim.delivered(Party::Client(ClientId(2)))
            .contains(&b"after the restart".to_vec())
    );
    nobody_blamed(&sim);
}
