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
        default_len: 64,
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
