//! Catch-up after a dropped link: a client that missed certified round outputs asks its
//! upstream server for them on reconnect, checks them like live ones, delivers what it missed
//! and takes part again; without the request it would wait forever for a round long over.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use core::time::Duration;
use std::cell::RefCell;
use std::rc::Rc;

use rand_core::SeedableRng;
use verdict_dcnet::{ClientId, HashingGenerator, Party, ServerId};
use verdict_group::Ristretto255;
use verdict_proto::sim::Simulator;
use verdict_proto::wire::{Envelope, Kind};
use verdict_proto::{Event, MessageError, Mode, Verification};

use common::{nobody_blamed, policy, quiet_net, rounds_completed};

type Hg = HashingGenerator<Ristretto255>;

const M: usize = 2;
const N: usize = 4;
/// The client whose link drops.
const OFF: usize = 0;
/// Rounds a session runs (enough for a slot closed while idle to reopen).
const ROUNDS: u64 = 14;

/// A session whose client `OFF` loses every message to and from it while the flag is set.
fn session(mode: Mode, seed: u64) -> (Simulator<Hg>, Rc<RefCell<bool>>) {
    let mut sim = Simulator::<Hg>::new_paused(policy(mode), M, N, quiet_net(), seed).unwrap();
    let cut = Rc::new(RefCell::new(false));
    let flag = Rc::clone(&cut);
    let off = Party::Client(ClientId(OFF as u32));
    sim.set_tamper(Box::new(move |from, to, bytes| {
        (!*flag.borrow() || (from != off && to != off)).then_some(bytes)
    }));
    sim.start();
    (sim, cut)
}

/// Runs two rounds, cuts client `OFF` off for three more (client 1 posts meanwhile), restores
/// the link, optionally lets the client ask to catch up, and runs on. Returns the session.
fn outage(mode: Mode, seed: u64, catch_up: bool) -> Simulator<Hg> {
    let (mut sim, cut) = session(mode, seed);
    sim.run_rounds(2, Duration::from_secs(60));
    *cut.borrow_mut() = true;
    sim.submit(1, b"posted while 0 was away".to_vec()).unwrap();
    sim.run_rounds(5, Duration::from_secs(120));
    *cut.borrow_mut() = false;
    if catch_up {
        sim.reconnect(OFF);
    }
    sim.submit(OFF, b"0 is back".to_vec()).unwrap();
    sim.run_rounds(ROUNDS, Duration::from_secs(300));
    sim
}

fn catches_up(mode: Mode, seed: u64) {
    let sim = outage(mode, seed, true);
    nobody_blamed(&sim);
    // Every round, the missed ones included, completed at the client, in order (the last
    // output may still be on its way when the servers reach the last round).
    let seen = rounds_completed(&sim, OFF);
    assert!(seen.len() as u64 >= ROUNDS - 1, "{mode:?}: {seen:?}");
    assert_eq!(
        seen,
        (0..seen.len() as u64).collect::<Vec<u64>>(),
        "{mode:?}"
    );
    let delivered = sim.delivered(Party::Client(ClientId(OFF as u32)));
    assert!(
        delivered.iter().any(|m| m == b"posted while 0 was away"),
        "{mode:?}: the message of a missed round reaches the client"
    );
    // It takes part again: its own message comes out, at everyone.
    for i in 0..N {
        let at = sim.delivered(Party::Client(ClientId(i as u32)));
        assert!(at.iter().any(|m| m == b"0 is back"), "{mode:?}: client {i}");
    }
}

#[test]
fn a_client_back_from_an_outage_catches_up_and_posts_again_eager() {
    catches_up(Mode::Verifiable(Verification::Eager), 1);
}

#[test]
fn a_client_back_from_an_outage_catches_up_and_posts_again_lazy() {
    catches_up(Mode::Verifiable(Verification::Lazy), 2);
}

#[test]
fn a_client_back_from_an_outage_catches_up_and_posts_again_hybrid() {
    catches_up(Mode::Hybrid(Verification::Lazy), 3);
}

/// The same outage without the driver telling the client its link came back: the first live
/// output after it is of a later round than the one it awaits, which tells the client that
/// outputs were lost, and it asks to catch up by itself (before this, it waited forever for
/// the output of the first round it missed: "it never gets past the outage").
#[test]
fn a_client_that_sees_a_later_round_asks_to_catch_up_by_itself() {
    let sim = outage(Mode::Verifiable(Verification::Eager), 1, false);
    nobody_blamed(&sim);
    let seen = rounds_completed(&sim, OFF);
    assert!(seen.len() as u64 >= ROUNDS - 1, "{seen:?}");
    assert_eq!(seen, (0..seen.len() as u64).collect::<Vec<u64>>());
    let delivered = sim.delivered(Party::Client(ClientId(OFF as u32)));
    assert!(delivered.iter().any(|m| m == b"posted while 0 was away"));
}

fn catch_up_request(sim: &Simulator<Hg>, client: usize, round: u64, payload: Vec<u8>) -> Vec<u8> {
    let key = sim
        .signing_key(Party::Client(ClientId(client as u32)))
        .unwrap()
        .clone();
    let session = sim.server(0).unwrap().session().0;
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(9);
    Envelope::seal(
        &key,
        Kind::CatchUp,
        Party::Client(ClientId(client as u32)),
        session,
        round,
        payload,
        &mut rng,
    )
    .to_bytes()
}

fn rejections(sim: &Simulator<Hg>, server: u32) -> Vec<MessageError> {
    sim.events_of(Party::Server(ServerId(server)))
        .filter_map(|e| match e {
            Event::Rejected(err) => Some(err.clone()),
            _ => None,
        })
        .collect()
}

/// Outputs counted on the link by a tamper hook.
type Counter = Rc<RefCell<usize>>;

/// Outputs of rounds before `below` sent to `client` from now on: only resent ones, once the
/// client has had the live output of round `below − 1`.
fn count_outputs_to(sim: &mut Simulator<Hg>, client: usize, below: u64) -> Counter {
    let count = Rc::new(RefCell::new(0));
    let c = Rc::clone(&count);
    let to_client = Party::Client(ClientId(client as u32));
    sim.set_tamper(Box::new(move |_, to, bytes: Vec<u8>| {
        let kind = Envelope::<Ristretto255>::from_bytes(&bytes)
            .ok()
            .map(|e| e.header().kind);
        let round = Envelope::<Ristretto255>::from_bytes(&bytes)
            .ok()
            .map(|e| e.header().round);
        if to == to_client && kind == Some(Kind::RoundOutput) && round < Some(below) {
            *c.borrow_mut() += 1;
        }
        Some(bytes)
    }));
    count
}

/// A server answers each client's catch-up at most once per round, only with an empty payload,
/// and only from rounds it still keeps — so a client cannot turn the request into an
/// amplifier. Any server answers (a client may move to it, protocol §7.4): once each.
#[test]
fn catch_up_requests_are_bounded() {
    let (mut sim, _) = session(Mode::Verifiable(Verification::Eager), 4);
    sim.run_rounds(3, Duration::from_secs(60));
    // Until client 1 has the live output of round 2 (it then submits to round 3).
    while sim.client(1).unwrap().round() < 3 {
        assert!(sim.step());
    }
    let outputs = count_outputs_to(&mut sim, 1, 3);
    let up = sim.config().upstream_of(ClientId(1)).unwrap();
    let other = ServerId(1 - up.0);
    let (to_up, to_other) = (Party::Server(up), Party::Server(other));
    let from = Party::Client(ClientId(1));

    // From round 0: rounds 0, 1 and 2 are resent, once.
    let req = catch_up_request(&sim, 1, 0, Vec::new());
    sim.inject(from, to_up, req.clone());
    sim.inject(from, to_up, catch_up_request(&sim, 1, 0, Vec::new()));
    // Not its upstream (which serves it from now on, once as well); a payload where there
    // is none.
    sim.inject(from, to_other, req.clone());
    sim.inject(from, to_other, req);
    sim.inject(from, to_up, catch_up_request(&sim, 1, 1, vec![1]));
    // The requests arrive within round 3 (one 10 ms hop); run on into later rounds.
    sim.run_rounds(6, Duration::from_secs(120));
    assert_eq!(
        *outputs.borrow(),
        6,
        "rounds 0–2 resent once by each server, no more"
    );
    let at_up = rejections(&sim, up.0);
    assert!(
        at_up.iter().any(|e| matches!(
            e,
            MessageError::Duplicate {
                kind: "catch-up request",
                ..
            }
        )),
        "{at_up:?}"
    );
    assert!(
        at_up
            .iter()
            .any(|e| matches!(e, MessageError::Malformed { .. })),
        "{at_up:?}"
    );
    let at_other = rejections(&sim, other.0);
    assert!(
        at_other.iter().any(|e| matches!(
            e,
            MessageError::Duplicate {
                kind: "catch-up request",
                ..
            }
        )),
        "{at_other:?}"
    );
    nobody_blamed(&sim);
}

/// A client further behind than the outputs its server keeps is sent nothing by the state
/// machine, which asks its driver to serve the rounds from its durable history instead (the
/// simulator, like the node, keeps one and serves them: each missed round once).
#[test]
fn a_request_older_than_what_is_kept_is_left_to_the_durable_history() {
    // Hybrid: XOR rounds are the cheapest to simulate 66 of.
    let (mut sim, _) = session(Mode::Hybrid(Verification::Lazy), 5);
    let kept = 64; // the server keeps this many certified outputs
    sim.run_rounds(kept + 2, Duration::from_secs(3_600));
    while sim.client(1).unwrap().round() < kept + 2 {
        assert!(sim.step());
    }
    let outputs = count_outputs_to(&mut sim, 1, kept + 2);
    let up = sim.config().upstream_of(ClientId(1)).unwrap();
    sim.inject(
        Party::Client(ClientId(1)),
        Party::Server(up),
        catch_up_request(&sim, 1, 0, Vec::new()),
    );
    sim.run_rounds(kept + 4, Duration::from_secs(3_700));
    assert_eq!(
        *outputs.borrow(),
        kept as usize + 2,
        "rounds 0–65, once each"
    );
    let asked: Vec<_> = sim
        .events_of(Party::Server(up))
        .filter_map(|e| match e {
            Event::CatchUpFromHistory {
                client,
                from,
                until,
            } => Some((*client, *from, *until)),
            _ => None,
        })
        .collect();
    // 66 rounds certified when the request arrives (67 if round 66 was certified before it).
    assert!(
        matches!(asked[..], [(ClientId(1), 0, until)] if until == 66 || until == 67),
        "{asked:?}"
    );
    assert!(rejections(&sim, up.0).is_empty());
    nobody_blamed(&sim);
}
