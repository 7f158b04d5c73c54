//! Certification: every server's signature on the output, the certified output sent to the
//! clients, archiving what blame needs, and the move to the next round.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::ServerId;
use verdict_group::par;

use super::super::common::Core;
use super::super::state::{Archived, Running, Signature};
use super::super::stop::Stop;
use super::{message_kind, new_round};
use crate::error::ServerFault;
use crate::event::Event;
use crate::slot::SlotOutput;
use crate::suite::ProtoSuite;
use crate::wire::{Kind, Received, payloads};

/// Past rounds a server keeps for blame (which traces the round before the carrier, and
/// starts one round later still).
const HISTORY_ROUNDS: usize = 3;

impl<S: ProtoSuite> Running<S> {
    pub(super) fn on_output_signature<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        j: ServerId,
        msg: Received<S::G>,
    ) -> Result<(), Stop> {
        if let Some(slot) = self.round.signatures.get_mut(j.index()) {
            slot.get_or_insert(msg);
        }
        core.progress();
        self.after_signatures(core)
    }

    fn after_signatures<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
    ) -> Result<(), Stop> {
        let run = self;
        let Some((_, bytes)) = &run.round.result else {
            return Ok(());
        };
        if run.round.signatures.iter().any(Option::is_none) {
            return Ok(());
        }
        let digest = *blake3::hash(bytes).as_bytes();
        let round_no = run.round.number;
        for (j, sig) in run.round.signatures.iter().enumerate() {
            if sig.as_ref().is_none_or(|s| s.payload() != digest) {
                let evidence = sig.iter().map(|s| s.raw().clone()).collect();
                return Err(Stop::fault(
                    ServerId(j as u32),
                    ServerFault::BadOutput { round: round_no },
                    evidence,
                ));
            }
        }
        run.certify(core)
    }

    /// Every server signed our output: send it to our clients, archive what blame needs, and
    /// open the next round.
    fn certify<R: RngCore + CryptoRng>(&mut self, core: &mut Core<S, R>) -> Result<(), Stop> {
        let clients = self.settle_upstreams(core);
        let now = core.now;
        let m = core.config.num_servers();
        let run = self;
        let Some((result, bytes)) = run.round.result.clone() else {
            return Ok(());
        };
        let sigs: Vec<&[u8]> = run
            .round
            .signatures
            .iter()
            .flatten()
            .map(|s| &s.raw()[..])
            .collect();
        let payload = payloads::RoundOutput::encode(&bytes, &sigs);
        let round_no = result.round;
        let accusations = core::mem::take(&mut run.round.accusations);
        let excluded_now = core::mem::take(&mut run.round.excluded_now);
        // Archive what blame needs, then move to the next round.
        // Only hybrid blame looks back, at an XOR slot's submissions: rounds without XOR slots
        // keep none, and the others keep them encoded (the signed envelope is the evidence, a
        // blamed slot is decoded again), so a server's memory is not three rounds of both.
        let has_xor = run.round.has_xor();
        let mut accepted = core::mem::take(&mut run.round.accepted);
        // What the archive does not keep (thousands of allocations, one client's ciphertexts
        // and proofs after another) is freed on another thread with the `parallel` feature.
        if has_xor {
            let cts: Vec<_> = (accepted.values_mut())
                .map(|sub| core::mem::take(&mut sub.cts))
                .collect();
            par::drop_later(cts);
        } else {
            par::drop_later(core::mem::take(&mut accepted));
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
        while run.history.len() > HISTORY_ROUNDS {
            par::drop_later(run.history.pop_first());
        }
        run.schedule.advance(&result);
        let next = new_round::<S>(&run.nets, &run.schedule, round_no + 1, now, m);
        let next = next.map_err(|_| {
            // Every participant derives the same schedule: only a bug of ours gets here.
            Stop::fault(
                core.id,
                ServerFault::BadOutput {
                    round: round_no + 1,
                },
                Vec::new(),
            )
        })?;
        par::drop_later(core::mem::replace(&mut run.round, next));
        let future = core::mem::take(&mut run.future);
        core.round = round_no + 1;
        core.prune_headers();
        let sent = core.send_to_clients(&clients, Kind::RoundOutput, round_no, payload);
        run.keep_output(round_no, sent);
        for (c, reason, evidence) in excluded_now {
            core.excluded.insert(c);
            core.events.push_back(Event::Excluded {
                client: c,
                reason,
                evidence,
            });
        }
        for (c, _) in &result.excluded {
            core.excluded.insert(*c);
        }
        let kind = message_kind(core.config.policy.mode.is_hybrid());
        for (open, out) in &result.slots {
            if let SlotOutput::Message(m) = out
                && !m.is_empty()
                && open.kind == kind
            {
                core.events.push_back(Event::Delivered {
                    round: round_no,
                    slot: open.slot,
                    message: m.clone(),
                });
            }
        }
        core.events.push_back(Event::RoundComplete {
            round: round_no,
            participants: result.participants(),
        });
        core.last_progress = now;
        if !accusations.is_empty() {
            run.start_blame(core, accusations, round_no)?;
        }
        // Verified and tracked on arrival: straight to the round logic.
        for msg in future.drain() {
            run.handle(core, msg, Signature::Checked)?;
        }
        run.check_window(core)
    }
}
