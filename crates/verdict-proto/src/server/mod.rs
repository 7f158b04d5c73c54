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

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{Ciphersuite, ClientId, Party, ServerId, SessionId};

use crate::config::GroupConfig;
use crate::error::{ConfigError, ExclusionReason, MessageError, ServerFault, WireError};
use crate::event::{Event, Transmit};
use crate::keys::SecretKeys;
use crate::policy::Verification;
use crate::setup::{SetupLog, build_nets, inventory_payload};
use crate::slot::{
    ACCUSATION_LEN, Accusation, HEADER_LEN, OpenSlot, RoundResult, Schedule, SlotKind, SlotOutput,
    split_payload, verify_slot,
};
use crate::suite::{ClientCt, Nets, Prepared, ProtoSuite, ServerCt, ServerSecrets, XorOf};
use crate::wire::{Envelope, Header, Kind, Reader, SignedHeader, Writer, write_byte_list};

mod adversary;
mod blame;
mod equivocation;
mod fault;
mod outbox;
mod round;
mod setup;
mod timer;

pub use adversary::AggregateTamper;
use blame::{Blame, EarlyBlame};
pub(crate) use blame::{accusation_len, bit_of};
use round::{client_ct, new_round};

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
    /// Server ciphertexts of faster servers that arrived before we knew `S` (one per server).
    early_cts: Vec<Option<Envelope<S::G>>>,
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

struct Running<S: ProtoSuite> {
    nets: Nets<S>,
    secrets: ServerSecrets<S>,
    schedule: Schedule,
    round: Round<S>,
    /// Messages for the next round (a faster peer), kept per sender.
    future: Early<S::G>,
    history: BTreeMap<u64, Archived<S>>,
    blame: Option<Blame<S::G>>,
    /// Blame messages that arrived before this server started tracing (a faster server).
    early_blame: EarlyBlame<S::G>,
    pending_exclusions: Vec<(ClientId, ExclusionReason)>,
}

struct SetupState<S: ProtoSuite> {
    log: SetupLog<S>,
    own: BTreeMap<ClientId, Vec<u8>>,
    /// When the set-up window opened (the server's start) and when its fraction was reached.
    opened_at: Duration,
    fraction_at: Option<Duration>,
    sent_inventory: bool,
    sent_step: bool,
    sent_decryption: bool,
    sent_dispute: bool,
    /// Round-0 messages of servers that finished set-up first, kept per server.
    early: Early<S::G>,
    secrets: Option<ServerSecrets<S>>,
    suite_setup: Vec<u8>,
}

/// Verified messages that arrived early, kept per sender and bounded: a correct server sends a
/// handful of step messages per round and a client one submission, so one peer can never fill
/// a buffer another's messages need (the review's flooding attack).
struct Early<G: verdict_group::Group> {
    servers: BTreeMap<ServerId, Vec<Envelope<G>>>,
    clients: BTreeMap<ClientId, Envelope<G>>,
}

impl<G: verdict_group::Group> Default for Early<G> {
    fn default() -> Self {
        Self {
            servers: BTreeMap::new(),
            clients: BTreeMap::new(),
        }
    }
}

impl<G: verdict_group::Group> Early<G> {
    /// Messages held.
    fn len(&self) -> usize {
        self.servers.values().map(Vec::len).sum::<usize>() + self.clients.len()
    }

    /// Everything, servers' first, each sender's in arrival order.
    fn drain(self) -> impl Iterator<Item = Envelope<G>> {
        self.servers
            .into_values()
            .flatten()
            .chain(self.clients.into_values())
    }
}

/// Early step messages a server may have outstanding for one round (Inventory, Commit,
/// ServerCiphertexts, OutputSignature, and blame's two with room to spare); more is flooding.
const EARLY_PER_SERVER: usize = 8;

enum State<S: ProtoSuite> {
    Setup(Box<SetupState<S>>),
    Running(Box<Running<S>>),
    Halted,
}

/// What a server holds that depends on what its peers send: each part is bounded by the group
/// size and the history depth, whatever the peers do (for tests and metrics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Footprint {
    /// Signed step headers tracked for equivocation.
    pub headers: usize,
    /// Verified messages buffered for a later step (set-up, the next round, early blame).
    pub buffered: usize,
    /// Past rounds kept for blame.
    pub history: usize,
}

/// A Verdict server.
pub struct Server<S: ProtoSuite, R: RngCore + CryptoRng> {
    id: ServerId,
    keys: SecretKeys<S::G>,
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

impl<S: ProtoSuite, R: RngCore + CryptoRng> core::fmt::Debug for Server<S, R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Server")
            .field("id", &self.id)
            .field("phase", &self.phase())
            .finish_non_exhaustive()
    }
}

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// Server `id` of `config`, holding `keys`; `now` is the start time.
    pub fn new(
        config: GroupConfig<S>,
        id: ServerId,
        keys: SecretKeys<S::G>,
        mut rng: R,
        now: Duration,
    ) -> Result<Self, ConfigError> {
        let session = config.validate()?;
        let me = Party::Server(id);
        if !config.member(me).is_some_and(|m| m.matches(&keys)) {
            return Err(ConfigError::KeyMismatch { member: me });
        }
        let log = SetupLog::new(&config, session)
            .map_err(|_| ConfigError::GroupSize("pseudonym shuffle parameters"))?;
        let (ver_state, ver_setup) = S::server_setup(log.roster0(), id, keys.dcnet(), &mut rng)
            .map_err(|_| ConfigError::KeyMismatch { member: me })?;
        let xor = if config.policy.mode.is_hybrid() {
            Some(
                XorOf::<S>::server_setup(log.xor0(), id, keys.xor(), &mut rng)
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
            keys,
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
                opened_at: now,
                fraction_at: None,
                sent_inventory: false,
                sent_step: false,
                sent_decryption: false,
                sent_dispute: false,
                early: Early::default(),
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

    /// The slots open in the current round (empty before set-up completes).
    pub fn open_slots(&self) -> Vec<OpenSlot> {
        match &self.state {
            State::Running(r) => r.round.open.clone(),
            _ => Vec::new(),
        }
    }

    /// What the server holds that peers' messages can make grow (see [`Footprint`]).
    pub fn footprint(&self) -> Footprint {
        let (buffered, history) = match &self.state {
            State::Setup(s) => (s.early.len(), 0),
            State::Running(r) => (
                r.future.len() + r.early_blame.len() + r.round.early_cts.iter().flatten().count(),
                r.history.len(),
            ),
            State::Halted => (0, 0),
        };
        Footprint {
            headers: self.headers.len(),
            buffered,
            history,
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

    fn expected_clients(&self) -> usize {
        self.clients
            .iter()
            .filter(|c| !self.excluded.contains(c))
            .count()
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
        let allowed = h.kind.allowed(from, crate::wire::Role::Server);
        if !allowed {
            return self.reject(MessageError::Unexpected {
                from,
                kind: h.kind.name(),
                round: h.round,
            });
        }
        self.dispatch(env);
    }

    fn dispatch(&mut self, env: Envelope<S::G>) {
        if matches!(self.state, State::Halted) {
            return;
        }
        let h = env.header().clone();
        if matches!(h.sender, Party::Server(_)) && !self.track(&env) {
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
}
