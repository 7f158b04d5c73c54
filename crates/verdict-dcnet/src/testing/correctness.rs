//! Correctness drivers for any [`Ciphersuite`]: exact reveals over a parameter matrix and under
//! churn, the anonymity shape of ciphertexts, and errors (never panics) on bad input.

use rand::seq::SliceRandom;
use rand::{Rng, RngCore};

use super::{client_ciphertexts, random_message, rng, round, setup, wire_client};
use crate::{
    Ciphersuite, ClientId, DcDecodeError, DcError, MAX_SLOT_LEN, PreparedSlot, ServerId, SlotRound,
};

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
    // The largest slot is still a capacity (its ciphertext is only the wrong length here);
    // one byte more is refused before any decoding.
    assert_ne!(
        C::decode_client_ciphertext(MAX_SLOT_LEN, &bytes).err(),
        Some(DcDecodeError::CapacityTooLarge)
    );
    assert_eq!(
        C::decode_client_ciphertext(MAX_SLOT_LEN + 1, &bytes).err(),
        Some(DcDecodeError::CapacityTooLarge)
    );
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
    // Set-up with another participant's key is refused (the key must be the roster entry's).
    let roster = w.session.roster();
    assert!(C::client_setup(roster, ClientId(0), &w.client_keys[1], &mut r).is_err());
    assert!(C::server_setup(roster, ServerId(1), &w.server_keys[0], &mut r).is_err());
    assert!(C::client_setup(roster, ClientId(1), &w.client_keys[1], &mut r).is_ok());
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
