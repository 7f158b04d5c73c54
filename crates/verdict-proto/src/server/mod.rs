//! The server role.
//!
//! A server is a sans-IO state machine: feed it peers' bytes with [`Server::handle_message`]
//! (or what arrived together with [`Server::handle_messages`], see `arrival`) and the time with [`Server::handle_timeout`]; take what it wants sent from
//! [`Server::poll_transmit`], what happened from [`Server::poll_event`], and when it next
//! needs a timeout from [`Server::poll_timeout`]. It never reads a clock or touches a socket.
//!
//! Life cycle: [`ServerPhase::AwaitingClientSetups`] → [`ServerPhase::AwaitingSetup`] (the
//! inventories, the shuffle and the decryptions) → per round
//! [`ServerPhase::AwaitingSubmissions`] → [`ServerPhase::AwaitingInventories`] →
//! ([`ServerPhase::AwaitingCommits`] when XOR slots are open) →
//! [`ServerPhase::AwaitingServerCiphertexts`] → [`ServerPhase::AwaitingOutputSignatures`] →
//! next round; [`ServerPhase::Halted`] on a server fault.
//!
//! Layout (quinn-proto style): [`Server`] is a `common::Core` (identity, keys, clock,
//! outbox, equivocation tracker) and a `state::State` (set-up, running, halted). This module
//! is the router, the only place that matches on the state (`arrival` opens what comes in and
//! hands it here); each stage's handlers take the stage's data and the core and return
//! `Result<_, Stop>` (`stop`): `setup`, `round/*`
//! (submission window, inventories, server ciphertexts, reveal, certification), `blame`,
//! `equivocation`, `timer`, and the simulator's `adversary` switches.

use core::time::Duration;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use rand_core::{CryptoRng, RngCore};
use verdict_dcnet::{Ciphersuite, ClientId, Party, ServerId, SessionId};

use crate::config::GroupConfig;
use crate::error::{ConfigError, MessageError};
use crate::event::{Event, Transmit};
use crate::keys::SecretKeys;
use crate::setup::SetupLog;
use crate::slot::OpenSlot;
use crate::suite::{ProtoSuite, ServerSecrets, XorOf};
use crate::wire::{Kind, Received};
use state::Signature;

mod adversary;
mod arrival;
mod blame;
mod common;
mod equivocation;
mod late_setup;
mod round;
mod setup;
mod state;
mod stop;
#[cfg(test)]
mod test_sim;
#[cfg(test)]
mod tests_batched;
#[cfg(test)]
mod tests_received;
mod timer;

#[cfg(feature = "adversary")]
pub use adversary::AggregateTamper;

pub use round::{ShardError, ShardRefusal, ShardSums, ShardWorker};

use common::Core;
use state::{EARLY_PER_SERVER, Early, RoundStep, SetupState, State};
use stop::Stop;

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

/// What a server holds that depends on what its peers send: each part is bounded by the group
/// size and the history depth, whatever the peers do (for tests and metrics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Footprint {
    /// Signed step headers tracked for equivocation.
    pub headers: usize,
    /// Verified messages buffered for a later step (set-up, the next round, early blame),
    /// client submissions held for their batched signature check (at most one per client), and
    /// other servers' inventories held until the round's last one arrives (one per server).
    pub buffered: usize,
    /// Past rounds kept for blame.
    pub history: usize,
}

/// A Verdict server.
pub struct Server<S: ProtoSuite, R: RngCore + CryptoRng> {
    core: Core<S, R>,
    state: State<S>,
}

impl<S: ProtoSuite, R: RngCore + CryptoRng> core::fmt::Debug for Server<S, R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Server")
            .field("id", &self.core.id)
            .field("phase", &self.phase())
            .finish_non_exhaustive()
    }
}

impl<S: ProtoSuite, R: RngCore + CryptoRng> Server<S, R> {
    /// Server `id` of `config`, holding `keys`; `now` is the start time.
    pub fn new(
        config: impl Into<Arc<GroupConfig<S>>>,
        id: ServerId,
        keys: SecretKeys<S::G>,
        mut rng: R,
        now: Duration,
    ) -> Result<Self, ConfigError> {
        let config = config.into();
        let session = config.validate()?;
        let me = Party::Server(id);
        if !config.member(me).is_some_and(|m| m.matches(&keys)) {
            return Err(ConfigError::KeyMismatch { member: me });
        }
        let setup_error = |e: crate::setup::SetupFault| ConfigError::Setup(e.failure);
        let log = SetupLog::new(&config, session).map_err(setup_error)?;
        let (ver_state, ver_setup) = S::server_setup(log.roster0(), id, keys.dcnet(), &mut rng)
            .map_err(ConfigError::Suite)?;
        let xor = if config.policy.mode.is_hybrid() {
            Some(
                XorOf::<S>::server_setup(log.xor0(), id, keys.xor(), &mut rng)
                    .map_err(ConfigError::Suite)?
                    .0,
            )
        } else {
            None
        };
        let clients: BTreeSet<ClientId> = config.clients_of(id).into_iter().collect();
        let suite_setup = S::encode_server_setup(&ver_setup);
        let core = Core {
            id,
            keys,
            config,
            session,
            rng,
            clients,
            excluded: BTreeSet::new(),
            late_setup: Default::default(),
            now,
            last_progress: now,
            round: 0,
            headers: BTreeMap::new(),
            echoed: BTreeSet::new(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            loopback: VecDeque::new(),
            adversaries: Default::default(),
        };
        let setup = SetupState {
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
        };
        let mut server = Self {
            core,
            state: State::Setup(Box::new(setup)),
        };
        // A server without clients sends its set-up inventory at once.
        server.setup_progress();
        server.drain_loopback();
        Ok(server)
    }

    /// This server's id.
    pub fn id(&self) -> ServerId {
        self.core.id
    }

    /// The session id.
    pub fn session(&self) -> &SessionId {
        &self.core.session
    }

    /// What the server awaits.
    pub fn phase(&self) -> ServerPhase {
        match &self.state {
            State::Setup(s) if !s.sent_inventory => ServerPhase::AwaitingClientSetups,
            State::Setup(_) => ServerPhase::AwaitingSetup,
            State::Halted => ServerPhase::Halted,
            State::Running(r) => match r.round.step {
                RoundStep::Collecting => ServerPhase::AwaitingSubmissions,
                RoundStep::Inventories => ServerPhase::AwaitingInventories,
                RoundStep::Commits => ServerPhase::AwaitingCommits,
                RoundStep::ServerCiphertexts => ServerPhase::AwaitingServerCiphertexts,
                RoundStep::Signatures => ServerPhase::AwaitingOutputSignatures,
            },
        }
    }

    /// The current round (0 during set-up).
    pub fn round(&self) -> u64 {
        self.core.round
    }

    /// The certified round outputs (round, `RoundOutput` envelope as sent to clients) of rounds
    /// after `after`, oldest first, among the last ones the server keeps — also those no client
    /// was sent (a server all of whose clients moved elsewhere). What a durable history stores.
    pub fn certified_outputs_after(&self, after: Option<u64>) -> Vec<(u64, Arc<[u8]>)> {
        match &self.state {
            State::Running(r) => r
                .outputs
                .iter()
                .filter(|(round, _)| after.is_none_or(|a| *round > a))
                .map(|(round, bytes)| (*round, Arc::clone(bytes)))
                .collect(),
            _ => Vec::new(),
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
                r.future.len()
                    + r.early_blame.len()
                    + r.round.early_cts.iter().flatten().count()
                    + r.round.unchecked.len()
                    + r.round.arrived_inventories.len(),
                r.history.len(),
            ),
            State::Halted => (0, 0),
        };
        Footprint {
            headers: self.core.headers.len(),
            buffered,
            history,
        }
    }

    /// Clients excluded so far.
    pub fn excluded(&self) -> &BTreeSet<ClientId> {
        &self.core.excluded
    }

    /// The next transmission.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.core.transmits.pop_front()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.core.events.pop_front()
    }

    /// Our own broadcasts, in the order we sent them, each handled like a peer's message.
    fn drain_loopback(&mut self) {
        while let Some(msg) = self.core.loopback.pop_front() {
            if matches!(self.state, State::Halted) {
                self.core.loopback.clear();
                return;
            }
            self.dispatch(msg, Signature::Checked);
        }
    }

    /// Routes a message to the handler of the current stage (its signature checked, or, for a
    /// submission to the window being collected, [`Signature::Deferred`]).
    fn dispatch(&mut self, msg: Received<S::G>, signature: Signature) {
        if matches!(self.state, State::Halted) {
            return;
        }
        if signature == Signature::Deferred && !matches!(self.state, State::Running(_)) {
            // Only a running round defers a check (`defers_signature`).
            if let Err(e) = self.core.config.check_signature(&msg) {
                return self.core.reject(e);
            }
        }
        if let Err(stop) = self.core.track(&msg) {
            return self.stop(stop);
        }
        let kind = msg.header().kind;
        let result = match (&mut self.state, kind) {
            (_, Kind::Echo) => self.core.handle_echo(&msg),
            (state, Kind::Alert) => {
                let xor = match state {
                    State::Running(run) => run.nets.xor.as_ref().map(|x| x.roster()),
                    _ => None,
                };
                Err(self.core.on_alert(&msg, xor))
            }
            (
                State::Setup(setup),
                Kind::ClientSetup
                | Kind::SetupInventory
                | Kind::ShuffleStep
                | Kind::Decryption
                | Kind::Dispute,
            ) => match setup.handle(&mut self.core, msg) {
                Ok(Some(run)) => return self.start_running(run),
                Ok(None) => Ok(()),
                Err(stop) => Err(stop),
            },
            (State::Setup(setup), _) => setup.keep_early(&mut self.core, msg),
            (State::Running(run), _) => run.handle(&mut self.core, msg, signature),
            (State::Halted, _) => Ok(()),
        };
        if let Err(stop) = result {
            self.stop(stop);
        }
    }

    /// Set-up is done: round 0 opens, and the round messages of servers that got there first
    /// are handled (verified and tracked on arrival already).
    fn start_running(&mut self, run: Box<state::Running<S>>) {
        let State::Setup(setup) = core::mem::replace(&mut self.state, State::Running(run)) else {
            return;
        };
        let State::Running(run) = &mut self.state else {
            return;
        };
        let mut result = run.check_window(&mut self.core);
        for msg in setup.early.drain() {
            if result.is_err() {
                break;
            }
            result = run.handle(&mut self.core, msg, Signature::Checked);
        }
        // The set-up's log and our clients' set-up messages (the key shuffle's lists and
        // proofs, every client's set-up: megabytes in thousands of allocations) are freed off
        // this thread.
        verdict_group::par::drop_later((setup.log, setup.own));
        if let Err(stop) = result {
            self.stop(stop);
        }
    }

    /// Runs set-up steps that do not wait for a message (its window closing).
    fn setup_progress(&mut self) {
        let State::Setup(setup) = &mut self.state else {
            return;
        };
        match setup.progress(&mut self.core) {
            Ok(Some(run)) => self.start_running(run),
            Ok(None) => {}
            Err(stop) => self.stop(stop),
        }
    }

    /// The session is over for us.
    fn stop(&mut self, stop: Stop) {
        if matches!(self.state, State::Halted) {
            return;
        }
        self.core.report(stop);
        self.state = State::Halted;
    }
}

impl<S: ProtoSuite> SetupState<S> {
    /// A round message while we are still in set-up: a faster server is already in round 0.
    /// Keep its messages (a few per server) until we get there.
    fn keep_early<R: RngCore + CryptoRng>(
        &mut self,
        core: &mut Core<S, R>,
        msg: Received<S::G>,
    ) -> Result<(), Stop> {
        let h = msg.header();
        match (h.sender, h.round) {
            (Party::Server(j), 0) => {
                let held = self.early.servers.entry(j).or_default();
                if held.len() >= EARLY_PER_SERVER {
                    return Err(Stop::bad_message(j, &msg));
                }
                held.push(msg);
            }
            _ => core.reject(MessageError::Unexpected {
                from: h.sender,
                kind: h.kind.name(),
                round: h.round,
            }),
        }
        Ok(())
    }
}
