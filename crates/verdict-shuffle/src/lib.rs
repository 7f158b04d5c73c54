#![doc = include_str!("../README.md")]

/// Protocol, soundness traps, verifiers and costs.
#[doc = include_str!("../docs/notes-shuffle.md")]
pub mod notes {}

pub mod elgamal;
pub mod error;
mod hooks;
pub mod keyshuffle;
pub mod shuffle;
pub mod simple;
mod transcript;
mod util;
pub mod wire;

pub use elgamal::{Ciphertext, CiphertextList, KeyPair, joint_key};
pub use error::{Check, KeyShuffleError, ShuffleDecodeError, ShuffleError};
pub use keyshuffle::{KeyShuffle, KeyShuffleParams, Phase};
pub use shuffle::{
    ShuffleProof, ShuffleStatement, ShuffleWitness, prove, shuffle, verify, verify_each,
};
pub use simple::{
    SimpleShuffleProof, SimpleStatement, prove_simple, verify_simple, verify_simple_batched,
};

use transcript::Transcript;
use verdict_group::Group;

/// Version of the proof formats and transcripts; absorbed into every transcript.
pub const VERSION: u64 = 1;

/// Who proves what, where: bound into every Fiat–Shamir transcript so a proof cannot be
/// replayed in another session or claimed by another prover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProofContext {
    /// The session identifier (a hash of roster, policy and nonce).
    pub session: [u8; 32],
    /// The prover's index (a server's position in the roster, or a client's).
    pub prover: u32,
}

impl ProofContext {
    /// A context for `session` and `prover`.
    pub fn new(session: [u8; 32], prover: u32) -> Self {
        Self { session, prover }
    }

    /// A transcript for `purpose` binding version, group, session, prover and `n`.
    pub(crate) fn transcript<G: Group>(&self, purpose: &'static [u8], n: usize) -> Transcript {
        let mut t = verdict_nizk::Context::new(purpose, self.session)
            .with_sender(self.prover)
            .with_field(b"version", &VERSION.to_le_bytes())
            .with_field(b"group", G::NAME.as_bytes())
            .transcript();
        t.append_u64(b"n", n as u64);
        t
    }
}
