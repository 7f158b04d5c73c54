//! Typed errors. Every failure names its culprit where there is one; untrusted input never
//! causes a panic.

use thiserror::Error;

use crate::ids::{ClientId, Party, ServerId};

/// Why a byte string is not a valid encoding of a DC-net suite message: a ciphertext (with its
/// proof), a key, a set-up message, an aggregate or a DH reveal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DcDecodeError {
    /// The input has the wrong total length (truncated or oversized).
    #[error("wrong length: expected {expected} bytes, got {actual}")]
    Length {
        /// The length the encoding must have.
        expected: usize,
        /// The supplied length.
        actual: usize,
    },
    /// A point or scalar field failed validation.
    #[error("invalid {field}: {source}")]
    Field {
        /// Which field (e.g. `"element"`, `"proof"`, `"commitment"`).
        field: &'static str,
        /// What is wrong with it.
        source: verdict_group::DecodeError,
    },
    /// An embedded proof failed to decode.
    #[error("invalid proof encoding: {0}")]
    Proof(#[from] verdict_nizk::DecodeError),
    /// The slot capacity implies an encoding larger than this implementation accepts.
    #[error("slot capacity too large")]
    CapacityTooLarge,
}

/// Errors of the ciphersuite operations.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DcError {
    /// A client ciphertext carries an invalid proof (or is malformed for this slot).
    #[error("invalid ciphertext or proof from {client}")]
    InvalidClientProof {
        /// The sender.
        client: ClientId,
    },
    /// A server ciphertext carries an invalid proof (or is malformed for this slot).
    #[error("invalid ciphertext or proof from {server}")]
    InvalidServerProof {
        /// The sender.
        server: ServerId,
    },
    /// A client ciphertext has the wrong number of elements or bytes for the slot.
    #[error("ciphertext from {culprit} has the wrong length: expected {expected}, got {actual}")]
    WrongCiphertextLength {
        /// The sender.
        culprit: Party,
        /// Elements (or bytes) the slot requires.
        expected: usize,
        /// Elements (or bytes) supplied.
        actual: usize,
    },
    /// A client id outside the roster.
    #[error("{client} is not in the roster")]
    UnknownClient {
        /// The offending id.
        client: ClientId,
    },
    /// A server id outside the roster.
    #[error("{server} is not in the roster")]
    UnknownServer {
        /// The offending id.
        server: ServerId,
    },
    /// A slot index without a pseudonym key in the roster.
    #[error("slot {slot} does not exist")]
    UnknownSlot {
        /// The offending slot.
        slot: u32,
    },
    /// A client appears twice in an accepted set.
    #[error("{client} appears twice in the accepted set")]
    DuplicateClient {
        /// The duplicated id.
        client: ClientId,
    },
    /// The wrong number of server ciphertexts was supplied to reveal.
    #[error("expected {expected} server ciphertexts, got {actual}")]
    ServerCount {
        /// Number of servers in the roster.
        expected: usize,
        /// Number supplied.
        actual: usize,
    },
    /// The message does not fit the slot.
    #[error("message of {len} bytes exceeds the slot capacity of {capacity} bytes")]
    MessageTooLong {
        /// Message length.
        len: usize,
        /// Slot capacity.
        capacity: usize,
    },
    /// The pseudonym secret does not match the slot's pseudonym public key.
    #[error("the pseudonym key does not own slot {slot}")]
    NotSlotOwner {
        /// The slot.
        slot: u32,
    },
    /// The combined slot output is not a well-formed message (some participant corrupted the
    /// slot; in verifiable suites this cannot happen once all proofs verified).
    #[error("the slot output is corrupt: {0}")]
    CorruptReveal(String),
    /// A roster, session state or argument is inconsistent (a caller error, not an attack).
    #[error("invalid parameters: {0}")]
    InvalidParameters(&'static str),
    /// A DH reveal (dispute or provable pad bit) carries an invalid proof.
    #[error("invalid DH reveal from {prover}")]
    InvalidDhReveal {
        /// Who made the reveal.
        prover: Party,
    },
    /// A set-up step failed.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// A decoding error on a field the caller passed in.
    #[error(transparent)]
    Wire(#[from] DcDecodeError),
}

/// Why the suite set-up could not be completed. Every variant names the participants involved.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SetupError {
    /// Client and server published different commitments to their pairwise secret; one of
    /// them lied. Resolve each pair with the suite's dispute procedure, which names the liar.
    #[error("pairwise commitments disagree for {} pair(s), first: {:?}", pairs.len(), pairs.first())]
    CommitmentMismatch {
        /// Every disagreeing `(client, server)` pair.
        pairs: Vec<(ClientId, ServerId)>,
    },
    /// A participant's set-up message has the wrong shape.
    #[error("malformed set-up message from {culprit}")]
    Malformed {
        /// The sender.
        culprit: Party,
    },
    /// The wrong number of set-up messages was supplied.
    #[error("expected {expected} set-up messages, got {actual}")]
    Count {
        /// Required number.
        expected: usize,
        /// Supplied number.
        actual: usize,
    },
}

/// The outcome of a dispute: who lied about a pairwise secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Liar {
    /// The client published a wrong commitment (or a wrong DH reveal).
    Client(ClientId),
    /// The server published a wrong commitment (or a wrong DH reveal).
    Server(ServerId),
    /// Neither published commitment matches the proven secret.
    Both(ClientId, ServerId),
}
