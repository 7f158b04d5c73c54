//! The attacks of the security review, each as a regression test through the public API (the
//! simulator, its tamper hook, `inject` and the participants' signing keys). Each test was
//! written against the code before its fix and failed there (see docs/SECURITY.md).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use core::time::Duration;
use std::sync::{Arc, Mutex};

use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::SeedableRng;
use verdict_dcnet::elgamal::ElGamal;
use verdict_dcnet::{ElementSum, HashingGenerator};
use verdict_group::{Group, Ristretto255, SecretScalar};
use verdict_proto::blame::{BlameBits, Rebuttal, RebuttalRequest, Verdict};
use verdict_proto::sim::{Adversary, Simulator};
use verdict_proto::wire::{Envelope, Kind, Reader, Writer, write_byte_list};
use verdict_proto::{
    ClientId, Event, ExclusionReason, Mode, Party, Policy, ServerFault, ServerId, Verification,
    WindowPolicy,
};

mod common;
use common::{excluded_by, halts_seen_by, policy, quiet_net, reseal};

type G = Ristretto255;
type Hg = HashingGenerator<G>;

/// Every slot stays open (no idle closing), so a client's `k`-th slot ciphertext is slot `k`'s.
fn all_open(mode: Mode) -> Policy {
    Policy {
        idle_rounds: 1_000,
        ..policy(mode)
    }
}

fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

fn session_of(sim: &Simulator<Hg>) -> [u8; 32] {
    sim.server(0).unwrap().session().0
}

// ------------------------------------------------------------------------------------------
// 1. ElGamal is eager-only: a lazy configuration must be refused.

#[test]
fn lazy_elgamal_configuration_is_refused() {
    for mode in [
        Mode::Verifiable(Verification::Lazy),
        Mode::Hybrid(Verification::Lazy),
    ] {
        let built = Simulator::<ElGamal<G>>::new(policy(mode), 2, 3, quiet_net(), 1);
        assert!(
            matches!(
                built,
                Err(verdict_proto::ConfigError::EagerOnlySuite { .. })
            ),
            "{mode:?} accepted for an eager-only suite"
        );
    }
    // Eager stays allowed.
    assert!(
        Simulator::<ElGamal<G>>::new(
            policy(Mode::Verifiable(Verification::Eager)),
            2,
            3,
            quiet_net(),
            1
        )
        .is_ok()
    );
}

/// One key per use: the shuffle decryption key, the DC-net key and the signing key differ, and
/// a registration proves knowledge for one use only.
#[test]
fn every_member_registers_one_key_per_use() {
    use verdict_proto::{ConfigError, KeyUse, Registered};
    let sim = Simulator::<ElGamal<G>>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        2,
        3,
        quiet_net(),
        2,
    )
    .unwrap();
    let config = sim.config().clone();
    let server = &config.servers[0];
    let uses = [KeyUse::Signing, KeyUse::DcNet, KeyUse::Xor, KeyUse::Shuffle];
    for (i, a) in uses.iter().enumerate() {
        for b in &uses[i + 1..] {
            assert_ne!(
                server.key(*a),
                server.key(*b),
                "{a:?} and {b:?} share a key"
            );
        }
    }
    assert!(config.clients[0].shuffle.is_none());
    // A registration for one use is not one for another.
    let mut swapped = config.clone();
    let s = &mut swapped.servers[1];
    core::mem::swap(
        &mut s.dcnet.registration,
        &mut s.shuffle.as_mut().unwrap().registration,
    );
    core::mem::swap(&mut s.dcnet.key, &mut s.shuffle.as_mut().unwrap().key);
    assert_eq!(
        swapped.validate(),
        Err(ConfigError::BadRegistration {
            member: Party::Server(ServerId(1))
        })
    );
    // A member that registers one key for two uses (validly, it knows the secret) is refused.
    let mut reused = config.clone();
    let keys = sim.secret_keys(Party::Server(ServerId(1))).unwrap();
    reused.servers[1].shuffle = Some(Registered::prove(
        keys.dcnet(),
        Party::Server(ServerId(1)),
        KeyUse::Shuffle,
        &config.nonce,
        &mut rng(3),
    ));
    assert_eq!(
        reused.validate(),
        Err(ConfigError::DuplicateKey {
            member: Party::Server(ServerId(1))
        })
    );
}

// ------------------------------------------------------------------------------------------
// 2 and 3. Hybrid blame against a lying server: the lie must stick to the liar.

/// A hybrid session with a jammer (client 5) and a server (2) that lies about its pad bits with
/// the first two clients, which makes honest client 0 the suspect.
fn lying_blame_session(seed: u64) -> Simulator<Hg> {
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Hybrid(Verification::Eager)),
        3,
        6,
        quiet_net(),
        seed,
    )
    .unwrap();
    sim.add_adversary(Adversary::JammingClient {
        client: ClientId(5),
        from_round: 1,
    });
    sim.add_adversary(Adversary::LyingServer {
        server: ServerId(2),
    });
    sim
}

/// Server 2's blame bits with the first two clients' bits flipped back: the truth.
fn truthful_version(
    key: &verdict_nizk::SigningKey<G>,
    lying: &[u8],
    rng: &mut ChaCha20Rng,
) -> Vec<u8> {
    let env = Envelope::<G>::from_bytes(lying).unwrap();
    let mut claim = BlameBits::from_bytes(&env.payload).unwrap();
    for trace in &mut claim.traces {
        for b in trace.bits.iter_mut().take(2) {
            *b = !*b;
        }
    }
    reseal(key, &env, claim.to_bytes(), rng)
}

/// The verdict the review found: the honest suspect must never be excluded and only the liar
/// (server 2) may be named.
fn assert_liar_named_and_suspect_safe(sim: &Simulator<Hg>) {
    for j in 0..2 {
        for e in sim.events_of(Party::Server(ServerId(j))) {
            if let Event::Verdict { culprit, .. } = e {
                assert_eq!(
                    *culprit,
                    Some(Party::Server(ServerId(2))),
                    "server {j}: a blame of the lie did not end with the liar"
                );
            }
        }
    }
    let halts = halts_seen_by(sim, &[0, 1]);
    assert!(!halts.is_empty(), "the lying server escaped");
    for (culprit, fault) in &halts {
        assert_eq!(*culprit, ServerId(2), "{fault:?}");
    }
    for j in 0..2 {
        assert!(
            !excluded_by(sim, j).contains(&ClientId(0)),
            "server {j} excluded the honest suspect: {:?}",
            sim.exclusions(Party::Server(ServerId(j)))
        );
    }
}

#[test]
fn blame_bits_replaced_after_the_suspect_is_fixed_are_equivocation() {
    let mut sim = lying_blame_session(41);
    let key = sim.signing_key(Party::Server(ServerId(2))).unwrap().clone();
    let lying: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
    let request_seen: Arc<Mutex<bool>> = Arc::default();
    {
        let (lying, request_seen) = (Arc::clone(&lying), Arc::clone(&request_seen));
        let mut r = rng(11);
        let key = key.clone();
        sim.set_tamper(Box::new(move |from, to, bytes| {
            if from != Party::Server(ServerId(2)) {
                return Some(bytes);
            }
            let Ok(env) = Envelope::<G>::from_bytes(&bytes) else {
                return Some(bytes);
            };
            match env.header().kind {
                Kind::BlameBits => *lying.lock().unwrap() = Some(bytes.clone()),
                Kind::RebuttalRequest if to == Party::Client(ClientId(0)) => {
                    *request_seen.lock().unwrap() = true;
                }
                Kind::Verdict => {
                    // The liar agrees with whatever convicts the suspect.
                    let mut verdict = Verdict::from_bytes(&env.payload).unwrap();
                    verdict.culprits = vec![ClientId(0)];
                    verdict.rebuttals.clear();
                    return Some(reseal(&key, &env, verdict.to_bytes(), &mut r));
                }
                _ => {}
            }
            Some(bytes)
        }));
    }
    sim.start();
    let mut r = rng(1);
    let mut replaced = 0;
    while sim.server(0).unwrap().round() < 6 && sim.now() < Duration::from_secs(120) {
        if !sim.step() {
            break;
        }
        if core::mem::take(&mut *request_seen.lock().unwrap()) {
            // The suspect is fixed; before its rebuttal arrives, server 2 signs the truth.
            let truth = truthful_version(&key, lying.lock().unwrap().as_ref().unwrap(), &mut r);
            for j in 0..2 {
                sim.inject(
                    Party::Server(ServerId(2)),
                    Party::Server(ServerId(j)),
                    truth.clone(),
                );
            }
            replaced += 1;
        }
    }
    assert!(replaced > 0, "blame never reached the rebuttal request");
    assert_liar_named_and_suspect_safe(&sim);
}

#[test]
fn an_early_incomplete_rebuttal_request_does_not_convict_the_suspect() {
    let mut sim = lying_blame_session(42);
    let key = sim.signing_key(Party::Server(ServerId(2))).unwrap().clone();
    let lying: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
    {
        let lying = Arc::clone(&lying);
        sim.set_tamper(Box::new(move |from, _to, bytes| {
            if from == Party::Server(ServerId(2))
                && let Ok(env) = Envelope::<G>::from_bytes(&bytes)
                && env.header().kind == Kind::BlameBits
            {
                *lying.lock().unwrap() = Some(bytes.clone());
            }
            Some(bytes)
        }));
    }
    sim.start();
    let mut r = rng(2);
    let mut sent = false;
    while sim.server(0).unwrap().round() < 6 && sim.now() < Duration::from_secs(120) {
        if !sim.step() {
            break;
        }
        let captured = lying.lock().unwrap().take();
        if let Some(bits) = captured {
            // Server 2 asks the suspect first, showing it only a truthful copy of its own bits.
            let env = Envelope::<G>::from_bytes(&bits).unwrap();
            let truth = truthful_version(&key, &bits, &mut r);
            let early = RebuttalRequest {
                round: env.header().round,
                suspect: ClientId(0),
                bits: vec![truth],
            };
            let request = Envelope::seal(
                &key,
                Kind::RebuttalRequest,
                Party::Server(ServerId(2)),
                env.header().session,
                env.header().round,
                early.to_bytes(),
                &mut r,
            );
            sim.inject(
                Party::Server(ServerId(2)),
                Party::Client(ClientId(0)),
                request.to_bytes(),
            );
            sent = true;
        }
    }
    assert!(sent, "blame never started");
    assert_liar_named_and_suspect_safe(&sim);
}

// ------------------------------------------------------------------------------------------
// 4. Eager hashing-generator: a server must not be able to put content into an idle slot.

#[test]
fn a_server_cannot_inject_content_through_its_aggregate() {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        6,
        quiet_net(),
        43,
    )
    .unwrap();
    let injected = b"forged by server 1".to_vec();
    let payload = {
        // The slot header (next capacity, u32 BE) and the message, as an owner frames it.
        let mut p = 128u32.to_be_bytes().to_vec();
        p.extend_from_slice(&injected);
        p
    };
    sim.server_mut(1).unwrap().tamper_own_aggregates(
        2,
        Box::new(move |k, bytes| {
            if k != 0 {
                return bytes;
            }
            let l = bytes.len() / G::ENCODED_LEN;
            let sum = ElementSum::<G>::decode(l, &bytes).unwrap();
            let m = verdict_group::framing::encode_message::<G>(&payload, l).unwrap();
            let forged: Vec<G> = sum
                .elements()
                .iter()
                .zip(&m)
                .map(|(a, b)| *a + *b)
                .collect();
            G::batch_to_bytes(&forged)
                .into_iter()
                .flat_map(|r| r.as_ref().to_vec())
                .collect()
        }),
    );
    sim.run_rounds(4, Duration::from_secs(120));
    for i in 0..6 {
        assert!(
            !sim.delivered(Party::Client(ClientId(i)))
                .contains(&injected),
            "client {i} received the server's forged message"
        );
    }
    let halts = halts_seen_by(&sim, &[0, 2]);
    assert!(!halts.is_empty(), "the injecting server was not named");
    for (culprit, fault) in &halts {
        assert_eq!(*culprit, ServerId(1), "{fault:?}");
        assert!(
            matches!(fault, ServerFault::WrongAggregate { .. }),
            "{fault:?}"
        );
    }
    for j in [0, 2] {
        assert!(excluded_by(&sim, j).is_empty());
    }
}

// ------------------------------------------------------------------------------------------
// 5. Hybrid XOR slots: a client must not be able to inject or suppress content.

/// The frame an owner of an XOR slot would have sent before frames were signed: `len ‖ body ‖
/// zeros ‖ tag`, the tag an unkeyed blake3 hash of public data (the formula of the original
/// `verdict-dcnet` XOR suite, which anyone could compute; frames now carry the pseudonym's
/// signature there instead, which only the owner can).
fn unsigned_xor_frame(
    session: &[u8; 32],
    slot: u32,
    round: u64,
    cap: usize,
    body: &[u8],
) -> Vec<u8> {
    let suite = <verdict_dcnet::Xor<G> as verdict_dcnet::Ciphersuite>::ID.to_bytes();
    let sr = verdict_dcnet::SlotRound::new(slot, round, cap);
    let mut frame = vec![0u8; 4 + cap + 32];
    frame[..4].copy_from_slice(&(body.len() as u32).to_be_bytes());
    frame[4..4 + body.len()].copy_from_slice(body);
    let mut h = blake3::Hasher::new_derive_key("verdict-dcnet xor frame tag v1");
    h.update(&(suite.len() as u64).to_le_bytes());
    h.update(&suite);
    h.update(session);
    h.update(&sr.to_bytes());
    h.update(&frame[..4 + body.len()]);
    frame[4 + cap..].copy_from_slice(h.finalize().as_bytes());
    frame
}

/// Makes `attacker` XOR `frame(round, open slots)` into its ciphertext for the XOR slot that
/// `target(round)` names, in the rounds where it returns `Some`.
#[allow(clippy::type_complexity)]
fn xor_into_slot(
    sim: &mut Simulator<Hg>,
    attacker: ClientId,
    frame: Box<dyn Fn(u64) -> Option<(u32, Vec<u8>)>>,
) {
    let key = sim.signing_key(Party::Client(attacker)).unwrap().clone();
    let mut r = rng(7);
    sim.set_tamper(Box::new(move |from, _to, bytes| {
        if from != Party::Client(attacker) {
            return Some(bytes);
        }
        let env = Envelope::<G>::from_bytes(&bytes).unwrap();
        if env.header().kind != Kind::Submission {
            return Some(bytes);
        }
        let Some((slot, f)) = frame(env.header().round) else {
            return Some(bytes);
        };
        let mut list = Reader::new(&env.payload).byte_list().unwrap();
        // Every XOR slot is open in these rounds, in slot order, followed by accusation slots.
        let ct = &mut list[slot as usize];
        // Signed frames are longer than the old tagged ones; the attacker fills the rest of
        // the signature area with zeros (it cannot sign for the slot's pseudonym).
        assert!(ct.len() >= f.len(), "frame length");
        for (b, x) in ct.iter_mut().zip(&f) {
            *b ^= *x;
        }
        let mut w = Writer::new();
        write_byte_list(&mut w, &list);
        Some(reseal(&key, &env, w.finish(), &mut r))
    }));
}

#[test]
fn a_client_cannot_inject_a_message_into_an_idle_xor_slot() {
    let mut sim = Simulator::<Hg>::new_paused(
        all_open(Mode::Hybrid(Verification::Eager)),
        2,
        5,
        quiet_net(),
        44,
    )
    .unwrap();
    sim.start();
    sim.run_rounds(1, Duration::from_secs(60));
    let attacker = ClientId(3);
    let mine = sim.client(3).unwrap().slot().unwrap();
    let victim_slot = (mine + 1) % 5;
    let session = session_of(&sim);
    let body = {
        let mut b = 128u32.to_be_bytes().to_vec();
        b.extend_from_slice(b"injected by client 3");
        b
    };
    xor_into_slot(
        &mut sim,
        attacker,
        Box::new(move |round| {
            (round == 2).then(|| {
                (
                    victim_slot,
                    unsigned_xor_frame(&session, victim_slot, 2, 128, &body),
                )
            })
        }),
    );
    sim.run_rounds(8, Duration::from_secs(200));
    for i in 0..5 {
        assert!(
            !sim.delivered(Party::Client(ClientId(i)))
                .contains(&b"injected by client 3".to_vec()),
            "client {i} received the injected message"
        );
    }
    assert!(halts_seen_by(&sim, &[0, 1]).is_empty());
    for j in 0..2 {
        assert_eq!(excluded_by(&sim, j), vec![attacker], "server {j}");
    }
}

#[test]
fn a_client_cannot_cancel_a_known_message_in_an_xor_slot() {
    let mut sim = Simulator::<Hg>::new_paused(
        all_open(Mode::Hybrid(Verification::Eager)),
        2,
        5,
        quiet_net(),
        45,
    )
    .unwrap();
    sim.start();
    sim.run_rounds(1, Duration::from_secs(60));
    let owner = 1usize;
    let slot = sim.client(owner).unwrap().slot().unwrap();
    let message = b"the same words twice".to_vec();
    // Round 1 carries it once; the owner repeats it in round 2, which the attacker predicts.
    sim.submit(owner, message.clone()).unwrap();
    sim.submit(owner, message.clone()).unwrap();
    let session = session_of(&sim);
    let body = {
        let mut b = 128u32.to_be_bytes().to_vec();
        b.extend_from_slice(&message);
        b
    };
    xor_into_slot(
        &mut sim,
        ClientId(4),
        Box::new(move |round| {
            (round >= 2).then(|| (slot, unsigned_xor_frame(&session, slot, round, 128, &body)))
        }),
    );
    sim.run_rounds(10, Duration::from_secs(300));
    let got = sim.delivered(Party::Client(ClientId(0)));
    assert_eq!(
        got.iter().filter(|m| **m == message).count(),
        2,
        "the repeated message was suppressed: {got:?}"
    );
    assert!(halts_seen_by(&sim, &[0, 1]).is_empty());
    for j in 0..2 {
        assert_eq!(excluded_by(&sim, j), vec![ClientId(4)], "server {j}");
    }
}

// ------------------------------------------------------------------------------------------
// 6. A server whose verdict contradicts the evidence is at fault; the jammer does not escape.

#[test]
fn a_dissenting_verdict_is_a_server_fault() {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Hybrid(Verification::Eager)),
        3,
        6,
        quiet_net(),
        46,
    )
    .unwrap();
    sim.add_adversary(Adversary::JammingClient {
        client: ClientId(4),
        from_round: 1,
    });
    // Server 1 signs "nobody is to blame" whatever the evidence, and acts on it.
    sim.add_adversary(Adversary::DissentingServer {
        server: ServerId(1),
    });
    sim.run_rounds(8, Duration::from_secs(200));
    let halts = halts_seen_by(&sim, &[0, 2]);
    let jammer_out = [0, 2]
        .iter()
        .all(|&j| excluded_by(&sim, j) == vec![ClientId(4)]);
    assert!(
        !halts.is_empty() || jammer_out,
        "the jammer was shielded and nobody was named"
    );
    for (culprit, fault) in &halts {
        assert_eq!(*culprit, ServerId(1), "{fault:?}");
    }
    for j in [0, 2] {
        for c in excluded_by(&sim, j) {
            assert_eq!(c, ClientId(4), "server {j} excluded an honest client");
        }
    }
}

// ------------------------------------------------------------------------------------------
// 7. Clients cannot fill buffers that hold other servers' messages.

#[test]
fn a_client_flood_of_next_round_messages_does_not_push_out_server_messages() {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        6,
        quiet_net(),
        47,
    )
    .unwrap();
    // Server 0 hears server 2 late, so server 1's messages of the next round reach it early.
    sim.set_link_latency(
        Party::Server(ServerId(2)),
        Party::Server(ServerId(0)),
        Duration::from_millis(400),
    );
    let flooder = ClientId(3);
    let key = sim.signing_key(Party::Client(flooder)).unwrap().clone();
    let session = session_of(&sim);
    let mut r = rng(4);
    let mut flooded = 0;
    while (0..3).any(|j| sim.server(j).unwrap().round() < 6) && sim.now() < Duration::from_secs(200)
    {
        let round = sim.server(0).unwrap().round();
        if round >= 1 && flooded < round {
            // Many distinct, validly signed submissions for the next round.
            for k in 0..200u32 {
                let junk = Envelope::seal(
                    &key,
                    Kind::Submission,
                    Party::Client(flooder),
                    session,
                    round + 1,
                    k.to_le_bytes().to_vec(),
                    &mut r,
                );
                sim.inject(
                    Party::Client(flooder),
                    Party::Server(ServerId(0)),
                    junk.to_bytes(),
                );
            }
            flooded = round;
        }
        if !sim.step() {
            break;
        }
    }
    assert!(
        halts_seen_by(&sim, &[0, 1, 2]).is_empty(),
        "{:?}",
        sim.halts()
    );
    assert!((0..3).all(|j| sim.server(j).unwrap().round() >= 6));
}

/// The session and accused round of a blame, as a flooding client learns them.
type AccusationSeen = ([u8; 32], u64);

#[test]
fn a_client_cannot_crowd_out_the_suspects_rebuttal() {
    let mut sim = lying_blame_session(48);
    // Server 0 hears server 2 late: it learns the suspect after the suspect has answered.
    sim.set_link_latency(
        Party::Server(ServerId(2)),
        Party::Server(ServerId(0)),
        Duration::from_millis(300),
    );
    let flooder = ClientId(3);
    let key = sim.signing_key(Party::Client(flooder)).unwrap().clone();
    let accusation: Arc<Mutex<Option<AccusationSeen>>> = Arc::default();
    let fresh: Arc<Mutex<bool>> = Arc::default();
    {
        let accusation = Arc::clone(&accusation);
        let fresh = Arc::clone(&fresh);
        sim.set_tamper(Box::new(move |from, _to, bytes| {
            if let Party::Server(_) = from
                && let Ok(env) = Envelope::<G>::from_bytes(&bytes)
                && env.header().kind == Kind::BlameBits
            {
                let mut a = accusation.lock().unwrap();
                let seen = a
                    .as_ref()
                    .is_some_and(|(_, round)| *round == env.header().round);
                if !seen {
                    *a = Some((env.header().session, env.header().round));
                    drop(a);
                    *fresh.lock().unwrap() = true;
                }
            }
            Some(bytes)
        }));
    }
    sim.start();
    let mut r = rng(5);
    let mut flooded = false;
    while sim.server(0).unwrap().round() < 6 && sim.now() < Duration::from_secs(120) {
        if !sim.step() {
            break;
        }
        let acc = *accusation.lock().unwrap();
        if let (Some((session, round)), true) = (acc, core::mem::take(&mut *fresh.lock().unwrap()))
        {
            // Junk rebuttals for this blame, before the suspects are known anywhere.
            for k in 0..50u8 {
                let payload = Rebuttal::NoObjection {
                    round,
                    digests: vec![[k; 32]; 3],
                }
                .to_bytes();
                let junk = Envelope::seal(
                    &key,
                    Kind::Rebuttal,
                    Party::Client(flooder),
                    session,
                    round,
                    payload,
                    &mut r,
                );
                sim.inject(
                    Party::Client(flooder),
                    Party::Server(ServerId(0)),
                    junk.to_bytes(),
                );
            }
            flooded = true;
        }
    }
    assert!(flooded);
    assert_liar_named_and_suspect_safe(&sim);
}

// ------------------------------------------------------------------------------------------
// 8. What clients do at set-up must never be blamed on a server.

/// Rewrites the pseudonym-shuffle submissions of `clients` to carry the key `y·g`.
fn submit_pseudonym_secret(sim: &mut Simulator<Hg>, clients: &[u32], y: <G as Group>::Scalar) {
    let config = sim.config().clone();
    let session = session_of(sim);
    let params = verdict_shuffle::KeyShuffleParams::new(
        session,
        config
            .servers
            .iter()
            .map(|m| *m.shuffle.as_ref().unwrap().key.point())
            .collect(),
        config.num_clients(),
    )
    .unwrap();
    let keys: Vec<_> = clients
        .iter()
        .map(|c| {
            sim.signing_key(Party::Client(ClientId(*c)))
                .unwrap()
                .clone()
        })
        .collect();
    let clients = clients.to_vec();
    let mut r = rng(6);
    sim.set_tamper(Box::new(move |from, _to, bytes| {
        let Party::Client(c) = from else {
            return Some(bytes);
        };
        let Some(pos) = clients.iter().position(|x| *x == c.0) else {
            return Some(bytes);
        };
        let env = Envelope::<G>::from_bytes(&bytes).unwrap();
        if env.header().kind != Kind::ClientSetup {
            return Some(bytes);
        }
        let mut rd = Reader::new(&env.payload);
        let _ = rd.bytes().unwrap();
        let suite = rd.bytes().unwrap().to_vec();
        let secret = SecretScalar::new(y);
        let sub = verdict_shuffle::keyshuffle::submit_pseudonym(&params, c.0, &secret, &mut r)
            .unwrap()
            .to_bytes();
        let mut w = Writer::new();
        w.bytes(&sub).bytes(&suite);
        Some(reseal(&keys[pos], &env, w.finish(), &mut r))
    }));
}

fn assert_setup_survives(sim: &mut Simulator<Hg>, bad: &[u32]) {
    sim.start();
    sim.run_rounds(2, Duration::from_secs(120));
    for j in 0..sim.num_servers() as u32 {
        let failed: Vec<_> = sim
            .events_of(Party::Server(ServerId(j)))
            .filter(|e| matches!(e, Event::SetupFailed { .. } | Event::Halted { .. }))
            .collect();
        assert!(failed.is_empty(), "server {j}: {failed:?}");
        assert!(sim.server(j as usize).unwrap().round() >= 2, "server {j}");
    }
    for i in 0..sim.num_clients() as u32 {
        if !bad.contains(&i) {
            assert!(
                sim.client(i as usize).unwrap().slot().is_some(),
                "client {i} has no slot"
            );
        }
    }
}

#[test]
fn an_identity_pseudonym_key_does_not_abort_setup() {
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        5,
        quiet_net(),
        49,
    )
    .unwrap();
    submit_pseudonym_secret(
        &mut sim,
        &[2],
        <<G as Group>::Scalar as verdict_group::Scalar>::zero(),
    );
    assert_setup_survives(&mut sim, &[2]);
}

#[test]
fn two_clients_sharing_a_pseudonym_key_do_not_abort_setup() {
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        5,
        quiet_net(),
        50,
    )
    .unwrap();
    let y = <<G as Group>::Scalar as verdict_group::Scalar>::random(&mut rng(8));
    submit_pseudonym_secret(&mut sim, &[1, 3], y);
    assert_setup_survives(&mut sim, &[1, 3]);
}

// ------------------------------------------------------------------------------------------
// 9. A set-up timeout names the server that went silent, in every phase.

/// Server `silent` crashes when it would send its first `kind` message: from then on nothing
/// it sends arrives. Returns the halts the other servers report.
fn silent_in_setup(kind: Kind, silent: u32, seed: u64) -> Vec<(ServerId, ServerFault)> {
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        4,
        quiet_net(),
        seed,
    )
    .unwrap();
    let mut crashed = false;
    sim.set_tamper(Box::new(move |from, _to, bytes| {
        if from == Party::Server(ServerId(silent))
            && (crashed || Envelope::<G>::from_bytes(&bytes).is_ok_and(|e| e.header().kind == kind))
        {
            crashed = true;
            return None;
        }
        Some(bytes)
    }));
    sim.start();
    sim.run_rounds(1, Duration::from_secs(200));
    let honest: Vec<u32> = (0..3).filter(|j| *j != silent).collect();
    halts_seen_by(&sim, &honest)
}

#[test]
fn a_setup_timeout_names_the_silent_server_in_every_phase() {
    for kind in [Kind::SetupInventory, Kind::ShuffleStep, Kind::Decryption] {
        for silent in 0..3 {
            let halts = silent_in_setup(kind, silent, 51 + u64::from(silent));
            assert!(!halts.is_empty(), "{kind:?} from {silent}: nobody halted");
            for (culprit, fault) in &halts {
                assert_eq!(
                    culprit.0, silent,
                    "{kind:?} withheld by {silent}: {fault:?}"
                );
                assert!(
                    matches!(fault, ServerFault::Unresponsive { .. }),
                    "{fault:?}"
                );
            }
        }
    }
}

// ------------------------------------------------------------------------------------------
// 10. A server cannot grow another server's memory without bound (and is named if it tries).

#[test]
fn an_echo_flood_of_far_future_headers_names_its_sender() {
    let mut sim = Simulator::<Hg>::new(
        policy(Mode::Verifiable(Verification::Eager)),
        3,
        4,
        quiet_net(),
        52,
    )
    .unwrap();
    sim.run_rounds(1, Duration::from_secs(60));
    let session = session_of(&sim);
    let key = sim.signing_key(Party::Server(ServerId(2))).unwrap().clone();
    let mut r = rng(9);
    let heads: Vec<Vec<u8>> = (0..2_000u64)
        .map(|round| {
            Envelope::seal(
                &key,
                Kind::Inventory,
                Party::Server(ServerId(2)),
                session,
                1_000 + round,
                Vec::new(),
                &mut r,
            )
            .signed
            .to_bytes()
        })
        .collect();
    let mut w = Writer::new();
    write_byte_list(&mut w, &heads);
    let echo = Envelope::seal(
        &key,
        Kind::Echo,
        Party::Server(ServerId(2)),
        session,
        1,
        w.finish(),
        &mut r,
    );
    sim.inject(
        Party::Server(ServerId(2)),
        Party::Server(ServerId(0)),
        echo.to_bytes(),
    );
    sim.run_rounds(3, Duration::from_secs(120));
    let halts = halts_seen_by(&sim, &[0, 1]);
    assert!(!halts.is_empty(), "the flooding server was not named");
    for (culprit, fault) in &halts {
        assert_eq!(*culprit, ServerId(2), "{fault:?}");
    }
}

// ------------------------------------------------------------------------------------------
// 11. A client learns when its upstream left it out of a round.

#[test]
fn a_client_dropped_by_its_upstream_learns_it_from_the_certified_output() {
    let mut sim = Simulator::<Hg>::new_paused(
        policy(Mode::Verifiable(Verification::Eager)),
        2,
        4,
        quiet_net(),
        53,
    )
    .unwrap();
    let victim = ClientId(2);
    sim.set_tamper(Box::new(move |from, _to, bytes| {
        if from == Party::Client(victim)
            && Envelope::<G>::from_bytes(&bytes)
                .is_ok_and(|e| e.header().kind == Kind::Submission && e.header().round == 1)
        {
            return None;
        }
        Some(bytes)
    }));
    sim.start();
    sim.run_rounds(3, Duration::from_secs(120));
    let left_out: Vec<u64> = sim
        .events_of(Party::Client(victim))
        .filter_map(|e| match e {
            Event::LeftOut { round } => Some(*round),
            _ => None,
        })
        .collect();
    assert_eq!(left_out, vec![1]);
    for other in [0, 1, 3] {
        assert!(
            !sim.events_of(Party::Client(ClientId(other)))
                .any(|e| matches!(e, Event::LeftOut { .. }))
        );
    }
}

// ------------------------------------------------------------------------------------------
// Churn never names a server: a silent client under a window that waits for everyone.

#[test]
fn a_silent_client_under_an_all_clients_window_names_no_server() {
    let all = Policy {
        window: WindowPolicy::all(),
        ..policy(Mode::Verifiable(Verification::Eager))
    };
    let mut sim = Simulator::<Hg>::new(all, 3, 6, quiet_net(), 54).unwrap();
    sim.add_adversary(Adversary::SilentClient {
        client: ClientId(4),
        from_round: 1,
    });
    sim.run_rounds(3, Duration::from_secs(200));
    assert!(sim.halts().is_empty(), "{:?}", sim.halts());
    let _ = ExclusionReason::DoubleSubmission { round: 0 };
}
