//! A server handed what arrived together in one batch ([`Server::handle_messages`], as the
//! simulator and the node's driver do) behaves exactly as one handed the same messages one at a
//! time: a twin of a simulated server, driven through the recorded inputs message by message,
//! sends the same bytes and reports the same events — also when a batch holds a forged
//! submission, a corrupted one and garbage from a server.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;
use std::sync::Arc;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use verdict_dcnet::{HashingGenerator, Party, ServerId};
use verdict_group::Ristretto255;
use verdict_nizk::SigningKey;

use super::record::Input;
use super::{Network, Simulator};
use crate::error::MessageError;
use crate::event::Event;
use crate::policy::{Mode, Policy, Verification, WindowPolicy};
use crate::server::Server;
use crate::wire::{Envelope, Header, Kind};

type Hg = HashingGenerator<Ristretto255>;

const SERVERS: usize = 3;
const CLIENTS: usize = 8;
const ROUNDS: u64 = 4;

fn paused(mode: Mode, seed: u64) -> Simulator<Hg> {
    let policy = Policy {
        mode,
        default_len: 128,
        window: WindowPolicy::timeout(Duration::from_millis(500)),
        ..Policy::default()
    };
    let net = Network {
        latency: Duration::from_millis(10),
        ..Network::default()
    };
    Simulator::<Hg>::new_paused(policy, SERVERS, CLIENTS, net, seed).unwrap()
}

/// `bytes` (a submission) re-signed under a key that is not its sender's.
fn forged(bytes: &[u8]) -> Vec<u8> {
    let (signed, payload) = Envelope::<Ristretto255>::parse(bytes).unwrap();
    let h = signed.header;
    let mut rng = ChaCha20Rng::seed_from_u64(7);
    let key = SigningKey::<Ristretto255>::generate(&mut rng);
    let env = Envelope::seal(
        &key,
        h.kind,
        h.sender,
        h.session,
        h.round,
        payload.to_vec(),
        &mut rng,
    );
    env.to_bytes()
}

/// Everything `server` has to say now.
fn drain(server: &mut Server<Hg, ChaCha20Rng>, out: &mut Vec<(Party, Arc<[u8]>)>) -> Vec<Event> {
    while let Some(t) = server.poll_transmit() {
        out.push((t.to, t.bytes));
    }
    core::iter::from_fn(|| server.poll_event()).collect()
}

/// Runs `mode` with server 0 recorded, replays its inputs one message at a time into a twin
/// (server 0 of a simulator from the same seed, before it ran), and compares.
fn one_at_a_time_agrees(mode: Mode, seed: u64) {
    let me = Party::Server(ServerId(0));
    let mut sim = paused(mode, seed);
    sim.recorder.who = Some(me);
    // In round 1, the submission of one of server 0's clients arrives forged and another's
    // with a corrupted payload; at set-up, server 1 sends garbage along with its first message.
    let ours = sim.config().clients_of(ServerId(0));
    let (Some(&a), Some(&b)) = (ours.first(), ours.get(1)) else {
        panic!("server 0 serves fewer than two clients");
    };
    sim.set_tamper(Box::new(move |from, to, mut bytes| {
        let round_1 =
            Header::from_prefix(&bytes).is_ok_and(|h| h.kind == Kind::Submission && h.round == 1);
        match from {
            Party::Client(c) if c == a && to == me && round_1 => Some(forged(&bytes)),
            Party::Client(c) if c == b && to == me && round_1 => {
                if let Some(b) = bytes.last_mut() {
                    *b ^= 1;
                }
                Some(bytes)
            }
            _ => Some(bytes),
        }
    }));
    sim.inject(Party::Server(ServerId(1)), me, vec![0xEE; 40]);
    sim.start();
    sim.run_rounds(ROUNDS, Duration::from_secs(120));
    assert!(
        (0..SERVERS).all(|j| sim.server(j).unwrap().round() >= ROUNDS),
        "the group did not get through {ROUNDS} rounds"
    );

    let mut twin_sim = paused(mode, seed);
    let twin = twin_sim.servers.get_mut(0).unwrap();
    let mut transmits = Vec::new();
    let mut events = drain(twin, &mut transmits);
    let (mut together, mut largest) = (0, 0);
    for input in &sim.recorder.inputs {
        match input {
            Input::Timeout(now) => twin.handle_timeout(*now),
            Input::Messages(now, batch) => {
                twin.handle_timeout(*now);
                for (from, bytes) in batch {
                    twin.handle_message(*from, Arc::clone(bytes));
                }
                together += usize::from(batch.len() > 1);
                largest = largest.max(batch.len());
            }
        }
        events.extend(drain(twin, &mut transmits));
    }
    // The comparison means something only if messages did arrive together.
    assert!(
        together > 0 && largest > 2,
        "no batch: {together}, largest {largest}"
    );
    let recorded: Vec<Event> = sim.events_of(me).cloned().collect();
    let refused = |who: Party| {
        recorded.iter().any(
            |e| matches!(e, Event::Rejected(MessageError::Malformed { from, .. }) if *from == who),
        )
    };
    assert!(
        refused(Party::Client(a))
            && refused(Party::Client(b))
            && refused(Party::Server(ServerId(1))),
        "the tampered messages were not all refused"
    );
    assert_eq!(events, recorded);
    assert_eq!(transmits.len(), sim.recorder.transmits.len());
    assert!(
        transmits == sim.recorder.transmits,
        "the transmissions differ"
    );
}

#[test]
fn a_batch_is_handled_as_its_messages_one_at_a_time_verifiable() {
    one_at_a_time_agrees(Mode::Verifiable(Verification::Eager), 1);
}

#[test]
fn a_batch_is_handled_as_its_messages_one_at_a_time_hybrid() {
    one_at_a_time_agrees(Mode::Hybrid(Verification::Lazy), 2);
}
