//! A suspect's rebuttal at a server (blame step 3): only a signed "no objection" to exactly the
//! claims the server holds is evidence for its verdict, and once every suspect has given one
//! the server decides at once instead of waiting for the rebuttal deadline.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;
use std::sync::{Arc, Mutex};

use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::SeedableRng;
use verdict_dcnet::{HashingGenerator, Roster, SlotRound, Xor};
use verdict_group::Ristretto255;
use verdict_proto::blame::{BlameBits, Rebuttal, RebuttalRequest};
use verdict_proto::sim::Simulator;
use verdict_proto::wire::{Envelope, Kind};
use verdict_proto::{ClientId, Event, KeyUse, Mode, Party, Policy, ServerId, Verification};

use crate::common;
use common::{jammed_hybrid, only_jammer_excluded, policy};

type G = Ristretto255;
type Hg = HashingGenerator<G>;

const SERVERS: usize = 3;
const CLIENTS: usize = 6;
/// The jammer, and so the suspect of every blame.
const JAMMER: ClientId = ClientId(5);

/// The first message of `kind` that `from` sends (to `to`, if given), once sent.
type Captured = Arc<Mutex<Option<Vec<u8>>>>;

/// Installs a tamper hook on `sim` that keeps a copy of the first message of `kind` from
/// `from` (to `to`, if given) and delivers every message unchanged.
fn capture_first(sim: &mut Simulator<Hg>, from: Party, to: Option<Party>, kind: Kind) -> Captured {
    let captured: Captured = Arc::default();
    let keep = Arc::clone(&captured);
    sim.set_tamper(Box::new(move |f, t, bytes| {
        if f == from
            && to.is_none_or(|to| to == t)
            && let Ok(env) = Envelope::<G>::from_bytes(&bytes)
            && env.header().kind == kind
        {
            keep.lock().unwrap().get_or_insert_with(|| bytes.clone());
        }
        Some(bytes)
    }));
    captured
}

/// A jammed session whose tamper hook reports server 0's first rebuttal request to the jammer.
fn watched_session(policy: Policy, seed: u64) -> (Simulator<Hg>, Captured) {
    let mut sim = jammed_hybrid::<Hg>(policy, SERVERS, CLIENTS, JAMMER, seed);
    let request = capture_first(
        &mut sim,
        Party::Server(ServerId(0)),
        Some(Party::Client(JAMMER)),
        Kind::RebuttalRequest,
    );
    (sim, request)
}

/// Steps `sim` until the first blame is over, a minute of simulated time passes or the step
/// budget runs out (a server that never decides could keep the simulator busy at one
/// instant), calling `each` after every step.
fn run(sim: &mut Simulator<Hg>, mut each: impl FnMut(&mut Simulator<Hg>)) {
    let mut steps = 0usize;
    while sim.now() < Duration::from_secs(60) && steps < MAX_STEPS && !blame_over(sim) {
        if !sim.step() {
            break;
        }
        steps += 1;
        each(sim);
    }
}

/// Far more steps than a session needs to reach its first verdict.
const MAX_STEPS: usize = 100_000;

/// Some server halted, or every server excluded someone: the first blame is over.
fn blame_over(sim: &Simulator<Hg>) -> bool {
    !sim.halts().is_empty()
        || (0..SERVERS as u32).all(|j| !sim.exclusions(Party::Server(ServerId(j))).is_empty())
}

fn hybrid() -> Policy {
    policy(Mode::Hybrid(Verification::Eager))
}

/// The jammer, asked to rebut, first tells server 0 (alone, ahead of its real answer) that it
/// has no objection to claims nobody made. Were that taken for an answer, server 0's verdict
/// would carry it as evidence, and every other server — which cannot open it as an answer to
/// its claims — would halt naming honest server 0 for a bad verdict.
#[test]
fn a_no_objection_to_other_claims_is_not_evidence() {
    let (mut sim, seen) = watched_session(hybrid(), 91);
    let key = sim.signing_key(Party::Client(JAMMER)).unwrap().clone();
    let mut rng = ChaCha20Rng::seed_from_u64(91);
    let mut injected = false;
    sim.start();
    run(&mut sim, |sim| {
        let request = seen.lock().unwrap().as_ref().map(|bytes| {
            let h = Envelope::<G>::from_bytes(bytes).unwrap().header().clone();
            (h.session, h.round)
        });
        if let (false, Some((session, round))) = (injected, request) {
            let bogus = Rebuttal::NoObjection {
                round,
                digests: vec![[7u8; 32]; SERVERS],
            };
            let env = Envelope::seal(
                &key,
                Kind::Rebuttal,
                Party::Client(JAMMER),
                session,
                round,
                bogus.to_bytes(),
                &mut rng,
            );
            sim.inject(
                Party::Client(JAMMER),
                Party::Server(ServerId(0)),
                env.to_bytes(),
            );
            injected = true;
        }
    });
    assert!(injected, "blame never reached the rebuttal request");
    only_jammer_excluded(&sim, JAMMER);
}

/// With a rebuttal deadline of 10 s, a suspect that answers at once ends the blame at once:
/// every server holds its "no objection" within a few network delays and decides on it, and
/// the verdicts conclude well before the deadline.
#[test]
fn every_suspect_answering_lets_the_servers_decide_before_the_deadline() {
    let deadline = Duration::from_secs(10);
    let policy = Policy {
        rebuttal_timeout: deadline,
        ..hybrid()
    };
    let (mut sim, seen) = watched_session(policy, 92);
    let mut asked_at = None;
    let mut concluded_at = None;
    sim.start();
    run(&mut sim, |sim| {
        if asked_at.is_none() && seen.lock().unwrap().is_some() {
            asked_at = Some(sim.now());
        }
        if concluded_at.is_none()
            && sim
                .events_of(Party::Server(ServerId(0)))
                .any(|e| matches!(e, Event::Verdict { .. }))
        {
            concluded_at = Some(sim.now());
        }
    });
    let asked_at = asked_at.expect("blame never reached the rebuttal request");
    let concluded_at = concluded_at.expect("blame never concluded");
    assert!(
        concluded_at - asked_at < Duration::from_secs(2),
        "asked at {asked_at:?}, concluded at {concluded_at:?}: the servers waited for the \
         {deadline:?} deadline"
    );
    only_jammer_excluded(&sim, JAMMER);
}

/// A suspect that never answers (its rebuttals are all lost) does not stall the group: every
/// server decides at the rebuttal deadline, on no answers, and the suspect is excluded.
#[test]
fn a_suspect_that_never_answers_is_decided_on_at_the_deadline() {
    let deadline = Duration::from_secs(3);
    let policy = Policy {
        rebuttal_timeout: deadline,
        ..hybrid()
    };
    let mut sim = jammed_hybrid::<Hg>(policy, SERVERS, CLIENTS, JAMMER, 93);
    let asked: Arc<Mutex<bool>> = Arc::default();
    {
        let asked = Arc::clone(&asked);
        sim.set_tamper(Box::new(move |from, to, bytes| {
            let kind = Envelope::<G>::from_bytes(&bytes).map(|e| e.header().kind);
            if from == Party::Client(JAMMER) && kind == Ok(Kind::Rebuttal) {
                return None;
            }
            if to == Party::Client(JAMMER) && kind == Ok(Kind::RebuttalRequest) {
                *asked.lock().unwrap() = true;
            }
            Some(bytes)
        }));
    }
    let mut asked_at = None;
    sim.start();
    run(&mut sim, |sim| {
        if asked_at.is_none() && *asked.lock().unwrap() {
            asked_at = Some(sim.now());
        }
    });
    let asked_at = asked_at.expect("blame never reached the rebuttal request");
    only_jammer_excluded(&sim, JAMMER);
    let waited = sim.now() - asked_at;
    assert!(
        waited >= deadline && waited < deadline + Duration::from_secs(2),
        "excluded {waited:?} after the request, with a {deadline:?} deadline"
    );
}

/// A claim signed for another session is no claim about this one. Server 0 (the one whose
/// request the test forges) shows the suspect server 1's real claim with the suspect's bit
/// flipped, signed by server 1 — but for another session. The suspect must not take it for
/// server 1's word (it would prove it false and every server would halt naming honest server
/// 1), and no server may accept a lie proof built on it.
#[test]
fn a_claim_signed_for_another_session_is_not_evidence() {
    let mut sim = jammed_hybrid::<Hg>(hybrid(), SERVERS, CLIENTS, JAMMER, 94);
    let claim = capture_first(&mut sim, Party::Server(ServerId(1)), None, Kind::BlameBits);
    let one = sim.signing_key(Party::Server(ServerId(1))).unwrap().clone();
    let zero = sim.signing_key(Party::Server(ServerId(0))).unwrap().clone();
    let mut rng = ChaCha20Rng::seed_from_u64(94);
    let mut injected = false;
    sim.start();
    run(&mut sim, |sim| {
        let Some(bytes) = claim.lock().unwrap().clone() else {
            return;
        };
        if injected {
            return;
        }
        let env = Envelope::<G>::from_bytes(&bytes).unwrap();
        let h = env.header().clone();
        let payload = Envelope::<G>::payload_of(&bytes).unwrap();
        let mut bits = BlameBits::from_bytes(payload).unwrap();
        let at = bits.clients.iter().position(|c| *c == JAMMER).unwrap();
        bits.traces[0].bits[at] = !bits.traces[0].bits[at];
        let mut other_session = h.session;
        other_session[0] ^= 1;
        let foreign = Envelope::seal(
            &one,
            Kind::BlameBits,
            h.sender,
            other_session,
            h.round,
            bits.to_bytes(),
            &mut rng,
        );
        let request = RebuttalRequest {
            round: h.round,
            suspect: JAMMER,
            bits: vec![foreign.to_bytes()],
        };
        let env = Envelope::seal(
            &zero,
            Kind::RebuttalRequest,
            Party::Server(ServerId(0)),
            h.session,
            h.round,
            request.to_bytes(),
            &mut rng,
        );
        sim.inject(
            Party::Server(ServerId(0)),
            Party::Client(JAMMER),
            env.to_bytes(),
        );
        injected = true;
    });
    assert!(injected, "server 1 never sent its pad bits");
    only_jammer_excluded(&sim, JAMMER);
}

/// A lie proof must reveal the suspect's DH value with the very server whose claim it
/// contests. The jammer, asked to rebut, proves its real DH value with *another* server (it
/// knows its own secret, so that proof is valid) and presents it against each server's claim,
/// about every accused bit, to every server. The pad bit that reveal yields is the other pair's
/// and differs from the honest claim about half the time: taken as evidence, it would get an
/// honest server halted for a lie it never told.
#[test]
fn a_dh_reveal_with_another_server_proves_no_lie() {
    let mut sim = jammed_hybrid::<Hg>(hybrid(), SERVERS, CLIENTS, JAMMER, 95);
    let request = capture_first(
        &mut sim,
        Party::Server(ServerId(0)),
        Some(Party::Client(JAMMER)),
        Kind::RebuttalRequest,
    );
    let config = sim.config().clone();
    let xor_keys = |party: fn(u32) -> Party, n: usize| -> Vec<_> {
        (0..n as u32)
            .map(|i| {
                config
                    .member(party(i))
                    .unwrap()
                    .key(KeyUse::Xor)
                    .unwrap()
                    .clone()
            })
            .collect()
    };
    let roster = Roster::<Xor<G>>::new(
        config.session_id(),
        xor_keys(|j| Party::Server(ServerId(j)), SERVERS),
        xor_keys(|i| Party::Client(ClientId(i)), CLIENTS),
        Vec::new(),
    )
    .unwrap();
    let keys = sim.secret_keys(Party::Client(JAMMER)).unwrap().clone();
    let mut rng = ChaCha20Rng::seed_from_u64(95);
    let mut forged = 0usize;
    let mut injected = false;
    sim.start();
    run(&mut sim, |sim| {
        let Some(bytes) = request.lock().unwrap().clone() else {
            return;
        };
        if injected {
            return;
        }
        injected = true;
        let env = Envelope::<G>::from_bytes(&bytes).unwrap();
        let h = env.header().clone();
        assert_eq!(h.session, roster.session().0);
        let request = RebuttalRequest::from_bytes(&env.payload).unwrap();
        for claim_bytes in &request.bits {
            let claim_env = Envelope::<G>::from_bytes(claim_bytes).unwrap();
            let Party::Server(j) = claim_env.header().sender else {
                panic!("a claim not signed by a server");
            };
            let claim = BlameBits::from_bytes(&claim_env.payload).unwrap();
            for trace in &claim.traces {
                let acc = trace.accusation;
                let (claimed, len) = claim.claim(&acc, JAMMER).unwrap();
                let sr = SlotRound::new(acc.slot, acc.round, len as usize);
                for other in (0..SERVERS as u32).map(ServerId).filter(|o| *o != j) {
                    let reveal = Xor::<G>::pad_bit_reveal_client(
                        &roster,
                        JAMMER,
                        keys.xor(),
                        other,
                        &mut rng,
                    )
                    .unwrap();
                    let truth = Xor::<G>::verify_pad_bit(&roster, &reveal, sr, acc.bit).unwrap();
                    if truth == claimed {
                        continue;
                    }
                    forged += 1;
                    let proof = Rebuttal::LieProof {
                        accusation: acc,
                        bits: claim_bytes.clone(),
                        reveal: reveal.to_bytes(),
                    };
                    let env = Envelope::seal(
                        keys.signing(),
                        Kind::Rebuttal,
                        Party::Client(JAMMER),
                        h.session,
                        h.round,
                        proof.to_bytes(),
                        &mut rng,
                    );
                    for to in 0..SERVERS as u32 {
                        sim.inject(
                            Party::Client(JAMMER),
                            Party::Server(ServerId(to)),
                            env.to_bytes(),
                        );
                    }
                }
            }
        }
    });
    assert!(injected, "the blame never reached the rebuttal request");
    // Were none of the other pairs' bits to differ from a claim, the test would check nothing.
    assert!(
        forged > 0,
        "no reveal with another server contradicts a claim"
    );
    only_jammer_excluded(&sim, JAMMER);
}
