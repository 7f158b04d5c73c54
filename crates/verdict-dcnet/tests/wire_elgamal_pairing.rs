//! Property tests for the ElGamal and pairing decoders: arbitrary bytes never panic, and
//! whatever decodes has the declared size and re-encodes to the same bytes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use verdict_dcnet::Ciphersuite;
use verdict_dcnet::elgamal::ElGamal;
use verdict_dcnet::pairing::{Chunk16, Pairing};
use verdict_dcnet::testing;
use verdict_group::{P256, Ristretto255};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn arbitrary_bytes_never_panic(len in 0usize..100, bytes in proptest::collection::vec(any::<u8>(), 0..800)) {
        testing::decoders_never_panic::<ElGamal<Ristretto255>>(len, &bytes);
        testing::decoders_never_panic::<ElGamal<P256>>(len, &bytes);
        testing::decoders_never_panic::<Pairing<Chunk16>>(len % 4, &bytes);
    }

    /// Correctly sized garbage reaches the field validators and is rejected.
    #[test]
    fn sized_garbage_is_rejected(len in 0usize..60, fill in any::<u8>(), seed in any::<u64>()) {
        let n = ElGamal::<Ristretto255>::client_ciphertext_len(len);
        let b: Vec<u8> = (0..n).map(|i| fill ^ (seed.rotate_left(i as u32 % 64) as u8)).collect();
        testing::decoders_never_panic::<ElGamal<Ristretto255>>(len, &b);
        let n = Pairing::<Chunk16>::client_ciphertext_len(len % 3);
        let b: Vec<u8> = (0..n).map(|i| fill ^ (seed.rotate_left(i as u32 % 64) as u8)).collect();
        prop_assert!(Pairing::<Chunk16>::decode_client_ciphertext(len % 3, &b).is_err());
    }
}
