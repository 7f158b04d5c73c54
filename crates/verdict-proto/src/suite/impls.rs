//! The `verdict-dcnet` suites the protocol runs.

use core::convert::Infallible;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::elgamal::ElGamal;
use verdict_dcnet::hashing_generator::Commitments;
use verdict_dcnet::pairing::{ChunkWidth, Pairing};
use verdict_dcnet::{Aggregating, ClientId, DhReveal, HashingGenerator, Liar, Roster, ServerId};
use verdict_group::MessageGroup;
use verdict_group::bls12_381::G2;
use verdict_nizk::Encoded;
use verdict_nizk::SigningKey;

use super::ProtoSuite;
use super::aggregation::{Aggregation, Forward};

impl<G: MessageGroup> ProtoSuite for HashingGenerator<G> {
    type G = G;
    type Aggregate = <Self as Aggregating>::Aggregate;
    const AGGREGATION: Aggregation<Self> = Aggregation::Aggregating(&Forward);

    fn reveal_for_dispute<R: RngCore + CryptoRng + ?Sized>(
        roster: &Roster<Self>,
        server: ServerId,
        key: &SigningKey<G>,
        client: ClientId,
        rng: &mut R,
    ) -> Option<DhReveal<G>> {
        Self::dispute_server(roster, server, key, client, rng).ok()
    }

    fn resolve_dispute(
        roster: &Roster<Self>,
        client_setup: &Self::ClientSetup,
        server_setup: &Self::ServerSetup,
        reveal: &DhReveal<G>,
    ) -> Option<Liar> {
        HashingGenerator::<G>::resolve_dispute(roster, client_setup, server_setup, reveal).ok()
    }

    /// Server `j`'s published `K_ij` for every `j`; a server whose set-up is too short is
    /// named by `combine_setup`'s length check before the stand-in is looked at, so the
    /// identity filling its place is never compared.
    fn absent_client_setup(client: ClientId, server_setups: &[Commitments<G>]) -> Commitments<G> {
        Commitments {
            commitments: server_setups
                .iter()
                .map(|s| {
                    s.commitments
                        .get(client.index())
                        .cloned()
                        .unwrap_or_else(|| Encoded::new(G::identity()))
                })
                .collect(),
        }
    }
}

/// ElGamal is eager-only: every server decodes and verifies every ciphertext, so it has no
/// aggregates at all.
impl<G: MessageGroup> ProtoSuite for ElGamal<G> {
    type G = G;
    type Aggregate = Infallible;
    const AGGREGATION: Aggregation<Self> = Aggregation::EagerOnly;

    /// ElGamal's set-up messages are empty.
    fn absent_client_setup(_: ClientId, _: &[()]) {}
}

impl<W: ChunkWidth> ProtoSuite for Pairing<W> {
    type G = G2;
    type Aggregate = <Self as Aggregating>::Aggregate;
    const AGGREGATION: Aggregation<Self> = Aggregation::Aggregating(&Forward);

    /// The pairing suite's set-up messages are empty.
    fn absent_client_setup(_: ClientId, _: &[()]) {}
}
