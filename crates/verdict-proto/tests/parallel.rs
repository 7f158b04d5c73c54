//! The parallel server paths (feature `parallel`) against the serial ones: whole simulated
//! sessions — set-up, eager and lazy rounds with a client's invalid proof among valid ones, a
//! hybrid round with a jammer and its blame — run with the same seed in a 1-thread and a
//! 2-thread pool send exactly the same bytes, in the same order, and end with the same events
//! (the same client excluded for the same slot and round). Without the feature both runs are
//! serial and the test still holds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::cell::RefCell;
use std::rc::Rc;

use core::time::Duration;

use verdict_dcnet::HashingGenerator;
use verdict_group::{Ristretto255, par};
use verdict_proto::sim::{Adversary, Simulator};
use verdict_proto::{ClientId, ExclusionReason, Mode, Party, ServerId, Verification};

type Hg = HashingGenerator<Ristretto255>;

/// Every transmission (sender, recipient, bytes) and every event of a session.
#[derive(Debug, PartialEq)]
struct Trace {
    sent: Vec<(Party, Party, Vec<u8>)>,
    events: Vec<String>,
    exclusions: Vec<(ClientId, ExclusionReason)>,
}

fn session(mode: Mode, adversary: Adversary, rounds: u64, seed: u64) -> Trace {
    let mut sim =
        Simulator::<Hg>::new_paused(common::policy(mode), 3, 12, common::quiet_net(), seed)
            .unwrap();
    let sent = Rc::new(RefCell::new(Vec::new()));
    let log = Rc::clone(&sent);
    sim.set_tamper(Box::new(move |from, to, bytes| {
        log.borrow_mut().push((from, to, bytes.clone()));
        Some(bytes)
    }));
    sim.start();
    sim.add_adversary(adversary);
    sim.submit(2, b"one".to_vec()).unwrap();
    sim.submit(7, b"two".to_vec()).unwrap();
    sim.run_rounds(rounds, Duration::from_secs(120));
    let events = sim
        .events
        .iter()
        .map(|(at, who, e)| format!("{at:?} {who:?} {e:?}"))
        .collect();
    let exclusions = sim.exclusions(Party::Server(ServerId(0)));
    let sent = sent.borrow().clone();
    Trace {
        sent,
        events,
        exclusions,
    }
}

fn one_and_two(mode: Mode, adversary: Adversary, rounds: u64, seed: u64) -> Trace {
    let run = |threads| {
        par::with_threads(threads, move || session(mode, adversary, rounds, seed)).unwrap()
    };
    let one = run(1);
    let two = run(2);
    assert_eq!(one.sent.len(), two.sent.len());
    for (k, (a, b)) in one.sent.iter().zip(&two.sent).enumerate() {
        assert_eq!(a, b, "transmission {k} differs");
    }
    assert_eq!(one, two);
    one
}

#[test]
fn eager_session_with_a_bad_proof_is_the_same_on_one_and_two_threads() {
    let bad = Adversary::BadProofClient {
        client: ClientId(4),
        round: 1,
    };
    let trace = one_and_two(Mode::Verifiable(Verification::Eager), bad, 3, 31);
    assert!(matches!(
        trace.exclusions[..],
        [(ClientId(4), ExclusionReason::InvalidProof { round: 1, .. })]
    ));
}

#[test]
fn lazy_session_with_a_bad_proof_is_the_same_on_one_and_two_threads() {
    let bad = Adversary::BadProofClient {
        client: ClientId(9),
        round: 1,
    };
    let trace = one_and_two(Mode::Verifiable(Verification::Lazy), bad, 3, 32);
    assert!(matches!(
        trace.exclusions[..],
        [(ClientId(9), ExclusionReason::InvalidProof { round: 1, .. })]
    ));
}

#[test]
fn hybrid_blame_is_the_same_on_one_and_two_threads() {
    let jammer = Adversary::JammingClient {
        client: ClientId(5),
        from_round: 1,
    };
    let trace = one_and_two(Mode::Hybrid(Verification::Eager), jammer, 5, 33);
    assert!(matches!(
        trace.exclusions[..],
        [(ClientId(5), ExclusionReason::Disruption { .. })]
    ));
    assert!(trace.events.iter().any(|e| e.contains("Verdict")));
}

/// The events mention the delivered messages (a sanity check that the sessions ran).
#[test]
fn sessions_deliver() {
    let bad = Adversary::BadProofClient {
        client: ClientId(4),
        round: 1,
    };
    let trace = session(Mode::Verifiable(Verification::Eager), bad, 2, 31);
    let delivered = trace
        .events
        .iter()
        .filter(|e| e.contains("Delivered"))
        .count();
    assert!(delivered > 0, "{:?}", trace.events);
    assert!(matches!(
        trace.exclusions[..],
        [(ClientId(4), ExclusionReason::InvalidProof { round: 1, .. })]
    ));
}
