//! Handling a certified round output: delivery, accusation, resubmission.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::Party;

use crate::error::{MessageError, WireError};
use crate::event::Event;
use crate::slot::{Accusation, OpenSlot, RoundResult, SlotKind, SlotOutput, bit_of, join_payload};
use crate::suite::ProtoSuite;
use crate::wire::{Envelope, Kind, Received};
use verdict_dcnet::xor::HEADER_LEN as FRAME_HEADER_LEN;

use super::{Client, State};

impl<S: ProtoSuite, R: RngCore + CryptoRng> Client<S, R> {
    pub(super) fn on_output(&mut self, env: &Received<S::G>) -> Result<(), MessageError> {
        let from = env.header().sender;
        let malformed = |source| MessageError::Malformed { from, source };
        let m = self.config.num_servers();
        let hybrid = self.config.policy.mode.is_hybrid();
        let State::Ready(ready) = &mut self.state else {
            return Err(MessageError::Unexpected {
                from,
                kind: "round output",
                round: env.header().round,
            });
        };
        let mut r = crate::wire::reader(env.payload());
        let bytes = r.bytes().map_err(|e| malformed(e.into()))?;
        let sigs = r.byte_slices().map_err(|e| malformed(e.into()))?;
        r.finish().map_err(|e| malformed(e.into()))?;
        let result = RoundResult::from_bytes(bytes).map_err(malformed)?;
        if result.round < ready.round && env.header().round == result.round {
            // An output we already have (a second server's copy, or a catch-up overlapping
            // what arrived live): nothing to do.
            return Ok(());
        }
        if env.header().round != result.round {
            return Err(malformed(WireError::Invalid("output round")));
        }
        // Every server must have signed this exact output.
        let digest = *blake3::hash(bytes).as_bytes();
        let mut signed = vec![false; m];
        let mut checked = Vec::with_capacity(sigs.len());
        for s in &sigs {
            let (header, payload) = Envelope::<S::G>::parse(s).map_err(malformed)?;
            let h = &header.header;
            let Party::Server(j) = h.sender else {
                return Err(malformed(WireError::Invalid("output signer")));
            };
            let key = self
                .config
                .key_of(h.sender)
                .ok_or(malformed(WireError::Invalid("output signer")))?;
            if h.kind != Kind::OutputSignature
                || h.round != result.round
                || h.session != self.session.0
                || payload != digest
            {
                return Err(malformed(WireError::Invalid("output signature")));
            }
            if let Some(f) = signed.get_mut(j.index()) {
                *f = true;
            }
            checked.push((key, header));
        }
        // All M signatures in one batch.
        let batch: Vec<_> = checked.iter().map(|(k, s)| (*k, s)).collect();
        crate::wire::verify_batch(&batch, &mut self.rng)
            .map_err(|_| malformed(WireError::BadSignature))?;
        if signed.iter().any(|s| !s) {
            return Err(malformed(WireError::Invalid(
                "output lacks a server signature",
            )));
        }
        if result.round != ready.round {
            let awaited = ready.round;
            if result.round > awaited && ready.asked != Some(awaited) {
                // A later round's output, certified by every server (checked above, so nobody
                // can make us ask by sending one): the one we await was lost on the way (a
                // link that dropped without our noticing, a full queue at the server). Ask our
                // upstream for it — once per awaited round; the server bounds its answers too.
                ready.asked = Some(awaited);
                self.send(
                    Party::Server(self.upstream),
                    Kind::CatchUp,
                    awaited,
                    Vec::new(),
                );
            }
            return Err(MessageError::Unexpected {
                from,
                kind: "round output",
                round: result.round,
            });
        }
        let message_kind = if hybrid {
            SlotKind::Xor
        } else {
            SlotKind::Verifiable
        };
        for (open, out) in &result.slots {
            if let SlotOutput::Message(msg) = out
                && !msg.is_empty()
                && open.kind == message_kind
            {
                self.events.push_back(Event::Delivered {
                    round: result.round,
                    slot: open.slot,
                    message: msg.clone(),
                });
            }
        }
        // Hybrid: whenever our XOR slot's output is not exactly the frame we sent — corrupt, a
        // message we did not send, or empty — accuse, at a bit where we sent 0 and the output
        // shows 1 (it says nothing about us: every other client sent 0 there too).
        if let (true, Some(own)) = (hybrid, ready.slot)
            && let Some(((open, out), next)) = result
                .slots
                .iter()
                .zip(&result.next_lens)
                .find(|((o, _), _)| o.kind == SlotKind::Xor && o.slot == own)
            && let Some((_, frame)) = ready.sent.get(&result.round)
        {
            let output = xor_output_frame(open, out, *next, frame.len());
            if let Some(output) = output
                && frame.get(..output.len()) != Some(&output[..])
                && let Some(bit) = accusation_bit(frame, &output)
            {
                ready.accusation = Some(Accusation {
                    round: result.round,
                    slot: open.slot,
                    bit,
                });
            }
        }
        if result.roster as usize != self.config.num_clients() {
            return Err(malformed(WireError::Invalid("round output roster")));
        }
        if result.accepted.binary_search(&self.id).is_err()
            && !result.excluded.iter().any(|(c, _)| *c == self.id)
        {
            // Our upstream did not count our submission (a malicious or failing upstream: a
            // driver can switch to another server).
            self.events.push_back(Event::LeftOut {
                round: result.round,
            });
        }
        // Our message did not come out intact (disruption, or a corrupted slot): send it again.
        if let Some(sent) = ready.in_flight.take() {
            let ok = result.slots.iter().any(|(o, out)| {
                Some(o.slot) == ready.slot
                    && o.kind == message_kind
                    && matches!(out, SlotOutput::Message(m) if m[..] == sent[..])
            });
            if !ok {
                self.queue.push_front(sent);
            }
        }
        for (c, reason) in &result.excluded {
            self.events.push_back(Event::Excluded {
                client: *c,
                reason: *reason,
                evidence: Vec::new(),
            });
        }
        self.events.push_back(Event::RoundComplete {
            round: result.round,
            participants: result.participants(),
        });
        if result.excluded.iter().any(|(c, _)| *c == self.id) {
            self.state = State::Done;
            return Ok(());
        }
        ready.schedule.advance(&result);
        ready.round += 1;
        self.submit_round();
        Ok(())
    }
}

/// What the certified output of an XOR slot says the combined frame was, as far as it tells:
/// all of it for a corrupt slot (the raw combination) or an empty one (zeros); the length
/// header, payload and zero padding for a delivered message (its signature is not in the
/// output). The layout is the XOR suite's: `len (u32 BE) ‖ payload ‖ 0…0 ‖ signature`.
fn xor_output_frame(
    open: &OpenSlot,
    out: &SlotOutput,
    next: u32,
    frame_len: usize,
) -> Option<Vec<u8>> {
    match out {
        SlotOutput::Corrupt(raw) => Some(raw.iter().copied().take(frame_len).collect()),
        SlotOutput::Empty => Some(vec![0; frame_len]),
        SlotOutput::Message(m) => {
            let payload = join_payload(next, m);
            let len = u32::try_from(payload.len()).ok()?;
            let mut f = vec![0u8; (FRAME_HEADER_LEN + open.len).min(frame_len)];
            f.get_mut(..FRAME_HEADER_LEN)?
                .copy_from_slice(&len.to_be_bytes());
            f.get_mut(FRAME_HEADER_LEN..FRAME_HEADER_LEN + payload.len())?
                .copy_from_slice(&payload);
            Some(f)
        }
    }
}

/// A bit where the owner sent 0 and the output shows 1 (the accusation bit), if any.
fn accusation_bit(sent: &[u8], out: &[u8]) -> Option<u64> {
    let bits = (out.len().min(sent.len()) as u64) * 8;
    (0..bits).find(|b| bit_of(out, *b) == Some(true) && bit_of(sent, *b) == Some(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPEN: OpenSlot = OpenSlot {
        kind: SlotKind::Xor,
        slot: 0,
        len: 12,
    };

    /// The frame an owner sends: `len ‖ next ‖ message ‖ 0…0 ‖ signature (here 4 bytes)`.
    fn frame(message: &[u8]) -> Vec<u8> {
        let payload = join_payload(12, message);
        let mut f = vec![0u8; FRAME_HEADER_LEN + OPEN.len + 4];
        f[..4].copy_from_slice(&(payload.len() as u32).to_be_bytes());
        f[4..4 + payload.len()].copy_from_slice(&payload);
        f[FRAME_HEADER_LEN + OPEN.len..].copy_from_slice(&[0xaa; 4]);
        f
    }

    #[test]
    fn an_owner_accuses_whenever_its_slot_shows_anything_but_its_frame() {
        let sent = frame(b"hi");
        let len = sent.len();
        // Delivered intact: nothing to accuse (the signature region is not compared).
        let out = xor_output_frame(&OPEN, &SlotOutput::Message(b"hi".to_vec()), 12, len).unwrap();
        assert_eq!(sent.get(..out.len()), Some(&out[..]));
        // A different message: a bit where we sent 0 and it shows 1.
        let out = xor_output_frame(&OPEN, &SlotOutput::Message(b"hj".to_vec()), 12, len).unwrap();
        assert_ne!(sent.get(..out.len()), Some(&out[..]));
        let bit = accusation_bit(&sent, &out).unwrap();
        assert_eq!(bit_of(&sent, bit), Some(false));
        assert_eq!(bit_of(&out, bit), Some(true));
        // Content in a slot whose owner sent nothing.
        let silent = vec![0u8; len];
        let out = xor_output_frame(&OPEN, &SlotOutput::Message(b"x".to_vec()), 12, len).unwrap();
        assert!(accusation_bit(&silent, &out).is_some());
        // A corrupt slot: the raw combination.
        let mut raw = sent.clone();
        raw[12] ^= 0b0100_0000;
        let out = xor_output_frame(&OPEN, &SlotOutput::Corrupt(raw), 0, len).unwrap();
        assert_eq!(accusation_bit(&sent, &out), Some(12 * 8 + 6));
        // A frame cancelled to nothing shows no 0→1 bit: not accusable (and, with signed
        // frames, not producible without predicting the owner's fresh signature).
        let out = xor_output_frame(&OPEN, &SlotOutput::Empty, 0, len).unwrap();
        assert_ne!(out, sent);
        assert_eq!(accusation_bit(&sent, &out), None);
    }
}
