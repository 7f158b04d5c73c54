//! A server's signed pad bits are a claim about one statement: the accused round's accepted set,
//! its accusations (in order), each accused slot's length, and one bit per accepted client. A
//! server that signs bits about any other statement is at fault (`WrongBlameBits`, its signed
//! message the evidence), whatever the bits say: were such a claim accepted, the suspects would
//! be computed over a set or a slot the round never had, and an honest client could be made
//! the suspect or a jammer hidden.
//!
//! Each test has one server re-sign its own blame bits about a changed statement (the same
//! forged message to every peer, so it is not caught as equivocation instead) and checks that
//! every other server halts naming it for exactly that, and that no honest client is excluded.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;
use std::sync::{Arc, Mutex};

use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::SeedableRng;
use verdict_dcnet::HashingGenerator;
use verdict_group::Ristretto255;
use verdict_proto::blame::{BlameBits, TraceBits};
use verdict_proto::sim::Simulator;
use verdict_proto::wire::{Envelope, Kind};
use verdict_proto::{Accusation, ClientId, Mode, Party, ServerFault, ServerId, Verification};

use crate::common;
use common::{excluded_by, halts_seen_by, jammed_hybrid, only_jammer_excluded, policy, reseal};

type G = Ristretto255;
type Hg = HashingGenerator<G>;

const SERVERS: u32 = 3;
const CLIENTS: u32 = 6;
/// The jammer whose disruption starts the blame.
const JAMMER: ClientId = ClientId(5);

/// How the misstating server changes the statement of its (otherwise truthful) claim.
#[derive(Clone, Copy, Debug)]
enum Misstatement {
    /// The accepted set with its last client replaced by one the round never had (same size,
    /// still ascending, so one bit per listed client).
    OtherClient,
    /// The accepted set without its last client, and one bit fewer per trace.
    FewerClients,
    /// The first accused slot's length, one more than it was.
    OtherSlotLength,
    /// The first accusation about the next bit of the same slot.
    OtherAccusation,
    /// One more trace, about the slot after the last accused one (accusations stay in slot
    /// order).
    ExtraTrace,
}

impl Misstatement {
    const ALL: [Self; 5] = [
        Self::OtherClient,
        Self::FewerClients,
        Self::OtherSlotLength,
        Self::OtherAccusation,
        Self::ExtraTrace,
    ];

    fn apply(self, claim: &mut BlameBits) {
        match self {
            Self::OtherClient => {
                let last = claim.clients.last_mut().unwrap();
                *last = ClientId(CLIENTS + 10);
            }
            Self::FewerClients => {
                claim.clients.pop();
                for trace in &mut claim.traces {
                    trace.bits.pop();
                }
            }
            Self::OtherSlotLength => claim.traces[0].slot_len += 1,
            Self::OtherAccusation => claim.traces[0].accusation.bit += 1,
            Self::ExtraTrace => {
                let mut extra = claim.traces.last().unwrap().clone();
                extra.accusation.slot += 1;
                claim.traces.push(extra);
            }
        }
    }
}

/// What the misstating server's tamper hook saw: the accused (round, slot) of its first claim
/// (what the fault must name) and the forged message it sent to every peer.
#[derive(Default)]
struct Forged {
    accused: Option<(u64, u32)>,
    bytes: Option<Vec<u8>>,
}

/// The hybrid session every test runs: 3 servers, 6 clients, client 5 jamming from round 1.
fn session(seed: u64) -> Simulator<Hg> {
    jammed_hybrid(
        policy(Mode::Hybrid(Verification::Eager)),
        SERVERS as usize,
        CLIENTS as usize,
        JAMMER,
        seed,
    )
}

/// Runs a hybrid session (3 servers, 6 clients, client 5 jamming from round 1) in which server
/// `liar` sends `how`'s version of its first blame bits to every peer.
fn run(how: Misstatement, liar: u32, seed: u64) -> (Simulator<Hg>, Option<(u64, u32)>) {
    let mut sim = session(seed);
    let key = sim
        .signing_key(Party::Server(ServerId(liar)))
        .unwrap()
        .clone();
    let forged: Arc<Mutex<Forged>> = Arc::default();
    {
        let forged = Arc::clone(&forged);
        let mut rng = ChaCha20Rng::seed_from_u64(seed ^ 0xb1a3e);
        sim.set_tamper(Box::new(move |from, _to, bytes| {
            if from != Party::Server(ServerId(liar)) {
                return Some(bytes);
            }
            let Ok(env) = Envelope::<G>::from_bytes(&bytes) else {
                return Some(bytes);
            };
            if env.header().kind != Kind::BlameBits {
                return Some(bytes);
            }
            let mut forged = forged.lock().unwrap();
            if forged.bytes.is_none() {
                let mut claim = BlameBits::from_bytes(&env.payload).unwrap();
                let first = &claim.traces[0].accusation;
                forged.accused = Some((first.round, first.slot));
                how.apply(&mut claim);
                forged.bytes = Some(reseal(&key, &env, claim.to_bytes(), &mut rng));
            }
            forged.bytes.clone()
        }));
    }
    sim.start();
    // Until every other server has halted (what the tests expect), or a minute.
    let others_halted = |sim: &Simulator<Hg>| {
        (0..SERVERS)
            .filter(|&j| j != liar)
            .all(|j| !halts_seen_by(sim, &[j]).is_empty())
    };
    while sim.now() < Duration::from_secs(60) && !others_halted(&sim) && sim.step() {}
    let accused = forged.lock().unwrap().accused;
    (sim, accused)
}

fn assert_misstatement_named(how: Misstatement, liar: u32, seed: u64) {
    let (sim, accused) = run(how, liar, seed);
    let (round, slot) = accused.unwrap_or_else(|| panic!("{how:?}: blame never started"));
    let honest: Vec<u32> = (0..SERVERS).filter(|&j| j != liar).collect();
    for &j in &honest {
        let halts = halts_seen_by(&sim, &[j]);
        assert_eq!(
            halts,
            vec![(ServerId(liar), ServerFault::WrongBlameBits { round, slot })],
            "{how:?} by server {liar}: what server {j} halted on"
        );
        let excluded = excluded_by(&sim, j);
        assert!(
            excluded.iter().all(|c| *c == JAMMER),
            "{how:?} by server {liar}: server {j} excluded {excluded:?}"
        );
    }
}

#[test]
fn a_claim_about_another_accepted_set_is_named() {
    for liar in 0..SERVERS {
        assert_misstatement_named(Misstatement::OtherClient, liar, 60 + u64::from(liar));
        assert_misstatement_named(Misstatement::FewerClients, liar, 63 + u64::from(liar));
    }
}

#[test]
fn a_claim_about_another_slot_length_is_named() {
    for liar in 0..SERVERS {
        assert_misstatement_named(Misstatement::OtherSlotLength, liar, 70 + u64::from(liar));
    }
}

#[test]
fn a_claim_about_other_accusations_is_named() {
    for liar in 0..SERVERS {
        assert_misstatement_named(Misstatement::OtherAccusation, liar, 80 + u64::from(liar));
        assert_misstatement_named(Misstatement::ExtraTrace, liar, 83 + u64::from(liar));
    }
}

/// The control: the same session with the claim passed on unchanged ends with the jammer
/// excluded and no server halted, so the halts above are the misstatements' doing.
#[test]
fn the_unchanged_claim_convicts_only_the_jammer() {
    let mut sim = session(60);
    sim.start();
    let all_excluded = |sim: &Simulator<Hg>| {
        (0..SERVERS).all(|j| !sim.exclusions(Party::Server(ServerId(j))).is_empty())
    };
    while sim.now() < Duration::from_secs(60) && !all_excluded(&sim) && sim.step() {}
    only_jammer_excluded(&sim, JAMMER);
}

/// Each misstatement changes the claim it is given, and keeps it decodable (one bit per listed
/// client, clients ascending), so the halts above are about the statement and not the bytes.
#[test]
fn every_misstatement_is_a_well_formed_other_claim() {
    let truth = BlameBits {
        round: 3,
        clients: (0..CLIENTS).map(ClientId).collect(),
        traces: vec![TraceBits {
            accusation: Accusation {
                round: 3,
                slot: 1,
                bit: 17,
            },
            slot_len: 128,
            bits: vec![true, false, true, true, false, false],
        }],
    };
    for how in Misstatement::ALL {
        let mut claim = truth.clone();
        how.apply(&mut claim);
        assert_ne!(claim, truth, "{how:?}");
        assert_eq!(
            BlameBits::from_bytes(&claim.to_bytes()).as_ref(),
            Ok(&claim),
            "{how:?}"
        );
    }
}
