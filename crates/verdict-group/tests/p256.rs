//! P-256: the conformance suite, SEC1 known answers, rejection of invalid encodings, and
//! cross-checks against arkworks' own arithmetic and serialization.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panicking test is a failing test

use ark_ec::{AffineRepr, CurveGroup, PrimeGroup};
use ark_ff::{BigInteger, Field, PrimeField};
use ark_secp256r1::{Affine, Fq, Fr, G_GENERATOR_X, G_GENERATOR_Y, Projective};
use ark_serialize::CanonicalSerialize;
use proptest::prelude::*;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use verdict_group::p256::{IDENTITY_ENCODING, Scalar};
use verdict_group::{DecodeError, EmbedError, Group, MessageGroup, P256, Scalar as _, testing};

/// The field prime p, big-endian.
const P_HEX: &str = "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff";
/// The group order n, big-endian.
const N_HEX: &str = "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551";
/// Compressed k·G for k = 1, 2, 3 (x-coordinates as published for P-256; the prefixes follow
/// from the parity of the published y-coordinates).
const G1_HEX: &str = "036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296";
const G2_HEX: &str = "037cf27b188d034f7e8a52380304b51ac3c08969e277f21b35a60b48fc47669978";
const G3_HEX: &str = "025ecbe4d1a6330a44c8f7ef951d4bf165e6c6b721efada985fb41661bc6e7fd6c";

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

fn with_prefix(prefix: u8, x: &[u8]) -> Vec<u8> {
    let mut v = vec![prefix];
    v.extend_from_slice(x);
    v
}

/// 32-byte big-endian encoding of a field element.
fn fq_be(x: &Fq) -> Vec<u8> {
    x.into_bigint().to_bytes_be()
}

/// The smallest x with x³ − 3x + b a non-square, found with arkworks' field arithmetic.
fn off_curve_x() -> Vec<u8> {
    let b = <ark_secp256r1::Config as ark_ec::short_weierstrass::SWCurveConfig>::COEFF_B;
    let x = (0u64..)
        .map(Fq::from)
        .find(|x| (x.square() * x - x - x - x + b).sqrt().is_none())
        .unwrap();
    fq_be(&x)
}

#[test]
fn conformance() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x5032_3536);
    testing::check_group::<P256, _>(&mut rng);
    testing::check_message_group::<P256, _>(&mut rng);
}

#[test]
fn rejects_invalid_encodings() {
    let gx = &unhex(G1_HEX)[1..];
    let p = unhex(P_HEX);
    let p_plus_one = unhex("ffffffff00000001000000000000000000000001000000000000000000000000");
    let ones = [0xffu8; 32];
    let mut nonzero_x = [0u8; 32];
    nonzero_x[31] = 1;
    let off = off_curve_x();
    // x = 1 is the smallest such x (cross-checked against an independent computation).
    assert_eq!(off, {
        let mut v = vec![0u8; 32];
        v[31] = 1;
        v
    });
    let g = unhex(G1_HEX);
    let mut uncompressed = vec![0x04];
    uncompressed.extend_from_slice(&fq_be(&G_GENERATOR_X));
    uncompressed.extend_from_slice(&fq_be(&G_GENERATOR_Y));

    let cases: Vec<(Vec<u8>, DecodeError)> = vec![
        (with_prefix(0x04, gx), DecodeError::NonCanonical),
        (with_prefix(0x00, gx), DecodeError::NonCanonical),
        (with_prefix(0x00, &nonzero_x), DecodeError::NonCanonical),
        (with_prefix(0x05, gx), DecodeError::NonCanonical),
        (with_prefix(0x01, gx), DecodeError::NonCanonical),
        (with_prefix(0xff, &[0xff; 32]), DecodeError::NonCanonical),
        (with_prefix(0x02, &p), DecodeError::NonCanonical),
        (with_prefix(0x03, &p), DecodeError::NonCanonical),
        (with_prefix(0x02, &p_plus_one), DecodeError::NonCanonical),
        (with_prefix(0x02, &ones), DecodeError::NonCanonical),
        (with_prefix(0x03, &ones), DecodeError::NonCanonical),
        (with_prefix(0x02, &off), DecodeError::NotOnCurve),
        (with_prefix(0x03, &off), DecodeError::NotOnCurve),
        (
            vec![],
            DecodeError::WrongLength {
                expected: 33,
                actual: 0,
            },
        ),
        // SEC1's own one-byte identity encoding.
        (
            vec![0x00],
            DecodeError::WrongLength {
                expected: 33,
                actual: 1,
            },
        ),
        (
            g[..32].to_vec(),
            DecodeError::WrongLength {
                expected: 33,
                actual: 32,
            },
        ),
        (
            [&g[..], &[0u8]].concat(),
            DecodeError::WrongLength {
                expected: 33,
                actual: 34,
            },
        ),
        (
            vec![0u8; 34],
            DecodeError::WrongLength {
                expected: 33,
                actual: 34,
            },
        ),
        (
            uncompressed,
            DecodeError::WrongLength {
                expected: 33,
                actual: 65,
            },
        ),
    ];
    let refs: Vec<(&[u8], DecodeError)> = cases.iter().map(|(b, e)| (&b[..], *e)).collect();
    testing::check_rejects::<P256>(&refs);
}

#[test]
fn identity_encoding() {
    let id = P256::identity();
    assert_eq!(id.to_bytes(), IDENTITY_ENCODING);
    assert_eq!(IDENTITY_ENCODING, [0u8; 33]);
    assert_eq!(P256::from_bytes(&[0u8; 33]), Ok(id));
    assert_eq!(
        P256::from_bytes_nonidentity(&[0u8; 33]),
        Err(DecodeError::Identity)
    );
    let g = P256::generator();
    let batch = P256::batch_to_bytes(&[g, id, g.double(), id]);
    assert_eq!(
        batch,
        vec![
            g.to_bytes(),
            IDENTITY_ENCODING,
            g.double().to_bytes(),
            IDENTITY_ENCODING
        ]
    );
    assert!(P256::batch_to_bytes(&[]).is_empty());
}

#[test]
fn generator_known_answers() {
    let g = P256::generator();
    assert_eq!(g.0.into_affine(), Affine::new(G_GENERATOR_X, G_GENERATOR_Y));
    assert_eq!(g.0, Projective::generator());
    for (k, hex) in [(1u64, G1_HEX), (2, G2_HEX), (3, G3_HEX)] {
        let expect = unhex(hex);
        let kg = P256::mul_generator(&Scalar::from_u64(k));
        assert_eq!(kg.to_bytes().to_vec(), expect, "{k}·G encoding");
        assert_eq!(P256::from_bytes(&expect), Ok(kg), "{k}·G decoding");
        // Independently: arkworks' affine arithmetic and ark-serialize's uncompressed output
        // (x then y, each 32 bytes little-endian, flags in the top bits of y's last byte).
        let ark = (Affine::generator() * Fr::from(k)).into_affine();
        let mut ser = Vec::new();
        ark.serialize_uncompressed(&mut ser).unwrap();
        let mut x: Vec<u8> = ser[..32].to_vec();
        x.reverse();
        let mut y_le = ser[32..].to_vec();
        y_le[31] &= 0x3f;
        let y_odd = y_le[0] & 1 == 1;
        assert_eq!(&expect[1..], &x[..], "{k}·G x against ark-serialize");
        assert_eq!(expect[0], 0x02 | u8::from(y_odd), "{k}·G parity");
        assert_eq!(x, fq_be(&ark.x().unwrap()));
    }
}

#[test]
fn scalar_encoding_known_answers() {
    let n = unhex(N_HEX);
    let mut one = [0u8; 32];
    one[31] = 1;
    assert_eq!(Scalar::one().to_bytes(), one);
    let mut le_one = [0u8; 32];
    le_one[0] = 1;
    assert_eq!(Scalar::one().to_le_bytes(), le_one);
    let mut n_minus_one = n.clone();
    n_minus_one[31] -= 1;
    assert_eq!((-Scalar::one()).to_bytes().to_vec(), n_minus_one);
    assert_eq!(Scalar::from_bytes(&n), Err(DecodeError::NonCanonical));
    let mut n_plus_one = n.clone();
    n_plus_one[31] += 1;
    assert_eq!(
        Scalar::from_bytes(&n_plus_one),
        Err(DecodeError::NonCanonical)
    );
    assert_eq!(
        Scalar::from_bytes(&[0u8; 31]),
        Err(DecodeError::WrongLength {
            expected: 32,
            actual: 31
        })
    );
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    for _ in 0..32 {
        let s = Scalar::random(&mut rng);
        let be = s.0.into_bigint().to_bytes_be();
        assert_eq!(s.to_bytes().to_vec(), be);
        let mut le = s.to_le_bytes().to_vec();
        le.reverse();
        assert_eq!(le, be);
        assert_eq!(Scalar::from_bytes(&be), Ok(s));
    }
}

#[test]
fn wide_reduction_matches_reference() {
    let mut rng = ChaCha20Rng::seed_from_u64(2);
    let mut inputs: Vec<[u8; 64]> = vec![[0xff; 64], [0; 64], [0xfe; 64]];
    // hi and lo exactly n, and just above n.
    let n = unhex(N_HEX);
    let mut nn = [0u8; 64];
    nn[..32].copy_from_slice(&n);
    nn[32..].copy_from_slice(&n);
    inputs.push(nn);
    nn[31] += 1;
    nn[63] += 1;
    inputs.push(nn);
    for _ in 0..256 {
        let mut b = [0u8; 64];
        rng.fill_bytes(&mut b);
        inputs.push(b);
    }
    for b in inputs {
        assert_eq!(
            Scalar::from_uniform_bytes(&b).0,
            Fr::from_be_bytes_mod_order(&b),
            "{}",
            hex::encode(b)
        );
    }
}

#[test]
fn double_base_edge_cases() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let g = P256::generator();
    let p = P256::random(&mut rng);
    let zero = Scalar::zero();
    let one = Scalar::one();
    let a = Scalar::random(&mut rng);
    let b = Scalar::random(&mut rng);
    let bases = [p, g, -g, g.double(), P256::identity()];
    let scalars = [
        zero,
        one,
        -one,
        a,
        b,
        Scalar::from_u64(2),
        -Scalar::from_u64(2),
    ];
    for base in bases {
        for x in scalars {
            assert_eq!(base.mul_vartime(&x), base * x, "{base:?} {x:?}");
            for y in scalars {
                assert_eq!(
                    base.mul_add_generator_vartime(&x, &y),
                    base * x + g * y,
                    "{base:?} {x:?} {y:?}"
                );
            }
        }
    }
    // a·G + b·G collapses to a doubling inside the mixed addition when a = b.
    assert_eq!(g.mul_add_generator_vartime(&a, &a), g * (a + a));
    assert_eq!(g.mul_add_generator_vartime(&a, &-a), P256::identity());
}

#[test]
fn msm_edge_cases() {
    let mut rng = ChaCha20Rng::seed_from_u64(4);
    let g = P256::generator();
    let p = P256::random(&mut rng);
    let a = Scalar::random(&mut rng);
    let id = P256::identity();
    let mut cases: Vec<(Vec<Scalar>, Vec<P256>)> = vec![
        (vec![], vec![]),
        (vec![a], vec![id]),
        (vec![Scalar::zero()], vec![p]),
        (vec![a, a], vec![p, p]),
        (vec![a, -a], vec![p, p]),
        (vec![a, Scalar::one()], vec![g, -g]),
        (vec![a, a, a], vec![p, id, p]),
        (vec![Scalar::zero(); 5], vec![p; 5]),
    ];
    // Both sides of the interleaved-wNAF / Pippenger threshold, with identities and zeros.
    for n in [31usize, 32, 33, 40] {
        let s: Vec<Scalar> = (0..n)
            .map(|i| match i % 5 {
                0 => Scalar::zero(),
                1 => -Scalar::one(),
                _ => Scalar::random(&mut rng),
            })
            .collect();
        let pts: Vec<P256> = (0..n)
            .map(|i| {
                if i % 7 == 3 {
                    id
                } else {
                    P256::random(&mut rng)
                }
            })
            .collect();
        cases.push((s, pts));
    }
    for (s, pts) in cases {
        let expect: P256 = s.iter().zip(&pts).map(|(s, p)| *p * s).sum();
        assert_eq!(P256::msm_vartime(&s, &pts), Ok(expect), "n = {}", s.len());
    }
}

#[test]
fn hash_to_group_properties() {
    let mut parities = [0usize; 2];
    for i in 0u32..64 {
        let h = P256::hash_to_group(b"verdict-test p256", &i.to_le_bytes());
        let enc = h.to_bytes();
        assert!(enc[0] == 2 || enc[0] == 3);
        parities[usize::from(enc[0] - 2)] += 1;
        assert_eq!(P256::from_bytes(&enc), Ok(h));
    }
    // Both signs of y occur (the parity comes from the XOF, not from a fixed rule).
    assert!(parities[0] > 8 && parities[1] > 8, "{parities:?}");
}

/// The point `0x02 ‖ x` (even y) for a hand-built x, if x is on the curve.
fn even_point(x: &[u8; 32]) -> Option<P256> {
    P256::from_bytes(&with_prefix(0x02, x)).ok()
}

#[test]
fn embedding_layout_and_rejections() {
    let e = P256::embed(b"abc").unwrap();
    let enc = e.to_bytes();
    assert_eq!(enc[0], 0x02, "even y");
    assert_eq!(enc[1], 3, "length byte");
    assert_eq!(&enc[2..5], b"abc");
    assert!(enc[5..32].iter().all(|&b| b == 0), "zero padding");
    // The counter is the first that works.
    for c in 0..enc[32] {
        let mut x = [0u8; 32];
        x.copy_from_slice(&enc[1..]);
        x[31] = c;
        assert!(even_point(&x).is_none());
    }
    // Odd y: the negation of an embedding.
    assert_eq!((-e).extract(), Err(EmbedError::NotAnEmbedding));
    assert_eq!(P256::identity().extract(), Err(EmbedError::Identity));

    // A hand-built x with a square right-hand side, for each malformed layout.
    let valid_with = |mut x: [u8; 32]| -> P256 {
        (0..=255u8)
            .find_map(|c| {
                x[31] = c;
                even_point(&x)
            })
            .unwrap()
    };
    let mut too_long = [0u8; 32];
    too_long[0] = 31;
    assert_eq!(
        valid_with(too_long).extract(),
        Err(EmbedError::NotAnEmbedding)
    );
    let mut dirty = [0u8; 32];
    dirty[0] = 2;
    dirty[1] = b'h';
    dirty[2] = b'i';
    dirty[30] = 1;
    assert_eq!(valid_with(dirty).extract(), Err(EmbedError::NotAnEmbedding));

    // A later counter than the first working one is outside the image of `embed`.
    let payload = b"hello";
    let mut x = [0u8; 32];
    x[0] = payload.len() as u8;
    x[1..6].copy_from_slice(payload);
    let working: Vec<u8> = (0..=255u8)
        .filter(|&c| {
            x[31] = c;
            even_point(&x).is_some()
        })
        .take(2)
        .collect();
    x[31] = working[0];
    assert_eq!(even_point(&x).unwrap(), P256::embed(payload).unwrap());
    assert_eq!(even_point(&x).unwrap().extract().unwrap(), payload);
    x[31] = working[1];
    assert_eq!(
        even_point(&x).unwrap().extract(),
        Err(EmbedError::NotAnEmbedding)
    );
    assert_eq!(
        P256::embed(&[0u8; 31]),
        Err(EmbedError::PayloadTooLong {
            len: 31,
            capacity: 30
        })
    );
}

proptest! {
    #[test]
    fn decode_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..=40)) {
        if let Ok(p) = P256::from_bytes(&bytes) {
            prop_assert_eq!(p.to_bytes().to_vec(), bytes);
        }
    }

    #[test]
    fn decode_compressed_never_panics(odd in any::<bool>(), x in any::<[u8; 32]>()) {
        let bytes = with_prefix(0x02 | u8::from(odd), &x);
        match P256::from_bytes(&bytes) {
            Ok(p) => prop_assert_eq!(p.to_bytes().to_vec(), bytes),
            Err(e) => prop_assert!(matches!(e, DecodeError::NonCanonical | DecodeError::NotOnCurve)),
        }
    }

    #[test]
    fn embed_round_trip(payload in proptest::collection::vec(any::<u8>(), 0..=30)) {
        let e = P256::embed(&payload).unwrap();
        prop_assert!(!e.is_identity());
        prop_assert_eq!(e.extract().unwrap(), payload);
        prop_assert_eq!(P256::from_bytes(&e.to_bytes()), Ok(e));
    }
}

/// The wrappers expose the arkworks values they wrap, and `to_affine` is the same point.
#[test]
fn inner_and_affine_values() {
    let s = Scalar::from_u64(99);
    assert_eq!(s.inner(), &s.0);
    assert_eq!(*s.inner(), Fr::from(99u64));
    let p = P256::generator() * s;
    assert_eq!(p.inner(), &p.0);
    let expected = Projective::generator() * Fr::from(99u64);
    assert_eq!(*p.inner(), expected);
    assert_eq!(p.to_affine(), expected.into_affine());
    assert_eq!(verdict_group::p256::Point::from(p.to_affine()), p);
}
