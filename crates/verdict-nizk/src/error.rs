//! Typed errors. Untrusted input (proof bytes, proofs, statements) never causes a panic; every
//! failure surfaces as one of these.

use thiserror::Error;
use verdict_group::codec::CodecError;

/// Why a proof or signature does not verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The proof is well formed but a verification equation does not hold.
    #[error("invalid proof: a verification equation does not hold")]
    InvalidProof,
    /// The proof has a different number of commitments or responses than the statement needs.
    #[error("proof shape does not match the statement")]
    ShapeMismatch,
}

/// Why a statement (a relation, a vector DLEQ, an OR) or a witness is malformed.
///
/// These are caller errors (the caller builds statements), not attacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RelationError {
    /// An equation refers to a witness index that does not exist.
    #[error("witness index {index} out of range (relation has {num_witnesses} witnesses)")]
    WitnessIndexOutOfRange {
        /// The offending index.
        index: usize,
        /// Number of witnesses of the relation.
        num_witnesses: usize,
    },
    /// An equation has no terms.
    #[error("an equation must have at least one term")]
    EmptyEquation,
    /// A relation has no equations, or an OR has no branches.
    #[error("empty statement")]
    EmptyStatement,
    /// Two lists that must have equal length do not (bases vs images, witness vs relation).
    #[error("length mismatch: expected {expected}, got {actual}")]
    LengthMismatch {
        /// The required length.
        expected: usize,
        /// The supplied length.
        actual: usize,
    },
    /// The OR branch the prover claims to know does not exist.
    #[error("branch index {index} out of range ({branches} branches)")]
    BranchOutOfRange {
        /// The offending index.
        index: usize,
        /// Number of branches.
        branches: usize,
    },
}

/// Why a byte string is not a canonical encoding of a proof, signature or key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// A point or scalar field failed validation.
    #[error("invalid {field}: {source}")]
    Field {
        /// Which field of the encoding failed (e.g. `"commitment"`, `"response"`).
        field: &'static str,
        /// What is wrong with it.
        source: verdict_group::DecodeError,
    },
    /// The input ends before the encoding is complete.
    #[error("truncated input: needed {needed} more bytes, {available} available")]
    Truncated {
        /// Bytes the next field needs.
        needed: usize,
        /// Bytes left in the input.
        available: usize,
    },
    /// Bytes remain after a complete encoding.
    #[error("{extra} trailing bytes after the encoding")]
    TrailingBytes {
        /// Number of bytes left over.
        extra: usize,
    },
    /// A length field disagrees with what the statement requires.
    #[error("length field mismatch: expected {expected}, got {actual}")]
    LengthMismatch {
        /// The required value.
        expected: usize,
        /// The encoded value.
        actual: usize,
    },
    /// Another framing error of the shared codec (a tag or a count prefix), which this
    /// crate's own encodings do not have but an encoding that embeds them may.
    #[error(transparent)]
    Codec(CodecError),
}

/// The shared codec's errors in this crate's terms: truncation, trailing bytes and invalid
/// fields keep their own variants (without the offsets), the rest is [`DecodeError::Codec`].
impl From<CodecError> for DecodeError {
    fn from(e: CodecError) -> Self {
        match e {
            CodecError::Truncated {
                needed, available, ..
            } => Self::Truncated { needed, available },
            CodecError::TrailingBytes { extra, .. } => Self::TrailingBytes { extra },
            CodecError::Invalid { field, source, .. } => Self::Field { field, source },
            other => Self::Codec(other),
        }
    }
}

/// Batch verification failed; `invalid` lists exactly the indices (in insertion order) of the
/// proofs that do not verify individually.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("batch verification failed: {} invalid proof(s) at indices {invalid:?}", invalid.len())]
pub struct BatchError {
    /// Indices of the invalid proofs, ascending.
    pub invalid: Vec<usize>,
}
