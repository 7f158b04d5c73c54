//! Typed errors. Bad input never panics: it surfaces as one of these.

use thiserror::Error;
use verdict_group::DecodeError;
use verdict_group::codec::CodecError;

/// Which check of a shuffle proof failed (reported by the equation-by-equation verifier).
///
/// Indices are 0-based. Equation numbers refer to Neff (2004).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Check {
    /// Simple k-shuffle equation (12) number `index` (`0 ≤ index < 2k`).
    SimpleShuffle {
        /// Which of the `2k` equations.
        index: usize,
    },
    /// ElGamal shuffle equation (33) `Γ^{σᵢ} = Wᵢ·Dᵢ` for element `index`.
    Commitment {
        /// Which element.
        index: usize,
    },
    /// ElGamal shuffle equation (34) `Λ₁·g^τ = Φ₁` (first components).
    Lambda1,
    /// ElGamal shuffle equation (35) `Λ₂·h^τ = Φ₂` (second components).
    Lambda2,
    /// The batched verifier's single multi-scalar equation (it cannot say which one failed).
    Batched,
}

/// Why a shuffle could not be proved or did not verify.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ShuffleError {
    /// A shuffle needs at least two elements.
    #[error("a shuffle needs at least 2 elements, got {n}")]
    TooFew {
        /// The number of elements supplied.
        n: usize,
    },
    /// Two lists that must have the same length do not.
    #[error("length mismatch in {what}: expected {expected}, got {actual}")]
    LengthMismatch {
        /// Which list.
        what: &'static str,
        /// The length it must have.
        expected: usize,
        /// The length it has.
        actual: usize,
    },
    /// A point that must not be the identity is (the proof's `Γ`, a public key or base).
    #[error("identity element not allowed for {what}")]
    Identity {
        /// Which point.
        what: &'static str,
    },
    /// The prover's permutation is not a permutation of `0..n`.
    #[error("the witness is not a permutation of 0..n")]
    InvalidPermutation,
    /// The prover's witness does not match the statement (outputs are not a re-encryption of
    /// the permuted inputs).
    #[error("the witness does not match the statement")]
    WitnessMismatch,
    /// A challenge hit a zero condition of Neff's Remark 1/4 (probability about `n²/q`).
    #[error("degenerate challenge (negligible probability); retry with fresh randomness")]
    Degenerate,
    /// The proof does not verify.
    #[error("shuffle proof rejected: {check:?} failed")]
    Rejected {
        /// The check that failed.
        check: Check,
    },
}

/// Why bytes are not a valid shuffle proof, ciphertext list or key-shuffle message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ShuffleDecodeError {
    /// The message ended early.
    #[error("truncated message: needed {needed} more bytes at offset {offset}")]
    Truncated {
        /// Where decoding stopped.
        offset: usize,
        /// How many bytes were missing.
        needed: usize,
    },
    /// Bytes left over after a complete message.
    #[error("{extra} trailing bytes after the message")]
    TrailingBytes {
        /// How many.
        extra: usize,
    },
    /// The message starts with the wrong tag or version.
    #[error("wrong message tag or version")]
    BadTag,
    /// A length field is out of range (too small, or larger than the limit the caller set).
    #[error("length {len} out of range (max {max})")]
    BadLength {
        /// The length in the message.
        len: u64,
        /// The largest length allowed.
        max: u64,
    },
    /// A group element or scalar failed validation.
    #[error("invalid {what} at offset {offset}: {source}")]
    Element {
        /// Which field.
        what: &'static str,
        /// Where it starts.
        offset: usize,
        /// Why it was rejected.
        source: DecodeError,
    },
    /// Another framing error of the shared codec, which these formats do not produce today.
    #[error(transparent)]
    Codec(CodecError),
}

/// The shared codec's errors in this crate's terms (`needed` counts the missing bytes).
impl From<CodecError> for ShuffleDecodeError {
    fn from(e: CodecError) -> Self {
        match e {
            CodecError::Truncated {
                offset,
                needed,
                available,
            } => Self::Truncated {
                offset,
                needed: needed - available,
            },
            CodecError::TrailingBytes { extra, .. } => Self::TrailingBytes { extra },
            CodecError::BadTag { .. } => Self::BadTag,
            CodecError::Count { count, max, .. } => Self::BadLength { len: count, max },
            CodecError::Invalid {
                field,
                offset,
                source,
            } => Self::Element {
                what: field,
                offset,
                source,
            },
            other => Self::Codec(other),
        }
    }
}

/// Why a step of the pseudonym-key shuffle was rejected. Every variant names the culprit.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum KeyShuffleError {
    /// A client's submission is malformed or its proof of knowledge fails.
    #[error("client {client}: invalid submission ({reason})")]
    InvalidSubmission {
        /// The client's index in the roster.
        client: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// A client submitted twice, or the same ciphertext as another client.
    #[error("client {client}: duplicate submission")]
    DuplicateSubmission {
        /// The client's index in the roster.
        client: usize,
    },
    /// A server's shuffle step is malformed or its proof fails.
    #[error("server {server}: invalid shuffle ({source})")]
    InvalidShuffle {
        /// The server's index (0-based position in the roster).
        server: usize,
        /// Why it was rejected.
        source: ShuffleError,
    },
    /// A server's decryption shares are malformed or their proof fails.
    #[error("server {server}: invalid decryption share ({reason})")]
    InvalidDecryptionShare {
        /// The server's index.
        server: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// A message arrived from the wrong party or at the wrong time.
    #[error("unexpected message: {0}")]
    OutOfOrder(&'static str),
    /// A message failed to decode.
    #[error("malformed message from {party}: {source}")]
    Malformed {
        /// Who sent it (e.g. `"server 2"`, `"client 7"`).
        party: String,
        /// Why.
        source: ShuffleDecodeError,
    },
    /// The parameters are unusable (fewer than 2 clients, no servers, identity keys).
    #[error("invalid parameters: {0}")]
    Params(&'static str),
}
