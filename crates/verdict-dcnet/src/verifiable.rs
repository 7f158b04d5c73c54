//! Pieces shared by the ElGamal-style and pairing-based suites' direct APIs: the slot/round a
//! ciphertext belongs to, the participant roles that errors name, the suites' typed errors
//! (mapped to [`crate::DcError`] by the [`crate::Ciphersuite`] implementations) and reading
//! proofs with the shared codec.

use thiserror::Error;
use verdict_group::Group;
use verdict_group::codec::Reader;
use verdict_nizk::{Context, DecodeError, Encoded, Proof, Shape};

/// Which slot of which round of which session a ciphertext belongs to, and its size in group
/// elements: the lower-level counterpart of [`crate::SlotRound`] (whose `len` counts plaintext
/// bytes) used by the suites' direct APIs ([`crate::elgamal::ElGamalSlot`],
/// [`crate::pairing::PairingSlot`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SlotParams {
    /// Session identifier (hash of roster, policy and nonce).
    pub session: [u8; 32],
    /// Round number `t`.
    pub round: u64,
    /// Slot index.
    pub slot: u32,
    /// Number of group elements `L` in this slot's ciphertexts (at least 1).
    pub elements: usize,
}

impl SlotParams {
    /// The proof context for `purpose` made by `sender`: session, round, slot, sender and the
    /// suite id, so a proof never verifies for another session, round, slot, sender or suite.
    pub(crate) fn context(&self, purpose: &'static [u8], suite: &[u8], sender: u32) -> Context {
        Context::new(purpose, self.session)
            .with_round(self.round)
            .with_slot(self.slot)
            .with_sender(sender)
            .with_field(b"suite", suite)
            .with_field(b"elements", &(self.elements as u64).to_le_bytes())
    }
}

/// A participant named by an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Culprit {
    /// Client with this index.
    Client(u32),
    /// Server with this index.
    Server(u32),
}

impl core::fmt::Display for Culprit {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Culprit::Client(i) => write!(f, "client {i}"),
            Culprit::Server(j) => write!(f, "server {j}"),
        }
    }
}

/// Errors of the ElGamal-style and pairing-based suites. Untrusted input never panics; every
/// rejection of someone's data names them.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SuiteError {
    /// A ciphertext from `culprit` is not a valid encoding.
    #[error("undecodable ciphertext from {culprit}: {source}")]
    Decode {
        /// Who sent it.
        culprit: Culprit,
        /// What is wrong with it.
        source: DecodeError,
    },
    /// A ciphertext from `culprit` has the wrong number of elements.
    #[error("ciphertext from {culprit} has {actual} elements, the slot has {expected}")]
    WrongLength {
        /// Who sent it.
        culprit: Culprit,
        /// The slot's element count.
        expected: usize,
        /// The count received.
        actual: usize,
    },
    /// A client's proof does not verify.
    #[error("invalid proof from client {client}")]
    ClientProof {
        /// The client.
        client: u32,
    },
    /// Several clients' proofs do not verify (batch verification names all of them).
    #[error("invalid proofs from clients {clients:?}")]
    ClientProofs {
        /// The clients, in the order they were given.
        clients: Vec<u32>,
    },
    /// A server's ciphertext or proof does not verify (for the accepted set the verifier used).
    #[error("invalid ciphertext or proof from server {server}")]
    ServerProof {
        /// The server.
        server: u32,
    },
    /// The same client appears twice in an accepted set.
    #[error("client {client} appears twice in the accepted set")]
    DuplicateClient {
        /// The client.
        client: u32,
    },
    /// The caller's secret does not match the public key it claims (e.g. an owner ciphertext
    /// with a key that is not the slot's pseudonym key).
    #[error("secret key does not match the public key")]
    KeyMismatch,
    /// The slot has no elements, or two lists that must match do not.
    #[error("bad parameters: {0}")]
    Parameters(&'static str),
    /// The message does not fit or the reveal is not a framed message (ElGamal).
    #[error("framing: {0}")]
    Frame(#[from] verdict_group::FrameError),
    /// The message does not fit or the reveal is not a framed message (pairing, GT chunks).
    #[error("GT framing: {0}")]
    GtFrame(#[from] crate::pairing::gt_table::GtFrameError),
}

/// Checks that a ciphertext of `culprit` has the slot's `expected` number of elements.
pub(crate) fn check_len(
    culprit: Culprit,
    expected: usize,
    actual: usize,
) -> Result<(), SuiteError> {
    if actual == expected {
        Ok(())
    } else {
        Err(SuiteError::WrongLength {
            culprit,
            expected,
            actual,
        })
    }
}

/// `Σ` of the element vectors of all `parts` (each `L = l` long, or its sender is named): the
/// revealed elements `Σ_{i∈S} C_{i,k} + Σ_j D_{j,k}` before decoding.
pub(crate) fn sum_elements<'a, H: Group>(
    l: usize,
    parts: impl IntoIterator<Item = (Culprit, &'a [Encoded<H>])>,
) -> Result<Vec<H>, SuiteError> {
    let mut m = vec![H::identity(); l];
    for (culprit, elements) in parts {
        check_len(culprit, l, elements.len())?;
        for (mk, ek) in m.iter_mut().zip(elements) {
            *mk += *ek.point();
        }
    }
    Ok(m)
}

/// The outcome of a suite's batched client verification as the [`crate::Verifiable`]
/// contract wants it: every invalid client (`unknown` ids outside the roster, plus those the
/// suite's `batch` named; all of `checked` if it failed otherwise), ascending by position in
/// `items`, each once.
pub(crate) fn batch_outcome<T>(
    items: &[(crate::ClientId, T)],
    unknown: Vec<crate::ClientId>,
    checked: impl IntoIterator<Item = crate::ClientId>,
    batch: Result<(), SuiteError>,
) -> Result<(), Vec<crate::ClientId>> {
    let mut bad = unknown;
    match batch {
        Ok(()) => {}
        Err(SuiteError::ClientProofs { clients }) => {
            bad.extend(clients.into_iter().map(crate::ClientId));
        }
        Err(_) => bad.extend(checked),
    }
    if bad.is_empty() {
        return Ok(());
    }
    let pos = |c: &crate::ClientId| items.iter().position(|(i, _)| i == c);
    bad.sort_by_key(pos);
    bad.dedup();
    Err(bad)
}

/// Rejects accepted sets that name a client twice.
pub(crate) fn check_distinct(ids: impl IntoIterator<Item = u32>) -> Result<(), SuiteError> {
    let mut seen = std::collections::HashSet::new();
    for id in ids {
        if !seen.insert(id) {
            return Err(SuiteError::DuplicateClient { client: id });
        }
    }
    Ok(())
}

/// The accepted set's client ids, sorted, as bytes (bound into server proofs; the order in
/// which a caller lists the set does not matter).
pub(crate) fn accepted_set_bytes(ids: impl IntoIterator<Item = u32>) -> Vec<u8> {
    let mut ids: Vec<u32> = ids.into_iter().collect();
    ids.sort_unstable();
    ids.into_iter().flat_map(u32::to_le_bytes).collect()
}

/// Reads a proof of `shape` from `rd`: exactly its encoded length is taken first (a short
/// input is truncated whatever its content), then every point and scalar is validated.
pub(crate) fn read_proof<G: Group, H: Group<Scalar = G::Scalar>>(
    rd: &mut Reader<'_>,
    shape: Shape,
) -> Result<Proof<G, H>, DecodeError> {
    Proof::from_bytes(rd.raw(shape.encoded_len::<G, H>())?, shape)
}

impl SuiteError {
    /// The crate-wide error for this failure (`slot` and `capacity` fill in the variants that
    /// need them).
    pub(crate) fn into_dc(self, slot: u32, capacity: usize) -> crate::DcError {
        use crate::{ClientId, DcError, Party, ServerId};
        let party = |c: Culprit| match c {
            Culprit::Client(i) => Party::Client(ClientId(i)),
            Culprit::Server(j) => Party::Server(ServerId(j)),
        };
        match self {
            SuiteError::Decode { source, .. } => DcError::Wire(wire_error(source)),
            SuiteError::WrongLength {
                culprit,
                expected,
                actual,
            } => DcError::WrongCiphertextLength {
                culprit: party(culprit),
                expected,
                actual,
            },
            SuiteError::ClientProof { client } => DcError::InvalidClientProof {
                client: ClientId(client),
            },
            SuiteError::ClientProofs { clients } => DcError::InvalidClientProof {
                client: ClientId(clients.first().copied().unwrap_or_default()),
            },
            SuiteError::ServerProof { server } => DcError::InvalidServerProof {
                server: ServerId(server),
            },
            SuiteError::DuplicateClient { client } => DcError::DuplicateClient {
                client: ClientId(client),
            },
            SuiteError::KeyMismatch => DcError::NotSlotOwner { slot },
            SuiteError::Parameters(p) => DcError::InvalidParameters(p),
            SuiteError::Frame(verdict_group::FrameError::TooLong { len, .. })
            | SuiteError::GtFrame(crate::pairing::gt_table::GtFrameError::TooLong {
                len, ..
            }) => DcError::MessageTooLong { len, capacity },
            SuiteError::Frame(e) => DcError::CorruptReveal(e.to_string()),
            SuiteError::GtFrame(e) => DcError::CorruptReveal(e.to_string()),
        }
    }
}

/// `verdict-nizk` decoding errors as the crate's [`crate::DcDecodeError`].
pub(crate) fn wire_error(e: DecodeError) -> crate::DcDecodeError {
    match e {
        DecodeError::Field { field, source } => crate::DcDecodeError::Field { field, source },
        other => crate::DcDecodeError::Proof(other),
    }
}
