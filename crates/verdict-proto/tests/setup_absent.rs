//! Set-up with no-shows: clients whose set-up message reaches no server before the set-up
//! window closes are left out (the shuffle runs over the others), every participant names the
//! same absent clients, nobody is blamed for an absence, and the rest of the group runs rounds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use core::time::Duration;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

use verdict_dcnet::elgamal::ElGamal;
use verdict_dcnet::{ClientId, HashingGenerator, Party, ServerId};
use verdict_group::Ristretto255;
use verdict_proto::sim::Simulator;
use verdict_proto::wire::{Envelope, Kind};
use verdict_proto::{Event, MessageError, Mode, ProtoSuite, SetupFailure, Verification};

use common::{policy, quiet_net};

type Hg = HashingGenerator<Ristretto255>;
type Eg = ElGamal<Ristretto255>;

/// The set-up messages the cut dropped, by sender.
type Dropped = Rc<RefCell<Vec<(ClientId, Vec<u8>)>>>;

fn kind_of(bytes: &[u8]) -> Option<Kind> {
    Envelope::<Ristretto255>::from_bytes(bytes)
        .ok()
        .map(|e| e.header().kind)
}

/// Cuts every link of `absent` (both directions) while `cut` is set.
fn cut_off<S: ProtoSuite<G = Ristretto255>>(
    sim: &mut Simulator<S>,
    absent: BTreeSet<ClientId>,
    cut: Rc<RefCell<bool>>,
    dropped_setups: Dropped,
    transcripts_to: Rc<RefCell<Vec<ClientId>>>,
) {
    let is_absent = move |p: Party| matches!(p, Party::Client(c) if absent.contains(&c));
    sim.set_tamper(Box::new(move |from, to, bytes: Vec<u8>| {
        if let Party::Client(c) = to {
            if is_absent(to) && kind_of(&bytes) == Some(Kind::SetupTranscript) && !*cut.borrow() {
                transcripts_to.borrow_mut().push(c);
            }
        }
        if !*cut.borrow() || !(is_absent(from) || is_absent(to)) {
            return Some(bytes);
        }
        if let Party::Client(c) = from {
            if kind_of(&bytes) == Some(Kind::ClientSetup) {
                dropped_setups.borrow_mut().push((c, bytes.clone()));
            }
        }
        None
    }));
}

struct Run<S: ProtoSuite> {
    sim: Simulator<S>,
    cut: Rc<RefCell<bool>>,
    dropped: Dropped,
    transcripts_to: Rc<RefCell<Vec<ClientId>>>,
}

fn start<S: ProtoSuite<G = Ristretto255>>(
    mode: Mode,
    m: usize,
    n: usize,
    absent: &[u32],
    seed: u64,
) -> Run<S> {
    let mut sim = Simulator::<S>::new_paused(policy(mode), m, n, quiet_net(), seed).unwrap();
    let cut = Rc::new(RefCell::new(true));
    let dropped = Rc::new(RefCell::new(Vec::new()));
    let transcripts_to = Rc::new(RefCell::new(Vec::new()));
    cut_off(
        &mut sim,
        absent.iter().map(|&c| ClientId(c)).collect(),
        Rc::clone(&cut),
        Rc::clone(&dropped),
        Rc::clone(&transcripts_to),
    );
    sim.start();
    Run {
        sim,
        cut,
        dropped,
        transcripts_to,
    }
}

fn setup_completions<S: ProtoSuite>(
    sim: &Simulator<S>,
    who: Party,
) -> Vec<(usize, Option<u32>, Vec<ClientId>)> {
    sim.events_of(who)
        .filter_map(|e| match e {
            Event::SetupComplete {
                slots,
                own_slot,
                absent,
            } => Some((*slots, *own_slot, absent.clone())),
            _ => None,
        })
        .collect()
}

/// Nobody halts, fails set-up, excludes or names anyone.
fn assert_nobody_blamed<S: ProtoSuite>(sim: &Simulator<S>) {
    let everyone = (0..sim.num_servers() as u32)
        .map(|j| Party::Server(ServerId(j)))
        .chain((0..sim.num_clients() as u32).map(|i| Party::Client(ClientId(i))));
    for who in everyone {
        for e in sim.events_of(who) {
            assert!(
                !matches!(
                    e,
                    Event::Halted { .. }
                        | Event::PeerHalted { .. }
                        | Event::SetupFailed { .. }
                        | Event::Excluded { .. }
                        | Event::Verdict { .. }
                ),
                "{who}: {e:?}"
            );
        }
    }
}

fn absent_clients_are_left_out<S: ProtoSuite<G = Ristretto255>>(mode: Mode, seed: u64) {
    let (m, n) = (3, 6);
    let absent = [1u32, 4];
    let mut run = start::<S>(mode, m, n, &absent, seed);
    let absent_ids: Vec<ClientId> = absent.iter().map(|&c| ClientId(c)).collect();
    let present: Vec<usize> = (0..n).filter(|i| !absent.contains(&(*i as u32))).collect();
    for &i in &present {
        run.sim.submit(i, format!("from {i}").into_bytes()).unwrap();
    }
    run.sim.run_rounds(3, Duration::from_secs(120));

    // Every server and every present client names the same absent clients; the shuffle gave
    // a slot to each present client, and to nobody else.
    for j in 0..m as u32 {
        let who = Party::Server(ServerId(j));
        assert_eq!(
            setup_completions(&run.sim, who),
            vec![(present.len(), None, absent_ids.clone())],
            "{who}"
        );
        let excluded = run.sim.server(j as usize).unwrap().excluded();
        assert_eq!(
            excluded.iter().copied().collect::<Vec<_>>(),
            absent_ids,
            "{who}"
        );
    }
    let mut slots = BTreeSet::new();
    for &i in &present {
        let who = Party::Client(ClientId(i as u32));
        let done = setup_completions(&run.sim, who);
        assert_eq!(done.len(), 1, "{who}: {done:?}");
        let (count, own, named) = &done[0];
        assert_eq!((*count, named), (present.len(), &absent_ids), "{who}");
        assert!(slots.insert(own.expect("a present client owns a slot")));
    }
    assert_eq!(slots.len(), present.len());
    // The rest of the group goes on: every present client's message reaches every present
    // client, exactly once.
    let sent: BTreeSet<Vec<u8>> = present
        .iter()
        .map(|i| format!("from {i}").into_bytes())
        .collect();
    for &i in &present {
        let got = run.sim.delivered(Party::Client(ClientId(i as u32)));
        assert_eq!(
            got.iter().cloned().collect::<BTreeSet<_>>(),
            sent,
            "client {i}"
        );
        assert_eq!(got.len(), sent.len(), "client {i}: {got:?}");
    }
    // An absence is not a fault: nobody is excluded for misbehaviour, named, or halted.
    assert_nobody_blamed(&run.sim);
    // The absent clients' set-up messages were really sent (and cut): the test exercised
    // what it claims to.
    let cut: BTreeSet<ClientId> = run.dropped.borrow().iter().map(|(c, _)| *c).collect();
    assert_eq!(cut.into_iter().collect::<Vec<_>>(), absent_ids);
    *run.cut.borrow_mut() = false;
}

#[test]
fn hybrid_session_goes_on_without_the_absent_clients() {
    absent_clients_are_left_out::<Hg>(Mode::Hybrid(Verification::Eager), 61);
}

#[test]
fn verifiable_lazy_session_goes_on_without_the_absent_clients() {
    absent_clients_are_left_out::<Hg>(Mode::Verifiable(Verification::Lazy), 62);
}

#[test]
fn elgamal_session_goes_on_without_the_absent_clients() {
    absent_clients_are_left_out::<Eg>(Mode::Verifiable(Verification::Eager), 63);
}

#[test]
fn with_fewer_than_two_present_setup_fails_naming_the_absent() {
    let mut run = start::<Hg>(Mode::Hybrid(Verification::Eager), 2, 3, &[0, 2], 64);
    run.sim.run_rounds(1, Duration::from_secs(60));
    for j in 0..2u32 {
        let failures: Vec<_> = run
            .sim
            .events_of(Party::Server(ServerId(j)))
            .filter_map(|e| match e {
                Event::SetupFailed { reason, culprits } => Some((reason.clone(), culprits.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(
            failures,
            vec![(
                SetupFailure::Absent,
                vec![Party::Client(ClientId(0)), Party::Client(ClientId(2))]
            )],
            "server {j}"
        );
    }
}

#[test]
fn a_late_client_is_told_once_that_it_is_out_and_sends_nothing_more() {
    let (m, n) = (2, 4);
    let mut run = start::<Hg>(Mode::Hybrid(Verification::Eager), m, n, &[3], 65);
    run.sim.run_rounds(1, Duration::from_secs(60));
    let late = ClientId(3);
    assert!(
        setup_completions(&run.sim, Party::Client(late)).is_empty(),
        "cut off, client 3 heard nothing yet"
    );
    // Its links come back; its (captured) set-up message arrives after set-up, twice.
    *run.cut.borrow_mut() = false;
    let (_, bytes) = run.dropped.borrow()[0].clone();
    let upstream = run.sim.config().upstream_of(late).unwrap();
    for _ in 0..2 {
        run.sim
            .inject(Party::Client(late), Party::Server(upstream), bytes.clone());
    }
    run.sim.run_rounds(2, Duration::from_secs(60));
    // Its server rejects both as from a client absent at set-up, and answers the first (only)
    // with the set-up transcript, from which the client learns it is out.
    let rejected = run
        .sim
        .events_of(Party::Server(upstream))
        .filter(|e| {
            matches!(e, Event::Rejected(MessageError::AbsentAtSetup { client, .. }) if client == &late)
        })
        .count();
    assert_eq!(rejected, 2);
    assert_eq!(*run.transcripts_to.borrow(), vec![late]);
    assert_eq!(
        setup_completions(&run.sim, Party::Client(late)),
        vec![(3, None, vec![late])]
    );
    // Out of the session, it submits nothing and the others carry on.
    assert!(run.sim.submit(3, b"too late".to_vec()).is_err());
    assert_nobody_blamed(&run.sim);
}

#[test]
fn a_client_whose_upstream_drops_its_setup_is_present_through_another_server() {
    // Client 0's upstream never gets (or, malicious, silently discards) its set-up message;
    // the client hands the same signed bytes to another server, which forwards them in its
    // inventory: the client is present, owns a slot, and its message is delivered.
    let (m, n) = (3, 4);
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Hybrid(Verification::Eager)),
        m,
        n,
        quiet_net(),
        66,
    )
    .unwrap();
    let client = ClientId(0);
    let upstream = sim.config().upstream_of(client).unwrap();
    let captured: Rc<RefCell<Option<Vec<u8>>>> = Rc::new(RefCell::new(None));
    let keep = Rc::clone(&captured);
    sim.set_tamper(Box::new(move |from, to, bytes: Vec<u8>| {
        if from == Party::Client(client)
            && to == Party::Server(upstream)
            && kind_of(&bytes) == Some(Kind::ClientSetup)
        {
            *keep.borrow_mut() = Some(bytes);
            return None;
        }
        Some(bytes)
    }));
    let other = ServerId((upstream.0 + 1) % m as u32);
    // The relayed message must reach `other` while its set-up window is open, which under
    // this policy closes as soon as its own clients are in: they are made slower than it.
    for c in sim.config().clients_of(other) {
        sim.set_link_latency(
            Party::Client(c),
            Party::Server(other),
            Duration::from_millis(50),
        );
    }
    sim.start();
    let bytes = captured
        .borrow()
        .clone()
        .expect("client 0 sent its set-up message");
    sim.inject(Party::Client(client), Party::Server(other), bytes);
    for i in 0..n {
        sim.submit(i, format!("from {i}").into_bytes()).unwrap();
    }
    sim.run_rounds(3, Duration::from_secs(120));
    for j in 0..m as u32 {
        let done = setup_completions(&sim, Party::Server(ServerId(j)));
        assert_eq!(done, vec![(n, None, vec![])], "server {j}");
    }
    let done = setup_completions(&sim, Party::Client(client));
    assert!(
        matches!(done[..], [(4, Some(_), ref a)] if a.is_empty()),
        "{done:?}"
    );
    for i in 0..n as u32 {
        assert!(
            sim.delivered(Party::Client(ClientId(i)))
                .contains(&b"from 0".to_vec()),
            "client {i}"
        );
    }
    assert_nobody_blamed(&sim);
}

#[test]
fn without_that_second_server_the_dropped_client_is_absent_not_guilty() {
    // The same drop with nobody else to hand the message to: the client is absent, named
    // as absent by everyone, and blamed by no one.
    let mut run = start::<Hg>(Mode::Verifiable(Verification::Eager), 3, 4, &[0], 67);
    run.sim.run_rounds(2, Duration::from_secs(60));
    for j in 0..3u32 {
        let done = setup_completions(&run.sim, Party::Server(ServerId(j)));
        assert_eq!(done, vec![(3, None, vec![ClientId(0)])]);
    }
    assert_nobody_blamed(&run.sim);
}
