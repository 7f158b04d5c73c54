//! The worker model (a server sharded over workers, docs/PERFORMANCE.md): a worker's job on
//! each shard of a server's own clients, merged, gives exactly the accepted set and per-slot
//! sums the server itself puts in its inventory — in eager, lazy and hybrid rounds, with a
//! client's invalid proof among valid ones — and a worker refuses what a server refuses,
//! naming why.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use core::time::Duration;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use verdict_dcnet::HashingGenerator;
use verdict_group::Ristretto255;
use verdict_proto::sim::{Adversary, Simulator};
use verdict_proto::wire::{Envelope, Kind, payloads};
use verdict_proto::{
    ClientId, Mode, Party, ServerId, ServerPhase, ShardError, ShardRefusal, SharedBytes,
    Verification,
};

type Hg = HashingGenerator<Ristretto255>;
type G = Ristretto255;

type Sent = Rc<RefCell<Vec<(Party, Party, Vec<u8>)>>>;

/// A paused 3-server, 12-client session whose every transmission is recorded.
fn recorded(mode: Mode, seed: u64) -> (Simulator<Hg>, Sent) {
    let mut sim =
        Simulator::<Hg>::new_paused(common::policy(mode), 3, 12, common::quiet_net(), seed)
            .unwrap();
    let sent: Sent = Rc::new(RefCell::new(Vec::new()));
    let log = Rc::clone(&sent);
    sim.set_tamper(Box::new(move |from, to, bytes| {
        log.borrow_mut().push((from, to, bytes.clone()));
        Some(bytes)
    }));
    (sim, sent)
}

/// Per round, what server 0's inventory lists: the accepted clients, the rejected ones, and
/// the per-slot aggregates as encoded.
type Listed = BTreeMap<u64, (Vec<ClientId>, Vec<ClientId>, Vec<Vec<u8>>)>;

fn inventories_of_server_0(sent: &Sent) -> Listed {
    let sender_of = |bytes: &[u8]| match Envelope::<G>::parse(bytes).unwrap().0.header.sender {
        Party::Client(c) => c,
        Party::Server(_) => panic!("a server's message listed as a submission"),
    };
    let mut out = BTreeMap::new();
    for (from, _, bytes) in sent.borrow().iter() {
        if *from != Party::Server(ServerId(0)) {
            continue;
        }
        let (signed, payload) = Envelope::<G>::parse(bytes).unwrap();
        if signed.header.kind != Kind::Inventory {
            continue;
        }
        let inv = payloads::Inventory::decode(payload).unwrap();
        out.entry(signed.header.round).or_insert_with(|| {
            (
                inv.accepted.iter().map(|b| sender_of(b)).collect(),
                inv.rejected.iter().map(|b| sender_of(b)).collect(),
                inv.aggregates.iter().map(|a| a.to_vec()).collect(),
            )
        });
    }
    out
}

#[test]
fn merged_worker_sums_are_the_inventory_the_server_sends() {
    let modes = [
        Mode::Verifiable(Verification::Eager),
        Mode::Verifiable(Verification::Lazy),
        Mode::Hybrid(Verification::Eager),
    ];
    for (seed, mode) in (40..).zip(modes) {
        let (mut sim, sent) = recorded(mode, seed);
        sim.start();
        sim.model_workers(ServerId(0), &[1, 2, 3]);
        // Client 3 (server 0's) sends an invalid proof in round 1 of the eager session.
        let eager = mode == Mode::Verifiable(Verification::Eager);
        if eager {
            sim.add_adversary(Adversary::BadProofClient {
                client: ClientId(3),
                round: 1,
            });
        }
        sim.submit(3, b"from a worker's shard".to_vec()).unwrap();
        sim.run_rounds(3, Duration::from_secs(120));
        let listed = inventories_of_server_0(&sent);
        let samples = sim.worker_samples();
        let rounds: Vec<u64> = samples.iter().map(|s| s.round).collect();
        // Verifiable sessions open round 0 for every client; hybrid ones run one more.
        let expected: Vec<u64> = (0..3).flat_map(|r| [r; 3]).collect();
        assert_eq!(rounds, expected, "{mode:?}: the modelled rounds");
        for s in samples {
            assert!(s.agrees, "{mode:?} round {}: shards disagree", s.round);
            // Server 0 has clients 0, 3, 6 and 9; client 3 is excluded after its bad proof.
            let own = if eager && s.round > 1 { 3 } else { 4 };
            assert_eq!(s.clients, own, "{mode:?} round {}", s.round);
            assert_eq!(s.shards.len(), s.workers);
            // Every submission in exactly one shard, the shards as even as they can be.
            assert_eq!(s.shard_sizes.iter().sum::<usize>(), s.clients);
            let (least, most) = (s.shard_sizes.iter().min(), s.shard_sizes.iter().max());
            assert!(most.unwrap() - least.unwrap() <= 1, "{:?}", s.shard_sizes);
            let (accepted, rejected, aggregates) = &listed[&s.round];
            assert_eq!(&s.accepted, accepted, "{mode:?} round {}", s.round);
            assert_eq!(
                &s.merged_aggregates, aggregates,
                "{mode:?} round {}",
                s.round
            );
            if eager && s.round == 1 {
                assert!(!s.accepted.contains(&ClientId(3)));
                assert_eq!(rejected, &[ClientId(3)]);
            } else {
                assert_eq!(s.accepted.len(), own, "{mode:?} round {}", s.round);
            }
        }
        if mode.is_hybrid() {
            assert!(
                samples
                    .iter()
                    .all(|s| s.merged_aggregates.iter().all(Vec::is_empty))
            );
        } else {
            assert!(
                samples
                    .iter()
                    .all(|s| s.merged_aggregates.iter().any(|a| !a.is_empty()))
            );
        }
    }
}

#[test]
fn a_worker_refuses_what_a_server_refuses_and_says_why() {
    let (mut sim, sent) = recorded(Mode::Verifiable(Verification::Eager), 7);
    sim.start();
    // Outside a submission window there is no worker's job.
    assert_eq!(
        sim.server(0).unwrap().shard_worker().unwrap_err(),
        ShardError::NotCollecting
    );
    // Stop as soon as server 0's four clients have sent their round-0 submissions: still in
    // flight, so server 0 is collecting round 0.
    let own = [0u32, 3, 6, 9];
    let delivered = |sent: &Sent| -> Vec<(ClientId, Vec<u8>)> {
        sent.borrow()
            .iter()
            .filter_map(|(from, to, bytes)| match (from, to) {
                (Party::Client(c), Party::Server(ServerId(0)))
                    if own.contains(&c.0)
                        && Envelope::<G>::parse(bytes).unwrap().0.header.kind
                            == Kind::Submission =>
                {
                    Some((*c, bytes.clone()))
                }
                _ => None,
            })
            .collect()
    };
    while delivered(&sent).len() < own.len() {
        assert!(sim.step(), "the session stopped before round 0");
    }
    assert_eq!(
        sim.server(0).unwrap().phase(),
        ServerPhase::AwaitingSubmissions
    );
    let subs = delivered(&sent);
    let server = sim.server(0).unwrap();
    let worker = server.shard_worker().unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let bytes = |i: usize| SharedBytes::from(subs[i].1.clone());

    // Client 3's submission re-signed over a tampered payload (a valid signature, a broken
    // ciphertext), a byte flipped in client 6's signature, a server's message, a truncation,
    // and client 0's bytes twice (a resend: taken once).
    let key3 = sim.signing_key(Party::Client(ClientId(3))).unwrap();
    let env3 = Envelope::<G>::from_bytes(&subs[1].1).unwrap();
    let mut payload = env3.payload.clone();
    let last = payload.len() - 1;
    payload[last] ^= 1;
    let forged3 = common::reseal(key3, &env3, payload, &mut ChaCha20Rng::seed_from_u64(2));
    // Client 6's submission signed with client 0's key.
    let env6 = Envelope::<G>::from_bytes(&subs[2].1).unwrap();
    let key0 = sim.signing_key(Party::Client(ClientId(0))).unwrap();
    let bad_sig6 = common::reseal(
        key0,
        &env6,
        env6.payload.clone(),
        &mut ChaCha20Rng::seed_from_u64(4),
    );
    let from_server = sent
        .borrow()
        .iter()
        .find(|(from, _, _)| matches!(from, Party::Server(_)))
        .map(|(_, _, b)| b.clone())
        .unwrap();
    let batch = vec![
        bytes(0),
        SharedBytes::from(forged3),
        SharedBytes::from(bad_sig6),
        SharedBytes::from(from_server),
        SharedBytes::from(subs[0].1[..40].to_vec()),
        bytes(0),
        bytes(3),
    ];
    let sums = worker.verify(&batch, &mut rng).unwrap();
    assert_eq!(sums.accepted, [ClientId(0), ClientId(9)]);
    let why: Vec<(usize, &ShardRefusal)> = sums.refused.iter().map(|(p, r)| (*p, r)).collect();
    assert!(
        matches!(
            why[0],
            (
                1,
                ShardRefusal::Malformed(_) | ShardRefusal::InvalidProof { .. }
            )
        ),
        "{why:?}"
    );
    assert_eq!(why[1], (2, &ShardRefusal::BadSignature), "{why:?}");
    assert!(
        matches!(
            why[2],
            (3, ShardRefusal::Unopened(_) | ShardRefusal::NotThisRound)
        ),
        "{why:?}"
    );
    assert!(
        matches!(why[3], (4, ShardRefusal::Unparsable(_))),
        "{why:?}"
    );
    assert_eq!(why.len(), 4, "{why:?}");

    // A second, different signed submission of a client in the same shard is refused.
    let mut payload = env3.payload.clone();
    payload.push(0);
    let other3 = common::reseal(key3, &env3, payload, &mut ChaCha20Rng::seed_from_u64(3));
    let sums = worker
        .verify(&[bytes(1), SharedBytes::from(other3)], &mut rng)
        .unwrap();
    assert_eq!(sums.accepted, [ClientId(3)]);
    assert_eq!(sums.refused, [(1, ShardRefusal::Duplicate)]);

    // Shards must be disjoint and of this round.
    let a = worker.verify(&[bytes(0), bytes(1)], &mut rng).unwrap();
    let b = worker.verify(&[bytes(1), bytes(2)], &mut rng).unwrap();
    assert_eq!(
        worker.merge(&[a.clone(), b]).unwrap_err(),
        ShardError::Overlap {
            client: ClientId(3)
        }
    );
    let c = worker.verify(&[bytes(2)], &mut rng).unwrap();
    let whole = worker
        .verify(&[bytes(0), bytes(1), bytes(2)], &mut rng)
        .unwrap();
    assert_eq!(whole.accepted, [ClientId(0), ClientId(3), ClientId(6)]);
    assert_eq!(worker.merge(&[a.clone(), c.clone()]).unwrap(), whole);
    let mut stale = c;
    stale.round += 1;
    assert_eq!(
        worker.merge(&[a, stale]).unwrap_err(),
        ShardError::WrongRound
    );
}
