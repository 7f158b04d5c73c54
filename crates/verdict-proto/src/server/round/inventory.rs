//! Inventories: checking another server's signed inventory (signatures in one batch, every
//! rejection justified), and the accepted set `S` once all are in.

use std::collections::{BTreeMap, BTreeSet};

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party, ServerId};
use verdict_group::par;

use super::super::common::Core;
use super::super::state::{Forwarded, Inventory, RoundStep, Running, Submitted};
use super::super::stop::Stop;
use super::union::{Union, union_of};
use super::{
    decode_deferred, decode_submission, deferrable, first_invalid_slot, invalid_clients,
    slot_items, xor_sums,
};
use crate::error::{ExclusionReason, ServerFault};
use crate::policy::Verification;
use crate::slot::OpenSlot;
use crate::suite::{Prepared, ProtoSuite};
use crate::wire::{Envelope, Kind, Received, SharedBytes, payloads};

impl<S: ProtoSuite> Running<S> {
    pub(super) fn on_inventory<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        j: ServerId,
        msg: Received<S::G>,
    ) -> Result<(), Stop> {
        let session = core.session.0;
        let round_no = msg.header().round;
        let run = self;
        // A signed inventory is kept as evidence only while it can become some: when a slot's
        // ciphertexts are vouched for by their server's sum. (Holding every inventory of an
        // XOR round costs more than everything else the round does with them.)
        let keep = run.round.open.iter().any(deferrable::<S>);
        if j == core.id {
            // Our own inventory: its submissions were checked and decoded on arrival.
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
        let open = run.round.open.clone();
        // Only a server can have put an unsigned or malformed submission in its inventory.
        let bad = || Err(Stop::bad_message(j, &msg));
        // Every submission in it is kept as a view of the inventory's bytes.
        let raw = msg.raw();
        let Ok(payloads::Inventory {
            accepted: list,
            rejected: rejected_list,
            aggregates: aggregate_list,
        }) = payloads::Inventory::decode(msg.payload())
        else {
            return bad();
        };
        if aggregate_list.len() != open.len() {
            return bad();
        }
        // Parse and check every envelope, verify all client signatures in one batch (one
        // multi-scalar multiplication instead of one verification each), then decode.
        let n_accepted = list.len();
        let all: Vec<&[u8]> = list.into_iter().chain(rejected_list).collect();
        // Parsing hashes every payload against its header's digest (megabytes per inventory):
        // in parallel with the `parallel` feature.
        let parsed = par::map(&all, |bytes| Envelope::<S::G>::parse(bytes));
        let mut envelopes = Vec::with_capacity(all.len());
        let mut listed = BTreeSet::new();
        for (bytes, parsed) in all.iter().copied().zip(parsed) {
            let Ok((signed, payload)) = parsed else {
                return bad();
            };
            let h = &signed.header;
            let (Party::Client(c), Kind::Submission, true, true) =
                (h.sender, h.kind, h.session == session, h.round == round_no)
            else {
                return bad();
            };
            let Some(key) = core.config.key_of(h.sender) else {
                return bad();
            };
            if !listed.insert(c) {
                return bad();
            }
            let Some(bytes) = raw.share(bytes) else {
                return bad();
            };
            envelopes.push((c, key, signed, payload, bytes));
        }
        let signed: Vec<_> = envelopes
            .iter()
            .map(|(_, k, signed, _, _)| (*k, signed))
            .collect();
        if crate::wire::verify_batch(&signed, &mut core.rng).is_err() {
            return bad();
        }
        // Each slot's aggregate is a list of group elements to validate: slots in parallel
        // with the `parallel` feature.
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
        let Ok(aggregates) = aggregates.into_iter().collect::<Result<Vec<_>, ()>>() else {
            return bad();
        };
        // Ciphertexts of verifiable slots stay encoded: this server vouches for them with its
        // aggregate, and we decode them only if the slot fails to reveal. The accepted
        // submissions decode independently: in parallel with the `parallel` feature.
        let accepted = envelopes.get(..n_accepted).unwrap_or_default();
        let mut decoded = par::map(accepted, |(_, _, _, payload, bytes)| {
            decode_submission::<S>(&open, bytes.clone(), payload, false)
        })
        .into_iter();
        let mut items = Vec::with_capacity(n_accepted);
        let mut rejected = Vec::new();
        for (pos, (c, _, _, payload, bytes)) in envelopes.into_iter().enumerate() {
            if pos < n_accepted {
                let Some(Ok(submitted)) = decoded.next() else {
                    return bad();
                };
                items.push((c, submitted));
                continue;
            }
            // A rejection must be justified: the submission really carries an invalid proof
            // (or a malformed ciphertext). Otherwise the server is excluding an honest client.
            let prepared = &run.round.prepared;
            match first_invalid_slot(&run.nets, &open, prepared, c, payload, &mut core.rng) {
                Some(slot) => rejected.push((c, slot, bytes)),
                None => {
                    return Err(Stop::fault(
                        j,
                        ServerFault::FalseRejection {
                            round: round_no,
                            client: c,
                        },
                        vec![raw.clone()],
                    ));
                }
            }
        }
        // XOR ciphertexts are summed now, while the inventory's bytes are warm.
        let xor_sums = xor_sums(&open, items.iter().map(|(c, sub)| (*c, sub)));
        if let Some(slot) = run.round.inventories.get_mut(j.index()) {
            *slot = Some(Inventory {
                envelope: keep.then_some(msg),
                items,
                rejected,
                aggregates,
                xor_sums,
            });
        }
        core.progress();
        run.after_inventories(core)
    }

    /// With every inventory in: the accepted set `S`, exclusions, the aggregates the reveal
    /// will use, and our server ciphertexts (committed first when XOR slots are open).
    pub(super) fn after_inventories<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
    ) -> Result<(), Stop> {
        let verification = core.config.policy.mode.verification();
        let eager = verification == Verification::Eager;
        let me = core.id;
        let run = self;
        if run.round.inventories.iter().any(Option::is_none) || run.round.my_cts.is_some() {
            return Ok(());
        }
        let excluded = &core.excluded;
        let round_no = run.round.number;
        let m = run.round.inventories.len();
        // S: the union of the inventories; a client counted twice with different submissions
        // signed two versions of its round input — excluded, both signed messages as evidence.
        // A server whose inventory is not exactly its share of S (a client also listed by
        // another server, or excluded) cannot have its aggregates used as they are: we
        // recompute them from its submissions.
        let mut rejections: BTreeMap<ClientId, (u32, SharedBytes)> = BTreeMap::new();
        let mut forwarded = Vec::with_capacity(m);
        let mut lists = Vec::with_capacity(m);
        for inv in run.round.inventories.iter_mut() {
            let Some(inv) = inv else { continue };
            forwarded.push(Forwarded {
                envelope: core::mem::take(&mut inv.envelope),
                aggregates: core::mem::take(&mut inv.aggregates),
                as_forwarded: true,
                xor_sums: core::mem::take(&mut inv.xor_sums),
            });
            for (c, slot, envelope) in inv.rejected.drain(..) {
                rejections.entry(c).or_insert((slot, envelope));
            }
            lists.push(core::mem::take(&mut inv.items));
        }
        let Union {
            mut accepted,
            mut upstream,
            doubles,
            mut recompute,
        } = union_of(lists, excluded, |s: &Submitted<S>| &s.envelope);
        for (c, evidence) in doubles {
            run.round.excluded_now.push((
                c,
                ExclusionReason::DoubleSubmission { round: round_no },
                evidence,
            ));
        }
        // Rejections (each checked on receipt): the client is excluded. A server that counted
        // the very submission another one rejected did not verify it, as eager mode requires.
        let mut fault = None;
        for (c, (slot, envelope)) in rejections {
            if let Some(sub) = accepted.remove(&c) {
                let u = upstream.remove(&c).unwrap_or(me);
                recompute[u.index()] = true;
                if eager && u != me && sub.envelope == envelope && fault.is_none() {
                    let evidence = forwarded
                        .get(u.index())
                        .and_then(|f: &Forwarded<S>| f.envelope.as_ref())
                        .map(|e| vec![e.raw().clone(), envelope.clone()])
                        .unwrap_or_default();
                    fault = Some((
                        u,
                        ServerFault::UncheckedSubmission {
                            round: round_no,
                            client: c,
                        },
                        evidence,
                    ));
                }
            }
            if !run.round.excluded_now.iter().any(|(x, _, _)| *x == c) {
                run.round.excluded_now.push((
                    c,
                    ExclusionReason::InvalidProof {
                        round: round_no,
                        slot,
                    },
                    vec![envelope],
                ));
            }
        }
        if let Some((j, f, evidence)) = fault {
            return Err(Stop::fault(j, f, evidence));
        }
        if eager && !S::AGGREGATION.aggregates() {
            // Eager-only suites: every server verifies every client proof before combining.
            let bad = invalid_clients(
                &run.nets,
                &run.round.open,
                &run.round.prepared,
                &accepted,
                &mut core.rng,
            );
            for (c, slot) in bad {
                if let Some(sub) = accepted.remove(&c) {
                    upstream.remove(&c);
                    run.round.excluded_now.push((
                        c,
                        ExclusionReason::InvalidProof {
                            round: round_no,
                            slot,
                        },
                        vec![sub.envelope],
                    ));
                }
            }
        }
        // The aggregates the reveal will use: as forwarded, or recomputed (see above).
        for (j, fw) in forwarded.iter_mut().enumerate() {
            if !recompute[j] {
                continue;
            }
            fw.as_forwarded = false;
            let server = ServerId(j as u32);
            for (k, (open, prepared)) in run.round.open.iter().zip(&run.round.prepared).enumerate()
            {
                let Some(aggregator) = run.nets.aggregator().filter(|_| deferrable::<S>(open))
                else {
                    continue;
                };
                let mut items = Vec::new();
                for (c, sub) in accepted.iter_mut() {
                    if upstream.get(c) != Some(&server) {
                        continue;
                    }
                    if !decode_deferred(open, sub, k) && fault.is_none() {
                        fault = Some((
                            server,
                            ServerFault::UncheckedSubmission {
                                round: round_no,
                                client: *c,
                            },
                            fw.envelope.iter().map(|e| e.raw().clone()).collect(),
                        ));
                    }
                }
                for (c, sub) in &accepted {
                    if upstream.get(c) == Some(&server)
                        && let Some(Some(ct)) = sub.cts.get(k)
                    {
                        items.push((*c, ct));
                    }
                }
                match (
                    aggregator.aggregate(prepared, &items),
                    fw.aggregates.get_mut(k),
                ) {
                    (Ok(a), Some(slot)) => *slot = a,
                    _ if fault.is_none() => {
                        fault = Some((
                            server,
                            ServerFault::BadOutput { round: round_no },
                            fw.envelope.iter().map(|e| e.raw().clone()).collect(),
                        ));
                    }
                    _ => {}
                }
            }
        }
        if let Some((j, f, evidence)) = fault {
            return Err(Stop::fault(j, f, evidence));
        }
        // The XOR sums the reveal will use: each server's is kept only if it was summed over
        // exactly that server's share of S (whatever left the set since: doubles, rejections,
        // exclusions), else summed again from the share.
        for (j, fw) in forwarded.iter_mut().enumerate() {
            let server = ServerId(j as u32);
            let upstream = &upstream;
            let share = || {
                accepted
                    .iter()
                    .filter(move |(c, _)| upstream.get(c) == Some(&server))
            };
            if !share().map(|(c, _)| c).eq(&fw.xor_sums.over) {
                fw.xor_sums = xor_sums(&run.round.open, share().map(|(c, sub)| (*c, sub)));
            }
        }
        run.round.accepted = accepted;
        run.round.upstream = upstream;
        run.round.forwarded = forwarded;
        // Server ciphertexts over S (for aggregating suites a verifiable slot's depends on the
        // accepted ids alone).
        // One slot per thread with the `parallel` feature, each with its own RNG (`crate::fork`).
        let ids: Vec<ClientId> = run.round.accepted.keys().copied().collect();
        let seeds = crate::fork::seeds(&mut core.rng, run.round.prepared.len());
        let jobs: Vec<_> = run.round.prepared.iter().zip(&seeds).enumerate().collect();
        let (nets, secrets, accepted) = (&run.nets, &run.secrets, &run.round.accepted);
        let results = par::map(&jobs, |&(k, (prepared, seed))| {
            let mut rng = crate::fork::rng(seed);
            match (prepared, nets.aggregator()) {
                (Prepared::Ver(p), Some(aggregator)) => {
                    aggregator.server_ciphertext_for(secrets, p, &ids, &mut rng)
                }
                _ => {
                    let items = slot_items(accepted, k);
                    nets.server_ciphertext(secrets, prepared, &ids, &items, &mut rng)
                }
            }
        });
        let mut cts = Vec::with_capacity(results.len());
        for ct in results {
            match ct {
                Ok(ct) => cts.push(ct),
                // Our own secrets over a checked accepted set: only a bug of ours gets here.
                Err(_) => {
                    return Err(Stop::fault(
                        me,
                        ServerFault::BadOutput { round: round_no },
                        Vec::new(),
                    ));
                }
            }
        }
        let payload = payloads::ByteList::encode(&cts);
        run.round.my_cts = Some(payload.clone());
        if run.round.has_xor() {
            // Commit first: no server may choose its XOR ciphertext after seeing the others'.
            let digest = *blake3::hash(&payload).as_bytes();
            run.round.step = RoundStep::Commits;
            core.broadcast(Kind::Commit, round_no, digest.to_vec());
        } else {
            run.round.step = RoundStep::ServerCiphertexts;
            core.broadcast(Kind::ServerCiphertexts, round_no, payload);
        }
        // Ciphertexts of faster servers that arrived before we knew S can be checked now.
        let early = core::mem::take(&mut run.round.early_cts);
        for (j, msg) in early.into_iter().enumerate() {
            if let Some(msg) = msg {
                run.on_server_cts(core, ServerId(j as u32), msg)?;
            }
        }
        Ok(())
    }
}
