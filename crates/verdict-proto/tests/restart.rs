//! Restarting a client: a client started from a set-up seed keeps its set-up transcript and a
//! checkpoint per round; after a crash it resumes from them, catches up on what it missed
//! (from its server's memory, or from the server's durable history when it was away longer),
//! and takes part again — without anybody being blamed, itself included.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use core::time::Duration;
use std::cell::RefCell;
use std::rc::Rc;

use rand_core::SeedableRng;
use verdict_dcnet::{ClientId, HashingGenerator, Party, ServerId};
use verdict_group::Ristretto255;
use verdict_proto::sim::Simulator;
use verdict_proto::{
    Checkpoint, Client, Event, MessageError, Mode, ResumeError, SetupSeed, Verification,
};

use common::{nobody_blamed, policy, quiet_net, rounds_completed};

type Hg = HashingGenerator<Ristretto255>;

const M: usize = 2;
const N: usize = 4;
/// The client that crashes.
const OFF: usize = 0;

/// What happens to client `OFF`'s links.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Link {
    Up,
    /// The process is down: nothing reaches it, nothing leaves it.
    Down,
    /// What it sends is lost (it dies before its kernel sends it).
    OutboundLost,
}

/// A session whose client `OFF` is restartable, its links as the returned switch says.
fn session(mode: Mode, seed: u64) -> (Simulator<Hg>, Rc<RefCell<Link>>) {
    let mut sim = Simulator::<Hg>::new_paused(policy(mode), M, N, quiet_net(), seed).unwrap();
    sim.make_restartable(OFF).unwrap();
    let link = Rc::new(RefCell::new(Link::Up));
    let state = Rc::clone(&link);
    let off = Party::Client(ClientId(OFF as u32));
    sim.set_tamper(Box::new(move |from, to, bytes| match *state.borrow() {
        Link::Up => Some(bytes),
        Link::Down => (from != off && to != off).then_some(bytes),
        Link::OutboundLost => (from != off).then_some(bytes),
    }));
    sim.start();
    (sim, link)
}

/// Runs two rounds, takes client `OFF` down for `away` rounds (client 1 posts meanwhile),
/// restarts it from its disk, and runs on; returns the session.
fn crash_and_restart(mode: Mode, seed: u64, away: u64, after: u64) -> Simulator<Hg> {
    let (mut sim, link) = session(mode, seed);
    sim.run_rounds(2, Duration::from_secs(60));
    *link.borrow_mut() = Link::Down;
    sim.submit(1, b"posted while 0 was down".to_vec()).unwrap();
    sim.run_rounds(2 + away, Duration::from_secs(3_600));
    *link.borrow_mut() = Link::Up;
    sim.restart(OFF).unwrap();
    sim.submit(OFF, b"0 is back".to_vec()).unwrap();
    sim.run_rounds(2 + away + after, Duration::from_secs(7_200));
    sim
}

fn resumes(mode: Mode, seed: u64, away: u64) {
    let after = 12;
    let sim = crash_and_restart(mode, seed, away, after);
    nobody_blamed(&sim);
    // Every round completed at the client exactly once and in order, across the crash (the
    // last output may still be on its way when the servers reach the last round).
    let seen = rounds_completed(&sim, OFF);
    assert!(
        seen.len() as u64 >= 2 + away + after - 1,
        "{mode:?}: {seen:?}"
    );
    assert_eq!(
        seen,
        (0..seen.len() as u64).collect::<Vec<u64>>(),
        "{mode:?}"
    );
    let delivered = sim.delivered(Party::Client(ClientId(OFF as u32)));
    assert_eq!(
        delivered
            .iter()
            .filter(|m| *m == b"posted while 0 was down")
            .count(),
        1,
        "{mode:?}: the message of a round it was down for reaches it once"
    );
    for i in 0..N {
        let at = sim.delivered(Party::Client(ClientId(i as u32)));
        assert_eq!(
            at.iter().filter(|m| *m == b"0 is back").count(),
            1,
            "{mode:?}: client {i} gets the restarted client's message once"
        );
    }
}

#[test]
fn a_restarted_client_resumes_and_posts_again_eager() {
    resumes(Mode::Verifiable(Verification::Eager), 11, 3);
}

#[test]
fn a_restarted_client_resumes_and_posts_again_lazy() {
    resumes(Mode::Verifiable(Verification::Lazy), 12, 3);
}

#[test]
fn a_restarted_client_resumes_and_posts_again_hybrid() {
    resumes(Mode::Hybrid(Verification::Lazy), 13, 3);
}

/// Down for longer than its server keeps outputs in memory (64): the server's driver serves
/// the older rounds from its durable history, then the kept and live ones follow in order.
#[test]
fn a_client_down_longer_than_the_server_keeps_is_served_from_the_history() {
    resumes(Mode::Hybrid(Verification::Lazy), 14, 70);
}

/// The client crashes right after building the submission that carries its message, before
/// the round's output; `lost`: before the submission left the process. The restarted client
/// must send exactly those bytes again — the server then holds the message whichever way it
/// went, and sees no second, different submission — and must not accuse the slot it wrote
/// itself (hybrid: blame would trace the "disruption" to it).
fn crash_with_message_in_flight(lost: bool, seed: u64) {
    let (mut sim, link) = session(Mode::Hybrid(Verification::Lazy), seed);
    sim.run_rounds(2, Duration::from_secs(60));
    let r = sim.client(OFF).unwrap().round();
    sim.submit(OFF, b"in flight at the crash".to_vec()).unwrap();
    if lost {
        *link.borrow_mut() = Link::OutboundLost;
    }
    // Until the client has built the next round's submission with the message in it.
    while sim.client(OFF).unwrap().round() == r || sim.client(OFF).unwrap().queued() > 0 {
        assert!(sim.step());
    }
    *link.borrow_mut() = Link::Up;
    sim.restart(OFF).unwrap();
    sim.run_rounds(r + 8, Duration::from_secs(600));
    nobody_blamed(&sim);
    for i in 0..N {
        let at = sim.delivered(Party::Client(ClientId(i as u32)));
        assert_eq!(
            at.iter()
                .filter(|m| *m == b"in flight at the crash")
                .count(),
            1,
            "client {i}"
        );
    }
    let up = sim.config().upstream_of(ClientId(OFF as u32)).unwrap();
    let duplicates = sim
        .events_of(Party::Server(up))
        .filter(|e| matches!(e, Event::Rejected(MessageError::Duplicate { .. })))
        .count();
    assert_eq!(
        duplicates, 0,
        "a second, different submission reached the server"
    );
    for j in 0..M {
        let accusations = sim
            .events_of(Party::Server(ServerId(j as u32)))
            .filter(|e| matches!(e, Event::Accusation(_)))
            .count();
        assert_eq!(accusations, 0, "server {j} saw an accusation");
    }
    assert!(rounds_completed(&sim, OFF).len() as u64 >= r + 7);
}

#[test]
fn a_client_that_crashes_after_sending_its_message_is_not_named() {
    crash_with_message_in_flight(false, 21);
}

#[test]
fn a_client_that_crashes_before_its_message_left_sends_it_on_restart() {
    crash_with_message_in_flight(true, 22);
}

/// What a restart refuses: another seed, a damaged checkpoint or transcript — each a typed
/// error, never a client that would send what the servers do not expect.
#[test]
fn resuming_checks_everything_it_reads_from_disk() {
    let (mut sim, _) = session(Mode::Hybrid(Verification::Lazy), 31);
    sim.run_rounds(3, Duration::from_secs(60));
    let (transcript, checkpoint) = sim.stored(OFF).unwrap();
    let keys = sim
        .secret_keys(Party::Client(ClientId(OFF as u32)))
        .unwrap()
        .clone();
    let config = sim.config().clone();
    let rng = || rand_chacha::ChaCha20Rng::seed_from_u64(7);
    let resume = |seed: &SetupSeed, transcript: &[u8], checkpoint: &Checkpoint| {
        Client::<Hg, _>::resume(
            config.clone(),
            ClientId(OFF as u32),
            keys.clone(),
            seed,
            transcript.to_vec(),
            checkpoint,
            rng(),
        )
    };
    let other_seed = SetupSeed::generate(&mut rng());
    assert_eq!(
        resume(&other_seed, &transcript, &checkpoint).err(),
        Some(ResumeError::SeedMismatch)
    );
    // The checkpoint round-trips; every truncation of it is refused without a panic.
    let bytes = checkpoint.to_bytes();
    assert_eq!(Checkpoint::from_bytes(&bytes), Ok(checkpoint.clone()));
    for cut in 0..bytes.len() {
        assert!(Checkpoint::from_bytes(&bytes[..cut]).is_err(), "{cut}");
    }
    // A flipped byte in the transcript breaks its upstream's signature.
    let mut bad = transcript.to_vec();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    let seed = sim.setup_seed(OFF).unwrap();
    assert!(resume(&seed, &transcript, &checkpoint).is_ok());
    assert!(matches!(
        resume(&seed, &bad, &checkpoint).err(),
        Some(ResumeError::Transcript(_))
    ));
    // A checkpoint whose schedule has another slot count (the schedule state starts right
    // after the tag and round, with its length prefix and then the slot count).
    let tag_len = b"verdict-proto/client-checkpoint/v1".len();
    let mut other = bytes.clone();
    other[tag_len + 8 + 4] ^= 0x40;
    let other = Checkpoint::from_bytes(&other).unwrap();
    assert!(matches!(
        resume(&seed, &transcript, &other).err(),
        Some(ResumeError::Checkpoint(_))
    ));
}

/// A lying server (2) makes honest client 0 the suspect of a jammer's blame; client 0
/// restarts just as blame starts, before the rebuttal request reaches it. Its checkpoint keeps
/// the open slots of the rounds it recently submitted to, so the restarted client still proves
/// the lie: the liar is halted, the suspect stays in.
#[test]
fn a_client_restarted_during_blame_still_rebuts_a_lie() {
    use verdict_proto::sim::Adversary;
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Hybrid(Verification::Eager)),
        3,
        6,
        quiet_net(),
        41,
    )
    .unwrap();
    sim.add_adversary(Adversary::JammingClient {
        client: ClientId(5),
        from_round: 1,
    });
    sim.add_adversary(Adversary::LyingServer {
        server: ServerId(2),
    });
    sim.make_restartable(0).unwrap();
    sim.start();
    let blame_started = |sim: &Simulator<Hg>| {
        (0..3).any(|j| {
            sim.events_of(Party::Server(ServerId(j)))
                .any(|e| matches!(e, Event::Accusation(_)))
        })
    };
    while !blame_started(&sim) {
        assert!(sim.step(), "no blame started");
    }
    sim.restart(0).unwrap();
    sim.run_rounds(8, Duration::from_secs(600));
    let halts: Vec<_> = sim
        .halts()
        .into_iter()
        .filter(|(by, _, _)| by.0 < 2)
        .collect();
    assert!(!halts.is_empty(), "the lying server escaped");
    assert!(
        halts.iter().all(|(_, culprit, _)| *culprit == ServerId(2)),
        "{halts:?}"
    );
    for j in 0..2 {
        let out = sim.exclusions(Party::Server(ServerId(j)));
        assert!(
            out.iter().all(|(c, _)| *c != ClientId(0)),
            "server {j} excluded the restarted honest suspect: {out:?}"
        );
    }
}
