//! What a server keeps of what it received: messages verified once however long they wait,
//! evidence that is the received bytes themselves, and submissions decoded once into views of
//! the buffer they arrived in.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;
use std::sync::Arc;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use verdict_dcnet::{ClientId, HashingGenerator, Party, ServerId};
use verdict_group::Ristretto255;

use super::ServerPhase;
use super::state::State;
use super::test_sim::{quiet_net, step_until};
use crate::config::signature_checks;
use crate::error::ServerFault;
use crate::event::Event;
use crate::policy::{Mode, Policy, Verification, WindowPolicy};
use crate::sim::Simulator;
use crate::wire::{Envelope, Kind, payloads};

type Hg = HashingGenerator<Ristretto255>;

fn policy(verification: Verification) -> Policy {
    Policy {
        mode: Mode::Verifiable(verification),
        default_len: 128,
        window: WindowPolicy::timeout(Duration::from_secs(2)),
        server_timeout: Duration::from_secs(20),
        ..Policy::default()
    }
}

fn server(j: u32) -> Party {
    Party::Server(ServerId(j))
}

// The signature counters are per thread: the simulation runs on a one-thread pool so that
// every check (a batch of arrivals is opened in parallel with `parallel`) is counted here.
#[test]
fn early_messages_are_verified_once_on_arrival() {
    verdict_group::par::with_threads(
        1,
        early_messages_are_verified_once_on_arrival_on_this_thread,
    )
    .unwrap();
}

fn early_messages_are_verified_once_on_arrival_on_this_thread() {
    let mut sim =
        Simulator::<Hg>::new_paused(policy(Verification::Eager), 3, 6, quiet_net(), 21).unwrap();
    // Server 1's set-up messages reach server 2 late: servers 0 and 1 open round 0 first,
    // and server 2 holds their round messages until its own set-up is done.
    sim.set_link_latency(server(1), server(2), Duration::from_secs(4));
    let before = signature_checks::checked();
    sim.start();
    let mut held = 0;
    step_until(&mut sim, |sim| {
        held = held.max(sim.server(2).unwrap().footprint().buffered);
        sim.server(2).unwrap().round() >= 2
    });
    assert!(held > 0, "server 2 never held an early message");
    assert!(sim.halts().is_empty());
    // One signature check per message delivered: none for a held message when it is handled.
    assert_eq!(
        signature_checks::checked() - before,
        sim.messages_delivered()
    );
}

#[test]
fn a_halts_evidence_is_the_buffer_that_arrived() {
    let mut sim = Simulator::<Hg>::new(policy(Verification::Eager), 2, 4, quiet_net(), 22).unwrap();
    step_until(&mut sim, |sim| {
        sim.server(1).unwrap().phase() == ServerPhase::AwaitingSubmissions
    });
    // Server 0 signs a commitment that is no digest: no correct server sends it.
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let key = sim.signing_key(server(0)).unwrap().clone();
    let srv = sim.server_mut(1).unwrap();
    let round = srv.round();
    let bad = Envelope::seal(
        &key,
        Kind::Commit,
        server(0),
        srv.session().0,
        round,
        vec![7; 3],
        &mut rng,
    );
    let raw: Arc<[u8]> = bad.to_bytes().into();
    srv.handle_message(server(0), Arc::clone(&raw));
    let evidence = core::iter::from_fn(|| srv.poll_event())
        .find_map(|e| match e {
            Event::Halted {
                server: ServerId(0),
                fault: ServerFault::BadMessage { .. },
                evidence,
            } => Some(evidence),
            _ => None,
        })
        .expect("server 1 halts naming server 0");
    assert_eq!(evidence.len(), 1);
    assert!(Arc::ptr_eq(evidence[0].buffer(), &raw));
    assert_eq!(evidence[0][..], raw[..]);
}

#[test]
fn another_servers_submissions_are_views_of_its_inventory_with_slot_ranges() {
    let mut sim = Simulator::<Hg>::new(policy(Verification::Lazy), 2, 4, quiet_net(), 23).unwrap();
    step_until(&mut sim, |sim| {
        matches!(
            sim.server(0).unwrap().phase(),
            ServerPhase::AwaitingServerCiphertexts | ServerPhase::AwaitingOutputSignatures
        )
    });
    let srv = sim.server(0).unwrap();
    let State::Running(run) = &srv.state else {
        panic!("server 0 is running");
    };
    let inventory = run.round.forwarded[1]
        .envelope
        .as_ref()
        .expect("server 1's inventory is kept: its aggregates vouch for verifiable slots");
    assert_eq!(inventory.header().kind, Kind::Inventory);
    let mut deferred = 0;
    for (c, sub) in &run.round.accepted {
        if run.round.upstream[c] != ServerId(1) {
            continue;
        }
        // The submission is a view of the inventory as it arrived, not a copy.
        assert!(Arc::ptr_eq(sub.envelope.buffer(), inventory.raw().buffer()));
        let (signed, payload) = Envelope::<Ristretto255>::parse(&sub.envelope).unwrap();
        assert_eq!(signed.header.sender, Party::Client(*c));
        let list = payloads::ByteList::decode(payload).unwrap().0;
        for (k, open) in run.round.open.iter().enumerate() {
            // The range found on arrival is the slot's ciphertext ...
            assert_eq!(sub.slot_bytes(k), Some(list[k]));
            if sub.cts[k].is_none() {
                // ... and what a deferred slot is decoded from when it is needed.
                deferred += 1;
                assert!(super::round::client_ct::<Hg>(open, sub, k).is_some());
            }
        }
    }
    assert!(deferred > 0, "no deferred slot to decode");
    // Our own clients' submissions are the buffers they arrived in.
    let own: Vec<ClientId> = srv.core.clients.iter().copied().collect();
    for c in own {
        let sub = &run.round.accepted[&c];
        assert_eq!(sub.envelope.buffer().len(), sub.envelope.len());
    }
}

#[cfg(feature = "adversary")]
#[test]
fn an_exclusions_evidence_is_the_submission_inside_the_inventory_it_came_in() {
    use crate::error::ExclusionReason;
    use crate::sim::Adversary;

    let mut sim = Simulator::<Hg>::new(policy(Verification::Lazy), 2, 5, quiet_net(), 12).unwrap();
    // Client 1 (upstream: server 1) sends a bad proof; lazily, its slot fails to reveal and
    // every server checks the proofs it deferred.
    sim.add_adversary(Adversary::BadProofClient {
        client: ClientId(1),
        round: 1,
    });
    sim.submit(3, b"signed by my pseudonym".to_vec()).unwrap();
    sim.run_rounds(3, Duration::from_secs(60));
    let evidence = sim
        .events_of(server(0))
        .find_map(|e| match e {
            Event::Excluded {
                client: ClientId(1),
                reason: ExclusionReason::InvalidProof { round: 1, .. },
                evidence,
            } => Some(evidence.clone()),
            _ => None,
        })
        .expect("server 0 excludes client 1");
    assert_eq!(evidence.len(), 1);
    let (signed, _) = Envelope::<Ristretto255>::parse(&evidence[0]).unwrap();
    assert_eq!(signed.header.sender, Party::Client(ClientId(1)));
    assert_eq!(signed.header.kind, Kind::Submission);
    // Exactly the bytes the client signed, as server 1 relayed them: a view of server 1's
    // signed inventory as server 0 received it.
    let (inventory, payload) = Envelope::<Ristretto255>::parse(evidence[0].buffer()).unwrap();
    assert_eq!(inventory.header.sender, server(1));
    assert_eq!(inventory.header.kind, Kind::Inventory);
    let listed = payloads::Inventory::decode(payload).unwrap().accepted;
    assert!(listed.contains(&&evidence[0][..]));
}
