//! The pairing-based suite (BLS12-381) through the generic harness. Sizes are small: a
//! pairing costs ≈ 1 ms and every GT element ≈ 0.7 ms to create and again to decode.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use verdict_dcnet::pairing::gt_table::{ChunkBits, elements_needed};
use verdict_dcnet::pairing::{Chunk16, Chunk24, Pairing};
use verdict_dcnet::testing;
use verdict_dcnet::{Ciphersuite, ClientId, DcError, PreparedSlot, SlotRound, Verifiable};

type P16 = Pairing<Chunk16>;
type P24 = Pairing<Chunk24>;

#[test]
fn integrity_chunk16() {
    testing::integrity_matrix::<P16>(&[1, 3], &[2, 10], &[0, 1, 6], 1);
}

#[test]
fn integrity_chunk24() {
    testing::integrity_matrix::<P24>(&[1, 2], &[2], &[0, 5], 2);
}

#[test]
fn churn() {
    testing::churn::<P16>(5, 2, 2, 2, 3);
}

#[test]
fn shape() {
    testing::shape::<P16>(&[0, 4], 4);
    testing::shape::<P24>(&[2], 5);
}

#[test]
fn bad_input() {
    testing::bad_input::<P16>(2, 6);
    testing::bad_input::<P24>(3, 7);
}

#[test]
fn soundness() {
    testing::soundness::<P16>(3, 2, 2, 7);
}

#[test]
fn suite_ids_are_versioned() {
    assert_eq!(P16::ID.to_string(), "verdict/pairing-chunk16/bls12-381/v2");
    assert_eq!(P24::ID.to_string(), "verdict/pairing-chunk24/bls12-381/v2");
}

/// Figure 6 analog: `L` GT elements (576 bytes each) carry `2L − 4` (16-bit) or `3L − 4`
/// (24-bit) bytes, plus a constant-size proof (864 bytes).
#[test]
fn ciphertext_sizes() {
    for len in [0usize, 1, 30, 300] {
        let l16 = elements_needed(ChunkBits::B16, len);
        let l24 = elements_needed(ChunkBits::B24, len);
        assert_eq!(P16::client_ciphertext_len(len), 576 * l16 + 864);
        assert_eq!(P16::server_ciphertext_len(len), 576 * l16 + 704);
        assert_eq!(P24::client_ciphertext_len(len), 576 * l24 + 864);
        println!(
            "len {len:>4} B: pairing chunk16 client {:>7} B ({:.0}x), chunk24 client {:>7} B",
            P16::client_ciphertext_len(len),
            P16::client_ciphertext_len(len) as f64 / len.max(1) as f64,
            P24::client_ciphertext_len(len),
        );
    }
}

/// An owner without the pseudonym key: a cover client multiplies in a message and keeps its
/// cover proof — rejected and named, alone and in a batch.
#[test]
fn owner_without_pseudonym_key_is_rejected() {
    let mut r = testing::rng(8);
    let w = testing::setup::<P16>(3, 1, 1, &mut r);
    let slot = PreparedSlot::new(&w.session, SlotRound::new(0, 2, 2)).unwrap();
    let ct = P16::cover(&w.session, &slot, &w.clients[1], &mut r).unwrap();
    let mut bytes = P16::encode_client_ciphertext(&ct);
    // Replace C_0 by C_0 + e(g1, g2)·5 (a chunk encoding) — still a valid GT element.
    use verdict_group::{Bls12381Gt as Gt, Group};
    let c0 = Gt::from_bytes(&bytes[..576]).unwrap();
    let forged = c0 + Gt::generator() + Gt::generator();
    bytes[..576].copy_from_slice(forged.to_bytes().as_ref());
    let bad = P16::decode_client_ciphertext(2, &bytes).unwrap();
    assert_eq!(
        P16::verify_client(&w.session, &slot, ClientId(1), &bad),
        Err(DcError::InvalidClientProof {
            client: ClientId(1)
        })
    );
    let good = P16::cover(&w.session, &slot, &w.clients[0], &mut r).unwrap();
    assert_eq!(
        P16::verify_clients(
            &w.session,
            &slot,
            &[(ClientId(0), &good), (ClientId(1), &bad)],
            &mut r
        ),
        Err(vec![ClientId(1)])
    );
}
