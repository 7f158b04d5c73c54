#![allow(dead_code)]

use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;
use verdict_group::{Group, Scalar};
use verdict_nizk::{Context, Encoded};

pub type G = verdict_group::Ristretto255;
pub type S = <G as Group>::Scalar;

pub fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

pub fn ctx() -> Context {
    Context::new(b"verdict-nizk/test", [7u8; 32])
        .with_round(3)
        .with_slot(5)
        .with_sender(11)
}

pub fn random_points<Gr: Group>(n: usize, rng: &mut ChaCha20Rng) -> Vec<Encoded<Gr>> {
    (0..n).map(|_| Encoded::new(Gr::random(rng))).collect()
}

pub fn scalar(rng: &mut ChaCha20Rng) -> S {
    S::random(rng)
}
