//! Soundness drivers: for [`Verifiable`] suites, every tampering, replay and wrong attribution
//! is rejected naming the culprit; for any suite, decoders accept only canonical encodings.

use super::{client_ciphertexts, random_message, rng, setup};
use crate::{Ciphersuite, ClientId, DcError, PreparedSlot, ServerId, SlotRound, Verifiable};

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
