//! Abuse of the upstream moves (protocol §7.4), found reviewing the change: a catch-up request
//! from any client must not make a window wait (each test below stalled the session before
//! the fix: a request made its sender a waited-for client), and a forged later-round output
//! must not make a client ask anybody for anything.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use core::time::Duration;
use std::cell::RefCell;
use std::rc::Rc;

use rand_core::SeedableRng;
use verdict_dcnet::{ClientId, HashingGenerator, Party, ServerId};
use verdict_group::Ristretto255;
use verdict_proto::sim::Simulator;
use verdict_proto::wire::{Envelope, Kind, payloads};
use verdict_proto::{Mode, RoundResult, Verification, WindowPolicy};

use common::{policy, quiet_net};

type Hg = HashingGenerator<Ristretto255>;

const M: usize = 2;
const N: usize = 6;

fn signed(sim: &Simulator<Hg>, who: Party, kind: Kind, round: u64, payload: Vec<u8>) -> Vec<u8> {
    let key = sim.signing_key(who).unwrap().clone();
    let session = sim.server(0).unwrap().session().0;
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(99);
    Envelope::seal(&key, kind, who, session, round, payload, &mut rng).to_bytes()
}

/// A window policy the library offers (`WindowPolicy::threshold`): close once 80 % of the
/// server's clients are in. Each server has 3 roster clients: all 3 are needed.
fn threshold_session(seed: u64) -> Simulator<Hg> {
    let mut p = policy(Mode::Verifiable(Verification::Eager));
    p.window = WindowPolicy::threshold(800);
    Simulator::<Hg>::new(p, M, N, quiet_net(), seed).unwrap()
}

/// Control: without the attack the session makes progress.
#[test]
fn control_threshold_session_progresses() {
    let mut sim = threshold_session(1);
    sim.run_rounds(6, Duration::from_secs(600));
    assert!(sim.server(0).unwrap().round() >= 6);
}

/// One empty `CatchUp` from a client rostered at server 1 makes it one of server 0's clients
/// for good (it is never in S without contacting server 0 ... it keeps contacting, or it never
/// submits): server 0's threshold window now needs 4 of 4 and stalls the whole session
/// forever. Nobody is named.
#[test]
fn one_catch_up_from_a_foreign_client_does_not_stall_rounds() {
    let mut sim = threshold_session(1);
    sim.run_rounds(2, Duration::from_secs(600));
    let at = sim.server(0).unwrap().round();
    // A client of server 1 (not of server 0).
    let foreign = (0..N as u32)
        .find(|&i| sim.config().upstream_of(ClientId(i)) == Some(ServerId(1)))
        .unwrap();
    let c = Party::Client(ClientId(foreign));
    let req = signed(&sim, c, Kind::CatchUp, at, Vec::new());
    sim.inject(c, Party::Server(ServerId(0)), req);
    // The foreign client also stops submitting (a crashed / malicious client): it is then in
    // no round's S and never leaves server 0's set.
    sim.run_rounds(at + 6, sim.now() + Duration::from_secs(3_600));
    let after = sim.server(0).unwrap().round();
    // The client keeps submitting to server 1 here, but server 0's set keeps it as long as it
    // contacts server 0 in every round; with a single contact, it leaves at the next
    // certified round where it is in S. Report what happened:
    eprintln!("server 0 round before {at}, after 1 h simulated: {after}");
    assert!(
        after >= at + 6,
        "stalled at round {after} (started at {at})"
    );
}

/// Same, but the foreign client sends its (cheap, unanswered: `from >= current`) `CatchUp`
/// to server 0 in every round while submitting normally to server 1: it stays in server 0's
/// set forever, server 0's window never closes.
#[test]
fn a_foreign_client_asking_every_round_does_not_stall_rounds() {
    let mut sim = threshold_session(1);
    sim.run_rounds(2, Duration::from_secs(600));
    let start = sim.server(0).unwrap().round();
    let foreign = (0..N as u32)
        .find(|&i| sim.config().upstream_of(ClientId(i)) == Some(ServerId(1)))
        .unwrap();
    let c = Party::Client(ClientId(foreign));
    let deadline = sim.now() + Duration::from_secs(3_600);
    let mut last = u64::MAX;
    while sim.now() < deadline {
        let r = sim.server(0).unwrap().round();
        if r >= start + 6 {
            break;
        }
        if r != last {
            let req = signed(&sim, c, Kind::CatchUp, r, Vec::new());
            sim.inject(c, Party::Server(ServerId(0)), req);
            last = r;
        }
        if !sim.step() {
            break;
        }
    }
    let end = sim.server(0).unwrap().round();
    assert!(sim.halts().is_empty());
    assert!(
        end >= start + 6,
        "server 0 stuck at round {end} for 1 h of simulated time (started at {start})"
    );
}

/// A server that is not the client's upstream (or its upstream) sends a *forged* RoundOutput
/// (no server signature at all) claiming a later round: the client answers with a CatchUp
/// before checking a single signature, and addresses it to the sender, not its upstream.
#[test]
fn a_forged_later_output_makes_the_client_ask_nothing() {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        M,
        N,
        quiet_net(),
        3,
    )
    .unwrap();
    sim.run_rounds(2, Duration::from_secs(600));
    let victim = 0usize;
    let vc = Party::Client(ClientId(victim as u32));
    let up = sim.config().upstream_of(ClientId(0)).unwrap();
    let other = ServerId(1 - up.0);
    let awaited = sim.client(victim).unwrap().round();
    let seen: Rc<RefCell<Vec<(Party, u64)>>> = Rc::default();
    let s2 = Rc::clone(&seen);
    sim.set_tamper(Box::new(move |from, to, bytes: Vec<u8>| {
        if from == vc
            && let Ok(e) = Envelope::<Ristretto255>::from_bytes(&bytes)
            && e.header().kind == Kind::CatchUp
        {
            s2.borrow_mut().push((to, e.header().round));
        }
        Some(bytes)
    }));
    let fake = RoundResult {
        round: awaited + 5,
        roster: N as u32,
        accepted: vec![],
        slots: vec![],
        next_lens: vec![],
        excluded: vec![],
    };
    let payload = payloads::RoundOutput::encode::<Vec<u8>>(&fake.to_bytes(), &[]);
    let from = Party::Server(other);
    let msg = signed(&sim, from, Kind::RoundOutput, awaited + 5, payload);
    sim.inject(from, vc, msg);
    // Deliver it.
    let t = sim.now() + Duration::from_millis(50);
    while sim.now() < t && sim.step() {}
    let mut evs: Vec<_> = sim.events_of(vc).cloned().collect();
    let evs = evs.split_off(evs.len().saturating_sub(5));
    eprintln!("victim's last events: {evs:?}");
    let seen = seen.borrow().clone();
    eprintln!("catch-ups sent by the victim: {seen:?} (upstream {up}, forger {other})");
    assert!(
        seen.is_empty(),
        "an unsigned, forged output made the client send {seen:?}"
    );
}
