#![doc = include_str!("../README.md")]

pub mod elgamal;
pub mod error;
mod hooks;
pub mod shuffle;
pub mod simple;
mod transcript;
mod util;

pub use elgamal::{Ciphertext, KeyPair, joint_key};
pub use error::{Check, KeyShuffleError, ShuffleError, WireError};
pub use shuffle::{
    ShuffleProof, ShuffleStatement, ShuffleWitness, prove, shuffle, verify, verify_each,
};
pub use simple::{
    SimpleShuffleProof, SimpleStatement, prove_simple, verify_simple, verify_simple_batched,
};

use verdict_group::Group;

/// Version of the proof formats and transcripts; absorbed into every transcript.
pub const VERSION: u64 = 1;

/// Who proves what, where: bound into every Fiat–Shamir transcript so a proof cannot be
/// replayed in another session or claimed by another prover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProofContext<'a> {
    /// The session identifier (a hash of roster, policy and nonce).
    pub session: &'a [u8],
    /// The prover's index (a server's position in the roster, or a client's).
    pub prover: u64,
}

impl<'a> ProofContext<'a> {
    /// A context for `session` and `prover`.
    pub fn new(session: &'a [u8], prover: u64) -> Self {
        Self { session, prover }
    }

    pub(crate) fn absorb<G: Group>(&self, tr: &mut transcript::Transcript, n: usize) {
        tr.append_u64(b"version", VERSION);
        tr.append_message(b"group", G::NAME.as_bytes());
        tr.append_message(b"session", self.session);
        tr.append_u64(b"prover", self.prover);
        tr.append_u64(b"n", n as u64);
    }
}
