//! Typed errors. Every failure on untrusted input surfaces as one of these, never as a panic.

use thiserror::Error;

/// Why a byte string is not a valid encoding of a scalar or group element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input has the wrong length.
    #[error("wrong encoding length: expected {expected} bytes, got {actual}")]
    WrongLength {
        /// The length the encoding must have.
        expected: usize,
        /// The length that was supplied.
        actual: usize,
    },
    /// The bytes are not the canonical encoding (e.g. a field element `≥ p`, a scalar `≥ q`,
    /// a negative ristretto255 encoding, or invalid flag bits).
    #[error("non-canonical encoding")]
    NonCanonical,
    /// The bytes encode no point on the curve.
    #[error("not a point on the curve")]
    NotOnCurve,
    /// The point is on the curve but outside the prime-order subgroup.
    #[error("point not in the prime-order subgroup")]
    NotInSubgroup,
    /// The identity element where a non-identity element is required.
    #[error("identity element not allowed here")]
    Identity,
}

/// Why a payload cannot be embedded, or an element does not carry a payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum EmbedError {
    /// The payload exceeds the group's per-element capacity.
    #[error("payload of {len} bytes exceeds the capacity of {capacity} bytes per element")]
    PayloadTooLong {
        /// Supplied payload length.
        len: usize,
        /// [`crate::MessageGroup::CAPACITY`].
        capacity: usize,
    },
    /// The identity element carries no payload (an empty DC-net slot reveals it).
    #[error("the identity element carries no payload")]
    Identity,
    /// The element is not in the image of the embedding (garbage, or a corrupted reveal).
    #[error("element is not an embedded payload")]
    NotAnEmbedding,
    /// No counter value produced a valid element. Probability below 2^-100 per payload.
    #[error("embedding failed: no valid element within the counter range")]
    CounterExhausted,
}

/// Misuse of a group API by the caller (not an attack: the caller controls these values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum GroupError {
    /// Two slices that must have the same length do not.
    #[error("length mismatch: {left} vs {right}")]
    LengthMismatch {
        /// Length of the first argument.
        left: usize,
        /// Length of the second argument.
        right: usize,
    },
}

/// Why a byte string cannot be framed into elements, or elements are not a framed message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The message needs more elements than the slot has.
    #[error("message of {len} bytes needs {needed} elements, slot has {available}")]
    TooLong {
        /// Message length in bytes.
        len: usize,
        /// Elements the framed message needs.
        needed: usize,
        /// Elements available.
        available: usize,
    },
    /// Every element is the identity: nobody transmitted in this slot.
    #[error("all elements are the identity: no message was sent")]
    Empty,
    /// An element does not carry a payload.
    #[error("element {index} is not a valid embedding: {source}")]
    Element {
        /// Index of the offending element.
        index: usize,
        /// What is wrong with it.
        source: EmbedError,
    },
    /// The decoded frame is inconsistent (bad length header or non-zero padding).
    #[error("malformed frame: {0}")]
    Malformed(&'static str),
}
