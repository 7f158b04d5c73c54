//! Targeted tests: every adversary of the simulator, each blame path, and the guarantee that
//! no honest member is ever blamed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;

use verdict_dcnet::HashingGenerator;
use verdict_group::Ristretto255;
use verdict_proto::sim::{Adversary, Network, Simulator};
use verdict_proto::{
    ClientId, Event, ExclusionReason, Mode, Party, Policy, ServerFault, ServerId, Verification,
    WindowPolicy,
};

use crate::common;

type Hg = HashingGenerator<Ristretto255>;

/// Links with jitter, so servers and clients see messages in different interleavings (a
/// faster server's blame or round messages arrive before a slower one is ready for them).
fn net() -> Network {
    Network {
        latency: Duration::from_millis(10),
        jitter: Duration::from_millis(25),
        ..Network::default()
    }
}

fn policy(mode: Mode) -> Policy {
    Policy {
        mode,
        default_len: 128,
        window: WindowPolicy::timeout(Duration::from_secs(2)),
        rebuttal_timeout: Duration::from_secs(1),
        server_timeout: Duration::from_secs(20),
        ..Policy::default()
    }
}

fn excluded(sim: &Simulator<Hg>, server: u32) -> Vec<(ClientId, ExclusionReason)> {
    sim.events_of(Party::Server(ServerId(server)))
        .filter_map(|e| match e {
            Event::Excluded { client, reason, .. } => Some((*client, *reason)),
            _ => None,
        })
        .collect()
}

fn halts(sim: &Simulator<Hg>) -> Vec<(ServerId, ServerFault)> {
    (0..sim.num_servers() as u32)
        .flat_map(|j| {
            sim.events_of(Party::Server(ServerId(j)))
                .filter_map(|e| match e {
                    Event::Halted { server, fault, .. } => Some((*server, fault.clone())),
                    _ => None,
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Accusations (hybrid blame started) seen by any server.
fn accusations(sim: &Simulator<Hg>) -> usize {
    (0..sim.num_servers() as u32)
        .map(|j| {
            sim.events_of(Party::Server(ServerId(j)))
                .filter(|e| matches!(e, Event::Accusation(_)))
                .count()
        })
        .sum()
}

fn delivered(sim: &Simulator<Hg>, who: Party) -> Vec<Vec<u8>> {
    sim.events_of(who)
        .filter_map(|e| match e {
            Event::Delivered { message, .. } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

fn rounds_completed(sim: &Simulator<Hg>, server: u32) -> u64 {
    sim.events_of(Party::Server(ServerId(server)))
        .filter(|e| matches!(e, Event::RoundComplete { .. }))
        .count() as u64
}

#[test]
fn hybrid_jammer_is_traced_and_excluded() {
    let mut sim =
        Simulator::<Hg>::new(policy(Mode::Hybrid(Verification::Eager)), 3, 8, net(), 7).unwrap();
    let jammer = ClientId(5);
    sim.add_adversary(Adversary::JammingClient {
        client: jammer,
        from_round: 1,
    });
    sim.submit(2, b"before the jam".to_vec()).unwrap();
    sim.run_rounds(1, Duration::from_secs(60));
    sim.submit(2, b"during the jam".to_vec()).unwrap();
    sim.submit(2, b"after exclusion".to_vec()).unwrap();
    sim.run_rounds(8, Duration::from_secs(120));
    for j in 0..3 {
        let ex = excluded(&sim, j);
        assert_eq!(ex.len(), 1, "server {j}: {ex:?}");
        assert_eq!(ex[0].0, jammer);
        assert!(matches!(ex[0].1, ExclusionReason::Disruption { .. }));
        let verdicts: Vec<_> = sim
            .events_of(Party::Server(ServerId(j)))
            .filter_map(|e| match e {
                Event::Verdict { culprit, .. } => Some(*culprit),
                _ => None,
            })
            .collect();
        assert_eq!(verdicts.first(), Some(&Some(Party::Client(jammer))));
    }
    assert!(halts(&sim).is_empty());
    let got = delivered(&sim, Party::Client(ClientId(0)));
    assert!(got.contains(&b"before the jam".to_vec()));
    assert!(got.contains(&b"after exclusion".to_vec()), "{got:?}");
    // Clients learn the exclusion from the certified output.
    assert!(sim.events_of(Party::Client(ClientId(0))).any(|e| matches!(
        e,
        Event::Excluded { client, .. } if *client == jammer
    )));
}

#[test]
fn eager_bad_proof_client_is_excluded_at_once() {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        6,
        net(),
        11,
    )
    .unwrap();
    sim.add_adversary(Adversary::BadProofClient {
        client: ClientId(4),
        round: 1,
    });
    sim.submit(0, b"m0".to_vec()).unwrap();
    sim.run_rounds(3, Duration::from_secs(60));
    for j in 0..3 {
        assert_eq!(
            excluded(&sim, j),
            vec![(
                ClientId(4),
                ExclusionReason::InvalidProof { round: 1, slot: 0 }
            )]
        );
    }
    // The round with the bad proof still completed, without the cheater.
    let participants: Vec<u32> = sim
        .events_of(Party::Server(ServerId(0)))
        .filter_map(|e| match e {
            Event::RoundComplete { participants, .. } => Some(*participants),
            _ => None,
        })
        .collect();
    assert_eq!(participants[..3], [6, 5, 5]);
    assert!(halts(&sim).is_empty());
}

#[test]
fn lazy_bad_proof_is_found_after_the_signature_fails() {
    let lazy = Policy {
        default_len: 128,
        ..policy(Mode::Verifiable(Verification::Lazy))
    };
    let mut sim = Simulator::<Hg>::new(lazy, 2, 5, net(), 12).unwrap();
    sim.add_adversary(Adversary::BadProofClient {
        client: ClientId(1),
        round: 1,
    });
    sim.submit(3, b"signed by my pseudonym".to_vec()).unwrap();
    sim.run_rounds(3, Duration::from_secs(60));
    assert!(
        delivered(&sim, Party::Client(ClientId(0))).contains(&b"signed by my pseudonym".to_vec())
    );
    for j in 0..2 {
        let ex = excluded(&sim, j);
        assert_eq!(ex.len(), 1, "{ex:?}");
        assert_eq!(ex[0].0, ClientId(1));
        assert!(matches!(
            ex[0].1,
            ExclusionReason::InvalidProof { round: 1, .. }
        ));
    }
}

#[test]
fn replaying_client_is_excluded() {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        2,
        4,
        net(),
        13,
    )
    .unwrap();
    sim.add_adversary(Adversary::ReplayingClient {
        client: ClientId(2),
        round: 2,
    });
    sim.run_rounds(4, Duration::from_secs(60));
    let ex = excluded(&sim, 0);
    assert_eq!(ex.len(), 1, "{ex:?}");
    assert_eq!(ex[0].0, ClientId(2));
    assert!(matches!(
        ex[0].1,
        ExclusionReason::InvalidProof { round: 2, .. }
    ));
}

#[test]
fn hybrid_replay_is_blamed_as_disruption() {
    let mut sim =
        Simulator::<Hg>::new(policy(Mode::Hybrid(Verification::Eager)), 2, 4, net(), 14).unwrap();
    sim.add_adversary(Adversary::ReplayingClient {
        client: ClientId(3),
        round: 2,
    });
    sim.run_rounds(6, Duration::from_secs(120));
    // Replayed XOR pads corrupt every open slot; owners accuse; blame finds client 3.
    let ex = excluded(&sim, 1);
    assert_eq!(ex.len(), 1, "{ex:?}");
    assert_eq!(ex[0].0, ClientId(3));
}

#[test]
fn silent_and_late_clients_do_not_stop_rounds() {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        2,
        6,
        net(),
        15,
    )
    .unwrap();
    sim.add_adversary(Adversary::SilentClient {
        client: ClientId(1),
        from_round: 1,
    });
    sim.add_adversary(Adversary::LateClient {
        client: ClientId(4),
        round: 2,
    });
    sim.submit(0, b"still here".to_vec()).unwrap();
    sim.run_rounds(4, Duration::from_secs(120));
    assert!(rounds_completed(&sim, 0) >= 4);
    let participants: Vec<u32> = sim
        .events_of(Party::Server(ServerId(0)))
        .filter_map(|e| match e {
            Event::RoundComplete { participants, .. } => Some(*participants),
            _ => None,
        })
        .collect();
    assert_eq!(participants[..4], [5, 4, 5, 5]);
    assert!(excluded(&sim, 0).is_empty(), "churn is not misbehaviour");
    assert!(delivered(&sim, Party::Client(ClientId(3))).contains(&b"still here".to_vec()));
}

#[test]
fn lying_server_is_exposed_by_the_rebuttal() {
    let mut sim =
        Simulator::<Hg>::new(policy(Mode::Hybrid(Verification::Eager)), 3, 6, net(), 16).unwrap();
    sim.add_adversary(Adversary::JammingClient {
        client: ClientId(5),
        from_round: 1,
    });
    sim.add_adversary(Adversary::LyingServer {
        server: ServerId(2),
    });
    sim.run_rounds(6, Duration::from_secs(120));
    let h = halts(&sim);
    assert!(!h.is_empty());
    // Every halt names the liar; no honest client was excluded.
    for (server, fault) in &h {
        assert_eq!(*server, ServerId(2), "{fault:?}");
    }
    for j in 0..3 {
        assert!(excluded(&sim, j).is_empty(), "{:?}", excluded(&sim, j));
    }
}

#[test]
fn equivocating_server_is_detected() {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        4,
        4,
        net(),
        17,
    )
    .unwrap();
    sim.add_adversary(Adversary::EquivocatingServer {
        server: ServerId(1),
        round: 1,
    });
    sim.run_rounds(3, Duration::from_secs(120));
    let h = halts(&sim);
    assert!(!h.is_empty());
    for (server, fault) in &h {
        assert_eq!(*server, ServerId(1), "{fault:?}");
    }
    assert!(h.iter().any(|(_, f)| matches!(
        f,
        ServerFault::Equivocation { .. } | ServerFault::InvalidCiphertext { .. }
    )));
}

/// Runs a 3-server session for two rounds, then puts into an echo from server 2 to server 0 a
/// header of server 1's round-2 inventory with a payload digest server 1 never sent, signed
/// with `signer`'s key, and runs on to round 4.
fn session_with_echoed_inventory_header(signer: Party) -> Simulator<Hg> {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        4,
        net(),
        31,
    )
    .unwrap();
    sim.run_rounds(2, Duration::from_secs(120));
    assert!(halts(&sim).is_empty());
    inject_echoed_inventory_header(&mut sim, signer);
    sim.run_rounds(4, Duration::from_secs(240));
    sim
}

fn inject_echoed_inventory_header(sim: &mut Simulator<Hg>, signer: Party) {
    use verdict_proto::wire::{Envelope, Kind, Writer, write_byte_list};
    let session = sim.server(0).unwrap().session().0;
    let mut rng =
        <rand_chacha::ChaCha20Rng as rand_chacha::rand_core::SeedableRng>::seed_from_u64(9);
    let key = sim.signing_key(signer).unwrap().clone();
    let mut other = Envelope::seal(
        &key,
        Kind::Inventory,
        Party::Server(ServerId(1)),
        session,
        2,
        b"an inventory server 1 never sent".to_vec(),
        &mut rng,
    );
    if signer != Party::Server(ServerId(1)) {
        // Re-labelled after signing: the signature is not server 1's.
        other.signed.header.sender = Party::Server(ServerId(1));
    }
    let mut w = Writer::new();
    write_byte_list(&mut w, &[other.signed.to_bytes()]);
    let relay = sim.signing_key(Party::Server(ServerId(2))).unwrap().clone();
    let echo = Envelope::seal(
        &relay,
        Kind::Echo,
        Party::Server(ServerId(2)),
        session,
        2,
        w.finish(),
        &mut rng,
    );
    sim.inject(
        Party::Server(ServerId(2)),
        Party::Server(ServerId(0)),
        echo.to_bytes(),
    );
}

#[test]
fn echoed_header_differing_from_the_message_received_is_equivocation() {
    let sim = session_with_echoed_inventory_header(Party::Server(ServerId(1)));
    let by_server_0: Vec<ServerFault> = sim
        .events_of(Party::Server(ServerId(0)))
        .filter_map(|e| match e {
            Event::Halted { server, fault, .. } if *server == ServerId(1) => Some(fault.clone()),
            _ => None,
        })
        .collect();
    assert!(
        matches!(by_server_0.as_slice(), [ServerFault::Equivocation { .. }]),
        "{by_server_0:?}"
    );
    for (server, fault) in halts(&sim) {
        assert_eq!(server, ServerId(1), "{fault:?}");
    }
}

#[test]
fn echoed_header_with_a_forged_signature_is_ignored() {
    let sim = session_with_echoed_inventory_header(Party::Server(ServerId(2)));
    assert!(halts(&sim).is_empty(), "{:?}", halts(&sim));
    assert!((0..3).all(|j| sim.server(j).unwrap().round() >= 4));
}

#[test]
fn hybrid_equivocating_commit_is_detected() {
    let mut sim =
        Simulator::<Hg>::new(policy(Mode::Hybrid(Verification::Eager)), 3, 4, net(), 18).unwrap();
    sim.add_adversary(Adversary::EquivocatingServer {
        server: ServerId(0),
        round: 1,
    });
    sim.run_rounds(3, Duration::from_secs(120));
    let h = halts(&sim);
    assert!(!h.is_empty());
    for (server, fault) in &h {
        assert_eq!(*server, ServerId(0), "{fault:?}");
    }
}

/// Rewrites one participant's set-up commitments (swapping its first two, both valid points)
/// and re-signs, so the pairwise cross-check fails and the dispute must name it.
fn corrupt_setup(sim: &mut Simulator<Hg>, who: Party) {
    use verdict_proto::wire::{Envelope, Kind, Reader, Writer};
    let key = sim.signing_key(who).unwrap().clone();
    let mut rng =
        <rand_chacha::ChaCha20Rng as rand_chacha::rand_core::SeedableRng>::seed_from_u64(5);
    sim.set_tamper(Box::new(move |from, _to, bytes| {
        if from != who {
            return Some(bytes);
        }
        let env = Envelope::<Ristretto255>::from_bytes(&bytes).unwrap();
        let h = env.header().clone();
        let mut r = Reader::new(&env.payload);
        let payload = match h.kind {
            Kind::ClientSetup => {
                let sub = r.bytes().unwrap().to_vec();
                let mut setup = r.bytes().unwrap().to_vec();
                let (a, b) = setup.split_at_mut(32);
                a.swap_with_slice(&mut b[..32]);
                let mut w = Writer::new();
                w.bytes(&sub).bytes(&setup);
                w.finish()
            }
            Kind::SetupInventory => {
                let mut setup = r.bytes().unwrap().to_vec();
                let rest = r.byte_list().unwrap();
                let (a, b) = setup.split_at_mut(32);
                a.swap_with_slice(&mut b[..32]);
                let mut w = Writer::new();
                w.bytes(&setup);
                verdict_proto::wire::write_byte_list(&mut w, &rest);
                w.finish()
            }
            _ => return Some(bytes),
        };
        Some(
            Envelope::seal(
                &key, h.kind, h.sender, h.session, h.round, payload, &mut rng,
            )
            .to_bytes(),
        )
    }));
}

fn setup_failures(sim: &Simulator<Hg>) -> Vec<Vec<Party>> {
    (0..sim.num_servers() as u32)
        .flat_map(|j| {
            sim.events_of(Party::Server(ServerId(j)))
                .filter_map(|e| match e {
                    Event::SetupFailed { culprits, .. } => Some(culprits.clone()),
                    _ => None,
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn setup_dispute_names_a_lying_client() {
    // The tamper hook must be installed before the first messages leave: build paused.
    let mut sim = {
        let mut s = Simulator::<Hg>::new_paused(
            policy(Mode::Verifiable(Verification::Eager)),
            3,
            4,
            net(),
            21,
        )
        .unwrap();
        corrupt_setup(&mut s, Party::Client(ClientId(2)));
        s.start();
        s
    };
    sim.run_rounds(1, Duration::from_secs(60));
    let f = setup_failures(&sim);
    assert_eq!(f.len(), 3, "every server fails set-up: {f:?}");
    for culprits in f {
        assert_eq!(culprits, vec![Party::Client(ClientId(2))]);
    }
}

#[test]
fn setup_dispute_names_a_lying_server() {
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        4,
        net(),
        22,
    )
    .unwrap();
    corrupt_setup(&mut sim, Party::Server(ServerId(1)));
    sim.start();
    sim.run_rounds(1, Duration::from_secs(60));
    // The link tamper makes server 1 inconsistent (its own copy is honest), so the honest
    // servers either settle the dispute or catch it equivocating / stalling: every outcome
    // must name server 1 and nobody else.
    let mut named = setup_failures(&sim);
    named.extend(halts(&sim).into_iter().map(|(s, _)| vec![Party::Server(s)]));
    assert!(!named.is_empty());
    for culprits in named {
        assert_eq!(culprits, vec![Party::Server(ServerId(1))]);
    }
}

// ---------------------------------------------------------------- optimistic aggregation
//
// Under eager verification with an aggregating suite each server verifies only its own
// clients and forwards the sum of their ciphertexts; the others use that sum until a slot
// fails to reveal. These tests are the server misbehaviours that arrangement allows, each of
// which must name the server (and nobody honest), and the double counting it must survive.

/// Every halt names `culprit`, and some server reported `expected`.
fn only_culprit_halted(
    sim: &Simulator<Hg>,
    culprit: ServerId,
    expected: impl Fn(&ServerFault) -> bool,
) {
    let h = halts(sim);
    assert!(!h.is_empty(), "nobody halted");
    for (server, fault) in &h {
        assert_eq!(*server, culprit, "{fault:?}");
    }
    assert!(h.iter().any(|(_, f)| expected(f)), "{h:?}");
}

#[test]
fn unchecking_upstream_server_is_named_when_its_client_cheats() {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        6,
        net(),
        21,
    )
    .unwrap();
    // Client 4's upstream server is 4 mod 3 = 1; it forwards the bad proof unverified.
    sim.add_adversary(Adversary::UncheckingServer {
        server: ServerId(1),
    });
    sim.add_adversary(Adversary::BadProofClient {
        client: ClientId(4),
        round: 1,
    });
    sim.run_rounds(3, Duration::from_secs(60));
    only_culprit_halted(
        &sim,
        ServerId(1),
        |f| matches!(f, ServerFault::UncheckedSubmission { round: 1, client } if *client == ClientId(4)),
    );
}

#[test]
fn unchecking_server_with_honest_clients_goes_unnoticed() {
    // Skipping the checks only matters when a client cheats: with honest clients the
    // aggregates are right and rounds go on.
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        6,
        net(),
        22,
    )
    .unwrap();
    sim.add_adversary(Adversary::UncheckingServer {
        server: ServerId(2),
    });
    sim.submit(5, b"through an unchecking server".to_vec())
        .unwrap();
    sim.run_rounds(3, Duration::from_secs(60));
    assert!(halts(&sim).is_empty());
    assert!(
        delivered(&sim, Party::Client(ClientId(0)))
            .contains(&b"through an unchecking server".to_vec())
    );
}

#[test]
fn wrong_aggregate_is_named() {
    for mode in [
        Mode::Verifiable(Verification::Eager),
        Mode::Verifiable(Verification::Lazy),
    ] {
        let policy = Policy {
            default_len: 128,
            ..policy(mode)
        };
        let mut sim = Simulator::<Hg>::new(policy, 3, 6, net(), 23).unwrap();
        sim.add_adversary(Adversary::WrongAggregateServer {
            server: ServerId(2),
            round: 1,
        });
        sim.submit(0, b"m0".to_vec()).unwrap();
        sim.run_rounds(3, Duration::from_secs(60));
        only_culprit_halted(&sim, ServerId(2), |f| {
            matches!(f, ServerFault::WrongAggregate { round: 1, .. })
        });
        // No client was blamed for it.
        for j in 0..3 {
            assert!(excluded(&sim, j).is_empty(), "{mode:?}");
        }
    }
}

#[test]
fn false_rejection_is_named() {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        6,
        net(),
        24,
    )
    .unwrap();
    sim.add_adversary(Adversary::FalselyRejectingServer {
        server: ServerId(0),
        round: 1,
    });
    sim.run_rounds(3, Duration::from_secs(60));
    // Server 0's first client is client 0, whose submission is valid.
    only_culprit_halted(
        &sim,
        ServerId(0),
        |f| matches!(f, ServerFault::FalseRejection { round: 1, client } if *client == ClientId(0)),
    );
    for j in 1..3 {
        assert!(excluded(&sim, j).is_empty());
    }
}

/// Rewrites server `server`'s round-`round` inventory so that it also lists client
/// `capture_from`'s round-`round` submission (captured into `extra`), re-signed by the server.
fn list_in_inventory(
    sim: &mut Simulator<Hg>,
    server: ServerId,
    round: u64,
    extra: std::rc::Rc<std::cell::RefCell<Option<Vec<u8>>>>,
    capture_from: ClientId,
) {
    use verdict_proto::wire::{Envelope, Kind, Reader, Writer, write_byte_list};
    let key = sim.signing_key(Party::Server(server)).unwrap().clone();
    let session = sim.server(0).unwrap().session().0;
    let mut rng =
        <rand_chacha::ChaCha20Rng as rand_chacha::rand_core::SeedableRng>::seed_from_u64(5);
    sim.set_tamper(Box::new(move |from, _to, bytes| {
        let Ok(env) = Envelope::<Ristretto255>::from_bytes(&bytes) else {
            return Some(bytes);
        };
        let h = env.header();
        if from == Party::Client(capture_from) && h.kind == Kind::Submission && h.round == round {
            let mut slot = extra.borrow_mut();
            if slot.is_none() {
                *slot = Some(bytes.clone());
            }
        }
        if from == Party::Server(server) && h.kind == Kind::Inventory && h.round == round {
            let Some(listed) = extra.borrow().clone() else {
                return Some(bytes);
            };
            let mut r = Reader::new(&env.payload);
            let (mut accepted, rejected, aggregates) = (
                r.byte_list().unwrap(),
                r.byte_list().unwrap(),
                r.byte_list().unwrap(),
            );
            accepted.push(listed);
            let mut w = Writer::new();
            for list in [&accepted, &rejected, &aggregates] {
                write_byte_list(&mut w, list);
            }
            let payload = w.finish();
            return Some(
                Envelope::seal(&key, h.kind, h.sender, session, round, payload, &mut rng)
                    .to_bytes(),
            );
        }
        Some(bytes)
    }));
}

/// Server 1 also lists client 0's genuine round-1 submission, which server 0 (its upstream)
/// lists too: it counts once, and client 3's message comes out. In hybrid mode this makes
/// server 1's XOR sums be summed again from its share of `S` (each inventory's XOR
/// ciphertexts are summed as it is parsed, and client 0 is in two).
fn listed_by_two_servers(mode: Mode, seed: u64) {
    let mut sim =
        Simulator::<Hg>::new_paused(policy(mode), 2, 4, Network::default(), seed).unwrap();
    let captured = std::rc::Rc::new(std::cell::RefCell::new(None));
    list_in_inventory(&mut sim, ServerId(1), 1, captured.clone(), ClientId(0));
    sim.start();
    sim.submit(3, b"counted once".to_vec()).unwrap();
    sim.run_rounds(3, Duration::from_secs(60));
    assert!(captured.borrow().is_some());
    assert!(halts(&sim).is_empty(), "{:?}", halts(&sim));
    assert_eq!(accusations(&sim), 0);
    for j in 0..2 {
        assert!(excluded(&sim, j).is_empty(), "server {j}");
    }
    assert!(delivered(&sim, Party::Client(ClientId(1))).contains(&b"counted once".to_vec()));
}

#[test]
fn a_submission_listed_by_two_servers_counts_once() {
    listed_by_two_servers(Mode::Verifiable(Verification::Eager), 25);
}

#[test]
fn a_submission_listed_by_two_servers_counts_once_in_xor_slots() {
    listed_by_two_servers(Mode::Hybrid(Verification::Eager), 25);
    listed_by_two_servers(Mode::Hybrid(Verification::Lazy), 28);
}

/// Client 0 (upstream server 0) signs a second round-1 submission, which server 2, colluding
/// with it, lists as its own client's: client 0 is excluded and client 4's message comes out.
/// The second version's XOR ciphertexts are well-formed junk: in hybrid mode both servers'
/// XOR sums counted client 0, so both are summed again without it.
fn two_signed_versions(mode: Mode, seed: u64) {
    use verdict_proto::SlotKind;
    use verdict_proto::wire::{Envelope, Kind, Writer, write_byte_list};
    let mut sim = Simulator::<Hg>::new(policy(mode), 3, 6, net(), seed).unwrap();
    sim.run_rounds(1, Duration::from_secs(60));
    let c0 = Party::Client(ClientId(0));
    let key = sim.signing_key(c0).unwrap().clone();
    let session = sim.server(0).unwrap().session().0;
    let cts: Vec<Vec<u8>> = sim
        .server(0)
        .unwrap()
        .open_slots()
        .iter()
        .map(|o| match o.kind {
            SlotKind::Xor => vec![0x5A; verdict_dcnet::Xor::<Ristretto255>::frame_len(o.len)],
            _ => Vec::new(),
        })
        .collect();
    let mut w = Writer::new();
    write_byte_list(&mut w, &cts);
    let mut rng =
        <rand_chacha::ChaCha20Rng as rand_chacha::rand_core::SeedableRng>::seed_from_u64(9);
    let second = Envelope::seal(&key, Kind::Submission, c0, session, 1, w.finish(), &mut rng);
    sim.server_mut(2).unwrap().also_list(second.to_bytes());
    sim.submit(4, b"despite the double".to_vec()).unwrap();
    sim.run_rounds(4, Duration::from_secs(60));
    assert!(halts(&sim).is_empty(), "{:?}", halts(&sim));
    // No slot came out garbled (a slot's owner would have accused).
    assert_eq!(accusations(&sim), 0);
    for j in 0..3 {
        assert_eq!(
            excluded(&sim, j),
            vec![(ClientId(0), ExclusionReason::DoubleSubmission { round: 1 })]
        );
    }
    assert!(delivered(&sim, Party::Client(ClientId(1))).contains(&b"despite the double".to_vec()));
}

#[test]
fn two_signed_versions_of_a_submission_exclude_the_client() {
    two_signed_versions(Mode::Verifiable(Verification::Eager), 26);
}

#[test]
fn two_signed_versions_leave_the_xor_slots_intact() {
    two_signed_versions(Mode::Hybrid(Verification::Eager), 26);
    two_signed_versions(Mode::Hybrid(Verification::Lazy), 29);
}

#[test]
fn invalid_server_ciphertext_is_named_with_its_slot() {
    use verdict_proto::wire::{Kind, Reader, Writer, write_byte_list};
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        4,
        Network::default(),
        27,
    )
    .unwrap();
    // Server 1 sends, to everyone, round-1 ciphertexts whose third slot carries another
    // slot's ciphertext: well-formed, validly signed, but the proof is for the wrong slot.
    common::rewrite_server_step(
        &mut sim,
        ServerId(1),
        Kind::ServerCiphertexts,
        1,
        |payload| {
            let mut list = Reader::new(payload).byte_list().unwrap();
            list[2] = list[0].clone();
            let mut w = Writer::new();
            write_byte_list(&mut w, &list);
            w.finish()
        },
    );
    sim.start();
    sim.run_rounds(3, Duration::from_secs(60));
    let h = halts(&sim);
    for (server, fault) in &h {
        assert_eq!(*server, ServerId(1), "{fault:?}");
    }
    // The two honest servers name the slot (slots are numbered from 0, all 4 open).
    for j in [0, 2] {
        assert!(
            sim.events_of(Party::Server(ServerId(j))).any(|e| matches!(
                e,
                Event::Halted {
                    fault: ServerFault::InvalidCiphertext { round: 1, slot: 2 },
                    ..
                }
            )),
            "server {j}: {h:?}"
        );
    }
}
