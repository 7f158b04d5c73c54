//! Server ciphertexts: commit-then-reveal for XOR slots, and verifying every other server's
//! ciphertext and proof over `S`.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, ServerId};
use verdict_group::par;

use super::super::common::Core;
use super::super::state::{RoundStep, Running};
use super::super::stop::Stop;
use super::slot_items;
use crate::error::ServerFault;
use crate::slot::OpenSlot;
use crate::suite::{Prepared, ProtoSuite, SessionNets};
use crate::wire::{Kind, Received, payloads};

impl<S: ProtoSuite> Running<S> {
    pub(super) fn on_commit<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        j: ServerId,
        msg: Received<S::G>,
    ) -> Result<(), Stop> {
        let Ok(digest) = <[u8; 32]>::try_from(msg.payload()) else {
            return Err(Stop::bad_message(j, &msg));
        };
        if let Some(slot) = self.round.commits.get_mut(j.index()) {
            slot.get_or_insert(digest);
        }
        core.progress();
        self.after_commits(core);
        Ok(())
    }

    /// With every commitment in, our server ciphertexts follow.
    fn after_commits<R: RngCore + CryptoRng>(&mut self, core: &mut Core<S, R>) {
        if self.round.step != RoundStep::Commits || self.round.commits.iter().any(Option::is_none) {
            return;
        }
        let Some(payload) = self.round.my_cts.clone() else {
            return;
        };
        self.round.step = RoundStep::ServerCiphertexts;
        core.broadcast(Kind::ServerCiphertexts, self.round.number, payload);
    }

    pub(super) fn on_server_cts<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        j: ServerId,
        msg: Received<S::G>,
    ) -> Result<(), Stop> {
        let round_no = msg.header().round;
        let run = self;
        if run.round.my_cts.is_none() {
            // A faster server already has every inventory; we do not, so we cannot check its
            // proofs over S yet. (Bounded: one message per server per round.)
            if let Some(slot) = run.round.early_cts.get_mut(j.index()) {
                slot.get_or_insert(msg);
            }
            return Ok(());
        }
        // Every fault found here is this signed message's: it is the evidence.
        let fault = |fault| Stop::fault(j, fault, vec![msg.raw().clone()]);
        let invalid = |slot| {
            fault(ServerFault::InvalidCiphertext {
                round: round_no,
                slot,
            })
        };
        if run.round.has_xor() {
            let committed = run.round.commits.get(j.index()).copied().flatten();
            if committed != Some(*blake3::hash(msg.payload()).as_bytes()) {
                return Err(fault(ServerFault::CommitMismatch { round: round_no }));
            }
        }
        let list = match payloads::ByteList::decode(msg.payload()) {
            Ok(l) if l.0.len() == run.round.open.len() => l.0,
            _ => return Err(fault(ServerFault::BadOutput { round: round_no })),
        };
        // Each slot's ciphertext decodes (and, unless batched below, verifies) on its own: in
        // parallel with the `parallel` feature; the first bad slot in slot order is named.
        let (nets, round, me) = (&run.nets, &run.round, core.id);
        let slots: Vec<(usize, (&OpenSlot, &[u8]))> = round
            .open
            .iter()
            .zip(list.iter().copied())
            .enumerate()
            .collect();
        let checked = par::map(&slots, |&(k, (open, bytes))| {
            let Some(ct) = SessionNets::<S>::decode_server(open, bytes) else {
                return Slot::Invalid;
            };
            if j != me {
                let Some(prepared) = round.prepared.get(k) else {
                    return Slot::Unprepared;
                };
                let verified = match prepared {
                    // Checked below, all slots in one batch.
                    Prepared::Ver(_) if S::AGGREGATION.aggregates() => Ok(()),
                    _ => {
                        let items = slot_items(&round.accepted, k);
                        nets.verify_server(prepared, j, &items, &ct)
                    }
                };
                if verified.is_err() {
                    return Slot::Invalid;
                }
            }
            Slot::Valid(ct)
        });
        let mut cts = Vec::with_capacity(list.len());
        for (open, slot) in run.round.open.iter().zip(checked) {
            match slot {
                Slot::Valid(ct) => cts.push(ct),
                Slot::Invalid => return Err(invalid(open.slot)),
                Slot::Unprepared => return Ok(()),
            }
        }
        if let Some(aggregator) = run.nets.aggregator()
            && j != core.id
        {
            // The verifiable slots' proofs over the ids of S, in one batch.
            let mut items = Vec::new();
            let mut slots = Vec::new();
            for ((open, prepared), ct) in run.round.open.iter().zip(&run.round.prepared).zip(&cts) {
                if let Prepared::Ver(p) = prepared {
                    items.push((p, ct));
                    slots.push(open.slot);
                }
            }
            let ids: Vec<ClientId> = run.round.accepted.keys().copied().collect();
            let checked = if items.is_empty() {
                Ok(())
            } else {
                aggregator.verify_server_slots_for(j, &ids, &items, &mut core.rng)
            };
            if let Err(bad) = checked {
                let slot = bad
                    .first()
                    .and_then(|&b| slots.get(b))
                    .copied()
                    .unwrap_or(0);
                return Err(invalid(slot));
            }
        }
        if let Some(slot) = run.round.server_cts.get_mut(j.index())
            && slot.is_none()
        {
            *slot = Some((msg.raw().clone(), cts));
        }
        core.progress();
        run.after_server_cts(core)
    }
}

/// One slot of another server's ciphertexts, checked on its own.
enum Slot<C> {
    Valid(C),
    /// Undecodable, or its proof does not verify.
    Invalid,
    /// No prepared slot for it (cannot happen: both come from the round's open slots).
    Unprepared,
}
