//! Forking a member's RNG into one RNG per slot, so that per-slot work can run in parallel.
//!
//! A server's batch of client proofs (random weights), its server ciphertexts and a client's
//! ciphertexts (proof blinding) draw randomness slot by slot. Drawing from one RNG in turn
//! would tie each slot's randomness to the order the slots run in; instead one 32-byte seed per
//! slot is drawn from the member's RNG, in slot order, before any slot's work starts, and each
//! slot's work draws from a ChaCha20 generator seeded with its own seed. What a member sends
//! then depends on its seed alone, not on the thread count or on which thread finishes first:
//! a serial and a parallel member produce the same bytes (`tests/parallel.rs`).
//!
//! A seed is as secret as the randomness it expands to; seeds are wiped on drop. (The ChaCha20
//! generator's own state is not: `rand_chacha` does not implement zeroize; it lives for one
//! slot's work on the stack of the thread doing it.)

use rand_chacha::ChaCha20Rng;
use rand_core::{CryptoRng, RngCore, SeedableRng};
use zeroize::Zeroizing;

/// One seed per job, drawn from `rng` in order.
pub(crate) fn seeds<R: RngCore + CryptoRng + ?Sized>(
    rng: &mut R,
    jobs: usize,
) -> Vec<Zeroizing<[u8; 32]>> {
    (0..jobs)
        .map(|_| {
            let mut seed = Zeroizing::new([0u8; 32]);
            rng.fill_bytes(seed.as_mut());
            seed
        })
        .collect()
}

/// The RNG of one job.
pub(crate) fn rng(seed: &[u8; 32]) -> ChaCha20Rng {
    ChaCha20Rng::from_seed(*seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_drawn_in_order_and_differ() {
        let mut a = ChaCha20Rng::seed_from_u64(9);
        let mut b = ChaCha20Rng::seed_from_u64(9);
        let three = seeds(&mut a, 3);
        let first = seeds(&mut b, 1);
        assert_eq!(
            *three[0], *first[0],
            "the first seed does not depend on the count"
        );
        assert_ne!(*three[0], *three[1]);
        assert_ne!(*three[1], *three[2]);
        let (mut x, mut y) = (rng(&three[0]), rng(&three[1]));
        assert_ne!(x.next_u64(), y.next_u64());
    }
}
