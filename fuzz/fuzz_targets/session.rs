//! Structure-aware state-machine target: a small session (M = 2 servers, N = 3 clients,
//! hashing generator on ristretto255, hybrid mode) in verdict-proto's simulator, where the
//! attacker holds client 2's identity (its signing key and its transport link) on top of the
//! client's honest state machine. The input is a script of actions — step the simulation,
//! replay or mutate any message seen on the wire, send garbage, seal arbitrary payloads of any
//! message kind as client 2, have an honest client submit, cut an honest client's link (what
//! is in flight on it is lost) and bring it back (it then asks to catch up), restart an honest
//! client from what it keeps on disk — after which the session runs on. (Links never reorder:
//! the driver contract promises ordered links, so reordering happens only across links.)
//!
//! Checked at the end (the accountability invariants a hostile client must not break): no
//! server halts (every server is honest, and a client cannot make one look faulty), nobody
//! but client 2 is excluded or named in a verdict by anyone, and every message an honest
//! participant sees delivered was submitted by an honest client or sits in client 2's own slot.
//! Memory stays bounded by construction of the script (at most `MAX_ACTIONS` injections).
#![no_main]

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use verdict_dcnet::HashingGenerator;
use verdict_group::Ristretto255;
use verdict_proto::sim::{Network, Simulator};
use verdict_proto::wire::{Envelope, Kind};
use verdict_proto::{ClientId, Event, Mode, Party, Policy, ServerId, Verification, WindowPolicy};

type Hg = HashingGenerator<Ristretto255>;

const SERVERS: usize = 2;
const CLIENTS: usize = 3;
const CORRUPT: ClientId = ClientId(2);
/// Clients 0 and 1 are honest.
const HONEST: usize = 2;
/// Actions read from one input (each injects at most one message).
const MAX_ACTIONS: usize = 48;
/// Messages kept from the wire for replay and mutation.
const MAX_CAPTURED: usize = 512;
/// Simulation steps one "step" action takes at most.
const MAX_STEPS: usize = 64;

fn policy() -> Policy {
    Policy {
        mode: Mode::Hybrid(Verification::Eager),
        default_len: 64,
        window: WindowPolicy::timeout(Duration::from_secs(2)),
        setup_window: WindowPolicy::timeout(Duration::from_secs(5)),
        rebuttal_timeout: Duration::from_secs(1),
        server_timeout: Duration::from_secs(20),
        ..Policy::default()
    }
}

/// Reads the script front to back; exhausted input reads as zeros (so every prefix is a
/// complete script).
struct Script<'a>(&'a [u8]);

impl Script<'_> {
    fn done(&self) -> bool {
        self.0.is_empty()
    }
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn u16(&mut self) -> usize {
        usize::from(self.byte()) << 8 | usize::from(self.byte())
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        let n = n.min(self.0.len());
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        head.to_vec()
    }
}

fn server(b: u8) -> Party {
    Party::Server(ServerId(u32::from(b) % SERVERS as u32))
}

fuzz_target!(|data: &[u8]| {
    let mut sim = Simulator::<Hg>::new_paused(policy(), SERVERS, CLIENTS, Network::default(), 9)
        .expect("a valid configuration");
    // The honest clients can restart (their seed, transcript and checkpoint are kept).
    for i in 0..HONEST {
        sim.make_restartable(i).expect("client exists");
    }
    let wire: Rc<RefCell<Vec<Vec<u8>>>> = Rc::default();
    let seen = Rc::clone(&wire);
    // Honest clients whose link is cut.
    let cut: Rc<RefCell<[bool; HONEST]>> = Rc::default();
    let down = Rc::clone(&cut);
    sim.set_tamper(Box::new(move |from, to, bytes| {
        let mut seen = seen.borrow_mut();
        if seen.len() < MAX_CAPTURED {
            seen.push(bytes.clone());
        }
        let down = down.borrow();
        let is_down =
            |p: Party| matches!(p, Party::Client(c) if down.get(c.index()) == Some(&true));
        (!is_down(from) && !is_down(to)).then_some(bytes)
    }));
    sim.start();
    let key = sim
        .signing_key(Party::Client(CORRUPT))
        .expect("client 2 exists")
        .clone();
    let session = sim.config().session_id().0;
    let me = Party::Client(CORRUPT);
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let mut submitted: BTreeSet<Vec<u8>> = BTreeSet::new();
    let mut script = Script(data);
    for _ in 0..MAX_ACTIONS {
        if script.done() {
            break;
        }
        let op = script.byte();
        match op % 8 {
            0 => {
                for _ in 0..=usize::from(script.byte()) % MAX_STEPS {
                    if !sim.step() {
                        break;
                    }
                }
            }
            1 | 2 => {
                let picked = {
                    let w = wire.borrow();
                    (!w.is_empty()).then(|| w[script.u16() % w.len()].clone())
                };
                let Some(mut m) = picked else { continue };
                if op % 8 == 2 && !m.is_empty() {
                    // A mutation: flip one byte, or cut the message short.
                    let at = script.u16() % m.len();
                    match script.byte() {
                        0 => m.truncate(at),
                        x => m[at] ^= x,
                    }
                }
                let to = server(script.byte());
                sim.inject(me, to, m);
            }
            3 => {
                let n = script.u16() % 4096;
                let to = server(script.byte());
                let m = script.bytes(n);
                sim.inject(me, to, m);
            }
            4 => {
                // Client 2 signs whatever it likes: any kind, any round, any payload (fresh
                // bytes, or the payload of a message seen on the wire).
                let kind = Kind::ALL[usize::from(script.byte()) % Kind::ALL.len()];
                let round = u64::from(script.byte() % 8);
                let payload = if script.byte() % 2 == 0 {
                    let n = script.u16() % 4096;
                    script.bytes(n)
                } else {
                    let w = wire.borrow();
                    if w.is_empty() {
                        Vec::new()
                    } else {
                        let m = &w[script.u16() % w.len()];
                        Envelope::<Ristretto255>::payload_of(m)
                            .map(<[u8]>::to_vec)
                            .unwrap_or_default()
                    }
                };
                let e = Envelope::seal(&key, kind, me, session, round, payload, &mut rng);
                let to = server(script.byte());
                sim.inject(me, to, e.to_bytes());
            }
            5 => {
                let i = usize::from(script.byte()) % HONEST;
                let m = format!("message {} from client {i}", submitted.len()).into_bytes();
                if sim.submit(i, m.clone()).is_ok() {
                    submitted.insert(m);
                }
            }
            6 => {
                // Cut an honest client's link, or bring it back (then it asks to catch up).
                let i = usize::from(script.byte()) % HONEST;
                let was_down = std::mem::replace(&mut cut.borrow_mut()[i], false);
                if was_down {
                    sim.reconnect(i);
                } else {
                    cut.borrow_mut()[i] = true;
                }
            }
            _ => {
                // An honest client's process restarts (before set-up completed there is
                // nothing to restart from: the action does nothing).
                let i = usize::from(script.byte()) % HONEST;
                cut.borrow_mut()[i] = false;
                let _ = sim.restart(i);
            }
        }
    }
    // Every link comes back before the session runs on.
    for i in 0..HONEST {
        if std::mem::replace(&mut cut.borrow_mut()[i], false) {
            sim.reconnect(i);
        }
    }
    let horizon = sim.now() + Duration::from_secs(120);
    let rounds = sim.server(0).map_or(0, |s| s.round()) + 3;
    sim.run_rounds(rounds, horizon);

    assert!(sim.halts().is_empty(), "a server halted: {:?}", sim.halts());
    let corrupt_slot = sim.client(CORRUPT.index()).and_then(|c| c.slot());
    let parties = (0..SERVERS as u32)
        .map(|j| Party::Server(ServerId(j)))
        .chain((0..CLIENTS as u32 - 1).map(|i| Party::Client(ClientId(i))));
    for who in parties {
        for (c, reason) in sim.exclusions(who) {
            assert_eq!(c, CORRUPT, "{who} excluded honest {c} ({reason:?})");
        }
        for e in sim.events_of(who) {
            match e {
                Event::Verdict {
                    culprit: Some(p), ..
                } => assert_eq!(*p, me, "{who} named honest {p}"),
                Event::Delivered { slot, message, .. } if Some(*slot) != corrupt_slot => {
                    assert!(
                        submitted.contains(message),
                        "{who} saw an unsubmitted message in slot {slot}"
                    );
                }
                _ => {}
            }
        }
    }
});
