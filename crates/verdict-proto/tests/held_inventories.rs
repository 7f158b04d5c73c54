//! Inventories held until the round's last one arrives (`server/round/inventory.rs`): a held
//! defective inventory still names its sender, also when another server never sends its own,
//! and copies of an inventory are not held.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;

use verdict_dcnet::{HashingGenerator, Party, ServerId};
use verdict_group::Ristretto255;
use verdict_proto::sim::{Adversary, Simulator};
use verdict_proto::wire::{Envelope, Kind};
use verdict_proto::{Event, Mode, ServerFault, Verification};

use crate::common;
use common::{nobody_blamed, policy, quiet_net, reseal, rewrite_server_step, rounds_completed};

type G = Ristretto255;
type Hg = HashingGenerator<G>;

/// Server 1 falsely rejects an honest client in round 1, and server 2 never sends server 0
/// anything from its round-1 inventory on. Server 0 holds server 1's inventory waiting for
/// server 2's; when its timer fires it must check what it holds and name server 1 for the
/// false rejection (with server 1's signed inventory), not only stop for server 2's silence.
#[test]
fn a_held_defective_inventory_is_named_before_a_missing_one() {
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        6,
        quiet_net(),
        31,
    )
    .unwrap();
    sim.add_adversary(Adversary::FalselyRejectingServer {
        server: ServerId(1),
        round: 1,
    });
    let mut cut = false;
    sim.set_tamper(Box::new(move |from, to, bytes| {
        if from == Party::Server(ServerId(2)) && to == Party::Server(ServerId(0)) {
            cut = cut
                || Envelope::<G>::from_bytes(&bytes)
                    .is_ok_and(|e| e.header().kind == Kind::Inventory && e.header().round >= 1);
            if cut {
                return None;
            }
        }
        Some(bytes)
    }));
    sim.start();
    sim.run_rounds(3, Duration::from_secs(300));
    let by_server_0: Vec<_> = sim
        .halts()
        .into_iter()
        .filter(|(by, _, _)| *by == ServerId(0))
        .collect();
    assert!(
        matches!(
            by_server_0.first(),
            Some((_, culprit, ServerFault::FalseRejection { round: 1, .. }))
                if *culprit == ServerId(1)
        ),
        "server 0 did not name server 1's false rejection: {by_server_0:?} (all: {:?})",
        sim.halts()
    );
    // Its evidence is server 1's signed inventory.
    let evidence = sim
        .events_of(Party::Server(ServerId(0)))
        .find_map(|e| match e {
            Event::Halted { evidence, .. } => Some(evidence.clone()),
            _ => None,
        })
        .unwrap();
    let signed = evidence
        .iter()
        .filter_map(|b| Envelope::<G>::from_bytes(b).ok())
        .any(|e| {
            e.header().kind == Kind::Inventory && e.header().sender == Party::Server(ServerId(1))
        });
    assert!(signed, "no signed inventory of server 1 in the evidence");
}

/// Server 1's round-1 inventory reaches server 0 twenty-one times (retransmissions, or a
/// server trying to fill our memory) while server 0 waits for server 2's, which is slow. The
/// copies are not held: what server 0 buffers stays small, and the session goes on with nobody
/// named or excluded.
#[test]
fn copies_of_a_held_inventory_are_not_held() {
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        6,
        quiet_net(),
        32,
    )
    .unwrap();
    let (s0, s1, s2) = (
        Party::Server(ServerId(0)),
        Party::Server(ServerId(1)),
        Party::Server(ServerId(2)),
    );
    sim.set_link_latency(s2, s0, Duration::from_millis(1500));
    let copy = std::rc::Rc::new(std::cell::RefCell::new(None));
    let seen = copy.clone();
    sim.set_tamper(Box::new(move |from, to, bytes| {
        if (from, to) == (s1, s0)
            && Envelope::<G>::from_bytes(&bytes)
                .is_ok_and(|e| e.header().kind == Kind::Inventory && e.header().round == 1)
        {
            *seen.borrow_mut() = Some(bytes.clone());
        }
        Some(bytes)
    }));
    sim.start();
    while copy.borrow().is_none() {
        assert!(
            sim.step(),
            "the session ended before server 1's round-1 inventory"
        );
    }
    let bytes = copy.borrow_mut().take().unwrap();
    // (Copies of a step of the round after ours would be held as early messages, a few per
    // server, and more name the sender: send them once server 0 is in round 1.)
    while sim.server(0).unwrap().round() < 1 {
        assert!(sim.step(), "server 0 never reached round 1");
    }
    for _ in 0..20 {
        sim.inject(s1, s0, bytes.clone());
    }
    let mut buffered = 0;
    while sim.server(0).unwrap().round() < 2 {
        assert!(
            sim.step(),
            "server 0 never reached round 2: {:?}",
            sim.halts()
        );
        buffered = buffered.max(sim.server(0).unwrap().footprint().buffered);
    }
    assert!(
        buffered < 20,
        "server 0 held the copies: {buffered} messages buffered"
    );
    sim.run_rounds(4, Duration::from_secs(300));
    nobody_blamed(&sim);
    for c in 0..6 {
        let rounds = rounds_completed(&sim, c);
        assert!(
            (0..3).all(|r| rounds.contains(&r)),
            "client {c} saw rounds {rounds:?}"
        );
    }
}

/// Server 1 lists, in its round-1 inventory, a client submission whose signature is not the
/// client's (signed by server 1's key over the client's header and payload: well formed, so
/// only the signature batch can catch it). With three servers each honest one holds two
/// inventories and checks their signatures as one batch: that batch fails, each inventory's is
/// checked on its own, and server 1 — only server 1 — is named.
#[test]
fn a_forged_signature_in_one_of_the_inventories_checked_together_names_its_server() {
    use verdict_proto::wire::{Reader, Writer, write_byte_list};
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        6,
        quiet_net(),
        33,
    )
    .unwrap();
    let key = sim.signing_key(Party::Server(ServerId(1))).unwrap().clone();
    let mut rng =
        <rand_chacha::ChaCha20Rng as rand_chacha::rand_core::SeedableRng>::seed_from_u64(8);
    rewrite_server_step(&mut sim, ServerId(1), Kind::Inventory, 1, move |payload| {
        let mut r = Reader::new(payload);
        let (mut accepted, rejected, aggregates) = (
            r.byte_list().unwrap(),
            r.byte_list().unwrap(),
            r.byte_list().unwrap(),
        );
        let first = Envelope::<G>::from_bytes(&accepted[0]).unwrap();
        // The client's header and payload, signed by the server's key.
        accepted[0] = reseal(&key, &first, first.payload.clone(), &mut rng);
        let mut w = Writer::new();
        for list in [&accepted, &rejected, &aggregates] {
            write_byte_list(&mut w, list);
        }
        w.finish()
    });
    sim.start();
    sim.run_rounds(3, Duration::from_secs(300));
    let halts = sim.halts();
    for honest in [ServerId(0), ServerId(2)] {
        assert!(
            halts.iter().any(|(by, culprit, fault)| *by == honest
                && *culprit == ServerId(1)
                && matches!(
                    fault,
                    ServerFault::BadMessage {
                        round: 1,
                        kind: "inventory"
                    }
                )),
            "server {} did not name server 1: {halts:?}",
            honest.0
        );
    }
    assert!(
        halts.iter().all(|(_, culprit, _)| *culprit == ServerId(1)),
        "{halts:?}"
    );
}
