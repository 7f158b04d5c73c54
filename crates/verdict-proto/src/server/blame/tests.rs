//! Which accusations start a blame (`start_blame`, blame step 1): only one of the round just
//! before its carrier, about an XOR slot that came out corrupt with the accused bit 1. Any
//! other — an owner accusing its own clean slot, or a bit that came out 0 — is answered at
//! once with a verdict naming nobody and costs the servers no blame round: were it traced, a
//! client could hold every window open for a blame each round, and an owner accusing a bit
//! of its own message would be its own suspect.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;
use std::sync::{Arc, Mutex};

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

use verdict_dcnet::{ClientId, HashingGenerator, Party, ServerId};
use verdict_group::Ristretto255;

use crate::blame::Verdict;
use crate::error::ServerFault;
use crate::event::Event;
use crate::policy::{Mode, Policy, Verification, WindowPolicy};
use crate::server::state::State;
use crate::server::test_sim::{quiet_net, step_until};
use crate::sim::{Adversary, Simulator};
use crate::slot::{Accusation, SlotKind, SlotOutput, bit_of};
use crate::wire::{Envelope, Kind};

type Hg = HashingGenerator<Ristretto255>;

/// The sessions' rebuttal deadline.
const REBUTTAL_DEADLINE: Duration = Duration::from_secs(10);

/// A paused hybrid session of 3 servers and 5 clients with a 10 s rebuttal deadline (never
/// reached when the suspects answer).
fn session(seed: u64) -> Simulator<Hg> {
    let policy = Policy {
        mode: Mode::Hybrid(Verification::Eager),
        default_len: 128,
        window: WindowPolicy::timeout(Duration::from_secs(2)),
        rebuttal_timeout: REBUTTAL_DEADLINE,
        server_timeout: Duration::from_secs(20),
        ..Policy::default()
    };
    Simulator::<Hg>::new_paused(policy, 3, 5, quiet_net(), seed).unwrap()
}

/// What server 0 does with `accusations`, carried in the output of `carrier`, when no blame
/// runs: whether it starts one, and whether it broadcasts pad bits.
fn start(sim: &mut Simulator<Hg>, accusations: Vec<Accusation>, carrier: u64) -> (bool, bool) {
    let srv = sim.server_mut(0).unwrap();
    while srv.poll_transmit().is_some() {}
    while srv.poll_event().is_some() {}
    let State::Running(run) = &mut srv.state else {
        panic!("server 0 is running");
    };
    assert!(run.blame.is_none(), "a blame is already running");
    assert!(run.start_blame(&mut srv.core, accusations, carrier).is_ok());
    let started = run.blame.is_some();
    let mut bits_sent = false;
    while let Some(t) = srv.poll_transmit() {
        bits_sent |= Envelope::<Ristretto255>::from_bytes(&t.bytes)
            .is_ok_and(|e| e.header().kind == Kind::BlameBits);
    }
    (started, bits_sent)
}

/// Server 0's events since [`start`].
fn events(sim: &mut Simulator<Hg>) -> Vec<Event> {
    let srv = sim.server_mut(0).unwrap();
    core::iter::from_fn(|| srv.poll_event()).collect()
}

/// The archived rounds of server 0 and their XOR slots' outputs, as (round, slot, output).
fn xor_outputs(sim: &Simulator<Hg>) -> Vec<(u64, u32, SlotOutput)> {
    let srv = sim.server(0).unwrap();
    let State::Running(run) = &srv.state else {
        panic!("server 0 is running");
    };
    run.history
        .iter()
        .flat_map(|(r, arch)| {
            arch.open
                .iter()
                .zip(&arch.outputs)
                .filter(|(o, _)| o.kind == SlotKind::Xor)
                .map(|(o, out)| (*r, o.slot, out.clone()))
        })
        .collect()
}

fn unfounded(acc: Accusation) -> Vec<Event> {
    vec![
        Event::Accusation(acc),
        Event::Verdict {
            accusation: acc,
            culprit: None,
        },
    ]
}

#[test]
fn an_accusation_of_a_slot_that_did_not_come_out_corrupt_starts_no_blame() {
    let mut sim = session(31);
    sim.start();
    step_until(&mut sim, |sim| sim.server(0).unwrap().round() >= 4);
    let (round, slot, out) = xor_outputs(&sim)
        .into_iter()
        .max_by_key(|(r, _, _)| *r)
        .expect("an archived XOR slot");
    assert!(!matches!(out, SlotOutput::Corrupt(_)), "nobody jams");
    let acc = Accusation {
        round,
        slot,
        bit: 0,
    };
    assert_eq!(start(&mut sim, vec![acc], round + 1), (false, false));
    assert_eq!(events(&mut sim), unfounded(acc));
}

#[test]
fn only_a_bit_that_came_out_one_in_a_corrupt_slot_of_the_round_before_starts_a_blame() {
    let jammer = ClientId(4);
    let mut sim = session(32);
    sim.add_adversary(Adversary::JammingClient {
        client: jammer,
        from_round: 1,
    });
    sim.start();
    // Once server 0 has excluded the jammer, no blame runs and the jammed rounds are archived.
    step_until(&mut sim, |sim| {
        !sim.exclusions(Party::Server(ServerId(0))).is_empty()
    });
    let (round, slot, raw) = xor_outputs(&sim)
        .into_iter()
        .find_map(|(r, s, out)| match out {
            SlotOutput::Corrupt(raw) if !raw.is_empty() => Some((r, s, raw)),
            _ => None,
        })
        .expect("a jammed slot in the history");
    let bits = (0..raw.len() as u64 * 8).map(|b| (b, bit_of(&raw, b) == Some(true)));
    let (one, zero) = {
        let all: Vec<_> = bits.collect();
        let one = all.iter().find(|(_, set)| *set).unwrap().0;
        let zero = all.iter().find(|(_, set)| !*set).unwrap().0;
        (one, zero)
    };
    let at = |bit| Accusation { round, slot, bit };
    // A bit that came out 0: nobody to trace.
    assert_eq!(start(&mut sim, vec![at(zero)], round + 1), (false, false));
    assert_eq!(events(&mut sim), unfounded(at(zero)));
    // A bit that came out 1, in an output that does not carry the accused round.
    assert_eq!(start(&mut sim, vec![at(one)], round + 2), (false, false));
    // The control: the same accusation, carried by the next round's output, is traced.
    assert_eq!(start(&mut sim, vec![at(one)], round + 1), (true, true));
    assert_eq!(events(&mut sim), vec![Event::Accusation(at(one))]);
}

/// The kinds of the blame messages server `j` holds from its peers for a blame it has not
/// started yet.
fn held_early(sim: &Simulator<Hg>, j: usize) -> Vec<Kind> {
    let State::Running(run) = &sim.server(j).unwrap().state else {
        return Vec::new();
    };
    run.early_blame
        .from_servers
        .values()
        .flatten()
        .map(|m| m.header().kind)
        .collect()
}

/// The jammer of [`late_server_session`].
const JAMMER: ClientId = ClientId(4);

/// A paused session in which client 4 jams from round 3 (so the blame is about a round other
/// than 0 and 1) and server 2 hears server 0 late: it certifies each round after server 1,
/// whose pad bits reach it before it starts the blame.
fn late_server(seed: u64) -> Simulator<Hg> {
    let mut sim = session(seed);
    sim.add_adversary(Adversary::JammingClient {
        client: JAMMER,
        from_round: 3,
    });
    sim.set_link_latency(
        Party::Server(ServerId(0)),
        Party::Server(ServerId(2)),
        Duration::from_millis(300),
    );
    sim
}

/// Runs a [`late_server`] session until every server has excluded someone or one halted;
/// returns what server 2 held early the first time it held anything, and how long after that
/// the run ended.
fn late_server_session(seed: u64) -> (Simulator<Hg>, Vec<Kind>, Duration) {
    let mut sim = late_server(seed);
    sim.start();
    let mut held = Vec::new();
    let mut held_at = Duration::ZERO;
    step_until(&mut sim, |sim| {
        if held.is_empty() {
            held = held_early(sim, 2);
            held_at = sim.now();
        }
        !sim.halts().is_empty()
            || (0..3).all(|j| !sim.exclusions(Party::Server(ServerId(j))).is_empty())
    });
    let took = sim.now().saturating_sub(held_at);
    (sim, held, took)
}

/// No halt, and every server excluded exactly the jammer.
fn only_jammer_excluded(sim: &Simulator<Hg>) {
    assert!(sim.halts().is_empty(), "{:?}", sim.halts());
    for j in 0..3 {
        let excluded: Vec<ClientId> = sim
            .exclusions(Party::Server(ServerId(j)))
            .into_iter()
            .map(|(c, _)| c)
            .collect();
        assert_eq!(excluded, vec![JAMMER], "server {j}");
    }
}

/// Server 2 keeps server 1's early pad bits and uses them when it starts the blame. Were
/// they dropped, it would wait for pad bits that never come again and, at its server
/// timeout, name honest server 1. The blame (about round 3) ends on the suspect's answers,
/// long before the rebuttal deadline: a server that ignored answers about any round but one
/// would wait for it.
#[test]
fn pad_bits_that_arrive_before_the_blame_starts_are_used_when_it_does() {
    let (sim, bits, took) = late_server_session(33);
    assert_eq!(
        bits,
        vec![Kind::BlameBits],
        "server 2 held no early pad bits"
    );
    only_jammer_excluded(&sim);
    assert!(
        took < REBUTTAL_DEADLINE / 2,
        "the blame took {took:?}: the servers waited for the rebuttal deadline"
    );
}

/// The session and round of a signed message.
type SessionRound = ([u8; 32], u64);

/// A verdict that reaches server 2 before it starts the blame (server 1 signs "nobody is to
/// blame" as soon as it has sent its pad bits, and its real verdict never reaches server 2)
/// is kept and judged once server 2 knows the suspects: server 1 is named for a bad verdict,
/// on the verdict it signed. Were it dropped, server 2 would name server 1 only later and for
/// another fault (its real verdict, which the others echo, conflicts with the premature one).
#[test]
fn a_verdict_that_arrives_before_the_blame_starts_is_judged_when_it_does() {
    let mut sim = late_server(35);
    let (one, two) = (Party::Server(ServerId(1)), Party::Server(ServerId(2)));
    let bits_sent: Arc<Mutex<Option<SessionRound>>> = Arc::default();
    {
        let bits_sent = Arc::clone(&bits_sent);
        sim.set_tamper(Box::new(move |from, to, bytes| {
            let Ok(env) = Envelope::<Ristretto255>::from_bytes(&bytes) else {
                return Some(bytes);
            };
            let h = env.header();
            match h.kind {
                Kind::Verdict if from == one && to == two => return None,
                Kind::BlameBits if from == one && to == two => {
                    bits_sent
                        .lock()
                        .unwrap()
                        .get_or_insert((h.session, h.round));
                }
                _ => {}
            }
            Some(bytes)
        }));
    }
    let key = sim.signing_key(one).unwrap().clone();
    let mut rng = ChaCha20Rng::seed_from_u64(35);
    let mut injected = false;
    sim.start();
    while sim.halts().is_empty() && sim.now() < Duration::from_secs(60) {
        assert!(sim.step(), "the simulation stopped");
        let sent = *bits_sent.lock().unwrap();
        if let (false, Some((session, round))) = (injected, sent) {
            assert!(
                held_early(&sim, 2).contains(&Kind::BlameBits) || {
                    let State::Running(run) = &sim.server(2).unwrap().state else {
                        panic!("server 2 is running");
                    };
                    run.blame.is_none()
                },
                "server 2 started the blame before server 1's verdict could be early"
            );
            let nobody = Verdict {
                round,
                culprits: Vec::new(),
                rebuttals: Vec::new(),
            };
            let env = Envelope::seal(
                &key,
                Kind::Verdict,
                one,
                session,
                round,
                nobody.to_bytes(),
                &mut rng,
            );
            sim.inject(one, two, env.to_bytes());
            injected = true;
        }
    }
    assert!(injected, "server 1 never sent its pad bits");
    let named: Vec<_> = sim
        .halts()
        .into_iter()
        .filter(|(by, _, _)| *by == ServerId(2))
        .map(|(_, culprit, fault)| (culprit, fault))
        .collect();
    assert!(
        matches!(
            named.as_slice(),
            [(ServerId(1), ServerFault::BadVerdict { .. })]
        ),
        "{:?}",
        sim.halts()
    );
}
