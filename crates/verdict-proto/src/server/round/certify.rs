//! Certification: every server's signature on the output, the certified output sent to the
//! clients, archiving what blame needs, and the move to the next round.

use std::collections::BTreeMap;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{ClientId, Party, ServerId};

use super::*;

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    pub(crate) fn on_output_signature(&mut self, env: Envelope<S::G>) {
        let Party::Server(j) = env.header().sender else {
            return;
        };
        let State::Running(run) = &mut self.state else {
            return;
        };
        if let Some(slot) = run.round.signatures.get_mut(j.0 as usize) {
            *slot = Some(env.to_bytes());
        }
        self.last_progress = self.now;
        self.after_signatures();
    }

    pub(crate) fn after_signatures(&mut self) {
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some((_, bytes)) = &run.round.result else {
            return;
        };
        if run.round.signatures.iter().any(Option::is_none) {
            return;
        }
        let digest = *blake3::hash(bytes).as_bytes();
        let round_no = run.round.number;
        for (j, sig) in run.round.signatures.iter().enumerate() {
            let ok = sig
                .as_ref()
                .and_then(|s| Envelope::<S::G>::from_bytes(s).ok())
                .is_some_and(|e| e.payload == digest);
            if !ok {
                let evidence: Vec<Vec<u8>> = sig.iter().cloned().collect();
                return self.halt(
                    ServerId(j as u32),
                    ServerFault::BadOutput { round: round_no },
                    evidence,
                );
            }
        }
        self.certify();
    }

    pub(crate) fn certify(&mut self) {
        let clients: Vec<ClientId> = self.clients.iter().copied().collect();
        let now = self.now;
        let m = self.config.num_servers();
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some((result, bytes)) = run.round.result.clone() else {
            return;
        };
        let mut w = Writer::new();
        w.bytes(&bytes);
        let sigs: Vec<Vec<u8>> = run.round.signatures.iter().flatten().cloned().collect();
        write_byte_list(&mut w, &sigs);
        let payload = w.finish();
        let round_no = result.round;
        let accusations = core::mem::take(&mut run.round.accusations);
        let excluded_now = core::mem::take(&mut run.round.excluded_now);
        // Archive what blame needs, then move to the next round.
        // Only hybrid blame looks back, at an XOR slot's submissions: rounds without XOR slots
        // keep none, and the others keep them encoded (the signed envelope is the evidence, a
        // blamed slot is decoded again), so a server's memory is not three rounds of both.
        let has_xor = run.round.open.iter().any(|o| o.kind == SlotKind::Xor);
        let mut accepted = core::mem::take(&mut run.round.accepted);
        if has_xor {
            for sub in accepted.values_mut() {
                sub.cts = Vec::new();
            }
        } else {
            accepted = BTreeMap::new();
        }
        let archived = Archived {
            open: run.round.open.clone(),
            outputs: result.slots.iter().map(|(_, o)| o.clone()).collect(),
            accepted,
            server_cts: run
                .round
                .server_cts
                .iter_mut()
                .filter_map(Option::take)
                .collect(),
        };
        run.history.insert(round_no, archived);
        while run.history.len() > 3 {
            run.history.pop_first();
        }
        run.schedule.advance(&result);
        let next = new_round::<S>(&run.nets, &run.schedule, round_no + 1, now, m);
        let future = core::mem::take(&mut run.future);
        match next {
            Ok(r) => run.round = r,
            Err(_) => {
                let me = self.id;
                return self.halt(
                    me,
                    ServerFault::BadOutput {
                        round: round_no + 1,
                    },
                    Vec::new(),
                );
            }
        }
        self.prune_headers();
        self.send_to_clients(&clients, Kind::RoundOutput, round_no, payload);
        for (c, reason, evidence) in excluded_now {
            self.excluded.insert(c);
            self.events.push_back(Event::Excluded {
                client: c,
                reason,
                evidence,
            });
        }
        for (c, _) in &result.excluded {
            self.excluded.insert(*c);
        }
        for (open, out) in &result.slots {
            if let SlotOutput::Message(m) = out
                && !m.is_empty()
                && open.kind == message_kind(self.config.policy.mode.is_hybrid())
            {
                self.events.push_back(Event::Delivered {
                    round: round_no,
                    slot: open.slot,
                    message: m.clone(),
                });
            }
        }
        self.events.push_back(Event::RoundComplete {
            round: round_no,
            participants: result.participants(),
        });
        self.last_progress = now;
        if !accusations.is_empty() {
            self.start_blame(accusations, round_no);
        }
        // Verified and tracked on arrival: straight to the round logic.
        for env in future.drain() {
            self.handle_round_message(env);
        }
        self.check_window();
    }
}
