//! The client role.
//!
//! Sans-IO like the server: [`Client::handle_message`] and [`Client::handle_timeout`] in,
//! [`Client::poll_transmit`] and [`Client::poll_event`] out, messages queued with
//! [`Client::submit`].
//!
//! **Timing.** An owner ciphertext costs more to build than a cover (message embedding; for
//! hybrid accusations also a signature), so the time at which a submission is *ready* depends
//! on whether the client transmits. A driver that cares about timing side channels must release
//! submissions on a schedule independent of readiness (e.g. at a fixed offset after the round
//! output), never "as soon as built". The state machine makes this possible: it builds the
//! submission when the output arrives and the driver decides when to call
//! [`Client::poll_transmit`].

use core::time::Duration;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{Ciphersuite, ClientId, Party, ServerId, SessionId, SlotRound};
use verdict_nizk::{Signature, SigningKey};
use verdict_shuffle::keyshuffle::client_submit;
use zeroize::Zeroizing;

use crate::blame::{Rebuttal, RebuttalRequest, open_blame_bits};
use crate::config::GroupConfig;
use crate::error::{ApiError, ConfigError, MessageError, WireError};
use crate::event::{Event, Transmit};
use crate::keys::SecretKeys;
use crate::server::{accusation_len, bit_of};
use crate::setup::{SetupFailure, build_nets};
use crate::setup::{SetupLog, client_setup_payload};
use crate::slot::{
    Accusation, HEADER_LEN, OpenSlot, RoundResult, Schedule, SlotKind, SlotOutput, join_payload,
    sign_slot,
};
use crate::suite::{ClientSecrets, Nets, ProtoSuite, XorOf};
use crate::wire::{Envelope, Kind, Reader, Writer, write_byte_list};

/// What a client is waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientPhase {
    /// The set-up transcript from its upstream server.
    AwaitingSetup,
    /// The output of the round it submitted to.
    AwaitingOutput,
    /// Excluded, or the session ended: nothing more to do.
    Done,
}

struct Ready<S: ProtoSuite> {
    nets: Arc<Nets<S>>,
    secrets: ClientSecrets<S>,
    slot: Option<u32>,
    schedule: Schedule,
    round: u64,
    /// Per recent round: the open slots and the frame this client XORed into its XOR slot.
    sent: BTreeMap<u64, (Vec<OpenSlot>, Zeroizing<Vec<u8>>)>,
    accusation: Option<Accusation>,
    /// Our defence against the accusation we are the suspect of, if any.
    defence: Option<Defence>,
    /// The message sent in the current round, to re-queue if the slot does not deliver it.
    in_flight: Option<Zeroizing<Vec<u8>>>,
}

/// What a suspect has answered so far.
struct Defence {
    round: u64,
    /// Servers whose false claims we have proven.
    proven: Vec<ServerId>,
    /// The claim sets (header digests) we have not objected to (bounded by `M`).
    answered: Vec<Vec<[u8; 32]>>,
}

enum State<S: ProtoSuite> {
    Setup { secrets: Option<ClientSecrets<S>> },
    Ready(Box<Ready<S>>),
    Done,
}

/// A Verdict client.
pub struct Client<S: ProtoSuite, R: RngCore + CryptoRng> {
    id: ClientId,
    keys: SecretKeys<S::G>,
    pseudonym: SigningKey<S::G>,
    config: GroupConfig<S>,
    session: SessionId,
    upstream: ServerId,
    rng: R,
    state: State<S>,
    /// Messages not yet sent (they link this client to its anonymous messages: wiped when
    /// dropped, like the frames and the message in flight).
    queue: VecDeque<Zeroizing<Vec<u8>>>,
    transmits: VecDeque<Transmit>,
    events: VecDeque<Event>,
    cache: Option<SetupCache<S>>,
}

impl<S: ProtoSuite, R: RngCore + CryptoRng> core::fmt::Debug for Client<S, R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Client")
            .field("id", &self.id)
            .field("phase", &self.phase())
            .finish_non_exhaustive()
    }
}

impl<S: ProtoSuite, R: RngCore + CryptoRng> Client<S, R> {
    /// Client `id` of `config`, holding `keys`. Queues its set-up message at once.
    pub fn new(
        config: GroupConfig<S>,
        id: ClientId,
        keys: SecretKeys<S::G>,
        mut rng: R,
    ) -> Result<Self, ConfigError> {
        let session = config.validate()?;
        let me = Party::Client(id);
        if !config.member(me).is_some_and(|m| m.matches(&keys)) {
            return Err(ConfigError::KeyMismatch { member: me });
        }
        let upstream = *config
            .upstream
            .get(id.0 as usize)
            .ok_or(ConfigError::BadUpstream { client: id })?;
        let log = SetupLog::<S>::new(&config, session)
            .map_err(|_| ConfigError::GroupSize("pseudonym shuffle parameters"))?;
        let (pseudonym, submission) = client_submit(log.shuffle_params(), id.0, &mut rng)
            .map_err(|_| ConfigError::KeyMismatch { member: me })?;
        let (ver, setup) = S::client_setup(log.roster0(), id, keys.dcnet(), &mut rng)
            .map_err(|_| ConfigError::KeyMismatch { member: me })?;
        let xor = if config.policy.mode.is_hybrid() {
            Some(
                XorOf::<S>::client_setup(log.xor0(), id, keys.xor(), &mut rng)
                    .map_err(|_| ConfigError::KeyMismatch { member: me })?
                    .0,
            )
        } else {
            None
        };
        let payload = client_setup_payload(&submission.to_bytes(), &S::encode_client_setup(&setup));
        let mut client = Self {
            id,
            keys,
            pseudonym,
            config,
            session,
            upstream,
            rng,
            state: State::Setup {
                secrets: Some(ClientSecrets { ver, xor }),
            },
            queue: VecDeque::new(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            cache: None,
        };
        client.send(Party::Server(upstream), Kind::ClientSetup, 0, payload);
        Ok(client)
    }

    /// Shares set-up verification with other clients of this process (see [`SetupCache`]).
    pub fn with_setup_cache(mut self, cache: SetupCache<S>) -> Self {
        self.cache = Some(cache);
        self
    }

    /// This client's id.
    pub fn id(&self) -> ClientId {
        self.id
    }

    /// What the client awaits.
    pub fn phase(&self) -> ClientPhase {
        match self.state {
            State::Setup { .. } => ClientPhase::AwaitingSetup,
            State::Ready(_) => ClientPhase::AwaitingOutput,
            State::Done => ClientPhase::Done,
        }
    }

    /// The slot the shuffle assigned this client (after set-up).
    pub fn slot(&self) -> Option<u32> {
        match &self.state {
            State::Ready(r) => r.slot,
            _ => None,
        }
    }

    /// The round the client last submitted to.
    pub fn round(&self) -> u64 {
        match &self.state {
            State::Ready(r) => r.round,
            _ => 0,
        }
    }

    /// Messages queued and not yet sent.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Largest message this client can ever send in one slot.
    pub fn max_message_len(&self) -> usize {
        let overhead = HEADER_LEN + self.signature_overhead();
        (self.config.policy.max_len as usize).saturating_sub(overhead)
    }

    /// Bytes of a message slot's pseudonym signature: every verifiable message slot is signed
    /// (hybrid messages travel in XOR frames, which the XOR suite signs itself).
    fn signature_overhead(&self) -> usize {
        if !self.config.policy.mode.is_hybrid() {
            Signature::<S::G>::ENCODED_LEN
        } else {
            0
        }
    }

    /// Queues a message for anonymous transmission in this client's slot.
    pub fn submit(&mut self, message: Vec<u8>) -> Result<(), ApiError> {
        if matches!(self.state, State::Done) {
            return Err(ApiError::SessionOver);
        }
        let max = self.max_message_len();
        if message.len() > max {
            return Err(ApiError::MessageTooLong {
                len: message.len(),
                max,
            });
        }
        self.queue.push_back(Zeroizing::new(message));
        Ok(())
    }

    /// The next transmission.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmits.pop_front()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Clients need no timers: servers drive the rounds. Always `None`.
    pub fn poll_timeout(&self) -> Option<Duration> {
        None
    }

    /// Advances time (no-op: see [`Client::poll_timeout`]).
    pub fn handle_timeout(&mut self, _now: Duration) {}

    fn send(&mut self, to: Party, kind: Kind, round: u64, payload: Vec<u8>) {
        let env = Envelope::seal(
            self.keys.signing(),
            kind,
            Party::Client(self.id),
            self.session.0,
            round,
            payload,
            &mut self.rng,
        );
        self.transmits.push_back(Transmit {
            to,
            bytes: env.to_bytes().into(),
        });
    }

    fn reject(&mut self, e: MessageError) {
        self.events.push_back(Event::Rejected(e));
    }

    /// Handles bytes received from `from`.
    pub fn handle_message(&mut self, from: Party, bytes: &[u8]) {
        if matches!(self.state, State::Done) {
            return;
        }
        if !matches!(from, Party::Server(_)) {
            return self.reject(MessageError::Unexpected {
                from,
                kind: "message from a client",
                round: 0,
            });
        }
        let env = match self.config.open(&self.session, from, bytes) {
            Ok(e) => e,
            Err(e) => return self.reject(e),
        };
        let h = env.header().clone();
        let result = match h.kind {
            Kind::SetupTranscript if from == Party::Server(self.upstream) => {
                self.on_setup_transcript(&env)
            }
            Kind::RoundOutput if from == Party::Server(self.upstream) => self.on_output(&env),
            Kind::RebuttalRequest => self.on_rebuttal_request(&env),
            _ => Err(MessageError::Unexpected {
                from,
                kind: "message",
                round: h.round,
            }),
        };
        if let Err(e) = result {
            self.reject(e);
        }
    }

    fn on_setup_transcript(&mut self, env: &Envelope<S::G>) -> Result<(), MessageError> {
        let from = env.header().sender;
        let malformed = |source| MessageError::Malformed { from, source };
        let State::Setup { secrets } = &mut self.state else {
            return Err(MessageError::Duplicate {
                from,
                kind: "set-up transcript",
            });
        };
        let digest = *blake3::hash(&env.payload).as_bytes();
        let cached = self.cache.as_ref().and_then(|c| c.get(&digest));
        let verdict = match cached {
            Some(v) => v,
            None => {
                let v = verify_transcript::<S>(&self.config, self.session, &env.payload)
                    .map_err(malformed)?;
                if let Some(c) = &self.cache {
                    c.insert(digest, v.clone());
                }
                v
            }
        };
        let nets = match verdict {
            Ok(nets) => nets,
            Err((culprits, reason)) => {
                self.events
                    .push_back(Event::SetupFailed { reason, culprits });
                self.state = State::Done;
                return Ok(());
            }
        };
        let own = nets
            .ver
            .roster()
            .pseudonyms()
            .iter()
            .position(|p| p == self.pseudonym.verifying_key())
            .map(|s| s as u32);
        let Some(secrets) = secrets.take() else {
            return Ok(());
        };
        let slots = nets.ver.roster().pseudonyms().len();
        self.events.push_back(Event::SetupComplete {
            slots,
            own_slot: own,
        });
        let schedule = Schedule::new(&self.config.policy, slots, accusation_len::<S>());
        self.state = State::Ready(Box::new(Ready {
            nets,
            secrets,
            slot: own,
            schedule,
            round: 0,
            sent: BTreeMap::new(),
            accusation: None,
            defence: None,
            in_flight: None,
        }));
        self.submit_round();
        Ok(())
    }

    /// Builds and queues the submission for the current round.
    fn submit_round(&mut self) {
        let hybrid = self.config.policy.mode.is_hybrid();
        let sig_overhead = self.signature_overhead();
        let default_len = self.config.policy.default_len;
        let State::Ready(ready) = &mut self.state else {
            return;
        };
        let round = ready.round;
        let open = ready.schedule.open_slots();
        let max_len = ready.schedule.max_len();
        let mut cts = Vec::with_capacity(open.len());
        let mut frame = Zeroizing::new(Vec::new());
        for o in &open {
            let owner = ready.slot == Some(o.slot);
            let prepared = match ready.nets.prepare(o, round) {
                Ok(p) => p,
                Err(_) => return,
            };
            let mut payload: Option<Zeroizing<Vec<u8>>> = None;
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
                        }
                    }
                    _ => {
                        let room = o.len.saturating_sub(HEADER_LEN + sig_overhead);
                        let fits = self.queue.front().is_some_and(|m| m.len() <= room);
                        let body = if fits { self.queue.pop_front() } else { None };
                        ready.in_flight.clone_from(&body);
                        // Request the smallest capacity that fits the next queued message, or
                        // keep the default capacity when nothing more is queued.
                        let next = match self.queue.front() {
                            Some(m) => ((HEADER_LEN + sig_overhead + m.len()) as u32)
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
            let owner_arg = payload.as_deref().map(|p| (&self.pseudonym, p.as_slice()));
            let ct = match ready.nets.client_ciphertext(
                &ready.secrets,
                &prepared,
                owner_arg,
                &mut self.rng,
            ) {
                Ok(ct) => ct,
                Err(_) => {
                    // Cannot transmit here after all: send a cover so the round still counts
                    // us, and keep the message.
                    if let Some(m) = ready.in_flight.take() {
                        self.queue.push_front(m);
                    }
                    match ready.nets.client_ciphertext(
                        &ready.secrets,
                        &prepared,
                        None,
                        &mut self.rng,
                    ) {
                        Ok(ct) => ct,
                        Err(_) => return,
                    }
                }
            };
            if o.kind == SlotKind::Xor && owner {
                // The frame this client XORed in: its ciphertext XOR its cover (its pads).
                frame = match ready.nets.client_ciphertext(
                    &ready.secrets,
                    &prepared,
                    None,
                    &mut self.rng,
                ) {
                    Ok(cover) => {
                        Zeroizing::new(ct.iter().zip(&cover).map(|(a, b)| a ^ b).collect())
                    }
                    Err(_) => Zeroizing::new(Vec::new()),
                };
            }
            cts.push(ct);
        }
        ready.sent.insert(round, (open, frame));
        while ready.sent.len() > 4 {
            ready.sent.pop_first();
        }
        let mut w = Writer::new();
        write_byte_list(&mut w, &cts);
        let upstream = Party::Server(self.upstream);
        self.send(upstream, Kind::Submission, round, w.finish());
    }

    fn on_output(&mut self, env: &Envelope<S::G>) -> Result<(), MessageError> {
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
        let mut r = Reader::new(&env.payload);
        let bytes = r.bytes().map_err(malformed)?.to_vec();
        let sigs = r.byte_list().map_err(malformed)?;
        r.finish().map_err(malformed)?;
        let result = RoundResult::from_bytes(&bytes).map_err(malformed)?;
        if result.round != ready.round || env.header().round != ready.round {
            return Err(MessageError::Unexpected {
                from,
                kind: "round output",
                round: result.round,
            });
        }
        // Every server must have signed this exact output.
        let digest = *blake3::hash(&bytes).as_bytes();
        let mut signed = vec![false; m];
        let mut checked = Vec::with_capacity(sigs.len());
        for s in &sigs {
            let e = Envelope::<S::G>::from_bytes(s).map_err(malformed)?;
            let h = e.header();
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
                || e.payload != digest
            {
                return Err(malformed(WireError::Invalid("output signature")));
            }
            if let Some(f) = signed.get_mut(j.0 as usize) {
                *f = true;
            }
            checked.push((key, e.signed));
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

    /// A server asks this client to rebut the accusations of a round it is a suspect of.
    ///
    /// Every claim about our pad bits is checked against the truth, whichever request brings
    /// it: a false one is answered at once with a lie proof (conclusive on its own). "No
    /// objection" is sent only for a request carrying a signed claim from every server, none
    /// false, and once per distinct set of claims — so a server that asks early with a partial
    /// or doctored set cannot make us concede, and every honest server, which holds the
    /// claims all honest servers hold, gets an answer about exactly its set.
    fn on_rebuttal_request(&mut self, env: &Envelope<S::G>) -> Result<(), MessageError> {
        let from = env.header().sender;
        let malformed = |source| MessageError::Malformed { from, source };
        let m = self.config.num_servers();
        let State::Ready(ready) = &mut self.state else {
            return Ok(());
        };
        let request = RebuttalRequest::from_bytes(&env.payload).map_err(malformed)?;
        let round = request.round;
        if request.suspect != self.id || env.header().round != round {
            return Ok(());
        }
        let Some((open, _)) = ready.sent.get(&round) else {
            return Ok(());
        };
        let (Some(xor), Some(state)) = (ready.nets.xor.as_ref(), ready.secrets.xor.as_ref()) else {
            return Ok(());
        };
        if ready.defence.as_ref().is_none_or(|d| d.round != round) {
            ready.defence = Some(Defence {
                round,
                proven: Vec::new(),
                answered: Vec::new(),
            });
        }
        let Some(defence) = ready.defence.as_mut() else {
            return Ok(());
        };
        let mut set: Vec<Option<[u8; 32]>> = vec![None; m];
        let mut lies = Vec::new();
        for bytes in request.bits.iter().take(m) {
            let Some((j, claim, e)) = open_blame_bits(&self.config, &self.session, bytes) else {
                continue;
            };
            if claim.round != round {
                continue;
            }
            let mut false_claim = None;
            for trace in &claim.traces {
                let acc = trace.accusation;
                // The capacity we used in that slot: a claim about another stream is no claim
                // about our pads.
                let Some(slot) = open
                    .iter()
                    .find(|o| o.kind == SlotKind::Xor && o.slot == acc.slot)
                else {
                    continue;
                };
                let Some((claimed, len)) = claim.claim(&acc, self.id) else {
                    continue;
                };
                if len != slot.len as u64 {
                    continue;
                }
                let sr = SlotRound::new(acc.slot, round, slot.len);
                let truth = XorOf::<S>::client_pad_bit(xor, state, j, sr, acc.bit).ok();
                if truth.is_some_and(|t| t != claimed) {
                    false_claim = Some(acc);
                    break;
                }
            }
            match false_claim {
                Some(acc) => {
                    if !defence.proven.contains(&j) {
                        defence.proven.push(j);
                        lies.push((j, acc, bytes.clone()));
                    }
                }
                None => {
                    if let Some(entry) = set.get_mut(j.0 as usize) {
                        entry.get_or_insert(e.header().digest);
                    }
                }
            }
        }
        let mut answers = Vec::new();
        for (j, accusation, bits) in lies {
            let reveal = XorOf::<S>::pad_bit_reveal_client(
                xor.roster(),
                self.id,
                self.keys.xor(),
                j,
                &mut self.rng,
            );
            if let Ok(reveal) = reveal {
                answers.push(Rebuttal::LieProof {
                    accusation,
                    bits,
                    reveal: reveal.to_bytes(),
                });
            }
        }
        if answers.is_empty()
            && let Some(digests) = set.into_iter().collect::<Option<Vec<[u8; 32]>>>()
            && !defence.answered.contains(&digests)
            && defence.answered.len() < m
        {
            defence.answered.push(digests.clone());
            answers.push(Rebuttal::NoObjection { round, digests });
        }
        for answer in answers {
            let payload = answer.to_bytes();
            // Straight to every server: a lying upstream cannot swallow the rebuttal.
            for j in 0..m as u32 {
                self.send(
                    Party::Server(ServerId(j)),
                    Kind::Rebuttal,
                    round,
                    payload.clone(),
                );
            }
        }
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
            let mut f = vec![0u8; (HEADER_LEN + open.len).min(frame_len)];
            f.get_mut(..HEADER_LEN)?.copy_from_slice(&len.to_be_bytes());
            f.get_mut(HEADER_LEN..HEADER_LEN + payload.len())?
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

/// The outcome of verifying a set-up transcript: the DC-net sessions, or the culprit.
type Verified<S> = Result<Arc<Nets<S>>, (Vec<Party>, SetupFailure)>;

/// Verifies a whole set-up transcript (every signature, submission, shuffle and decryption
/// proof) and builds the DC-net sessions. `Err` only for an undecodable transcript.
fn verify_transcript<S: ProtoSuite>(
    config: &GroupConfig<S>,
    session: SessionId,
    payload: &[u8],
) -> Result<Verified<S>, WireError> {
    let mut r = Reader::new(payload);
    let list = r.byte_slices()?;
    r.finish()?;
    let mut log =
        SetupLog::<S>::new(config, session).map_err(|_| WireError::Invalid("set-up parameters"))?;
    for bytes in list {
        let e = Envelope::<S::G>::from_bytes(bytes)?;
        let key = config
            .key_of(e.header().sender)
            .ok_or(WireError::Invalid("set-up sender"))?;
        e.verify(key)?;
        if e.header().session != session.0 {
            return Err(WireError::Invalid("set-up message of another session"));
        }
        if let Err(f) = log.add(config, e) {
            return Ok(Err((f.culprits, f.failure)));
        }
    }
    let outcome = log
        .outcome()
        .ok_or(WireError::Invalid("incomplete set-up transcript"))?;
    Ok(build_nets::<S>(
        log.roster0(),
        log.xor0(),
        outcome.pseudonyms,
        &outcome.client_setups,
        &outcome.server_setups,
        config.policy.mode.is_hybrid(),
    )
    .map(Arc::new)
    .map_err(|f| (f.culprits, f.failure)))
}

/// Verified set-up transcripts shared by the clients of one process (the simulator, the
/// benchmarks).
///
/// Verifying the set-up transcript (every shuffle proof) is a pure function of its bytes, so
/// clients that receive byte-identical transcripts can share one verification: the result is
/// exactly what each would have computed. Separate processes never share a cache. Keyed by the
/// transcript's blake3 hash.
pub struct SetupCache<S: ProtoSuite> {
    inner: Arc<Mutex<BTreeMap<[u8; 32], Verified<S>>>>,
}

impl<S: ProtoSuite> Clone for SetupCache<S> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<S: ProtoSuite> Default for SetupCache<S> {
    fn default() -> Self {
        Self {
            inner: Arc::new(Mutex::new(BTreeMap::new())),
        }
    }
}

impl<S: ProtoSuite> core::fmt::Debug for SetupCache<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SetupCache").finish_non_exhaustive()
    }
}

impl<S: ProtoSuite> SetupCache<S> {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    fn get(&self, digest: &[u8; 32]) -> Option<Verified<S>> {
        self.inner.lock().ok()?.get(digest).cloned()
    }

    fn insert(&self, digest: [u8; 32], v: Verified<S>) {
        if let Ok(mut m) = self.inner.lock() {
            m.insert(digest, v);
        }
    }
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
        let mut f = vec![0u8; HEADER_LEN + OPEN.len + 4];
        f[..4].copy_from_slice(&(payload.len() as u32).to_be_bytes());
        f[4..4 + payload.len()].copy_from_slice(&payload);
        f[HEADER_LEN + OPEN.len..].copy_from_slice(&[0xaa; 4]);
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
