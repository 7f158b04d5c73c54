//! Inventories: checking the other servers' signed inventories (client signatures batched,
//! every rejection justified), all of a round's together once the last arrives.
//!
//! # Why together
//!
//! Checking one inventory is a few milliseconds of small steps (a hundred envelopes to parse,
//! a signature batch of a few hundred terms, per-slot sums), too small to keep several cores
//! busy; checking the `M − 1` inventories of a round side by side is not. So an inventory
//! that arrives is only held (its envelope and signature were checked on arrival, and its
//! header is tracked for equivocation), and when the last of the other servers' is in, all
//! are checked at once: the work that needs no randomness in parallel, inventory by
//! inventory; the signature batches' weights drawn from the server's generator in arrival
//! order (so the draws do not depend on the thread count); then every inventory's signatures
//! as one batch (one MSM split evenly over the threads, each inventory's batch alone only if
//! that fails), and the rejections justified, in arrival order. With two servers there is one
//! other inventory, checked as it arrives, as before.
//!
//! A held inventory is never lost to a timeout: before a missing server is named, the held
//! ones are checked ([`Running::check_arrived_inventories`]), so a defective inventory is
//! reported against its sender, with the same evidence and in the same order (the first
//! defective one in arrival order) as if each had been checked on arrival.

use std::collections::BTreeSet;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party, ServerId};
use verdict_group::par;
use verdict_nizk::{BatchVerifier, WeighedBatch};

use super::super::common::Core;
use super::super::state::{Inventory, Rejected, Running, Submitted, XorSums};
use super::super::stop::Stop;
use super::{decode_submission, deferrable, first_invalid_slot, xor_sums};
use crate::config::GroupConfig;
use crate::error::ServerFault;
use crate::slot::OpenSlot;
use crate::suite::ProtoSuite;
use crate::wire::{Envelope, Kind, Received, SharedBytes, payloads};

impl<S: ProtoSuite> Running<S> {
    pub(super) fn on_inventory<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        j: ServerId,
        msg: Received<S::G>,
    ) -> Result<(), Stop> {
        let run = self;
        if j == core.id {
            // Our own inventory: its submissions were checked and decoded on arrival.
            let keep = run.round.open.iter().any(deferrable::<S>);
            let inventory = Inventory {
                envelope: keep.then_some(msg),
                items: core::mem::take(&mut run.round.own).into_iter().collect(),
                rejected: core::mem::take(&mut run.round.own_rejected),
                aggregates: core::mem::take(&mut run.round.own_aggregates),
                xor_sums: core::mem::take(&mut run.round.own_xor_sums),
            };
            if let Some(slot) = run.round.inventories.get_mut(j.index()) {
                *slot = Some(inventory);
            }
            core.progress();
            return run.after_inventories(core);
        }
        // A second copy: its header is the tracked one (a different one is equivocation,
        // stopped before we get here), so its bytes are those of the first.
        if run.round.has_inventory_of(j) {
            return Ok(());
        }
        run.round.arrived_inventories.push((j, msg));
        core.progress();
        let me = core.id;
        let others_in = (0..run.round.inventories.len())
            .map(|k| ServerId(k as u32))
            .all(|k| k == me || run.round.has_inventory_of(k));
        if !others_in {
            return Ok(());
        }
        run.check_arrived_inventories(core)?;
        run.after_inventories(core)
    }

    /// Checks every inventory held since it arrived (see the module notes), in parallel, and
    /// keeps each as checked; the first defective one in arrival order stops the session
    /// naming its sender.
    pub(crate) fn check_arrived_inventories<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
    ) -> Result<(), Stop> {
        let arrived = core::mem::take(&mut self.round.arrived_inventories);
        if arrived.is_empty() {
            return Ok(());
        }
        let open = &self.round.open;
        let config = &core.config;
        let (session, round) = (core.session.0, self.round.number);
        // No randomness here: parsing, decoding, the signature batches' equations, the sums.
        let mut inspected = par::map(&arrived, |(_, msg)| {
            inspect::<S>(config, open, session, round, msg)
        });
        // The signature batches' weights, drawn in arrival order; then all batches checked as
        // one (one MSM over every inventory's signatures, split evenly over the threads; each
        // batch on its own only if that fails).
        let mut weighed = Vec::with_capacity(inspected.len());
        let mut batch_of = Vec::with_capacity(inspected.len());
        for i in inspected.iter_mut() {
            batch_of.push(i.is_ok().then_some(weighed.len()));
            if let Ok(i) = i {
                weighed.push(core::mem::take(&mut i.signatures).weigh(&mut core.rng));
            }
        }
        let checked = WeighedBatch::verify_together(&weighed);
        // Thousands of small allocations (each signature's equation and weight).
        par::drop_later(weighed);
        let signatures_hold: Vec<bool> = batch_of
            .iter()
            .map(|b| b.and_then(|b| checked.get(b)).is_some_and(Result::is_ok))
            .collect();
        for (((j, msg), inspected), signed) in
            arrived.into_iter().zip(inspected).zip(signatures_hold)
        {
            let bad = || Err(Stop::bad_message(j, &msg));
            let Ok(inspected) = inspected else {
                return bad();
            };
            let (true, Ok(body)) = (signed, inspected.body) else {
                return bad();
            };
            // A rejection must be justified: the submission really carries an invalid proof
            // (or a malformed ciphertext). Otherwise the server is excluding an honest client.
            let mut rejected: Vec<Rejected> = Vec::with_capacity(body.rejected.len());
            for (c, bytes) in body.rejected {
                let payload = Envelope::<S::G>::payload_of(&bytes).unwrap_or_default();
                let prepared = &self.round.prepared;
                match first_invalid_slot(&self.nets, open, prepared, c, payload, &mut core.rng) {
                    Some(slot) => rejected.push((c, slot, bytes)),
                    None => {
                        return Err(Stop::fault(
                            j,
                            ServerFault::FalseRejection { round, client: c },
                            vec![msg.raw().clone()],
                        ));
                    }
                }
            }
            // A signed inventory is kept as evidence only while it can become some: when a
            // slot's ciphertexts are vouched for by their server's sum. (Holding every
            // inventory of an XOR round costs more than everything else the round does with
            // them.)
            let keep = open.iter().any(deferrable::<S>);
            if let Some(slot) = self.round.inventories.get_mut(j.index()) {
                *slot = Some(Inventory {
                    envelope: keep.then_some(msg),
                    items: body.items,
                    rejected,
                    aggregates: body.aggregates,
                    xor_sums: body.xor_sums,
                });
            }
        }
        Ok(())
    }
}

/// What [`inspect`] finds in an inventory whose envelopes all parse: its signature batch (not
/// yet checked), and the rest, or `Err` if the rest is malformed.
struct Inspected<S: ProtoSuite> {
    signatures: BatchVerifier<S::G>,
    body: Result<Body<S>, ()>,
}

/// An inventory's accepted submissions (decoded), rejected ones (to justify), aggregates and
/// XOR sums.
struct Body<S: ProtoSuite> {
    items: Vec<(ClientId, Submitted<S>)>,
    rejected: Vec<(ClientId, SharedBytes)>,
    aggregates: Vec<Option<S::Aggregate>>,
    xor_sums: XorSums,
}

/// Everything about another server's inventory that needs no randomness, in the order the
/// checks have always been made: the envelopes (each a client's submission to this round,
/// listed once), the signature batch, the aggregates, the accepted submissions, their XOR
/// sums. `Err` if an envelope is malformed; a defect after the signature batch's equations is
/// in [`Inspected::body`], reported only once the batch is checked (its weights are drawn
/// either way).
fn inspect<S: ProtoSuite>(
    config: &GroupConfig<S>,
    open: &[OpenSlot],
    session: [u8; 32],
    round: u64,
    msg: &Received<S::G>,
) -> Result<Inspected<S>, ()> {
    // Every submission in it is kept as a view of the inventory's bytes.
    let raw = msg.raw();
    let payloads::Inventory {
        accepted: list,
        rejected: rejected_list,
        aggregates: aggregate_list,
    } = payloads::Inventory::decode(msg.payload()).map_err(|_| ())?;
    if aggregate_list.len() != open.len() {
        return Err(());
    }
    let n_accepted = list.len();
    let all: Vec<&[u8]> = list.into_iter().chain(rejected_list).collect();
    // Parsing hashes every payload against its header's digest (megabytes per inventory).
    let parsed = par::map(&all, |bytes| Envelope::<S::G>::parse(bytes));
    let mut envelopes = Vec::with_capacity(all.len());
    let mut listed = BTreeSet::new();
    for (bytes, parsed) in all.iter().copied().zip(parsed) {
        let (signed, payload) = parsed.map_err(|_| ())?;
        let h = &signed.header;
        let (Party::Client(c), Kind::Submission, true, true) =
            (h.sender, h.kind, h.session == session, h.round == round)
        else {
            return Err(());
        };
        let key = config.key_of(h.sender).ok_or(())?;
        if !listed.insert(c) {
            return Err(());
        }
        let bytes = raw.share(bytes).ok_or(())?;
        envelopes.push((c, key, signed, payload, bytes));
    }
    // All client signatures in one batch: one multi-scalar multiplication instead of one
    // verification each.
    let signed: Vec<_> = envelopes
        .iter()
        .map(|(_, k, signed, _, _)| (*k, signed))
        .collect();
    let signatures = crate::wire::signature_batch(&signed);
    let body = (|| {
        // Each slot's aggregate is a list of group elements to validate.
        let pairs: Vec<(&OpenSlot, &[u8])> =
            open.iter().zip(aggregate_list.iter().copied()).collect();
        let aggregates = par::map(&pairs, |&(o, bytes)| {
            if let Some(ops) = S::AGGREGATION.ops().filter(|_| deferrable::<S>(o)) {
                ops.decode_aggregate(o.len, bytes).map(Some).map_err(|_| ())
            } else if bytes.is_empty() {
                Ok(None)
            } else {
                Err(())
            }
        });
        let aggregates = aggregates.into_iter().collect::<Result<Vec<_>, ()>>()?;
        // Ciphertexts of verifiable slots stay encoded: this server vouches for them with its
        // aggregate, and we decode them only if the slot fails to reveal.
        let accepted = envelopes.get(..n_accepted).unwrap_or_default();
        let decoded = par::map(accepted, |(_, _, _, payload, bytes)| {
            decode_submission::<S>(open, bytes.clone(), payload, false)
        });
        let mut items = Vec::with_capacity(n_accepted);
        for ((c, ..), submitted) in accepted.iter().zip(decoded) {
            items.push((*c, submitted.map_err(|_| ())?));
        }
        let rejected = envelopes
            .iter()
            .skip(n_accepted)
            .map(|(c, _, _, _, bytes)| (*c, bytes.clone()))
            .collect();
        // XOR ciphertexts are summed now, while the inventory's bytes are warm.
        let xor_sums = xor_sums(open, items.iter().map(|(c, sub)| (*c, sub)));
        Ok(Body {
            items,
            rejected,
            aggregates,
            xor_sums,
        })
    })();
    Ok(Inspected { signatures, body })
}
