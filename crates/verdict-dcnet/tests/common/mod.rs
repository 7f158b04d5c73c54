//! Generic test harness: runs any [`Ciphersuite`] (and, for [`Verifiable`] suites, the
//! soundness checks) through set-up, rounds with an owner, churn, tampering and bad input.
//!
//! Usage from a test file: `mod common;` then e.g.
//! `common::integrity_matrix::<MySuite>(&[1, 3], &[2, 10], &[0, 100])`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rand::seq::SliceRandom;
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use verdict_dcnet::{
    Ciphersuite, ClientId, DcError, PreparedSlot, Roster, SecretKey, ServerId, Session, SessionId,
    SlotRound, Verifiable,
};

/// A deterministic RNG for tests.
pub fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// Everything a test needs: the session and every participant's secrets.
pub struct World<C: Ciphersuite> {
    pub session: Session<C>,
    pub client_keys: Vec<SecretKey<C>>,
    pub server_keys: Vec<SecretKey<C>>,
    pub pseudonyms: Vec<SecretKey<C>>,
    pub clients: Vec<C::ClientState>,
    pub servers: Vec<C::ServerState>,
    pub client_setups: Vec<C::ClientSetup>,
    pub server_setups: Vec<C::ServerSetup>,
}

/// Roster for `n` clients, `m` servers and `slots` slots; set-up messages go through the wire
/// encoding; the session is established from the decoded messages.
pub fn setup<C: Ciphersuite>(n: usize, m: usize, slots: usize, r: &mut ChaCha20Rng) -> World<C> {
    let mut sid = [0u8; 32];
    r.fill_bytes(&mut sid);
    let (server_keys, server_pks): (Vec<_>, Vec<_>) = (0..m).map(|_| C::generate_key(r)).unzip();
    let (client_keys, client_pks): (Vec<_>, Vec<_>) = (0..n).map(|_| C::generate_key(r)).unzip();
    let (pseudonyms, pseudonym_pks): (Vec<_>, Vec<_>) =
        (0..slots).map(|_| C::generate_pseudonym(r)).unzip();
    // Keys go through their wire format too.
    let server_pks = server_pks
        .iter()
        .map(|k| C::decode_public_key(&C::encode_public_key(k)).unwrap())
        .collect();
    let client_pks = client_pks
        .iter()
        .map(|k| C::decode_public_key(&C::encode_public_key(k)).unwrap())
        .collect();
    let pseudonym_pks = pseudonym_pks
        .iter()
        .map(|k| C::decode_pseudonym_key(&C::encode_pseudonym_key(k)).unwrap())
        .collect();
    let roster = Roster::<C>::new(SessionId(sid), server_pks, client_pks, pseudonym_pks).unwrap();
    let mut clients = Vec::new();
    let mut client_setups = Vec::new();
    for (i, k) in client_keys.iter().enumerate() {
        let (st, msg) = C::client_setup(&roster, ClientId(i as u32), k, r).unwrap();
        let bytes = C::encode_client_setup(&msg);
        client_setups.push(C::decode_client_setup(&roster, &bytes).unwrap());
        clients.push(st);
    }
    let mut servers = Vec::new();
    let mut server_setups = Vec::new();
    for (j, k) in server_keys.iter().enumerate() {
        let (st, msg) = C::server_setup(&roster, ServerId(j as u32), k, r).unwrap();
        let bytes = C::encode_server_setup(&msg);
        server_setups.push(C::decode_server_setup(&roster, &bytes).unwrap());
        servers.push(st);
    }
    let session = Session::establish(roster, &client_setups, &server_setups).unwrap();
    World {
        session,
        client_keys,
        server_keys,
        pseudonyms,
        clients,
        servers,
        client_setups,
        server_setups,
    }
}

/// The client ciphertexts of one slot: the owner (if any) sends `message`, everyone else covers.
pub fn client_ciphertexts<C: Ciphersuite>(
    w: &World<C>,
    slot: &PreparedSlot<C>,
    owner: Option<(usize, &[u8])>,
    r: &mut ChaCha20Rng,
) -> Vec<C::ClientCiphertext> {
    (0..w.clients.len())
        .map(|i| match owner {
            Some((o, msg)) if o == i => C::owner(
                &w.session,
                slot,
                &w.clients[i],
                &w.pseudonyms[slot.slot() as usize],
                msg,
                r,
            )
            .unwrap(),
            _ => C::cover(&w.session, slot, &w.clients[i], r).unwrap(),
        })
        .collect()
}

/// Sends ciphertexts through the wire (encode, decode) and checks their size.
pub fn wire_client<C: Ciphersuite>(len: usize, ct: &C::ClientCiphertext) -> C::ClientCiphertext {
    let bytes = C::encode_client_ciphertext(ct);
    assert_eq!(bytes.len(), C::client_ciphertext_len(len));
    let back = C::decode_client_ciphertext(len, &bytes).unwrap();
    assert_eq!(&back, ct);
    back
}

/// Same for server ciphertexts.
pub fn wire_server<C: Ciphersuite>(len: usize, ct: &C::ServerCiphertext) -> C::ServerCiphertext {
    let bytes = C::encode_server_ciphertext(ct);
    assert_eq!(bytes.len(), C::server_ciphertext_len(len));
    let back = C::decode_server_ciphertext(len, &bytes).unwrap();
    assert_eq!(&back, ct);
    back
}

/// One full round over the accepted set `accepted` (indices into the clients); returns the
/// reveal. Every ciphertext goes through the wire format.
pub fn round<C: Ciphersuite>(
    w: &World<C>,
    sr: SlotRound,
    owner: Option<(usize, &[u8])>,
    accepted: &[usize],
    r: &mut ChaCha20Rng,
) -> Result<Option<Vec<u8>>, DcError> {
    let slot = PreparedSlot::new(&w.session, sr).unwrap();
    let cts: Vec<C::ClientCiphertext> = client_ciphertexts(w, &slot, owner, r)
        .iter()
        .map(|ct| wire_client::<C>(sr.len, ct))
        .collect();
    let acc: Vec<(ClientId, &C::ClientCiphertext)> = accepted
        .iter()
        .map(|&i| (ClientId(i as u32), &cts[i]))
        .collect();
    let server_cts: Vec<C::ServerCiphertext> = w
        .servers
        .iter()
        .map(|st| {
            let ct = C::server_ciphertext(&w.session, &slot, st, &acc, r).unwrap();
            wire_server::<C>(sr.len, &ct)
        })
        .collect();
    let refs: Vec<&C::ServerCiphertext> = server_cts.iter().collect();
    C::reveal(&w.session, &slot, &acc, &refs)
}

/// A random message of a length drawn from interesting sizes up to `max`.
pub fn random_message(max: usize, r: &mut ChaCha20Rng) -> Vec<u8> {
    let sizes = [0usize, 1, 29, 30, 31, 64, 100, 1000, 4000, max];
    let len = *sizes
        .iter()
        .filter(|&&s| s <= max)
        .collect::<Vec<_>>()
        .choose(r)
        .unwrap();
    let mut m = vec![0u8; *len];
    r.fill_bytes(&mut m);
    m
}

/// Integrity over a matrix of server counts, client counts and slot capacities: owner at every
/// position for `n ≤ 10` (three sampled positions otherwise), a random message that fits, every
/// reveal exact; plus an empty slot that reveals "no message".
pub fn integrity_matrix<C: Ciphersuite>(ms: &[usize], ns: &[usize], lens: &[usize], seed: u64) {
    let mut r = rng(seed);
    for &m in ms {
        for &n in ns {
            let w = setup::<C>(n, m, 2, &mut r);
            let all: Vec<usize> = (0..n).collect();
            let owners: Vec<usize> = if n <= 10 {
                all.clone()
            } else {
                vec![0, r.gen_range(1..n - 1), n - 1]
            };
            for (k, &o) in owners.iter().enumerate() {
                let len = lens[k % lens.len()];
                let msg = random_message(len, &mut r);
                let sr = SlotRound::new((k % 2) as u32, k as u64, len);
                let out = round(&w, sr, Some((o, &msg)), &all, &mut r).unwrap();
                assert_eq!(
                    out.as_deref(),
                    Some(&msg[..]),
                    "{}: M={m} N={n} owner={o} len={len}",
                    C::ID
                );
            }
            let sr = SlotRound::new(1, 99, lens[0]);
            assert_eq!(
                round(&w, sr, None, &all, &mut r).unwrap(),
                None,
                "empty slot"
            );
        }
    }
}

/// Churn: random subsets `S` of online clients (always containing the owner) reveal exactly.
pub fn churn<C: Ciphersuite>(n: usize, m: usize, len: usize, trials: usize, seed: u64) {
    let mut r = rng(seed);
    let w = setup::<C>(n, m, 1, &mut r);
    for t in 0..trials {
        let owner = r.gen_range(0..n);
        let mut s: Vec<usize> = (0..n).filter(|_| r.gen_bool(0.5)).collect();
        if !s.contains(&owner) {
            s.push(owner);
        }
        s.shuffle(&mut r);
        let msg = random_message(len, &mut r);
        let sr = SlotRound::new(0, t as u64, len);
        let out = round(&w, sr, Some((owner, &msg)), &s, &mut r).unwrap();
        assert_eq!(out.as_deref(), Some(&msg[..]), "S = {s:?}");
        // An S without the owner is an empty slot.
        let s2: Vec<usize> = s.iter().copied().filter(|&i| i != owner).collect();
        let out = round(&w, sr, Some((owner, &msg)), &s2, &mut r).unwrap();
        assert_eq!(out, None, "S without the owner");
    }
}

/// Anonymity shape: owner and cover ciphertexts have the same encoded length (the suite's
/// declared size) and decode with the same decoder; the owner operation refuses a key that does
/// not own the slot.
pub fn shape<C: Ciphersuite>(lens: &[usize], seed: u64) {
    let mut r = rng(seed);
    let w = setup::<C>(3, 2, 2, &mut r);
    for &len in lens {
        let slot = PreparedSlot::new(&w.session, SlotRound::new(0, 1, len)).unwrap();
        let msg = random_message(len, &mut r);
        let cts = client_ciphertexts(&w, &slot, Some((1, &msg)), &mut r);
        let sizes: Vec<usize> = cts
            .iter()
            .map(|c| C::encode_client_ciphertext(c).len())
            .collect();
        assert!(
            sizes.iter().all(|&s| s == C::client_ciphertext_len(len)),
            "{sizes:?}"
        );
        for c in &cts {
            wire_client::<C>(len, c);
        }
        // Wrong pseudonym key: the slot-1 key does not own slot 0.
        let err = C::owner(
            &w.session,
            &slot,
            &w.clients[0],
            &w.pseudonyms[1],
            &msg,
            &mut r,
        )
        .unwrap_err();
        assert_eq!(err, DcError::NotSlotOwner { slot: 0 });
        // Too long a message.
        let long = vec![0u8; len + 1];
        assert!(matches!(
            C::owner(
                &w.session,
                &slot,
                &w.clients[0],
                &w.pseudonyms[0],
                &long,
                &mut r
            ),
            Err(DcError::MessageTooLong { .. })
        ));
    }
}

/// Bad input: truncated, oversized and garbage encodings give errors (and never panic).
pub fn bad_input<C: Ciphersuite>(len: usize, seed: u64) {
    let mut r = rng(seed);
    let w = setup::<C>(2, 2, 1, &mut r);
    let slot = PreparedSlot::new(&w.session, SlotRound::new(0, 0, len)).unwrap();
    let ct = C::cover(&w.session, &slot, &w.clients[0], &mut r).unwrap();
    let bytes = C::encode_client_ciphertext(&ct);
    let refs: Vec<(ClientId, &C::ClientCiphertext)> = vec![(ClientId(0), &ct)];
    let sct = C::server_ciphertext(&w.session, &slot, &w.servers[0], &refs, &mut r).unwrap();
    let sbytes = C::encode_server_ciphertext(&sct);
    for b in [&bytes, &sbytes] {
        for cut in [0, 1, b.len() / 2, b.len().saturating_sub(1)] {
            assert!(C::decode_client_ciphertext(len, &b[..cut]).is_err());
            assert!(C::decode_server_ciphertext(len, &b[..cut]).is_err());
        }
        let mut long = b.clone();
        long.push(0);
        assert!(C::decode_client_ciphertext(len, &long).is_err());
        assert!(C::decode_server_ciphertext(len, &long).is_err());
    }
    assert!(C::decode_client_ciphertext(usize::MAX, &bytes).is_err());
    assert!(C::decode_server_ciphertext(usize::MAX, &sbytes).is_err());
    for _ in 0..50 {
        let n = r.gen_range(0..bytes.len() + 64);
        let mut g = vec![0u8; n];
        r.fill_bytes(&mut g);
        let _ = C::decode_client_ciphertext(len, &g);
        let _ = C::decode_server_ciphertext(len, &g);
        let _ = C::decode_public_key(&g);
        let _ = C::decode_pseudonym_key(&g);
        let _ = C::decode_client_setup(w.session.roster(), &g);
        let _ = C::decode_server_setup(w.session.roster(), &g);
    }
    // Structural misuse is an error too.
    let sr = SlotRound::new(5, 0, len);
    assert!(matches!(
        PreparedSlot::new(&w.session, sr),
        Err(DcError::UnknownSlot { slot: 5 })
    ));
    let acc = vec![(ClientId(7), &ct)];
    assert!(matches!(
        C::server_ciphertext(&w.session, &slot, &w.servers[0], &acc, &mut r),
        Err(DcError::UnknownClient {
            client: ClientId(7)
        })
    ));
    let dup = vec![(ClientId(0), &ct), (ClientId(0), &ct)];
    assert!(matches!(
        C::server_ciphertext(&w.session, &slot, &w.servers[0], &dup, &mut r),
        Err(DcError::DuplicateClient {
            client: ClientId(0)
        })
    ));
    assert!(matches!(
        C::reveal(&w.session, &slot, &refs, &[&sct]),
        Err(DcError::ServerCount {
            expected: 2,
            actual: 1
        })
    ));
}

/// Soundness of a verifiable suite: every tampering is rejected with the culprit named; valid
/// ciphertexts verify singly and in a batch; the batch names exactly the invalid clients.
pub fn soundness<C: Verifiable>(n: usize, m: usize, len: usize, seed: u64) {
    let mut r = rng(seed);
    let w = setup::<C>(n, m, 2, &mut r);
    let sr = SlotRound::new(0, 7, len);
    let slot = PreparedSlot::new(&w.session, sr).unwrap();
    let msg = random_message(len, &mut r);
    let cts = client_ciphertexts(&w, &slot, Some((1, &msg)), &mut r);
    let items: Vec<(ClientId, &C::ClientCiphertext)> = cts
        .iter()
        .enumerate()
        .map(|(i, c)| (ClientId(i as u32), c))
        .collect();
    for (c, ct) in &items {
        C::verify_client(&w.session, &slot, *c, ct).unwrap();
    }
    C::verify_clients(&w.session, &slot, &items, &mut r).unwrap();

    // Replays into another slot, round, client (and another length).
    let other_slot = PreparedSlot::new(&w.session, SlotRound::new(1, 7, len)).unwrap();
    let other_round = PreparedSlot::new(&w.session, SlotRound::new(0, 8, len)).unwrap();
    let (c0, ct0) = items[0];
    for s in [&other_slot, &other_round] {
        assert_eq!(
            C::verify_client(&w.session, s, c0, ct0),
            Err(DcError::InvalidClientProof { client: c0 })
        );
    }
    assert_eq!(
        C::verify_client(&w.session, &slot, ClientId(2), ct0),
        Err(DcError::InvalidClientProof {
            client: ClientId(2)
        })
    );
    // The owner's ciphertext is bound to the owner too.
    assert_eq!(
        C::verify_client(&w.session, &slot, ClientId(0), items[1].1),
        Err(DcError::InvalidClientProof {
            client: ClientId(0)
        })
    );
    assert!(C::verify_client(&w.session, &slot, ClientId(n as u32), ct0).is_err());

    // Flipped bytes: every position of a short ciphertext, sampled positions of a long one.
    let bytes = C::encode_client_ciphertext(items[1].1);
    let positions: Vec<usize> = if bytes.len() <= 400 {
        (0..bytes.len()).collect()
    } else {
        let mut p: Vec<usize> = (0..bytes.len()).step_by(bytes.len() / 97 + 1).collect();
        p.extend(bytes.len() - 200..bytes.len()); // the whole proof
        p
    };
    let mut tampered = Vec::new();
    for &p in &positions {
        let mut b = bytes.clone();
        b[p] ^= 1 << (p % 8);
        if let Ok(ct) = C::decode_client_ciphertext(len, &b) {
            assert_eq!(
                C::verify_client(&w.session, &slot, ClientId(1), &ct),
                Err(DcError::InvalidClientProof {
                    client: ClientId(1)
                }),
                "flipped byte {p} accepted"
            );
            if tampered.len() < 3 {
                tampered.push(ct);
            }
        }
    }
    // Batch: replace some ciphertexts with bad ones; the batch names exactly those clients.
    let mut bad_items = items.clone();
    let mut expected = Vec::new();
    if let Some(t) = tampered.first() {
        bad_items[1] = (ClientId(1), t);
        expected.push(ClientId(1));
    }
    let last = n - 1;
    if last > 1 {
        bad_items[last] = (ClientId(last as u32), ct0); // client 0's ciphertext replayed
        expected.push(ClientId(last as u32));
    }
    assert_eq!(
        C::verify_clients(&w.session, &slot, &bad_items, &mut r),
        Err(expected)
    );
    // A ciphertext for another slot length has the wrong size: named as well.
    let short = PreparedSlot::new(&w.session, SlotRound::new(0, 7, len + 100)).unwrap();
    assert!(C::verify_client(&w.session, &short, c0, ct0).is_err());
    assert_eq!(
        C::verify_clients(&w.session, &short, &items[..1], &mut r),
        Err(vec![c0])
    );

    // Servers: valid over S; rejected over any other S; tampering names the server.
    let s: Vec<(ClientId, &C::ClientCiphertext)> = items.iter().copied().skip(1).collect();
    let s_other: Vec<(ClientId, &C::ClientCiphertext)> = items.iter().copied().skip(2).collect();
    for (j, st) in w.servers.iter().enumerate() {
        let sid = ServerId(j as u32);
        let ct = C::server_ciphertext(&w.session, &slot, st, &s, &mut r).unwrap();
        C::verify_server(&w.session, &slot, sid, &s, &ct).unwrap();
        assert_eq!(
            C::verify_server(&w.session, &slot, sid, &s_other, &ct),
            Err(DcError::InvalidServerProof { server: sid })
        );
        assert_eq!(
            C::verify_server(&w.session, &other_round, sid, &s, &ct),
            Err(DcError::InvalidServerProof { server: sid })
        );
        if m > 1 {
            let other = ServerId(((j + 1) % m) as u32);
            assert_eq!(
                C::verify_server(&w.session, &slot, other, &s, &ct),
                Err(DcError::InvalidServerProof { server: other })
            );
        }
        if j == 0 {
            let sb = C::encode_server_ciphertext(&ct);
            for p in (0..sb.len())
                .step_by(sb.len() / 50 + 1)
                .chain(sb.len() - 1..sb.len())
            {
                let mut b = sb.clone();
                b[p] ^= 0x10;
                if let Ok(t) = C::decode_server_ciphertext(len, &b) {
                    assert_eq!(
                        C::verify_server(&w.session, &slot, sid, &s, &t),
                        Err(DcError::InvalidServerProof { server: sid }),
                        "flipped server byte {p} accepted"
                    );
                }
            }
        }
    }
}

/// Whatever decodes from `bytes` has the declared size and re-encodes to the same bytes;
/// nothing panics.
pub fn decoders_never_panic<C: Ciphersuite>(len: usize, bytes: &[u8]) {
    if let Ok(c) = C::decode_client_ciphertext(len, bytes) {
        assert_eq!(bytes.len(), C::client_ciphertext_len(len));
        assert_eq!(C::encode_client_ciphertext(&c), bytes);
    }
    if let Ok(s) = C::decode_server_ciphertext(len, bytes) {
        assert_eq!(bytes.len(), C::server_ciphertext_len(len));
        assert_eq!(C::encode_server_ciphertext(&s), bytes);
    }
    if let Ok(k) = C::decode_public_key(bytes) {
        assert_eq!(C::encode_public_key(&k), bytes);
    }
    if let Ok(k) = C::decode_pseudonym_key(bytes) {
        assert_eq!(C::encode_pseudonym_key(&k), bytes);
    }
}

/// The [`verdict_dcnet::Aggregating`] contract: with `n` clients, `m` servers and the accepted
/// set split among the servers (and some clients left out), the reveal from per-server
/// aggregates (sent through their wire format) equals the reveal from every ciphertext; the
/// id-only server operations agree with the ciphertext ones; a wrong aggregate (a ciphertext
/// missing, counted twice, or an element changed) never reveals the message; and aggregate
/// decoding rejects bad lengths and invalid elements.
pub fn aggregation<C: verdict_dcnet::Aggregating>(n: usize, m: usize, len: usize, seed: u64) {
    verdict_dcnet::aggregate::assert_lazy_safe::<C>();
    let mut r = rng(seed);
    let w = setup::<C>(n, m, 2, &mut r);
    let sr = SlotRound::new(1, 9, len);
    let slot = PreparedSlot::new(&w.session, sr).unwrap();
    let owner = r.gen_range(0..n);
    let message = random_message(len, &mut r);
    let cts = client_ciphertexts(&w, &slot, Some((owner, &message)), &mut r);
    // Everyone but one cover client (if there are enough) is accepted, split at random.
    let mut accepted: Vec<usize> = (0..n).collect();
    if n > 2 {
        let gone = (owner + 1) % n;
        accepted.retain(|&i| i != gone);
    }
    let mut shuffled = accepted.clone();
    shuffled.shuffle(&mut r);
    let parts: Vec<Vec<usize>> = (0..m)
        .map(|j| shuffled.iter().copied().skip(j).step_by(m).collect())
        .collect();
    let items = |ids: &[usize]| -> Vec<(ClientId, &C::ClientCiphertext)> {
        ids.iter().map(|&i| (ClientId(i as u32), &cts[i])).collect()
    };
    let aggregates: Vec<C::Aggregate> = parts
        .iter()
        .map(|p| {
            let a = C::aggregate(&w.session, &slot, &items(p)).unwrap();
            let bytes = C::encode_aggregate(&a);
            let back = C::decode_aggregate(len, &bytes).unwrap();
            assert_eq!(back, a);
            back
        })
        .collect();
    let ids: Vec<ClientId> = accepted.iter().map(|&i| ClientId(i as u32)).collect();
    let all = items(&accepted);
    let server_cts: Vec<C::ServerCiphertext> = w
        .servers
        .iter()
        .enumerate()
        .map(|(j, st)| {
            let ct = C::server_ciphertext_for(&w.session, &slot, st, &ids, &mut r).unwrap();
            // Both verifiers accept it, and reject it for another accepted set.
            C::verify_server_for(&w.session, &slot, ServerId(j as u32), &ids, &ct).unwrap();
            C::verify_server(&w.session, &slot, ServerId(j as u32), &all, &ct).unwrap();
            assert!(
                C::verify_server_for(&w.session, &slot, ServerId(j as u32), &ids[1..], &ct)
                    .is_err()
            );
            ct
        })
        .collect();
    // Several slots of one server at once: all valid; a ciphertext under the wrong slot is
    // named by its position.
    let other = PreparedSlot::new(&w.session, SlotRound::new(0, 9, len)).unwrap();
    for (j, st) in w.servers.iter().enumerate() {
        let server = ServerId(j as u32);
        let mine = &server_cts[j];
        let second = C::server_ciphertext_for(&w.session, &other, st, &ids, &mut r).unwrap();
        let ok = [(&slot, mine), (&other, &second)];
        C::verify_server_slots_for(&w.session, server, &ids, &ok, &mut r).unwrap();
        let swapped = [(&slot, mine), (&slot, &second), (&other, &second)];
        assert_eq!(
            C::verify_server_slots_for(&w.session, server, &ids, &swapped, &mut r),
            Err(vec![1])
        );
        let wrong_set = C::verify_server_slots_for(&w.session, server, &ids[1..], &ok, &mut r);
        assert_eq!(wrong_set, Err(vec![0, 1]));
    }
    let srefs: Vec<&C::ServerCiphertext> = server_cts.iter().collect();
    let arefs: Vec<&C::Aggregate> = aggregates.iter().collect();
    let direct = C::reveal(&w.session, &slot, &all, &srefs).unwrap();
    let aggregated = C::reveal_aggregated(&w.session, &slot, &arefs, &srefs).unwrap();
    assert_eq!(aggregated, direct);
    assert_eq!(aggregated.as_deref(), Some(&message[..]));

    // Wrong aggregates: a cover ciphertext missing, one counted twice.
    let cover = *accepted.iter().find(|&&i| i != owner).unwrap();
    let mut without = accepted.clone();
    without.retain(|&i| i != cover);
    let missing = C::aggregate(&w.session, &slot, &items(&without)).unwrap();
    let mut twice = accepted.clone();
    twice.push(cover);
    let doubled = C::aggregate(&w.session, &slot, &items(&twice)).unwrap();
    for wrong in [&missing, &doubled] {
        let got = C::reveal_aggregated(&w.session, &slot, &[wrong], &srefs);
        assert!(
            !matches!(&got, Ok(Some(m)) if *m == message),
            "a wrong aggregate revealed the message"
        );
    }
    // Aggregates of the wrong length are rejected, by the reveal and by the decoder.
    let short = PreparedSlot::new(&w.session, SlotRound::new(1, 9, 0)).unwrap();
    let short_agg = C::aggregate(&w.session, &short, &[]).unwrap();
    if C::encode_aggregate(&short_agg).len() != C::encode_aggregate(&aggregates[0]).len() {
        assert!(C::reveal_aggregated(&w.session, &slot, &[&short_agg], &srefs).is_err());
    }
    let good = C::encode_aggregate(&aggregates[0]);
    assert!(C::decode_aggregate(len, &good[..good.len() - 1]).is_err());
    let mut extra = good.clone();
    extra.push(0);
    assert!(C::decode_aggregate(len, &extra).is_err());
    let invalid = vec![0xffu8; good.len()];
    assert!(C::decode_aggregate(len, &invalid).is_err());
    decoders_never_panic::<C>(len, &good);
    for bytes in [&good[..good.len() / 2], &invalid[..]] {
        let _ = C::decode_aggregate(len, bytes);
    }
}
