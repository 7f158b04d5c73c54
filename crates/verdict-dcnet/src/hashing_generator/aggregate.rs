//! The hashing-generator suite as an [`Aggregating`] suite: server create and verify over
//! accepted ids, the batched check of one server's ciphertexts of several slots, and the reveal
//! from aggregates.

use rand_core::{CryptoRng, RngCore};
use verdict_group::{FrameError, MessageGroup, Scalar, framing};
use verdict_nizk::{BatchItem, BatchVerifier, Encoded};
use zeroize::Zeroizing;

use crate::aggregate::{Aggregating, ElementSum};
use crate::error::{DcDecodeError, DcError};
use crate::ids::{ClientId, Party, ServerId};
use crate::server_dleq;
use crate::shared::indexed_servers;
use crate::suite::{PreparedSlot, Session, check_accepted_ids};

use super::types::{
    HashingGenerator, HgClientCiphertext, HgServerCiphertext, HgServerState, Sc, elements_for,
};

impl<G: MessageGroup> Aggregating for HashingGenerator<G> {
    type Aggregate = ElementSum<G>;

    fn aggregate(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        items: &[(ClientId, &HgClientCiphertext<G>)],
    ) -> Result<ElementSum<G>, DcError> {
        let _ = session;
        ElementSum::of_clients(slot.data().generators.len(), items)
    }

    fn combine(
        slot: &PreparedSlot<Self>,
        parts: &[&ElementSum<G>],
    ) -> Result<ElementSum<G>, DcError> {
        ElementSum::sum(slot.data().generators.len(), parts)
    }

    fn server_ciphertext_for<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        state: &HgServerState<G>,
        accepted: &[ClientId],
        rng: &mut R,
    ) -> Result<HgServerCiphertext<G>, DcError> {
        check_accepted_ids(session.roster(), accepted)?;
        // τ_j is as secret as the s_ij it sums: wiped on every path out (an unknown client
        // returns early).
        let mut tau = Zeroizing::new(Sc::<G>::zero());
        for c in accepted {
            let s = state
                .secrets
                .get(c.index())
                .ok_or(DcError::UnknownClient { client: *c })?;
            *tau += *s.expose();
        }
        // D_k = τ·(−g_k) with its proof (crate::server_dleq); the −g_k are cached per slot.
        let mut t = Self::server_transcript(session, slot.slot_round(), state.server, accepted);
        server_dleq::prove(&*tau, slot.data().negated().to_vec(), &mut t, rng)
            .map_err(|e| e.into_dc(state.server))
    }

    fn verify_server_for(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        server: ServerId,
        accepted: &[ClientId],
        ct: &HgServerCiphertext<G>,
    ) -> Result<(), DcError> {
        session.roster().server(server)?;
        check_accepted_ids(session.roster(), accepted)?;
        let l = slot.data().generators.len();
        if ct.elements.len() != l {
            return Err(DcError::WrongCiphertextLength {
                culprit: Party::Server(server),
                expected: l,
                actual: ct.elements.len(),
            });
        }
        let v = commitment_sum(session, server, accepted)
            .map_err(|client| DcError::UnknownClient { client })?;
        let mut t = Self::server_transcript(session, slot.slot_round(), server, accepted);
        server_dleq::verify(v, slot.data().negated().to_vec(), ct, &mut t)
            .map_err(|e| e.into_dc(server))
    }

    /// One sum of the `N` commitments for all slots, and all slots' DLEQ proofs in one batch.
    fn verify_server_slots_for<R: RngCore + CryptoRng + ?Sized>(
        session: &Session<Self>,
        server: ServerId,
        accepted: &[ClientId],
        items: &[(&PreparedSlot<Self>, &HgServerCiphertext<G>)],
        rng: &mut R,
    ) -> Result<(), Vec<usize>> {
        if items.is_empty() {
            return Ok(());
        }
        let all = || (0..items.len()).collect::<Vec<_>>();
        if session.roster().server(server).is_err()
            || check_accepted_ids(session.roster(), accepted).is_err()
        {
            return Err(all());
        }
        let Ok(v) = commitment_sum(session, server, accepted) else {
            return Err(all());
        };
        let v = Encoded::new(v);
        // Binding each slot's statement and hashing its transcript (which absorbs the whole
        // accepted set) is the part of a slot's check that is not the multi-scalar
        // multiplication, and each slot's is independent: in parallel with the `parallel`
        // feature, then added to the batch in slot order, so the batch (and the weights its
        // check draws) is the serial one.
        let prepared = verdict_group::par::map(items, |(slot, ct)| {
            let statement = (ct.elements.len() == slot.data().generators.len())
                .then(|| {
                    server_dleq::statement(
                        v.clone(),
                        slot.data().negated().to_vec(),
                        ct.elements.clone(),
                    )
                    .ok()
                })
                .flatten()?;
            let t = Self::server_transcript(session, slot.slot_round(), server, accepted);
            Some(BatchItem::new(&statement, t, &ct.proof))
        });
        let mut bad = Vec::new();
        let mut batch = BatchVerifier::<G>::with_capacity(items.len());
        let mut index = Vec::with_capacity(items.len());
        for (k, item) in prepared.into_iter().enumerate() {
            let Some(item) = item else {
                bad.push(k);
                continue;
            };
            batch.add_item(item);
            index.push(k);
        }
        if let Err(e) = batch.verify(rng) {
            bad.extend(e.invalid.iter().filter_map(|&b| index.get(b).copied()));
        }
        bad.sort_unstable();
        if bad.is_empty() { Ok(()) } else { Err(bad) }
    }

    fn reveal_aggregated(
        session: &Session<Self>,
        slot: &PreparedSlot<Self>,
        aggregates: &[&ElementSum<G>],
        servers: &[&HgServerCiphertext<G>],
    ) -> Result<Option<Vec<u8>>, DcError> {
        let servers = indexed_servers(session.roster(), servers)?;
        let acc = ElementSum::with_servers(slot.data().generators.len(), aggregates, &servers)?;
        match framing::decode_message::<G>(acc.elements()) {
            Ok(m) => Ok(Some(m)),
            Err(FrameError::Empty) => Ok(None),
            Err(e) => Err(DcError::CorruptReveal(e.to_string())),
        }
    }

    fn encode_aggregate(aggregate: &ElementSum<G>) -> Vec<u8> {
        aggregate.to_bytes()
    }

    fn decode_aggregate(len: usize, bytes: &[u8]) -> Result<ElementSum<G>, DcDecodeError> {
        ElementSum::decode(elements_for::<G>(len)?, bytes)
    }
}

/// `V_j = Σ_{i ∈ accepted} K_ij`, the public image of server `j`'s DLEQ over the accepted set:
/// one addition per accepted client, summed in parallel chunks with the `parallel` feature (a
/// group sum does not depend on how it is split). `Err`: the first accepted id, in order, with
/// no commitment.
fn commitment_sum<G: MessageGroup>(
    session: &Session<HashingGenerator<G>>,
    server: ServerId,
    accepted: &[ClientId],
) -> Result<G, ClientId> {
    let partial = verdict_group::par::chunked(accepted, ADDITIONS_PER_TASK, |chunk| {
        let mut v = G::identity();
        for c in chunk {
            v += *session.public().commitment(*c, server).ok_or(*c)?;
        }
        Ok(v)
    });
    partial
        .into_iter()
        .try_fold(G::identity(), |acc, v| Ok(acc + v?))
}

/// Point additions per parallel task (each is a fraction of a microsecond).
const ADDITIONS_PER_TASK: usize = 256;
