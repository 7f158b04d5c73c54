//! ristretto255: the conformance suite and RFC 9496 known-answer tests.

use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use verdict_group::{DecodeError, Group, Ristretto255, testing};

#[test]
fn conformance() {
    let mut rng = ChaCha20Rng::seed_from_u64(0x5249_5354);
    testing::check_group::<Ristretto255, _>(&mut rng);
    testing::check_message_group::<Ristretto255, _>(&mut rng);
}
