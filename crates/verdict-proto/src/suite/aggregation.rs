//! A suite's aggregation mode: whether its servers may combine each other's per-server sums
//! of client ciphertexts, and (only if they may) the operations that do it.

use rand_core::CryptoRngCore;
use verdict_dcnet::{
    Aggregating, ClientId, DcDecodeError, DcError, PreparedSlot, ServerId, Session,
};

use super::ProtoSuite;

/// How a suite's servers combine client ciphertexts.
pub enum Aggregation<S: ProtoSuite> {
    /// Every server decodes and verifies every client ciphertext it helps decrypt (ElGamal,
    /// whose client proofs do not survive aggregation).
    EagerOnly,
    /// Servers may use each other's per-server aggregates and decode ciphertexts only when a
    /// slot fails (see `verdict_dcnet::aggregate`).
    Aggregating(&'static dyn AggregatingOps<S>),
}

impl<S: ProtoSuite> Aggregation<S> {
    /// Whether servers aggregate.
    pub const fn aggregates(&self) -> bool {
        matches!(self, Self::Aggregating(_))
    }

    /// The aggregating operations (`None`: eager-only).
    pub fn ops(&self) -> Option<&'static dyn AggregatingOps<S>> {
        match self {
            Self::EagerOnly => None,
            Self::Aggregating(ops) => Some(*ops),
        }
    }
}

/// The operations of `verdict_dcnet::Aggregating` the protocol uses, object-safe so that an
/// [`Aggregation`] can carry them (randomness as `dyn CryptoRngCore`).
pub trait AggregatingOps<S: ProtoSuite>: Send + Sync {
    /// See `verdict_dcnet::Aggregating::aggregate`.
    fn aggregate(
        &self,
        session: &Session<S>,
        slot: &PreparedSlot<S>,
        items: &[(ClientId, &S::ClientCiphertext)],
    ) -> Result<S::Aggregate, DcError>;

    /// See `verdict_dcnet::Aggregating::combine`.
    fn combine(
        &self,
        slot: &PreparedSlot<S>,
        parts: &[&S::Aggregate],
    ) -> Result<S::Aggregate, DcError>;

    /// See `verdict_dcnet::Aggregating::server_ciphertext_for`.
    fn server_ciphertext_for(
        &self,
        session: &Session<S>,
        slot: &PreparedSlot<S>,
        state: &S::ServerState,
        accepted: &[ClientId],
        rng: &mut dyn CryptoRngCore,
    ) -> Result<S::ServerCiphertext, DcError>;

    /// See `verdict_dcnet::Aggregating::verify_server_slots_for`.
    fn verify_server_slots_for(
        &self,
        session: &Session<S>,
        server: ServerId,
        accepted: &[ClientId],
        items: &[(&PreparedSlot<S>, &S::ServerCiphertext)],
        rng: &mut dyn CryptoRngCore,
    ) -> Result<(), Vec<usize>>;

    /// See `verdict_dcnet::Aggregating::reveal_aggregated`.
    fn reveal_aggregated(
        &self,
        session: &Session<S>,
        slot: &PreparedSlot<S>,
        aggregates: &[&S::Aggregate],
        servers: &[&S::ServerCiphertext],
    ) -> Result<Option<Vec<u8>>, DcError>;

    /// See `verdict_dcnet::Aggregating::encode_aggregate`.
    fn encode_aggregate(&self, aggregate: &S::Aggregate) -> Vec<u8>;

    /// See `verdict_dcnet::Aggregating::decode_aggregate`.
    fn decode_aggregate(&self, len: usize, bytes: &[u8]) -> Result<S::Aggregate, DcDecodeError>;
}

/// The [`AggregatingOps`] of a suite that implements `verdict_dcnet::Aggregating`.
pub(super) struct Forward;

impl<S> AggregatingOps<S> for Forward
where
    S: ProtoSuite<Aggregate = <S as Aggregating>::Aggregate> + Aggregating,
{
    fn aggregate(
        &self,
        session: &Session<S>,
        slot: &PreparedSlot<S>,
        items: &[(ClientId, &S::ClientCiphertext)],
    ) -> Result<<S as ProtoSuite>::Aggregate, DcError> {
        <S as Aggregating>::aggregate(session, slot, items)
    }

    fn combine(
        &self,
        slot: &PreparedSlot<S>,
        parts: &[&<S as ProtoSuite>::Aggregate],
    ) -> Result<<S as ProtoSuite>::Aggregate, DcError> {
        <S as Aggregating>::combine(slot, parts)
    }

    fn server_ciphertext_for(
        &self,
        session: &Session<S>,
        slot: &PreparedSlot<S>,
        state: &S::ServerState,
        accepted: &[ClientId],
        rng: &mut dyn CryptoRngCore,
    ) -> Result<S::ServerCiphertext, DcError> {
        <S as Aggregating>::server_ciphertext_for(session, slot, state, accepted, rng)
    }

    fn verify_server_slots_for(
        &self,
        session: &Session<S>,
        server: ServerId,
        accepted: &[ClientId],
        items: &[(&PreparedSlot<S>, &S::ServerCiphertext)],
        rng: &mut dyn CryptoRngCore,
    ) -> Result<(), Vec<usize>> {
        <S as Aggregating>::verify_server_slots_for(session, server, accepted, items, rng)
    }

    fn reveal_aggregated(
        &self,
        session: &Session<S>,
        slot: &PreparedSlot<S>,
        aggregates: &[&<S as ProtoSuite>::Aggregate],
        servers: &[&S::ServerCiphertext],
    ) -> Result<Option<Vec<u8>>, DcError> {
        <S as Aggregating>::reveal_aggregated(session, slot, aggregates, servers)
    }

    fn encode_aggregate(&self, aggregate: &<S as ProtoSuite>::Aggregate) -> Vec<u8> {
        <S as Aggregating>::encode_aggregate(aggregate)
    }

    fn decode_aggregate(
        &self,
        len: usize,
        bytes: &[u8],
    ) -> Result<<S as ProtoSuite>::Aggregate, DcDecodeError> {
        <S as Aggregating>::decode_aggregate(len, bytes)
    }
}
