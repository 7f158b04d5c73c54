//! Reveal: combining every slot, interpreting the revealed payloads, and the full check that
//! names the cheaters when a verifiable slot fails.

use std::collections::BTreeMap;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, ServerId, SessionId};
use verdict_group::par;

use super::super::common::Core;
use super::super::state::{RoundStep, Running};
use super::super::stop::Stop;
use super::{decode_deferred, slot_items};
use crate::error::{ExclusionReason, ServerFault};
use crate::policy::Verification;
use crate::slot::{
    Accusation, OpenSlot, RoundResult, SlotKind, SlotOutput, split_payload, verify_slot,
};
use crate::suite::{ClientCt, Prepared, ProtoSuite, Revealed, ServerCt};
use crate::wire::Kind;

impl<S: ProtoSuite> Running<S> {
    /// With every server's ciphertexts in: reveal every slot, run the full check of any
    /// verifiable slot that failed, and sign the output.
    pub(super) fn after_server_cts<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
    ) -> Result<(), Stop> {
        let lazy = core.config.policy.mode.verification() == Verification::Lazy;
        let hybrid = core.config.policy.mode.is_hybrid();
        let session = core.session;
        let me = core.id;
        let run = self;
        if run.round.server_cts.iter().any(Option::is_none) || run.round.result.is_some() {
            return Ok(());
        }
        let round_no = run.round.number;
        let mut slots = Vec::with_capacity(run.round.open.len());
        let mut next_lens = Vec::with_capacity(run.round.open.len());
        let mut lazy_bad: BTreeMap<ClientId, u32> = BTreeMap::new();
        let mut accusations = Vec::new();
        let mut failed = Vec::new();
        // Every slot reveals on its own (combining is pure), and its payload is interpreted
        // on its own (the owner's signature checked): in parallel with the `parallel` feature;
        // the outputs and accusations are then taken in slot order.
        let (nets, round) = (&run.nets, &run.round);
        let ks: Vec<usize> = (0..round.open.len()).collect();
        let reveals = par::map(&ks, |&k| {
            let prepared = round.prepared.get(k)?;
            let open = round.open.get(k)?;
            let servers: Vec<&ServerCt<S>> = round
                .server_cts
                .iter()
                .flatten()
                .filter_map(|(_, v)| v.get(k))
                .collect();
            let revealed = match (prepared, nets.aggregator()) {
                (Prepared::Ver(p), Some(aggregator)) => {
                    let aggregates: Vec<&S::Aggregate> = round
                        .forwarded
                        .iter()
                        .filter_map(|f| f.aggregates.get(k).and_then(Option::as_ref))
                        .collect();
                    aggregator.reveal(p, &aggregates, &servers)
                }
                (Prepared::Ver(p), None) => {
                    nets.reveal_ver(p, &slot_items(&round.accepted, k), &servers)
                }
                (Prepared::Xor(p), _) => {
                    // One sum per server's share of S (a missing one would be a bug of ours).
                    let sums: Option<Vec<&[u8]>> = round
                        .forwarded
                        .iter()
                        .map(|f| f.xor_sums.sums.get(k).and_then(Option::as_deref))
                        .collect();
                    match sums {
                        Some(sums) => nets.reveal_xor(p, &sums, &servers),
                        None => Revealed::Corrupt(Vec::new()),
                    }
                }
            };
            let mut accusation = Vec::new();
            let (out, next) = match revealed {
                Revealed::Empty => (SlotOutput::Empty, 0),
                Revealed::Payload(payload) => {
                    let pseudonym = nets.ver.roster().pseudonym(open.slot).ok();
                    interpret::<S>(
                        open,
                        &payload,
                        &session,
                        round_no,
                        pseudonym,
                        hybrid,
                        &mut accusation,
                    )
                }
                Revealed::Corrupt(raw) => (SlotOutput::Corrupt(raw), 0),
            };
            Some((out, next, accusation))
        });
        for (k, (open, revealed)) in run.round.open.iter().zip(reveals).enumerate() {
            let Some((out, next, accusation)) = revealed else {
                continue;
            };
            accusations.extend(accusation);
            if (lazy || S::AGGREGATION.aggregates())
                && open.kind == SlotKind::Verifiable
                && matches!(out, SlotOutput::Corrupt(_))
            {
                // The slot failed (lazy: the owner's signature did not verify). Every proof of
                // the slot is checked now (below) and whoever cheated is excluded.
                failed.push(k);
            }
            slots.push((*open, out));
            next_lens.push(next);
        }
        let mut fault = None;
        for k in failed {
            let (Some(open), Some(prepared)) = (run.round.open.get(k), run.round.prepared.get(k))
            else {
                continue;
            };
            let blame_upstream = |c: ClientId, fault: &mut Option<_>| {
                let u = run.round.upstream.get(&c).copied().unwrap_or(me);
                if u != me && fault.is_none() {
                    let evidence = run
                        .round
                        .forwarded
                        .get(u.index())
                        .and_then(|f| f.envelope.as_ref())
                        .map(|e| vec![e.raw().clone()])
                        .unwrap_or_default();
                    *fault = Some((
                        u,
                        ServerFault::UncheckedSubmission {
                            round: round_no,
                            client: c,
                        },
                        evidence,
                    ));
                }
            };
            // Decode what we deferred. A malformed ciphertext is the client's doing, and its
            // upstream server's, which decodes every submission on arrival.
            for (c, sub) in run.round.accepted.iter_mut() {
                if !decode_deferred(open, sub, k) {
                    lazy_bad.entry(*c).or_insert(open.slot);
                    blame_upstream(*c, &mut fault);
                }
            }
            let items = slot_items(&run.round.accepted, k);
            for c in run.nets.verify_clients(prepared, &items, &mut core.rng) {
                lazy_bad.entry(c).or_insert(open.slot);
                if !lazy && S::AGGREGATION.aggregates() {
                    // Eager: its upstream server should have rejected it.
                    blame_upstream(c, &mut fault);
                }
            }
            let Some(aggregator) = run.nets.aggregator() else {
                continue;
            };
            // Every aggregate we used as forwarded must be the sum of what its server forwarded.
            for (j, fw) in run.round.forwarded.iter().enumerate() {
                let server = ServerId(j as u32);
                if !fw.as_forwarded || server == me {
                    continue;
                }
                let own: Vec<(ClientId, &ClientCt<S>)> = items
                    .iter()
                    .filter(|(c, _)| run.round.upstream.get(c) == Some(&server))
                    .copied()
                    .collect();
                let sum = aggregator.aggregate(prepared, &own).ok().flatten();
                if sum.as_ref() != fw.aggregates.get(k).and_then(Option::as_ref) && fault.is_none()
                {
                    fault = Some((
                        server,
                        ServerFault::WrongAggregate {
                            round: round_no,
                            slot: open.slot,
                        },
                        fw.envelope.iter().map(|e| e.raw().clone()).collect(),
                    ));
                }
            }
        }
        if let Some((j, f, evidence)) = fault {
            return Err(Stop::fault(j, f, evidence));
        }
        for (c, slot) in lazy_bad {
            let evidence = run
                .round
                .accepted
                .get(&c)
                .map(|s| vec![s.envelope.clone()])
                .unwrap_or_default();
            run.round.excluded_now.push((
                c,
                ExclusionReason::InvalidProof {
                    round: round_no,
                    slot,
                },
                evidence,
            ));
        }
        let mut excluded: Vec<(ClientId, ExclusionReason)> =
            core::mem::take(&mut run.pending_exclusions);
        excluded.extend(run.round.excluded_now.iter().map(|(c, r, _)| (*c, *r)));
        let result = RoundResult {
            round: round_no,
            roster: core.config.num_clients() as u32,
            accepted: run.round.accepted.keys().copied().collect(),
            slots,
            next_lens,
            excluded,
        };
        let bytes = result.to_bytes();
        let digest = *blake3::hash(&bytes).as_bytes();
        run.round.result = Some((result, bytes));
        run.round.accusations = accusations;
        run.round.step = RoundStep::Signatures;
        core.broadcast(Kind::OutputSignature, round_no, digest.to_vec());
        Ok(())
    }
}

/// Turns a revealed payload into a slot output (and records accusations).
#[allow(clippy::too_many_arguments)]
pub(crate) fn interpret<S: ProtoSuite>(
    open: &OpenSlot,
    payload: &[u8],
    session: &SessionId,
    round: u64,
    pseudonym: Option<&verdict_nizk::VerifyingKey<S::G>>,
    hybrid: bool,
    accusations: &mut Vec<Accusation>,
) -> (SlotOutput, u32) {
    let corrupt = (SlotOutput::Corrupt(Vec::new()), 0);
    let Some((next, body)) = split_payload(payload) else {
        return corrupt;
    };
    let sig_len = verdict_nizk::Signature::<S::G>::ENCODED_LEN;
    let signed = |body: &[u8]| -> Option<Vec<u8>> {
        let split = body.len().checked_sub(sig_len)?;
        let (content, sig) = body.split_at(split);
        let sig = verdict_nizk::Signature::<S::G>::from_bytes(sig).ok()?;
        let mut signed_content = next.to_be_bytes().to_vec();
        signed_content.extend_from_slice(content);
        verify_slot(
            pseudonym?,
            session,
            round,
            open.kind,
            open.slot,
            &signed_content,
            &sig,
        )
        .then(|| content.to_vec())
    };
    match open.kind {
        SlotKind::Xor => (SlotOutput::Message(body.to_vec()), next),
        SlotKind::Verifiable if hybrid => {
            // An accusation slot: accusation ‖ pseudonym signature.
            let Some(content) = signed(body) else {
                return corrupt;
            };
            match Accusation::from_bytes(&content) {
                Ok(acc) if acc.slot == open.slot => {
                    accusations.push(acc);
                    (SlotOutput::Message(content), 0)
                }
                _ => corrupt,
            }
        }
        // Every message slot's content is signed by its owner, in every verification mode:
        // under lazy verification the signature is what triggers the proof check, and under
        // eager verification it is what stops a server adding content of its choice to its
        // forwarded aggregate (proofs bind ciphertexts to owners, not plaintexts to slots).
        SlotKind::Verifiable => match signed(body) {
            Some(content) => (SlotOutput::Message(content), next),
            None => corrupt,
        },
    }
}
