//! The aggregation contract ([`verdict_dcnet::Aggregating`]) for every suite that may
//! aggregate: hashing-generator on ristretto255 and P-256, pairing on BLS12-381.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use verdict_dcnet::HashingGenerator;
use verdict_dcnet::pairing::{Chunk16, Pairing};
use verdict_dcnet::testing;
use verdict_group::{P256, Ristretto255};

#[test]
fn hashing_generator_ristretto255() {
    testing::aggregation::<HashingGenerator<Ristretto255>>(9, 3, 200, 1);
    testing::aggregation::<HashingGenerator<Ristretto255>>(2, 1, 1, 2);
    testing::aggregation::<HashingGenerator<Ristretto255>>(5, 4, 0, 3);
}

#[test]
fn hashing_generator_p256() {
    testing::aggregation::<HashingGenerator<P256>>(6, 2, 100, 4);
}

#[test]
fn pairing_chunk16() {
    testing::aggregation::<Pairing<Chunk16>>(4, 2, 4, 5);
}

/// An aggregate of the wrong length names the length it should have had: `L` elements.
#[test]
fn element_sum_length_errors_name_the_expected_length() {
    use verdict_dcnet::{DcDecodeError, ElementSum};
    assert_eq!(
        ElementSum::<Ristretto255>::decode(3, &[0u8; 95]).err(),
        Some(DcDecodeError::Length {
            expected: 96,
            actual: 95
        })
    );
    assert_eq!(
        ElementSum::<Ristretto255>::decode(3, &[0u8; 96])
            .unwrap()
            .elements()
            .len(),
        3
    );
}
