//! A server's own clients' submissions: their signatures checked in one batch before the
//! window may close, and no forgery able to keep a real submission out or to close a window.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use verdict_dcnet::{ClientId, HashingGenerator, Party, ServerId};
use verdict_group::Ristretto255;
use verdict_nizk::SigningKey;

use super::ServerPhase;
use crate::config::signature_checks;
use crate::error::{MessageError, WireError};
use crate::event::Event;
use crate::policy::{Mode, Policy, Verification, WindowPolicy};
use crate::sim::{Adversary, Network, Simulator};
use crate::wire::{Envelope, Kind, Writer, write_byte_list};

type Hg = HashingGenerator<Ristretto255>;

fn policy() -> Policy {
    Policy {
        mode: Mode::Verifiable(Verification::Eager),
        default_len: 128,
        window: WindowPolicy::all(),
        server_timeout: Duration::from_secs(20),
        ..Policy::default()
    }
}

fn sim(seed: u64) -> Simulator<Hg> {
    let net = Network {
        latency: Duration::from_millis(10),
        ..Network::default()
    };
    Simulator::<Hg>::new_paused(policy(), 2, 6, net, seed).unwrap()
}

/// Steps until `done` holds or `limit` of simulated time has passed; whether it holds.
fn step_until(
    sim: &mut Simulator<Hg>,
    limit: Duration,
    done: impl Fn(&Simulator<Hg>) -> bool,
) -> bool {
    while !done(sim) && sim.now() < limit {
        if !sim.step() {
            break;
        }
    }
    done(sim)
}

/// Steps until server 0 collects round `round`.
fn to_window(sim: &mut Simulator<Hg>, round: u64) {
    assert!(step_until(sim, Duration::from_secs(60), |sim| {
        let s = sim.server(0).unwrap();
        s.round() == round && s.phase() == ServerPhase::AwaitingSubmissions
    }));
}

/// A submission claiming to be client `c`'s for `round`, signed with a key that is not its.
fn forged(sim: &Simulator<Hg>, c: u32, round: u64) -> Vec<u8> {
    let mut rng = ChaCha20Rng::seed_from_u64(99);
    let key = SigningKey::<Ristretto255>::generate(&mut rng);
    let open = sim.server(0).unwrap().open_slots().len();
    let mut w = Writer::new();
    write_byte_list(&mut w, &vec![vec![0u8; 8]; open]);
    let session = sim.server(0).unwrap().session().0;
    let env = Envelope::seal(
        &key,
        Kind::Submission,
        Party::Client(ClientId(c)),
        session,
        round,
        w.finish(),
        &mut rng,
    );
    env.to_bytes()
}

fn participants(sim: &Simulator<Hg>, round: u64) -> Option<u32> {
    sim.events_of(Party::Server(ServerId(0)))
        .find_map(|e| match e {
            Event::RoundComplete {
                round: r,
                participants,
            } if *r == round => Some(*participants),
            _ => None,
        })
}

fn bad_signatures(sim: &Simulator<Hg>, c: u32) -> usize {
    sim.events_of(Party::Server(ServerId(0)))
        .filter(|e| {
            matches!(e, Event::Rejected(MessageError::Malformed {
                from: Party::Client(ClientId(x)),
                source: WireError::BadSignature,
            }) if *x == c)
        })
        .count()
}

// The signature counters are per thread: the simulation runs on a one-thread pool so that
// every check (a batch of arrivals is opened in parallel with `parallel`) is counted here.
#[test]
fn own_submissions_are_checked_in_one_batch_once_each() {
    verdict_group::par::with_threads(
        1,
        own_submissions_are_checked_in_one_batch_once_each_on_this_thread,
    )
    .unwrap();
}

fn own_submissions_are_checked_in_one_batch_once_each_on_this_thread() {
    let mut sim = sim(31);
    let (before, before_batched) = (signature_checks::checked(), signature_checks::batched());
    sim.start();
    assert!(step_until(&mut sim, Duration::from_secs(60), |sim| {
        participants(sim, 3).is_some()
    }));
    let batched = signature_checks::batched() - before_batched;
    // Six clients' submissions in each of rounds 0..=3, each checked in its server's batch
    // (round 4's may have started to arrive).
    assert!(
        (24..=30).contains(&batched),
        "{batched} submissions batched"
    );
    // Still one check per message delivered, batched or not.
    assert_eq!(
        signature_checks::checked() - before,
        sim.messages_delivered()
    );
    assert!(sim.halts().is_empty());
}

#[test]
fn a_forged_first_submission_does_not_keep_the_real_one_out() {
    let mut sim = sim(32);
    sim.start();
    to_window(&mut sim, 2);
    // Client 0's upstream is server 0; the forgery arrives before the real submission.
    let bytes = forged(&sim, 0, 2);
    sim.inject(
        Party::Client(ClientId(0)),
        Party::Server(ServerId(0)),
        bytes,
    );
    assert!(step_until(&mut sim, Duration::from_secs(60), |sim| {
        participants(sim, 2).is_some()
    }));
    assert_eq!(participants(&sim, 2), Some(6), "client 0 was left out");
    assert_eq!(bad_signatures(&sim, 0), 1);
    assert!(sim.halts().is_empty());
}

#[test]
fn a_forgery_for_a_silent_client_does_not_close_an_all_clients_window() {
    let mut sim = sim(33);
    sim.add_adversary(Adversary::SilentClient {
        client: ClientId(4),
        from_round: 2,
    });
    sim.start();
    to_window(&mut sim, 2);
    let bytes = forged(&sim, 4, 2);
    sim.inject(
        Party::Client(ClientId(4)),
        Party::Server(ServerId(0)),
        bytes,
    );
    let limit = sim.now() + Duration::from_secs(5);
    // Counted unchecked, the forgery would make every client in and close the window.
    assert!(!step_until(&mut sim, limit, |sim| sim
        .server(0)
        .unwrap()
        .round()
        > 2));
    assert_eq!(
        sim.server(0).unwrap().phase(),
        ServerPhase::AwaitingSubmissions
    );
    assert_eq!(bad_signatures(&sim, 4), 1);
    assert_eq!(participants(&sim, 2), None);
}
