//! A set-up transcript lost on the way: a client whose link (or whole process) dies as set-up
//! completes never gets what its upstream sent, and without the transcript it cannot take
//! part at all. After a reconnect it sends its set-up message again (a restarted client sends
//! it anew), and its upstream — past set-up — answers with the transcript; the client then
//! catches up and posts like everyone else, and nobody is blamed. Answers are bounded: one per
//! client per round, and only from the client's roster upstream.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use core::time::Duration;
use std::cell::RefCell;
use std::rc::Rc;

use verdict_dcnet::{ClientId, HashingGenerator, Party, ServerId};
use verdict_group::Ristretto255;
use verdict_proto::sim::Simulator;
use verdict_proto::wire::{Envelope, Kind};
use verdict_proto::{ClientPhase, Event, MessageError, Mode, Verification};

use common::{nobody_blamed, policy, quiet_net, rounds_completed};

type Hg = HashingGenerator<Ristretto255>;

const M: usize = 2;
const N: usize = 4;
/// The client that loses its transcript.
const OFF: usize = 0;

fn kind_of(bytes: &[u8]) -> Option<Kind> {
    Envelope::<Ristretto255>::from_bytes(bytes)
        .ok()
        .map(|e| e.header().kind)
}

/// What the link to client `OFF` does with set-up transcripts.
struct Link {
    /// Drop every transcript sent to `OFF` while set.
    lose: bool,
    /// Transcripts that reached `OFF`.
    delivered: usize,
}

/// A session whose client `OFF` is restartable and loses the transcripts sent to it while
/// `lose` is set (from the start).
fn session(mode: Mode, seed: u64) -> (Simulator<Hg>, Rc<RefCell<Link>>) {
    let mut sim = Simulator::<Hg>::new_paused(policy(mode), M, N, quiet_net(), seed).unwrap();
    sim.make_restartable(OFF).unwrap();
    let link = Rc::new(RefCell::new(Link {
        lose: true,
        delivered: 0,
    }));
    let state = Rc::clone(&link);
    let off = Party::Client(ClientId(OFF as u32));
    sim.set_tamper(Box::new(move |_, to, bytes| {
        if to != off || kind_of(&bytes) != Some(Kind::SetupTranscript) {
            return Some(bytes);
        }
        let mut link = state.borrow_mut();
        if link.lose {
            return None;
        }
        link.delivered += 1;
        Some(bytes)
    }));
    sim.start();
    (sim, link)
}

fn phase(sim: &Simulator<Hg>) -> ClientPhase {
    sim.client(OFF).unwrap().phase()
}

/// Runs three rounds without `OFF`'s transcript, brings it back with `recover` (a reconnect or
/// a restart), and checks that `OFF` then takes part: its set-up completes with a slot of its
/// own, its rounds complete in order, its message comes out at everyone, nobody is blamed.
fn recovers(mode: Mode, seed: u64, recover: impl FnOnce(&mut Simulator<Hg>)) {
    let (mut sim, link) = session(mode, seed);
    sim.run_rounds(3, Duration::from_secs(60));
    assert_eq!(phase(&sim), ClientPhase::AwaitingSetup, "{mode:?}");
    link.borrow_mut().lose = false;
    recover(&mut sim);
    // (`run_rounds` counts rounds and time from the session's start.)
    sim.run_rounds(5, Duration::from_secs(120));
    assert_eq!(
        link.borrow().delivered,
        1,
        "{mode:?}: one transcript answers"
    );
    let own_slot = sim
        .events_of(Party::Client(ClientId(OFF as u32)))
        .find_map(|e| match e {
            Event::SetupComplete { own_slot, .. } => Some(*own_slot),
            _ => None,
        });
    assert!(matches!(own_slot, Some(Some(_))), "{mode:?}: {own_slot:?}");
    sim.submit(OFF, b"0 got in late".to_vec()).unwrap();
    sim.run_rounds(19, Duration::from_secs(400));
    nobody_blamed(&sim);
    let seen = rounds_completed(&sim, OFF);
    assert!(seen.len() >= 14, "{mode:?}: {seen:?}");
    assert_eq!(
        seen,
        (0..seen.len() as u64).collect::<Vec<_>>(),
        "{mode:?}: every round, the missed ones first"
    );
    for i in 0..N {
        let at = sim.delivered(Party::Client(ClientId(i as u32)));
        assert!(
            at.iter().any(|m| m == b"0 got in late"),
            "{mode:?}: client {i}"
        );
    }
}

#[test]
fn a_client_that_lost_the_transcript_gets_it_after_reconnecting() {
    for (mode, seed) in [
        (Mode::Hybrid(Verification::Eager), 31),
        (Mode::Verifiable(Verification::Eager), 32),
    ] {
        recovers(mode, seed, |sim| sim.reconnect(OFF));
    }
}

#[test]
fn a_client_restarted_in_setup_gets_the_transcript() {
    recovers(Mode::Hybrid(Verification::Eager), 33, |sim| {
        assert!(sim.stored(OFF).is_none(), "nothing but the seed on disk");
        sim.restart(OFF).unwrap();
    });
}

#[test]
fn repeated_setup_messages_get_one_transcript_per_round() {
    let (mut sim, link) = session(Mode::Hybrid(Verification::Eager), 34);
    sim.run_rounds(2, Duration::from_secs(60));
    link.borrow_mut().lose = false;
    for _ in 0..5 {
        sim.reconnect(OFF);
    }
    // Well within the round (10 ms links, a 2 s window).
    let until = sim.now() + Duration::from_millis(50);
    while sim.now() < until && sim.step() {}
    assert_eq!(link.borrow().delivered, 1);
    let upstream = Party::Server(sim.config().upstream_of(ClientId(OFF as u32)).unwrap());
    let refused = sim
        .events_of(upstream)
        .filter(|e| {
            matches!(e, Event::Rejected(MessageError::Duplicate { from, .. })
                if *from == Party::Client(ClientId(OFF as u32)))
        })
        .count();
    assert_eq!(refused, 4, "every repeat after the first is refused");
}

#[test]
fn only_the_roster_upstream_answers_a_late_setup_message() {
    let (mut sim, link) = session(Mode::Hybrid(Verification::Eager), 35);
    sim.run_rounds(2, Duration::from_secs(60));
    link.borrow_mut().lose = false;
    let id = ClientId(OFF as u32);
    let upstream = sim.config().upstream_of(id).unwrap();
    let other = ServerId((upstream.0 + 1) % M as u32);
    // The client's own set-up message, signed by it, handed to the other server.
    let key = sim.signing_key(Party::Client(id)).unwrap().clone();
    let session_id = sim.config().session_id();
    let env = Envelope::seal(
        &key,
        Kind::ClientSetup,
        Party::Client(id),
        session_id.0,
        0,
        Vec::new(),
        &mut rand_core::OsRng,
    );
    sim.inject(Party::Client(id), Party::Server(other), env.to_bytes());
    let until = sim.now() + Duration::from_millis(50);
    while sim.now() < until && sim.step() {}
    assert_eq!(link.borrow().delivered, 0);
    assert_eq!(phase(&sim), ClientPhase::AwaitingSetup);
}
