//! Property tests: decoders never panic on arbitrary bytes, and accept only canonical,
//! correctly sized encodings.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use verdict_dcnet::testing;
use verdict_dcnet::{Ciphersuite, DhReveal, HashingGenerator, Xor};
use verdict_group::{P256, Ristretto255};

type HgR = HashingGenerator<Ristretto255>;
type HgP = HashingGenerator<P256>;
type X = Xor<Ristretto255>;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes_never_panic(len in 0usize..200, bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        testing::decoders_never_panic::<HgR>(len, &bytes);
        testing::decoders_never_panic::<HgP>(len, &bytes);
        testing::decoders_never_panic::<X>(len, &bytes);
        let _ = DhReveal::<Ristretto255>::from_bytes(&bytes);
        let _ = DhReveal::<P256>::from_bytes(&bytes);
    }

    /// Correctly sized random bytes: the hashing-generator decoder validates every field
    /// (random 32-byte strings are almost never valid ristretto255 encodings).
    #[test]
    fn sized_garbage_is_rejected(len in 0usize..100, seed in any::<u64>()) {
        let mut r = testing::rng(seed);
        let mut b = vec![0u8; HgR::client_ciphertext_len(len)];
        rand::RngCore::fill_bytes(&mut r, &mut b);
        prop_assert!(HgR::decode_client_ciphertext(len, &b).is_err());
        let mut b = vec![0u8; HgR::server_ciphertext_len(len)];
        rand::RngCore::fill_bytes(&mut r, &mut b);
        prop_assert!(HgR::decode_server_ciphertext(len, &b).is_err());
    }
}

#[test]
fn set_up_messages_round_trip_and_reject_garbage() {
    let mut r = testing::rng(31);
    let w = testing::setup::<HgR>(3, 2, 1, &mut r);
    let roster = w.session.roster();
    for s in &w.client_setups {
        let b = HgR::encode_client_setup(s);
        assert_eq!(b.len(), 2 * 32);
        assert_eq!(&HgR::decode_client_setup(roster, &b).unwrap(), s);
        assert!(HgR::decode_client_setup(roster, &b[..b.len() - 1]).is_err());
        assert!(HgR::decode_server_setup(roster, &b).is_err()); // 3 clients, not 2
        let mut id = b.clone();
        id[..32].fill(0); // the identity is not a valid commitment
        assert!(HgR::decode_client_setup(roster, &id).is_err());
    }
    for s in &w.server_setups {
        let b = HgR::encode_server_setup(s);
        assert_eq!(&HgR::decode_server_setup(roster, &b).unwrap(), s);
    }
    assert!(HgR::decode_public_key(&[0u8; 32]).is_err());
}
