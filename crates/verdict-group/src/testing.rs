//! The conformance suite every [`Group`] and [`MessageGroup`] implementation runs.
//!
//! Enabled by the `testing` feature. Each check panics with a message naming the group and the
//! violated property, so a downstream implementation can call them from its own `#[test]`s:
//!
//! ```
//! # use verdict_group::{testing, Ristretto255};
//! # use rand::SeedableRng;
//! let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
//! testing::check_group::<Ristretto255, _>(&mut rng);
//! testing::check_message_group::<Ristretto255, _>(&mut rng);
//! ```
//!
//! Group-specific invalid encodings (off-curve points, torsion points, non-canonical field
//! elements) are supplied by the implementation through [`check_rejects`].
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used, clippy::eq_op)]

use rand_core::{CryptoRng, RngCore};

use crate::error::{DecodeError, EmbedError, FrameError, GroupError};
use crate::framing::{decode_message, elements_needed, encode_message, max_message_len};
use crate::traits::{FixedBaseTable, Group, MessageGroup, Scalar};

/// Runs every [`Group`] check.
pub fn check_group<G: Group, R: RngCore + CryptoRng>(rng: &mut R) {
    check_scalar_field::<G, R>(rng);
    check_group_laws::<G, R>(rng);
    check_multiplication::<G, R>(rng);
    check_encoding::<G, R>(rng);
    check_hash_to_group::<G>();
}

/// Runs every [`MessageGroup`] check (embedding and framing).
pub fn check_message_group<G: MessageGroup, R: RngCore + CryptoRng>(rng: &mut R) {
    check_embedding::<G, R>(rng);
    check_framing::<G, R>(rng);
}

/// Field axioms, encoding round trip and canonical rejection for scalars.
pub fn check_scalar_field<G: Group, R: RngCore + CryptoRng>(rng: &mut R) {
    type S<G> = <G as Group>::Scalar;
    let name = G::NAME;
    let zero = S::<G>::zero();
    let one = S::<G>::one();
    assert!(zero.is_zero(), "{name}: zero");
    assert!(!one.is_zero(), "{name}: one is not zero");
    assert_eq!(zero.invert(), None, "{name}: zero has no inverse");
    assert_eq!(one.invert(), Some(one), "{name}: one is its own inverse");
    let mut previous = zero;
    for _ in 0..16 {
        let a = S::<G>::random(rng);
        let b = S::<G>::random(rng);
        let c = S::<G>::random(rng);
        // A fixed or zero "random" scalar would make every nonce and blinding factor public;
        // two equal draws of a ~252-bit scalar do not happen by chance.
        assert!(
            !a.is_zero() && a != previous && a != b,
            "{name}: random scalars repeat"
        );
        previous = a;
        let inv = a.invert();
        assert!(inv.is_some(), "{name}: a nonzero scalar has an inverse");
        assert_eq!(a + b, b + a, "{name}: scalar addition commutes");
        assert_eq!(a * (b + c), a * b + a * c, "{name}: distributivity");
        assert_eq!(a - a, zero, "{name}: a - a = 0");
        assert_eq!(a + (-a), zero, "{name}: a + (-a) = 0");
        if let Some(inv) = inv {
            assert_eq!(a * inv, one, "{name}: a · a⁻¹ = 1");
        }
        let enc = a.to_bytes();
        assert_eq!(
            enc.as_ref().len(),
            S::<G>::ENCODED_LEN,
            "{name}: scalar length"
        );
        assert_eq!(
            S::<G>::from_bytes(enc.as_ref()),
            Ok(a),
            "{name}: scalar round trip"
        );
        let mut long = enc.as_ref().to_vec();
        long.push(0);
        assert!(
            matches!(
                S::<G>::from_bytes(&long),
                Err(DecodeError::WrongLength { .. })
            ),
            "{name}: overlong scalar rejected"
        );
        assert!(
            matches!(
                S::<G>::from_bytes(&enc.as_ref()[1..]),
                Err(DecodeError::WrongLength { .. })
            ),
            "{name}: short scalar rejected"
        );
    }
    // All-ones exceeds every group order used here.
    let ones = vec![0xffu8; S::<G>::ENCODED_LEN];
    assert_eq!(
        S::<G>::from_bytes(&ones),
        Err(DecodeError::NonCanonical),
        "{name}: scalar ≥ q rejected"
    );
    // q − 1 + 1 = 0 through the encoding: -1 encodes the largest canonical value.
    let minus_one = -one;
    assert_eq!(
        S::<G>::from_bytes(minus_one.to_bytes().as_ref()),
        Ok(minus_one),
        "{name}: q − 1 is canonical"
    );
    assert_eq!(
        S::<G>::from_u64(2) * S::<G>::from_u64(3),
        S::<G>::from_u64(6),
        "{name}: from_u64"
    );
    // Wide reduction: 2^512 − 1 reduces to something, and distinct inputs give distinct outputs.
    let a = S::<G>::from_uniform_bytes(&[0xff; 64]);
    let b = S::<G>::from_uniform_bytes(&[0xfe; 64]);
    assert_ne!(a, b, "{name}: wide reduction is not constant");
    assert!(
        S::<G>::from_uniform_bytes(&[0; 64]).is_zero(),
        "{name}: 0 reduces to 0"
    );
    // to_le_bytes agrees with small integers.
    let mut le = [0u8; 32];
    le[0] = 5;
    assert_eq!(S::<G>::from_u64(5).to_le_bytes(), le, "{name}: to_le_bytes");
}

/// Group laws: identity, inverses, associativity, commutativity, scalar distributivity.
pub fn check_group_laws<G: Group, R: RngCore + CryptoRng>(rng: &mut R) {
    let name = G::NAME;
    let o = G::identity();
    let g = G::generator();
    assert!(o.is_identity(), "{name}: identity");
    assert!(!g.is_identity(), "{name}: generator is not the identity");
    for _ in 0..8 {
        let p = G::random(rng);
        let q = G::random(rng);
        let r = G::random(rng);
        assert!(
            !p.is_identity(),
            "{name}: random element is not the identity"
        );
        assert_eq!(p + o, p, "{name}: P + 0 = P");
        assert_eq!(p - p, o, "{name}: P − P = 0");
        assert_eq!(p + (-p), o, "{name}: P + (−P) = 0");
        assert_eq!(p + q, q + p, "{name}: commutativity");
        assert_eq!((p + q) + r, p + (q + r), "{name}: associativity");
        assert_eq!(p.double(), p + p, "{name}: doubling");
        let mut acc = p;
        acc += q;
        acc -= q;
        assert_eq!(acc, p, "{name}: += and −=");
        assert_eq!([p, q, r].into_iter().sum::<G>(), p + q + r, "{name}: sum");
    }
    let order_minus_one = -G::Scalar::one();
    assert_eq!(g * order_minus_one + g, o, "{name}: q · G = 0");
}

/// Scalar multiplication in all its forms agrees with the reference `Mul`.
pub fn check_multiplication<G: Group, R: RngCore + CryptoRng>(rng: &mut R) {
    let name = G::NAME;
    let g = G::generator();
    let zero = G::Scalar::zero();
    let one = G::Scalar::one();
    assert_eq!(g * one, g, "{name}: 1 · G = G");
    assert!((g * zero).is_identity(), "{name}: 0 · G = 0");
    assert_eq!(g * G::Scalar::from_u64(2), g.double(), "{name}: 2 · G");
    for _ in 0..8 {
        let a = G::Scalar::random(rng);
        let b = G::Scalar::random(rng);
        let p = G::random(rng);
        let ap = p * a;
        assert_eq!(p * (a + b), ap + p * b, "{name}: (a + b)P = aP + bP");
        assert_eq!((p * a) * b, p * (a * b), "{name}: (ab)P = a(bP)");
        assert_eq!(p.mul_vartime(&a), ap, "{name}: mul_vartime");
        assert_eq!(G::mul_generator(&a), g * a, "{name}: mul_generator");
        assert_eq!(
            p.mul_add_generator_vartime(&a, &b),
            ap + g * b,
            "{name}: double-base"
        );
        let mut q = p;
        q *= a;
        assert_eq!(q, ap, "{name}: *=");
        let table = p.precompute();
        assert_eq!(table.base(), p, "{name}: table base");
        assert_eq!(table.mul(&a), ap, "{name}: fixed-base table");
        assert!(table.mul(&zero).is_identity(), "{name}: table · 0");
        assert_eq!(table.mul(&-one), -p, "{name}: table · (q − 1)");
    }
    // Batched multiply-and-encode agrees with multiplying and encoding one by one, including
    // for the zero scalar (identity results).
    let mut scalars: Vec<G::Scalar> = (0..5).map(|_| G::Scalar::random(rng)).collect();
    scalars.push(zero);
    let (pts, reprs) = G::mul_generator_encoded(&scalars);
    assert_eq!(
        pts.len(),
        scalars.len(),
        "{name}: mul_generator_encoded length"
    );
    for ((s, p), r) in scalars.iter().zip(&pts).zip(&reprs) {
        assert_eq!(
            *p,
            G::mul_generator(s),
            "{name}: mul_generator_encoded point"
        );
        assert_eq!(*r, p.to_bytes(), "{name}: mul_generator_encoded encoding");
    }
    let mut bases: Vec<G> = (0..5).map(|_| G::random(rng)).collect();
    bases.push(G::identity());
    for s in [G::Scalar::random(rng), zero, one] {
        let (pts, reprs) = G::mul_each_encoded(&bases, &s);
        assert_eq!(pts.len(), bases.len(), "{name}: mul_each_encoded length");
        for ((b, p), r) in bases.iter().zip(&pts).zip(&reprs) {
            assert_eq!(*p, *b * s, "{name}: mul_each_encoded point");
            assert_eq!(*r, p.to_bytes(), "{name}: mul_each_encoded encoding");
        }
    }
    let (pts, reprs) = G::double_each_encoded(&bases);
    assert_eq!(pts.len(), bases.len(), "{name}: double_each_encoded length");
    for ((b, p), r) in bases.iter().zip(&pts).zip(&reprs) {
        assert_eq!(*p, *b + *b, "{name}: double_each_encoded point");
        assert_eq!(*r, p.to_bytes(), "{name}: double_each_encoded encoding");
    }
    assert_eq!(
        G::double_each_encoded(&[]),
        (vec![], vec![]),
        "{name}: empty double batch"
    );
    assert_eq!(
        G::mul_generator_encoded(&[]),
        (vec![], vec![]),
        "{name}: empty batch"
    );
    for n in [0usize, 1, 2, 3, 17, 64] {
        let scalars: Vec<_> = (0..n).map(|_| G::Scalar::random(rng)).collect();
        let points: Vec<_> = (0..n).map(|_| G::random(rng)).collect();
        let expect: G = scalars.iter().zip(&points).map(|(s, p)| *p * s).sum();
        assert_eq!(
            G::msm_vartime(&scalars, &points),
            Ok(expect),
            "{name}: MSM n = {n}"
        );
    }
    let s = [G::Scalar::one()];
    assert_eq!(
        G::msm_vartime(&s, &[]),
        Err(GroupError::LengthMismatch { left: 1, right: 0 }),
        "{name}: MSM length mismatch"
    );
    // The secret-scalar MSM computes the same sums (including zero and −1 coefficients).
    for n in [0usize, 1, 2, 3, 17, 64] {
        let mut scalars: Vec<_> = (0..n).map(|_| G::Scalar::random(rng)).collect();
        if n >= 3 {
            scalars[0] = zero;
            scalars[1] = -one;
        }
        let points: Vec<_> = (0..n).map(|_| G::random(rng)).collect();
        let expect: G = scalars.iter().zip(&points).map(|(s, p)| *p * s).sum();
        assert_eq!(
            G::msm(&scalars, &points),
            Ok(expect),
            "{name}: secret-scalar MSM n = {n}"
        );
    }
    assert_eq!(
        G::msm(&s, &[]),
        Err(GroupError::LengthMismatch { left: 1, right: 0 }),
        "{name}: secret-scalar MSM length mismatch"
    );
    // One base, many public scalars: every batch size crosses a different window choice.
    let base = G::random(rng);
    for n in [0usize, 1, 2, 3, 5, 40, 300] {
        let mut scalars: Vec<_> = (0..n).map(|_| G::Scalar::random(rng)).collect();
        if n >= 3 {
            scalars[0] = zero;
            scalars[1] = -one;
            scalars[2] = one;
        }
        let got = base.mul_many_vartime(&scalars);
        assert_eq!(got.len(), n, "{name}: mul_many_vartime length");
        for (s, p) in scalars.iter().zip(&got) {
            assert_eq!(*p, base * s, "{name}: mul_many_vartime n = {n}");
        }
    }
    assert!(
        G::identity()
            .mul_many_vartime(&[one, -one, zero, one])
            .iter()
            .all(G::is_identity),
        "{name}: mul_many_vartime of the identity"
    );
}

/// Encoding round trip, canonicity of every accepted encoding, length and identity rules, and
/// no panics on arbitrary bytes.
pub fn check_encoding<G: Group, R: RngCore + CryptoRng>(rng: &mut R) {
    let name = G::NAME;
    let len = G::ENCODED_LEN;
    let id = G::identity();
    let id_enc = id.to_bytes();
    assert_eq!(
        G::from_bytes(id_enc.as_ref()),
        Ok(id),
        "{name}: identity decodes"
    );
    assert_eq!(
        G::from_bytes_nonidentity(id_enc.as_ref()),
        Err(DecodeError::Identity),
        "{name}: identity rejected where forbidden"
    );
    let points: Vec<G> = (0..8).map(|_| G::random(rng)).collect();
    let batch = G::batch_to_bytes(&points);
    for (p, b) in points.iter().zip(&batch) {
        let enc = p.to_bytes();
        assert_eq!(&enc, b, "{name}: batch encoding agrees");
        assert_eq!(enc.as_ref().len(), len, "{name}: ENCODED_LEN");
        assert_eq!(G::from_bytes(enc.as_ref()), Ok(*p), "{name}: round trip");
        assert_eq!(
            G::from_bytes_nonidentity(enc.as_ref()),
            Ok(*p),
            "{name}: non-identity"
        );
        for bad_len in [0, len - 1, len + 1] {
            let mut v = enc.as_ref().to_vec();
            v.resize(bad_len, 0);
            assert_eq!(
                G::from_bytes(&v),
                Err(DecodeError::WrongLength {
                    expected: len,
                    actual: bad_len
                }),
                "{name}: wrong length {bad_len}"
            );
        }
        // Single-bit flips: either rejected or a *different* canonical encoding.
        for _ in 0..8 {
            let mut v = enc.as_ref().to_vec();
            let bit = (rng.next_u32() as usize) % (8 * len);
            v[bit / 8] ^= 1 << (bit % 8);
            if let Ok(q) = G::from_bytes(&v) {
                assert_ne!(
                    q, *p,
                    "{name}: flipped bit {bit} decodes to the same element"
                );
                assert_eq!(
                    q.to_bytes().as_ref(),
                    &v[..],
                    "{name}: accepted encoding is canonical"
                );
            }
        }
    }
    // Random strings: never panic; anything accepted re-encodes to exactly the input.
    for _ in 0..64 {
        let mut v = vec![0u8; len];
        rng.fill_bytes(&mut v);
        if let Ok(q) = G::from_bytes(&v) {
            assert_eq!(
                q.to_bytes().as_ref(),
                &v[..],
                "{name}: accepted encoding is canonical"
            );
        }
    }
    assert!(
        G::from_bytes(&vec![0xff; len]).is_err(),
        "{name}: all-ones rejected"
    );
}

/// Asserts that each `(encoding, expected error)` is rejected with exactly that error.
pub fn check_rejects<G: Group>(cases: &[(&[u8], DecodeError)]) {
    for (i, (bytes, expected)) in cases.iter().enumerate() {
        assert_eq!(
            G::from_bytes(bytes).map(|p| p.to_bytes()),
            Err(*expected),
            "{}: invalid encoding #{i} ({}) not rejected as expected",
            G::NAME,
            hex_short(bytes)
        );
    }
}

fn hex_short(bytes: &[u8]) -> String {
    bytes
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
        + "…"
}

/// Hash to group: deterministic, never the identity, distinct across messages and domains.
pub fn check_hash_to_group<G: Group>() {
    let name = G::NAME;
    let a = G::hash_to_group(b"verdict-test", b"message");
    assert_eq!(
        a,
        G::hash_to_group(b"verdict-test", b"message"),
        "{name}: deterministic"
    );
    assert!(!a.is_identity(), "{name}: hash is not the identity");
    assert_ne!(
        a,
        G::hash_to_group(b"verdict-test", b"messagf"),
        "{name}: message separation"
    );
    assert_ne!(
        a,
        G::hash_to_group(b"verdict-tesu", b"message"),
        "{name}: domain separation"
    );
    assert_ne!(
        G::hash_to_group(b"ab", b"c"),
        G::hash_to_group(b"a", b"bc"),
        "{name}: (dst, msg) boundary is framed"
    );
    assert_ne!(a, G::generator(), "{name}: hash is not the generator");
    let many: Vec<G> = (0u32..32)
        .map(|i| G::hash_to_group(b"verdict-test", &i.to_le_bytes()))
        .collect();
    for i in 0..many.len() {
        for j in 0..i {
            assert_ne!(
                many[i], many[j],
                "{name}: hash collision between {i} and {j}"
            );
        }
    }
}

/// Embedding round trip on edge and random payloads, typed errors for everything else.
pub fn check_embedding<G: MessageGroup, R: RngCore + CryptoRng>(rng: &mut R) {
    let name = G::NAME;
    let cap = G::CAPACITY;
    let mut payloads: Vec<Vec<u8>> = vec![
        vec![],
        vec![0x00],
        vec![0xff],
        vec![0x00; cap],
        vec![0xff; cap],
        vec![0x00; cap - 1],
        vec![0xff; cap - 1],
    ];
    for len in 0..=cap {
        let mut p = vec![0u8; len];
        rng.fill_bytes(&mut p);
        payloads.push(p);
    }
    let mut images = Vec::new();
    for p in &payloads {
        let e = G::embed(p).unwrap_or_else(|err| panic!("{name}: embed {} bytes: {err}", p.len()));
        assert!(!e.is_identity(), "{name}: embedding is never the identity");
        assert_eq!(
            e.extract().as_deref(),
            Ok(&p[..]),
            "{name}: embedding round trip"
        );
        assert_eq!(G::embed(p), Ok(e), "{name}: embedding is deterministic");
        let decoded = G::from_bytes(e.to_bytes().as_ref());
        assert_eq!(decoded, Ok(e), "{name}: embedded element survives the wire");
        images.push(e);
    }
    // Injectivity on the sample: distinct payloads, distinct elements.
    for i in 0..payloads.len() {
        for j in 0..i {
            if payloads[i] != payloads[j] {
                assert_ne!(images[i], images[j], "{name}: embedding not injective");
            }
        }
    }
    assert_eq!(
        G::embed(&vec![0u8; cap + 1]),
        Err(EmbedError::PayloadTooLong {
            len: cap + 1,
            capacity: cap
        }),
        "{name}: oversize payload"
    );
    assert_eq!(
        G::identity().extract(),
        Err(EmbedError::Identity),
        "{name}: identity has no payload"
    );
    // Arbitrary elements: extract never panics. Most are rejected.
    let mut rejected = 0;
    for _ in 0..64 {
        if G::random(rng).extract().is_err() {
            rejected += 1;
        }
    }
    assert!(
        rejected >= 32,
        "{name}: random elements are mostly not embeddings ({rejected}/64)"
    );
}

/// Framing round trip for many lengths, exact capacity, and rejection of garbage.
pub fn check_framing<G: MessageGroup, R: RngCore + CryptoRng>(rng: &mut R) {
    let name = G::NAME;
    let cap = G::CAPACITY;
    for len in (0..3 * cap + 7).chain([1000, 4096]) {
        let mut msg = vec![0u8; len];
        rng.fill_bytes(&mut msg);
        let n = elements_needed::<G>(len);
        assert!(
            max_message_len::<G>(n) >= len,
            "{name}: capacity accounting"
        );
        let els = encode_message::<G>(&msg, n).unwrap();
        assert_eq!(els.len(), n);
        assert_eq!(
            decode_message::<G>(&els),
            Ok(msg.clone()),
            "{name}: frame round trip {len}"
        );
        // Extra slack elements are fine.
        let els = encode_message::<G>(&msg, n + 2).unwrap();
        assert_eq!(
            decode_message::<G>(&els),
            Ok(msg.clone()),
            "{name}: padded frame {len}"
        );
        if n > 0 && len > 0 {
            assert!(
                matches!(
                    encode_message::<G>(&msg, n - 1),
                    Err(FrameError::TooLong { .. })
                ),
                "{name}: too long for the slot"
            );
        }
        // Corrupting any element must not yield the original message.
        let mut bad = encode_message::<G>(&msg, n).unwrap();
        let i = (rng.next_u32() as usize) % bad.len();
        bad[i] += G::random(rng);
        assert_ne!(
            decode_message::<G>(&bad),
            Ok(msg.clone()),
            "{name}: corruption detected"
        );
    }
    // Exactly full: header + message fill the elements with no padding.
    let n = 3;
    let msg = vec![0xa5; max_message_len::<G>(n)];
    let els = encode_message::<G>(&msg, n).unwrap();
    assert_eq!(
        decode_message::<G>(&els),
        Ok(msg),
        "{name}: exactly full frame"
    );
    assert_eq!(
        decode_message::<G>(&[G::identity(); 4]),
        Err(FrameError::Empty),
        "{name}: all-identity vector"
    );
    assert_eq!(
        decode_message::<G>(&[]),
        Err(FrameError::Empty),
        "{name}: no elements"
    );
    // A frame whose length header lies.
    let mut chunk = vec![0u8; cap];
    chunk[..4].copy_from_slice(&u32::MAX.to_be_bytes());
    let lying = [G::embed(&chunk).unwrap()];
    assert!(
        matches!(decode_message::<G>(&lying), Err(FrameError::Malformed(_))),
        "{name}: length header beyond the frame"
    );
    let mut chunk = vec![0u8; cap];
    chunk[cap - 1] = 1;
    let dirty = [G::embed(&chunk).unwrap()];
    assert!(
        matches!(decode_message::<G>(&dirty), Err(FrameError::Malformed(_))),
        "{name}: non-zero padding"
    );
    let short = [G::embed(&[0u8; 4]).unwrap()];
    assert!(
        matches!(decode_message::<G>(&short), Err(FrameError::Malformed(_))),
        "{name}: element carrying a short chunk"
    );
    let with_identity = [G::embed(&vec![0u8; cap]).unwrap(), G::identity()];
    assert!(
        matches!(
            decode_message::<G>(&with_identity),
            Err(FrameError::Element {
                index: 1,
                source: EmbedError::Identity
            })
        ),
        "{name}: identity inside a frame"
    );
}
