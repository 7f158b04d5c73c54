//! The server role.
//!
//! A server is a sans-IO state machine: feed it peers' bytes with [`Server::handle_message`]
//! and the time with [`Server::handle_timeout`]; take what it wants sent from
//! [`Server::poll_transmit`], what happened from [`Server::poll_event`], and when it next
//! needs a timeout from [`Server::poll_timeout`]. It never reads a clock or touches a socket.
//!
//! Life cycle: [`ServerPhase::AwaitingClientSetups`] → [`ServerPhase::AwaitingSetup`] (the
//! inventories, the shuffle and the decryptions) → per round
//! [`ServerPhase::AwaitingSubmissions`] → [`ServerPhase::AwaitingInventories`] →
//! ([`ServerPhase::AwaitingCommits`] when XOR slots are open) →
//! [`ServerPhase::AwaitingServerCiphertexts`] → [`ServerPhase::AwaitingOutputSignatures`] →
//! next round; [`ServerPhase::Halted`] on a server fault.

use core::time::Duration;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{
    Ciphersuite, ClientId, DhReveal, Party, Roster, ServerId, Session, SessionId, SlotRound,
};
use verdict_nizk::SigningKey;
use verdict_shuffle::{KeyPair, Phase};

use crate::config::GroupConfig;
use crate::error::{ConfigError, ExclusionReason, MessageError, ServerFault, WireError};
use crate::event::{Event, Transmit};
use crate::policy::Verification;
use crate::setup::{SetupLog, inventory_payload};
use crate::slot::{
    ACCUSATION_LEN, Accusation, HEADER_LEN, OpenSlot, RoundResult, Schedule, SlotKind, SlotOutput,
    split_payload, verify_slot,
};
use crate::suite::{ClientCt, Nets, Prepared, ProtoSuite, ServerCt, ServerSecrets, XorOf};
use crate::wire::{Envelope, Header, Kind, Reader, SignedHeader, Writer, write_byte_list};

/// What a server is waiting for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerPhase {
    /// Its clients' set-up messages.
    AwaitingClientSetups,
    /// Other servers' set-up inventories, shuffle steps and decryptions.
    AwaitingSetup,
    /// Its clients' submissions for the round.
    AwaitingSubmissions,
    /// Every server's inventory.
    AwaitingInventories,
    /// Every server's commitment to its server ciphertexts.
    AwaitingCommits,
    /// Every server's ciphertexts.
    AwaitingServerCiphertexts,
    /// Every server's signature on the output.
    AwaitingOutputSignatures,
    /// A server misbehaved, or set-up failed: the session is over.
    Halted,
}

/// One client's accepted submission.
struct Submitted<S: ProtoSuite> {
    envelope: Vec<u8>,
    /// The decoded ciphertext per open slot. `None` where decoding is deferred: a verifiable
    /// slot of another server's client under an aggregating suite, decoded only if the slot
    /// fails to reveal.
    cts: Vec<Option<ClientCt<S>>>,
}

/// A client submission a server rejected for an invalid proof: client, first invalid slot,
/// its signed submission.
type Rejected = (ClientId, u32, Vec<u8>);

/// One server's inventory.
struct Inventory<S: ProtoSuite> {
    /// The server's signed inventory message: evidence against it (kept decoded; encoded only
    /// when it becomes evidence).
    envelope: Option<Envelope<S::G>>,
    /// The submissions it accepted.
    items: Vec<(ClientId, Submitted<S>)>,
    /// The submissions it rejected (each rejection checked on receipt).
    rejected: Vec<Rejected>,
    /// Per open slot, the sum of its accepted clients' ciphertexts (aggregating suites,
    /// verifiable slots; `None` elsewhere).
    aggregates: Vec<Option<S::Aggregate>>,
}

/// What a round keeps of one server's inventory once the accepted set is known.
struct Forwarded<S: ProtoSuite> {
    envelope: Option<Envelope<S::G>>,
    /// The per-slot aggregates the reveal uses for this server's clients.
    aggregates: Vec<Option<S::Aggregate>>,
    /// Whether `aggregates` are the server's own (to be checked if a slot fails) rather than
    /// recomputed by us from its submissions.
    as_forwarded: bool,
}
/// A server's ciphertexts message (signed envelope) and the decoded ciphertexts.
type SignedServerCts<S> = (Vec<u8>, Vec<ServerCt<S>>);

/// A round's state.
struct Round<S: ProtoSuite> {
    number: u64,
    open: Vec<OpenSlot>,
    prepared: Vec<Prepared<S>>,
    opened_at: Duration,
    fraction_at: Option<Duration>,
    own: BTreeMap<ClientId, Submitted<S>>,
    /// Our own rejections and aggregates, fixed when our window closed.
    own_rejected: Vec<Rejected>,
    own_aggregates: Vec<Option<S::Aggregate>>,
    inventories: Vec<Option<Inventory<S>>>,
    accepted: BTreeMap<ClientId, Submitted<S>>,
    /// The server whose inventory each accepted client's submission is counted from.
    upstream: BTreeMap<ClientId, ServerId>,
    forwarded: Vec<Forwarded<S>>,
    excluded_now: Vec<(ClientId, ExclusionReason, Vec<Vec<u8>>)>,
    my_cts: Option<Vec<u8>>,
    commits: Vec<Option<[u8; 32]>>,
    server_cts: Vec<Option<SignedServerCts<S>>>,
    early_cts: Vec<Envelope<S::G>>,
    result: Option<(RoundResult, Vec<u8>)>,
    accusations: Vec<Accusation>,
    signatures: Vec<Option<Vec<u8>>>,
}

/// What blame needs of a past round.
struct Archived<S: ProtoSuite> {
    open: Vec<OpenSlot>,
    outputs: Vec<SlotOutput>,
    accepted: BTreeMap<ClientId, Submitted<S>>,
    server_cts: Vec<SignedServerCts<S>>,
}

/// An accusation being traced.
struct Blame {
    accusation: Accusation,
    slot_len: usize,
    clients: Vec<ClientId>,
    bits: Vec<Option<(Vec<bool>, Vec<u8>)>>,
    suspect: Option<ClientId>,
    deadline: Option<Duration>,
    my_verdict: Option<Option<Party>>,
    verdicts: Vec<Option<Option<Party>>>,
    rebuttal: Option<Vec<u8>>,
    early_rebuttal: Option<(Party, Vec<u8>)>,
}

struct Running<S: ProtoSuite> {
    nets: Nets<S>,
    secrets: ServerSecrets<S>,
    schedule: Schedule,
    round: Round<S>,
    future: Vec<(Party, Vec<u8>)>,
    history: BTreeMap<u64, Archived<S>>,
    blame: Option<Blame>,
    /// Blame messages that arrived before this server started tracing (a faster server).
    early_blame: Vec<(Party, Vec<u8>)>,
    pending_exclusions: Vec<(ClientId, ExclusionReason)>,
}

struct SetupState<S: ProtoSuite> {
    log: SetupLog<S>,
    own: BTreeMap<ClientId, Vec<u8>>,
    sent_inventory: bool,
    sent_step: bool,
    sent_decryption: bool,
    sent_dispute: bool,
    early: Vec<(Party, Vec<u8>)>,
    secrets: Option<ServerSecrets<S>>,
    suite_setup: Vec<u8>,
}

enum State<S: ProtoSuite> {
    Setup(Box<SetupState<S>>),
    Running(Box<Running<S>>),
    Halted,
}

/// A Verdict server.
pub struct Server<S: ProtoSuite, R: RngCore + CryptoRng> {
    id: ServerId,
    key: SigningKey<S::G>,
    config: GroupConfig<S>,
    session: SessionId,
    rng: R,
    clients: BTreeSet<ClientId>,
    excluded: BTreeSet<ClientId>,
    now: Duration,
    last_progress: Duration,
    state: State<S>,
    headers: BTreeMap<(Kind, Party, u64), SignedHeader<S::G>>,
    echoed: BTreeSet<(Kind, u64)>,
    transmits: VecDeque<Transmit>,
    events: VecDeque<Event>,
    lie_in_blame: bool,
    skip_client_checks: bool,
    also_list: Vec<Vec<u8>>,
    swap_aggregates_in: Option<u64>,
    falsely_reject_in: Option<u64>,
    tamper_aggregates: Option<(u64, AggregateTamper)>,
    dissent_in_blame: bool,
}

/// Simulator adversary hook: rewrites the encoding of this server's own aggregate of the
/// `k`-th open slot (see [`Server::tamper_own_aggregates`]).
pub type AggregateTamper = Box<dyn FnMut(usize, Vec<u8>) -> Vec<u8> + Send>;

impl<S: ProtoSuite, R: RngCore + CryptoRng> core::fmt::Debug for Server<S, R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Server")
            .field("id", &self.id)
            .field("phase", &self.phase())
            .finish_non_exhaustive()
    }
}

fn evidence_of<G: verdict_group::Group>(h: &SignedHeader<G>) -> Vec<u8> {
    h.to_bytes()
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::ClientSetup => "client set-up",
        Kind::SetupInventory => "set-up inventory",
        Kind::ShuffleStep => "shuffle step",
        Kind::Decryption => "decryption shares",
        Kind::SetupTranscript => "set-up transcript",
        Kind::Dispute => "dispute reveals",
        Kind::Submission => "submission",
        Kind::Inventory => "inventory",
        Kind::Commit => "commit",
        Kind::ServerCiphertexts => "server ciphertexts",
        Kind::OutputSignature => "output signature",
        Kind::RoundOutput => "round output",
        Kind::Echo => "echo",
        Kind::BlameBits => "blame bits",
        Kind::RebuttalRequest => "rebuttal request",
        Kind::Rebuttal => "rebuttal",
        Kind::Verdict => "verdict",
        Kind::Alert => "alert",
    }
}

/// Payload of [`Kind::BlameBits`]: the accusation, the accepted clients of the accused round
/// in order, and the server's pad bit with each.
pub(crate) fn encode_blame_bits(acc: &Accusation, clients: &[ClientId], bits: &[bool]) -> Vec<u8> {
    let mut w = Writer::new();
    w.raw(&acc.to_bytes());
    w.count(clients.len());
    for (c, b) in clients.iter().zip(bits) {
        w.u32(c.0).u8(u8::from(*b));
    }
    w.finish()
}

#[allow(clippy::type_complexity)]
pub(crate) fn decode_blame_bits(
    bytes: &[u8],
) -> Result<(Accusation, Vec<ClientId>, Vec<bool>), WireError> {
    let mut r = Reader::new(bytes);
    let acc = Accusation::read(&mut r)?;
    let n = r.count()?;
    let mut clients = Vec::with_capacity(n);
    let mut bits = Vec::with_capacity(n);
    for _ in 0..n {
        clients.push(ClientId(r.u32()?));
        bits.push(match r.u8()? {
            0 => false,
            1 => true,
            _ => return Err(WireError::Invalid("bit")),
        });
    }
    r.finish()?;
    Ok((acc, clients, bits))
}

fn encode_verdict(acc: &Accusation, culprit: Option<Party>) -> Vec<u8> {
    let mut w = Writer::new();
    w.raw(&acc.to_bytes());
    match culprit {
        None => w.u8(0),
        Some(p) => w.u8(1).party(p),
    };
    w.finish()
}

fn decode_verdict(bytes: &[u8]) -> Result<(Accusation, Option<Party>), WireError> {
    let mut r = Reader::new(bytes);
    let acc = Accusation::read(&mut r)?;
    let culprit = match r.u8()? {
        0 => None,
        1 => Some(r.party()?),
        _ => return Err(WireError::Invalid("verdict")),
    };
    r.finish()?;
    Ok((acc, culprit))
}

/// Bit `bit` of `bytes` (byte `bit / 8`, least significant bit first).
pub(crate) fn bit_of(bytes: &[u8], bit: u64) -> Option<bool> {
    let byte = usize::try_from(bit / 8).ok()?;
    bytes.get(byte).map(|b| (b >> (bit % 8)) & 1 == 1)
}

/// The capacity of an accusation slot for suite `S`.
pub(crate) fn accusation_len<S: ProtoSuite>() -> usize {
    HEADER_LEN + ACCUSATION_LEN + verdict_nizk::Signature::<S::G>::ENCODED_LEN
}

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// Server `id` of `config`, holding `key`; `now` is the start time.
    pub fn new(
        config: GroupConfig<S>,
        id: ServerId,
        key: SigningKey<S::G>,
        mut rng: R,
        now: Duration,
    ) -> Result<Self, ConfigError> {
        let session = config.validate()?;
        let me = Party::Server(id);
        if config.key_of(me) != Some(key.verifying_key()) {
            return Err(ConfigError::KeyMismatch { member: me });
        }
        let log = SetupLog::new(&config, session)
            .map_err(|_| ConfigError::GroupSize("pseudonym shuffle parameters"))?;
        let (ver_state, ver_setup) = S::server_setup(log.roster0(), id, &key, &mut rng)
            .map_err(|_| ConfigError::KeyMismatch { member: me })?;
        let xor = if config.policy.mode.is_hybrid() {
            let roster = xor_roster::<S>(log.roster0(), Vec::new())
                .map_err(|_| ConfigError::GroupSize("roster"))?;
            Some(
                XorOf::<S>::server_setup(&roster, id, &key, &mut rng)
                    .map_err(|_| ConfigError::KeyMismatch { member: me })?
                    .0,
            )
        } else {
            None
        };
        let clients: BTreeSet<ClientId> = config.clients_of(id).into_iter().collect();
        let suite_setup = S::encode_server_setup(&ver_setup);
        let mut server = Self {
            id,
            key,
            config,
            session,
            rng,
            clients,
            excluded: BTreeSet::new(),
            now,
            last_progress: now,
            state: State::Setup(Box::new(SetupState {
                log,
                own: BTreeMap::new(),
                sent_inventory: false,
                sent_step: false,
                sent_decryption: false,
                sent_dispute: false,
                early: Vec::new(),
                secrets: Some(ServerSecrets {
                    ver: ver_state,
                    xor,
                }),
                suite_setup,
            })),
            headers: BTreeMap::new(),
            echoed: BTreeSet::new(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            lie_in_blame: false,
            skip_client_checks: false,
            also_list: Vec::new(),
            swap_aggregates_in: None,
            falsely_reject_in: None,
            tamper_aggregates: None,
            dissent_in_blame: false,
        };
        server.setup_progress();
        Ok(server)
    }

    /// This server's id.
    pub fn id(&self) -> ServerId {
        self.id
    }

    /// The session id.
    pub fn session(&self) -> &SessionId {
        &self.session
    }

    /// What the server awaits.
    pub fn phase(&self) -> ServerPhase {
        match &self.state {
            State::Setup(s) if !s.sent_inventory => ServerPhase::AwaitingClientSetups,
            State::Setup(_) => ServerPhase::AwaitingSetup,
            State::Halted => ServerPhase::Halted,
            State::Running(r) => {
                let round = &r.round;
                if round.result.is_some() {
                    ServerPhase::AwaitingOutputSignatures
                } else if round.my_cts.is_some()
                    && round.commits.iter().any(Option::is_none)
                    && round.open.iter().any(|o| o.kind == SlotKind::Xor)
                    && round.server_cts.iter().all(Option::is_none)
                {
                    ServerPhase::AwaitingCommits
                } else if round.my_cts.is_some() {
                    ServerPhase::AwaitingServerCiphertexts
                } else if round
                    .inventories
                    .get(self.id.0 as usize)
                    .is_some_and(Option::is_some)
                {
                    ServerPhase::AwaitingInventories
                } else {
                    ServerPhase::AwaitingSubmissions
                }
            }
        }
    }

    /// The current round (0 during set-up).
    pub fn round(&self) -> u64 {
        match &self.state {
            State::Running(r) => r.round.number,
            _ => 0,
        }
    }

    /// Simulator adversary: from now on, publish wrong pad bits (the first two clients' bits
    /// flipped, so their XOR still matches) during blame. Not for production use.
    #[doc(hidden)]
    pub fn lie_in_blame(&mut self) {
        self.lie_in_blame = true;
    }

    /// Simulator adversary: from now on, sign "nobody is to blame" as its verdict of every
    /// accusation, whatever the evidence, and act on it. Not for production use.
    #[doc(hidden)]
    pub fn dissent_in_blame(&mut self) {
        self.dissent_in_blame = true;
    }

    /// Simulator adversary: from now on, forward this server's clients' submissions without
    /// verifying their proofs, even in eager mode. Not for production use.
    #[doc(hidden)]
    pub fn skip_client_checks(&mut self) {
        self.skip_client_checks = true;
    }

    /// Simulator adversary: list this signed submission (of any client, for its round) in
    /// this server's inventory, undecoded and unchecked, as a server colluding with that
    /// client would. Not for production use.
    #[doc(hidden)]
    pub fn also_list(&mut self, envelope: Vec<u8>) {
        self.also_list.push(envelope);
    }

    /// Simulator adversary: in `round`, send (and use) the aggregates of the first two
    /// verifiable slots swapped. Not for production use.
    #[doc(hidden)]
    pub fn swap_aggregates_in(&mut self, round: u64) {
        self.swap_aggregates_in = Some(round);
    }

    /// Simulator adversary: in `round`, list the first accepted client as rejected (its
    /// submission is valid). Not for production use.
    #[doc(hidden)]
    pub fn falsely_reject_in(&mut self, round: u64) {
        self.falsely_reject_in = Some(round);
    }

    /// Simulator adversary: in `round`, rewrite this server's own per-slot aggregates with `f`
    /// (given the open-slot index and the encoding) and use the result consistently, in its
    /// inventory and in its own reveal, as a malicious server would. Not for production use.
    #[doc(hidden)]
    pub fn tamper_own_aggregates(&mut self, round: u64, f: AggregateTamper) {
        self.tamper_aggregates = Some((round, f));
    }

    /// The slots open in the current round (empty before set-up completes).
    pub fn open_slots(&self) -> Vec<OpenSlot> {
        match &self.state {
            State::Running(r) => r.round.open.clone(),
            _ => Vec::new(),
        }
    }

    /// Clients excluded so far.
    pub fn excluded(&self) -> &BTreeSet<ClientId> {
        &self.excluded
    }

    /// The next transmission.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmits.pop_front()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When [`Server::handle_timeout`] must next be called.
    pub fn poll_timeout(&self) -> Option<Duration> {
        let mut t = Vec::new();
        if self.waiting_for_servers() {
            t.push(self.last_progress + self.config.policy.server_timeout);
        }
        if let State::Running(run) = &self.state {
            if let Some(d) = run
                .blame
                .as_ref()
                .filter(|b| b.my_verdict.is_none())
                .and_then(|b| b.deadline)
            {
                t.push(d);
            }
            if run.blame.is_none()
                && run
                    .round
                    .inventories
                    .get(self.id.0 as usize)
                    .is_some_and(Option::is_none)
            {
                let window = &self.config.policy.window;
                let expected = self.expected_clients();
                let arrived = run.round.own.len();
                if let Some(close) = window.close_at(run.round.fraction_at, arrived >= expected) {
                    t.push(run.round.opened_at + close);
                }
            }
        }
        t.into_iter().min()
    }

    /// Whether progress depends on other servers (so their silence is a fault).
    fn waiting_for_servers(&self) -> bool {
        match &self.state {
            State::Setup(s) => s.sent_inventory,
            State::Running(r) => {
                r.blame
                    .as_ref()
                    .is_some_and(|b| b.suspect.is_none() || b.my_verdict.is_some())
                    || r.round
                        .inventories
                        .get(self.id.0 as usize)
                        .is_some_and(Option::is_some)
            }
            State::Halted => false,
        }
    }

    /// Advances time.
    pub fn handle_timeout(&mut self, now: Duration) {
        self.now = self.now.max(now);
        if matches!(self.state, State::Halted) {
            return;
        }
        self.check_blame_deadline();
        self.check_window();
        let waiting_for_servers = self.waiting_for_servers();
        if waiting_for_servers && self.now >= self.last_progress + self.config.policy.server_timeout
        {
            let culprit = self.first_silent_server();
            let round = self.round();
            self.halt(culprit, ServerFault::Unresponsive { round }, Vec::new());
        }
    }

    fn first_silent_server(&self) -> ServerId {
        let m = self.config.num_servers() as u32;
        let State::Running(r) = &self.state else {
            if let State::Setup(s) = &self.state
                && let Phase::Shuffle { server } = s.log.shuffle().phase()
            {
                return ServerId(server as u32);
            }
            return ServerId((self.id.0 + 1) % m);
        };
        let round = &r.round;
        let missing = |v: &[Option<_>]| v.iter().position(Option::is_none);
        if let Some(b) = &r.blame {
            if let Some(j) = b.bits.iter().position(Option::is_none) {
                return ServerId(j as u32);
            }
            if let Some(j) = b.verdicts.iter().position(Option::is_none) {
                return ServerId(j as u32);
            }
        }
        let j = missing(&round.inventories)
            .or_else(|| {
                if round.open.iter().any(|o| o.kind == SlotKind::Xor) {
                    round.commits.iter().position(Option::is_none)
                } else {
                    None
                }
            })
            .or_else(|| round.server_cts.iter().position(Option::is_none))
            .or_else(|| round.signatures.iter().position(Option::is_none))
            .unwrap_or(0);
        ServerId(j as u32)
    }

    fn expected_clients(&self) -> usize {
        self.clients
            .iter()
            .filter(|c| !self.excluded.contains(c))
            .count()
    }

    fn reject(&mut self, e: MessageError) {
        self.events.push_back(Event::Rejected(e));
    }

    /// Server `j` signed a message that is malformed where a valid one is needed: halt, with
    /// the message as evidence.
    fn bad_message(&mut self, j: ServerId, round: u64, env: &Envelope<S::G>) {
        self.halt(j, ServerFault::BadOutput { round }, vec![env.to_bytes()]);
    }

    fn halt(&mut self, server: ServerId, fault: ServerFault, evidence: Vec<Vec<u8>>) {
        if matches!(self.state, State::Halted) {
            return;
        }
        // Tell the other servers, with the evidence, so they halt too and name the same culprit
        // (instead of timing out on us).
        let mut w = Writer::new();
        w.u32(server.0).bytes(format!("{fault:?}").as_bytes());
        write_byte_list(&mut w, &evidence);
        let env = self.seal(Kind::Alert, self.round(), w.finish());
        let bytes: Arc<[u8]> = env.to_bytes().into();
        for j in 0..self.config.num_servers() as u32 {
            if j != self.id.0 {
                self.transmits.push_back(Transmit {
                    to: Party::Server(ServerId(j)),
                    bytes: Arc::clone(&bytes),
                });
            }
        }
        self.state = State::Halted;
        self.events.push_back(Event::Halted {
            server,
            fault,
            evidence,
        });
    }

    fn seal(&mut self, kind: Kind, round: u64, payload: Vec<u8>) -> Envelope<S::G> {
        Envelope::seal(
            &self.key,
            kind,
            Party::Server(self.id),
            self.session.0,
            round,
            payload,
            &mut self.rng,
        )
    }

    /// Signs and sends to every other server, then processes our own copy.
    fn broadcast(&mut self, kind: Kind, round: u64, payload: Vec<u8>) {
        let env = self.seal(kind, round, payload);
        let bytes: Arc<[u8]> = env.to_bytes().into();
        for j in 0..self.config.num_servers() as u32 {
            if j != self.id.0 {
                self.transmits.push_back(Transmit {
                    to: Party::Server(ServerId(j)),
                    bytes: Arc::clone(&bytes),
                });
            }
        }
        self.dispatch(env);
    }

    fn send(&mut self, to: Party, kind: Kind, round: u64, payload: Vec<u8>) {
        let bytes = self.seal(kind, round, payload).to_bytes().into();
        self.transmits.push_back(Transmit { to, bytes });
    }

    /// Signs one message and sends it to each of `clients` (an envelope names no recipient,
    /// so one signature and one buffer serve them all).
    fn send_to_clients(&mut self, clients: &[ClientId], kind: Kind, round: u64, payload: Vec<u8>) {
        let bytes: Arc<[u8]> = self.seal(kind, round, payload).to_bytes().into();
        for c in clients {
            self.transmits.push_back(Transmit {
                to: Party::Client(*c),
                bytes: Arc::clone(&bytes),
            });
        }
    }

    /// Handles bytes received from `from`.
    pub fn handle_message(&mut self, from: Party, bytes: &[u8]) {
        if matches!(self.state, State::Halted) {
            return;
        }
        let env = match self.config.open(&self.session, from, bytes) {
            Ok(e) => e,
            Err(e) => return self.reject(e),
        };
        let h = env.header().clone();
        let allowed = match from {
            Party::Client(_) => matches!(
                h.kind,
                Kind::ClientSetup | Kind::Submission | Kind::Rebuttal
            ),
            Party::Server(_) => matches!(
                h.kind,
                Kind::SetupInventory
                    | Kind::ShuffleStep
                    | Kind::Decryption
                    | Kind::Dispute
                    | Kind::Inventory
                    | Kind::Commit
                    | Kind::ServerCiphertexts
                    | Kind::OutputSignature
                    | Kind::Echo
                    | Kind::Alert
                    | Kind::BlameBits
                    | Kind::Verdict
            ),
        };
        if !allowed {
            return self.reject(MessageError::Unexpected {
                from,
                kind: kind_name(h.kind),
                round: h.round,
            });
        }
        self.dispatch(env);
    }

    /// Records a server's signed header; a second, different header for the same step is
    /// equivocation. Returns `false` if the message must be dropped.
    fn track(&mut self, signed: &SignedHeader<S::G>) -> bool {
        let h = &signed.header;
        if !matches!(
            h.kind,
            Kind::SetupInventory
                | Kind::ShuffleStep
                | Kind::Decryption
                | Kind::Dispute
                | Kind::Inventory
                | Kind::Commit
                | Kind::ServerCiphertexts
                | Kind::OutputSignature
        ) {
            return true;
        }
        let k = (h.kind, h.sender, h.round);
        match self.headers.get(&k) {
            Some(prev) if prev.header.digest != h.digest => {
                let (first, second) = (evidence_of(prev), evidence_of(signed));
                if let Party::Server(s) = h.sender {
                    self.halt(s, ServerFault::Equivocation { first, second }, Vec::new());
                }
                false
            }
            Some(_) => true,
            None => {
                self.headers.insert(k, signed.clone());
                self.maybe_echo(h.kind, h.round);
                true
            }
        }
    }

    /// Once every server's message of a step is in, echo their signed headers to all servers:
    /// a server that sent different messages to different servers is caught by whoever sees
    /// both versions.
    fn maybe_echo(&mut self, kind: Kind, round: u64) {
        let m = self.config.num_servers() as u32;
        if m < 3 || self.echoed.contains(&(kind, round)) {
            // With two servers, each sees the other's only message: nothing to compare.
            return;
        }
        let heads: Vec<Vec<u8>> = (0..m)
            .filter(|j| *j != self.id.0)
            .filter_map(|j| self.headers.get(&(kind, Party::Server(ServerId(j)), round)))
            .map(SignedHeader::to_bytes)
            .collect();
        if heads.len() + 1 < m as usize {
            return;
        }
        self.echoed.insert((kind, round));
        let mut w = Writer::new();
        write_byte_list(&mut w, &heads);
        let env = self.seal(Kind::Echo, round, w.finish());
        let bytes: Arc<[u8]> = env.to_bytes().into();
        for j in 0..m {
            if j != self.id.0 {
                self.transmits.push_back(Transmit {
                    to: Party::Server(ServerId(j)),
                    bytes: Arc::clone(&bytes),
                });
            }
        }
    }

    fn handle_echo(&mut self, env: &Envelope<S::G>) {
        let from = env.header().sender;
        let Ok(list) = Reader::new(&env.payload).byte_slices() else {
            return self.reject(MessageError::Malformed {
                from,
                source: WireError::Invalid("echo"),
            });
        };
        for bytes in list {
            let Ok(h) = Header::from_prefix(bytes) else {
                continue;
            };
            if h.session != self.session.0 || !matches!(h.sender, Party::Server(_)) {
                continue;
            }
            // The usual case: the statement we already hold (and verified). Only a different
            // header can be equivocation, so only then is the signature worth checking.
            if self
                .headers
                .get(&(h.kind, h.sender, h.round))
                .is_some_and(|prev| prev.header == h)
            {
                continue;
            }
            let Ok(signed) = SignedHeader::<S::G>::from_bytes(bytes) else {
                continue;
            };
            let h = &signed.header;
            let Some(key) = self.config.key_of(h.sender) else {
                continue;
            };
            if signed.verify(key).is_err() {
                // A forged header proves nothing about its claimed sender.
                continue;
            }
            let k = (h.kind, h.sender, h.round);
            if let Some(prev) = self.headers.get(&k)
                && prev.header.digest != h.digest
                && let Party::Server(s) = h.sender
            {
                let (first, second) = (evidence_of(prev), evidence_of(&signed));
                return self.halt(s, ServerFault::Equivocation { first, second }, Vec::new());
            }
            self.headers.entry(k).or_insert(signed);
        }
    }

    fn handle_alert(&mut self, env: &Envelope<S::G>) {
        let Party::Server(by) = env.header().sender else {
            return;
        };
        let mut r = Reader::new(&env.payload);
        let parsed = (|| {
            let culprit = ServerId(r.u32()?);
            let reason = String::from_utf8_lossy(r.bytes()?).into_owned();
            let evidence = r.byte_list()?;
            r.finish()?;
            Ok::<_, WireError>((culprit, reason, evidence))
        })();
        let Ok((culprit, reason, evidence)) = parsed else {
            return self.reject(MessageError::Malformed {
                from: Party::Server(by),
                source: WireError::Invalid("alert"),
            });
        };
        if culprit.0 as usize >= self.config.num_servers() {
            return;
        }
        self.halt(culprit, ServerFault::Alerted { by, reason }, evidence);
    }

    fn dispatch(&mut self, env: Envelope<S::G>) {
        if matches!(self.state, State::Halted) {
            return;
        }
        let h = env.header().clone();
        if matches!(h.sender, Party::Server(_)) && !self.track(&env.signed) {
            return;
        }
        match h.kind {
            Kind::Echo => self.handle_echo(&env),
            Kind::Alert => self.handle_alert(&env),
            Kind::ClientSetup
            | Kind::SetupInventory
            | Kind::ShuffleStep
            | Kind::Decryption
            | Kind::Dispute => self.handle_setup(env),
            _ => self.handle_round_message(env),
        }
    }

    // ---------------------------------------------------------------- set-up

    fn handle_setup(&mut self, env: Envelope<S::G>) {
        let h = env.header().clone();
        let State::Setup(setup) = &mut self.state else {
            return self.reject(MessageError::Unexpected {
                from: h.sender,
                kind: kind_name(h.kind),
                round: h.round,
            });
        };
        match h.sender {
            Party::Client(c) => {
                if !self.clients.contains(&c) || setup.sent_inventory {
                    return self.reject(MessageError::Unexpected {
                        from: h.sender,
                        kind: kind_name(h.kind),
                        round: h.round,
                    });
                }
                let bytes = env.to_bytes();
                if let Some(prev) = setup.own.get(&c) {
                    if *prev != bytes {
                        self.reject(MessageError::Duplicate {
                            from: h.sender,
                            kind: kind_name(h.kind),
                        });
                    }
                    return;
                }
                setup.own.insert(c, bytes);
            }
            Party::Server(_) => {
                self.last_progress = self.now;
                if let Err(f) = setup.log.add(&self.config, env) {
                    return self.setup_failed(f.culprits, f.reason);
                }
            }
        }
        self.setup_progress();
    }

    fn setup_failed(&mut self, culprits: Vec<Party>, reason: String) {
        self.events
            .push_back(Event::SetupFailed { reason, culprits });
        self.state = State::Halted;
    }

    fn setup_progress(&mut self) {
        loop {
            let State::Setup(setup) = &mut self.state else {
                return;
            };
            if !setup.sent_inventory {
                if setup.own.len() < self.clients.len() {
                    return;
                }
                setup.sent_inventory = true;
                let list: Vec<Vec<u8>> = setup.own.values().cloned().collect();
                let payload = inventory_payload(&setup.suite_setup, &list);
                self.last_progress = self.now;
                self.broadcast(Kind::SetupInventory, 0, payload);
                continue;
            }
            if setup.log.is_disputed() {
                if !setup.sent_dispute {
                    setup.sent_dispute = true;
                    let mine = setup.log.disputes_for(self.id);
                    let reveals: Vec<Vec<u8>> = mine
                        .into_iter()
                        .filter_map(|c| {
                            S::reveal_for_dispute(
                                setup.log.roster0(),
                                self.id,
                                &self.key,
                                c,
                                &mut self.rng,
                            )
                        })
                        .map(|r| r.to_bytes())
                        .collect();
                    if !reveals.is_empty() {
                        let mut w = Writer::new();
                        write_byte_list(&mut w, &reveals);
                        self.broadcast(Kind::Dispute, 0, w.finish());
                        continue;
                    }
                }
                return;
            }
            let phase = setup.log.shuffle().phase();
            if let Phase::Shuffle { server } = phase
                && server == self.id.0 as usize
                && !setup.sent_step
            {
                setup.sent_step = true;
                match setup.log.shuffle().make_shuffle(self.id.0, &mut self.rng) {
                    Ok(step) => self.broadcast(Kind::ShuffleStep, 0, step),
                    Err(e) => {
                        return self.setup_failed(vec![Party::Server(self.id)], e.to_string());
                    }
                }
                continue;
            }
            if phase == Phase::Decryption && !setup.sent_decryption {
                setup.sent_decryption = true;
                let pair = KeyPair::from_secret(self.key.secret().clone());
                match setup
                    .log
                    .shuffle()
                    .make_decryption(self.id.0, &pair, &mut self.rng)
                {
                    Ok(d) => self.broadcast(Kind::Decryption, 0, d),
                    Err(e) => {
                        return self.setup_failed(vec![Party::Server(self.id)], e.to_string());
                    }
                }
                continue;
            }
            if phase == Phase::Done {
                return self.finish_setup();
            }
            return;
        }
    }

    fn finish_setup(&mut self) {
        let State::Setup(setup) = core::mem::replace(&mut self.state, State::Halted) else {
            return;
        };
        let mut setup = *setup;
        let Some(outcome) = setup.log.outcome() else {
            return self.setup_failed(vec![Party::Server(self.id)], "no slot assignment".into());
        };
        let nets = match build_nets::<S>(
            setup.log.roster0(),
            outcome.pseudonyms,
            &outcome.client_setups,
            &outcome.server_setups,
            self.config.policy.mode.is_hybrid(),
        ) {
            Ok(n) => n,
            Err((culprit, reason)) => return self.setup_failed(vec![culprit], reason),
        };
        let Some(secrets) = setup.secrets.take() else {
            return;
        };
        let slots = nets.ver.roster().pseudonyms().len();
        let transcript = setup.log.transcript();
        let mut w = Writer::new();
        write_byte_list(&mut w, &transcript);
        let payload = w.finish();
        let clients: Vec<ClientId> = self.clients.iter().copied().collect();
        self.send_to_clients(&clients, Kind::SetupTranscript, 0, payload);
        self.events.push_back(Event::SetupComplete {
            slots,
            own_slot: None,
        });
        let schedule = Schedule::new(&self.config.policy, slots, accusation_len::<S>());
        let m = self.config.num_servers();
        let round = match new_round::<S>(&nets, &schedule, 0, self.now, m) {
            Ok(r) => r,
            Err(reason) => return self.setup_failed(vec![Party::Server(self.id)], reason),
        };
        self.last_progress = self.now;
        self.state = State::Running(Box::new(Running {
            nets,
            secrets,
            schedule,
            round,
            future: Vec::new(),
            history: BTreeMap::new(),
            blame: None,
            early_blame: Vec::new(),
            pending_exclusions: Vec::new(),
        }));
        self.check_window();
        for (from, bytes) in core::mem::take(&mut setup.early) {
            self.handle_message(from, &bytes);
        }
    }

    // ---------------------------------------------------------------- rounds

    fn handle_round_message(&mut self, env: Envelope<S::G>) {
        let h = env.header().clone();
        let State::Running(run) = &mut self.state else {
            if let State::Setup(setup) = &mut self.state
                && matches!(h.sender, Party::Server(_))
                && h.round == 0
                && setup.early.len() < 4 * self.config.num_servers()
            {
                // A faster server finished set-up first and is already in round 0; keep its
                // round messages (bounded: a few per server) until we get there.
                setup.early.push((h.sender, env.to_bytes()));
                return;
            }
            return self.reject(MessageError::Unexpected {
                from: h.sender,
                kind: kind_name(h.kind),
                round: h.round,
            });
        };
        let current = run.round.number;
        let blame_kind = matches!(h.kind, Kind::BlameBits | Kind::Verdict | Kind::Rebuttal);
        if !blame_kind && h.round > current {
            // Nobody can be more than one round ahead: certifying a round needs our signature.
            // Bounded: a few messages per participant, so a client flooding next-round
            // messages cannot grow our memory.
            let cap = 4 * (self.config.num_servers() + self.clients.len());
            if h.round == current + 1 && run.future.len() < cap {
                run.future.push((h.sender, env.to_bytes()));
                return;
            }
            return self.reject(MessageError::Unexpected {
                from: h.sender,
                kind: kind_name(h.kind),
                round: h.round,
            });
        }
        if !blame_kind && h.round < current {
            return self.reject(MessageError::Unexpected {
                from: h.sender,
                kind: kind_name(h.kind),
                round: h.round,
            });
        }
        match h.kind {
            Kind::Submission => self.on_submission(env),
            Kind::Inventory => self.on_inventory(env),
            Kind::Commit => self.on_commit(env),
            Kind::ServerCiphertexts => self.on_server_cts(env),
            Kind::OutputSignature => self.on_output_signature(env),
            Kind::BlameBits => self.on_blame_bits(env),
            Kind::Rebuttal => self.on_rebuttal(env),
            Kind::Verdict => self.on_verdict(env),
            _ => self.reject(MessageError::Unexpected {
                from: h.sender,
                kind: kind_name(h.kind),
                round: h.round,
            }),
        }
    }

    /// Decodes a submission's slot ciphertexts; with `all = false` only those every server
    /// needs decoded (XOR slots, and every slot of a non-aggregating suite), the others are
    /// left for [`decode_deferred`].
    fn decode_submission(
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

    fn on_submission(&mut self, env: Envelope<S::G>) {
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

    fn check_window(&mut self) {
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

    fn on_inventory(&mut self, env: Envelope<S::G>) {
        let Party::Server(j) = env.header().sender else {
            return;
        };
        let session = self.session.0;
        let round_no = env.header().round;
        let State::Running(run) = &mut self.state else {
            return;
        };
        // A signed inventory is kept as evidence only while it can become some: when a slot's
        // ciphertexts are vouched for by their server's sum. (Holding every inventory of an
        // XOR round costs more than everything else the round does with them.)
        let keep = run.round.open.iter().any(deferrable::<S>);
        if j == self.id {
            // Our own inventory: its submissions were checked and decoded on arrival.
            let inventory = Inventory {
                envelope: keep.then_some(env),
                items: core::mem::take(&mut run.round.own).into_iter().collect(),
                rejected: core::mem::take(&mut run.round.own_rejected),
                aggregates: core::mem::take(&mut run.round.own_aggregates),
            };
            if let Some(slot) = run.round.inventories.get_mut(j.0 as usize) {
                *slot = Some(inventory);
            }
            self.last_progress = self.now;
            return self.after_inventories();
        }
        let open = run.round.open.clone();
        // Only a server can have put an unsigned or malformed submission in its inventory.
        let bad = |this: &mut Self| this.bad_message(j, round_no, &env);
        let mut r = Reader::new(&env.payload);
        let (Ok(list), Ok(rejected_list), Ok(aggregate_list), Ok(())) = (
            r.byte_slices(),
            r.byte_slices(),
            r.byte_slices(),
            r.finish(),
        ) else {
            return bad(self);
        };
        if aggregate_list.len() != open.len() {
            return bad(self);
        }
        // Parse and check every envelope, verify all client signatures in one batch (one
        // multi-scalar multiplication instead of one verification each), then decode.
        let n_accepted = list.len();
        let mut envelopes = Vec::with_capacity(list.len() + rejected_list.len());
        let mut listed = BTreeSet::new();
        for bytes in list.into_iter().chain(rejected_list) {
            let Ok((signed, payload)) = Envelope::<S::G>::parse(bytes) else {
                return bad(self);
            };
            let h = &signed.header;
            let (Party::Client(c), Kind::Submission, true, true) =
                (h.sender, h.kind, h.session == session, h.round == round_no)
            else {
                return bad(self);
            };
            let Some(key) = self.config.key_of(h.sender) else {
                return bad(self);
            };
            if !listed.insert(c) {
                return bad(self);
            }
            envelopes.push((c, key, signed, payload, bytes));
        }
        let signed: Vec<_> = envelopes
            .iter()
            .map(|(_, k, signed, _, _)| (*k, signed))
            .collect();
        if crate::wire::verify_batch(&signed, &mut self.rng).is_err() {
            return bad(self);
        }
        let mut aggregates = Vec::with_capacity(open.len());
        for (o, bytes) in open.iter().zip(&aggregate_list) {
            if deferrable::<S>(o) {
                let Ok(a) = S::decode_aggregate(o.len, bytes) else {
                    return bad(self);
                };
                aggregates.push(Some(a));
            } else if bytes.is_empty() {
                aggregates.push(None);
            } else {
                return bad(self);
            }
        }
        let mut items = Vec::with_capacity(n_accepted);
        let mut rejected = Vec::new();
        for (pos, (c, _, _, payload, bytes)) in envelopes.into_iter().enumerate() {
            if pos < n_accepted {
                // Ciphertexts of verifiable slots stay encoded: this server vouches for them
                // with its aggregate, and we decode them only if the slot fails to reveal.
                let Ok(cts) = Self::decode_submission(&open, payload, false) else {
                    return bad(self);
                };
                items.push((
                    c,
                    Submitted {
                        envelope: bytes.to_vec(),
                        cts,
                    },
                ));
                continue;
            }
            // A rejection must be justified: the submission really carries an invalid proof
            // (or a malformed ciphertext). Otherwise the server is excluding an honest client.
            let State::Running(run) = &mut self.state else {
                return;
            };
            let prepared = &run.round.prepared;
            match first_invalid_slot(&run.nets, &open, prepared, c, payload, &mut self.rng) {
                Some(slot) => rejected.push((c, slot, bytes.to_vec())),
                None => {
                    return self.halt(
                        j,
                        ServerFault::FalseRejection {
                            round: round_no,
                            client: c,
                        },
                        vec![env.to_bytes()],
                    );
                }
            }
        }
        let State::Running(run) = &mut self.state else {
            return;
        };
        if let Some(slot) = run.round.inventories.get_mut(j.0 as usize) {
            *slot = Some(Inventory {
                envelope: keep.then_some(env),
                items,
                rejected,
                aggregates,
            });
        }
        self.last_progress = self.now;
        self.after_inventories();
    }

    fn after_inventories(&mut self) {
        let verification = self.config.policy.mode.verification();
        let eager = verification == Verification::Eager;
        let excluded = self.excluded.clone();
        let me = self.id;
        let State::Running(run) = &mut self.state else {
            return;
        };
        if run.round.inventories.iter().any(Option::is_none) || run.round.my_cts.is_some() {
            return;
        }
        let round_no = run.round.number;
        let m = run.round.inventories.len();
        // S: the union of the inventories; a client counted twice with different submissions
        // signed two versions of its round input — excluded, both signed messages as evidence.
        // A server whose inventory is not exactly its share of S (a client also listed by
        // another server, or excluded) cannot have its aggregates used as they are: we
        // recompute them from its submissions.
        let mut accepted: BTreeMap<ClientId, Submitted<S>> = BTreeMap::new();
        let mut upstream: BTreeMap<ClientId, ServerId> = BTreeMap::new();
        let mut doubles: BTreeMap<ClientId, Vec<Vec<u8>>> = BTreeMap::new();
        let mut rejections: BTreeMap<ClientId, (u32, Vec<u8>)> = BTreeMap::new();
        let mut recompute = vec![false; m];
        let mut forwarded = Vec::with_capacity(m);
        for (j, inv) in run.round.inventories.iter_mut().enumerate() {
            let Some(inv) = inv else { continue };
            forwarded.push(Forwarded {
                envelope: core::mem::take(&mut inv.envelope),
                aggregates: core::mem::take(&mut inv.aggregates),
                as_forwarded: true,
            });
            for (c, slot, envelope) in inv.rejected.drain(..) {
                rejections.entry(c).or_insert((slot, envelope));
            }
            for (c, sub) in inv.items.drain(..) {
                if excluded.contains(&c) {
                    recompute[j] = true;
                    continue;
                }
                match accepted.get(&c) {
                    Some(prev) if prev.envelope != sub.envelope => {
                        doubles
                            .entry(c)
                            .or_insert_with(|| vec![prev.envelope.clone()])
                            .push(sub.envelope);
                        recompute[j] = true;
                    }
                    // The same submission from two servers is counted once, from the first.
                    Some(_) => recompute[j] = true,
                    None => {
                        accepted.insert(c, sub);
                        upstream.insert(c, ServerId(j as u32));
                    }
                }
            }
        }
        for (c, evidence) in doubles {
            accepted.remove(&c);
            if let Some(u) = upstream.remove(&c) {
                recompute[u.0 as usize] = true;
            }
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
                recompute[u.0 as usize] = true;
                if eager && u != me && sub.envelope == envelope && fault.is_none() {
                    let evidence = forwarded
                        .get(u.0 as usize)
                        .and_then(|f: &Forwarded<S>| f.envelope.as_ref())
                        .map(|e| vec![e.to_bytes(), envelope.clone()])
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
            return self.halt(j, f, evidence);
        }
        let State::Running(run) = &mut self.state else {
            return;
        };
        if eager && !S::AGGREGATES {
            // Eager-only suites: every server verifies every client proof before combining.
            let mut bad: BTreeMap<ClientId, u32> = BTreeMap::new();
            for (k, (open, prepared)) in run.round.open.iter().zip(&run.round.prepared).enumerate()
            {
                if open.kind != SlotKind::Verifiable {
                    continue;
                }
                let items = slot_items(&accepted, k);
                for c in run.nets.verify_clients(prepared, &items, &mut self.rng) {
                    bad.entry(c).or_insert(open.slot);
                }
            }
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
                if !deferrable::<S>(open) {
                    continue;
                }
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
                            fw.envelope.iter().map(Envelope::to_bytes).collect(),
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
                    run.nets.aggregate(prepared, &items),
                    fw.aggregates.get_mut(k),
                ) {
                    (Ok(a), Some(slot)) => *slot = a,
                    _ if fault.is_none() => {
                        fault = Some((
                            server,
                            ServerFault::BadOutput { round: round_no },
                            fw.envelope.iter().map(Envelope::to_bytes).collect(),
                        ));
                    }
                    _ => {}
                }
            }
        }
        if let Some((j, f, evidence)) = fault {
            return self.halt(j, f, evidence);
        }
        let State::Running(run) = &mut self.state else {
            return;
        };
        run.round.accepted = accepted;
        run.round.upstream = upstream;
        run.round.forwarded = forwarded;
        // Server ciphertexts over S (for aggregating suites a verifiable slot's depends on the
        // accepted ids alone).
        let ids: Vec<ClientId> = run.round.accepted.keys().copied().collect();
        let mut cts = Vec::with_capacity(run.round.open.len());
        for (k, prepared) in run.round.prepared.iter().enumerate() {
            let ct = match prepared {
                Prepared::Ver(p) if S::AGGREGATES => {
                    run.nets
                        .server_ciphertext_for(&run.secrets, p, &ids, &mut self.rng)
                }
                _ => {
                    let items = slot_items(&run.round.accepted, k);
                    run.nets
                        .server_ciphertext(&run.secrets, prepared, &items, &mut self.rng)
                }
            };
            match ct {
                Ok(ct) => cts.push(ct),
                Err(_) => {
                    return self.halt(me, ServerFault::BadOutput { round: round_no }, Vec::new());
                }
            }
        }
        let mut w = Writer::new();
        write_byte_list(&mut w, &cts);
        let payload = w.finish();
        run.round.my_cts = Some(payload.clone());
        let has_xor = run.round.open.iter().any(|o| o.kind == SlotKind::Xor);
        if has_xor {
            // Commit first: no server may choose its XOR ciphertext after seeing the others'.
            let digest = *blake3::hash(&payload).as_bytes();
            self.broadcast(Kind::Commit, round_no, digest.to_vec());
        } else {
            self.broadcast(Kind::ServerCiphertexts, round_no, payload);
        }
        // Ciphertexts of faster servers that arrived before we knew S can be checked now.
        if let State::Running(run) = &mut self.state {
            for env in core::mem::take(&mut run.round.early_cts) {
                self.on_server_cts(env);
            }
        }
    }

    fn on_commit(&mut self, env: Envelope<S::G>) {
        let Party::Server(j) = env.header().sender else {
            return;
        };
        let round_no = env.header().round;
        let Ok(digest) = <[u8; 32]>::try_from(env.payload.as_slice()) else {
            return self.bad_message(j, round_no, &env);
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

    fn after_commits(&mut self) {
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

    fn on_server_cts(&mut self, env: Envelope<S::G>) {
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
            if run.round.early_cts.len() < self.config.num_servers() {
                run.round.early_cts.push(env);
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

    fn after_server_cts(&mut self) {
        let lazy = self.config.policy.mode.verification() == Verification::Lazy;
        let hybrid = self.config.policy.mode.is_hybrid();
        let session = self.session;
        let me = self.id;
        let State::Running(run) = &mut self.state else {
            return;
        };
        if run.round.server_cts.iter().any(Option::is_none) || run.round.result.is_some() {
            return;
        }
        let round_no = run.round.number;
        let mut slots = Vec::with_capacity(run.round.open.len());
        let mut next_lens = Vec::with_capacity(run.round.open.len());
        let mut lazy_bad: BTreeMap<ClientId, u32> = BTreeMap::new();
        let mut accusations = Vec::new();
        let mut failed = Vec::new();
        for (k, (open, prepared)) in run.round.open.iter().zip(&run.round.prepared).enumerate() {
            let items = slot_items(&run.round.accepted, k);
            let servers: Vec<&ServerCt<S>> = run
                .round
                .server_cts
                .iter()
                .flatten()
                .filter_map(|(_, v)| v.get(k))
                .collect();
            let pseudonym = run.nets.ver.roster().pseudonym(open.slot).ok().cloned();
            let revealed = match prepared {
                Prepared::Ver(p) if S::AGGREGATES => {
                    let aggregates: Vec<&S::Aggregate> = run
                        .round
                        .forwarded
                        .iter()
                        .filter_map(|f| f.aggregates.get(k).and_then(Option::as_ref))
                        .collect();
                    run.nets.reveal_aggregated(p, &aggregates, &servers)
                }
                _ => run.nets.reveal(prepared, &items, &servers),
            };
            let (out, next) = match revealed {
                Ok(Ok(None)) => (SlotOutput::Empty, 0),
                Ok(Ok(Some(payload))) => interpret::<S>(
                    open,
                    &payload,
                    &session,
                    round_no,
                    pseudonym.as_ref(),
                    lazy,
                    hybrid,
                    &mut accusations,
                ),
                Ok(Err(raw)) => (SlotOutput::Corrupt(raw), 0),
                Err(_) => (SlotOutput::Corrupt(Vec::new()), 0),
            };
            if (lazy || S::AGGREGATES)
                && open.kind == SlotKind::Verifiable
                && matches!(out, SlotOutput::Corrupt(_))
            {
                // The slot failed (lazy: the owner's signature did not verify). Every proof of
                // the slot is checked now (below) and whoever cheated is excluded.
                failed.push(k);
            }
            slots.push((*open, out));
            next_lens.push(next);
        }
        let mut fault = None;
        for k in failed {
            let (Some(open), Some(prepared)) = (run.round.open.get(k), run.round.prepared.get(k))
            else {
                continue;
            };
            let blame_upstream = |c: ClientId, fault: &mut Option<_>| {
                let u = run.round.upstream.get(&c).copied().unwrap_or(me);
                if u != me && fault.is_none() {
                    let evidence = run
                        .round
                        .forwarded
                        .get(u.0 as usize)
                        .and_then(|f| f.envelope.as_ref())
                        .map(|e| vec![e.to_bytes()])
                        .unwrap_or_default();
                    *fault = Some((
                        u,
                        ServerFault::UncheckedSubmission {
                            round: round_no,
                            client: c,
                        },
                        evidence,
                    ));
                }
            };
            // Decode what we deferred. A malformed ciphertext is the client's doing, and its
            // upstream server's, which decodes every submission on arrival.
            for (c, sub) in run.round.accepted.iter_mut() {
                if !decode_deferred(open, sub, k) {
                    lazy_bad.entry(*c).or_insert(open.slot);
                    blame_upstream(*c, &mut fault);
                }
            }
            let items = slot_items(&run.round.accepted, k);
            for c in run.nets.verify_clients(prepared, &items, &mut self.rng) {
                lazy_bad.entry(c).or_insert(open.slot);
                if !lazy && S::AGGREGATES {
                    // Eager: its upstream server should have rejected it.
                    blame_upstream(c, &mut fault);
                }
            }
            if !S::AGGREGATES {
                continue;
            }
            // Every aggregate we used as forwarded must be the sum of what its server forwarded.
            for (j, fw) in run.round.forwarded.iter().enumerate() {
                let server = ServerId(j as u32);
                if !fw.as_forwarded || server == me {
                    continue;
                }
                let own: Vec<(ClientId, &ClientCt<S>)> = items
                    .iter()
                    .filter(|(c, _)| run.round.upstream.get(c) == Some(&server))
                    .copied()
                    .collect();
                let sum = run.nets.aggregate(prepared, &own).ok().flatten();
                if sum.as_ref() != fw.aggregates.get(k).and_then(Option::as_ref) && fault.is_none()
                {
                    fault = Some((
                        server,
                        ServerFault::WrongAggregate {
                            round: round_no,
                            slot: open.slot,
                        },
                        fw.envelope.iter().map(Envelope::to_bytes).collect(),
                    ));
                }
            }
        }
        if let Some((j, f, evidence)) = fault {
            return self.halt(j, f, evidence);
        }
        let State::Running(run) = &mut self.state else {
            return;
        };
        for (c, slot) in lazy_bad {
            let evidence = run
                .round
                .accepted
                .get(&c)
                .map(|s| vec![s.envelope.clone()])
                .unwrap_or_default();
            run.round.excluded_now.push((
                c,
                ExclusionReason::InvalidProof {
                    round: round_no,
                    slot,
                },
                evidence,
            ));
        }
        let mut excluded: Vec<(ClientId, ExclusionReason)> =
            core::mem::take(&mut run.pending_exclusions);
        excluded.extend(run.round.excluded_now.iter().map(|(c, r, _)| (*c, *r)));
        let result = RoundResult {
            round: round_no,
            participants: run.round.accepted.len() as u32,
            slots,
            next_lens,
            excluded,
        };
        let bytes = result.to_bytes();
        let digest = *blake3::hash(&bytes).as_bytes();
        run.round.result = Some((result, bytes));
        run.round.accusations = accusations;
        self.broadcast(Kind::OutputSignature, round_no, digest.to_vec());
    }

    fn on_output_signature(&mut self, env: Envelope<S::G>) {
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

    fn after_signatures(&mut self) {
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

    fn certify(&mut self) {
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
            participants: result.participants,
        });
        self.last_progress = now;
        if let Some(acc) = accusations.into_iter().next() {
            self.start_blame(acc);
        }
        for (from, bytes) in future {
            self.handle_message(from, &bytes);
        }
        self.check_window();
    }

    // ---------------------------------------------------------------- blame (hybrid)

    fn start_blame(&mut self, acc: Accusation) {
        self.events.push_back(Event::Accusation(acc));
        let me = self.id;
        let m = self.config.num_servers();
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(arch) = run.history.get(&acc.round) else {
            return self.unfounded(acc);
        };
        let Some(k) = arch
            .open
            .iter()
            .position(|o| o.kind == SlotKind::Xor && o.slot == acc.slot)
        else {
            return self.unfounded(acc);
        };
        let (Some(open), Some(SlotOutput::Corrupt(raw))) = (arch.open.get(k), arch.outputs.get(k))
        else {
            return self.unfounded(acc);
        };
        if bit_of(raw, acc.bit) != Some(true) {
            return self.unfounded(acc);
        }
        let slot_len = open.len;
        let clients: Vec<ClientId> = arch.accepted.keys().copied().collect();
        let (Some(xor), Some(state)) = (run.nets.xor.as_ref(), run.secrets.xor.as_ref()) else {
            return self.unfounded(acc);
        };
        let sr = SlotRound::new(acc.slot, acc.round, slot_len);
        let mut bits = Vec::with_capacity(clients.len());
        for c in &clients {
            match XorOf::<S>::server_pad_bit(xor, state, *c, sr, acc.bit) {
                Ok(b) => bits.push(b),
                Err(_) => return self.unfounded(acc),
            }
        }
        run.blame = Some(Blame {
            accusation: acc,
            slot_len,
            clients: clients.clone(),
            bits: vec![None; m],
            suspect: None,
            deadline: None,
            my_verdict: None,
            verdicts: vec![None; m],
            rebuttal: None,
            early_rebuttal: None,
        });
        let _ = me;
        if self.lie_in_blame {
            for b in bits.iter_mut().take(2) {
                *b = !*b;
            }
        }
        self.broadcast(
            Kind::BlameBits,
            acc.round,
            encode_blame_bits(&acc, &clients, &bits),
        );
        if let State::Running(run) = &mut self.state {
            for (from, bytes) in core::mem::take(&mut run.early_blame) {
                self.handle_message(from, &bytes);
            }
        }
    }

    fn unfounded(&mut self, acc: Accusation) {
        self.events.push_back(Event::Verdict {
            accusation: acc,
            culprit: None,
        });
    }

    fn on_blame_bits(&mut self, env: Envelope<S::G>) {
        let Party::Server(j) = env.header().sender else {
            return;
        };
        let Ok((acc, clients, bits)) = decode_blame_bits(&env.payload) else {
            return self.bad_message(j, env.header().round, &env);
        };
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run.blame.as_mut() else {
            if run.early_blame.len() < 2 * self.config.num_servers() {
                run.early_blame.push((Party::Server(j), env.to_bytes()));
            }
            return;
        };
        if blame.accusation != acc || clients != blame.clients {
            return self.halt(
                j,
                ServerFault::WrongBlameBits {
                    round: acc.round,
                    slot: acc.slot,
                },
                vec![env.to_bytes()],
            );
        }
        if let Some(slot) = blame.bits.get_mut(j.0 as usize) {
            *slot = Some((bits, env.to_bytes()));
        }
        self.last_progress = self.now;
        self.after_blame_bits();
    }

    fn after_blame_bits(&mut self) {
        let now = self.now;
        let timeout = self.config.policy.rebuttal_timeout;
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run.blame.as_mut() else {
            return;
        };
        if blame.bits.iter().any(Option::is_none)
            || blame.suspect.is_some()
            || blame.my_verdict.is_some()
        {
            return;
        }
        let acc = blame.accusation;
        let Some(arch) = run.history.get(&acc.round) else {
            return;
        };
        let Some((k, open)) = arch
            .open
            .iter()
            .enumerate()
            .find(|(_, o)| o.kind == SlotKind::Xor && o.slot == acc.slot)
        else {
            return;
        };
        // 1. Each server's published pad bits must XOR to its own (committed) ciphertext bit.
        for (j, entry) in blame.bits.iter().enumerate() {
            let Some((bits, env)) = entry else { return };
            let own = arch.server_cts.get(j).and_then(|(_, v)| match v.get(k) {
                Some(ServerCt::Xor(x)) => x.bit(acc.bit),
                _ => None,
            });
            let xor = bits.iter().fold(false, |a, b| a ^ b);
            if own != Some(xor) {
                let mut evidence = vec![env.clone()];
                if let Some((e, _)) = arch.server_cts.get(j) {
                    evidence.push(e.clone());
                }
                return self.halt(
                    ServerId(j as u32),
                    ServerFault::WrongBlameBits {
                        round: acc.round,
                        slot: acc.slot,
                    },
                    evidence,
                );
            }
        }
        // 2. The first client whose ciphertext bit differs from the XOR of its pad bits.
        let mut suspect = None;
        for (idx, c) in blame.clients.iter().enumerate() {
            // Archived submissions are kept encoded (see `certify`).
            let sent =
                arch.accepted
                    .get(c)
                    .and_then(|s| match client_ct::<S>(open, &s.envelope, k) {
                        Some(ClientCt::Xor(x)) => x.bit(acc.bit),
                        _ => None,
                    });
            let pads = blame.bits.iter().flatten().fold(false, |a, (bits, _)| {
                a ^ bits.get(idx).copied().unwrap_or(false)
            });
            if sent != Some(pads) {
                suspect = Some(*c);
                break;
            }
        }
        let Some(suspect) = suspect else {
            // No client deviates: the accusation was false (its anonymous author lied).
            blame.my_verdict = Some(None);
            return self.send_verdict(acc, None);
        };
        blame.suspect = Some(suspect);
        if self.excluded.contains(&suspect) {
            // Traced to a client an earlier verdict already excluded (it jammed several
            // rounds): nothing to rebut, the verdict is the same.
            blame.my_verdict = Some(Some(Party::Client(suspect)));
            return self.send_verdict(acc, Some(Party::Client(suspect)));
        }
        blame.deadline = Some(now + timeout);
        let early = blame.early_rebuttal.take();
        let mut w = Writer::new();
        w.raw(&acc.to_bytes()).u32(suspect.0);
        let envs: Vec<Vec<u8>> = blame
            .bits
            .iter()
            .flatten()
            .map(|(_, e)| e.clone())
            .collect();
        write_byte_list(&mut w, &envs);
        // Every server asks (not only the suspect's upstream), so no single server can keep the
        // suspect from answering.
        self.send(
            Party::Client(suspect),
            Kind::RebuttalRequest,
            acc.round,
            w.finish(),
        );
        if let Some((from, bytes)) = early {
            self.handle_message(from, &bytes);
        }
    }

    fn on_rebuttal(&mut self, env: Envelope<S::G>) {
        let from = env.header().sender;
        let Party::Client(c) = from else { return };
        let mut r = Reader::new(&env.payload);
        let parsed = Accusation::read(&mut r).and_then(|acc| {
            let reveal = match r.u8()? {
                0 => None,
                1 => Some(r.bytes()?.to_vec()),
                _ => return Err(WireError::Invalid("rebuttal")),
            };
            r.finish()?;
            Ok((acc, reveal))
        });
        let Ok((acc, reveal)) = parsed else {
            return self.reject(MessageError::Malformed {
                from,
                source: WireError::Invalid("rebuttal"),
            });
        };
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run.blame.as_mut() else {
            // We have not started tracing yet (the suspect answered a faster server).
            if run.early_blame.len() < 2 * self.config.num_servers() {
                run.early_blame.push((from, env.to_bytes()));
            }
            return;
        };
        if blame.accusation == acc && blame.suspect.is_none() && blame.early_rebuttal.is_none() {
            // Still collecting pad bits: judge it once we know the suspect.
            blame.early_rebuttal = Some((from, env.to_bytes()));
            return;
        }
        if blame.accusation != acc || blame.suspect != Some(c) || blame.my_verdict.is_some() {
            return;
        }
        blame.rebuttal = Some(env.to_bytes());
        let culprit = match reveal {
            None => Party::Client(c),
            Some(bytes) => {
                let judged = (|| {
                    let reveal = DhReveal::<S::G>::from_bytes(&bytes).ok()?;
                    if reveal.client() != c {
                        return None;
                    }
                    let xor = run.nets.xor.as_ref()?;
                    let sr = SlotRound::new(acc.slot, acc.round, blame.slot_len);
                    let truth =
                        XorOf::<S>::verify_pad_bit(xor.roster(), &reveal, sr, acc.bit).ok()?;
                    let j = reveal.server();
                    let idx = blame.clients.iter().position(|x| *x == c)?;
                    let claimed = blame
                        .bits
                        .get(j.0 as usize)?
                        .as_ref()?
                        .0
                        .get(idx)
                        .copied()?;
                    Some(if claimed != truth {
                        Party::Server(j)
                    } else {
                        Party::Client(c)
                    })
                })();
                judged.unwrap_or(Party::Client(c))
            }
        };
        blame.my_verdict = Some(Some(culprit));
        self.send_verdict(acc, Some(culprit));
    }

    fn check_blame_deadline(&mut self) {
        let now = self.now;
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run.blame.as_mut() else {
            return;
        };
        let (Some(deadline), Some(suspect), None) =
            (blame.deadline, blame.suspect, blame.my_verdict)
        else {
            return;
        };
        if now < deadline {
            return;
        }
        // A suspect that does not answer in time is treated as guilty.
        blame.my_verdict = Some(Some(Party::Client(suspect)));
        let acc = blame.accusation;
        self.send_verdict(acc, Some(Party::Client(suspect)));
    }

    fn send_verdict(&mut self, acc: Accusation, culprit: Option<Party>) {
        let culprit = if self.dissent_in_blame { None } else { culprit };
        self.broadcast(Kind::Verdict, acc.round, encode_verdict(&acc, culprit));
    }

    fn on_verdict(&mut self, env: Envelope<S::G>) {
        let Party::Server(j) = env.header().sender else {
            return;
        };
        let Ok((acc, culprit)) = decode_verdict(&env.payload) else {
            return self.bad_message(j, env.header().round, &env);
        };
        let State::Running(run) = &mut self.state else {
            return;
        };
        let Some(blame) = run.blame.as_mut() else {
            return;
        };
        if blame.accusation != acc {
            return;
        }
        if let Some(slot) = blame.verdicts.get_mut(j.0 as usize) {
            *slot = Some(culprit);
        }
        self.last_progress = self.now;
        if blame.verdicts.iter().any(Option::is_none) {
            return;
        }
        let Some(blame) = run.blame.take() else {
            return;
        };
        let first: Option<Party> = blame.verdicts.first().copied().flatten().flatten();
        let agreed = blame.verdicts.iter().all(|v| *v == Some(first));
        let culprit = if agreed { first } else { None };
        let mut evidence: Vec<Vec<u8>> = blame
            .bits
            .iter()
            .flatten()
            .map(|(_, e)| e.clone())
            .collect();
        evidence.extend(blame.rebuttal.clone());
        match culprit {
            Some(Party::Client(c)) if self.excluded.contains(&c) => {
                // Already excluded by an earlier verdict (it jammed several rounds).
                self.events.push_back(Event::Verdict {
                    accusation: acc,
                    culprit,
                });
            }
            Some(Party::Client(c)) => {
                run.pending_exclusions.push((
                    c,
                    ExclusionReason::Disruption {
                        round: acc.round,
                        slot: acc.slot,
                    },
                ));
                self.excluded.insert(c);
                self.events.push_back(Event::Excluded {
                    client: c,
                    reason: ExclusionReason::Disruption {
                        round: acc.round,
                        slot: acc.slot,
                    },
                    evidence,
                });
                self.events.push_back(Event::Verdict {
                    accusation: acc,
                    culprit,
                });
            }
            Some(Party::Server(s)) => {
                self.events.push_back(Event::Verdict {
                    accusation: acc,
                    culprit,
                });
                self.halt(
                    s,
                    ServerFault::WrongBlameBits {
                        round: acc.round,
                        slot: acc.slot,
                    },
                    evidence,
                );
                return;
            }
            None => self.events.push_back(Event::Verdict {
                accusation: acc,
                culprit: None,
            }),
        }
        // Drop submissions of newly excluded clients and let the window close.
        let excluded = self.excluded.clone();
        if let State::Running(run) = &mut self.state {
            run.round.own.retain(|c, _| !excluded.contains(c));
        }
        self.check_window();
    }
}

/// The accepted clients' ciphertexts for the `k`-th open slot.
fn slot_items<S: ProtoSuite>(
    accepted: &BTreeMap<ClientId, Submitted<S>>,
    k: usize,
) -> Vec<(ClientId, &ClientCt<S>)> {
    accepted
        .iter()
        .filter_map(|(c, s)| s.cts.get(k).and_then(Option::as_ref).map(|ct| (*c, ct)))
        .collect()
}

/// The first open slot in which `client`'s submission `payload` carries a malformed ciphertext
/// or an invalid proof (`None`: the submission is valid).
fn first_invalid_slot<S: ProtoSuite, R: RngCore + CryptoRng>(
    nets: &Nets<S>,
    open: &[OpenSlot],
    prepared: &[Prepared<S>],
    client: ClientId,
    payload: &[u8],
    rng: &mut R,
) -> Option<u32> {
    let first = open.first().map_or(0, |o| o.slot);
    let Ok(list) = Reader::new(payload).byte_slices() else {
        return Some(first);
    };
    if list.len() != open.len() {
        return Some(first);
    }
    for ((o, p), bytes) in open.iter().zip(prepared).zip(&list) {
        let Some(ct) = Nets::<S>::decode_client(o, bytes) else {
            return Some(o.slot);
        };
        if !nets.verify_clients(p, &[(client, &ct)], rng).is_empty() {
            return Some(o.slot);
        }
    }
    None
}

/// Whether servers may leave this slot's ciphertexts of other servers' clients undecoded and
/// use those servers' aggregates instead.
fn deferrable<S: ProtoSuite>(open: &OpenSlot) -> bool {
    S::AGGREGATES && open.kind == SlotKind::Verifiable
}

/// Decodes the `k`-th slot ciphertext of a submission whose decoding was deferred (`None`:
/// the client signed a malformed ciphertext, which its upstream server should have refused).
/// Decodes slot `k`'s ciphertext from a submission envelope kept encoded (checked on receipt).
fn client_ct<S: ProtoSuite>(open: &OpenSlot, envelope: &[u8], k: usize) -> Option<ClientCt<S>> {
    let payload = Envelope::<S::G>::payload_of(envelope).ok()?;
    let list = Reader::new(payload).byte_slices().ok()?;
    Nets::<S>::decode_client(open, list.get(k)?)
}

fn decode_deferred<S: ProtoSuite>(open: &OpenSlot, sub: &mut Submitted<S>, k: usize) -> bool {
    if sub.cts.get(k).is_some_and(Option::is_some) {
        return true;
    }
    match (client_ct::<S>(open, &sub.envelope, k), sub.cts.get_mut(k)) {
        (Some(ct), Some(slot)) => {
            *slot = Some(ct);
            true
        }
        _ => false,
    }
}

fn message_kind(hybrid: bool) -> SlotKind {
    if hybrid {
        SlotKind::Xor
    } else {
        SlotKind::Verifiable
    }
}

/// Turns a revealed payload into a slot output (and records accusations).
#[allow(clippy::too_many_arguments)]
fn interpret<S: ProtoSuite>(
    open: &OpenSlot,
    payload: &[u8],
    session: &SessionId,
    round: u64,
    pseudonym: Option<&verdict_nizk::VerifyingKey<S::G>>,
    lazy: bool,
    hybrid: bool,
    accusations: &mut Vec<Accusation>,
) -> (SlotOutput, u32) {
    let corrupt = (SlotOutput::Corrupt(Vec::new()), 0);
    let Some((next, body)) = split_payload(payload) else {
        return corrupt;
    };
    let sig_len = verdict_nizk::Signature::<S::G>::ENCODED_LEN;
    let signed = |body: &[u8]| -> Option<Vec<u8>> {
        let split = body.len().checked_sub(sig_len)?;
        let (content, sig) = body.split_at(split);
        let sig = verdict_nizk::Signature::<S::G>::from_bytes(sig).ok()?;
        let mut signed_content = next.to_be_bytes().to_vec();
        signed_content.extend_from_slice(content);
        verify_slot(
            pseudonym?,
            session,
            round,
            open.kind,
            open.slot,
            &signed_content,
            &sig,
        )
        .then(|| content.to_vec())
    };
    match open.kind {
        SlotKind::Xor => (SlotOutput::Message(body.to_vec()), next),
        SlotKind::Verifiable if hybrid => {
            // An accusation slot: accusation ‖ pseudonym signature.
            let Some(content) = signed(body) else {
                return corrupt;
            };
            match Accusation::from_bytes(&content) {
                Ok(acc) if acc.slot == open.slot => {
                    accusations.push(acc);
                    (SlotOutput::Message(content), 0)
                }
                _ => corrupt,
            }
        }
        SlotKind::Verifiable if lazy => match signed(body) {
            Some(content) => (SlotOutput::Message(content), next),
            None => corrupt,
        },
        SlotKind::Verifiable => (SlotOutput::Message(body.to_vec()), next),
    }
}

fn new_round<S: ProtoSuite>(
    nets: &Nets<S>,
    schedule: &Schedule,
    number: u64,
    now: Duration,
    m: usize,
) -> Result<Round<S>, String> {
    let open = schedule.open_slots();
    let prepared = open
        .iter()
        .map(|o| nets.prepare(o, number))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    Ok(Round {
        number,
        open,
        prepared,
        opened_at: now,
        fraction_at: None,
        own: BTreeMap::new(),
        own_rejected: Vec::new(),
        own_aggregates: Vec::new(),
        inventories: (0..m).map(|_| None).collect(),
        accepted: BTreeMap::new(),
        upstream: BTreeMap::new(),
        forwarded: Vec::new(),
        excluded_now: Vec::new(),
        my_cts: None,
        commits: vec![None; m],
        server_cts: (0..m).map(|_| None).collect(),
        early_cts: Vec::new(),
        result: None,
        accusations: Vec::new(),
        signatures: vec![None; m],
    })
}

/// The XOR suite's roster with the same keys as the verifiable suite's.
pub(crate) fn xor_roster<S: ProtoSuite>(
    roster: &Roster<S>,
    pseudonyms: Vec<verdict_nizk::VerifyingKey<S::G>>,
) -> Result<Roster<XorOf<S>>, verdict_dcnet::DcError> {
    Roster::new(
        *roster.session(),
        roster.servers().to_vec(),
        roster.clients().to_vec(),
        pseudonyms,
    )
}

/// Builds the DC-net sessions after set-up.
pub(crate) fn build_nets<S: ProtoSuite>(
    roster0: &Roster<S>,
    pseudonyms: Vec<verdict_nizk::VerifyingKey<S::G>>,
    client_setups: &[S::ClientSetup],
    server_setups: &[S::ServerSetup],
    hybrid: bool,
) -> Result<Nets<S>, (Party, String)> {
    let blame_setup = |e: verdict_dcnet::SetupError| {
        let culprit = match &e {
            verdict_dcnet::SetupError::Malformed { culprit } => *culprit,
            verdict_dcnet::SetupError::CommitmentMismatch { pairs } => pairs
                .first()
                .map(|(c, _)| Party::Client(*c))
                .unwrap_or(Party::Server(ServerId(0))),
            _ => Party::Server(ServerId(0)),
        };
        (culprit, e.to_string())
    };
    let roster = Roster::<S>::new(
        *roster0.session(),
        roster0.servers().to_vec(),
        roster0.clients().to_vec(),
        pseudonyms.clone(),
    )
    .map_err(|e| (Party::Server(ServerId(0)), e.to_string()))?;
    let ver = Session::establish(roster, client_setups, server_setups).map_err(blame_setup)?;
    let xor = if hybrid {
        let roster = xor_roster::<S>(roster0, pseudonyms)
            .map_err(|e| (Party::Server(ServerId(0)), e.to_string()))?;
        let n = roster.num_clients();
        let m = roster.num_servers();
        Some(Session::establish(roster, &vec![(); n], &vec![(); m]).map_err(blame_setup)?)
    } else {
        None
    };
    Ok(Nets { ver, xor })
}
