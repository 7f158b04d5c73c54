//! Property tests over random group sizes, suites, modes and adversary placements: every
//! honest message is delivered, every disruptor is excluded within a bounded number of rounds,
//! no honest member is ever blamed, and churn does not stop rounds.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;
use std::collections::BTreeSet;

use proptest::prelude::*;
use verdict_dcnet::HashingGenerator;
use verdict_dcnet::elgamal::ElGamal;
use verdict_group::{P256, Ristretto255};
use verdict_proto::sim::{Adversary, Network, Simulator};
use verdict_proto::{
    ClientId, Event, Mode, Party, Policy, ProtoSuite, ServerId, Verification, WindowPolicy,
};

#[derive(Clone, Copy, Debug)]
enum Attack {
    None,
    Disrupt,
    Replay,
    Silent,
}

fn policy(mode: Mode) -> Policy {
    Policy {
        mode,
        default_len: 96,
        window: WindowPolicy::timeout(Duration::from_secs(2)),
        rebuttal_timeout: Duration::from_secs(1),
        server_timeout: Duration::from_secs(30),
        ..Policy::default()
    }
}

/// Runs a session with one adversary (or none) and checks the properties.
fn check<S: ProtoSuite>(m: usize, n: usize, mode: Mode, attack: Attack, bad: u32, seed: u64) {
    // Jitter from the seed: every case sees a different interleaving of messages.
    let net = Network {
        jitter: Duration::from_millis(seed % 40),
        ..Network::default()
    };
    let mut sim = Simulator::<S>::new(policy(mode), m, n, net, seed).unwrap();
    let bad = ClientId(bad % n as u32);
    let adversary = match (attack, mode) {
        (Attack::None, _) => None,
        (Attack::Disrupt, Mode::Hybrid(_)) => Some(Adversary::JammingClient {
            client: bad,
            from_round: 1,
        }),
        (Attack::Disrupt, Mode::Verifiable(_)) => Some(Adversary::BadProofClient {
            client: bad,
            round: 1,
        }),
        (Attack::Replay, _) => Some(Adversary::ReplayingClient {
            client: bad,
            round: 1,
        }),
        (Attack::Silent, _) => Some(Adversary::SilentClient {
            client: bad,
            from_round: 1,
        }),
    };
    if let Some(a) = adversary {
        sim.add_adversary(a);
    }
    let honest: Vec<usize> = (0..n)
        .filter(|i| adversary.is_none() || *i != bad.0 as usize)
        .collect();
    for &i in &honest {
        sim.submit(i, format!("first from {i}").into_bytes())
            .unwrap();
    }
    sim.run_rounds(1, Duration::from_secs(600));
    for &i in &honest {
        sim.submit(i, format!("second from {i}").into_bytes())
            .unwrap();
    }
    sim.run_rounds(9, Duration::from_secs(600));

    for j in 0..m as u32 {
        let server = Party::Server(ServerId(j));
        let events: Vec<&Event> = sim.events_of(server).collect();
        let halts: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                Event::Halted { server, fault, .. } => Some((server, fault)),
                _ => None,
            })
            .collect();
        assert!(halts.is_empty(), "no server fault was injected: {halts:?}");
        let rounds = events
            .iter()
            .filter(|e| matches!(e, Event::RoundComplete { .. }))
            .count();
        assert!(rounds >= 9, "server {j} completed only {rounds} rounds");
        // No honest member is ever blamed.
        let excluded: BTreeSet<ClientId> = events
            .iter()
            .filter_map(|e| match e {
                Event::Excluded { client, .. } => Some(*client),
                _ => None,
            })
            .collect();
        let expected: BTreeSet<ClientId> = match attack {
            Attack::Disrupt | Attack::Replay => [bad].into(),
            Attack::None | Attack::Silent => BTreeSet::new(),
        };
        assert_eq!(excluded, expected, "server {j}");
        // Every honest message is delivered.
        let delivered: BTreeSet<Vec<u8>> = events
            .iter()
            .filter_map(|e| match e {
                Event::Delivered { message, .. } => Some(message.clone()),
                _ => None,
            })
            .collect();
        for &i in &honest {
            for which in ["first", "second"] {
                let msg = format!("{which} from {i}").into_bytes();
                assert!(
                    delivered.contains(&msg),
                    "server {j}: {which} from {i} missing"
                );
            }
        }
    }
}

fn mode(i: u8) -> Mode {
    match i % 3 {
        0 => Mode::Verifiable(Verification::Eager),
        1 => Mode::Verifiable(Verification::Lazy),
        _ => Mode::Hybrid(Verification::Eager),
    }
}

fn attack(i: u8) -> Attack {
    match i % 4 {
        0 => Attack::None,
        1 => Attack::Disrupt,
        2 => Attack::Replay,
        _ => Attack::Silent,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn hashing_generator_sessions(
        m in 1usize..=5,
        n in 2usize..=12,
        mode_i in 0u8..3,
        attack_i in 0u8..4,
        bad in any::<u32>(),
        seed in any::<u64>(),
    ) {
        check::<HashingGenerator<Ristretto255>>(m, n, mode(mode_i), attack(attack_i), bad, seed);
    }

    #[test]
    fn elgamal_sessions(
        m in 1usize..=3,
        n in 2usize..=6,
        attack_i in 0u8..4,
        bad in any::<u32>(),
        seed in any::<u64>(),
    ) {
        // ElGamal is verified eagerly only.
        check::<ElGamal<Ristretto255>>(m, n, Mode::Verifiable(Verification::Eager), attack(attack_i), bad, seed);
    }
}

/// A misbehaving server of the per-server aggregation (see `adversaries.rs`).
#[derive(Clone, Copy, Debug)]
enum ServerAttack {
    WrongAggregate,
    FalseRejection,
    /// Forwards a bad-proof client unverified (eager only).
    Unchecking,
}

/// Runs a session in which server `culprit` misbehaves in round 1 and checks that the session
/// halts naming it — and only it — and that no client is blamed for it.
fn check_server_fault(
    m: usize,
    n: usize,
    lazy: bool,
    attack: ServerAttack,
    culprit: u32,
    seed: u64,
) {
    let mode = Mode::Verifiable(if lazy {
        Verification::Lazy
    } else {
        Verification::Eager
    });
    let net = Network {
        jitter: Duration::from_millis(seed % 40),
        ..Network::default()
    };
    let policy = Policy {
        default_len: 128,
        ..policy(mode)
    };
    let mut sim =
        Simulator::<HashingGenerator<Ristretto255>>::new(policy, m, n, net, seed).unwrap();
    let server = ServerId(culprit % m as u32);
    // The culprit's first client (clients are assigned to servers round-robin).
    let its_client = ClientId(server.0);
    match attack {
        ServerAttack::WrongAggregate => {
            sim.add_adversary(Adversary::WrongAggregateServer { server, round: 1 })
        }
        ServerAttack::FalseRejection => {
            sim.add_adversary(Adversary::FalselyRejectingServer { server, round: 1 })
        }
        ServerAttack::Unchecking => {
            sim.add_adversary(Adversary::UncheckingServer { server });
            sim.add_adversary(Adversary::BadProofClient {
                client: its_client,
                round: 1,
            });
        }
    }
    sim.run_rounds(3, Duration::from_secs(600));
    let mut named = false;
    for j in 0..m as u32 {
        for e in sim.events_of(Party::Server(ServerId(j))) {
            match e {
                Event::Halted {
                    server: s, fault, ..
                } => {
                    assert_eq!(*s, server, "an honest server was named: {fault:?}");
                    named |= matches!(
                        (attack, fault),
                        (
                            ServerAttack::WrongAggregate,
                            verdict_proto::ServerFault::WrongAggregate { round: 1, .. }
                        ) | (
                            ServerAttack::FalseRejection,
                            verdict_proto::ServerFault::FalseRejection { round: 1, .. }
                        ) | (
                            ServerAttack::Unchecking,
                            verdict_proto::ServerFault::UncheckedSubmission { round: 1, .. }
                        )
                    );
                }
                Event::Excluded { client, .. } => {
                    assert!(
                        matches!(attack, ServerAttack::Unchecking) && *client == its_client,
                        "client {client:?} was blamed for a server's fault"
                    );
                }
                _ => {}
            }
        }
    }
    assert!(named, "no server named {server:?} for {attack:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn aggregation_faults_name_only_the_server(
        m in 2usize..=5,
        extra in 0usize..=5,
        lazy in any::<bool>(),
        attack_i in 0u8..3,
        culprit in any::<u32>(),
        seed in any::<u64>(),
    ) {
        let attack = match attack_i {
            0 => ServerAttack::WrongAggregate,
            1 => ServerAttack::FalseRejection,
            _ => ServerAttack::Unchecking,
        };
        // Skipping checks is a fault only where checks are due (eager).
        let lazy = lazy && !matches!(attack, ServerAttack::Unchecking);
        check_server_fault(m, m + extra, lazy, attack, culprit, seed);
    }
}

#[test]
fn fifty_clients_five_servers_hybrid_with_a_jammer() {
    check::<HashingGenerator<Ristretto255>>(
        5,
        50,
        Mode::Hybrid(Verification::Eager),
        Attack::Disrupt,
        17,
        99,
    );
}

#[test]
fn p256_hashing_generator_session() {
    check::<HashingGenerator<P256>>(
        2,
        4,
        Mode::Verifiable(Verification::Eager),
        Attack::Disrupt,
        1,
        5,
    );
}
