//! Server ciphertexts: commit-then-reveal for XOR slots, and verifying every other server's
//! ciphertext and proof over `S`.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party};

use super::*;

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    pub(crate) fn on_commit(&mut self, env: Envelope<S::G>) {
        let Party::Server(j) = env.header().sender else {
            return;
        };
        let Ok(digest) = <[u8; 32]>::try_from(env.payload.as_slice()) else {
            return self.bad_message(j, &env);
        };
        let State::Running(run) = &mut self.state else {
            return;
        };
        if let Some(slot) = run.round.commits.get_mut(j.0 as usize) {
            *slot = Some(digest);
        }
        self.last_progress = self.now;
        self.after_commits();
    }

    pub(crate) fn after_commits(&mut self) {
        let State::Running(run) = &mut self.state else {
            return;
        };
        let me = self.id.0 as usize;
        if run.round.commits.iter().any(Option::is_none)
            || run.round.server_cts.get(me).is_some_and(Option::is_some)
        {
            return;
        }
        let Some(payload) = run.round.my_cts.clone() else {
            return;
        };
        let round_no = run.round.number;
        self.broadcast(Kind::ServerCiphertexts, round_no, payload);
    }

    pub(crate) fn on_server_cts(&mut self, env: Envelope<S::G>) {
        let Party::Server(j) = env.header().sender else {
            return;
        };
        let round_no = env.header().round;
        let State::Running(run) = &mut self.state else {
            return;
        };
        if run.round.my_cts.is_none() {
            // A faster server already has every inventory; we do not, so we cannot check its
            // proofs over S yet. (Bounded: one message per server per round.)
            if let Some(slot) = run.round.early_cts.get_mut(j.0 as usize) {
                slot.get_or_insert(env);
            }
            return;
        }
        let evidence = vec![env.to_bytes()];
        let has_xor = run.round.open.iter().any(|o| o.kind == SlotKind::Xor);
        if has_xor {
            let committed = run.round.commits.get(j.0 as usize).copied().flatten();
            if committed != Some(*blake3::hash(&env.payload).as_bytes()) {
                return self.halt(j, ServerFault::CommitMismatch { round: round_no }, evidence);
            }
        }
        let list = match Reader::new(&env.payload).byte_slices() {
            Ok(l) if l.len() == run.round.open.len() => l,
            _ => return self.halt(j, ServerFault::BadOutput { round: round_no }, evidence),
        };
        let mut cts = Vec::with_capacity(list.len());
        for (k, (open, bytes)) in run.round.open.iter().zip(&list).enumerate() {
            let Some(ct) = Nets::<S>::decode_server(open, bytes) else {
                let slot = open.slot;
                return self.halt(
                    j,
                    ServerFault::InvalidCiphertext {
                        round: round_no,
                        slot,
                    },
                    evidence,
                );
            };
            if j != self.id {
                let Some(prepared) = run.round.prepared.get(k) else {
                    return;
                };
                let verified = match prepared {
                    // Checked below, all slots in one batch.
                    Prepared::Ver(_) if S::AGGREGATES => Ok(()),
                    _ => {
                        let items = slot_items(&run.round.accepted, k);
                        run.nets.verify_server(prepared, j, &items, &ct)
                    }
                };
                if verified.is_err() {
                    let slot = open.slot;
                    return self.halt(
                        j,
                        ServerFault::InvalidCiphertext {
                            round: round_no,
                            slot,
                        },
                        evidence,
                    );
                }
            }
            cts.push(ct);
        }
        if S::AGGREGATES && j != self.id {
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
                run.nets
                    .verify_server_slots_for(j, &ids, &items, &mut self.rng)
            };
            if let Err(bad) = checked {
                let slot = bad
                    .first()
                    .and_then(|&b| slots.get(b))
                    .copied()
                    .unwrap_or(0);
                return self.halt(
                    j,
                    ServerFault::InvalidCiphertext {
                        round: round_no,
                        slot,
                    },
                    evidence,
                );
            }
        }
        if let Some(slot) = run.round.server_cts.get_mut(j.0 as usize) {
            *slot = Some((evidence.into_iter().next().unwrap_or_default(), cts));
        }
        self.last_progress = self.now;
        self.after_server_cts();
    }
}
