//! Building a round submission: one ciphertext per open slot.

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{Party, SessionId};
use verdict_group::par;
use verdict_nizk::SigningKey;
use zeroize::Zeroizing;

use crate::slot::{OpenSlot, SLOT_HEADER_LEN, SlotKind, join_payload, sign_slot};
use crate::suite::ProtoSuite;
use crate::wire::{Kind, Writer, write_byte_list};

use super::{Client, State};

impl<S: ProtoSuite, R: RngCore + CryptoRng> Client<S, R> {
    /// Builds and queues the submission for the current round.
    pub(super) fn submit_round(&mut self) {
        let hybrid = self.config.policy.mode.is_hybrid();
        let sig_overhead = self.signature_overhead();
        let default_len = self.config.policy.default_len;
        let State::Ready(ready) = &mut self.state else {
            return;
        };
        let round = ready.round;
        // Until this round's submission is built, there is none (a checkpoint must not hold
        // an older round's).
        ready.submission = None;
        let open = ready.schedule.open_slots();
        let max_len = ready.schedule.max_len();
        // First, in slot order, what this client puts in each slot (only its own slot carries
        // anything; taking a queued message and signing it happen here, once). Then every
        // slot's ciphertext, one slot per thread with the `parallel` feature, each with its own
        // RNG (`crate::fork`), so the bytes do not depend on the thread count.
        let mut carried = Vec::with_capacity(open.len());
        // Every slot's per-round data first: a failure here returns before anything is taken
        // from the queue or the pending accusation.
        let Ok(prepared) = ready.nets.prepare_all(&open, round) else {
            return;
        };
        let mut accusation = None;
        let mut jobs = Vec::with_capacity(open.len());
        for (o, prepared) in open.iter().zip(prepared) {
            let owner = ready.slot == Some(o.slot);
            let mut payload: Option<Zeroizing<Vec<u8>>> = None;
            let mut carries = Carries::Nothing;
            if owner {
                match o.kind {
                    SlotKind::Verifiable if hybrid => {
                        if let Some(acc) = ready.accusation.take() {
                            let content = join_payload(0, &acc.to_bytes());
                            payload = Some(Zeroizing::new(signed_content(
                                &self.pseudonym,
                                &self.session,
                                round,
                                o,
                                content,
                                &mut self.rng,
                            )));
                            accusation = Some(acc);
                            carries = Carries::Accusation;
                        }
                    }
                    _ => {
                        let room = o.len.saturating_sub(SLOT_HEADER_LEN + sig_overhead);
                        let fits = self.queue.front().is_some_and(|m| m.len() <= room);
                        let body = if fits { self.queue.pop_front() } else { None };
                        ready.in_flight.clone_from(&body);
                        if body.is_some() {
                            carries = Carries::Message;
                        }
                        // Request the smallest capacity that fits the next queued message, or
                        // keep the default capacity when nothing more is queued.
                        let next = match self.queue.front() {
                            Some(m) => ((SLOT_HEADER_LEN + sig_overhead + m.len()) as u32)
                                .clamp(default_len, max_len),
                            None => default_len,
                        };
                        if body.is_some() || !self.queue.is_empty() {
                            let message = body.unwrap_or_default();
                            let content = Zeroizing::new(join_payload(next, &message));
                            payload = Some(if sig_overhead > 0 {
                                Zeroizing::new(signed_content(
                                    &self.pseudonym,
                                    &self.session,
                                    round,
                                    o,
                                    content.to_vec(),
                                    &mut self.rng,
                                ))
                            } else {
                                content
                            });
                        }
                    }
                }
            }
            let xor_frame = o.kind == SlotKind::Xor && owner;
            jobs.push((prepared, payload, xor_frame));
            carried.push(carries);
        }
        let seeds = crate::fork::seeds(&mut self.rng, jobs.len());
        let jobs: Vec<_> = jobs.iter().zip(&seeds).collect();
        let (nets, secrets, pseudonym) = (&ready.nets, &ready.secrets, &self.pseudonym);
        let built = par::map(&jobs, |&((prepared, payload, xor_frame), seed)| {
            let mut rng = crate::fork::rng(seed);
            let owner_arg = payload.as_deref().map(|p| (pseudonym, p.as_slice()));
            // Cannot transmit here after all: send a cover so the round still counts us (what
            // the slot was to carry is put back below).
            let (ct, fell_back) =
                match nets.client_ciphertext(secrets, prepared, owner_arg, &mut rng) {
                    Ok(ct) => (Some(ct), false),
                    Err(_) => (
                        nets.client_ciphertext(secrets, prepared, None, &mut rng)
                            .ok(),
                        payload.is_some(),
                    ),
                };
            // The frame this client XORed in: its ciphertext XOR its cover (its pads).
            let frame = ct.as_ref().filter(|_| *xor_frame).map(|ct| {
                match nets.client_ciphertext(secrets, prepared, None, &mut rng) {
                    Ok(cover) => {
                        Zeroizing::new(ct.iter().zip(&cover).map(|(a, b)| a ^ b).collect())
                    }
                    Err(_) => Zeroizing::new(Vec::new()),
                }
            });
            (ct, fell_back, frame)
        });
        // No submission this round if a slot has no ciphertext at all: the message and the
        // accusation go back where they came from. A slot that fell back to a cover gives back
        // only what it was to carry.
        let failed = built.iter().any(|(ct, _, _)| ct.is_none());
        for ((_, fell_back, _), carries) in built.iter().zip(&carried) {
            match carries {
                Carries::Message if *fell_back || failed => {
                    if let Some(m) = ready.in_flight.take() {
                        self.queue.push_front(m);
                    }
                }
                Carries::Accusation if *fell_back || failed => {
                    ready.accusation = accusation.take();
                }
                _ => {}
            }
        }
        if failed {
            return;
        }
        let mut cts = Vec::with_capacity(built.len());
        let mut frame = Zeroizing::new(Vec::new());
        for (ct, _, own_frame) in built.into_iter() {
            if let Some(f) = own_frame {
                frame = f;
            }
            cts.extend(ct);
        }
        ready.sent.insert(round, (open, frame));
        while ready.sent.len() > 4 {
            ready.sent.pop_first();
        }
        let mut w = Writer::new();
        write_byte_list(&mut w, &cts);
        let upstream = Party::Server(self.upstream);
        let bytes = self.send(upstream, Kind::Submission, round, w.finish());
        if let State::Ready(ready) = &mut self.state {
            ready.submission = Some(bytes);
        }
    }
}

/// `content ‖ σ`, `σ` the pseudonym signature binding it to this session, round and slot.
fn signed_content<G: verdict_group::Group, R: RngCore + CryptoRng>(
    pseudonym: &SigningKey<G>,
    session: &SessionId,
    round: u64,
    slot: &OpenSlot,
    mut content: Vec<u8>,
    rng: &mut R,
) -> Vec<u8> {
    let sig = sign_slot(
        pseudonym, session, round, slot.kind, slot.slot, &content, rng,
    );
    content.extend_from_slice(&sig.to_bytes());
    content
}

/// What this client's own slot carries this round, to put back if its ciphertext fails.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Carries {
    Nothing,
    /// The queued message now in flight.
    Message,
    /// The pending accusation.
    Accusation,
}
