//! ristretto255: the conformance suite and the RFC 9496 known-answer tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use verdict_group::{DecodeError, Group, MessageGroup, Ristretto255, Scalar, testing};

type S = <Ristretto255 as Group>::Scalar;

#[test]
fn conformance() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x5249_5354);
    testing::check_group::<Ristretto255, _>(&mut rng);
    testing::check_message_group::<Ristretto255, _>(&mut rng);
}

/// The vendored RFC 9496 Appendix A vectors, as `(section, fields)` lines.
fn rfc9496_vectors() -> Vec<(String, Vec<String>)> {
    include_str!("vectors/ristretto255.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut parts = l.split_whitespace().map(str::to_owned);
            let section = parts.next().unwrap();
            (section, parts.collect())
        })
        .collect()
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap()
}

#[test]
fn rfc9496_a1_multiples_of_the_generator() {
    let vectors: Vec<_> = rfc9496_vectors()
        .into_iter()
        .filter(|(s, _)| s == "multiple")
        .collect();
    assert_eq!(vectors.len(), 16, "RFC 9496 A.1 lists 16 multiples");
    let mut acc = Ristretto255::identity();
    for (_, fields) in vectors {
        let k: u64 = fields[0].parse().unwrap();
        let expected = unhex(&fields[1]);
        let by_mul = Ristretto255::generator() * S::from_u64(k);
        assert_eq!(
            acc.to_bytes().to_vec(),
            expected,
            "{k}·B by repeated addition"
        );
        assert_eq!(
            by_mul.to_bytes().to_vec(),
            expected,
            "{k}·B by multiplication"
        );
        assert_eq!(
            Ristretto255::mul_generator(&S::from_u64(k)),
            by_mul,
            "{k}·B by table"
        );
        assert_eq!(
            Ristretto255::from_bytes(&expected),
            Ok(by_mul),
            "{k}·B decodes"
        );
        acc += Ristretto255::generator();
    }
}

#[test]
fn rfc9496_a2_invalid_encodings_are_rejected_with_the_right_error() {
    let vectors: Vec<_> = rfc9496_vectors()
        .into_iter()
        .filter(|(s, _)| s == "invalid")
        .collect();
    assert_eq!(vectors.len(), 29, "RFC 9496 A.2 lists 29 invalid encodings");
    for (_, fields) in vectors {
        let expected = match fields[0].as_str() {
            "non-canonical" | "negative" => DecodeError::NonCanonical,
            "nonsquare" | "negative-xy" | "zero-y" => DecodeError::NotOnCurve,
            other => panic!("unknown rule {other}"),
        };
        let bytes = unhex(&fields[1]);
        testing::check_rejects::<Ristretto255>(&[(&bytes, expected)]);
    }
}

#[test]
fn rfc9496_a3_element_derivation_from_uniform_bytes() {
    let vectors: Vec<_> = rfc9496_vectors()
        .into_iter()
        .filter(|(s, _)| s == "from-uniform")
        .collect();
    assert_eq!(vectors.len(), 7, "RFC 9496 A.3 lists 7 derivations");
    for (_, fields) in vectors {
        let input: [u8; 64] = unhex(&fields[0]).try_into().unwrap();
        let p = verdict_group::ristretto255::Point::from_uniform_bytes(&input);
        assert_eq!(p.to_bytes().to_vec(), unhex(&fields[1]));
    }
}

#[test]
fn wrong_lengths_and_scalar_order() {
    testing::check_rejects::<Ristretto255>(&[
        (
            &[],
            DecodeError::WrongLength {
                expected: 32,
                actual: 0,
            },
        ),
        (
            &[0u8; 33],
            DecodeError::WrongLength {
                expected: 32,
                actual: 33,
            },
        ),
    ]);
    // ℓ itself is not a canonical scalar; ℓ − 1 is.
    let mut ell = unhex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");
    assert_eq!(S::from_bytes(&ell), Err(DecodeError::NonCanonical));
    ell[0] -= 1;
    assert_eq!(S::from_bytes(&ell), Ok(-S::one()));
}

#[test]
fn embedding_layout_is_as_documented() {
    // The payload sits in bytes 1..=30 of the canonical encoding and its length in byte 31.
    let p = Ristretto255::embed(b"verdict").unwrap();
    let enc = p.to_bytes();
    assert_eq!(&enc[1..8], b"verdict");
    assert!(enc[8..31].iter().all(|&b| b == 0));
    assert_eq!(enc[31] & 0x1f, 7);
    assert_eq!(enc[0] & 1, 0);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn decode_never_panics_and_accepts_only_canonical(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
            if let Ok(p) = Ristretto255::from_bytes(&bytes) {
                prop_assert_eq!(p.to_bytes().to_vec(), bytes);
            }
        }

        #[test]
        fn embedding_round_trips(payload in proptest::collection::vec(any::<u8>(), 0..=30)) {
            let p = Ristretto255::embed(&payload).unwrap();
            prop_assert_eq!(p.extract().unwrap(), payload);
        }

        #[test]
        fn framing_round_trips(msg in proptest::collection::vec(any::<u8>(), 0..300), slack in 0usize..3) {
            use verdict_group::framing::*;
            let n = elements_needed::<Ristretto255>(msg.len()) + slack;
            let els = encode_message::<Ristretto255>(&msg, n).unwrap();
            prop_assert_eq!(decode_message::<Ristretto255>(&els).unwrap(), msg);
        }
    }
}

/// The wrappers expose the dalek values they wrap, and a fixed-base table prints its base
/// (not its 30 KB of multiples).
#[test]
fn inner_values_and_table_debug() {
    let g = Ristretto255::generator();
    assert_eq!(g.inner(), &g.0);
    assert_eq!(
        g.inner().compress().to_bytes().as_slice(),
        g.to_bytes().as_ref()
    );
    let s = S::from_u64(12_345);
    assert_eq!(s.inner(), &s.0);
    assert_eq!(s.inner().to_bytes(), s.to_bytes());
    let table = g.precompute();
    assert_eq!(format!("{table:?}"), format!("Table {{ base: {g:?}, .. }}"));
}

/// The embedding follows its definition: the first counter `c` (from 0) whose candidate
/// `u8(c mod 128) << 1 ‖ payload ‖ zero padding ‖ len | (c >> 7) << 5` decodes to a point
/// other than the identity. Another candidate order would still round-trip, so only this
/// recomputation (or the vectors) catches it.
#[test]
fn embedding_takes_the_first_valid_candidate() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x454d_4245);
    let candidate = |payload: &[u8], c: u16| {
        let mut b = [0u8; 32];
        b[0] = ((c % 128) as u8) << 1;
        b[1..1 + payload.len()].copy_from_slice(payload);
        b[31] = payload.len() as u8 | (((c >> 7) as u8) << 5);
        b
    };
    let mut past_first = 0;
    for len in 0..=30usize {
        for _ in 0..4 {
            let payload: Vec<u8> = (0..len).map(|_| rand::Rng::r#gen(&mut rng)).collect();
            let enc = Ristretto255::embed(&payload).unwrap().to_bytes();
            let c = u16::from(enc[0] >> 1) | u16::from(enc[31] >> 5) << 7;
            assert_eq!(enc.as_ref(), candidate(&payload, c), "len {len}");
            for earlier in 0..c {
                let skipped = Ristretto255::from_bytes(&candidate(&payload, earlier));
                assert!(
                    skipped.is_err() || skipped == Ok(Ristretto255::identity()),
                    "len {len}: counter {earlier} was valid but skipped"
                );
            }
            past_first += usize::from(c > 0);
        }
    }
    // About three in four first candidates fail: the search itself was exercised.
    assert!(past_first > 40, "{past_first}");
}
