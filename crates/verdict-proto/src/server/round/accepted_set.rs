//! The accepted set `S` once every inventory is in: the union of the inventories, exclusions
//! (double submissions, justified rejections), the aggregates and XOR sums the reveal will use,
//! and our server ciphertexts over `S`.

use std::collections::BTreeMap;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, ServerId};
use verdict_group::par;

use super::super::common::Core;
use super::super::state::{Forwarded, RoundStep, Running, Submitted};
use super::super::stop::Stop;
use super::union::{Union, union_of};
use super::{decode_deferred, deferrable, invalid_clients, slot_items, xor_sums};
use crate::error::{ExclusionReason, ServerFault};
use crate::policy::Verification;
use crate::suite::{Prepared, ProtoSuite};
use crate::wire::{Kind, SharedBytes, payloads};

impl<S: ProtoSuite> Running<S> {
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
        let shares = shares_of(&accepted, &upstream, forwarded.len());
        for (fw, share) in forwarded.iter_mut().zip(&shares) {
            if *share != fw.xor_sums.over {
                let subs = share.iter().filter_map(|c| Some((*c, accepted.get(c)?)));
                fw.xor_sums = xor_sums(&run.round.open, subs);
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

/// Each of `m` servers' share of the accepted set: the clients counted from it, in client
/// order. One merge of the two maps (both ordered by client), not a lookup per client and
/// server: at N = 1024 and M = 8 the lookups were a tenth of a hybrid round's serial work.
fn shares_of<T>(
    accepted: &BTreeMap<ClientId, T>,
    upstream: &BTreeMap<ClientId, ServerId>,
    m: usize,
) -> Vec<Vec<ClientId>> {
    let mut shares = vec![Vec::new(); m];
    let mut up = upstream.iter().peekable();
    for c in accepted.keys() {
        while up.next_if(|(u, _)| *u < c).is_some() {}
        if let Some((_, j)) = up.next_if(|(u, _)| *u == c)
            && let Some(share) = shares.get_mut(j.index())
        {
            share.push(*c);
        }
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_list_each_accepted_client_under_its_upstream_in_order() {
        let accepted: BTreeMap<ClientId, ()> = [1, 2, 4, 6, 7].map(|c| (ClientId(c), ())).into();
        // Upstream entries without an accepted client (0, 3) are skipped, and so are an
        // accepted client without an upstream (6) and one naming no server (7 -> 9).
        let upstream: BTreeMap<ClientId, ServerId> =
            [(0, 0), (1, 1), (2, 0), (3, 1), (4, 1), (7, 9)]
                .map(|(c, j)| (ClientId(c), ServerId(j)))
                .into();
        let shares = shares_of(&accepted, &upstream, 3);
        assert_eq!(
            shares,
            vec![vec![ClientId(2)], vec![ClientId(1), ClientId(4)], vec![]]
        );
    }
}
