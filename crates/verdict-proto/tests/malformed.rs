//! Malformed, forged, misdirected and out-of-order messages of every type: each yields a
//! `Rejected` event naming the sender, never a panic, and the session carries on.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;

use proptest::prelude::*;
use verdict_dcnet::HashingGenerator;
use verdict_group::Ristretto255;
use verdict_proto::sim::{Network, Simulator};
use verdict_proto::wire::{Envelope, Kind, Writer, write_byte_list};
use verdict_proto::{
    ClientId, Event, MessageError, Mode, Party, Policy, ServerId, Verification, WireError,
};

type Hg = HashingGenerator<Ristretto255>;

fn sim() -> Simulator<Hg> {
    let policy = Policy {
        mode: Mode::Hybrid(Verification::Eager),
        default_len: 128,
        ..Policy::default()
    };
    let mut sim = Simulator::<Hg>::new(policy, 2, 4, Network::default(), 3).unwrap();
    sim.run_rounds(1, Duration::from_secs(60));
    sim
}

fn rejections(sim: &Simulator<Hg>, who: Party) -> Vec<MessageError> {
    sim.events_of(who)
        .filter_map(|e| match e {
            Event::Rejected(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

fn session(sim: &Simulator<Hg>) -> [u8; 32] {
    sim.server(0).unwrap().session().0
}

fn forge(
    sim: &Simulator<Hg>,
    signer: Party,
    claimed: Party,
    kind: Kind,
    round: u64,
    payload: Vec<u8>,
) -> Vec<u8> {
    let key = sim.signing_key(signer).unwrap().clone();
    let mut rng = rand_chacha::ChaCha20Rng::from_seed([7; 32]);
    Envelope::seal(&key, kind, claimed, session(sim), round, payload, &mut rng).to_bytes()
}

use rand_chacha::rand_core::SeedableRng;

/// The session is still healthy: more rounds complete and nobody is excluded or halted.
fn still_healthy(sim: &mut Simulator<Hg>) {
    let before = sim.server(0).unwrap().round();
    sim.run_rounds(before + 2, Duration::from_secs(600));
    assert!(sim.server(0).unwrap().round() >= before + 2);
    assert!(
        !sim.events
            .iter()
            .any(|(_, _, e)| matches!(e, Event::Halted { .. } | Event::Excluded { .. }))
    );
}

#[test]
fn garbage_and_truncation_are_rejected() {
    let mut sim = sim();
    let c0 = Party::Client(ClientId(0));
    let s0 = Party::Server(ServerId(0));
    sim.inject(c0, s0, vec![0xff; 10]);
    sim.inject(c0, s0, Vec::new());
    let valid = forge(&sim, c0, c0, Kind::Submission, 1, vec![0, 0, 0, 0]);
    sim.inject(c0, s0, valid[..valid.len() - 1].to_vec());
    let mut trailing = valid.clone();
    trailing.push(0);
    sim.inject(c0, s0, trailing);
    sim.step();
    while sim.step() && rejections(&sim, s0).len() < 4 {}
    let r = rejections(&sim, s0);
    assert_eq!(r.len(), 4, "{r:?}");
    assert!(
        r.iter()
            .all(|e| matches!(e, MessageError::Malformed { from, .. } if *from == c0))
    );
    assert!(matches!(
        r[3],
        MessageError::Malformed {
            source: WireError::TrailingBytes,
            ..
        }
    ));
    still_healthy(&mut sim);
}

#[test]
fn forged_sender_wrong_session_and_bad_signature_are_rejected() {
    let mut sim = sim();
    let c0 = Party::Client(ClientId(0));
    let c1 = Party::Client(ClientId(1));
    let s0 = Party::Server(ServerId(0));
    // Signed by client 1 but arriving on client 0's link.
    let spoofed = forge(&sim, c1, c1, Kind::Submission, 1, vec![0, 0, 0, 0]);
    sim.inject(c0, s0, spoofed);
    // Claims to be client 0 but signed with client 1's key.
    let bad_sig = forge(&sim, c1, c0, Kind::Submission, 1, vec![0, 0, 0, 0]);
    sim.inject(c0, s0, bad_sig);
    // Another session.
    let key = sim.signing_key(c0).unwrap().clone();
    let mut rng = rand_chacha::ChaCha20Rng::from_seed([1; 32]);
    let other = Envelope::seal(&key, Kind::Submission, c0, [9; 32], 1, vec![], &mut rng).to_bytes();
    sim.inject(c0, s0, other);
    for _ in 0..50 {
        sim.step();
    }
    let r = rejections(&sim, s0);
    assert!(r.iter().any(|e| matches!(e, MessageError::WrongSender { from, claimed } if *from == c0 && *claimed == c1)), "{r:?}");
    assert!(
        r.iter().any(|e| matches!(
            e,
            MessageError::Malformed {
                source: WireError::BadSignature,
                ..
            }
        )),
        "{r:?}"
    );
    assert!(
        r.iter()
            .any(|e| matches!(e, MessageError::WrongSession { .. })),
        "{r:?}"
    );
    still_healthy(&mut sim);
}

#[test]
fn messages_of_the_wrong_type_or_shape_are_rejected() {
    let mut sim = sim();
    let c0 = Party::Client(ClientId(0));
    let s0 = Party::Server(ServerId(0));
    // A client may not send server-to-server messages.
    for kind in [
        Kind::Inventory,
        Kind::Commit,
        Kind::ServerCiphertexts,
        Kind::OutputSignature,
        Kind::Verdict,
        Kind::BlameBits,
        Kind::Alert,
    ] {
        let m = forge(&sim, c0, c0, kind, 1, vec![]);
        sim.inject(c0, s0, m);
    }
    // A submission with the wrong number of slot ciphertexts.
    let mut w = Writer::new();
    write_byte_list(&mut w, &[vec![0u8; 3]]);
    let m = forge(&sim, c0, c0, Kind::Submission, 1, w.finish());
    sim.inject(c0, s0, m);
    // A stale round.
    let m = forge(&sim, c0, c0, Kind::Submission, 0, vec![0, 0, 0, 0]);
    sim.inject(c0, s0, m);
    for _ in 0..60 {
        sim.step();
    }
    let r = rejections(&sim, s0);
    let unexpected = r
        .iter()
        .filter(|e| matches!(e, MessageError::Unexpected { .. }))
        .count();
    assert!(unexpected >= 8, "{r:?}");
    assert!(
        r.iter().any(|e| matches!(
            e,
            MessageError::Malformed {
                source: WireError::Invalid(_),
                ..
            }
        )),
        "{r:?}"
    );
    still_healthy(&mut sim);
}

#[test]
fn clients_reject_uncertified_or_misdirected_outputs() {
    let mut sim = sim();
    let c0 = Party::Client(ClientId(0));
    let s1 = Party::Server(ServerId(1));
    let s0 = Party::Server(ServerId(0));
    // A round output signed by one server only (client 0's upstream is server 0).
    let mut w = Writer::new();
    w.bytes(&[0u8; 16]);
    write_byte_list(&mut w, &[]);
    let out = forge(&sim, s0, s0, Kind::RoundOutput, 1, w.finish());
    sim.inject(s0, c0, out.clone());
    // The same from a server that is not its upstream.
    let out1 = forge(&sim, s1, s1, Kind::RoundOutput, 1, vec![]);
    sim.inject(s1, c0, out1);
    // A rebuttal request for someone else.
    let out2 = forge(&sim, s1, s1, Kind::RebuttalRequest, 1, vec![1, 2, 3]);
    sim.inject(s1, c0, out2);
    for _ in 0..30 {
        sim.step();
    }
    let r = rejections(&sim, c0);
    assert!(r.len() >= 3, "{r:?}");
    still_healthy(&mut sim);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random bytes and random single-byte corruptions of real traffic, in both directions,
    /// never panic; a corrupted envelope is always rejected.
    #[test]
    fn fuzzed_messages_never_panic(garbage in proptest::collection::vec(any::<u8>(), 0..300), pos in any::<usize>(), flip in 1u8..=255) {
        let mut sim = sim();
        let c2 = Party::Client(ClientId(2));
        let s0 = Party::Server(ServerId(0));
        let s1 = Party::Server(ServerId(1));
        sim.inject(c2, s0, garbage.clone());
        sim.inject(s1, s0, garbage.clone());
        sim.inject(s0, c2, garbage);
        // Corrupt one byte of a valid, current-round submission of client 2.
        let round = sim.server(0).unwrap().round();
        let mut m = forge(&sim, c2, c2, Kind::Submission, round, vec![0, 0, 0, 0]);
        let i = pos % m.len();
        m[i] ^= flip;
        sim.inject(c2, s0, m);
        for _ in 0..40 {
            sim.step();
        }
        let halted = sim.events.iter().any(|(_, _, e)| matches!(e, Event::Halted { .. }));
        prop_assert!(!halted, "a bad message from a client halted the session");
    }
}
