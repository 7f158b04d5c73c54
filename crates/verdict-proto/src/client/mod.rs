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
use std::sync::Arc;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{Ciphersuite, ClientId, Party, ServerId, SessionId};
use verdict_nizk::{Signature, SigningKey};
use verdict_shuffle::keyshuffle::client_submit;
use zeroize::Zeroizing;

use crate::config::GroupConfig;
use crate::error::{ApiError, ConfigError, MessageError};
use crate::event::{Event, Transmit};
use crate::keys::SecretKeys;
use crate::schedule::Schedule;
use crate::setup::{SetupLog, client_setup_payload};
use crate::slot::{Accusation, OpenSlot, SLOT_HEADER_LEN};
use crate::suite::{ClientSecrets, ProtoSuite, SessionNets, XorOf};
use crate::wire::{Envelope, Kind, SharedBytes};

mod output;
mod rebuttal;
mod resume;
mod setup;
mod submit;
mod upstream;

use rebuttal::Defence;
pub use resume::{Checkpoint, ResumeError, SetupSeed};
pub use setup::SetupCache;
pub use upstream::{LeftOutStreak, SwitchError, next_upstream};

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
    nets: Arc<SessionNets<S>>,
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
    /// The signed submission sent to `round`, exactly as sent (a [`Checkpoint`] keeps it, so
    /// that a restarted client repeats these bytes instead of submitting something else).
    submission: Option<Arc<[u8]>>,
    /// The awaited round we last asked to catch up from after an output of a later round
    /// arrived (asked once per awaited round).
    asked: Option<u64>,
}

enum State<S: ProtoSuite> {
    /// Awaiting the set-up transcript; `sent` is the set-up message as it left (a resumed
    /// client, which is past set-up, has none), sent again after a reconnect.
    Setup {
        secrets: Option<ClientSecrets<S>>,
        sent: Option<Arc<[u8]>>,
    },
    Ready(Box<Ready<S>>),
    Done,
}

/// What a client draws at start: its pseudonym key (submitted to the pseudonym shuffle), its
/// secret DC-net set-up state, and the set-up payload that publishes both.
struct Start<S: ProtoSuite> {
    pseudonym: SigningKey<S::G>,
    secrets: ClientSecrets<S>,
    payload: Vec<u8>,
}

impl<S: ProtoSuite> Start<S> {
    /// Draws everything from `rng`, in a fixed order (pseudonym submission, verifiable suite,
    /// XOR suite): a seeded `rng` therefore always gives the same client.
    fn derive<Rng: RngCore + CryptoRng>(
        config: &GroupConfig<S>,
        session: SessionId,
        id: ClientId,
        keys: &SecretKeys<S::G>,
        rng: &mut Rng,
    ) -> Result<Self, ConfigError> {
        let me = Party::Client(id);
        if !config.member(me).is_some_and(|m| m.matches(keys)) {
            return Err(ConfigError::KeyMismatch { member: me });
        }
        let log = SetupLog::<S>::new(config, session)
            .map_err(|_| ConfigError::GroupSize("pseudonym shuffle parameters"))?;
        let (pseudonym, submission) = client_submit(log.shuffle_params(), id.0, rng)
            .map_err(|_| ConfigError::KeyMismatch { member: me })?;
        let (ver, setup) = S::client_setup(log.roster0(), id, keys.dcnet(), rng)
            .map_err(|_| ConfigError::KeyMismatch { member: me })?;
        let xor = if config.policy.mode.is_hybrid() {
            Some(
                XorOf::<S>::client_setup(log.xor0(), id, keys.xor(), rng)
                    .map_err(|_| ConfigError::KeyMismatch { member: me })?
                    .0,
            )
        } else {
            None
        };
        let payload = client_setup_payload(&submission.to_bytes(), &S::encode_client_setup(&setup));
        Ok(Self {
            pseudonym,
            secrets: ClientSecrets { ver, xor },
            payload,
        })
    }
}

/// A Verdict client.
pub struct Client<S: ProtoSuite, R: RngCore + CryptoRng> {
    id: ClientId,
    keys: SecretKeys<S::G>,
    pseudonym: SigningKey<S::G>,
    /// Shared, not copied: a simulation holds one configuration for all its participants
    /// (2 MB per copy at N = 1024 with the registration proofs).
    config: Arc<GroupConfig<S>>,
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
    ///
    /// Its pseudonym key and set-up secrets are drawn from `rng` and live only in memory: a
    /// client that must survive a restart starts with [`Client::new_seeded`] instead.
    pub fn new(
        config: impl Into<Arc<GroupConfig<S>>>,
        id: ClientId,
        keys: SecretKeys<S::G>,
        mut rng: R,
    ) -> Result<Self, ConfigError> {
        let config = config.into();
        let session = config.validate()?;
        let mut start = Start::derive(&config, session, id, &keys, &mut rng)?;
        let payload = core::mem::take(&mut start.payload);
        let mut client = Self::assemble(config, session, id, keys, start, rng)?;
        client.send_setup(payload);
        Ok(client)
    }

    /// Like [`Client::new`], but the pseudonym key and every set-up secret are derived from
    /// `seed` (and the session and client id), so that a restarted client holding the same
    /// seed re-derives exactly the secrets the servers set up with ([`Client::resume`]). The
    /// seed must be fresh, kept secret like the client's key, and used for one session only.
    pub fn new_seeded(
        config: impl Into<Arc<GroupConfig<S>>>,
        id: ClientId,
        keys: SecretKeys<S::G>,
        seed: &SetupSeed,
        rng: R,
    ) -> Result<Self, ConfigError> {
        let (mut client, payload) = Self::seeded(config.into(), id, keys, seed, rng)?;
        client.send_setup(payload);
        Ok(client)
    }

    /// Sends the set-up message to the upstream and keeps it for [`Client::reconnected`].
    fn send_setup(&mut self, payload: Vec<u8>) {
        let bytes = self.send(Party::Server(self.upstream), Kind::ClientSetup, 0, payload);
        if let State::Setup { sent, .. } = &mut self.state {
            *sent = Some(bytes);
        }
    }

    /// The client `seed` determines, in set-up, with its set-up payload (not yet sent).
    fn seeded(
        config: Arc<GroupConfig<S>>,
        id: ClientId,
        keys: SecretKeys<S::G>,
        seed: &SetupSeed,
        rng: R,
    ) -> Result<(Self, Vec<u8>), ConfigError> {
        let session = config.validate()?;
        let mut start = Start::derive(&config, session, id, &keys, &mut seed.rng(&session, id))?;
        let payload = core::mem::take(&mut start.payload);
        let client = Self::assemble(config, session, id, keys, start, rng)?;
        Ok((client, payload))
    }

    /// A client in set-up holding what it drew at `start` (`session`: the validated config's).
    fn assemble(
        config: Arc<GroupConfig<S>>,
        session: SessionId,
        id: ClientId,
        keys: SecretKeys<S::G>,
        start: Start<S>,
        rng: R,
    ) -> Result<Self, ConfigError> {
        let upstream = config
            .upstream_of(id)
            .ok_or(ConfigError::BadUpstream { client: id })?;
        Ok(Self {
            id,
            keys,
            pseudonym: start.pseudonym,
            config,
            session,
            upstream,
            rng,
            state: State::Setup {
                secrets: Some(start.secrets),
                sent: None,
            },
            queue: VecDeque::new(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            cache: None,
        })
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

    /// The slots that were open in `round`, as this client built its submission for it
    /// (empty if it did not submit to `round` or the round is no longer kept). A driver needs
    /// them to interpret the submission's per-slot ciphertexts (e.g. a test jammer).
    pub fn submitted_slots(&self, round: u64) -> Vec<OpenSlot> {
        match &self.state {
            State::Ready(r) => r
                .sent
                .get(&round)
                .map(|(o, _)| o.clone())
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// Messages queued and not yet sent.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Largest message this client can ever send in one slot.
    pub fn max_message_len(&self) -> usize {
        let overhead = SLOT_HEADER_LEN + self.signature_overhead();
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

    /// Tells the client that its link to its upstream server came back after an interruption
    /// (a driver calls it on every reconnect). Past set-up, the client asks its server for the
    /// certified outputs it may have missed — a `CatchUp` naming the round whose output it
    /// awaits — and then handles them in order like live ones: every output's `M` signatures
    /// are checked, its messages delivered, its schedule followed, and the client submits
    /// again from the round after the last output it is sent. (The submissions it builds for
    /// rounds already over on the way are refused by the server as late; a message of ours
    /// that did not come out is queued again, as after any round that left us out.) During
    /// set-up the client sends its set-up message again, byte for byte: a server still in
    /// set-up ignores the copy, one past it answers with the set-up transcript, which the
    /// link's loss may have taken (see the server's `late_setup.rs`).
    pub fn reconnected(&mut self) {
        let to = Party::Server(self.upstream);
        match &self.state {
            State::Ready(ready) => {
                let round = ready.round;
                self.send(to, Kind::CatchUp, round, Vec::new());
            }
            State::Setup {
                secrets: Some(_),
                sent: Some(bytes),
            } => {
                let bytes = Arc::clone(bytes);
                self.transmits.push_back(Transmit { to, bytes });
            }
            State::Setup { .. } | State::Done => {}
        }
    }

    /// Clients need no timers: servers drive the rounds. Always `None`.
    pub fn poll_timeout(&self) -> Option<Duration> {
        None
    }

    /// Advances time (no-op: see [`Client::poll_timeout`]).
    pub fn handle_timeout(&mut self, _now: Duration) {}

    /// Signs and queues a message; returns its bytes.
    fn send(&mut self, to: Party, kind: Kind, round: u64, payload: Vec<u8>) -> Arc<[u8]> {
        let env = Envelope::seal(
            self.keys.signing(),
            kind,
            Party::Client(self.id),
            self.session.0,
            round,
            payload,
            &mut self.rng,
        );
        let bytes = env.into_shared();
        self.transmits.push_back(Transmit {
            to,
            bytes: Arc::clone(&bytes),
        });
        bytes
    }

    fn reject(&mut self, e: MessageError) {
        self.events.push_back(Event::Rejected(e));
    }

    /// Handles bytes received from `from` (kept as they are: see [`crate::Server::handle_message`]).
    pub fn handle_message(&mut self, from: Party, bytes: impl Into<SharedBytes>) {
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
        let msg = match self.config.open(&self.session, from, bytes) {
            Ok(m) => m,
            Err(e) => return self.reject(e),
        };
        let h = msg.header().clone();
        let result = match h.kind {
            Kind::SetupTranscript if from == Party::Server(self.upstream) => {
                self.on_setup_transcript(&msg)
            }
            // From any server: an output carries every server's signature (and after a move
            // to another upstream, the old one may still send one).
            Kind::RoundOutput => self.on_output(&msg),
            Kind::RebuttalRequest => self.on_rebuttal_request(&msg),
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
}
