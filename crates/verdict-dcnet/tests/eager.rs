//! `Ciphersuite::EAGER_ONLY`: each suite's value, and the attack that makes it `true` for the
//! ElGamal-style suite — without eager verification, the reveal itself tells who owns the slot.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use verdict_dcnet::elgamal::ElGamal;
use verdict_dcnet::pairing::{Chunk16, Chunk24, Pairing};
use verdict_dcnet::testing;
use verdict_dcnet::{
    Ciphersuite, ClientId, HashingGenerator, PreparedSlot, SlotRound, Verifiable, Xor,
};
use verdict_group::{Group, P256, Ristretto255, Scalar, framing};

/// A verifiable suite's row: `Verifiable` is a bound, so a row claims "verifiable" only for a
/// suite that implements it.
fn row<C: Verifiable>() -> (String, bool, bool) {
    (C::ID.to_string(), C::EAGER_ONLY, true)
}

/// A row for a suite without [`Verifiable`] (`tests/xor.rs` checks at compile time that the
/// XOR suite does not implement it).
fn unverifiable_row<C: Ciphersuite>() -> (String, bool, bool) {
    (C::ID.to_string(), C::EAGER_ONLY, false)
}

/// Every suite's `(id, EAGER_ONLY, verifiable)`: only ElGamal must be verified eagerly, and an
/// eager-only suite is verifiable.
#[test]
fn eager_only_per_suite() {
    let rows = [
        (row::<ElGamal<Ristretto255>>(), true),
        (row::<ElGamal<P256>>(), true),
        (row::<HashingGenerator<Ristretto255>>(), false),
        (row::<HashingGenerator<P256>>(), false),
        (row::<Pairing<Chunk16>>(), false),
        (row::<Pairing<Chunk24>>(), false),
        (unverifiable_row::<Xor<Ristretto255>>(), false),
    ];
    for ((id, eager, verifiable), expected) in rows {
        assert_eq!(eager, expected, "{id}");
        assert!(!eager || verifiable, "{id}");
    }
}

/// `points` leading ristretto255 elements of a client ciphertext's encoding multiplied by 3:
/// a malicious client's copy `(3·R_i, 3·C_i)` of honest client `i`'s ciphertext (its own
/// proof is then invalid, which only a verification would notice).
fn maul<C: Ciphersuite>(
    len: usize,
    ct: &C::ClientCiphertext,
    points: usize,
) -> C::ClientCiphertext {
    let lambda = <Ristretto255 as Group>::Scalar::from_u64(3);
    let mut bytes = C::encode_client_ciphertext(ct);
    for chunk in bytes.chunks_exact_mut(32).take(points) {
        let p = Ristretto255::from_bytes(chunk).unwrap() * lambda;
        chunk.copy_from_slice(p.to_bytes().as_ref());
    }
    C::decode_client_ciphertext(len, &bytes).unwrap()
}

/// One round with clients 0, 1 and a malicious client 2 that submits a mauled copy of client
/// 0's ciphertext (`vectors` = how many length-`L` point vectors lead the encoding); client
/// `owner` transmits. Asserts that eager verification names client 2, then returns what the
/// reveal says **without** client verification (lazy).
fn lazy_reveal<C: Verifiable>(owner: usize, vectors: usize) -> Option<Vec<u8>> {
    let mut r = testing::rng(40 + owner as u64);
    let w = testing::setup::<C>(3, 2, 1, &mut r);
    let len = 40;
    let l = framing::elements_needed::<Ristretto255>(len);
    let slot = PreparedSlot::new(&w.session, SlotRound::new(0, 1, len)).unwrap();
    let make = |i: usize, r: &mut rand_chacha::ChaCha20Rng| {
        if i == owner {
            C::owner(&w.session, &slot, &w.clients[i], &w.pseudonyms[0], MSG, r).unwrap()
        } else {
            C::cover(&w.session, &slot, &w.clients[i], r).unwrap()
        }
    };
    let c0 = make(0, &mut r);
    let c1 = make(1, &mut r);
    let evil = maul::<C>(len, &c0, vectors * l);
    let s = [(ClientId(0), &c0), (ClientId(1), &c1), (ClientId(2), &evil)];
    assert_eq!(
        C::verify_clients(&w.session, &slot, &s, &mut r),
        Err(vec![ClientId(2)])
    );
    let d: Vec<_> = w
        .servers
        .iter()
        .map(|st| C::server_ciphertext(&w.session, &slot, st, &s, &mut r).unwrap())
        .collect();
    C::reveal(&w.session, &slot, &s, &d.iter().collect::<Vec<_>>())
        .ok()
        .flatten()
}

const MSG: &[u8] = b"the owner's message, 40 bytes long.....";

/// ElGamal without eager verification: the slot reveals the message exactly when the mauled
/// client (0) is *not* the owner — the reveal is a membership test for client 0.
#[test]
fn elgamal_lazy_reveal_leaks_the_owner() {
    type Eg = ElGamal<Ristretto255>;
    assert_eq!(lazy_reveal::<Eg>(1, 2).as_deref(), Some(MSG));
    assert_ne!(lazy_reveal::<Eg>(0, 2).as_deref(), Some(MSG));
}

/// Hashing-generator: the same mauled copy leaves client 2's unknown pad in the reveal, so the
/// slot is garbled whoever owns it (no ownership information; the proofs name client 2).
#[test]
fn hashing_generator_lazy_reveal_leaks_nothing() {
    type Hg = HashingGenerator<Ristretto255>;
    assert_ne!(lazy_reveal::<Hg>(1, 1).as_deref(), Some(MSG));
    assert_ne!(lazy_reveal::<Hg>(0, 1).as_deref(), Some(MSG));
}
