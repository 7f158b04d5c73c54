//! Client submissions and the submission window: decode on arrival, close by policy, verify our
//! own clients (eager), and send our inventory.

use std::collections::BTreeMap;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party};

use super::*;

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// Decodes a submission's slot ciphertexts; with `all = false` only those every server
    /// needs decoded (XOR slots, and every slot of a non-aggregating suite), the others are
    /// left for [`decode_deferred`].
    pub(crate) fn decode_submission(
        open: &[OpenSlot],
        payload: &[u8],
        all: bool,
    ) -> Result<Vec<Option<ClientCt<S>>>, WireError> {
        let mut r = Reader::new(payload);
        let list = r.byte_slices()?;
        r.finish()?;
        if list.len() != open.len() {
            return Err(WireError::Invalid("number of slot ciphertexts"));
        }
        open.iter()
            .zip(&list)
            .map(|(o, b)| {
                if all || !deferrable::<S>(o) {
                    Nets::<S>::decode_client(o, b)
                        .map(Some)
                        .ok_or(WireError::Invalid("slot ciphertext"))
                } else {
                    Ok(None)
                }
            })
            .collect()
    }

    pub(crate) fn on_submission(&mut self, env: Envelope<S::G>) {
        let from = env.header().sender;
        let Party::Client(c) = from else { return };
        if !self.clients.contains(&c) || self.excluded.contains(&c) {
            return self.reject(MessageError::Unexpected {
                from,
                kind: "submission",
                round: env.header().round,
            });
        }
        let State::Running(run) = &mut self.state else {
            return;
        };
        if run
            .round
            .inventories
            .get(self.id.0 as usize)
            .is_some_and(Option::is_some)
        {
            return self.reject(MessageError::Unexpected {
                from,
                kind: "submission after the window closed",
                round: env.header().round,
            });
        }
        let bytes = env.to_bytes();
        if let Some(prev) = run.round.own.get(&c) {
            if prev.envelope != bytes {
                self.reject(MessageError::Duplicate {
                    from,
                    kind: "submission",
                });
            }
            return;
        }
        let cts = match Self::decode_submission(&run.round.open, &env.payload, true) {
            Ok(c) => c,
            Err(source) => return self.reject(MessageError::Malformed { from, source }),
        };
        run.round.own.insert(
            c,
            Submitted {
                envelope: bytes,
                cts,
            },
        );
        let elapsed = self.now.saturating_sub(run.round.opened_at);
        let expected = self
            .clients
            .iter()
            .filter(|c| !self.excluded.contains(c))
            .count();
        let State::Running(run) = &mut self.state else {
            return;
        };
        if run.round.fraction_at.is_none()
            && run.round.own.len() >= self.config.policy.window.needed(expected)
        {
            run.round.fraction_at = Some(elapsed);
        }
        self.check_window();
    }

    pub(crate) fn check_window(&mut self) {
        let expected = self.expected_clients();
        let window = self.config.policy.window;
        let eager = self.config.policy.mode.verification() == Verification::Eager
            && !self.skip_client_checks;
        let now = self.now;
        let me = self.id.0 as usize;
        let State::Running(run) = &mut self.state else {
            return;
        };
        if run.blame.is_some() || run.round.inventories.get(me).is_some_and(Option::is_some) {
            return;
        }
        let elapsed = now.saturating_sub(run.round.opened_at);
        if run.round.fraction_at.is_none() && run.round.own.len() >= window.needed(expected) {
            run.round.fraction_at = Some(elapsed);
        }
        let close = expected == 0
            || window
                .close_at(run.round.fraction_at, run.round.own.len() >= expected)
                .is_some_and(|t| elapsed >= t);
        if !close {
            return;
        }
        let round = run.round.number;
        for bytes in core::mem::take(&mut self.also_list) {
            match Envelope::<S::G>::from_bytes(&bytes) {
                Ok(e) if e.header().round == round => {
                    if let Party::Client(c) = e.header().sender {
                        let cts = run.round.open.iter().map(|_| None).collect();
                        run.round.own.insert(
                            c,
                            Submitted {
                                envelope: bytes,
                                cts,
                            },
                        );
                    }
                }
                _ => self.also_list.push(bytes),
            }
        }
        if S::AGGREGATES && eager {
            // Eager verification, our share of it: our own clients' proofs, one batch per
            // slot. The other servers take our word (and our aggregates) until a slot fails to
            // reveal, so this is where an invalid proof is normally caught.
            let mut bad: BTreeMap<ClientId, u32> = BTreeMap::new();
            for (k, (open, prepared)) in run.round.open.iter().zip(&run.round.prepared).enumerate()
            {
                if open.kind != SlotKind::Verifiable {
                    continue;
                }
                let items = slot_items(&run.round.own, k);
                for c in run.nets.verify_clients(prepared, &items, &mut self.rng) {
                    bad.entry(c).or_insert(open.slot);
                }
            }
            for (c, slot) in bad {
                if let Some(sub) = run.round.own.remove(&c) {
                    run.round.own_rejected.push((c, slot, sub.envelope));
                }
            }
        }
        if self.falsely_reject_in == Some(round)
            && let Some((&c, _)) = run.round.own.iter().next()
            && let Some(sub) = run.round.own.remove(&c)
        {
            let slot = run.round.open.first().map_or(0, |o| o.slot);
            run.round.own_rejected.push((c, slot, sub.envelope));
        }
        let mut aggregates = Vec::with_capacity(run.round.open.len());
        let mut encoded = Vec::with_capacity(run.round.open.len());
        for (k, (open, prepared)) in run.round.open.iter().zip(&run.round.prepared).enumerate() {
            let aggregate = if deferrable::<S>(open) {
                match run.nets.aggregate(prepared, &slot_items(&run.round.own, k)) {
                    Ok(a) => a,
                    Err(_) => {
                        let me = self.id;
                        return self.halt(me, ServerFault::BadOutput { round }, Vec::new());
                    }
                }
            } else {
                None
            };
            encoded.push(
                aggregate
                    .as_ref()
                    .map(S::encode_aggregate)
                    .unwrap_or_default(),
            );
            aggregates.push(aggregate);
        }
        if self.swap_aggregates_in == Some(round) {
            let filled: Vec<usize> = (0..aggregates.len())
                .filter(|&k| aggregates.get(k).is_some_and(Option::is_some))
                .collect();
            if let (Some(&a), Some(&b)) = (filled.first(), filled.get(1)) {
                aggregates.swap(a, b);
                encoded.swap(a, b);
            }
        }
        if let Some((r, f)) = self.tamper_aggregates.as_mut()
            && *r == round
        {
            for (k, open) in run.round.open.iter().enumerate() {
                if let (Some(Some(a)), Some(e)) = (aggregates.get_mut(k), encoded.get_mut(k))
                    && let Ok(t) = S::decode_aggregate(open.len, &f(k, e.clone()))
                {
                    *e = S::encode_aggregate(&t);
                    *a = t;
                }
            }
        }
        run.round.own_aggregates = aggregates;
        let list: Vec<Vec<u8>> = run.round.own.values().map(|s| s.envelope.clone()).collect();
        let rejected: Vec<Vec<u8>> = run
            .round
            .own_rejected
            .iter()
            .map(|(_, _, e)| e.clone())
            .collect();
        let mut w = Writer::new();
        write_byte_list(&mut w, &list);
        write_byte_list(&mut w, &rejected);
        write_byte_list(&mut w, &encoded);
        self.last_progress = now;
        self.broadcast(Kind::Inventory, round, w.finish());
    }
}
