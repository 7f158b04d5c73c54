//! Smoke test: a verifiable session delivers messages.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;

use verdict_dcnet::HashingGenerator;
use verdict_group::Ristretto255;
use verdict_proto::sim::{Network, Simulator};
use verdict_proto::{Event, Mode, Party, Policy, ServerId, Verification};

type Hg = HashingGenerator<Ristretto255>;

#[test]
fn verifiable_eager_round_trip() {
    let policy = Policy {
        mode: Mode::Verifiable(Verification::Eager),
        default_len: 128,
        ..Policy::default()
    };
    let mut sim = Simulator::<Hg>::new(policy, 3, 5, Network::default(), 1).unwrap();
    sim.submit(0, b"hello".to_vec()).unwrap();
    sim.submit(3, b"world".to_vec()).unwrap();
    sim.run_rounds(2, Duration::from_secs(60));
    for (t, p, e) in &sim.events {
        println!("{t:?} {p} {e:?}");
    }
    let delivered: Vec<Vec<u8>> = sim
        .events_of(Party::Server(ServerId(0)))
        .filter_map(|e| match e {
            Event::Delivered { message, .. } => Some(message.clone()),
            _ => None,
        })
        .collect();
    assert!(delivered.contains(&b"hello".to_vec()));
    assert!(delivered.contains(&b"world".to_vec()));
}

#[test]
fn pairing_suite_session() {
    use verdict_dcnet::pairing::Pairing;
    let policy = Policy {
        mode: Mode::Verifiable(Verification::Eager),
        default_len: 140,
        ..Policy::default()
    };
    let mut sim = Simulator::<Pairing>::new(policy, 1, 2, Network::default(), 2).unwrap();
    sim.submit(1, b"pairing".to_vec()).unwrap();
    // Round 1 must start so that round 0's output has reached the clients.
    sim.run_rounds(2, Duration::from_secs(60));
    assert!(
        sim.events_of(Party::Client(verdict_proto::ClientId(0)))
            .any(|e| matches!(e, Event::Delivered { message, .. } if message == b"pairing"))
    );
}

#[test]
fn dissent_window_closes_after_the_fraction_plus_a_multiple() {
    use verdict_proto::sim::Adversary;
    use verdict_proto::{ClientId, WindowPolicy};
    // 4 clients, one silent: 75% arrive at ~10 ms, then wait 100% of that, capped at 5 s.
    let policy = Policy {
        mode: Mode::Verifiable(Verification::Eager),
        default_len: 128,
        window: WindowPolicy::dissent(750, 100, Duration::from_secs(5)),
        ..Policy::default()
    };
    let mut sim = Simulator::<Hg>::new(policy, 1, 4, Network::default(), 4).unwrap();
    sim.add_adversary(Adversary::SilentClient {
        client: ClientId(3),
        from_round: 0,
    });
    let start = sim.now();
    sim.run_rounds(3, Duration::from_secs(60));
    let elapsed = sim.now() - start;
    // Three rounds, each closing far before the 5 s cap.
    assert!(elapsed < Duration::from_secs(1), "{elapsed:?}");
    let participants: Vec<u32> = sim
        .events_of(Party::Server(ServerId(0)))
        .filter_map(|e| match e {
            Event::RoundComplete { participants, .. } => Some(*participants),
            _ => None,
        })
        .collect();
    assert_eq!(participants, vec![3, 3, 3]);
}

#[test]
fn bandwidth_limits_slow_the_simulated_clock() {
    let run = |bandwidth| {
        let policy = Policy {
            default_len: 128,
            ..Policy::default()
        };
        let net = Network {
            latency: Duration::from_millis(5),
            bandwidth,
            ..Network::default()
        };
        let mut sim = Simulator::<Hg>::new(policy, 2, 4, net, 9).unwrap();
        sim.run_rounds(2, Duration::from_secs(600))
    };
    let fast = run(None);
    let slow = run(Some(100_000));
    assert!(slow > fast * 2, "fast {fast:?}, slow {slow:?}");
}

#[test]
fn the_simulator_counts_every_byte_on_both_ends() {
    let policy = Policy {
        mode: Mode::Verifiable(Verification::Eager),
        default_len: 128,
        ..Policy::default()
    };
    let mut sim = Simulator::<Hg>::new(policy, 3, 6, Network::default(), 3).unwrap();
    let servers: Vec<Party> = (0..3).map(|j| Party::Server(ServerId(j))).collect();
    sim.run_rounds(2, Duration::from_secs(60));
    let mut sent = 0u64;
    let mut received = 0u64;
    for (_, t) in sim.traffic.iter() {
        sent += t.sent;
        received += t.received;
    }
    assert!(sent > 0);
    assert_eq!(sent, received, "every byte sent is addressed to someone");
    // Every server both sent and received (submissions, inventories, ciphertexts, outputs).
    for s in &servers {
        let t = sim.traffic.of(*s);
        assert!(
            t.received > 0 && t.sent > 0 && t.messages_sent > 0,
            "{s}: {t:?}"
        );
    }
    let client = sim.traffic.of(Party::Client(verdict_proto::ClientId(0)));
    assert!(
        client.messages_sent >= 2,
        "set-up and at least one submission"
    );
    assert!(client.received > 0);
}
