//! Aggregation: combining one server's clients' ciphertexts before the reveal.
//!
//! In the hashing-generator and pairing suites a slot's output is the element-wise sum of the
//! accepted client ciphertexts and the server ciphertexts, and a server ciphertext (and its
//! proof) depends only on *which* clients were accepted, never on their ciphertexts. So the
//! clients can be split among the servers: each server decodes, verifies and sums only the
//! ciphertexts of its own (upstream) clients, and the others take that [`Aggregating::Aggregate`]
//! instead of decoding `N` ciphertexts themselves. `verdict-proto` does this optimistically and
//! falls back to checking every ciphertext of a slot when it fails to reveal.
//!
//! **Which suites may aggregate.** Only those for which the reveal of an *unverified*
//! combination leaks nothing: the suites with [`Ciphersuite::EAGER_ONLY`](crate::Ciphersuite::EAGER_ONLY) `= false`. In these
//! suites every client ciphertext carries the client's pads with every server, and an honest
//! server's secrets cancel only in the one combination "each accepted client exactly once", so
//! a wrong aggregate (a missing, repeated or substituted ciphertext) reveals uniformly masked
//! garbage, never a function of an honest client's message. ElGamal is the counter-example: its
//! servers *decrypt* whatever they are given, so a dishonest server that copies an honest
//! client's ciphertext into its aggregate would learn whether that client owns the slot. ElGamal
//! therefore does not implement this trait (and [`assert_lazy_safe`] is checked by the tests of
//! every implementation).

use core::fmt;

use rand_core::{CryptoRng, RngCore};
use verdict_group::Group;
use verdict_nizk::Encoded;

use crate::error::{DcDecodeError, DcError};
use crate::ids::{ClientId, Party, ServerId};
use crate::suite::{PreparedSlot, Session, Verifiable};

/// A verifiable suite whose client ciphertexts may be summed per server before the reveal.
///
/// Contract (checked by each implementation's tests): for any split of the accepted clients
/// into parts, `reveal_aggregated` over the parts' aggregates equals
/// [`Ciphersuite::reveal`](crate::Ciphersuite::reveal) over all the ciphertexts, and `server_ciphertext_for` /
/// `verify_server_for` over the accepted ids agree with [`Ciphersuite::server_ciphertext`](crate::Ciphersuite::server_ciphertext) /
/// [`Verifiable::verify_server`] over the accepted ciphertexts.
pub trait Aggregating: Verifiable {
    /// The sum of some clients' ciphertexts of one slot.
    type Aggregate: Clone + fmt::Debug + PartialEq + Send + Sync;

    /// Sums `items` (an empty list gives the neutral aggregate). Checks every ciphertext's
    /// length; does **not** verify proofs (the caller decides which ciphertexts it trusts).
    fn aggregate(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        items: &[(ClientId, &Self::ClientCiphertext)],
    ) -> Result<Self::Aggregate, DcError>;

    /// The aggregate of the union of disjoint sets of clients from the aggregates of each set
    /// (`parts`, none of them: the neutral aggregate). This is how a server merges the partial
    /// sums of workers that each verified and summed a shard of its clients. Every part must
    /// have the slot's length.
    fn combine(
        slot: &PreparedSlot<Self>,
        parts: &[&Self::Aggregate],
    ) -> Result<Self::Aggregate, DcError>;

    /// *Server create* over the accepted set given by ids alone.
    fn server_ciphertext_for<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &Self::ServerState,
        accepted: &[ClientId],
        rng: &mut R,
    ) -> Result<Self::ServerCiphertext, DcError>;

    /// *Server verify* over the accepted set given by ids alone.
    fn verify_server_for(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        server: ServerId,
        accepted: &[ClientId],
        ct: &Self::ServerCiphertext,
    ) -> Result<(), DcError>;

    /// Verifies server `server`'s ciphertexts of several slots of one round over the same
    /// accepted ids; on failure returns the positions in `items` of every invalid one.
    /// Suites override this to share the per-server work across slots and batch the proofs;
    /// `rng` draws batching weights and must be unpredictable to servers.
    fn verify_server_slots_for<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        server: ServerId,
        accepted: &[ClientId],
        items: &[(&PreparedSlot<Self>, &Self::ServerCiphertext)],
        rng: &mut R,
    ) -> Result<(), Vec<usize>> {
        let _ = rng;
        let bad: Vec<usize> = items
            .iter()
            .enumerate()
            .filter(|(_, (slot, ct))| {
                Self::verify_server_for(session, slot, server, accepted, ct).is_err()
            })
            .map(|(k, _)| k)
            .collect();
        if bad.is_empty() { Ok(()) } else { Err(bad) }
    }

    /// *Reveal* from aggregates that together cover the accepted set once, and all `M` server
    /// ciphertexts (server `j` at index `j`).
    fn reveal_aggregated(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        aggregates: &[&Self::Aggregate],
        servers: &[&Self::ServerCiphertext],
    ) -> Result<Option<Vec<u8>>, DcError>;

    /// Canonical encoding of an aggregate.
    fn encode_aggregate(aggregate: &Self::Aggregate) -> Vec<u8>;

    /// Decodes (and validates every element of) an aggregate for a slot of capacity `len`.
    fn decode_aggregate(len: usize, bytes: &[u8]) -> Result<Self::Aggregate, DcDecodeError>;
}

/// Panics unless `C` may aggregate (see the module documentation); called by the tests of
/// every [`Aggregating`] implementation so a new eager-only suite cannot slip in.
pub fn assert_lazy_safe<C: Aggregating>() {
    assert!(
        !C::EAGER_ONLY,
        "{} is eager-only and must not aggregate unverified ciphertexts",
        C::ID
    );
}

/// The aggregate of the hashing-generator and pairing suites: `L` elements of the ciphertext
/// group `H`, the element-wise sum of the clients' ciphertext elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ElementSum<H: Group> {
    elements: Vec<H>,
}

impl<H: Group> ElementSum<H> {
    /// `l` identity elements.
    pub fn neutral(l: usize) -> Self {
        Self {
            elements: vec![H::identity(); l],
        }
    }

    /// The summed elements.
    pub fn elements(&self) -> &[H] {
        &self.elements
    }

    /// Adds one ciphertext's elements; `culprit` is named if its length is wrong.
    pub(crate) fn add(&mut self, culprit: Party, elements: &[Encoded<H>]) -> Result<(), DcError> {
        if elements.len() != self.elements.len() {
            return Err(DcError::WrongCiphertextLength {
                culprit,
                expected: self.elements.len(),
                actual: elements.len(),
            });
        }
        for (a, e) in self.elements.iter_mut().zip(elements) {
            *a += *e.point();
        }
        Ok(())
    }

    /// The sum of `l`-element client ciphertexts (each length checked, naming its client).
    pub(crate) fn of_clients<P>(
        l: usize,
        items: &[(ClientId, &crate::wire::Proven<H, P>)],
    ) -> Result<Self, DcError> {
        let mut sum = Self::neutral(l);
        for (c, ct) in items {
            sum.add(Party::Client(*c), &ct.elements)?;
        }
        Ok(sum)
    }

    /// The slot's combined elements: the sum of `aggregates` plus every server ciphertext
    /// (server `j` at index `j`, each length checked, naming its server).
    pub(crate) fn with_servers<P>(
        l: usize,
        aggregates: &[&Self],
        servers: &[(u32, &crate::wire::Proven<H, P>)],
    ) -> Result<Self, DcError> {
        let mut acc = Self::sum(l, aggregates)?;
        for (j, ct) in servers {
            acc.add(Party::Server(ServerId(*j)), &ct.elements)?;
        }
        Ok(acc)
    }

    /// Sums aggregates (each must have `l` elements) into one.
    pub(crate) fn sum(l: usize, parts: &[&Self]) -> Result<Self, DcError> {
        let mut out = Self::neutral(l);
        for p in parts {
            if p.elements.len() != l {
                return Err(DcError::InvalidParameters("aggregate of the wrong length"));
            }
            for (a, e) in out.elements.iter_mut().zip(&p.elements) {
                *a += *e;
            }
        }
        Ok(out)
    }

    /// Canonical encoding: the `L` elements' encodings concatenated.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.elements.len() * H::ENCODED_LEN);
        for r in H::batch_to_bytes(&self.elements) {
            out.extend_from_slice(r.as_ref());
        }
        out
    }

    /// Decodes exactly `l` validated elements.
    pub fn decode(l: usize, bytes: &[u8]) -> Result<Self, DcDecodeError> {
        if bytes.len() != l * H::ENCODED_LEN {
            return Err(DcDecodeError::Length {
                expected: l * H::ENCODED_LEN,
                actual: bytes.len(),
            });
        }
        let elements = bytes
            .chunks_exact(H::ENCODED_LEN)
            .map(H::from_bytes)
            .collect::<Result<Vec<H>, _>>()
            .map_err(|source| DcDecodeError::Field {
                field: "aggregate element",
                source,
            })?;
        Ok(Self { elements })
    }
}
